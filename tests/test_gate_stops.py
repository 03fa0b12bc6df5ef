"""Stopping the gate never changes its verdict (issue 51): Ctrl-C and a time limit, arriving at many
points of every route — grid pairs and the LP inside HiGHS, root isolation, ball arithmetic, the
float sweep and its exact re-decisions, the two-secret search, the proof for every analyst — with
and without ``--debug``, end in exit 130 or 4 with a readable report, never 1 (NOT stable) or 3.

The stop is raised from inside the route, at the k-th call of one of its functions (decided by
work, not by the clock), as the time limit's timer or a SIGINT would raise it there."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES, spec_document, write_spec

import qifkit.ball_range
import qifkit.generator
import qifkit.lp.attempts
import qifkit.mode_range
import qifkit.stability
from proofs_checks import gate
from proofs_checks.cli.app import main
from proofs_checks.gate import evaluate as gate_evaluate
from proofs_checks.gate import limits as gate_limits
from proofs_checks.gate import pipelines as gate_pipelines
from proofs_checks.gate import ranges as gate_ranges
from qifkit.errors import TimeLimitReached


def _grid_histograms(folder):
    """Geometric on 3 values, the histogram of 3 reports (1 known): every grid pair refines, each by
    the exact LP engine from a HiGHS basis."""
    return write_spec(folder, spec_document(family="geometric", values=3, respondents=3, known=(0,), query="histogram",
                                            eps=("3/2", "2", "3", "4"), question="every_analyst"))


def _app_d1_range(folder):
    return write_spec(folder, spec_document(family="geometric", values=7, respondents=4, known=(0, 1, 1), eps=(),
                                            low="3", high="4", prior="uniform", loss="linear"))


def _ball(folder):
    """Geometric on 6 values, 30 respondents (29 known), count of {0, 1}, squared loss on [1.1, 20]:
    past root isolation's work, so sampled first and then decided in ball arithmetic."""
    known = {str(v): 5 - (v == 5) for v in range(6)}
    return write_spec(folder, spec_document(family="geometric", values=6, respondents=30, known_counts=known,
                                            of=(0, 1), eps=(), low="11/10", high="20", prior="uniform",
                                            loss="squared"))


def _threshold(folder):
    """Geometric on 10 values, 100 respondents (99 known), whether at least 30 report 0, 1 or 2,
    squared loss on [1.1, 20]: past root isolation's work, its float sweep finds a rise that exact
    losses (generating functions) confirm."""
    known = {str(v): 10 - (v == 9) for v in range(10)}
    return write_spec(folder, spec_document(family="geometric", values=10, respondents=100, known_counts=known,
                                            query="threshold", of=(0, 1, 2), at=30, eps=(), low="11/10", high="20",
                                            prior="uniform", loss="squared"))


def _census_like(folder, question="analyst"):
    counts = {v: 100 - (v == 4) for v in range(5)}
    return write_spec(folder, spec_document(family="geometric", values=5, respondents=500, known_counts=counts,
                                            of=(0, 1), eps=(), low="11/10", high="20", prior="uniform",
                                            question=question))


def _histogram(folder):
    return str(EXAMPLES / "deploy_histogram.toml")


#: (route, spec writer, module or class, function name, the calls let through before the stop)
STOPS = [
    ("grid pairs", _grid_histograms, qifkit.stability, "refines", 1),
    ("inside HiGHS", _grid_histograms, qifkit.lp.attempts, "run_highs", 0),
    ("inside HiGHS", _grid_histograms, qifkit.lp.attempts, "run_highs", 1),
    ("root isolation", _app_d1_range, qifkit.stability, "real_roots", 1),
    ("root isolation", _app_d1_range, qifkit.stability, "value", 40),
    ("ball arithmetic", _ball, qifkit.ball_range._LossSlope, "slopes", 0),
    ("ball arithmetic", _ball, qifkit.ball_range._LossSlope, "slopes", 7),
    ("float sweep", _threshold, gate_ranges, "posterior_uncertainty", 60),
    ("exact re-decision", _threshold, gate_pipelines, "count_uncertainty", 0),
    ("exact re-decision", _threshold, gate_pipelines, "count_uncertainty", 1),
    ("two-secret search", lambda folder: _census_like(folder, "every_analyst"), gate_ranges, "dichotomy_risks", 90),
    ("others' mode", _census_like, qifkit.mode_range._ModeSlope, "direction", 5),
    ("proof for every analyst", _histogram, qifkit.generator, "sign_on", 2),
]


