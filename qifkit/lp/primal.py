"""The exact primal simplex: pivots in rationals from a basis whose exact point meets every bound
but whose duals have wrong signs, bounded by a number of pivots.

A refinement round that only repairs the point (the residual program of a primal round) can end
on a basis that is exactly primal feasible and far from optimal: Kohli's F with a binomial z at
n = 50 (e^ε = 2), scaled for its entries alone (before :func:`program_scaling` took the bounds in),
ends its rounds on such a basis, 167 reduced costs of the wrong sign (the largest
1.55), and no basis of the rounds is dual feasible, so the exact dual simplex has no start. From
there the primal simplex keeps the point feasible and lowers the objective until every reduced
cost has its sign (Devex pricing; Bland's rule after a run of degenerate pivots, which cannot cycle).
It shares the dual simplex's state (:class:`qifkit.lp.simplex.SimplexState`: the start factor,
eta vectors, the point and the reduced costs updated exactly at each pivot), and its answer passes
the same check (:func:`checked_optimum`).
"""

from __future__ import annotations

from typing import Any

import flint

from qifkit.lp.certificate import checked_optimum
from qifkit.lp.highs import time_left
from qifkit.lp.program import Flags, LinearProgram, LPSolution
from qifkit.lp.simplex import DEGENERATE_RUN, REFACTOR_FILL, SimplexState, dual_pivots, start_factor
from qifkit.numbers import binary_log

__all__ = ["exact_primal_simplex", "shifted_simplex"]


_ZERO, _ONE = flint.fmpq(0), flint.fmpq(1)


#: The cost perturbation of :func:`shifted_simplex`, relative to the largest cost: each non-basic
#: reduced cost is pushed this far (times 1 to 2) to its side, so that no dual ratio is 0.
_PERTURBATION = flint.fmpq(1, 2**20)


def exact_primal_simplex(program: LinearProgram, start: Flags, deadline: float | None, pivots: int = 200,
                         method: str = "HiGHS basis, then exact primal simplex pivots") -> LPSolution | None:
    """Exact primal simplex pivots from a basis (flags as :func:`basis_flags` reads them) whose
    exact point meets every bound.

    Each pivot lets enter the non-basic variable whose reduced cost has the wrong sign by the most
    relative to its Devex weight (d_j²/w_j, :func:`_devex`; after :data:`DEGENERATE_RUN` pivots in
    a row that left the point where it was, the wrong one of smallest index instead: Bland's
    rule), transforms its column (FTRAN) and moves it as far as
    the basic variables' bounds and its own allow (the smallest step; the smallest variable among
    equal ones). Where its own other bound comes first it only changes sides; else the basic
    variable that reached its bound leaves (its row of the inverse by BTRAN updates the reduced
    costs) and sits at that bound. The first basis whose reduced costs all have their signs is
    optimal; its certificate is checked by :func:`certificate_defect`.

    `method` names the route in the answer. None when the start's point misses a bound, when a
    variable could move without end (the program would be unbounded: :func:`unbounded_certificate`
    decides that), or after `pivots` bases; TimeLimitReached past the caller's `deadline`
    (:func:`run_highs`).
    """
    factor = start_factor(program, start)
    state = SimplexState.from_basis(program, start, factor)
    if state is None or state.violated():
        return None
    state.refactor(factor)
    degenerate = 0
    weights: dict[int, float] = {}  # Devex's reference weights, log₂ (0 where not yet set)
    for step in range(pivots + 1):
        time_left(deadline)
        wrong = state.wrong_signs()
        if not wrong:
            return checked_optimum(program, *state.point_and_duals(), method, feasible=True)
        if step == pivots:
            return None
        if state.eta_fill > REFACTOR_FILL * len(program.rows):
            state.refactor()
        if degenerate >= DEGENERATE_RUN:
            _, entering, move = min(wrong, key=lambda item: item[1])
        else:
            _, entering, move = max(wrong, key=lambda item: (binary_log(item[0]) * 2 - weights.get(item[1], 0.0),
                                                             -item[1]))
        column = state.column(entering)
        limit = _ratio_test(state, entering, move, column)
        if limit is None:
            return None
        theta, r, bound_side = limit
        if r is None:  # the entering variable reaches its own other bound first: it changes sides
            state.flip(entering, move, theta, column)
        else:
            alpha = state.pivot_row(r)
            _devex(weights, alpha, entering, state.head[r])
            state.pivot(r, bound_side, alpha, entering, column)
        degenerate = degenerate + 1 if theta == 0 else 0
    return None  # pragma: no cover - the loop returns at step == pivots


