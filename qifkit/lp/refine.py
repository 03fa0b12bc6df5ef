"""Iterative refinement (Gleixner, Steffy and Wolter): the residual program, shifted by the exact
point and magnified, solved again from the same basis; the program with its cost magnified while a
dual has a wrong sign; first, scaled rounds, in which each variable is measured in units of its own
exact value. Rounds are bounded by simplex iterations, never by the clock."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import flint
import numpy as np

from qifkit.lp.basis import basis_of
from qifkit.lp.certificate import dual_defect, row_activity
from qifkit.lp.highs import float_rows, highs_model, run_highs
from qifkit.lp.program import Bound, LinearProgram
from qifkit.numbers import binary_log, exact_dot

__all__ = ["REFINEMENTS", "SCALED_ROUNDS", "STALLS", "ROUND_ITERATIONS", "MIN_ROUND_ITERATIONS", "residual_program",
           "refinement_round", "scaled_round", "dual_feasible", "missed_bounds"]


#: Rounds of iterative refinement after the attempts (Gleixner, Steffy and Wolter [1]_), at most;
#: they stop earlier once :data:`STALLS` rounds in a row have not halved the largest violation.
#: Kohli's F at n = 40 with a binomial z needs 7 rounds, each gaining about 2^-7 to 2^-9.
REFINEMENTS = 50


STALLS = 3


#: Scaled refinement rounds (:func:`scaled_round`) before the uniform ones, at most; they end as
#: soon as a round does not lessen the number of bounds the exact point misses. Kohli's F with a
#: uniform z needs 4 (n = 80, 90) or 5 (n = 100).
SCALED_ROUNDS = 20


#: Each attempt of a refinement round may take this many times the first run's simplex iterations
#: (at least :data:`MIN_ROUND_ITERATIONS` times): warm-started, a round needs a few pivots.
ROUND_ITERATIONS = 10


MIN_ROUND_ITERATIONS = 100


#: A bound of the residual program farther than this from the current point (in magnified units)
#: is clamped to it: no round moves that far, and bounds of 1e10 to 1e20 beside violations of 1
#: leave HiGHS with a "solve error" (Kohli's F at n = 100, magnified by 2^88 in its fourth round).
_FAR = flint.fmpq(10**8)


#: (fraction of the magnification's bits, HiGHS's simplex strategy or None for its default, the
#: dual simplex) of the attempts of one refinement round, in order.
_ROUND_ATTEMPTS: tuple[tuple[float, int | None], ...] = ((1.0, None), (1.0, 4), (2 / 3, None), (1 / 3, None))


def residual_program(program: LinearProgram, highs: Any, memo: dict, damping: float = 1.0
                      ) -> tuple[LinearProgram, str, flint.fmpq] | None:
    """The next round of iterative refinement from HiGHS's current basis: the primal residual
    program (:func:`_shifted`) while the basis's exact point misses a bound, else the program
    with its cost magnified (:func:`_magnified_cost`) while its exact duals have a wrong sign;
    with ``"primal"`` or ``"dual"`` and the largest violation. `damping` (at most 1) scales the
    magnification's exponent. None when the basis is singular or violates nothing."""
    found = basis_of(program, highs, need_duals=False, memo=memo)
    if found is None or found[0] is None:
        return None
    activities = [row_activity(row, found[0]) for row in program.rows]
    primal = _shifted(program, found[0], activities, damping)
    if primal is not None:
        return primal[0], "primal", primal[1]
    found = basis_of(program, highs, memo=memo)
    if found is None or found[0] is None or found[1] is None:  # pragma: no cover - a regular basis has both
        return None
    dual = _magnified_cost(program, found[0], activities, found[1], damping)
    return None if dual is None else (dual[0], "dual", dual[1])


