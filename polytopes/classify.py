"""Classification of points of the local-DP polytope (Holohan, Leith and Mason).

For A ∈ D (n×n, rows are inputs): γ(A) are the non-zero columns; λ(A) the loose entries,
a_ij ∉ {e^ε·min_k a_kj, e^−ε·max_k a_kj} (Def. 5); Ã = A·diag(1/min_i a_ij) on γ(A) (eq. (8));
D̃' the n matrices 1·e_iᵀ (Thm. 6); D̃ the matrices with rank(A) = |γ(A)| and λ(A) = ∅ (Def. 6).

All functions are exact; indices are 0-based (the paper's are 1-based).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.numbers import exact, reduced_fraction, to_fmpq

__all__ = [
    "gamma",
    "loose_entries",
    "rank",
    "tilde",
    "in_ldp",
    "in_d_tilde",
    "in_d_tilde_prime",
    "d_tilde_members",
    "tight_constraint_rank",
]

Matrix = Sequence[Sequence[Fraction]]


def gamma(a: Matrix) -> list[int]:
    """γ(A): indices of the non-zero columns."""
    return [j for j in range(len(a[0])) if any(row[j] != 0 for row in a)]


def loose_entries(a: Matrix, eps_exp: Any) -> list[tuple[int, int]]:
    """λ(A): the entries not equal to e^ε times their column's minimum nor e^−ε times its maximum."""
    e = exact(eps_exp)
    loose = []
    for j in range(len(a[0])):
        column = [row[j] for row in a]
        low, high = min(column), max(column)
        loose += [(i, j) for i, value in enumerate(column) if value != e * low and value != high / e]
    return sorted(loose)


def rank(a: Matrix) -> int:
    """The exact rank (FLINT's rational matrices)."""
    if not a or not a[0]:
        return 0
    return flint.fmpq_mat(len(a), len(a[0]), [to_fmpq(v) for row in a for v in row]).rank()


def tilde(a: Matrix) -> list[list[Fraction]]:
    """Ã = A·diag(m'), m'_j = 1/min_i a_ij on non-zero columns, 0 elsewhere (eq. (8))."""
    scale = [(1 / min(row[j] for row in a)) if any(row[j] for row in a) else Fraction(0) for j in range(len(a[0]))]
    return [[v * s for v, s in zip(row, scale, strict=True)] for row in a]


def in_ldp(a: Matrix, eps_exp: Any) -> bool:
    """Membership of D: stochastic, non-negative, max_i a_ij ≤ e^ε·min_i a_ij in every column."""
    e = exact(eps_exp)
    if any(sum(row) != 1 or min(row) < 0 for row in a):
        return False
    return all(max(row[j] for row in a) <= e * min(row[j] for row in a) for j in range(len(a[0])))


def in_d_tilde_prime(a: Matrix) -> bool:
    """A ∈ D̃' = {1·e_iᵀ}: one column of ones, zeros elsewhere."""
    support = gamma(a)
    return len(support) == 1 and all(row[support[0]] == 1 for row in a)


def in_d_tilde(a: Matrix, eps_exp: Any) -> bool:
    """A ∈ D̃ (Def. 6): A ∈ D, rank(A) = |γ(A)| and λ(A) = ∅."""
    return in_ldp(a, eps_exp) and rank(a) == len(gamma(a)) and not loose_entries(a, eps_exp)


def d_tilde_members(n: int, eps_exp: Any) -> list[list[list[Fraction]]]:
    """Every matrix of D̃ for n values, built from its definition (independently of any LP).

    A member has a support S of 2..n columns, Ã entries in {1, e^ε} on S with both values in every
    column (else an entry would be loose), and column minima m solving Ã_S·m = 1 uniquely with
    m > 0 (stochastic rows, rank |S|). Candidates are screened in floats and confirmed exactly.
    """
    e = exact(eps_exp)
    members = []
    for size in range(2, n + 1):
        for support in itertools.combinations(range(n), size):
            for bits in itertools.product((0, 1), repeat=n * size):
                pattern = np.array(bits, dtype=float).reshape(n, size)
                if not all(0 < pattern[:, j].sum() < n for j in range(size)):
                    continue
                scaled = 1.0 + pattern * (float(e) - 1.0)
                solution, _, matrix_rank, _ = np.linalg.lstsq(scaled, np.ones(n), rcond=None)
                if matrix_rank < size or np.any(solution <= 1e-12) or np.abs(scaled @ solution - 1).max() > 1e-9:
                    continue
                exact_pattern = [[e if bit else Fraction(1) for bit in bits[i * size:(i + 1) * size]] for i in range(n)]
                minima = _exact_solution(exact_pattern, size)
                if minima is None or min(minima) <= 0:
                    continue
                matrix = [[Fraction(0)] * n for _ in range(n)]
                for i in range(n):
                    for k, j in enumerate(support):
                        matrix[i][j] = exact_pattern[i][k] * minima[k]
                if in_d_tilde(matrix, e):
                    members.append(matrix)
    return members


def _exact_solution(pattern: list[list[Fraction]], size: int) -> list[Fraction] | None:
    """The unique exact solution m of pattern·m = 1, or None."""
    system = DomainMatrix([[QQ(v.numerator, v.denominator) for v in row] for row in pattern], (len(pattern), size), QQ)
    ones = DomainMatrix([[QQ(1)] for _ in pattern], (len(pattern), 1), QQ)
    augmented, pivots = system.hstack(ones).rref()
    if size in pivots or len(pivots) < size:
        return None
    rows = augmented.to_list()
    return [reduced_fraction(rows[k][-1]) for k in range(size)]


def tight_constraint_rank(a: Matrix, eps_exp: Any) -> int:
    """Rank of the equality and tight inequality constraints of D at A (Thm. 1: A is extreme iff
    this is n²)."""
    from polytopes.spaces import ldp_polytope

    n = len(a)
    polytope = ldp_polytope(n, eps_exp=eps_exp)
    point = [v for row in a for v in row]
    rows = [row[1:] for row in polytope.equalities]
    rows += [polytope.inequalities[k][1:] for k in sorted(polytope.tight(point))]
    return rank(rows)
