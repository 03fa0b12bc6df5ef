"""Exact real roots of rational polynomials: isolating intervals, signs and decimals.

One home for deciding sign conditions on polynomials in one variable over an interval, used by
the stability verdicts over a range of e^ε (:func:`qifkit.stability.loss_on_range`) and by the
loose-vertex search of the local-DP polytope (:mod:`polytopes.ldp_parametric`).

A real algebraic number is a :class:`RealPoint`: either a rational, or the only root of an
irreducible polynomial f in an isolating interval [a, b] with rational ends. Signs of other
polynomials at it are decided exactly: p vanishes there iff f divides p (f is irreducible);
otherwise the interval is refined until p has no root in it, and p's sign at a is the answer.
No floating point is used.

Examples
--------
>>> x = sympy.Symbol("x")
>>> roots = real_roots([sympy.Poly(x**2 - 2, x), sympy.Poly(2*x - 3, x)], Fraction(0), Fraction(10))
>>> [r.decimal(6) for r in roots]
['1.414214', '1.500000']
>>> roots[0].sign(sympy.Poly(x**2 - 2, x)), roots[0].sign(sympy.Poly(x - 1, x))
(0, 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

import sympy

__all__ = ["RealPoint", "real_roots", "value", "rational_between", "sign_on"]


def value(p: sympy.Poly, x: Fraction) -> Fraction:
    """p(x) exactly, by Horner's rule on Fractions."""
    total = Fraction(0)
    for coefficient in p.all_coeffs():
        total = total * x + _fraction(coefficient)
    return total


def _fraction(number: sympy.Rational) -> Fraction:
    return Fraction(int(sympy.numer(number)), int(sympy.denom(number)))


def _refine(f: sympy.Poly, a: Fraction, b: Fraction) -> tuple[Fraction, Fraction]:
    """An isolating interval of f's root in [a, b] at most a quarter as wide."""
    low, high = f.refine_root(sympy.Rational(a.numerator, a.denominator), sympy.Rational(b.numerator, b.denominator),
                              eps=sympy.Rational(b - a) / 4)
    return _fraction(low), _fraction(high)


class RealPoint:
    """A rational number, or the root of an irreducible polynomial f in [a, b] (its only one)."""

    def __init__(self, point: Fraction | tuple[sympy.Poly, Fraction, Fraction]) -> None:
        self.point = point

    @property
    def is_rational(self) -> bool:
        return isinstance(self.point, Fraction)

    @property
    def bounds(self) -> tuple[Fraction, Fraction]:
        """Rational a ≤ b with the number in [a, b] (a = b for a rational)."""
        if isinstance(self.point, Fraction):
            return self.point, self.point
        return self.point[1], self.point[2]

    def sign(self, p: sympy.Poly) -> int:
        """The sign (−1, 0, 1) of p at this number, exactly."""
        if isinstance(self.point, Fraction):
            v = value(p, self.point)
            return (v > 0) - (v < 0)
        f, a, b = self.point
        if p.rem(f).is_zero:
            return 0
        while True:
            v = value(p, a)
            if v != 0 and p.count_roots(sympy.Rational(a.numerator, a.denominator),
                                        sympy.Rational(b.numerator, b.denominator)) == 0:
                return (v > 0) - (v < 0)
            a, b = _refine(f, a, b)
            self.point = (f, a, b)

    def narrowed(self, width: Fraction) -> tuple[Fraction, Fraction]:
        """Bounds at most `width` apart (the isolating interval is refined in place)."""
        if isinstance(self.point, Fraction):
            return self.point, self.point
        f, a, b = self.point
        while b - a > width:
            a, b = _refine(f, a, b)
        self.point = (f, a, b)
        return a, b

    def decimal(self, digits: int = 12) -> str:
        """The number rounded to `digits` decimals (correct to within one unit of the last digit;
        exact for a rational)."""
        a, b = self.narrowed(Fraction(1, 10 ** (digits + 2)))
        middle = (a + b) / 2
        scaled = round(middle * 10**digits)
        sign = "-" if scaled < 0 else ""
        whole, part = divmod(abs(scaled), 10**digits)
        return f"{sign}{whole}.{part:0{digits}d}" if digits else f"{sign}{whole}"

    def __float__(self) -> float:
        """The nearest double to within a unit of rounding (for drawing; the exact point decides)."""
        a, b = self.narrowed(Fraction(1, 10**18) * max(Fraction(1), abs(self.bounds[0])))
        return float((a + b) / 2)

    def __str__(self) -> str:
        if isinstance(self.point, Fraction):
            return str(self.point)
        f, a, b = self.point
        return f"the root of {f.as_expr()} in [{a}, {b}]"

    __repr__ = __str__