def shifted_simplex(program: LinearProgram, start: Flags, deadline: float | None, pivots: int = 200
                    ) -> LPSolution | None:
    """Exact pivots from a basis that need not be primal or dual feasible: the costs shifted so that
    every non-basic reduced cost has its sign and is at least δ_q ∈ [1, 2)·:data:`_PERTURBATION`
    times the largest cost away from 0 (a free one becomes 0; a column's cost moves by the shift, a
    tight row's through the shift times the row, which leaves every other reduced cost as it was), the
    exact dual simplex (:func:`dual_pivots`) on the shifted program until the point meets every
    bound, then :func:`exact_primal_simplex` on the program's own costs from there (cost shifting
    and perturbation, as SoPlex and HiGHS start their dual simplex: no dual ratio is 0, so a dual
    degenerate program cannot stall it). Kohli's F with a binomial z at n = 50, e^ε = 3/2 (scaled
    for its entries alone) ended its refinement rounds on a basis neither primal nor dual feasible;
    Cormode's fair design at n = 60, α = 1/2 is dual degenerate. None as either stage gives None,
    each within `pivots` bases."""
    state = SimplexState.from_basis(program, start, start_factor(program, start))
    if state is None:
        return None
    n = program.variables
    cost = list(program.cost)
    size = max((abs(c) for c in cost if c), default=_ONE) * _PERTURBATION
    for q, d in state.reduced.items():
        side = state.side(q)
        if side == 0:  # free (its reduced cost must be 0) or fixed (any will do)
            if state.low[q] is not None or not d:
                continue
            shift = -d
        else:  # d' = side·(max(side·d, 0) + δ_q), δ_q in [1, 2)·size, a fixed function of q
            shift = side * (max(side * d, _ZERO) + size * flint.fmpq(1024 + q * 2654435761 % 1024, 1024)) - d
        if q < n:
            cost[q] += shift
        else:
            for k, a in program.rows[q - n]:
                cost[k] += shift * a
    feasible = dual_pivots(program.with_cost(cost), start, deadline, pivots)
    if feasible is None:
        return None
    basic, upper = feasible.basic_and_upper()
    return exact_primal_simplex(program, (basic[:n], upper[:n], basic[n:], upper[n:]), deadline, pivots,
                                "HiGHS basis, exact dual simplex pivots on shifted costs, then exact primal simplex "
                                "pivots")


def _devex(weights: dict[int, float], alpha: dict[int, flint.fmpq], entering: int, leaving: int) -> None:
    """Devex's update of the reference weights (log₂ of w_j) after a pivot on row `alpha` (Forrest
    and Goldfarb 1992): w_j = max(w_j, (α_rj/α_rq)²·w_q) for each non-basic j, and the leaving
    variable's max(w_q/α_rq², 1). Floats: the weights only choose, exact algebra decides."""
    log_q = weights.pop(entering, 0.0)
    log_pivot = binary_log(alpha[entering])
    for j, a in alpha.items():
        if j != entering:
            candidate = 2 * (binary_log(a) - log_pivot) + log_q
            if candidate > weights.get(j, 0.0):
                weights[j] = candidate
    weights[leaving] = max(log_q - 2 * log_pivot, 0.0)


def _ratio_test(state: SimplexState, entering: int, move: int, column: list[flint.fmpq]
                ) -> tuple[flint.fmpq, int | None, int] | None:
    """How far the entering variable may move by `move` (+1 up, −1 down): the step θ ≥ 0, the
    position of the basic variable that reaches a bound first (None when the entering variable's
    own other bound comes first) and that bound's side (+1 its lower, −1 its upper); None when
    nothing bounds the step. Each basic value changes by −move·θ·α_p."""
    best: tuple[Any, int, int] | None = None  # (θ, variable, position)
    side = 0
    for p, a in enumerate(column):
        if not a:
            continue
        v = state.head[p]
        falling = (a > 0) == (move > 0)  # x_p changes by −move·θ·a
        bound = state.low[v] if falling else state.high[v]
        if bound is None:
            continue
        theta = (state.values[p] - bound) / a * move
        if best is None or theta < best[0] or (theta == best[0] and v < best[1]):
            best, side = (theta, v, p), (1 if falling else -1)
    low, high = state.low[entering], state.high[entering]
    if low is not None and high is not None and (best is None or high - low < best[0]):
        return high - low, None, 0
    if best is None:
        return None
    return best[0], best[2], side
