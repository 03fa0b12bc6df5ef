"""polytopes: sets of DP mechanisms as exact polytopes (vertices, classification, design).

Built on :mod:`qifkit`. The modules, by what they hold:

* :mod:`polytopes.hrep`, :mod:`polytopes.spaces`: the polytopes of the papers (Holohan et al.'s D,
  Kohli and Laskowski's U, F, R_U, R_F) as exact H-representations with their symmetry groups;
* :mod:`polytopes.enumerate` (cddlib), :mod:`polytopes.lrs`, :mod:`polytopes.normaliz`,
  :mod:`polytopes.orbitwise`, :mod:`polytopes.adjacency`, :mod:`polytopes.ldp_support`: exact
  vertex enumeration, independent cross-checks, enumeration up to symmetry and its completeness;
* :mod:`polytopes.classify`, :mod:`polytopes.ldp_parametric`: Holohan et al.'s classification of
  points of D, and its vertices for every e^ε at once;
* :mod:`polytopes.scales`, :mod:`polytopes.representation`, :mod:`polytopes.fixed_point`,
  :mod:`polytopes.two_stage`: Kohli and Laskowski's ε-scales, representation matrices,
  Algorithms 1 and 2, and the two-stage count framework;
* :mod:`polytopes.lp`, :mod:`polytopes.constrained`: LPs over these polytopes through
  :mod:`qifkit.lp`, and Cormode et al.'s constrained design LP.
"""
