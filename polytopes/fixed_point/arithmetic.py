"""z and e^ε as Kohli and Laskowski's constructors take them (exact, or as long-double
logarithms of any magnitude), and the numeric helpers their float modes share: log-sum-exp, the
logarithm of an arb value, FLINT's working precision."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from qifkit.errors import DistributionError, PrivacyParameterError, ShapeError
from qifkit.numbers import exact as exact_number
from qifkit.validation import eps_exp_above_one

__all__ = ["positive_distribution", "log_distribution", "epsilon", "log_int", "exact_logs", "logsumexp",
           "logs_of", "precision"]


def positive_distribution(z: Sequence[Any]) -> list[Fraction]:
    values = [exact_number(v) for v in z]
    if len(values) < 2:
        raise ShapeError(f"z needs n >= 2 entries, got {len(values)}")
    for k, v in enumerate(values):
        if v <= 0:
            raise DistributionError(f"z[{k}] = {v} is not positive; a fixed point must put mass on every count")
    if sum(values) != 1:
        raise DistributionError(f"z sums to {sum(values)}, not 1")
    return values


def log_distribution(z: Sequence[Any]) -> np.ndarray:
    """log z (long double) for exact input (any magnitude) or for positive finite floats summing to 1 ± 1e-9."""
    if len(z) and all(isinstance(v, (float, np.floating)) for v in z):
        values = np.asarray(z, dtype=float)
        if values.size < 2 or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise DistributionError(f"z must have n >= 2 positive finite entries; got {values[:5]}...")
        if abs(math.fsum(values) - 1) > 1e-9:
            raise DistributionError(f"z sums to {math.fsum(values)}, not 1")
        return np.log(values.astype(np.longdouble)) - np.log(np.longdouble(math.fsum(values)))
    return np.array([log_int(v.numerator) - log_int(v.denominator) for v in positive_distribution(z)])


def epsilon(eps_exp: Any) -> Any:
    """ε = log e^ε as a long double (for an exact e^ε, from its exact numerator and denominator)."""
    if isinstance(eps_exp, (float, np.floating)):
        if not math.isfinite(eps_exp) or eps_exp <= 1:
            raise PrivacyParameterError(f"e^ε = {eps_exp} must be a finite number > 1")
        return np.log(np.longdouble(eps_exp))
    value = eps_exp_above_one(eps_exp)
    return log_int(value.numerator) - log_int(value.denominator)


def log_int(value: int) -> Any:
    """log of a positive integer of any size as a long double (its top 64 bits and a power of 2)."""
    shift = max(value.bit_length() - 64, 0)
    return np.log(np.longdouble(value >> shift)) + shift * np.log(np.longdouble(2))


def exact_logs(rows: Sequence[Sequence[Fraction]]) -> np.ndarray:
    """The natural logarithm of every exact entry as long doubles (−inf for a zero), from its
    numerator and denominator: any magnitude (an entry of 2^-5000 has a log of about −3466)."""
    return np.array([[log_int(v.numerator) - log_int(v.denominator) if v else -np.inf for v in row]
                     for row in rows], dtype=np.longdouble)


def logsumexp(values: np.ndarray, axis: int | None = None) -> Any:
    """log Σ exp(values) without overflow (entries −inf allowed; not all of them)."""
    top = values.max(axis=axis, keepdims=True)
    total = np.log(np.sum(np.exp(values - top), axis=axis, keepdims=True)) + top
    return total.item() if axis is None else np.squeeze(total, axis=axis)


def logs_of(values: np.ndarray) -> np.ndarray:
    """log x for positive arb values of any magnitude, as long doubles: from their doubles where those
    are normal, else from their exact mantissa and exponent."""
    doubles = values.astype(float)
    logs = np.log(doubles.astype(np.longdouble))
    for k in np.flatnonzero(~((doubles > 1e-300) & (doubles < 1e300))):
        mantissa, exponent = values[k].mid().man_exp()
        if mantissa <= 0:
            logs[k] = -np.inf if mantissa == 0 else np.nan
            continue
        shift = max(int(mantissa).bit_length() - 63, 0)
        logs[k] = np.log(np.longdouble(int(mantissa) >> shift)) + (int(exponent) + shift) * np.log(np.longdouble(2))
    return logs


class precision:
    """Set FLINT's working precision for arb within a ``with`` block."""

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def __enter__(self) -> None:
        self.previous, flint.ctx.prec = flint.ctx.prec, self.bits

    def __exit__(self, *_: Any) -> None:
        flint.ctx.prec = self.previous
