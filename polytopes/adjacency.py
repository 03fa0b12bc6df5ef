"""Completeness of a vertex list by adjacency closure, up to symmetry (exact).

A polytope's graph (vertices joined by edges) is connected (Balinski's theorem gives more). So a
non-empty list V of vertices of P is *all* of them as soon as every neighbour of every vertex in V
is in V. With a symmetry group G of P that maps V onto itself, it is enough to look at one vertex
per orbit: the neighbours of g·v are g applied to the neighbours of v.

The neighbours of a vertex v are found without the list: the edges at v are the extreme rays of
its tangent cone {d : E·d = 0, a_k·d ≥ 0 for the inequalities k tight at v}, enumerated exactly by
cddlib (GMP); along each ray r the neighbour is v + t·r with the largest t that keeps every other
inequality, a ratio test in exact rationals. This is a second argument, independent of how V was
computed (e.g. :mod:`polytopes.ldp_support` by column supports), and it is the step from which
adjacency decomposition builds a list in the first place.

The orbit–stabiliser count Σ |G| / |Stab(v)| over the representatives must equal |V| too; it is
computed from the group's elements, generated from its generators.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import cdd
import cdd.gmp

from polytopes.classify import rank
from polytopes.hrep import Polytope, permuted
from qifkit.errors import PolytopeError

__all__ = ["Closure", "edge_directions", "neighbours", "group_elements", "adjacency_closure"]

Point = tuple[Fraction, ...]


def edge_directions(polytope: Polytope, vertex: Sequence[Fraction], cone_method: str = "cdd") -> list[Point]:
    """The extreme rays of the tangent cone of `polytope` at `vertex`: one direction per edge,
    by cddlib (GMP) or, with ``cone_method="normaliz"``, by Normaliz (much faster on the very
    degenerate cones of D at n ≥ 5; :mod:`polytopes.normaliz`).

    Raises
    ------
    QifError
        If `vertex` is not a vertex of the polytope (outside it, or its tight rows have rank < d).
    """
    if not polytope.contains(vertex):
        raise PolytopeError("the point is not in the polytope")
    tight = sorted(polytope.tight(vertex))
    rows = [list(row[1:]) for row in polytope.equalities] + [list(polytope.inequalities[k][1:]) for k in tight]
    if rank(rows) != polytope.dimension_of_space:
        raise PolytopeError("the point is not a vertex: its tight constraints have rank below the dimension")
    if cone_method == "normaliz":
        from polytopes.normaliz import normaliz_cone_rays

        return normaliz_cone_rays([row[1:] for row in polytope.equalities],
                                  [polytope.inequalities[k][1:] for k in tight])
    equalities = [[Fraction(0), *row[1:]] for row in polytope.equalities]
    cone = equalities + [[Fraction(0), *polytope.inequalities[k][1:]] for k in tight]
    matrix = cdd.gmp.matrix_from_array(cone, lin_set=range(len(equalities)), rep_type=cdd.RepType.INEQUALITY)
    generators = cdd.gmp.copy_generators(cdd.gmp.polyhedron_from_matrix(matrix))
    if generators.lin_set:
        raise PolytopeError("the tangent cone has a line: the point is not a vertex")
    return [tuple(Fraction(v) for v in row[1:]) for row in generators.array if row[0] == 0]


def neighbours(polytope: Polytope, vertex: Sequence[Fraction], cone_method: str = "cdd") -> set[Point]:
    """The vertices joined to `vertex` by an edge, exactly (tangent-cone rays, by `cone_method`
    as in :func:`edge_directions`, and a ratio test)."""
    found = set()
    rows = [(row[0], [(k, a) for k, a in enumerate(row[1:]) if a]) for row in polytope.inequalities]  # sparse
    slacks = [b + sum(a * vertex[k] for k, a in terms) for b, terms in rows]
    for direction in edge_directions(polytope, vertex, cone_method):
        step = None
        for slack, (_, terms) in zip(slacks, rows, strict=True):
            change = sum(a * direction[k] for k, a in terms if direction[k])
            if change < 0:
                limit = slack / -change
                step = limit if step is None or limit < step else step
        if step is None:
            raise PolytopeError("an edge is unbounded: the set is not a polytope")
        found.add(tuple(x + step * d for x, d in zip(vertex, direction, strict=True)))
    return found


def group_elements(generators: Sequence[Sequence[int]], size: int) -> list[tuple[int, ...]]:
    """Every permutation of range(size) that the generators produce (breadth first)."""
    identity = tuple(range(size))
    seen = {identity}
    frontier = [identity]
    while frontier:
        following = []
        for element in frontier:
            for generator in generators:
                product = tuple(generator[element[k]] for k in range(size))
                if product not in seen:
                    seen.add(product)
                    following.append(product)
        frontier = following
    return sorted(seen)


@dataclass(frozen=True)
class Closure:
    """The outcome of :func:`adjacency_closure`.

    Attributes
    ----------
    representatives : int
        Vertices looked at (one per orbit).
    neighbours : int
        Neighbours found in all (with repetition across representatives).
    missing : Point or None
        A neighbour that is not in the list (then the list is incomplete), or None.
    orbit_stabiliser_total : int
        Σ |G| / |Stab(v)| over the representatives; equals the list's size when the orbits are right.
    group_order : int
        |G|.
    """

    representatives: int
    neighbours: int
    missing: Point | None
    orbit_stabiliser_total: int
    group_order: int


def adjacency_closure(polytope: Polytope, vertices: Iterable[Point], representatives: Sequence[Point]) -> Closure:
    """Check that a vertex list is closed under adjacency, one representative per orbit.

    Parameters
    ----------
    polytope : Polytope
        The polytope, with its symmetry generators.
    vertices : iterable of points
        The list to be shown complete; it must be closed under the symmetry group (e.g. checked by
        :func:`polytopes.enumerate.orbits`, which raises otherwise).
    representatives : sequence of points
        One vertex of each orbit of the list; each is checked to be a vertex (tight rank d).

    Returns
    -------
    Closure
        ``missing is None`` and ``orbit_stabiliser_total == len(vertices)`` together prove that the
        list is the whole vertex set (connectivity of the graph of a polytope).
    """
    known = set(vertices)
    group = group_elements(polytope.symmetries, polytope.dimension_of_space)
    found, missing, total = 0, None, 0
    for representative in representatives:
        stabiliser = sum(1 for g in group if permuted(representative, g) == representative)
        total += len(group) // stabiliser
        around = neighbours(polytope, representative)
        found += len(around)
        outside = [point for point in around if point not in known]
        if outside and missing is None:
            missing = min(outside)
    return Closure(len(representatives), found, missing, total, len(group))
