"""The leakage measures QIF users expect beside g-leakage (Alvim, Chatzikokolakis, McIver, Morgan,
Palamidessi and Smith, *The Science of Quantitative Information Flow*, 2020; libqif's ``measure``):
min-entropy leakage and the multiplicative Bayes capacity, Shannon entropy, leakage and capacity,
and guessing entropy.

Exact where the measure is rational: the Bayes capacity Σ_y max_x C[x, y] and guessing entropies
are exact for exact inputs. A measure in bits is a logarithm, irrational in general: it is a
:class:`Bits`, a float with a rigorous bound on its error, computed in ball arithmetic
(python-flint's ``arb``) from the exact inputs (or from the floats as given).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from qifkit.channel import Channel
from qifkit.errors import DistributionError, UndecidableError
from qifkit.matrices import NumberKind, same_kind
from qifkit.measures import Prior, as_prior, multiplicative_leakage
from qifkit.numbers import to_fmpq
from qifkit.validation import whole_number

__all__ = [
    "Bits",
    "bayes_capacity",
    "min_entropy_leakage",
    "min_entropy_capacity",
    "shannon_entropy",
    "conditional_entropy",
    "shannon_leakage",
    "shannon_capacity",
    "guessing_entropy",
    "posterior_guessing_entropy",
]

#: Working precision of the ball arithmetic (bits): the enclosures are far tighter than a double.
_PRECISION = 128


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Bits:
    """A measure in bits: the true value lies within `error` of `value` (a rigorous bound).

    It behaves as the float `value` where a number is expected: ``float(b)``, ``f"{b:.3f}"``, and
    comparisons with other measures and with numbers (``b < 2``, ``sorted(measures)``, ``max``) all use
    `value`. Two measures closer than their errors may be ordered either way in truth; compare
    ``a.value + a.error < b.value - b.error`` for an order that is certain.

    Attributes
    ----------
    value : float
        The measure in bits (float64).
    error : float
        A rigorous bound on abs(value − the true measure).

    Examples
    --------
    >>> a, b = shannon_entropy(["1/2", "1/2"]), shannon_entropy(["1/2", "1/4", "1/4"])
    >>> f"{a:.3f} < {b:.3f}: {a < b}", max(a, b) is b, a == 1.0
    ('1.000 < 1.500: True', True, True)
    """

    value: float
    error: float

    def __float__(self) -> float:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __eq__(self, other: object) -> bool:
        other_value = _compared_value(other)
        return NotImplemented if other_value is None else self.value == other_value

    def __lt__(self, other: object) -> bool:
        other_value = _compared_value(other)
        return NotImplemented if other_value is None else self.value < other_value

    def __hash__(self) -> int:
        return hash(self.value)


def _compared_value(other: object) -> float | None:
    """What a :class:`Bits` compares with: another measure's value, or a real number (not a bool)."""
    if isinstance(other, Bits):
        return other.value
    if isinstance(other, int | float | Fraction) and not isinstance(other, bool):
        return float(other)
    return None


def _ball(value: Any) -> Any:
    """An exact number or a float as an arb ball (exact: a point)."""
    return flint.arb(value) if isinstance(value, float) else flint.arb(to_fmpq(value))


def _bits(ball: Any) -> Bits:
    """A ball as a float and an error bound (its radius, plus the float's own rounding)."""
    value = float(ball.mid())
    return Bits(value, float(ball.rad()) + abs(float(ball.mid() - value)) + math.ulp(value))


def _log2(ball: Any) -> Any:
    return ball.log() / flint.arb(2).log()


def _numeric(channel: Channel) -> list[list[Any]]:
    if channel.kind is NumberKind.SYMBOLIC:
        raise UndecidableError("a leakage measure of a symbolic channel: substitute() values first")
    return channel.rows()


def _probabilities(prior: Prior | Sequence[Any], channel: Channel | None = None) -> list[Any]:
    given = as_prior(prior)
    if channel is not None:
        same_kind(given._aligned(channel.secrets).matrix, channel.matrix, "a leakage measure")
    return list(given.probabilities())


def _joint(prior: Prior | Sequence[Any], channel: Channel) -> list[list[Any]]:
    """J[x][y] = π_x·C[x, y]."""
    weights = _probabilities(prior, channel)
    return [[w * c for c in row] for w, row in zip(weights, _numeric(channel), strict=True)]


