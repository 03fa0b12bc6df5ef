"""Benchmark: the deploy gate (``qifkit stability``) on issue 32's workloads, each beside a baseline
run in the same process: the float64 loss curve at 200 e^ε of the same spec (what a user would
plot), so the ratio says what an exact verdict costs over a float picture.

Rows: geometric on 10 values, 100 respondents (99 known), a threshold query (count of {0, 1, 2} at
least 30), squared loss, every e^ε in [1.1, 20], with ``--time-limit 20`` and without (its
symbolic work sends it to the float search first, whose rise is decided exactly; ``--full`` adds
the symbolic route it used to take, over 20 minutes); geometric on 5 values, 10,000 respondents (all but one known),
the count of {0, 1}, Bayes loss, [1.1, 20]; and ``examples/census_gd_range.toml``.

Run: ``.venv/bin/python benchmarks/bench_stability.py [--full]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from proofs_checks.gate import evaluate_spec, limits, read_spec, sampled_losses
from qifkit.numbers import exact_eps_exp

ROOT = Path(__file__).resolve().parent.parent
FOLLOW_WORK = limits.RANGE_FOLLOW_WORK

THRESHOLD = """[perturber]
family = "geometric"
values = 10
[population]
respondents = 100
known_counts = {"0" = 10, "1" = 10, "2" = 10, "3" = 10, "4" = 10, "5" = 10, "6" = 10, "7" = 10, "8" = 10, "9" = 9}
[query]
kind = "threshold"
of = [0, 1, 2]
at = 30
[analyst]
prior = "uniform"
loss = "squared"
[sweep]
from = "1.1"
to = "20"
"""

CENSUS = """[perturber]
family = "geometric"
values = 5
[population]
respondents = 10000
known_counts = {"0" = 2000, "1" = 2000, "2" = 2000, "3" = 2000, "4" = 1999}
[query]
kind = "count"
of = [0, 1]
[analyst]
prior = "uniform"
loss = "bayes"
[sweep]
from = "1.1"
to = "20"
"""


def _row(name: str, path: str, time_limit: float | None) -> None:
    spec = read_spec(path)
    assert spec.eps_range is not None  # every workload is a range
    low, high = (exact_eps_exp(v) for v in spec.eps_range)
    started = time.perf_counter()
    sampled_losses(spec, [low + (high - low) * k / 199 for k in range(200)])
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    report, _ = evaluate_spec(spec, time_limit=time_limit)
    seconds = time.perf_counter() - started
    verdict = {True: "stable", False: "NOT stable", None: "undecided"}[report.stable]
    print(f"| {name} | {seconds:.1f} s | {verdict}: {report.undecided or report.covered} | "
          f"{baseline:.2f} s | {seconds / baseline:.1f}× |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="also the threshold workload followed symbolically")
    arguments = parser.parse_args()
    print("| workload | gate | verdict | float64 curve, 200 e^ε | ratio |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        threshold, census = Path(folder) / "threshold.toml", Path(folder) / "census.toml"
        threshold.write_text(THRESHOLD)
        census.write_text(CENSUS)
        _row("geometric 10 values, 100 respondents, threshold, squared, [1.1, 20], --time-limit 20",
             str(threshold), 20.0)
        _row("the same, no time limit", str(threshold), None)
        if arguments.full:
            limits.RANGE_FOLLOW_WORK = 10**12  # the symbolic route straight away, as before issue 32
            _row("the same, followed symbolically", str(threshold), None)
            limits.RANGE_FOLLOW_WORK = FOLLOW_WORK
        _row("geometric 5 values, 10,000 respondents, count of {0, 1}, Bayes, [1.1, 20]", str(census), None)
        _row("examples/census_gd_range.toml", str(ROOT / "examples" / "census_gd_range.toml"), None)


if __name__ == "__main__":
    main()
