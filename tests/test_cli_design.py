"""qifkit construct and qifkit design."""

import json
from fractions import Fraction

import numpy as np
import pytest

from proofs_checks.cli import main
from qifkit import geometric_mechanism, l0_score
from qifkit.numbers import exact_str


def test_construct_alg1_exact_reports_a_valid_vertex(tmp_path):
    report, table = tmp_path / "c.json", tmp_path / "t.csv"
    assert main(["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2", "--json", str(report), "--out", str(table)]) == 0
    document = json.loads(report.read_text())
    assert document["max_row_sum_error"] == "0" and document["fixed_point_error"] == "0"
    assert document["worst_dp_ratio"] == "2"
    # hand check of the CSV: rows sum to 1 and z·T = z
    rows = [[Fraction(c) for c in line.split(",")] for line in table.read_text().split()]
    z = [Fraction(v) for v in ("1/4", "1/2", "1/4")]
    assert all(sum(r) == 1 for r in rows) and [sum(z[i] * rows[i][j] for i in range(3)) for j in range(3)] == z


def test_lp_fixed_is_no_worse_than_alg1(tmp_path, capsys):
    values = {}
    for method in ("alg1", "lp-fixed", "alg2", "lp-unfixed"):
        path = tmp_path / f"{method}.json"
        assert (
            main(["construct", "--z", "1/10,2/10,3/10,4/10", "--eps-exp", "3", "--method", method, "--json", str(path)])
            == 0
        )
        values[method] = Fraction(json.loads(path.read_text())["count_error"])
    assert values["lp-fixed"] <= values["alg1"] and values["alg2"] == values["lp-unfixed"] <= values["lp-fixed"]


def test_construct_float_writes_npy(tmp_path):
    out = tmp_path / "t.npy"
    assert main(["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2", "--float", "--out", str(out)]) == 0
    assert np.allclose(np.load(out).sum(axis=1), 1)


@pytest.mark.parametrize("arguments", [
    ["--z", "0,1/2,1/2", "--eps-exp", "2"],
    ["--z", "1/4,1/2,1/2", "--eps-exp", "2"],
    ["--z", "1/4,1/2,1/4", "--eps-exp", "1"],
    ["--z", "1/4,,3/4", "--eps-exp", "2"],
    ["--z", "1/4,1/2,1/4", "--eps-exp", "2", "--method", "lp-fixed", "--selector", "max"],
    ["--z", "1/4,1/2,1/4", "--eps-exp", "2", "--method", "lp-unfixed", "--float"],
    ["--z", "1/4,1/2,1/4", "--eps-exp", "2", "--out", "t.txt"],
])
def test_construct_refuses_bad_input(arguments, capsys):
    assert main(["construct", *arguments]) == 2
    assert capsys.readouterr().err.startswith("qifkit: error:")


def test_design_fig7_values(tmp_path):
    # Cormode et al. Fig. 7 at α = 10/11: Pr[true output] 5/21 (GM), 121/541 (EM, the optimum under F)
    for arguments, expected in (
        (["--mechanism", "gm"], "5/21"),
        (["--props", "F"], "121/541"),
        (["--mechanism", "em"], "121/541"),
    ):
        path = tmp_path / "d.json"
        assert main(["design", "--max-count", "4", "--alpha", "10/11", *arguments, "--json", str(path)]) == 0
        document = json.loads(path.read_text())
        assert document["p_true"] == expected and len(document["matrix"]) == 5


def test_design_certifies_the_unconstrained_optimum_at_counts_0_to_100(tmp_path):
    """Issue 56's goal row: the L0 optimum at counts 0..100, α = 1/2, certified by the command
    (refused beyond 40 before). GM is the optimum without properties (Cormode et al. Thm. 3): the
    value is GM's L0 score, computed from its formula."""
    path = tmp_path / "d.json"
    assert main(["design", "--max-count", "100", "--alpha", "1/2", "--json", str(path)]) == 0
    document = json.loads(path.read_text())
    assert document["objective"] == exact_str(l0_score(geometric_mechanism(100, alpha="1/2")))
    assert len(document["matrix"]) == 101


