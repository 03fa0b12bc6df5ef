"""A basis solved exactly: the point and the duals of HiGHS"s final basis (or any basis),
a basis factor, and one row of its inverse (:mod:`qifkit.sparse_exact` underneath)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import flint

from qifkit.lp.certificate import checked_optimum, primal_defect
from qifkit.lp.highs import basis_flags, basis_key
from qifkit.lp.program import LinearProgram, LPSolution
from qifkit.sparse_exact import SquareFactor, solve_bordered, substituted

__all__ = ["basis_solution", "basis_of", "Certifier", "optimum_of", "basis_factor", "inverse_row"]


def basis_solution(program: LinearProgram, column_basic: Sequence[bool], column_at_upper: Sequence[bool],
                   row_basic: Sequence[bool], row_at_upper: Sequence[bool], need_point: bool = True,
                   need_duals: bool = True, factor: SquareFactor | None = None
                   ) -> tuple[list[flint.fmpq] | None, list[flint.fmpq] | None] | None:
    """The exact primal point and row duals of a basis, or None if it is singular.

    Non-basic variables sit at their lower bound (upper if `column_at_upper` or the lower is
    infinite; 0 if free), non-basic rows at theirs likewise; the basic variables solve the square
    system M_B·x_B = r of the non-basic rows, and the duals of the non-basic rows solve its
    transpose (M_Bᵀ·y_N = c_B), basic rows having y = 0. Without `need_point` the point,
    without `need_duals` the duals are not computed (None in their place), except for programs
    with column groups, whose bordered solve gives both at once.
    """
    m, n = program.shape

    def at_bound(low: Any, high: Any, prefer_upper: bool) -> flint.fmpq:
        if (prefer_upper and high is not None) or low is None:
            return high if high is not None else flint.fmpq(0)
        return low

    basic_columns = [j for j in range(n) if column_basic[j]]
    nonbasic_rows = [i for i in range(m) if not row_basic[i]]
    if len(basic_columns) != len(nonbasic_rows):
        return None
    x = [flint.fmpq(0)] * n
    for j in range(n):
        if not column_basic[j]:
            x[j] = at_bound(program.lower[j], program.upper[j], column_at_upper[j])
    square, right = substituted([program.rows[i] for i in nonbasic_rows],
                                [at_bound(program.row_lower[i], program.row_upper[i], row_at_upper[i])
                                 for i in nonbasic_rows],
                                {j: p for p, j in enumerate(basic_columns)}, x)
    basic_cost = [program.cost[j] for j in basic_columns]
    values: list[flint.fmpq] | None
    duals_nonbasic: list[flint.fmpq] | None
    if program.blocks is not None:
        # the column groups' factors serve both solves: the duals come along whether asked or not
        both = solve_bordered(square, right, [program.blocks[j] for j in basic_columns], basic_cost)
        if both is None:
            return None
        values, duals_nonbasic = both
        need_duals = True
    else:
        factor = SquareFactor(square) if factor is None else factor  # one factorisation for both solves
        duals_nonbasic = factor.solve_transposed(basic_cost) if need_duals else None
        if need_duals and duals_nonbasic is None:
            return None
        values = factor.solve(right) if need_point else None
        if need_point and values is None:
            return None
    y = None
    if need_duals:
        y = [flint.fmpq(0)] * m
        for i, v in zip(nonbasic_rows, duals_nonbasic, strict=True):  # type: ignore[arg-type]
            y[i] = v
    if not need_point:
        return None, y
    for j, v in zip(basic_columns, values, strict=True):  # type: ignore[arg-type]
        x[j] = v
    return x, y


def basis_of(program: LinearProgram, highs: Any, need_point: bool = True, need_duals: bool = True,
              memo: dict | None = None) -> tuple[list[flint.fmpq] | None, list[flint.fmpq] | None] | None:
    """The exact point and/or duals of HiGHS's current basis (:func:`basis_solution`); `memo`
    keeps each part by basis, so that no part of a basis is solved twice (a refinement round
    needs the point only, and a basis whose point misses a bound never needs its duals), and the
    basis's factorisation (:func:`basis_factor`) for the part asked later."""

    known: dict[str, Any] = memo.setdefault(basis_key(highs), {}) if memo is not None else {}
    if known.get("singular"):
        return None
    want_point, want_duals = need_point and "point" not in known, need_duals and "duals" not in known
    if want_point or want_duals:
        flags = basis_flags(highs)
        if flags is None:
            return None
        if program.blocks is None and "factor" not in known:  # kept for the other part, if asked later
            known["factor"] = basis_factor(program, flags[0], flags[2])
        found = basis_solution(program, *flags, want_point, want_duals, factor=known.get("factor"))
        if found is None:
            known["singular"] = True
            return None
        for part, value in zip(("point", "duals"), found, strict=True):
            if value is not None:
                known[part] = value
    return known.get("point") if need_point else None, known.get("duals") if need_duals else None


