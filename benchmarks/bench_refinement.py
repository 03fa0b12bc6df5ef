"""Benchmark: certified exact refinement verdicts against libqif (float and rational).

Random families as in the issue: rows of integers 1..10 normalised. For A of size m×n, the
holding case is B = A·W with a random stochastic W (n×n); the failing case is a random B (m×n).
A last family has every output of A duplicated (rank n/2; the abstract channel removes it).
qifkit's time includes building and exactly re-verifying the certificate. libqif (`pip install
qif`) runs in a child process with a time limit, when installed: its float route is uncertified,
its rational route exact but without a certificate. libqif's rational route at 1000×100 did not
finish in 15 minutes when measured, so it is tried there only with ``--full``.

Run: ``.venv/bin/python benchmarks/bench_refinement.py [--full] [--limit SECONDS]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

from qifkit import Channel, refines, verify_certificate

SIZES = ((50, 20), (200, 50), (1000, 100))

_CHILD = """
import json, sys, time
from fractions import Fraction
import numpy as np
import qif
data = json.load(open(sys.argv[1]))
kind = sys.argv[2]
def matrix(rows):
    if kind == "float":
        return np.array([[float(Fraction(v)) for v in row] for row in rows])
    return np.array([[Fraction(v) for v in row] for row in rows], dtype=object)
a, b = matrix(data["a"]), matrix(data["b"])
start = time.perf_counter()
verdict = qif.refinement.refined_by(a, b)
print(json.dumps({"seconds": time.perf_counter() - start, "verdict": bool(verdict)}))
"""


def random_channel(rng: random.Random, rows: int, columns: int) -> Channel:
    table = []
    for _ in range(rows):
        weights = [rng.randint(1, 10) for _ in range(columns)]
        table.append([Fraction(w, sum(weights)) for w in weights])
    return Channel.from_rows(table)


def libqif(a: Channel, b: Channel, kind: str, limit: float) -> str:
    """libqif's time in a child process, or why there is none."""
    if importlib.util.find_spec("qif") is None:
        return "not installed"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(
            {"a": [[str(v) for v in row] for row in a.rows()], "b": [[str(v) for v in row] for row in b.rows()]}, handle
        )
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, handle.name, kind], capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return f"> {limit:.0f} s"
    if done.returncode != 0:
        return "error"
    result = json.loads(done.stdout)
    return f"{result['seconds']:.2f} s ({'holds' if result['verdict'] else 'fails'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also run libqif's rational route at 1000x100")
    parser.add_argument("--limit", type=float, default=120.0, help="time limit of each libqif run, in seconds")
    arguments = parser.parse_args()
    rng = random.Random(2023)
    print(
        f"{'size':>9} {'family, case':<17} {'qifkit certified':>17} {'method':<52} {'libqif float':>18} "
        f"{'libqif rational':>18}"
    )
    duplicated = lambda rows, columns: random_channel(rng, rows, columns // 2) @ Channel.from_rows(  # noqa: E731
        [[Fraction(1, 2) if c // 2 == r else 0 for c in range(columns)] for r in range(columns // 2)])
    families = [(rows, columns, "random", random_channel) for rows, columns in SIZES] + [
        (200, 50, "duplicated", duplicated)
    ]
    for rows, columns, family, build in families:
        a = build(rng, rows, columns) if family == "random" else build(rows, columns)
        cases = {"holds": a @ random_channel(rng, columns, columns), "fails": random_channel(rng, rows, columns)}
        for case, b in cases.items():
            start = time.perf_counter()
            result = refines(a, b)
            seconds = time.perf_counter() - start
            assert verify_certificate(a, b, result) and result.holds == (case == "holds")
            rational = (
                "skipped (--full)" if rows >= 1000 and not arguments.full else libqif(a, b, "rational", arguments.limit)
            )
            print(f"{rows:>4}x{columns:<4} {family + ' ' + case:<17} {seconds:>15.2f} s {result.method:<52} "
                  f"{libqif(a, b, 'float', arguments.limit):>18} {rational:>18}", flush=True)


if __name__ == "__main__":
    main()