def test_design_takes_eps_exp_like_the_other_commands_and_writes_the_mechanism(tmp_path):
    # α = 10/11 is e^ε = 11/10: the optimum under F and EM both have Pr[true output] 121/541 (Fig. 7);
    # the optimum's exact rows in the CSV, EM's floats in the .npy
    csv_path, npy_path = tmp_path / "em.csv", tmp_path / "em.npy"
    assert main(["design", "--max-count", "4", "--eps-exp", "11/10", "--props", "F", "--out", str(csv_path)]) == 0
    rows = [line.split(",") for line in csv_path.read_text().splitlines()]
    assert len(rows) == 5 and rows[0][0] == "121/541" and all(sum(map(Fraction, row)) == 1 for row in rows)
    assert (
        main(["design", "--max-count", "4", "--eps-exp", "ln(11/10)", "--mechanism", "em", "--out", str(npy_path)]) == 0
    )
    em = np.load(npy_path)
    assert em.shape == (5, 5) and np.allclose(em.sum(axis=1), 1) and abs(np.trace(em) / 5 - 121 / 541) < 1e-15


def test_highs_prints_nothing_into_a_commands_output():
    # HiGHS 1.16 prints a banner on standard output when an instance is made ("Running HiGHS ..."),
    # from C++; the certified LP of `design` makes several
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "proofs_checks.cli", "design", "--max-count", "3", "--alpha", "1/2",
                           "--props", "WH"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("optimal: L0") and "HiGHS" not in done.stdout + done.stderr


@pytest.mark.parametrize("arguments", [
    ["--n", "4", "--alpha", "10/11", "--eps-exp", "11/10"],
    ["--n", "4", "--eps-exp", "1"],
    ["--n", "4", "--eps-exp", "x"],
    ["--n", "4"],
    ["--n", "4", "--alpha", "10/11", "--out", "m.txt"],
    ["--n", "4", "--alpha", "10/11", "--props", "XX"],
    ["--n", "4", "--alpha", "11/10"],
    ["--n", "0", "--alpha", "1/2"],
    ["--n", "4", "--alpha", "1/2", "--props", "WH", "--mechanism", "gm"],
])
def test_design_refuses_bad_input(arguments, capsys):
    try:
        assert main(["design", *arguments]) == 2
    except SystemExit as exit_:  # argparse: --alpha with --eps-exp, or neither
        assert exit_.code == 2


# --------------------------------------------------------------------------- fixed points from names and files

