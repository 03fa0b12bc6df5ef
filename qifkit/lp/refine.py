"""Iterative refinement (Gleixner, Steffy and Wolter): the residual program, shifted by the exact
point and magnified, solved again from the same basis; the program with its cost magnified while a
dual has a wrong sign. Rounds are bounded by simplex iterations, never by the clock."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flint

from qifkit.lp.basis import basis_of
from qifkit.lp.certificate import dual_defect, row_activity
from qifkit.lp.highs import highs_model, run_highs
from qifkit.lp.program import Bound, LinearProgram
from qifkit.numbers import exact_dot

__all__ = ["REFINEMENTS", "STALLS", "ROUND_ITERATIONS", "MIN_ROUND_ITERATIONS", "residual_program",
           "refinement_round", "dual_feasible"]


#: Rounds of iterative refinement after the attempts (Gleixner, Steffy and Wolter [1]_), at most;
#: they stop earlier once :data:`STALLS` rounds in a row have not halved the largest violation.
#: Kohli's F at n = 40 with a binomial z needs 7 rounds, each gaining about 2^-7 to 2^-9.
REFINEMENTS = 50


STALLS = 3


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
    worst = flint.fmpq(0)
    for values, lows, highs in ((x, program.lower, program.upper), (activities, program.row_lower, program.row_upper)):
        for v, low, high in zip(values, lows, highs, strict=True):
            if low is not None and low - v > worst:
                worst = low - v
            if high is not None and v - high > worst:
                worst = v - high
    if worst == 0:
        return None
    scale = _magnification(worst, damping)

    def shift(bounds: Sequence[Bound], values: Sequence[flint.fmpq]) -> tuple[Bound, ...]:
        shifted = (None if b is None else (b - v) * scale for b, v in zip(bounds, values, strict=True))
        return tuple(None if b is None else min(max(b, -_FAR), _FAR) for b in shifted)

    return LinearProgram(program.variables, program.rows, shift(program.row_lower, activities),
                         shift(program.row_upper, activities), program.cost, shift(program.lower, x),
                         shift(program.upper, x), f"{program.name} (refined)", program.blocks), worst


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
