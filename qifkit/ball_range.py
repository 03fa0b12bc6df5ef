"""A tally pipeline's loss (count, threshold, map, sum) over a range of e^ε, decided piece by piece
in rigorous ball arithmetic.

:func:`qifkit.stability.loss_on_range` follows an analyst's loss over every e^ε of a range by
real-root isolation, whose cost grows with the cube of the entries' degree in e^ε (about N·(K − 1)
for N respondents over K values). This module decides the same question by proving the sign of
the loss's derivative on sub-intervals (Alvim et al. 2023, Def. 10: the loss must never rise as
e^ε grows), in Arb balls (python-flint):

* on a piece [m − r, m + r], every value's factor Σ_y C[v, y](t)·z^tally(y) (a count: 1 − h_v + h_v·z,
  h_v the chance of reporting a counted value; a sum: z^y) has coefficients that are Taylor models
  in s = t − m: their Taylor coefficients at m up to order :data:`ORDER`, and the next one over the
  whole piece bounding the rest (Lagrange); likewise their first and second derivatives;
* the analyst's expected loss of action w at released label y, E[w, y](t) = Σ_x π_x ℓ(x, w)
  [z^y] base(z)·P_x(z) (the generating functions of :func:`qifkit.pipelines.count_uncertainty`),
  and its first two derivatives are carried by the product rule on polynomials in z whose
  coefficients are Taylor models (:class:`_Model`), so the N factors of a piece stay correlated
  (as independent intervals, their widths would multiply: (1 + N·r/t)-fold and worse);
* the loss is U = Σ_y min_w E[w, y]. Only actions whose enclosure can reach the minimum on the
  piece can be best there, so U' lies almost everywhere in the sum over y of the hulls of their
  derivatives. If that ball is ≤ 0, U never rises on the piece; if > 0, it rises on all of it
  (U is absolutely continuous). Where one action is best at every label, U is constant.
  Otherwise, where no best action changes, the mean-value form with U'' is tried, and where
  U'' has one sign, U' is monotone and its ends decide (a turn of the loss is bracketed by
  bisection); a change of best action at one label is bracketed the same way; else the piece
  is split.

Pieces are split by a budget of work (enclosures, never the clock) down to a relative width of
2^-32; a piece left undecided is reported as such. A piece's cost grows with N times the number
of values and actions (``benchmarks/bench_ball_range.py``).

Examples
--------
App. D.1's pipeline (geometric perturber on 7 values, 4 respondents of whom 3 are known, the count
of zeros, linear loss) rises on one stretch of [3, 4], from about 3.50054 to 3.51662
(:func:`qifkit.stability.loss_on_range` gives its ends exactly):

>>> from qifkit import truncated_geometric, uniform_prior, linear_error
>>> curve = count_loss_on_range(lambda t: truncated_geometric(7, eps_exp=t), 4, {0}, uniform_prior(range(7)),
...                             linear_error(range(7)), 3, 4, known=(0, 1, 1))
>>> curve.monotone, [(round(float(a), 4), round(float(b), 4)) for a, b in curve.rising]
(False, [(3.5005, 3.5166)])
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import flint
import sympy

from qifkit.channel import Channel
from qifkit.errors import LabelError, UndecidableError
from qifkit.measures import Loss, Prior
from qifkit.numbers import to_fmpq
from qifkit.pipelines import unknown_secrets
from qifkit.real_roots import rational_between
from qifkit.stability import symbolic_on_range

__all__ = ["FALLING", "RISING", "TURNING", "UNDECIDED", "Piece", "BallRange", "count_loss_on_range",
           "sum_loss_on_range", "BALL_PIECES"]

FALLING, RISING, TURNING, UNDECIDED = "falling", "rising", "turning", "undecided"
#: The default budget of :func:`count_loss_on_range`: how many pieces' derivatives it encloses.
BALL_PIECES = 4000
#: The order of the Taylor models in t on a piece (:class:`_Model`).
ORDER = 2
#: The most choices of best actions on a piece whose loss derivatives are enclosed one by one.
MAX_SIDES = 16
#: Working precision of the balls, in bits.
PRECISION = 128
#: A piece narrower than this fraction of its left end is not split further.
NARROWEST = Fraction(1, 2**32)


@dataclass(frozen=True)
class Piece:
    """[low, high] and what the loss does there: ``"falling"`` (never rises: non-increasing),
    ``"rising"`` (strictly increasing), ``"turning"`` (its derivative is monotone there and changes
    sign once: the loss falls then rises, or rises then falls) or ``"undecided"``."""

    low: Fraction
    high: Fraction
    direction: str


@dataclass(frozen=True)
class BallRange:
    """The loss over [low, high] as consecutive :class:`Piece` s, and the derivative enclosures it took."""

    low: Fraction
    high: Fraction
    pieces: tuple[Piece, ...]
    evaluations: int
    def stretches(self, direction: str) -> tuple[tuple[Fraction, Fraction], ...]:
        """The maximal stretches made of consecutive pieces of one direction."""
        merged: list[list[Fraction]] = []
        for piece in self.pieces:
            if piece.direction != direction:
                continue
            if merged and merged[-1][1] == piece.low:
                merged[-1][1] = piece.high
            else:
                merged.append([piece.low, piece.high])
        return tuple((a, b) for a, b in merged)

    @property
    def rising(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """Where the loss is proved to rise with e^ε."""
        return self.stretches(RISING)

    @property
    def undecided(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """Where neither direction was proved (a turn of the loss, a flat touch, or the budget's end)."""
        return self.stretches(UNDECIDED)

    @property
    def monotone(self) -> bool | None:
        """False if the loss rises somewhere, True if it is proved never to rise, else None."""
        if self.rising:
            return False
        return None if self.undecided else True


class _Model:
    """A Taylor model on a piece [m − r, m + r] of e^ε: for every t = m + s of the piece, each
    coefficient (in the count's variable z) of the function lies in Σ_j terms[j]·s^j + rest, with
    terms[j] polynomials in z whose coefficients are balls at the point m and rest a polynomial of
    balls bounding what the truncation at order len(terms) − 1 leaves out. Products keep the
    dependence on s exactly up to that order, so N factors of one piece do not widen one another
    as independent intervals would (the natural extension's width grows like (1 + N·r)·…)."""

    __slots__ = ("terms", "rest", "powers", "_bound")

    def __init__(self, terms: list[Any], rest: Any, powers: list[Any]) -> None:
        self.terms, self.rest, self.powers = terms, rest, powers
        self._bound: Any = None

    def bound(self) -> Any:
        """A polynomial of balls holding the terms' value for every s of the piece."""
        if self._bound is None:
            total = self.terms[0]
            for term, power in zip(self.terms[1:], self.powers[1:], strict=False):
                total += term * power
            self._bound = total
        return self._bound

    def enclosure(self) -> Any:
        """A polynomial of balls holding the function's coefficients on the whole piece."""
        return self.bound() + self.rest

    def __add__(self, other: _Model) -> _Model:
        return _Model([a + b for a, b in zip(self.terms, other.terms, strict=True)], self.rest + other.rest,
                      self.powers)

    def __mul__(self, other: Any) -> _Model:
        if not isinstance(other, _Model):  # a scalar
            return _Model([term * other for term in self.terms], self.rest * other, self.powers)
        order = len(self.terms) - 1
        terms = [flint.arb_poly([]) for _ in self.terms]
        rest = self.rest * (other.bound() + other.rest) + self.bound() * other.rest
        for j, left in enumerate(self.terms):
            for k, right in enumerate(other.terms):
                if j + k <= order:
                    terms[j + k] += left * right
                else:
                    rest += left * right * self.powers[j + k]
        return _Model(terms, rest, self.powers)

    def __pow__(self, exponent: int) -> _Model:
        result, square = None, self
        while exponent:
            if exponent & 1:
                result = square if result is None else result * square
            exponent >>= 1
            if exponent:
                square = square * square
        return result if result is not None else _Model(
            [flint.arb_poly([1])] + [flint.arb_poly([]) for _ in self.terms[1:]], flint.arb_poly([]), self.powers)


class _Jet(NamedTuple):
    """A polynomial in the count's variable z with ball coefficients, and its first and second
    derivatives in t."""

    value: Any
    slope: Any
    curve: Any

    def times(self, other: _Jet) -> _Jet:
        return _Jet(self.value * other.value, self.slope * other.value + self.value * other.slope,
                    self.curve * other.value + self.slope * other.slope * 2 + self.value * other.curve)

    def power(self, n: int) -> _Jet:
        if n == 1:
            return self
        below = self.value ** (n - 2)
        lower = below * self.value
        return _Jet(lower * self.value, lower * self.slope * n,
                    below * self.slope * self.slope * (n * (n - 1)) + lower * self.curve * n)

    def plus(self, other: _Jet, weight: Any) -> _Jet:
        return _Jet(self.value + other.value * weight, self.slope + other.slope * weight,
                    self.curve + other.curve * weight)


def _fmpq_poly(expression: sympy.Expr, t: sympy.Symbol) -> Any:
    coefficients = sympy.Poly(expression, t, domain="QQ").all_coeffs()[::-1]
    return flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in coefficients])


