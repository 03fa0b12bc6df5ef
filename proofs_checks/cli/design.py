"""``qifkit design``: Cormode et al.'s constrained count mechanisms.

``qifkit design --n N (--alpha A | --eps-exp E) [--props WH,CM,...] [--objective L0|L1|L2]
[--aggregate sum|max] [--min-distance D] [--mechanism gm|em|um|wm] [--out M.npy|M.csv] [--json
FILE]`` gives their optimal constrained mechanism (exact, certified LP) or a named one; the JSON
holds ``"matrix"`` (rows are inputs), ``"objective"`` and ``"p_true"`` (Pr[true output] under the
uniform prior), as exact strings.
"""

from __future__ import annotations

import argparse
import time

from polytopes.constrained import PROPERTIES, optimal_mechanism, weakly_honest_mechanism
from polytopes.fixed_point.arithmetic import epsilon
from proofs_checks.cli.artefacts import MechanismCheck, write_mechanism
from proofs_checks.cli.base import UsageError, detail_printer
from proofs_checks.cli.io import check_mechanism_outputs, comma_list, write_json
from qifkit.count_objectives import l0_score, objective_value
from qifkit.mechanisms import explicit_fair_mechanism, geometric_mechanism, uniform_mechanism
from qifkit.numbers import exact, exact_str, parse_eps_exp

__all__ = ["run"]


#: The largest count (Cormode et al.'s n) design takes: (n + 1)² ≤ 10^6 printed entries for a named
#: mechanism; the optimum where its LP certifies for every α, property set and objective measured,
#: within about a minute (n = 60; the fair optimum at n = 80 needs about two minutes at α = 1/3),
#: and further for the programs measured further: the unconstrained or weakly honest optimum of
#: L0, L1 or L2 summed over the inputs (no --min-distance) at n = 100 (benchmarks/bench_design.py;
#: docs/benchmarks.md, "Limits" and "The design LP").
DESIGN_MAX_N = {"named": 999, "optimal": 60, "optimal, none or WH": 100}


def _limit(arguments: argparse.Namespace, properties: list[str]) -> tuple[int, str]:
    """The largest count this design may take, and what was measured there (for the refusal)."""
    if arguments.mechanism:
        return DESIGN_MAX_N["named"], ""
    if set(properties) <= {"WH"} and arguments.aggregate == "sum" and arguments.min_distance <= 1:
        return DESIGN_MAX_N["optimal, none or WH"], (
            ", where the unconstrained and weakly honest optima certified within about 15 s for every α and "
            "objective measured")
    return DESIGN_MAX_N["optimal"], (
        ", where every α, property set and objective measured certified within about 15 s; the fair optimum at "
        f"0..80 took about two minutes at α = 1/3 (counts 0..{DESIGN_MAX_N['optimal, none or WH']} without "
        "properties or with WH alone, summed, without --min-distance)")


def _size_option(arguments: argparse.Namespace) -> str:
    return f"--n {arguments.n}" if arguments.n is not None else f"--max-count {arguments.max_count}"


def _largest_count(arguments: argparse.Namespace) -> int:
    """Cormode et al.'s n, the largest count: ``--max-count N`` directly, or ``--n N`` values
    (counts 0..N−1, the meaning --n has in every command)."""
    top = arguments.max_count if arguments.max_count is not None else arguments.n - 1
    if top < 1:
        raise UsageError(f"{_size_option(arguments)}: a count mechanism needs at least the counts 0 and 1 "
                         "(--n 2 or --max-count 1)")
    return top


def run(arguments: argparse.Namespace) -> int:
    """``qifkit design``."""
    check_mechanism_outputs(arguments, {})
    properties = comma_list(arguments.props, "--props") if arguments.props else []
    unknown = [p for p in properties if p not in PROPERTIES]
    if unknown:
        raise UsageError(f"unknown property {unknown[0]!r}; the properties are {', '.join(PROPERTIES)}")
    if arguments.mechanism and properties:
        raise UsageError("--mechanism names a mechanism; --props asks for an optimum: give one of them")
    top = _largest_count(arguments)
    limit, measured = _limit(arguments, properties)
    if top > limit:
        what = (f"{(top + 1) ** 2} exact entries" if arguments.mechanism
                else f"an exact LP with {(top + 1) ** 2} variables")
        raise UsageError(f"{_size_option(arguments)} asks for {what}; this command stops at counts "
                         f"0..{limit}{measured} (checked before any work). Larger n: call polytopes.constrained from "
                         "Python, where nothing is printed")
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
    started = time.perf_counter()
    if arguments.mechanism:
        build = {"gm": geometric_mechanism, "em": explicit_fair_mechanism, "wm": weakly_honest_mechanism,
                 "um": lambda n, alpha: uniform_mechanism(n)}[arguments.mechanism]
        mechanism = build(top, alpha=alpha)
        value = l0_score(mechanism) if plain_l0 else objective_value(mechanism, p, aggregate=arguments.aggregate,
                                                                      min_distance=arguments.min_distance)
    else:
        value, mechanism = optimal_mechanism(
            top,
            alpha=alpha,
            properties=properties,
            p=p,
            aggregate=arguments.aggregate,
            min_distance=arguments.min_distance,
            method="certified",
        )
    rows = mechanism.rows()
    detail_printer(arguments)(
        f"{len(rows)}×{len(rows)} mechanism, "
        + ("built from its formula" if arguments.mechanism else "the exact optimum of Cormode et al.'s LP, certified")
        + f", in {time.perf_counter() - started:.2f} s"
    )
    p_true = sum(rows[j][j] for j in range(len(rows))) / len(rows)
    document = {
        "matrix": [[exact_str(v) for v in row] for row in rows],
        "objective": exact_str(value),
        "p_true": exact_str(p_true),
        "values": top + 1,
        "max_count": top,
        "alpha": exact_str(alpha),
        "properties": properties,
        "objective_kind": arguments.objective,
        "aggregate": arguments.aggregate,
        "min_distance": arguments.min_distance,
        "mechanism": arguments.mechanism or "optimal",
    }
    print(
        f"{document['mechanism']}: {arguments.objective} ({arguments.aggregate}) = {document['objective']} "
        f"≈ {float(value):.6g}; Pr[true output] = {document['p_true']} ≈ {float(p_true):.6g}"
    )
    if arguments.out:
        document["written"] = write_mechanism(arguments.out, MechanismCheck(float(epsilon(1 / alpha))), rows)
    if arguments.json:
        write_json(arguments.json, document, "design")
    return 0
