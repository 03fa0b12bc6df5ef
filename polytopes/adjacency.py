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

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from polytopes.classify import rank
from polytopes.hrep import IntegerKey, Polytope, integer_key, key_point, permuted
from qifkit.errors import PolytopeError
from qifkit.extras import needs_extra
from qifkit.numbers import over_common_denominator, primitive_integers

with needs_extra("polytopes"):  # pycddlib: a missing one is an error naming the extra to install
    import cdd
    import cdd.gmp

__all__ = ["Closure", "IntegerRows", "adjacency_closure", "cone_rays", "edge_directions", "group_elements",
           "neighbours"]

Point = tuple[Fraction, ...]


def cone_rays(equalities: Sequence[Sequence[Fraction]], inequalities: Sequence[Sequence[Fraction]],
              cone_method: str = "cdd") -> list[tuple[int, ...]]:
    """The extreme rays of the pointed cone {d : E·d = 0, A·d ≥ 0}, each as its primitive integer
    vector, by cddlib (GMP) or Normaliz.

    Raises
    ------
    QifError
        If the cone holds a line (it is not pointed).
    """
    if cone_method == "normaliz":
        from polytopes.normaliz import normaliz_integer_rays

        return normaliz_integer_rays(equalities, inequalities)
    cone = [[Fraction(0), *row] for row in equalities] + [[Fraction(0), *row] for row in inequalities]
    matrix = cdd.gmp.matrix_from_array(cone, lin_set=range(len(equalities)), rep_type=cdd.RepType.INEQUALITY)
    generators = cdd.gmp.copy_generators(cdd.gmp.polyhedron_from_matrix(matrix))
    if generators.lin_set:
        raise PolytopeError("the tangent cone has a line: the point is not a vertex")
    return [primitive_integers(row[1:]) for row in generators.array if row[0] == 0]


def edge_directions(polytope: Polytope, vertex: Sequence[Fraction], cone_method: str = "cdd") -> list[tuple[int, ...]]:
    """The extreme rays of the tangent cone of `polytope` at `vertex`: one direction per edge, as
    primitive integer vectors, by cddlib (GMP) or, with ``cone_method="normaliz"``, by Normaliz
    (much faster on the very degenerate cones of D at n ≥ 5; :mod:`polytopes.normaliz`).

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
    return cone_rays([row[1:] for row in polytope.equalities], [polytope.inequalities[k][1:] for k in tight],
                     cone_method)


def _integers(values: Sequence[int], size: int) -> np.ndarray:
    """A 2-D integer array with `size` columns: int64 while every entry is below 2^31 (the callers'
    products of two such arrays then stay exact: see :meth:`IntegerRows.products`), else objects."""
    bound = max((abs(v) for v in values), default=0)
    return np.array(values, dtype=np.int64 if bound < 2**31 else object).reshape(-1, size)


class IntegerRows:
    """A polytope's inequalities b + A·x ≥ 0 with each row scaled to integers, for exact tight
    sets and ratio tests at points given as integer keys (:data:`polytopes.hrep.IntegerKey`).
    Scaling a row by a positive number changes neither its sign at a point nor its ratio tests."""

    def __init__(self, polytope: Polytope) -> None:
        rows = [over_common_denominator(row)[0] for row in polytope.inequalities]
        self.size = polytope.dimension_of_space
        self.offsets = np.array([row[0] for row in rows], dtype=object)
        self.normals = _integers([a for row in rows for a in row[1:]], self.size)

    def products(self, vectors: Sequence[Sequence[int]]) -> np.ndarray:
        """A·v for each integer vector v (a column each), exactly: in int64 when no sum can
        reach 2^62, else in Python integers."""
        matrix = _integers([v for vector in vectors for v in vector], self.size)
        if matrix.dtype == object or self.normals.dtype == object or (
                int(np.abs(matrix).max(initial=0)) * int(np.abs(self.normals).max(initial=0)) * self.size >= 2**62):
            return self.normals.astype(object) @ matrix.astype(object).T
        return self.normals @ matrix.T

    def slacks(self, key: IntegerKey) -> np.ndarray:
        """b·q + A·N at the point N / q: zero exactly where a row is tight, negative outside."""
        denominator, numerators = key
        return self.offsets * denominator + self.products([numerators])[:, 0].astype(object)

    def tight(self, key: IntegerKey) -> list[int]:
        """The rows tight at the point."""
        return [int(k) for k in np.flatnonzero(self.slacks(key) == 0)]

    def steps(self, key: IntegerKey, directions: Sequence[Sequence[int]]) -> list[IntegerKey]:
        """The neighbour along each edge direction: N/q + t·d with the largest t that keeps every
        row, as an integer key; floats only preselect the least ratios, compared then exactly.

        Raises
        ------
        PolytopeError
            If a direction meets no row that limits it (the set is not a polytope).
        """
        if not directions:
            return []
        denominator, numerators = key
        slacks = self.slacks(key)
        changes = self.products(directions)  # row k, direction j: a_k·d_j
        limiting = changes < 0
        if not limiting.any(axis=0).all():
            raise PolytopeError("an edge is unbounded: the set is not a polytope")
        try:
            with np.errstate(divide="ignore", invalid="ignore"):
                ratios = np.where(limiting, slacks.astype(float)[:, None] / -changes.astype(float), np.inf)
            near = ratios <= ratios.min(axis=0) * (1 + 1e-9)
        except OverflowError:  # numbers past floats: every limiting row is compared exactly
            near = limiting
        found = []
        for j, direction in enumerate(directions):
            top, bottom = 1, 0  # the least slack / -change among the near rows, compared exactly
            for k in np.flatnonzero(near[:, j]):
                slack, change = int(slacks[k]), -int(changes[k, j])
                if bottom == 0 or slack * bottom < top * change:
                    top, bottom = slack, change
            entries = [x * bottom + top * d for x, d in zip(numerators, direction, strict=True)]
            scale = denominator * bottom
            divisor = math.gcd(scale, *entries)
            found.append((scale // divisor, tuple(v // divisor for v in entries)))
        return found


def neighbours(polytope: Polytope, vertex: Sequence[Fraction], cone_method: str = "cdd") -> set[Point]:
    """The vertices joined to `vertex` by an edge, exactly (tangent-cone rays, by `cone_method`
    as in :func:`edge_directions`, and a ratio test, :meth:`IntegerRows.steps`)."""
    directions = edge_directions(polytope, vertex, cone_method)
    return {key_point(key) for key in IntegerRows(polytope).steps(integer_key(vertex), directions)}


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
