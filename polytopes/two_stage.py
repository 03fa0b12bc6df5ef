"""The two-stage count framework of Kohli and Laskowski (§1.2, §3, §6).

A table of N counts in 0..n−1 is privatised in two stages: a distribution privatiser spends ε₁ on
the distribution of counts ζ and returns z (post-processed to a distribution with positive
entries); a constructor builds a count mechanism T from z with ε₂ (Algorithm 1 keeps z as a fixed
point, z·T = z); then every row of the table is replaced by a draw from T[count]. The rule of
thumb of App. F splits ε_t = ε₁ + ε₂ with ε₁ = f̂(ε_t)·ε_t, f̂(ε) = 0.106 + 0.533·e^−2.87ε.

The cyclic Laplace mechanism (Def. 2) outputs V_i = ζ_i + L_i − L_{i+1} (indices mod n) with
independent L_i ~ Laplace(1/(Nε)); the classic Laplace mechanism outputs ζ_j + L̃_j with
L̃_j ~ Laplace(2/(Nε)) (L1 sensitivity 2/N). :func:`cyclic_difference` exposes the linear map for
exact analysis. Every sampler takes a seeded numpy Generator, so runs are reproducible.

Distribution error is measured by Wasserstein-1, total variation and Kolmogorov–Smirnov distance
between distributions on 0..n−1; count error by the mean absolute deviation of the privatised
counts from the true ones (§1.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from qifkit.errors import DistributionError, PrivacyParameterError, ShapeError
from qifkit.validation import whole_number

__all__ = [
    "cyclic_difference",
    "cyclic_laplace",
    "classic_laplace",
    "to_distribution",
    "budget_split",
    "privatise_table",
    "wasserstein1",
    "total_variation",
    "kolmogorov_smirnov",
    "count_distribution",
    "mean_absolute_deviation",
    "two_stage_release",
]


def cyclic_difference(n: int) -> list[list[Fraction]]:
    """D with V = ζ + D·L: row i has +1 at i and −1 at i+1 (mod n)."""
    whole_number(n, 2, "n")
    return [[Fraction(int(j == i)) - Fraction(int(j == (i + 1) % n)) for j in range(n)] for i in range(n)]


def _check_privatiser_parameters(epsilon: float, table_size: int) -> None:
    if not epsilon > 0:
        raise PrivacyParameterError(f"ε = {epsilon} is not > 0")
    whole_number(table_size, 1, "the table size N")


def cyclic_laplace(
    zeta: Sequence[float] | np.ndarray, epsilon: float, table_size: int, rng: np.random.Generator
) -> np.ndarray:
    """One draw of the cyclic Laplace mechanism (Def. 2); its entries sum to 1 (Observation 1)."""
    _check_privatiser_parameters(epsilon, table_size)
    noise = rng.laplace(0.0, 1.0 / (table_size * epsilon), size=len(zeta))
    return np.asarray(zeta, dtype=float) + noise - np.roll(noise, -1)


def classic_laplace(zeta: Sequence[float], epsilon: float, table_size: int, rng: np.random.Generator) -> np.ndarray:
    """One draw of the classic Laplace mechanism with scale 2/(Nε)."""
    _check_privatiser_parameters(epsilon, table_size)
    return np.asarray(zeta, dtype=float) + rng.laplace(0.0, 2.0 / (table_size * epsilon), size=len(zeta))


def to_distribution(values: Sequence[float] | np.ndarray, floor: float = 1e-6) -> np.ndarray:
    """The Euclidean projection of a privatised vector onto {x : x_i ≥ floor·(1/n), Σ x = 1}, a
    post-processing (so free of privacy cost) that gives Algorithm 1 the positive z it needs."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n < 2 or not np.all(np.isfinite(v)):
        raise DistributionError(f"need n >= 2 finite values, got {values!r}")
    if not 0 <= floor < 1:
        raise DistributionError(f"floor must be in [0, 1), got {floor}")
    low = floor / n
    budget = 1 - low * n  # mass above the floor
    shifted = v - low
    ordered = np.sort(shifted)[::-1]
    cumulative = np.cumsum(ordered) - budget
    k = np.flatnonzero(ordered - cumulative / np.arange(1, n + 1) > 0)[-1]
    theta = cumulative[k] / (k + 1)
    result = np.maximum(shifted - theta, 0) + low
    return result / result.sum()


def budget_split(eps_total: float) -> tuple[float, float]:
    """(ε₁, ε₂) by the rule of thumb of App. F: ε₁ = (0.106 + 0.533·e^−2.87·ε_t)·ε_t."""
    if not (isinstance(eps_total, (int, float)) and math.isfinite(eps_total) and eps_total > 0):
        raise PrivacyParameterError(f"ε_t = {eps_total!r} must be a finite number > 0")
    fraction = 0.106 + 0.533 * math.exp(-2.87 * eps_total)
    return fraction * eps_total, (1 - fraction) * eps_total


