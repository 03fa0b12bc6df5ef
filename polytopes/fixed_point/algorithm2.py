"""Algorithm 2 of Kohli and Laskowski (§5.3): the count mechanism of U of least expected count
error ⟨W, T⟩ for row-wise concentrating and convex W (Thm. 8), and the count-error weights W."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.fixed_point.arithmetic import epsilon
from polytopes.fixed_point.construction import Construction
from polytopes.fixed_point.verification import verify_log_mechanism, verify_mechanism
from qifkit.errors import DistributionError, LabelError, ShapeError
from qifkit.numbers import exact as exact_number
from qifkit.validation import eps_exp_above_one

__all__ = ["count_error_weights", "count_error", "check_weights", "unfixed_optimum"]


def count_error_weights(z: Sequence[Any], kind: str = "absolute", *, exact: bool = True) -> Any:
    """W with ⟨W, T⟩ the expected count error (Kohli and Laskowski §5.3): w_ij = z_i·abs(i − j) for
    ``"absolute"`` (expected absolute deviation) or z_i·(i − j)² for ``"squared"``.

    z may be any n non-negative exact numbers (a distribution, or counts). With ``exact=False``, W is
    a float array (what the float modes use; n² exact entries would cost seconds at n = 2000), and z
    may hold floats.

    Parameters
    ----------
    z : sequence of exact numbers
        The weight of each true count (a distribution, or counts).
    kind : {"absolute", "squared"}
        The count error.
    exact : bool
        Exact rationals, or a float array.

    Returns
    -------
    list of list of Fraction, or numpy.ndarray

    >>> count_error_weights(["1/2", "1/2"])  # a wrong count costs its distance, weighted by z
    [[Fraction(0, 1), Fraction(1, 2)], [Fraction(1, 2), Fraction(0, 1)]]
    """
    values = [float(v) if not exact and isinstance(v, (float, np.floating)) else exact_number(v) for v in z]
    if any(not v >= 0 for v in values):
        raise DistributionError(f"z has a negative or NaN entry {min(values)}")
    if kind not in ("absolute", "squared"):
        raise LabelError(f"unknown count error {kind!r}; use 'absolute' or 'squared'")
    power = 1 if kind == "absolute" else 2
    n = len(values)
    if not exact:
        index = np.arange(n, dtype=float)
        return np.array([float(v) for v in values])[:, None] * np.abs(index[:, None] - index[None, :]) ** power
    return [[values[i] * abs(i - j) ** power for j in range(n)] for i in range(n)]


def count_error(construction: Construction | Sequence[Sequence[Any]], weights: Sequence[Sequence[Any]]) -> Any:
    """⟨W, T⟩ = Σ_ij W[i][j]·T[i][j] (Kohli and Laskowski §5.3: with :func:`count_error_weights`, the
    expected count error), exactly for an exact mechanism, as a float for a log-mode one.

    Parameters
    ----------
    construction : Construction or rows of exact numbers
        T.
    weights : rows of exact numbers
        W, e.g. :func:`count_error_weights`.

    Returns
    -------
    Fraction or float

    >>> count_error([["1/2", "1/2"], ["1/2", "1/2"]], [[0, 1], [1, 0]])
    Fraction(1, 1)
    """
    if isinstance(construction, Construction) and construction.log_matrix is not None:
        return float(np.sum(np.asarray(weights, dtype=float) * np.exp(construction.log_matrix)))
    matrix = construction.matrix if isinstance(construction, Construction) else construction
    assert matrix is not None  # a Construction without log_matrix has matrix
    return sum(
        (
            exact_number(w) * exact_number(t)
            for w_row, t_row in zip(weights, matrix, strict=True)
            for w, t in zip(w_row, t_row, strict=True)
        ),
        Fraction(0),
    )


def check_weights(weights: Sequence[Sequence[Any]]) -> list[list[Fraction]]:
    """W as exact numbers, refused unless non-negative, square, row-wise concentrating (Def. 11) and
    row-wise convex (Def. 12), the conditions of Algorithm 2."""
    w = [[exact_number(v) for v in row] for row in weights]
    n = len(w)
    if n < 2 or any(len(row) != n for row in w):
        raise ShapeError(f"W must be square with n >= 2, got {n} rows of lengths {sorted({len(r) for r in w})}")
    for i, row in enumerate(w):
        if min(row) < 0:
            raise DistributionError(f"W[{i}] has a negative entry {min(row)}")
        for j in range(n - 1):
            further, nearer = (j + 1, j) if j >= i else (j, j + 1)
            if row[further] < row[nearer]:
                raise DistributionError(f"W is not row-wise concentrating: W[{i}][{further}] < W[{i}][{nearer}]")
        for j in range(n - 2):
            if row[j + 2] - row[j + 1] < row[j + 1] - row[j]:
                raise DistributionError(f"W is not row-wise convex at row {i}, columns {j}..{j + 2}")
    return w


def _check_weights_float(weights: Any) -> np.ndarray:
    """:func:`check_weights` for a float matrix (comparisons to a relative 1e-12)."""
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2:
        raise ShapeError(f"W must be square with n >= 2, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise DistributionError("W must have finite non-negative entries")
    slack = 1e-12 * max(float(w.max()), 1e-300)
    steps = np.diff(w, axis=1)  # steps[i, j] = w[i, j+1] − w[i, j]
    outward = np.where(np.arange(w.shape[0] - 1)[None, :] >= np.arange(w.shape[0])[:, None], steps, -steps)
    if np.any(outward < -slack):
        raise DistributionError("W is not row-wise concentrating")
    if np.any(np.diff(steps, axis=1) < -slack):
        raise DistributionError("W is not row-wise convex")
    return w


def unfixed_optimum(weights: Sequence[Sequence[Any]], *, eps_exp: Any, exact: bool = True) -> Construction:
    """Algorithm 2 of Kohli and Laskowski: the count mechanism of U of least ⟨W, T⟩ (Thm. 8).

    Σ_l (the single-peaked scale at l, unnormalised e^−ε|i−l|) enters with amount ω'_l =
    (1 − e^−ε)/(1 + e^−ε) inside and 1/(1 + e^−ε) at l ∈ {0, n−1} (Observation 3 corrected, in
    unnormalised form), in the rightmost column minimising (W_c)ᵀΣ_l; by Lemma 8 that column never
    moves left, and by Lemma 9 a local minimum is global, so one left-to-right scan suffices.

    Parameters
    ----------
    weights : n×n
        Row-wise concentrating and row-wise convex non-negative W (e.g.
        :func:`count_error_weights`); refused otherwise.
    eps_exp : exact number or string
        e^ε > 1 (keyword only).
    exact : bool
        Exact rationals, or floats with log entries (W is used as floats).

    Examples
    --------
    >>> t = unfixed_optimum(eps_exp="2", weights=count_error_weights(["1/3", "1/3", "1/3"]))
    >>> [[str(v) for v in row] for row in t.matrix]
    [['2/3', '1/6', '1/6'], ['1/3', '1/3', '1/3'], ['1/6', '1/6', '2/3']]
    """
    w = check_weights(weights) if exact else _check_weights_float(weights)
    n = len(w)
    if exact:
        e = eps_exp_above_one(eps_exp)
        a = 1 / e
        amounts = [1 / (1 + a) if loc in (0, n - 1) else (1 - a) / (1 + a) for loc in range(n)]

        def scale(loc):
            return [a ** abs(i - loc) for i in range(n)]

        def cost(c, loc):
            return amounts[loc] * sum(w[i][c] * s for i, s in enumerate(scale(loc)))

    else:
        eps = epsilon(eps_exp)
        wf = np.asarray(w, dtype=float)
        index = np.arange(n)
        log_amounts = np.full(n, math.log(-math.expm1(-eps)) - math.log1p(math.exp(-eps)))
        log_amounts[[0, n - 1]] = -math.log1p(math.exp(-eps))

        def cost(c, loc):
            return float(np.exp(log_amounts[loc] - eps * np.abs(index - loc)) @ wf[:, c])

    placement, steps, j, loc = [0] * n, 0, 0, 0
    while loc < n:
        steps += 1
        here = cost(j, loc)
        if j == n - 1 or cost(j + 1, loc) > here:
            placement[loc] = j
            loc += 1
        else:
            j += 1
    if exact:
        matrix = [[Fraction(0)] * n for _ in range(n)]
        for loc, column in enumerate(placement):
            for i, s in enumerate(scale(loc)):
                matrix[i][column] += amounts[loc] * s
        return Construction(matrix, None, steps, tuple(placement), verify_mechanism(matrix, eps_exp=e))
    log_matrix = np.full((n, n), -np.inf)
    for loc, column in enumerate(placement):
        log_matrix[:, column] = np.logaddexp(log_matrix[:, column], log_amounts[loc] - eps * np.abs(index - loc))
    return Construction(None, log_matrix, steps, tuple(placement), verify_log_mechanism(log_matrix, eps), "double")