def _merged(representative: dict[Hashable, Hashable], counts: dict[Hashable, int]) -> dict[Hashable, int]:
    """How many respondents hold each class of values (`representative` maps a value to its class's)."""
    merged: dict[Hashable, int] = {}
    for value, count in counts.items():
        merged[representative[value]] = merged.get(representative[value], 0) + count
    return merged


def _scaled_derivatives(poly: Any) -> list[list[Any]]:
    """[p^(j)/j! for j ≤ ORDER + 3], each as its coefficients (highest first, for :func:`_horner`)."""
    derivatives = []
    for j in range(ORDER + 4):
        derivatives.append([flint.fmpq(c) for c in (poly / math.factorial(j)).coeffs()[::-1]])
        poly = poly.derivative()
    return derivatives


def _horner(coefficients: list[Any], at: Any) -> Any:
    """A polynomial (coefficients highest first) at a ball by Horner's rule: tight for positive
    coefficients on a positive ball (Arb's own evaluation shifts to the ball's middle and can
    cross zero there)."""
    total = flint.arb(0)
    for coefficient in coefficients:
        total = total * at + coefficient
    return total


def _taylor(numerator: list[list[Any]], denominator: list[list[Any]], at: Any, length: int) -> list[Any]:
    """The first `length` Taylor coefficients of N/D at `at` (a point, or a ball: then they hold
    those at every point of it), from N's and D's p^(j)/j! (:func:`_scaled_derivatives`); NaN
    where D's ball holds 0 (a piece too wide to say anything)."""
    top, bottom = (flint.arb_series([_horner(c, at) for c in p], prec=length) for p in (numerator, denominator))
    if not (bottom.coeffs()[0] > 0 or bottom.coeffs()[0] < 0):
        return [flint.arb("nan")] * length
    coefficients = (top / bottom).coeffs()
    return coefficients + [flint.arb(0)] * (length - len(coefficients))


