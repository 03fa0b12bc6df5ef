"""Exact solves of square sparse linear systems, block by block.

The kernel under :mod:`qifkit.lp`: a basis of an LP is a square sparse matrix, usually far from
dense (two-term rows, identity parts, one block per column of a witness). Instead of one dense
exact solve of the whole system, the matrix is put in block triangular form (Duff's method: a
perfect matching of rows to columns, then the strongly connected components of the dependency
graph by Tarjan's algorithm, which emits them in the order they can be solved), and each diagonal
block is solved exactly with python-flint (one-unknown blocks by a division), substituting what
earlier blocks found. A large block is first eliminated on its rows (or columns) of at most two
terms (:class:`ShortRowElimination`: the tight ε-DP constraints of mechanism polytopes), and what
remains goes to numeric lifting (:func:`solve_by_lifting`) when large and sparse, else to FLINT's
dense rational solve. :class:`SquareFactor` keeps that preparation for several solves with one
matrix and its transpose (an LP basis: its point, its duals, a row of its inverse).

References
----------
.. [1] I. S. Duff, J. K. Reid, "An implementation of Tarjan's algorithm for the block
   triangularization of a matrix", ACM TOMS 4(2), 1978.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import flint
import numpy as np
import scipy.sparse
import scipy.sparse.csgraph

from qifkit.numbers import exact_dot, over_common_denominator

__all__ = [
    "SparseRow",
    "SquareFactor",
    "ShortRowElimination",
    "solve_square",
    "solve_square_transposed",
    "solve_bordered",
    "solve_by_lifting",
    "substituted",
]

#: One row of a sparse exact matrix: (column, value) pairs with non-zero values.
SparseRow = Sequence[tuple[int, flint.fmpq]]


def solve_square(rows: Sequence[SparseRow], right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
    """The exact solution x of M·x = right for a square sparse M given by its rows, or None when M
    is singular (:class:`SquareFactor`, for one right-hand side).

    Parameters
    ----------
    rows : sequence of SparseRow
        Row i of M as (column, value) pairs; columns are 0..len(rows)−1.
    right : sequence of flint.fmpq

    Returns
    -------
    list of flint.fmpq or None

    Examples
    --------
    >>> q = flint.fmpq
    >>> solve_square([[(0, q(2)), (1, q(1))], [(1, q(4))]], [q(3), q(2)])
    [5/4, 1/2]
    >>> solve_square([[(0, q(1))], [(0, q(2))]], [q(1), q(2)]) is None
    True
    """
    if len(right) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(right)} right-hand sides")
    return SquareFactor(rows).solve(right)


def solve_square_transposed(rows: Sequence[SparseRow], right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
    """The exact solution y of Mᵀ·y = right, M given by its rows (see :func:`solve_square`)."""
    if len(right) != len(rows):
        raise ValueError(f"{len(rows)} rows but {len(right)} right-hand sides")
    return SquareFactor(rows).solve_transposed(right)


_Terms = list[list[tuple[int, flint.fmpq]]]
#: One block of a sweep of :class:`SquareFactor`: its equations, its unknowns, the equations' terms
#: in earlier unknowns, the block's own terms, and its elimination (None: solved directly).
_Step = tuple[list[int], list[int], _Terms, _Terms, "tuple[bool, ShortRowElimination] | None"]


class SquareFactor:
    """A square sparse M, given by its rows, prepared once for any number of exact solves
    M·x = b and Mᵀ·y = c (an LP basis: its point, its duals, a row of its inverse).

    M is put in block triangular form (a perfect matching of rows to columns, then the strongly
    connected components of the dependency graph in solving order, [1]_); a one-unknown block is
    a division, a large block is eliminated once on its rows or columns of at most two terms
    (:class:`ShortRowElimination`), whichever leaves the smaller remainder, and what remains (or a
    small block) is solved per right-hand side by :func:`_solve_general`. M·x = b runs through the
    blocks in order, substituting what earlier blocks found; Mᵀ·y = c in reverse order, each
    block's rows receiving what later blocks' rows contribute to its columns.

    Attributes
    ----------
    singular : bool
        M is singular (structurally, or found so while eliminating): both solves give None.

    Notes
    -----
    Preparing costs one pass over the non-zeros plus the eliminations; each solve then costs a
    pass over the non-zeros plus the dense solves of the blocks' remainders.
    """

    def __init__(self, rows: Sequence[SparseRow]) -> None:
        size = len(rows)
        self.singular = False
        self._size = size
        self._rows = rows
        # per block, in solving order: its columns, their rows, the block's own terms of those rows
        # (renumbered within the block), their other terms, and a large block's elimination
        self._blocks: list[tuple[list[int], list[int], _Terms, _Terms, tuple[bool, ShortRowElimination] | None]] = []
        self._column_terms: list[_Terms] | None = None  # for Mᵀ, made when first needed
        if size == 0:
            return
        matched = scipy.sparse.csgraph.maximum_bipartite_matching(_pattern(rows, size), perm_type="column")
        if np.any(matched < 0):
            self.singular = True  # structurally singular
            return
        row_of = np.empty(size, dtype=np.int64)
        row_of[matched] = np.arange(size)
        row_of_column = row_of.tolist()
        # column c is found from row row_of[c]; it needs every other column of that row
        needs = [[k for k, _ in rows[row_of_column[c]] if k != c] for c in range(size)]
        for block in _components_in_solving_order(needs):
            block_rows = [row_of_column[c] for c in block]
            if len(block) == 1:
                (c,), (i,) = block, block_rows
                pivot = sum((a for k, a in rows[i] if k == c), flint.fmpq(0))
                if not pivot:
                    self.singular = True
                    return
                self._blocks.append((block, block_rows, [[(0, pivot)]], [[(k, a) for k, a in rows[i] if k != c]], None))
                continue
            position = {c: p for p, c in enumerate(block)}
            local: _Terms = []
            outside: _Terms = []
            for i in block_rows:
                inside_terms, outside_terms = [], []
                for k, a in rows[i]:
                    p = position.get(k)
                    if p is None:
                        outside_terms.append((k, a))
                    else:
                        inside_terms.append((p, a))
                local.append(inside_terms)
                outside.append(outside_terms)
            eliminated = self._eliminated(local)
            if self.singular:
                return
            self._blocks.append((block, block_rows, local, outside, eliminated))

    def _eliminated(self, local: _Terms) -> tuple[bool, ShortRowElimination] | None:
        """A large block's elimination on its short rows, or on its short columns when that leaves
        less (then True first: the block's solves swap); None for a small block; marks M
        singular when the elimination finds it so."""
        if len(local) < _LIFT_MIN:
            return None
        by_rows = ShortRowElimination(local)
        if by_rows.singular:
            self.singular = True
            return None
        if len(by_rows.rest_rows) * 2 > len(local):  # few two-term rows: try the columns
            by_columns = ShortRowElimination(_transposed(local))
            if by_columns.singular:
                self.singular = True
                return None
            if len(by_columns.rest_rows) < len(by_rows.rest_rows):
                return True, by_columns
        return False, by_rows

    def solve(self, right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
        """x with M·x = right, or None if M is singular."""
        if self.singular:
            return None
        return self._swept(right, [(block_rows, block, outside, local, eliminated)
                                   for block, block_rows, local, outside, eliminated in self._blocks], False)

    def solve_transposed(self, right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
        """y with Mᵀ·y = right, or None if M is singular."""
        if self.singular:
            return None
        if self._column_terms is None:  # column c's terms in the rows of later blocks
            block_of_row = [0] * self._size
            for b, (_, block_rows, _, _, _) in enumerate(self._blocks):
                for i in block_rows:
                    block_of_row[i] = b
            later: _Terms = [[] for _ in range(self._size)]
            for i, row in enumerate(self._rows):
                for k, a in row:
                    later[k].append((i, a))
            self._column_terms = [[[(i, a) for i, a in later[c] if block_of_row[i] != b] for c in block]
                                  for b, (block, _, _, _, _) in enumerate(self._blocks)]
        return self._swept(right, [(block, block_rows, column_terms, local, eliminated) for
                                   (block, block_rows, local, _, eliminated), column_terms
                                   in zip(reversed(self._blocks), reversed(self._column_terms), strict=True)], True)

    def _swept(self, right: Sequence[flint.fmpq], steps: list[_Step], transposed: bool) -> list[flint.fmpq] | None:
        """The blocks solved in turn: each step's equations (rows of M, or columns for Mᵀ), its
        unknowns, the equations' terms in unknowns found earlier, and the block itself."""
        found: list[Any] = [None] * self._size  # an fmpq once its block is solved
        for equations, unknowns, earlier, local, eliminated in steps:
            if len(unknowns) == 1:  # most blocks: a division
                terms, e = earlier[0], equations[0]
                found[unknowns[0]] = (right[e] - _known_part(terms, found) if terms else right[e]) / local[0][0][1]
                continue
            targets = [right[e] - _known_part(terms, found) if terms else right[e]
                       for e, terms in zip(equations, earlier, strict=True)]
            values = _block_solve(local, targets, eliminated, transposed)
            if values is None:
                return None
            for u, v in zip(unknowns, values, strict=True):
                found[u] = v
        return found


def _known_part(terms: Sequence[tuple[int, flint.fmpq]], found: Sequence[Any]) -> flint.fmpq:
    """Σ a·found[k] over `terms` whose found[k] is non-zero, on one common denominator
    (:func:`exact_dot`): right-hand sides of sparse exact solves are mostly zeros, and their
    non-zeros share large denominators."""
    return exact_dot((a, found[k]) for k, a in terms if found[k])


def _block_solve(local: _Terms, targets: list[flint.fmpq],
                 eliminated: tuple[bool, ShortRowElimination] | None, transposed: bool) -> list[flint.fmpq] | None:
    """One diagonal block of :class:`SquareFactor` of two or more unknowns, M_B·v = targets (or
    M_Bᵀ·v = targets)."""
    if eliminated is None:
        return _solve_general(_transposed(local) if transposed else local, targets)
    swapped, elimination = eliminated
    return elimination.solve_transposed(targets) if swapped != transposed else elimination.solve(targets)


def _solve_general(rows: Sequence[SparseRow], right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
    """A square system with no structure left to exploit: by numeric lifting when it is large and
    sparse, else (or when lifting gives up) by FLINT's dense rational solve; None if singular."""
    size = len(rows)
    sparse = sum(len(row) for row in rows) * 8 <= size * size
    values = solve_by_lifting(rows, right) if size >= _LIFT_MIN and (sparse or size > _DENSE_MAX) else None
    if values is not None:
        return values
    dense = flint.fmpq_mat(size, size)
    for p, terms in enumerate(rows):
        for q, a in terms:
            dense[p, q] += a
    try:
        solved = dense.solve(flint.fmpq_mat(size, 1, list(right)))
    except ZeroDivisionError:
        return None
    return [solved[p, 0] for p in range(size)]


def _transposed(rows: Sequence[SparseRow]) -> list[list[tuple[int, flint.fmpq]]]:
    columns: list[list[tuple[int, flint.fmpq]]] = [[] for _ in rows]
    for i, row in enumerate(rows):
        for k, a in row:
            columns[k].append((i, a))
    return columns


class ShortRowElimination:
    """Gaussian elimination of a square sparse matrix M on its rows of at most two terms, which
    leaves a smaller square Schur complement S; M·x = b and Mᵀ·y = c then cost one solve with S
    and a pass over the recorded pivots.

    A pivot row a·x_p + b·x_q = r (or a·x_p = r) expresses x_p through x_q; x_p is eliminated
    from every other row (row_i −= (m_i/a)·pivot row, m_i its coefficient of x_p), which never
    adds a non-zero: x_p leaves the row as x_q enters it. Rows that fall to two terms join the
    queue. This is what makes the bases of DP mechanism polytopes cheap: the tight ε-DP
    constraints x_p = e^ε·x_q are two-term rows, so at n = 100 of Kohli's F a diagonal block of
    6,198 unknowns leaves a dense remainder of 94 (10.5 s by numeric lifting before, 0.03 s now).

    Attributes
    ----------
    singular : bool
        A row lost all its terms: M is singular, and both solves give None.
    rest_rows, rest_columns : list of int
        The rows and columns of M that the Schur complement keeps (equally many; empty when
        singular).
    """

    def __init__(self, rows: Sequence[SparseRow]) -> None:
        size = len(rows)
        work = [dict(row) for row in rows]
        holders: list[set[int]] = [set() for _ in range(size)]  # the rows in which each column occurs
        for i, row in enumerate(work):
            for k in row:
                holders[k].add(i)
        active = [True] * size
        queue = [i for i in range(size) if len(work[i]) <= 2]
        # (pivot row, its column, coefficient, other column or -1, its coefficient, [(row, multiplier)])
        self.pivots: list[tuple[int, int, flint.fmpq, int, flint.fmpq, list[tuple[int, flint.fmpq]]]] = []
        self.singular = False
        self.rest_rows: list[int] = []
        self.rest_columns: list[int] = []
        self._reduced: list[list[tuple[int, flint.fmpq]]] = []
        self._size = size
        while queue:
            r = queue.pop()
            terms = work[r]
            if not active[r] or len(terms) > 2:
                continue
            if not terms:
                self.singular = True
                return
            (p, a), *other = sorted(terms.items(), key=lambda item: len(holders[item[0]]))
            q, b = other[0] if other else (-1, flint.fmpq(0))
            active[r] = False
            for k in terms:
                holders[k].discard(r)
            multipliers = []
            for i in holders[p]:
                row = work[i]
                m = row.pop(p) / a
                multipliers.append((i, m))
                if q >= 0:
                    v = row.get(q, flint.fmpq(0)) - m * b
                    if v == 0:
                        row.pop(q, None)
                        holders[q].discard(i)
                    else:
                        row[q] = v
                        holders[q].add(i)
                if len(row) <= 2:
                    queue.append(i)
            holders[p] = set()
            self.pivots.append((r, p, a, q, b, multipliers))
        eliminated = {pivot[1] for pivot in self.pivots}
        self.rest_rows = [i for i in range(size) if active[i]]
        self.rest_columns = [k for k in range(size) if k not in eliminated]
        position = {k: c for c, k in enumerate(self.rest_columns)}
        self._reduced = [[(position[k], v) for k, v in work[i].items()] for i in self.rest_rows]

    def solve(self, right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
        """x with M·x = right, or None if M is singular."""
        if self.singular:
            return None
        rho = list(right)
        for r, _, _, _, _, multipliers in self.pivots:
            for i, m in multipliers:
                rho[i] -= m * rho[r]
        rest = _solve_general(self._reduced, [rho[i] for i in self.rest_rows]) if self.rest_rows else []
        if rest is None:
            return None
        x: list[Any] = [None] * self._size
        for k, v in zip(self.rest_columns, rest, strict=True):
            x[k] = v
        for r, p, a, q, b, _ in reversed(self.pivots):
            x[p] = (rho[r] - b * x[q]) / a if q >= 0 else rho[r] / a
        return x

    def solve_transposed(self, right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
        """y with Mᵀ·y = right, or None if M is singular.

        With E the recorded row operations and M' = E·M, Mᵀ·y = c is M'ᵀ·w = c with y = Eᵀ·w:
        the pivot rows' w in pivot order (column p of M' holds only its pivot row and earlier pivot
        rows whose other column was p), then Sᵀ·w = the rest of c, then Eᵀ backwards."""
        if self.singular:
            return None
        remainder = list(right)
        w: list[Any] = [flint.fmpq(0)] * self._size
        for r, p, a, q, b, _ in self.pivots:
            w[r] = remainder[p] / a
            if q >= 0:
                remainder[q] -= b * w[r]
        if self.rest_rows:
            rest = _solve_general(_transposed(self._reduced), [remainder[k] for k in self.rest_columns])
            if rest is None:
                return None
            for i, v in zip(self.rest_rows, rest, strict=True):
                w[i] = v
        for r, _, _, _, _, multipliers in reversed(self.pivots):
            if multipliers:
                w[r] -= _known_part(multipliers, w)
        return w


def substituted(rows: Sequence[SparseRow], right: Sequence[flint.fmpq], position: dict[int, int],
                known: Sequence[Any]) -> tuple[list[list[tuple[int, flint.fmpq]]], list[flint.fmpq]]:
    """The rows restricted to the columns of `position` (renumbered by it), every other column's
    known value moved to the right-hand side."""
    local, targets = [], []
    for row, value in zip(rows, right, strict=True):
        terms = []
        for k, a in row:
            q = position.get(k)
            if q is None:
                value -= a * known[k]
            else:
                terms.append((q, a))
        local.append(terms)
        targets.append(value)
    return local, targets


#: Diagonal blocks at least this large are first eliminated on their short rows or columns
#: (:class:`ShortRowElimination`); what remains is tried by :func:`solve_by_lifting` when it is at
#: least this large and sparse, or larger than :data:`_DENSE_MAX` (below it FLINT's dense solve is
#: the faster; docs/benchmarks.md, "Limits").
_LIFT_MIN = 48
_DENSE_MAX = 400


def solve_by_lifting(rows: Sequence[SparseRow], right: Sequence[flint.fmpq]) -> list[flint.fmpq] | None:
    """The exact solution of a square sparse M·x = right by numeric lifting, or None when the
    float factorisation fails or the lifting stalls (the caller then solves densely).

    The rows are made integral (each multiplied by the lcm of its denominators), one sparse float
    LU of M (scipy's SuperLU) is computed, and the solution is lifted in base 2: each step solves
    for the scaled exact residual in floats, rounds the correction to integers and updates the
    residual in exact integer arithmetic, gaining about 53 − log₂ cond(M) bits [2]_. The rational
    solution is then reconstructed from its dyadic approximation by continued fractions, one
    common denominator at a time, and accepted only after an exact check M·x = right. The cost is
    O(nnz) big-integer operations per step instead of the O(n³) of a dense rational solve.

    References
    ----------
    .. [2] Z. Wan, "An algorithm to solve integer linear systems exactly using numerical methods",
       J. Symbolic Computation 41(6), 2006.

    Examples
    --------
    >>> q = flint.fmpq
    >>> solve_by_lifting([[(0, q(2)), (1, q(1, 3))], [(0, q(1)), (1, q(-5))]], [q(1), q(2)])
    [17/31, -9/31]
    """
    import scipy.sparse.linalg

    size = len(rows)
    integer_rows, targets, shifts = [], [], []
    for row, value in zip(rows, right, strict=True):
        *coefficients, target = over_common_denominator([*(a for _, a in row), value])[0]
        terms = [(k, coefficient) for (k, _), coefficient in zip(row, coefficients, strict=True)]
        integer_rows.append(terms)
        targets.append(target)
        shifts.append(max((abs(v).bit_length() for _, v in terms), default=0))
    indices = [k for terms in integer_rows for k, _ in terms]
    values = [v / (1 << shift) for terms, shift in zip(integer_rows, shifts, strict=True) for _, v in terms]
    pointers = np.cumsum([0] + [len(terms) for terms in integer_rows])
    floats = scipy.sparse.csr_matrix((values, indices, pointers), shape=(size, size)).tocsc()
    try:
        factor = scipy.sparse.linalg.splu(floats)
    except RuntimeError:  # singular in floats
        return None
    budget = 2 * (sum(shifts) + size * max(1, size.bit_length()) + max(abs(t).bit_length() for t in targets)) + 128
    numerators, denominator_bits, residual = [0] * size, 0, list(targets)
    next_try, stalls = 64, 0
    while denominator_bits <= budget:
        size_bits = max(abs(r).bit_length() for r in residual)
        if size_bits == 0:
            return [flint.fmpq(n, 1 << denominator_bits) for n in numerators]
        scaled = np.array(
            [
                r / (1 << (size_bits + shift))
                if size_bits + shift < 1000
                else (r >> (size_bits + shift - 1000)) / (1 << 1000)
                for r, shift in zip(residual, shifts, strict=True)
            ]
        )
        step = factor.solve(scaled)
        largest = float(np.max(np.abs(step))) if np.all(np.isfinite(step)) else 0.0
        if largest == 0.0:
            return None
        exponent = 52 - math.ceil(math.log2(largest))
        lift = max(0, exponent - size_bits)
        correction = [int(round(math.ldexp(v, exponent))) << (lift + size_bits - exponent)
                      if lift + size_bits >= exponent else int(round(math.ldexp(v, lift + size_bits)))
                      for v in step]
        numerators = [(n << lift) + d for n, d in zip(numerators, correction, strict=True)]
        denominator_bits += lift
        residual = [(r << lift) - sum(v * correction[k] for k, v in terms)
                    for r, terms in zip(residual, integer_rows, strict=True)]
        new_bits = max(abs(r).bit_length() for r in residual)
        stalls = stalls + 1 if new_bits > size_bits + lift - 8 else 0
        if stalls >= 3:
            return None
        if denominator_bits >= next_try:
            next_try *= 2
            # the next correction, M⁻¹·residual, is about as large relative to the residual as this one
            error_bits = new_bits + max(0, math.ceil(math.log2(largest))) + 1
            found = _reconstructed(numerators, denominator_bits, error_bits, integer_rows, targets)
            if found is not None:
                return found
    return None


def _reconstructed(numerators: list[int], denominator_bits: int, error_bits: int,
                   integer_rows: list[list[tuple[int, int]]], targets: list[int]) -> list[flint.fmpq] | None:
    """Rationals of small denominators near numerators / 2^denominator_bits (about error_bits of
    them are noise), found by continued fractions with a growing common denominator; None unless
    they solve the integer system exactly."""
    reliable = denominator_bits - error_bits - 2
    if reliable < 2:
        return None
    bound = math.isqrt(1 << (reliable - 1))
    common = 1
    found: list[tuple[int, int]] = []  # x_i = numerator / denominator
    for n in numerators:
        if common > bound:
            return None
        numerator, denominator = _nearest_fraction(n * common, denominator_bits, bound // common)
        found.append((numerator, denominator * common))
        common *= denominator
    scaled = [u * (common // q) for u, q in found]  # x·common, integers
    for terms, target in zip(integer_rows, targets, strict=True):
        if sum(v * scaled[k] for k, v in terms) != target * common:
            return None
    return [flint.fmpq(u, q) for u, q in found]


def _nearest_fraction(numerator: int, bits: int, bound: int) -> tuple[int, int]:
    """The fraction p/q closest to numerator / 2^bits with 1 ≤ q ≤ bound (continued fractions,
    as :meth:`fractions.Fraction.limit_denominator`, on plain integers)."""
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = numerator, 1 << bits
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > bound:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
        if d == 0:
            return p1, q1
    k = (bound - q0) // q1
    # the two candidates p1/q1 and (p0 + k·p1)/(q0 + k·q1): keep the nearer
    p2, q2 = p0 + k * p1, q0 + k * q1
    target = numerator
    if abs(p1 * (1 << bits) - target * q1) * q2 <= abs(p2 * (1 << bits) - target * q2) * q1:
        return p1, q1
    return p2, q2


def _pattern(rows: Sequence[SparseRow], size: int) -> scipy.sparse.csr_matrix:
    indices = [k for row in rows for k, _ in row]
    pointers = np.cumsum([0] + [len(row) for row in rows])
    data = np.ones(len(indices), dtype=np.int8)
    pattern = scipy.sparse.csr_matrix((data, np.asarray(indices, dtype=np.int64), pointers), shape=(size, size))
    pattern.sum_duplicates()
    return pattern


def _components_in_solving_order(needs: Sequence[Sequence[int]]) -> list[list[int]]:
    """Strongly connected components of the graph c → needs[c], each after every component it
    needs (Tarjan's algorithm emits them in exactly that order); iterative, so deep chains do not
    exhaust the recursion limit."""
    size = len(needs)
    index = [-1] * size
    low = [0] * size
    on_stack = [False] * size
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for start in range(size):
        if index[start] >= 0:
            continue
        work = [(start, 0)]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        while work:
            node, edge = work[-1]
            successors = needs[node]
            if edge < len(successors):
                work[-1] = (node, edge + 1)
                nxt = successors[edge]
                if index[nxt] < 0:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, 0))
                elif on_stack[nxt] and index[nxt] < low[node]:
                    low[node] = index[nxt]
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def solve_bordered(rows: Sequence[SparseRow], right: Sequence[flint.fmpq], groups: Sequence[int],
                   transposed_right: Sequence[flint.fmpq] | None = None
                   ) -> tuple[list[flint.fmpq], list[flint.fmpq] | None] | None:
    """Solve a square sparse M·x = right whose columns fall into groups that only a few rows
    couple (bordered block-diagonal form), and optionally Mᵀ·y = transposed_right too.

    A row whose columns all lie in one group is local to it; the others are the border. Each
    group g is solved on its own: its local rows D_g give x_g = p_g + N_g·t_g (a particular
    solution and a null-space basis, from one exact reduced echelon form). The border rows then
    fix the parameters t: one dense system of the border's size. The transpose reuses the same
    factors: the border duals solve the transposed border system, then each group's duals one
    square system on its pivot columns.

    This is how the witness LP of refinement (Alvim et al. 2023, Thm. 4) is solved: its columns
    decouple by the outputs of W, and only the row sums of W couple them.

    Parameters
    ----------
    rows : sequence of SparseRow
    right : sequence of flint.fmpq
    groups : sequence of int
        The group of each column.
    transposed_right : sequence of flint.fmpq, optional

    Returns
    -------
    (x, y) or None
        y is None without `transposed_right`; None when M is singular.

    Examples
    --------
    >>> q = flint.fmpq
    >>> rows = [[(0, q(1)), (1, q(1))], [(2, q(1)), (3, q(2))], [(1, q(1)), (3, q(1))], [(0, q(1))]]
    >>> solve_bordered(rows, [q(1), q(4), q(2), q(0)], [0, 0, 1, 1], [q(1), q(1), q(1), q(1)])
    ([0, 1, 2, 1], [2, 1, -1, -1])
    """
    size = len(rows)
    if len(right) != size or len(groups) != size:
        raise ValueError(f"{size} rows need {size} right-hand sides and {size} column groups")
    members: dict[int, list[int]] = {}
    for column, group in enumerate(groups):
        members.setdefault(group, []).append(column)
    local: dict[int, list[int]] = {group: [] for group in members}
    border = []
    for i, row in enumerate(rows):
        touched = {groups[k] for k, _ in row}
        if len(touched) == 1:
            local[touched.pop()].append(i)
        else:
            border.append(i)
    factors = []
    parameters = 0
    for group, columns in members.items():
        factor = _GroupFactor(rows, right, columns, local[group])
        if factor.rank < len(local[group]):
            return None
        factors.append((factor, parameters))
        parameters += len(factor.free)
    if parameters != len(border):
        return None
    place = {c: (factor, p) for factor, _ in factors for p, c in enumerate(factor.columns)}
    offset_of = {id(factor): offset for factor, offset in factors}
    coupling = flint.fmpq_mat(len(border), parameters)
    border_right = flint.fmpq_mat(len(border), 1)
    for b, i in enumerate(border):
        rest = right[i]
        for k, a in rows[i]:
            factor, p = place[k]
            rest -= a * factor.particular[p]
            offset = offset_of[id(factor)]
            for f in range(len(factor.free)):
                coefficient = factor.null[p][f]
                if coefficient:
                    coupling[b, offset + f] += a * coefficient
        border_right[b, 0] = rest
    try:
        t = coupling.solve(border_right) if parameters else flint.fmpq_mat(0, 1)
    except ZeroDivisionError:
        return None
    x: list[flint.fmpq] = [flint.fmpq(0)] * size
    for factor, offset in factors:
        for p, c in enumerate(factor.columns):
            value = factor.particular[p]
            for f in range(len(factor.free)):
                if factor.null[p][f]:
                    value += factor.null[p][f] * t[offset + f, 0]
            x[c] = value
    if transposed_right is None:
        return x, None
    # Mᵀy = c: the border duals from the transposed border system, then each group's own.
    reduced = flint.fmpq_mat(parameters, 1)
    for factor, offset in factors:
        for f in range(len(factor.free)):
            reduced[offset + f, 0] = sum((factor.null[p][f] * transposed_right[c] for p, c in enumerate(factor.columns)
                                          if factor.null[p][f]), flint.fmpq(0))
    try:
        y_border = coupling.transpose().solve(reduced) if parameters else flint.fmpq_mat(0, 1)
    except ZeroDivisionError:  # pragma: no cover - regular when its transpose is
        return None
    y: list[flint.fmpq] = [flint.fmpq(0)] * size
    remainder = list(transposed_right)
    for b, i in enumerate(border):
        y[i] = y_border[b, 0]
        for k, a in rows[i]:
            remainder[k] -= a * y[i]
    for factor, _ in factors:
        values = factor.solve_transposed([remainder[factor.columns[p]] for p in factor.pivots])
        for i, v in zip(factor.rows, values, strict=True):
            y[i] = v
    return x, y


class _GroupFactor:
    """One group of :func:`solve_bordered`: x_g = particular + null·t on its local rows.

    The echelon form is taken of the local coefficients D alone (small entries: the right-hand
    sides carry the large denominators), and the square block D_P on the pivot columns is
    inverted once; the particular solution and the transposed solve are then products with that
    inverse. With rank(D) below the number of local rows, M is singular and nothing else is
    computed.
    """

    def __init__(self, rows: Sequence[SparseRow], right: Sequence[flint.fmpq], columns: list[int],
                 local_rows: list[int]) -> None:
        self.columns, self.rows = columns, local_rows
        position = {c: p for p, c in enumerate(columns)}
        width = len(columns)
        local = flint.fmpq_mat(len(local_rows), width)
        for r, i in enumerate(local_rows):
            for k, a in rows[i]:
                local[r, position[k]] += a
        echelon, self.rank = local.rref() if local_rows else (local, 0)
        self.pivots = [next(k for k in range(width) if echelon[r, k] != 0) for r in range(self.rank)]
        pivot_set = set(self.pivots)
        self.free = [k for k in range(width) if k not in pivot_set]
        self.particular = [flint.fmpq(0)] * width
        self.null = [[flint.fmpq(0)] * len(self.free) for _ in range(width)]
        self._inverse = flint.fmpq_mat(0, 0)
        for f, k in enumerate(self.free):
            self.null[k][f] = flint.fmpq(1)
        if self.rank < len(local_rows) or not local_rows:
            return
        for r, p in enumerate(self.pivots):
            for f, k in enumerate(self.free):
                self.null[p][f] = -echelon[r, k]
        square = flint.fmpq_mat(self.rank, self.rank)
        for r in range(self.rank):
            for q, p in enumerate(self.pivots):
                square[r, q] = local[r, p]
        self._inverse = square.inv()
        values = self._inverse * flint.fmpq_mat(self.rank, 1, [right[i] for i in local_rows])
        for q, p in enumerate(self.pivots):
            self.particular[p] = values[q, 0]

    def solve_transposed(self, right: list[flint.fmpq]) -> list[flint.fmpq]:
        """y on the local rows with D_Pᵀ·y = right (P the pivot columns)."""
        if not self.rows:
            return []
        solution = self._inverse.transpose() * flint.fmpq_mat(len(right), 1, right)
        return [solution[k, 0] for k in range(len(right))]
