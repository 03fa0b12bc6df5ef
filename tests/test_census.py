"""The census files of the local-DP polytope (polytopes.census, issue 33): the checker passes a true
census and refuses one with an orbit removed, a size changed, a non-vertex, a repeated or a
non-canonical orbit; the census agrees with cdd's complete enumeration at n = 4."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from polytopes.census import CENSUS_FORMAT, FACES_CENSUS_FORMAT, census_document, check_census
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import ldp_polytope
from qifkit.errors import CertificateError
from qifkit.files import read_json

RESULTS = Path(__file__).resolve().parent.parent / "results"


@pytest.fixture(scope="module")
def census():
    return census_document(enumerate_orbits(ldp_polytope(4, eps_exp="2")), 4, "2", "a test")


def test_a_true_census_passes_and_agrees_with_cdd(census):
    """904 vertices at n = 4 (cdd's complete list, Holohan et al. §5's conjecture checks), in 10
    orbits whose sizes sum to it."""
    from polytopes.enumerate import enumerate_vertices

    checked = check_census(census)
    assert (checked.count, checked.orbits, checked.group_order) == (904, 10, 576) and checked.closure
    assert len(enumerate_vertices(ldp_polytope(4, eps_exp="2")).vertices) == 904


def _one_way(document):
    """Orbit 1 claims an orbit it is not adjacent to, which does not claim it back."""
    broken = copy.deepcopy(document)
    first = broken["orbits"][0]["adjacent"]
    stranger = next(k for k in range(2, len(broken["orbits"]) + 1)
                    if k not in first)
    first.append(stranger)
    return broken


def _wrongly_joined(document):
    """Two orbits not adjacent listed as adjacent both ways: consistent, so only the closure sees it."""
    broken = copy.deepcopy(document)
    orbits = broken["orbits"]
    a, b = next((a, b) for a in range(1, len(orbits) + 1) for b in range(a + 1, len(orbits) + 1)
                if b not in orbits[a - 1]["adjacent"])
    orbits[a - 1]["adjacent"].append(b)
    orbits[b - 1]["adjacent"].append(a)
    return broken


def _cut_off(document):
    """The last orbit's edges dropped both ways: the listed graph is no longer connected."""
    broken = copy.deepcopy(document)
    last = len(broken["orbits"])
    for k, entry in enumerate(broken["orbits"], start=1):
        entry["adjacent"] = [j for j in entry["adjacent"] if j != last] if k != last else [last]
    return broken


def _retightened(document):
    broken = copy.deepcopy(document)
    broken["orbits"][2]["tight"] += 1
    return broken


def _removed(document):
    """One orbit left out, the totals and the adjacency lists made consistent with what is left (the
    orbits renumbered): only the closure sees it."""
    broken = copy.deepcopy(document)
    gone = broken["orbits"].pop(3)
    broken["count"] -= gone["size"]
    broken["orbit_count"] -= 1
    for entry in broken["orbits"]:
        if "adjacent" in entry:
            entry["adjacent"] = [k - (k > 4) for k in entry["adjacent"] if k != 4]
    return broken


def _detightened(document):
    """Too few tight inequalities listed (a checker testing only for too many would pass it)."""
    broken = copy.deepcopy(document)
    broken["orbits"][2]["tight"] -= 1
    return broken


def _restabilised(document):
    """A stabiliser's order doubled, the size kept: |G| / |Stab| no longer gives the size."""
    broken = copy.deepcopy(document)
    broken["orbits"][1]["stabiliser"] *= 2
    return broken


def _reshaped(document, field):
    """An orbit's |γ| or |λ| changed: the (|γ|, |λ|) table of beyond.ldp-census is built from them."""
    broken = copy.deepcopy(document)
    broken["orbits"][4][field] += 1
    return broken


