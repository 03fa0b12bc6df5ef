"""Benchmark: Kohli and Laskowski's Algorithm 1 at n in the thousands, on every kind of fixed point.

Rows, in one run:

* the float mode (long double, run-wise; the remainder in high precision where that breaks) at
  n = 2000 on six families of z (uniform, binomial, 0.9·binomial + 0.1·uniform, Dirichlet(1),
  Zipf(1.5), geometric(0.99)) and e^ε ∈ {1.1, 2, 5}, each result verified to 1e-9 (row sums,
  z·T = z per coordinate, ratios ≤ e^ε);
  the ratio column is time / time of Algorithm 2 (the unfixed optimum, float) at the same n and
  e^ε, measured in this run; the authors report Algorithm 1 at n = 2000 "in under 10 seconds on a
  single laptop" (§6.3);
* the same 18 mechanisms as files, loaded as a user loads them and re-checked: the float64 array
  (what ``construct --out T.npy`` wrote before) against the file written now (float64 where that
  holds the mechanism, else long double), and the time to write and check it / to build it;
* four harder fixed points at n = 2000 (Dirichlet(0.1), Dirichlet(0.05), geometric(0.9), two
  narrow Gaussian bumps) at e^ε ∈ {1.1, 2, 5, 20}, timed or refused, and in which arithmetic;
* 200 random z at n ≤ 300 (Dirichlet, Zipf, mixtures, a tenth of the entries down to 1e-300;
  e^ε ∈ [1.01, 20]): refusals, how many needed the high-precision redo, worst time;
* the exact mode at n = 100, 300, 500 (uniform z, e^ε = 2) and n = 200 (binomial z, e^ε = 3/2):
  construction with its exact verification, and, apart ("+ read"), reading all n² entries as
  reduced Fractions, which the result does row by row when first asked; beside the certified LP
  over F[z] at n = 40 (the exact optimum the heuristic approximates; beyond n ≈ 40 it takes minutes).

Run: ``.venv/bin/python benchmarks/bench_fixed_points.py [--quick]`` (``--quick`` skips exact n = 500).
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from polytopes.fixed_point.algorithm1 import heuristic_constructor
from polytopes.fixed_point.algorithm2 import count_error_weights, unfixed_optimum
from polytopes.fixed_point.arithmetic import log_distribution
from polytopes.fixed_point.named import random_fixed_point
from polytopes.fixed_point.verification import verify_array
from polytopes.lp import certified_minimum
from polytopes.spaces import count_program
from proofs_checks.cli.artefacts import MechanismCheck, write_mechanism
from qifkit.errors import QifError


def families(n: int) -> dict[str, list]:
    """The six fixed points; the binomial one exact (its tails lie below the smallest double)."""
    log_binomial = np.array([math.lgamma(n) - math.lgamma(k + 1) - math.lgamma(n - k) - (n - 1) * math.log(2)
                             for k in range(n)])
    rng = np.random.default_rng(2000)
    raw = {
        "uniform": np.full(n, 1.0),
        "binomial": np.exp(log_binomial),  # replaced by the exact one below
        "0.9 binomial + 0.1 uniform": 0.9 * np.exp(log_binomial) + 0.1 / n,
        "Dirichlet(1)": rng.dirichlet(np.ones(n)),
        "Zipf(1.5)": 1.0 / np.arange(1, n + 1) ** 1.5,
        "geometric(0.99)": 0.99 ** np.arange(n),
    }
    z = {name: list(values / math.fsum(values)) for name, values in raw.items()}
    z["binomial"] = [Fraction(math.comb(n - 1, k), 2 ** (n - 1)) for k in range(n)]
    return z


def hard_families(n: int) -> dict[str, list]:
    """Fixed points whose mass left for the last columns falls far below a long double's rounding
    of 1 (the float mode's remainder is 1 minus what the other columns took)."""
    rng = np.random.default_rng(2001)
    rows = np.arange(n)
    raw = {
        "Dirichlet(0.1)": rng.dirichlet(np.full(n, 0.1)),
        "Dirichlet(0.05)": rng.dirichlet(np.full(n, 0.05)),
        "geometric(0.9)": 0.9 ** rows,
        "two Gaussian bumps (sd n/50)": (np.exp(-0.5 * ((rows - n / 4) / (n / 50)) ** 2)
                                         + np.exp(-0.5 * ((rows - 3 * n / 4) / (n / 50)) ** 2)),
    }
    return {name: list(np.maximum(values / math.fsum(values), 1e-300)) for name, values in raw.items()}


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def written_files(built: list) -> None:
    """Each mechanism of the first table as a user loads it: its float64 array (the baseline, what
    ``construct --out T.npy`` wrote before issue 35) and the file ``construct`` writes now (float64
    when that holds it, else long double), both checked by ``verify_array`` as loaded."""
    print(f"\n{'the same mechanisms as files, n = 2000':<44} {'e^ε':>4} {'float64':>9} {'written':>22} "
          f"{'write+check s':>13} {'/build':>6}")
    holds = {"float64": 0, "written": 0}
    with tempfile.TemporaryDirectory() as folder:
        for name, e, z, result, seconds in built:
            check = MechanismCheck(math.log(e), log_distribution(z).astype(float))
            try:
                verify_array(result.to_numpy(), math.log(e), log_distribution(z).astype(float))
                plain = "holds"
                holds["float64"] += 1
            except QifError as error:
                plain = f"{str(error).split(' neighbour')[0]} pairs break" if "neighbour" in str(error) else "breaks"
            path = str(Path(folder) / "T.npy")
            with contextlib.redirect_stdout(io.StringIO()):
                written, spent = timed(lambda: write_mechanism(path, check, logs=result.logs))
            loaded = np.load(path)
            verify_array(loaded, math.log(e), log_distribution(z).astype(float))  # raises if the file breaks
            holds["written"] += 1
            print(f"{name:<44} {e:>4} {plain:>9} {written['form']:>22} {spent:13.2f} {spent / seconds:6.2f}")
    print(f"files that hold the verified mechanism as loaded: float64 {holds['float64']} of {len(built)}, "
          f"written now {holds['written']} of {len(built)}")


def main() -> None:
    quick = "--quick" in sys.argv
    n = 2000
    print(f"{'Algorithm 1, float mode, n = 2000':<44} {'e^ε':>4} {'seconds':>8} {'/alg2':>6}  verified errors")
    baseline = {}
    for e in (1.1, 2.0, 5.0):
        weights = count_error_weights([1] * n, exact=False)
        _, baseline[e] = timed(lambda: unfixed_optimum(eps_exp=e, weights=weights, exact=False))
    valid = 0
    built = []
    for name, z in families(n).items():
        for e in (1.1, 2.0, 5.0):
            try:
                result, seconds = timed(lambda: heuristic_constructor(z, eps_exp=e, exact=False))
            except QifError as error:
                print(f"{name:<44} {e:>4} {'—':>8} {'—':>6}  refused: {str(error)[:70]}")
                continue
            check = result.verification
            valid += 1
            built.append((name, e, z, result, seconds))
            print(
                f"{name:<44} {e:>4} {seconds:8.2f} {seconds / baseline[e]:6.2f}  row sums {check.row_sum_error:.1e}, "
                f"z·T {check.fixed_point_error:.1e}, ratio/e^ε − 1 {check.dp_ratio / e - 1:.1e} ({result.arithmetic})"
            )
    print(f"valid to 1e-9: {valid} of 18; Algorithm 2 (float) at n = 2000: "
          + ", ".join(f"{baseline[e]:.2f} s (e^ε = {e})" for e in baseline))

    written_files(built)

    print(f"\n{'harder fixed points, n = 2000':<44} {'e^ε':>4} {'seconds':>8}")
    for name, z in hard_families(n).items():
        for e in (1.1, 2.0, 5.0, 20.0):
            try:
                result, seconds = timed(lambda: heuristic_constructor(z, eps_exp=e, exact=False))
                print(f"{name:<44} {e:>4} {seconds:8.2f}  z·T {result.verification.fixed_point_error:.1e} "
                      f"({result.arithmetic})")
            except QifError as error:
                print(f"{name:<44} {e:>4} {'—':>8}  refused: {str(error)[:80]}")

    rng = np.random.default_rng(1600)
    times, redone, refused = [], 0, 0
    for _ in range(200):
        size = int(rng.integers(2, 301))
        e = float(np.exp(rng.uniform(math.log(1.01), math.log(20))))
        z = random_fixed_point(rng, size)
        try:
            result, seconds = timed(lambda: heuristic_constructor(z, eps_exp=e, exact=False))
        except QifError:
            refused += 1
            continue
        times.append(seconds)
        redone += result.arithmetic != "long double"
    print(f"\n200 random z, n ≤ 300, e^ε ∈ [1.01, 20]: {refused} refused, {redone} redone in high precision, "
          f"median {np.median(times):.3f} s, worst {max(times):.2f} s, total {sum(times):.1f} s")

    print(f"\n{'exact (python-flint)':<44} {'n':>4} {'seconds':>8} {'+ read':>8}")
    cases = [("uniform z, e^ε = 2", size, "2") for size in ((100, 300) if quick else (100, 300, 500))]
    cases.append(("binomial z, e^ε = 3/2", 200, "3/2"))
    for label, size, e in cases:
        z = (
            [Fraction(1, size)] * size
            if label.startswith("uniform")
            else [Fraction(math.comb(size - 1, k), 2 ** (size - 1)) for k in range(size)]
        )
        result, seconds = timed(lambda: heuristic_constructor(z, eps_exp=e))
        _, reading = timed(lambda: [list(row) for row in result.matrix])  # all n² entries as reduced Fractions
        print(f"{'Algorithm 1 exact, verified exactly, ' + label:<44} {size:>4} {seconds:8.2f} {reading:8.2f}"
              f"  steps {result.steps}")
    size = 40
    z = [Fraction(1, size)] * size
    objective = [w for row in count_error_weights(z) for w in row]
    optimum, seconds = timed(lambda: certified_minimum(count_program(size, "2", z, fixed=True), objective))
    print(
        f"{'LP over F[z], exact optimum (certified)':<44} {size:>4} {seconds:8.2f}  count error "
        f"{float(optimum.value):.6f}"
    )


if __name__ == "__main__":
    main()
