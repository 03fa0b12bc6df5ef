"""Preimages in the representation polytopes (polytopes.representation.preimage, Kohli and
Laskowski's Thms. 3 and 10): the scale decomposition of a column, the preimage of every vertex of F
and U found among cddlib's vertices of R_F and R_U, and beyond.census-preimages on the census
files, forgeries and missing files refused."""

import json
import shutil
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polytopes.classify import rank
from polytopes.enumerate import enumerate_vertices
from polytopes.representation import apply_psi, preimage, scale_decomposition
from polytopes.scales import psi, scales
from polytopes.spaces import count_polytope, representation_polytope
from proofs_checks.beyond import CENSUS_FOLDER, census_preimages
from proofs_checks.claims import Status
from qifkit.errors import PolytopeError, PrivacyParameterError, ShapeError


def _vertices(polytope):
    return {tuple(tuple(row) for row in v.matrix(polytope.shape)) for v in enumerate_vertices(polytope).vertices}


@pytest.mark.parametrize(("n", "eps_exp", "z"), [
    (3, "2", None), (3, "3", None), (3, "2", ("1/2", "1/4", "1/4")), (3, "3/2", ("1/6", "1/3", "1/2")),
    (3, "2", ("1/2", "0", "1/2")),
])
def test_every_vertex_of_f_has_its_preimage_among_cdds_vertices_of_r_f(n, eps_exp, z):
    """Thm. 3 by two methods: the preimage built column by column is one of the vertices cddlib
    lists for R_F (78 of them at n = 3, e^ε = 2, uniform z: Example 1), and Ψ maps it back."""
    f = _vertices(count_polytope(n, eps_exp=eps_exp, z=z, fixed=True))
    rf = _vertices(representation_polytope(n, eps_exp=eps_exp, z=z, fixed=True))
    for t in f:
        b = preimage(t, eps_exp)
        assert tuple(tuple(row) for row in b) in rf, t
        assert apply_psi(psi(n, eps_exp), b) == [list(row) for row in t]


@pytest.mark.parametrize(("n", "eps_exp"), [(3, "2"), (3, "5"), (4, "2"), (4, "3/2")])
def test_every_vertex_of_u_has_its_preimage_among_cdds_vertices_of_r_u(n, eps_exp):
    """Thm. 10 by two methods (27 vertices of U and 36 of R_U at n = 3, e^ε = 2: Example 2)."""
    u = _vertices(count_polytope(n, eps_exp=eps_exp))
    ru = _vertices(representation_polytope(n, eps_exp=eps_exp))
    for t in u:
        assert tuple(tuple(row) for row in preimage(t, eps_exp)) in ru, t


@st.composite
def _allowed_columns(draw):
    """A column allowed by ε: a random non-negative combination of random scales."""
    n = draw(st.integers(2, 6))
    e = Fraction(draw(st.integers(11, 40)), 10)
    table = scales(n, e)
    weights = draw(st.lists(st.integers(0, 5), min_size=len(table), max_size=len(table)))
    column = [sum((w * s[i] for w, s in zip(weights, table, strict=True)), Fraction(0)) for i in range(n)]
    return column, e


@settings(max_examples=150, deadline=None)
@given(_allowed_columns())
def test_a_column_is_peeled_into_independent_scales(case):
    """Σ amount·scale gives the column back exactly, every amount is positive, the scales used are
    linearly independent and number at most (loose steps + 1)."""
    column, e = case
    parts = scale_decomposition(column, e)
    table = scales(len(column), e)
    rebuilt = [sum((a * table[k][i] for k, a in parts), Fraction(0)) for i in range(len(column))]
    assert rebuilt == column
    assert all(a > 0 for _, a in parts)
    if parts:
        assert rank([list(table[k]) for k, _ in parts]) == len(parts)
    loose = sum(1 for a, b in zip(column, column[1:], strict=False) if a != e * b and b != e * a)
    assert len(parts) <= loose + 1


def test_the_printed_scales_are_their_own_decomposition():
    """Ψ's printed columns at n = 3, e^ε = 2 (Example 1) are each one scale, amount 1."""
    for k, scale in enumerate([("4/7", "2/7", "1/7"), ("2/5", "1/5", "2/5"), ("1/4", "1/2", "1/4"),
                               ("1/7", "2/7", "4/7")]):
        assert scale_decomposition(scale, "2") == [(k, Fraction(1))]
    assert scale_decomposition([0, 0, 0], "2") == []


