"""HiGHS"s attempts on a program and the refinement rounds after them, each basis solved and
certified exactly; the exact dual simplex from the best dual feasible basis when they end."""

from __future__ import annotations

from typing import Any

import flint

from qifkit.lp.basis import Certifier, basis_of
from qifkit.lp.certificate import primal_defect
from qifkit.lp.highs import basis_flags, basis_key, highs_model, highs_status, run_highs
from qifkit.lp.primal import exact_primal_simplex, shifted_simplex
from qifkit.lp.program import LinearProgram, LPSolution
from qifkit.lp.refine import (
    MIN_ROUND_ITERATIONS,
    REFINEMENTS,
    ROUND_ITERATIONS,
    SCALED_ROUNDS,
    STALLS,
    dual_feasible,
    missed_bounds,
    refinement_round,
    residual_program,
    scaled_round,
)
from qifkit.lp.simplex import exact_dual_simplex

__all__ = ["by_bases"]


_ATTEMPTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("dual simplex", {}),
    ("no presolve, tight tolerances",
     {"presolve": "off", "primal_feasibility_tolerance": 1e-12, "dual_feasibility_tolerance": 1e-12}),
    ("primal simplex", {"simplex_strategy": 4}),
)


#: Bases the exact primal simplex may visit (:func:`exact_primal_simplex`) when the refinement rounds
#: and the dual simplex end without a certificate.
PRIMAL_PIVOTS = 2000


#: A dual violation larger than HiGHS's own dual feasibility tolerance (1e-7): not a hair that floats
#: cannot see, but a basis the float run got wrong.
_SEEN_BY_FLOATS = flint.fmpq(1, 10**7)


