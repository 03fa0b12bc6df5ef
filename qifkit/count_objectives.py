"""Objective values of count mechanisms (Cormode et al. 2018, Def. 3 and eq. (1)).

A count mechanism here is a :class:`~qifkit.Channel` on counts 0..n with rows as inputs j and
columns as outputs i, so ``Pr[i | j]`` is ``channel.rows()[j][i]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy

from qifkit.channel import Channel
from qifkit.errors import DistributionError, ShapeError
from qifkit.matrices import NumberKind
from qifkit.numbers import exact

__all__ = ["objective_coefficients", "objective_value", "l0_score"]


def _square_size(mechanism: Channel) -> int:
    rows, columns = mechanism.shape
    if rows != columns or rows < 2:
        raise ShapeError(f"a count mechanism on 0..n is square with n >= 1, got shape {mechanism.shape}")
    return rows - 1


def objective_coefficients(n: int, p: int = 0, weights: Sequence[Any] | None = None,
                           min_distance: int = 0) -> list[list[Fraction]]:
    """The coefficient of Pr[i | j] in O_{p,⊕} (Cormode et al., Def. 3), input j by output i:
    w_j·abs(i − j)^p where abs(i − j) ≥ max(min_distance, 1), else 0. For p = 0 the term counts a wrong
    answer (1 when i ≠ j), as in the paper's reading of L0. The one home of the objective: the
    design LP's cost (:func:`polytopes.constrained.optimal_mechanism`) and :func:`objective_value`.

    Raises
    ------
    DistributionError
        Weights that are not n + 1 non-negative numbers summing to 1 (default uniform 1/(n+1)).
    """
    w = [Fraction(1, n + 1)] * (n + 1) if weights is None else [exact(v) for v in weights]
    if len(w) != n + 1 or sum(w) != 1 or min(w) < 0:
        raise DistributionError(f"weights must be n+1 = {n + 1} non-negative numbers summing to 1")
    return [[w[j] * abs(i - j) ** p if abs(i - j) >= max(min_distance, 1) else Fraction(0) for i in range(n + 1)]
            for j in range(n + 1)]


def objective_value(
    mechanism: Channel,
    p: int = 0,
    weights: Sequence[Any] | None = None,
    aggregate: str = "sum",
    min_distance: int = 0,
) -> Any:
    """O_{p,⊕}(P) = ⊕_j Σ_i w_j Pr[i | j] abs(i − j)^p over pairs with abs(i − j) ≥ min_distance
    (Cormode et al. Def. 3; coefficients from :func:`objective_coefficients`).

    Parameters
    ----------
    mechanism : Channel
        A square count mechanism, rows are true counts j.
    p : int
        0 (L0: how often the output is wrong), 1 (L1) or 2 (L2).
    weights : sequence of exact numbers, optional
        w_j per input, a distribution on the inputs; uniform 1/(n+1) by default.
    aggregate : {"sum", "max"}
        ⊕ over the inputs.
    min_distance : int
        Only errors of at least this size count (L0,d).

    Returns
    -------
    Fraction or sympy expression

    Examples
    --------
    >>> from qifkit import uniform_mechanism
    >>> objective_value(uniform_mechanism(2), p=0)  # wrong 2/3 of the time, whatever the input
    Fraction(2, 3)
    """
    n = _square_size(mechanism)
    if aggregate not in ("sum", "max"):
        raise ShapeError(f"aggregate must be 'sum' or 'max', got {aggregate!r}")
    coefficients = objective_coefficients(n, p, weights, min_distance)
    per_input = [sum((c * probability for c, probability in zip(costs, row, strict=True) if c), start=0)
                 for costs, row in zip(coefficients, mechanism.rows(), strict=True)]
    value = sum(per_input) if aggregate == "sum" else max(per_input)
    return sympy.cancel(value) if mechanism.kind is NumberKind.SYMBOLIC else value


def l0_score(mechanism: Channel) -> Any:
    """The rescaled L0 = (n+1)/n − trace(P)/n (Cormode et al. eq. (1)); UM scores 1.

    Parameters
    ----------
    mechanism : Channel
        A square count mechanism on 0..n, rows are true counts.

    Returns
    -------
    Fraction or sympy expression

    Examples
    --------
    >>> from qifkit.mechanisms import uniform_mechanism
    >>> l0_score(uniform_mechanism(4))
    Fraction(1, 1)
    """
    n = _square_size(mechanism)
    rows = mechanism.rows()
    trace = sum(rows[j][j] for j in range(n + 1))
    value = Fraction(n + 1, n) - trace / n
    return sympy.cancel(value) if mechanism.kind is NumberKind.SYMBOLIC else value
