"""Exact numbers from user input: the one place where text becomes a value.

The grammar is our own and small; nothing here calls ``eval`` or ``sympify`` on user text.

A *number string* is, ignoring surrounding white space::

    number   := decimal [ "/" decimal ]
    decimal  := [sign] ( digits ["." [digits]] | "." digits ) [ ("e"|"E") [sign] digits ]

so ``"3"``, ``"-3/7"``, ``"0.25"`` (read exactly as 1/4), ``"1e-3"`` and ``"2.5/10"`` are numbers,
while ``"1/0"``, ``"1/2/3"``, ``"abc"`` and ``"nan"`` are not. Digits are the ASCII 0–9 only:
Arabic-Indic or full-width digits are refused, not read as numbers. A privacy parameter e^ε is given
either as a number string (the value of e^ε itself) or as ``"ln(number)"`` (the value of ε, so
``"ln(2)"`` means e^ε = 2).

**The scalar rule.** Two exact rational types meet in the toolkit, and ``Fraction(1, 3) ==
flint.fmpq(1, 3)`` is False, so they are kept apart by one rule:

* *Fractions at public borders*: what a user reads (channel entries, priors, verdicts and their
  certificates, mechanisms, LP optima from :mod:`polytopes.lp`, vertices) is in Fractions;
* *flint rationals inside*: exact matrices (:mod:`qifkit.matrices`), sparse exact solves
  (:mod:`qifkit.sparse_exact`) and the LP engine (:mod:`qifkit.lp`: its programs and answers) work
  in ``flint.fmpq``, for speed;
* *one type per object*: an answer is converted whole where it crosses the border
  (:func:`reduced_fractions` out, :func:`to_fmpq` in; :meth:`qifkit.lp.LPSolution.as_fractions`
  for an LP answer), never left with a mix.

Examples
--------
>>> parse_number("0.25")
Fraction(1, 4)
>>> parse_number(" -3/7 ")
Fraction(-3, 7)
>>> parse_eps_exp("ln(7/2)")
Fraction(7, 2)
"""

from __future__ import annotations

import decimal
import math
import numbers as _abc_numbers
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Union

import flint

from qifkit.errors import NotANumberError, NotExactError, NumberSyntaxError, PrivacyParameterError

__all__ = [
    "ExactInput",
    "parse_number",
    "parse_eps_exp",
    "eps_exp_of_epsilon",
    "exact",
    "exact_eps_exp",
    "exact_str",
    "shown_number",
    "readable_message",
    "float_fraction",
    "reduced_fraction",
    "binary_log",
    "reduced_fractions",
    "to_fmpq",
    "exact_dot",
    "over_common_denominator",
    "primitive_integers",
]

#: What an exact entry may be given as: an int, a Fraction, a Decimal, a number string, or an
#: exact rational of sympy or python-flint.
ExactInput = Union[int, Fraction, decimal.Decimal, str, Any]

#: Longest number string read (characters). Exact certificates of large pipelines carry rationals of
#: tens of thousands of digits, which must read back; long digit runs are parsed by FLINT in
#: quasi-linear time (Python's int() is quadratic and refuses more than 4300 digits).
MAX_NUMBER_TEXT = 200_000
_MAX_EXPONENT = 1000
_DECIMAL = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"\s*(?P<num>{_DECIMAL})\s*(?:/\s*(?P<den>{_DECIMAL})\s*)?", re.ASCII)  # ASCII digits only
#: The common case of the grammar, an integer or p/q of plain digits, read without the decimal machinery.
_PLAIN = re.compile(r"(?P<num>[+-]?\d{1,3999})(?:/(?P<den>\d{1,3999}))?", re.ASCII)
_DECIMAL_PARTS = re.compile(
    r"(?P<sign>[+-]?)(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?", re.ASCII
)
_LN = re.compile(r"\s*ln\s*\(\s*(?P<arg>[^()]*)\)\s*")


