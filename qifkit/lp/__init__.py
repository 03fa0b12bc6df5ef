"""One exact linear-programming engine: floats propose a basis, exact algebra decides.

Every LP-shaped question of the toolkit (refinement witnesses and refutations, the design LPs of
Cormode et al., the LP optima over Kohli and Laskowski's polytopes) is a :class:`LinearProgram`
solved by :func:`solve`, and every answer carries a certificate that :func:`certificate_defect`
re-checks with exact arithmetic only.

Problem form (HiGHS's own)::

    minimise c·x  subject to  row_lower ≤ A·x ≤ row_upper,  lower ≤ x ≤ upper,

with ``None`` for an infinite bound (an equality row has row_lower = row_upper). Programs and
answers hold one scalar type, python-flint's rationals (``flint.fmpq``): the engine never converts
its results, and a caller in Fraction arithmetic converts once
(:func:`qifkit.numbers.reduced_fractions`), since a Fraction never equals a flint rational.

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
   from the basis [1]_: first scaled rounds (:func:`qifkit.lp.refine.scaled_round`: each variable
   measured in units of its own exact value) while they lessen the bounds missed, then uniform
   ones: the residual program (shifted by the exact point and magnified) while the point misses
   a bound, the program with its cost magnified while a dual has a wrong sign; then the exact
   dual simplex (:mod:`qifkit.lp.simplex`) from a dual feasible basis that misses bounds; only
   then cddlib's exact simplex, for programs small enough for it (:data:`CDD_LIMIT`), or
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
('optimal', 2, (1, 0))
>>> type(answer.value) is type(program.cost[0])  # one scalar type: flint rationals
True
>>> certificate_defect(program, answer) is None
True
"""

from __future__ import annotations

from qifkit.lp.certificate import certificate_defect, verify_solution
from qifkit.lp.engine import solve
from qifkit.lp.highs import float_solution
from qifkit.lp.oracles import ppl_optimum, solve_by_cdd
from qifkit.lp.program import CDD_LIMIT, LinearProgram, LPSolution, collector_paused

__all__ = ["LinearProgram", "LPSolution", "solve", "certificate_defect", "verify_solution",
           "solve_by_cdd", "ppl_optimum", "float_solution", "CDD_LIMIT", "collector_paused"]
