"""Benchmark: the exact LP engine (qifkit.lp) against HiGHS's float time on the same programs.

Each row times one workload of issue 13 end to end with the certificate checked, and beside it
HiGHS alone on the same program (floats, no certificate, measured in the same process); the
ratio is certified / float. cddlib's, PPL's and QSopt_ex's (``esolver``, where installed) exact
simplex run alone on the last program of
the workload (a forked child each, with a time limit), and libqif's rational route on the
refinement pairs. Rows whose certificate could not be found say so. The survey row has no
program: its witnesses come from lumping, not from an LP.

Run: ``.venv/bin/python benchmarks/bench_lp.py [--full]`` (``--full`` adds refine 1000x100, F at
n = 80, 90 and 100, U at n = 100 and F with a binomial z at n = 50 for e^ε = 2, 3/2, 11/10, up to
several minutes each). With ``--split`` each workload is followed by where its certified time went:
the engine's stages (HiGHS's runs, the exact basis solves, the exact simplex and its block swaps...)
timed around their functions, each with its calls and share of the workload's time (stages nest:
the block swaps are inside the exact dual simplex).
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from bench_refinement import libqif, random_channel  # shared with the refinement benchmark (run from benchmarks/)

from qifkit import Channel, lp, refines
from qifkit.lp import LinearProgram, solve
from qifkit.lp.highs import highs_model
from qifkit.qsopt import qsopt_optimum


def rank_deficient_pair(rng: random.Random, rows: int, columns: int, rank: int, holds: bool) -> tuple[Channel, Channel]:
    """A = R·M of the given rank; B = A·W (holds), or A·((1+t)W − tU) with the largest t that keeps
    B ≥ 0, so that B has a zero entry, stays in A's row space and only the LP can refute it."""
    a = random_channel(rng, rows, rank) @ random_channel(rng, rank, columns)
    w, u = random_channel(rng, columns, columns), random_channel(rng, columns, columns)
    aw, au = (a @ w).rows(), (a @ u).rows()
    if holds:
        return a, a @ w
    t = min(p / (q - p) for rp, rq in zip(aw, au, strict=True) for p, q in zip(rp, rq, strict=True) if q > p)
    return a, Channel.from_rows(
        [[(1 + t) * p - t * q for p, q in zip(rp, rq, strict=True)] for rp, rq in zip(aw, au, strict=True)]
    )


def count_mechanism_program(n: int, e: Fraction) -> LinearProgram:
    """min E|i − j|/(n+1) over ε-DP count mechanisms on 0..n (rows stochastic, neighbour ratios ≤ e^ε)."""
    size = n + 1
    rows, lower, upper = [], [], []
    for j in range(size):
        rows.append({j * size + i: 1 for i in range(size)})
        lower.append(1), upper.append(1)
    for j in range(n):
        for i in range(size):
            for a, b in ((j, j + 1), (j + 1, j)):
                rows.append({a * size + i: 1, b * size + i: -e})
                lower.append(None), upper.append(0)
    cost = [Fraction(abs(i - j), size) for j in range(size) for i in range(size)]
    return LinearProgram.build(size * size, rows, row_lower=lower, row_upper=upper, cost=cost)


def float_seconds(program: LinearProgram) -> float:
    highs = highs_model(program)
    start = time.perf_counter()
    highs.run()
    return time.perf_counter() - start


def exact_oracle_seconds(route: str, program: LinearProgram, limit: float) -> str:
    """cddlib's, PPL's or QSopt_ex's exact simplex alone on the same program, in a forked child with
    a time limit (none can be interrupted from Python): its seconds, or why there are none."""
    import multiprocessing

    def child(queue: Any) -> None:
        start = time.perf_counter()
        try:
            found = {"cdd": lp.solve_by_cdd, "ppl": lp.ppl_optimum, "qsopt": qsopt_optimum}[route](program)
        except Exception as error:  # noqa: BLE001 - reported, not raised
            queue.put(f"error: {type(error).__name__}")
            return
        queue.put(f"{time.perf_counter() - start:.2f} s" if found is not None else "no answer")

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    process.join(limit)
    if process.is_alive():
        process.kill()
        process.join()
        return f"> {limit:.0f} s"
    return queue.get() if not queue.empty() else "crashed"