def _finite(ball: Any) -> bool:
    """Whether a ball is a finite bound: NaN, infinite midpoints and unbounded radii are not, and
    no comparison with them may decide anything (every comparison with NaN is False in Arb, so a
    test written as ``not (x > y)`` would take NaN for proof)."""
    return bool(ball.is_finite())


def _ball(a: Fraction, b: Fraction) -> Any:
    return flint.arb(to_fmpq(a)) if a == b else flint.arb(to_fmpq(a)).union(flint.arb(to_fmpq(b)))


class _LossSlope:
    """Encloses the loss's first and second derivatives on a piece (the module's docstring)."""

    def __init__(self, channel: Channel, t: sympy.Symbol, respondents: int, tally: Sequence[int], prior: Prior,
                 loss: Loss, known: Sequence[Hashable], release: Callable[[int], Hashable] | None, low: Fraction,
                 high: Fraction, unknown_values: Sequence[Hashable] | None = None) -> None:
        # each value's factor Σ_y C[v, y](t)·z^tally[y] (a count: 1 − h + h·z), one rational
        # function of t per power of z, kept as N's and D's p^(j)/j!
        # values with the same factor (as exact rational functions) are one class: a secret's row
        # depends only on how many unknown respondents hold each class
        self.factor_terms: dict[Hashable, list[tuple[list[Any], list[Any]] | None]] = {}
        classes: dict[tuple[Any, ...], Hashable] = {}
        representative: dict[Hashable, Hashable] = {}
        for value, row in zip(channel.secrets, channel.rows(), strict=True):
            terms: list[tuple[list[Any], list[Any]] | None] = []
            key = []
            for power in range(max(tally) + 1):
                entry = sympy.cancel(sum((c for c, k in zip(row, tally, strict=True) if k == power), sympy.Integer(0)))
                top, bottom = sympy.fraction(entry)
                numerator, denominator = _fmpq_poly(top, t), _fmpq_poly(bottom, t)
                if sympy.Poly(bottom, t).count_roots(sympy.Rational(low), sympy.Rational(high)) > 0:
                    raise UndecidableError(f"the perturber's entry {entry} (value {value!r}) has a pole between e^ε = "
                                           f"{low} and {high}")
                scale = denominator.coeffs()[-1]  # the key: N/D with D monic
                key.append((tuple((numerator / scale).coeffs()), tuple((denominator / scale).coeffs())))
                terms.append(None if entry == 0 else (_scaled_derivatives(numerator), _scaled_derivatives(denominator)))
            representative[value] = classes.setdefault(tuple(key), value)
            self.factor_terms.setdefault(representative[value], terms)
        self.known = Counter(representative[value] for value in known)
        secrets, unknown = unknown_secrets(unknown_values or channel.secrets, respondents - len(known))
        prior = prior._aligned(tuple(secrets))
        if tuple(loss.secrets) != tuple(secrets):
            raise LabelError("the loss's secrets are not the pipeline's secrets (in the same order)")
        # each secret's row as how many unknown respondents hold each class; one row per distinct one
        shapes = [tuple(sorted(_merged(representative, counts).items(), key=repr)) for counts in unknown]
        self.unknown = [dict(shape) for shape in dict.fromkeys(shapes)]
        row_of = {shape: k for k, shape in enumerate(dict.fromkeys(shapes))}
        weights = [to_fmpq(p) for p in prior.probabilities()]
        losses = [[to_fmpq(v) for v in row] for row in loss.rows()]
        mixtures = []
        for w in range(len(loss.actions)):
            mixture: dict[int, Any] = {}
            for k, shape in enumerate(shapes):
                if weights[k] and losses[k][w]:
                    mixture[row_of[shape]] = mixture.get(row_of[shape], 0) + weights[k] * losses[k][w]
            mixtures.append(tuple(sorted((k, m) for k, m in mixture.items() if m)))
        self.weights = list(dict.fromkeys(mixtures))  # actions of identical expected losses once
        labels: dict[Hashable, list[int]] = {}
        self.length = respondents * max(tally) + 1
        for count in range(self.length):
            labels.setdefault(count if release is None else release(count), []).append(count)
        self.groups = list(labels.values())
        self._points: dict[Fraction, Any] = {}
        self._piece: tuple[Fraction, Fraction, Any] | None = None
        self.calls = 0
        self.progress: Callable[[int], None] | None = None  # told the enclosures computed so far

    def _factors(self, a: Fraction, b: Fraction) -> tuple[dict[Hashable, _Jet], list[Any]]:
        """Each class of values' factor Σ_y C[v, y]·z^tally(y) and its first two derivatives in t,
        as Taylor models of order :data:`ORDER` on [a, b] (0 at a point): each entry's coefficients
        at the piece's middle, and the next one over the whole piece (Lagrange's remainder). Also
        the balls of the powers s^j, j ≤ 2·order + 1."""
        order = 0 if a == b else ORDER
        middle, piece = flint.arb(to_fmpq((a + b) / 2)), _ball(a, b)
        powers = [flint.arb(1)]
        for _ in range(2 * order + 1):  # s^j by products (Arb's ** takes logarithms: NaN on a ball holding 0)
            powers.append(powers[-1] * (piece - middle))
        factors = {}
        for value, entries in self.factor_terms.items():
            coefficients = [None if entry is None else (_taylor(*entry, middle, order + 4),
                                                        _taylor(*entry, piece, order + 4) if order else [])
                            for entry in entries]
            if len(entries) == 2 and coefficients[1] is not None:  # a count: z^0's entry is 1 − h, kept tied to h
                near, over = coefficients[1]
                coefficients[0] = ([1 - near[0]] + [-c for c in near[1:]], [-c for c in over])
            models = []
            for derivative in range(3):
                scale = [math.factorial(j + derivative) // math.factorial(j) for j in range(order + 2)]
                zero = flint.arb(0)
                polys = [flint.arb_poly([zero if c is None else c[0][j + derivative] * scale[j] for c in coefficients])
                         for j in range(order + 1)]
                tails = [zero if c is None or not order else c[1][order + 1 + derivative] * scale[order + 1]
                         * powers[order + 1] for c in coefficients]
                models.append(_Model(polys, flint.arb_poly(tails), powers))
            factors[value] = _Jet(*models)
        return factors, powers

    def table(self, a: Fraction, b: Fraction) -> list[list[tuple[Any, Any, Any]]]:
        """For each released label and action: balls holding E[w, y], its first and its second
        derivative in t over [a, b] (a point's are kept, as pieces share their ends; so is the last
        piece's, which the search for a change of best action reads again)."""
        if a == b and a in self._points:
            return self._points[a]
        if self._piece is not None and self._piece[:2] == (a, b):
            return self._piece[2]
        self.calls += 1
        if self.progress is not None:
            self.progress(self.calls)
        with flint.ctx.workprec(PRECISION):
            factors, powers = self._factors(a, b)
            order = 0 if a == b else ORDER

            def constant(poly: Any) -> _Model:
                return _Model([poly] + [flint.arb_poly([]) for _ in range(order)], flint.arb_poly([]), powers)

            empty = constant(flint.arb_poly([]))
            one = _Jet(constant(flint.arb_poly([1])), empty, empty)
            base = one
            for value, count in self.known.items():
                base = base.times(factors[value].power(count))
            rows = []
            for counts in self.unknown:
                row = one
                for value, count in counts.items():
                    row = row.times(factors[value].power(count))
                rows.append(row)
            zero = flint.arb(0)
            expected = []
            for weighted in self.weights:
                mixture = _Jet(empty, empty, empty)
                for k, weight in weighted:
                    mixture = mixture.plus(rows[k], flint.arb(weight))
                jet = base.times(mixture)
                expected.append([c + [zero] * (self.length - len(c))
                                 for c in (model.enclosure().coeffs() for model in jet)])
            table = [[(sum((value[y] for y in group), zero), sum((slope[y] for y in group), zero),
                       sum((curve[y] for y in group), zero)) for value, slope, curve in expected]
                     for group in self.groups]
        if a == b:
            self._points[a] = table
        else:
            self._piece = (a, b, table)
        return table

    def best(self, a: Fraction, b: Fraction, table: list[list[tuple[Any, Any, Any]]]) -> list[list[int]]:
        """For each label, the actions that can be best somewhere in [a, b]: those whose enclosure
        reaches the least upper end, less those proved above another action all along (their
        difference monotone on [a, b], by its derivative's ball, and positive at both ends). At a
        label where any action's value or slope is not a finite ball, every action stays a
        candidate: an enclosure that says nothing rules nothing out (issue 57)."""
        candidates = []
        with flint.ctx.workprec(PRECISION):
            for y, row in enumerate(table):
                if not all(_finite(value) and _finite(slope) for value, slope, _ in row):
                    candidates.append(list(range(len(row))))
                    continue
                ceiling = min(row, key=lambda entry: entry[0].upper())
                lowest = row.index(ceiling)
                chosen = [w for w, entry in enumerate(row) if entry[0].lower() <= ceiling[0].upper()]
                if len(chosen) > 1 and a < b:
                    chosen = [w for w in chosen if w == lowest or not self._above(y, w, lowest, a, b, table)]
                candidates.append(chosen)
        return candidates

    def _above(self, y: int, w: int, u: int, a: Fraction, b: Fraction, table: list[list[tuple[Any, Any, Any]]]
               ) -> bool:
        """Whether E[w, y] > E[u, y] on all of [a, b] but perhaps one end, where they may be equal
        (their difference is monotone, so w is never below u there and ties at one point only)."""
        change = table[y][w][1] - table[y][u][1]
        if not (change > 0 or change < 0):
            return False
        left, right = self.table(a, a)[y], self.table(b, b)[y]
        before, after = left[w][0] - left[u][0], right[w][0] - right[u][0]
        return bool((before > 0 and after >= 0) or (before >= 0 and after > 0))

    def slopes(self, a: Fraction, b: Fraction) -> tuple[list[Any], Any, list[list[int]]]:
        """Balls one of which holds U'(t) for almost every t in [a, b]: one for each choice of best
        action at the labels with several candidates (at most :data:`MAX_SIDES` choices; beyond,
        one ball with each label's hull); a ball holding U''(t) on [a, b] when no label's best
        action can change there (else None); and the candidates."""
        table = self.table(a, b)
        candidates = self.best(a, b, table)
        torn = [y for y, chosen in enumerate(candidates) if len(chosen) > 1]
        if torn and math.prod(len(candidates[y]) for y in torn) <= MAX_SIDES:
            sides = []
            for choice in itertools.product(*(candidates[y] for y in torn)):
                chosen = {y: [w] for y, w in zip(torn, choice, strict=True)}
                sides.append(self._sum(table, [chosen.get(y, c) for y, c in enumerate(candidates)])[0])
            return sides, None, candidates
        first, second = self._sum(table, candidates)
        return [first], second, candidates

    @staticmethod
    def _sum(table: list[list[tuple[Any, Any, Any]]], candidates: list[list[int]]) -> tuple[Any, Any]:
        """U' (the hull over each label's candidates) and U'' (None unless every label has one)."""
        if len({tuple(chosen) for chosen in candidates}) == 1 and len(candidates[0]) == 1:
            # one best action w at every label: U = Σ_x π_x ℓ(x, w) Σ_y P(y | x) is constant
            return flint.arb(0), flint.arb(0)
        with flint.ctx.workprec(PRECISION):
            first: Any = flint.arb(0)
            second: Any = flint.arb(0)
            for row, chosen in zip(table, candidates, strict=True):
                hull = row[chosen[0]][1]
                for w in chosen[1:]:
                    hull = hull.union(row[w][1])
                first += hull
                second = second + row[chosen[0]][2] if second is not None and len(chosen) == 1 else None
        return first, second  # NaN where a candidate's enclosure is: no comparison with it decides

    def at(self, point: Fraction) -> Any:
        """A ball holding U'(point) (both one-sided derivatives, where a best action changes)."""
        sides = self.slopes(point, point)[0]
        with flint.ctx.workprec(PRECISION):
            return sides[0] if len(sides) == 1 else sides[0].union(sides[1])

    def crossing(self, y: int, w: int, u: int, a: Fraction, b: Fraction, pieces: int
                 ) -> tuple[Fraction, Fraction] | None:
        """Where E[w, y] − E[u, y], monotone on [a, b] and of opposite signs at its ends, vanishes:
        a bracket narrowed by bisection on point values (within the budget), or None."""
        with flint.ctx.workprec(PRECISION):
            row = self.table(a, b)[y]
            change = row[w][1] - row[u][1]

            def gap(at: Fraction) -> Any:
                row = self.table(at, at)[y]
                return row[w][0] - row[u][0]

            if not (change > 0 or change < 0):
                return None
            before, after = gap(a), gap(b)
            if not ((before < 0 and after > 0) or (before > 0 and after < 0)):
                return None
            return _bracket(a, b, gap, before < 0, self, pieces)


def _bracket(a: Fraction, b: Fraction, value: Callable[[Fraction], Any], negative_first: bool, slope: _LossSlope,
             pieces: int) -> tuple[Fraction, Fraction]:
    """Where a function with one sign change in [a, b] (negative at a when `negative_first`, else
    positive) changes sign: [a, b] narrowed by bisection on `value`'s balls at points, down to
    :data:`NARROWEST`, to a point whose sign is not decided, or to the end of the budget."""
    while b - a > a * NARROWEST and slope.calls < pieces:
        middle = _split(a, b)
        at = value(middle)
        if not (at < 0 or at > 0):
            break
        if (at < 0) == negative_first:
            a = middle
        else:
            b = middle
    return a, b


def _split(a: Fraction, b: Fraction) -> Fraction:
    """A simple rational inside (a, b): near the geometric mean on a wide piece, else in its middle half."""
    if b > 2 * a:
        middle = Fraction(math.sqrt(a) * math.sqrt(b)).limit_denominator(2**16)
        if a < middle < b:
            return middle
    return rational_between(a + (b - a) / 4, b - (b - a) / 4)


def count_loss_on_range(family: Callable[[Any], Channel], respondents: int, counted: Collection[Hashable],
                        prior: Prior, loss: Loss, low: Any, high: Any, *, known: Sequence[Hashable] = (),
                        release: Callable[[int], Hashable] | None = None, pieces: int = BALL_PIECES,
                        unknown_values: Sequence[Hashable] | None = None,
                        progress: Callable[[int], None] | None = None) -> BallRange:
    """Where the analyst's loss on a count pipeline rises and falls over e^ε in [low, high].

    Parameters
    ----------
    family : callable
        The perturber at an e^ε: called once with a sympy symbol, it must give a channel whose
        entries are rational functions of it (the toolkit's mechanisms do).
    respondents, counted, known, release, unknown_values
        As for :func:`qifkit.pipelines.count_uncertainty`.
    prior, loss : Prior, Loss
        Exact, on the pipeline's secrets.
    low, high
        The range of e^ε, 1 < low < high.
    pieces : int
        The budget: how many enclosures are computed before the rest is left undecided.
    progress : callable, optional
        Told how many enclosures have been computed, as each one begins.

    Returns
    -------
    BallRange
        Consecutive pieces covering [low, high], each falling, rising, turning or undecided. A
        rising or falling piece is proved (ball arithmetic); a caller that reports an instability
        confirms it by exact losses at two points of a rising piece.

    Raises
    ------
    PrivacyParameterError
        If low ≤ 1 or high ≤ low.
    LabelError
        If a counted value is not an output of the perturber, or the loss's secrets are not the pipeline's.
    UndecidableError
        If `family` does not give rational functions of e^ε, or an entry has a pole in the range.
    """
    low, high, t, channel = symbolic_on_range(family, low, high, "perturber")
    if not set(counted) <= set(channel.outputs):
        raise LabelError(f"a counted value is not an output of the perturber: {sorted(map(repr, counted))}")
    tally = [int(y in counted) for y in channel.outputs]
    slope = _LossSlope(channel, t, respondents, tally, prior, loss, known, release, low, high, unknown_values)
    slope.progress = progress
    return _pieces(slope, low, high, pieces)


def sum_loss_on_range(family: Callable[[Any], Channel], respondents: int, prior: Prior, loss: Loss, low: Any,
                      high: Any, *, known: Sequence[Hashable] = (), pieces: int = BALL_PIECES,
                      unknown_values: Sequence[Hashable] | None = None,
                      progress: Callable[[int], None] | None = None) -> BallRange:
    """As :func:`count_loss_on_range` for the sum query (:func:`qifkit.pipelines.sum_pipeline`): the
    perturber's outputs are whole numbers ≥ 0, each respondent's factor Σ_y C[v, y]·z^y.

    Examples
    --------
    Geometric reports on 3 values summed over 3 respondents, two known to hold 0 and 1, squared
    loss: the loss stays at 2/3 up to e^ε = (1 + √13)/2, where two outputs' best actions change
    together, and falls after (:func:`qifkit.stability.loss_on_range` agrees):

    >>> from qifkit import squared_error, truncated_geometric, uniform_prior
    >>> curve = sum_loss_on_range(lambda t: truncated_geometric(3, eps_exp=t), 3, uniform_prior(range(3)),
    ...                           squared_error(range(3)), "3/2", 8, known=(0, 1))
    >>> curve.monotone, curve.undecided
    (True, ())
    """
    low, high, t, channel = symbolic_on_range(family, low, high, "perturber")
    if not all(isinstance(y, int) and not isinstance(y, bool) and y >= 0 for y in channel.outputs):
        raise LabelError("a sum query needs perturber outputs that are whole numbers >= 0")
    tally = [int(y) for y in channel.outputs]  # type: ignore[call-overload]  # whole numbers, checked above
    slope = _LossSlope(channel, t, respondents, tally, prior, loss, known, None, low, high, unknown_values)
    slope.progress = progress
    return _pieces(slope, low, high, pieces)


def _pieces(slope: _LossSlope, low: Fraction, high: Fraction, pieces: int) -> BallRange:
    """[low, high] decided piece by piece (the module's docstring), within `pieces` enclosures."""
    found: list[Piece] = []
    stack = [(low, high)]
    while stack:
        a, b = stack.pop()
        if slope.calls >= pieces:
            found.append(Piece(a, b, UNDECIDED))
            continue
        sides, second, candidates = slope.slopes(a, b)
        if all(side <= 0 for side in sides):
            found.append(Piece(a, b, FALLING))
        elif all(side > 0 for side in sides):
            found.append(Piece(a, b, RISING))
        elif second is not None and (second > 0 or second < 0) and _monotone_slope(slope, a, b, found, pieces):
            pass
        elif second is not None and (direction := _centred(slope, a, b, second)) is not None:
            found.append(Piece(a, b, direction))
        elif b - a <= a * NARROWEST:
            found.append(Piece(a, b, UNDECIDED))
        else:
            stack += _parts(slope, a, b, candidates, pieces)
    return BallRange(low, high, tuple(found), slope.calls)


def _parts(slope: _LossSlope, a: Fraction, b: Fraction, candidates: list[list[int]], pieces: int
           ) -> list[tuple[Fraction, Fraction]]:
    """[a, b] cut in the pieces to decide next, last first: around the one change of best action
    on it when one label has two candidates whose difference is monotone (the bracket of the
    change, narrowed by bisection, is a piece of its own), else at a simple point inside."""
    torn = [(y, chosen) for y, chosen in enumerate(candidates) if len(chosen) > 1]
    if len(torn) == 1 and len(torn[0][1]) == 2:
        y, (w, u) = torn[0]
        bracket = slope.crossing(y, w, u, a, b, pieces)
        if bracket is not None and a < bracket[0] and bracket[1] < b:
            return [(bracket[1], b), bracket, (a, bracket[0])]
    middle = _split(a, b)
    return [(middle, b), (a, middle)]


def _centred(slope: _LossSlope, a: Fraction, b: Fraction, second: Any) -> str | None:
    """The mean-value form U'(t) ∈ U'(m) + U''([a, b])·(t − m), with m the point [a, b] would be
    split at (its value is kept for the halves): a direction, or None."""
    middle = _split(a, b)
    with flint.ctx.workprec(PRECISION):
        centred = slope.at(middle) + second * (_ball(a, b) - flint.arb(to_fmpq(middle)))
    return FALLING if centred <= 0 else RISING if centred > 0 else None


def _monotone_slope(slope: _LossSlope, a: Fraction, b: Fraction, found: list[Piece], pieces: int) -> bool:
    """On [a, b], where U' is monotone (U'' has one sign and no best action changes): its sign
    from U'(a) and U'(b); where they differ, U' has one root, located by bisection on point
    signs, and the loss turns there once. Appends the pieces and returns True, or returns False
    when the ends' signs are not decided."""
    left, right = slope.at(a), slope.at(b)
    if left <= 0 and right <= 0:
        found.append(Piece(a, b, FALLING))
    elif (left >= 0 and right > 0) or (left > 0 and right >= 0):
        found.append(Piece(a, b, RISING))
    elif (left < 0 and right > 0) or (left > 0 and right < 0):
        start, end = _bracket(a, b, slope.at, left < 0, slope, pieces)
        falling_first = left < 0
        found += [Piece(a, start, FALLING if falling_first else RISING), Piece(start, end, TURNING),
                  Piece(end, b, RISING if falling_first else FALLING)]
    else:
        return False
    return True
