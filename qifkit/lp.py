"""One exact linear-programming engine: floats propose a basis, exact algebra decides.

Every LP-shaped question of the toolkit (refinement witnesses and refutations, the design LPs of
Cormode et al., the LP optima over Kohli and Laskowski's polytopes) is a :class:`LinearProgram`
solved by :func:`solve`, and every answer carries a certificate that :func:`certificate_defect`
re-checks with exact arithmetic only.

Problem form (HiGHS's own)::

    minimise c·x  subject to  row_lower ≤ A·x ≤ row_upper,  lower ≤ x ≤ upper,

with ``None`` for an infinite bound (an equality row has row_lower = row_upper).

Method, the route of the exact solvers SoPlex and QSopt_ex [1]_, [2]_:

1. HiGHS (dual simplex) solves the LP in floats and hands back its final
   **basis**: which variables and rows are basic, and at which bound the others sit.
2. The basis is solved exactly: the basic variables from the non-basic rows
   (:func:`qifkit.sparse_exact.solve_square`, block triangular form plus FLINT), the row duals
   from the transposed system. Rank-deficient constraint matrices are no obstacle: a redundant
   row keeps its activity basic and drops out of the square system.
3. The exact primal point and duals go to the checker. If it accepts, that is the answer.
   Otherwise the engine continues from that basis: HiGHS again without presolve and with tighter
   tolerances, then with the primal simplex, then rounds of iterative refinement warm-started
   from the basis [1]_: the residual program (shifted by the exact point and magnified) while
   the point misses a bound, the program with its cost magnified while a dual has a wrong sign;
   only then cddlib's exact simplex, for programs small enough for it (:data:`CDD_LIMIT`), or
   :class:`UndecidableError`.

Certificates (checked by :func:`certificate_defect`, which uses exact arithmetic only):

* **optimal**: a feasible point x and row duals y. With reduced costs d = c − Aᵀy, every y_i > 0
  needs a finite row_lower, y_i < 0 a finite row_upper, d_j > 0 a finite lower, d_j < 0 a finite
  upper, and the dual value D = Σ_i y_i·(row_lower_i if y_i > 0 else row_upper_i)
  + Σ_j d_j·(lower_j if d_j > 0 else upper_j) equals c·x. By weak duality c·x' ≥ D for every
  feasible x', so x is optimal.
* **infeasible**: Farkas multipliers y (the same sign rules with c = 0, so d = −Aᵀy) whose dual
  value D is > 0: every x within the bounds would give 0 = yᵀA·x + dᵀx ≥ D > 0. They come from the
  elastic program (each row may be violated at unit cost), whose optimal duals are such y.
* **unbounded**: a feasible point and a ray r with c·r < 0 that stays feasible (A·r ≥ 0 on rows
  with a finite lower bound, ≤ 0 on rows with a finite upper bound, likewise for the bounds).

References
----------
.. [1] A. M. Gleixner, D. E. Steffy, K. Wolter, "Iterative refinement for linear programming",
   INFORMS J. Computing 28(3), 2016.
.. [2] D. G. Espinoza, "On linear programming, integer programming and cutting planes",
   PhD thesis, Georgia Tech, 2006 (QSopt_ex).

Examples
--------
>>> program = LinearProgram.build(2, [{0: 1, 1: 1}], row_lower=[1], row_upper=[None],
...                               cost=[2, 3], lower=[0, 0])
>>> answer = solve(program)
>>> answer.status, answer.value, answer.point
('optimal', Fraction(2, 1), (Fraction(1, 1), Fraction(0, 1)))
>>> certificate_defect(program, answer) is None
True
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import scipy.sparse

from qifkit.errors import (
    CertificateError,
    MissingDependencyError,
    ParameterError,
    PolytopeError,
    ShapeError,
    TimeLimitReached,
    UndecidableError,
)
from qifkit.numbers import over_common_denominator, reduced_fraction, to_fmpq
from qifkit.sparse_exact import SquareFactor, solve_bordered, substituted
from qifkit.validation import whole_number

__all__ = [
    "LinearProgram",
    "LPSolution",
    "solve",
    "certificate_defect",
    "verify_solution",
    "exact_dot",
    "solve_by_cdd",
    "ppl_optimum",
    "float_solution",
    "CDD_LIMIT",
    "collector_paused",
]

#: Largest number of rows × variables that :func:`solve` hands to cddlib's exact simplex as a last
#: resort; beyond it cddlib takes hours and the engine says so (:class:`UndecidableError`) instead.
CDD_LIMIT = 200_000

_Bound = flint.fmpq | None
_Flags = tuple[list[bool], list[bool], list[bool], list[bool]]  # a basis: column basic, at upper; row basic, at upper


@dataclass(frozen=True)
class LinearProgram:
    """min c·x subject to row_lower ≤ A·x ≤ row_upper and lower ≤ x ≤ upper (exact data).

    Build it with :meth:`build`, which validates; the fields are read-only and hold python-flint
    rationals (``flint.fmpq``), the fast exact type of the toolkit's matrices.

    Attributes
    ----------
    variables : int
    rows : tuple of tuple of (int, flint.fmpq)
        Row i of A as (variable, coefficient) pairs, coefficients non-zero.
    row_lower, row_upper : tuple of flint.fmpq or None
    cost : tuple of flint.fmpq
    lower, upper : tuple of flint.fmpq or None
    name : str
        Used in messages.
    blocks : tuple of int or None
        Optional structure: a group for each variable such that most rows touch one group only
        (e.g. the columns of a witness matrix). Bases are then solved group by group
        (:func:`qifkit.sparse_exact.solve_bordered`); without it, by block triangular form.
    """

    variables: int
    rows: tuple[tuple[tuple[int, flint.fmpq], ...], ...]
    row_lower: tuple[_Bound, ...]
    row_upper: tuple[_Bound, ...]
    cost: tuple[flint.fmpq, ...]
    lower: tuple[_Bound, ...]
    upper: tuple[_Bound, ...]
    name: str = "LP"
    blocks: tuple[int, ...] | None = None

    @classmethod
    def build(cls, variables: int, rows: Sequence[Mapping[int, Any]], *, row_lower: Sequence[Any] | None = None,
              row_upper: Sequence[Any] | None = None, cost: Sequence[Any] | None = None,
              lower: Sequence[Any] | Any = 0, upper: Sequence[Any] | Any = None, name: str = "LP",
              blocks: Sequence[int] | None = None) -> LinearProgram:
        """Validate and build a program.

        Parameters
        ----------
        variables : int
            Number of variables, ≥ 1.
        rows : sequence of mapping int → exact number
            Row i of A: {variable: coefficient}.
        row_lower, row_upper : sequence of exact number or None, optional
            Bounds of A·x, one per row; None (the default for all) is infinite.
        cost : sequence of exact number, optional
            c (all zero by default: a feasibility problem).
        lower, upper : exact number, None, or a sequence of them
            Bounds of x; by default x ≥ 0.
        name : str
        blocks : sequence of int, optional
            A group for each variable (see the class docstring); a hint for speed only.

        Raises
        ------
        ShapeError
            Lengths that do not match, a variable index out of range.
        NotExactError, NumberSyntaxError
            A float or a malformed number.
        QifError
            A lower bound above its upper bound.
        """
        whole_number(variables, 1, "an LP's number of variables")
        with collector_paused():
            sparse_rows = _sparse_rows(rows, variables)
        m = len(sparse_rows)
        row_lower_t = _bounds(row_lower, m, "row_lower")
        row_upper_t = _bounds(row_upper, m, "row_upper")
        lower_t = _bounds(lower, variables, "lower")
        upper_t = _bounds(upper, variables, "upper")
        cost_t = tuple(to_fmpq(v) for v in cost) if cost is not None else (flint.fmpq(0),) * variables
        if len(cost_t) != variables:
            raise ShapeError(f"the cost has {len(cost_t)} coefficients for {variables} variables")
        for what, low, high in (("row", row_lower_t, row_upper_t), ("variable", lower_t, upper_t)):
            for i, (lo, hi) in enumerate(zip(low, high, strict=True)):
                if lo is not None and hi is not None and lo > hi:
                    raise PolytopeError(f"{what} {i} has lower bound {lo} above its upper bound {hi}")
        if blocks is not None and len(blocks) != variables:
            raise ShapeError(f"blocks has {len(blocks)} entries for {variables} variables")
        blocks_t = None if blocks is None else tuple(int(g) for g in blocks)
        return cls(variables, tuple(sparse_rows), row_lower_t, row_upper_t, cost_t, lower_t, upper_t, name, blocks_t)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, variables)."""
        return len(self.rows), self.variables

    def with_cost(self, cost: Sequence[Any]) -> LinearProgram:
        """The same constraints with another objective."""
        cost_t = tuple(to_fmpq(v) for v in cost)
        if len(cost_t) != self.variables:
            raise ShapeError(f"the cost has {len(cost_t)} coefficients for {self.variables} variables")
        return LinearProgram(self.variables, self.rows, self.row_lower, self.row_upper, cost_t, self.lower, self.upper,
                             self.name, self.blocks)


