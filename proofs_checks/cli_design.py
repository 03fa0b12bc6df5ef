"""The ``qifkit construct`` and ``qifkit design`` commands (mechanism design).

- ``qifkit construct (--z "z0,z1,..." | --z uniform|binomial --n N | --z-file Z.csv|Z.npy) --eps-exp E --method alg1|alg2|lp-fixed|lp-unfixed
  [--selector max|min|sandwich] [--float] [--error absolute|squared] [--out T.npy|T.csv]
  [--json FILE]`` builds a count mechanism of Kohli and Laskowski (Algorithm 1 or 2, or the exact
  LP optimum of count error over F[z] or U, certified) and reports its count error ⟨W, T⟩, the
  largest row-sum error, the largest relative fixed-point error and the worst neighbour ratio.
- ``qifkit design --n N (--alpha A | --eps-exp E) [--props WH,CM,...] [--objective L0|L1|L2]
  [--aggregate sum|max] [--min-distance D] [--mechanism gm|em|um|wm] [--out M.npy|M.csv] [--json FILE]`` gives Cormode et al.'s optimal
  constrained mechanism (exact, certified LP) or a named one; the JSON holds ``"matrix"`` (rows are
  inputs), ``"objective"`` and ``"p_true"`` (Pr[true output] under the uniform prior), as exact strings.
"""

from __future__ import annotations

import argparse
import io
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.constrained import PROPERTIES, optimal_mechanism, weakly_honest_mechanism
from polytopes.fixed_point import (
    Construction,
    count_error,
    count_error_weights,
    heuristic_constructor,
    unfixed_optimum,
    verify_mechanism,
)
from polytopes.lp import certified_minimum
from polytopes.spaces import count_polytope
from proofs_checks.cli import UsageError
from proofs_checks.cli_io import check_writable, comma_list, fixed_point, write_json
from qifkit.count_objectives import l0_score, objective_value
from qifkit.files import atomic_write_bytes, atomic_write_text
from qifkit.mechanisms import explicit_fair_mechanism, geometric_mechanism, uniform_mechanism
from qifkit.numbers import exact, exact_str, parse_eps_exp

__all__ = ["construct", "design"]

def _text(value: Any) -> str:
    return exact_str(value) if isinstance(value, Fraction) else repr(float(value))


#: The largest n each way of construct takes (checked before any work, measured on this 2-core machine):
#: the exact LP over F at n = 60 takes 9 s and did not finish in 300 s at n = 80; Algorithm 1 exact
#: at n = 500 about 10 s (reading every entry another 12 s), at n = 1000 over 9.5 GB after 5 minutes;
#: the float mode at n = 5000 17 s and 1.9 GB.
CONSTRUCT_MAX_N = {"lp": 60, "exact": 500, "float": 5000}


def _check_construct_size(arguments: argparse.Namespace, n: int) -> None:
    way = "lp" if arguments.method.startswith("lp") else "float" if arguments.float else "exact"
    limit = CONSTRUCT_MAX_N[way]
    if n > limit:
        around = {"lp": "use --method alg1 (exact) or alg2 for larger n",
                  "exact": "use --float (verified to 1e-9) for larger n",
                  "float": "call polytopes.fixed_point.heuristic_constructor from Python for larger n"}[way]
        raise UsageError(f"n = {n:,} asks for a mechanism of {n * n:,} entries by {arguments.method}"
                               f"{' in float mode' if way == 'float' else ''}; this command stops at n = {limit:,} "
                               f"(checked before any work): {around}")


def construct(arguments: argparse.Namespace) -> int:
    """``qifkit construct``."""
    if arguments.selector and arguments.method != "alg1":
        raise UsageError(f"--selector applies to --method alg1, not {arguments.method}")
    if arguments.float and arguments.method.startswith("lp"):
        raise UsageError(f"--float applies to alg1 and alg2; {arguments.method} is an exact LP")
    _check_outputs(arguments)
    if arguments.n is not None:
        _check_construct_size(arguments, arguments.n)
    z, note = fixed_point(arguments.z, arguments.z_file, arguments.n, renormalise=arguments.float)
    _check_construct_size(arguments, len(z))
    if note:
        print(note)
    eps_exp = parse_eps_exp(arguments.eps_exp)
    weights = count_error_weights(z, arguments.error, exact=not arguments.float)
    n = len(z)
    if arguments.method == "alg1":
        result = heuristic_constructor(z, eps_exp, arguments.selector or "sandwich", exact=not arguments.float)
    elif arguments.method == "alg2":
        result = unfixed_optimum(eps_exp, weights, exact=not arguments.float)
    else:
        fixed = arguments.method == "lp-fixed"
        optimum = certified_minimum(count_polytope(n, eps_exp, z, fixed=fixed), [w for row in weights for w in row])
        matrix = [list(optimum.point[i * n:(i + 1) * n]) for i in range(n)]
        result = Construction(matrix, None, 0, (), verify_mechanism(matrix, eps_exp, z if fixed else None))
    check = result.verification
    report = {
        "method": arguments.method, "n": n, "eps_exp": exact_str(eps_exp), "exact": result.exact,
        "selector": (arguments.selector or "sandwich") if arguments.method == "alg1" else None,
        "count_error": _text(count_error(result, weights)), "count_error_kind": arguments.error,
        "max_row_sum_error": _text(check.row_sum_error),
        "fixed_point_error": None if check.fixed_point_error is None else _text(check.fixed_point_error),
        "worst_dp_ratio": _text(check.dp_ratio), "steps": result.steps, "arithmetic": result.arithmetic,
    }
    print(f"{arguments.method}: n = {n}, e^ε = {report['eps_exp']}, count error {report['count_error']}, "
          f"row-sum error {report['max_row_sum_error']}, fixed-point error {report['fixed_point_error']}, "
          f"worst ratio {report['worst_dp_ratio']} ({result.arithmetic})")
    if arguments.out:
        _write_mechanism(arguments.out, result.matrix if result.exact else None, result.to_numpy)
    if arguments.json:
        write_json(arguments.json, report, "report")
    return 0


