"""Algorithm 1 of Kohli and Laskowski in floating point: long-double values while every scale
e^{±ε·n} fits, long-double logarithms beyond, and the remainder in high precision (arb) where even
that loses it (the columns filled first hold nearly all of z, or z has entries far below the
others). Every result is verified in its own arithmetic before it is returned."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from polytopes.fixed_point.arithmetic import logs_of, logsumexp, precision
from polytopes.fixed_point.construction import Construction
from polytopes.fixed_point.runs import Placed, Runs, Selector
from polytopes.fixed_point.verification import verify_log_mechanism
from qifkit.errors import CertificateError
from qifkit.numbers import to_fmpq

__all__ = ["last_mass_below_rounding", "heuristic_log", "heuristic_precise", "heuristic_values", "values_fit"]


_UNIT = np.finfo(np.longdouble).eps  # a long double's relative rounding

_LOG_TIE = 1e-14  # two amounts of Algorithm 1's float mode closer than this (relative) are one minimum


def last_mass_below_rounding(log_z: np.ndarray, selector: Selector) -> bool:
    """Whether the column a built-in selector fills last has z_j below 1e-20: it takes all of r, so
    its mass is 1 minus what the other columns took, and a long double's rounding of those masses
    (about 1e-19 of each) exceeds z_j itself; the long-double run would be refused at its end
    (geometric(0.9) at n = 2000 has z_1000 = 2e-47 in the middle, where the sandwich order ends)."""
    if not isinstance(selector, str):
        return False  # a callable's last column is not known in advance
    last = {"sandwich": log_z[log_z.size // 2], "max": log_z.min(), "min": log_z.max()}[selector]
    return float(last) < math.log(1e-20)


def _log_columns(placed: Placed, eps: Any, n: int) -> np.ndarray:
    """log T with log T[:, j] = log Σ q·s over the scales placed in column j (−inf where none), as
    doubles: ε·h is each rounded once from long double (a table), so a neighbour ratio is off by at
    most a unit of the last place of ε·n, far below the check's tolerance."""
    heights_times_eps = (np.longdouble(eps) * np.arange(-n, n + 1, dtype=np.longdouble)).astype(float)
    log_a = np.full((n, n), -np.inf)
    for j, scales in enumerate(placed):
        if len(scales) == 1:
            log_a[j] = np.asarray(scales[0][0], dtype=float) + heights_times_eps[scales[0][1] + n]
        elif scales:
            log_a[j] = logsumexp(np.array([np.asarray(log_q, dtype=float) + heights_times_eps[heights + n]
                                            for log_q, heights in scales]), axis=0)
    return log_a


class _ColumnWalk:
    """What both float variants of Algorithm 1 keep besides the remainder: the runs of rows joined by
    tight bounds, the columns still open, the scales placed in each column (log q and the rows'
    heights), the order the columns were chosen in and the number of steps."""

    def __init__(self, log_z: np.ndarray, eps: Any) -> None:
        self.log_z, self.eps, self.n = log_z, eps, log_z.size
        self.runs = Runs(self.n)
        self.open_mask = np.ones(self.n, dtype=bool)
        self.placed: Placed = [[] for _ in range(self.n)]
        self.order: list[int] = []
        self.steps = 0

    def choose(self, choose: Callable[..., int], log_r: Callable[[], np.ndarray],
               log_c: Callable[[], np.ndarray]) -> int:
        """The next column, by the selector (it asks for log r, log c or the columns so far)."""
        j = choose(self.log_z, log_r, log_c, lambda: _log_columns(self.placed, self.eps, self.n), self.open_mask)
        self.order.append(j)
        return j

    def fill_last(self, j: int, log_r: np.ndarray, log_c: Any) -> bool:
        """If `j` is the last open column, give it all of r (log r per row; private by Prop. 2, rows
        sum to 1), its mass restored to c_j, and say so."""
        if np.count_nonzero(self.open_mask) != 1:
            return False
        correction = _last_column_correction(log_r + self.eps * self.runs.off, self.log_z, log_c)
        self.placed[j].append((log_r + correction, self.runs.off.copy()))
        self.open_mask[j] = False
        self.steps += 1
        return True

    def construction(self, arithmetic: str) -> Construction:
        """The mechanism of the placed scales, verified in long-double logs."""
        log_matrix = _log_columns(self.placed, self.eps, self.n).T
        return Construction(None, log_matrix, self.steps, tuple(self.order),
                            verify_log_mechanism(log_matrix, float(self.eps), self.log_z), arithmetic)


