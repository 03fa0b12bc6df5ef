"""Representation matrices of Kohli and Laskowski: T = Ψ·B, and when B is extreme.

B (scales × columns) says how much of each ε-scale enters each column of a count mechanism.
Thm. 4: B ∈ ex(R_F) iff B is Ψ-affinely simplified (Def. 8): the multiset ⊎_j H(B_j), with
H(x) = {Ψ_u/(zΨ_u) − Ψ_v/(zΨ_v) : x_u > 0, u ≠ v}, v the first positive index of x, is linearly
independent. Thm. 11: B ∈ ex(R_U) iff B is Ψ-linearly simplified (Def. 19): the multiset
⊎_j {Ψ_u : B[u, j] > 0} is linearly independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from polytopes.classify import rank

__all__ = ["apply_psi", "affinely_simplified", "linearly_simplified", "positive_entries"]

Matrix = Sequence[Sequence[Fraction]]


def apply_psi(psi_matrix: Matrix, b: Matrix) -> list[list[Fraction]]:
    """T = Ψ·B exactly."""
    return [
        [sum((p * b[i][j] for i, p in enumerate(row)), Fraction(0)) for j in range(len(b[0]))] for row in psi_matrix
    ]


def _column(psi_matrix: Matrix, u: int) -> list[Fraction]:
    return [row[u] for row in psi_matrix]


def _independent(vectors: list[list[Fraction]]) -> bool:
    return not vectors or rank(vectors) == len(vectors)


def affinely_simplified(b: Matrix, psi_matrix: Matrix, z: Sequence[Fraction]) -> bool:
    """Def. 8: is ⊎_j H(B_j) linearly independent?"""
    weight = [sum(z[r] * psi_matrix[r][u] for r in range(len(z))) for u in range(len(psi_matrix[0]))]
    vectors = []
    for j in range(len(b[0])):
        positive = [u for u in range(len(b)) if b[u][j] > 0]
        if len(positive) < 2:
            continue
        v = positive[0]
        base = [x / weight[v] for x in _column(psi_matrix, v)]
        vectors += [
            [x / weight[u] - y for x, y in zip(_column(psi_matrix, u), base, strict=True)] for u in positive[1:]
        ]
    return _independent(vectors)


def linearly_simplified(b: Matrix, psi_matrix: Matrix) -> bool:
    """Def. 19: is the multiset of scales used, over all columns, linearly independent?"""
    vectors = [_column(psi_matrix, u) for j in range(len(b[0])) for u in range(len(b)) if b[u][j] > 0]
    return _independent(vectors)


def positive_entries(b: Matrix) -> int:
    """Number of positive entries."""
    return sum(1 for row in b for v in row if v > 0)