def _unjoined(document):
    """One true edge between two orbits dropped both ways, the listed graph still connected and
    symmetric: a listed adjacency that is a proper subset of the true one, seen only by the closure."""
    broken = copy.deepcopy(document)
    orbits = broken["orbits"]
    for a, entry in enumerate(orbits, start=1):
        for b in entry["adjacent"]:
            if a == b:
                continue
            trial = copy.deepcopy(broken)
            trial["orbits"][a - 1]["adjacent"].remove(b)
            trial["orbits"][b - 1]["adjacent"].remove(a)
            if all(o["adjacent"] for o in trial["orbits"]):
                try:
                    check_census(trial, closure=False)
                except CertificateError:
                    continue
                return trial
    raise AssertionError("no edge can be dropped keeping the listed graph connected")


def _isolated(document):
    """An orbit listing no adjacent orbit (a fresh mutant of issue 53: refused by name, not only as
    a graph that does not join)."""
    broken = copy.deepcopy(document)
    broken["orbits"][2]["adjacent"] = []
    return broken


def _resized(document):
    broken = copy.deepcopy(document)
    broken["orbits"][0]["size"] += 1
    return broken


def _not_a_vertex(document):
    """The uniform matrix: in D, but the midpoint of many vertices."""
    broken = copy.deepcopy(document)
    broken["orbits"][1]["representative"] = [["1/4"] * 4 for _ in range(4)]
    return broken


def _repeated(document):
    broken = copy.deepcopy(document)
    broken["orbits"][2] = copy.deepcopy(broken["orbits"][1])
    return broken


def _permuted(document):
    """A representative with two rows swapped: the same orbit, not its canonical form."""
    broken = copy.deepcopy(document)
    rows = broken["orbits"][0]["representative"]
    rows[0], rows[-1] = rows[-1], rows[0]
    if rows == document["orbits"][0]["representative"]:
        rows[0], rows[1] = rows[1], rows[0]
    return broken


@pytest.mark.parametrize("damage, says", [
    (_removed, "neighbour in no listed orbit"),
    (_resized, "size"),
    (_not_a_vertex, "not a vertex"),
    (_repeated, "again"),
    (_permuted, "not the canonical form"),
    (_one_way, "not the other way round"),
    (_wrongly_joined, "lists the adjacent orbits"),
    (_cut_off, "do not join"),
    (_retightened, "tight inequalities"),
    (_detightened, "tight inequalities"),
    (_restabilised, "stabiliser"),
    (lambda d: _reshaped(d, "gamma"), "γ"),
    (lambda d: _reshaped(d, "lambda"), "λ"),
    (_unjoined, "lists the adjacent orbits"),
    (_isolated, "its adjacent orbits must be orbit numbers"),
    (lambda d: {**d, "orbit_count": d["orbit_count"] + 1}, "orbits"),
    (lambda d: {**d, "count": d["count"] + 1}, "count"),
    (lambda d: {**d, "format": "something else"}, "not a census file"),
    (lambda d: {**d, "group_order": 24}, "group order"),
])
def test_a_damaged_census_is_refused_naming_the_defect(census, damage, says):
    with pytest.raises(CertificateError, match=says):
        check_census(damage(census))


@pytest.mark.parametrize("n", [4, 5, pytest.param(6, marks=pytest.mark.slow)])
def test_the_census_files_in_the_repository_pass_their_check_without_the_closure(n):
    """results/ holds the census files scripts/census.py wrote (each re-checked with the closure
    when written; the closure of n = 5 and 6 is qifkit check --full's): five e^ε at each n, the
    walk's at n = 4, 5, the face sets' at n = 6 (about 20 s a file: 655 orbits in 30 dimensions)."""
    files = sorted(RESULTS.glob(f"ldp-n{n}-e*.json"))
    assert len(files) == 5
    for path in files:
        document = json.loads(path.read_text())
        assert document["format"] == (CENSUS_FORMAT if n < 6 else FACES_CENSUS_FORMAT)
        checked = check_census(document, closure=document["n"] <= 4)
        assert checked.count == document["count"]


def test_a_walk_census_with_an_orbit_removed_is_refused_by_the_recount_without_the_closure(census):
    """Version 2 with one orbit left out, totals and adjacency made consistent: without the
    tangent cones only the face sets, enumerated again, see it (beyond.ldp-census at n = 5)."""
    removed = _removed(census)
    check_census(removed, closure=False)
    with pytest.raises(CertificateError, match="give 10 orbits; the file lists 9"):
        check_census(removed, closure=False, recount=True)
    assert check_census(census, closure=False, recount=True).recounted


