"""Linear programs over exact polytopes, through the toolkit's one exact LP engine.

All routes minimise c·x over a :class:`~polytopes.hrep.Polytope` or a :class:`~polytopes.hrep.SparsePolytope`
(rows ``b + a·x ≥ 0`` and ``b + a·x = 0``, x free), written as a
:class:`qifkit.lp.LinearProgram` (rows ``a·x ≥ −b`` and ``a·x = −b``):

* :func:`certified_minimum`: :func:`qifkit.lp.solve` (HiGHS proposes a basis, exact algebra
  solves and checks it; cddlib only as its last resort), with the exact duals as certificate.
* :func:`exact_minimum`: cddlib's exact simplex alone (:func:`qifkit.lp.solve_by_cdd`), the
  independent route for cross-checks; slow beyond a few thousand constraints.
* :func:`float_minimum`: HiGHS in floats only (for benchmarks; it never decides).

The exact routes answer with the engine's one result type, :class:`qifkit.lp.LPSolution`, in
Fractions (the scalar rule of :mod:`qifkit.numbers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.hrep import Polytope, SparsePolytope
from qifkit.errors import PolytopeError, ShapeError, UndecidableError
from qifkit.lp import LPSolution, certificate_defect, float_solution, solve, solve_by_cdd
from qifkit.numbers import exact_dot, to_fmpq

__all__ = ["FloatMinimum", "exact_minimum", "float_minimum", "certified_minimum", "check_optimality"]


def _program(program: SparsePolytope | Polytope) -> SparsePolytope:
    return program if isinstance(program, SparsePolytope) else SparsePolytope.from_polytope(program)


def _optimum(solution: LPSolution, name: str) -> LPSolution[Fraction]:
    """The engine's optimum in Fractions, the polytopes' type (the scalar rule of :mod:`qifkit.numbers`)."""
    if solution.status != "optimal":
        raise PolytopeError(f"the LP over {name} is {solution.status} ({solution.method})")
    return solution.as_fractions()


def exact_minimum(program: SparsePolytope | Polytope, objective: Sequence[Any]) -> LPSolution[Fraction]:
    """min c·x by cddlib's exact simplex alone (GMP rationals), the independent cross-check route.

    Parameters
    ----------
    program : SparsePolytope or Polytope
        The feasible set.
    objective : sequence of exact numbers
        c, one coefficient per variable.

    Returns
    -------
    qifkit.lp.LPSolution
        As :func:`certified_minimum`.

    Raises
    ------
    QifError
        If the program is infeasible or unbounded, or cddlib gives no checkable answer.
    """
    program = _program(program)
    solution = solve_by_cdd(program.linear_program(objective))
    if solution is None:
        raise UndecidableError(f"cddlib gave no certified answer for the LP over {program.name}")
    return _optimum(solution, program.name)


@dataclass(frozen=True)
class FloatMinimum:
    """HiGHS's float optimum: its point and value. Never a verdict."""

    point: np.ndarray
    value: float


def float_minimum(program: SparsePolytope | Polytope, objective: Sequence[Any]) -> FloatMinimum:
    """min c·x by HiGHS alone, in floats, through the exact engine's own float stage
    (:func:`qifkit.lp.float_solution`, scaled as the engine scales it; for benchmarks: it never
    decides).

    Parameters
    ----------
    program : SparsePolytope or Polytope
        The feasible set.
    objective : sequence of exact numbers
        c, one coefficient per variable.

    Returns
    -------
    FloatMinimum
        HiGHS's value and point, in floats (never a verdict).

    Raises
    ------
    UndecidableError
        When HiGHS reports no optimum.
    """
    program = _program(program)
    if len(objective) != program.variables:
        raise ShapeError(f"the objective has {len(objective)} coefficients, the program {program.variables} variables")
    status, point = float_solution(program.linear_program(objective))
    if point is None:
        raise UndecidableError(f"HiGHS did not solve the LP over {program.name}: {status}")
    return FloatMinimum(point, float(np.dot([float(Fraction(v)) for v in objective], point)))


def check_optimality(program: SparsePolytope | Polytope, objective: Sequence[Any], point: Sequence[Fraction],
                     multipliers: Sequence[Fraction]) -> bool:
    """Exact optimality certificate (:func:`qifkit.lp.certificate_defect`): the point is feasible,
    the multipliers (equalities first, ≥ 0 on inequalities) are dual feasible, and the primal and
    dual values agree."""
    program = _program(program)
    linear = program.linear_program(objective)
    if len(point) != program.variables or len(multipliers) != len(linear.rows):
        return False
    x = tuple(map(to_fmpq, point))
    solution = LPSolution("optimal", exact_dot(zip(linear.cost, x, strict=True)), x, tuple(map(to_fmpq, multipliers)))
    return certificate_defect(linear, solution) is None


def certified_minimum(program: SparsePolytope | Polytope, objective: Sequence[Any],
                      fallback: bool = True, time_limit: float | None = None) -> LPSolution[Fraction]:
    """min c·x, exact and certified, by :func:`qifkit.lp.solve` (HiGHS basis, exact solve and check;
    cddlib as a last resort unless ``fallback=False``, which raises
    :class:`~qifkit.errors.UndecidableError` instead).

    Parameters
    ----------
    program : SparsePolytope or Polytope
        The feasible set, e.g. :func:`~polytopes.ldp_polytope` (variables: the matrix row by row).
    objective : sequence of exact numbers
        c, one coefficient per variable.
    fallback : bool
        Allow cddlib's exact simplex when HiGHS's bases do not certify.
    time_limit : float, optional
        Seconds; :class:`~qifkit.errors.TimeLimitReached` after them.

    Returns
    -------
    qifkit.lp.LPSolution
        The engine's answer in Fractions (:meth:`~qifkit.lp.LPSolution.as_fractions`): ``value``,
        ``point`` (an optimal vertex), ``duals`` (the certificate: one multiplier per equality, then
        one per inequality, ≥ 0 on inequalities, with c = Σ multiplier·a) and the ``method`` that
        certified them.

    Examples
    --------
    The most accurate ε-LDP mechanism on two values at e^ε = 2 reports truthfully with probability
    2/3 per value (randomised response), so min −(x₀₀ + x₁₁) = −4/3:

    >>> from polytopes import ldp_polytope
    >>> certified_minimum(ldp_polytope(2, eps_exp=2), [-1, 0, 0, -1]).value
    Fraction(-4, 3)
    """
    program = _program(program)
    return _optimum(solve(program.linear_program(objective), fallback=fallback, time_limit=time_limit), program.name)
