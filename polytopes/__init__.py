"""polytopes: sets of DP mechanisms as exact polytopes (vertices, classification, design).

This layer builds on :mod:`qifkit` and is filled by later work (ε-scales, the spaces U, F, R_U,
R_F and the local-DP polytope D, exact vertex enumeration, constructors).
"""