def by_bases(program: LinearProgram, deadline: float | None, certify: Certifier, pivots: int = 0,
             scaled: bool = False) -> tuple[str, LPSolution | None]:
    """Run HiGHS on `program` (each setting of :data:`_ATTEMPTS` in turn, each continuing from
    the last basis) until `certify` turns an optimal basis into a checked certificate; the float
    status and that certificate, or None. A basis already refused is not solved again. With
    `scaled`, the scaled refinement rounds (:func:`scaled_round`, while they lessen the bounds
    missed) come first, each taking at most the first run's simplex iterations: for the program's
    own optimum, not for derived programs (the elastic program of Kohli's F with a binomial z, at
    n = 50: HiGHS spent minutes on its scaled rounds). The uniform rounds may take
    :data:`ROUND_ITERATIONS` times the first run's iterations.
    With `pivots` > 0, when no refinement round certified, :func:`exact_dual_simplex` visits at
    most that many bases from the exactly dual feasible basis of the rounds whose point misses the
    fewest bounds (for the program's own optimum, not for derived programs); then, if it does not
    finish, the exact primal simplex from the latest basis whose point meets every bound.
    `deadline` is the caller's (:func:`run_highs`)."""
    highs = highs_model(program)
    status = "unknown"
    refused: set[bytes] = set()
    memo: dict[bytes, Any] = {}

    def try_basis(method: str, run: Any = None) -> LPSolution | None:
        run = highs if run is None else run
        key = basis_key(run)
        if key in refused:
            return None
        solution = certify(run, method, memo)
        if solution is None:
            refused.add(key)
        return solution

    first_run = None  # the first run's simplex iterations
    for attempt, (name, options) in enumerate(_ATTEMPTS):
        for key, value in options.items():
            highs.setOptionValue(key, value)
        run_highs(highs, deadline)
        first_run = highs.getInfo().simplex_iteration_count if first_run is None else first_run
        status = highs_status(highs)
        if status != "optimal":  # the next setting may see an optimum from a fresh start (Kohli's F,
            if attempt + 1 < len(_ATTEMPTS):  # binomial z, n = 50, e^ε = 3/2, scaled for its entries alone:
                highs = highs_model(program)  # the dual simplex calls it infeasible, and so does every
            continue  # setting warm-started from it)
        solution = try_basis(f"HiGHS basis ({name}), exact solve")
        if solution is not None:
            return status, solution
    if status != "optimal":
        return status, None
    first_iterations = max(first_run or 0, MIN_ROUND_ITERATIONS)
    seen: list[Any] = []  # the runs whose bases were solved exactly: starts for the exact simplex
    fewest = None  # the fewest bounds missed by the start of a scaled round
    for round_ in range(1, SCALED_ROUNDS + 1 if scaled else 1):
        found = scaled_round(program, highs, memo, first_iterations, deadline)
        if found is None or (fewest is not None and found[1] >= fewest):
            break
        seen.append(highs)
        fewest = found[1]
        solution = try_basis(f"HiGHS basis after {round_} scaled refinement round(s), exact solve", found[0])
        if solution is not None:
            return status, solution
        highs = found[0]
    stalls = 0
    smallest: dict[str, flint.fmpq] = {}  # the largest violation seen, by kind of round
    for round_ in range(1, REFINEMENTS + 1):
        residual = residual_program(program, highs, memo)
        if residual is None:
            break
        _, kind, worst = residual
        seen.append(highs)
        if kind == "dual" and worst > _SEEN_BY_FLOATS and pivots > 0 and (round_ > 1 or fewest is None) \
                and any(_dual_feasible(program, run, memo) for run in seen):
            # the round went astray: a multiplier HiGHS itself would call wrong, while an earlier
            # basis was dual feasible and only missed bounds: the exact dual simplex takes over
            # from there (a round with the cost magnified would repeat the stray round's work).
            # Not so for the last scaled round's basis: its scaled costs hide reduced costs of
            # its small variables from HiGHS (Kohli's F at n = 30, binomial z: −2^-13 after 3
            # scaled rounds), and a round with the cost magnified puts that right.
            break
        stalls = 0 if kind not in smallest or worst * 2 <= smallest[kind] else stalls + 1
        if stalls >= STALLS:
            break
        smallest[kind] = min(worst, smallest.get(kind, worst))
        refined = refinement_round(program, highs, memo, residual[0], ROUND_ITERATIONS * first_iterations,
                                    deadline)
        if refined is None:
            break
        # HiGHS may stop short of "optimal" on the magnified residual program with a basis that is
        # exactly optimal all the same (seen on Cormode's L0 design at n = 60), or a step closer
        # (Kohli's F at n = 100: "unknown" in round 2, violation 4e-14 → 9e-21): the exact check
        # decides, and the rounds go on while the violation shrinks.
        solution = try_basis(f"HiGHS basis after {round_} refinement round(s), exact solve", refined)
        if solution is not None:
            return status, solution
        highs = refined
    if pivots > 0:
        seen.append(highs)
        # from the dual feasible basis that misses the fewest bounds: a round can end on a basis
        # whose point is exactly feasible and whose duals are far off (Kohli's F at n = 80, uniform
        # z: round 4, HiGHS "infeasible", 134 multipliers of the wrong sign) while the basis before
        # it was exactly dual feasible, 12 bounds missed by 4e-23; and a stray round can miss many
        # more bounds than an earlier one (Cormode's fair design, n = 55, α = 1/3: 17 bounds
        # missed in round 5, 320 in round 6, 141 when the rounds end; the dual simplex finishes
        # from the 17 and wanders for 2,000 pivots from the 141)
        dual_start = _dual_feasible_start(program, seen, memo)
        if dual_start is not None:
            solution = exact_dual_simplex(program, dual_start, deadline, pivots)
            if solution is not None:
                return status, solution
        # no dual feasible start, or the dual simplex ran out of pivots: the primal simplex from
        # the latest basis whose exact point meets every bound (Kohli's F with a binomial z at
        # n = 50, scaled for its entries alone: the rounds end on one, and no basis of theirs is dual
        # feasible; Cormode's fair design at n = 60, α = 1/3: the scaled rounds end on one, and the
        # uniform rounds after them on bases that miss 40 to 160 bounds)
        flags = _primal_feasible_start(program, seen, memo)
        if flags is not None:
            return status, exact_primal_simplex(program, flags, deadline, PRIMAL_PIVOTS)
        # neither: the costs shifted and perturbed from the dual feasible start (the dual simplex
        # stalls on a dual degenerate program: Cormode's fair design at n = 60, α = 1/2, wandered
        # for 2,000 pivots among bases missing 10 to 100 bounds), else from the last basis
        flags = dual_start if dual_start is not None else basis_flags(highs)
        if flags is not None:
            return status, shifted_simplex(program, flags, deadline, PRIMAL_PIVOTS)
    return status, None


def _primal_feasible_start(program: LinearProgram, runs: list[Any], memo: dict) -> Any:
    """The basis flags of the latest of `runs` whose exact point meets every bound, else None."""
    for run in reversed(runs):
        flags, found = basis_flags(run), basis_of(program, run, need_duals=False, memo=memo)
        if flags is not None and found is not None and found[0] is not None \
                and primal_defect(program, found[0]) is None:
            return flags
    return None


def _dual_feasible(program: LinearProgram, run: Any, memo: dict) -> bool:
    """Whether the basis of `run` is exactly dual feasible (solved once, by the rounds' `memo`)."""
    found = basis_of(program, run, memo=memo)
    return found is not None and found[0] is not None and found[1] is not None \
        and dual_feasible(program, found[0], found[1])


def _dual_feasible_start(program: LinearProgram, runs: list[Any], memo: dict) -> Any:
    """The basis flags of the exactly dual feasible basis of `runs` whose point misses the fewest
    bounds (the latest among equals), or None. The runs are ranked by their points (solved by the
    rounds already) before any of their duals is solved: most are never needed."""
    ranked = []
    for index, run in enumerate(runs):
        found = basis_of(program, run, need_duals=False, memo=memo)
        if found is None or found[0] is None or basis_flags(run) is None:
            continue
        known = memo[basis_key(run)]
        if "missed" not in known:
            known["missed"] = len(missed_bounds(program, found[0]))
        ranked.append((known["missed"], -index, run))
    for _, _, run in sorted(ranked, key=lambda item: item[:2]):
        if _dual_feasible(program, run, memo):
            return basis_flags(run)
    return None
