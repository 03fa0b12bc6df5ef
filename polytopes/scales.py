"""ε-scales (Kohli and Laskowski, §4.2): the building blocks of DP count mechanisms.

An ε-scale is a probability vector on 0..n−1 in which every neighbouring pair is tight:
s_i = e^ε·s_{i+1} (a step down) or s_i = e^−ε·s_{i+1} (a step up) (Def. 6). There are 2^(n−1) of
them. Ψ is the n×2^(n−1) matrix of all scales as columns; here they are ordered by their step
patterns read left to right, "down" before "up", which reproduces the paper's printed Ψ for n = 3.

Examples
--------
>>> psi(3, "2")[0]
[Fraction(4, 7), Fraction(2, 5), Fraction(1, 4), Fraction(1, 7)]
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import flint

from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["scales", "psi", "single_peaked", "scale_pattern", "positive_scale_sets"]


def _check(n: Any, eps_exp: Any) -> tuple[int, Fraction]:
    return whole_number(n, 2, "n"), eps_exp_above_one(eps_exp)


def scales(n: int, eps_exp: Any) -> list[tuple[Fraction, ...]]:
    """All 2^(n−1) ε-scales, each as a tuple (s_0, ..., s_{n−1})."""
    return list(_scales(*_check(n, eps_exp)))


@functools.lru_cache(maxsize=64)
def _scales(n: int, e: Fraction) -> tuple[tuple[Fraction, ...], ...]:
    """:func:`scales` of a checked n and e^ε, kept: a census's columns ask for the same few tables."""
    result = []
    for pattern in itertools.product((0, 1), repeat=n - 1):  # 0: s_i = e·s_{i+1}, 1: s_i = s_{i+1}/e
        values = [Fraction(1)]
        for step in reversed(pattern):
            values.insert(0, values[0] * e if step == 0 else values[0] / e)
        total = sum(values)
        result.append(tuple(v / total for v in values))
    return tuple(result)


def scale_pattern(scale: tuple[Fraction, ...]) -> tuple[int, ...]:
    """The step pattern of a scale: 0 where s_i > s_{i+1} (down), 1 where s_i < s_{i+1} (up)."""
    return tuple(0 if a > b else 1 for a, b in zip(scale, scale[1:], strict=False))


def psi(n: int, eps_exp: Any) -> list[list[Fraction]]:
    """Ψ: the n×2^(n−1) matrix whose columns are the ε-scales."""
    columns = scales(n, eps_exp)
    return [[column[i] for column in columns] for i in range(n)]


def single_peaked(n: int, eps_exp: Any) -> list[list[Fraction]]:
    """Σ: the n×n matrix whose column j is the single-peaked scale with its peak at j
    (s_i ∝ e^−ε·|i−j|) (Kohli and Laskowski, Defs. 9-10)."""
    n, e = _check(n, eps_exp)
    columns = []
    for j in range(n):
        values = [1 / e ** abs(i - j) for i in range(n)]
        total = sum(values)
        columns.append([v / total for v in values])
    return [[columns[j][i] for j in range(n)] for i in range(n)]


Scale = tuple[Fraction, ...]


def positive_scale_sets(n: int, eps_exp: Any) -> Iterator[tuple[tuple[Scale, ...], tuple[Fraction, ...]]]:
    """Kohli and Laskowski's Thm. 2 by construction: every set of n distinct ε-scales that are
    linearly independent and whose weights c solving Σ_j c_j·s_j = 1 (the row sums) are all
    positive, with those weights (exact: python-flint's rational solve). Each set stands for the n!
    positive vertices of U whose column j is c_{π(j)}·s_{π(j)}; a repeated scale is never
    independent, so these are all of them.

    Examples
    --------
    At n = 2 the two scales (2/3, 1/3) and (1/3, 2/3) with weights 1, 1: randomised response.

    >>> [(chosen, weights) for chosen, weights in positive_scale_sets(2, 2)]
    [(((Fraction(2, 3), Fraction(1, 3)), (Fraction(1, 3), Fraction(2, 3))), (Fraction(1, 1), Fraction(1, 1)))]
    """
    for chosen in itertools.combinations(scales(n, eps_exp), n):
        matrix = flint.fmpq_mat([[flint.fmpq(s[i].numerator, s[i].denominator) for s in chosen] for i in range(n)])
        if matrix.det() == 0:
            continue
        solution = matrix.solve(flint.fmpq_mat([[1]] * n))
        weights = tuple(Fraction(int(solution[j, 0].p), int(solution[j, 0].q)) for j in range(n))
        if min(weights) > 0:
            yield chosen, weights
