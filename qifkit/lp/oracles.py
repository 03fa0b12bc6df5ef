"""Exact solvers beside the engine, for cross-checks: cddlib"s exact simplex (also the engine"s
last resort) and the Parma Polyhedra Library"s."""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import flint

from qifkit.errors import MissingDependencyError
from qifkit.extras import needs_extra
from qifkit.lp.certificate import certificate_defect
from qifkit.lp.farkas import elastic_program
from qifkit.lp.program import LinearProgram, LPSolution
from qifkit.numbers import exact_dot, over_common_denominator, reduced_fraction, to_fmpq

__all__ = ["solve_by_cdd", "ppl_optimum"]


def solve_by_cdd(program: LinearProgram, is_elastic: bool = False) -> LPSolution | None:
    """cddlib's exact simplex in GMP rationals, for small programs (the last resort of :func:`solve`
    and an independent route for cross-checks); None when cddlib's answer does not pass
    :func:`certificate_defect`. Its optimal duals are mapped
    back to the rows; an infeasible program is certified by the elastic program solved the same
    way."""
    m, n = program.shape
    with needs_extra("polytopes"):
        import cdd
        import cdd.gmp

    started = time.perf_counter()

    def fraction(v):  # cddlib reads Fractions
        return None if v is None else reduced_fraction(v)

    table: list[list[Fraction]] = []
    # equalities as two rows, so that every multiplier is signed; source: (row i, sign) of each table row, None for a
    # bound
    source: list[tuple[int, int] | None] = []
    for i, row in enumerate(program.rows):
        dense = [Fraction(0)] * n
        for k, a in row:
            dense[k] = reduced_fraction(a)
        low, high = fraction(program.row_lower[i]), fraction(program.row_upper[i])
        if low is not None:
            table.append([-low, *dense])
            source.append((i, 1))
        if high is not None:
            table.append([high, *(-a for a in dense)])
            source.append((i, -1))
    for j in range(n):
        unit = [Fraction(1) if k == j else Fraction(0) for k in range(n)]
        low, high = fraction(program.lower[j]), fraction(program.upper[j])
        if low is not None:
            table.append([-low, *unit])
            source.append(None)
        if high is not None:
            table.append([high, *(-u for u in unit)])
            source.append(None)
    if not table:
        table.append([Fraction(1)] + [Fraction(0)] * n)
        source.append(None)
    matrix = cdd.gmp.matrix_from_array(table, rep_type=cdd.RepType.INEQUALITY, obj_type=cdd.LPObjType.MIN,
                                       obj_func=[Fraction(0), *map(reduced_fraction, program.cost)])
    solver = cdd.gmp.linprog_from_matrix(matrix)
    cdd.gmp.linprog_solve(solver)
    elapsed = time.perf_counter() - started
    if solver.status == cdd.LPStatusType.OPTIMAL:
        x = tuple(to_fmpq(v) for v in solver.primal_solution)
        duals = [flint.fmpq(0)] * m
        for index, multiplier in solver.dual_solution:
            origin = source[index] if index < len(source) else None
            if origin is not None:
                i, sign = origin
                duals[i] -= sign * to_fmpq(multiplier)  # cddlib's multipliers of a minimum are ≤ 0
        optimum = exact_dot(zip(program.cost, x, strict=True))
        solution = LPSolution("optimal", optimum, x, tuple(duals), method=f"cddlib exact simplex ({elapsed:.1f} s)")
        return solution if certificate_defect(program, solution) is None else None
    if solver.status != cdd.LPStatusType.OPTIMAL and not is_elastic:  # infeasible, or unbounded
        elastic = solve_by_cdd(elastic_program(program), is_elastic=True)
        if elastic is None or elastic.value is None or elastic.value <= 0 or elastic.duals is None:
            return None
        solution = LPSolution("infeasible", duals=elastic.duals[:m], method="cddlib exact simplex (elastic)")
        return solution if certificate_defect(program, solution) is None else None
    return None


def ppl_optimum(program: LinearProgram) -> tuple[str, flint.fmpq | None]:
    """The status and optimal value (a flint rational, as the engine's :class:`LPSolution`) of
    `program` by the Parma Polyhedra Library's exact simplex
    (``MIP_Problem``, through the optional ``pplpy``): an oracle for tests and benchmarks,
    independent of HiGHS and of cddlib. PPL gives no dual certificate, so the engine never
    returns its answers; the status is ``"optimal"``, ``"infeasible"`` or ``"unbounded"``.

    Raises
    ------
    QifError
        When pplpy is not installed.
    """
    try:
        import ppl
    except ImportError:
        raise MissingDependencyError("PPL is an optional oracle: pip install pplpy") from None
    variables = [ppl.Variable(j) for j in range(program.variables)]

    def integral(terms: Sequence[tuple[int, flint.fmpq]], bound: flint.fmpq) -> tuple[Any, int]:
        *coefficients, value = over_common_denominator([*(a for _, a in terms), bound])[0]
        expression = ppl.Linear_Expression(0)
        for (k, _), coefficient in zip(terms, coefficients, strict=True):
            expression += coefficient * variables[k]
        return expression, value

    constraints = ppl.Constraint_System()
    for row, low, high in zip(program.rows, program.row_lower, program.row_upper, strict=True):
        for bound, sense in ((low, 1), (high, -1)):
            if bound is None:
                continue
            expression, value = integral(row, bound)
            if low is not None and high is not None and low == high:
                constraints.insert(expression == value)
                break
            constraints.insert(expression >= value if sense > 0 else expression <= value)
    for j, (low, high) in enumerate(zip(program.lower, program.upper, strict=True)):
        if low is not None:
            constraints.insert(int(low.q) * variables[j] >= int(low.p))
        if high is not None:
            constraints.insert(int(high.q) * variables[j] <= int(high.p))
    objective = ppl.Linear_Expression(0)
    cost, common = over_common_denominator(program.cost)
    for j, c in enumerate(cost):
        if c:
            objective += c * variables[j]
    problem = ppl.MIP_Problem(program.variables, constraints, objective, "minimization")
    status = problem.solve()["status"]
    if status != "optimized":
        return ("infeasible" if status == "unfeasible" else "unbounded"), None
    value = problem.optimal_value()
    return "optimal", flint.fmpq(int(value.numerator), int(value.denominator) * common)
