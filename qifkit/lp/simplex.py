"""The exact dual simplex: pivots in rationals from a dual feasible basis that misses some bounds,
bounded by a number of pivots, on a factorisation that is updated, not rebuilt, at each pivot.

The program's rows become equations A·x − s = 0 in the columns x and the row activities s, so a
basis is m of the n + m variables and its matrix B is m × m. B is kept as the factor of a start
basis B₀ (the tight rows on the basic columns, :func:`basis_factor`, which is what makes B₀ cheap:
the basic activities follow from the basic columns) and one eta vector per pivot since (the
product form of the inverse, B⁻¹ = E_k⁻¹ ⋯ E₁⁻¹·B₀⁻¹, Dantzig and Orchard-Hays), refactored when
the etas hold :data:`REFACTOR_FILL` non-zeros per row. The point and the reduced costs are updated
by each pivot's step, exactly, so nothing drifts; the final basis's point and duals are checked as
any certificate (:func:`checked_optimum`). Each pivot also checks that its BTRAN row and its FTRAN
column meet at the same pivot element. Where several bounds are violated, a block of pivots is
guessed by ratio tests in floats (:func:`_float_proposals`) and kept only when exact algebra
accepts its basis: floats propose, rationals decide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import flint
import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from qifkit.errors import InternalError
from qifkit.lp.basis import basis_factor, basis_solution
from qifkit.lp.certificate import checked_optimum, row_activity
from qifkit.lp.highs import float_rows, time_left
from qifkit.lp.program import Flags, LinearProgram, LPSolution
from qifkit.numbers import binary_log, exact_dot
from qifkit.sparse_exact import SquareFactor, solve_bordered, substituted

__all__ = ["exact_dual_simplex", "dual_pivots", "SimplexState", "start_factor", "DEGENERATE_RUN", "REFACTOR_FILL"]


#: After this many consecutive degenerate pivots (a dual ratio of 0) the leaving variable is chosen
#: by Bland's rule (the smallest index), which cannot cycle; before, by the largest violation.
DEGENERATE_RUN = 20


#: The basis is factored again once its eta vectors hold this many non-zeros per row of the
#: program: applying them then costs more than a new factor. A work rule, never a clock: on Kohli's
#: F (n = 80, uniform z) the etas are dense, so the basis is refactored every few pivots; sparser
#: programs go many pivots on one factor (docs/benchmarks.md, "Limits").
REFACTOR_FILL = 2


_ZERO = flint.fmpq(0)
_ONE = flint.fmpq(1)


def exact_dual_simplex(program: LinearProgram, start: Flags, deadline: float | None, pivots: int = 200
                        ) -> LPSolution | None:
    """Exact dual simplex pivots from a basis of HiGHS's, (column basic, column at upper, row
    basic, row at upper) as :func:`basis_flags` reads it, when that basis is dual feasible but
    its exact point violates a bound by a hair (what floats cannot see on ill-conditioned bases).

    Each pivot takes the basic variable or row farthest out of its bounds (after
    :data:`DEGENERATE_RUN` degenerate pivots in a row, the first by index instead: Bland's rule,
    against cycling), computes its row of the basis inverse (BTRAN), and lets enter the non-basic
    variable or row of smallest dual ratio |d_q|/|α_rq| among those that move it back (the smallest
    index among equals); the entering column is transformed (FTRAN), the point moves along it and
    the reduced costs along the pivot row, and the leaving one stays at the bound it violated. The
    basis stays dual feasible, so the first primal feasible basis is optimal; its certificate is
    checked by :func:`certificate_defect`.

    Where several bounds are violated, the pivots of all of them are first tried at once
    (:func:`_block_step`): each violated variable's own ratio test on the current basis, every
    swap made together, and the new basis kept if it is exactly dual feasible with a larger
    objective (else half the swaps, and so on, then the single pivot). Kohli's F (uniform z,
    e^ε = 2) needs this: its float bases put the last entries of a column, below 2^-60, at 0, and
    the dual simplex makes them positive one entry (one pivot) at a time; at n = 90 that is about
    1,900 pivots, against 30 blocks. Each block is first guessed in floats, which at n = 90 spares
    990 exact BTRANs (0.2 s each): every guess there is kept.

    None when the start is not dual feasible, when no variable can enter (the program would be
    infeasible: the elastic route decides that), or after `pivots` bases (a block counts as one);
    TimeLimitReached past the caller's `deadline` (:func:`run_highs`).
    """
    state = dual_pivots(program, start, deadline, pivots)
    if state is None:
        return None
    return checked_optimum(program, *state.point_and_duals(), "HiGHS basis, then exact dual simplex pivots",
                           feasible=False)


def dual_pivots(program: LinearProgram, start: Flags, deadline: float | None, pivots: int) -> SimplexState | None:
    """The pivots of :func:`exact_dual_simplex` from `start`: the state of its first basis whose
    point meets every bound (dual feasible, so optimal), or None as there."""
    m, n = program.shape
    factor = start_factor(program, start)
    state = SimplexState.from_basis(program, start, factor)
    if state is None or not state.dual_feasible():
        return None
    degenerate = 0  # consecutive pivots that left the dual objective unchanged
    no_block_before = 0  # after a rejected block of k swaps, k single pivots come first
    for step in range(pivots + 1):
        time_left(deadline)
        violated = _violated(state.head, state.values, state.low, state.high)
        if not violated:  # every basic value within its bounds
            return state
        if step == pivots:
            return None
        if step == 0 or state.eta_fill > REFACTOR_FILL * m:
            state.refactor(factor if step == 0 else None)
        bland = degenerate >= DEGENERATE_RUN
        if not bland and len(violated) > 1 and step >= no_block_before:
            blocked = _block_step(state, violated)
            if blocked is None:
                return None
            if isinstance(blocked, SimplexState):
                state, degenerate = blocked, 0
                continue
            no_block_before = step + 1 + blocked[0]
            r, direction, alpha, entering = blocked[1]
        else:
            r, direction = _leaving(violated, bland)
            alpha = state.pivot_row(r)
            found_entering = state.ratio_test(alpha, direction)
            if found_entering is None:
                return None
            entering = found_entering
        theta = state.pivot(r, direction, alpha, entering)
        degenerate = degenerate + 1 if theta == 0 else 0
    return None  # pragma: no cover - the loop returns at step == pivots


#: A pivot the exact dual simplex may make: the leaving position, its direction, its pivot row and
#: the entering variable.
_Pivot = tuple[int, int, dict[int, flint.fmpq], int]


def _block_step(state: SimplexState, violated: list[tuple[flint.fmpq, int, int, int]]
                ) -> SimplexState | tuple[int, _Pivot] | None:
    """Every violated basic variable's pivot, tried at once (see :func:`exact_dual_simplex`).

    The swaps are first proposed by :func:`_float_proposals` (the ratio tests in floats, on a
    sparse LU of the basis: a guess) and made together; if the new basis fails the exact test
    below, each violated variable's pivot row is computed exactly (a BTRAN each) and its exact
    ratio test decides, largest violation first; a variable whose entering one is already taken
    waits. A block's new basis (solved exactly, :func:`basis_solution`) is kept if it is dual
    feasible and its objective is larger (so no basis comes back); else the first half of the
    exact swaps, and so on down to two. Returns the new state, or (the number of swaps rejected,
    the single pivot of the largest violation) when no block passed, or None when a violated
    variable has nothing to enter (the program is infeasible)."""
    objective = exact_dot(zip(state.program.cost, state.point_and_duals()[0], strict=True))
    proposed = _float_proposals(state, violated)
    if len(proposed) >= 2:
        new = _swapped(state, proposed, objective)
        if new is not None:
            return new
    chosen: list[_Pivot] = []
    taken: set[int] = set()
    for _, _, r, direction in violated:
        alpha = state.pivot_row(r)
        entering = state.ratio_test(alpha, direction)
        if entering is None:
            return None
        if entering not in taken:
            taken.add(entering)
            chosen.append((r, direction, alpha, entering))
    size = len(chosen)
    while size >= 2:
        swaps = [(r, direction, entering) for r, direction, _, entering in chosen[:size]]
        if swaps != proposed:  # the refused guess is not solved again
            new = _swapped(state, swaps, objective)
            if new is not None:
                return new
        size //= 2
    return len(chosen), chosen[0]


def _swapped(state: SimplexState, swaps: Sequence[tuple[int, int, int]], objective: flint.fmpq) -> SimplexState | None:
    """The basis with every swap made (the variable at position r leaves to the bound its
    `direction` names, `entering` takes its place), if it is exactly dual feasible with an
    objective above `objective`; else None."""
    program, n = state.program, state.n
    basic, upper = state.basic_and_upper()
    for r, direction, entering in swaps:
        leaving = state.head[r]
        basic[leaving], upper[leaving], basic[entering] = False, direction < 0, True
    flags = (basic[:n], upper[:n], basic[n:], upper[n:])
    factor = start_factor(program, flags)
    found = basis_solution(program, *flags, factor=factor)
    if found is None or found[0] is None or found[1] is None \
            or not exact_dot(zip(program.cost, found[0], strict=True)) > objective:
        return None
    new = SimplexState(program, basic, upper, found[0], found[1], like=state)
    if not new.dual_feasible():
        return None
    new.refactor(factor)  # the factor the basis was solved with, not a second one
    return new


#: A float pivot row's entries below this share of its largest are taken for zeros: rounding, not
#: candidates (a guess either way; the exact test of the block decides).
_FLOAT_ZERO = 1e-12

#: Float ratios (log₂) within this of the smallest count as equal: the smallest index among them
#: enters, as in the exact ratio test.
_FLOAT_TIE = 1e-9

#: Pivot rows computed together in floats: a bound on the dense right-hand sides (rows × this).
_FLOAT_BATCH = 64


def _float_proposals(state: SimplexState, violated: list[tuple[flint.fmpq, int, int, int]]
                     ) -> list[tuple[int, int, int]]:
    """The block's swaps as floats see them: (position, direction, entering) for each violated
    variable, largest violation first, distinct entering variables.

    The basis B (the columns of [A | −I] at the basic variables) is factored once by SuperLU, the
    pivot rows e_rᵀ·B⁻¹·[A | −I] come from solves with :data:`_FLOAT_BATCH` right-hand sides at a
    time, and each ratio test (:func:`_float_ratio_test`) compares log₂|d_q| (exact reduced costs)
    − log₂|α_rq| with the exact test's eligibility and tie rule. A guess, never a verdict: the
    block is kept only if its basis passes the exact test of :func:`_swapped`, so a wrong guess
    costs one exact solve. At n = 90 of Kohli's F a block's guess costs about 0.35 s where its
    exact BTRANs cost 0.2 s each (rationals of thousands of bits), up to 62 of them. [] when B is
    singular in floats."""
    program = state.program
    m = len(program.rows)
    if state.float_matrix is None:
        state.float_matrix = scipy.sparse.hstack([float_rows(program).tocsc(), -scipy.sparse.identity(m, format="csc")],
                                                 format="csc")
    full = state.float_matrix
    try:
        factor = scipy.sparse.linalg.splu(full[:, state.head].tocsc())
    except RuntimeError:  # singular in floats
        return []
    nonbasic = sorted(state.reduced)
    columns = full[:, nonbasic].T.tocsr()
    log_d = np.array([binary_log(state.reduced[q]) for q in nonbasic])
    moves = [np.array([state.may_enter(q, positive, +1) for q in nonbasic], dtype=bool) for positive in (False, True)]
    proposals: list[tuple[int, int, int]] = []
    taken: set[int] = set()
    for start in range(0, len(violated), _FLOAT_BATCH):
        batch = violated[start:start + _FLOAT_BATCH]
        units = np.zeros((m, len(batch)))
        for j, (_, _, r, _) in enumerate(batch):
            units[r, j] = 1.0
        rows = columns @ factor.solve(units, trans="T")  # α_rq by non-basic q, one column per r
        for j, (_, _, r, direction) in enumerate(batch):
            entering = _float_ratio_test(rows[:, j], direction, log_d, moves)
            if entering is not None and nonbasic[entering] not in taken:
                taken.add(nonbasic[entering])
                proposals.append((r, direction, nonbasic[entering]))
    return proposals


def _float_ratio_test(alpha: np.ndarray, direction: int, log_d: np.ndarray, moves: list[np.ndarray]) -> int | None:
    """The position (among the non-basic variables) that floats let enter a pivot row `alpha`
    whose basic variable must move by `direction`, as :meth:`SimplexState.ratio_test` chooses
    exactly; None when no entry is eligible. `moves[s]` says who may enter where α·direction has
    sign s (:meth:`SimplexState.may_enter`), `log_d` is log₂ of each reduced cost."""
    size = np.abs(alpha)
    largest = size.max(initial=0.0)
    if not largest > 0:  # all zero, or not a number
        return None
    # may_enter(q, α > 0, direction) = may_enter(q, α·direction > 0, +1)
    upward = (alpha > 0) if direction > 0 else (alpha < 0)
    eligible = (size > _FLOAT_ZERO * largest) & np.where(upward, moves[1], moves[0])
    if not eligible.any():
        return None
    with np.errstate(divide="ignore"):
        ratio = np.where(eligible, log_d - np.log2(np.where(eligible, size, 1.0)), np.inf)
    return int(np.argmax(ratio <= ratio.min() + _FLOAT_TIE))  # the first: the smallest index among ties


def start_factor(program: LinearProgram, flags: Flags) -> SquareFactor | None:
    """The basis's factor, shared by its exact solve and the simplex's B₀ (None for programs with
    column groups, solved by the bordered route)."""
    return None if program.blocks is not None else basis_factor(program, flags[0], flags[2])


class SimplexState:
    """The state of :func:`exact_dual_simplex`: which variable is basic at each of the m positions
    (`head`; columns 0..n−1, row activities n..n+m−1), their values, the non-basic variables' sides
    and reduced costs, and the basis's factor with its eta vectors."""

    def __init__(self, program: LinearProgram, basic: list[bool], upper: list[bool], x: Sequence[flint.fmpq],
                 y: Sequence[flint.fmpq], like: SimplexState | None = None) -> None:
        m, n = program.shape
        self.program, self.n = program, n
        self.low: list[Any] = list(program.lower) + list(program.row_lower)
        self.high: list[Any] = list(program.upper) + list(program.row_upper)
        self.columns: list[list[tuple[int, flint.fmpq]]]  # A by columns: (row, a)
        self.float_matrix: scipy.sparse.csc_matrix | None  # [A | −I] in floats, made when first needed
        if like is not None:  # the same program: its columns and floats are shared
            self.columns, self.float_matrix = like.columns, like.float_matrix
        else:
            self.columns, self.float_matrix = [[] for _ in range(n)], None
            for i, row in enumerate(program.rows):
                for k, a in row:
                    self.columns[k].append((i, a))
        self.head = [v for v in range(n + m) if basic[v]]
        self.position = {v: p for p, v in enumerate(self.head)}
        self.upper = upper  # for non-basic variables: at the upper bound (or at it as the only finite one)
        activities = [row_activity(row, x) for row in program.rows]
        self.values: list[flint.fmpq] = [x[v] if v < n else activities[v - n] for v in self.head]
        # reduced costs of the non-basic variables: c_j − yᵀA_j for columns, y_i for row activities
        self.reduced: dict[int, flint.fmpq] = {}
        for v in range(n + m):
            if not basic[v]:
                self.reduced[v] = y[v - n] if v >= n else program.cost[v] - exact_dot(
                    (y[i], a) for i, a in self.columns[v])
        self.nonbasic_value: dict[int, flint.fmpq] = {v: (x[v] if v < n else activities[v - n])
                                                      for v in range(n + m) if not basic[v]}
        self._solve: Callable[[list[flint.fmpq]], list[flint.fmpq] | None] | None = None
        self._solve_transposed: Callable[[list[flint.fmpq]], list[flint.fmpq] | None] | None = None
        self._head0: list[int] = []
        self._position0: dict[int, int] = {}
        self._basic_columns: list[int] = []
        self._tight: list[int] = []
        self.etas: list[tuple[int, dict[int, flint.fmpq]]] = []
        self.eta_fill = 0  # the etas' non-zeros

    @classmethod
    def from_basis(cls, program: LinearProgram, start: Flags, factor: SquareFactor | None) -> SimplexState | None:
        """The state of a basis given by its flags (:func:`basis_flags`), solved exactly on `factor`
        (:func:`start_factor`); None when the basis is singular."""
        column_basic, column_upper, row_basic, row_upper = start
        found = basis_solution(program, column_basic, column_upper, row_basic, row_upper, factor=factor)
        if found is None:
            return None
        x, y = found
        if x is None or y is None:
            return None
        return cls(program, list(column_basic) + list(row_basic), list(column_upper) + list(row_upper), x, y)

    # ---------------------------------------------------------------- the start basis B₀
    def refactor(self, factor: SquareFactor | None = None) -> None:
        """Factor the current basis as B₀ (the tight rows on the basic columns; `factor` when it is
        already made, :func:`_factor`) and drop the etas."""
        program, n = self.program, self.n
        m = len(program.rows)
        basic = set(self.head)
        self._basic_columns = [j for j in range(n) if j in basic]
        self._tight = [i for i in range(m) if n + i not in basic]
        self._head0 = list(self.head)
        self._position0 = {v: p for p, v in enumerate(self.head)}
        self.etas, self.eta_fill = [], 0
        if program.blocks is None:
            if factor is None:
                factor = basis_factor(program, [j in basic for j in range(n)], [n + i in basic for i in range(m)])
            if factor is None or factor.singular:
                raise InternalError("the exact dual simplex reached a singular basis")  # pragma: no cover
            self._solve, self._solve_transposed = factor.solve, factor.solve_transposed
        else:  # column groups: the bordered solve, one right-hand side at a time
            place = {j: p for p, j in enumerate(self._basic_columns)}
            square, _ = substituted([program.rows[i] for i in self._tight], [_ZERO] * len(self._tight), place,
                                    [_ZERO] * n)
            groups = [program.blocks[j] for j in self._basic_columns]
            zero = [_ZERO] * len(self._tight)

            def solve(right: list[flint.fmpq]) -> list[flint.fmpq] | None:
                both = solve_bordered(square, right, groups)
                return None if both is None else both[0]

            def solve_transposed(right: list[flint.fmpq]) -> list[flint.fmpq] | None:
                both = solve_bordered(square, zero, groups, right)
                return None if both is None else both[1]

            self._solve, self._solve_transposed = solve, solve_transposed

    def _start_solve(self, b: dict[int, flint.fmpq]) -> list[flint.fmpq]:
        """u with B₀·u = b (b by equation, sparse; u by position of B₀): the basic columns from the
        tight rows, then each basic activity s_i = A_i·x − b_i."""
        assert self._solve is not None
        found = self._solve([b.get(i, _ZERO) for i in self._tight])
        if found is None:  # pragma: no cover - a factor that was not singular solves
            raise InternalError("the exact dual simplex's basis factor failed to solve")
        n = self.n
        u = [_ZERO] * len(self.head)
        terms: dict[int, list[tuple[flint.fmpq, flint.fmpq]]] = {}
        for j, value in zip(self._basic_columns, found, strict=True):
            if value:
                u[self._position0[j]] = value
                for i, a in self.columns[j]:
                    p = self._position0.get(n + i)
                    if p is not None:
                        terms.setdefault(p, []).append((a, value))
        for i, value in b.items():
            p = self._position0.get(n + i)
            if p is not None and value:
                terms.setdefault(p, []).append((-_ONE, value))
        for p, pairs in terms.items():
            u[p] = exact_dot(pairs)
        return u

    def _start_solve_transposed(self, c: list[flint.fmpq]) -> list[flint.fmpq]:
        """w with B₀ᵀ·w = c (c by position of B₀, w by equation): a basic activity's w_i = −c, the
        tight rows' w from the basic columns' equations."""
        assert self._solve_transposed is not None
        program, n = self.program, self.n
        w = [_ZERO] * len(program.rows)
        extra: dict[int, list[tuple[flint.fmpq, flint.fmpq]]] = {}
        for p, v in enumerate(self._head0):
            if v >= n and c[p]:
                w[v - n] = -c[p]
                for k, a in program.rows[v - n]:
                    extra.setdefault(k, []).append((a, c[p]))
        right = [c[self._position0[j]] + exact_dot(extra[j]) if j in extra else c[self._position0[j]]
                 for j in self._basic_columns]
        found = self._solve_transposed(right)
        if found is None:  # pragma: no cover
            raise InternalError("the exact dual simplex's basis factor failed to solve")
        for i, value in zip(self._tight, found, strict=True):
            w[i] = value
        return w

    # ---------------------------------------------------------------- B = B₀·E₁⋯E_k
    def ftran(self, b: dict[int, flint.fmpq]) -> list[flint.fmpq]:
        """B⁻¹·b (b by equation, sparse), by position."""
        u = self._start_solve(b)
        for r, eta in self.etas:
            t = u[r]
            if t:
                t = t / eta[r]
                for p, a in eta.items():
                    if p != r:
                        u[p] -= a * t
                u[r] = t
        return u

    def btran(self, r: int) -> list[flint.fmpq]:
        """The row r of B⁻¹ (e_rᵀ·B⁻¹), by equation."""
        v = [_ZERO] * len(self.head)
        v[r] = _ONE
        for s, eta in reversed(self.etas):
            pairs = [(a, v[p]) for p, a in eta.items() if p != s and v[p]]
            if pairs or v[s]:
                v[s] = (v[s] - exact_dot(pairs)) / eta[s]
        return self._start_solve_transposed(v)

    # ---------------------------------------------------------------- one pivot
    def pivot_row(self, r: int) -> dict[int, flint.fmpq]:
        """α_rj = (e_rᵀB⁻¹)·a_j for the non-basic variables j with α_rj ≠ 0 (one BTRAN): a column's
        Σ w_i·a_ij, a row activity's −w_i."""
        n, program = self.n, self.program
        w = self.btran(r)
        through: dict[int, list[tuple[flint.fmpq, flint.fmpq]]] = {}
        alpha: dict[int, flint.fmpq] = {}
        for i, wi in enumerate(w):
            if wi:
                if n + i in self.reduced:
                    alpha[n + i] = -wi
                for k, a in program.rows[i]:
                    if k in self.reduced:
                        through.setdefault(k, []).append((wi, a))
        for k, pairs in through.items():
            value = exact_dot(pairs)
            if value:
                alpha[k] = value
        return alpha

    def ratio_test(self, alpha: dict[int, flint.fmpq], direction: int) -> int | None:
        """The non-basic variable to enter for a pivot row `alpha` whose basic variable must move by
        `direction`: the smallest dual ratio |d_q|/|α_rq| (the smallest index among equals) among
        those that move it that way (x_r changes by −α_rq per unit of x_q); None if none can.

        The ratios are compared exactly, but only among the candidates whose ratio's binary
        exponent (read off the bit lengths, within ±2) can reach the smallest: thousands of
        candidates with numbers of hundreds of bits otherwise cost a division each."""
        eligible = [q for q, a_rq in alpha.items() if self.may_enter(q, a_rq > 0, direction)]
        if not eligible:
            return None
        zero = [q for q in eligible if not self.reduced[q]]
        if zero:
            return min(zero)
        exponent = {q: _bits(self.reduced[q]) - _bits(alpha[q]) for q in eligible}
        reach = min(exponent.values()) + 4
        best, entering = None, None
        for q in sorted(q for q in eligible if exponent[q] < reach):
            ratio = abs(self.reduced[q] / alpha[q])
            if best is None or ratio < best:
                best, entering = ratio, q
        return entering

    def may_enter(self, q: int, positive: bool, direction: int) -> bool:
        """Whether the non-basic variable q may enter a pivot row whose entry α_rq is `positive`
        (else negative) and whose basic variable must move by `direction`: not fixed, and moving
        away from its bound (a free one either way) moves the basic variable that way."""
        low, high = self.low[q], self.high[q]
        if low is not None and low == high:
            return False  # a fixed variable never enters
        if low is None and high is None:
            return True
        move = -1 if low is None or (self.upper[q] and high is not None) else 1
        return positive == (move * direction < 0)

    def column(self, q: int) -> list[flint.fmpq]:
        """B⁻¹·a_q, the non-basic variable q's column transformed (FTRAN), by position."""
        return self.ftran({i: a for i, a in self.columns[q]} if q < self.n else {q - self.n: -_ONE})

    def pivot(self, r: int, direction: int, alpha: dict[int, flint.fmpq], entering: int,
              column: list[flint.fmpq] | None = None) -> flint.fmpq:
        """The pivot on position r, whose variable leaves to the bound `direction` names (+1 its
        lower, −1 its upper: the dual simplex moves it there from outside, the primal from inside),
        with its pivot row `alpha` (:meth:`pivot_row`), the variable `entering` and its transformed
        column (:meth:`column`, computed here when not given); the dual step's size (0: degenerate)."""
        q, a_rq = entering, alpha[entering]
        if column is None:
            column = self.column(q)
        if column[r] != a_rq:  # pragma: no cover - BTRAN's row and FTRAN's column meet at the pivot
            raise InternalError(f"the exact simplex's pivot element differs: {column[r]} and {a_rq}")
        # the duals: d_j −= θ_d·α_rj, the leaving variable's reduced cost −θ_d
        theta_d = self.reduced.pop(q) / a_rq
        if theta_d:
            for j, a in alpha.items():
                if j != q:
                    self.reduced[j] -= theta_d * a
        leaving = self.head[r]
        self.reduced[leaving] = -theta_d
        # the point: x_B −= θ_p·α_q, x_q += θ_p; the leaving variable at its bound
        bound = self.low[leaving] if direction > 0 else self.high[leaving]
        theta_p = (self.values[r] - bound) / a_rq
        for p, a in enumerate(column):
            if a:
                self.values[p] -= theta_p * a
        self.values[r] = self.nonbasic_value.pop(q) + theta_p
        self.nonbasic_value[leaving] = bound
        self.upper[leaving] = direction < 0
        self.head[r] = q
        eta = {p: a for p, a in enumerate(column) if a}
        self.etas.append((r, eta))
        self.eta_fill += len(eta)
        return theta_d

    def flip(self, q: int, move: int, theta: flint.fmpq, column: list[flint.fmpq]) -> None:
        """The non-basic variable q moved by `move`·`theta` from one of its bounds to the other (its
        transformed `column` moves the basic values); the basis stays."""
        step = theta * move
        for p, a in enumerate(column):
            if a:
                self.values[p] -= step * a
        self.nonbasic_value[q] = self.high[q] if move > 0 else self.low[q]
        self.upper[q] = move > 0

    def violated(self) -> list[tuple[flint.fmpq, int, int, int]]:
        """The basic variables out of their bounds (:func:`_violated`)."""
        return _violated(self.head, self.values, self.low, self.high)

    def wrong_signs(self) -> list[tuple[flint.fmpq, int, int]]:
        """The non-basic variables whose reduced cost has the wrong sign for the bound they sit at
        (:meth:`dual_feasible`), as (|d|, variable, the way moving it lowers the objective: +1 up,
        −1 down)."""
        wrong = []
        for q, d in self.reduced.items():
            if not d:
                continue
            low, high = self.low[q], self.high[q]
            if low is not None and low == high:
                continue
            if low is None and high is None:
                move = -1 if d > 0 else 1
            elif self.side(q) * d < 0:
                move = self.side(q)
            else:
                continue
            wrong.append((abs(d), q, move))
        return wrong

    def side(self, q: int) -> int:
        """The sign non-basic variable q's reduced cost must have: +1 at its lower bound, −1 at its
        upper (or at its only finite bound, the upper), 0 when it is free or fixed (any sign, or 0)."""
        low, high = self.low[q], self.high[q]
        if (low is None and high is None) or (low is not None and low == high):
            return 0
        return -1 if low is None or (self.upper[q] and high is not None) else 1

    def dual_feasible(self) -> bool:
        """Whether every non-basic reduced cost has the sign of the bound its variable sits at
        (d ≥ 0 at a lower bound, ≤ 0 at an upper, 0 when free; a fixed variable any): the basis's
        duals are dual feasible. The basic variables' reduced costs are 0 by construction of y.
        The state's own reduced costs, so no second pass over Aᵀy (the final basis still passes
        the whole certificate check, :func:`checked_optimum`)."""
        return not self.wrong_signs()

    def basic_and_upper(self) -> tuple[list[bool], list[bool]]:
        """Which of the n + m variables are basic, and which non-basic ones sit at their upper bound
        (copies)."""
        basic = [False] * len(self.upper)
        for v in self.head:
            basic[v] = True
        return basic, [u and not b for u, b in zip(self.upper, basic, strict=True)]

    def point_and_duals(self) -> tuple[list[flint.fmpq], list[flint.fmpq]]:
        """The basis's point x (columns) and row duals y (a tight row's reduced cost, 0 for a basic
        row), as :func:`checked_optimum` takes them."""
        n, m = self.n, len(self.program.rows)
        x = [self.nonbasic_value.get(j, _ZERO) for j in range(n)]
        for p, v in enumerate(self.head):
            if v < n:
                x[v] = self.values[p]
        y = [self.reduced.get(n + i, _ZERO) for i in range(m)]
        return x, y


