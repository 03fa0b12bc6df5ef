"""Linear programs over exact polytopes, through the toolkit's one exact LP engine.

All routes minimise c·x over a :class:`~polytopes.hrep.Polytope` or a :class:`SparseProgram`
(rows ``b + a·x ≥ 0`` and ``b + a·x = 0``, x free), written as a
:class:`qifkit.lp.LinearProgram` (rows ``a·x ≥ −b`` and ``a·x = −b``):

* :func:`certified_minimum`: :func:`qifkit.lp.solve` (HiGHS proposes a basis, exact algebra
  solves and checks it; cddlib only as its last resort), with the exact duals as certificate.
* :func:`exact_minimum`: cddlib's exact simplex alone (:func:`qifkit.lp.solve_by_cdd`), the
  independent route for cross-checks; slow beyond a few thousand constraints.
* :func:`float_minimum`: HiGHS in floats only (for benchmarks; it never decides).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.hrep import Polytope
from qifkit.errors import PolytopeError, ShapeError, UndecidableError
from qifkit.lp import LinearProgram, LPSolution, certificate_defect, float_solution, solve, solve_by_cdd
from qifkit.numbers import exact_dot, reduced_fraction, reduced_fractions, to_fmpq

__all__ = ["SparseProgram", "LinearProgramResult", "FloatMinimum", "exact_minimum",
           "float_minimum", "certified_minimum", "check_optimality"]


@dataclass(frozen=True)
class LinearProgramResult:
    """An exact optimum, in the polytopes' scalar type: the engine's :class:`~qifkit.lp.LPSolution`
    (flint rationals, as its programs) converted once to Fractions, as the rows of a
    :class:`~polytopes.hrep.Polytope` (a Fraction never equals a flint rational: the two are not
    mixed).

    Attributes
    ----------
    value : Fraction
        min c·x.
    point : tuple of Fraction
        An optimal vertex.
    method : str
        The engine's route, e.g. ``"HiGHS basis (dual simplex), exact solve"`` or
        ``"cddlib exact simplex (0.1 s)"``.
    multipliers : tuple of Fraction
        Exact dual multipliers, one per equality then one per inequality (≥ 0 on inequalities),
        with c = Σ multiplier·a; they certify optimality (:func:`check_optimality`).
    """

    value: Fraction
    point: tuple[Fraction, ...]
    method: str
    multipliers: tuple[Fraction, ...] | None = None


Row = tuple[dict[int, Fraction], Fraction]  # ({k: a_k}, b): b + Σ a_k·x_k (≥ or =) 0


@dataclass(frozen=True)
class SparseProgram:
    """A polytope as sparse rows: ``b + a·x = 0`` (equalities) and ``b + a·x ≥ 0`` (inequalities).

    Dense :class:`~polytopes.hrep.Polytope` rows of n² + 1 entries are fine for enumeration at small n;
    LPs at n = 100 (10⁴ variables, 10⁵ rows) need this form.

    Attributes
    ----------
    variables : int
        The number of variables.
    equalities, inequalities : tuple of rows
        Each row a mapping variable → coefficient and its constant b.
    name : str
        What it is (named in messages and results).
    """

    variables: int
    equalities: tuple[Row, ...]
    inequalities: tuple[Row, ...]
    name: str = "LP"

    @classmethod
    def from_polytope(cls, polytope: Polytope) -> SparseProgram:
        """The same polytope, sparse."""
        # getattr(a, "_numerator", a) reads a Fraction's numerator without its Python-level
        # __bool__ (3× faster on the 10⁷ mostly-zero entries of F at n = 40); ints pass as they are
        def sparse(rows):
            return tuple(({k: a for k, a in enumerate(r[1:]) if getattr(a, "_numerator", a)}, r[0])
                                    for r in rows)
        return cls(
            polytope.dimension_of_space, sparse(polytope.equalities), sparse(polytope.inequalities), polytope.name
        )

    def contains(self, point: Sequence[Fraction]) -> bool:
        """Exact membership."""
        return (len(point) == self.variables and all(_value(r, point) == 0 for r in self.equalities)
                and all(_value(r, point) >= 0 for r in self.inequalities))

    def linear_program(self, objective: Sequence[Any]) -> LinearProgram:
        """min objective·x over this polytope as the engine's program (equalities first)."""
        if len(objective) != self.variables:
            raise ShapeError(f"the objective has {len(objective)} coefficients, the program {self.variables} variables")
        rows = [terms for terms, _ in self.equalities + self.inequalities]
        bounds = [(-b if b else b) if isinstance(b, Fraction) else -Fraction(b)  # 10⁵ zeros in Cormode's design
                  for _, b in self.equalities + self.inequalities]
        upper = bounds[: len(self.equalities)] + [None] * len(self.inequalities)
        return LinearProgram.build(self.variables, rows, row_lower=bounds, row_upper=upper, cost=objective,
                                   lower=None, upper=None, name=self.name)


