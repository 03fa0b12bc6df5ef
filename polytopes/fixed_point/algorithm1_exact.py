"""Algorithm 1 of Kohli and Laskowski in exact rational arithmetic (python-flint): a step costs
O(runs) (:class:`polytopes.fixed_point.runs.Runs`), the runs' remainders share one denominator,
Prop. 2's bounds are screened in ball arithmetic before the few that can attain the minimum are
computed exactly, and T is summed as integers over one denominator per column."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from polytopes.fixed_point.arithmetic import precision
from polytopes.fixed_point.construction import ColumnFractions, Construction
from polytopes.fixed_point.runs import Placed, Runs
from polytopes.fixed_point.verification import verify_integer_columns
from qifkit.numbers import to_fmpq

__all__ = ["heuristic_exact"]


def heuristic_exact(z: list[Fraction], e: Fraction, choose: Callable[..., int]) -> Construction:
    zq, eq = [to_fmpq(v) for v in z], to_fmpq(e)
    placed, steps, order = _algorithm1(zq, eq, choose)
    numerators, denominators = _integer_columns(placed, eq, len(z))
    verification = verify_integer_columns(numerators, denominators, e, z)
    return Construction(ColumnFractions(numerators, denominators), None, steps, tuple(order), verification)


def _algorithm1(z: list[Any], e: Any, choose: Callable[..., int]) -> tuple[Placed, int, list[int]]:
    """Algorithm 1 in exact rational arithmetic (flint). Returns the scales placed in each column
    (amount q and row heights, s_i = e^{ε·height_i}), the number of scale additions and the order
    the columns were filled in.

    Per run of rows joined by tight bounds (:class:`Runs`) it keeps r at the run's first row and the
    weight Σ z_i·e^{ε·off_i}, so a step costs O(runs); the scales are kept as (amount, heights) and
    summed into T at the end."""
    n = len(z)
    zero = z[0] * 0
    power = [e ** h for h in range(-n, n + 1)]  # power[h + n] = e^{εh}; heights stay within ±(n − 1)
    up_norm, down_norm = e * e - 1, 1 - 1 / (e * e)
    runs = Runs(n)
    rho = _SharedDenominator(n, e)  # r at each run's first row
    weight = list(z)  # Σ_{i in run} z_i·e^{ε·off_i}
    c = list(z)
    placed: Placed = [[] for _ in range(n)]
    is_open = np.ones(n, dtype=bool)
    order: list[int] = []
    steps = 0
    candidates = _BoundScreen(e, power, up_norm, down_norm)

    def remainder() -> list[Any]:
        return [
            rho[int(k)] * power[int(h) + n]
            for k, h in zip(np.repeat(np.arange(len(rho)), runs.lengths()), runs.off, strict=True)
        ]

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
        with precision(64):
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


def _scalar_columns(placed: Placed, power: list[Any], n: int, zero: Any) -> list[list[Any]]:
    """Column j of T is Σ q·s over the scales placed in it (scalars of :func:`_algorithm1`)."""
    columns = []
    for scales in placed:
        column = [zero] * n
        for q, heights in scales:
            column = [t + q * power[h + n] for t, h in zip(column, heights.tolist(), strict=True)]
        columns.append(column)
    return columns


def _integer_columns(placed: Placed, e: Any, n: int) -> tuple[Any, list[Any]]:
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
