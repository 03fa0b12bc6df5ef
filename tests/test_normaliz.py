"""Normaliz as a second exact backend (polytopes.normaliz), cross-checked against cddlib and lrs."""

import pytest

from polytopes.enumerate import enumerate_vertices
from polytopes.lrs import lrs_available
from polytopes.normaliz import normaliz_available, normaliz_vertices
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
from proofs_checks.cli import main

pytestmark = pytest.mark.skipif(not normaliz_available(), reason="PyNormaliz is a dependency; skipped only without it")

POLYTOPES = {
    "D n=3 e=2": lambda: ldp_polytope(3, eps_exp="2"),
    "D n=4 e=7/2": lambda: ldp_polytope(4, eps_exp="7/2"),
    "U n=4 e=2": lambda: count_polytope(4, eps_exp="2"),
    "F n=4 e=3/2 skewed": lambda: count_polytope(4, eps_exp="3/2", z=("1/10", "2/10", "3/10", "4/10"), fixed=True),
    "RU n=3 e=2": lambda: representation_polytope(3, eps_exp="2"),
}


@pytest.mark.parametrize("name", sorted(POLYTOPES))
def test_normaliz_finds_the_vertices_cdd_and_lrs_find(name):
    polytope = POLYTOPES[name]()
    found = normaliz_vertices(polytope)
    assert found == {v.coordinates for v in enumerate_vertices(polytope, "cdd").vertices}
    if lrs_available():
        assert found == {v.coordinates for v in enumerate_vertices(polytope, "lrs").vertices}


@pytest.mark.parametrize("name", ["D n=4 e=7/2", "F n=4 e=3/2 skewed"])
def test_tangent_cones_by_normaliz_give_the_same_orbits(name):
    polytope = POLYTOPES[name]()
    by_cdd, by_normaliz = enumerate_orbits(polytope), enumerate_orbits(polytope, cone_method="normaliz")
    assert {o.representative for o in by_cdd.orbits} == {o.representative for o in by_normaliz.orbits}
    assert by_normaliz.neighbours == by_cdd.neighbours


def test_enumerate_method_normaliz_from_the_command_line(capsys):
    assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--method", "normaliz", "--orbits"]) == 0
    assert "904 vertices in 10 orbits" in capsys.readouterr().out


def test_normaliz_runs_on_one_thread():
    """A Ctrl-C inside Normaliz's OpenMP region can deadlock its threads (the enumeration then never
    exits); polytopes.normaliz sets one thread whenever it hands Normaliz work."""
    import PyNormaliz

    PyNormaliz.NmzSetNumberOfNormalizThreads(4)
    normaliz_vertices(count_polytope(3, eps_exp="2"))
    assert PyNormaliz.NmzSetNumberOfNormalizThreads(1) == 1  # returns the count it replaces
