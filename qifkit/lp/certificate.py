"""The checker every answer of the engine passes: exact arithmetic only, and nothing of the
engine (no HiGHS, no basis, no refinement) is imported here. An optimum needs a feasible point and
row duals whose dual value equals its cost; infeasibility, Farkas multipliers with a positive dual
value; unboundedness, a feasible point and an improving ray."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flint

from qifkit.lp.program import Bound, LinearProgram, LPSolution
from qifkit.numbers import exact_dot, to_fmpq

__all__ = ["certificate_defect", "dual_defect", "checked_optimum", "exact_dot", "row_activity", "verify_solution",
           "primal_defect"]


def certificate_defect(program: LinearProgram, solution: LPSolution) -> str | None:
    """Why `solution` is not a valid certificate for `program`, or None when it is.

    Exact arithmetic only (flint rationals; a solution in Fractions is converted first); no LP is
    solved. See the module docstring for what each kind of certificate must satisfy.

    Examples
    --------
    >>> from fractions import Fraction
    >>> program = LinearProgram.build(1, [{0: 1}], row_lower=[1], cost=[1])
    >>> certificate_defect(program, LPSolution("optimal", Fraction(1), (Fraction(1),), (Fraction(1),)))
    >>> certificate_defect(program, LPSolution("optimal", Fraction(1), (Fraction(1),), (Fraction(-1),)))
    'row 0: multiplier -1 < 0 needs a finite upper bound'
    """
    if solution.status not in ("optimal", "infeasible", "unbounded"):
        return f"unknown status {solution.status!r}"
    solution = solution.as_fmpq()  # the program's scalar type: a Fraction and a flint rational never meet
    n = program.variables
    if solution.status in ("optimal", "unbounded"):
        if solution.point is None or len(solution.point) != n:
            return f"the point must have {n} entries"
        defect = primal_defect(program, solution.point)
        if defect:
            return defect
    if solution.status == "unbounded":
        if solution.ray is None or len(solution.ray) != n:
            return f"the ray must have {n} entries"
        return _ray_defect(program, solution.ray)
    return dual_defect(program, solution.status, solution.duals, solution.point, solution.value)


def dual_defect(program: LinearProgram, status: str, duals: Sequence[Any] | None, point: Sequence[Any] | None = None,
                 stated: Any = None) -> str | None:
    """The dual half of :func:`certificate_defect` (multipliers, reduced costs, the dual value and,
    for an optimum, its equality with the primal value c·point and with the `stated` value), for a
    point already checked feasible."""
    m, n = program.shape
    if duals is None or len(duals) != m:
        return f"the dual multipliers must have {m} entries"
    y = [to_fmpq(v) for v in duals]
    cost = program.cost if status == "optimal" else [flint.fmpq(0)] * n
    columns: list[list[tuple[flint.fmpq, flint.fmpq]]] = [[] for _ in range(n)]
    dual_terms = []
    for i, (row, yi) in enumerate(zip(program.rows, y, strict=True)):
        if yi == 0:
            continue
        bound, defect = _active_bound(f"row {i}: multiplier", yi, program.row_lower[i], program.row_upper[i])
        if defect:
            return defect
        dual_terms.append((yi, bound))
        for k, a in row:
            columns[k].append((a, yi))
    d = [c - exact_dot(terms) if terms else c for c, terms in zip(cost, columns, strict=True)]
    dual_value = exact_dot(dual_terms)
    for j, dj in enumerate(d):
        if dj == 0:
            continue
        bound, defect = _active_bound(f"variable {j}: reduced cost", dj, program.lower[j], program.upper[j])
        if defect:
            return defect
        dual_value += dj * bound
    if status == "infeasible":
        return None if dual_value > 0 else f"the Farkas value {dual_value} is not positive"
    x = [to_fmpq(v) for v in point]  # type: ignore[union-attr]
    primal_value = exact_dot(zip(cost, x, strict=True))
    if primal_value != dual_value:
        return f"the primal value {primal_value} differs from the dual value {dual_value}"
    if stated is None or to_fmpq(stated) != primal_value:
        return f"the stated value {stated} is not c·x = {primal_value}"
    return None


def checked_optimum(program: LinearProgram, x: list[flint.fmpq], y: list[flint.fmpq], method: str, *,
                     feasible: bool) -> LPSolution[flint.fmpq] | None:
    """The optimal solution (x, y) with its value, if it passes the checks of
    :func:`certificate_defect` (all but x's feasibility when the caller has checked that already:
    `feasible`)."""
    if not feasible and primal_defect(program, x) is not None:
        return None
    value = exact_dot(zip(program.cost, x, strict=True))
    if dual_defect(program, "optimal", y, x, value) is not None:
        return None
    return LPSolution("optimal", value, tuple(x), tuple(y), method=method)


def row_activity(row: Sequence[tuple[int, flint.fmpq]], x: Sequence[flint.fmpq]) -> flint.fmpq:
    """a·x for one sparse row of a :class:`LinearProgram`: flint's own arithmetic for the rows of one
    or two terms that make up most programs (bounds, differences, ε-ratios; four times faster),
    :func:`exact_dot` for longer ones."""
    if len(row) == 2:
        (k, a), (j, b) = row
        return a * x[k] + b * x[j]
    if len(row) == 1:
        return row[0][1] * x[row[0][0]]
    return exact_dot((a, x[k]) for k, a in row)


def _active_bound(what: str, value: flint.fmpq, low: Bound, high: Bound) -> tuple[Any, str | None]:
    """The bound a non-zero multiplier or reduced cost prices (the lower one when it is positive),
    or why there is none."""
    bound = low if value > 0 else high
    if bound is None:
        side, sign = ("lower", ">") if value > 0 else ("upper", "<")
        return None, f"{what} {value} {sign} 0 needs a finite {side} bound"
    return bound, None


def verify_solution(program: LinearProgram, solution: LPSolution) -> bool:
    """True when :func:`certificate_defect` finds nothing wrong."""
    return certificate_defect(program, solution) is None


def primal_defect(program: LinearProgram, x: Sequence[flint.fmpq]) -> str | None:
    for j, v in enumerate(x):
        low, high = program.lower[j], program.upper[j]
        if low is not None and v < low:
            return f"variable {j} = {v} is below its lower bound {low}"
        if high is not None and v > high:
            return f"variable {j} = {v} is above its upper bound {high}"
    for i, row in enumerate(program.rows):
        activity = row_activity(row, x)
        low, high = program.row_lower[i], program.row_upper[i]
        if low is not None and activity < low:
            return f"row {i} = {activity} is below its lower bound {low}"
        if high is not None and activity > high:
            return f"row {i} = {activity} is above its upper bound {high}"
    return None


def _ray_defect(program: LinearProgram, r: Sequence[flint.fmpq]) -> str | None:
    if sum((c * v for c, v in zip(program.cost, r, strict=True)), flint.fmpq(0)) >= 0:
        return "the ray does not decrease the cost"
    checks = [(f"variable {j}", r[j], program.lower[j], program.upper[j]) for j in range(program.variables)]
    checks += [(f"row {i}", row_activity(row, r), program.row_lower[i], program.row_upper[i])
               for i, row in enumerate(program.rows)]
    for what, change, low, high in checks:
        if (low is not None and change < 0) or (high is not None and change > 0):
            return f"{what} changes by {change} along the ray, leaving its bounds"
    return None