def heuristic_log(log_z: np.ndarray, eps: Any, choose: Callable[..., int],
                   precise: _PreciseRemainder | None = None) -> Construction:
    """Algorithm 1 on logarithms in extended precision (numpy's long double, 64-bit significand), for
    scales beyond a long double's range (:func:`values_fit`; within it :func:`heuristic_values`
    takes the same steps without exponentials).
    The remainder is one log value μ_k per run of rows joined by tight bounds (:class:`Runs`), so
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
    walk = _ColumnWalk(log_z, eps)
    runs, open_mask, placed = walk.runs, walk.open_mask, walk.placed
    mu = np.zeros(n, dtype=np.longdouble)
    drift = np.zeros(n, dtype=np.longdouble)  # an estimate of each μ's relative rounding error (as r)
    log_w = log_z.copy()
    log_c = log_z.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        while open_mask.any():
            j = walk.choose(choose, lambda: np.repeat(mu, runs.lengths()) + eps * runs.off, log_c.copy)  # noqa: B023 (called at once)
            if walk.fill_last(j, np.repeat(mu, runs.lengths()), log_c[j]):
                break
            while True:
                directions = runs.directions(j)
                heights = runs.heights(directions)
                walk.steps += 1
                spans = runs.spans[:-1]
                log_last_r = mu[:-1] + eps * spans
                ratio = mu[1:] - log_last_r
                up = directions == 1
                slack = np.maximum(np.where(up, eps + ratio, eps - ratio), 0).astype(float)  # the bounds decide q only
                factor = np.where(up, np.log(np.expm1(slack)) - up_norm, np.log(-np.expm1(-slack)) - down_norm)
                log_q_rows = log_last_r - eps * (heights[:-1] + spans) + factor
                if precise is None:
                    log_zs = logsumexp(log_w + eps * heights)
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
    return walk.construction("long double" if precise is None else f"long double, remainder in {precise.bits} bits")


class _PreciseRemainder:
    """The remainder of Algorithm 1's float mode in high precision: r at each run's first row, the
    runs' weights Σ z_i·e^{ε·off_i} and the columns' budgets c_j as FLINT arb midpoints of `bits`
    bits (numpy object arrays, so a step is a few vectorised passes).

    The float mode's remainder is 1 minus what the filled columns took; where the columns filled
    first hold nearly all of z (geometric(0.9) in the sandwich order, narrow bumps) it falls far
    below the rounding of the amounts taken from it, and a long double loses it (the hard fixed
    points of the benchmark need 96 to 224 bits at n = 400 to 2000). Here the long-double logs of r
    (:meth:`logs`) only screen Prop. 2's bounds; the few that can attain the minimum, and the
    column's own amount c_j/Σ z·s, are computed in `bits` bits, the amount q is an exact point, and
    r − q·s and c_j − q·Σ z·s are formed in `bits` bits. The budgets must be that precise too: what a
    large column takes too much or too little is missing from z·r, and the last column, which takes
    all of r, may have a tiny z_j. The remainder keeps its balls' radii, a bound on its rounding:
    where two runs join, the value kept for the run is the one with the smaller relative radius (r
    at the first row is often the most eroded: geometric(0.9) at n = 400 and e^ε = 20 needed 896
    bits with it, 96 this way)."""

    _SLACK_ERROR = 1e-14  # bound on the rounding of a screened slack (logs of doubles, long double sums)
    _LOG_ERROR = 1e-12  # and of a screened log amount

    def __init__(self, z: Sequence[Fraction], e: Fraction, bits: int) -> None:
        self.bits, self.n = bits, len(z)
        with precision(bits):
            self.e = flint.arb(to_fmpq(e)).mid()
            power = [flint.arb(1)] * (2 * self.n + 1)  # power[h + n] = e^{εh}, exact points
            inverse = (1 / self.e).mid()
            for h in range(1, self.n + 1):
                power[self.n + h] = (power[self.n + h - 1] * self.e).mid()
                power[self.n - h] = (power[self.n - h + 1] * inverse).mid()
            self.power = np.array(power, dtype=object)
            self.up_norm = (self.e * self.e - 1).mid()
            self.down_norm = (1 - inverse * inverse).mid()
            self.weight = np.array([flint.arb(to_fmpq(v)).mid() for v in z], dtype=object)
        self.c = list(self.weight)
        self.rho = np.array([flint.arb(1)] * self.n, dtype=object)
        self.tie = flint.arb(2) ** (-(bits // 2))

    def logs(self) -> np.ndarray:
        """log r at each run's first row as long doubles (any magnitude); a remainder that is not
        positive in this precision is refused (:class:`CertificateError`: more bits)."""
        logs = logs_of(self.rho)
        if not np.all(logs > -np.inf):
            raise CertificateError("Algorithm 1 (float mode): the remainder ran out before the last column in "
                                   f"{self.bits} bits")
        return logs

    def merge(self, k: int, shift: int) -> None:
        """Join run k + 1 into run k, whose rows above it sit `shift` heights higher."""
        with precision(self.bits):
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
        with precision(self.bits):
            scale = self.power[heights + self.n]
            mass = np.dot(scale, self.weight)
            q_column = (self.c[j] / mass).mid()
            tolerance = self._LOG_ERROR + self._SLACK_ERROR / np.maximum(slack, 1e-300)
            ceiling = min(float(logs_of(np.array([q_column], dtype=object))[0]) + self._LOG_ERROR,
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
            log_q, log_c = logs_of(np.array([q if q > 0 else flint.arb(1), self.c[j] if not full else flint.arb(1)],
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


def heuristic_precise(log_z: np.ndarray, eps: Any, z: Sequence[Fraction], e: Fraction,
                       choose: Callable[..., int]) -> Construction:
    """Algorithm 1's float mode with the remainder in high precision (:class:`_PreciseRemainder`):
    128 + n/12 bits (at n = 400, 800 and 2000 the hard fixed points of the benchmark needed at most
    160, 160 and 224), then 4 and 16 times that, until the result passes its check."""
    n = len(z)
    first = -(-(128 + n // 12) // 64) * 64
    failure = None
    for bits in (first, 4 * first, 16 * first):
        try:
            return heuristic_log(log_z, eps, choose, _PreciseRemainder(z, e, bits))
        except CertificateError as error:
            failure = error
    raise CertificateError(
        f"Algorithm 1 (float mode): no verified result with the remainder in up to {16 * first} bits "
        f"({failure}); use exact=True"
    )


def heuristic_values(log_z: np.ndarray, eps: Any, choose: Callable[..., int]) -> Construction:
    """Algorithm 1 on long-double values, the float mode's fast path (no exponentials in the loop):
    the same run-wise steps as :func:`heuristic_log`, used while every scale e^{εh}, |h| < n, and
    z fit a long double (:func:`values_fit`). Ties closer than a relative :data:`_LOG_TIE` count as ties."""
    n = log_z.size
    eps = np.longdouble(eps)
    e = np.exp(eps)
    power = np.exp(eps * np.arange(-n, n + 1, dtype=np.longdouble))  # power[h + n] = e^{εh}
    up_norm, down_norm = e * e - 1, 1 - 1 / (e * e)
    z = np.exp(log_z.astype(np.longdouble))
    walk = _ColumnWalk(log_z, eps)
    runs, open_mask, placed = walk.runs, walk.open_mask, walk.placed
    rho = np.ones(n, dtype=np.longdouble)  # r at the first row of each run
    drift = np.zeros(n, dtype=np.longdouble)  # an estimate of each rho's relative rounding error
    weight = z.copy()  # Σ_{i in run} z_i·e^{ε·off_i}
    c = z.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        while open_mask.any():
            j = walk.choose(choose, lambda: np.log(np.repeat(rho, runs.lengths()) * power[runs.off + n]),  # noqa: B023 (called at once)
                            lambda: np.log(c))
            if walk.fill_last(j, np.log(np.repeat(rho, runs.lengths())), np.log(c[j])):
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
                walk.steps += 1
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
    return walk.construction("long double")


def _last_column_correction(log_r: np.ndarray, log_z: np.ndarray, log_c: Any) -> Any:
    """The log of the factor that gives the last column, T[:, j] = r, its mass: z·r = c_j (= z_j).

    In exact arithmetic z·r = c_j already. In floating point each r_i is 1 minus what the other
    columns took and carries an absolute error of a few units of rounding, which is a large relative
    error of z·r when z_j is small (Dirichlet(0.1) at n = 2000: z_j = 8e-14, z·r off by 3e-5).
    Scaling the column keeps its ratios, restores its fixed point and moves each row sum by
    r_i·(factor − 1), which is of the size of that rounding; the verification decides as always."""
    return log_c - logsumexp(log_z + log_r)


def values_fit(log_z: np.ndarray, eps: Any) -> bool:
    """Whether :func:`heuristic_values` can hold every quantity as a long double: scales up to
    e^{±ε·n}, z down to its smallest entry, and their products (every r_i and q·s_i is at most 1),
    with a margin of a quarter of ε·n and a tenth of the range (at n = 2000 it takes e^ε = 20)."""
    limit = float(np.log(np.finfo(np.longdouble).max)) * 0.9  # about 10,200
    return float(eps) * log_z.size * 1.25 - float(log_z.min()) < limit