def real_roots(polynomials: Iterable[sympy.Poly], low: Fraction, high: Fraction | None = None) -> list[RealPoint]:
    """The distinct real roots of the polynomials strictly between `low` and `high` (no upper end
    when None), sorted, with pairwise disjoint isolating intervals inside (low, high).

    Each root is kept with an irreducible factor of a polynomial it is a root of (rational roots as
    Fractions); distinct irreducible factors have no common root, so refinement separates them.
    """
    factors: dict[sympy.Poly, None] = {}  # in order of first appearance: a set's order follows the
    for p in polynomials:  # process's string hashes, and the refinement below depends on the order
        if p.degree() > 0:
            for factor, _ in p.factor_list()[1]:
                factors[factor.monic() if factor.LC() > 0 else factor] = None
    roots: list[list] = []
    for f in factors:
        for (a, b), _ in f.intervals():
            a, b = _fraction(a), _fraction(b)
            while a != b and (a <= low < b or (high is not None and a < high <= b)):
                a, b = _refine(f, a, b)  # shrink until clear of both ends
            if a > low and (high is None or b < high):
                roots.append([f, a, b])
    changed = True
    while changed:
        changed = False
        roots.sort(key=lambda r: r[1])
        for left, right in zip(roots, roots[1:], strict=False):
            if left[2] >= right[1] and not (left[1] == left[2] == right[1] == right[2]):
                for r in (left, right):
                    if r[1] != r[2]:
                        r[1], r[2] = _refine(r[0], r[1], r[2])
                changed = True
    return [RealPoint(a if a == b else (f, a, b)) for f, a, b in roots]


def rational_between(left: RealPoint | Fraction, right: RealPoint | Fraction) -> Fraction:
    """The simplest rational (smallest denominator) strictly between two numbers whose bounds do
    not overlap (left < right), as :func:`real_roots` returns them.

    >>> rational_between(Fraction(7, 2), Fraction(351, 100))
    Fraction(179, 51)
    """
    upper = left if isinstance(left, Fraction) else left.bounds[1]
    lower = right if isinstance(right, Fraction) else right.bounds[0]
    if not upper < lower:
        raise ValueError(f"{left} and {right} are not separated")
    return _simplest_between(upper, lower)


def _simplest_between(low: Fraction, high: Fraction) -> Fraction:
    """The rational of smallest denominator in the open interval (low, high), low < high
    (continued fractions, as in the Stern–Brocot tree)."""
    whole = low.numerator // low.denominator
    if whole + 1 < high:
        return Fraction(whole + 1)
    if low == whole:  # (whole, high) with high ≤ whole + 1: whole + 1/k for the least k that fits
        return whole + Fraction(1, int(1 / (high - whole)) + 1)
    return whole + 1 / _simplest_between(1 / (high - whole), 1 / (low - whole))


def sign_on(expression: sympy.Expr, t: sympy.Symbol, low: Fraction, high: Fraction, allow_zero: bool = False
             ) -> int | None:
    """The sign of a rational function of `t` on all of [low, high]: 1 or −1 (strict everywhere;
    with `allow_zero`, −1 or 1 also when it vanishes at isolated points, 0 when it vanishes
    everywhere), or None when it changes sign or a denominator vanishes there. Exact: decided at
    the ends and between the numerator's real roots in the interval.

    >>> t = sympy.Symbol("t")
    >>> sign_on(t - 2, t, Fraction(3), Fraction(4)), sign_on(t - 2, t, Fraction(1), Fraction(3))
    (1, None)
    """
    numerator, denominator = (sympy.Poly(part, t, domain="QQ") for part in sympy.fraction(sympy.cancel(expression)))
    if numerator.is_zero:
        return 0 if allow_zero else None
    if denominator.degree() > 0 and (value(denominator, low) == 0 or value(denominator, high) == 0
                                     or real_roots([denominator], low, high)):
        return None
    scale = 1 if value(denominator, low) > 0 else -1
    roots = real_roots([numerator], low, high)
    ends = [RealPoint(low), *roots, RealPoint(high)]
    samples = [low, high] + [rational_between(a, b) for a, b in zip(ends, ends[1:], strict=False)]
    signs = {scale * ((v > 0) - (v < 0)) for v in (value(numerator, x) for x in samples)}
    if not allow_zero and (roots or 0 in signs):
        return None
    signs.discard(0)
    return signs.pop() if len(signs) == 1 else (0 if not signs else None)