def test_construct_named_fixed_points(tmp_path):
    path = tmp_path / "c.json"
    assert main(["construct", "--z", "binomial", "--n", "4", "--eps-exp", "2", "--json", str(path)]) == 0
    document = json.loads(path.read_text())
    assert document["n"] == 4 and document["fixed_point_error"] == "0" and document["arithmetic"] == "exact"
    assert main(["construct", "--z", "uniform", "--n", "300", "--eps-exp", "2", "--float", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["arithmetic"] == "long double"


def test_construct_reads_z_from_csv_and_npy(tmp_path, capsys):
    csv_file = tmp_path / "z.csv"
    csv_file.write_text("\ufeff1/4, 1/2\n1/4\n", encoding="utf-8")  # a BOM, commas and line breaks
    path = tmp_path / "c.json"
    assert main(["construct", "--z-file", str(csv_file), "--eps-exp", "2", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["worst_dp_ratio"] == "2"
    z = np.array([0.1, 0.2, 0.7000000000000002])  # sums to 1 + 2.2e-16 in binary
    npy_file = tmp_path / "z.npy"
    np.save(npy_file, z)
    assert main(["construct", "--z-file", str(npy_file), "--eps-exp", "2", "--float"]) == 0
    assert "renormalised" in capsys.readouterr().out
    assert main(["construct", "--z-file", str(npy_file), "--eps-exp", "2"]) == 2  # exact: not a distribution
    assert "--float renormalises" in capsys.readouterr().err


@pytest.mark.parametrize("content, arguments, message", [
    ("1/4,1/0,3/4", [], "line 1, entry 2"),
    ("1/4\n\n1/2,,1/4", [], "line 3, entry 2: empty"),
    ("١/4,1/2,1/4", [], "line 1, entry 1"),  # an Arabic-Indic digit is not a number
    ("1/4,1/2,1/4", ["--z", "1/4,1/2,1/4"], "one of --z and --z-file"),
    ("1/4,1/2,1/4", ["--n", "3"], "--n goes with a named fixed point"),
])
def test_construct_refuses_a_bad_fixed_point_file(tmp_path, capsys, content, arguments, message):
    path = tmp_path / "z.csv"
    path.write_text(content, encoding="utf-8")
    assert main(["construct", "--z-file", str(path), "--eps-exp", "2", *arguments]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("array", [np.ones((2, 2)) / 4, np.array([0.5, np.nan, 0.5]), np.array(["a", "b"])])
def test_construct_refuses_a_bad_npy(tmp_path, capsys, array):
    path = tmp_path / "z.npy"
    np.save(path, array)
    assert main(["construct", "--z-file", str(path), "--eps-exp", "2", "--float"]) == 2
    assert str(path) in capsys.readouterr().err


def test_construct_named_fixed_point_needs_n(capsys):
    assert main(["construct", "--z", "binomial", "--eps-exp", "2"]) == 2
    assert "needs --n" in capsys.readouterr().err


def test_enumerate_takes_the_same_fixed_points(tmp_path, capsys):
    path = tmp_path / "z.csv"
    path.write_text("1/4\n1/2\n1/4\n")
    for arguments in (["--z", "1/4,1/2,1/4"], ["--z", "binomial"], ["--z-file", str(path)]):
        assert main(["enumerate", "F", "--n", "3", "--eps-exp", "2", *arguments]) == 0
        assert "22 vertices" in capsys.readouterr().out
    assert main(["enumerate", "F", "--n", "4", "--eps-exp", "2", "--z-file", str(path)]) == 2
    assert "has 3 entries" in capsys.readouterr().err


@pytest.mark.parametrize("arguments, message", [
    (["design", "--max-count", "4", "--alpha", "5", "--mechanism", "um"], "not in (0, 1)"),
    (["design", "--max-count", "4", "--alpha", "0", "--mechanism", "gm"], "not in (0, 1)"),
    (["design", "--max-count", "4", "--alpha", "1/2", "--min-distance", "-5"], "negative"),
    (["enumerate", "F", "--n", "3", "--eps-exp", "2", "--z", "1/2,1/2,0"], "z[2] = 0 is not positive"),
])
def test_options_are_checked_against_their_meaning(arguments, message, capsys):
    try:
        status = main(arguments)
    except SystemExit as exit_:  # argparse refuses what its option types refuse (a negative whole number)
        status = exit_.code
    assert status == 2
    assert message in capsys.readouterr().err


def test_outputs_are_checked_before_any_work(tmp_path, capsys):
    keep = tmp_path / "keep.csv"
    keep.write_text("precious\n")
    folder = tmp_path / "report.json"
    folder.mkdir()
    assert main(["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2", "--out", str(keep), "--json", str(folder)]) == 2
    assert "it is a folder" in capsys.readouterr().err and keep.read_text() == "precious\n"
    missing = tmp_path / "no" / "such" / "t.json"
    for command in (
        ["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2"],
        ["design", "--max-count", "3", "--alpha", "1/2"],
    ):
        assert main([*command, "--json", str(missing)]) == 2
        captured = capsys.readouterr()
        assert "does not exist" in captured.err and captured.out == ""


@pytest.mark.parametrize("command, message", [
    (["design", "--max-count", "100000", "--alpha", "1/2", "--mechanism", "gm"], "10000200001 exact entries"),
    (["design", "--max-count", "61", "--alpha", "1/2", "--props", "RH,CH,F"], "3844 variables"),
    (["design", "--max-count", "61", "--alpha", "1/2", "--props", "WH,S"], "stops at counts 0..60"),
    (["design", "--max-count", "61", "--alpha", "1/2", "--aggregate", "max"], "stops at counts 0..60"),
    (["design", "--max-count", "61", "--alpha", "1/2", "--min-distance", "2"], "stops at counts 0..60"),
    (["design", "--max-count", "101", "--alpha", "1/2", "--props", "WH"], "10404 variables; this command stops at "
     "counts 0..100"),
    (["enumerate", "LDP", "--n", "100", "--eps-exp", "2"], "10000 coordinates"),
    (["enumerate", "U", "--n", "6", "--eps-exp", "2", "--method", "cdd"], "n = 6 with --method columns"),
    (["enumerate", "U", "--n", "7", "--eps-exp", "2"], "stops at n = 5 (n = 6 with --method columns"),
    # issue 56: the exact LP goes to n = 100 with a uniform z (F certifies there in 9-19 s), to 60
    # with any other (a binomial z: about 4 minutes at n = 60)
    (["construct", "--z", "uniform", "--n", "101", "--method", "lp-fixed", "--eps-exp", "2"], "stops at n = 100"),
    (["construct", "--z", "binomial", "--n", "61", "--method", "lp-fixed", "--eps-exp", "2"],
     "stops at n = 60 (checked before any work): use --method alg1 (exact) or alg2 for larger n (with a uniform z"),
    (["construct", "--z", ",".join(["1/101"] * 101), "--method", "lp-unfixed", "--eps-exp", "2"], "stops at n = 100"),
    (["construct", "--z", ",".join(["1/122"] * 60 + ["31/61"]), "--method", "lp-fixed", "--eps-exp", "2"],
     "stops at n = 60"),
])
def test_sizes_beyond_reach_are_refused_before_any_work(command, message, capsys):
    # these used to run until killed (a GM of 10^10 exact entries, an enumeration of D at n = 100);
    # the message names the size, which is known before any work (no clock is asserted: issue 36)
    assert main(command) == 2
    assert message in capsys.readouterr().err


def test_r_f_at_n_5_goes_on_only_as_the_resumable_orbit_walk(tmp_path, monkeypatch, capsys):
    """R_F at n = 5 (a 30-minute orbit walk found 426,123 orbits, far from the end) is refused to
    every lister and to a walk without --resume, naming the way through; with --method orbits
    --resume the command goes on to build the polytope, and so does R_F at n = 4 with any lister.
    The polytope is a stand-in that raises, so a guard that let a run through fails here instead
    of running for days."""
    from proofs_checks.cli import enumerate as command

    def stand_in(*arguments):
        raise LookupError("the polytope would be built here")

    monkeypatch.setitem(command._POLYTOPES, "RF", stand_in)
    for arguments, message in ((["--n", "5"], "--method orbits --resume DIR"),
                               (["--n", "5", "--method", "normaliz"], "runs for days"),
                               (["--n", "5", "--method", "orbits"], "426,123 vertex orbits"),
                               (["--n", "5", "--method", "normaliz", "--resume", str(tmp_path / "lister")],
                                "--method orbits --resume DIR")):
        assert main(["enumerate", "RF", "--eps-exp", "2", *arguments]) == 2, arguments
        assert message in capsys.readouterr().err, arguments
    for arguments in (["--n", "5", "--method", "orbits", "--resume", str(tmp_path / "rf5")],
                      ["--n", "4", "--method", "normaliz"]):
        main(["enumerate", "RF", "--eps-exp", "2", *arguments])
        assert "the polytope would be built here" in capsys.readouterr().err, arguments


def test_ldp_at_n_6_goes_on_only_as_a_resumable_run(tmp_path, monkeypatch, capsys):
    """D at n = 6 (tangent cones that neither Normaliz, nor the decomposition, nor SymPol finished
    in 15 to 25 minutes) is refused without --resume, with every method, naming the way through;
    with --resume DIR any method goes on to build the polytope (the orbit walk and the
    decomposition by supports both keep their work there), and so does n = 5 without it. A
    stand-in polytope that raises: a guard that let a run through fails here, not after days."""
    from proofs_checks.cli import enumerate as command

    def stand_in(*arguments):
        raise LookupError("the polytope would be built here")

    monkeypatch.setitem(command._POLYTOPES, "LDP", stand_in)
    for method in ([], ["--method", "orbits"], ["--method", "normaliz"], ["--method", "cdd"]):
        assert main(["enumerate", "LDP", "--n", "6", "--eps-exp", "2", *method]) == 2, method
        message = capsys.readouterr().err
        assert "runs for days" in message and "SymPol" in message and "--resume DIR" in message, method
        assert "--method rows finishes in seconds" in message, method
    for arguments in (["--n", "6", "--method", "orbits", "--resume", str(tmp_path / "walk")],
                      ["--n", "6", "--resume", str(tmp_path / "supports")], ["--n", "5", "--method", "normaliz"]):
        main(["enumerate", "LDP", "--eps-exp", "2", *arguments])
        assert "the polytope would be built here" in capsys.readouterr().err, arguments


def test_enumerate_by_face_sets_and_rows_gives_the_walks_orbits(tmp_path, capsys, monkeypatch):
    """--method faces and --method rows (D only): the same orbit representatives and sizes as the
    orbit walk at n = 4 (904 vertices in 10 orbits, Holohan et al.), in the same JSON; refused for
    other polytopes, with the options of the walk's long runs, with no worker, and (rows, one
    process) with any worker option."""
    documents = {}
    for method in ("faces", "rows", "orbits"):
        path = tmp_path / f"{method}.json"
        assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "3/2", "--method", method, "--json", str(path)]) == 0
        documents[method] = json.loads(path.read_text())
    assert "904 vertices in 10 orbits" in capsys.readouterr().out
    faces, rows, walk = documents["faces"], documents["rows"], documents["orbits"]
    for found in (faces, rows):
        assert (found["count"], found["orbit_count"]) == (walk["count"], walk["orbit_count"]) == (904, 10)
        assert ({(str(r["representative"]), r["size"]) for r in found["orbits"]}
                == {(str(r["representative"]), r["size"]) for r in walk["orbits"]})
    from polytopes.census import check_census  # one census format: the checker of results/ reads them all

    assert check_census(faces).orbits == check_census(rows).orbits == check_census(walk).orbits == 10
    from proofs_checks.cli import enumerate as command

    def one_size_wrong(*arguments):
        document = census_document(*arguments)
        document["orbits"][0]["size"] += 1
        return document

    census_document = command.census_document
    forged = tmp_path / "forged.json"
    monkeypatch.setattr(command, "census_document", one_size_wrong)
    # the document is checked as written before it is: a wrong size is a bug of ours, and no file
    assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "3/2", "--method", "faces", "--json", str(forged)]) == 3
    assert "fails its own check" in capsys.readouterr().err and not forged.exists()
    for arguments, message in ((["RF", "--n", "3", "--method", "faces"], "not a product of cones"),
                               (["LDP", "--n", "4", "--method", "faces", "--resume", str(tmp_path / "r")], "--resume"),
                               (["LDP", "--n", "4", "--method", "faces", "--workers", "0"], "--workers 0"),
                               (["RF", "--n", "3", "--method", "rows"], "not a product of cones"),
                               (["LDP", "--n", "4", "--method", "rows", "--ext", str(tmp_path / "e")], "--ext"),
                               (["LDP", "--n", "4", "--method", "rows", "--workers", "0"], "--workers 0"),
                               (["LDP", "--n", "8", "--method", "rows"], "stops at")):
        assert main(["enumerate", *arguments, "--eps-exp", "2"]) == 2, arguments
        assert message in capsys.readouterr().err, arguments


def test_design_n_counts_values_as_everywhere_and_max_count_is_cormodes_n(tmp_path, capsys):
    """--n is the number of values in every command (design --n 5: counts 0..4, a 5×5 matrix);
    --max-count is Cormode et al.'s n (the largest count). Fig. 3's GM at n = 4, α = 1/2 either way."""
    documents = []
    for size in (["--n", "5"], ["--max-count", "4"]):
        path = tmp_path / f"{size[0][2:]}.json"
        assert main(["design", *size, "--alpha", "1/2", "--mechanism", "gm", "--json", str(path)]) == 0
        documents.append(json.loads(path.read_text()))
    assert documents[0] == documents[1]
    assert len(documents[0]["matrix"]) == 5 and documents[0]["values"] == 5 and documents[0]["max_count"] == 4
    assert documents[0]["matrix"][0][:2] == ["2/3", "1/6"]  # GM's corner 1/(1+α), then (1−α)/(1+α)·α
    capsys.readouterr()
    assert main(["design", "--n", "1", "--alpha", "1/2", "--mechanism", "gm"]) == 2
    assert "at least the counts 0 and 1 (--n 2 or --max-count 1)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["design", "--n", "5", "--max-count", "4", "--alpha", "1/2"])


@pytest.mark.parametrize("method", ["alg2", "lp-unfixed"])
def test_a_mechanism_of_u_says_it_has_no_fixed_point_instead_of_printing_none(method, capsys):
    """Issue 35: messages printed Python's None for the fixed-point error of a mechanism of U."""
    assert main(["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2", "--method", method]) == 0
    out = capsys.readouterr().out
    assert "no fixed point (U)" in out and "None" not in out


@pytest.mark.slow
def test_construct_takes_the_exact_lp_to_n_100_with_a_uniform_z(tmp_path):
    """Issue 56: lp-fixed at n = 100 with a uniform z (refused beyond 60 before) is certified and
    verified: rows sum to 1, z is fixed, and no ratio of neighbouring entries exceeds e^ε."""
    report = tmp_path / "c.json"
    assert main(["construct", "--z", "uniform", "--n", "100", "--method", "lp-fixed", "--eps-exp", "2",
                 "--json", str(report)]) == 0
    document = json.loads(report.read_text())
    assert document["n"] == 100 and document["max_row_sum_error"] == "0" and document["fixed_point_error"] == "0"
    assert Fraction(document["worst_dp_ratio"]) <= 2