#: certify(highs, method, memo) -> a checked certificate from HiGHS's basis, or None; `memo` keeps
#: the exact solves of bases already seen (see :func:`basis_of`).
Certifier = Callable[[Any, str, dict], "LPSolution | None"]


def optimum_of(program: LinearProgram) -> Certifier:
    """Certify an optimal HiGHS basis of `program`: its exact vertex and duals, checked."""

    def certify(highs: Any, method: str, memo: dict) -> LPSolution | None:
        found = basis_of(program, highs, need_duals=False, memo=memo)
        if found is None or found[0] is None or primal_defect(program, found[0]) is not None:
            return None  # the point misses a bound: its duals are not needed
        found = basis_of(program, highs, memo=memo)
        if found is None or found[0] is None or found[1] is None:  # pragma: no cover - a regular basis has both
            return None
        return checked_optimum(program, found[0], found[1], method, feasible=True)  # its primal half passed above

    return certify


def basis_factor(program: LinearProgram, column_basic: Sequence[bool], row_basic: Sequence[bool]
                  ) -> SquareFactor | None:
    """The basis matrix (the tight rows on the basic columns) prepared for exact solves, for
    programs without column groups: :func:`basis_solution`, :func:`inverse_row` and the exact dual
    simplex's start factor.
    None when there are not as many tight rows as basic columns."""
    if column_basic.count(True) != row_basic.count(False):
        return None
    position = {j: p for p, j in enumerate(j for j in range(program.variables) if column_basic[j])}
    square, _ = substituted([program.rows[i] for i in range(len(program.rows)) if not row_basic[i]],
                            [flint.fmpq(0)] * row_basic.count(False), position, [flint.fmpq(0)] * program.variables)
    return SquareFactor(square)


def inverse_row(program: LinearProgram, column_basic: Sequence[bool], row_basic: Sequence[bool], leaving: int
                 ) -> tuple[list[int], list[flint.fmpq]] | None:
    """The basic variable or row `leaving` (columns 0..n-1, rows n..n+m-1) as a combination of
    the non-basic (tight) rows on the basic columns: ρ with M_Bᵀ·ρ = e (its row of the basis
    inverse), by one exact transposed solve; the tight rows and ρ, or None if the basis is
    singular."""
    m, n = program.shape
    basic_columns = [j for j in range(n) if column_basic[j]]
    tight_rows = [i for i in range(m) if not row_basic[i]]
    position = {j: p for p, j in enumerate(basic_columns)}
    target = [flint.fmpq(0)] * len(basic_columns)
    if leaving < n:
        target[position[leaving]] = flint.fmpq(1)
    else:
        for k, a in program.rows[leaving - n]:
            if k in position:
                target[position[k]] = a
    if program.blocks is not None:
        square, _ = substituted([program.rows[i] for i in tight_rows], [flint.fmpq(0)] * len(tight_rows), position,
                                [flint.fmpq(0)] * n)
        both = solve_bordered(square, [flint.fmpq(0)] * len(tight_rows), [program.blocks[j] for j in basic_columns],
                              target)
        rho = None if both is None else both[1]
    else:
        factor = basis_factor(program, column_basic, row_basic)
        rho = None if factor is None else factor.solve_transposed(target)
    return None if rho is None else (tight_rows, rho)