def bayes_capacity(channel: Channel) -> Any:
    """The multiplicative Bayes capacity ML×(D, C) = Σ_y max_x C[x, y]: the most that any prior's
    Bayes vulnerability is multiplied by (reached by the uniform prior; Alvim et al. 2020, Thm. 7.2).
    Exact for an exact channel.

    Parameters
    ----------
    channel : Channel
        C, rows are secrets (exact, or float64).

    Returns
    -------
    Fraction or float
        Σ_y max_x C[x, y], exact for an exact channel.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> bayes_capacity(randomized_response(3, eps_exp="2"))  # 3 · 1/2
    Fraction(3, 2)
    """
    return sum((max(column) for column in zip(*_numeric(channel), strict=True)), Fraction(0)
               if channel.kind is NumberKind.EXACT else 0.0)


def min_entropy_leakage(prior: Prior | Sequence[Any], channel: Channel) -> Bits:
    """log2 V(π, C)/V(π): Smith's min-entropy leakage, the logarithm of the multiplicative Bayes
    leakage (:func:`qifkit.measures.multiplicative_leakage` with the identity gain, exact).

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets (exact, or float64).

    Returns
    -------
    Bits
        The value in bits and a rigorous bound on its error.

    Examples
    --------
    A binary symmetric channel that flips with probability 1/4, under a uniform prior: the analyst's
    chance of guessing rises from 1/2 to 3/4, a leakage of log2(3/2) bits.

    >>> from qifkit import randomized_response, uniform_prior
    >>> f"{min_entropy_leakage(uniform_prior(2), randomized_response(2, eps_exp=3)):.4f}"
    '0.5850'
    """
    ratio = multiplicative_leakage(prior, channel)
    with flint.ctx.workprec(_PRECISION):
        return _bits(_log2(_ball(ratio)))


def min_entropy_capacity(channel: Channel) -> Bits:
    """log2 of :func:`bayes_capacity`: the largest min-entropy leakage over all priors (attained at
    the uniform prior).

    Parameters
    ----------
    channel : Channel
        C, rows are secrets (exact, or float64).

    Returns
    -------
    Bits
        The value in bits and a rigorous bound on its error.

    >>> from qifkit import randomized_response
    >>> f"{min_entropy_capacity(randomized_response(2, eps_exp=3)):.4f}"  # log2(3/4 + 3/4)
    '0.5850'
    """
    with flint.ctx.workprec(_PRECISION):
        return _bits(_log2(_ball(bayes_capacity(channel))))


def _entropy_ball(weights: Sequence[Any]) -> Any:
    """−Σ p log2 p over the positive p, as a ball."""
    total = flint.arb(0)
    for p in weights:
        if p > 0:
            ball = _ball(p)
            total -= ball * _log2(ball)
    return total


def shannon_entropy(prior: Prior | Sequence[Any]) -> Bits:
    """H(π) = −Σ_x π_x log2 π_x.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π.

    Returns
    -------
    Bits
        The value in bits and a rigorous bound on its error.

    Examples
    --------
    >>> shannon_entropy(["1/2", "1/4", "1/4"])
    Bits(value=1.5, error=...)
    """
    with flint.ctx.workprec(_PRECISION):
        return _bits(_entropy_ball(_probabilities(prior)))


def _conditional_ball(joint: list[list[Any]]) -> Any:
    """H(X | Y) = H(X, Y) − H(Y) as a ball."""
    outputs = [sum(column) for column in zip(*joint, strict=True)]
    return _entropy_ball([j for row in joint for j in row]) - _entropy_ball(outputs)


def conditional_entropy(prior: Prior | Sequence[Any], channel: Channel) -> Bits:
    """H(π, C) = H(X | Y): the Shannon entropy of the secret after seeing the output, on average.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets (exact, or float64).

    Returns
    -------
    Bits
        The value in bits and a rigorous bound on its error.

    >>> from qifkit import randomized_response, uniform_prior
    >>> f"{conditional_entropy(uniform_prior(2), randomized_response(2, eps_exp=3)):.4f}"  # H(1/4)
    '0.8113'
    """
    with flint.ctx.workprec(_PRECISION):
        return _bits(_conditional_ball(_joint(prior, channel)))


def shannon_leakage(prior: Prior | Sequence[Any], channel: Channel) -> Bits:
    """I(X; Y) = H(π) − H(π, C): the mutual information of secret and output (additive Shannon
    leakage).

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets (exact, or float64).

    Returns
    -------
    Bits
        The value in bits and a rigorous bound on its error.

    >>> from qifkit import randomized_response, uniform_prior
    >>> f"{shannon_leakage(uniform_prior(2), randomized_response(2, eps_exp=3)):.4f}"  # 1 − H(1/4)
    '0.1887'
    """
    joint = _joint(prior, channel)
    with flint.ctx.workprec(_PRECISION):
        return _bits(_entropy_ball([sum(row) for row in joint]) - _conditional_ball(joint))


