"""Benchmark: the deploy gate answers the deployer's question (issue 50).

Part 1, issue 50's goal rows, each beside a baseline run in the same process (the float64 loss of
the spec's analyst at 200 e^ε of the range, what a user would plot; for a pipeline too large to
build, the float64 signs of the generator's off-diagonal entries at 200 e^ε):

* randomized response, 6 values, 10,000 respondents, histogram, every e^ε in [3/2, 8], every analyst;
* geometric, 6 values, 2,000 respondents, 1,500 known, 1 target, the other 499 from a uniform
  population prior; the count of {0, 1}; [2, 5]; the spec's analyst (Bayes);
* the geometric census (5 values, 10,000 respondents, all but one known, count of {0, 1}, Bayes,
  [1.1, 20]), the spec's analyst.

Part 2, a suite of realistic specs (every family × query kind, 4 to 100,000 respondents, 1 or 2
targets): the verdict of each, its time, and the theory's answer where one is known (Thm. 24 and
the generator for randomized response; App. D.1; §7.1's geometric sums), so that a verdict against
the theory would show. Each spec runs under a 180 s limit, a safety net of the benchmark only (the
gate's routes are chosen by work, never by the clock).

Run: ``.venv/bin/python benchmarks/bench_gate_question.py [--part 1|2]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy

from proofs_checks.gate import evaluate_spec, parse_spec, sampled_losses
from qifkit.generator import generator_matrix
from qifkit.stability import sample_grid

UNIFORM6 = ["1/6"] * 6


def _spec(family, values, respondents, query, low, high, *, known_counts=None, known=None, of=None, at=None,
          table=None, question=None, prior=None, loss="bayes", scale=None, population=None, targets=None):
    population_table = {"respondents": respondents}
    if known_counts:
        population_table["known_counts"] = {str(k): v for k, v in known_counts.items()}
    if known:
        population_table["known"] = list(known)
    if population:
        population_table.update(population_prior=population, targets=targets or 1)
    query_table = {"kind": query}
    query_table.update({key: value for key, value in (("of", of), ("at", at), ("table", table)) if value is not None})
    analyst = {"loss": loss} | ({"prior": prior} if prior else {}) | ({"scale": scale} if scale else {})
    document = {"perturber": {"family": family, "values": values}, "population": population_table,
                "query": query_table, "analyst": analyst, "sweep": {"from": low, "to": high}}
    if question:
        document["gate"] = {"question": question}
    return parse_spec(document, _TABLES)


#: The folder of the map queries' tables (``_bands``).
_TABLES = Path(tempfile.mkdtemp(prefix="qifkit-bench-"))


def _bands(respondents: int, *cuts: int) -> str:
    """A map query's table: each count 0..respondents onto its band (the number of cuts at or
    below it), written into :data:`_TABLES`; its file name."""
    name = f"bands-{respondents}-{'-'.join(map(str, cuts))}.csv"
    (_TABLES / name).write_text("".join(f"{c},{sum(c >= cut for cut in cuts)}\n" for c in range(respondents + 1)))
    return name


def _even(total: int, values: int) -> dict[int, int]:
    share, rest = divmod(total, values)
    return {v: share + (v < rest) for v in range(values)}


def _generator_signs_in_floats(spec) -> float:
    """The baseline of a pipeline too large to build: L's off-diagonal signs at 200 e^ε, float64."""
    t = sympy.Symbol("t", positive=True)
    entries = sympy.lambdify(t, generator_matrix(spec.perturber(spec.values, t), t), "numpy")
    started = time.perf_counter()
    for eps_exp in sample_grid(*spec.eps_range, samples=200):
        matrix = np.asarray(entries(float(eps_exp)), dtype=float)
        assert (matrix - np.diag(np.diag(matrix)) <= 1e-12).all()
    return time.perf_counter() - started


def _baseline(spec) -> float:
    if spec.oversize is not None:
        return _generator_signs_in_floats(spec)
    started = time.perf_counter()
    sampled_losses(spec, sample_grid(*spec.eps_range, samples=200))
    return time.perf_counter() - started


