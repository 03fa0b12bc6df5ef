"""A second exact enumeration backend: Normaliz (Bruns, Ichim, Söger and von der Ohe), through its
Python interface PyNormaliz (PyPI ``pynormaliz``, a wheel with libnormaliz and FLINT for Linux
x86_64). Normaliz computes the vertices of a rational polyhedron by its own exact algorithms
(Fourier–Motzkin with pyramid decomposition), independent of cddlib and lrs.

The H-representation is handed over with integer rows (each row of rationals times the lcm of its
denominators); Normaliz returns each vertex as integers with a common denominator last.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from polytopes.hrep import Polytope
from qifkit.errors import MissingDependencyError, PolytopeError
from qifkit.numbers import over_common_denominator

__all__ = ["normaliz_available", "normaliz_vertices", "normaliz_integer_rays"]

INSTALL_HINT = "pip install pynormaliz (wheels for Linux x86_64; elsewhere see normaliz.uos.de)"


def _module() -> Any:
    """PyNormaliz set to one thread, or None when it is not installed.

    One thread because a Ctrl-C inside Normaliz's OpenMP region can deadlock its thread team: seen
    under load in ``qifkit enumerate LDP --n 5``, the process then idles in libgomp's barrier
    (``Full_Cone::find_new_facets``) forever instead of exiting 130. On two cores one thread
    costs about 8% (four blocks of that enumeration: 14.9 s against 13.8 s)."""
    try:
        import PyNormaliz
    except ImportError:
        return None
    PyNormaliz.NmzSetNumberOfNormalizThreads(1)
    return PyNormaliz


def normaliz_available() -> bool:
    """True when PyNormaliz imports."""
    return _module() is not None


def _integers(row: Sequence[Fraction]) -> list[int]:
    return over_common_denominator(row)[0]


def _integer_row(row: tuple[Fraction, ...]) -> list[int]:
    """(b, a_1, ..., a_d) for b + a·x ≥ 0 as Normaliz's inhomogeneous row [a_1, ..., a_d, b] in integers."""
    integers = _integers(row)
    return integers[1:] + integers[:1]


def normaliz_vertices(polytope: Polytope) -> set[tuple[Fraction, ...]]:
    """The vertices Normaliz finds, as exact coordinate tuples.

    Parameters
    ----------
    polytope : Polytope
        A bounded polytope.

    Returns
    -------
    set of tuple of Fraction

    Raises
    ------
    QifError
        If PyNormaliz is not installed, or the set has rays or lines (not a polytope).
    """
    module = _module()
    if module is None:
        raise MissingDependencyError(f"the normaliz method needs PyNormaliz: {INSTALL_HINT}")
    cone = module.Cone(inhom_inequalities=[_integer_row(row) for row in polytope.inequalities],
                       inhom_equations=[_integer_row(row) for row in polytope.equalities])
    if cone.RecessionRank() != 0:
        raise PolytopeError(f"{polytope.name} is not bounded: Normaliz found rays or lines")
    return {tuple(Fraction(v, vertex[-1]) for v in vertex[:-1]) for vertex in cone.VerticesOfPolyhedron()}


def normaliz_integer_rays(equalities: Sequence[Sequence[Fraction]],
                          inequalities: Sequence[Sequence[Fraction]]) -> list[tuple[int, ...]]:
    """The extreme rays of the pointed cone {d : E·d = 0, A·d ≥ 0}, each as Normaliz's primitive
    integer vector.

    Raises
    ------
    QifError
        If PyNormaliz is not installed, or the cone is not pointed (it holds a line).
    """
    module = _module()
    if module is None:
        raise MissingDependencyError(f"the normaliz method needs PyNormaliz: {INSTALL_HINT}")
    cone = module.Cone(inequalities=[_integers(row) for row in inequalities],
                       equations=[_integers(row) for row in equalities])
    if cone.MaximalSubspace():
        raise PolytopeError("the tangent cone has a line: the point is not a vertex")
    return [tuple(int(v) for v in ray) for ray in cone.ExtremeRays()]