def test_a_census_with_an_orbit_removed_is_refused_by_each_enumeration():
    """Issue 55, completeness argued twice: the n = 5 census (the walk's, e^ε = 2) with one orbit left
    out and its totals and adjacency kept consistent passes every other check, and is refused by the
    face sets and by the tight and loose rows, each enumerated again; the true file passes both."""
    census = json.loads((RESULTS / "ldp-n5-e2.json").read_text())
    removed = _removed(census)
    check_census(removed, closure=False)
    for option, method in (("recount", "the face sets"), ("rows", "the tight and loose rows")):
        with pytest.raises(CertificateError, match=f"{method}, enumerated again, give 47 orbits; the file lists 46"):
            check_census(removed, closure=False, **{option: True})
    checked = check_census(census, closure=False, recount=True, rows=True)
    assert checked.recounted and checked.rows and checked.orbits == 47


def test_the_n6_census_with_an_orbit_removed_is_refused_by_the_rows():
    """n = 6 (the face sets' file, e^ε = 3/2): its completeness is the face sets' word unless another
    method counts again; the tight and loose rows (about a second) pass the file and refuse it with
    an orbit left out."""
    census = json.loads((RESULTS / "ldp-n6-e3_2.json").read_text())
    assert check_census(census, closure=False, rows=True).rows
    with pytest.raises(CertificateError, match="rows, enumerated again, give 655 orbits; the file lists 654"):
        check_census(_removed(census), closure=False, rows=True)


def test_a_census_from_the_face_sets_is_checked_by_enumerating_them_again():
    """Version 3 (polytopes.ldp_faces, no adjacency): the walk's orbits at n = 4; its closure is the
    face-set enumeration run again, so an orbit left out (totals made consistent) is refused
    there, and without the closure the other checks still see a changed size or a non-vertex."""
    from polytopes.ldp_faces import ldp_orbits_by_faces

    document = census_document(ldp_orbits_by_faces(4, "3/2"), 4, "3/2", "a test")
    assert document["format"] == FACES_CENSUS_FORMAT and all("adjacent" not in o for o in document["orbits"])
    walk = census_document(enumerate_orbits(ldp_polytope(4, eps_exp="3/2")), 4, "3/2", "a test")
    assert ([(o["representative"], o["size"], o["tight"]) for o in document["orbits"]]
            == [(o["representative"], o["size"], o["tight"]) for o in walk["orbits"]])
    checked = check_census(document)
    assert (checked.count, checked.orbits, checked.closure) == (904, 10, True)
    removed = copy.deepcopy(document)
    gone = removed["orbits"].pop(3)
    removed["count"] -= gone["size"]
    removed["orbit_count"] -= 1
    check_census(removed, closure=False)
    with pytest.raises(CertificateError, match="enumerated again, give 10 orbits; the file lists 9"):
        check_census(removed)
    for damage, says in ((_resized, "size"), (_not_a_vertex, "not a vertex"), (_retightened, "tight")):
        with pytest.raises(CertificateError, match=says):
            check_census(damage(document), closure=False)