def _magnified_cost(program: LinearProgram, x: Sequence[flint.fmpq], activities: Sequence[flint.fmpq],
                    y: Sequence[flint.fmpq], damping: float = 1.0) -> tuple[LinearProgram, flint.fmpq] | None:
    """The dual half of iterative refinement, for a basis whose exact point is feasible: the
    largest multiplier or reduced cost whose sign points at a bound the point does not sit on
    (complementary slackness), and the program with its cost magnified by a power of two about
    1/that violation, so that HiGHS sees it as a violation of 1 (Kohli's F at n = 40, binomial
    z, e^ε = 3/2: a multiplier of −3.6e-12, certified one round later). None when every sign
    is right. The cost alone is scaled, not shifted by the duals as in [1]_: the rows carry
    bounds here, and a shifted cost would move the sign conditions of their multipliers."""
    worst = flint.fmpq(0)

    def violation(value: flint.fmpq, at: flint.fmpq, low: Bound, high: Bound) -> flint.fmpq:
        if value > 0 and (low is None or at != low):
            return value
        if value < 0 and (high is None or at != high):
            return -value
        return flint.fmpq(0)

    columns: list[list[tuple[flint.fmpq, flint.fmpq]]] = [[] for _ in range(program.variables)]
    for i, (row, yi) in enumerate(zip(program.rows, y, strict=True)):
        if yi:
            worst = max(worst, violation(yi, activities[i], program.row_lower[i], program.row_upper[i]))
            for k, a in row:
                columns[k].append((a, yi))
    for j, (c, terms) in enumerate(zip(program.cost, columns, strict=True)):
        worst = max(worst, violation(c - exact_dot(terms), x[j], program.lower[j], program.upper[j]))
    if worst == 0:
        return None
    scale = _magnification(worst, damping)
    return LinearProgram(program.variables, program.rows, program.row_lower, program.row_upper,
                         tuple(c * scale for c in program.cost), program.lower, program.upper,
                         f"{program.name} (cost magnified)", program.blocks), worst


def _magnification(worst: flint.fmpq, damping: float) -> flint.fmpq:
    """2^⌊damping·log₂(1/worst)⌋ (at least 1), exactly: no float sees 1/worst, which may exceed 1e308."""
    return flint.fmpq(2) ** max(int(damping * (int(worst.q).bit_length() - int(worst.p).bit_length())), 0)


def _shifted(program: LinearProgram, x: Sequence[flint.fmpq], activities: Sequence[flint.fmpq], damping: float = 1.0
             ) -> tuple[LinearProgram, flint.fmpq] | None:
    """The residual program of primal iterative refinement [1]_: Δ = s·(x' − x), so every bound
    and row bound is shifted by the exact point x of the current basis (and its row `activities`
    A·x) and magnified by s (a power of two, about 1/largest violation, without limit: optima whose
    entries span 2^-100 to 1 need magnifications beyond 2^60). HiGHS then sees violations of 1e-9 as
    violations of 1 and pivots them away; the new basis is again solved exactly on the original
    program. Bounds farther than :data:`_FAR` are clamped to it. Returns the residual program and
    the largest violation, or None when x violates nothing (then :func:`_magnified_cost` refines the
    duals)."""
    gaps = missed_bounds(program, x, activities)
    if not gaps:
        return None
    worst = max(gaps)
    scale = _magnification(worst, damping)
    return LinearProgram(program.variables, program.rows, _shifted_bounds(program.row_lower, activities, scale),
                         _shifted_bounds(program.row_upper, activities, scale), program.cost,
                         _shifted_bounds(program.lower, x, scale), _shifted_bounds(program.upper, x, scale),
                         f"{program.name} (refined)", program.blocks), worst


def missed_bounds(program: LinearProgram, x: Sequence[flint.fmpq], activities: Sequence[flint.fmpq] | None = None
                  ) -> list[flint.fmpq]:
    """How far the point x and its row activities A·x (computed when not given) lie outside each
    bound they miss, variables first: empty when x is feasible."""
    if activities is None:
        activities = [row_activity(row, x) for row in program.rows]
    return [gap for values, lows, highs in ((x, program.lower, program.upper),
                                            (activities, program.row_lower, program.row_upper))
            for v, low, high in zip(values, lows, highs, strict=True) if (gap := _miss(v, low, high)) is not None]


def _miss(value: flint.fmpq, low: Bound, high: Bound) -> flint.fmpq | None:
    """How far `value` lies outside [low, high] (None bounds infinite), or None when inside."""
    if low is not None and value < low:
        return low - value
    if high is not None and value > high:
        return value - high
    return None


def _shifted_bounds(bounds: Sequence[Bound], values: Sequence[flint.fmpq], scale: flint.fmpq,
                    units: Sequence[int] | None = None) -> tuple[Bound, ...]:
    """(b − v)·scale for each finite bound b and value v, clamped to ±:data:`_FAR`, exactly; with
    `units` (log₂ of each entry's factor in HiGHS's scaled program), ±_FAR in those units, i.e.
    ±_FAR·2^-unit."""
    fars: dict[int, flint.fmpq] = {}
    out: list[Bound] = []
    for k, (b, v) in enumerate(zip(bounds, values, strict=True)):
        if b is None:
            out.append(None)
            continue
        u = 0 if units is None else units[k]
        far = fars.get(u)
        if far is None:
            far = fars[u] = _FAR * flint.fmpq(2) ** -u
        out.append(min(max((b - v) * scale, -far), far))
    return tuple(out)


