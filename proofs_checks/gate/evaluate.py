"""The evaluation of a spec as named stages (grid losses, grid pairs, range, verdict) into a report that
answers the spec's question, stoppable at any moment (a time limit, Ctrl-C) without changing a verdict.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from proofs_checks.gate import limits, proofs
from proofs_checks.gate.model import Certified, StabilitySpec
from proofs_checks.gate.pipelines import (
    builder,
    candidate_witness,
    exact_loss_of,
    output_count,
    secret_count,
    working_analyst,
)
from proofs_checks.gate.ranges import FloatSweep, constructed_analyst, range_report
from proofs_checks.gate.report import (
    Covered,
    EveryAnalyst,
    GateReport,
    Instability,
    PairReport,
    PointLoss,
    RangeReport,
    Rise,
    decimal_text,
)
from qifkit.channel import Channel
from qifkit.errors import TimeLimitReached, UndecidableError
from qifkit.measures import (
    Loss,
    Prior,
)
from qifkit.numbers import exact, exact_eps_exp, exact_str
from qifkit.refinement import MAX_WITNESS_ENTRIES, Refinement
from qifkit.stability import (
    loss_curve,
    pipeline_refinement,
)


def evaluate_spec(spec: StabilitySpec, progress: Callable[[str], None] | None = None,
                  time_limit: float | None = None, keep_partial: bool = False
                  ) -> tuple[GateReport, list[Certified]]:
    """The stability report of a spec and its certificates.

    `progress`, if given, receives a line as each step begins (the grid's losses, the range's
    proof, the analyst on the range) and one per decided grid pair, with the time it took and an
    estimate of the time left (the mean so far times the pairs left). `time_limit` (seconds) is
    checked between steps and, in the main thread, also stops a step in the middle (a timer raises
    :class:`~qifkit.errors.TimeLimitReached`, which a caller's own timer or `progress` may raise
    too; a step inside a C library stops when that call returns). Either way no further step
    begins, an instability found by then stands, and otherwise ``stable`` is null with
    ``undecided`` saying how far the run got; what was certified is kept. With `keep_partial`,
    a ``KeyboardInterrupt`` is handled the same way and the report is ``interrupted``.

    The report has ``points`` (e^ε and the analyst's expected loss, increasing e^ε), ``monotone``
    (true: the analyst's loss never rises, on the grid and on the whole range; false: it rises
    somewhere, decided exactly; null: the range was only sampled or not finished), ``range`` (for
    a range: its ends, the exact losses there, the rising stretches as decimals and exactly), ``coverage``
    (``"grid"``, ``"interval"`` or ``"grid and interval"``), ``stable`` (true: every consecutive
    pair of the grid certified to refine and no range asked; false: a certified instability;
    null: float sweep, or a range on which the analyst sees no rise but refinement between the
    pipelines is only certified on the grid) with ``undecided`` saying why, and ``instability``:
    null, or the first one found: a rise of the analyst's loss on the grid (``found_by:
    "analyst"``), a failed pipeline refinement on the grid (``"refinement"``), a rising stretch of
    the range (``"range"``) or, on a range no proof covers, a two-secret Bayes analyst whose loss
    rises (``"constructed"``, :func:`constructed_analyst`), with prior, loss and exact gap.

    ``pairs`` has one entry per consecutive pair of the grid (``eps_exp_low``, ``eps_exp_high``,
    ``verdict``: ``"refines"``, ``"does not refine"`` or ``"not compared"`` with the reason, and the
    ``method`` that certified it), and ``covered`` says what a verdict rests on: the grid pairs
    compared out of all, and whether the range was proved for every analyst.

    The certificates: the instability's (less and more private pipeline and the refutation), or
    each consecutive pair's witness certified before the run ended (kept when the verdict is
    undecided too: a time limit or an undecided range does not void them).
    """
    evaluation = _Evaluation(spec, progress or (lambda line: None), time_limit)
    try:
        with _alarm(time_limit):
            timed_out = evaluation.run()
    except TimeLimitReached:
        timed_out = (f"the time limit of {time_limit:g} s was reached {evaluation.stage}" if time_limit else
                     f"the caller's time limit was reached {evaluation.stage}")
    except KeyboardInterrupt:
        if not keep_partial:
            raise
        timed_out, evaluation.report.interrupted = f"interrupted (Ctrl-C) {evaluation.stage}", True
    return evaluation.finish(timed_out)


class _Evaluation:
    """One evaluation of a spec, in named stages (:meth:`run`): the proof alone for a pipeline too
    large to build, else the grid's losses, the grid's pairs (every analyst's question only), the
    range and, for every analyst, the search for a constructed one; then :meth:`finish`, the
    verdict. ``stage`` says where the run is, for a report stopped in the middle."""

    def __init__(self, spec: StabilitySpec, say: Callable[[str], None], time_limit: float | None) -> None:
        self.spec, self.say, self.time_limit = spec, say, time_limit
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit
        self.stage = "before the grid's losses"
        self.grid = sorted(spec.eps_exp, key=exact_eps_exp)
        self.number = exact if spec.exact else float  # the report keeps numbers; report_document writes them
        self._exact_build = builder(spec)
        self._built: dict[Any, Channel] = {}
        self.instability: Certified | None = None
        self.witnesses: list[Certified] = []
        self.report = GateReport(
            question=spec.question, tolerance=spec.tolerance, arithmetic="exact" if spec.exact else "float",
            secrets=None if spec.oversize else secret_count(spec),
            coverage=" and ".join(c for c, on in (("grid", self.grid), ("interval", spec.eps_range)) if on),
            pairs=[PairReport(low, high, method=None if spec.exact else "a float sweep compares no pair")
                   for low, high in zip(self.grid, self.grid[1:], strict=False)])

    def build(self, eps_exp: Any) -> Channel:
        """The spec's pipeline at an e^ε, built once."""
        key = exact_eps_exp(eps_exp)
        if key not in self._built:
            self._built[key] = self._exact_build(eps_exp)
        return self._built[key]

    def refuted(self, found_by: str, low: Any, high: Any, certificate: Refinement) -> None:
        """Record the first instability found: the report's numbers, and its certificate when the
        pipelines are small enough to write (else ``instability.json`` re-derives it from the spec)."""
        assert certificate.prior is not None and certificate.loss is not None  # a refutation has both
        if self.instability is not None or self.report.instability is not None:
            return
        number, spec = self.number, self.spec
        self.report.instability = Instability(
            found_by, low, high, prior=[number(p) for p in certificate.prior.probabilities()],
            loss=[[number(v) for v in row] for row in certificate.loss.rows()],
            loss_low=number(certificate.uncertainty_b), loss_high=number(certificate.uncertainty_a),
            gap=number(certificate.gap))
        entries = secret_count(spec) * output_count(spec)
        if spec.exact and entries <= limits.MAX_CERTIFIED_ENTRIES:
            self.instability = Certified("instability", low, high, self.build(high), self.build(low), certificate)
        elif spec.exact:
            self.report.instability.pipelines = (
                f"not materialised: {entries:,} exact entries each (beyond {limits.MAX_CERTIFIED_ENTRIES:,}); the two "
                "losses are exact, and qifkit verify --instability re-derives them from the spec")

    def _past_deadline(self) -> str | None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return f"the time limit of {self.time_limit:g} s was reached {self.stage}"
        return None

    def run(self) -> str | None:
        """The stages in order; the reason the run stopped early, or None."""
        spec = self.spec
        if spec.oversize is not None:  # a range only: nothing but a proof for every analyst can decide it
            self.proof_only()
            return None
        prior, loss = working_analyst(spec)
        exact_loss = exact_loss_of(spec, prior, loss, self.build)
        if self.grid:
            self.grid_losses(prior, loss, exact_loss)
            stopped = self.grid_pairs()
            if stopped:
                return stopped
        if spec.eps_range is not None:
            self.stage = "before the range"
            stopped = self._past_deadline()
            if stopped:
                return stopped
            self.range_stage(prior, loss, exact_loss)
        return None

    def proof_only(self) -> None:
        """A pipeline too large to build: the range decided by a proof for every analyst, or not."""
        spec = self.spec
        assert spec.eps_range is not None  # the parser allows no other oversize spec
        self.stage = "during the proof for every analyst"
        self.say(f"range {list(map(exact_str, spec.eps_range))}: a proof for every analyst (the pipeline is not "
                 "built)")
        proof, reason = proofs.every_analyst_on_range(spec)
        self.report.range = RangeReport(*spec.eps_range, EveryAnalyst(proof, None if proof is not None else reason),
                                        analyst=f"not followed: {spec.oversize}")

    def grid_losses(self, prior: Any, loss: Any, exact_loss: Callable[[Any], Any]) -> None:
        """The analyst's loss at each grid e^ε, and its largest rise against the tolerance."""
        spec, report = self.spec, self.report
        self.say(f"the analyst's loss at {len(self.grid)} e^ε of the grid")
        self.stage = "during the grid's losses"
        curve = loss_curve(self.build, self.grid, prior, loss, exact_loss if spec.exact else None)
        report.points = [PointLoss(e, self.number(v)) for e, v in zip(curve.eps_exp, curve.values, strict=True)]
        if curve.violation is None:
            return
        report.monotone = False
        low, high, gap = _largest_rise(curve) if spec.tolerance else curve.violation
        if gap > spec.tolerance:
            self.refuted("analyst", low, high, _analyst_refutation(prior, loss, curve, low, high, gap))
        else:
            report.rises_within_tolerance.append(Rise("grid", gap, gap))

    def grid_pairs(self) -> str | None:
        """Refinement of each consecutive grid pair (every analyst's question; exact grids only), with
        its certificate; the reason the run stopped, or None."""
        spec, report, say = self.spec, self.report, self.say
        if not spec.exact:
            return None
        if spec.question == "analyst":
            for pair in report.pairs:
                pair.method = ("the question is the spec's analyst; question = \"every_analyst\" compares "
                                  "the pipelines")
            return None
        candidate = candidate_witness(spec)
        pairs, started = len(self.grid) - 1, time.perf_counter()
        for k, (low, high) in enumerate(zip(self.grid, self.grid[1:], strict=False)):
            begun = time.perf_counter()
            self.stage = f"after {k} of {pairs} grid pairs"
            stopped = self._past_deadline()
            if stopped:
                return stopped
            try:
                remaining = None if self.deadline is None else max(self.deadline - time.perf_counter(), 1e-3)
                result = pipeline_refinement(self.build, high, low, candidate(high, low), time_limit=remaining)
            except UndecidableError as error:  # the LP found no certificate: this pair is open
                report.pairs[k].verdict, report.pairs[k].method = "not decided", str(error)
                say(f"pair {k + 1}/{pairs} (e^ε {high} vs {low}): not decided ({error})")
                continue
            now = time.perf_counter()
            left = (now - started) / (k + 1) * (pairs - k - 1)
            say(f"pair {k + 1}/{pairs} (e^ε {high} vs {low}): {'refines' if result.holds else 'FAILS'}"
                f" in {now - begun:.1f} s; about {left:.0f} s left")
            report.pairs[k].verdict = "refines" if result.holds else "does not refine"
            report.pairs[k].method = result.method
            if not result.holds:
                self.refuted("refinement", low, high, result)
                break
            self.witnesses.append(Certified(f"pair-{k + 1}", low, high, self.build(high), self.build(low), result))
        return None

    def range_stage(self, prior: Any, loss: Any, exact_loss: Callable[[Any], Any]) -> None:
        """The range's routes (:func:`~proofs_checks.gate.ranges.range_report`) and, for every
        analyst's question without a proof or an instability, the two-secret search."""
        spec, report = self.spec, self.report
        self.stage = "during the range"
        sweep = FloatSweep(spec, self.say)
        range_report(spec, report, prior, loss, self.build, exact_loss, self.refuted, self.say, sweep)
        assert report.range is not None  # range_report fills it
        if spec.question == "every_analyst" and report.instability is None and not report.range.every_analyst.proved:
            self.stage = "during the search for a constructed analyst"
            constructed_analyst(spec, report.range, self.build, self.refuted, self.say, sweep)

    def finish(self, timed_out: str | None) -> tuple[GateReport, list[Certified]]:
        """The verdict answering the spec's question (:func:`_verdict`), what it covered, and the
        certificates: the instability's, or each grid pair's witness certified by then."""
        spec, report = self.spec, self.report
        interval = report.range
        if interval is not None:
            if interval.analyst is None:
                interval.analyst = f"not followed: {timed_out}"
            if report.monotone and not interval.followed and not interval.every_analyst.proved:
                report.monotone = None  # sampled, or stopped: the loss between the points is not known
        proved = interval is not None and interval.every_analyst.proved
        report.stable, report.undecided = _verdict(spec, report, timed_out, proved, bool(self.grid))
        compared = sum(pair.verdict in ("refines", "does not refine") for pair in report.pairs)
        on_range = None if spec.eps_range is None else (
            f"proved for every analyst on [{spec.eps_range[0]}, {spec.eps_range[1]}]" if proved else
            "not proved for every analyst")
        report.covered = Covered(spec.question, compared, len(report.pairs), on_range)
        return report, [self.instability] if self.instability is not None else self.witnesses


def _verdict(spec: StabilitySpec, report: GateReport, timed_out: str | None, proved: bool, grid: bool
             ) -> tuple[bool | None, str | None]:
    """``stable`` and ``undecided`` of a report, answering the spec's question (``[gate] question``):
    the spec's analyst (its loss never rises by more than the tolerance as e^ε grows, on the grid
    and at every e^ε of the range; every analyst proved on the range covers it too) or every
    analyst (every grid pair refines and the range is proved)."""
    if not spec.exact:
        return None, "a float sweep decides nothing; set exact = true"
    if report.instability is not None:
        return False, None
    interval = report.range
    if timed_out is not None:
        return None, timed_out
    if spec.oversize is not None and not proved:
        assert interval is not None  # an oversize spec has a range and nothing else
        return None, (f"the pipeline is not built ({spec.oversize}) and no proof for every analyst covers the range "
                      f"({interval.every_analyst.reason})")
    if spec.question == "analyst":
        unbounded = [rise for rise in report.rises_within_tolerance
                     if rise.rise_at_most is None or rise.rise_at_most > spec.tolerance]
        if unbounded:
            rise = unbounded[0]
            return None, (f"the spec's analyst's loss rises by at least {decimal_text(rise.rise_at_least)} on the "
                          f"{rise.where}, within the tolerance {exact_str(spec.tolerance)}, but "
                          + ("no upper bound of the rise was found" if rise.rise_at_most is None else
                             f"it is only bounded by {decimal_text(rise.rise_at_most)}"))
        if spec.eps_range is not None and not (proved or (interval is not None and interval.followed)):
            return None, ("the spec's analyst's loss was not followed at every e^ε of the range ("
                          + (interval.analyst or "not reached" if interval is not None else "not reached")
                          + ") and no proof for every analyst covers it"
                          + (f" ({interval.every_analyst.reason})" if interval is not None else ""))
        return True, None
    open_pair = next((pair for pair in report.pairs if pair.verdict == "not decided"), None)
    if open_pair is not None:
        return None, (f"the pipelines at e^ε = {exact_str(open_pair.eps_exp_high)} and "
                      f"{exact_str(open_pair.eps_exp_low)} were not compared to the end: {open_pair.method}")
    if spec.eps_range is not None and not proved:
        outputs = output_count(spec)
        where = ("only at the grid's points" if grid else "only where a grid is given (eps_exp)"
                 if outputs ** 2 <= MAX_WITNESS_ENTRIES else
                 f"nowhere at this size: a grid's pairs would need {outputs:,} × {outputs:,} witnesses, beyond the "
                 f"{MAX_WITNESS_ENTRIES:,} entries refinement takes, so no spec of this pipeline gets a verdict for "
                 "every analyst yet")
        assert interval is not None  # a range was asked
        searched = interval.constructed
        return None, ("no rise was found, but refinement between the pipelines (every analyst) over the range is not "
                      f"proved ({interval.every_analyst.reason}); it is certified " + where
                      + (f"; two-secret analysts searched: {searched}" if searched else ""))
    return True, None


def _largest_rise(curve: Any) -> tuple[Any, Any, Any]:
    """The grid's e^ε low < high where the analyst's loss rises most, and that rise (exact):
    what a tolerance is compared with."""
    best: tuple[Any, Any, Any] = (curve.eps_exp[0], curve.eps_exp[0], 0)
    lowest = 0
    for k, loss in enumerate(curve.values):
        if loss - curve.values[lowest] > best[2]:
            best = (curve.eps_exp[lowest], curve.eps_exp[k], loss - curve.values[lowest])
        if loss < curve.values[lowest]:
            lowest = k
    return best


@contextlib.contextmanager
def _alarm(seconds: float | None) -> Iterator[None]:
    """Raise :class:`~qifkit.errors.TimeLimitReached` where the evaluation is once `seconds` have
    passed (a real-time timer, in the main thread only; elsewhere the checks between steps apply)."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise TimeLimitReached

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _analyst_refutation(prior: Prior, loss: Loss, curve: Any, low: Any, high: Any, gap: Any) -> Refinement:
    """The spec's analyst as the certificate that pipeline(high) does not refine pipeline(low)."""
    values = dict(zip(curve.eps_exp, curve.values, strict=True))
    return Refinement(False, prior=prior, loss=loss, uncertainty_a=values[high], uncertainty_b=values[low],
                      gap=gap, method="the spec's analyst")
