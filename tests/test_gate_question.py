"""The deploy gate answers the question the spec asks (issue 50): ``[gate] question`` (the spec's
analyst or every analyst), ``tolerance`` (an absolute rise of that analyst's loss), the two uniform
priors by name, and ranges of pipelines too large to build decided by the generator's proof."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction as F
from pathlib import Path

import pytest
from conftest import EXAMPLES, spec_document, write_spec

from proofs_checks.cli.app import main
from proofs_checks.gate import evaluate_spec, parse_spec
from qifkit import linear_error, truncated_geometric, uniform_prior
from qifkit.measures import posterior_uncertainty
from qifkit.pipelines import count_pipeline
from qifkit.stability import loss_on_range

#: Alvim et al. 2023, App. D.1: the analyst's loss at e^ε = 7/2 and 351/100 (×1000, linear loss).
APPD1_LOW = F(1276949536000, 771895089)
APPD1_HIGH = F(2552438666271995640492212000, 1542907143753726048154857)


def _without_gate(source: Path, folder: Path) -> str:
    """A copy of an example folder's spec with its [gate] table removed (the default question)."""
    shutil.copytree(source.parent, folder / "example")
    text = (folder / "example" / source.name).read_text()
    start = text.index("\n[gate]") + 1
    end = text.index("\n[", start + 1)
    (folder / "example" / source.name).write_text(text[:start] + text[end + 1:])
    return str(folder / "example" / source.name)


