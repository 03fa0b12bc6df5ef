"""Certificates of infeasibility and unboundedness: Farkas multipliers read off HiGHS"s infeasible
basis (one exact row of its inverse), the elastic program as the fallback, and an improving ray
with a feasible point."""

from __future__ import annotations

from typing import Any

import flint
import numpy as np

from qifkit.lp.attempts import by_bases
from qifkit.lp.basis import basis_of, basis_solution, inverse_row, optimum_of
from qifkit.lp.certificate import certificate_defect
from qifkit.lp.highs import basis_flags, float_rows, highs_model, highs_status, run_highs
from qifkit.lp.program import Bound, LinearProgram, LPSolution

__all__ = ["ray_certificate", "elastic_program", "farkas_certificate", "unbounded_certificate"]


def ray_certificate(program: LinearProgram, deadline: float | None, attempts: int = 4) -> LPSolution | None:
    """Farkas multipliers read off the basis at which HiGHS's dual simplex finds `program`
    infeasible, without the elastic program.

    With zero cost every basis is dual feasible; the dual simplex stops when a basic variable
    or row lies outside its bounds and no non-basic one can bring it back. Its row of the basis
    inverse (:func:`inverse_row`) is then a linear identity, row combination minus the leaving
    row, whose signs are Farkas multipliers: y = ±ρ on the tight rows (and ∓1 on the leaving row),
    the sign set by the side of the bound it misses. The basic entries that HiGHS's values put
    out of bounds are tried largest first (at most `attempts`), one exact transposed solve each;
    if none certifies, those of the basis's exact point (one exact solve; HiGHS's values can
    mislead on large programs: a failing 1000×100 refinement). Each certificate is checked by
    :func:`certificate_defect`. None when HiGHS does not end infeasible with a basis, or no
    candidate passes: the elastic program decides.
    """

    m, n = program.shape
    feasibility = program.with_cost([0] * n)
    highs = highs_model(feasibility)
    highs.setOptionValue("presolve", "off")
    run_highs(highs, deadline)
    flags = basis_flags(highs)
    if highs_status(highs) != "infeasible" or flags is None:
        return None
    column_basic, column_upper, row_basic, row_upper = flags
    is_basic = np.array(column_basic + row_basic)

    def out_of_bounds(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> list[tuple[int, int]]:
        """Basic variables and rows outside their bounds, largest miss first, with the side missed."""
        miss = np.where(is_basic, np.maximum(low - values, values - high), 0.0)
        return [
            (int(v), 1 if values[v] < low[v] else -1) for v in sorted(np.flatnonzero(miss > 0), key=lambda v: -miss[v])
        ]

    def certified(leaving: int, direction: int) -> LPSolution | None:
        found_row = inverse_row(feasibility, column_basic, row_basic, leaving)
        if found_row is None:
            return None
        # the identity ρᵀA_tight − (leaving) = 0 on the basic columns; a leaving row below its lower
        # bound needs a positive multiplier, a leaving column below its lower bound a positive
        # reduced cost: both are y = −direction·(ρ − e_leaving row)
        y = [flint.fmpq(0)] * m
        for i, r in zip(*found_row, strict=True):
            y[i] = -direction * r
        if leaving >= n:
            y[leaving - n] += direction
        solution = LPSolution("infeasible", duals=tuple(y),
                              method="HiGHS's infeasible basis (dual simplex), exact row of its inverse")
        return solution if certificate_defect(program, solution) is None else None

    # first HiGHS's own basic values (on its scaled copy: positive scalings keep every sign), then,
    # if none of those certifies, the exact point of the basis read in floats; the check decides
    model, values = highs.getLp(), highs.getSolution()
    tried = set()
    if values.value_valid:
        for leaving, direction in out_of_bounds(np.concatenate([values.col_value, values.row_value]),
                                                np.concatenate([model.col_lower_, model.row_lower_]),
                                                np.concatenate([model.col_upper_, model.row_upper_]))[:attempts]:
            tried.add(leaving)
            solution = certified(leaving, direction)
            if solution is not None:
                return solution
    found = basis_solution(feasibility, column_basic, column_upper, row_basic, row_upper, need_duals=False)
    if found is None or found[0] is None:
        return None
    point = np.array([float(v) for v in found[0]])
    values_exact = np.concatenate([point, float_rows(program) @ point])
    bounds = [np.array([fill if v is None else float(v) for v in side]) for side, fill in
              ((program.lower + program.row_lower, -np.inf), (program.upper + program.row_upper, np.inf))]
    for leaving, direction in [c for c in out_of_bounds(values_exact, *bounds) if c[0] not in tried][:attempts]:
        solution = certified(leaving, direction)
        if solution is not None:
            return solution
    return None


def elastic_program(program: LinearProgram) -> LinearProgram:
    """The program with every row made elastic: row_lower ≤ A·x + s⁺ − s⁻ ≤ row_upper, s ≥ 0,
    minimising Σ(s⁺ + s⁻). It is always feasible and bounded; when its optimum is positive, its
    optimal row duals are Farkas multipliers of `program` (the sign rules and the dual value are
    those of the module docstring, with c = 0 on x)."""
    m, n = program.shape
    one, zero = flint.fmpq(1), flint.fmpq(0)
    rows = tuple(row + ((n + i, one), (n + m + i, -one)) for i, row in enumerate(program.rows))
    cost = (zero,) * n + (one,) * (2 * m)
    blocks = None
    if program.blocks is not None:  # a row's slacks join the group of its first variable
        slack_groups = tuple(program.blocks[row[0][0]] if row else -1 - i for i, row in enumerate(program.rows))
        blocks = program.blocks + slack_groups + slack_groups
    return LinearProgram(n + 2 * m, rows, program.row_lower, program.row_upper, cost,
                         program.lower + (zero,) * (2 * m), program.upper + (None,) * (2 * m),
                         f"{program.name} (elastic)", blocks)


def farkas_certificate(program: LinearProgram, deadline: float | None) -> LPSolution | None:
    """Farkas multipliers from an optimal basis of the elastic program, checked on `program`."""

    def certify(highs: Any, method: str, memo: dict) -> LPSolution | None:
        found = basis_of(elastic, highs, need_point=False, memo=memo)
        if found is None or found[1] is None:
            return None
        solution = LPSolution("infeasible", duals=tuple(found[1]), method=f"elastic {method}")
        return solution if certificate_defect(program, solution) is None else None

    elastic = elastic_program(program)
    return by_bases(elastic, deadline, certify)[1]


def unbounded_certificate(program: LinearProgram, deadline: float | None) -> LPSolution | None:
    """A feasible point (the program with c = 0) and an improving ray (the recession cone cut by
    the box −1 ≤ r ≤ 1), or the Farkas certificate when the program is in fact infeasible."""
    m, n = program.shape
    status, feasible = by_bases(program.with_cost([0] * n), deadline, optimum_of(program.with_cost([0] * n)))
    if status == "infeasible":
        return farkas_certificate(program, deadline)
    if feasible is None:
        return None

    def cone(low: Any, high: Any) -> tuple[Bound, Bound]:
        return (None if low is None else flint.fmpq(0)), (None if high is None else flint.fmpq(0))

    row_bounds = [cone(lo, hi) for lo, hi in zip(program.row_lower, program.row_upper, strict=True)]
    bounds = [cone(lo, hi) for lo, hi in zip(program.lower, program.upper, strict=True)]
    recession = LinearProgram(n, program.rows, tuple(b[0] for b in row_bounds), tuple(b[1] for b in row_bounds),
                              program.cost, tuple(flint.fmpq(-1) if b[0] is None else b[0] for b in bounds),
                              tuple(flint.fmpq(1) if b[1] is None else b[1] for b in bounds), f"{program.name} (rays)",
                              program.blocks)
    _, direction = by_bases(recession, deadline, optimum_of(recession))
    if direction is None or direction.value is None or direction.value >= 0:
        return None
    solution = LPSolution("unbounded", point=feasible.point, ray=direction.point,
                          method="HiGHS bases (a feasible point, the recession cone), exact solve")
    return solution if certificate_defect(program, solution) is None else None
