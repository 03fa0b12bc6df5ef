"""The routes of a range: a proof for every analyst, the spec's analyst followed exactly (root isolation),
in ball arithmetic, or sampled in float64 with every rise re-decided exactly; and, for the question
of every analyst, the search for a two-secret analyst whose loss rises.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from proofs_checks.gate import limits, proofs
from proofs_checks.gate.model import StabilitySpec
from proofs_checks.gate.pipelines import (
    builder,
    exact_loss_of,
    output_count,
    secret_count,
    secret_labels,
    with_population,
)
from proofs_checks.gate.report import EveryAnalyst, GateReport, RangeReport, Rise
from proofs_checks.gate.work import ball_budget, mode_applies, symbolic_work
from qifkit.ball_range import BallRange, count_loss_on_range, sum_loss_on_range
from qifkit.channel import Channel
from qifkit.errors import UndecidableError
from qifkit.measures import (
    Loss,
    Prior,
    bayes_risk,
    posterior_uncertainty,
)
from qifkit.mode_range import MODE_PIECES, count_risk_on_range
from qifkit.real_roots import RealPoint, rational_between
from qifkit.refinement import Refinement
from qifkit.stability import (
    DICHOTOMY_WEIGHTS,
    dichotomy_rises,
    dichotomy_risks,
    loss_on_range,
    range_routes,
    sample_grid,
    search_rises,
)

#: How many progress lines a long route prints at most (one each 1/PROGRESS_STEPS of its work).
PROGRESS_STEPS = 20


def range_report(spec: StabilitySpec, report: GateReport, prior: Prior, loss: Loss,
                  build: Callable[[Any], Channel], exact_loss: Callable[[Any], Any],
                  refuted: Callable[..., None], say: Callable[[str], None], sweep: FloatSweep) -> None:
    """The spec's range, into ``report.range``: refinement for every analyst where a proof exists
    (:func:`every_analyst_on_range`), and the spec's analyst at every e^ε
    (:func:`qifkit.stability.loss_on_range`) for pipelines of at most :data:`limits.RANGE_MAX_ENTRIES`
    entries; beyond :data:`limits.RANGE_FOLLOW_WORK` a float search comes first, and a rise it confirms
    exactly is the verdict. `say` is told as each step begins."""
    low, high = spec.eps_range  # type: ignore[misc]
    say(f"range [{low}, {high}]: a proof for every analyst"
        + ("" if spec.kind.proof else f" (none for a {spec.query} query)"))
    proof, reason = proofs.every_analyst_on_range(spec)
    interval = report.range = RangeReport(low, high, EveryAnalyst(proof, None if proof is not None else reason))
    entries = secret_count(spec) * output_count(spec)
    plan = range_routes(entries, symbolic_work(spec), max_entries=limits.RANGE_MAX_ENTRIES,
                        follow_work=limits.RANGE_FOLLOW_WORK, ball=spec.kind.ball)
    if plan.routes[0] != "exact":
        if proof is not None:  # a proof settles every analyst; else the analyst's curve is searched in floats
            interval.analyst = "not followed: every analyst is proved safe on the range"
            return
        if mode_route(spec, report, interval, prior, loss, exact_loss, refuted, say):
            return
        say(f"range: the analyst's loss sampled at {limits.RANGE_SAMPLES} e^ε ({plan.why}), each rise re-decided "
            "exactly")
        if sampled_route(spec, report, interval, prior, loss, exact_loss, refuted, plan.why or "", sweep):
            return
        if "ball" in plan.routes and ball_route(spec, report, interval, prior, loss, exact_loss, refuted, say):
            return
        if "exact" not in plan.routes:
            return
        interval.samples = interval.rises_not_confirmed = None  # the search found nothing; the exact route decides
    say(f"range: the analyst's loss followed exactly at every e^ε ({entries:,} pipeline entries as rational "
        "functions of e^ε, their best actions' changes and the loss's slope by real-root isolation)")
    curve = loss_on_range(builder(spec), low, high, prior, loss, tolerance=spec.tolerance or None,
                          progress=lambda line: say(f"range: {line}"))

    interval.analyst, interval.route = "followed at every e^ε", "exact"
    interval.loss_from, interval.loss_to = curve.loss_low, curve.loss_high
    interval.rising = [list(stretch) for stretch in curve.rising]
    interval.rising_exact = [list(stretch) for stretch in curve.rising]
    interval.breakpoints = list(curve.breakpoints)
    if curve.rising and proof is not None:  # pragma: no cover - a proof excludes every rise
        raise UndecidableError("internal contradiction: a proved-stable range shows a rising loss")
    if not curve.rising:
        return
    report.monotone = False
    stretch = 0
    if spec.tolerance:
        bounds = curve.rise_bounds
        interval.rise_bounds = [list(bound) for bound in bounds]
        stretch = max(range(len(bounds)), key=lambda k: bounds[k][0])
        if bounds[stretch][0] <= spec.tolerance:
            uppers = [upper for _, upper in bounds]
            report.rises_within_tolerance.append(Rise("range", bounds[stretch][0],
                                                      None if None in uppers else sum(uppers, Fraction(0))))
            return
        start, end = curve.rising[stretch]  # narrowed by the bounds: the inner ends are inside the rise
        a, b = start.bounds[1], end.bounds[0]
        lower, upper = exact_loss(a), exact_loss(b)
    else:
        a, b, lower, upper = inside_rise(*curve.rising[0], exact_loss)
    refuted("range", a, b, Refinement(False, prior=prior, loss=loss, uncertainty_a=upper, uncertainty_b=lower,
                                      gap=upper - lower, method="the spec's analyst on the range's rising stretch"))


def inside_rise(start: RealPoint | Fraction, end: RealPoint | Fraction, exact_loss: Callable[[Any], Any]
                 ) -> tuple[Any, Any, Any, Any]:
    """Simple rationals start < a < b < end in the first and last quarters of a rising stretch, and
    the exact losses there (lower at a, upper at b), the two sides of its refutation. Ends that are
    algebraic numbers are narrowed until their isolating intervals are apart, and the quarters are
    taken between their inner ends: a point of an outer end's interval may lie outside the rise."""
    first, last = (point if isinstance(point, RealPoint) else RealPoint(point) for point in (start, end))
    while first.bounds[1] >= last.bounds[0]:
        for point in (first, last):
            low, high = point.bounds
            point.narrowed((high - low) / 2)
    inner_start, inner_end = first.bounds[1], last.bounds[0]
    quarter = (inner_end - inner_start) / 4
    a, b = rational_between(inner_start, inner_start + quarter), rational_between(inner_end - quarter, inner_end)
    return a, b, exact_loss(a), exact_loss(b)