def _verdict(report) -> str:
    return {True: "stable", False: "NOT stable", None: "not decided"}[report.stable]


def _run(spec, limit: float = 180.0):
    started = time.perf_counter()
    report, _ = evaluate_spec(spec, time_limit=limit)
    return report, time.perf_counter() - started


def part_one() -> None:
    rows = [
        ("RR 6 values, 10,000 respondents, histogram, [3/2, 8]",
         _spec("randomized_response", 6, 10_000, "histogram", "3/2", "8", question="every_analyst")),
        ("geometric 6 values, 2,000 (1,500 known, 1 target, 499 from a prior), count {0,1}, [2, 5]",
         _spec("geometric", 6, 2000, "count", "2", "5", known_counts=_even(1500, 6), of=[0, 1], prior="uniform",
               population=UNIFORM6)),
        ("geometric census, 5 values, 10,000, count {0,1}, [1.1, 20]",
         _spec("geometric", 5, 10_000, "count", "11/10", "20", known_counts=_even(9999, 5), of=[0, 1],
               prior="uniform")),
    ]
    print(f"{'workload':<92} {'question':<14} {'verdict':<12} {'gate s':>8} {'float s':>8} {'ratio':>7}")
    for name, spec in rows:
        report, seconds = _run(spec)
        baseline = _baseline(spec)
        print(f"{name:<92} {spec.question:<14} {_verdict(report):<12} {seconds:>8.2f} {baseline:>8.2f} "
              f"{seconds / baseline:>7.1f}")