def _sparse_rows(rows: Sequence[Mapping[int, Any]], variables: int) -> list[tuple[tuple[int, flint.fmpq], ...]]:
    """The rows of :meth:`LinearProgram.build` as sorted (variable, non-zero flint rational) pairs."""
    sparse_rows = []
    for i, row in enumerate(rows):
        terms = []
        for k, a in row.items():
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < variables:
                raise ShapeError(f"row {i} names variable {k!r}; variables are 0..{variables - 1}")
            value = to_fmpq(a)
            if value:
                terms.append((int(k), value))
        sparse_rows.append(tuple(sorted(terms)))  # by variable: a mapping's keys are distinct
    return sparse_rows


def _bounds(values: Any, size: int, what: str) -> tuple[_Bound, ...]:
    if values is None or not isinstance(values, (list, tuple, np.ndarray)):
        bound = None if values is None else to_fmpq(values)
        return (bound,) * size
    if len(values) != size:
        raise ShapeError(f"{what} has {len(values)} entries, not {size}")
    return tuple(None if v is None else to_fmpq(v) for v in values)




@dataclass(frozen=True)
class LPSolution:
    """An exact answer with its certificate (see the module docstring).

    Attributes
    ----------
    status : str
        ``"optimal"``, ``"infeasible"`` or ``"unbounded"``.
    value : Fraction or None
        min c·x when optimal.
    point : tuple of Fraction or None
        An optimal (optimal) or feasible (unbounded) x.
    duals : tuple of Fraction or None
        Row multipliers y: optimal duals (optimal) or Farkas multipliers (infeasible).
    ray : tuple of Fraction or None
        An improving feasible direction (unbounded).
    method : str
        Which route produced it, e.g. ``"highs basis, exact solve"``.
    """

    status: str
    value: Fraction | None = None
    point: tuple[Fraction, ...] | None = None
    duals: tuple[Fraction, ...] | None = None
    ray: tuple[Fraction, ...] | None = None
    method: str = ""

    def reduced_costs(self, program: LinearProgram) -> tuple[Fraction, ...]:
        """d = c − Aᵀy (for an infeasibility certificate, c = 0)."""
        if self.duals is None:
            raise CertificateError("this solution has no dual multipliers")
        d = list(program.cost) if self.status == "optimal" else [flint.fmpq(0)] * program.variables
        for row, y in zip(program.rows, self.duals, strict=True):
            if y:
                q = to_fmpq(y)
                for k, a in row:
                    d[k] -= a * q
        return _fractions(d)


# ------------------------------------------------------------------------------------ the checker
def certificate_defect(program: LinearProgram, solution: LPSolution) -> str | None:
    """Why `solution` is not a valid certificate for `program`, or None when it is.

    Exact arithmetic only (flint rationals); no LP is solved. See the module docstring for what
    each kind of certificate must satisfy.

    Examples
    --------
    >>> program = LinearProgram.build(1, [{0: 1}], row_lower=[1], cost=[1])
    >>> certificate_defect(program, LPSolution("optimal", Fraction(1), (Fraction(1),), (Fraction(1),)))
    >>> certificate_defect(program, LPSolution("optimal", Fraction(1), (Fraction(1),), (Fraction(-1),)))
    'row 0: multiplier -1 < 0 needs a finite upper bound'
    """
    if solution.status not in ("optimal", "infeasible", "unbounded"):
        return f"unknown status {solution.status!r}"
    n = program.variables
    if solution.status in ("optimal", "unbounded"):
        if solution.point is None or len(solution.point) != n:
            return f"the point must have {n} entries"
        defect = _primal_defect(program, [to_fmpq(v) for v in solution.point])
        if defect:
            return defect
    if solution.status == "unbounded":
        if solution.ray is None or len(solution.ray) != n:
            return f"the ray must have {n} entries"
        return _ray_defect(program, [to_fmpq(v) for v in solution.ray])
    return _dual_defect(program, solution.status, solution.duals, solution.point, solution.value)


