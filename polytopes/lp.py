"""Linear programs over exact polytopes: exact (cddlib), float (HiGHS) and certified.

All three minimise c·x over a :class:`~polytopes.hrep.Polytope` (rows ``b + a·x ≥ 0`` and
``b + a·x = 0``).

* :func:`exact_minimum`: cddlib's simplex in GMP rationals; exact but slow beyond a few thousand
  constraints.
* :func:`float_minimum`: scipy's HiGHS dual simplex; fast, floats only.
* :func:`certified_minimum`: HiGHS finds a vertex and its duals; the vertex is then re-solved
  exactly from the constraints tight there, and the duals exactly from the constraints HiGHS
  priced, and the pair is accepted only if it passes the exact optimality conditions (primal
  feasibility, dual feasibility λ ≥ 0, complementary slackness). If it does not, the exact cddlib LP
  decides. The tight systems are sparse and mostly two-term (x_a = k·x_b), which
  :func:`solve_sparse` exploits with an affine union-find before a small dense solve.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import cdd
import cdd.gmp
import flint
import numpy as np
import scipy.optimize
import scipy.sparse

from qifkit.errors import QifError, UndecidableError

from polytopes.hrep import Polytope

__all__ = ["SparseProgram", "LinearProgramResult", "exact_minimum", "float_minimum", "certified_minimum", "solve_sparse",
           "check_optimality"]


@dataclass(frozen=True)
class LinearProgramResult:
    """An exact optimum.

    Attributes
    ----------
    value : Fraction
        min c·x.
    point : tuple of Fraction
        An optimal vertex.
    method : str
        ``"cdd"`` (exact simplex) or ``"highs+exact-basis"`` (HiGHS, re-solved and certified exactly).
    multipliers : tuple of Fraction or None
        For ``"highs+exact-basis"``: exact dual multipliers, one per equality then one per
        inequality (λ ≥ 0), with c = Σ multiplier·a; they certify optimality (:func:`check_optimality`).
    """

    value: Fraction
    point: tuple[Fraction, ...]
    method: str
    multipliers: tuple[Fraction, ...] | None = None


Row = tuple[dict[int, Fraction], Fraction]  # ({k: a_k}, b): b + Σ a_k·x_k (≥ or =) 0


@dataclass(frozen=True)
class SparseProgram:
    """A polytope as sparse rows: ``b + a·x = 0`` (equalities) and ``b + a·x ≥ 0`` (inequalities).

    Dense :class:`~polytopes.hrep.Polytope` rows of n² + 1 entries are fine for enumeration at small n;
    LPs at n = 100 (10⁴ variables, 10⁵ rows) need this form.
    """

    variables: int
    equalities: tuple[Row, ...]
    inequalities: tuple[Row, ...]
    name: str = "LP"

    @classmethod
    def from_polytope(cls, polytope: Polytope) -> SparseProgram:
        """The same polytope, sparse."""
        sparse = lambda rows: tuple(({k: a for k, a in enumerate(r[1:]) if a}, r[0]) for r in rows)  # noqa: E731
        return cls(polytope.dimension_of_space, sparse(polytope.equalities), sparse(polytope.inequalities), polytope.name)

    def contains(self, point: Sequence[Fraction]) -> bool:
        """Exact membership."""
        return (len(point) == self.variables and all(_value(r, point) == 0 for r in self.equalities)
                and all(_value(r, point) >= 0 for r in self.inequalities))


def _value(row: Row, point: Sequence[Any]) -> Any:
    return row[1] + sum(a * point[k] for k, a in row[0].items())


def _program(program: SparseProgram | Polytope) -> SparseProgram:
    return program if isinstance(program, SparseProgram) else SparseProgram.from_polytope(program)


def _check_objective(program: SparseProgram, objective: Sequence[Any]) -> list[Fraction]:
    if len(objective) != program.variables:
        raise QifError(f"the objective has {len(objective)} coefficients, the program {program.variables} variables")
    return [Fraction(v) for v in objective]


def exact_minimum(program: SparseProgram | Polytope, objective: Sequence[Any]) -> LinearProgramResult:
    """min c·x by cddlib's exact simplex (GMP rationals)."""
    program = _program(program)
    c = _check_objective(program, objective)
    dense = []
    for terms, b in program.equalities + program.inequalities:
        row = [Fraction(0)] * (program.variables + 1)
        row[0] = b
        for k, a in terms.items():
            row[1 + k] = Fraction(a)
        dense.append(row)
    matrix = cdd.gmp.matrix_from_array(dense, lin_set=range(len(program.equalities)), rep_type=cdd.RepType.INEQUALITY,
                                       obj_type=cdd.LPObjType.MIN, obj_func=[Fraction(0), *c])
    solver = cdd.gmp.linprog_from_matrix(matrix)
    cdd.gmp.linprog_solve(solver)
    if solver.status != cdd.LPStatusType.OPTIMAL:
        raise QifError(f"the LP over {program.name} is not solvable (status {solver.status.name})")
    return LinearProgramResult(Fraction(solver.obj_value), tuple(Fraction(v) for v in solver.primal_solution), "cdd")


