"""Spec perturbers, queries and priors beyond the named ones (issue 15): the exponential mechanism with
the user's quality, a count released through the user's map, a prior from a file. Each is checked
against an independent route to the same pipeline (a named family, a threshold, a list prior)."""

from fractions import Fraction

import pytest
from conftest import spec_document

from proofs_checks.gate import SpecError, evaluate_spec, parse_spec


def spec(folder, perturber, query=None, analyst=None, sweep=None, respondents=3, known=(0,)):
    """A parsed spec with this file's defaults (three respondents, `known = [0]`, e^ε 9 and 81)."""
    sections = {"perturber": perturber, "query": query, "analyst": analyst, "sweep": sweep}
    return parse_spec(spec_document(respondents=respondents, known=known, eps=("9", "81"), sections=sections), folder)


def losses(report):
    return [point.loss for point in report.points]


def test_the_exponential_mechanism_of_a_quality_is_randomized_response_at_the_square_root(tmp_path):
    """Q(v, r) = 0 on the diagonal and −1 off it, s = 1: Pr[r | v] ∝ (e^ε)^(Q/2), i.e. RR at √(e^ε)
    (Cormode et al. eq. (2); on two values at e^ε = 9: 3/4 and 1/4, RR's diagonal at e^ε = 3)."""
    (tmp_path / "quality.csv").write_text("0,-1\n-1,0\n")
    exponential, _ = evaluate_spec(spec(tmp_path, {"family": "exponential", "values": 2, "quality": "quality.csv"}))
    rr, _ = evaluate_spec(spec(tmp_path, {"family": "randomized_response", "values": 2},
                               sweep={"eps_exp": ["3", "9"]}))
    assert losses(exponential) == losses(rr) and exponential.stable is rr.stable is True
    scaled, _ = evaluate_spec(spec(tmp_path, {"family": "exponential", "values": 2, "quality": "quality.csv",
                                              "sensitivity": "1/2"}, sweep={"eps_exp": ["3", "9"]}))
    assert losses(scaled) == losses(rr)  # s = 1/2 halves nothing: the exponent is Q/(2s) = Q


@pytest.mark.parametrize("perturber, sweep, message", [
    ({"values": 2, "quality": "quality.csv"}, {"eps_exp": ["2"]}, "irrational"),  # √2 is not exact
    ({"values": 2, "quality": "quality.csv"}, {"from": "4", "to": "9"}, "use a grid"),
    ({"values": 3, "quality": "quality.csv"}, {"eps_exp": ["4"]}, "must be 3 × 3"),
    ({"values": 2, "quality": "quality.csv", "sensitivity": "0"}, {"eps_exp": ["4"]}, "sensitivity must be positive"),
    ({"values": 2}, {"eps_exp": ["4"]}, "quality must name a CSV"),
    ({"values": 2, "quality": "missing.csv"}, {"eps_exp": ["4"]}, "cannot read the quality"),
])
def test_exponential_perturbers_that_cannot_be_exact_or_do_not_fit_are_refused(tmp_path, perturber, sweep, message):
    (tmp_path / "quality.csv").write_text("0,-1\n-1,0\n")
    with pytest.raises(SpecError, match=message):
        spec(tmp_path, {"family": "exponential", **perturber}, sweep=sweep)
    with pytest.raises(SpecError, match="quality is for family"):
        spec(tmp_path, {"family": "geometric", "values": 2, "quality": "quality.csv"})


def test_a_map_of_the_count_releases_what_a_threshold_releases(tmp_path):
    """The count of three respondents mapped to "few" below 2 and "many" from 2 is the threshold
    query at 2 under other labels: the same losses and verdicts at every e^ε."""
    (tmp_path / "bands.csv").write_text("0,few\n1,few\n2,many\n3,many\n")
    geometric = {"family": "geometric", "values": 3}
    sweep = {"eps_exp": ["3/2", "2", "3"]}
    mapped, _ = evaluate_spec(spec(tmp_path, geometric, {"kind": "map", "of": [0], "table": "bands.csv"}, sweep=sweep))
    threshold, _ = evaluate_spec(spec(tmp_path, geometric, {"kind": "threshold", "of": [0], "at": 2}, sweep=sweep))
    assert losses(mapped) == losses(threshold) and mapped.stable == threshold.stable