#: (name, spec, the theory's answer: True stable, False NOT stable, None not known here)
def _suite():
    return [
        ("RR 4v, 30 (20 known), count {0}", _spec("randomized_response", 4, 30, "count", "3/2", "8",
                                                  known=[0, 1, 2, 3] * 5, of=[0], prior="uniform_histograms"), True),
        ("RR 6v, 10,000, histogram, every", _spec("randomized_response", 6, 10_000, "histogram", "3/2", "8",
                                                  question="every_analyst"), True),
        ("RR 6v, 100,000, histogram, every", _spec("randomized_response", 6, 100_000, "histogram", "11/10", "20",
                                                   question="every_analyst"), True),
        ("RR 5v, 1,000 (500 known, 2 targets), count {0,1}", _spec(
            "randomized_response", 5, 1000, "count", "2", "6", known_counts=_even(500, 5), of=[0, 1],
            prior="uniform_histograms", population=["1/5"] * 5, targets=2), True),
        ("RR 3v, 12 (10 known), threshold {0} at 6", _spec("randomized_response", 3, 12, "threshold", "3/2", "8",
                                                           known=[0, 1, 2, 0, 1, 2, 0, 1, 2, 0], of=[0], at=6,
                                                           prior="uniform_histograms"), None),
        ("RR 3v, 20 (19 known), sum", _spec("randomized_response", 3, 20, "sum", "3/2", "8",
                                            known=[0, 1, 2] * 6 + [0], prior="uniform"), None),
        ("RR argmax, 3 bars, 3 respondents", _spec("randomized_response", 3, 3, "argmax", "3/2", "8",
                                                   prior="uniform_histograms"), None),
        ("geometric 7v, 4 (3 known), count {0}, App. D.1", _spec("geometric", 7, 4, "count", "3", "4",
                                                                 known=[0, 1, 1], of=[0], prior="uniform",
                                                                 loss="linear", scale="1000"), False),
        ("geometric 5v, 10,000 (all but 1 known), count {0,1}", _spec(
            "geometric", 5, 10_000, "count", "11/10", "20", known_counts=_even(9999, 5), of=[0, 1],
            prior="uniform"), None),
        ("geometric 6v, 2,000 (1,500 known, 1 target), count {0,1}", _spec(
            "geometric", 6, 2000, "count", "2", "5", known_counts=_even(1500, 6), of=[0, 1], prior="uniform",
            population=UNIFORM6), None),
        ("geometric 4v, 10,000, histogram, every", _spec("geometric", 4, 10_000, "histogram", "11/10", "20",
                                                         question="every_analyst"), True),
        ("geometric 4v, 2, sum, every (§7.1)", _spec("geometric", 4, 2, "sum", "3/2", "8", question="every_analyst",
                                                     prior="uniform_histograms"), False),
        ("geometric 10v, 100 (99 known), threshold {0,1,2} at 30", _spec(
            "geometric", 10, 100, "threshold", "11/10", "20", known_counts=_even(99, 10), of=[0, 1, 2], at=30,
            prior="uniform", loss="squared"), None),
        ("explicit fair 5v, 50 (48 known), count {0}", _spec("explicit_fair", 5, 50, "count", "3/2", "8",
                                                             known_counts=_even(48, 5), of=[0],
                                                             prior="uniform_histograms"), None),
        ("explicit fair 4v, 1,000, histogram, every", _spec("explicit_fair", 4, 1000, "histogram", "3/2", "8",
                                                            question="every_analyst"), True),
        ("explicit fair 6v, 20 (18 known), sum", _spec("explicit_fair", 6, 20, "sum", "2", "6",
                                                       known_counts=_even(18, 6), prior="uniform_histograms"), None),
        ("RR 4v, 100 (60 known, 1 target), count {0} from a prior", _spec(
            "randomized_response", 4, 100, "count", "3/2", "8", known_counts=_even(60, 4), of=[0], prior="uniform",
            population=["1/4"] * 4), True),
        ("RR 5v, 200 (198 known), map of count {0} into 3 bands", _spec(
            "randomized_response", 5, 200, "map", "3/2", "8", known_counts=_even(198, 5), of=[0],
            table=_bands(200, 40, 80), prior="uniform_histograms"), None),
        ("geometric 5v, 100 (98 known), map of count {0,1} into 3 bands", _spec(
            "geometric", 5, 100, "map", "11/10", "20", known_counts=_even(98, 5), of=[0, 1],
            table=_bands(100, 30, 50), prior="uniform_histograms"), None),
        ("explicit fair 5v, 60 (58 known), map of count {0} into 2 bands", _spec(
            "explicit_fair", 5, 60, "map", "3/2", "8", known_counts=_even(58, 5), of=[0], table=_bands(60, 12),
            prior="uniform_histograms"), None),
        ("explicit fair 5v, 100 (98 known), threshold {0} at 20", _spec(
            "explicit_fair", 5, 100, "threshold", "3/2", "8", known_counts=_even(98, 5), of=[0], at=20,
            prior="uniform_histograms"), None),
        ("geometric argmax, 3 bars, 3 respondents", _spec("geometric", 3, 3, "argmax", "3/2", "8",
                                                          prior="uniform_histograms"), None),
        ("explicit fair argmax, 3 bars, 3 respondents", _spec("explicit_fair", 3, 3, "argmax", "3/2", "8",
                                                              prior="uniform_histograms"), None),
    ]


def part_two() -> None:
    suite = _suite()
    print(f"{'spec':<58} {'question':<14} {'verdict':<12} {'theory':<10} {'seconds':>8}")
    decided = against = 0
    total_seconds = 0.0
    for name, spec, theory in suite:
        report, seconds = _run(spec)
        total_seconds += seconds
        decided += report.stable is not None
        wrong = theory is not None and report.stable is not None and report.stable != theory
        against += wrong
        expected = {True: "stable", False: "NOT stable", None: "-"}[theory]
        print(f"{name:<58} {spec.question:<14} {_verdict(report):<12} {expected:<10} {seconds:>8.2f}"
              + ("  AGAINST THE THEORY" if wrong else ""))
    print(f"decided {decided} of {len(suite)} ({100 * decided / len(suite):.0f} %); against the theory: {against}; "
          f"{total_seconds:.0f} s in all")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("1", "2"), help="one part only")
    arguments = parser.parse_args()
    if arguments.part in (None, "1"):
        part_one()
    if arguments.part in (None, "2"):
        part_two()


if __name__ == "__main__":
    main()