def test_the_spec_names_an_analyst_so_the_verdict_is_about_that_analyst(tmp_path, capsys):
    """The exponential example: its Bayes analyst does better with less privacy at every grid
    point, while a constructed analyst refutes refinement between e^ε = 4 and 9. Without [gate] the
    question is the named analyst (stable, exit 0, no pair compared); with question =
    "every_analyst" the same pipelines are NOT stable (exit 1, the constructed analyst's 27/6860)."""
    out = tmp_path / "r.json"
    assert main(["stability", _without_gate(EXAMPLES / "own_perturber" / "exponential.toml", tmp_path), "--json",
                 str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["question"] == "analyst" and report["stable"] is True and report["instability"] is None
    assert {pair["verdict"] for pair in report["pairs"]} == {"not compared"}
    assert "for the spec's analyst (grid): stable" in capsys.readouterr().out
    assert main(["stability", str(EXAMPLES / "own_perturber" / "exponential.toml"), "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert report["question"] == "every_analyst" and report["instability"]["found_by"] == "refinement"
    assert report["instability"]["gap"] == "27/6860"


@pytest.mark.parametrize(("tolerance", "status"), [
    (APPD1_HIGH - APPD1_LOW, 0),                       # the rise itself passes: "no larger"
    (APPD1_HIGH - APPD1_LOW - F(1, 10**40), 1),        # a hair below it does not
    (F(1), 0),
])
def test_a_tolerance_on_the_grid_is_compared_with_the_exact_rise_of_app_d1(tmp_path, capsys, tolerance, status):
    """App. D.1's two printed losses rise by L(351/100) − L(7/2) ≈ 2.6e-4 (the paper's numbers)."""
    text = (EXAMPLES / "appd1.toml").read_text().replace("[sweep]", f'[gate]\ntolerance = "{tolerance}"\n\n[sweep]')
    out = tmp_path / "r.json"
    assert main(["stability", write_spec(tmp_path, text), "--json", str(out)]) == status
    report = json.loads(out.read_text())
    if status == 0:
        (rise,) = report["rises_within_tolerance"]
        assert F(rise["rise_at_most"]) == F(rise["rise_at_least"]) == APPD1_HIGH - APPD1_LOW
        assert "stable within tolerance" in capsys.readouterr().out
    else:
        assert F(report["instability"]["gap"]) == APPD1_HIGH - APPD1_LOW > tolerance


def test_a_rising_stretchs_bounds_enclose_the_exact_losses_inside_it():
    """App. D.1 on [3, 4] rises on one stretch (≈ [3.50054, 3.51662]); its bounds (lower, upper) of
    L(end) − L(start) must hold against the exact loss at 41 rationals across the stretch (built
    from the pipeline, not from the enclosures), and be tight."""
    build = lambda t: count_pipeline(truncated_geometric(7, eps_exp=t), 4, {0}, (0, 1, 1))  # noqa: E731
    prior, loss = uniform_prior(range(7)), linear_error(range(7))
    curve = loss_on_range(build, 3, 4, prior, loss, tolerance=F(1, 10**6))
    ((start, end),), ((lower, upper),) = curve.rising, curve.rise_bounds
    a, b = start.bounds[1], end.bounds[0]
    sampled = [posterior_uncertainty(prior, build(a + (b - a) * k / 40), loss) for k in range(41)]
    assert 0 < lower <= max(sampled) - min(sampled) + F(1, 10**12) and max(sampled) - min(sampled) <= upper
    assert upper - lower < upper / 1000
    assert loss_on_range(build, 3, 4, prior, loss).rise_bounds == ()  # asked for by a tolerance only


@pytest.mark.parametrize(("tolerance", "stable"), [("1/1000", True), ("1/10000000", False)])
def test_a_tolerance_on_a_range_passes_a_bounded_rise_and_refutes_a_larger_one(tmp_path, tolerance, stable):
    """App. D.1's range [3, 4] (×1000): the one rise is about 7.5e-4, so 1/1000 passes (certified by
    its upper bound) and 1/10^7 is refuted by exact losses at two rationals inside the stretch."""
    document = {"perturber": {"family": "geometric", "values": 7}, "population": {"respondents": 4, "known": [0, 1, 1]},
                "query": {"kind": "count", "of": [0]}, "analyst": {"prior": "uniform", "loss": "linear", "scale": 1000},
                "sweep": {"from": "3", "to": "4"}, "gate": {"tolerance": tolerance}}
    report, _ = evaluate_spec(parse_spec(document))
    assert report.stable is stable and report.monotone is False
    if stable:
        (rise,) = report.rises_within_tolerance
        assert rise.rise_at_least <= rise.rise_at_most <= F(tolerance)
    else:
        assert report.instability.gap > F(tolerance)


@pytest.mark.parametrize(("gate", "analyst", "message"), [
    ({"question": "every_analyst", "tolerance": "1/100"}, None, "needs question = \"analyst\""),
    ({"tolerance": "-1/2"}, None, "at least 0"),
    ({"tolerance": "a lot"}, None, "[gate] tolerance"),
    ({"tolerance": 0.1}, None, "exact numbers"),
    ({"question": "mine"}, None, "\"analyst\" (the spec's analyst) or \"every_analyst\""),
    ({"who": "me"}, None, "unknown key 'who' in [gate]"),
    ({}, {"prior": "uniform"}, "\"uniform_histograms\""),
])
def test_bad_gate_tables_and_an_ambiguous_prior_are_refused(tmp_path, capsys, gate, analyst, message):
    document = spec_document(respondents=3, known=(0,), eps=("2", "3"), sections={"gate": gate, "analyst": analyst})
    assert main(["stability", write_spec(tmp_path, document)]) == 2
    assert message in capsys.readouterr().err


def test_the_two_uniform_priors_are_named_and_differ(tmp_path):
    """Two unknown respondents on 2 values: uniform over the 3 histograms (1/3 each) and uniform over
    the 4 tuples (1/4, 1/2, 1/4) give different Bayes risks; the report names the one used."""
    losses = {}
    for prior in ("uniform_histograms", "uniform_tuples"):
        out = tmp_path / f"{prior}.json"
        spec = write_spec(tmp_path, spec_document(respondents=2, prior=prior, eps=("2", "3")), name=f"{prior}.toml")
        main(["stability", spec, "--json", str(out)])
        report = json.loads(out.read_text())
        assert report["input"]["parsed"]["prior"] == prior
        losses[prior] = report["points"][0]["loss"]
    assert losses["uniform_histograms"] != losses["uniform_tuples"]


def test_a_census_sized_histogram_is_proved_for_every_analyst_and_its_proof_verifies(tmp_path, capsys):
    """examples/deploy_histogram.toml: 10,000 respondents, a histogram whose pipeline cannot be
    built, proved stable for every analyst by the generator; the proof re-checks against the spec,
    and a forged one (an entry of L changed) is refused."""
    folder = tmp_path / "certs"
    spec = str(EXAMPLES / "deploy_histogram.toml")
    assert main(["stability", spec, "--certificate", str(folder)]) == 0
    assert "PROVED at any number of respondents" in capsys.readouterr().out
    proof = json.loads((folder / "range-proof.json").read_text())
    assert proof["kind"] == "generator" and proof["query"] == "histogram" and proof["blocks"] is None
    assert main(["verify", "--range-proof", str(folder / "range-proof.json"), spec]) == 0
    proof["generator"][0][1] = "1/(t^2 + 5)"
    (tmp_path / "forged.json").write_text(json.dumps(proof))
    assert main(["verify", "--range-proof", str(tmp_path / "forged.json"), spec]) == 1
    assert "L[0, 1]" in capsys.readouterr().out


def test_a_census_sized_histogram_without_a_proof_is_not_decided_with_both_reasons(tmp_path, capsys):
    """Randomized response at e^ε = g(t) = 2 + (t − 3)²: more private as t grows to 3, then less, and
    t-locally private on [5/2, 4]. Its generator is positive somewhere there, so the 10,000-respondent
    histogram gets no proof and cannot be built: exit 4, saying both."""
    (tmp_path / "bent.csv").write_text(",0,1,2\n" + "".join(
        f"{i}," + ",".join("(2+(t-3)^2)/(4+(t-3)^2)" if i == j else "1/(4+(t-3)^2)" for j in range(3)) + "\n"
        for i in range(3)))
    document = {"perturber": {"family": "expression", "values": 3, "matrix": "bent.csv"},
                "population": {"respondents": 10_000}, "query": {"kind": "histogram"},
                "gate": {"question": "every_analyst"}, "sweep": {"from": "5/2", "to": "4"}}
    out = tmp_path / "r.json"
    assert main(["stability", write_spec(tmp_path, document), "--json", str(out)]) == 4
    undecided = json.loads(out.read_text())["undecided"]
    assert "not built" in undecided and "positive somewhere" in undecided


def test_an_oversize_pipeline_with_a_grid_is_refused_with_the_way_around(tmp_path, capsys):
    document = spec_document(family="randomized_response", values=6, respondents=10_000, query="histogram",
                             eps=("2", "3"), question="every_analyst")
    assert main(["stability", write_spec(tmp_path, document)]) == 2
    assert "a range (from, to) without a grid may still be proved" in capsys.readouterr().err


def test_a_count_with_three_hit_probabilities_is_proved_by_the_lumped_generator(tmp_path, capsys):
    """P·R_t (a fixed mixing P of values 1 and 2 before randomized response R_t on 3 values) has
    R_t's generator, lumpable by any blocks, but three chances of reporting 1: the count of {1} is
    proved by the generator lumped by [[1], [0, 2]], not by two hit probabilities. The written proof
    re-checks, and one naming other blocks is refused."""
    (tmp_path / "mixed.csv").write_text(",0,1,2\n0,t/(t+2),1/(t+2),1/(t+2)\n"
                                        "1,1/(t+2),(3*t+1)/(4*t+8),(t+3)/(4*t+8)\n"
                                        "2,1/(t+2),(t+3)/(4*t+8),(3*t+1)/(4*t+8)\n")
    document = {"perturber": {"family": "expression", "values": 3, "matrix": "mixed.csv"},
                "population": {"respondents": 50}, "query": {"kind": "count", "of": [1]},
                "gate": {"question": "every_analyst"}, "sweep": {"from": "3/2", "to": "8"}}
    spec, folder = write_spec(tmp_path, document), tmp_path / "certs"
    assert main(["stability", spec, "--certificate", str(folder)]) == 0
    assert "lumped by the blocks [[1], [0, 2]]" in capsys.readouterr().out
    proof = json.loads((folder / "range-proof.json").read_text())
    assert proof["kind"] == "generator" and proof["blocks"] == [[1], [0, 2]]
    assert main(["verify", "--range-proof", str(folder / "range-proof.json"), spec]) == 0
    (tmp_path / "forged.json").write_text(json.dumps({**proof, "blocks": None}))
    assert main(["verify", "--range-proof", str(tmp_path / "forged.json"), spec]) == 1
    assert "this spec's query needs [[1], [0, 2]]" in capsys.readouterr().out


def test_the_deployers_example_is_stable_for_its_analyst(tmp_path, capsys):
    """examples/deploy_population.toml (README's gate section): two targets, 500 known, 498 from the
    population prior, a tolerance; the count is proved for every analyst, the spec's included."""
    out = tmp_path / "r.json"
    assert main(["stability", str(EXAMPLES / "deploy_population.toml"), "--json", str(out), "-v"]) == 0
    report = json.loads(out.read_text())
    assert report["question"] == "analyst" and report["tolerance"] == "1/1000" and report["secrets"] == 15
    assert "498 others drawn from the population prior" in capsys.readouterr().out


def test_a_geometric_count_at_thousands_is_proved_stable_for_its_analyst_by_the_mode(tmp_path, capsys):
    """Issue 50's goal row: geometric on 6 values, 2,000 respondents (1,500 known, 499 from a uniform
    population, one target), the count of {0, 1}, Bayes, [2, 5]. No proof for every analyst exists
    (six hit probabilities) and the pipeline is too large to follow symbolically; the others' mode
    proves the spec's analyst's risk never rises (exit 0, route "mode")."""
    document = spec_document(family="geometric", values=6, respondents=2000, known_counts={v: 250 for v in range(6)},
                             of=(0, 1), prior="uniform", eps=(), low="2", high="5")
    document["population"].update(population_prior=["1/6"] * 6, targets=1)
    out = tmp_path / "r.json"
    assert main(["stability", write_spec(tmp_path, document), "--json", str(out)]) == 0
    interval = json.loads(out.read_text())["range"]
    assert interval["route"] == "mode" and interval["mode"]["undecided_stretches"] == 0
    assert not interval["every_analyst"]["proved"]
    assert "never rises" in capsys.readouterr().out


def test_a_risk_proved_rising_by_the_mode_is_refuted_by_exact_risks(tmp_path, capsys):
    """Randomized response on 3 values at e^ε = 1 + 4(t − 1)/t² (t-locally private for t ≥ 2, and
    more private as t grows): 3,000 respondents, one target, the count of {0}, Bayes. The mode route
    proves the risk rising, and the exact risks at two points inside the rise refute stability
    (exit 1)."""
    e = "((t^2+4*t-4)/t^2)"
    (tmp_path / "shrinking.csv").write_text(",0,1,2\n" + "".join(
        f"{i}," + ",".join(f"{e}/({e}+2)" if i == j else f"1/({e}+2)" for j in range(3)) + "\n" for i in range(3)))
    document = spec_document(family="expression", values=3, respondents=3000, known_counts={0: 1000, 1: 1000, 2: 999},
                             of=(0,), prior="uniform", eps=(), low="2", high="5",
                             sections={"perturber": {"family": "expression", "values": 3, "matrix": "shrinking.csv"}})
    out = tmp_path / "r.json"
    assert main(["stability", write_spec(tmp_path, document), "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert report["range"]["route"] == "mode" and report["range"]["rising"]
    assert "by the others' mode" in report["range"]["analyst"] and report["instability"]
