"""Benchmark: Kohli and Laskowski's Algorithm 1 against LP optima over F, and Cormode's design LP.

Rows, all in one run on a binomial-shaped z (z_i = C(n−1, i)/2^(n−1)) with e^ε = 2:

* Algorithm 1 (sandwich) in the float log mode at n = 200, 500, 1000, 2000, with the verified
  max row-sum error, max relative fixed-point error and worst DP ratio / e^ε − 1;
* Algorithm 1 exact (python-flint rationals) at n = 20, 40, 60;
* the LP minimum of expected absolute deviation over F[z]: HiGHS (floats), HiGHS certified exactly
  (exact re-solve on its basis; no cdd fallback here), at every n, and cddlib's exact simplex at
  n = 10, 20 (about 90 s at n = 20; beyond that it does not finish in minutes). With binomial z the
  smallest z_i is 2^−(n−1), so the float LP degrades as n grows: this is the row that shows it;
* Cormode et al.'s L0 design LP with all seven properties at n = 100, certified.

The ratio column is time / time of Algorithm 1 (same n, same mode) where one exists.
Run: ``.venv/bin/python benchmarks/bench_constructors.py``
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

from polytopes.constrained import PROPERTIES, optimal_mechanism
from polytopes.fixed_point.algorithm1 import heuristic_constructor
from polytopes.fixed_point.algorithm2 import count_error, count_error_weights
from polytopes.lp import certified_minimum, exact_minimum, float_minimum
from polytopes.spaces import count_program
from qifkit.errors import QifError


def binomial(n: int) -> list[Fraction]:
    return [Fraction(math.comb(n - 1, i), 2 ** (n - 1)) for i in range(n)]


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def row(label: str, n: int, seconds: float, baseline: float | None, note: str) -> None:
    ratio = f"{seconds / baseline:8.1f}" if baseline else "       —"
    print(f"{label:<34} {n:>5} {seconds:10.3f} {ratio}  {note}")


def main() -> None:
    print(f"{'method':<34} {'n':>5} {'seconds':>10} {'ratio':>8}  result")
    for n in (200, 500, 1000, 2000):
        result, seconds = timed(
            lambda: heuristic_constructor(binomial(n), eps_exp="2", selector="sandwich", exact=False)
        )
        check = result.verification
        row(
            "alg1 sandwich, float log mode",
            n,
            seconds,
            None,
            f"steps {result.steps}, row-sum {check.row_sum_error:.1e}, fixed point {check.fixed_point_error:.1e}, "
            f"ratio/e^ε−1 {check.dp_ratio / 2 - 1:.1e}",
        )
    exact_times = {}
    for n in (10, 20, 40, 60):
        z = binomial(n)
        weights = count_error_weights(z)
        objective = [w for r in weights for w in r]
        result, seconds = timed(lambda: heuristic_constructor(z, eps_exp="2", selector="sandwich"))
        exact_times[n] = seconds
        heuristic = count_error(result, weights)
        row("alg1 sandwich, exact", n, seconds, None, f"steps {result.steps}, count error {float(heuristic):.6f}")
        polytope = count_program(n, "2", z, fixed=True)
        try:
            highs, seconds = timed(lambda: float_minimum(polytope, objective))
            row("LP over F, HiGHS (float)", n, seconds, exact_times[n], f"min {highs.value:.6f}")
        except QifError as error:
            row("LP over F, HiGHS (float)", n, math.nan, None, f"fails: {str(error)[:60]}")
        start = time.perf_counter()
        try:
            certified = certified_minimum(polytope, objective, fallback=False)
            row(
                "LP over F, HiGHS certified exactly",
                n,
                time.perf_counter() - start,
                exact_times[n],
                f"min {float(certified.value):.6f}; alg1 gap {float(heuristic / certified.value - 1):.2%}",
            )
        except QifError as error:
            row("LP over F, HiGHS certified exactly", n, time.perf_counter() - start, None, f"fails: {str(error)[:60]}")
        if n <= 20:
            optimum, seconds = timed(lambda: exact_minimum(polytope, objective))
            row("LP over F, cddlib exact simplex", n, seconds, exact_times[n], f"min {float(optimum.value):.6f}")
    (value, _), seconds = timed(lambda: optimal_mechanism(100, alpha="9/10", properties=PROPERTIES, method="certified"))
    row("Cormode L0 LP, all 7 properties, certified", 100, seconds, None, f"L0 = {float(value):.6f} (exact rational)")


if __name__ == "__main__":
    main()
