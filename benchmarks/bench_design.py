"""Benchmark: Cormode et al.'s constrained design LP (``qifkit design``'s optimum) at the sizes issue 56
asks, certified by the exact LP engine, beside HiGHS alone on the same program in the same process
(floats, no certificate); the ratio is certified / float. The largest count of ``qifkit design``
(``proofs_checks.cli.design.DESIGN_MAX_N``) is set from this table: every row at that size certifies
in about a minute.

Run: ``.venv/bin/python benchmarks/bench_design.py [--sizes 40 60 100] [--objectives 0 1 2]`` (the limit of
60 rests on ``--sizes 60 --objectives 0 1 2``: 108 programs)
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from polytopes import design_program, float_minimum, optimal_mechanism
from qifkit.count_objectives import objective_coefficients

ALPHAS = ("1/3", "1/2", "5/9", "2/3", "9/10", "99/100")
PROPERTY_SETS = ((), ("WH",), ("RH", "CH", "F"), ("RM", "CM", "S"), ("RH", "CH"),
                 ("RH", "RM", "CH", "CM", "F", "WH", "S"))


def _float_seconds(n: int, alpha: str, properties: tuple[str, ...], p: int) -> float:
    program = design_program(n, alpha=alpha, properties=properties)
    objective = [Fraction(0)] * program.variables
    for j, row in enumerate(objective_coefficients(n, p)):
        for i, c in enumerate(row):
            objective[j * (n + 1) + i] = c
    started = time.perf_counter()
    float_minimum(program, objective)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 60, 100])
    parser.add_argument("--objectives", type=int, nargs="+", default=[0, 2])
    arguments = parser.parse_args()
    print(f"{'n':>4} {'alpha':>7} {'properties':<22} {'L':>2} {'certified s':>12} {'HiGHS s':>8} {'ratio':>6}  value")
    for n in arguments.sizes:
        for p in arguments.objectives:
            for alpha in ALPHAS:
                for properties in PROPERTY_SETS:
                    started = time.perf_counter()
                    try:
                        value, _ = optimal_mechanism(n, alpha=alpha, properties=properties, p=p)
                        shown = str(value) if len(str(value)) < 30 else f"≈ {float(value):.6f}"
                    except Exception as error:  # a benchmark reports every row, a failure included
                        shown = f"no certificate: {type(error).__name__}: {str(error)[:60]}"
                    seconds = time.perf_counter() - started
                    baseline = _float_seconds(n, alpha, properties, p)
                    print(f"{n:>4} {alpha:>7} {','.join(properties) or '-':<22} {p:>2} {seconds:>12.2f} "
                          f"{baseline:>8.2f} {seconds / baseline:>6.1f}  {shown}", flush=True)


if __name__ == "__main__":
    main()
