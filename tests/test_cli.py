"""The console command: `qifkit check` as a user runs it."""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from fractions import Fraction as F

import pytest

from proofs_checks.cli import main
from proofs_checks.registry import registry


def registry_ids():
    return list(registry())


def test_only_appd1_reports_both_exact_losses(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["check", "--only", "alvim23.appd1", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    (entry,) = document["checks"]
    assert entry["id"] == "alvim23.appd1" and entry["status"] == "reproduced"
    assert entry["evidence"]["loss_at_7_over_2"] == "1276949536000/771895089"
    assert entry["evidence"]["loss_at_351_over_100"] == "2552438666271995640492212000/1542907143753726048154857"
    assert set(entry) >= {"id", "status", "source", "statement", "seconds", "evidence"}
    assert document["summary"]["reproduced"] == 1 and document["summary"]["failed"] == 0
    assert "1 checks: 0 confirmed, 1 reproduced, 0 erratum, 0 failed" in capsys.readouterr().out
    assert main(["check", "--only", "alvim23.appd1", "-q"]) == 0  # no progress line, the summary only
    assert capsys.readouterr().out.splitlines() == ["1 checks: 0 confirmed, 1 reproduced, 0 erratum, 0 failed"]


def test_list_prints_every_id_with_its_source(capsys):
    assert main(["check", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("cormode18.fig7") and "Cormode" in line for line in lines)


def test_unknown_only_is_an_error_with_near_matches(capsys):
    assert main(["check", "--only", "alvim23.appd"]) == 2
    error = capsys.readouterr().err
    assert "no check id matches alvim23.appd" in error and "alvim23.appd1" in error


def test_unwritable_json_path_fails_before_running(tmp_path, capsys):
    target = tmp_path / "missing" / "out.json"
    assert main(["check", "--only", "cormode18.example1", "--json", str(target)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not target.exists()


def test_failed_check_gives_exit_status_one(monkeypatch, tmp_path):
    from proofs_checks import registry as registry_module
    from proofs_checks.claims import Outcome, Status

    original = registry_module.registry()

    def failing() -> Outcome:
        return Outcome(Status.FAILED, "FAILED: on purpose")

    check = original["cormode18.example1"]
    monkeypatch.setattr(
        "proofs_checks.cli.check.registry", lambda: {check.id: type(check)(check.id, failing, "s", "t", "m", "a")}
    )
    out = tmp_path / "r.json"
    assert main(["check", "--json", str(out)]) == 1
    assert json.loads(out.read_text())["summary"]["failed"] == 1


def test_interrupted_run_still_writes_what_finished(monkeypatch, tmp_path):
    from proofs_checks.cli import check as cli

    real = cli.run_check
    finished = []

    def interrupt_second(check, **options):
        if finished:
            raise KeyboardInterrupt
        finished.append(check.id)
        return real(check, **options)

    monkeypatch.setattr(cli, "run_check", interrupt_second)
    out = tmp_path / "partial.json"
    assert main(["check", "--only", "cormode18.*", "--json", str(out)]) == 130
    document = json.loads(out.read_text())
    cormode = [claim_id for claim_id in registry_ids() if claim_id.startswith("cormode18.")]
    assert len(document["checks"]) == 1 and len(document["not_run"]) == len(cormode) - 1


@pytest.mark.skipif(
    shutil.which("qifkit") is None and not os.path.exists(os.path.join(os.path.dirname(sys.executable), "qifkit")),
    reason="console script not installed",
)
def test_console_script_runs(tmp_path):
    script = shutil.which("qifkit") or os.path.join(os.path.dirname(sys.executable), "qifkit")
    done = subprocess.run(
        [script, "check", "--only", "cormode18.example1"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "cormode18.example1" in done.stdout and "reproduced" in done.stdout


def _write(path, rows):
    path.write_text("\n".join(",".join(row) for row in rows) + "\n")
    return str(path)


R2 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/4", "1/4", "1/2"]]
R3 = [["3/5", "1/5", "1/5"], ["1/5", "3/5", "1/5"], ["1/5", "1/5", "3/5"]]


def test_refine_then_verify_both_ways(tmp_path, capsys):
    r2, r3 = _write(tmp_path / "r2.csv", R2), _write(tmp_path / "r3.csv", R3)
    holds, fails = tmp_path / "holds.json", tmp_path / "fails.json"
    assert main(["refine", r3, r2, "--json", str(holds)]) == 0
    assert main(["refine", r2, r3, "--json", str(fails)]) == 1
    out = capsys.readouterr().out
    assert "A ⊑ B: holds" in out and "does not hold" in out and "gap" in out
    document = json.loads(fails.read_text())
    assert document["refines"] is False and document["witness"] is None and document["gap"]
    gap = F(document["gap"])  # the decimal beside each exact uncertainty and the gap (issue 18)
    assert f"gap {document['gap']}  (≈ {float(gap):.10g})" in out
    assert f"U(prior, A) = {document['uncertainty_a']}  (≈ " in out
    assert main(["verify", r3, r2, str(holds)]) == 0
    assert main(["verify", r2, r3, str(fails)]) == 0
    assert main(["verify", r2, r3, str(holds)]) == 1  # a certificate for other channels


def test_verify_rejects_a_corrupted_certificate(tmp_path):
    r2, r3 = _write(tmp_path / "r2.csv", R2), _write(tmp_path / "r3.csv", R3)
    cert = tmp_path / "c.json"
    assert main(["refine", r2, r3, "--json", str(cert)]) == 1
    original = json.loads(cert.read_text())
    for key, value in (("gap", "1/2"), ("uncertainty_b", "0"), ("prior", ["1/2", "1/2", "0"])):
        cert.write_text(json.dumps(dict(original, **{key: value})))
        assert main(["verify", r2, r3, str(cert)]) == 1, key


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ('{"refines": "yes"}', "boolean"),
        ('{"refines": true, "witness": [["1/0"]]}', "witness"),
        ('{"refines": false, "prior": ["1"], "loss": [[0]]}', "prior"),
    ],
)
def test_verify_refuses_malformed_certificates(tmp_path, capsys, content, message):
    r2, r3 = _write(tmp_path / "r2.csv", R2), _write(tmp_path / "r3.csv", R3)
    cert = tmp_path / "bad.json"
    cert.write_text(content)
    assert main(["verify", r2, r3, str(cert)]) == 2
    assert message in capsys.readouterr().err


def test_refine_refuses_channels_on_different_secrets_and_missing_files(tmp_path, capsys):
    r2 = _write(tmp_path / "r2.csv", R2)
    small = _write(tmp_path / "small.csv", [["1/2", "1/2"], ["1", "0"]])
    assert main(["refine", r2, small]) == 2
    assert "3 secrets and B has 2" in capsys.readouterr().err
    assert main(["refine", r2, str(tmp_path / "missing.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["sec62-sum-rr", "sec71-zeros", "sec71-sum-gd"])
def test_papers_counterexamples_verify_from_the_command_line(tmp_path, case):
    """Alvim et al. §6.2 and §7.1: each counterexample, written as CSV, refined and verified by the CLI."""
    from qifkit import randomized_response, truncated_geometric
    from qifkit.postprocess import count_query, sum_query

    if case == "sec62-sum-rr":
        strong, weak = randomized_response(3, eps_exp="3"), randomized_response(3, eps_exp="2")
    else:
        strong, weak = truncated_geometric(3, alpha="1/3"), truncated_geometric(3, alpha="1/2")
    outputs = strong.power(2).outputs
    query = count_query(outputs, counted={0}) if case == "sec71-zeros" else sum_query(outputs)
    a, b, cert = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "cert.json"
    (strong.power(2) @ query).to_csv(a)
    (weak.power(2) @ query).to_csv(b)
    assert main(["refine", str(a), str(b), "--json", str(cert)]) == 1
    assert json.loads(cert.read_text())["refines"] is False
    assert main(["verify", str(a), str(b), str(cert)]) == 0


def test_markdown_report_lists_errata_first(tmp_path):
    out = tmp_path / "report.md"
    assert main(["check", "--only", "cormode18.*", "--markdown", str(out)]) == 0
    text = out.read_text()
    assert text.index("## Errata") < text.index("## Cormode")
    assert "cormode18.fig7" in text and "The paper says" in text


def test_full_tier_runs_the_long_variant(capsys):
    assert main(["check", "--only", "alvim23.fig3-ama", "--full"]) == 0
    assert "erratum" in capsys.readouterr().out


# ---------------------------------------------------------------------------------- start-up (issue 18)
def test_help_and_version_start_without_the_numeric_layers():
    """`qifkit --help` and `qifkit --version` build the parser only: no sympy, numpy, scipy or FLINT
    is imported (they made --help take 1.4 s), and the version is the installed package's."""
    import subprocess
    import sys
    from importlib.metadata import version

    probe = ("import sys\nfrom proofs_checks.cli import main\n"
             "for argv in (['--help'], ['--version'], ['stability', '--help']):\n"
             "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
             "print(sorted(m for m in ('sympy', 'numpy', 'scipy', 'flint', 'cdd') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert found.stdout.strip().endswith("[]"), found.stdout[-300:]
    assert f"qifkit {version('qifkit')}" in found.stdout


def test_the_parsers_choices_are_those_of_their_homes():
    from polytopes.constrained import PROPERTIES
    from polytopes.fixed_point.runs import SELECTORS
    from proofs_checks.cli import app as cli
    from proofs_checks.cli import enumerate as cli_enumerate

    assert cli.PROPERTIES == PROPERTIES and cli.SELECTORS == SELECTORS
    assert cli.POLYTOPE_NAMES == tuple(sorted(cli_enumerate._POLYTOPES))
    from polytopes.fixed_point.named import NAMED_FIXED_POINTS
    from proofs_checks.cli.io import NAMED_FIXED_POINTS as PARSED

    assert PARSED == NAMED_FIXED_POINTS


def test_an_internal_error_is_one_line_and_exit_3_and_debug_shows_it(monkeypatch, capsys):
    """Exit statuses (issue 14): a bug of ours is not a traceback for the user, unless asked."""
    from proofs_checks.cli import check as cli_commands

    def broken(arguments):
        raise KeyError("a bug")

    monkeypatch.setattr(cli_commands, "run", broken)
    assert main(["check", "--list"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("qifkit: internal error: KeyError") and "--debug" in err and len(err.splitlines()) == 1
    with pytest.raises(KeyError, match="a bug"):
        main(["check", "--list", "--debug"])


def test_a_broken_guarantee_is_an_internal_error_not_bad_input(monkeypatch, capsys):
    """An InternalError (a certificate that failed its own re-check) is a QifError, but exit 3 and
    the bug wording, never exit 2 and "error", which would blame the input."""
    from proofs_checks.cli import check as cli_commands
    from qifkit.errors import InternalError

    def broken(arguments):
        raise InternalError("a refinement certificate failed its exact re-check")

    monkeypatch.setattr(cli_commands, "run", broken)
    assert main(["check", "--list"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("qifkit: internal error: a refinement certificate") and "bug" in err
    with pytest.raises(InternalError):
        main(["check", "--list", "--debug"])


def test_memory_exhaustion_is_refused_in_one_line(monkeypatch, capsys):
    from proofs_checks.cli import check as cli_commands

    def exhausted(arguments):
        raise MemoryError

    monkeypatch.setattr(cli_commands, "run", exhausted)
    assert main(["check", "--list"]) == 2
    assert "too large for this machine" in capsys.readouterr().err


def test_every_command_has_a_description_and_examples_that_parse(capsys):
    """Every subcommand's --help says what it does and shows examples (issue 18); each example
    is a valid command line for the parser, and named properties are Cormode's."""
    from proofs_checks.cli.app import _GUIDE, PROPERTIES, _parser

    parser = _parser()
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction)).choices
    assert set(_GUIDE) == set(commands)
    for name, (description, examples) in _GUIDE.items():
        with pytest.raises(SystemExit):
            main([name, "--help"])
        shown = capsys.readouterr().out
        assert " ".join(description.split()[:4]) in " ".join(shown.split()) and "examples:" in shown
        for example in examples:
            assert example in shown
            arguments = shlex.split(example)[1:]
            assert parser.parse_args(arguments).command == name
            if "--props" in arguments:
                assert set(arguments[arguments.index("--props") + 1].split(",")) <= set(PROPERTIES)


def test_verbose_says_how_each_answer_was_reached_and_quiet_does_not(tmp_path, capsys):
    """-v adds indented "·" lines (the route, sizes, seconds) under the answers; -q and -v together
    are refused as a usage error."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("1,0\n0,1\n")
    b.write_text("1/2,1/2\n1/2,1/2\n")
    assert main(["refine", str(a), str(b), "-v"]) == 0
    out = capsys.readouterr().out
    assert "A ⊑ B: holds" in out and "  · A is 2×2, B is 2×2; decided and re-checked in" in out
    assert main(["refine", str(a), str(b)]) == 0
    assert "  · " not in capsys.readouterr().out
    assert main(["check", "--only", "cormode18.example1", "-v"]) == 0
    out = capsys.readouterr().out
    assert "  · Cormode" in out and "evidence: " in out
    assert main(["design", "--max-count", "3", "--alpha", "1/2", "--props", "F", "-v"]) == 0
    assert "  · 4×4 mechanism, the exact optimum of Cormode et al.'s LP, certified" in capsys.readouterr().out
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--method", "orbits", "-v"]) == 0
    out = capsys.readouterr().out
    assert "  · LDP" in out and out.count("  · orbit ") >= 2
    with pytest.raises(SystemExit) as refused:
        main(["refine", str(a), str(b), "-q", "-v"])
    assert refused.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_ldp_orbits_take_the_fastest_complete_method_by_default(capsys):
    """Issues 54 and 55: ``enumerate LDP --n 5 --orbits`` without --method runs the tight and loose rows
    (under a second; the face sets take about one, by support it took minutes), and counts Holohan et
    al.'s D at n = 5, e^ε = 2 as the census does."""
    assert main(["enumerate", "LDP", "--n", "5", "--eps-exp", "2", "--orbits"]) == 0
    out = capsys.readouterr().out
    assert "164825 vertices in 47 orbits" in out and "tight and loose rows" in out
    # workers asked for: the rows still, spread over them (here one, in this process)
    assert main(["enumerate", "LDP", "--n", "5", "--eps-exp", "2", "--orbits", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "164825 vertices in 47 orbits" in out and "tight and loose rows" in out


def test_u_by_columns_writes_a_census_its_checker_accepts(tmp_path, capsys):
    """Issue 55: ``enumerate U --method columns`` counts cddlib's vertices of U (n = 4) and writes the
    census file of results/, which check_u_census accepts with its recount."""
    from polytopes.enumerate import enumerate_vertices
    from polytopes.spaces import count_polytope
    from polytopes.u_columns import check_u_census

    target = tmp_path / "u.json"
    assert main(["enumerate", "U", "--n", "4", "--eps-exp", "3/2", "--method", "columns", "--json", str(target)]) == 0
    cdd = len(enumerate_vertices(count_polytope(4, eps_exp="3/2")).vertices)
    assert f"{cdd} vertices in 21 orbits under a group of order 48" in capsys.readouterr().out
    assert check_u_census(json.loads(target.read_text()), recount=True).count == cdd


def test_f_by_columns_writes_a_census_its_checker_accepts(tmp_path, capsys):
    """Issue 55: ``enumerate F --method columns`` (the uniform z, given or not) counts cddlib's
    vertices of F (n = 4) and writes the census file of results/, which check_f_census accepts with
    its recount."""
    from polytopes.enumerate import enumerate_vertices
    from polytopes.f_columns import check_f_census
    from polytopes.spaces import count_polytope

    target = tmp_path / "f.json"
    argv = ["enumerate", "F", "--n", "4", "--eps-exp", "3/2", "--method", "columns", "--json", str(target)]
    assert main(argv) == 0
    cdd = len(enumerate_vertices(count_polytope(4, eps_exp="3/2", fixed=True)).vertices)
    assert f"{cdd} vertices in 41 orbits under a group of order 48" in capsys.readouterr().out
    assert check_f_census(json.loads(target.read_text()), recount=True).count == cdd
    assert main([*argv[:-2], "--z", "1/4,1/4,1/4,1/4"]) == 0
    assert f"{cdd} vertices" in capsys.readouterr().out


def test_f_at_n5_is_by_columns_by_default(capsys):
    """``enumerate F --n 5`` (uniform z) takes the columns' steps without being asked (cddlib does
    not finish n = 5): Normaliz's 1,169,850 vertices at e^ε = 2 in 5,008 orbits."""
    from proofs_checks.beyond import F_N5_COUNTS

    assert main(["enumerate", "F", "--n", "5", "--eps-exp", "2"]) == 0
    count, orbits = F_N5_COUNTS["2"]
    assert f"{count} vertices in {orbits} orbits under a group of order 240" in capsys.readouterr().out


@pytest.mark.parametrize("argv, says", [
    (["enumerate", "RU", "--n", "4", "--eps-exp", "2", "--method", "columns"], "RU is neither"),
    (["enumerate", "F", "--n", "4", "--eps-exp", "2", "--method", "columns", "--z", "binomial"], "not z = (1/8,"),
    (["enumerate", "F", "--n", "7", "--eps-exp", "2", "--method", "columns"], "stops at n = 6 for F"),
    (["enumerate", "F", "--n", "7", "--eps-exp", "2"], "n = 6 with --method columns, the default there for the"),
    (["enumerate", "F", "--n", "6", "--eps-exp", "2", "--method", "cdd"], "n = 6 with --method columns"),
    (["enumerate", "U", "--n", "7", "--eps-exp", "2"], "n = 6 with --method columns"),
    (["enumerate", "U", "--n", "7", "--eps-exp", "2", "--method", "columns"], "stops at n = 6"),
    (["enumerate", "U", "--n", "6", "--eps-exp", "2", "--method", "cdd"], "n = 6 with --method columns"),
    (["enumerate", "U", "--n", "4", "--eps-exp", "2", "--method", "columns", "--workers", "2"], "--workers is not"),
    (["enumerate", "U", "--n", "4", "--eps-exp", "2", "--method", "columns", "--resume", "x"], "--resume is not"),
    (["enumerate", "U", "--n", "4", "--eps-exp", "1", "--method", "columns"], "e"),
])
def test_by_columns_refuses_what_it_cannot_do(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert says in capsys.readouterr().err


def test_u_at_n6_takes_the_columns_by_default(monkeypatch, capsys):
    """Without --method, U at n = 6 goes to the column steps (the one method that finishes it); the
    enumeration itself is replaced here by n = 3's (the n = 6 census is a slow test)."""
    from polytopes.f_columns import COLUMN_CENSUSES

    real, document, check = COLUMN_CENSUSES["U"]
    asked = []
    monkeypatch.setitem(COLUMN_CENSUSES, "U", (lambda n, e: asked.append(n) or real(3, e), document, check))
    assert main(["enumerate", "U", "--n", "6", "--eps-exp", "2"]) == 0
    assert asked == [6] and "27 vertices" in capsys.readouterr().out
