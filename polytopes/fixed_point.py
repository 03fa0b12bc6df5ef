"""Count-mechanism constructors of Kohli and Laskowski (§5): Algorithm 1 and Algorithm 2.

A count mechanism T is n×n with rows as true counts and columns as reported counts; T is in U
when its rows are distributions and every column is ε-neighbour indistinguishable
(e^−ε·T[i+1,j] ≤ T[i,j] ≤ e^ε·T[i+1,j]), and in F[z] when moreover z·T = z.

* :func:`heuristic_constructor` is Algorithm 1: it fills one column at a time with positive
  multiples of ε-scales (Def. 6) and returns a vertex of F[z] (Thm. 6) after at most 2n − 1
  scale additions (Thm. 5). The step size is Prop. 2's minimum of n ratios.
* :func:`unfixed_optimum` is Algorithm 2: it places the single-peaked scales Σ_l with their
  amounts ω_l (Observation 3, corrected; see check ``kohli26.obs3-omega``) in the columns that
  minimise ⟨W, T⟩, scanning left to right (Lemmas 8 and 9); the result minimises count error over U
  for row-wise concentrating and convex W (Thm. 8).

Both run in exact rational arithmetic (python-flint) or, with ``exact=False``, in floating point
on the natural logarithms of every quantity: a scale at n = 2000 and e^ε = 2 spans 2^1999, far
outside the range of a double, while its logarithm is a few thousand. Algorithm 1 keeps the
remainder r as one number per run of rows joined by tight privacy bounds (:class:`_Runs`): a
bound that Prop. 2's minimum made tight is a recorded fact, never re-tested on rounded numbers,
and a step costs O(runs) rather than O(n). Its float mode computes in long double (64-bit
significand): the remainder is a difference of nearly equal amounts late in the run, and a
double loses the digits a fixed point needs at n in the thousands. It works on values while
every scale e^{±ε·n} fits a long double (ε·n up to about 8,000) and on logarithms beyond. Where
even that is not enough (the columns filled first hold nearly all of z, or z has entries far
below the others) it is redone with the remainder in high precision (:class:`_PreciseRemainder`,
a few hundred bits at n = 2000). Every result is verified in its own arithmetic before it is
returned (:class:`Verification`), and :attr:`Construction.arithmetic` says which arithmetic made it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, overload

import flint
import numpy as np

from qifkit.errors import CertificateError, DistributionError, LabelError, PrivacyParameterError, ShapeError
from qifkit.numbers import exact as exact_number
from qifkit.numbers import reduced_fraction
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = [
    "NAMED_FIXED_POINTS",
    "named_fixed_point",
    "SELECTORS",
    "ColumnFractions",
    "Construction",
    "Verification",
    "heuristic_constructor",
    "random_fixed_point",
    "unfixed_optimum",
    "count_error_weights",
    "count_error",
    "check_weights",
    "verify_mechanism",
]

SELECTORS = ("max", "min", "sandwich")
FLOAT_TOLERANCE = 1e-9  # relative; the float mode refuses to return a matrix worse than this
_UNIT = np.finfo(np.longdouble).eps  # a long double's relative rounding
_LOG_TIE = 1e-14  # two amounts of Algorithm 1's float mode closer than this (relative) are one minimum

Selector = str | Callable[..., int]
_Placed = list[list[tuple[Any, np.ndarray]]]  # per column: (amount, row heights) of each scale


@dataclass(frozen=True)
class Verification:
    """What was checked of a constructed mechanism, in the arithmetic it was built in.

    Attributes
    ----------
    row_sum_error : Fraction or float
        max_i |Σ_j T[i,j] − 1| (exactly 0 in exact mode).
    fixed_point_error : Fraction, float or None
        max_j |(z·T)_j − z_j| / z_j (None for a mechanism of U, which has no fixed point).
    dp_ratio : Fraction or float
        The worst neighbour ratio max T[i,j]/T[i±1,j], at most e^ε.
    eps_exp : Fraction or float
        The e^ε it was checked against.
    """

    row_sum_error: Any
    fixed_point_error: Any
    dp_ratio: Any
    eps_exp: Any


class ColumnFractions(Sequence[list[Fraction]]):
    """An exact n×n matrix kept as T[i, j] = N[i, j]/d_j (N an fmpz_mat, one denominator per
    column), read as rows of reduced Fractions.

    Reducing n² fractions of thousands of bits is a gcd each and costs as much as building and
    checking the matrix (Algorithm 1 at n = 500, e^ε = 2: about 12 s), so a row is reduced when it
    is first read and then kept. ``==`` compares with any sequence of rows.
    """

    def __init__(self, numerators: Any, denominators: Sequence[Any]) -> None:
        self._entries = numerators.entries()
        self._denominators = list(denominators)
        self._rows: dict[int, list[Fraction]] = {}

    def __len__(self) -> int:
        return len(self._denominators)

    @overload
    def __getitem__(self, index: int) -> list[Fraction]: ...

    @overload
    def __getitem__(self, index: slice) -> list[list[Fraction]]: ...

    def __getitem__(self, index: int | slice) -> list[Fraction] | list[list[Fraction]]:
        n = len(self)
        if isinstance(index, slice):
            return [self[i] for i in range(n)[index]]
        i = range(n)[index]
        if i not in self._rows:
            self._rows[i] = [reduced_fraction(flint.fmpq(self._entries[i * n + j], d)) for j, d in enumerate(self._denominators)]
        return self._rows[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(list(mine) == list(theirs) for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr([list(row) for row in self])


@dataclass(frozen=True)
class Construction:
    """A constructed count mechanism.

    Attributes
    ----------
    matrix : sequence of list of Fraction, or None
        T (rows: true counts) in exact mode: a list of rows, or from Algorithm 1 a
        :class:`ColumnFractions` whose rows are reduced when first read.
    log_matrix : numpy.ndarray or None
        log T entrywise in float mode (entries of T may lie far below the smallest double).
    steps : int
        Scale additions (Algorithm 1) or loop iterations (Algorithm 2).
    order : tuple of int
        Columns in the order they were filled (Algorithm 1) or the column of each Σ_l (Algorithm 2).
    verification : Verification
    arithmetic : str
        What it was computed in: ``"exact"`` (rationals), ``"long double"`` (Algorithm 1's float
        mode), ``"long double, remainder in N bits"`` (its high-precision redo) or ``"double"``
        (Algorithm 2's).
    """

    matrix: Sequence[list[Fraction]] | None
    log_matrix: np.ndarray | None
    steps: int
    order: tuple[int, ...]
    verification: Verification
    arithmetic: str = "exact"

    @property
    def exact(self) -> bool:
        """True when the matrix is exact."""
        return self.matrix is not None

    def to_numpy(self) -> np.ndarray:
        """T as floats (entries below the double range become 0)."""
        if self.matrix is not None:
            return np.array([[float(v) for v in row] for row in self.matrix])
        assert self.log_matrix is not None  # one of the two is always set
        return np.exp(self.log_matrix)


# --------------------------------------------------------------------------- inputs

def _positive_distribution(z: Sequence[Any]) -> list[Fraction]:
    values = [exact_number(v) for v in z]
    if len(values) < 2:
        raise ShapeError(f"z needs n >= 2 entries, got {len(values)}")
    for k, v in enumerate(values):
        if v <= 0:
            raise DistributionError(f"z[{k}] = {v} is not positive; a fixed point must put mass on every count")
    if sum(values) != 1:
        raise DistributionError(f"z sums to {sum(values)}, not 1")
    return values


def _log_distribution(z: Sequence[Any]) -> np.ndarray:
    """log z (long double) for exact input (any magnitude) or for positive finite floats summing to 1 ± 1e-9."""
    if len(z) and all(isinstance(v, (float, np.floating)) for v in z):
        values = np.asarray(z, dtype=float)
        if values.size < 2 or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise DistributionError(f"z must have n >= 2 positive finite entries; got {values[:5]}...")
        if abs(math.fsum(values) - 1) > 1e-9:
            raise DistributionError(f"z sums to {math.fsum(values)}, not 1")
        return np.log(values.astype(np.longdouble)) - np.log(np.longdouble(math.fsum(values)))
    return np.array([_log_int(v.numerator) - _log_int(v.denominator) for v in _positive_distribution(z)])


def _epsilon(eps_exp: Any) -> Any:
    """ε = log e^ε as a long double (for an exact e^ε, from its exact numerator and denominator)."""
    if isinstance(eps_exp, (float, np.floating)):
        if not math.isfinite(eps_exp) or eps_exp <= 1:
            raise PrivacyParameterError(f"e^ε = {eps_exp} must be a finite number > 1")
        return np.log(np.longdouble(eps_exp))
    value = eps_exp_above_one(eps_exp)
    return _log_int(value.numerator) - _log_int(value.denominator)


def _log_int(value: int) -> Any:
    """log of a positive integer of any size as a long double (its top 64 bits and a power of 2)."""
    shift = max(value.bit_length() - 64, 0)
    return np.log(np.longdouble(value >> shift)) + shift * np.log(np.longdouble(2))


class _precision:
    """Set FLINT's working precision for arb within a ``with`` block."""

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def __enter__(self) -> None:
        self.previous, flint.ctx.prec = flint.ctx.prec, self.bits

    def __exit__(self, *_: Any) -> None:
        flint.ctx.prec = self.previous


def _choose(selector: Selector) -> Callable[[Any, Any, Any, Any, np.ndarray], int]:
    """κ as a function of (z, r, c, A, open mask), r, c and A given as functions that compute them (only
    a callable κ, which gets (z, r, c, A) and is checked, needs them)."""
    if callable(selector):
        def custom(z: Any, r: Callable[[], Any], c: Callable[[], Any], a: Callable[[], Any], is_open: np.ndarray) -> int:
            j = selector(z, r(), c(), a())
            if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < len(is_open) or not is_open[j]:
                raise LabelError(f"the column selector returned {j!r}, which is not an unfilled column (c_j > 0)")
            return int(j)
        return custom
    if selector not in SELECTORS:
        raise LabelError(f"unknown column selector {selector!r}; use one of {', '.join(SELECTORS)} or a callable")

    def builtin(z: Any, r: Callable[[], Any], c: Callable[[], Any], a: Callable[[], Any], is_open: np.ndarray) -> int:
        candidates = np.flatnonzero(is_open)
        if selector == "sandwich":  # columns are filled once each, in the order 0, n−1, 1, n−2, ...
            filled = len(is_open) - candidates.size
            return filled // 2 if filled % 2 == 0 else len(is_open) - 1 - filled // 2
        if isinstance(z, np.ndarray):
            values = z[candidates]
            return int(candidates[np.argmax(values) if selector == "max" else np.argmin(values)])
        pick = max if selector == "max" else min
        return int(pick(candidates, key=lambda j: (z[j], -j if selector == "max" else j)))
    return builtin


# --------------------------------------------------------------------------- Algorithm 1

def heuristic_constructor(z: Sequence[Any], eps_exp: Any, selector: Selector = "sandwich", *,
                          exact: bool = True) -> Construction:
    """Algorithm 1 of Kohli and Laskowski: a vertex of F_ε[z] in O(n²) steps (Thms. 5, 6).

    Parameters
    ----------
    z : sequence
        The fixed point: n ≥ 2 positive numbers summing to 1 (exact numbers or strings; in float mode
        also positive floats summing to 1 within 1e-9).
    eps_exp : exact number or string
        e^ε > 1 (``"2"``, ``"ln(2)"``); a float > 1 is accepted in float mode.
    selector : {"max", "min", "sandwich"} or callable
        The column selector κ (§6: the unfilled column of largest z_j, of smallest z_j, or the order
        0, n−1, 1, n−2, ...). A callable receives (z, r, c, A) (in float mode their natural logs,
        A as columns) and must return an unfilled column.
    exact : bool
        Exact rationals (default) or the float mode: long double (values, or logarithms where
        the scales leave its range), a step costing O(runs of tight bounds). Where its rounding
        breaks the run (the remainder, 1 minus what the filled columns took, falls below the
        rounding of those amounts: geometric(0.9) z at n = 2000, narrow bumps, entries of 1e-300
        beside 0.1), the run is redone with the remainder, the columns' budgets and the deciding
        bounds in 128 + n/12 bits, then 4 and 16 times that (on the floats' exact values, z
        renormalised exactly), about four times as slow, and verified again.

    Returns
    -------
    Construction
        The verified mechanism; ``steps`` counts scale additions (at most 2n − 1; the float mode
        counts the last column as one).

    Raises
    ------
    DistributionError, PrivacyParameterError, LabelError
        For z with a zero, negative or non-summing entry, e^ε ≤ 1, an unknown selector.
    CertificateError
        In float mode, if no precision tried gave a mechanism that passes the check.

    Examples
    --------
    >>> t = heuristic_constructor(["1/4", "1/2", "1/4"], "2")
    >>> [[str(v) for v in row] for row in t.matrix]
    [['4/9', '4/9', '1/9'], ['2/9', '5/9', '2/9'], ['1/9', '4/9', '4/9']]
    """
    choose = _choose(selector)
    if exact:
        return _heuristic_exact(_positive_distribution(z), eps_exp_above_one(eps_exp), choose)
    log_z, eps = _log_distribution(z), _epsilon(eps_exp)
    if not _last_mass_below_rounding(log_z, selector):
        try:
            return (_heuristic_values if _values_fit(log_z, eps) else _heuristic_log)(log_z, eps, choose)
        except CertificateError:
            pass  # the rounding broke the run: redo it with the remainder in high precision
    exact_z = [Fraction(float(v)) if isinstance(v, (float, np.floating)) else exact_number(v) for v in z]
    total = sum(exact_z)
    e = Fraction(float(eps_exp)) if isinstance(eps_exp, (float, np.floating)) else eps_exp
    return _heuristic_precise(log_z, eps, [v / total for v in exact_z], eps_exp_above_one(e), choose)


def _last_mass_below_rounding(log_z: np.ndarray, selector: Selector) -> bool:
    """Whether the column a built-in selector fills last has z_j below 1e-20: it takes all of r, so
    its mass is 1 minus what the other columns took, and a long double's rounding of those masses
    (about 1e-19 of each) exceeds z_j itself; the long-double run would be refused at its end
    (geometric(0.9) at n = 2000 has z_1000 = 2e-47 in the middle, where the sandwich order ends)."""
    if not isinstance(selector, str):
        return False  # a callable's last column is not known in advance
    last = {"sandwich": log_z[log_z.size // 2], "max": log_z.min(), "min": log_z.max()}[selector]
    return float(last) < math.log(1e-20)


class _Runs:
    """The rows of the remainder r joined by tight privacy bounds (Algorithm 1, Step 7).

    A bound of r between rows i and i + 1 that is tight stays tight, and every later scale follows
    it (s_{i+1}/s_i = r_{i+1}/r_i); so r, and each scale, is one number per run of rows joined by
    tight bounds times e^{ε·off_i}, where ``off`` is the row's height inside its run. This class
    keeps that integer bookkeeping; the arithmetic (exact or logarithmic) keeps one value of r and
    one weight Σ_{i in run} z_i·e^{ε·off_i} per run, which makes a step O(number of runs).
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.starts = np.arange(n)
        self.spans = np.zeros(n, dtype=np.int64)  # off of the run's last row
        self.off = np.zeros(n, dtype=np.int64)

    def lengths(self) -> np.ndarray:
        return np.diff(np.append(self.starts, self.n))

    def directions(self, j: int) -> np.ndarray:
        """The single-peaked pattern at column j across each loose bound: +1 left of j, −1 right."""
        return np.where(self.starts[1:] <= j, 1, -1)

    def heights(self, directions: np.ndarray) -> np.ndarray:
        """H_k, the scale's height (log base e^ε) at the first row of run k."""
        heights = np.zeros(self.starts.size, dtype=np.int64)
        np.cumsum(self.spans[:-1] + directions, out=heights[1:])
        return heights

    def row_heights(self, heights: np.ndarray) -> np.ndarray:
        return np.repeat(heights, self.lengths()) + self.off

    def merge(self, bounds: np.ndarray, directions: np.ndarray) -> list[tuple[int, int]]:
        """Join run k and k + 1 for every newly tight bound k; the bound's direction is the
        opposite of the scale's step there (the attained side of Prop. 2). Returns (k, shift) for
        each join, right to left, where run k + 1's heights move up by shift."""
        joined = []
        for k in sorted(bounds.tolist(), reverse=True):
            shift = int(self.spans[k]) - int(directions[k])
            end = self.starts[k + 2] if k + 2 < self.starts.size else self.n
            self.off[self.starts[k + 1]:end] += shift
            self.spans[k] = shift + self.spans[k + 1]
            self.starts = np.delete(self.starts, k + 1)
            self.spans = np.delete(self.spans, k + 1)
            joined.append((k, shift))
        return joined


def _heuristic_exact(z: list[Fraction], e: Fraction, choose: Callable[..., int]) -> Construction:
    zq, eq = [flint.fmpq(v.numerator, v.denominator) for v in z], flint.fmpq(e.numerator, e.denominator)
    placed, steps, order = _algorithm1(zq, eq, choose)
    numerators, denominators = _integer_columns(placed, eq, len(z))
    verification = _verify_integer_columns(numerators, denominators, e, z)
    return Construction(ColumnFractions(numerators, denominators), None, steps, tuple(order), verification)


def _algorithm1(z: list[Any], e: Any, choose: Callable[..., int]) -> tuple[_Placed, int, list[int]]:
    """Algorithm 1 in exact rational arithmetic (flint). Returns the scales placed in each column
    (amount q and row heights, s_i = e^{ε·height_i}), the number of scale additions and the order
    the columns were filled in.

    Per run of rows joined by tight bounds (:class:`_Runs`) it keeps r at the run's first row and the
    weight Σ z_i·e^{ε·off_i}, so a step costs O(runs); the scales are kept as (amount, heights) and
    summed into T at the end."""
    n = len(z)
    zero = z[0] * 0
    power = [e ** h for h in range(-n, n + 1)]  # power[h + n] = e^{εh}; heights stay within ±(n − 1)
    up_norm, down_norm = e * e - 1, 1 - 1 / (e * e)
    runs = _Runs(n)
    rho = _SharedDenominator(n, e)  # r at each run's first row
    weight = list(z)  # Σ_{i in run} z_i·e^{ε·off_i}
    c = list(z)
    placed: _Placed = [[] for _ in range(n)]
    is_open = np.ones(n, dtype=bool)
    order: list[int] = []
    steps = 0
    candidates = _BoundScreen(e, power, up_norm, down_norm)

    def remainder() -> list[Any]:
        return [rho[int(k)] * power[int(h) + n] for k, h in zip(np.repeat(np.arange(len(rho)), runs.lengths()), runs.off, strict=True)]

    while len(order) < n:
        j = choose(z, remainder, lambda: list(c), lambda: _scalar_columns(placed, power, n, zero), is_open.copy())
        order.append(j)
        full = False
        while not full:
            directions = runs.directions(j)
            heights = [int(h) + n for h in runs.heights(directions)]
            spans = runs.spans.tolist()
            zs = sum((power[h] * w for h, w in zip(heights, weight, strict=True)), zero)
            q, full = c[j] / zs, True
            tight: list[int] = []
            for k in candidates(rho, heights, spans, directions, q):  # Prop. 2 at each loose bound
                last_r, s_last = rho[k] * power[spans[k] + n], power[heights[k] + spans[k]]
                if directions[k] == 1:
                    bound = (e * rho[k + 1] - last_r) / (s_last * up_norm)
                else:
                    bound = (last_r - rho[k + 1] / e) / (s_last * down_norm)
                if bound < q:
                    q, tight, full = bound, [k], False
                elif bound == q:
                    tight.append(k)
            rho.subtract(q, heights, power)
            placed[j].append((q, runs.row_heights(np.array(heights) - n)))
            c[j] = zero if full else c[j] - q * zs
            for k, shift in runs.merge(np.array(tight, dtype=np.int64), directions):
                weight[k] += power[shift + n] * weight.pop(k + 1)
                del rho[k + 1]
            steps += 1
        is_open[j] = False
    return placed, steps, order


def _integer_powers(e: Any, n: int) -> tuple[list[Any], Any]:
    """e^{εh} for |h| ≤ n as integers over one denominator: with e^ε = p/s (an fmpq), the list of
    p^{h+n}·s^{n−h} (index h + n) and (p·s)^n."""
    p, s = e.p, e.q
    return [p ** (h + n) * s ** (n - h) for h in range(-n, n + 1)], (p * s) ** n


class _SharedDenominator:
    """r per run in exact mode as integers R_k over one denominator D.

    At every step of Algorithm 1 the runs' remainders share their reduced denominator (observed:
    the lcm of all of them equals the largest), so one gcd chain per step replaces one gcd per run
    that rational subtraction makes: R_k·(D′/D) − q·e^{εh_k}·D′ is formed over D′ = lcm(D, den(q)·(p·s)^n)
    and divided by the gcd of D′ and all numerators, which after the first few runs is a small number."""

    def __init__(self, n: int, e: Any) -> None:
        self.scaled, self.base = _integer_powers(e, n)
        self.numerators = [flint.fmpz(1)] * n
        self.denominator = flint.fmpz(1)

    def __len__(self) -> int:
        return len(self.numerators)

    def __getitem__(self, k: int) -> Any:
        return flint.fmpq(self.numerators[k], self.denominator)

    def __iter__(self) -> Any:
        return (self[k] for k in range(len(self)))

    def __delitem__(self, k: int) -> None:
        del self.numerators[k]

    def balls(self) -> list[Any]:
        """Each r_k as an arb ball at the current precision, without forming a rational."""
        denominator = flint.arb(self.denominator)
        return [flint.arb(r) / denominator for r in self.numerators]

    def subtract(self, q: Any, heights: list[int], _: list[Any]) -> None:
        scale = q.q * self.base
        common = self.denominator.lcm(scale)
        keep, amount = common // self.denominator, q.p * (common // scale)
        numerators = [r * keep - amount * self.scaled[h] for r, h in zip(self.numerators, heights, strict=True)]
        divisor = common
        for r in numerators:
            if divisor == 1:
                break
            divisor = divisor.gcd(r)
        self.numerators = [r // divisor for r in numerators] if divisor != 1 else numerators
        self.denominator = common // divisor


class _BoundScreen:
    """The loose bounds that can attain Prop. 2's minimum, found in ball arithmetic (exact mode).

    An exact bound is a difference of rationals of thousands of bits, whose reduction (a gcd) is
    most of a step's cost; its enclosure in an arb ball at 64 bits costs a few conversions. A
    bound whose ball lies certainly above the smallest upper end among all balls (and the column's
    own amount) cannot be the minimum nor tie with it; only the others are computed exactly, so
    the step is the exact algorithm's step."""

    def __init__(self, e: Any, power: list[Any], up_norm: Any, down_norm: Any) -> None:
        self.e = flint.arb(e)
        self.power = [flint.arb(v) for v in power]
        self.up_norm, self.down_norm = flint.arb(up_norm), flint.arb(down_norm)

    def __call__(self, rho: _SharedDenominator, heights: list[int], spans: list[int], directions: np.ndarray,
                 q: Any) -> list[int]:
        with _precision(64):
            n = (len(self.power) - 1) // 2
            balls = rho.balls()
            bounds = []
            for k in range(len(rho) - 1):
                last_r, s_last = balls[k] * self.power[spans[k] + n], self.power[heights[k] + spans[k]]
                if directions[k] == 1:
                    bounds.append((self.e * balls[k + 1] - last_r) / (s_last * self.up_norm))
                else:
                    bounds.append((last_r - balls[k + 1] / self.e) / (s_last * self.down_norm))
            lowest = flint.arb(q).upper()
            for bound in bounds:
                top = bound.upper()  # an exact point, so < is exact
                if top < lowest:
                    lowest = top
            return [k for k, b in enumerate(bounds) if not b > lowest]


def _scalar_columns(placed: _Placed, power: list[Any], n: int, zero: Any) -> list[list[Any]]:
    """Column j of T is Σ q·s over the scales placed in it (scalars of :func:`_algorithm1`)."""
    columns = []
    for scales in placed:
        column = [zero] * n
        for q, heights in scales:
            column = [t + q * power[h + n] for t, h in zip(column, heights.tolist(), strict=True)]
        columns.append(column)
    return columns


def _integer_columns(placed: _Placed, e: Any, n: int) -> tuple[Any, list[Any]]:
    """T from exact scales as integers: T[i, j] = N[i, j] / d_j with N an fmpz_mat.

    With e^ε = p/s, e^{ε·h} = p^{h+n}·s^{n−h} / (p·s)^n is an integer over a fixed denominator for
    |h| ≤ n, and d_j = lcm(denominators of the amounts in column j)·(p·s)^n; each column is then a
    few integer vector operations in FLINT instead of n rational additions per scale."""
    scaled, base = _integer_powers(e, n)
    numerators = []
    denominators = []
    for scales in placed:
        common = flint.fmpz(1)
        for q, _ in scales:
            common = common.lcm(q.q)
        column = flint.fmpz_mat(1, n)
        for q, heights in scales:
            column += flint.fmpz_mat(1, n, [scaled[h + n] for h in heights.tolist()]) * (q.p * (common // q.q))
        numerators.extend(column.entries())
        denominators.append(common * base)
    return flint.fmpz_mat(n, n, numerators).transpose(), denominators


def _log_columns(placed: _Placed, eps: Any, n: int) -> np.ndarray:
    """log T with log T[:, j] = log Σ q·s over the scales placed in column j (−inf where none), as
    doubles: ε·h is each rounded once from long double (a table), so a neighbour ratio is off by at
    most a unit of the last place of ε·n, far below the check's tolerance."""
    heights_times_eps = (np.longdouble(eps) * np.arange(-n, n + 1, dtype=np.longdouble)).astype(float)
    log_a = np.full((n, n), -np.inf)
    for j, scales in enumerate(placed):
        if len(scales) == 1:
            log_a[j] = np.asarray(scales[0][0], dtype=float) + heights_times_eps[scales[0][1] + n]
        elif scales:
            log_a[j] = _logsumexp(np.array([np.asarray(log_q, dtype=float) + heights_times_eps[heights + n]
                                            for log_q, heights in scales]), axis=0)
    return log_a


def _heuristic_log(log_z: np.ndarray, eps: Any, choose: Callable[..., int],
                   precise: _PreciseRemainder | None = None) -> Construction:
    """Algorithm 1 on logarithms in extended precision (numpy's long double, 64-bit significand), for
    scales beyond a long double's range (:func:`_values_fit`; within it :func:`_heuristic_values`
    takes the same steps without exponentials).
    The remainder is one log value μ_k per run of rows joined by tight bounds (:class:`_Runs`), so
    a tight bound is a recorded fact, never re-tested on rounded numbers, and a step costs
    O(number of runs). The last column takes what is left of r (private by Prop. 2), whatever its
    rounded budget says (in exact arithmetic its scales add up to r too). Ties closer than
    :data:`_LOG_TIE` count as ties.

    With `precise`, the remainder is kept in high precision instead (:class:`_PreciseRemainder`):
    μ becomes a rounded copy of it that only screens the bounds, and the amounts are chosen and
    subtracted in its precision."""
    n = log_z.size
    log_z = log_z.astype(np.longdouble)
    eps = np.longdouble(eps)
    up_norm, down_norm = np.log(np.expm1(2 * eps)), np.log(-np.expm1(-2 * eps))
    runs = _Runs(n)
    mu = np.zeros(n, dtype=np.longdouble)
    drift = np.zeros(n, dtype=np.longdouble)  # an estimate of each μ's relative rounding error (as r)
    log_w = log_z.copy()
    log_c = log_z.copy()
    open_mask = np.ones(n, dtype=bool)
    placed: _Placed = [[] for _ in range(n)]
    order: list[int] = []
    steps = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        while open_mask.any():
            j = choose(log_z, lambda: np.repeat(mu, runs.lengths()) + eps * runs.off, log_c.copy,  # noqa: B023 (called at once)
                       lambda: _log_columns(placed, eps, n), open_mask)
            order.append(j)
            if np.count_nonzero(open_mask) == 1:  # all of r goes to the last column: private (Prop. 2), rows sum to 1
                log_r = np.repeat(mu, runs.lengths())
                placed[j].append((log_r + _last_column_correction(log_r + eps * runs.off, log_z, log_c[j]), runs.off.copy()))
                open_mask[j] = False
                steps += 1
                break
            while True:
                directions = runs.directions(j)
                heights = runs.heights(directions)
                steps += 1
                spans = runs.spans[:-1]
                log_last_r = mu[:-1] + eps * spans
                ratio = mu[1:] - log_last_r
                up = directions == 1
                slack = np.maximum(np.where(up, eps + ratio, eps - ratio), 0).astype(float)  # the bounds decide q only
                factor = np.where(up, np.log(np.expm1(slack)) - up_norm, np.log(-np.expm1(-slack)) - down_norm)
                log_q_rows = log_last_r - eps * (heights[:-1] + spans) + factor
                if precise is None:
                    log_zs = _logsumexp(log_w + eps * heights)
                    log_q_column = log_c[j] - log_zs
                    log_q = min(log_q_column, log_q_rows.min(initial=np.inf))
                    tight = np.flatnonzero(log_q_rows <= log_q + _LOG_TIE)
                    full = log_q_column <= log_q + _LOG_TIE
                    used = log_q + eps * heights - mu
                    if np.any(used >= -_LOG_TIE):
                        raise CertificateError("Algorithm 1 (float mode): a scale would use up the remainder before "
                                               f"the last column (column {j}); extended precision was not enough")
                    kept = np.log1p(-np.exp(used))
                    drift = (drift + 2 * _UNIT) * np.exp(-kept)
                    mu = mu + kept
                else:
                    log_q, tight, full, log_c[j] = precise.step(j, log_q_rows, slack, heights, spans, directions)
                    mu = precise.logs()
                if log_q > -np.inf:
                    placed[j].append((log_q, runs.row_heights(heights)))
                for k, shift in runs.merge(tight, directions):
                    log_w[k] = np.logaddexp(log_w[k], eps * shift + log_w[k + 1])
                    if precise is not None:
                        precise.merge(k, shift)
                    elif drift[k + 1] < drift[k]:  # the joined run's value is the better-kept one: r at row k from it
                        mu[k], drift[k] = mu[k + 1] - eps * shift, drift[k + 1]
                    log_w, mu, drift = np.delete(log_w, k + 1), np.delete(mu, k + 1), np.delete(drift, k + 1)
                if full:
                    log_c[j] = -np.inf
                    open_mask[j] = False
                    break
                if precise is None:
                    log_c[j] = log_c[j] + np.log1p(-np.exp(log_q + log_zs - log_c[j]))
    log_matrix = _log_columns(placed, eps, n).T
    return Construction(None, log_matrix, steps, tuple(order), verify_log_mechanism(log_matrix, float(eps), log_z),
                        "long double" if precise is None else f"long double, remainder in {precise.bits} bits")


class _PreciseRemainder:
    """The remainder of Algorithm 1's float mode in high precision: r at each run's first row, the
    runs' weights Σ z_i·e^{ε·off_i} and the columns' budgets c_j as FLINT arb midpoints of `bits`
    bits (numpy object arrays, so a step is a few vectorised passes).

    The float mode's remainder is 1 minus what the filled columns took; where the columns filled
    first hold nearly all of z (geometric(0.9) in the sandwich order, narrow bumps) it falls far
    below the rounding of the amounts taken from it, and a long double loses it (the hard fixed
    points of the benchmark need 96 to 224 bits at n = 400 to 2000). Here the long-double logs of r
    (:meth:`logs`) only screen Prop. 2's bounds; the few that can attain the minimum, and the
    column's own amount c_j/Σ z·s, are computed in `bits` bits, the amount q is an exact point and
    r − q·s and c_j − q·Σ z·s are formed in `bits` bits. The budgets must be that precise too: what a large column takes too much or too little
    is missing from z·r, and the last column, which takes all of r, may have a tiny z_j. The
    remainder keeps its balls' radii, a bound on its rounding: where two runs join, the value
    kept for the run is the one with the smaller relative radius (r at the first row is often the
    most eroded: geometric(0.9) at n = 400 and e^ε = 20 needed 896 bits with it, 96 this way)."""

    _SLACK_ERROR = 1e-14  # bound on the rounding of a screened slack (logs of doubles, long double sums)
    _LOG_ERROR = 1e-12  # and of a screened log amount

    def __init__(self, z: Sequence[Fraction], e: Fraction, bits: int) -> None:
        self.bits, self.n = bits, len(z)
        with _precision(bits):
            self.e = flint.arb(flint.fmpq(e.numerator, e.denominator)).mid()
            power = [flint.arb(1)] * (2 * self.n + 1)  # power[h + n] = e^{εh}, exact points
            inverse = (1 / self.e).mid()
            for h in range(1, self.n + 1):
                power[self.n + h] = (power[self.n + h - 1] * self.e).mid()
                power[self.n - h] = (power[self.n - h + 1] * inverse).mid()
            self.power = np.array(power, dtype=object)
            self.up_norm = (self.e * self.e - 1).mid()
            self.down_norm = (1 - inverse * inverse).mid()
            self.weight = np.array([flint.arb(flint.fmpq(v.numerator, v.denominator)).mid() for v in z], dtype=object)
        self.c = list(self.weight)
        self.rho = np.array([flint.arb(1)] * self.n, dtype=object)
        self.tie = flint.arb(2) ** (-(bits // 2))

    def logs(self) -> np.ndarray:
        """log r at each run's first row as long doubles (any magnitude); a remainder that is not
        positive in this precision is refused (:class:`CertificateError`: more bits)."""
        logs = _logs_of(self.rho)
        if not np.all(logs > -np.inf):
            raise CertificateError("Algorithm 1 (float mode): the remainder ran out before the last column in "
                                   f"{self.bits} bits")
        return logs

    def merge(self, k: int, shift: int) -> None:
        """Join run k + 1 into run k, whose rows above it sit `shift` heights higher."""
        with _precision(self.bits):
            self.weight[k] = (self.weight[k] + self.power[shift + self.n] * self.weight[k + 1]).mid()
            first, joined = self.rho[k], self.rho[k + 1]
            if joined.rad() * abs(first.mid()) < first.rad() * abs(joined.mid()):
                self.rho[k] = joined * self.power[self.n - shift]
        self.rho, self.weight = np.delete(self.rho, k + 1), np.delete(self.weight, k + 1)

    def step(self, j: int, log_q_rows: np.ndarray, slack: np.ndarray, heights: np.ndarray, spans: np.ndarray,
             directions: np.ndarray) -> tuple[Any, np.ndarray, bool, Any]:
        """Prop. 2's amount q for column j, screened on logs and decided in high precision; r − q·s
        and c_j − q·Σ z·s. Returns log q (−inf for a step that only joins runs), the newly tight
        bounds, whether the column is full, and log c_j."""
        with _precision(self.bits):
            scale = self.power[heights + self.n]
            mass = np.dot(scale, self.weight)
            q_column = (self.c[j] / mass).mid()
            tolerance = self._LOG_ERROR + self._SLACK_ERROR / np.maximum(slack, 1e-300)
            ceiling = min(float(_logs_of(np.array([q_column], dtype=object))[0]) + self._LOG_ERROR,
                          float(np.min(log_q_rows + tolerance, initial=np.inf)))
            bounds = {int(k): self._bound(int(k), heights, spans, directions)
                      for k in np.flatnonzero(log_q_rows - tolerance <= ceiling)}
            q = min([q_column, *bounds.values()])  # exact points: compared exactly
            reach = q * (1 + self.tie)
            tight = np.array(sorted(k for k, bound in bounds.items() if bound <= reach), dtype=np.int64)
            full = bool(q_column <= reach)
            if q > 0:
                self.rho = self.rho - q * scale
            self.c[j] = flint.arb(0) if full else (self.c[j] - q * mass).mid()
            log_q, log_c = _logs_of(np.array([q if q > 0 else flint.arb(1), self.c[j] if not full else flint.arb(1)],
                                             dtype=object))
            return (log_q if q > 0 else -np.inf), tight, full, (log_c if not full else -np.inf)

    def _bound(self, k: int, heights: np.ndarray, spans: np.ndarray, directions: np.ndarray) -> Any:
        """Prop. 2's bound at the loose bound between runs k and k + 1, as an exact point (≥ 0; a
        bound already tight to this precision joins the runs without an amount)."""
        n = self.n
        last_r = self.rho[k] * self.power[int(spans[k]) + n]
        s_last = self.power[int(heights[k] + spans[k]) + n]
        if directions[k] == 1:
            bound = (self.e * self.rho[k + 1] - last_r) / (s_last * self.up_norm)
        else:
            bound = (last_r - self.rho[k + 1] / self.e) / (s_last * self.down_norm)
        bound = bound.mid()
        return bound if bound > 0 else flint.arb(0)


def _heuristic_precise(log_z: np.ndarray, eps: Any, z: Sequence[Fraction], e: Fraction,
                       choose: Callable[..., int]) -> Construction:
    """Algorithm 1's float mode with the remainder in high precision (:class:`_PreciseRemainder`):
    128 + n/12 bits (at n = 400, 800 and 2000 the hard fixed points of the benchmark needed at most
    160, 160 and 224), then 4 and 16 times that, until the result passes its check."""
    n = len(z)
    first = -(-(128 + n // 12) // 64) * 64
    failure = None
    for bits in (first, 4 * first, 16 * first):
        try:
            return _heuristic_log(log_z, eps, choose, _PreciseRemainder(z, e, bits))
        except CertificateError as error:
            failure = error
    raise CertificateError(f"Algorithm 1 (float mode): no verified result with the remainder in up to {16 * first} bits "
                           f"({failure}); use exact=True")


def _logs_of(values: np.ndarray) -> np.ndarray:
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


def _heuristic_values(log_z: np.ndarray, eps: Any, choose: Callable[..., int]) -> Construction:
    """Algorithm 1 on long-double values, the float mode's fast path (no exponentials in the loop):
    the same run-wise steps as :func:`_heuristic_log`, used while every scale e^{εh}, |h| < n, and
    z fit a long double (:func:`_values_fit`). Ties closer than a relative :data:`_LOG_TIE` count as ties."""
    n = log_z.size
    eps = np.longdouble(eps)
    e = np.exp(eps)
    power = np.exp(eps * np.arange(-n, n + 1, dtype=np.longdouble))  # power[h + n] = e^{εh}
    up_norm, down_norm = e * e - 1, 1 - 1 / (e * e)
    z = np.exp(log_z.astype(np.longdouble))
    runs = _Runs(n)
    rho = np.ones(n, dtype=np.longdouble)  # r at the first row of each run
    drift = np.zeros(n, dtype=np.longdouble)  # an estimate of each rho's relative rounding error
    weight = z.copy()  # Σ_{i in run} z_i·e^{ε·off_i}
    c = z.copy()
    open_mask = np.ones(n, dtype=bool)
    placed: _Placed = [[] for _ in range(n)]
    order: list[int] = []
    steps = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        while open_mask.any():
            j = choose(log_z, lambda: np.log(np.repeat(rho, runs.lengths()) * power[runs.off + n]), lambda: np.log(c),  # noqa: B023 (called at once)
                       lambda: _log_columns(placed, eps, n), open_mask)
            order.append(j)
            if np.count_nonzero(open_mask) == 1:  # all of r goes to the last column: private (Prop. 2), rows sum to 1
                log_r = np.log(np.repeat(rho, runs.lengths()))
                correction = _last_column_correction(log_r + eps * runs.off, log_z, np.log(c[j]))
                placed[j].append((log_r + correction, runs.off.copy()))
                open_mask[j] = False
                steps += 1
                break
            while True:
                directions = runs.directions(j)
                heights = runs.heights(directions) + n
                scale = power[heights]
                spans = runs.spans[:-1]
                zs = np.dot(scale, weight)
                q_column = c[j] / zs
                last_r, s_last = rho[:-1] * power[spans + n], power[heights[:-1] + spans]
                up = directions == 1
                gap = np.maximum(np.where(up, e * rho[1:] - last_r, last_r - rho[1:] / e), 0)
                q_rows = gap / (s_last * np.where(up, up_norm, down_norm))
                q = min(q_column, q_rows.min(initial=np.inf))
                if np.any(q * scale >= rho * (1 - _LOG_TIE)):
                    raise CertificateError("Algorithm 1 (float mode): a scale would use up the remainder before the "
                                           f"last column (column {j}); extended precision was not enough")
                remainder = rho - q * scale
                drift = (drift + 2 * _UNIT) * (rho / remainder)
                rho = remainder
                placed[j].append((np.log(q), runs.row_heights(heights - n)))
                steps += 1
                for k, shift in runs.merge(np.flatnonzero(q_rows <= q * (1 + _LOG_TIE)), directions):
                    weight[k] += power[shift + n] * weight[k + 1]
                    if drift[k + 1] < drift[k]:  # the joined run's value is the better-kept one: r at row k from it
                        rho[k], drift[k] = rho[k + 1] * power[n - shift], drift[k + 1]
                    weight, rho, drift = np.delete(weight, k + 1), np.delete(rho, k + 1), np.delete(drift, k + 1)
                if q_column <= q * (1 + _LOG_TIE):
                    c[j] = 0
                    open_mask[j] = False
                    break
                c[j] -= q * zs
    log_matrix = _log_columns(placed, eps, n).T
    return Construction(None, log_matrix, steps, tuple(order), verify_log_mechanism(log_matrix, float(eps), log_z),
                        "long double")


def _last_column_correction(log_r: np.ndarray, log_z: np.ndarray, log_c: Any) -> Any:
    """The log of the factor that gives the last column, T[:, j] = r, its mass: z·r = c_j (= z_j).

    In exact arithmetic z·r = c_j already. In floating point each r_i is 1 minus what the other
    columns took and carries an absolute error of a few units of rounding, which is a large relative
    error of z·r when z_j is small (Dirichlet(0.1) at n = 2000: z_j = 8e-14, z·r off by 3e-5).
    Scaling the column keeps its ratios, restores its fixed point and moves each row sum by
    r_i·(factor − 1), which is of the size of that rounding; the verification decides as always."""
    return log_c - _logsumexp(log_z + log_r)


def _values_fit(log_z: np.ndarray, eps: Any) -> bool:
    """Whether :func:`_heuristic_values` can hold every quantity as a long double: scales up to
    e^{±ε·n}, z down to its smallest entry, and their products (every r_i and q·s_i is at most 1),
    with a margin of a quarter of ε·n and a tenth of the range (at n = 2000 it takes e^ε = 20)."""
    limit = float(np.log(np.finfo(np.longdouble).max)) * 0.9  # about 10,200
    return float(eps) * log_z.size * 1.25 - float(log_z.min()) < limit


def _logsumexp(values: np.ndarray, axis: int | None = None) -> Any:
    """log Σ exp(values) without overflow (entries −inf allowed; not all of them)."""
    top = values.max(axis=axis, keepdims=True)
    total = np.log(np.sum(np.exp(values - top), axis=axis, keepdims=True)) + top
    return total.item() if axis is None else np.squeeze(total, axis=axis)


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


# --------------------------------------------------------------------------- count error

def count_error_weights(z: Sequence[Any], kind: str = "absolute", *, exact: bool = True) -> Any:
    """W with ⟨W, T⟩ the expected count error (Kohli and Laskowski §5.3): w_ij = z_i·|i − j| for
    ``"absolute"`` (expected absolute deviation) or z_i·(i − j)² for ``"squared"``.

    z may be any n non-negative exact numbers (a distribution, or counts). With ``exact=False``, W is
    a float array (what the float modes use; n² exact entries would cost seconds at n = 2000), and z
    may hold floats."""
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
    """⟨W, T⟩, exactly for an exact mechanism, as a float for a log-mode one."""
    if isinstance(construction, Construction) and construction.log_matrix is not None:
        return float(np.sum(np.asarray(weights, dtype=float) * np.exp(construction.log_matrix)))
    matrix = construction.matrix if isinstance(construction, Construction) else construction
    assert matrix is not None  # a Construction without log_matrix has matrix
    return sum((exact_number(w) * exact_number(t) for w_row, t_row in zip(weights, matrix, strict=True) for w, t in zip(w_row, t_row, strict=True)),
               Fraction(0))


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


# --------------------------------------------------------------------------- Algorithm 2

def unfixed_optimum(eps_exp: Any, weights: Sequence[Sequence[Any]], *, exact: bool = True) -> Construction:
    """Algorithm 2 of Kohli and Laskowski: the count mechanism of U of least ⟨W, T⟩ (Thm. 8).

    Σ_l (the single-peaked scale at l, unnormalised e^−ε|i−l|) enters with amount ω'_l =
    (1 − e^−ε)/(1 + e^−ε) inside and 1/(1 + e^−ε) at l ∈ {0, n−1} (Observation 3 corrected, in
    unnormalised form), in the rightmost column minimising (W_c)ᵀΣ_l; by Lemma 8 that column never
    moves left, and by Lemma 9 a local minimum is global, so one left-to-right scan suffices.

    Parameters
    ----------
    eps_exp : exact number or string
        e^ε > 1.
    weights : n×n
        Row-wise concentrating and row-wise convex non-negative W (e.g.
        :func:`count_error_weights`); refused otherwise.
    exact : bool
        Exact rationals, or floats with log entries (W is used as floats).

    Examples
    --------
    >>> t = unfixed_optimum("2", count_error_weights(["1/3", "1/3", "1/3"]))
    >>> [[str(v) for v in row] for row in t.matrix]
    [['2/3', '1/6', '1/6'], ['1/3', '1/3', '1/3'], ['1/6', '1/6', '2/3']]
    """
    w = check_weights(weights) if exact else _check_weights_float(weights)
    n = len(w)
    if exact:
        e = eps_exp_above_one(eps_exp)
        a = 1 / e
        amounts = [1 / (1 + a) if loc in (0, n - 1) else (1 - a) / (1 + a) for loc in range(n)]
        scale = lambda loc: [a ** abs(i - loc) for i in range(n)]  # noqa: E731
        cost = lambda c, loc: amounts[loc] * sum(w[i][c] * s for i, s in enumerate(scale(loc)))  # noqa: E731
    else:
        eps = _epsilon(eps_exp)
        wf = np.asarray(w, dtype=float)
        index = np.arange(n)
        log_amounts = np.full(n, math.log(-math.expm1(-eps)) - math.log1p(math.exp(-eps)))
        log_amounts[[0, n - 1]] = -math.log1p(math.exp(-eps))
        cost = lambda c, loc: float(np.exp(log_amounts[loc] - eps * np.abs(index - loc)) @ wf[:, c])  # noqa: E731
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
        return Construction(matrix, None, steps, tuple(placement), verify_mechanism(matrix, e))
    log_matrix = np.full((n, n), -np.inf)
    for loc, column in enumerate(placement):
        log_matrix[:, column] = np.logaddexp(log_matrix[:, column], log_amounts[loc] - eps * np.abs(index - loc))
    return Construction(None, log_matrix, steps, tuple(placement), verify_log_mechanism(log_matrix, eps), "double")


# --------------------------------------------------------------------------- verification

def verify_mechanism(matrix: Sequence[Sequence[Fraction]], eps_exp: Any, z: Sequence[Fraction] | None = None) -> Verification:
    """Check exactly that T is in U (or F[z]); raise :class:`CertificateError` if not.

    Examples
    --------
    >>> verify_mechanism([[Fraction(1, 2)] * 2] * 2, "2").dp_ratio
    Fraction(1, 1)
    """
    rows = [list(map(exact_number, row)) for row in matrix]
    n = len(rows)
    if n == 0 or any(len(row) != n for row in rows):
        raise ShapeError(f"a count mechanism is square: {n} rows of lengths {sorted({len(row) for row in rows})}")
    denominators = [math.lcm(*(v.denominator for v in column)) for column in zip(*rows, strict=True)]
    numerators = flint.fmpz_mat(n, n, [v.numerator * (d // v.denominator) for row in rows for v, d in zip(row, denominators, strict=True)])
    return _verify_integer_columns(numerators, [flint.fmpz(d) for d in denominators], eps_exp_above_one(eps_exp),
                                   None if z is None else [exact_number(v) for v in z])


def _verify_integer_columns(numerators: Any, denominators: list[Any], e: Fraction, z: list[Fraction] | None) -> Verification:
    """:func:`verify_mechanism` on T[i, j] = N[i, j] / d_j, N an fmpz_mat and every d_j > 0.

    Every test is integer arithmetic in FLINT: with e^ε = p/s, the ratio bounds of rows i and i + 1
    are p·N[i] − s·N[i+1] ≥ 0 and p·N[i+1] − s·N[i] ≥ 0, the row sums are Σ_j N[i, j]·(L/d_j) = L with L = lcm(d) and z·T = z is
    Σ_i (z_i·B)·N[i, j] = z_j·B·d_j, B a common denominator of z. The worst ratio is e^ε exactly
    when they all hold and one of them is 0 beside a positive entry (as at every tight bound of a
    vertex); otherwise it is found by comparing the ratios one by one, and reported if above e^ε."""
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
                raise CertificateError(f"column {j} is not ε-neighbour indistinguishable at rows {i}, {i + 1}: "
                                       f"{Fraction(int(a), int(denominators[j]))}, {Fraction(int(b), int(denominators[j]))}")
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
        base = math.lcm(*(v.denominator for v in z))
        mass = (flint.fmpz_mat(1, n, [v.numerator * (base // v.denominator) for v in z]) * numerators).entries()
        fixed_error = max(abs(Fraction(int(m), base * int(d)) / v - 1) for m, d, v in zip(mass, denominators, z, strict=True))
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
        row_error = float(np.max(np.abs(np.expm1(_logsumexp(logs, axis=1))))) + rounding
        steps = np.abs(np.diff(logs, axis=0))
    if not np.all(np.isfinite(logs)):
        steps = np.where(np.isneginf(logs[1:]) & np.isneginf(logs[:-1]), 0.0, steps)
    worst_log = float(np.max(steps)) if steps.size else 0.0
    dp_ratio = math.exp(worst_log) * (1 + rounding) if math.isfinite(worst_log) else math.inf
    fixed_error = None
    if log_z is not None:
        z = np.asarray(log_z, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            fixed_error = float(np.max(np.abs(np.expm1(_logsumexp(z[:, None] + logs, axis=0) - z)))) + rounding
    bad = (not row_error <= tolerance or not worst_log <= eps + tolerance
           or (fixed_error is not None and not fixed_error <= tolerance))
    if bad:
        raise CertificateError(f"the float mechanism fails its check to {tolerance}: row-sum error {row_error}, "
                               f"fixed-point error {fixed_error}, worst ratio {dp_ratio} vs e^ε = {math.exp(eps)}")
    return Verification(row_error, fixed_error, dp_ratio, math.exp(eps))


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
