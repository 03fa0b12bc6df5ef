"""The one home of the size and privacy-parameter checks that every layer's entry points share.

Each returns the checked value (an ``int``, or e^ε and α as exact ``Fraction``) or raises from the
toolkit's exception tree with the value and why: a size that is not a whole number at least its
minimum (:class:`~qifkit.errors.ShapeError`, also a ``ValueError``), and an e^ε not above 1 or an
α outside (0, 1) (:class:`~qifkit.errors.PrivacyParameterError`): ε must be > 0.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from qifkit.errors import PrivacyParameterError, QifError, ShapeError
from qifkit.numbers import exact, exact_eps_exp, parse_number, quoted

__all__ = ["whole_number", "eps_exp_above_one", "bounded_eps_exp", "alpha_in_unit_interval", "MAX_SWEEP_EPS_EXP",
           "MAX_EPS_EXP_TEXT", "MAX_EPS_EXP_DIGITS"]

#: The largest e^ε a stability sweep takes: ε ≤ ln(10^9) ≈ 20.7, far past any deployed ε. Exact
#: pipelines carry the digits of e^ε in every entry (raised to the respondents' number), so a grid
#: value of 1e300 would run for minutes on a 30-respondent survey; it is refused instead.
MAX_SWEEP_EPS_EXP = 10**9
#: The longest text of an e^ε in a spec (characters), checked before the text is read as a number.
MAX_EPS_EXP_TEXT = 100
#: The most decimal digits of an e^ε's numerator or denominator in a spec.
MAX_EPS_EXP_DIGITS = 40


def whole_number(value: Any, minimum: int, what: str, *, maximum: int | None = None,
                 error: type[QifError] = ShapeError) -> int:
    """`value` as a whole number ≥ `minimum` and, when given, ≤ `maximum` (``bool`` refused: True
    is not a size); else `error`, the caller's class (:class:`ShapeError` for sizes, a spec's
    ``SpecError``, :class:`ParameterError` for a call's options), naming `what` and the value.

    Examples
    --------
    >>> whole_number(3, 2, "n")
    3
    >>> whole_number(1, 2, "n")
    Traceback (most recent call last):
    ...
    qifkit.errors.ShapeError: n must be a whole number >= 2, got 1
    >>> whole_number(7, 0, "known value", maximum=3)
    Traceback (most recent call last):
    ...
    qifkit.errors.ShapeError: known value must be a whole number in 0..3, got 7
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or \
            (maximum is not None and value > maximum):
        bounds = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise error(f"{what} must be a whole number {bounds}, got {quoted(value)}")
    return int(value)


def eps_exp_above_one(value: Any, *, allow_one: bool = False) -> Fraction:
    """e^ε, exact, from a number string, ``"ln(x)"`` or an exact number, refused unless > 1 (ε > 0;
    ``allow_one`` admits e^ε = 1, the non-private limit some polytopes are defined at).

    Examples
    --------
    >>> eps_exp_above_one("ln(2)")
    Fraction(2, 1)
    """
    number = exact_eps_exp(value)
    if number < 1 or (number == 1 and not allow_one):
        raise PrivacyParameterError(f"e^ε = {number} must be {'≥' if allow_one else '>'} 1 (ε = ln({number}) "
                                    f"is not {'≥' if allow_one else '>'} 0)")
    return number


def bounded_eps_exp(value: Any) -> Fraction:
    """e^ε > 1 as :func:`eps_exp_above_one` reads it, within the bounds of a sweep: a text of at
    most :data:`MAX_EPS_EXP_TEXT` characters (checked before any arithmetic), a numerator and a
    denominator of at most :data:`MAX_EPS_EXP_DIGITS` digits, and e^ε ≤ :data:`MAX_SWEEP_EPS_EXP`.

    Examples
    --------
    >>> bounded_eps_exp("7/2")
    Fraction(7, 2)
    >>> bounded_eps_exp("1e300")
    Traceback (most recent call last):
    ...
    qifkit.errors.PrivacyParameterError: e^ε = 1e300 is above 10^9 (ε > 20.7): beyond any deployed privacy level
    """
    if isinstance(value, str) and len(value) > MAX_EPS_EXP_TEXT:
        raise PrivacyParameterError(f"e^ε given as {len(value):,} characters; at most {MAX_EPS_EXP_TEXT} are read")
    number = eps_exp_above_one(value)
    if number > MAX_SWEEP_EPS_EXP:
        raise PrivacyParameterError(f"e^ε = {value} is above 10^9 (ε > 20.7): beyond any deployed privacy level")
    if max(len(str(number.numerator)), len(str(number.denominator))) > MAX_EPS_EXP_DIGITS:
        raise PrivacyParameterError(f"e^ε = {value} has more than {MAX_EPS_EXP_DIGITS} digits in its numerator or "
                                    "denominator: round it")
    return number


def alpha_in_unit_interval(value: Any) -> Fraction:
    """α = e^−ε, exact (a number string or an exact number), refused unless 0 < α < 1."""
    number = parse_number(value) if isinstance(value, str) else exact(value)
    if not 0 < number < 1:
        raise PrivacyParameterError(f"alpha = e^-ε = {number} is not in (0, 1), so ε is not > 0")
    return number