def _bits(value: flint.fmpq) -> int:
    """⌊log₂|value|⌋ within 1, for a non-zero rational: its numerator's bits minus its denominator's."""
    return value.p.bit_length() - value.q.bit_length()


def _violated(head: Sequence[int], values: Sequence[flint.fmpq], low: Sequence[Any], high: Sequence[Any]
              ) -> list[tuple[flint.fmpq, int, int, int]]:
    """The basic variables out of their bounds as (violation, variable, position, direction: +1 up
    to the lower bound, −1 down to the upper), the largest violation first (the smallest variable
    among equals)."""
    out = []
    for p, v in enumerate(head):
        bottom, top, value = low[v], high[v], values[p]
        if bottom is not None and value < bottom:
            out.append((bottom - value, v, p, 1))
        elif top is not None and value > top:
            out.append((value - top, v, p, -1))
    out.sort(key=lambda item: (-item[0], item[1]))
    return out


def _leaving(violated: Sequence[tuple[flint.fmpq, int, int, int]], bland: bool) -> tuple[int, int]:
    """The position to leave and its direction, from :func:`_violated`'s list: the largest
    violation, or with `bland` the violated variable of smallest index."""
    _, _, position, direction = min(violated, key=lambda item: item[1]) if bland else violated[0]
    return position, direction