def _value(row: Row, point: Sequence[Any]) -> Any:
    return row[1] + sum(a * point[k] for k, a in row[0].items())


def _program(program: SparseProgram | Polytope) -> SparseProgram:
    return program if isinstance(program, SparseProgram) else SparseProgram.from_polytope(program)


def _result(solution: LPSolution, name: str) -> LinearProgramResult:
    if solution.status != "optimal":
        raise PolytopeError(f"the LP over {name} is {solution.status} ({solution.method})")
    return LinearProgramResult(reduced_fraction(solution.value), reduced_fractions(solution.point),  # type: ignore[arg-type]
                               solution.method, reduced_fractions(solution.duals))  # type: ignore[arg-type]


def exact_minimum(program: SparseProgram | Polytope, objective: Sequence[Any]) -> LinearProgramResult:
    """min c·x by cddlib's exact simplex alone (GMP rationals), the independent cross-check route.

    Parameters
    ----------
    program : SparseProgram or Polytope
        The feasible set.
    objective : sequence of exact numbers
        c, one coefficient per variable.

    Returns
    -------
    LinearProgramResult
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
    return _result(solution, program.name)


@dataclass(frozen=True)
class FloatMinimum:
    """HiGHS's float optimum: its point and value. Never a verdict."""

    point: np.ndarray
    value: float


def float_minimum(program: SparseProgram | Polytope, objective: Sequence[Any]) -> FloatMinimum:
    """min c·x by HiGHS alone, in floats, through the exact engine's own float stage
    (:func:`qifkit.lp.float_solution`, scaled as the engine scales it; for benchmarks: it never
    decides).

    Parameters
    ----------
    program : SparseProgram or Polytope
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


def check_optimality(program: SparseProgram | Polytope, objective: Sequence[Any], point: Sequence[Fraction],
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


def certified_minimum(program: SparseProgram | Polytope, objective: Sequence[Any],
                      fallback: bool = True, time_limit: float | None = None) -> LinearProgramResult:
    """min c·x, exact and certified, by :func:`qifkit.lp.solve` (HiGHS basis, exact solve and check;
    cddlib as a last resort unless ``fallback=False``, which raises
    :class:`~qifkit.errors.UndecidableError` instead).

    Parameters
    ----------
    program : SparseProgram or Polytope
        The feasible set, e.g. :func:`~polytopes.ldp_polytope` (variables: the matrix row by row).
    objective : sequence of exact numbers
        c, one coefficient per variable.
    fallback : bool
        Allow cddlib's exact simplex when HiGHS's bases do not certify.
    time_limit : float, optional
        Seconds; :class:`~qifkit.errors.TimeLimitReached` after them.

    Returns
    -------
    LinearProgramResult
        ``value`` (exact), ``point`` (an optimal vertex), ``multipliers`` (the dual certificate) and
        the ``method`` that certified them.

    Examples
    --------
    The most accurate ε-LDP mechanism on two values at e^ε = 2 reports truthfully with probability
    2/3 per value (randomised response), so min −(x₀₀ + x₁₁) = −4/3:

    >>> from polytopes import ldp_polytope
    >>> certified_minimum(ldp_polytope(2, eps_exp=2), [-1, 0, 0, -1]).value
    Fraction(-4, 3)
    """
    program = _program(program)
    return _result(solve(program.linear_program(objective), fallback=fallback, time_limit=time_limit), program.name)
