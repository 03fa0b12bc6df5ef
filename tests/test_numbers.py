"""The number grammar: exact reading of user text, and refusal of everything else."""

import decimal
import random
import re
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.polys.domains import QQ

from qifkit import exact, exact_str, parse_eps_exp, parse_number
from qifkit.errors import NotANumberError, NotExactError, NumberSyntaxError, PrivacyParameterError, QifError
from qifkit.numbers import exact_dot


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", Fraction(3)),
        ("-3/7", Fraction(-3, 7)),
        (" 0.25 ", Fraction(1, 4)),
        ("3.51", Fraction(351, 100)),
        ("1e-3", Fraction(1, 1000)),
        ("2.5/10", Fraction(1, 4)),
        (".5", Fraction(1, 2)),
        ("+7", Fraction(7)),
        ("2510000/55563651", Fraction(2510000, 55563651)),
    ],
)
def test_parse_number_reads_exactly(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text",
    ["1/0", "abc", "__import__('os')", "1/2/3", "", "  ", "nan", "inf", "1/", "/2", "0x10", "1_000", "2**3", "1e99999"],
)
def test_parse_number_refuses_malformed_text(text):
    with pytest.raises(NumberSyntaxError) as info:
        parse_number(text)
    assert repr(text) in str(info.value) or "exponent" in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, QifError)


def test_parse_number_refuses_very_long_text():
    with pytest.raises(NumberSyntaxError, match="longer than"):
        parse_number("1" * 200_001)


def test_parse_number_reads_back_what_exact_str_writes_at_any_size():
    # a certificate of a large pipeline must re-read: 5^20000 / 3 has 13,980 digits
    value = Fraction(5**20_000, 3)
    assert parse_number(exact_str(value)) == value
    assert parse_number("1" * 6000 + "/7") == Fraction((10**6000 - 1) // 9, 7)


def test_division_by_zero_is_named():
    with pytest.raises(NumberSyntaxError, match="divides by zero"):
        parse_number("1/0")


@pytest.mark.parametrize(
    ("text", "value"),
    [("2", 2), ("ln(2)", 2), ("ln(7/2)", Fraction(7, 2)), (" ln( 3.51 ) ", Fraction(351, 100)), ("1", 1)],
)
def test_parse_eps_exp(text, value):
    assert parse_eps_exp(text) == value


@pytest.mark.parametrize("text", ["0.5", "ln(1/2)", "-2"])
def test_parse_eps_exp_refuses_negative_epsilon(text):
    with pytest.raises(PrivacyParameterError, match="ε < 0"):
        parse_eps_exp(text)


@pytest.mark.parametrize("text", ["ln(ln(2))", "exp(2)", "log 2", "ln 2"])
def test_parse_eps_exp_refuses_other_forms(text):
    with pytest.raises(NumberSyntaxError):
        parse_eps_exp(text)


@pytest.mark.parametrize("value", [0.1, np.float64(0.5), np.float32(0.5), True, None, [1], float("nan")])
def test_exact_refuses_inexact_values(value):
    with pytest.raises(NotExactError):
        exact(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, Fraction(3)),
        (np.int64(4), Fraction(4)),
        (decimal.Decimal("0.1"), Fraction(1, 10)),
        (sympy.Rational(2, 3), Fraction(2, 3)),
        (QQ(5, 7), Fraction(5, 7)),
        ("1/3", Fraction(1, 3)),
    ],
)
def test_exact_accepts_exact_values(value, expected):
    assert exact(value) == expected


def test_exact_refuses_nan_decimal():
    with pytest.raises(NotANumberError):
        exact(decimal.Decimal("NaN"))


@given(st.fractions())
def test_exact_str_round_trips(value):
    assert parse_number(exact_str(value)) == value


@given(st.decimals(allow_nan=False, allow_infinity=False, places=6))
def test_decimal_strings_are_read_exactly(value):
    assert parse_number(str(value)) == Fraction(value)


def test_exact_str_writes_rationals_of_any_size(unguarded_str):
    # an exact pipeline of thousands of respondents has losses with tens of thousands of digits;
    # Python's str() refuses ints of more than 4300 digits
    value = Fraction(3**10_000, 2**10_000 + 1)
    assert exact_str(value) == unguarded_str(value)
    assert exact_str(-(7**20_000)) == unguarded_str(-(7**20_000))


@pytest.mark.parametrize("text", ["١/4", "１", "٣", "2.５"])
def test_only_ascii_digits_are_numbers(text):
    with pytest.raises(NumberSyntaxError):
        parse_number(text)


# --------------------------------------------------------------------------- rational functions of t (issue 15)

def test_expressions_in_t_are_built_exactly_by_the_grammar():
    import sympy

    from qifkit.expressions import parse_rational_function

    t = sympy.Symbol("t")
    cases = {"t/(t+2)": t / (t + 2), "(1 - 1/t)^2 / 2": (1 - 1 / t) ** 2 / 2, "-t**2+3": 3 - t ** 2, "0.25*t": t / 4,
             "(" * 100 + "t" + ")" * 100: t, "-" * 100 + "t": t,
             "3/7": sympy.Rational(3, 7), "2 - -t": 2 + t, "1e-3": sympy.Rational(1, 1000), "((t))": t}
    for text, expected in cases.items():
        assert sympy.simplify(parse_rational_function(text, t) - expected) == 0, text


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('true')", "unexpected"), ("__import__(1)", "unknown name '__import__'"),
    ("x + 1", "unknown name 'x'"),
    ("t^1.5", "not a whole number"), ("t^65", "not a whole number"), ("t^-1", "a whole power expected"),
    ("1/0", "divides by zero"), ("t/(t-t)", "divides by zero"), ("t/(t+2", "')' should follow"),
    ("", "is empty"), ("t t", "an operator or the end expected"), ("1//2", "expected at character 3"),
    ("t$", "unexpected '$'"), ("9" * 10001, "longer than"),
    ("(" * 4000 + "t" + ")" * 4000, "nested deeper than 100"), ("-" * 9000 + "t", "nested deeper than 100"),
    # issue 52: nested powers and long products of degree beyond 256, refused before sympy builds them
    ("((t^64)^64)^64", "degree up to 4,096, beyond 256"), ("*".join(["t^64"] * 64), "degree up to 320"),
    ("1/(t+1)^64/(t+2)^64/(t+3)^64/(t+4)^64/(t+5)", "degree up to 257"),
])
def test_an_expression_that_is_not_in_the_grammar_is_refused_naming_why(text, message):
    import sympy

    from qifkit.errors import NumberSyntaxError
    from qifkit.expressions import parse_rational_function

    with pytest.raises(NumberSyntaxError, match=re.escape(message)):
        parse_rational_function(text, sympy.Symbol("t"))


def test_exact_dot_matches_plain_fractions():
    """exact_dot (one running common denominator) is Σ a·v in plain Fractions."""
    rng = random.Random(5)
    for _ in range(200):
        pairs = [(Fraction(rng.randint(-9, 9), rng.randint(1, 9)),
                  Fraction(rng.randint(-9, 9), rng.choice([7, 7, 14, 3]))) for _ in range(rng.randint(0, 8))]
        expected = sum((a * b for a, b in pairs), Fraction(0))
        got = exact_dot(
            (flint.fmpq(a.numerator, a.denominator), flint.fmpq(b.numerator, b.denominator)) for a, b in pairs
        )
        assert Fraction(int(got.p), int(got.q)) == expected
