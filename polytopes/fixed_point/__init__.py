"""Count-mechanism constructors of Kohli and Laskowski (§5): Algorithm 1 and Algorithm 2.

A count mechanism T is n×n with rows as true counts and columns as reported counts; T is in U
when its rows are distributions and every column is ε-neighbour indistinguishable
(e^−ε·T[i+1,j] ≤ T[i,j] ≤ e^ε·T[i+1,j]), and in F[z] when moreover z·T = z.

* :func:`polytopes.fixed_point.algorithm1.heuristic_constructor` is Algorithm 1: it fills one
  column at a time with positive multiples of ε-scales (Def. 6) and returns a vertex of F[z]
  (Thm. 6) after at most 2n − 1 scale additions (Thm. 5). The step size is Prop. 2's minimum of n
  ratios. Its exact arithmetic is in :mod:`~polytopes.fixed_point.algorithm1_exact`, its float
  modes in :mod:`~polytopes.fixed_point.algorithm1_float`, the bookkeeping both share (column
  selectors, runs of rows joined by tight bounds) in :mod:`~polytopes.fixed_point.runs`.
* :func:`polytopes.fixed_point.algorithm2.unfixed_optimum` is Algorithm 2: it places the
  single-peaked scales Σ_l with their amounts ω_l (Observation 3, corrected; see check
  ``kohli26.obs3-omega``) in the columns that minimise ⟨W, T⟩, scanning left to right (Lemmas 8
  and 9); the result minimises count error over U for row-wise concentrating and convex W (Thm. 8).
* :mod:`~polytopes.fixed_point.verification` checks a mechanism (exactly, or in floats with the
  check's rounding bounded); :mod:`~polytopes.fixed_point.construction` holds what the
  constructors return; :mod:`~polytopes.fixed_point.named` the named and random fixed points;
  :mod:`~polytopes.fixed_point.arithmetic` how z and e^ε enter each arithmetic.

Both algorithms run in exact rational arithmetic (python-flint) or, with ``exact=False``, in
floating point on the natural logarithms of every quantity: a scale at n = 2000 and e^ε = 2 spans
2^1999, far outside the range of a double, while its logarithm is a few thousand. Algorithm 1
keeps the remainder r as one number per run of rows joined by tight privacy bounds: a bound that
Prop. 2's minimum made tight is a recorded fact, never re-tested on rounded numbers, and a step
costs O(runs) rather than O(n). Its float mode computes in long double (64-bit significand): the
remainder is a difference of nearly equal amounts late in the run, and a double loses the digits a
fixed point needs at n in the thousands. It works on values while every scale e^{±ε·n} fits a long
double (ε·n up to about 8,000) and on logarithms beyond. Where even that is not enough it is redone
with the remainder in high precision (a few hundred bits at n = 2000). Every result is verified in
its own arithmetic before it is returned, and ``Construction.arithmetic`` says which arithmetic
made it.

The public names are also ``polytopes``' own (``from polytopes import heuristic_constructor``).
"""