def privatise_table(counts: Sequence[int], mechanism: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Replace each count c of the table by a draw from row c of the mechanism (rows: true counts).

    Parameters
    ----------
    counts : sequence of int
        The table: one count in 0..n−1 per row.
    mechanism : numpy.ndarray
        n × n, rows are true counts (floats).
    rng : numpy.random.Generator
        The randomness.

    Returns
    -------
    numpy.ndarray
        The released counts.

    Raises
    ------
    ShapeError
        A mechanism that is not square, or counts outside 0..n−1.

    Examples
    --------
    >>> import numpy as np
    >>> privatise_table([0, 1, 1], np.eye(2), np.random.default_rng(0)).tolist()  # the identity keeps them
    [0, 1, 1]
    """
    t = np.asarray(mechanism, dtype=float)
    table = np.asarray(counts)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ShapeError(f"the mechanism must be square, got shape {t.shape}")
    if table.size and (table.min() < 0 or table.max() >= t.shape[0] or not np.issubdtype(table.dtype, np.integer)):
        raise ShapeError(f"counts must be whole numbers in 0..{t.shape[0] - 1}")
    cumulative = np.cumsum(t, axis=1)
    cumulative[:, -1] = 1.0
    draws = rng.random(table.size)
    return np.array([int(np.searchsorted(cumulative[c], u, side="right")) for c, u in zip(table, draws, strict=True)])


def count_distribution(counts: Sequence[int], n: int) -> np.ndarray:
    """ζ: the share of table rows with each count 0..n−1."""
    table = np.asarray(counts)
    if table.size == 0 or table.min() < 0 or table.max() >= n:
        raise ShapeError(f"counts must be a non-empty table of whole numbers in 0..{n - 1}")
    return np.bincount(table, minlength=n) / table.size


def _pair(p: Sequence[float], q: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ShapeError(f"distributions of different shapes {a.shape}, {b.shape}")
    return a, b


def wasserstein1(p: Sequence[float], q: Sequence[float]) -> float:
    """W₁ between distributions on 0..n−1: Σ_i abs(F_p(i) − F_q(i)), F the cumulative distributions
    (Kohli and Laskowski's distribution error, §6).

    Parameters
    ----------
    p, q : sequence of float
        Two distributions on 0..n−1.

    Returns
    -------
    float

    >>> wasserstein1([1, 0, 0], [0, 0, 1])  # all the mass moved two steps
    2.0
    """
    a, b = _pair(p, q)
    return float(np.abs(np.cumsum(a - b)).sum())


def total_variation(p: Sequence[float], q: Sequence[float]) -> float:
    """½·Σ |p_i − q_i|."""
    a, b = _pair(p, q)
    return float(np.abs(a - b).sum() / 2)


def kolmogorov_smirnov(p: Sequence[float], q: Sequence[float]) -> float:
    """max_i abs(F_p(i) − F_q(i))."""
    a, b = _pair(p, q)
    return float(np.abs(np.cumsum(a - b)).max())


def mean_absolute_deviation(true_counts: Sequence[int], released: Sequence[int]) -> float:
    """Count error: the mean of |released − true| over the table rows."""
    a, b = np.asarray(true_counts), np.asarray(released)
    if a.shape != b.shape:
        raise ShapeError(f"tables of different sizes {a.shape}, {b.shape}")
    return float(np.abs(a - b).mean())


def two_stage_release(counts: Sequence[int], n: int, eps_total: float, constructor: str,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One run of the two-stage framework (§1.2) on a table of counts in 0..n−1.

    Parameters
    ----------
    constructor : {"sandwich", "max", "min", "unfixed-optimum"}
        Algorithm 1 with that column selector (float log mode), or Algorithm 2 for the expected
        absolute deviation under z (the two-stage unfixed optimum baseline).

    Returns
    -------
    (released counts, z)
        z is the privatised distribution (cyclic Laplace with ε₁, then :func:`to_distribution`);
        ε₁, ε₂ come from :func:`budget_split`.

    Examples
    --------
    >>> import numpy as np
    >>> released, z = two_stage_release([0, 1, 2, 1], 3, 2.0, "sandwich", np.random.default_rng(1))
    >>> released.shape, round(float(z.sum()), 12)  # one released count per row; z a distribution
    ((4,), 1.0)
    """
    from polytopes.fixed_point.algorithm1 import heuristic_constructor
    from polytopes.fixed_point.algorithm2 import count_error_weights, unfixed_optimum

    eps1, eps2 = budget_split(eps_total)
    zeta = count_distribution(counts, n)
    z = to_distribution(cyclic_laplace(zeta, eps1, len(counts), rng))
    if constructor == "unfixed-optimum":
        weights = count_error_weights(list(z), exact=False)
        mechanism = unfixed_optimum(weights, eps_exp=math.exp(eps2), exact=False)
    else:
        mechanism = heuristic_constructor(list(z), eps_exp=math.exp(eps2), selector=constructor, exact=False)
    return privatise_table(counts, mechanism.to_numpy(), rng), z