def _dual_defect(program: LinearProgram, status: str, duals: Sequence[Any] | None, point: Sequence[Any] | None = None,
                 stated: Any = None) -> str | None:
    """The dual half of :func:`certificate_defect` (multipliers, reduced costs, the dual value and,
    for an optimum, its equality with the primal value c·point and with the `stated` value), for a
    point already checked feasible."""
    m, n = program.shape
    if duals is None or len(duals) != m:
        return f"the dual multipliers must have {m} entries"
    y = [to_fmpq(v) for v in duals]
    cost = program.cost if status == "optimal" else [flint.fmpq(0)] * n
    columns: list[list[tuple[flint.fmpq, flint.fmpq]]] = [[] for _ in range(n)]
    dual_terms = []
    for i, (row, yi) in enumerate(zip(program.rows, y, strict=True)):
        if yi == 0:
            continue
        bound, defect = _active_bound(f"row {i}: multiplier", yi, program.row_lower[i], program.row_upper[i])
        if defect:
            return defect
        dual_terms.append((yi, bound))
        for k, a in row:
            columns[k].append((a, yi))
    d = [c - exact_dot(terms) if terms else c for c, terms in zip(cost, columns, strict=True)]
    dual_value = exact_dot(dual_terms)
    for j, dj in enumerate(d):
        if dj == 0:
            continue
        bound, defect = _active_bound(f"variable {j}: reduced cost", dj, program.lower[j], program.upper[j])
        if defect:
            return defect
        dual_value += dj * bound
    if status == "infeasible":
        return None if dual_value > 0 else f"the Farkas value {dual_value} is not positive"
    x = [to_fmpq(v) for v in point]  # type: ignore[union-attr]
    primal_value = exact_dot(zip(cost, x, strict=True))
    if primal_value != dual_value:
        return f"the primal value {primal_value} differs from the dual value {dual_value}"
    if stated is None or to_fmpq(stated) != primal_value:
        return f"the stated value {stated} is not c·x = {primal_value}"
    return None


def _checked_optimum(program: LinearProgram, x: list[flint.fmpq], y: list[flint.fmpq], method: str, *,
                     feasible: bool) -> LPSolution | None:
    """The optimal solution (x, y) with its value, if it passes the checks of
    :func:`certificate_defect` (all but x's feasibility when the caller has checked that already:
    `feasible`). They run on the flint vectors, before these are converted (exactly) to Fractions."""
    if not feasible and _primal_defect(program, x) is not None:
        return None
    value = exact_dot(zip(program.cost, x, strict=True))
    if _dual_defect(program, "optimal", y, x, value) is not None:
        return None
    return LPSolution("optimal", reduced_fraction(value), _fractions(x), _fractions(y), method=method)


_FRACTION_ZERO = Fraction(0)


def _fractions(values: Sequence[flint.fmpq]) -> tuple[Fraction, ...]:
    """Flint rationals as Fractions; the zeros (most multipliers of a large program) share one."""
    return tuple(reduced_fraction(v) if v else _FRACTION_ZERO for v in values)