def _sparse(rows: Sequence[Row], d: int) -> tuple[scipy.sparse.csr_matrix, np.ndarray]:
    data, cols, ptr = [], [], [0]
    for terms, _ in rows:
        for k, v in terms.items():
            data.append(float(v))
            cols.append(k)
        ptr.append(len(data))
    return scipy.sparse.csr_matrix((data, cols, ptr), shape=(len(rows), d)), np.array([float(b) for _, b in rows])


def float_minimum(program: SparseProgram | Polytope, objective: Sequence[Any]) -> scipy.optimize.OptimizeResult:
    """min c·x by HiGHS (dual simplex) in floats; the scipy result (x, fun, marginals)."""
    program = _program(program)
    c = np.array([float(v) for v in _check_objective(program, objective)])
    a_eq, b_eq = _sparse(program.equalities, program.variables)
    a_in, b_in = _sparse(program.inequalities, program.variables)
    result = scipy.optimize.linprog(c, A_ub=-a_in, b_ub=b_in, A_eq=a_eq if a_eq.shape[0] else None,
                                    b_eq=-b_eq if a_eq.shape[0] else None, bounds=(None, None), method="highs-ds",
                                    options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if result.status != 0:
        raise QifError(f"HiGHS did not solve the LP over {program.name}: {result.message}")
    return result


def solve_sparse(equations: Sequence[tuple[dict[int, Any], Any]], unknowns: int,
                 free_as_zero: bool = False) -> list[Fraction] | None:
    """The unique exact solution of Σ_k a_k·x_k + b = 0 (one ``({k: a_k}, b)`` per equation), or
    None if the system is inconsistent or (unless `free_as_zero`, which sets free unknowns to 0)
    leaves an unknown free.

    Two-term equations are merged by an affine union-find (x_a = k·x_b + m); equations that still
    involve three or more free roots after substitution go to a dense exact solve (flint).

    Examples
    --------
    >>> solve_sparse([({0: 1, 1: -2}, 0), ({0: 1, 1: 1, 2: 1}, -1), ({2: 1}, Fraction(-1, 4))], 3)
    [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    """
    parent = list(range(unknowns))
    slope = [flint.fmpq(1)] * unknowns
    shift = [flint.fmpq(0)] * unknowns
    value: dict[int, flint.fmpq] = {}

    def find(v: int) -> tuple[int, flint.fmpq, flint.fmpq]:  # v = k·root + m
        path = []
        while parent[v] != v:
            path.append(v)
            v = parent[v]
        root = v
        for u in reversed(path):  # compress, nearest to the root first
            p = parent[u]
            if p != root:
                slope[u], shift[u] = slope[u] * slope[p], slope[u] * shift[p] + shift[u]
                parent[u] = root
        return root, slope[path[0]] if path else flint.fmpq(1), shift[path[0]] if path else flint.fmpq(0)

    def reduce(equation: tuple[dict[int, Any], Any]) -> tuple[dict[int, flint.fmpq], flint.fmpq]:
        terms: dict[int, flint.fmpq] = {}
        constant = _q(equation[1])
        for k, a in equation[0].items():
            a = _q(a)
            root, m, t = find(k)
            constant += a * t
            if root in value:
                constant += a * m * value[root]
            else:
                terms[root] = terms.get(root, flint.fmpq(0)) + a * m
        return {r: a for r, a in terms.items() if a != 0}, constant

    pending = list(equations)
    while True:
        deferred = []
        progress = False
        for equation in pending:
            terms, constant = reduce(equation)
            if not terms:
                if constant != 0:
                    return None
            elif len(terms) == 1:
                (root, a), = terms.items()
                value[root] = -constant / a
                progress = True
            elif len(terms) == 2:
                (r1, a1), (r2, a2) = terms.items()
                parent[r1], slope[r1], shift[r1] = r2, -a2 / a1, -constant / a1
                progress = True
            else:
                deferred.append(equation)
        pending = deferred
        if not progress or not pending:
            break
    reduced = [reduce(e) for e in pending]
    roots = sorted({r for terms, _ in reduced for r in terms})
    if reduced and roots:
        position = {r: k for k, r in enumerate(roots)}
        system = flint.fmpq_mat(len(reduced), len(roots) + 1)
        for row, (terms, constant) in enumerate(reduced):
            for r, a in terms.items():
                system[row, position[r]] = a
            system[row, len(roots)] = -constant
        echelon, rank = system.rref()
        for row in range(rank):
            if all(echelon[row, k] == 0 for k in range(len(roots))):
                return None
        if rank < len(roots) and not free_as_zero:
            return None
        for row in range(rank):
            pivot = next(k for k in range(len(roots)) if echelon[row, k] != 0)
            value[roots[pivot]] = echelon[row, len(roots)]
    result = []
    for v in range(unknowns):
        root, m, t = find(v)
        if root not in value:
            if not free_as_zero:
                return None
            value[root] = flint.fmpq(0)
        x = m * value[root] + t
        result.append(Fraction(int(x.p), int(x.q)))
    return result


def _q(v: Any) -> flint.fmpq:
    if isinstance(v, Fraction):
        return flint.fmpq(v.numerator, v.denominator)
    f = Fraction(v)
    return flint.fmpq(f.numerator, f.denominator)


def check_optimality(program: SparseProgram | Polytope, objective: Sequence[Any], point: Sequence[Fraction],
                     multipliers: Sequence[Fraction]) -> bool:
    """Exact optimality certificate: the point is feasible, c = Σ_k multiplier_k·a_k over the rows
    (equalities first) with the inequality multipliers ≥ 0, and each positive inequality
    multiplier sits on a tight row."""
    program = _program(program)
    c = _check_objective(program, objective)
    rows = program.equalities + program.inequalities
    if len(multipliers) != len(rows) or len(point) != program.variables:
        return False
    x = [_q(v) for v in point]
    values = [_q(b) + sum((_q(a) * x[k] for k, a in terms.items()), flint.fmpq(0)) for terms, b in rows]
    equalities = len(program.equalities)
    if any(v != 0 for v in values[:equalities]) or any(v < 0 for v in values[equalities:]):
        return False
    combination = [flint.fmpq(0)] * len(c)
    for k, (row, y) in enumerate(zip(rows, multipliers)):
        if not y:
            continue
        if k >= equalities and (y < 0 or values[k] != 0):
            return False
        yq = _q(y)
        for i, a in row[0].items():
            combination[i] += yq * _q(a)
    return all(u == _q(v) for u, v in zip(combination, c))


def certified_minimum(program: SparseProgram | Polytope, objective: Sequence[Any],
                      tolerance: float = 1e-9, fallback: bool = True) -> LinearProgramResult:
    """min c·x: HiGHS, then an exact re-solve on its basis, certified by :func:`check_optimality`;
    falls back to :func:`exact_minimum` when the re-solve does not certify (or, with
    ``fallback=False``, raises :class:`~qifkit.errors.UndecidableError`). Badly scaled programs
    (e.g. F[z] with z_i near 1e-9) can leave HiGHS's vertex infeasible in exact terms."""
    program = _program(program)
    c = _check_objective(program, objective)
    d = program.variables
    result = float_minimum(program, c)
    rows = program.equalities + program.inequalities
    equalities = len(program.equalities)
    a_in, b_in = _sparse(program.inequalities, d)
    slack = a_in @ result.x + b_in
    size = abs(a_in) @ np.abs(result.x) + np.abs(b_in)  # tight is relative to the row's terms
    tight = [equalities + int(k) for k in np.flatnonzero(np.abs(slack) <= tolerance * np.maximum(size, 1e-300))]
    point = solve_sparse([rows[k] for k in list(range(equalities)) + tight], d)
    if point is not None:
        duals = -np.asarray(result.ineqlin.marginals)
        priced = list(range(equalities)) + [equalities + int(k) for k in np.flatnonzero(duals > tolerance)]
        columns: list[dict[int, Fraction]] = [{} for _ in range(d)]
        for position, k in enumerate(priced):
            for i, a in rows[k][0].items():
                columns[i][position] = a
        solved = solve_sparse([(columns[i], -c[i]) for i in range(d)], len(priced), free_as_zero=True)
        if solved is not None:
            multipliers = [Fraction(0)] * len(rows)
            for k, y in zip(priced, solved):
                multipliers[k] = y
            if check_optimality(program, c, point, multipliers):
                value = sum(a * b for a, b in zip(c, point))
                return LinearProgramResult(value, tuple(point), "highs+exact-basis", tuple(multipliers))
    if not fallback:
        raise UndecidableError(f"HiGHS's optimal basis for {program.name} did not certify exactly")
    return exact_minimum(program, c)
