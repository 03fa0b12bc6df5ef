"""Representation matrices of Kohli and Laskowski: T = Ψ·B, and when B is extreme.

B (scales × columns) says how much of each ε-scale enters each column of a count mechanism.
Thm. 4: B ∈ ex(R_F) iff B is Ψ-affinely simplified (Def. 8): the multiset ⊎_j H(B_j), with
H(x) = {Ψ_u/(zΨ_u) − Ψ_v/(zΨ_v) : x_u > 0, u ≠ v}, v the first positive index of x, is linearly
independent. Thm. 11: B ∈ ex(R_U) iff B is Ψ-linearly simplified (Def. 19): the multiset
⊎_j {Ψ_u : B[u, j] > 0} is linearly independent.

Thms. 3 and 10 say more: every vertex T of F (of U) is Ψ·B for a vertex B of R_F (of R_U).
:func:`preimage` builds such a B column by column (:func:`scale_decomposition`). Why it is a
vertex: the points of R_F (R_U) that Ψ maps to T are a face of R_F when T is a vertex of F (the
preimage of a face under a linear map is a face), and this face is the product over the columns j
of {b ≥ 0 : Ψ·b = T_j}. A vertex of that product is a choice of a vertex in each factor, and a b
whose positive entries pick linearly independent scales is a vertex of its factor. So B is a
vertex of the face, hence of R_F (R_U).

Examples
--------
>>> from polytopes.scales import psi
>>> b = preimage([[Fraction(2, 3), Fraction(1, 3)], [Fraction(1, 3), Fraction(2, 3)]], 2)
>>> b  # the two scales of n = 2, one per column: randomised response
[[Fraction(1, 1), Fraction(0, 1)], [Fraction(0, 1), Fraction(1, 1)]]
>>> apply_psi(psi(2, 2), b)
[[Fraction(2, 3), Fraction(1, 3)], [Fraction(1, 3), Fraction(2, 3)]]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from polytopes.classify import rank
from polytopes.scales import scales
from qifkit.errors import InternalError, PolytopeError, ShapeError
from qifkit.numbers import exact, over_common_denominator
from qifkit.validation import eps_exp_above_one

__all__ = ["apply_psi", "affinely_simplified", "linearly_simplified", "positive_entries", "scale_decomposition",
           "preimage"]

Matrix = Sequence[Sequence[Fraction]]


def apply_psi(psi_matrix: Matrix, b: Matrix) -> list[list[Fraction]]:
    """T = Ψ·B exactly (the zero entries of B, most of them at a vertex, are skipped)."""
    used = [[(i, v) for i, row in enumerate(b) if (v := row[j])] for j in range(len(b[0]))]
    return [[sum((row[i] * v for i, v in column), Fraction(0)) for column in used] for row in psi_matrix]


def _column(psi_matrix: Matrix, u: int) -> list[Fraction]:
    return [row[u] for row in psi_matrix]


def _independent(vectors: list[list[Fraction]]) -> bool:
    return not vectors or rank(vectors) == len(vectors)


def affinely_simplified(b: Matrix, psi_matrix: Matrix, z: Sequence[Fraction]) -> bool:
    """Def. 8: is ⊎_j H(B_j) linearly independent?"""
    weight: dict[int, Fraction] = {}  # z·Ψ_u, for the scales used

    def scaled(u: int) -> list[Fraction]:
        if u not in weight:
            weight[u] = sum((z[r] * psi_matrix[r][u] for r in range(len(z))), Fraction(0))
        return [x / weight[u] for x in _column(psi_matrix, u)]

    vectors = []
    for j in range(len(b[0])):
        positive = [u for u in range(len(b)) if b[u][j] > 0]
        if len(positive) < 2:
            continue
        base = scaled(positive[0])
        vectors += [[x - y for x, y in zip(scaled(u), base, strict=True)] for u in positive[1:]]
    return _independent(vectors)


def linearly_simplified(b: Matrix, psi_matrix: Matrix) -> bool:
    """Def. 19: is the multiset of scales used, over all columns, linearly independent?"""
    vectors = [_column(psi_matrix, u) for j in range(len(b[0])) for u in range(len(b)) if b[u][j] > 0]
    return _independent(vectors)


def positive_entries(b: Matrix) -> int:
    """Number of positive entries."""
    return sum(1 for row in b for v in row if v > 0)


def scale_decomposition(column: Sequence[Any], eps_exp: Any) -> list[tuple[int, Fraction]]:
    """A column of a count mechanism as a positive combination of linearly independent ε-scales.

    The columns allowed by ε (e^−ε ≤ t_{i+1}/t_i ≤ e^ε, t ≥ 0) form a cone whose extreme rays are
    the scales (every step tight). Peeling: take the scale with the column's tight steps (and a
    step down at each loose step), subtract as much of it as keeps the rest in the cone; the rest
    gains a tight step (or is 0), so at most (loose steps + 1) scales are used, and they are
    independent: each lies outside the face of the cone that holds the rest after it.

    Parameters
    ----------
    column : sequence of exact numbers
        t_0, ..., t_{n−1}, non-negative, neighbours within a factor e^ε.
    eps_exp : exact number or str
        e^ε > 1.

    Returns
    -------
    list of (int, Fraction)
        (index of the scale in :func:`polytopes.scales.scales`, its positive amount), in the
        order peeled; Σ amount·scale = column exactly. Empty for the zero column.

    Raises
    ------
    PolytopeError
        If the column has a negative entry or neighbours further apart than e^ε.

    Examples
    --------
    >>> scale_decomposition(["4/7", "2/7", "1/7"], 2)  # a scale itself (steps down, down)
    [(0, Fraction(1, 1))]
    >>> scale_decomposition(["1/3", "1/3", "1/3"], 2)  # both steps loose
    [(0, Fraction(7, 18)), (2, Fraction(2, 9)), (3, Fraction(7, 18))]
    """
    e = eps_exp_above_one(eps_exp, allow_one=False)
    p, q = e.numerator, e.denominator
    rest, denominator = over_common_denominator(exact(v) for v in column)  # the column is rest/denominator
    if min(rest, default=0) < 0 or any(q * a > p * b or q * b > p * a for a, b in zip(rest, rest[1:], strict=False)):
        raise PolytopeError(f"column {[str(exact(v)) for v in column]} is not allowed at e^ε = {e}: an entry is "
                            "negative or neighbours differ by more than a factor e^ε")
    table = _integer_scales(len(rest), e)
    parts: list[tuple[int, Fraction]] = []
    for _ in range(len(rest)):  # each peel makes a step tight or the rest 0: at most n peels
        if not any(rest):
            return parts
        index = 0
        for a, b in zip(rest, rest[1:], strict=False):
            index = 2 * index + (1 if q * b == p * a and q * a != p * b else 0)  # up where tight up, else down
        scale, total = table[index]
        # the most of the scale that keeps every ratio: least g(rest)/g(scale) over g(x) = p·x[i+k] − q·x[i+1−k]
        # with g(scale) > 0 (at a tight step of the rest the scale is tight too, so g(rest) ≥ 0 throughout)
        most, room = -1, 1
        for i in range(len(rest) - 1):
            for k in (0, 1):
                g = p * scale[i + k] - q * scale[i + 1 - k]
                if g > 0 and (most < 0 or (p * rest[i + k] - q * rest[i + 1 - k]) * room < most * g):
                    most, room = p * rest[i + k] - q * rest[i + 1 - k], g
        parts.append((index, Fraction(most * total, room * denominator)))  # the scale is scale/total
        rest = [room * r - most * s for r, s in zip(rest, scale, strict=True)]
        common = math.gcd(*rest, room * denominator)
        rest, denominator = [r // common for r in rest], room * denominator // common
    if any(rest):
        raise InternalError(f"the column {[str(exact(v)) for v in column]} was not used up by {len(rest)} scales")
    return parts


@functools.lru_cache(maxsize=64)
def _integer_scales(n: int, e: Fraction) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The scales of :func:`polytopes.scales.scales` as primitive integer vectors with their sums."""
    table = []
    for scale in scales(n, e):
        numerators, _ = over_common_denominator(scale)
        common = math.gcd(*numerators)
        table.append((tuple(v // common for v in numerators), sum(numerators) // common))
    return tuple(table)


def preimage(t: Sequence[Sequence[Any]], eps_exp: Any) -> list[list[Fraction]]:
    """A representation matrix B with Ψ·B = T, built column by column by :func:`scale_decomposition`:
    for T a vertex of F (of U), a vertex of R_F (of R_U), as the module text proves (Kohli and
    Laskowski, Thms. 3 and 10).

    Parameters
    ----------
    t : n × n exact numbers
        A count mechanism (rows: true counts) whose columns are allowed by ε.
    eps_exp : exact number or str
        e^ε > 1.

    Returns
    -------
    list of lists of Fraction
        B, 2^(n−1) scales (in the order of :func:`polytopes.scales.scales`) × n columns.

    Raises
    ------
    PolytopeError
        If a column of T is not allowed by ε.
    ShapeError
        If T is empty or ragged.
    """
    n = len(t)
    if not n or not t[0] or any(len(row) != len(t[0]) for row in t):
        raise ShapeError(f"T must be a non-empty matrix with rows of one length, not rows of {[len(r) for r in t]}")
    b = [[Fraction(0)] * len(t[0]) for _ in range(2 ** (n - 1))]
    for j in range(len(t[0])):
        for index, amount in scale_decomposition([row[j] for row in t], eps_exp):
            b[index][j] = amount
    return b
