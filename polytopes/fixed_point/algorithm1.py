"""Algorithm 1 of Kohli and Laskowski (§5): a vertex of F_ε[z] in O(n²) steps, in exact
rationals (:mod:`polytopes.fixed_point.algorithm1_exact`) or floating point
(:mod:`polytopes.fixed_point.algorithm1_float`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.fixed_point.algorithm1_exact import heuristic_exact
from polytopes.fixed_point.algorithm1_float import (
    heuristic_log,
    heuristic_precise,
    heuristic_values,
    last_mass_below_rounding,
    values_fit,
)
from polytopes.fixed_point.arithmetic import epsilon, log_distribution, positive_distribution
from polytopes.fixed_point.construction import Construction
from polytopes.fixed_point.runs import Selector, column_chooser
from qifkit.errors import CertificateError
from qifkit.numbers import exact as exact_number
from qifkit.validation import eps_exp_above_one

__all__ = ["heuristic_constructor"]


def heuristic_constructor(
    z: Sequence[Any], *, eps_exp: Any, selector: Selector = "sandwich", exact: bool = True
) -> Construction:
    """Algorithm 1 of Kohli and Laskowski: a vertex of F_ε[z] in O(n²) steps (Thms. 5, 6).

    Parameters
    ----------
    z : sequence
        The fixed point: n ≥ 2 positive numbers summing to 1 (exact numbers or strings; in float mode
        also positive floats summing to 1 within 1e-9).
    eps_exp : exact number or string
        e^ε > 1 (``"2"``, ``"ln(2)"``); a float > 1 is accepted in float mode.
    selector : {"max", "min", "sandwich"} or callable
        The column selector κ (§6: the unfilled column of largest z_j, of smallest z_j, or the order
        0, n−1, 1, n−2, ...). A callable receives (z, r, c, A) (in float mode their natural logs,
        A as columns) and must return an unfilled column.
    exact : bool
        Exact rationals (default) or the float mode: long double (values, or logarithms where
        the scales leave its range), a step costing O(runs of tight bounds). Where its rounding
        breaks the run (the remainder, 1 minus what the filled columns took, falls below the
        rounding of those amounts: geometric(0.9) z at n = 2000, narrow bumps, entries of 1e-300
        beside 0.1), the run is redone with the remainder, the columns' budgets and the deciding
        bounds in 128 + n/12 bits, then 4 and 16 times that (on the floats' exact values, z
        renormalised exactly), about four times as slow, and verified again.

    Returns
    -------
    Construction
        The verified mechanism; ``steps`` counts scale additions (at most 2n − 1; the float mode
        counts the last column as one).

    Raises
    ------
    DistributionError, PrivacyParameterError, LabelError
        For z with a zero, negative or non-summing entry, e^ε ≤ 1, an unknown selector.
    CertificateError
        In float mode, if no precision tried gave a mechanism that passes the check.

    Examples
    --------
    >>> t = heuristic_constructor(["1/4", "1/2", "1/4"], eps_exp="2")
    >>> [[str(v) for v in row] for row in t.matrix]
    [['4/9', '4/9', '1/9'], ['2/9', '5/9', '2/9'], ['1/9', '4/9', '4/9']]
    """
    choose = column_chooser(selector)
    if exact:
        return heuristic_exact(positive_distribution(z), eps_exp_above_one(eps_exp), choose)
    log_z, eps = log_distribution(z), epsilon(eps_exp)
    if not last_mass_below_rounding(log_z, selector):
        try:
            return (heuristic_values if values_fit(log_z, eps) else heuristic_log)(log_z, eps, choose)
        except CertificateError:
            pass  # the rounding broke the run: redo it with the remainder in high precision
    exact_z = [Fraction(float(v)) if isinstance(v, (float, np.floating)) else exact_number(v) for v in z]
    total = sum(exact_z)
    e = Fraction(float(eps_exp)) if isinstance(eps_exp, (float, np.floating)) else eps_exp
    return heuristic_precise(log_z, eps, [v / total for v in exact_z], eps_exp_above_one(e), choose)
