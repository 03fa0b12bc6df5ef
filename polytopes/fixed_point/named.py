"""Fixed points z by name (uniform, binomial), and hard random ones for stress tests of Algorithm
1's float mode."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from qifkit.errors import LabelError
from qifkit.validation import whole_number

__all__ = ["NAMED_FIXED_POINTS", "named_fixed_point", "random_fixed_point"]


#: The fixed points that have names: uniform 1/n, and binomial C(n−1, k)/2^(n−1) (a count of n − 1 fair coins).
NAMED_FIXED_POINTS = ("uniform", "binomial")


def named_fixed_point(name: str, n: int) -> list[Fraction]:
    """The named fixed point on n values (:data:`NAMED_FIXED_POINTS`), exact.

    Examples
    --------
    >>> named_fixed_point("binomial", 3)
    [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    """
    if name not in NAMED_FIXED_POINTS:
        raise LabelError(f"unknown fixed point {name!r}; the named ones are {', '.join(NAMED_FIXED_POINTS)}")
    n = whole_number(n, 2, "the number of values of a fixed point")
    if name == "uniform":
        return [Fraction(1, n)] * n
    return [Fraction(math.comb(n - 1, k), 2 ** (n - 1)) for k in range(n)]


def random_fixed_point(rng: np.random.Generator, n: int) -> list[float]:
    """A hard random fixed point for stress tests of Algorithm 1's float mode: Dirichlet (α of 0.1,
    1 or 10), a shuffled Zipf, or a mixture of Dirichlet and a bell, with a tenth of its entries
    pushed down to 1e-20 .. 1e-300 (floats summing to 1 within rounding).

    Examples
    --------
    >>> z = random_fixed_point(np.random.default_rng(0), 50)
    >>> len(z), bool(min(z) > 0), abs(math.fsum(z) - 1) < 1e-12
    (50, True, True)
    """
    kind = rng.integers(3)
    z: np.ndarray
    if kind == 0:
        z = rng.dirichlet(np.full(n, rng.choice([0.1, 1.0, 10.0])))
    elif kind == 1:
        z = 1.0 / np.arange(1, n + 1) ** rng.uniform(0.5, 3)
        rng.shuffle(z)
    else:
        z = 0.5 * rng.dirichlet(np.ones(n)) + 0.5 * np.exp(-0.5 * ((np.arange(n) - n / 2) / (n / 8 + 1)) ** 2)
    tiny = rng.random(n) < 0.1
    z[tiny] = 10.0 ** -rng.uniform(20, 300, tiny.sum())
    z = np.maximum(z, 1e-300)
    return list(z / math.fsum(z))
