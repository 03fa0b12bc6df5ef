"""``qifkit construct``: a count mechanism of Kohli and Laskowski with a fixed point z.

``qifkit construct (--z "z0,z1,..." | --z uniform|binomial --n N | --z-file Z.csv|Z.npy) --eps-exp E
[--method alg1|alg2|lp-fixed|lp-unfixed] [--selector max|min|sandwich] [--float] [--error
absolute|squared] [--out T.npy|T.csv] [--json FILE]`` builds it (Algorithm 1 or 2, or the exact LP
optimum of count error over F[z] or U, certified) and reports its count error ⟨W, T⟩, the largest
row-sum error, the largest relative fixed-point error and the worst neighbour ratio.
"""

from __future__ import annotations

import argparse
import time

from polytopes.fixed_point.algorithm1 import heuristic_constructor
from polytopes.fixed_point.algorithm2 import count_error, count_error_weights, unfixed_optimum
from polytopes.fixed_point.arithmetic import epsilon, log_distribution
from polytopes.fixed_point.construction import Construction
from polytopes.fixed_point.verification import verify_mechanism
from polytopes.lp import certified_minimum
from polytopes.spaces import count_program
from proofs_checks.cli.artefacts import MechanismCheck, write_mechanism
from proofs_checks.cli.base import UsageError, detail_printer
from proofs_checks.cli.io import check_mechanism_outputs, fixed_point, number_text, write_json
from qifkit.numbers import exact_str, parse_eps_exp

__all__ = ["run"]


#: The largest n each way of construct takes, checked before any work: what answers within about a
#: minute and a few GB (the measurements behind each: docs/benchmarks.md, "Limits"). The exact LP
#: reaches further with a uniform z (F at n = 100 certifies in 9-19 s) than with others (F with a
#: binomial z: 8-10 s at n = 50, about 4 minutes at n = 60).
CONSTRUCT_MAX_N = {"lp uniform z": 100, "lp": 60, "exact": 500, "float": 5000}


def _check_construct_size(arguments: argparse.Namespace, n: int, uniform: bool) -> None:
    way = "lp" if arguments.method.startswith("lp") else "float" if arguments.float else "exact"
    key = "lp uniform z" if way == "lp" and uniform else way
    limit = CONSTRUCT_MAX_N[key]
    if n > limit:
        around = {"lp": "use --method alg1 (exact) or alg2 for larger n",
                  "exact": "use --float (verified to 1e-9) for larger n",
                  "float": "call polytopes.fixed_point.heuristic_constructor from Python for larger n"}[way]
        if way == "lp" and not uniform:
            around += f" (with a uniform z the LP goes to n = {CONSTRUCT_MAX_N['lp uniform z']})"
        raise UsageError(f"n = {n:,} asks for a mechanism of {n * n:,} entries by {arguments.method}"
                               f"{' in float mode' if way == 'float' else ''}; this command stops at n = {limit:,} "
                               f"(checked before any work): {around}")


def run(arguments: argparse.Namespace) -> int:
    """``qifkit construct``."""
    if arguments.selector and arguments.method != "alg1":
        raise UsageError(f"--selector applies to --method alg1, not {arguments.method}")
    if arguments.float and arguments.method.startswith("lp"):
        raise UsageError(f"--float applies to alg1 and alg2; {arguments.method} is an exact LP")
    check_mechanism_outputs(arguments, {"--z-file": arguments.z_file})
    if arguments.n is not None:
        _check_construct_size(arguments, arguments.n, arguments.z == "uniform")
    z, note = fixed_point(arguments.z, arguments.z_file, arguments.n, renormalise=arguments.float)
    _check_construct_size(arguments, len(z), len(set(z)) == 1)
    if note:
        print(note)
    eps_exp = parse_eps_exp(arguments.eps_exp)
    weights = count_error_weights(z, arguments.error, exact=not arguments.float)
    n = len(z)
    started = time.perf_counter()
    if arguments.method == "alg1":
        result = heuristic_constructor(
            z, eps_exp=eps_exp, selector=arguments.selector or "sandwich", exact=not arguments.float
        )
    elif arguments.method == "alg2":
        result = unfixed_optimum(eps_exp=eps_exp, weights=weights, exact=not arguments.float)
    else:
        fixed = arguments.method == "lp-fixed"
        optimum = certified_minimum(count_program(n, eps_exp, z, fixed=fixed), [w for row in weights for w in row])
        matrix = [list(optimum.point[i * n : (i + 1) * n]) for i in range(n)]
        result = Construction(matrix, None, 0, (), verify_mechanism(matrix, eps_exp=eps_exp, z=z if fixed else None))
    check = result.verification
    detail_printer(arguments)(
        f"{n} values, {result.steps} steps, {result.arithmetic}; built and verified in "
        f"{time.perf_counter() - started:.2f} s"
    )
    report = {
        "method": arguments.method,
        "n": n,
        "eps_exp": exact_str(eps_exp),
        "exact": result.exact,
        "selector": (arguments.selector or "sandwich") if arguments.method == "alg1" else None,
        "count_error": number_text(count_error(result, weights)),
        "count_error_kind": arguments.error,
        "max_row_sum_error": number_text(check.row_sum_error),
        "fixed_point_error": None if check.fixed_point_error is None else number_text(check.fixed_point_error),
        "worst_dp_ratio": number_text(check.dp_ratio),
        "steps": result.steps,
        "arithmetic": result.arithmetic,
        "z": [number_text(v) for v in z],
    }
    print(
        f"{arguments.method}: n = {n}, e^ε = {report['eps_exp']}, count error {report['count_error']}, "
        f"row-sum error {report['max_row_sum_error']}, "
        + (
            "no fixed point (U), "
            if check.fixed_point_error is None
            else f"fixed-point error {report['fixed_point_error']}, "
        )
        + f"worst ratio {report['worst_dp_ratio']} ({result.arithmetic})"
    )
    if arguments.out:
        fixed = arguments.method in ("alg1", "lp-fixed")
        check = MechanismCheck(float(epsilon(eps_exp)), log_distribution(z).astype(float) if fixed else None)
        report["written"] = write_mechanism(
            arguments.out, check, result.matrix if result.exact else None, None if result.exact else result.logs
        )
    if arguments.json:
        write_json(arguments.json, report, "report")
    return 0
