"""Benchmark: an exact Kronecker power of GD times a counting query, against Fraction arrays.

GD with e^ε = 7/2 on 7 values (Alvim et al. eq. (20)), its N-fold Kronecker power (7^N rows) times
the counting query "how many zeros" (7^N × (N+1)), all exact. Baseline, in the same process and
on the same inputs: numpy object arrays of ``fractions.Fraction`` (np.kron, then ``@``). The
baseline takes minutes at N = 4, so by default it runs at N = 3 only; ``--full`` adds N = 4.
A third row shows the algebraic route (GD·Z)^{⊗N}·Y of the mixed-product law.

Run: ``.venv/bin/python benchmarks/bench_kron_count.py [--full]``
"""

from __future__ import annotations

import argparse
import itertools
import time
from fractions import Fraction

import numpy as np

from qifkit import Channel, truncated_geometric
from qifkit.postprocess import count_query

VALUES = 7


def ours(gd: Channel, count: int) -> tuple[float, list]:
    start = time.perf_counter()
    power = gd.power(count)
    result = power @ count_query(power.outputs, counted={0})
    return time.perf_counter() - start, result.rows()


def baseline(gd: Channel, count: int) -> tuple[float, list]:
    matrix = np.array(gd.rows(), dtype=object)
    labels = list(itertools.product(range(VALUES), repeat=count))
    query = np.array([[Fraction(int(label.count(0) == k)) for k in range(count + 1)] for label in labels], dtype=object)
    start = time.perf_counter()
    power = matrix
    for _ in range(count - 1):
        power = np.kron(power, matrix)
    result = power @ query
    return time.perf_counter() - start, result.tolist()


def algebraic(gd: Channel, count: int) -> tuple[float, list]:
    start = time.perf_counter()
    is_zero = Channel.from_rows([[1, 0] if v == 0 else [0, 1] for v in range(VALUES)], outputs=("zero", "other"))
    power = (gd @ is_zero).power(count)
    result = power @ count_query(power.outputs, counted={"zero"})
    return time.perf_counter() - start, result.rows()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also run the Fraction baseline at N = 4 (minutes)")
    arguments = parser.parse_args()
    gd = truncated_geometric(VALUES, eps_exp="7/2")
    print(f"{'N':>2} {'rows':>6} {'route':<34} {'seconds':>9} {'vs Fraction arrays':>19}")
    for count in (3, 4):
        rows = VALUES**count
        our_time, our_result = ours(gd, count)
        algebra_time, algebra_result = algebraic(gd, count)
        assert algebra_result == our_result, "algebraic route disagrees"
        if count == 3 or arguments.full:
            base_time, base_result = baseline(gd, count)
            assert base_result == our_result, "baseline disagrees"
            ratio = lambda t: f"{base_time / t:17.1f}x"  # noqa: E731
            print(f"{count:>2} {rows:>6} {'Fraction object arrays (baseline)':<34} {base_time:9.2f} {'1.0x':>19}")
        else:
            ratio = lambda t: f"{'(baseline: --full)':>19}"  # noqa: E731
        print(f"{count:>2} {rows:>6} {'qifkit DomainMatrix/flint':<34} {our_time:9.2f} {ratio(our_time)}")
        print(f"{count:>2} {rows:>6} {'qifkit algebra (GD·Z)^⊗N·Y':<34} {algebra_time:9.3f} {ratio(algebra_time)}")


if __name__ == "__main__":
    main()
