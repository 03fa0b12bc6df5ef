"""Normaliz as a second exact backend (polytopes.normaliz), cross-checked against cddlib and lrs."""

import signal
import threading
import types

import pytest

from polytopes import normaliz
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


class _CtrlCSwallowingCone:
    """A stand-in for PyNormaliz's cone whose computation, like PyNormaliz's, puts its own SIGINT
    handler in place while it runs: a Ctrl-C that arrives then (here sent by the computation itself,
    to the main thread) is swallowed unless the caller held SIGINT blocked."""

    def __init__(self, **_):
        pass

    def RecessionRank(self):  # noqa: N802 (PyNormaliz's name)
        previous = signal.signal(signal.SIGINT, lambda number, frame: None)
        try:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            sum(range(1000))  # bytecodes: Python's pending handler runs here, if the signal is not held
        finally:
            signal.signal(signal.SIGINT, previous)
        return 0

    def VerticesOfPolyhedron(self):  # noqa: N802
        return [[1, 0, 0, 1]]


def test_a_ctrl_c_during_a_normaliz_call_is_raised_after_it_not_lost(monkeypatch, python_ctrl_c):
    """The Ctrl-C that PyNormaliz's handler swallowed made ``enumerate LDP --n 5 --resume`` finish with
    exit 0 about 1 time in 15 (tests/test_interrupts.py); polytopes.normaliz holds SIGINT during
    the calls, so it reaches Python's handler when they return."""
    fake = types.SimpleNamespace(Cone=_CtrlCSwallowingCone)
    monkeypatch.setattr(normaliz, "_module", lambda: fake)
    with pytest.raises(KeyboardInterrupt):
        normaliz_vertices(count_polytope(3, eps_exp="2"))


def test_a_ctrl_c_left_in_normaliz_s_flag_is_raised():
    """Where another thread took the signal, Normaliz's handler set its flag there; a flag still set
    when the calls return is a Ctrl-C, cleared and raised."""
    module = normaliz._module()
    flag = normaliz._interrupt_flag(module)
    assert flag is not None  # the wheel this project installs exports it
    with pytest.raises(KeyboardInterrupt):
        with normaliz._ctrl_c_after_normaliz(module):
            flag.value = 1
    assert flag.value == 0
    with normaliz._ctrl_c_after_normaliz(module):
        pass  # nothing pending, nothing raised
