"""Rational functions of one variable read from user text, exactly and without ``eval`` or ``sympify``.

A user's own mechanism, given with entries that depend on t = e^ε (``"t/(t+2)"``, ``"1/(t+2)"``),
becomes a sympy expression built operation by operation from the grammar below; nothing of the
text is ever executed or handed to sympy's parser::

    expression := term (("+" | "-") term)*
    term       := factor (("*" | "/") factor)*
    factor     := ("+" | "-") factor | power
    power      := atom (("^" | "**") whole)?      whole: 0..64
    atom       := number | variable | "(" expression ")"

``number`` is any number string of :func:`qifkit.numbers.parse_number` that has no sign (``3``,
``3/7`` is the term 3 divided by 7, ``0.25``, ``1e-3``); the variable is one name (``t`` by default).
"""

from __future__ import annotations

import re

import sympy

from qifkit.errors import NumberSyntaxError
from qifkit.numbers import parse_number, quoted

__all__ = ["parse_rational_function"]

_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)|(\*\*|[-+*/^()]))")
_MAX_POWER = 64
_MAX_LENGTH = 10_000
_MAX_DEPTH = 100  # parentheses and signs nested deeper than this are refused (not a RecursionError)
#: The largest degree (numerator's and denominator's added up, bounded from the text) of a rational
#: function read: its sign proofs on a range isolate the real roots of polynomials of this degree.
_MAX_DEGREE = 256


def parse_rational_function(text: str, variable: sympy.Symbol) -> sympy.Expr:
    """The rational function of `variable` that `text` writes (see the module docstring).

    Raises
    ------
    NumberSyntaxError
        Naming the text and the position where it stops following the grammar, another name than
        the variable, a power that is not a whole number up to 64, a division by zero,
        parentheses and signs nested more than 100 deep, or a degree that may exceed 256 (the
        numerator's and the denominator's added up, bounded from the text: ``((t^64)^64)^64``).

    Examples
    --------
    >>> t = sympy.Symbol("t")
    >>> parse_rational_function("t/(t+2)", t)
    t/(t + 2)
    >>> parse_rational_function("(1 - 1/t)^2 / 2", t) == (1 - 1 / t) ** 2 / 2
    True
    """
    if not isinstance(text, str):
        raise NumberSyntaxError(f"an expression must be text, not {type(text).__name__}")
    if len(text) > _MAX_LENGTH:
        raise NumberSyntaxError(f"an expression of {len(text):,} characters is longer than {_MAX_LENGTH:,}")
    tokens = _tokens(text)
    reader = _Reader(text, tokens, variable)
    value, _ = reader.expression()
    if reader.position < len(tokens):
        raise reader.error("an operator or the end")
    return value


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, token, offset): kind is "number", "name" or "symbol"."""
    found, offset = [], 0
    while offset < len(text):
        if text[offset:].strip() == "":
            break
        match = _TOKEN.match(text, offset)
        if match is None:
            raise NumberSyntaxError(f"{quoted(text)}: unexpected {quoted(text[offset:].lstrip()[:1])} at character "
                                    f"{offset + len(text[offset:]) - len(text[offset:].lstrip()) + 1}")
        number, name, symbol = match.groups()
        kind, token = ("number", number) if number else ("name", name) if name else ("symbol", symbol)
        found.append((kind, token, match.start(match.lastindex or 0)))
        offset = match.end()
    if not found:
        raise NumberSyntaxError(f"{quoted(text)} is empty, not an expression")
    return found


class _Reader:
    """Recursive descent over the tokens, building the expression with sympy arithmetic."""

    def __init__(self, text: str, tokens: list[tuple[str, str, int]], variable: sympy.Symbol) -> None:
        self.text, self.tokens, self.variable, self.position, self.depth = text, tokens, variable, 0, 0

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise NumberSyntaxError(f"{quoted(self.text[:40] + '...')}: parentheses or signs nested deeper than "
                                    f"{_MAX_DEPTH} levels")

    def error(self, wanted: str) -> NumberSyntaxError:
        if self.position >= len(self.tokens):
            return NumberSyntaxError(f"{quoted(self.text)} ends where {wanted} should follow")
        _, token, offset = self.tokens[self.position]
        return NumberSyntaxError(
            f"{quoted(self.text)}: {wanted} expected at character {offset + 1}, found {quoted(token)}"
        )

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def bounded(self, degree: int) -> int:
        """`degree`, an upper bound of the degrees of a part's numerator and denominator added up,
        refused past :data:`_MAX_DEGREE` before sympy builds it (``((t^64)^64)^64``)."""
        if degree > _MAX_DEGREE:
            raise NumberSyntaxError(f"{quoted(self.text[:40] + '...')}: a rational function of degree up to "
                                    f"{degree:,}, beyond {_MAX_DEGREE}")
        return degree

    def expression(self) -> tuple[sympy.Expr, int]:
        value, degree = self.term()
        while self.peek() in ("+", "-"):
            operator = self.tokens[self.position][1]
            self.position += 1
            right, more = self.term()
            degree = self.bounded(degree + more)  # a common denominator multiplies
            value = value + right if operator == "+" else value - right
        return value, degree

    def term(self) -> tuple[sympy.Expr, int]:
        value, degree = self.factor()
        while self.peek() in ("*", "/"):
            operator = self.tokens[self.position][1]
            self.position += 1
            right, more = self.factor()
            degree = self.bounded(degree + more)
            if operator == "/":
                if right == 0:
                    raise NumberSyntaxError(f"{quoted(self.text)} divides by zero")
                value = value / right
            else:
                value = value * right
        return value, degree

    def factor(self) -> tuple[sympy.Expr, int]:
        if self.peek() in ("+", "-"):
            operator = self.tokens[self.position][1]
            self.position += 1
            self.deeper()
            value, degree = self.factor()
            self.depth -= 1
            return (-value if operator == "-" else value), degree
        return self.power()

    def power(self) -> tuple[sympy.Expr, int]:
        base, degree = self.atom()
        if self.peek() in ("^", "**"):
            self.position += 1
            if self.position >= len(self.tokens) or self.tokens[self.position][0] != "number":
                raise self.error("a whole power")
            exponent = parse_number(self.tokens[self.position][1])
            if exponent.denominator != 1 or not 0 <= exponent <= _MAX_POWER:
                raise NumberSyntaxError(
                    f"{quoted(self.text)}: the power {self.tokens[self.position][1]} is not a whole "
                    f"number from 0 to {_MAX_POWER}"
                )
            self.position += 1
            return base ** int(exponent), self.bounded(degree * int(exponent))
        return base, degree

    def atom(self) -> tuple[sympy.Expr, int]:
        if self.position >= len(self.tokens):
            raise self.error("a number, the variable or '('")
        kind, token, _ = self.tokens[self.position]
        if kind == "number":
            self.position += 1
            value = parse_number(token)
            return sympy.Rational(value.numerator, value.denominator), 0
        if kind == "name":
            if token != self.variable.name:
                raise NumberSyntaxError(f"{quoted(self.text)}: unknown name {quoted(token)}; the variable is "
                                        f"{self.variable.name}")
            self.position += 1
            return self.variable, 1
        if token == "(":
            self.position += 1
            self.deeper()
            value, degree = self.expression()
            self.depth -= 1
            if self.peek() != ")":
                raise self.error("')'")
            self.position += 1
            return value, degree
        raise self.error("a number, the variable or '('")