def shannon_capacity(channel: Channel, tolerance: float = 1e-9, iterations: int = 100_000) -> Bits:
    """The Shannon capacity max_π I(X; Y).

    Blahut and Arimoto's iteration (float64) finds an input distribution p; the capacity is then
    enclosed between I(p; C) and max_x D(C_x ‖ p·C) (Arimoto's bound), both in ball arithmetic
    on p made an exact distribution. The iteration stops when the floats' enclosure is narrower
    than `tolerance` or after `iterations` steps (a bound by work); the rigorous width reached is
    the error.

    Parameters
    ----------
    channel : Channel
        C, rows are secrets (exact, or float64).
    tolerance : float
        Stop iterating once the enclosure is narrower.
    iterations : int
        At most this many Blahut-Arimoto steps.

    Returns
    -------
    Bits
        The value in bits and a rigorous bound on its error.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> capacity = shannon_capacity(randomized_response(2, eps_exp="3"))  # a binary symmetric channel, p = 1/4
    >>> abs(capacity.value - 0.18872187554086717) <= capacity.error + 1e-15, capacity.error < 1e-9
    (True, True)
    """
    iterations = whole_number(iterations, 1, "iterations")
    rows = [[v if isinstance(v, Fraction) else Fraction(float(v)) for v in row] for row in _numeric(channel)]
    matrix = np.array([[float(v) for v in row] for row in rows])
    p = np.full(matrix.shape[0], 1 / matrix.shape[0])
    for _ in range(iterations):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(matrix > 0, matrix / (p @ matrix), 1.0)
        divergence = (matrix * np.log2(ratios)).sum(axis=1)
        if float(divergence.max()) - float(p @ divergence) < tolerance / 4:
            break
        p = p * np.exp2(divergence)
        p /= p.sum()
    weights = [Fraction(float(v)) for v in p]
    weights = [w / sum(weights) for w in weights]
    joint = [[w * c for c in row] for w, row in zip(weights, rows, strict=True)]
    outputs = [sum(column) for column in zip(*joint, strict=True)]
    with flint.ctx.workprec(_PRECISION):
        below = _entropy_ball([sum(row) for row in joint]) - _conditional_ball(joint)
        above = [sum((_ball(c) * _log2(_ball(c) / _ball(q)) for c, q in zip(row, outputs, strict=True) if c > 0),
                     flint.arb(0)) for row in rows]
        top = max(above, key=lambda ball: ball.upper())
        return _bits(below.lower().union(top.upper()))


def guessing_entropy(prior: Prior | Sequence[Any]) -> Any:
    """G(π) = Σ_i i·π_(i), the π_(i) in decreasing order: the expected number of guesses of the
    best guessing order (Massey). Exact for an exact prior.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π.

    Returns
    -------
    Fraction or float
        Exact for an exact prior.

    Examples
    --------
    >>> guessing_entropy(["1/2", "3/10", "1/5"])  # 1·1/2 + 2·3/10 + 3·1/5
    Fraction(17, 10)
    """
    return _guesses(_probabilities(prior))


def _guesses(weights: Sequence[Any]) -> Any:
    ordered = sorted(weights, reverse=True)
    return sum((i * w for i, w in enumerate(ordered, start=1)), type(ordered[0])(0) if ordered else 0)


def posterior_guessing_entropy(prior: Prior | Sequence[Any], channel: Channel) -> Any:
    """G(π, C) = Σ_y Σ_i i·J_(i)(y): the expected number of guesses after seeing the output, the
    joint column J(·, y) guessed in decreasing order. Exact for exact inputs.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets (exact, or float64).

    Returns
    -------
    Fraction or float
        Exact for exact inputs; G(π, C) ≤ G(π), with equality for a channel that reveals nothing.

    Raises
    ------
    DistributionError
        For a prior of another length than the channel's secrets.

    Examples
    --------
    Seeing the secret itself, the first guess is always right; seeing nothing, a uniform secret
    of two values takes 3/2 guesses on average:

    >>> from qifkit import Channel, uniform_prior
    >>> identity = Channel.from_rows([[1, 0], [0, 1]])
    >>> nothing = Channel.from_rows([[1], [1]])
    >>> posterior_guessing_entropy(uniform_prior(2), identity), posterior_guessing_entropy(uniform_prior(2), nothing)
    (Fraction(1, 1), Fraction(3, 2))
    """
    joint = _joint(prior, channel)
    if not joint:
        raise DistributionError("a channel without secrets has no guessing entropy")
    return sum((_guesses(column) for column in zip(*joint, strict=True)), type(joint[0][0])(0))