def captured_program(run: Callable[[], Any]) -> tuple[Any, float, LinearProgram | None]:
    """Run a workload, timing it and keeping the last program it handed to the engine."""
    seen: list[LinearProgram] = []
    original = lp.solve

    def spy(program: LinearProgram, **options: Any) -> Any:
        seen.append(program)
        return original(program, **options)

    import polytopes.lp
    import qifkit.refinement

    qifkit.refinement.solve_lp, polytopes.lp.solve = spy, spy
    try:
        start = time.perf_counter()
        try:
            result = run()
        except Exception as error:  # noqa: BLE001 - a benchmark reports, it does not stop
            result = f"no answer: {type(error).__name__}: {str(error)[:70]}"
        return result, time.perf_counter() - start, seen[-1] if seen else None
    finally:
        qifkit.refinement.solve_lp, polytopes.lp.solve = original, original


#: (module, function, label) of the stages that ``--split`` times.
_STAGES = (
    ("qifkit.lp.highs", "highs_model", "HiGHS models built"),
    ("qifkit.lp.highs", "run_highs", "HiGHS runs"),
    ("qifkit.lp.basis", "basis_of", "exact basis solves (point, duals)"),
    ("qifkit.lp.refine", "_scaled_residual", "scaled residual programs built"),
    ("qifkit.lp.refine", "residual_program", "uniform residual programs built"),
    ("qifkit.lp.simplex", "exact_dual_simplex", "exact dual simplex"),
    ("qifkit.lp.simplex", "_swapped", "  its block swaps (each a factor and a solve)"),
    ("qifkit.lp.primal", "exact_primal_simplex", "exact primal simplex"),
    ("qifkit.lp.primal", "shifted_simplex", "shifted-cost simplex"),
)


