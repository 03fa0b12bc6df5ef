"""ex(U) from the faces of its columns: every vertex of Kohli and Laskowski's U_ε, up to the column
permutations, at n = 6 (issue 55: U past n = 5).

U = {Q ∈ ℝ^{n×n} : Q ≥ 0, every row sums to 1, e^−ε ≤ Q[i+1, j] / Q[i, j] ≤ e^ε} (Def. 3; rows are
the true counts, columns the outputs). The ratio constraints hold column by column, so a column
that is not 0 has all its entries positive, and U is invariant under every permutation of its
columns and under the reversal of its rows: a group of order 2·n!, which the reversal-only orbit
walk of :mod:`polytopes.orbitwise` does not use.

**The characterisation.** A positive column's *steps* say, for each neighbouring pair i, i+1,
whether Q[i] = e^ε·Q[i+1] (``d``, down), Q[i+1] = e^ε·Q[i] (``u``, up) or neither (``l``, loose).
The loose steps cut 0..n−1 into segments; on a segment the column is one fixed shape (a partial
ε-scale) times a positive amount, and the *segment vectors* (that shape on its segment, 0
elsewhere) span the directions in which the column can move and keep every tight step. Then

    Q ∈ U is a vertex  ⇔  the segment vectors of all its non-zero columns are linearly independent.

Proof: a direction Δ keeps every tight constraint of Q exactly when Δ is 0 on the zero columns and
in the span of its segment vectors on every other column; it keeps the row sums when Σ_j Δ_j = 0.
Q is a vertex exactly when no such Δ ≠ 0 exists, i.e. when Σ_S c_S·g_S = 0 forces c = 0.

So a vertex is named by the **set** of its non-zero columns' steps (two equal steps would repeat
their segment vectors), with at most n segments in all; its columns are c_S·g_S, where
1 = Σ_S c_S·g_S is the row-sum equation, whose solution is unique; and it is a vertex of U exactly
when every c_S > 0 and every loose step is strictly loose (else the column has other steps, and
the vertex is listed under those). The zero columns fill the rest: a set with m non-zero columns
stands for n!/(n − m)! vertices. Positive vertices (m = n, so one segment per column: every column
a multiple of an ε-scale) are Kohli and Laskowski's Thm. 2.

**The enumeration.** Depth first over sets of steps in a fixed order, with exact fraction-free
elimination: every segment vector added is reduced against those already chosen (a dependent one
ends the branch), and so is the residue of the vector of ones. When the residue vanishes, 1 lies
in the span and the coefficients are read off exactly; the set is kept if they are positive and
its loose steps strictly loose, and it is not extended (a larger independent set would give the
new vectors coefficient 0). The columns whose segments complete a basis, the most numerous sets
tried, are tested together from one integer inverse of the node's basis (:func:`_completions`).
No float is used and nothing is rounded.

:func:`check_u_census` verifies each listed vertex without segment vectors: the matrix its steps
name is solved from U's constraints taken as equations (they must fix it, rank n²) and must lie in
U; with ``recount`` it enumerates again. ``tests/test_u_columns.py`` compares the vertex sets with
cddlib's at n ≤ 4 (four e^ε) and Normaliz's at n = 5 (e^ε = 2 and 3/2).

Examples
--------
>>> census = u_vertices_by_columns(3, 2)
>>> census.vertex_count, len(census.step_sets), census.orbit_count
(27, 5, 4)
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import mul
from typing import Any, Protocol

import flint

from qifkit.errors import CertificateError, ParameterError
from qifkit.numbers import exact_str, over_common_denominator, parse_eps_exp
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["U_COLUMNS_MAX_N", "U_CENSUS_FORMAT", "UColumnCensus", "ColumnCensusCheck", "u_vertices_by_columns",
           "reversed_steps", "segment_vectors", "orbit_key", "orderings", "steps_of", "matrix_from_steps",
           "in_count_polytope", "u_census_document", "check_u_census", "ColumnCensus", "column_census_document",
           "check_column_census"]

#: Largest n taken: n = 6 tries 5.3·10^6 sets of steps (minutes); the sets tried grew 52 times from n = 4 to
#: 5 and 156 times from 5 to 6, so n = 7 would take hours.
U_COLUMNS_MAX_N = 6

#: The format tag of a census file of U.
U_CENSUS_FORMAT = "qifkit census of U by column steps, version 1"

_STEPS = "dul"


def segment_vectors(steps: str, e: Fraction) -> list[tuple[int, ...]]:
    """The primitive integer vectors of a column's segments: the tight shape on each segment, 0 elsewhere."""
    n = len(steps) + 1
    vectors, start = [], 0
    for i in range(n):
        if i < n - 1 and steps[i] != "l":
            continue
        shape = [Fraction(0)] * n
        shape[start] = Fraction(1)
        for k in range(start, i):
            shape[k + 1] = shape[k] / e if steps[k] == "d" else shape[k] * e
        scale = math.lcm(*(v.denominator for v in shape))
        whole = [int(v * scale) for v in shape]
        common = math.gcd(*whole)
        vectors.append(tuple(v // common for v in whole))
        start = i + 1
    return vectors


def _column_of(steps: str, coefficients: Sequence[Fraction], e: Fraction) -> list[Fraction]:
    """The column Σ_S c_S·g_S of a step string and one coefficient per segment."""
    column = [Fraction(0)] * (len(steps) + 1)
    for c, vector in zip(coefficients, segment_vectors(steps, e), strict=True):
        for i, v in enumerate(vector):
            if v:
                column[i] = c * v
    return column


def orderings(steps: Sequence[str], n: int) -> int:
    """The vertices one list of non-zero columns' steps stands for: its distinct orderings among the
    n columns, the other n − m columns 0: n!/((n − m)!·m_1!·m_2!·...) for steps repeated m_1, m_2, ...
    times (U's steps never repeat; F's columns are never 0)."""
    repeats = math.prod(math.factorial(m) for m in Counter(steps).values())
    return math.factorial(n) // (math.factorial(n - len(steps)) * repeats)


def reversed_steps(steps: str) -> str:
    """The steps of a column read from the other end: the reversal of the rows turns down into up."""
    return "".join({"d": "u", "u": "d", "l": "l"}[s] for s in reversed(steps))


@dataclass(frozen=True)
class UColumnCensus:
    """Every vertex of U_ε, up to the column permutations.

    Attributes
    ----------
    n : int
    eps_exp : Fraction
    step_sets : tuple of tuple of str
        One per vertex up to the column permutations: the steps of its non-zero columns, in the
        order of the search (steps compared letter by letter with d < u < l).
    coefficients : tuple of tuple of Fraction
        For each step set, its segments' coefficients c_S in the order of the steps and segments.
    visited : int
        Sets of steps tried (the work done).
    seconds : float
    """

    n: int
    eps_exp: Fraction
    step_sets: tuple[tuple[str, ...], ...]
    coefficients: tuple[tuple[Fraction, ...], ...]
    visited: int
    seconds: float

    def size(self, steps: Sequence[str]) -> int:
        """The vertices a step set stands for: its orderings among the n columns."""
        return orderings(steps, self.n)

    @property
    def vertex_count(self) -> int:
        """|ex(U)|."""
        return sum(self.size(steps) for steps in self.step_sets)

    @property
    def orbit_count(self) -> int:
        """The orbits of ex(U) under the column permutations and the reversal of the rows."""
        return len({orbit_key(steps) for steps in self.step_sets})

    def matrix(self, k: int) -> list[list[Fraction]]:
        """The vertex of step set k, its non-zero columns first (in the set's order), then zeros."""
        columns, used = [], 0
        for steps in self.step_sets[k]:
            segments = steps.count("l") + 1
            columns.append(_column_of(steps, self.coefficients[k][used:used + segments], self.eps_exp))
            used += segments
        columns += [[Fraction(0)] * self.n] * (self.n - len(columns))
        return [[column[i] for column in columns] for i in range(self.n)]

    def vertices(self) -> Iterator[tuple[tuple[Fraction, ...], ...]]:
        """Every vertex (all column orders): for small n."""
        for k in range(len(self.step_sets)):
            columns = list(zip(*self.matrix(k), strict=True))
            for order in set(itertools.permutations(columns)):
                yield tuple(zip(*order, strict=True))


class _Span:
    """Segment vectors kept independent by fraction-free elimination, with the residue of 1.

    Each kept row is (pivot, vector, combination) with vector = Σ_t combination[t]·g_t over the
    chosen segment vectors g_t (t < n: at most n are independent); the residue is
    α·1 − Σ_t β_t·g_t, reduced against every kept row.
    """

    __slots__ = ("rows", "residue", "alpha", "beta", "used")

    def __init__(self, rows: list, residue: list[int], alpha: int, beta: list[int], used: int) -> None:
        self.rows, self.residue, self.alpha, self.beta, self.used = rows, residue, alpha, beta, used

    def extended(self, vectors: Sequence[tuple[int, ...]]) -> _Span | None:
        """The span with `vectors` added, or None if they make it dependent."""
        rows, residue, alpha, beta = list(self.rows), self.residue, self.alpha, self.beta
        used = self.used
        for vector in vectors:
            v = list(vector)
            combination = [0] * len(beta)
            combination[used] = 1
            for pivot, w, c in rows:
                b = v[pivot]
                if b:
                    a = w[pivot]
                    v = [a * x - b * y for x, y in zip(v, w, strict=True)]
                    combination = [a * x - b * y for x, y in zip(combination, c, strict=True)]
            pivot = next((i for i, x in enumerate(v) if x), -1)
            if pivot < 0:
                return None
            common = math.gcd(*v, *combination)
            if common > 1:
                v, combination = [x // common for x in v], [x // common for x in combination]
            rows.append((pivot, v, combination))
            used += 1
            b = residue[pivot]
            if b:
                a = v[pivot]
                residue = [a * x - b * y for x, y in zip(residue, v, strict=True)]
                beta = [a * x + b * y for x, y in zip(beta, combination, strict=True)]
                alpha *= a
                common = math.gcd(alpha, *residue, *beta)
                if common > 1:
                    residue, beta, alpha = [x // common for x in residue], [x // common for x in beta], alpha // common
        return _Span(rows, residue, alpha, beta, used)

    def positive_coefficients(self) -> tuple[list[int], int] | None:
        """(β, α) with α > 0 and 1 = Σ (β_t/α)·g_t, if 1 is in the span and every β_t > 0."""
        alpha, beta = self.alpha, self.beta[:self.used]
        if alpha < 0:
            alpha, beta = -alpha, [-b for b in beta]
        if any(self.residue) or any(b <= 0 for b in beta):
            return None
        return beta, alpha

    @property
    def spans_one(self) -> bool:
        """Is 1 in the span?"""
        return not any(self.residue)


@dataclass(frozen=True)
class _Columns:
    """Every column's steps at n and e^ε, with what the search needs of each: its segment vectors,
    their supports (start, end, the non-zero entries) and its loose steps (:func:`_loose_pairs`)."""

    steps: tuple[str, ...]
    vectors: tuple[tuple[tuple[int, ...], ...], ...]
    supports: tuple[tuple[tuple[int, int, tuple[int, ...]], ...], ...]
    loose_pairs: tuple[tuple[tuple[int, int, int], ...], ...]
    e: Fraction

    @classmethod
    def of(cls, n: int, e: Fraction) -> _Columns:
        steps = tuple("".join(s) for s in itertools.product(_STEPS, repeat=n - 1))
        vectors = tuple(tuple(segment_vectors(s, e)) for s in steps)
        supports = tuple(tuple(_support(v) for v in segments) for segments in vectors)
        loose = tuple(tuple(_loose_pairs(s, segments)) for s, segments in zip(steps, vectors, strict=True))
        return cls(steps, vectors, supports, loose, e)

    def vertex(self, picked: tuple[int, ...], beta: Sequence[int], alpha: int
               ) -> tuple[tuple[str, ...], tuple[Fraction, ...]] | None:
        """The step set and coefficients β/α (α > 0) if every β is positive and every loose step
        strictly loose, else None."""
        if min(beta) <= 0 or not _all_loose_strict(picked, self.loose_pairs, beta, self.e):
            return None
        return tuple(self.steps[j] for j in picked), tuple(Fraction(b, alpha) for b in beta)


def _support(vector: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
    """(start, end, entries) of a segment vector's non-zero run."""
    start = next(i for i, v in enumerate(vector) if v)
    end = start
    while end < len(vector) and vector[end]:
        end += 1
    return start, end, vector[start:end]


def u_vertices_by_columns(n: int, eps_exp: Any) -> UColumnCensus:
    """Every vertex of U_ε (Kohli and Laskowski, Def. 3) from its columns' steps (module docstring).

    Parameters
    ----------
    n : int
        The number of counts, 2 ≤ n ≤ :data:`U_COLUMNS_MAX_N`.
    eps_exp : exact number or str
        e^ε > 1.

    Returns
    -------
    UColumnCensus

    Raises
    ------
    ParameterError
        n outside 2..U_COLUMNS_MAX_N, or e^ε not a number > 1.
    """
    size, e = whole_number(n, 2, "n"), eps_exp_above_one(eps_exp, allow_one=False)
    if size > U_COLUMNS_MAX_N:
        raise ParameterError(f"n = {size}: U by column steps stops at n = {U_COLUMNS_MAX_N} (the sets of steps tried "
                             "grew 156 times from n = 5 to 6, where they are 5.3·10^6: n = 7 would take hours)")
    started = time.perf_counter()
    columns = _Columns.of(size, e)
    vectors, count = columns.vectors, len(columns.steps)
    found: list[tuple[tuple[str, ...], tuple[Fraction, ...]]] = []
    visited = 0
    stack: list[tuple[int, int, _Span, tuple[int, ...]]] = [(0, 0, _Span([], [1] * size, 1, [0] * size, 0), ())]
    while stack:
        start, segments, span, chosen = stack.pop()
        if segments:  # the columns that complete a basis: one inverse for all of them
            completing = [k for k in range(start, count) if segments + len(vectors[k]) == size]
            visited += len(completing)
            found += _completions(span, chosen, completing, columns)
        for k in range(start, count):
            if segments + len(vectors[k]) > size or (segments and segments + len(vectors[k]) == size):
                continue
            visited += 1
            wider = span.extended(vectors[k])
            if wider is None:
                continue
            picked = chosen + (k,)
            if not wider.spans_one:
                stack.append((k + 1, segments + len(vectors[k]), wider, picked))
                continue
            solution = wider.positive_coefficients()
            vertex = None if solution is None else columns.vertex(picked, *solution)
            if vertex is not None:
                found.append(vertex)
    found.sort()
    return UColumnCensus(size, e, tuple(s for s, _ in found), tuple(c for _, c in found), visited,
                         time.perf_counter() - started)


def _integer_inverse(matrix: list[list[int]]) -> tuple[list[list[int]], int]:
    """(adj(M), det M) of a square integer matrix: M⁻¹ = adj(M)/det M (det M ≠ 0)."""
    if len(matrix) == 1:
        return [[1]], matrix[0][0]
    if len(matrix) == 2:
        (a, b), (c, d) = matrix
        return [[d, -b], [-c, a]], a * d - b * c
    square = flint.fmpz_mat(matrix)
    det = int(square.det())
    if det == 0:
        return [], 0
    return [[int((x * det).p) for x in row] for row in square.inv().tolist()], det


def _completions(span: _Span, chosen: tuple[int, ...], candidates: Sequence[int], columns: _Columns
                 ) -> list[tuple[tuple[str, ...], tuple[Fraction, ...]]]:
    """The vertices made by adding one column of s segments to n − s independent segment vectors
    G (every candidate has s segments): what :meth:`_Span.extended` would find for each, by one
    inverse per node and an s × s one per candidate.

    With E the unit vectors at the s positions no kept row pivots on, B₀ = [G | E] is invertible.
    For the candidate's vectors V write Y = adj(B₀)·1 and H = adj(B₀)·V (integers), H split into
    its first n − s rows H' and last s rows H''. B = [G | V] = B₀·[[I, H'/d₀], [0, H''/d₀]] is a
    basis exactly when det H'' ≠ 0, and B·c = 1 gives, for V, c'' = adj(H'')·Y''/det H'' and, for
    G, c' = (det H''·Y' − H'·adj(H'')·Y'')/(d₀·det H'').
    """
    size, kept_count = len(span.residue), span.used
    pivots = {pivot for pivot, _, _ in span.rows}
    free = [i for i in range(size) if i not in pivots]
    kept = [v for k in chosen for v in columns.vectors[k]]
    base = [[v[i] for v in kept] + [1 if i == f else 0 for f in free] for i in range(size)]
    adjugate, det = _integer_inverse(base)
    y = [sum(row) for row in adjugate]
    y_top, y_bottom = y[:kept_count], y[kept_count:]
    found = []
    top, bottom = adjugate[:kept_count], adjugate[kept_count:]
    for k in candidates:
        pieces = columns.supports[k]
        inner, inner_det = _integer_inverse([[sum(map(mul, row[a:b], v)) for a, b, v in pieces] for row in bottom])
        if not inner_det:
            continue  # the candidate's vectors are dependent on G
        new = [sum(map(mul, row, y_bottom)) for row in inner]  # c'' · det H''
        if any(c * inner_det <= 0 for c in new):
            continue  # a coefficient of the candidate is not positive
        beta = [inner_det * y_t - sum(sum(map(mul, row[a:b], v)) * c for (a, b, v), c in zip(pieces, new, strict=True))
                for y_t, row in zip(y_top, top, strict=True)]
        beta += [c * det for c in new]
        alpha = det * inner_det
        if alpha < 0:
            alpha, beta = -alpha, [-b for b in beta]
        vertex = columns.vertex(chosen + (k,), beta, alpha)
        if vertex is not None:
            found.append(vertex)
    return found


def _loose_pairs(steps: str, vectors: Sequence[tuple[int, ...]]) -> list[tuple[int, int, int]]:
    """For each loose step i of a column: (segment ending at i, its vector's entry at i, the next
    segment's entry at i + 1); the next segment is the one after."""
    pairs, segment = [], 0
    for i, step in enumerate(steps):
        if step == "l":
            pairs.append((segment, vectors[segment][i], vectors[segment + 1][i + 1]))
            segment += 1
    return pairs


def _all_loose_strict(picked: Sequence[int], loose_pairs: Sequence[Sequence[tuple[int, int, int]]],
                      beta: Sequence[int], e: Fraction) -> bool:
    """Is every loose step strictly loose, e^−ε < Q[i+1]/Q[i] < e^ε, with the column entries
    β_S·g_S[i]/α (α > 0, compared in integers)?"""
    p, q = e.numerator, e.denominator
    used = 0
    for k in picked:
        for segment, here, there in loose_pairs[k]:
            left, right = beta[used + segment] * here, beta[used + segment + 1] * there
            if not (q * left < p * right and q * right < p * left):
                return False
        used += len(loose_pairs[k]) + 1
    return True


def orbit_key(steps: Sequence[str]) -> tuple[str, ...]:
    """The orbit's name under the column permutations and the row reversal: the lesser of the sorted
    steps and the sorted reversed steps."""
    return min(tuple(sorted(steps)), tuple(sorted(map(reversed_steps, steps))))


def u_census_document(census: UColumnCensus, command: str) -> dict[str, Any]:
    """The census file of :func:`u_vertices_by_columns` (JSON data): one entry per orbit under the
    column permutations and the row reversal, its steps and its number of vertices."""
    return column_census_document(census, command, {"format": U_CENSUS_FORMAT, "polytope": "U"})


class ColumnCensus(Protocol):
    """What a census by columns' steps holds (:class:`UColumnCensus`,
    :class:`polytopes.f_columns.FColumnCensus`)."""

    @property
    def n(self) -> int: ...

    @property
    def eps_exp(self) -> Fraction: ...

    @property
    def step_sets(self) -> tuple[tuple[str, ...], ...]: ...

    @property
    def visited(self) -> int: ...

    @property
    def seconds(self) -> float: ...

    def size(self, steps: Sequence[str]) -> int: ...

    @property
    def vertex_count(self) -> int: ...


def column_census_document(census: ColumnCensus, command: str, header: dict[str, Any]) -> dict[str, Any]:
    """A census file (JSON data) of U or F by columns' steps: `header` (format, polytope, ...), then
    one entry per orbit under the column permutations and the row reversal, its steps and its
    number of vertices, and the work done."""
    sizes: dict[tuple[str, ...], int] = {}
    for steps in census.step_sets:
        key = orbit_key(steps)
        sizes[key] = sizes.get(key, 0) + census.size(steps)
    return {
        **header,
        "n": census.n,
        "eps_exp": exact_str(census.eps_exp),
        "count": census.vertex_count,
        "step_sets": len(census.step_sets),
        "group_order": 2 * math.factorial(census.n),
        "orbits": [{"steps": " ".join(key), "size": size} for key, size in sorted(sizes.items())],
        "visited": census.visited,
        "seconds": round(census.seconds, 2),
        "command": command,
    }


@dataclass(frozen=True)
class ColumnCensusCheck:
    """What :func:`check_u_census` (or :func:`polytopes.f_columns.check_f_census`) verified: the
    vertex count, the orbits, whether the enumeration was run again and compared orbit by orbit."""

    count: int
    orbits: int
    recounted: bool


def matrix_from_steps(steps: Sequence[str], n: int, e: Fraction, fixed: bool = False) -> list[list[Fraction]] | None:
    """The one matrix with these non-zero columns' tight steps, zero columns after them and rows
    summing to 1 (and, for F with its uniform z, ``fixed``, columns summing to 1), solved from the
    polytope's defining constraints taken as equations (not from the vertex criterion), or None if
    they do not fix a single matrix.

    Solved by blocks: the tight steps of a column (d: Q[i+1] = Q[i]/e^ε, u: Q[i+1] = e^ε·Q[i]) are
    equations inside that column whose solutions are exactly the combinations Σ_t α_t·g_t of its
    segment vectors (a chain of ratios fixes a segment up to its factor; the loose steps separate
    the segments). The row sums (and column sums) are then equations on the α, and the
    constraints fix one matrix exactly when these fix one α (α ↦ matrix is one to one: the
    segments of a column have disjoint supports), i.e. the system has rank = the number of α and
    a solution."""
    scaled = _scaled_matrix_from_steps(steps, n, e, fixed)
    if scaled is None:
        return None
    numerators, denominator = scaled
    return [[Fraction(v, denominator) for v in row] for row in numerators]


def _scaled_matrix_from_steps(steps: Sequence[str], n: int, e: Fraction, fixed: bool
                              ) -> tuple[list[list[int]], int] | None:
    """:func:`matrix_from_steps` as integer numerators over one positive denominator."""
    unknowns = [(j, g) for j, word in enumerate(steps) for g in _segments(word, e)]
    if fixed and len(steps) < n:
        return None  # a zero column cannot sum to 1
    rows = [[g[i] for _, g in unknowns] + [1] for i in range(n)]
    if fixed:
        rows += [[sum(g) if column == j else 0 for column, g in unknowns] + [1] for j in range(len(steps))]
    count = len(unknowns)
    reduced, denominator, rank = flint.fmpz_mat(rows).rref()
    if rank != count or reduced[count - 1, count - 1] == 0:  # not fixed, or no solution (a pivot in the last column)
        return None
    sign = 1 if denominator > 0 else -1
    numerators = [[0] * n for _ in range(n)]
    for k, (j, g) in enumerate(unknowns):
        alpha = sign * int(reduced[k, count])
        for i, v in enumerate(g):
            if v:
                numerators[i][j] = alpha * v
    return numerators, sign * int(denominator)


@functools.lru_cache(maxsize=4096)
def _segments(steps: str, e: Fraction) -> tuple[tuple[int, ...], ...]:
    """:func:`segment_vectors`, kept: a census checks millions of columns of a few hundred kinds."""
    return tuple(segment_vectors(steps, e))


def in_count_polytope(matrix: Sequence[Sequence[Fraction]], e: Fraction, fixed: bool = False) -> bool:
    """U's Def. 3 exactly: non-negative, rows summing to 1, neighbouring rows within e^ε in every
    column; with ``fixed``, F's with a uniform z too: z·Q = z, i.e. every column sums to 1."""
    numerators, denominator = over_common_denominator(v for row in matrix for v in row)
    width = max(1, len(matrix[0]) if matrix else 1)
    rows = [numerators[i:i + width] for i in range(0, len(numerators), width)]
    return _scaled_in_count_polytope(rows, denominator, e, fixed)


def steps_of(column: Sequence[Fraction], e: Fraction) -> str:
    """The steps (``d``, ``u``, ``l``) a column of exact entries has at e^ε."""
    return _scaled_steps(over_common_denominator(column)[0], e)


def _scaled_in_count_polytope(numerators: Sequence[Sequence[int]], denominator: int, e: Fraction, fixed: bool) -> bool:
    """:func:`in_count_polytope` of the matrix numerators/denominator (denominator > 0), in integers:
    a ≤ e^ε·b is q·a ≤ p·b for e^ε = p/q."""
    p, q = e.numerator, e.denominator
    rows = zip(numerators, numerators[1:], strict=False)
    pairs = [(a, b) for upper, lower in rows for a, b in zip(upper, lower, strict=True)]
    return (all(v >= 0 for row in numerators for v in row) and all(sum(row) == denominator for row in numerators)
            and all(q * a <= p * b and q * b <= p * a for a, b in pairs)
            and (not fixed or all(sum(column) == denominator for column in zip(*numerators, strict=True))))


def _scaled_steps(column: Sequence[int], e: Fraction) -> str:
    """:func:`steps_of` of a column of numerators over one positive denominator."""
    p, q = e.numerator, e.denominator
    pairs = zip(column, column[1:], strict=False)
    return "".join("d" if q * a == p * b else "u" if q * b == p * a else "l" for a, b in pairs)


def check_u_census(document: Mapping[str, Any], recount: bool = False) -> ColumnCensusCheck:
    """Re-verify a census file of U, exactly; raise if anything is wrong.

    Every orbit's steps are read as a matrix solved from U's defining constraints alone (the row
    sums, the ratio constraints its tight steps name, Q ≥ 0 on its zero columns, as equations: they
    must fix one matrix, rank n²), which must lie in U (Def. 3, exactly): then it is a vertex, the
    equations being constraints of U tight at it with rank n². Its columns must have exactly the
    listed steps (a step called loose that is tight is refused: that vertex is listed under its
    real steps); the entry must name its orbit (the lesser of its sorted steps and their
    reversal), no orbit may appear twice, each size must be the orbit's number of vertices and the
    count their sum. With ``recount`` the enumeration is run again and must give exactly the listed
    orbits and sizes: a file with an orbit removed is refused.

    Raises
    ------
    CertificateError
    """
    return check_column_census(document, polytope="U", census_format=U_CENSUS_FORMAT, max_n=U_COLUMNS_MAX_N,
                               fixed=False, again=lambda n, e: u_census_document(u_vertices_by_columns(n, e), "")
                               if recount else None)


def check_column_census(document: Mapping[str, Any], *, polytope: str, census_format: str, max_n: int, fixed: bool,
                        again: Callable[[int, Fraction], Mapping[str, Any] | None]) -> ColumnCensusCheck:
    """The checks of :func:`check_u_census`, for U (``fixed=False``: 1..n non-zero columns, the rest
    0) or F with the uniform z (``fixed``: n columns, each summing to 1;
    :func:`polytopes.f_columns.check_f_census`); `again(n, e)` is the census enumerated again, or
    None for no recount."""
    if document.get("format") != census_format or document.get("polytope") != polytope:
        raise CertificateError(f"not a census file of {polytope} (format must be {census_format!r})")
    n = whole_number(document.get("n"), 2, "the census's n", maximum=max_n, error=CertificateError)
    e = parse_eps_exp(str(document.get("eps_exp")))
    if e <= 1:
        raise CertificateError(f"the census's e^ε = {exact_str(e)} is not above 1")
    orbits = document.get("orbits")
    if not isinstance(orbits, list) or not orbits:
        raise CertificateError(f"a census of {polytope} lists its orbits")
    seen: dict[tuple[str, ...], int] = {}
    total = 0
    fewest = n if fixed else 1
    for k, entry in enumerate(orbits):
        where = f"orbit {k + 1}"
        text = entry.get("steps") if isinstance(entry, Mapping) else None
        steps = text.split(" ") if isinstance(text, str) else []
        if not fewest <= len(steps) <= n or any(len(s) != n - 1 or set(s) - set(_STEPS) for s in steps):
            raise CertificateError(f"{where}: its steps {text!r} are not {'' if fixed else '1..'}{n} words of {n - 1} "
                                   "letters d, u, l separated by single spaces")
        key = tuple(steps)
        if key != orbit_key(steps):
            raise CertificateError(f"{where}: {text!r} is not its orbit's name (sorted, and not above its reversal)")
        if key in seen:
            raise CertificateError(f"{where} is orbit {seen[key] + 1} again")
        seen[key] = k
        scaled = _scaled_matrix_from_steps(steps, n, e, fixed)
        if scaled is None or not _scaled_in_count_polytope(*scaled, e, fixed):
            raise CertificateError(f"{where}: the steps {text!r} give no vertex of {polytope} (n = {n}, "
                                   f"e^ε = {exact_str(e)})")
        if [_scaled_steps([row[j] for row in scaled[0]], e) for j in range(len(steps))] != steps:
            raise CertificateError(f"{where}: a column's loose step is tight; the vertex is listed under other steps")
        size = orderings(steps, n) * (1 if tuple(sorted(map(reversed_steps, steps))) == key else 2)
        if entry.get("size") != size:
            raise CertificateError(f"{where}: size {entry.get('size')} is not the orbit's {size} vertices")
        total += size
    if document.get("count") != total:
        raise CertificateError(f"the count {document.get('count')} is not the orbits' sum {total}")
    recounted = again(n, e)
    if recounted is not None:
        listed = {o["steps"]: o["size"] for o in orbits}
        found = {o["steps"]: o["size"] for o in recounted["orbits"]}
        if listed != found:
            missing = sorted(set(found) - set(listed))
            raise CertificateError(f"the column steps, enumerated again, give {len(found)} orbits; the file lists "
                                   f"{len(listed)}" + (f" (missing: {missing[0]!r})" if missing else ""))
    return ColumnCensusCheck(total, len(orbits), recounted is not None)