def _census_script(monkeypatch, folder):
    import importlib.util

    spec = importlib.util.spec_from_file_location("census_script", RESULTS.parent / "scripts" / "census.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setattr(script, "RESULTS", folder)
    return script


@pytest.mark.parametrize("method", ["walk", "faces", "rows"])
def test_the_census_script_writes_the_file_it_checked(tmp_path, monkeypatch, capsys, method):
    """scripts/census.py at n = 3 (Holohan et al.: 33 vertices): the file it writes passes the checker
    as read back; a writer that changes the text on its way to the disk is caught."""
    script = _census_script(monkeypatch, tmp_path)
    monkeypatch.setattr("sys.argv", ["census.py", "--n", "3", "--eps-exp", "2", "--method", method])
    script.main()
    document = json.loads((tmp_path / "ldp-n3-e2.json").read_text())
    assert check_census(document).count == 33 and "33 vertices in 4 orbits" in capsys.readouterr().out
    original = script.atomic_write_bytes
    monkeypatch.setattr(script, "atomic_write_bytes", lambda path, data: original(path, data + b" "))
    with pytest.raises(SystemExit, match="not the census checked"):
        script.main()


def test_the_census_script_writes_large_censuses_compressed(tmp_path, monkeypatch, capsys):
    """Above COMPRESSED_ABOVE_BYTES of indented text (8 MB: D at n = 7 in results/) the file is
    gzip-compressed JSON, .json.gz: here from 100 bytes, where the file read back is the census of
    33 vertices, and a writer that changes the bytes on their way to the disk is caught as for
    plain text."""
    script, packed = _written_compressed(monkeypatch, tmp_path, capsys, ["--n", "3", "--eps-exp", "2", "--method",
                                                                         "rows"], "ldp-n3-e2")
    assert check_census(read_json(packed)).count == 33
    original = script.atomic_write_bytes
    monkeypatch.setattr(script, "atomic_write_bytes", lambda path, data: original(path, data[:-1]))
    with pytest.raises(SystemExit, match="not the census checked"):
        script.main()


def test_the_census_script_writes_the_census_of_u(tmp_path, monkeypatch, capsys):
    """scripts/census.py --polytope U at n = 4 (cddlib: 664 vertices): the file passes check_u_census
    with its recount, as read back."""
    from polytopes.u_columns import check_u_census

    script = _census_script(monkeypatch, tmp_path)
    monkeypatch.setattr("sys.argv", ["census.py", "--polytope", "U", "--n", "4", "--eps-exp", "2"])
    script.main()
    document = json.loads((tmp_path / "u-n4-e2.json").read_text())
    assert check_u_census(document, recount=True).count == 664
    assert "664 vertices in 21 orbits" in capsys.readouterr().out


def test_a_large_census_of_f_is_written_compressed(tmp_path, monkeypatch, capsys):
    """scripts/census.py --polytope F writes a census longer than COMPRESSED_ABOVE_BYTES as .json.gz
    (F at n = 6 in results/), which check_f_census accepts as read back: here at n = 4 (cddlib:
    1,806 vertices) from 100 bytes."""
    from polytopes.f_columns import check_f_census

    _, packed = _written_compressed(monkeypatch, tmp_path, capsys, ["--polytope", "F", "--n", "4", "--eps-exp", "2"],
                                    "f-n4-e2")
    assert check_f_census(read_json(packed), recount=True).count == 1806


def _written_compressed(monkeypatch, tmp_path, capsys, arguments, name):
    """scripts/census.py run with these arguments and COMPRESSED_ABOVE_BYTES = 100: the script and
    the bytes of name.json.gz, which must be gzip data, named in the output, with no name.json."""
    script = _census_script(monkeypatch, tmp_path)
    monkeypatch.setattr(script, "COMPRESSED_ABOVE_BYTES", 100)
    monkeypatch.setattr("sys.argv", ["census.py", *arguments])
    script.main()
    assert not (tmp_path / f"{name}.json").exists()
    packed = (tmp_path / f"{name}.json.gz").read_bytes()
    assert packed[:2] == b"\x1f\x8b" and f"{name}.json.gz" in capsys.readouterr().out
    return script, packed


@pytest.mark.slow
def test_the_n7_census_with_an_orbit_removed_is_refused_by_its_closure():
    """n = 7 (e^ε = 2, 40,581 orbits, made by the rows, which alone reach it): the face sets cannot
    recount it, so its closure is the rows run again, and the check says so; with an orbit left
    out and the totals made consistent, every other test passes and the closure refuses it (about
    four minutes)."""
    census = read_json(RESULTS / "ldp-n7-e2.json.gz")
    assert (census["count"], census["orbit_count"]) == (774_319_815_073, 40_581)
    with pytest.raises(CertificateError, match="rows, enumerated again, give 40581 orbits; the file lists 40580"):
        check_census(_removed(census), closure=True)