@pytest.mark.parametrize("text, message", [
    ("0,few\n1,few\n2,many\n", "every one of 0..3 once; 3 is missing"),
    ("0,few\n1,few\n1,many\n2,a\n3,b\n", "mapped twice"),
    ("0,few\n1\n2,a\n3,b\n", "line 2: '1' is not a row key,value"),
    ("0,few\n-1,x\n", "is not a row key,value"),
])
def test_maps_that_are_not_a_function_of_every_count_are_refused(tmp_path, text, message):
    (tmp_path / "bands.csv").write_text(text)
    with pytest.raises(SpecError, match=message):
        spec(tmp_path, {"family": "geometric", "values": 3}, {"kind": "map", "of": [0], "table": "bands.csv"})


def test_a_prior_from_a_file_is_the_same_prior_as_a_list(tmp_path):
    (tmp_path / "prior.csv").write_text("1/2\n1/3\n1/6\n")
    listed, _ = evaluate_spec(spec(tmp_path, {"family": "geometric", "values": 3},
                                   analyst={"prior": ["1/2", "1/3", "1/6"], "loss": "linear"}, respondents=1, known=()))
    read, _ = evaluate_spec(spec(tmp_path, {"family": "geometric", "values": 3},
                                 analyst={"prior": "prior.csv", "loss": "linear"}, respondents=1, known=()))
    assert losses(read) == losses(listed) and Fraction(losses(read)[0]) > 0
    (tmp_path / "row.csv").write_text("1/2,1/3,1/6\n")
    row, _ = evaluate_spec(spec(tmp_path, {"family": "geometric", "values": 3},
                                analyst={"prior": "row.csv", "loss": "linear"}, respondents=1, known=()))
    assert losses(row) == losses(listed)


@pytest.mark.parametrize("text, message", [
    ("1/2\n1/2\n", "has 2 entries for 3 secrets"),
    ("1/2\n1/2\n1/2\n", "sums to 3/2, not 1"),
    ("1/2,1/4\n1/4,0\n", "one column"),
])
def test_prior_files_that_do_not_fit_the_secrets_are_refused(tmp_path, text, message):
    (tmp_path / "prior.csv").write_text(text)
    parsed = None
    with pytest.raises(SpecError, match=message):
        parsed = spec(tmp_path, {"family": "geometric", "values": 3}, analyst={"prior": "prior.csv", "loss": "bayes"},
                      respondents=1, known=())
        evaluate_spec(parsed)


def test_the_exponential_example_is_unstable_with_a_certificate_that_verifies(tmp_path):
    """examples/own_perturber/exponential.toml (exponential perturber, a map query, a prior file): exit 1,
    and the certificate it writes passes the independent checker of ``qifkit verify``."""
    from pathlib import Path

    from proofs_checks.cli import main

    example = Path(__file__).resolve().parent.parent / "examples" / "own_perturber" / "exponential.toml"
    assert main(["stability", str(example), "-q", "--certificate", str(tmp_path / "cert")]) == 1
    folder = tmp_path / "cert"
    assert main(["verify", str(folder / "a.csv"), str(folder / "b.csv"), str(folder / "cert.json")]) == 0


