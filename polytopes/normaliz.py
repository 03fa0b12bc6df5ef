"""A second exact enumeration backend: Normaliz (Bruns, Ichim, Söger and von der Ohe), through its
Python interface PyNormaliz (PyPI ``pynormaliz``, a wheel with libnormaliz and FLINT for Linux
x86_64). Normaliz computes the vertices of a rational polyhedron by its own exact algorithms
(Fourier–Motzkin with pyramid decomposition), independent of cddlib and lrs.

The H-representation is handed over with integer rows (each row of rationals times the lcm of its
denominators); Normaliz returns each vertex as integers with a common denominator last.

Ctrl-C: while Normaliz computes, PyNormaliz puts a SIGINT handler of its own in place of Python's.
That handler only sets libnormaliz's flag ``nmz_interrupted``, which Normaliz reads at a few points
and turns into KeyboardInterrupt. A Ctrl-C that landed after the last reading left the flag set and
the call returned normally; a later call or the next cone's constructor cleared the flag, and the
run went on to exit 0 (about 1 run in 15 of ``qifkit enumerate LDP --n 5 --resume`` interrupted
during its small faces). So every cone is used inside :func:`_ctrl_c_after_normaliz`: SIGINT is
blocked (:func:`qifkit.interrupts.ctrl_c_blocked`) and reaches Python when Normaliz has returned.
Normaliz did not stop early on its flag in our computations anyway: a Ctrl-C two seconds into the
6 s face of that run was acted on at its end. In a Python program of the user's, helper threads
(numpy's and scipy's OpenBLAS) do not block SIGINT, and one may take the signal while the main thread
holds it: Normaliz's handler then runs there, and its flag is read when Normaliz returns (the
``qifkit`` command starts its helper threads with SIGINT blocked, so there the signal waits).
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from polytopes.hrep import Polytope
from qifkit.errors import MissingDependencyError, PolytopeError
from qifkit.interrupts import ctrl_c_blocked
from qifkit.numbers import over_common_denominator

__all__ = ["normaliz_available", "normaliz_vertices", "normaliz_integer_rays"]

INSTALL_HINT = "pip install pynormaliz (wheels for Linux x86_64; elsewhere see normaliz.uos.de)"


def _module() -> Any:
    """PyNormaliz set to one thread, or None when it is not installed.

    One thread because a Ctrl-C inside Normaliz's OpenMP region can deadlock its thread team: seen
    under load in ``qifkit enumerate LDP --n 5``, the process then idles in libgomp's barrier
    (``Full_Cone::find_new_facets``) forever instead of exiting 130. On two cores one thread
    costs about 8% (four blocks of that enumeration: 14.9 s against 13.8 s)."""
    try:
        import PyNormaliz
    except ImportError:
        return None
    PyNormaliz.NmzSetNumberOfNormalizThreads(1)
    return PyNormaliz


def _interrupt_flag(module: Any) -> ctypes.c_int | None:
    """libnormaliz's ``nmz_interrupted`` (a ``sig_atomic_t``), found through PyNormaliz's extension
    module and the libraries it loaded; None for a build that does not export it."""
    try:
        library = ctypes.CDLL(module.PyNormaliz_cpp.__file__)
        return ctypes.c_int.in_dll(library, "_ZN11libnormaliz15nmz_interruptedE")
    except (AttributeError, OSError, ValueError):
        return None


@contextlib.contextmanager
def _ctrl_c_after_normaliz(module: Any) -> Iterator[None]:
    """The block (calls on one cone) with SIGINT held until it ends; then KeyboardInterrupt if a
    Ctrl-C reached Normaliz's handler and Normaliz returned without acting on it (see the module
    docstring; the flag is cleared as PyNormaliz clears it when Normaliz does act)."""
    with ctrl_c_blocked():
        yield
    flag = _interrupt_flag(module)
    if flag is not None and flag.value:
        flag.value = 0
        raise KeyboardInterrupt


def normaliz_available() -> bool:
    """True when PyNormaliz imports."""
    return _module() is not None


def _integers(row: Sequence[Fraction]) -> list[int]:
    return over_common_denominator(row)[0]


def _integer_row(row: tuple[Fraction, ...]) -> list[int]:
    """(b, a_1, ..., a_d) for b + a·x ≥ 0 as Normaliz's inhomogeneous row [a_1, ..., a_d, b] in integers."""
    integers = _integers(row)
    return integers[1:] + integers[:1]


def normaliz_vertices(polytope: Polytope) -> set[tuple[Fraction, ...]]:
    """The vertices Normaliz finds, as exact coordinate tuples.

    Parameters
    ----------
    polytope : Polytope
        A bounded polytope.

    Returns
    -------
    set of tuple of Fraction

    Raises
    ------
    QifError
        If PyNormaliz is not installed, or the set has rays or lines (not a polytope).
    """
    module = _module()
    if module is None:
        raise MissingDependencyError(f"the normaliz method needs PyNormaliz: {INSTALL_HINT}")
    cone = module.Cone(inhom_inequalities=[_integer_row(row) for row in polytope.inequalities],
                       inhom_equations=[_integer_row(row) for row in polytope.equalities])
    with _ctrl_c_after_normaliz(module):
        bounded = cone.RecessionRank() == 0
        vertices = cone.VerticesOfPolyhedron() if bounded else []
    if not bounded:
        raise PolytopeError(f"{polytope.name} is not bounded: Normaliz found rays or lines")
    return {tuple(Fraction(v, vertex[-1]) for v in vertex[:-1]) for vertex in vertices}


def normaliz_integer_rays(equalities: Sequence[Sequence[Fraction]],
                          inequalities: Sequence[Sequence[Fraction]]) -> list[tuple[int, ...]]:
    """The extreme rays of the pointed cone {d : E·d = 0, A·d ≥ 0}, each as Normaliz's primitive
    integer vector.

    Raises
    ------
    QifError
        If PyNormaliz is not installed, or the cone is not pointed (it holds a line).
    """
    module = _module()
    if module is None:
        raise MissingDependencyError(f"the normaliz method needs PyNormaliz: {INSTALL_HINT}")
    cone = module.Cone(inequalities=[_integers(row) for row in inequalities],
                       equations=[_integers(row) for row in equalities])
    with _ctrl_c_after_normaliz(module):
        pointed = not cone.MaximalSubspace()
        rays = cone.ExtremeRays() if pointed else []
    if not pointed:
        raise PolytopeError("the tangent cone has a line: the point is not a vertex")
    return [tuple(int(v) for v in ray) for ray in rays]