def exact_dot(pairs: Iterable[tuple[flint.fmpq, flint.fmpq]]) -> flint.fmpq:
    """Σ a·v over exact pairs, on one running common denominator (no gcd per term).

    Exact solutions of a basis share large denominators; adding them one by one as rationals
    costs a gcd of those large numbers each time, this costs one division test.

    Examples
    --------
    >>> q = flint.fmpq
    >>> exact_dot([(q(1, 2), q(2, 3)), (q(3), q(1, 6))])
    5/6
    """
    numerator, denominator = flint.fmpz(0), flint.fmpz(1)
    for a, v in pairs:
        term_p, term_q = a.p * v.p, a.q * v.q
        if term_q == denominator:
            numerator += term_p
        elif denominator % term_q == 0:
            numerator += term_p * (denominator // term_q)
        else:
            common = denominator.gcd(term_q)
            numerator = numerator * (term_q // common) + term_p * (denominator // common)
            denominator = denominator // common * term_q
    return flint.fmpq(numerator, denominator)


def _row_activity(row: Sequence[tuple[int, flint.fmpq]], x: Sequence[flint.fmpq]) -> flint.fmpq:
    """a·x for one sparse row of a :class:`LinearProgram`: flint's own arithmetic for the rows of one
    or two terms that make up most programs (bounds, differences, ε-ratios; four times faster),
    :func:`exact_dot` for longer ones."""
    if len(row) == 2:
        (k, a), (j, b) = row
        return a * x[k] + b * x[j]
    if len(row) == 1:
        return row[0][1] * x[row[0][0]]
    return exact_dot((a, x[k]) for k, a in row)


def _active_bound(what: str, value: flint.fmpq, low: _Bound, high: _Bound) -> tuple[Any, str | None]:
    """The bound a non-zero multiplier or reduced cost prices (the lower one when it is positive),
    or why there is none."""
    bound = low if value > 0 else high
    if bound is None:
        side, sign = ("lower", ">") if value > 0 else ("upper", "<")
        return None, f"{what} {value} {sign} 0 needs a finite {side} bound"
    return bound, None


def verify_solution(program: LinearProgram, solution: LPSolution) -> bool:
    """True when :func:`certificate_defect` finds nothing wrong."""
    return certificate_defect(program, solution) is None


def _primal_defect(program: LinearProgram, x: Sequence[flint.fmpq]) -> str | None:
    for j, v in enumerate(x):
        low, high = program.lower[j], program.upper[j]
        if low is not None and v < low:
            return f"variable {j} = {v} is below its lower bound {low}"
        if high is not None and v > high:
            return f"variable {j} = {v} is above its upper bound {high}"
    for i, row in enumerate(program.rows):
        activity = _row_activity(row, x)
        low, high = program.row_lower[i], program.row_upper[i]
        if low is not None and activity < low:
            return f"row {i} = {activity} is below its lower bound {low}"
        if high is not None and activity > high:
            return f"row {i} = {activity} is above its upper bound {high}"
    return None


def _ray_defect(program: LinearProgram, r: Sequence[flint.fmpq]) -> str | None:
    if sum((c * v for c, v in zip(program.cost, r, strict=True)), flint.fmpq(0)) >= 0:
        return "the ray does not decrease the cost"
    checks = [(f"variable {j}", r[j], program.lower[j], program.upper[j]) for j in range(program.variables)]
    checks += [(f"row {i}", _row_activity(row, r), program.row_lower[i], program.row_upper[i])
               for i, row in enumerate(program.rows)]
    for what, change, low, high in checks:
        if (low is not None and change < 0) or (high is not None and change > 0):
            return f"{what} changes by {change} along the ray, leaving its bounds"
    return None


# ------------------------------------------------------------------------------------ the engine
@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while the block runs, then restored as it was.

    Exact LP work allocates 10⁵ to 10⁶ small objects that form no cycles (sparse rows, flint
    rationals, Fractions), and every 700 allocations the collector scans the young ones, every few
    scans all of them: a sixth of the time of Cormode's seven-property design at n = 100 when it
    was measured (``benchmarks/bench_lp.py``). Reference
    counting frees these objects all the same; only garbage in cycles waits for the end of the
    block. The pause is process-wide (as :mod:`timeit`'s): other threads run without it meanwhile.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: Exact dual simplex pivots :func:`solve` allows after the refinement rounds, by default.
_PIVOTS = 200


def solve(program: LinearProgram, *, time_limit: float | None = None, fallback: bool = True,
          pivots: int = _PIVOTS) -> LPSolution:
    """Solve `program` exactly; the answer is certified before it is returned.

    The route is bounded by work alone (HiGHS's iteration counts, a number of refinement rounds,
    a number of exact pivots), so the same program gets the same answer, certificate or
    :class:`UndecidableError`, on an idle machine and on a busy one.

    Parameters
    ----------
    program : LinearProgram
    time_limit : float or None
        The caller's bound on the whole solve, in seconds of wall-clock time (None: none). It never
        changes the route or the answer: once it has passed, the solve stops with
        :class:`~qifkit.errors.TimeLimitReached`.
    fallback : bool
        Whether cddlib's exact simplex may be tried when no float basis certifies (only for
        programs of at most :data:`CDD_LIMIT` variables × rows).
    pivots : int
        How many exact dual simplex pivots may follow a float basis that misses a bound by a hair
        (0: none).

    Returns
    -------
    LPSolution
        status ``"optimal"``, ``"infeasible"`` or ``"unbounded"``, with its certificate, which
        has passed :func:`certificate_defect`.

    Raises
    ------
    UndecidableError
        When neither the float bases nor (within its size limit) cddlib give a certificate.
    TimeLimitReached
        When `time_limit` has passed.
    """
    if not isinstance(program, LinearProgram):
        raise TypeError(f"solve takes a LinearProgram, not {type(program).__name__}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int | float)
                                   or not time_limit > 0):
        raise ParameterError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    whole_number(pivots, 0, "pivots", error=ParameterError)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    with collector_paused():
        return _solve(program, deadline, fallback, pivots)


def _run(highs: Any, deadline: float | None) -> Any:
    """``highs.run()`` within the caller's deadline (``time.perf_counter()``, None: none): HiGHS is
    given the time left, and a run it stops on that time raises
    :class:`~qifkit.errors.TimeLimitReached` rather than being read as an answer."""
    import highspy

    if deadline is not None:
        highs.setOptionValue("time_limit", _time_left(deadline))
    status = highs.run()
    if deadline is not None and highs.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
        raise TimeLimitReached
    return status


def _time_left(deadline: float | None) -> float:
    """Seconds until the caller's deadline (inf for none); TimeLimitReached once it has passed."""
    if deadline is None:
        return math.inf
    left = deadline - time.perf_counter()
    if left <= 0:
        raise TimeLimitReached
    return left


def _solve(program: LinearProgram, deadline: float | None, fallback: bool, pivots: int) -> LPSolution:
    status, solution = _by_bases(program, deadline, _optimum_of(program), pivots=pivots)
    if solution is None and status == "infeasible":
        solution = _ray_certificate(program, deadline) or _farkas_certificate(program, deadline)
    if solution is None and status == "unbounded":
        solution = _unbounded_certificate(program, deadline)
    if solution is None and status != "infeasible":  # feasible to HiGHS's tolerance only (1e-9 from a bound)?
        solution = _ray_certificate(program, deadline)
        if solution is None and status != "optimal":  # the elastic LP costs a full solve: not after an optimum
            solution = _farkas_certificate(program, deadline)
    if solution is None and fallback and len(program.rows) * program.variables <= CDD_LIMIT:
        _time_left(deadline)
        solution = solve_by_cdd(program)
    if solution is None:
        raise UndecidableError(f"no certificate found for {program.name} ({len(program.rows)} rows, "
                               f"{program.variables} variables): HiGHS's bases did not certify exactly"
                               + ("" if fallback else " and the cddlib fallback was not allowed")
                               + (f"; cddlib is not tried beyond {CDD_LIMIT} variables × rows" if fallback else ""))
    return solution


# Runs of the float solver, in order: default settings; then from the last basis without presolve
# and with tight tolerances; then the primal simplex.
_ATTEMPTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("dual simplex", {}),
    ("no presolve, tight tolerances",
     {"presolve": "off", "primal_feasibility_tolerance": 1e-12, "dual_feasibility_tolerance": 1e-12}),
    ("primal simplex", {"simplex_strategy": 4}),
)

#: certify(highs, method, memo) -> a checked certificate from HiGHS's basis, or None; `memo` keeps
#: the exact solves of bases already seen (see :func:`_basis_of`).
_Certifier = Callable[[Any, str, dict], "LPSolution | None"]


def _by_bases(program: LinearProgram, deadline: float | None, certify: _Certifier, pivots: int = 0
              ) -> tuple[str, LPSolution | None]:
    """Run HiGHS on `program` (each setting of :data:`_ATTEMPTS` in turn, each continuing from
    the last basis) until `certify` turns an optimal basis into a checked certificate; the float
    status and that certificate, or None. A basis already refused is not solved again. Each
    refinement round may take :data:`_ROUND_ITERATIONS` times the first run's simplex iterations.
    With `pivots` > 0, when no refinement round certified, :func:`_exact_dual_simplex` makes at
    most that many pivots from the last basis or, if that is not dual feasible, from the latest
    dual feasible basis whose point missed a bound (for the program's own optimum, not for derived
    programs). `deadline` is the caller's (:func:`_run`)."""
    highs = _highs(program)
    status = "unknown"
    refused: set[bytes] = set()
    memo: dict[bytes, Any] = {}

    def try_basis(method: str, run: Any = None) -> LPSolution | None:
        run = highs if run is None else run
        key = _basis_key(run)
        if key in refused:
            return None
        solution = certify(run, method, memo)
        if solution is None:
            refused.add(key)
        return solution

    first_run = None  # the first run's simplex iterations
    for name, options in _ATTEMPTS:
        for key, value in options.items():
            highs.setOptionValue(key, value)
        _run(highs, deadline)
        first_run = highs.getInfo().simplex_iteration_count if first_run is None else first_run
        status = _status(highs)
        if status != "optimal":
            return status, None
        solution = try_basis(f"HiGHS basis ({name}), exact solve")
        if solution is not None:
            return status, solution
    stalls = 0
    smallest: dict[str, flint.fmpq] = {}  # the largest violation seen, by kind of round
    missed: list[Any] = []  # the bases whose exact points missed a bound, starts for the exact dual simplex
    for round_ in range(1, _REFINEMENTS + 1):
        residual = _residual_program(program, highs, memo)
        if residual is None:
            break
        _, kind, worst = residual
        if kind == "primal":
            missed.append(highs)
        stalls = 0 if kind not in smallest or worst * 2 <= smallest[kind] else stalls + 1
        if stalls >= _STALLS:
            break
        smallest[kind] = min(worst, smallest.get(kind, worst))
        refined = _refinement_round(program, highs, memo, residual[0],
                                    _ROUND_ITERATIONS * max(first_run or 0, _MIN_ROUND_ITERATIONS), deadline)
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
        # from the last basis if it is dual feasible, else from the latest one that missed a bound
        # and is: a round can end on a basis whose point is exactly feasible and whose duals are far
        # off (Kohli's F at n = 80, uniform z: round 4, HiGHS "infeasible", 134 multipliers of the
        # wrong sign) while the basis before it was exactly dual feasible, 12 bounds missed by
        # 4e-23. One start only: an earlier one misses more bounds and would need more pivots.
        for start in [highs] + [run for run in reversed(missed) if run is not highs]:
            flags, found = _basis_flags(start), _basis_of(program, start, memo=memo)  # memoised by the rounds
            if flags is not None and found is not None and found[0] is not None and found[1] is not None \
                    and _dual_feasible(program, found[0], found[1]):
                return status, _exact_dual_simplex(program, flags, deadline, pivots)
    return status, None


def _dual_feasible(program: LinearProgram, x: Sequence[flint.fmpq], y: Sequence[flint.fmpq]) -> bool:
    """Whether the duals y of a basic solution x have the right signs, whatever x: the dual half of
    :func:`certificate_defect`, in which c·x and the dual value of a basic solution always agree,
    so the signs alone decide."""
    return _dual_defect(program, "optimal", y, x, exact_dot(zip(program.cost, x, strict=True))) is None


def _refinement_round(program: LinearProgram, highs: Any, memo: dict, residual: LinearProgram, iterations: int,
                      deadline: float | None) -> Any:
    """HiGHS on the next residual program (`residual`, from :func:`_residual_program`),
    warm-started from `highs`'s basis: the dual simplex first, then the primal simplex, then with
    a third and two thirds less magnification, while HiGHS ends in a solve error (ill-conditioned bases meet
    magnified bounds: Kohli's F at n = 80, magnified 2^44 in round 2, fails both ways and
    succeeds at 2^29). None when no attempt leaves a valid basis.

    A warm-started round needs a few pivots; on a badly conditioned residual program HiGHS can
    wander for many (Cormode's L0 design at n = 60, α = 1/3) and end "infeasible", hence the
    bound of `iterations` simplex iterations for each attempt."""
    import highspy

    for damping, strategy in _ROUND_ATTEMPTS:
        damped = _residual_program(program, highs, memo, damping) if damping != 1 else (residual,)
        if damped is None:  # pragma: no cover - a violation that one magnification saw, any other sees
            return None
        refined = _highs(damped[0])
        refined.setOptionValue("simplex_iteration_limit", int(iterations))
        if strategy is not None:
            refined.setOptionValue("simplex_strategy", strategy)
        refined.setBasis(highs.getBasis())
        if _run(refined, deadline) != highspy.HighsStatus.kError and refined.getBasis().valid:
            return refined
    return None


#: (fraction of the magnification's bits, HiGHS's simplex strategy or None for its default, the
#: dual simplex) of the attempts of one refinement round, in order.
_ROUND_ATTEMPTS: tuple[tuple[float, int | None], ...] = ((1.0, None), (1.0, 4), (2 / 3, None), (1 / 3, None))


def _exact_dual_simplex(program: LinearProgram, start: _Flags, deadline: float | None, pivots: int = 200
                        ) -> LPSolution | None:
    """Exact dual simplex pivots from a basis of HiGHS's, (column basic, column at upper, row
    basic, row at upper) as :func:`_basis_flags` reads it, when that basis is dual feasible but
    its exact point violates a bound by a hair (what floats cannot see on ill-conditioned bases).

    Each pivot takes the first basic variable or row out of its bounds (smallest index, Bland's
    rule against cycling), computes its row of the basis inverse exactly (one transposed solve),
    and lets enter the non-basic variable or row of smallest dual ratio |d_q|/|α_pq| among those
    that move it back; the leaving one stays at the bound it violated. The basis stays dual
    feasible, so the first primal feasible basis is optimal; its certificate is checked by
    :func:`certificate_defect`. None when the start is not dual feasible, when no variable can
    enter (the program would be infeasible: the elastic route decides that), or after `pivots`
    pivots; TimeLimitReached past the caller's `deadline` (:func:`_run`).
    """

    m, n = program.shape
    column_basic, column_upper, row_basic, row_upper = (list(flags) for flags in start)  # copies: pivots change them
    # variables 0..n-1 are the columns, n..n+m-1 the row activities
    low = list(program.lower) + list(program.row_lower)
    high = list(program.upper) + list(program.row_upper)
    for pivot in range(pivots):
        _time_left(deadline)
        factor = None if program.blocks is not None else _basis_factor(program, column_basic, row_basic)
        found = basis_solution(program, column_basic, column_upper, row_basic, row_upper, factor=factor)
        if found is None or found[0] is None or found[1] is None:
            return None
        x, y = found[0], found[1]
        if pivot == 0 and not _dual_feasible(program, x, y):
            return None
        values = x + [_row_activity(row, x) for row in program.rows]
        is_basic = column_basic + row_basic
        leaving, direction = None, 0
        for v in range(n + m):
            bottom, top = low[v], high[v]
            if is_basic[v] and bottom is not None and values[v] < bottom:
                leaving, direction = v, 1
                break
            if is_basic[v] and top is not None and values[v] > top:
                leaving, direction = v, -1
                break
        if leaving is None:  # every basic value within its bounds
            return _checked_optimum(program, x, y, "HiGHS basis, then exact dual simplex pivots", feasible=False)
        found_row = _inverse_row(program, column_basic, row_basic, leaving, factor)
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
        if leaving < n:
            column_basic[leaving], column_upper[leaving] = False, direction < 0
        else:
            row_basic[leaving - n], row_upper[leaving - n] = False, direction < 0
        if entering < n:
            column_basic[entering] = True
        else:
            row_basic[entering - n] = True
    return None


def _basis_factor(program: LinearProgram, column_basic: Sequence[bool], row_basic: Sequence[bool]
                  ) -> SquareFactor | None:
    """The basis matrix (the tight rows on the basic columns) prepared for exact solves, for
    programs without column groups: :func:`basis_solution` and :func:`_inverse_row` share it.
    None when there are not as many tight rows as basic columns."""
    if column_basic.count(True) != row_basic.count(False):
        return None
    position = {j: p for p, j in enumerate(j for j in range(program.variables) if column_basic[j])}
    square, _ = substituted([program.rows[i] for i in range(len(program.rows)) if not row_basic[i]],
                            [flint.fmpq(0)] * row_basic.count(False), position, [flint.fmpq(0)] * program.variables)
    return SquareFactor(square)


def _inverse_row(program: LinearProgram, column_basic: Sequence[bool], row_basic: Sequence[bool], leaving: int,
                 factor: SquareFactor | None = None) -> tuple[list[int], list[flint.fmpq]] | None:
    """The basic variable or row `leaving` (columns 0..n-1, rows n..n+m-1) as a combination of
    the non-basic (tight) rows on the basic columns: ρ with M_Bᵀ·ρ = e (its row of the basis
    inverse), by one exact transposed solve (with `factor`, the basis's :func:`_basis_factor`, when
    given); the tight rows and ρ, or None if the basis is singular."""
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
        factor = _basis_factor(program, column_basic, row_basic) if factor is None else factor
        rho = None if factor is None else factor.solve_transposed(target)
    return None if rho is None else (tight_rows, rho)


def _ray_certificate(program: LinearProgram, deadline: float | None, attempts: int = 4) -> LPSolution | None:
    """Farkas multipliers read off the basis at which HiGHS's dual simplex finds `program`
    infeasible, without the elastic program.

    With zero cost every basis is dual feasible; the dual simplex stops when a basic variable
    or row lies outside its bounds and no non-basic one can bring it back. Its row of the basis
    inverse (:func:`_inverse_row`) is then a linear identity, row combination minus the leaving
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
    highs = _highs(feasibility)
    highs.setOptionValue("presolve", "off")
    _run(highs, deadline)
    flags = _basis_flags(highs)
    if _status(highs) != "infeasible" or flags is None:
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
        found_row = _inverse_row(feasibility, column_basic, row_basic, leaving)
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
        solution = LPSolution("infeasible", duals=_fractions(y),
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
    values_exact = np.concatenate([point, _float_rows(program) @ point])
    bounds = [np.array([fill if v is None else float(v) for v in side]) for side, fill in
              ((program.lower + program.row_lower, -np.inf), (program.upper + program.row_upper, np.inf))]
    for leaving, direction in [c for c in out_of_bounds(values_exact, *bounds) if c[0] not in tried][:attempts]:
        solution = certified(leaving, direction)
        if solution is not None:
            return solution
    return None


def _basis_key(highs: Any) -> bytes:
    basis = highs.getBasis()
    return (
        np.array(basis.col_status, dtype=np.int8).tobytes() + b"|" + np.array(basis.row_status, dtype=np.int8).tobytes()
    )


def _basis_flags(highs: Any) -> _Flags | None:
    """HiGHS's basis as (column basic, column at upper bound, row basic, row at upper bound), or
    None when it has no valid basis."""
    import highspy

    basis = highs.getBasis()
    if not basis.valid:
        return None
    basic, upper = int(highspy.HighsBasisStatus.kBasic), int(highspy.HighsBasisStatus.kUpper)
    columns, rows = (np.array(statuses, dtype=np.int8) for statuses in (basis.col_status, basis.row_status))
    return (columns == basic).tolist(), (columns == upper).tolist(), (rows == basic).tolist(), (rows == upper).tolist()


#: Rounds of iterative refinement after the attempts (Gleixner, Steffy and Wolter [1]_), at most;
#: they stop earlier once :data:`_STALLS` rounds in a row have not halved the largest violation.
#: Kohli's F at n = 40 with a binomial z needs 7 rounds, each gaining about 2^-7 to 2^-9.
_REFINEMENTS = 50
_STALLS = 3
#: Each attempt of a refinement round may take this many times the first run's simplex iterations
#: (at least :data:`_MIN_ROUND_ITERATIONS` times): warm-started, a round needs a few pivots.
_ROUND_ITERATIONS = 10
_MIN_ROUND_ITERATIONS = 100


#: A bound of the residual program farther than this from the current point (in magnified units)
#: is clamped to it: no round moves that far, and bounds of 1e10 to 1e20 beside violations of 1
#: leave HiGHS with a "solve error" (Kohli's F at n = 100, magnified by 2^88 in its fourth round).
_FAR = flint.fmpq(10**8)


def _residual_program(program: LinearProgram, highs: Any, memo: dict, damping: float = 1.0
                      ) -> tuple[LinearProgram, str, flint.fmpq] | None:
    """The next round of iterative refinement from HiGHS's current basis: the primal residual
    program (:func:`_shifted`) while the basis's exact point misses a bound, else the program
    with its cost magnified (:func:`_magnified_cost`) while its exact duals have a wrong sign;
    with ``"primal"`` or ``"dual"`` and the largest violation. `damping` (at most 1) scales the
    magnification's exponent. None when the basis is singular or violates nothing."""
    found = _basis_of(program, highs, need_duals=False, memo=memo)
    if found is None or found[0] is None:
        return None
    activities = [_row_activity(row, found[0]) for row in program.rows]
    primal = _shifted(program, found[0], activities, damping)
    if primal is not None:
        return primal[0], "primal", primal[1]
    found = _basis_of(program, highs, memo=memo)
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

    def violation(value: flint.fmpq, at: flint.fmpq, low: _Bound, high: _Bound) -> flint.fmpq:
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

    def shift(bounds: Sequence[_Bound], values: Sequence[flint.fmpq]) -> tuple[_Bound, ...]:
        shifted = (None if b is None else (b - v) * scale for b, v in zip(bounds, values, strict=True))
        return tuple(None if b is None else min(max(b, -_FAR), _FAR) for b in shifted)

    return LinearProgram(program.variables, program.rows, shift(program.row_lower, activities),
                         shift(program.row_upper, activities), program.cost, shift(program.lower, x),
                         shift(program.upper, x), f"{program.name} (refined)", program.blocks), worst


def _highs(program: LinearProgram) -> Any:
    """HiGHS loaded with the program in floats, rows and columns scaled by powers of two
    (:func:`_float_scaling`). Positive scalings change no basis, so the exact solve of HiGHS's
    basis is that of the original program; only the floats see a well-scaled problem, in which
    HiGHS's absolute tolerances mean the same on every row."""
    import highspy

    m, n = program.shape
    matrix = _float_rows(program)
    row_scale, column_scale = _float_scaling(matrix)
    matrix = (scipy.sparse.diags(row_scale) @ matrix @ scipy.sparse.diags(column_scale)).tocsc()
    inf = highspy.kHighsInf

    def scaled(bounds: Sequence[_Bound], factors: np.ndarray, missing: float) -> np.ndarray:
        return np.array([missing if v is None else float(v) * f for v, f in zip(bounds, factors, strict=True)])

    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.array([float(v) for v in program.cost]) * column_scale
    lp.col_lower_ = scaled(program.lower, 1 / column_scale, -inf)
    lp.col_upper_ = scaled(program.upper, 1 / column_scale, inf)
    lp.row_lower_ = scaled(program.row_lower, row_scale, -inf)
    lp.row_upper_ = scaled(program.row_upper, row_scale, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr
    lp.a_matrix_.index_ = matrix.indices
    lp.a_matrix_.value_ = matrix.data
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    highs = _silent(highspy.Highs)
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.passModel(lp)
    return highs


def _silent(make: Callable[[], Any]) -> Any:
    """make() with the process's standard output (file descriptor 1) sent to /dev/null: HiGHS 1.16
    prints its banner from C++ when an instance is made, before any option can turn it off, and it
    would land in the middle of a command's output."""
    sys.stdout.flush()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        made = make()
        try:
            ctypes.CDLL(None).fflush(None)  # C's buffer, still pointing at /dev/null
        except (OSError, AttributeError):  # pragma: no cover - no C library by that name (Windows)
            pass
        return made
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def _float_rows(program: LinearProgram) -> scipy.sparse.csr_matrix:
    """The constraint matrix in floats, sparse by rows."""
    m, n = program.shape
    indices = np.fromiter((k for row in program.rows for k, _ in row), dtype=np.int64)
    values = np.fromiter((float(a) for row in program.rows for _, a in row), dtype=float)
    pointers = np.cumsum([0] + [len(row) for row in program.rows])
    return scipy.sparse.csr_matrix((values, indices, pointers), shape=(m, n))


def _float_scaling(matrix: scipy.sparse.csr_matrix, passes: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Row and column factors (powers of two) that bring the float matrix's entries near 1:
    alternating geometric-mean passes, then each row's largest entry to about 1. Entries of
    1e-20 next to 1 (counting pipelines of improbable counts) otherwise fall under HiGHS's
    drop tolerance."""
    m, n = matrix.shape
    rows, columns = np.ones(m), np.ones(n)
    if matrix.nnz == 0:
        return rows, columns
    coo = matrix.tocoo()
    logs = np.log2(np.abs(coo.data))

    def centre(keys: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
        high = np.full(size, -np.inf)
        low = np.full(size, np.inf)
        np.maximum.at(high, keys, values)
        np.minimum.at(low, keys, values)
        present = np.isfinite(high)
        return np.where(present, np.round(-(np.where(present, high, 0.0) + np.where(present, low, 0.0)) / 2), 0.0)

    row_log, column_log = np.zeros(m), np.zeros(n)
    for _ in range(passes):
        row_log += centre(coo.row, logs + row_log[coo.row] + column_log[coo.col], m)
        column_log += centre(coo.col, logs + row_log[coo.row] + column_log[coo.col], n)
    high = np.full(m, -np.inf)
    np.maximum.at(high, coo.row, logs + row_log[coo.row] + column_log[coo.col])
    row_log -= np.where(np.isfinite(high), np.round(high), 0.0)
    return np.exp2(row_log), np.exp2(column_log)


def float_solution(program: LinearProgram) -> tuple[str, np.ndarray | None]:
    """HiGHS alone on `program`, in floats (scaled as the engine scales it): its status
    (``"optimal"``, ``"infeasible"``, ``"unbounded"`` or ``"unknown"``) and its point, or None.

    Never a verdict: a search whose result something exact decides (the engine's own float stage,
    :func:`qifkit.refinement.approximate_refinement`, polytopes' float minima).

    Examples
    --------
    >>> status, x = float_solution(LinearProgram.build(2, [{0: 1, 1: 1}], row_lower=[1], cost=[1, 2]))
    >>> status, [round(float(v), 12) for v in x]
    ('optimal', [1.0, 0.0])
    """
    highs = _highs(program)
    highs.run()
    status = _status(highs)
    if status != "optimal":
        return status, None
    _, column_scale = _float_scaling(_float_rows(program))
    return status, np.array(highs.getSolution().col_value) * column_scale


def _status(highs: Any) -> str:
    import highspy

    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        return "optimal"
    if status == highspy.HighsModelStatus.kInfeasible:
        return "infeasible"
    if status in (highspy.HighsModelStatus.kUnbounded, highspy.HighsModelStatus.kUnboundedOrInfeasible):
        return "unbounded"
    return "unknown"


def _basis_of(program: LinearProgram, highs: Any, need_point: bool = True, need_duals: bool = True,
              memo: dict | None = None) -> tuple[list[flint.fmpq] | None, list[flint.fmpq] | None] | None:
    """The exact point and/or duals of HiGHS's current basis (:func:`basis_solution`); `memo`
    keeps each part by basis, so that no part of a basis is solved twice (a refinement round
    needs the point only, and a basis whose point misses a bound never needs its duals), and the
    basis's factorisation (:func:`_basis_factor`) for the part asked later."""

    known: dict[str, Any] = memo.setdefault(_basis_key(highs), {}) if memo is not None else {}
    if known.get("singular"):
        return None
    want_point, want_duals = need_point and "point" not in known, need_duals and "duals" not in known
    if want_point or want_duals:
        flags = _basis_flags(highs)
        if flags is None:
            return None
        if program.blocks is None and "factor" not in known:  # kept for the other part, if asked later
            known["factor"] = _basis_factor(program, flags[0], flags[2])
        found = basis_solution(program, *flags, want_point, want_duals, factor=known.get("factor"))
        if found is None:
            known["singular"] = True
            return None
        for part, value in zip(("point", "duals"), found, strict=True):
            if value is not None:
                known[part] = value
    return known.get("point") if need_point else None, known.get("duals") if need_duals else None


def _optimum_of(program: LinearProgram) -> _Certifier:
    """Certify an optimal HiGHS basis of `program`: its exact vertex and duals, checked."""

    def certify(highs: Any, method: str, memo: dict) -> LPSolution | None:
        found = _basis_of(program, highs, need_duals=False, memo=memo)
        if found is None or found[0] is None or _primal_defect(program, found[0]) is not None:
            return None  # the point misses a bound: its duals are not needed
        found = _basis_of(program, highs, memo=memo)
        if found is None or found[0] is None or found[1] is None:  # pragma: no cover - a regular basis has both
            return None
        return _checked_optimum(program, found[0], found[1], method, feasible=True)  # its primal half passed above

    return certify


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


def _elastic(program: LinearProgram) -> LinearProgram:
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


def _farkas_certificate(program: LinearProgram, deadline: float | None) -> LPSolution | None:
    """Farkas multipliers from an optimal basis of the elastic program, checked on `program`."""

    def certify(highs: Any, method: str, memo: dict) -> LPSolution | None:
        found = _basis_of(elastic, highs, need_point=False, memo=memo)
        if found is None or found[1] is None:
            return None
        solution = LPSolution("infeasible", duals=_fractions(found[1]), method=f"elastic {method}")
        return solution if certificate_defect(program, solution) is None else None

    elastic = _elastic(program)
    return _by_bases(elastic, deadline, certify)[1]


def _unbounded_certificate(program: LinearProgram, deadline: float | None) -> LPSolution | None:
    """A feasible point (the program with c = 0) and an improving ray (the recession cone cut by
    the box −1 ≤ r ≤ 1), or the Farkas certificate when the program is in fact infeasible."""
    m, n = program.shape
    status, feasible = _by_bases(program.with_cost([0] * n), deadline, _optimum_of(program.with_cost([0] * n)))
    if status == "infeasible":
        return _farkas_certificate(program, deadline)
    if feasible is None:
        return None

    def cone(low: Any, high: Any) -> tuple[_Bound, _Bound]:
        return (None if low is None else flint.fmpq(0)), (None if high is None else flint.fmpq(0))

    row_bounds = [cone(lo, hi) for lo, hi in zip(program.row_lower, program.row_upper, strict=True)]
    bounds = [cone(lo, hi) for lo, hi in zip(program.lower, program.upper, strict=True)]
    recession = LinearProgram(n, program.rows, tuple(b[0] for b in row_bounds), tuple(b[1] for b in row_bounds),
                              program.cost, tuple(flint.fmpq(-1) if b[0] is None else b[0] for b in bounds),
                              tuple(flint.fmpq(1) if b[1] is None else b[1] for b in bounds), f"{program.name} (rays)",
                              program.blocks)
    _, direction = _by_bases(recession, deadline, _optimum_of(recession))
    if direction is None or direction.value is None or direction.value >= 0:
        return None
    solution = LPSolution("unbounded", point=feasible.point, ray=direction.point,
                          method="HiGHS bases (a feasible point, the recession cone), exact solve")
    return solution if certificate_defect(program, solution) is None else None


def solve_by_cdd(program: LinearProgram, is_elastic: bool = False) -> LPSolution | None:
    """cddlib's exact simplex in GMP rationals, for small programs (the last resort of :func:`solve`
    and an independent route for cross-checks); None when cddlib's answer does not pass
    :func:`certificate_defect`. Its optimal duals are mapped
    back to the rows; an infeasible program is certified by the elastic program solved the same
    way."""
    m, n = program.shape
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
        x = tuple(Fraction(v) for v in solver.primal_solution)
        duals = [Fraction(0)] * m
        for index, value in solver.dual_solution:
            origin = source[index] if index < len(source) else None
            if origin is not None:
                i, sign = origin
                duals[i] -= sign * Fraction(value)  # cddlib's multipliers of a minimum are ≤ 0
        value = sum((reduced_fraction(c) * v for c, v in zip(program.cost, x, strict=True)), Fraction(0))
        solution = LPSolution("optimal", value, x, tuple(duals), method=f"cddlib exact simplex ({elapsed:.1f} s)")
        return solution if certificate_defect(program, solution) is None else None
    if solver.status != cdd.LPStatusType.OPTIMAL and not is_elastic:  # infeasible, or unbounded
        elastic = solve_by_cdd(_elastic(program), is_elastic=True)
        if elastic is None or elastic.value is None or elastic.value <= 0 or elastic.duals is None:
            return None
        solution = LPSolution("infeasible", duals=elastic.duals[:m], method="cddlib exact simplex (elastic)")
        return solution if certificate_defect(program, solution) is None else None
    return None


def ppl_optimum(program: LinearProgram) -> tuple[str, Fraction | None]:
    """The status and optimal value of `program` by the Parma Polyhedra Library's exact simplex
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
    return "optimal", Fraction(int(value.numerator), int(value.denominator)) / common
