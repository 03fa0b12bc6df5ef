"""polytopes: sets of DP mechanisms as exact polytopes (vertices, classification, design).

Built on :mod:`qifkit`. The modules, by what they hold:

* :mod:`polytopes.hrep`, :mod:`polytopes.spaces`: the polytopes of the papers (Holohan et al.'s D,
  Kohli and Laskowski's U, F, R_U, R_F) as exact H-representations with their symmetry groups;
* :mod:`polytopes.enumerate` (cddlib), :mod:`polytopes.lrs`, :mod:`polytopes.normaliz`,
  :mod:`polytopes.orbitwise`, :mod:`polytopes.adjacency`, :mod:`polytopes.ldp_support`,
  :mod:`polytopes.ldp_faces`: exact vertex enumeration, independent cross-checks, enumeration up to
  symmetry and its completeness;
* :mod:`polytopes.classify`, :mod:`polytopes.ldp_parametric`: Holohan et al.'s classification of
  points of D, and its vertices for every e^ε at once;
* :mod:`polytopes.scales`, :mod:`polytopes.representation`, :mod:`polytopes.fixed_point`,
  :mod:`polytopes.two_stage`: Kohli and Laskowski's ε-scales, representation matrices,
  Algorithms 1 and 2, and the two-stage count framework;
* :mod:`polytopes.lp`, :mod:`polytopes.constrained`: LPs over these polytopes through
  :mod:`qifkit.lp`, and Cormode et al.'s constrained design LP.

The names below are loaded on first use (PEP 562), like :mod:`qifkit`'s; every other name stays in
its module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qifkit.lazy import lazy_exports

#: The public names, by the module each lives in.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "polytopes.constrained": (
        "PROPERTIES", "design_program", "optimal_mechanism", "properties_of", "property_violation", "recommend",
        "weakly_honest_mechanism",
    ),
    "polytopes.enumerate": ("Enumeration", "Vertex", "enumerate_vertices", "read_ext"),
    "polytopes.fixed_point.algorithm1": ("heuristic_constructor",),
    "polytopes.fixed_point.algorithm2": ("count_error", "count_error_weights", "unfixed_optimum"),
    "polytopes.fixed_point.construction": ("Construction",),
    "polytopes.fixed_point.verification": ("verify_mechanism",),
    "polytopes.hrep": ("Polytope", "SparsePolytope", "read_ine"),
    "polytopes.lp": ("certified_minimum", "exact_minimum", "float_minimum",),
    "polytopes.lrs": ("lrs_vertices",),
    "polytopes.normaliz": ("normaliz_vertices",),
    "polytopes.orbitwise": ("enumerate_orbits",),
    "polytopes.spaces": ("count_polytope", "ldp_polytope", "representation_polytope",),
    "polytopes.two_stage": ("privatise_table", "two_stage_release", "wasserstein1",),
}
_HOMES, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from polytopes.constrained import (
        PROPERTIES,
        design_program,
        optimal_mechanism,
        properties_of,
        property_violation,
        recommend,
        weakly_honest_mechanism,
    )
    from polytopes.enumerate import Enumeration, Vertex, enumerate_vertices, read_ext
    from polytopes.fixed_point.algorithm1 import heuristic_constructor
    from polytopes.fixed_point.algorithm2 import count_error, count_error_weights, unfixed_optimum
    from polytopes.fixed_point.construction import Construction
    from polytopes.fixed_point.verification import verify_mechanism
    from polytopes.hrep import Polytope, SparsePolytope, read_ine
    from polytopes.lp import certified_minimum, exact_minimum, float_minimum
    from polytopes.lrs import lrs_vertices
    from polytopes.normaliz import normaliz_vertices
    from polytopes.orbitwise import enumerate_orbits
    from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
    from polytopes.two_stage import privatise_table, two_stage_release, wasserstein1

#: Every public name, by its home (_EXPORTS).
__all__ = list(_HOMES)