def refinement_round(program: LinearProgram, highs: Any, memo: dict, residual: LinearProgram, iterations: int,
                      deadline: float | None) -> Any:
    """HiGHS on the next residual program (`residual`, from :func:`residual_program`),
    warm-started from `highs`'s basis: the dual simplex first, then the primal simplex, then with
    a third and two thirds less magnification, while HiGHS ends in a solve error (ill-conditioned bases meet
    magnified bounds: Kohli's F at n = 80, magnified 2^44 in round 2, fails both ways and
    succeeds at 2^29). None when no attempt leaves a valid basis.

    A warm-started round needs a few pivots; on a badly conditioned residual program HiGHS can
    wander for many (Cormode's L0 design at n = 60, α = 1/3) and end "infeasible", hence the
    bound of `iterations` simplex iterations for each attempt."""
    import highspy

    for damping, strategy in _ROUND_ATTEMPTS:
        damped = residual_program(program, highs, memo, damping) if damping != 1 else (residual,)
        if damped is None:  # pragma: no cover - a violation that one magnification saw, any other sees
            return None
        refined = highs_model(damped[0])
        refined.setOptionValue("simplex_iteration_limit", int(iterations))
        if strategy is not None:
            refined.setOptionValue("simplex_strategy", strategy)
        refined.setBasis(highs.getBasis())
        if run_highs(refined, deadline) != highspy.HighsStatus.kError and refined.getBasis().valid:
            return refined
    return None


def dual_feasible(program: LinearProgram, x: Sequence[flint.fmpq], y: Sequence[flint.fmpq]) -> bool:
    """Whether the duals y of a basic solution x have the right signs, whatever x: the dual half of
    :func:`certificate_defect`, in which c·x and the dual value of a basic solution always agree,
    so the signs alone decide."""
    return dual_defect(program, "optimal", y, x, exact_dot(zip(program.cost, x, strict=True))) is None


def scaled_round(program: LinearProgram, highs: Any, memo: dict, iterations: int, deadline: float | None
                 ) -> tuple[Any, int] | None:
    """One scaled round of iterative refinement from HiGHS's current basis: the residual program
    (:func:`_scaled_residual`) run by HiGHS's primal simplex, warm-started, at most `iterations`
    simplex iterations; the refined HiGHS and the number of bounds the start basis's exact point
    missed, or None when that basis is singular or misses nothing, or when HiGHS does not end
    "optimal" or ends on a basis that is singular in exact arithmetic.

    The uniform rounds magnify every violation by one power of two, so on an optimum whose
    entries span 2^-100 to 1 (Kohli's F with a uniform z) the entries far below the largest
    violation stay invisible and each round makes a few of them positive; a basis whose
    corrections reach 2^-60 often ends in HiGHS's "solve error" (F at n = 90: every attempt).
    Measured against its own exact value, every variable is of size 1 to HiGHS: F at n = 80 is
    primal feasible after 4 rounds of 0.1–1 s (the uniform rounds and 5 blocks of exact pivots:
    about 18 s), at n = 90 after 4 (about a minute before). On Kohli's F with a binomial z the
    scaled rounds do not help, and HiGHS wanders on them: the dual simplex for 75 s (its primal
    values growing to 1e10), the primal for 68 s and 2,734 iterations (e^ε = 3/2) at ten times
    the first run's iterations. Hence the primal simplex and the caller's limit of once the first
    run's iterations (the rounds of F take at most 0.82 of it; the binomial rounds stop there
    after 0.3–0.4 s), and the interrupt of :func:`_stop_when_stuck` for a HiGHS that iterates
    slowly rather than long. The dual simplex only when the primal ends "optimal" on a basis that
    is singular in exact arithmetic (F at n = 100, round 5)."""
    import highspy

    found = basis_of(program, highs, need_duals=False, memo=memo)
    if found is None or found[0] is None:
        return None
    residual = _scaled_residual(program, found[0])
    if residual is None:
        return None
    scaled, scaling, missed = residual
    for strategy in _SCALED_STRATEGIES:
        refined = highs_model(scaled, scaling)
        refined.setOptionValue("small_matrix_value", _SMALLEST_ENTRY)
        refined.setOptionValue("simplex_strategy", strategy)
        refined.setOptionValue("simplex_iteration_limit", int(iterations))
        _warm_start_by_devex(refined, highs)
        _stop_when_stuck(refined)
        if run_highs(refined, deadline) == highspy.HighsStatus.kError or not refined.getBasis().valid \
                or refined.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None  # a limit of iterations or of repeats reached: the round went astray
        if basis_of(program, refined, need_duals=False, memo=memo) is not None:
            return refined, missed
    return None