@pytest.mark.parametrize(("column", "eps_exp", "error", "message"), [
    (["1/2", "-1/4", "3/4"], "2", PolytopeError, "-1/4"),
    (["1/2", "1/8", "3/8"], "2", PolytopeError, "factor e"),
    (["1/3", "1/3", "1/3"], "1", PrivacyParameterError, "1"),
    (["1/3", "1/3", "1/3"], "1/2", PrivacyParameterError, "1/2"),
])
def test_a_column_not_allowed_by_eps_is_refused(column, eps_exp, error, message):
    with pytest.raises(error, match=message):
        scale_decomposition(column, eps_exp)


@pytest.mark.parametrize("t", [[], [[]], [["1/2", "1/2"], ["1"]]])
def test_an_empty_or_ragged_matrix_has_no_preimage(t):
    with pytest.raises(ShapeError, match="rows of one length"):
        preimage(t, 2)


def _folder_with(tmp_path, names):
    for name in names:
        shutil.copy(CENSUS_FOLDER / name, tmp_path / name)
    return tmp_path


def test_the_claim_confirms_one_census_file_of_each(tmp_path):
    """beyond.census-preimages on F and U at n = 5, e^ε = 2 (the full default runs in the slow
    tier): 5,008 and 287 orbits, positive entries within Cor. 2's 5..9 and Cor. 5's 1..5."""
    names = ("f-n5-e2.json", "u-n5-e2.json")
    outcome = census_preimages(_folder_with(tmp_path, names), expected=names)
    assert outcome.status is Status.CONFIRMED, outcome.summary
    files = outcome.evidence["files"]
    assert files["f-n5-e2.json"]["orbits"] == 5008 and files["u-n5-e2.json"]["orbits"] == 287
    assert set(files["f-n5-e2.json"]["positive_entries"]) <= set(range(5, 10))
    assert set(files["u-n5-e2.json"]["positive_entries"]) <= set(range(1, 6))


def _forged(tmp_path, change):
    document = json.loads((CENSUS_FOLDER / "u-n5-e2.json").read_text())
    change(document)
    (tmp_path / "u-n5-e2.json").write_text(json.dumps(document))
    return census_preimages(tmp_path, expected=("u-n5-e2.json",))


def test_an_entry_that_names_no_vertex_is_refused(tmp_path):
    def loosen(document):
        document["orbits"][3]["steps"] = "llll llll llll llll llll"

    outcome = _forged(tmp_path, loosen)
    assert outcome.status is Status.FAILED and "llll llll" in outcome.summary + str(outcome.evidence)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["orbits"][0].update(steps="ddd ddd"), "words of 4"),
    (lambda d: d.update(polytope="LDP"), "not a census file of U"),
    (lambda d: d.update(orbits="all of them"), "lists its orbits"),
])
def test_a_malformed_census_is_a_failure_not_a_crash(tmp_path, change, message):
    outcome = _forged(tmp_path, change)
    assert outcome.status is Status.FAILED and message in str(outcome.evidence)


def test_f_with_another_fixed_point_and_a_missing_file_are_refused(tmp_path):
    document = json.loads((CENSUS_FOLDER / "f-n5-e2.json").read_text())
    (tmp_path / "f-n5-e2.json").write_text(json.dumps({**document, "z": "binomial"}))
    outcome = census_preimages(tmp_path, expected=("f-n5-e2.json", "u-n5-e3.json"))
    assert outcome.status is Status.FAILED
    text = outcome.summary + str(outcome.evidence)
    assert "binomial" in text and "u-n5-e3.json: no such census file" in text


@pytest.mark.slow
def test_every_vertex_of_u_at_n6_has_a_vertex_preimage():
    """U's n = 6 file (read by beyond.census-preimages with --full): 20,179 orbits, about 30 s."""
    outcome = census_preimages(expected=("u-n6-e2.json",))
    assert outcome.status is Status.CONFIRMED, outcome.summary
    assert outcome.evidence["files"]["u-n6-e2.json"]["orbits"] == 20179


@pytest.mark.slow
def test_a_sample_of_fs_n6_census_has_vertex_preimages():
    """Every 700th orbit of F's n = 6 file (2,080 orbits, a few seconds): positive entries within
    Cor. 2's 6..11; the whole file is run by qifkit check --full (about 20 minutes)."""
    from proofs_checks.beyond import _census_preimages
    from qifkit.files import read_json

    document = read_json(str(CENSUS_FOLDER / "f-n6-e2.json.gz"))
    tally, failures = _census_preimages({**document, "orbits": document["orbits"][::700]})
    assert not failures and tally["orbits"] == 2080
    assert set(tally["positive_entries"]) <= set(range(6, 12))
