"""ex(F) for a uniform z from the steps of its columns: every vertex of Kohli and Laskowski's
F_ε[z], up to the column permutations, at n = 5 (issue 55: Kohli and Laskowski's polytopes past
n = 4).

F_ε[z] = {Q ∈ U_ε : z·Q = z} (Def. 4; U_ε as in :mod:`polytopes.u_columns`). With the uniform z,
z·Q = z says that every column sums to 1: F is the set of doubly stochastic ε-DP count mechanisms,
invariant under every permutation of its columns and the reversal of its rows (a group of order
2·n!). A column sums to 1, so it is not 0, and the ratio constraints make all its entries positive.

**The characterisation.** A column's steps (``d``, ``u``, ``l``; :mod:`polytopes.u_columns`) cut it
into s segments with segment vectors g_1, ..., g_s. Summing to 1, the column is

    Q_j = f + Σ_{t ≥ 2} c_t·h_t,   f = g_1/|g_1|,   h_t = |g_1|·g_t − |g_t|·g_1   (|g| = Σ_i g[i]),

with one free coefficient per loose step (the c_t) and every h_t summing to 0. The row sums ask
Σ_j Q_j = 1, i.e. H·c = r with r = 1 − Σ_j f_j and H the h_t of all columns. Then

    Q ∈ F is a vertex  ⇔  the h_t of all its columns are linearly independent.

Proof: a direction Δ keeps every tight constraint of Q exactly when each column's Δ_j is in the span
of its segment vectors and sums to 0 (the column sums), i.e. Δ_j ∈ span{h_t of column j}; it keeps
the row sums when Σ_j Δ_j = 0. Q is a vertex exactly when no such Δ ≠ 0 exists: when the h_t are
independent. So a vertex is named by the **multiset** of its columns' steps (equal columns are
allowed: their h_t are different vectors of the full matrix), it has at most n − 1 loose steps in
all (the h_t lie in the (n − 1)-space of vectors summing to 0), its coefficients solve H·c = r
uniquely, and it is a vertex of F exactly when the solution exists, every segment's coefficient is
positive (c_t > 0, and 1/|g_1| − Σ_t c_t·|g_t| > 0 for g_1) and every loose step is strictly loose
(else the column has other steps, and the vertex is listed under those). A multiset whose steps
occur m_1, m_2, ... times stands for n!/(m_1!·m_2!·...) vertices.

**The enumeration.** A loose step's column is never repeated in a vertex (two equal loose
columns have the same h_t), and a vertex has at least one fixed column (n columns of at least one
loose step each would have n > n − 1 of them). So a vertex is a multiset of k ≥ 1 fixed columns
(the shapes without a loose step, f alone) with a *set* of m = n − k loose ones. The multisets of
fixed columns are listed first, depth first, each with its rest r = 1 − Σ f, pruned at once: the
loose columns must sum to r, so r must be positive and within e^ε between neighbouring rows (a sum
of columns with the ratio property has it). Then for every m and every set of m distinct loose
shapes (at most n − 1 loose steps in all) and every multiset of n − m fixed columns, the
coefficients c are solved in floats, many at once (numpy): with n − 1 loose steps the h_t are a
basis of the vectors summing to 0 and c = H⁻¹·(r − Σ f of the loose columns); with fewer, r − Σ f
must lie in their span (least squares, its residual). Floats only rule out: a candidate is dropped
when a coefficient, an entry or a loose step's slack is below −10⁻⁸ times its scale, far beyond the
rounding error of a set whose h_t have a condition number of at most 10⁵; a set whose h_t look
dependent in floats has its rank decided exactly (FLINT), and every candidate of an independent
set beyond that condition number is decided exactly. Every candidate left is solved and checked
exactly (FLINT's rational row reduction) as above, so a vertex is listed only on an exact decision
and none is lost to rounding. n = 5 takes about a second at e^ε = 2 (2.4·10⁶ multisets considered),
n = 6 about 20 minutes (5.9·10^9; docs/enumerate.md).

:func:`check_f_census` verifies each listed vertex without segment vectors, from F's own
constraints as equations (:func:`polytopes.u_columns.matrix_from_steps`); with ``recount`` it
enumerates again. ``tests/test_f_columns.py`` compares the vertex sets with cddlib's at n ≤ 4 (four
e^ε) and Normaliz's at n = 5 (slow).

Examples
--------
>>> census = f_vertices_by_columns(3, 2)
>>> census.vertex_count, len(census.step_sets), census.orbit_count
(36, 6, 5)
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from polytopes.u_columns import (
    ColumnCensusCheck,
    check_column_census,
    check_u_census,
    column_census_document,
    matrix_from_steps,
    orbit_key,
    orderings,
    segment_vectors,
    u_census_document,
    u_vertices_by_columns,
)
from qifkit.errors import CertificateError, ParameterError
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["F_COLUMNS_MAX_N", "F_CENSUS_FORMAT", "FColumnCensus", "f_vertices_by_columns", "f_census_document",
           "check_f_census", "COLUMN_CENSUSES"]

#: Largest n taken: n = 6 considers about 6·10^9 multisets of steps (minutes, docs/benchmarks.md); at
#: n = 7 the sets of six loose columns alone are 6·10^10.
F_COLUMNS_MAX_N = 6

#: The format tag of a census file of F (uniform z).
F_CENSUS_FORMAT = "qifkit census of F (uniform z) by column steps, version 1"

#: Floats rule a candidate out only beyond these (module docstring): a loose set's h_t are taken as
#: independent in floats when |det| (or the least singular value) is above _SINGULAR times the
#: product of the column norms (the largest one); when their condition number is above
#: _CONDITION every candidate of the set is decided exactly; a coefficient, entry or loose step
#: rules a candidate out only below −_MARGIN times its scale (1 + the largest |coefficient|; the
#: h_t are scaled to entries of at most 1), and a loose step's slack e^ε·Q[i+1] − Q[i] only below
#: (1 + e^ε) times that.
_SINGULAR = 1e-9
_CONDITION = 1e5
_MARGIN = 1e-8

#: Loose sets tested together in floats (memory: sets × fixed multisets × n doubles).
_CHUNK = 4096

_Q = flint.fmpq


@dataclass(frozen=True)
class FColumnCensus:
    """Every vertex of F_ε with the uniform z, up to the column permutations.

    Attributes
    ----------
    n : int
    eps_exp : Fraction
    step_sets : tuple of tuple of str
        One per vertex up to the column permutations: its columns' steps, fixed columns first, in
        the order of the search (a multiset: a fixed column's steps may repeat).
    visited : int
        Multisets of steps considered (a set of fixed columns with a set of loose ones; the work done).
    seconds : float
    """

    n: int
    eps_exp: Fraction
    step_sets: tuple[tuple[str, ...], ...]
    visited: int
    seconds: float

    def size(self, steps: Sequence[str]) -> int:
        """The vertices a step set stands for: its distinct orderings among the n columns."""
        return orderings(steps, self.n)

    @property
    def vertex_count(self) -> int:
        """|ex(F)|."""
        return sum(orderings(steps, self.n) for steps in self.step_sets)

    @property
    def orbit_count(self) -> int:
        """The orbits of ex(F) under the column permutations and the reversal of the rows."""
        return len({orbit_key(steps) for steps in self.step_sets})

    def matrix(self, k: int) -> list[list[Fraction]]:
        """The vertex of step set k, its columns in the set's order, solved again from F's
        constraints as equations (:func:`polytopes.u_columns.matrix_from_steps`)."""
        matrix = matrix_from_steps(self.step_sets[k], self.n, self.eps_exp, fixed=True)
        if matrix is None:
            raise CertificateError(f"the steps {self.step_sets[k]} fix no matrix of F")
        return matrix

    def vertices(self) -> Iterator[tuple[tuple[Fraction, ...], ...]]:
        """Every vertex (all column orders): for small n."""
        for k in range(len(self.step_sets)):
            columns = list(zip(*self.matrix(k), strict=True))
            for order in set(itertools.permutations(columns)):
                yield tuple(zip(*order, strict=True))


@dataclass(frozen=True)
class _Shape:
    """One column's steps with what the search needs: its loose count, segment vectors, the fixed
    part f = g_1/|g_1| and the directions h_t (module docstring), in flint rationals."""

    loose: int
    steps: str
    segments: tuple[tuple[int, ...], ...]
    fixed: tuple[flint.fmpq, ...]
    directions: tuple[tuple[flint.fmpq, ...], ...]

    @classmethod
    def of(cls, steps: str, e: Fraction) -> _Shape:
        segments = tuple(segment_vectors(steps, e))
        first = segments[0]
        total = sum(first)
        directions = tuple(tuple(_Q(total * a - sum(g) * b) for a, b in zip(g, first, strict=True))
                           for g in segments[1:])
        return cls(steps.count("l"), steps, segments, tuple(_Q(v, total) for v in first), directions)

    def column(self, c: Sequence[flint.fmpq], e: flint.fmpq) -> tuple[flint.fmpq, ...] | None:
        """The column f + Σ c_t·h_t, if every segment's coefficient is positive and every loose
        step strictly loose; else None."""
        if any(x <= 0 for x in c):
            return None
        total = sum(self.segments[0])
        first = _Q(1, total) - sum((x * sum(g) for x, g in zip(c, self.segments[1:], strict=True)), _Q(0))
        if first <= 0:
            return None
        entries = [_Q(0)] * len(self.fixed)
        for coefficient, g in zip([first, *(x * total for x in c)], self.segments, strict=True):
            for i, v in enumerate(g):
                if v:
                    entries[i] = coefficient * v
        for i, step in enumerate(self.steps):
            if step == "l" and not (entries[i] < e * entries[i + 1] and entries[i + 1] < e * entries[i]):
                return None
        return tuple(entries)


def f_vertices_by_columns(n: int, eps_exp: Any) -> FColumnCensus:
    """Every vertex of F_ε with the uniform z (Kohli and Laskowski, Def. 4) from its columns' steps
    (module docstring).

    Parameters
    ----------
    n : int
        The number of counts, 2 ≤ n ≤ :data:`F_COLUMNS_MAX_N`.
    eps_exp : exact number or str
        e^ε > 1.

    Returns
    -------
    FColumnCensus

    Raises
    ------
    ParameterError
        n outside 2..F_COLUMNS_MAX_N, or e^ε not a number > 1.
    """
    size, e = whole_number(n, 2, "n"), eps_exp_above_one(eps_exp, allow_one=False)
    if size > F_COLUMNS_MAX_N:
        raise ParameterError(f"n = {size}: F by column steps stops at n = {F_COLUMNS_MAX_N} (n = 6 considers "
                             "6·10^9 multisets of steps; at n = 7 the sets of six loose columns alone are 6·10^10)")
    started = time.perf_counter()
    ratio = _Q(e.numerator, e.denominator)
    shapes = tuple(sorted((_Shape.of("".join(s), e) for s in itertools.product("dul", repeat=size - 1)),
                          key=lambda shape: (shape.loose, shape.steps)))
    fixed = _fixed_multisets(shapes, size, ratio)
    found = [vertex for chosen, rest in fixed.get(size, []) if (vertex := _solved(shapes, chosen, rest, ratio))]
    tables = _Tables.of(shapes, size, float(e))
    tried = len(fixed.get(size, []))
    for m in range(1, size):
        sets = fixed.get(size - m, [])
        if not sets:
            continue
        targets = np.array([[float(v) for v in rest] for _, rest in sets]).T
        for dims in _dimensions(m, size - 1):
            for loose in _loose_sets(tables.classes, dims):
                tried += len(loose) * len(sets)
                for row, k in _float_candidates(loose, dims, tables, targets, shapes):
                    chosen, rest = sets[k]
                    picked = tuple(int(i) for i in loose[row])
                    for i in picked:
                        rest = [r - v for r, v in zip(rest, shapes[i].fixed, strict=True)]
                    vertex = _solved(shapes, chosen + picked, rest, ratio)
                    if vertex is not None:
                        found.append(vertex)
    found.sort()
    return FColumnCensus(size, e, tuple(found), tried, time.perf_counter() - started)


def _fixed_multisets(shapes: Sequence[_Shape], n: int, ratio: flint.fmpq
                     ) -> dict[int, list[tuple[tuple[int, ...], list[flint.fmpq]]]]:
    """Every multiset of k fixed columns (no loose step; the first shapes) that the other n − k
    columns can complete, by k, with its rest r = 1 − Σ f: depth first, pruned by
    :func:`_can_be_filled`."""
    count = sum(1 for shape in shapes if not shape.loose)
    found: dict[int, list[tuple[tuple[int, ...], list[flint.fmpq]]]] = {}
    stack: list[tuple[int, tuple[int, ...], list[flint.fmpq]]] = [(0, (), [_Q(1)] * n)]
    while stack:
        start, chosen, rest = stack.pop()
        found.setdefault(len(chosen), []).append((chosen, rest))
        if len(chosen) == n:
            continue
        for k in range(start, count):
            after = [r - v for r, v in zip(rest, shapes[k].fixed, strict=True)]
            if _can_be_filled(after, n - len(chosen) - 1, ratio):
                stack.append((k, chosen + (k,), after))
    return found


def _dimensions(m: int, most: int) -> Iterator[tuple[int, ...]]:
    """The loose counts of m loose columns in the search's order (non-decreasing), at most `most` in all."""
    if m == 0:
        yield ()
        return
    for first in range(1, most // m + 1):
        for rest in _dimensions(m - 1, most - first):
            if not rest or rest[0] >= first:
                yield (first, *rest)


@dataclass(frozen=True)
class _Tables:
    """The shapes in floats for the search: f (shape × row), the h_t of the shapes of each loose
    count d (shape × row × d, 0 for the other shapes), each divided by its largest |entry| (which
    scales its coefficient and keeps its sign), which steps are loose, and the shapes by loose
    count."""

    fixed: np.ndarray
    directions: dict[int, np.ndarray]
    loose_steps: np.ndarray
    classes: dict[int, np.ndarray]
    ratio: float

    @classmethod
    def of(cls, shapes: Sequence[_Shape], n: int, ratio: float) -> _Tables:
        directions = {d: np.zeros((len(shapes), n, d)) for d in range(1, n)}
        for k, shape in enumerate(shapes):
            for t, h in enumerate(shape.directions):  # each h_t divided by its largest |entry|: no overflow
                largest = max(abs(v) for v in h)
                directions[shape.loose][k, :, t] = [float(v / largest) for v in h]
        classes = {d: np.array([k for k, shape in enumerate(shapes) if shape.loose == d], dtype=np.int32)
                   for d in range(1, n)}
        return cls(np.array([[float(v) for v in shape.fixed] for shape in shapes]), directions,
                   np.array([[s == "l" for s in shape.steps] for shape in shapes]), classes, ratio)


def _loose_sets(classes: Mapping[int, np.ndarray], dims: tuple[int, ...]) -> Iterator[np.ndarray]:
    """Every set of distinct loose shapes with these loose counts (an array of shape indices per row,
    increasing), in chunks of about _CHUNK rows. A loose shape never repeats: two equal columns
    have the same h_t, which are then dependent."""
    groups = [(d, dims.count(d)) for d in sorted(set(dims))]
    parts = [np.fromiter(itertools.chain.from_iterable(itertools.combinations(classes[d].tolist(), r)),
                         dtype=np.int32).reshape(-1, r) for d, r in groups]
    sizes = [len(part) for part in parts]
    total = math.prod(sizes)
    for start in range(0, total, _CHUNK):
        index = np.arange(start, min(start + _CHUNK, total))
        picks = np.unravel_index(index, sizes)
        yield np.concatenate([part[pick] for part, pick in zip(parts, picks, strict=True)], axis=1)


def _float_candidates(loose: np.ndarray, dims: tuple[int, ...], tables: _Tables, targets: np.ndarray,
                      shapes: Sequence[_Shape]) -> Iterator[tuple[int, int]]:
    """The (row of `loose`, fixed multiset) pairs that floats cannot rule out (module docstring):
    every pair of a loose set whose h_t are independent but ill-conditioned, and the pairs whose
    coefficients, entries and loose steps are nowhere below −_MARGIN."""
    rows, m = loose.shape
    n, count = targets.shape
    total = sum(dims)
    fixed = tables.fixed[loose]  # rows × m × n
    base = fixed.sum(axis=1)  # Σ f of the loose columns: rows × n
    directions = np.concatenate([tables.directions[d][loose[:, j]] for j, d in enumerate(dims)], axis=2)
    if total == n - 1:  # the h_t are a basis of the sum-0 hyperplane: its first n − 1 coordinates
        square = directions[:, :n - 1, :]
        clear = np.abs(np.linalg.det(square)) > _SINGULAR * np.prod(np.linalg.norm(square, axis=1), axis=1)
        inverse = np.zeros_like(square)
        inverse[clear] = np.linalg.inv(square[clear])
        condition = np.linalg.norm(square, axis=(1, 2)) * np.linalg.norm(inverse, axis=(1, 2))
    else:
        left, values, right = np.linalg.svd(directions, full_matrices=False)
        clear = values[:, -1] > _SINGULAR * values[:, 0]
        condition = values[:, 0] / np.where(clear, values[:, -1], 1.0)
    unclear = [row for row in np.flatnonzero(~clear) if _independent(shapes, loose[row], n)]
    doubtful = clear & (condition > _CONDITION)
    doubtful[unclear] = True
    for row in np.flatnonzero(doubtful):
        yield from ((int(row), k) for k in range(count))
    kept = np.flatnonzero(clear & ~doubtful)
    if total == n - 1:  # c = H⁻¹·(r − Σ f), r − Σ f summing to 0; one product for all the rests
        inverse = inverse[kept]
        coefficients = ((inverse.reshape(-1, total) @ targets[:n - 1]).reshape(len(kept), total, count)
                        - inverse @ base[kept, :n - 1, None])
        reached = np.ones((len(kept), count), dtype=bool)
    else:  # least squares; r − Σ f must be in the span: its residual
        gap = targets[None, :, :] - base[kept, :, None]
        along = np.einsum("bnl,bnk->blk", left[kept], gap)
        reached = np.abs(gap - left[kept] @ along).max(axis=1) < _MARGIN * (1 + np.abs(gap).max(axis=1))
        coefficients = np.einsum("blj,bl,blk->bjk", right[kept], 1 / values[kept], along)
    scale = 1 + np.abs(coefficients).max(axis=1)  # kept × count
    at, k_of = np.nonzero(reached & (coefficients.min(axis=1) > -_MARGIN * scale))
    if not len(at):
        return
    row_of = kept[at]
    c = coefficients[at, :, k_of]
    h = directions[row_of]
    margin = _MARGIN * scale[at, k_of][:, None]
    good = np.ones(len(row_of), dtype=bool)
    start = 0
    for j, d in enumerate(dims):
        column = fixed[row_of, j, :] + np.einsum("pnl,pl->pn", h[:, :, start:start + d], c[:, start:start + d])
        start += d
        upper, lower = column[:, :-1], column[:, 1:]
        slack = margin * (1 + tables.ratio)  # e^ε times an entry's error
        strict = (tables.ratio * lower - upper > -slack) & (tables.ratio * upper - lower > -slack)
        good &= (column > -margin).all(axis=1) & (strict | ~tables.loose_steps[loose[row_of, j]]).all(axis=1)
    yield from zip(row_of[good].tolist(), k_of[good].tolist(), strict=True)


def _independent(shapes: Sequence[_Shape], picked: np.ndarray, n: int) -> bool:
    """Are the h_t of these loose shapes linearly independent? Exactly (FLINT's rank)."""
    directions = [h for k in picked for h in shapes[int(k)].directions]
    return flint.fmpq_mat(n, len(directions), [h[i] for i in range(n) for h in directions]).rank() == len(directions)


def _can_be_filled(rest: Sequence[flint.fmpq], columns: int, ratio: flint.fmpq) -> bool:
    """Can `columns` more columns of F sum to `rest`? None: it must be 0. Some: it must be positive
    with neighbouring entries within e^ε (their sum has the ratio property of each)."""
    if columns == 0:
        return not any(rest)
    return all(v > 0 for v in rest) and all(a <= ratio * b and b <= ratio * a
                                            for a, b in zip(rest, rest[1:], strict=False))


def _solved(shapes: Sequence[_Shape], chosen: Sequence[int], rest: Sequence[flint.fmpq], ratio: flint.fmpq
            ) -> tuple[str, ...] | None:
    """The steps of the vertex of a full multiset (`rest` = r = 1 − Σ f of all its columns), if it is
    one: H·c = r solved exactly, its columns checked; None when the h_t are dependent, r is not in
    their span or a check fails."""
    picked = [shapes[k] for k in chosen]
    directions = [h for shape in picked for h in shape.directions]
    count, n = len(directions), len(rest)
    if count == 0:
        c: list[flint.fmpq] = []
    else:
        augmented = flint.fmpq_mat(n, count + 1, [x for i in range(n) for x in [*(h[i] for h in directions), rest[i]]])
        reduced, rank = augmented.rref()
        if rank != count or any(reduced[t, t] != 1 for t in range(count)):
            return None  # dependent directions (a pivot missing) or r outside their span (a pivot on r)
        c = [reduced[t, count] for t in range(count)]
    used = 0
    for shape in picked:
        if shape.column(c[used:used + shape.loose], ratio) is None:
            return None
        used += shape.loose
    return tuple(shape.steps for shape in picked)


def f_census_document(census: FColumnCensus, command: str) -> dict[str, Any]:
    """The census file of :func:`f_vertices_by_columns` (JSON data): one entry per orbit under the
    column permutations and the row reversal, its steps and its number of vertices."""
    return column_census_document(census, command, {"format": F_CENSUS_FORMAT, "polytope": "F", "z": "uniform"})


def check_f_census(document: Mapping[str, Any], recount: bool = False) -> ColumnCensusCheck:
    """Re-verify a census file of F (uniform z), exactly; raise if anything is wrong.

    Every orbit's steps (n words) are read as a matrix solved from F's defining constraints alone
    (row sums, column sums, the ratio constraints its tight steps name, as equations: they must fix
    one matrix, rank n²), which must lie in F exactly: then it is a vertex, the equations being
    constraints of F tight at it with rank n². Its columns must have exactly the listed steps (a
    step called loose that is tight is refused); the entry must name its orbit (the lesser of its
    sorted steps and their reversal), no orbit may appear twice, each size must be the orbit's
    number of vertices and the count their sum. With ``recount`` the enumeration is run again and
    must give exactly the listed orbits and sizes: a file with an orbit removed is refused.

    Raises
    ------
    CertificateError
    """
    if document.get("z") != "uniform":
        raise CertificateError(f"not a census file of F with the uniform z (its z is {document.get('z')!r})")
    return check_column_census(document, polytope="F", census_format=F_CENSUS_FORMAT, max_n=F_COLUMNS_MAX_N,
                               fixed=True, again=lambda n, e: f_census_document(f_vertices_by_columns(n, e), "")
                               if recount else None)


#: U and F (uniform z) by their columns' steps: the enumeration, its census file and the file's checker.
COLUMN_CENSUSES: dict[str, tuple[Callable[[int, Any], Any], Callable[[Any, str], dict[str, Any]],
                                 Callable[[Mapping[str, Any]], ColumnCensusCheck]]] = {
    "U": (u_vertices_by_columns, u_census_document, check_u_census),
    "F": (f_vertices_by_columns, f_census_document, check_f_census),
}