class FloatSweep:
    """A spec's float64 pipelines at the range's :data:`limits.RANGE_SAMPLES` e^ε (:func:`sample_grid`),
    built once for both searches that read them: the spec's analyst's losses (:func:`sampled_route`)
    and, for at most :data:`limits.DICHOTOMY_MAX_SECRETS` secrets, every two-secret analyst's Bayes risks
    (:func:`constructed_analyst`). Only the numbers are kept, not the pipelines. `say` is told the
    samples done every :data:`PROGRESS_STEPS`-th of the way."""

    def __init__(self, spec: StabilitySpec, say: Callable[[str], None] = lambda line: None) -> None:
        assert spec.eps_range is not None  # only for a range
        self.spec, self.grid = spec, sample_grid(*spec.eps_range, samples=limits.RANGE_SAMPLES)
        self.say = say
        self.secrets = secret_labels(spec)
        self._losses: list[float] | None = None
        self._risks: list[Any] = []

    def _run(self) -> None:
        build = builder(dataclasses.replace(self.spec, exact=False))
        prior, loss = (part.to_float() for part in self.spec.analyst)
        pairs = len(self.secrets) <= limits.DICHOTOMY_MAX_SECRETS
        self._losses = []
        step = max(1, len(self.grid) // PROGRESS_STEPS)
        for k, eps_exp in enumerate(self.grid):
            if k and k % step == 0:
                self.say(f"range: float sweep, {k} of {len(self.grid)} e^ε")
            pipeline = build(eps_exp)
            self._losses.append(float(posterior_uncertainty(prior, pipeline, loss)))
            if pairs:
                self._risks.append(dichotomy_risks(pipeline.matrix))

    def losses(self, grid: Sequence[Fraction]) -> list[float]:
        """The spec's analyst's float losses at `grid`, which must be the sweep's."""
        assert list(grid) == self.grid, "a float sweep answers for its own samples only"
        if self._losses is None:
            self._run()
        assert self._losses is not None
        return self._losses

    def risks(self) -> list[Any]:
        """The two-secret analysts' Bayes risks at each sample (:func:`qifkit.stability.dichotomy_risks`)."""
        if self._losses is None:
            self._run()
        return self._risks


def constructed_analyst(spec: StabilitySpec, interval: RangeReport, build: Callable[[Any], Channel],
                         refuted: Callable[..., None], say: Callable[[str], None], sweep: FloatSweep) -> None:
    """On a range that no proof covers and where the spec's analyst saw no rise: search every
    two-secret Bayes analyst (:func:`qifkit.stability.dichotomy_risks`, float64 pipelines at
    :data:`limits.RANGE_SAMPLES` e^ε) and re-decide the largest rises of :data:`limits.DICHOTOMY_CONFIRMATIONS`
    pairs exactly (the generating functions of :func:`exact_loss_of`); a confirmed one is a certified
    instability, found by a constructed analyst. What was searched goes to
    ``interval.constructed``."""
    secrets = sweep.secrets
    if len(secrets) > limits.DICHOTOMY_MAX_SECRETS:
        interval.constructed = (f"not searched: {len(secrets):,} secrets, beyond the "
                                          f"{limits.DICHOTOMY_MAX_SECRETS} whose pairs are searched")
        return
    pairs = len(secrets) * (len(secrets) - 1) // 2
    say(f"range: {pairs} pairs of secrets searched for a two-secret analyst whose loss rises "
        f"({limits.RANGE_SAMPLES} e^ε in "
        "float64), the largest rises re-decided exactly")
    grid = sweep.grid
    loss = bayes_risk(secrets)
    candidates = dichotomy_rises(sweep.risks(), len(secrets), most=limits.DICHOTOMY_CONFIRMATIONS)
    for candidate in candidates:
        weight = {candidate.first: candidate.weight, candidate.second: 1 - candidate.weight}
        prior = Prior.from_values([weight.get(k, Fraction(0)) for k in range(len(secrets))], secrets)
        exact_loss = exact_loss_of(spec, prior, loss, build)
        low, high = grid[candidate.step], grid[candidate.step + 1]
        lower, upper = exact_loss(low), exact_loss(high)
        if upper > lower:
            interval.constructed = (
                f"a rise found: the Bayes risk of secrets {secrets[candidate.first]!r} (prior {candidate.weight}) and "
                f"{secrets[candidate.second]!r} is higher at e^ε = {high} than at {low}, decided exactly")
            refuted("constructed", low, high, Refinement(
                False, prior=prior, loss=loss, uncertainty_a=upper, uncertainty_b=lower, gap=upper - lower,
                method="a two-secret Bayes analyst, found in float64 at sampled e^ε and decided exactly"))
            return
    interval.constructed = (f"no rise confirmed: {pairs} pairs × {len(DICHOTOMY_WEIGHTS)} priors at "
                                      f"{len(grid)} e^ε in float64, {len(candidates)} candidate(s) re-decided exactly")


def ball_route(spec: StabilitySpec, report: GateReport, interval: RangeReport, prior: Prior, loss: Loss,
                exact_loss: Callable[[Any], Any], refuted: Callable[..., None], say: Callable[[str], None]) -> bool:
    """The spec's analyst on a range too large to follow by root isolation, in ball arithmetic
    (:mod:`qifkit.ball_range`; count, threshold, map and sum queries): within a
    budget of :data:`limits.BALL_WORK`, the loss proved never to rise at any e^ε, or a rising stretch
    proved and confirmed by the exact losses at two rational points of it. Returns whether the
    range was decided; what was tried goes to ``interval.ball``."""
    assert spec.eps_range is not None  # only called for a range
    cost, budget = ball_budget(spec)
    if budget < limits.BALL_MIN_PIECES:
        interval.ball = (f"not tried: a piece's enclosure costs {cost:,} (the tally's length times values, "
                                   f"secrets and actions), so {limits.BALL_WORK:,} allow {budget} (fewer than "
                                   f"{limits.BALL_MIN_PIECES})")
        return False
    say(f"range: the analyst's loss decided piece by piece in ball arithmetic (at most {budget:,} enclosures)")
    family = spec.perturber
    _, known, values = with_population(spec, family(spec.values, spec.eps_range[1]))

    def perturber(t: Any) -> Channel:
        return with_population(spec, family(spec.values, t))[0]

    step = max(1, budget // PROGRESS_STEPS)

    def told(done: int) -> None:
        if done % step == 0:
            say(f"range: ball arithmetic, {done:,} of at most {budget:,} enclosures")

    if not spec.kind.counts:  # a sum
        curve = sum_loss_on_range(perturber, spec.respondents, prior, loss, *spec.eps_range, known=known,
                                  pieces=budget, unknown_values=values, progress=told)
    else:
        curve = count_loss_on_range(perturber, spec.respondents, set(spec.counted), prior, loss, *spec.eps_range,
                                    known=known, release=spec.kind.release(spec), pieces=budget, unknown_values=values,
                                    progress=told)
    undecided = curve.undecided
    interval.ball = {"pieces": len(curve.pieces), "enclosures": curve.evaluations,
                               "undecided": [list(stretch) for stretch in undecided[:limits.SHOWN_STRETCHES]],
                               "undecided_stretches": len(undecided)}
    analyst = (f"followed at every e^ε in ball arithmetic ({len(curve.pieces):,} pieces proved rising or falling, "
               f"{curve.evaluations:,} enclosures)")
    return proved_curve(spec, report, interval, prior, loss, exact_loss, refuted, curve, ("ball", analyst, "ball "
                        "arithmetic"), interval.ball, ends=True)


def proved_curve(spec: StabilitySpec, report: GateReport, interval: RangeReport, prior: Prior, loss: Loss,
                 exact_loss: Callable[[Any], Any], refuted: Callable[..., None], curve: BallRange,
                 route: tuple[str, str, str], details: dict[str, Any], ends: bool) -> bool:
    """A range decided piece by piece (the ball and mode routes) into the report: nothing when a
    stretch is undecided and no rise is proved; else the route (`route`: its name, what it did, and
    how a rising piece was proved), the ends' exact losses when `ends`, and a proved rise confirmed
    by the exact losses at two rational points inside it (:func:`inside_rise`), then refuted unless
    within the spec's tolerance. Returns whether the range was decided."""
    if curve.monotone is None:
        return False
    if curve.rising:
        a, b, lower, upper = inside_rise(*curve.rising[0], exact_loss)
        if not upper > lower:  # pragma: no cover - a proved rise that exact losses deny: say so, decide nothing
            details["unconfirmed_rise"] = [a, b]
            return False
    name, analyst, how = route
    interval.samples = interval.rises_not_confirmed = None
    interval.route, interval.analyst = name, analyst
    if ends:
        interval.loss_from, interval.loss_to = exact_loss(curve.low), exact_loss(curve.high)
    interval.rising = [[RealPoint(s), RealPoint(e)] for s, e in curve.rising]
    interval.rising_exact = [[RealPoint(s), RealPoint(e)] for s, e in curve.rising]
    if curve.rising:
        report.monotone = False
        if upper - lower <= spec.tolerance:
            report.rises_within_tolerance.append(Rise("range", upper - lower, None))
            return True
        refuted("range", a, b, Refinement(False, prior=prior, loss=loss, uncertainty_a=upper, uncertainty_b=lower,
                                          gap=upper - lower,
                                          method=f"the spec's analyst on a rising stretch proved in {how}"))
    return True


def mode_route(spec: StabilitySpec, report: GateReport, interval: RangeReport, prior: Prior, loss: Loss,
               exact_loss: Callable[[Any], Any], refuted: Callable[..., None], say: Callable[[str], None]) -> bool:
    """The spec's analyst when it is one target's Bayes risk under a uniform prior behind a count
    (:func:`qifkit.mode_range.count_risk_on_range`: the others' count law is Poisson-binomial, and
    its mode decides the risk at any number of respondents): decided on the range within
    :data:`~qifkit.mode_range.MODE_PIECES` pieces (:func:`proved_curve`), or the other routes follow.
    Returns whether it was decided; what was tried goes to ``interval.mode``."""
    assert spec.eps_range is not None  # only called for a range
    if not mode_applies(spec):
        return False
    say(f"range: one target's Bayes risk behind the count, proved piece by piece by the others' mode (at most "
        f"{MODE_PIECES:,} pieces)")
    family = spec.perturber
    _, known, values = with_population(spec, family(spec.values, spec.eps_range[1]))
    step = max(1, MODE_PIECES // PROGRESS_STEPS)

    def told(done: int) -> None:
        if done and done % step == 0:
            say(f"range: the others' mode, {done:,} of at most {MODE_PIECES:,} pieces")

    try:
        curve = count_risk_on_range(lambda t: with_population(spec, family(spec.values, t))[0], set(spec.counted),
                                    *spec.eps_range, known=known, target_values=values, progress=told)
    except UndecidableError as error:
        interval.mode = f"not applicable: {error}"
        return False
    undecided = curve.undecided
    interval.mode = {"pieces": curve.evaluations,
                     "undecided": [list(stretch) for stretch in undecided[:limits.SHOWN_STRETCHES]],
                     "undecided_stretches": len(undecided)}
    analyst = (f"followed at every e^ε by the others' mode ({curve.evaluations:,} pieces proved rising or falling: "
               "Poisson-binomial laws in float64 with rigorous error bounds, compared in ball arithmetic)")
    # the ends' exact losses are not computed (seconds each at thousands of respondents)
    return proved_curve(spec, report, interval, prior, loss, exact_loss, refuted, curve,
                        ("mode", analyst, "ball arithmetic by the others' mode"), interval.mode, ends=False)


def sampled_route(spec: StabilitySpec, report: GateReport, interval: RangeReport, prior: Prior, loss: Loss,
                   exact_loss: Callable[[Any], Any], refuted: Callable[..., None], why: str, sweep: FloatSweep
                   ) -> bool:
    """The spec's analyst on a range too large to follow symbolically first (`why` says how), by
    :func:`qifkit.stability.search_rises` (float64 pipelines at :data:`limits.RANGE_SAMPLES` e^ε, each rise
    re-decided by the exact losses), into `interval`. The rising stretches are reported
    between sampled points, not with exact ends. Returns whether a rise beyond the spec's tolerance
    was confirmed."""
    assert spec.eps_range is not None  # only called for a range
    found = search_rises(sweep.losses, exact_loss, *spec.eps_range, samples=limits.RANGE_SAMPLES)
    interval.route = "sampled"
    interval.analyst = f"sampled ({why}): its loss in float64 at {len(found.samples)} e^ε, each rise re-decided exactly"
    interval.samples = len(found.samples)
    interval.rising = [[rise.start, rise.end] for rise in found.confirmed]
    interval.rising_exact = [[rise.low, rise.high] for rise in found.confirmed]
    interval.rises_not_confirmed = found.unconfirmed
    if found.confirmed:
        report.monotone = False
    beyond = [rise for rise in found.confirmed if rise.loss_high - rise.loss_low > spec.tolerance]
    if beyond:
        rise = beyond[0]
        certificate = Refinement(False, prior=prior, loss=loss, uncertainty_a=rise.loss_high,
                                 uncertainty_b=rise.loss_low, gap=rise.loss_high - rise.loss_low,
                                 method="the spec's analyst at two sampled e^ε of a rise")
        refuted("range", rise.low, rise.high, certificate)
    return bool(beyond)