def _check_outputs(arguments: argparse.Namespace) -> None:
    """--out (.npy or .csv) and --json: formats known and places writable, before any work."""
    for path in (arguments.out, arguments.json):
        if path and not path.endswith((".npy", ".csv", ".json")):
            raise UsageError(f"cannot tell the format of {path}: use .npy, .csv (--out) or .json")
        if path:
            check_writable(path)


def _write_mechanism(path: str, exact_rows: Any, floats: Any) -> None:
    """A mechanism to `path`, atomically: ``.npy`` floats, or ``.csv`` with exact number strings
    (`exact_rows`) or floats when it has no exact form (`floats` gives the array when asked)."""
    if path.endswith(".npy"):
        buffer = io.BytesIO()
        np.save(buffer, floats())
        atomic_write_bytes(path, buffer.getvalue())
    else:
        rows = exact_rows if exact_rows is not None else floats().tolist()
        atomic_write_text(path, "".join(",".join(_text(v) for v in row) + "\n" for row in rows))
    print(f"mechanism written to {path}")


DESIGN_MAX_N = {"named": 999, "optimal": 40}  # (n + 1)² ≤ 10^6 printed entries; the plain L0 LP at n = 60, α = 1/3: undecided after 5 min


def design(arguments: argparse.Namespace) -> int:
    """``qifkit design``."""
    _check_outputs(arguments)
    properties = comma_list(arguments.props, "--props") if arguments.props else []
    unknown = [p for p in properties if p not in PROPERTIES]
    if unknown:
        raise UsageError(f"unknown property {unknown[0]!r}; the properties are {', '.join(PROPERTIES)}")
    if arguments.mechanism and properties:
        raise UsageError("--mechanism names a mechanism; --props asks for an optimum: give one of them")
    if arguments.n < 1:
        raise UsageError(f"--n must be >= 1, got {arguments.n}")
    limit = DESIGN_MAX_N["named" if arguments.mechanism else "optimal"]
    if arguments.n > limit:
        what = (f"{(arguments.n + 1) ** 2} exact entries" if arguments.mechanism
                else f"an exact LP with {(arguments.n + 1) ** 2} variables")
        raise UsageError(f"--n {arguments.n} asks for {what}; this command stops at n = {limit} (checked before "
                               "any work). Larger n: call polytopes.constrained from Python, where nothing is printed")
    if arguments.eps_exp is not None:
        alpha = 1 / parse_eps_exp(arguments.eps_exp)
        if not alpha < 1:
            raise UsageError(f"--eps-exp {arguments.eps_exp} is not > 1 (α = e^−ε must be in (0, 1))")
    else:
        alpha = exact(arguments.alpha)
        if not 0 < alpha < 1:
            raise UsageError(f"--alpha {arguments.alpha} is not in (0, 1): α = e^−ε")
    if arguments.min_distance < 0:
        raise UsageError(f"--min-distance {arguments.min_distance} is negative: it counts errors of at least d")
    p = {"L0": 0, "L1": 1, "L2": 2}[arguments.objective]
    plain_l0 = p == 0 and arguments.aggregate == "sum" and arguments.min_distance <= 1
    if arguments.mechanism:
        build = {"gm": geometric_mechanism, "em": explicit_fair_mechanism, "wm": weakly_honest_mechanism,
                 "um": lambda n, a: uniform_mechanism(n)}[arguments.mechanism]
        mechanism = build(arguments.n, alpha)
        value = l0_score(mechanism) if plain_l0 else objective_value(mechanism, p, aggregate=arguments.aggregate,
                                                                      min_distance=arguments.min_distance)
    else:
        value, mechanism = optimal_mechanism(arguments.n, alpha, properties, p=p, aggregate=arguments.aggregate,
                                             min_distance=arguments.min_distance, method="certified")
    rows = mechanism.rows()
    p_true = sum(rows[j][j] for j in range(len(rows))) / len(rows)
    document = {"matrix": [[exact_str(v) for v in row] for row in rows], "objective": exact_str(value),
                "p_true": exact_str(p_true), "n": arguments.n, "alpha": exact_str(alpha), "properties": properties,
                "objective_kind": arguments.objective, "aggregate": arguments.aggregate,
                "min_distance": arguments.min_distance, "mechanism": arguments.mechanism or "optimal"}
    print(f"{document['mechanism']}: {arguments.objective} ({arguments.aggregate}) = {document['objective']} "
          f"≈ {float(value):.6g}; Pr[true output] = {document['p_true']} ≈ {float(p_true):.6g}")
    if arguments.out:
        _write_mechanism(arguments.out, rows, lambda: np.array([[float(v) for v in row] for row in rows]))
    if arguments.json:
        write_json(arguments.json, document, "design")
    return 0
