"""The check of a count mechanism T: rows are distributions, every column is ε-neighbour
indistinguishable (Kohli and Laskowski, Def. of U) and, given z, z·T = z (F[z]); exactly in integer
arithmetic, or in floating point on log entries with the check's own rounding bounded."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from polytopes.fixed_point.arithmetic import logsumexp
from polytopes.fixed_point.construction import Verification
from qifkit.errors import CertificateError, ShapeError
from qifkit.numbers import exact as exact_number
from qifkit.numbers import over_common_denominator
from qifkit.validation import eps_exp_above_one

__all__ = ["FLOAT_TOLERANCE", "verify_mechanism", "verify_integer_columns", "verify_log_mechanism", "verify_array"]


FLOAT_TOLERANCE = 1e-9  # relative; the float mode refuses to return a matrix worse than this


def verify_mechanism(
    matrix: Sequence[Sequence[Fraction]], *, eps_exp: Any, z: Sequence[Fraction] | None = None
) -> Verification:
    """Check exactly that T is in U (or F[z]); raise :class:`CertificateError` if not.

    Parameters
    ----------
    matrix : rows of exact numbers
        T, rows are true counts.
    eps_exp : exact number or str, keyword only
        e^ε > 1.
    z : sequence of exact numbers, optional
        The fixed point: T must also have z·T = z (the polytope F[z]).

    Returns
    -------
    Verification
        What was checked (the largest DP ratio, the fixed-point defect).

    Raises
    ------
    CertificateError
        Naming the first entry, ratio or sum that is wrong.

    Examples
    --------
    >>> verify_mechanism([[Fraction(1, 2)] * 2] * 2, eps_exp="2").dp_ratio
    Fraction(1, 1)
    """
    rows = [list(map(exact_number, row)) for row in matrix]
    n = len(rows)
    if n == 0 or any(len(row) != n for row in rows):
        raise ShapeError(f"a count mechanism is square: {n} rows of lengths {sorted({len(row) for row in rows})}")
    columns = [over_common_denominator(column) for column in zip(*rows, strict=True)]
    denominators = [d for _, d in columns]
    numerators = flint.fmpz_mat(n, n, [v for row in zip(*(c for c, _ in columns), strict=True) for v in row])
    return verify_integer_columns(numerators, [flint.fmpz(d) for d in denominators], eps_exp_above_one(eps_exp),
                                   None if z is None else [exact_number(v) for v in z])


def verify_integer_columns(
    numerators: Any, denominators: list[Any], e: Fraction, z: list[Fraction] | None
) -> Verification:
    """:func:`verify_mechanism` on T[i, j] = N[i, j] / d_j, N an fmpz_mat and every d_j > 0.

    Every test is integer arithmetic in FLINT: with e^ε = p/s, the ratio bounds of rows i and i + 1
    are p·N[i] − s·N[i+1] ≥ 0 and p·N[i+1] − s·N[i] ≥ 0, the row sums are Σ_j N[i, j]·(L/d_j) = L
    with L = lcm(d) and z·T = z is Σ_i (z_i·B)·N[i, j] = z_j·B·d_j, B a common denominator of z. The
    worst ratio is e^ε exactly when they all hold and one of them is 0 beside a positive entry (as
    at every tight bound of a vertex); otherwise it is found by comparing the ratios one by one, and
    reported if above e^ε."""
    n = numerators.nrows()
    entries = numerators.entries()
    p, s = flint.fmpz(e.numerator), flint.fmpz(e.denominator)
    upper = flint.fmpz_mat(n - 1, n, entries[:-n]) if n > 1 else flint.fmpz_mat(0, n)
    lower = flint.fmpz_mat(n - 1, n, entries[n:]) if n > 1 else flint.fmpz_mat(0, n)
    falls, rises = (upper * p - lower * s).entries(), (lower * p - upper * s).entries()
    # Both differences ≥ 0 imply (p − s)(a + b) ≥ 0 and so a, b ≥ 0: a negative entry, or a zero
    # beside a positive one, fails one of them (a 1×1 matrix fails its row sum unless it is [1]).
    within = min(falls, default=0) >= 0 and min(rises, default=0) >= 0
    if not within:  # name the first pair that is not even of one sign
        for position, (a, b) in enumerate(zip(entries, entries[n:], strict=False)):
            if a < 0 or b < 0 or (a == 0) != (b == 0):
                i, j = divmod(position, n)
                raise CertificateError(
                    f"column {j} is not ε-neighbour indistinguishable at rows {i}, {i + 1}: "
                    f"{Fraction(int(a), int(denominators[j]))}, {Fraction(int(b), int(denominators[j]))}"
                )
    if within and any((fall == 0 or rise == 0) and a > 0 for fall, rise, a in zip(falls, rises, entries, strict=False)):
        worst_ratio = e
    else:
        worst = (flint.fmpz(1), flint.fmpz(1))  # the worst ratio as numerator, denominator
        for a, b in zip(entries, entries[n:], strict=False):
            high, low = (a, b) if a >= b else (b, a)
            if high * worst[1] > worst[0] * low:
                worst = (high, low)
        worst_ratio = Fraction(int(worst[0]), int(worst[1]))
    sums, common = _row_sums(numerators, denominators)
    row_error = max(abs(Fraction(int(v), int(common)) - 1) for v in sums)
    fixed_error = None
    if z is not None:
        scaled, base = over_common_denominator(z)
        mass = (flint.fmpz_mat(1, n, scaled) * numerators).entries()
        fixed_error = max(
            abs(Fraction(int(m), base * int(d)) / v - 1) for m, d, v in zip(mass, denominators, z, strict=True)
        )
    if worst_ratio > e or row_error or fixed_error:
        raise CertificateError(f"the constructed matrix fails its check: worst ratio {worst_ratio} (e^ε = {e}), "
                               f"row-sum error {row_error}, fixed-point error {fixed_error}")
    return Verification(row_error, fixed_error, worst_ratio, e)


def _row_sums(numerators: Any, denominators: list[Any]) -> tuple[list[Any], Any]:
    """T's row sums Σ_j N[:, j]/d_j as integers over one denominator, adding columns in pairs.

    The lcm of all d_j can be ten times longer than any of them (Algorithm 1 at n = 300: 33,000
    bits against 2,900), so scaling every entry to it costs n² products with that lcm; a pairwise
    tree does n products per level, with the long numbers only near the root."""
    n = numerators.nrows()
    by_column = numerators.transpose().entries()
    terms = [(flint.fmpz_mat(n, 1, by_column[j * n:(j + 1) * n]), d) for j, d in enumerate(denominators)]
    while len(terms) > 1:
        paired = []
        for (left, a), (right, b) in zip(terms[0::2], terms[1::2], strict=False):
            g = a.gcd(b)
            paired.append((left * (b // g) + right * (a // g), a // g * b))
        terms = paired + terms[len(paired) * 2:]
    total, common = terms[0]
    return total.entries(), common


def verify_log_mechanism(log_matrix: np.ndarray, eps: float, log_z: np.ndarray | None = None,
                         tolerance: float = FLOAT_TOLERANCE) -> Verification:
    """Check T = exp(log_matrix) in floating point: row sums, z·T = z (relative, per coordinate)
    and every neighbour ratio within e^ε, each to `tolerance`; raise :class:`CertificateError` if not.

    The reported errors are upper bounds for the matrix as given: each adds to the computed value
    the rounding the check itself can make (at most 2n + 8 + max |log T| units of the last place
    of a double per sum, far below `tolerance`)."""
    logs = np.asarray(log_matrix, dtype=float)
    finite = logs[np.isfinite(logs)]
    n = logs.shape[0]
    rounding = float((2 * n + 8 + (np.max(np.abs(finite)) if finite.size else 0)) * np.finfo(float).eps)
    with np.errstate(invalid="ignore", over="ignore"):
        row_error = float(np.max(np.abs(np.expm1(logsumexp(logs, axis=1))))) + rounding
        steps = np.abs(np.diff(logs, axis=0))
    if not np.all(np.isfinite(logs)):
        steps = np.where(np.isneginf(logs[1:]) & np.isneginf(logs[:-1]), 0.0, steps)
    worst_log = float(np.max(steps)) if steps.size else 0.0
    dp_ratio = math.exp(worst_log) * (1 + rounding) if math.isfinite(worst_log) else math.inf
    fixed_error = None
    if log_z is not None:
        z = np.asarray(log_z, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            fixed_error = float(np.max(np.abs(np.expm1(logsumexp(z[:, None] + logs, axis=0) - z)))) + rounding
    bad = (not row_error <= tolerance or not worst_log <= eps + tolerance
           or (fixed_error is not None and not fixed_error <= tolerance))
    if bad:
        raise CertificateError(f"the float mechanism fails its check to {tolerance}: row-sum error {row_error}, "
                               f"fixed-point error {fixed_error}, worst ratio {dp_ratio} vs e^ε = {math.exp(eps)}")
    return Verification(row_error, fixed_error, dp_ratio, math.exp(eps))


def verify_array(array: np.ndarray, eps: float, log_z: np.ndarray | None = None,
                 tolerance: float = FLOAT_TOLERANCE) -> Verification:
    """Check a mechanism T as an array holds it, in the array's own dtype (float64 or long double):
    what a user gets from ``numpy.load``, not what was computed before it was rounded.

    An entry that underflowed to 0 beside a positive one (an infinite ratio), or rounded so far
    that a neighbour ratio exceeds e^ε, is named; then the checks of
    :func:`verify_log_mechanism` run on the array's logarithms (taken in its dtype).

    Raises
    ------
    ShapeError
        Not a square array of finite non-negative numbers.
    CertificateError
        Naming how many neighbour pairs break ε-DP and the first of them, or what else fails.

    Examples
    --------
    >>> verify_array(np.array([[2/3, 1/3], [1/3, 2/3]]), math.log(2)).dp_ratio <= 2 * (1 + 1e-12)
    True
    >>> verify_array(np.array([[1.0, 0.0], [1e-320, 1.0]]), math.log(2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qifkit.errors.CertificateError: 2 neighbour pairs break e^ε = 2 as written (float64): column 0, rows 0 and 1 ...
    """
    values = np.asarray(array)
    if (values.ndim != 2 or values.shape[0] != values.shape[1] or values.dtype.kind != "f"
            or not np.all(np.isfinite(values)) or np.any(values < 0)):
        raise ShapeError(f"a mechanism is a square array of finite non-negative floats, not {values.dtype} of shape "
                         f"{values.shape}")
    upper, lower = values[:-1], values[1:]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.maximum(upper / lower, lower / upper)
    broken = ratio > math.exp(eps) * (1 + tolerance)  # a zero beside a positive entry: ratio inf (0/0 is nan)
    if np.any(broken):
        kind = "long double" if values.dtype == np.longdouble and values.dtype != np.float64 else str(values.dtype)
        pairs = [f"column {j}, rows {i} and {i + 1} hold {_shown(upper[i, j])} and {_shown(lower[i, j])}"
                 for i, j in np.argwhere(broken)[:3]]
        raise CertificateError(f"{int(broken.sum()):,} neighbour pairs break e^ε = {math.exp(eps):.10g} as written "
                               f"({kind}): " + "; ".join(pairs))
    with np.errstate(divide="ignore"):
        logs = np.log(values).astype(float)
    return verify_log_mechanism(logs, eps, log_z, tolerance)


def _shown(value: Any) -> str:
    """A float of any dtype and magnitude in a few digits (a long double below 1e-308 too)."""
    return np.format_float_scientific(value, precision=6, unique=True, trim="-")