def stage_timers() -> tuple[dict[str, list[float]], Callable[[], None]]:
    """Wrap each stage of :data:`_STAGES` wherever the engine's modules hold it by name (the defining
    module and every module that imported it); the table {label: [calls, seconds]} they fill, and a
    function that puts the originals back."""
    import importlib
    import sys

    spent: dict[str, list[float]] = {}
    undo: list[tuple[Any, str, Any]] = []
    for module_name, function, label in _STAGES:
        original = getattr(importlib.import_module(module_name), function)

        def timed(*args: Any, _original: Any = original, _label: str = label, **options: Any) -> Any:
            start = time.perf_counter()
            try:
                return _original(*args, **options)
            finally:
                entry = spent.setdefault(_label, [0, 0.0])
                entry[0] += 1
                entry[1] += time.perf_counter() - start

        for module in [m for name, m in sys.modules.items() if name.startswith("qifkit.lp") and m is not None]:
            if getattr(module, function, None) is original:
                undo.append((module, function, original))
                setattr(module, function, timed)

    def restore() -> None:
        for module, function, original in undo:
            setattr(module, function, original)

    return spent, restore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true")
    parser.add_argument(
        "--limit", type=float, default=60.0, help="time limit of each cddlib, PPL and libqif run, in seconds"
    )
    parser.add_argument("--only", default="", help="run only the workloads whose name contains this text")
    parser.add_argument("--split", action="store_true", help="after each workload, where its certified time went")
    arguments = parser.parse_args()
    rng = random.Random(13)
    from polytopes.constrained import PROPERTIES, optimal_mechanism
    from polytopes.fixed_point.algorithm2 import count_error_weights
    from polytopes.lp import certified_minimum
    from polytopes.spaces import count_program

    peers: dict[str, str] = {}

    def refine_row(rows: int, columns: int, rank: int, holds: bool) -> tuple[str, Callable[[], Any]]:
        a, b = rank_deficient_pair(rng, rows, columns, rank, holds)
        name = f"refine {rows}x{columns}, rank {rank}, {'holds' if holds else 'fails'}"
        if arguments.only in name:
            peers[name] = libqif(a, b, "rational", arguments.limit)

        def run() -> str:
            result = refines(a, b)  # refines re-checks its certificate (verify_certificate) before it returns
            return f"{'holds' if result.holds else 'fails'}: {result.method[:48]}"

        return name, run

    def survey() -> str:
        from proofs_checks.gate import evaluate_spec, read_spec

        report, _ = evaluate_spec(
            read_spec(str(Path(__file__).resolve().parent.parent / "examples" / "survey_rr.toml"))
        )
        return f"stable = {report.stable} on {len(report.points)} values of e^ε"

    def lp_fixed(n: int, shape: str = "uniform", eps_exp: str = "2", fixed: bool = True
                 ) -> tuple[str, Callable[[], Any]]:
        z = ([Fraction(1, n)] * n if shape == "uniform"
             else [Fraction(math.comb(n - 1, k), 2 ** (n - 1)) for k in range(n)])
        objective = [w for row in count_error_weights(z) for w in row]

        def run() -> str:
            return f"value {float(certified_minimum(count_program(n, eps_exp, z, fixed=fixed), objective).value):.12f}"

        return f"lp-{'fixed' if fixed else 'unfixed (U)'}, {shape} z, n = {n}" + (
            "" if eps_exp == "2" else f", e^eps = {eps_exp}"), run

    workloads = [
        ("survey stability spec (examples/survey_rr.toml)", survey),
        refine_row(200, 50, 25, True),
        refine_row(200, 50, 25, False),
        lp_fixed(20),
        lp_fixed(40),
        lp_fixed(40, "binomial"),
        lp_fixed(40, "binomial", "3/2"),
        (
            "Cormode, all seven properties, n = 100",
            lambda: f"L0 = {float(optimal_mechanism(100, alpha='9/10', properties=PROPERTIES)[0]):.9f}",
        ),
        (
            "count-mechanism LP n = 40 (E|i-j|)",
            lambda: f"value {solve(count_mechanism_program(40, Fraction(2))).value}",
        ),
    ]
    if arguments.full:
        workloads += [refine_row(1000, 100, 50, True), refine_row(1000, 100, 50, False), lp_fixed(80), lp_fixed(90),
                      lp_fixed(100), lp_fixed(100, fixed=False), lp_fixed(50, "binomial"),
                      lp_fixed(50, "binomial", "3/2"), lp_fixed(50, "binomial", "11/10")]
    workloads = [(name, run) for name, run in workloads if arguments.only in name]
    print(f"{'workload':<48} {'certified':>10} {'HiGHS float':>12} {'ratio':>7} {'cddlib':>9} {'PPL':>9} "
          f"{'QSopt_ex':>9} {'libqif rat.':>11}  answer")
    for name, run in workloads:
        if name.startswith("count-mechanism"):
            program = count_mechanism_program(40, Fraction(2))
            start = time.perf_counter()
            answer = run()
            seconds, last = time.perf_counter() - start, program
        else:
            spent, restore = stage_timers() if arguments.split else ({}, lambda: None)
            try:
                answer, seconds, last = captured_program(run)
            finally:
                restore()
        floats = float_seconds(last) if last is not None else float("nan")
        ratio = seconds / floats if last is not None and floats > 0 else float("nan")
        cdd = exact_oracle_seconds("cdd", last, arguments.limit) if last is not None else "–"
        ppl = exact_oracle_seconds("ppl", last, arguments.limit) if last is not None else "–"
        qsopt = (exact_oracle_seconds("qsopt", last, arguments.limit) if last is not None and shutil.which("esolver")
                 else "absent" if last is not None else "–")
        print(
            f"{name:<48} {seconds:>8.2f} s {floats:>10.2f} s {ratio:>7.1f} {cdd:>9} {ppl:>9} {qsopt:>9} "
            f"{peers.get(name, '–'):>11}  "
            f"{str(answer)[:70]}",
            flush=True,
        )
        for label, (calls, stage_seconds) in ((label, spent[label]) for *_, label in _STAGES if label in spent):
            print(f"    {label:<46} {int(calls):>5} calls {stage_seconds:>8.2f} s {stage_seconds / seconds:>6.0%}")


if __name__ == "__main__":
    main()
