"""ex(U) from its columns' steps (polytopes.u_columns, issue 55): every vertex against cddlib's list
(n ≤ 4, four e^ε) and Normaliz's (n = 5 at two e^ε, slow), Kohli and Laskowski's Thm. 2 on the positive
vertices, the census file and its checker (forgeries refused; the n = 6 file is re-verified by
beyond.u-census, a slow pass in test_checks.py), and the bad input it refuses."""

from __future__ import annotations

import copy
import json

import pytest

from polytopes.enumerate import enumerate_vertices
from polytopes.spaces import count_polytope
from polytopes.u_columns import (
    U_COLUMNS_MAX_N,
    check_u_census,
    u_census_document,
    u_vertices_by_columns,
)
from proofs_checks.kohli2026 import _positive_scale_mechanisms
from qifkit.errors import CertificateError, ParameterError, PrivacyParameterError, ShapeError


def _cdd_vertices(n, eps_exp):
    polytope = count_polytope(n, eps_exp=eps_exp)
    return {tuple(tuple(v) for v in vertex.matrix(polytope.shape)) for vertex in enumerate_vertices(polytope).vertices}


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("eps_exp", ["2", "3/2", "3", "101/100"])
def test_every_vertex_is_cddlibs(n, eps_exp):
    census = u_vertices_by_columns(n, eps_exp)
    found = list(census.vertices())
    assert len(found) == len(set(found)) == census.vertex_count
    assert set(found) == _cdd_vertices(n, eps_exp)


@pytest.mark.slow
@pytest.mark.parametrize("eps_exp", ["2", "3/2"])
def test_n5_against_normaliz(eps_exp):
    """n = 5, where U's vertex count depends on e^ε (55,725 at 2, 67,365 at 3/2): Normaliz's exact
    vertex list (about 2 minutes each; cddlib does not finish in 10) is exactly the columns'. The
    reversal orbit walk gave the same set at e^ε = 2 once (about 19 minutes, too long for the suite)."""
    from polytopes.normaliz import normaliz_available

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    polytope = count_polytope(5, eps_exp=eps_exp)
    listed = {tuple(tuple(v) for v in vertex.matrix(polytope.shape))
              for vertex in enumerate_vertices(polytope, "normaliz").vertices}
    assert set(u_vertices_by_columns(5, eps_exp).vertices()) == listed


@pytest.mark.parametrize("n, eps_exp", [(3, "2"), (4, "2"), (4, "3")])
def test_positive_vertices_are_thm2s_scale_mechanisms(n, eps_exp):
    """Kohli and Laskowski, Thm. 2: the positive vertices are the independent multiples of scales,
    built here by the claim check's own route (a scale per column, solved exactly)."""
    census = u_vertices_by_columns(n, eps_exp)
    positive = {v for v in census.vertices() if all(x > 0 for row in v for x in row)}
    assert positive == _positive_scale_mechanisms(n, eps_exp)
    assert positive


def _document(n, eps_exp="2"):
    return u_census_document(u_vertices_by_columns(n, eps_exp), "test")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_census_file_checks_and_recounts(n):
    document = json.loads(json.dumps(_document(n)))
    checked = check_u_census(document, recount=True)
    assert checked.count == document["count"] == u_vertices_by_columns(n, 2).vertex_count
    assert checked.orbits == len(document["orbits"]) and checked.recounted


def test_an_orbit_removed_is_refused_by_the_recount():
    document = _document(5)
    forged = copy.deepcopy(document)
    removed = forged["orbits"].pop(100)
    forged["count"] -= removed["size"]
    check_u_census(forged)  # every listed entry is still a true vertex
    with pytest.raises(CertificateError, match="enumerated again, give 287 orbits; the file lists 286"):
        check_u_census(forged, recount=True)


def _forged(change):
    document = _document(4)
    change(document)
    return document


@pytest.mark.parametrize("change, message", [
    (lambda d: d["orbits"][3].update(size=d["orbits"][3]["size"] + 1), "is not the orbit's"),
    (lambda d: d.update(count=d["count"] + 1), "is not the orbits' sum"),
    (lambda d: d["orbits"].append(d["orbits"][0]), "again"),
    (lambda d: d["orbits"][0].update(steps=" ".join(reversed(d["orbits"][0]["steps"].split()))), "orbit's name"),
    (lambda d: d["orbits"][-1].update(steps="ddd ddl dld"), "no vertex of U"),
    (lambda d: d["orbits"][0].update(steps="dd"), "words of 3 letters"),
    (lambda d: d["orbits"][0].update(steps="dxd"), "words of 3 letters"),
    (lambda d: d["orbits"][0].update(steps="ddd  uuu"), "words of 3 letters"),
    (lambda d: d["orbits"][0].update(steps=["ddd", "uuu"]), "words of 3 letters"),
    (lambda d: d.update(format="other"), "not a census file of U"),
    (lambda d: d.update(n=9), "n"),
    (lambda d: d.update(eps_exp="1"), "not above 1"),
])
def test_a_forged_census_is_refused(change, message):
    with pytest.raises(CertificateError, match=message):
        check_u_census(_forged(change))


def test_a_tight_step_called_loose_is_refused():
    """At n = 3, e^ε = 2, the steps {du, ld} determine a matrix whose 'l' step is in fact tight: it is
    the vertex {du, ud}, listed under its real steps, and must not be listed again under these."""
    document = _document(3)
    document["orbits"].append({"steps": "du ld", "size": 12})
    document["count"] += 12
    with pytest.raises(CertificateError, match="loose step is tight"):
        check_u_census(document)


@pytest.mark.parametrize("n, eps_exp, error", [
    (U_COLUMNS_MAX_N + 1, "2", ParameterError),
    (1, "2", ShapeError),
    (3, "1", PrivacyParameterError),
    (3, "1/2", PrivacyParameterError),
    (3, "nan", Exception),
])
def test_bad_input_is_refused(n, eps_exp, error):
    with pytest.raises(error):
        u_vertices_by_columns(n, eps_exp)


def test_membership_and_steps_of_exact_matrices():
    """in_count_polytope and steps_of on Fractions: a doubly stochastic 2 × 2 at e^ε = 2 is in F,
    a column sum off by 1/6 is not, a ratio of 3 (either way down the rows) is out of U, and the
    steps of (1, 1/2, 1, 3/2) are d, u, l."""
    from fractions import Fraction as F

    from polytopes.u_columns import in_count_polytope, steps_of

    assert in_count_polytope([[F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]], F(2), fixed=True)
    assert not in_count_polytope([[F(1, 2), F(1, 2)], [F(1, 3), F(2, 3)]], F(2), fixed=True)
    assert in_count_polytope([[F(1, 2), F(1, 2)], [F(1, 3), F(2, 3)]], F(2))
    assert not in_count_polytope([[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]], F(2))
    assert not in_count_polytope([[F(1, 5), F(4, 5)], [F(1, 2), F(1, 2)]], F(2))  # 1/5 up to 1/2 only
    assert steps_of([F(1), F(1, 2), F(1), F(3, 2)], F(2)) == "dul"
