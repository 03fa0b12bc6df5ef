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

**The enumeration.** Depth first over multisets of steps, the steps ordered by their number of
loose steps, so the columns without one, which are fixed (f), come first and are pruned at once:
the columns still to come must sum to r = 1 − Σ f, so r must be positive and within e^ε between
neighbouring rows (a sum of columns with the ratio property has it). A full multiset is solved
exactly (FLINT's rational row reduction) and checked as above. No float is used and nothing is
rounded. n = 5 takes about 40 s at e^ε = 2 (3·10⁶ multisets tried); from n = 4 to 5 the multisets
tried grew 450 times, so n = 6 would take hours of this process (docs/enumerate.md).

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
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint

from polytopes.u_columns import (
    ColumnCensusCheck,
    check_column_census,
    check_u_census,
    column_census_document,
    orbit_key,
    orderings,
    segment_vectors,
    u_census_document,
    u_vertices_by_columns,
)
from qifkit.errors import CertificateError, ParameterError
from qifkit.numbers import reduced_fractions
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["F_COLUMNS_MAX_N", "F_CENSUS_FORMAT", "FColumnCensus", "f_vertices_by_columns", "f_census_document",
           "check_f_census", "COLUMN_CENSUSES"]

#: Largest n taken: n = 5 tries 3·10⁶ multisets of steps (under a minute); they grew 450 times from
#: n = 4 to 5, so n = 6 would take hours.
F_COLUMNS_MAX_N = 5

#: The format tag of a census file of F (uniform z).
F_CENSUS_FORMAT = "qifkit census of F (uniform z) by column steps, version 1"

_Q = flint.fmpq


@dataclass(frozen=True)
class FColumnCensus:
    """Every vertex of F_ε with the uniform z, up to the column permutations.

    Attributes
    ----------
    n : int
    eps_exp : Fraction
    step_sets : tuple of tuple of str
        One per vertex up to the column permutations: its columns' steps, in the order of the
        search (a multiset: a step may repeat).
    columns : tuple of tuple of tuple of Fraction
        For each step set, its columns (in the same order), exactly.
    visited : int
        Multisets of steps tried, partial ones included (the work done).
    seconds : float
    """

    n: int
    eps_exp: Fraction
    step_sets: tuple[tuple[str, ...], ...]
    columns: tuple[tuple[tuple[Fraction, ...], ...], ...]
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
        """The vertex of step set k, its columns in the set's order."""
        return [[column[i] for column in self.columns[k]] for i in range(self.n)]

    def vertices(self) -> Iterator[tuple[tuple[Fraction, ...], ...]]:
        """Every vertex (all column orders): for small n."""
        for columns in self.columns:
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
        raise ParameterError(f"n = {size}: F by column steps stops at n = {F_COLUMNS_MAX_N} (the multisets of steps "
                             "tried grew 450 times from n = 4 to 5, where they are 3·10^6: n = 6 would take hours)")
    started = time.perf_counter()
    ratio = _Q(e.numerator, e.denominator)
    shapes = sorted((_Shape.of("".join(s), e) for s in itertools.product("dul", repeat=size - 1)),
                    key=lambda shape: (shape.loose, shape.steps))
    found: list[tuple[tuple[str, ...], tuple[tuple[flint.fmpq, ...], ...]]] = []
    visited = 0
    stack: list[tuple[int, tuple[int, ...], list[flint.fmpq], int]] = [(0, (), [_Q(1)] * size, 0)]
    while stack:
        start, chosen, rest, loose = stack.pop()
        visited += 1
        if len(chosen) == size:
            vertex = _solved([shapes[k] for k in chosen], rest, ratio)
            if vertex is not None:
                found.append(vertex)
            continue
        left = size - len(chosen) - 1  # columns still to choose after this one
        for k in range(start, len(shapes)):
            shape = shapes[k]
            after = [r - v for r, v in zip(rest, shape.fixed, strict=True)]
            if shape.loose == 0 and not _can_be_filled(after, left, ratio):
                continue
            if shape.loose and loose + shape.loose + left > size - 1:
                continue  # the columns after this one are loose too (the order): ≥ 1 loose step each
            stack.append((k, chosen + (k,), after, loose + shape.loose))
    found.sort()
    step_sets = tuple(steps for steps, _ in found)
    columns = tuple(tuple(reduced_fractions(column) for column in cols) for _, cols in found)
    return FColumnCensus(size, e, step_sets, columns, visited, time.perf_counter() - started)


def _can_be_filled(rest: Sequence[flint.fmpq], columns: int, ratio: flint.fmpq) -> bool:
    """Can `columns` more columns of F sum to `rest`? None: it must be 0. Some: it must be positive
    with neighbouring entries within e^ε (their sum has the ratio property of each)."""
    if columns == 0:
        return not any(rest)
    return all(v > 0 for v in rest) and all(a <= ratio * b and b <= ratio * a
                                            for a, b in zip(rest, rest[1:], strict=False))


def _solved(shapes: Sequence[_Shape], rest: Sequence[flint.fmpq], ratio: flint.fmpq
            ) -> tuple[tuple[str, ...], tuple[tuple[flint.fmpq, ...], ...]] | None:
    """The vertex of a full multiset (`rest` = r = 1 − Σ f): H·c = r solved exactly, its columns
    checked; None when the h_t are dependent, r is not in their span or a check fails."""
    directions = [h for shape in shapes for h in shape.directions]
    count, n = len(directions), len(rest)
    if count == 0:
        c: list[flint.fmpq] = []
    else:
        augmented = flint.fmpq_mat(n, count + 1, [x for i in range(n) for x in [*(h[i] for h in directions), rest[i]]])
        reduced, rank = augmented.rref()
        if rank != count or any(reduced[t, t] != 1 for t in range(count)):
            return None  # dependent directions (a pivot missing) or r outside their span (a pivot on r)
        c = [reduced[t, count] for t in range(count)]
    columns, used = [], 0
    for shape in shapes:
        column = shape.column(c[used:used + shape.loose], ratio)
        if column is None:
            return None
        columns.append(column)
        used += shape.loose
    return tuple(shape.steps for shape in shapes), tuple(columns)


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
