"""ex(F) with the uniform z from its columns' steps (polytopes.f_columns, issue 55): every vertex
against cddlib's list (n ≤ 4, four e^ε) and Normaliz's (n = 5, e^ε = 2, slow), the census files and
their checker (forgeries refused), beyond.f-census, the command, and the bad input refused."""

from __future__ import annotations

import copy
import json
import shutil
from fractions import Fraction

import pytest

from polytopes.enumerate import enumerate_vertices
from polytopes.f_columns import F_COLUMNS_MAX_N, check_f_census, f_census_document, f_vertices_by_columns
from polytopes.spaces import count_polytope
from proofs_checks import beyond
from proofs_checks.registry import Status
from qifkit.errors import (
    CertificateError,
    NotExactError,
    NumberSyntaxError,
    ParameterError,
    PrivacyParameterError,
    ShapeError,
)


def _listed(n, eps_exp, method="cdd"):
    polytope = count_polytope(n, eps_exp=eps_exp, fixed=True)
    return {tuple(tuple(v) for v in vertex.matrix(polytope.shape))
            for vertex in enumerate_vertices(polytope, method).vertices}


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("eps_exp", ["2", "3/2", "3", "101/100"])
def test_every_vertex_is_cddlibs(n, eps_exp):
    census = f_vertices_by_columns(n, eps_exp)
    found = list(census.vertices())
    assert len(found) == len(set(found)) == census.vertex_count
    assert set(found) == _listed(n, eps_exp)


@pytest.mark.parametrize("eps_exp", ["10000000000", "1" + "0" * 30])
def test_a_huge_eps_is_decided_exactly(eps_exp):
    """e^ε = 10^10 and 10^30 at n = 4: F's entries span 30 and 90 orders of magnitude, so floats see
    some sets of h_t as dependent that are not and e^ε multiplies an entry's rounding error; the
    vertex set must still be cddlib's, exactly."""
    census = f_vertices_by_columns(4, eps_exp)
    assert set(census.vertices()) == _listed(4, eps_exp)


def test_the_shipped_n5_files_are_recounted():
    """The n = 5 files were written by the depth-first search over multisets of steps (its work in
    their "visited"), whose counts are Normaliz's; the search by fixed and loose columns must find
    exactly their orbits and sizes at the five e^ε."""
    for path in sorted(beyond.CENSUS_FOLDER.glob("f-n5-e*.json")):
        document = json.loads(path.read_text())
        assert check_f_census(document, recount=True).recounted


def test_kohli_example_1_counts_36_vertices_at_n3():
    """Kohli and Laskowski, App. B.1, Example 1: |ex(F)| = 36 at n = 3, z uniform, ε = ln 2."""
    assert f_vertices_by_columns(3, "2").vertex_count == 36


@pytest.mark.slow
def test_n5_against_normaliz():
    """n = 5, e^ε = 2: Normaliz's exact vertex list of F (1,169,850 vertices, about 4 minutes;
    cddlib does not finish) is exactly the columns'."""
    from polytopes.normaliz import normaliz_available

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    assert set(f_vertices_by_columns(5, "2").vertices()) == _listed(5, "2", "normaliz")


def _document(n, eps_exp="2"):
    return json.loads(json.dumps(f_census_document(f_vertices_by_columns(n, eps_exp), "test")))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_census_file_checks_and_recounts(n):
    document = _document(n)
    checked = check_f_census(document, recount=True)
    assert checked.count == document["count"] == len(_listed(n, "2")) and checked.recounted


def test_the_shipped_n5_files_check_entry_by_entry():
    for path in sorted(beyond.CENSUS_FOLDER.glob("f-n5-e*.json")):
        document = json.loads(path.read_text())
        assert check_f_census(document).count == beyond.F_N5_COUNTS[document["eps_exp"]][0]


def _shipped_n6():
    from qifkit.files import read_json

    return read_json(str(beyond.CENSUS_FOLDER / "f-n6-e2.json.gz"))


@pytest.mark.slow
def test_the_shipped_n6_file_checks_entry_by_entry():
    """n = 6, e^ε = 2 (about 2 minutes): every one of the 1,455,809 orbits is solved from F's
    constraints as equations into a vertex of F with exactly its steps, the names are canonical
    and distinct and the sizes add up to the count the claim states."""
    assert (check_f_census(_shipped_n6()).count, len(_shipped_n6()["orbits"])) == beyond.F_N6_COUNTS["2"]


@pytest.mark.slow
def test_the_n6_census_holds_the_exact_optimum_of_random_objectives():
    """n = 6, e^ε = 2 (no other method reaches F there): the certified exact LP optimum of F under
    200 random integer objectives (HiGHS's basis, solved and checked in rationals; a route that
    shares nothing with the columns' steps) is a vertex of a listed orbit, every time."""
    import random

    from polytopes.lp import certified_minimum
    from polytopes.u_columns import orbit_key, steps_of

    listed = {orbit["steps"] for orbit in _shipped_n6()["orbits"]}
    polytope = count_polytope(6, eps_exp="2", fixed=True)
    generator = random.Random(56)
    for _ in range(200):
        objective = [generator.randint(-1000, 1000) for _ in range(36)]
        point = certified_minimum(polytope, objective).point
        steps = [steps_of([point[i * 6 + j] for i in range(6)], Fraction(2)) for j in range(6)]
        assert " ".join(orbit_key(steps)) in listed, objective