def quoted(text: Any, limit: int = 60) -> str:
    """`text` as it appears in an error message: its repr, shortened in the middle beyond `limit`
    characters, with its length, so that a refused 100,000-character cell gives a readable line."""
    shown = repr(text)
    if len(shown) <= limit:
        return shown
    half = limit // 2 - 2
    return (
        f"{shown[:half]}…{shown[-half:]} ({len(text):,} characters)" if isinstance(text, str) else shown[:limit] + "…"
    )


def _integer(digits: str) -> int:
    """The value of a run of decimal digits, of any length up to the text limit."""
    return int(digits) if len(digits) < 4000 else int(flint.fmpz(digits))


def _decimal_digits(integer: int) -> str:
    """Base-10 digits of any size: Python's ``str`` refuses ints of more than 4300 digits (a guard
    for parsing), so large ones are written by FLINT."""
    return str(integer) if integer.bit_length() < 12_000 else str(flint.fmpz(integer))


def _decimal_value(text: str, whole: str) -> Fraction:
    """Read one ``decimal`` of the grammar exactly."""
    parts = _DECIMAL_PARTS.fullmatch(text)
    if parts is None:  # pragma: no cover - the outer regex already matched
        raise NumberSyntaxError(f"{quoted(whole)} is not a number")
    digits = (parts["int"] or "") + (parts["frac"] or "")
    if len(parts["exp"] or "") > 8:  # read no exponent of thousands of digits to refuse it
        raise NumberSyntaxError(f"{quoted(whole)}: exponent of {len(parts['exp'])} characters is out of the "
                                f"accepted range ±{_MAX_EXPONENT}")
    exponent = int(parts["exp"] or 0) - len(parts["frac"] or "")
    if abs(exponent) > _MAX_EXPONENT:
        raise NumberSyntaxError(
            f"{quoted(whole)}: exponent {parts['exp']} is out of the accepted range ±{_MAX_EXPONENT}"
        )
    value = Fraction(_integer(digits)) * Fraction(10) ** exponent
    return -value if parts["sign"] == "-" else value


def parse_number(text: str) -> Fraction:
    """Read a number string exactly.

    Parameters
    ----------
    text : str
        An integer (``"3"``), a fraction (``"3/7"``), a decimal read exactly (``"0.25"``), a decimal
        with an exponent (``"1e-3"``), or a quotient of two decimals (``"2.5/10"``).

    Returns
    -------
    fractions.Fraction
        The exact value.

    Raises
    ------
    NumberSyntaxError
        If `text` is not a string of the grammar (see the module docstring), is longer than
        200,000 characters, has an exponent beyond ±1000, or divides by zero.

    Examples
    --------
    >>> parse_number("2.5/10")
    Fraction(1, 4)
    >>> parse_number("1/2/3")
    Traceback (most recent call last):
    ...
    qifkit.errors.NumberSyntaxError: '1/2/3' is not a number: expected an integer, 'p/q' or a decimal
    """
    if not isinstance(text, str):
        raise NumberSyntaxError(f"{quoted(text)} is a {type(text).__name__}, not a number string")
    if len(text) > MAX_NUMBER_TEXT:
        raise NumberSyntaxError(f"number string of {len(text)} characters is longer than {MAX_NUMBER_TEXT}")
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        denominator = int(plain["den"] or 1)
        if denominator == 0:
            raise NumberSyntaxError(f"{quoted(text)} divides by zero")
        return Fraction(int(plain["num"]), denominator)
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise NumberSyntaxError(f"{quoted(text)} is not a number: expected an integer, 'p/q' or a decimal")
    value = _decimal_value(match["num"], text)
    if match["den"] is not None:
        divisor = _decimal_value(match["den"], text)
        if divisor == 0:
            raise NumberSyntaxError(f"{quoted(text)} divides by zero")
        value /= divisor
    return value


