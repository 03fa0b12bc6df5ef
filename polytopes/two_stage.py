"""The two-stage count framework of Kohli and Laskowski (§1.2, §3): distribution privatisers.

The cyclic Laplace mechanism (Def. 2) outputs V_i = ζ_i + L_i − L_{i+1} (indices mod n) with
independent L_i ~ Laplace(1/(Nε)); the classic Laplace mechanism outputs ζ_j + L̃_j with
L̃_j ~ Laplace(2/(Nε)) (L1 sensitivity 2/N). Both are linear in their noise, which
:func:`cyclic_difference` and :func:`noise_coefficients` expose for exact analysis; the samplers
take a seeded numpy Generator, so runs are reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from qifkit.errors import PrivacyParameterError, ShapeError

__all__ = ["cyclic_difference", "cyclic_laplace", "classic_laplace"]


def cyclic_difference(n: int) -> list[list[Fraction]]:
    """D with V = ζ + D·L: row i has +1 at i and −1 at i+1 (mod n)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ShapeError(f"n must be a whole number >= 2, got {n!r}")
    return [[Fraction(int(j == i)) - Fraction(int(j == (i + 1) % n)) for j in range(n)] for i in range(n)]


def _check(epsilon: float, table_size: int) -> None:
    if not epsilon > 0:
        raise PrivacyParameterError(f"ε = {epsilon} is not > 0")
    if isinstance(table_size, bool) or not isinstance(table_size, int) or table_size < 1:
        raise ShapeError(f"the table size N must be a whole number >= 1, got {table_size!r}")


def cyclic_laplace(zeta: Sequence[float], epsilon: float, table_size: int, rng: np.random.Generator) -> np.ndarray:
    """One draw of the cyclic Laplace mechanism (Def. 2); its entries sum to 1 (Observation 1)."""
    _check(epsilon, table_size)
    noise = rng.laplace(0.0, 1.0 / (table_size * epsilon), size=len(zeta))
    return np.asarray(zeta, dtype=float) + noise - np.roll(noise, -1)


def classic_laplace(zeta: Sequence[float], epsilon: float, table_size: int, rng: np.random.Generator) -> np.ndarray:
    """One draw of the classic Laplace mechanism with scale 2/(Nε)."""
    _check(epsilon, table_size)
    return np.asarray(zeta, dtype=float) + rng.laplace(0.0, 2.0 / (table_size * epsilon), size=len(zeta))
