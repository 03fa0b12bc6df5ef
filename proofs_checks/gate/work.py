"""The work a spec asks for, said before it begins (``qifkit stability -v``) and used to choose a range's
route: by size, never by the clock.
"""

from __future__ import annotations

from proofs_checks.gate import limits
from proofs_checks.gate.model import StabilitySpec
from proofs_checks.gate.pipelines import output_count, secret_count, target_count
from qifkit.mode_range import MODE_PIECES
from qifkit.numbers import exact_str
from qifkit.stability import range_routes


def range_degree(spec: StabilitySpec) -> int:
    """An estimate of the degree in e^ε of the pipeline's entries over a range: every respondent's
    report multiplies in a perturber entry of degree about values − 1."""
    return spec.respondents * (spec.values - 1)


def symbolic_work(spec: StabilitySpec) -> int:
    """The size of following the analyst symbolically over a range: pipeline entries × degree²
    (compared with :data:`limits.RANGE_FOLLOW_WORK`)."""
    return secret_count(spec) * output_count(spec) * range_degree(spec) ** 2


def describe_work(spec: StabilitySpec) -> list[str]:
    """The size of the work a spec asks for, said before it begins (``qifkit stability -v``): the
    pipeline's secrets, outputs and entries, the grid pairs to certify, and the route the range
    takes, with the degree in e^ε that its symbolic route works on (an estimate,
    :func:`range_degree`)."""
    if spec.oversize is not None:
        return [f"pipeline: not built ({spec.oversize})",
                f"range [{spec.eps_range[0]}, {spec.eps_range[1]}]: decided only by a proof for every analyst "  # type: ignore[index]
                "(the perturber's hit probabilities or its generator), which holds at any number of respondents"]
    secrets, outputs = secret_count(spec), output_count(spec)
    entries = secrets * outputs
    lines = [f"question: {'the spec' + chr(39) + 's analyst' if spec.question == 'analyst' else 'every analyst'}"
             + (f" (tolerance {exact_str(spec.tolerance)})" if spec.tolerance else ""),
             f"pipeline: {secrets:,} secrets × {outputs:,} outputs = {entries:,} entries "
             f"({'exact' if spec.exact else 'float64'})"]
    if spec.population is not None:
        lines.append(f"population: {target_count(spec):,} target(s) (the secret), {len(spec.known):,} known, "
                     f"{spec.others:,} others drawn from the population prior, one mixture row each")
    if len(spec.eps_exp) >= 2:
        lines.append(
            f"grid: {len(spec.eps_exp)} e^ε, {len(spec.eps_exp) - 1} consecutive pairs to certify"
            + (f" (witnesses of up to {outputs:,} × {outputs:,} entries)" if spec.exact else " (not compared)")
        )
    if spec.eps_range is not None:
        degree, work = range_degree(spec), symbolic_work(spec)
        symbolic = (f"symbolic: entries are rational functions of e^ε of degree up to about {degree:,} "
                    f"({spec.respondents:,} respondents' reports), every change of best action and every rise by "
                    "real-root isolation")
        sampled = f"sampled at {limits.RANGE_SAMPLES} e^ε in float64, each rise re-decided exactly"
        cost, budget = ball_budget(spec)
        ball = ("" if not spec.kind.ball else
                f"if no rise is confirmed, in ball arithmetic piece by piece (at most {budget:,} enclosures of cost "
                f"{cost:,}); " if budget >= limits.BALL_MIN_PIECES else
                f"(ball arithmetic not tried: one enclosure costs {cost:,}, so its budget of {limits.BALL_WORK:,} "
                "would allow "
                f"only {budget}, fewer than the {limits.BALL_MIN_PIECES} it needs); ")
        plan = range_routes(entries, work, max_entries=limits.RANGE_MAX_ENTRIES, follow_work=limits.RANGE_FOLLOW_WORK,
                            ball=spec.kind.ball)
        mode = (f"decided by the others' mode piece by piece first (at most {MODE_PIECES:,} pieces; one target's "
                "Bayes risk behind a count); where it leaves a stretch undecided, " if mode_applies(spec) else "")
        if plan.routes == ("exact",):
            route = symbolic
        else:
            route = (f"{mode}{sampled}{'' if mode else ' first'} ({plan.why}); {ball}"
                     + (f"if still undecided, {symbolic}" if "exact" in plan.routes else ""))
        proof = "a proof for every analyst is tried first; " if spec.kind.proof else ""
        lines.append(f"range [{spec.eps_range[0]}, {spec.eps_range[1]}]: {proof}the spec's analyst {route}")
        pairs = secrets * (secrets - 1) // 2
        if spec.question == "every_analyst":
            lines.append(
                f"range, without a proof or a rise: {pairs:,} pairs of secrets searched for a two-secret analyst "
                f"whose loss rises ({limits.RANGE_SAMPLES} e^ε in float64; the largest "
                f"{limits.DICHOTOMY_CONFIRMATIONS} decided "
                "exactly)" if secrets <= limits.DICHOTOMY_MAX_SECRETS else
                f"range, without a proof or a rise: not decided ({secrets:,} secrets, beyond the "
                f"{limits.DICHOTOMY_MAX_SECRETS} whose pairs are searched for a constructed analyst)")
    return lines


def mode_applies(spec: StabilitySpec) -> bool:
    """Whether the range's analyst is one target's Bayes risk under a uniform prior behind a count,
    the case the others' mode decides (:func:`qifkit.mode_range.count_risk_on_range`)."""
    return (spec.kind.mode and spec.loss == "bayes" and target_count(spec) == 1
            and len(set(spec.analyst[0].probabilities())) == 1)


def ball_budget(spec: StabilitySpec) -> tuple[int, int]:
    """The cost of one enclosure of the ball route, the tallies' length (respondents + 1 for a
    count, (values − 1) × respondents + 1 for a sum) × (values + secrets + actions), and how many
    :data:`limits.BALL_WORK` allows."""
    length = spec.respondents + 1 if spec.kind.counts else (spec.values - 1) * spec.respondents + 1  # a sum
    cost = length * (spec.values + secret_count(spec) + len(spec.analyst[1].actions))
    return cost, limits.BALL_WORK // cost
