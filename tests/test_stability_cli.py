"""`qifkit stability SPEC.toml`: App. D.1, stable and unstable families, ranges of e^ε, the exit codes
of a deployment gate (0 stable, 1 not stable, 4 not decided, 2 bad input), certificates, refused specs."""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import EXAMPLES, spec_document, write_spec

from proofs_checks.cli import main


def _spec(tmp_path, family="geometric", values=3, respondents=2, exact=True, question="every_analyst", **keywords):
    """A spec of these tests: refinement between the pipelines (every analyst) unless `question` says otherwise."""
    return write_spec(tmp_path, spec_document(family, values, respondents, exact=exact, question=question, **keywords))


def test_appd1_spec_gives_both_printed_losses_and_no_monotonicity(tmp_path):
    out = tmp_path / "r.json"
    assert main(["stability", str(EXAMPLES / "appd1.toml"), "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert [p["loss"] for p in report["points"]] == [
        "1276949536000/771895089", "2552438666271995640492212000/1542907143753726048154857"]
    assert report["monotone"] is False and report["instability"]["found_by"] == "analyst"
    import hashlib

    assert report["input"]["sha256"] == hashlib.sha256((EXAMPLES / "appd1.toml").read_bytes()).hexdigest()
    assert report["input"]["parsed"]["eps_exp"] == ["7/2", "351/100"] and "qifkit" in report["versions"]


@pytest.mark.parametrize(("values", "respondents", "of"), [(2, 3, (0,)), (3, 2, (0, 2)), (3, 3, (1,)), (4, 2, (0,))])
def test_randomized_response_with_counting_is_reported_stable(tmp_path, values, respondents, of):
    """Thm. 24: every grid tried is stable and monotone."""
    out = tmp_path / "r.json"
    spec = _spec(tmp_path, family="randomized_response", values=values, respondents=respondents, of=of,
                 eps=("11/10", "3/2", "2", "ln(3)", "10"))
    assert main(["stability", spec, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["stable"] is True and report["monotone"] is True and report["instability"] is None


def test_survey_spec_is_certified_stable_by_lumped_witnesses(tmp_path):
    """The survey of issue 13 (RR on 4 categories, 30 respondents, 20 known): its witness LPs are
    too ill-conditioned for HiGHS (entries from 1e-20 to 1); every pair is certified by the
    lumped count witness instead, and each certificate is re-checked exactly."""
    out = tmp_path / "r.json"
    assert main(["stability", str(EXAMPLES / "survey_rr.toml"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["stable"] is True and report["monotone"] is True and len(report["points"]) == 14


@pytest.mark.parametrize("kind", ["sum", "count", "argmax"])
def test_unstable_pipelines_come_with_verifiable_certificates(tmp_path, kind):
    """§6.2/§7.1 sums and zero counts, and noisy ArgMax (Lemma 26): certificates `qifkit verify` accepts."""
    family = "randomized_response" if kind == "sum" else "geometric"
    loss = "ama" if kind == "argmax" else "bayes"
    spec = _spec(tmp_path, family=family, values=3 if kind != "argmax" else 2, respondents=2, query=kind, loss=loss)
    folder = tmp_path / "cert"
    folder.mkdir()
    out = tmp_path / "r.json"
    assert main(["stability", spec, "--json", str(out), "--certificate", str(folder)]) == 1
    assert json.loads(out.read_text())["stable"] is False
    assert main(["verify", str(folder / "a.csv"), str(folder / "b.csv"), str(folder / "cert.json")]) == 0


@pytest.mark.parametrize("family, build", [("explicit_fair", "explicit_fair_mechanism"),
                                           ("geometric", "geometric_mechanism")])
def test_cormodes_mechanisms_as_perturbers(tmp_path, family, build):
    """Cormode et al.'s EM, and their GM (the family "geometric", the same matrix as Alvim's truncated
    geometric), as the perturber of a count (values 0..4, one unknown respondent of three): both
    pipelines are unstable between e^ε = 11/10 and 3/2. The archived channels are the count
    pipelines built here by hand (each report of value 0 is a coin), and `qifkit verify` accepts
    the certificate."""
    import qifkit.mechanisms

    spec = _spec(tmp_path, family=family, values=5, respondents=3, known=(0, 4), eps=("11/10", "3/2"))
    folder = tmp_path / "cert"
    assert main(["stability", spec, "--certificate", str(folder)]) == 1
    assert main(["verify", str(folder / "a.csv"), str(folder / "b.csv"), str(folder / "cert.json")]) == 0

    def by_hand(eps_exp):
        rows = getattr(qifkit.mechanisms, build)(4, eps_exp=eps_exp).rows()
        channel = []
        for x in range(5):
            tally = [Fraction(1)]
            for hit in (rows[0][0], rows[4][0], rows[x][0]):  # the known 0, the known 4, the unknown x
                tally = [(tally[k] if k < len(tally) else 0) * (1 - hit) + (tally[k - 1] * hit if k else 0)
                         for k in range(len(tally) + 1)]
            channel.append(tally)
        return channel

    def read(path):
        return [[Fraction(v) for v in line.split(",")[1:]] for line in path.read_text().splitlines()[1:]]

    assert read(folder / "a.csv") == by_hand(Fraction(3, 2)) and read(folder / "b.csv") == by_hand(Fraction(11, 10))


def test_float_sweep_is_labelled_float(tmp_path):
    out = tmp_path / "r.json"
    assert main(["stability", _spec(tmp_path, exact=False, eps=("2", "3", "5")), "--json", str(out)]) == 4
    report = json.loads(out.read_text())
    assert report["arithmetic"] == "float" and report["stable"] is None
    assert isinstance(report["points"][0]["loss"], float)  # a JSON number: floats are not written as exact


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"family": "laplace"}, "unknown perturber family 'laplace'"),
        ({"sections": {"sweep": {"eps_exp": ["2", "3"], "colour": 1}}}, "unknown key 'colour' in [sweep]"),
        ({"known": (0, 1)}, "respondents − 1"),
        ({"known": (5,)}, "known value must be a whole number in 0..2, got 5"),
        ({"of": (3,)}, "counted value must be a whole number in 0..2, got 3"),
        ({"eps": ("1",)}, "must be > 1"),
        ({"eps": ("0.5",)}, "ε < 0"),
        ({"query": "median"}, "unknown query kind"),
        ({"loss": "linear", "respondents": 3}, "one unknown respondent"),
        ({"values": 7, "respondents": 11710}, "list more respondents as known"),
        ({"values": 1000, "eps": ("999999999", "1000000000")}, "units of work (side³ × bits), beyond"),
        ({"eps": ()}, "needs eps_exp"),
        ({"low": "2"}, "needs both from and to"),
        ({"low": "3", "high": "2"}, "must be below"),
        ({"low": "1", "high": "2"}, "must be > 1"),
        ({"low": 2.5, "high": "3"}, "as a string"),
        ({"low": "2", "high": "3", "exact": False}, "decided exactly"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(tmp_path, capsys, arguments, message):
    assert main(["stability", _spec(tmp_path, **arguments)]) == 2
    assert message in capsys.readouterr().err


# ---------------------------------------------------------------------------------- ranges and gates
def _appd1_with(tmp_path, sweep: str) -> str:
    text = (EXAMPLES / "appd1.toml").read_text()
    path = tmp_path / "appd1_range.toml"
    path.write_text(text[: text.index("[sweep]")] + "[sweep]\n" + sweep + "\n")
    return str(path)


def test_appd1_on_a_range_rises_exactly_where_the_loss_does_and_the_certificate_verifies(tmp_path, capsys):
    """App. D.1 on [3, 4] alone: NOT stable (exit 1), the rising stretch [3.500544517844,
    3.516615491052] with exact ends, and an instability certificate at two rationals inside it
    that `qifkit verify` accepts."""
    out, folder = tmp_path / "r.json", tmp_path / "made" / "here"
    spec = _appd1_with(tmp_path, 'from = "3"\nto = "4"')
    assert main(["stability", spec, "--json", str(out), "--certificate", str(folder)]) == 1
    report = json.loads(out.read_text())
    assert report["coverage"] == "interval" and report["stable"] is False
    assert report["range"]["rising"] == [["3.500544517844", "3.516615491052"]]
    assert report["instability"]["found_by"] == "range"
    assert (
        3.5005
        < float(Fraction(report["instability"]["eps_exp_low"]))
        < float(Fraction(report["instability"]["eps_exp_high"]))
        < 3.5167
    )
    assert main(["verify", str(folder / "a.csv"), str(folder / "b.csv"), str(folder / "cert.json")]) == 0
    assert "RISES on [3.500544517844, 3.516615491052]" in capsys.readouterr().out


def test_a_stable_grid_archives_one_verifiable_witness_per_pair_and_replaces_only_its_own_files(tmp_path):
    """Issue 38: a second run replaces the first run's certificates (its pair-3 is gone), and nothing
    else: a user's pair-programming/ folder and notes beside the certificates are kept."""
    folder = tmp_path / "cert"
    (folder / "pair-programming").mkdir(parents=True)
    (folder / "pair-programming" / "notes.txt").write_text("mine")
    (folder / "notes.txt").write_text("mine too")
    longer = _spec(tmp_path, family="randomized_response", values=3, respondents=2, of=(0,), eps=("3/2", "2", "3", "4"))
    assert main(["stability", longer, "--certificate", str(folder)]) == 0
    assert (folder / "pair-3" / "cert.json").exists()
    spec = _spec(tmp_path, family="randomized_response", values=3, respondents=2, of=(0,), eps=("3/2", "2", "3"))
    assert main(["stability", spec, "--certificate", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "pair-1", "pair-2", "pair-programming",
                                                        "qifkit-certificates.json"]
    assert (folder / "pair-programming" / "notes.txt").read_text() == "mine"
    for pair in ("pair-1", "pair-2"):
        place = folder / pair
        assert main(["verify", str(place / "a.csv"), str(place / "b.csv"), str(place / "cert.json")]) == 0
        document = json.loads((place / "cert.json").read_text())
        assert document["refines"] is True and document["about"]["spec_sha256"]


def test_a_certificate_folder_holding_a_file_of_the_user_at_a_certificate_name_is_refused(tmp_path, capsys):
    folder = tmp_path / "cert"
    folder.mkdir()
    (folder / "cert.json").write_text("the user's")
    spec = _spec(tmp_path, family="randomized_response", values=3, respondents=2, of=(0,), eps=("3/2", "2"))
    assert main(["stability", spec, "--certificate", str(folder)]) == 2
    assert "not a certificate qifkit wrote" in capsys.readouterr().err
    assert (folder / "cert.json").read_text() == "the user's"


def test_a_range_without_a_proof_is_searched_by_two_secret_analysts(tmp_path, capsys):
    """A geometric perturber summed on [3/2, 8]: the spec's analyst's loss never rises there and no
    proof covers every analyst (sums have no proof route). It exited 4 (not decided); the search of
    two-secret Bayes analysts now finds one whose loss rises (Alvim et al. §7.1: geometric sums do
    not refine), decided exactly and re-checked by `qifkit verify` on the materialised pipelines."""
    out, folder = tmp_path / "r.json", tmp_path / "certs"
    spec = _spec(tmp_path, family="geometric", values=3, respondents=2, query="sum", eps=(), low="3/2", high="8")
    assert main(["stability", spec, "--json", str(out), "--certificate", str(folder)]) == 1
    report = json.loads(out.read_text())
    assert report["stable"] is False and report["range"]["rising"] == []
    assert report["range"]["every_analyst"] == {
        "proved": False, "reason": "no proof route for a sum query (count and histogram queries have one)"}
    instability = report["instability"]
    assert instability["found_by"] == "constructed" and report["range"]["constructed"].startswith("a rise found")
    assert sum(Fraction(p) > 0 for p in instability["prior"]) == 2  # an analyst of two secrets
    capsys.readouterr()
    assert main(["verify", str(folder / "a.csv"), str(folder / "b.csv"), str(folder / "cert.json")]) == 0
    assert Fraction(instability["eps_exp_low"]) < Fraction(instability["eps_exp_high"])


def test_the_survey_is_proved_stable_for_every_e_eps_of_a_range(tmp_path, capsys):
    """Issue 15's goal: the survey (RR on 4 categories, 30 respondents, 20 known) on [3/2, 8] is stable
    for every analyst at every pair of e^ε there (exit 0); its 286 × 31 pipeline is too large to follow
    the analyst symbolically, which the report says."""
    out = tmp_path / "r.json"
    text = (EXAMPLES / "survey_rr.toml").read_text()
    spec = tmp_path / "survey_range.toml"
    spec.write_text(text[: text.index("[sweep]")] + '[sweep]\nfrom = "3/2"\nto = "8"\n')
    folder = tmp_path / "cert"
    assert main(["stability", str(spec), "--json", str(out), "--certificate", str(folder)]) == 0
    report = json.loads(out.read_text())
    assert report["stable"] is True and report["coverage"] == "interval"
    assert json.loads((folder / "range-proof.json").read_text())["miss"] == "1/(t + 3)"
    assert report["range"]["every_analyst"]["proved"] and report["range"]["every_analyst"]["hit"] == "t/(t + 3)"
    assert "not followed" in report["range"]["analyst"]
    assert "every analyst: PROVED" in capsys.readouterr().out


def test_a_certificate_path_that_is_a_file_is_refused_before_any_work(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    assert main(["stability", str(EXAMPLES / "appd1.toml"), "--certificate", str(blocker)]) == 2
    assert "is not a folder" in capsys.readouterr().err and blocker.read_text() == "keep"


def test_the_readme_quickstart_spec_runs_and_is_stable(tmp_path):
    """The spec on the README's first screen, as a newcomer would copy it: exit 0, a proof for the
    range that verify re-checks; its question is the spec's analyst, so no grid pair is compared."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    spec = readme[readme.index("cat > my_pipeline.toml <<'TOML'\n") + len("cat > my_pipeline.toml <<'TOML'\n"):]
    (tmp_path / "my_pipeline.toml").write_text(spec[: spec.index("\nTOML\n") + 1])
    folder = tmp_path / "certs"
    assert main(["stability", str(tmp_path / "my_pipeline.toml"), "--certificate", str(folder)]) == 0
    assert (folder / "range-proof.json").exists()
    assert main(["verify", "--range-proof", str(folder / "range-proof.json"), str(tmp_path / "my_pipeline.toml")]) == 0
    assert not (folder / "pair-1").exists()


def test_progress_is_reported_per_pair_on_stderr(tmp_path, capsys):
    spec = _spec(tmp_path, family="randomized_response", values=3, respondents=2, of=(0,), eps=("3/2", "2", "3"))
    assert main(["stability", spec]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == ["the analyst's loss at 3 e^ε of the grid", "pair 1/2",
                                                     "pair 2/2"] and "refines" in err[1]
    assert err[2].endswith("about 0 s left")
    assert main(["stability", spec, "-q"]) == 0  # a quiet gate: the verdict, no progress
    quiet = capsys.readouterr()
    assert quiet.err == "" and "stable (certified" in quiet.out


def test_a_time_limit_leaves_the_gate_undecided_unless_an_instability_is_certified(tmp_path, capsys):
    """--time-limit (issues 15, 32): it stops the run wherever it is, the range included; a stable
    run stops undecided (exit 4, saying where), an instability found by then still fails the gate."""
    out = tmp_path / "report.json"
    for example in ("survey_rr.toml", "appd1_range.toml"):
        assert main(["stability", str(EXAMPLES / example), "--time-limit", "1e-9", "--json", str(out)]) == 4
        report = json.loads(out.read_text())
        assert report["stable"] is None and report["undecided"].startswith("the time limit of 1e-09 s was reached")
        assert "not decided: the time limit" in capsys.readouterr().out
    # the timer is stood in for by the progress line of the first pair: the analyst's rise on the grid
    # was certified before it, and stands
    from proofs_checks.gate import evaluate_spec, read_spec
    from qifkit.errors import TimeLimitReached

    def stop_at_a_pair(line):
        if line.startswith("pair"):
            raise TimeLimitReached

    report, certificates = evaluate_spec(read_spec(str(EXAMPLES / "appd1.toml")), progress=stop_at_a_pair)
    assert report.stable is False and report.instability.found_by == "analyst" and certificates


def test_ctrl_c_writes_the_partial_report_and_keeps_what_was_certified(tmp_path, monkeypatch, capsys):
    """Issue 32: Ctrl-C in the second grid pair: exit 130, the report written with the first pair's
    verdict and its certificate kept for qifkit verify."""
    from proofs_checks.gate import evaluate as gate_evaluate

    calls = []
    original = gate_evaluate.pipeline_refinement

    def interrupted_second(*arguments, **keywords):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(*arguments, **keywords)

    monkeypatch.setattr(gate_evaluate, "pipeline_refinement", interrupted_second)
    spec = _spec(tmp_path, family="randomized_response", values=3, respondents=2, of=(0,), eps=("3/2", "2", "3"))
    out, folder = tmp_path / "r.json", tmp_path / "certs"
    assert main(["stability", spec, "--json", str(out), "--certificate", str(folder)]) == 130
    report = json.loads(out.read_text())
    assert report["interrupted"] is True and report["stable"] is None
    assert report["undecided"] == "interrupted (Ctrl-C) after 1 of 2 grid pairs"
    assert [pair["verdict"] for pair in report["pairs"]] == ["refines", "not compared"]
    place = folder / "pair-1"
    assert main(["verify", str(place / "a.csv"), str(place / "b.csv"), str(place / "cert.json")]) == 0
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["0", "-3", "nan", "inf", "soon"])
def test_a_time_limit_that_is_not_a_positive_number_is_refused(limit, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["stability", str(EXAMPLES / "survey_rr.toml"), "--time-limit", limit])
    assert stop.value.code == 2 and "--time-limit" in capsys.readouterr().err


def test_plot_draws_the_loss_and_its_float_curve_rises_where_the_exact_stretch_is(tmp_path, monkeypatch, capsys):
    """--plot (issue 15): a PNG of App. D.1's loss on [3, 4]; the float64 curve it draws rises inside the
    exact rising stretch [3.50054..., 3.51661...] and falls on both sides of it."""
    from proofs_checks.gate import read_spec, sampled_losses

    picture = tmp_path / "loss.png"
    assert main(["stability", str(EXAMPLES / "appd1_range.toml"), "--plot", str(picture)]) == 1
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    spec = read_spec(str(EXAMPLES / "appd1_range.toml"))
    before, inside, after = (
        [Fraction(v) for v in pair] for pair in (("3.4", "3.45"), ("3.5008", "3.516"), ("3.6", "3.7"))
    )
    assert all(first > second for first, second in (sampled_losses(spec, before), sampled_losses(spec, after)))
    first, second = sampled_losses(spec, inside)
    assert first < second
    assert main(["stability", str(EXAMPLES / "appd1_range.toml"), "--plot", str(tmp_path / "loss.gif")]) == 2
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # as if it were not installed
    assert main(["stability", str(EXAMPLES / "appd1_range.toml"), "--plot", str(picture)]) == 2
    assert "pip install 'qifkit[plot]'" in capsys.readouterr().err


def test_a_perturber_given_as_files_gives_the_verdict_of_its_family(tmp_path):
    """Family "file" (issue 15): examples/own_perturber holds randomized response on 3 values at e^ε = 2
    and 3 as CSV files; its report is the one of family = "randomized_response" on the same grid."""
    from_files, from_family = tmp_path / "files.json", tmp_path / "family.json"
    assert main(["stability", str(EXAMPLES / "own_perturber" / "spec.toml"), "--json", str(from_files)]) == 0
    spec = _spec(tmp_path, family="randomized_response", values=3, respondents=3, known=(0, 2), eps=("2", "3"))
    assert main(["stability", spec, "--json", str(from_family)]) == 0
    files, family = (json.loads(path.read_text()) for path in (from_files, from_family))
    assert files["points"] == family["points"] and files["stable"] is family["stable"] is True


@pytest.mark.parametrize("change, message", [
    ({"files": '{ "2" = "rr_2.csv" }'}, "no CSV for e^ε = 3 of the grid"),
    ({"files": '{ "2" = "rr_3.csv", "3" = "rr_3.csv" }'}, "is not 2-locally-private: its tightest e^ε is 3"),
    ({"values": "4"}, "is 3 × 3; values = 4 needs 4 × 4"),
    ({"files": '{ "2" = "missing.csv", "3" = "rr_3.csv" }'}, "cannot read the perturber"),
    ({"sweep": 'from = "2"\nto = "3"'}, "known at the grid's e^ε only"),
])
def test_a_file_perturber_is_refused_with_the_reason(tmp_path, capsys, change, message):
    import shutil

    folder = tmp_path / "own"
    shutil.copytree(EXAMPLES / "own_perturber", folder)
    text = (folder / "spec.toml").read_text()
    if "files" in change:
        text = text.replace('files = { "2" = "rr_2.csv", "3" = "rr_3.csv" }', f"files = {change['files']}")
    if "values" in change:
        text = text.replace("values = 3", f"values = {change['values']}").replace("known = [0, 2]", "known = [0, 3]")
    if "sweep" in change:
        text = text.replace('eps_exp = ["2", "3"]', change["sweep"])
    (folder / "spec.toml").write_text(text)
    assert main(["stability", str(folder / "spec.toml")]) == 2
    assert message in capsys.readouterr().err


def test_a_perturber_given_as_expressions_in_t_gives_the_verdict_of_its_family(tmp_path):
    """Family "expression" (issue 15): examples/own_perturber/rr_t.csv is randomized response on 3
    values written in t = e^ε; on its grid and its range [3/2, 8] the report is the one of family =
    "randomized_response", including the proof for every analyst over the whole range."""
    from_matrix, from_family = tmp_path / "matrix.json", tmp_path / "family.json"
    assert main(["stability", str(EXAMPLES / "own_perturber" / "expression.toml"), "--json", str(from_matrix)]) == 0
    spec = _spec(tmp_path, family="randomized_response", values=3, respondents=3, known=(0, 2), eps=("3/2", "2", "8"),
                 low="3/2", high="8")
    assert main(["stability", spec, "--json", str(from_family)]) == 0
    matrix, family = (json.loads(path.read_text()) for path in (from_matrix, from_family))
    assert matrix["points"] == family["points"] and matrix["range"] == family["range"]
    assert matrix["stable"] is family["stable"] is True and matrix["coverage"] == "grid and interval"


@pytest.mark.parametrize("cells, message", [
    # t²-randomized response is e^(2ε)-private, not e^ε: refused at the grid's first point
    (["t^2/(t^2+2)", "1/(t^2+2)"], "at e^ε = 3/2 is not 3/2-locally-private: its tightest e^ε is 9/4"),
    # rows that do not sum to 1 for every t
    (["t/(t+1)", "1/(t+2)"], "sums to"),
    (["t/(t+2", "1/(t+2)"], "row 0: 't/(t+2' ends where ')' should follow"),
    (["__import__('os')/2", "1/(t+2)"], "row 0:"),
])
def test_an_expression_perturber_is_refused_with_the_reason(tmp_path, capsys, cells, message):
    diagonal, other = cells
    folder = tmp_path / "own"
    folder.mkdir()
    (folder / "p.csv").write_text(
        "\n".join(",".join(diagonal if i == j else other for j in range(3)) for i in range(3))
    )
    spec = (EXAMPLES / "own_perturber" / "expression.toml").read_text().replace('"rr_t.csv"', '"p.csv"')
    (folder / "spec.toml").write_text(spec)
    assert main(["stability", str(folder / "spec.toml")]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("off_diagonal, grid, range_, message", [
    # randomized response at e^ε = 3/2 and 2, but its off-diagonal entry falls below 0 before e^ε = 8
    ("(1-(t-3/2)*(t-2)/10)/(1+t)", '"3/2", "2"', ("3/2", "8"), "is not ≥ 0 for every e^ε in [3/2, 8]"),
    # a ratio of t + (t - 3/2)(t - 2) between the rows: t at the grid's points, more than t beyond 2
    ("1/(1+t+(t-3/2)*(t-2))", '"3/2", "2"', ("3/2", "3"),
     "is not e^ε-locally-private on [3/2, 3]: C[0, 0] ≤ t·C[1, 0] fails somewhere"),
])
def test_an_expression_perturber_private_on_the_grid_but_not_on_the_whole_range_is_refused(
        tmp_path, capsys, off_diagonal, grid, range_, message):
    folder = tmp_path / "own"
    folder.mkdir()
    diagonal = f"1-({off_diagonal})"
    (folder / "p.csv").write_text(f"{diagonal},{off_diagonal}\n{off_diagonal},{diagonal}\n")
    spec = (EXAMPLES / "own_perturber" / "expression.toml").read_text().replace('"rr_t.csv"', '"p.csv"')
    spec = spec.replace("values = 3", "values = 2").replace("known = [0, 2]", "known = [0, 1]")
    spec = spec.replace('eps_exp = ["3/2", "2", "8"]', f"eps_exp = [{grid}]")
    spec = spec.replace('from = "3/2"\nto = "8"', f'from = "{range_[0]}"\nto = "{range_[1]}"')
    (folder / "spec.toml").write_text(spec)
    assert main(["stability", str(folder / "spec.toml")]) == 2
    assert message in capsys.readouterr().err
    spec = spec.replace(f'from = "{range_[0]}"\nto = "{range_[1]}"', "")  # on the grid alone it is accepted
    (folder / "spec.toml").write_text(spec)
    assert main(["stability", str(folder / "spec.toml")]) in (0, 1)


def test_a_threshold_query_releases_whether_the_count_reaches_at(tmp_path):
    """kind = "threshold" (issue 15): the count of zeros among 4 respondents (3 known), released as
    count >= 2. Its losses are those of the count pipeline with its columns merged by hand."""
    from qifkit import Channel, linear_error, posterior_uncertainty, truncated_geometric, uniform_prior
    from qifkit.pipelines import count_pipeline

    out = tmp_path / "r.json"
    spec = _spec(tmp_path, family="geometric", values=5, respondents=4, known=(0, 1, 4), query="count", loss="linear",
                 eps=("3/2", "2", "3"))
    text = Path(spec).read_text().replace('kind = "count"', 'kind = "threshold"\nat = 2')
    Path(spec).write_text(text)
    assert main(["stability", spec, "--json", str(out)]) in (0, 1)
    for point in json.loads(out.read_text())["points"]:
        counts = count_pipeline(truncated_geometric(5, eps_exp=point["eps_exp"]), 4, {0}, (0, 1, 4)).rows()
        merged = Channel.from_rows([[sum(row[:2]), sum(row[2:])] for row in counts])
        expected = posterior_uncertainty(uniform_prior(range(5)), merged, linear_error(range(5)))
        assert Fraction(point["loss"]) == expected


@pytest.mark.parametrize(
    "query, message",
    [
        (
            'kind = "threshold"\nof = [0]\nat = 0',
            "[query] at (a threshold query releases count >= at) must be a whole number >= 1",
        ),
        ('kind = "threshold"\nof = [0]\nat = 5', "more than the 2 respondents"),
        ('kind = "threshold"\nof = [0]', "must be a whole number >= 1"),
        ('kind = "count"\nof = [0]\nat = 1', "at is for a threshold query"),
    ],
)
def test_a_threshold_query_is_refused_with_the_reason(tmp_path, capsys, query, message):
    spec = _spec(tmp_path)
    Path(spec).write_text(Path(spec).read_text().replace('kind = "count"\nof = [0]', query))
    assert main(["stability", spec]) == 2
    assert message in capsys.readouterr().err


def test_an_analysts_loss_from_a_file_gives_the_verdict_of_the_same_named_loss(tmp_path):
    """loss = "loss.csv" (issue 15): three times the linear loss on 0..4, written as a CSV with action
    names, gives the report of loss = "linear" with scale = 3."""
    rows = [",".join(str(3 * abs(x - w)) for w in range(5)) for x in range(5)]
    (tmp_path / "loss.csv").write_text(
        ",w0,w1,w2,w3,w4\n" + "\n".join(f"{x},{row}" for x, row in enumerate(rows)) + "\n"
    )
    reports = []
    for loss in ("linear", "loss.csv"):
        out = tmp_path / f"{loss}.json"
        spec = _spec(tmp_path, family="geometric", values=5, respondents=3, known=(0, 1), loss=loss, eps=("2", "3"))
        Path(spec).write_text(Path(spec).read_text().replace('loss = "linear"', 'loss = "linear"\nscale = 3'))
        assert main(["stability", spec, "--json", str(out)]) in (0, 1)
        reports.append(json.loads(out.read_text()))
    assert reports[0]["points"] == reports[1]["points"] and reports[0]["stable"] == reports[1]["stable"]


@pytest.mark.parametrize("content, known, message", [
    ("0,1\n1,0\n", (0, 1), "has 2 rows; the unknown respondent has 5 values"),
    ("0,1\n1,x\n" * 2 + "1,1\n", (0, 1), "loss entry (1, 1): 'x' is not a number"),
    ("0,1\n" * 5, (0,), "one row per value of the one unknown respondent"),
    (None, (0, 1), "cannot read the loss"),
])
def test_a_loss_file_is_refused_with_the_reason(tmp_path, capsys, content, known, message):
    if content is not None:
        (tmp_path / "loss.csv").write_text(content)
    spec = _spec(tmp_path, family="geometric", values=5, respondents=3, known=known, loss="loss.csv")
    assert main(["stability", spec]) == 2
    assert message in capsys.readouterr().err


def test_known_counts_stand_for_the_list_of_known_values(tmp_path):
    """known_counts (for census-sized populations): {"0" = 2, "2" = 1} is known = [0, 0, 2]."""
    reports = []
    for population in ("known = [0, 0, 2]", 'known_counts = { "0" = 2, "2" = 1 }'):
        out = tmp_path / f"{len(reports)}.json"
        spec = _spec(tmp_path, family="geometric", values=3, respondents=4, known=(0, 0, 2), eps=("2", "3"))
        Path(spec).write_text(Path(spec).read_text().replace("known = [0, 0, 2]", population))
        assert main(["stability", spec, "--json", str(out)]) in (0, 1)
        reports.append(json.loads(out.read_text()))
    assert reports[0]["points"] == reports[1]["points"] and reports[0]["stable"] == reports[1]["stable"]


@pytest.mark.parametrize("population, message", [
    ('known = [0]\nknown_counts = { "0" = 1 }', "not both"),
    ('known_counts = { "3" = 1 }', "'3' is not a value 0..2"),
    ('known_counts = { "x" = 1 }', "'x' is not a value"),
    ('known_counts = { "0" = -1 }', "must be a whole number >= 0"),
    ('known_counts = { "0" = 4 }', "one must stay unknown"),
    ('known_counts = { "0" = 1000000000000 }', "add up to 1,000,000,000,000 but respondents − 1 = 3"),
    ('known_counts = [0, 1]', "must be a table of value = count"),
])
def test_known_counts_are_refused_with_the_reason(tmp_path, capsys, population, message):
    spec = _spec(tmp_path, family="geometric", values=3, respondents=4, known=(0,))
    Path(spec).write_text(Path(spec).read_text().replace("known = [0]", population))
    assert main(["stability", spec]) == 2
    assert message in capsys.readouterr().err


def test_a_census_sized_exact_grid_is_refused_before_any_work_and_its_float_curve_runs(tmp_path, capsys):
    """11,710 respondents, one unknown: certifying a pair would need an 11,711 × 11,711 exact witness (it
    ran for over 10 minutes before this check); the float curve takes a few seconds."""
    spec = _spec(tmp_path, family="randomized_response", values=2, respondents=11710, known=(0,), eps=("3/2", "2"))
    Path(spec).write_text(Path(spec).read_text().replace("known = [0]", 'known_counts = { "0" = 5000, "1" = 6709 }'))
    assert main(["stability", spec]) == 2
    assert "11,711 × 11,711 witness" in capsys.readouterr().err
    Path(spec).write_text(Path(spec).read_text().replace("exact = true", "exact = false"))
    assert main(["stability", spec]) == 4  # a float sweep decides nothing, and says so
    assert "0.4992" in capsys.readouterr().out


def test_a_specs_files_are_read_once_whatever_the_options(tmp_path, monkeypatch):
    """Issue 32: the spec layer re-read the same CSV up to 6 times (parsing, the analyst of each
    step, the plot). The prior and loss files are now read once per parsed spec, however many steps
    and options use them (grid, range, --plot, --json), and the perturber family is built once."""
    from proofs_checks.gate import values as gate_values

    (tmp_path / "prior.csv").write_text("1/2\n1/4\n1/8\n1/16\n1/16\n")
    (tmp_path / "loss.csv").write_text("\n".join(",".join(str(abs(x - w)) for w in range(5)) for x in range(5)) + "\n")
    reads: list[str] = []
    original = gate_values.read_table_csv

    def counted(path, *arguments, **keywords):
        reads.append(Path(path).name)
        return original(path, *arguments, **keywords)

    monkeypatch.setattr(gate_values, "read_table_csv", counted)
    spec = _spec(tmp_path, family="geometric", values=5, respondents=3, known=(0, 1), prior="prior.csv",
                 loss="loss.csv", eps=("2", "3"), low="2", high="4")
    assert main(["stability", spec, "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "x.svg")]) in (0, 1, 4)
    assert sorted(reads) == ["loss.csv", "prior.csv"]


def test_the_readme_population_release_is_stable_by_the_others_mode(tmp_path):
    """The README's second spec (a target, 1,500 known, 499 from the population's shares, a
    tolerance), as a newcomer copies it: exit 0, its range proved by the others' mode."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    start = "cat > release.toml <<'TOML'\n"
    spec = readme[readme.index(start) + len(start):]
    (tmp_path / "release.toml").write_text(spec[: spec.index("\nTOML\n") + 1])
    out = tmp_path / "r.json"
    assert main(["stability", str(tmp_path / "release.toml"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["range"]["route"] == "mode" and report["tolerance"] == "1/1000"