def _warm_start_by_devex(highs: Any, start: Any) -> None:
    """Start `highs` (a scaled round's residual program) from the basis of the HiGHS `start` (the
    last round), its dual simplex pricing by Devex weights (HiGHS's option 1).

    Started from a basis that is not all slack, HiGHS's default dual steepest edge first computes
    exact weights, one BTRAN per row (30,000 on Kohli's F at n = 100), before the first of the few
    iterations a round needs; Devex weights start at 1. Not for the uniform rounds: there Devex
    leads Cormode's fair design at n = 55 to another basis and a longer exact route
    (docs/lp_engine.md, "Scaled rounds priced by Devex")."""
    highs.setOptionValue("simplex_dual_edge_weight_strategy", 1)
    highs.setBasis(start.getBasis())


#: HiGHS's simplex strategies for a scaled round: the primal (4), then the dual (1).
_SCALED_STRATEGIES = (4, 1)


#: A scaled round is interrupted once HiGHS has come back to an iteration it had already reached
#: this many times in all (its interrupt callback called without the iteration count moving: a
#: factorisation refused and rebuilt, again and again, on a basis ill-conditioned in the scaled units).
#: A healthy round returns a few tens of times (docs/benchmarks.md, "Limits"). Work, not time: the
#: same program is interrupted at the same point on any machine.
_REPEATS = 100


def _stop_when_stuck(highs: Any) -> None:
    """Make `highs` interrupt its simplex once it has come back to an iteration it had reached
    :data:`_REPEATS` times in all (then its status is "interrupt", not "optimal")."""
    import highspy

    seen = {"iteration": -1, "repeats": 0}

    def callback(kind: Any, message: str, out: Any, into: Any, user: Any) -> None:
        if out.simplex_iteration_count == seen["iteration"]:
            seen["repeats"] += 1
            if seen["repeats"] >= _REPEATS:
                into.user_interrupt = True
        seen["iteration"] = out.simplex_iteration_count

    highs.setCallback(callback, None)
    highs.startCallback(highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt)


#: HiGHS's least `small_matrix_value` (entries below it are dropped): a scaled residual program's
#: rows may hold entries of 2^-40 beside 1 (a sum over an optimum's entries).
_SMALLEST_ENTRY = 1e-12


def _scaled_residual(program: LinearProgram, x: Sequence[flint.fmpq]
                     ) -> tuple[LinearProgram, tuple[np.ndarray, np.ndarray], int] | None:
    """The residual program of :func:`_shifted` with each column j measured in units of w_j, a
    power of two near |x_j| (x_j = 0: the least such power of the point), and each row in units
    of its largest entry a_ij·w_j; magnified by a power of two about 1/the largest violation in
    those units. Returns the program (bounds shifted, magnified and clamped to :data:`_FAR` units,
    exactly), its float scaling (row factors, column factors) for :func:`highs_model`, and the
    number of bounds x misses; None when it misses none."""
    activities = [row_activity(row, x) for row in program.rows]
    logs = np.array([binary_log(v) for v in x])
    finite = np.isfinite(logs)
    column_log = np.round(np.where(finite, logs, logs[finite].min() if finite.any() else 0.0))
    matrix = float_rows(program).tocoo()
    entry_log = np.log2(np.abs(matrix.data)) + column_log[matrix.col]
    largest = np.full(matrix.shape[0], -np.inf)
    np.maximum.at(largest, matrix.row, entry_log)
    row_log = -np.round(np.where(np.isfinite(largest), largest, 0.0))
    row_units, column_units = row_log.astype(int).tolist(), (-column_log).astype(int).tolist()
    # the violations, log₂, in the scaled units
    misses = [binary_log(gap) + u for values, lows, highs, units in ((x, program.lower, program.upper, column_units),
                                                                     (activities, program.row_lower, program.row_upper,
                                                                      row_units))
              for v, low, high, u in zip(values, lows, highs, units, strict=True)
              if (gap := _miss(v, low, high)) is not None]
    if not misses:
        return None
    scale = flint.fmpq(2) ** max(int(-math.floor(max(misses))), 0)
    residual = LinearProgram(program.variables, program.rows,
                             _shifted_bounds(program.row_lower, activities, scale, row_units),
                             _shifted_bounds(program.row_upper, activities, scale, row_units), program.cost,
                             _shifted_bounds(program.lower, x, scale, column_units),
                             _shifted_bounds(program.upper, x, scale, column_units),
                             f"{program.name} (scaled refinement)", program.blocks)
    return residual, (np.exp2(row_log), np.exp2(column_log)), len(misses)