def test_the_claim_reads_the_n6_file_only_with_full(tmp_path):
    """Without --full beyond.f-census does not read a file past n = 5 (here not even JSON), and
    says so; with --full it reads and checks it."""
    from qifkit.errors import FileFormatError

    shutil.copy(beyond.CENSUS_FOLDER / "f-n5-e3.json", tmp_path / "f-n5-e3.json")
    (tmp_path / "f-n6-e2.json.gz").write_bytes(b"not a census")
    outcome = beyond.f_census(folder=tmp_path, expected={"3": beyond.F_N5_COUNTS["3"]})
    assert outcome.status is Status.CONFIRMED and "not read without --full: f-n6-e2.json.gz" in outcome.summary
    assert outcome.evidence["files"]["f-n6-e2.json.gz"]["checked"] is False
    with pytest.raises(FileFormatError):
        beyond.f_census(folder=tmp_path, expected={"3": beyond.F_N5_COUNTS["3"]}, full=True)


def test_an_orbit_removed_is_refused_by_the_recount():
    forged = _document(4)
    gone = forged["orbits"].pop(10)
    forged["count"] -= gone["size"]
    assert check_f_census(forged).count == 1806 - gone["size"]  # consistent: only the recount sees it
    with pytest.raises(CertificateError, match="enumerated again, give 41 orbits; the file lists 40"):
        check_f_census(forged, recount=True)


def _changed(field, value, orbit=None):
    document = _document(4)
    forged = copy.deepcopy(document)
    (forged if orbit is None else forged["orbits"][orbit])[field] = value
    return forged


@pytest.mark.parametrize("change, message", [
    (lambda d: _changed("format", "qifkit census of U by column steps, version 1"), "not a census file of F"),
    (lambda d: _changed("z", "binomial"), "not a census file of F"),
    (lambda d: _changed("count", d["count"] + 1), "is not the orbits' sum"),
    (lambda d: _changed("size", d["orbits"][3]["size"] * 2, 3), "is not the orbit's"),
    (lambda d: _changed("steps", "ddd ddd", 3), "are not 4 words of 3 letters"),
    (lambda d: _changed("steps", " ".join(reversed(d["orbits"][3]["steps"].split())), 3), "not its orbit's name"),
    (lambda d: _changed("steps", "ddd ddd ddd ddd", 3), "give no vertex of F"),
])
def test_a_forged_census_is_refused(change, message):
    with pytest.raises(CertificateError, match=message):
        check_f_census(change(_document(4)))


def test_an_orbit_listed_twice_is_refused():
    forged = _document(4)
    forged["orbits"].append(forged["orbits"][5])
    forged["count"] += forged["orbits"][5]["size"]
    with pytest.raises(CertificateError, match="is orbit 6 again"):
        check_f_census(forged)


def test_a_tight_step_called_loose_is_refused():
    """At n = 4, e^ε = 2, the steps {ddu, duu, udd, uld} fix a matrix of F whose 'l' step is in fact
    tight (u): it is the vertex {ddu, duu, udd, uud}, listed under its real steps, and must not be
    listed again under these (found by trying every multiset with a loose step)."""
    forged = _document(4)
    forged["orbits"].append({"steps": "ddu duu udd uld", "size": 24})
    forged["count"] += 24
    with pytest.raises(CertificateError, match="loose step is tight"):
        check_f_census(forged)


def test_the_claim_binds_every_file_to_normaliz_count(tmp_path):
    """beyond.f-census without --full recounts no file: a file with an orbit removed and its count
    made consistent passes the entry checks, and is refused by the golden count (Normaliz's)."""
    shutil.copy(beyond.CENSUS_FOLDER / "f-n5-e3.json", tmp_path / "f-n5-e3.json")
    outcome = beyond.f_census(folder=tmp_path, expected={"3": beyond.F_N5_COUNTS["3"]})
    assert outcome.status is Status.CONFIRMED and not outcome.evidence["files"]["f-n5-e3.json"]["recounted"]
    assert beyond.f_census(folder=tmp_path).status is Status.FAILED  # the four other files are missing
    forged = json.loads((tmp_path / "f-n5-e3.json").read_text())
    gone = forged["orbits"].pop(100)
    forged["count"] -= gone["size"]
    (tmp_path / "f-n5-e3.json").write_text(json.dumps(forged))
    outcome = beyond.f_census(folder=tmp_path, expected={"3": beyond.F_N5_COUNTS["3"]})
    assert outcome.status is Status.FAILED and "expected" in outcome.evidence["failures"][0]


@pytest.mark.slow
def test_the_claim_recounts_with_full(tmp_path):
    """With --full, beyond.f-census enumerates every file again (under a minute each): the same
    forgery is refused by the recount itself."""
    forged = json.loads((beyond.CENSUS_FOLDER / "f-n5-e3.json").read_text())
    gone = forged["orbits"].pop(100)
    forged["count"] -= gone["size"]
    (tmp_path / "f-n5-e3.json").write_text(json.dumps(forged))
    with pytest.raises(CertificateError, match="enumerated again, give 5121 orbits; the file lists 5120"):
        beyond.f_census(folder=tmp_path, expected={"3": beyond.F_N5_COUNTS["3"]}, full=True)


@pytest.mark.parametrize("n, eps_exp, error", [
    (1, "2", ShapeError),
    (F_COLUMNS_MAX_N + 1, "2", ParameterError),
    (3, "1", PrivacyParameterError),
    (3, "1/2", PrivacyParameterError),
    (3, 2.0, NotExactError),
    (3, "two", NumberSyntaxError),
])
def test_bad_input_is_refused(n, eps_exp, error):
    with pytest.raises(error):
        f_vertices_by_columns(n, eps_exp)
