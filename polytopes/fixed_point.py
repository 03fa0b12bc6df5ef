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
outside the range of a double, while its logarithm is a few thousand. In the log mode the
tightness of a privacy bound of the remainder r is a recorded fact (set when Prop. 2's minimum
is attained there), never re-tested on rounded numbers; that is what keeps the float mode a
mechanism at n in the thousands. Every result is verified in its own arithmetic before it is
returned (:class:`Verification`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from qifkit.errors import CertificateError, DistributionError, LabelError, PrivacyParameterError, ShapeError
from qifkit.numbers import exact as exact_number, exact_eps_exp

__all__ = [
    "SELECTORS",
    "Construction",
    "Verification",
    "heuristic_constructor",
    "unfixed_optimum",
    "count_error_weights",
    "count_error",
    "check_weights",
    "verify_mechanism",
]

SELECTORS = ("max", "min", "sandwich")
FLOAT_TOLERANCE = 1e-11  # relative; the float mode refuses to return a matrix worse than this

Selector = str | Callable[..., int]


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


@dataclass(frozen=True)
class Construction:
    """A constructed count mechanism.

    Attributes
    ----------
    matrix : list of list of Fraction or None
        T (rows: true counts) in exact mode.
    log_matrix : numpy.ndarray or None
        log T entrywise in float mode (entries of T may lie far below the smallest double).
    steps : int
        Scale additions (Algorithm 1) or loop iterations (Algorithm 2).
    order : tuple of int
        Columns in the order they were filled (Algorithm 1) or the column of each Σ_l (Algorithm 2).
    verification : Verification
    """

    matrix: list[list[Fraction]] | None
    log_matrix: np.ndarray | None
    steps: int
    order: tuple[int, ...]
    verification: Verification

    @property
    def exact(self) -> bool:
        """True when the matrix is exact."""
        return self.matrix is not None

    def to_numpy(self) -> np.ndarray:
        """T as floats (entries below the double range become 0)."""
        if self.matrix is not None:
            return np.array([[float(v) for v in row] for row in self.matrix])
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
    """log z for exact input (any magnitude) or for positive finite floats summing to 1 ± 1e-9."""
    if len(z) and all(isinstance(v, (float, np.floating)) for v in z):
        values = np.asarray(z, dtype=float)
        if values.size < 2 or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise DistributionError(f"z must have n >= 2 positive finite entries; got {values[:5]}...")
        if abs(math.fsum(values) - 1) > 1e-9:
            raise DistributionError(f"z sums to {math.fsum(values)}, not 1")
        return np.log(values) - math.log(math.fsum(values))
    return np.array([math.log(v.numerator) - math.log(v.denominator) for v in _positive_distribution(z)])


def _eps_exp(eps_exp: Any) -> Fraction:
    value = exact_eps_exp(eps_exp)
    if value <= 1:
        raise PrivacyParameterError(f"e^ε = {value} must be > 1")
    return value


def _epsilon(eps_exp: Any) -> float:
    if isinstance(eps_exp, (float, np.floating)):
        if not math.isfinite(eps_exp) or eps_exp <= 1:
            raise PrivacyParameterError(f"e^ε = {eps_exp} must be a finite number > 1")
        return math.log(eps_exp)
    value = _eps_exp(eps_exp)
    return math.log(value.numerator) - math.log(value.denominator)


def _choose(selector: Selector) -> Callable[[Any, Any, Any, Any, np.ndarray], int]:
    """κ as a function of (z, r, c, A, open mask); a callable κ gets (z, r, c, A) and is checked."""
    if callable(selector):
        def custom(z: Any, r: Any, c: Any, a: Any, is_open: np.ndarray) -> int:
            j = selector(z, r, c, a)
            if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < len(is_open) or not is_open[j]:
                raise LabelError(f"the column selector returned {j!r}, which is not an unfilled column (c_j > 0)")
            return int(j)
        return custom
    if selector not in SELECTORS:
        raise LabelError(f"unknown column selector {selector!r}; use one of {', '.join(SELECTORS)} or a callable")

    def builtin(z: Any, r: Any, c: Any, a: Any, is_open: np.ndarray) -> int:
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
        Exact rationals (default) or the float log mode.

    Returns
    -------
    Construction
        The verified mechanism; ``steps`` counts scale additions (at most 2n − 1).

    Raises
    ------
    DistributionError, PrivacyParameterError, LabelError
        For z with a zero, negative or non-summing entry, e^ε ≤ 1, an unknown selector.

    Examples
    --------
    >>> t = heuristic_constructor(["1/4", "1/2", "1/4"], "2")
    >>> [[str(v) for v in row] for row in t.matrix]
    [['4/9', '4/9', '1/9'], ['2/9', '5/9', '2/9'], ['1/9', '4/9', '4/9']]
    """
    choose = _choose(selector)
    if exact:
        return _heuristic_exact(_positive_distribution(z), _eps_exp(eps_exp), choose)
    return _heuristic_log(_log_distribution(z), _epsilon(eps_exp), choose)


def _heuristic_exact(z: list[Fraction], e: Fraction, choose: Callable[..., int]) -> Construction:
    n = len(z)
    zq = [flint.fmpq(v.numerator, v.denominator) for v in z]
    eq = flint.fmpq(e.numerator, e.denominator)
    columns = [[flint.fmpq(0)] * n for _ in range(n)]
    r = [flint.fmpq(1)] * n
    c = list(zq)
    order: list[int] = []
    steps = 0
    while len(order) < n:
        j = choose(zq, r, c, columns, np.array([v > 0 for v in c]))
        order.append(j)
        while c[j] > 0:
            # Steps 6-7: the single-peaked pattern at j, turned where a bound of r is tight against it.
            pattern = [1 if i < j else -1 for i in range(n - 1)]
            for i in range(n - 1):
                if (pattern[i] == 1 and r[i + 1] * eq == r[i]) or (pattern[i] == -1 and r[i + 1] == eq * r[i]):
                    pattern[i] = -pattern[i]
            s = [flint.fmpq(1)]
            for step in pattern:
                s.append(s[-1] * eq if step == 1 else s[-1] / eq)
            zs = sum((a * b for a, b in zip(zq, s)), flint.fmpq(0))
            q = c[j] / zs
            for i, step in enumerate(pattern):  # Prop. 2
                if step == 1:
                    bound = (eq * r[i + 1] - r[i]) / (eq * s[i + 1] - s[i])
                else:
                    bound = (r[i] - r[i + 1] / eq) / (s[i] - s[i + 1] / eq)
                q = min(q, bound)
            column = columns[j]
            for i in range(n):
                column[i] += q * s[i]
                r[i] -= q * s[i]
            c[j] -= q * zs
            steps += 1
    matrix = [[Fraction(int(columns[j][i].p), int(columns[j][i].q)) for j in range(n)] for i in range(n)]
    return Construction(matrix, None, steps, tuple(order), verify_mechanism(matrix, e, z))


def _heuristic_log(log_z: np.ndarray, eps: float, choose: Callable[..., int]) -> Construction:
    """Algorithm 1 on logarithms. The remainder is stored as log r_i = μ_i + ε·G_i, where G is the
    height profile of the tight bounds (G_{i+1} − G_i = ±1 across a tight bound, 0 across a loose
    one) and μ is constant on each run of rows joined by tight bounds. Both the scale added and r
    have the same shape on such a run (Step 7), so one number per run is updated and the tight
    ratios stay exactly e^±ε however small r becomes."""
    n = log_z.size
    log_a = np.full((n, n), -np.inf)  # log_a[j] is column j
    mu = np.zeros(n)
    profile = np.zeros(n)
    tight = np.zeros(n - 1, dtype=np.int64)  # +1: r_{i+1} = e^ε r_i, −1: r_{i+1} = e^−ε r_i, 0: loose
    log_c = log_z.copy()
    open_mask = np.ones(n, dtype=bool)
    rows = np.arange(n - 1)
    up_norm, down_norm = math.log(math.expm1(2 * eps)), math.log(-math.expm1(-2 * eps))
    heights = np.zeros(n)
    order: list[int] = []
    steps = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        while open_mask.any():
            j = choose(log_z, mu + eps * profile, log_c, log_a, open_mask)
            order.append(j)
            peaked = np.where(rows < j, 1, -1)
            last_column = np.count_nonzero(open_mask) == 1
            while True:
                pattern = np.where(tight != 0, tight, peaked)
                np.cumsum(pattern, out=heights[1:])
                log_s = eps * heights
                log_zs = _logsumexp(log_z + log_s)
                log_q_column = log_c[j] - log_zs
                log_r = mu + eps * profile
                ratio = (mu[1:] - mu[:-1]) + eps * tight
                up = pattern == 1
                slack = np.maximum(np.where(up, eps + ratio, eps - ratio), 0.0)
                factor = np.where(up, np.log(np.expm1(slack)) - up_norm, np.log(-np.expm1(-slack)) - down_norm)
                log_q_rows = log_r[:-1] - log_s[:-1] + factor
                log_q = min(log_q_column, log_q_rows.min())
                column_full = log_q_column <= log_q + 1e-13
                # In exact arithmetic r runs out (a tight bound's q_i is the minimum) only together
                # with the last column, whose last step adds the remainder r itself (r is ε-neighbour
                # indistinguishable throughout, so the column stays private and the rows sum to 1).
                if last_column and np.any((log_q_rows <= log_q + 1e-9) & (tight != 0)):
                    column_full = True
                if not column_full and np.any((log_q_rows <= log_q + 1e-13) & (tight != 0)):
                    raise CertificateError("Algorithm 1 (log mode): the remainder ran out before the columns did; "
                                           "rounding broke the run")
                steps += 1
                if column_full and last_column:
                    log_a[j] = np.logaddexp(log_a[j], log_r)
                    open_mask[j] = False
                    break
                log_a[j] = np.logaddexp(log_a[j], log_q + log_s)
                mu = mu + np.log1p(-np.exp(log_q + eps * (heights - profile) - mu))
                newly_tight = (log_q_rows <= log_q + 1e-13) & (tight == 0)
                if newly_tight.any():
                    log_r = mu + eps * profile
                    tight[newly_tight] = -pattern[newly_tight]
                    profile[1:] = np.cumsum(tight)
                    mu = log_r - eps * profile
                    first = np.flatnonzero(np.concatenate(([True], tight == 0)))
                    mu = mu[first][np.cumsum(np.concatenate(([0], tight == 0)))]
                if column_full:
                    log_c[j] = -np.inf
                    open_mask[j] = False
                    break
                log_c[j] = log_c[j] + np.log1p(-np.exp(log_q + log_zs - log_c[j]))
    log_matrix = log_a.T
    return Construction(None, log_matrix, steps, tuple(order), verify_log_mechanism(log_matrix, eps, log_z))


def _logsumexp(values: np.ndarray, axis: int | None = None) -> Any:
    """log Σ exp(values) without overflow (entries −inf allowed; not all of them)."""
    top = values.max(axis=axis, keepdims=True)
    total = np.log(np.sum(np.exp(values - top), axis=axis, keepdims=True)) + top
    return total.item() if axis is None else np.squeeze(total, axis=axis)


# --------------------------------------------------------------------------- count error

def count_error_weights(z: Sequence[Any], kind: str = "absolute") -> list[list[Fraction]]:
    """W with ⟨W, T⟩ the expected count error (Kohli and Laskowski §5.3): w_ij = z_i·|i − j| for
    ``"absolute"`` (expected absolute deviation) or z_i·(i − j)² for ``"squared"``.

    z may be any n non-negative exact numbers (a distribution, or counts)."""
    values = [exact_number(v) for v in z]
    if any(v < 0 for v in values):
        raise DistributionError(f"z has a negative entry {min(values)}")
    if kind not in ("absolute", "squared"):
        raise LabelError(f"unknown count error {kind!r}; use 'absolute' or 'squared'")
    power = 1 if kind == "absolute" else 2
    n = len(values)
    return [[values[i] * abs(i - j) ** power for j in range(n)] for i in range(n)]


def count_error(construction: Construction | Sequence[Sequence[Any]], weights: Sequence[Sequence[Any]]) -> Any:
    """⟨W, T⟩, exactly for an exact mechanism, as a float for a log-mode one."""
    if isinstance(construction, Construction) and construction.log_matrix is not None:
        w = np.asarray([[float(v) for v in row] for row in weights])
        return float(np.sum(w * np.exp(construction.log_matrix)))
    matrix = construction.matrix if isinstance(construction, Construction) else construction
    return sum(exact_number(w) * exact_number(t) for w_row, t_row in zip(weights, matrix) for w, t in zip(w_row, t_row))


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
        e = _eps_exp(eps_exp)
        a = 1 / e
        amounts = [1 / (1 + a) if l in (0, n - 1) else (1 - a) / (1 + a) for l in range(n)]
        scale = lambda l: [a ** abs(i - l) for i in range(n)]  # noqa: E731
        cost = lambda c, l: amounts[l] * sum(w[i][c] * s for i, s in enumerate(scale(l)))  # noqa: E731
    else:
        eps = _epsilon(eps_exp)
        wf = w
        index = np.arange(n)
        log_amounts = np.full(n, math.log(-math.expm1(-eps)) - math.log1p(math.exp(-eps)))
        log_amounts[[0, n - 1]] = -math.log1p(math.exp(-eps))
        cost = lambda c, l: float(np.exp(log_amounts[l] - eps * np.abs(index - l)) @ wf[:, c])  # noqa: E731
    placement, steps, j, l = [0] * n, 0, 0, 0
    while l < n:
        steps += 1
        here = cost(j, l)
        if j == n - 1 or cost(j + 1, l) > here:
            placement[l] = j
            l += 1
        else:
            j += 1
    if exact:
        matrix = [[Fraction(0)] * n for _ in range(n)]
        for l, column in enumerate(placement):
            for i, s in enumerate(scale(l)):
                matrix[i][column] += amounts[l] * s
        return Construction(matrix, None, steps, tuple(placement), verify_mechanism(matrix, e))
    log_matrix = np.full((n, n), -np.inf)
    for l, column in enumerate(placement):
        log_matrix[:, column] = np.logaddexp(log_matrix[:, column], log_amounts[l] - eps * np.abs(index - l))
    return Construction(None, log_matrix, steps, tuple(placement), verify_log_mechanism(log_matrix, eps))


# --------------------------------------------------------------------------- verification

def verify_mechanism(matrix: Sequence[Sequence[Fraction]], eps_exp: Any, z: Sequence[Fraction] | None = None) -> Verification:
    """Check exactly that T is in U (or F[z]); raise :class:`CertificateError` if not.

    Examples
    --------
    >>> verify_mechanism([[Fraction(1, 2)] * 2] * 2, "2").dp_ratio
    Fraction(1, 1)
    """
    e = _eps_exp(eps_exp)
    n = len(matrix)
    worst = Fraction(1)
    for j in range(n):
        for i in range(n - 1):
            a, b = matrix[i][j], matrix[i + 1][j]
            if a < 0 or b < 0 or (a == 0) != (b == 0):
                raise CertificateError(f"column {j} is not ε-neighbour indistinguishable at rows {i}, {i + 1}: {a}, {b}")
            if a:
                worst = max(worst, a / b, b / a)
    row_error = max(abs(sum(row) - 1) for row in matrix)
    fixed_error = None
    if z is not None:
        fixed_error = max(abs(sum(z[i] * matrix[i][j] for i in range(n)) - z[j]) / z[j] for j in range(n))
    if worst > e or row_error or fixed_error:
        raise CertificateError(f"the constructed matrix fails its check: worst ratio {worst} (e^ε = {e}), "
                               f"row-sum error {row_error}, fixed-point error {fixed_error}")
    return Verification(row_error, fixed_error, worst, e)


def verify_log_mechanism(log_matrix: np.ndarray, eps: float, log_z: np.ndarray | None = None,
                         tolerance: float = FLOAT_TOLERANCE) -> Verification:
    """Check T = exp(log_matrix) in floating point: row sums, z·T = z (relative, per coordinate)
    and every neighbour ratio within e^ε, each to `tolerance`; raise :class:`CertificateError` if not."""
    with np.errstate(invalid="ignore"):
        row_error = float(np.max(np.abs(np.expm1(_logsumexp(log_matrix, axis=1)))))
        steps = np.abs(np.diff(log_matrix, axis=0))
    if not np.all(np.isfinite(log_matrix)):
        steps = np.where(np.isneginf(log_matrix[1:]) & np.isneginf(log_matrix[:-1]), 0.0, steps)
    worst_log = float(np.max(steps)) if steps.size else 0.0
    dp_ratio = math.exp(worst_log) if math.isfinite(worst_log) else math.inf
    fixed_error = None
    if log_z is not None:
        fixed_error = float(np.max(np.abs(np.expm1(_logsumexp(log_z[:, None] + log_matrix, axis=0) - log_z))))
    bad = (not row_error <= tolerance or not worst_log <= eps + tolerance
           or (fixed_error is not None and not fixed_error <= tolerance))
    if bad:
        raise CertificateError(f"the float mechanism fails its check to {tolerance}: row-sum error {row_error}, "
                               f"fixed-point error {fixed_error}, worst ratio {dp_ratio} vs e^ε = {math.exp(eps)}")
    return Verification(row_error, fixed_error, dp_ratio, math.exp(eps))
