"""The polytopes of the papers as exact H-representations.

* :func:`ldp_polytope`: Holohan, Leith and Mason's local-DP polytope D (Def. 4): n×n stochastic
  matrices with a_ij ≤ e^ε·a_kj for all i, j, k (and a_ij ≥ 0, which is implied when ε > 0,
  Lemma 1). Its symmetry group is all row × column permutations (Thm. 3).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from qifkit.errors import PrivacyParameterError, ShapeError
from qifkit.numbers import exact_eps_exp

from polytopes.hrep import Polytope

__all__ = ["ldp_polytope", "row_column_symmetries"]


def _size(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ShapeError(f"n must be a whole number >= 2, got {n!r}")
    return n


def _eps_exp(eps_exp: Any, allow_zero: bool) -> Fraction:
    value = exact_eps_exp(eps_exp)
    if value < 1 or (value == 1 and not allow_zero):
        raise PrivacyParameterError(f"e^ε = {value} must be {'≥' if allow_zero else '>'} 1")
    return value


def row_column_symmetries(rows: int, columns: int) -> tuple[tuple[int, ...], ...]:
    """Generators of all row × column permutations of a rows×columns matrix, acting on its
    row-major entries: a transposition and a full cycle for rows, the same for columns."""
    def permutation(row_map: list[int], column_map: list[int]) -> tuple[int, ...]:
        image = [0] * (rows * columns)
        for i in range(rows):
            for j in range(columns):
                image[i * columns + j] = row_map[i] * columns + column_map[j]
        return tuple(image)

    identity_rows, identity_columns = list(range(rows)), list(range(columns))
    generators = []
    for size, is_row in ((rows, True), (columns, False)):
        if size < 2:
            continue
        swap = [1, 0] + list(range(2, size))
        cycle = [(k + 1) % size for k in range(size)]
        for mapping in (swap, cycle):
            generators.append(permutation(mapping, identity_columns) if is_row else permutation(identity_rows, mapping))
    return tuple(dict.fromkeys(generators))


def ldp_polytope(n: int, eps_exp: Any, nonnegativity: bool = True) -> Polytope:
    """Holohan et al.'s local-DP polytope D for n values (Def. 4), exactly.

    Parameters
    ----------
    n : int
        Number of values (n ≥ 2).
    eps_exp : exact number or string
        e^ε ≥ 1 (e^ε = 1 is ε = 0, allowed: Cor. 2).
    nonnegativity : bool
        Include the rows a_ij ≥ 0 (redundant for ε > 0 by Lemma 1).

    Examples
    --------
    >>> ldp_polytope(2, "2").shape
    (2, 2)
    """
    size = _size(n)
    e = _eps_exp(eps_exp, allow_zero=True)
    d = size * size
    index = lambda i, j: 1 + i * size + j  # noqa: E731  (column 0 is the constant)
    equalities = []
    for i in range(size):
        row = [Fraction(0)] * (d + 1)
        row[0] = Fraction(-1)
        for j in range(size):
            row[index(i, j)] = Fraction(1)
        equalities.append(tuple(row))
    inequalities = []
    if nonnegativity:
        for k in range(d):
            row = [Fraction(0)] * (d + 1)
            row[1 + k] = Fraction(1)
            inequalities.append(tuple(row))
    for j in range(size):
        for i in range(size):
            for k in range(size):
                if i != k:
                    row = [Fraction(0)] * (d + 1)
                    row[index(k, j)] = e
                    row[index(i, j)] = Fraction(-1)
                    inequalities.append(tuple(row))
    return Polytope("LDP", (size, size), e, tuple(equalities), tuple(inequalities), row_column_symmetries(size, size))