def parse_eps_exp(text: str) -> Fraction:
    """Read a privacy parameter e^ε exactly.

    Parameters
    ----------
    text : str
        Either the value of e^ε as a number string (``"2"``, ``"7/2"``, ``"3.51"``) or the value of
        ε as ``"ln(x)"`` with a number string x, which means e^ε = x.

    Returns
    -------
    fractions.Fraction
        The exact value of e^ε, at least 1.

    Raises
    ------
    NumberSyntaxError
        If the text is not of that form.
    PrivacyParameterError
        If e^ε < 1, i.e. ε < 0.

    Examples
    --------
    >>> parse_eps_exp("ln(2)")
    Fraction(2, 1)
    >>> parse_eps_exp("3.51")
    Fraction(351, 100)
    """
    if not isinstance(text, str):
        raise NumberSyntaxError(f"{quoted(text)} is a {type(text).__name__}, not a string for e^ε")
    match = _LN.fullmatch(text)
    value = parse_number(match["arg"]) if match else parse_number(text)
    if value < 1:
        raise PrivacyParameterError(f"e^ε = {exact_str(value)} from {quoted(text)} is below 1, so ε < 0")
    return value


def exact(value: ExactInput) -> Fraction:
    """Convert an exact input to a :class:`fractions.Fraction`, refusing anything inexact.

    Parameters
    ----------
    value : int, Fraction, Decimal, str, sympy Rational or flint fmpq
        Strings are read with :func:`parse_number`; a finite Decimal is read exactly.

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    NotExactError
        For floats (Python or numpy), booleans and other types without an exact reading.
    NotANumberError
        For a NaN or infinite Decimal.
    NumberSyntaxError
        For a malformed number string.

    Examples
    --------
    >>> exact("1/3") + exact(2)
    Fraction(7, 3)
    >>> exact(0.1)
    Traceback (most recent call last):
    ...
    qifkit.errors.NotExactError: float 0.1 is not exact; give it as a string such as '0.1' or a fraction
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool):
        raise NotExactError(f"boolean {value!r} is not a number")
    if isinstance(value, str):
        return parse_number(value)
    if isinstance(value, float) or type(value).__name__ in {"float16", "float32", "float64"}:
        shown = repr(float(value))  # 1.0, not np.float64(1.0)
        raise NotExactError(
            f"float {shown} is not exact; give it as a string such as '{shown}' or a fraction"
            if value == value and abs(value) != float("inf")
            else f"float {shown} is not a number"
        )
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise NotANumberError(f"Decimal {value} is not a finite number")
        return Fraction(value)
    if isinstance(value, _abc_numbers.Integral):
        return Fraction(int(value))
    numerator = getattr(value, "p", None)
    denominator = getattr(value, "q", None)
    if numerator is not None and denominator is not None and getattr(value, "is_Rational", True):
        return Fraction(int(numerator), int(denominator))
    raise NotExactError(f"{value!r} of type {type(value).__name__} is not an exact rational number")


def float_fraction(value: float, max_denominator: int | None = None) -> Fraction:
    """A float as the exact rational it is (its binary value), or the nearest fraction whose
    denominator is at most `max_denominator`: the one explicit way from floats to exact values.

    Examples
    --------
    >>> float_fraction(0.1)
    Fraction(3602879701896397, 36028797018963968)
    >>> float_fraction(0.1, 100)
    Fraction(1, 10)
    """
    fraction = Fraction(float(value))
    return fraction if max_denominator is None else fraction.limit_denominator(max_denominator)


def eps_exp_of_epsilon(epsilon: Any) -> Fraction:
    """e^ε exactly, from ε itself: ``"ln(x)"`` (e^ε = x) or a sympy expression whose exponential is
    rational (``sympy.log(2)``). Any other ε has an irrational e^ε and is refused.

    Raises
    ------
    NotExactError
        If e^ε is irrational (``"1/2"``, ``1``, a float).
    NumberSyntaxError, PrivacyParameterError
        As :func:`parse_eps_exp`, for a malformed ``"ln(x)"`` or x < 1.

    Examples
    --------
    >>> import sympy
    >>> eps_exp_of_epsilon("ln(7/2)"), eps_exp_of_epsilon(sympy.log(3))
    (Fraction(7, 2), Fraction(3, 1))
    """
    if isinstance(epsilon, str) and _LN.fullmatch(epsilon):
        return parse_eps_exp(epsilon)
    import sympy  # here, not at import: the command line's --help loads no symbolic layer

    if isinstance(epsilon, sympy.Basic) and not isinstance(epsilon, sympy.Symbol):
        power = sympy.exp(epsilon)
        if power.is_Rational:
            value = Fraction(int(power.p), int(power.q))
            if value < 1:
                raise PrivacyParameterError(f"ε = {epsilon} is negative (e^ε = {exact_str(value)})")
            return value
    raise NotExactError(f"e^ε for ε = {quoted(epsilon)} is not a rational number, so no mechanism built from it "
                        'is exact: give ε as "ln(x)" (e^ε = x), or e^ε itself as eps_exp=')


def exact_eps_exp(value: Any) -> Fraction:
    """e^ε from a number string, ``"ln(x)"``, or an exact number (see :func:`parse_eps_exp`)."""
    return parse_eps_exp(value) if isinstance(value, str) else exact(value)


def shown_number(value: Any, digits: int = 60) -> str:
    """An exact number as an error message shows it: :func:`exact_str`, with a numerator or
    denominator of more than `digits` digits shortened to its ends and its length (Python's own
    ``str`` refuses integers of more than 4,300 digits, and a message is read, not parsed).

    >>> shown_number(Fraction(10**80 + 1, 3))
    '10000000000000000000…00000000000000000001 (81 digits)/3'
    """
    def part(integer: int) -> str:
        text = _decimal_digits(abs(integer))
        return ("-" if integer < 0 else "") + (text if len(text) <= digits else _shortened(text))

    number = exact(value)
    return part(number.numerator) if number.denominator == 1 else f"{part(number.numerator)}/{part(number.denominator)}"


def _shortened(run: str) -> str:
    """A long run of digits as its first and last 20 and its length."""
    return f"{run[:20]}…{run[-20:]} ({len(run):,} digits)"


def readable_message(message: str, digits: int = 60) -> str:
    """A message with every run of more than `digits` digits shortened as :func:`shown_number`
    shortens a number: a refused number of 5,000 digits still gives a line one can read.

    >>> readable_message("row 0 sums to " + "7" * 100 + ", not 1")
    'row 0 sums to 77777777777777777777…77777777777777777777 (100 digits), not 1'
    """
    return re.sub(f"[0-9]{{{digits + 1},}}", lambda run: _shortened(run[0]), message)


def exact_str(value: Any) -> str:
    """Write an exact rational as ``"p/q"`` (or ``"p"`` for an integer), whatever its size.

    Exact pipelines of thousands of respondents give rationals of tens of thousands of digits;
    they are written in full.

    Parameters
    ----------
    value : int, Fraction or any exact rational
        The number.

    Returns
    -------
    str

    Examples
    --------
    >>> exact_str(Fraction(6, 4))
    '3/2'
    >>> exact_str(5)
    '5'
    """
    number = exact(value)
    if number.denominator == 1:
        return _decimal_digits(number.numerator)
    return f"{_decimal_digits(number.numerator)}/{_decimal_digits(number.denominator)}"


def to_fmpq(value: Any) -> flint.fmpq:
    """An exact number as a python-flint rational (floats refused, as by :func:`exact`); the
    inverse of :func:`reduced_fraction`.

    Examples
    --------
    >>> to_fmpq(Fraction(6, 4)), to_fmpq("0.25")
    (3/2, 1/4)
    """
    if isinstance(value, flint.fmpq):
        return value
    if isinstance(value, Fraction):  # the usual input: 10⁵ coefficients of Cormode's design at n = 100
        return flint.fmpq(value.numerator, value.denominator)
    if isinstance(value, int) and not isinstance(value, bool):
        return flint.fmpq(value)
    number = exact(value)
    return flint.fmpq(number.numerator, number.denominator)


def over_common_denominator(values: Iterable[Any]) -> tuple[list[int], int]:
    """Rationals (Fraction, python-flint ``fmpq``, sympy ``Rational``) as integers over their least
    common denominator d: ``(numerators, d)`` with ``values[k] == numerators[k] / d``. The one
    place denominators are cleared (integer keys of points, integer rows for FLINT, Normaliz, PPL).

    Examples
    --------
    >>> over_common_denominator([Fraction(1, 4), Fraction(-2, 3), 5])
    ([3, -8, 60], 12)
    """
    pairs = [(int(v.numerator), int(v.denominator)) for v in values]
    denominator = math.lcm(1, *(d for _, d in pairs))
    return [n * (denominator // d) for n, d in pairs], denominator


def primitive_integers(values: Iterable[Any]) -> tuple[int, ...]:
    """A rational vector scaled by a positive number to the integer vector whose entries have no
    common divisor: the one representative of its ray (a direction, or a row b + a·x ≥ 0 whatever
    its scale). The zero vector stays zero.

    Examples
    --------
    >>> primitive_integers([Fraction(1, 2), Fraction(-3, 4), 0])
    (2, -3, 0)
    """
    numerators, _ = over_common_denominator(values)
    divisor = math.gcd(*numerators) or 1
    return tuple(v // divisor for v in numerators)


def reduced_fraction(value: Any) -> Fraction:
    """A reduced exact rational (python-flint ``fmpq``, sympy ``Rational``: numerator ``.p``,
    denominator ``.q``; an element of sympy's ``QQ`` or gmpy2's ``mpq``: ``.numerator``,
    ``.denominator``; all kept coprime) as a Fraction, without Fraction's second gcd.

    The gcd of numbers of thousands of bits is most of the cost of converting a large exact result
    (Algorithm 1 at n = 300: 3 s of 10), so CPython's constructor for coprime parts is used where it
    exists (``_normalize=False`` on 3.11, ``_from_coprime_ints`` from 3.12); elsewhere the public
    constructor.

    Examples
    --------
    >>> import flint
    >>> reduced_fraction(flint.fmpq(6, 4))
    Fraction(3, 2)
    >>> from sympy.polys.domains import QQ
    >>> reduced_fraction(QQ(-6, 4))
    Fraction(-3, 2)
    """
    if hasattr(value, "p"):
        return _COPRIME(int(value.p), int(value.q))
    return _COPRIME(int(value.numerator), int(value.denominator))


def reduced_fractions(values: Iterable[Any]) -> tuple[Fraction, ...]:
    """:func:`reduced_fraction` of each value; the zeros (most multipliers of a large LP) share one
    Fraction. Where exact results in flint rationals meet Fraction arithmetic (a polytope's rows):
    the two types are not mixed, ``Fraction(1, 3) == flint.fmpq(1, 3)`` is False.

    Examples
    --------
    >>> import flint
    >>> reduced_fractions([flint.fmpq(0), flint.fmpq(-2, 6)])
    (Fraction(0, 1), Fraction(-1, 3))
    """
    return tuple(reduced_fraction(v) if v else _FRACTION_ZERO for v in values)


_FRACTION_ZERO = Fraction(0)


def _coprime_constructor() -> Any:
    if hasattr(Fraction, "_from_coprime_ints"):
        return Fraction._from_coprime_ints  # type: ignore[attr-defined]
    try:
        if Fraction(2, 4, _normalize=False).denominator == 4:  # type: ignore[call-overload]
            return lambda p, q: Fraction(p, q, _normalize=False)  # type: ignore[call-overload]
    except TypeError:
        pass
    return Fraction


_COPRIME = _coprime_constructor()


def binary_log(value: flint.fmpq) -> float:
    """log₂|value| in floats, for rationals past float range too (−inf for 0): the magnitudes
    that float stages compare where the exact numbers are 2^-2000 or 2^2000.

    Examples
    --------
    >>> binary_log(flint.fmpq(1, 2**2000)), binary_log(flint.fmpq(-1, 8)), binary_log(flint.fmpq(0))
    (-2000.0, -3.0, -inf)
    """
    return math.log2(abs(int(value.p))) - math.log2(int(value.q)) if value else -math.inf


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
