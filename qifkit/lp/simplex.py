"""The exact dual simplex: pivots in rationals from a dual feasible basis that misses some bounds,
bounded by a number of pivots."""

from __future__ import annotations

from typing import Any

import flint

from qifkit.lp.basis import basis_factor, basis_solution, inverse_row
from qifkit.lp.certificate import checked_optimum, exact_dot, row_activity
from qifkit.lp.highs import time_left
from qifkit.lp.program import Flags, LinearProgram, LPSolution
from qifkit.lp.refine import dual_feasible

__all__ = ["exact_dual_simplex"]


def exact_dual_simplex(program: LinearProgram, start: Flags, deadline: float | None, pivots: int = 200
                        ) -> LPSolution | None:
    """Exact dual simplex pivots from a basis of HiGHS's, (column basic, column at upper, row
    basic, row at upper) as :func:`basis_flags` reads it, when that basis is dual feasible but
    its exact point violates a bound by a hair (what floats cannot see on ill-conditioned bases).

    Each pivot takes the basic variable or row farthest out of its bounds (after
    :data:`DEGENERATE_RUN` degenerate pivots in a row, the first by index instead: Bland's rule,
    against cycling), computes its row of the basis inverse exactly (one transposed solve),
    and lets enter the non-basic variable or row of smallest dual ratio |d_q|/|α_pq| among those
    that move it back; the leaving one stays at the bound it violated. The basis stays dual
    feasible, so the first primal feasible basis is optimal; its certificate is checked by
    :func:`certificate_defect`. None when the start is not dual feasible, when no variable can
    enter (the program would be infeasible: the elastic route decides that), or after `pivots`
    pivots; TimeLimitReached past the caller's `deadline` (:func:`run_highs`).
    """

    m, n = program.shape
    column_basic, column_upper, row_basic, row_upper = (list(flags) for flags in start)  # copies: pivots change them
    # variables 0..n-1 are the columns, n..n+m-1 the row activities
    low = list(program.lower) + list(program.row_lower)
    high = list(program.upper) + list(program.row_upper)
    degenerate = 0  # consecutive pivots that left the dual objective unchanged
    for pivot in range(pivots):
        time_left(deadline)
        factor = None if program.blocks is not None else basis_factor(program, column_basic, row_basic)
        found = basis_solution(program, column_basic, column_upper, row_basic, row_upper, factor=factor)
        if found is None or found[0] is None or found[1] is None:
            return None
        x, y = found[0], found[1]
        if pivot == 0 and not dual_feasible(program, x, y):
            return None
        values = x + [row_activity(row, x) for row in program.rows]
        leaving, direction = _leaving(values, column_basic + row_basic, low, high, bland=degenerate >= DEGENERATE_RUN)
        if leaving is None:  # every basic value within its bounds
            return checked_optimum(program, x, y, "HiGHS basis, then exact dual simplex pivots", feasible=False)
        found_row = inverse_row(program, column_basic, row_basic, leaving, factor)
        if found_row is None:
            return None
        tight_rows, rho = found_row
        # α: how the leaving variable moves per unit move of each non-basic variable or row
        alpha: dict[int, flint.fmpq] = {n + i: r for i, r in zip(tight_rows, rho, strict=True) if r}
        through: dict[int, list[tuple[flint.fmpq, flint.fmpq]]] = {}
        for i, r in zip(tight_rows, rho, strict=True):
            if r:
                for k, a in program.rows[i]:
                    if not column_basic[k]:
                        through.setdefault(k, []).append((r, a))
        own = dict(program.rows[leaving - n]) if leaving >= n else {}
        for k in set(through) | {k for k in own if not column_basic[k]}:
            alpha[k] = own.get(k, flint.fmpq(0)) - exact_dot(through.get(k, []))
        priced: dict[int, list[tuple[flint.fmpq, flint.fmpq]]] = {}
        for i in tight_rows:
            if y[i]:
                for k, a in program.rows[i]:
                    if not column_basic[k]:
                        priced.setdefault(k, []).append((y[i], a))
        best, entering = None, None
        for q in sorted(alpha):
            a_pq = alpha[q]
            if a_pq == 0:
                continue
            d = y[q - n] if q >= n else program.cost[q] - exact_dot(priced.get(q, []))
            at_upper = (row_upper[q - n] if q >= n else column_upper[q]) or low[q] is None
            free = low[q] is None and high[q] is None
            fixed = low[q] is not None and low[q] == high[q]
            if fixed:
                continue
            moves = (1, -1) if free else ((-1,) if at_upper else (1,))
            for move in moves:
                if a_pq * move * direction <= 0:
                    continue
                if d * move < 0:  # the start was not dual feasible: not this routine's case
                    return None
                ratio = abs(d / a_pq)
                if best is None or ratio < best:
                    best, entering = ratio, q
        if entering is None:
            return None
        degenerate = degenerate + 1 if best == 0 else 0
        if leaving < n:
            column_basic[leaving], column_upper[leaving] = False, direction < 0
        else:
            row_basic[leaving - n], row_upper[leaving - n] = False, direction < 0
        if entering < n:
            column_basic[entering] = True
        else:
            row_basic[entering - n] = True
    return None


#: After this many consecutive degenerate pivots (a dual ratio of 0) the leaving variable is chosen
#: by Bland's rule (the smallest index), which cannot cycle; before, by the largest violation.
DEGENERATE_RUN = 20


def _leaving(values: list[flint.fmpq], is_basic: list[bool], low: list[Any], high: list[Any], bland: bool
             ) -> tuple[int | None, int]:
    """The basic variable or row to leave and the way it must move (+1 up to its lower bound, −1
    down to its upper): the largest bound violation (the smallest index among equals), or with
    `bland` the first violation by index; (None, 0) when every basic value is within its bounds."""
    leaving, direction, worst = None, 0, flint.fmpq(0)
    for v, value in enumerate(values):
        if not is_basic[v]:
            continue
        bottom, top = low[v], high[v]
        if bottom is not None and value < bottom:
            violation, way = bottom - value, 1
        elif top is not None and value > top:
            violation, way = value - top, -1
        else:
            continue
        if violation > worst:
            leaving, direction, worst = v, way, violation
            if bland:
                break
    return leaving, direction