def _stop_after(monkeypatch, owner, name, after, error):
    real = getattr(owner, name)
    calls = []

    def stopping(*arguments, **keywords):
        calls.append(None)
        if len(calls) > after:
            raise error
        return real(*arguments, **keywords)

    monkeypatch.setattr(owner, name, stopping)
    return calls


@pytest.mark.parametrize("debug", [[], ["--debug"]], ids=["plain", "debug"])
@pytest.mark.parametrize(("error", "status"), [(KeyboardInterrupt, 130), (TimeLimitReached, 4)],
                         ids=["ctrl-c", "time-limit"])
@pytest.mark.parametrize(("route", "spec", "owner", "name", "after"), STOPS,
                         ids=[f"{stop[0]}-{stop[3]}-{stop[4]}" for stop in STOPS])
def test_a_stop_anywhere_is_exit_130_or_4_with_a_readable_report(tmp_path, monkeypatch, capsys, route, spec, owner,
                                                                 name, after, error, status, debug):
    path = spec(tmp_path)
    calls = _stop_after(monkeypatch, owner, name, after, error)
    out = tmp_path / "r.json"
    assert main(["stability", path, "--json", str(out), *debug]) == status
    assert len(calls) > after, f"the {route} route never reached its stop"
    report = json.loads(out.read_text())
    assert report["stable"] is None and report["instability"] is None
    assert report["undecided"].startswith("interrupted" if status == 130 else "the caller's time limit")
    said = capsys.readouterr()
    assert "internal error" not in said.err and "Traceback" not in said.err


@pytest.mark.parametrize("debug", [[], ["--debug"]], ids=["plain", "debug"])
@pytest.mark.parametrize(("spec", "line"), [
    (_ball, "range: the analyst's loss decided piece by piece in ball arithmetic"),
    (_threshold, "range: the analyst's loss sampled"),
    (_census_like, "range: one target's Bayes risk behind the count"),
], ids=["ball arithmetic", "float sweep", "others' mode"])
def test_a_real_sigint_as_a_route_begins_ends_in_exit_130(tmp_path, spec, line, debug):
    """A SIGINT sent to the command as it says a route has begun (an event, not a time)."""
    import signal
    import subprocess
    import sys

    out = tmp_path / "r.json"
    command = [sys.executable, "-m", "proofs_checks.cli", "stability", spec(tmp_path), "--json", str(out), *debug]
    child = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert child.stderr is not None
    for said in child.stderr:
        if said.startswith(line):
            child.send_signal(signal.SIGINT)
            break
    assert child.wait(timeout=120) == 130
    assert json.loads(out.read_text())["stable"] is None


def test_long_routes_say_how_far_they_got(tmp_path, monkeypatch):
    """Issue 51: the float sweep and ball arithmetic say their progress (samples, enclosures out of
    the budget) as they go, not only as they begin (here at every step: this route is short)."""
    monkeypatch.setattr(gate_ranges, "PROGRESS_STEPS", 10**6)
    lines = []
    gate.evaluate_spec(gate.read_spec(_ball(tmp_path)), progress=lines.append)
    sweep = [line for line in lines if line.startswith("range: float sweep, ")]
    balls = [line for line in lines if line.startswith("range: ball arithmetic, ")]
    assert len(sweep) == gate_limits.RANGE_SAMPLES - 1 and sweep[-1].endswith(f"of {gate_limits.RANGE_SAMPLES} e^ε")
    assert balls and all("of at most" in line for line in balls)


def test_the_lp_of_a_grid_pair_gets_the_time_left(tmp_path, monkeypatch):
    """Issue 51: a time limit reaches inside HiGHS (the LP is told the seconds left, and HiGHS
    stops itself), not only between the steps a signal can interrupt."""
    told = []
    real = gate_evaluate.pipeline_refinement

    def recording(*arguments, time_limit=None, **keywords):
        told.append(time_limit)
        return real(*arguments, time_limit=time_limit, **keywords)

    monkeypatch.setattr(gate_evaluate, "pipeline_refinement", recording)
    spec = gate.read_spec(_grid_histograms(tmp_path))
    gate.evaluate_spec(spec, time_limit=600)
    assert len(told) == 3 and all(limit is not None and 0 < limit <= 600 for limit in told)
    told.clear()
    gate.evaluate_spec(spec)
    assert told == [None] * 3