def test_a_fixed_point_perturber_from_polytopes(tmp_path):
    """family = "fixed_point" (Kohli and Laskowski's Algorithm 1 with fixed point z), built from
    polytopes by the spec's layer: its perturber at each e^ε is the constructor's mechanism (rows the
    values, z·T = z), so the one-respondent pipeline of a count of 0 is that mechanism's first
    column and its complement. An unknown family's refusal lists it."""
    from polytopes.fixed_point.algorithm1 import heuristic_constructor

    perturber = {"family": "fixed_point", "values": 3, "z": ["1/4", "1/2", "1/4"]}
    parsed = parse_spec({"perturber": perturber, "population": {"respondents": 1},
                         "query": {"kind": "count", "of": [0]}, "analyst": {"prior": "uniform", "loss": "bayes"},
                         "sweep": {"eps_exp": ["2", "3"]}, "gate": {"question": "every_analyst"}}, tmp_path)
    report, certificates = evaluate_spec(parsed)
    mechanism = heuristic_constructor(["1/4", "1/2", "1/4"], eps_exp="2").matrix
    z = [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    assert [sum(z[i] * mechanism[i][j] for i in range(3)) for j in range(3)] == z  # the fixed point
    hit = [mechanism[i][0] for i in range(3)]  # Pr[counted | value]; Bayes risk, uniform prior, 2 outputs
    expected = 1 - sum(max(sum(Fraction(1, 3) * (h if y else 1 - h) for h, v in zip(hit, range(3), strict=True)
                                  if v == x) for x in range(3)) for y in (0, 1))
    assert Fraction(report.points[0].loss) == expected
    assert report.stable in (True, False) and certificates
    with pytest.raises(SpecError, match="unknown perturber family 'fixed point'; use one of .*fixed_point"):
        parse_spec({"perturber": {**perturber, "family": "fixed point"}, "population": {"respondents": 1},
                    "query": {"kind": "count", "of": [0]}, "sweep": {"eps_exp": ["2"]}}, tmp_path)


@pytest.mark.parametrize("perturber, sweep, message", [
    ({"z": ["1/2", "1/2"]}, {"eps_exp": ["2"]}, "z has 2 entries for values = 3"),
    ({"z": ["1/2", "1/4", "1/2"]}, {"eps_exp": ["2"]}, "fixed_point"),  # sums to 5/4
    ({"z": "zipf"}, {"eps_exp": ["2"]}, "unknown fixed point 'zipf'"),
    ({"z": "uniform", "selector": "best"}, {"eps_exp": ["2"]}, "selector 'best'"),
    ({"z": "uniform"}, {"from": "2", "to": "3"}, "grid's e\\^ε only"),
    ({"z": [0.25, 0.5, 0.25]}, {"eps_exp": ["2"]}, "z must be a list of probabilities"),
])
def test_fixed_point_perturbers_that_do_not_fit_are_refused(tmp_path, perturber, sweep, message):
    with pytest.raises(SpecError, match=message):
        parse_spec({"perturber": {"family": "fixed_point", "values": 3, **perturber}, "population": {"respondents": 2},
                    "query": {"kind": "count", "of": [0]}, "sweep": sweep}, tmp_path)


def test_the_fixed_point_family_from_the_command_line(tmp_path):
    from proofs_checks.cli import main

    path = tmp_path / "spec.toml"
    path.write_text('[perturber]\nfamily = "fixed_point"\nvalues = 3\nz = "binomial"\n[population]\nrespondents = 2\n'
                    '[query]\nkind = "count"\nof = [1]\n[sweep]\neps_exp = ["2", "3", "5"]\n')
    assert main(["stability", str(path), "-q", "--certificate", str(tmp_path / "c")]) in (0, 1)
    assert (tmp_path / "c").is_dir() and any((tmp_path / "c").iterdir())


def test_a_histogram_query_on_two_values_is_the_count_and_on_three_tells_more(tmp_path):
    """The histogram of reports over two values is the count of one of them (the other is N minus it):
    the same losses; over three values the count of 0 is a post-processing of the histogram, so the
    histogram's Bayes loss is never larger (data-processing inequality), and smaller here."""
    rr = {"family": "randomized_response", "values": 2}
    sweep = {"eps_exp": ["3/2", "2", "3"]}
    histogram, _ = evaluate_spec(spec(tmp_path, rr, {"kind": "histogram"}, sweep=sweep, respondents=3, known=(0,)))
    count, _ = evaluate_spec(spec(tmp_path, rr, {"kind": "count", "of": [0]}, sweep=sweep, respondents=3, known=(0,)))
    assert losses(histogram) == losses(count)
    geometric = {"family": "geometric", "values": 3}
    histogram, _ = evaluate_spec(
        spec(tmp_path, geometric, {"kind": "histogram"}, sweep=sweep, respondents=3, known=(1,))
    )
    count, _ = evaluate_spec(spec(tmp_path, geometric, {"kind": "count", "of": [0]}, sweep=sweep, respondents=3,
                                  known=(1,)))
    pairs = list(zip(map(Fraction, losses(histogram)), map(Fraction, losses(count)), strict=True))
    assert all(h <= c for h, c in pairs) and any(h < c for h, c in pairs)


def test_a_histogram_query_too_large_to_work_out_is_refused(tmp_path):
    with pytest.raises(SpecError, match="histogram query of 60 respondents over 4 values"):
        spec(tmp_path, {"family": "geometric", "values": 4}, {"kind": "histogram"}, respondents=60, known=[0] * 59)


def test_a_pre_processor_merges_values_before_a_named_family(tmp_path):
    """before = "merge.csv" sends values 1 and 2 to the perturber's input 1: the pipeline is
    D·RR_2 on three values, so its losses are those of RR on two values with the respondents' values
    merged the same way: a prior 1/2, 1/4, 1/4 on three values and the Bayes loss of guessing the
    merged value equal RR on two values with prior 1/2, 1/2 (an independent route to the numbers)."""
    (tmp_path / "merge.csv").write_text("0,0\n1,1\n2,1\n")
    (tmp_path / "merged_loss.csv").write_text("0,1\n1,0\n1,0\n")  # guess 0 or "1 or 2"
    merged, _ = evaluate_spec(spec(tmp_path, {"family": "randomized_response", "values": 3, "before": "merge.csv"},
                                   analyst={"prior": ["1/2", "1/4", "1/4"], "loss": "merged_loss.csv"},
                                   respondents=2, known=(2,), sweep={"eps_exp": ["2", "3"]}))
    plain, _ = evaluate_spec(spec(tmp_path, {"family": "randomized_response", "values": 2},
                                  analyst={"prior": ["1/2", "1/2"], "loss": "bayes"},
                                  respondents=2, known=(1,), sweep={"eps_exp": ["2", "3"]}))
    assert losses(merged) == losses(plain)


@pytest.mark.parametrize("text, perturber, message", [
    ("0,0\n1,1\n", {}, "every one of 0..2 once; 2 is missing"),
    ("0,0\n1,2\n2,2\n", {}, "inputs must be 0..K-1 with K >= 2, each used; 1 is not"),
    ("0,0\n1,0\n2,0\n", {}, "K >= 2"),
    ("0,0\n1,x\n2,1\n", {}, "value 1 goes to 'x'"),
    ("0,0\n1,1\n2,1\n", {"family": "exponential", "quality": "q.csv"}, "goes with a named family"),
])
def test_pre_processors_that_are_not_onto_the_perturbers_inputs_are_refused(tmp_path, text, perturber, message):
    (tmp_path / "merge.csv").write_text(text)
    with pytest.raises(SpecError, match=message):
        spec(tmp_path, {"family": "geometric", "values": 3, "before": "merge.csv", **perturber})
    (tmp_path / "ok.csv").write_text("0,0\n1,1\n2,1\n")
    with pytest.raises(SpecError, match="counted value 2 is not an output of the perturber"):
        spec(tmp_path, {"family": "geometric", "values": 3, "before": "ok.csv"}, {"kind": "count", "of": [2]})


def test_cormodes_uniform_and_weakly_honest_mechanisms_as_perturbers(tmp_path):
    """UM is the same at every e^ε: every pipeline equals the next (stable, flat loss, the prior's
    Bayes risk 2/3 on three values). WM (from polytopes) is Cormode et al.'s symmetric L0-optimal
    mechanism with WH, RM and CM, built by the certified LP at each e^ε: the spec's perturber is that
    matrix (its count-of-0 pipeline for one respondent is its first column)."""
    from polytopes.constrained import weakly_honest_mechanism

    uniform, _ = evaluate_spec(spec(tmp_path, {"family": "uniform", "values": 3}, respondents=1, known=(),
                                    sweep={"eps_exp": ["2", "3", "5"]}))
    assert losses(uniform) == [Fraction(2, 3)] * 3 and uniform.stable is True
    wm = parse_spec({"perturber": {"family": "weakly_honest", "values": 3}, "population": {"respondents": 1},
                     "query": {"kind": "count", "of": [0]}, "sweep": {"eps_exp": ["2", "3"]}}, tmp_path)
    report, _ = evaluate_spec(wm)
    mechanism = weakly_honest_mechanism(2, alpha=Fraction(1, 2)).rows()
    hit = [row[0] for row in mechanism]  # Bayes risk under the uniform prior from the released bit
    expected = 1 - sum(max(Fraction(1, 3) * (h if bit else 1 - h) for h in hit) for bit in (0, 1))
    assert Fraction(report.points[0].loss) == expected
