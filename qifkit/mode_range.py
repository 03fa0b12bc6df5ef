"""One target's Bayes risk behind a count of many respondents, proved never to rise over a range of
e^ε by the mode of the others' count.

The setting (Alvim et al. 2023, §5 and Def. 10, with the population model of the deploy gate): one
target holds a value x, uniformly unknown over K values; every other respondent either is known to
hold a value or holds the population's mixture; each reports through the perturber C_t (t = e^ε),
and the count of reports in a set S is released. Write h_v(t) for the chance that a holder of v
reports in S. The others' count Z is a sum of independent Bernoulli variables, grouped by their
chance p_g = h_v (n_g respondents each), so its law q_t is Poisson-binomial: log-concave, hence
unimodal. The target adds one Bernoulli(h_x), so P(c | x) = q(c) + h_x·(q(c−1) − q(c)), and the
uniform analyst's Bayes vulnerability is

    V(t) = (1/K)·(1 + Δh(t)·M(t)),  Δh = max_x h_x − min_x h_x,  M = max_c q_t(c)

(for each c the best guess is the largest h_x where q(c−1) ≥ q(c) and the smallest otherwise; the
positive parts of q(c−1) − q(c) add up to q's largest value). The Bayes risk 1 − V never rises as
e^ε grows exactly where Δh·M never falls. On a piece [a, b] this is proved as follows:

* every p_g(t), t ∈ [a, b], lies in an interval [lo_g, hi_g] (exact ends where p_g is monotone,
  else the mean-value form in Arb balls); p_g' and (log Δh)' are enclosed in balls;
* raising any p_g raises the others' count in the likelihood-ratio order, so the modes of q_t lie
  between the smallest mode at the corner (lo_g) and the largest at the corner (hi_g): on the piece
  M = max over those candidate c of q_t(c);
* d/dt log q_t(c) = Σ_g p_g'·D_g with D_g = n_g·(r_g − 1)/(1 + p_g·(r_g − 1)), where
  r_g = s_g(c−1)/s_g(c) and s_g is the law of the others with one member of group g left out; r_g
  falls as any p rises, so its values at the two corners bound it on the piece;
* if (log Δh)' + Σ_g p_g'·D_g ≥ 0 on the piece for every candidate c, each Δh·q_t(c) is
  non-decreasing there, and so is their maximum, Δh·M: the risk never rises on the piece; if it is
  < 0 for every candidate, Δh·M falls and the risk rises on all of the piece.

The corners' laws are computed in float64 over windows around each group's mode. Every quantity is
non-negative, so each computed value carries a relative error of at most γ(R) = R·u/(1 − R·u),
R being the number of roundings on its longest chain (u = 2^-53; Higham, *Accuracy and Stability of
Numerical Algorithms*, §3.1); the mass left outside the windows is bounded by geometric series. The
corners' chances are rounded outward to floats, so the computed corners enclose the piece's. These
bounds enter the comparison, which is made in Arb balls: a piece is proved, never guessed. Where
the slope's sign is not reached (a turn of the risk, pieces narrower than 2^-40 of their left end)
the piece is left undecided.

Examples
--------
The count of category-0 reports among 300 respondents (a target and 299 known to hold 0, 1 or 2,
about a third each) behind the geometric mechanism on 3 values: the risk never rises on [2, 5].

>>> from qifkit import truncated_geometric
>>> curve = count_risk_on_range(lambda t: truncated_geometric(3, eps_exp=t), {0}, 2, 5,
...                             known=(0,) * 100 + (1,) * 100 + (2,) * 99)
>>> curve.monotone
True
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import sympy

from qifkit.ball_range import FALLING, RISING, UNDECIDED, BallRange, Piece, _ball, _fmpq_poly
from qifkit.channel import Channel
from qifkit.errors import LabelError, UndecidableError
from qifkit.real_roots import rational_between, sign_on
from qifkit.stability import symbolic_on_range

__all__ = ["MODE_PIECES", "count_risk_on_range"]

#: The default budget of :func:`count_risk_on_range`: how many pieces it examines.
MODE_PIECES = 20_000
#: A group's window ends where its weight falls below this fraction of its mode's.
WINDOW_FLOOR = 1e-22
#: A product of groups' laws keeps the entries above this fraction of its largest.
TRIM = 1e-22
#: The most candidate modes a piece may have before it is split.
MAX_CANDIDATES = 6
#: A piece narrower than this fraction of its left end is not split further.
NARROWEST = Fraction(1, 2**40)
#: Working precision of the balls, in bits.
PRECISION = 128
_UNIT = 2.0**-53


def _gamma(roundings: int) -> float:
    """Higham's γ(R) = R·u/(1 − R·u), rounded up a little: the relative error of R roundings."""
    bound = roundings * _UNIT
    if bound >= 0.5:
        raise UndecidableError(f"{roundings:,} roundings leave no bound on a float64 count law")
    return bound / (1 - bound) * (1 + 1e-12)


class _Rational:
    """A rational function of t, exactly (fmpq_poly numerator and denominator) and in balls."""

    def __init__(self, numerator: Any, denominator: Any) -> None:
        self.numerator, self.denominator = numerator, denominator
        slope = numerator.derivative() * denominator - numerator * denominator.derivative()
        self._balls = [[flint.arb(c) for c in reversed(poly.coeffs())]
                       for poly in (numerator, denominator, slope, denominator * denominator)]

    @classmethod
    def of(cls, expression: sympy.Expr, t: sympy.Symbol) -> _Rational:
        top, bottom = sympy.fraction(sympy.cancel(sympy.together(expression)))
        return cls(*(_fmpq_poly(part, t) for part in (top, bottom)))

    def at(self, x: Fraction) -> Fraction:
        point = flint.fmpq(x.numerator, x.denominator)
        value = self.numerator(point) / self.denominator(point)
        return Fraction(int(value.p), int(value.q))

    def _at_span(self, a: Fraction, b: Fraction) -> list[Any]:
        """Numerator, denominator, the slope's numerator and denominator on [a, b], in balls."""
        span = _ball(a, b)
        values = []
        for coefficients in self._balls:
            total = flint.arb(0)
            for coefficient in coefficients:
                total = total * span + coefficient
            values.append(total)
        return values

    def slope(self, a: Fraction, b: Fraction) -> Any:
        _, _, top, bottom = self._at_span(a, b)
        return top / bottom

    def log_slope(self, a: Fraction, b: Fraction) -> Any:
        """(log f)' = f'/f on [a, b], as one ball."""
        numerator, denominator, top, _ = self._at_span(a, b)
        return top / (numerator * denominator)

    def bounds(self, a: Fraction, b: Fraction) -> tuple[Fraction, Fraction]:
        """Exact lower and upper bounds of the function on [a, b]: its ends where its slope keeps
        one sign, else the mean-value form f(m) + f'([a, b])·([a, b] − m) in balls."""
        slope = self.slope(a, b)
        if slope > 0 or slope < 0:
            ends = sorted((self.at(a), self.at(b)))
            return ends[0], ends[1]
        middle = (a + b) / 2
        ball = _ball(self.at(middle), self.at(middle)) + slope * (_ball(a, b) - _ball(middle, middle))
        if not ball.is_finite():  # a piece too wide for the slope's ball: bounds that decide nothing
            return Fraction(0), Fraction(1)
        return _fraction(ball.lower()), _fraction(ball.upper())


def _fraction(ball: Any) -> Fraction:
    mantissa, exponent = ball.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _odds(p: Fraction, upward: bool) -> float:
    """p/(1 − p) as a float rounded down (or up): the corner's chance, moved outward."""
    odds = p / (1 - p)
    rounded = float(odds)
    if upward and Fraction(rounded) < odds:
        rounded = math.nextafter(rounded, math.inf)
    elif not upward and Fraction(rounded) > odds:
        rounded = math.nextafter(rounded, 0.0)
    return rounded


@dataclass(frozen=True)
class _Law:
    """A non-negative sequence in float64 from index `start`, a multiple of a count's law: each entry
    within a relative γ(`roundings`) of the true one, the true sequence exceeding the entries kept by
    at most `tail` in all (mass outside the window)."""

    values: np.ndarray
    start: int
    roundings: int
    tail: float

    @functools.cached_property
    def total(self) -> float:
        """An upper bound of the whole true sequence's sum: each kept entry's true value is at most
        1 + 2γ(roundings) times its float, the float sum at most 1 − γ(len) below theirs."""
        return float(self.values.sum()) * (1 + 3 * _gamma(self.roundings + len(self.values))) + self.tail

    def times(self, other: _Law) -> _Law:
        """The convolution, with its error and the mass it leaves out bounded."""
        terms = min(len(self.values), len(other.values))
        tail = self.tail * other.total + other.tail * self.total
        return _Law(np.convolve(self.values, other.values), self.start + other.start,
                    self.roundings + other.roundings + terms, tail)

    def entries(self, other: _Law, first: int, last: int) -> _Law:
        """Entries first..last of the convolution only, each a dot product."""
        values = []
        for index in range(first, last + 1):
            low = max(self.start, index - other.start - len(other.values) + 1)
            high = min(self.start + len(self.values), index - other.start + 1)
            if low >= high:
                values.append(0.0)
                continue
            mine = self.values[low - self.start:high - self.start]
            theirs = other.values[index - other.start - (high - 1):index - other.start - low + 1][::-1]
            values.append(float(np.dot(mine, theirs)))
        terms = min(len(self.values), len(other.values))
        tail = self.tail * other.total + other.tail * self.total
        return _Law(np.array(values), first, self.roundings + other.roundings + terms, tail)

    def trimmed(self) -> _Law:
        """The entries below :data:`TRIM` times the largest dropped, their sum added to the tail."""
        keep = np.nonzero(self.values >= self.values.max() * TRIM)[0]
        first, last = int(keep[0]), int(keep[-1]) + 1
        if first == 0 and last == len(self.values):
            return self
        dropped = float(self.values[:first].sum() + self.values[last:].sum())
        bound = dropped * (1 + 3 * _gamma(self.roundings + len(self.values)))  # as in :attr:`total`
        return _Law(self.values[first:last], self.start + first, self.roundings, self.tail + bound)


_ONE = _Law(np.ones(1), 0, 0, 0.0)


def _binomial(n: int, odds: float) -> _Law:
    """C(n, k)·odds^k / C(n, m)·odds^m for k in a window around the mode m, with the mass beyond
    the window bounded by the geometric series of the (falling) ratio at its ends."""
    if n == 0:
        return _Law(np.ones(1), 0, 0, 0.0)
    mode = min(n, math.floor((n + 1) * odds / (1 + odds)))
    reach = math.ceil(11 * (math.sqrt(n * odds) / (1 + odds) + 1)) + 20
    while True:
        law = _window(n, odds, mode, reach)
        if law is not None:
            return law
        reach *= 2


def _window(n: int, odds: float, mode: int, reach: int) -> _Law | None:
    """:func:`_binomial` on the window mode ± reach, or None if its ends are not yet in the tails."""
    top, bottom = min(n, mode + reach), max(0, mode - reach)
    up = np.arange(mode, top, dtype=float)
    upward = np.cumprod((n - up) / (up + 1) * odds)  # three roundings a step
    down = np.arange(mode, bottom, -1, dtype=float)
    downward = np.cumprod(down / ((n - down + 1) * odds))
    values = np.concatenate([downward[::-1], [1.0], upward])
    roundings = 3 * max(len(up), len(down))
    tail = 0.0
    for edge, ratio in ((top, (n - top) / (top + 1) * odds), (bottom, bottom / ((n - bottom + 1) * odds))):
        if edge in (0, n) and ratio == 0:
            continue
        ratio *= 1 + 1e-12
        end = values[-1] if edge == top else values[0]
        if ratio >= 1 or end > WINDOW_FLOOR:
            return None
        tail += end * (1 + 1e-9) * ratio / (1 - ratio)
    return _Law(values, bottom, roundings, tail)


def _one_fewer(law: _Law, n: int) -> _Law:
    """From C(n, k)·odds^k (up to a constant) to C(n − 1, k)·odds^k = C(n, k)·odds^k·(n − k)/n: two
    roundings more, and no more mass outside the window (the factor is at most 1)."""
    k = np.arange(law.start, law.start + len(law.values), dtype=float)
    return _Law(law.values * ((n - k) / n), law.start, law.roundings + 2, law.tail)


def _entry(law: _Law, index: int) -> tuple[Any, Any]:
    """Balls holding the true entry at `index` of the sequence `law` stands for."""
    position = index - law.start
    value = float(law.values[position]) if 0 <= position < len(law.values) else 0.0
    error = _gamma(law.roundings)
    low = flint.arb(value) * (1 - flint.arb(error))
    high = flint.arb(value) * (1 + 2 * flint.arb(error)) + flint.arb(law.tail)  # 1/(1 − γ) ≤ 1 + 2γ
    return low, high


class _Corner:
    """The others' count law with every group's chance at one corner of a piece's box, and, on
    demand, the laws with one member of a group left out (:meth:`ratio`)."""

    def __init__(self, sizes: Sequence[int], odds: Sequence[float]) -> None:
        self.sizes, self.odds = sizes, odds
        self.full = [_binomial(n, o) for n, o in zip(sizes, odds, strict=True)]
        self.prefix = [_ONE]
        for law in self.full:
            self.prefix.append(self.prefix[-1].times(law).trimmed())
        self.suffix = [_ONE]  # suffix[g] = groups g.. ; the whole product is prefix[-1]
        for law in reversed(self.full[1:]):
            self.suffix.append(self.suffix[-1].times(law).trimmed())
        self.law = self.prefix[-1]
        self.suffix.append(self.law)
        self.suffix.reverse()
        self._without: dict[int, _Law] = {}

    def modes(self) -> tuple[int, int]:
        """The least and greatest c whose computed weight could be the largest."""
        values, error = self.law.values, _gamma(self.law.roundings)
        peak = float(values.max())
        if self.law.tail > peak * 1e-9:  # a trimmed entry could then be a mode: never seen, refused
            raise UndecidableError("a count law's mass outside its window is not small beside its mode")
        threshold = peak * (1 - error) / (1 + error) - self.law.tail
        close = np.nonzero(values >= threshold * (1 - 1e-12))[0]
        return self.law.start + int(close[0]), self.law.start + int(close[-1])

    def ratio(self, g: int, c: int, first: int, last: int) -> tuple[Any, Any]:
        """Balls below and above r_g(c) = s_g(c − 1)/s_g(c), for first ≤ c ≤ last (the entries of
        s_g at first − 1 .. last are computed once, by dot products: s_g itself is never built)."""
        if g not in self._without:
            rest = _one_fewer(self.full[g], self.sizes[g]).times(self.suffix[g + 1])
            self._without[g] = self.prefix[g].entries(rest, first - 1, last)
        law = self._without[g]
        below_low, below_high = _entry(law, c - 1)
        at_low, at_high = _entry(law, c)
        infinite = flint.arb.pos_inf()  # s_g(c) may vanish: c beyond the others' largest count without g's one
        return (below_low / at_high if at_high > 0 else infinite), (below_high / at_low if at_low > 0 else infinite)


class _ModeSlope:
    """The piece-by-piece proof of the module's docstring."""

    def __init__(self, chances: Sequence[_Rational], sizes: Sequence[int], spread: _Rational) -> None:
        self.chances, self.sizes, self.spread = chances, sizes, spread
        self.calls = 0

    def slopes(self, a: Fraction, b: Fraction) -> dict[int, Any] | None:
        """For each candidate mode c on [a, b], a ball holding d/dt log(Δh·q_t(c)) at every t of
        [a, b]; None where a chance's box reaches 0 or 1 or the candidates are too many."""
        self.calls += 1
        with flint.ctx.workprec(PRECISION):
            boxes = [chance.bounds(a, b) for chance in self.chances]
            if any(not 0 < low <= high < 1 for low, high in boxes):
                return None
            low_corner = _Corner(self.sizes, [_odds(low, upward=False) for low, _ in boxes])
            high_corner = _Corner(self.sizes, [_odds(high, upward=True) for _, high in boxes])
            first, last = low_corner.modes()[0], high_corner.modes()[1]
            if last - first + 1 > MAX_CANDIDATES:
                return None
            slopes = [chance.slope(a, b) for chance in self.chances]
            spread = self.spread.log_slope(a, b)
            found = {}
            for c in range(first, last + 1):
                total = spread
                for g, (n, (p_low, p_high)) in enumerate(zip(self.sizes, boxes, strict=True)):
                    ratio_low, _ = high_corner.ratio(g, c, first, last)
                    _, ratio_high = low_corner.ratio(g, c, first, last)
                    total += slopes[g] * n * _falling_hull(ratio_low, ratio_high, p_low, p_high)
                found[c] = total
            return found

    def direction(self, a: Fraction, b: Fraction) -> str:
        """``"falling"`` if Δh·M is proved non-decreasing on [a, b] (the risk never rises there),
        ``"rising"`` if proved decreasing (every candidate's Δh·q_t(c) falls: so does their maximum,
        and the risk rises), else ``"undecided"``."""
        balls = self.slopes(a, b)
        if balls is None:
            return UNDECIDED
        if all(ball >= 0 for ball in balls.values()):
            return FALLING
        return RISING if all(ball < 0 for ball in balls.values()) else UNDECIDED


def _falling_hull(ratio_low: Any, ratio_high: Any, p_low: Fraction, p_high: Fraction) -> Any:
    """A ball holding (r − 1)/(1 + p·(r − 1)) for every r in [ratio_low, ratio_high] and p in
    [p_low, p_high]: it rises with r and falls with p, so two corners bound it."""

    def f(r: Any, p: Fraction) -> Any:  # at r = +∞ (s_g(c) = 0) its limit, 1/p
        return (r - 1) / (1 + _ball(p, p) * (r - 1)) if r.is_finite() else 1 / _ball(p, p)

    return f(ratio_low.lower(), p_high).union(f(ratio_high.upper(), p_low))


def count_risk_on_range(family: Callable[[Any], Channel], counted: Collection[Hashable], low: Any, high: Any, *,
                        known: Sequence[Hashable], target_values: Sequence[Hashable] | None = None,
                        pieces: int = MODE_PIECES, progress: Callable[[int], None] | None = None) -> BallRange:
    """Where one target's Bayes risk behind a count is proved never to rise as e^ε grows over
    [low, high], by the others' mode (the module's docstring).

    Parameters
    ----------
    family : callable
        The perturber at an e^ε: called once with a sympy symbol, it must give a channel whose
        entries are rational functions of it.
    counted : collection
        The outputs whose reports are counted (S).
    low, high
        The range of e^ε, 1 < low < high.
    known : sequence
        The value (a row label of the perturber) each other respondent holds; a row that mixes the
        values (a population's) stands for a respondent drawn from the population.
    target_values : sequence, optional
        The target's possible values, each equally likely; default every row of the perturber.
    pieces : int
        The budget: how many pieces are examined before the rest is left undecided (work, never the clock).
    progress : callable, optional
        Told how many pieces have been examined, as each one begins.

    Returns
    -------
    BallRange
        Consecutive pieces covering [low, high], each ``"falling"`` (the risk proved never to rise
        there), ``"rising"`` (proved to rise there) or ``"undecided"``. A caller that reports an
        instability confirms it by exact risks at two points of a rising piece.

    Raises
    ------
    PrivacyParameterError
        If low ≤ 1 or high ≤ low.
    LabelError
        If a counted value is not an output, or a known or target value not a row, of the perturber.
    UndecidableError
        If `family` does not give rational functions of e^ε, or the values with the highest and the
        lowest chance of a counted report are not the same on the whole range (this route needs them).
    """
    low, high, slope = mode_slope(family, counted, low, high, known, target_values)
    if slope is None:  # Δh ≡ 0: the count says nothing of the target, the risk is constant
        return BallRange(low, high, (Piece(low, high, FALLING),), 0)
    found: list[Piece] = []
    # left to right: a decided piece widens the next one by a quarter, an undecided one halves it down
    # to a narrowest width, which doubles with each undecided piece in a row (a stretch that neither
    # proof reaches is crossed in few steps)
    a, width, stuck = low, (high - low) / 64, 0
    while a < high:
        if progress is not None:
            progress(slope.calls)
        b = high if a + width >= high else rational_between(a + width * 3 / 4, a + width)
        if slope.calls >= pieces:
            found.append(Piece(a, high, UNDECIDED))
            break
        direction = slope.direction(a, b)
        if direction != UNDECIDED:
            found.append(Piece(a, b, direction))
            a, width, stuck = b, width * 5 / 4, 0
        elif b - a <= min(a * NARROWEST * 2**stuck, (high - low) / 16):
            found.append(Piece(a, b, UNDECIDED))
            a, width, stuck = b, 2 * (b - a), stuck + 1
        else:
            width = (b - a) / 2
    return BallRange(low, high, _merged_pieces(found), slope.calls)


def mode_slope(family: Callable[[Any], Channel], counted: Collection[Hashable], low: Any, high: Any,
               known: Sequence[Hashable], target_values: Sequence[Hashable] | None
               ) -> tuple[Fraction, Fraction, _ModeSlope | None]:
    """The range's exact ends and the piece-by-piece slopes of :func:`count_risk_on_range` (its
    arguments and errors), or None for the slopes where every target value has the same chance."""
    low, high, t, channel = symbolic_on_range(family, low, high, "perturber")
    if not set(counted) <= set(channel.outputs):
        raise LabelError(f"a counted value is not an output of the perturber: {sorted(map(repr, counted))}")
    values = list(channel.secrets if target_values is None else target_values)
    holders = Counter(known)
    if not set(values) <= set(channel.secrets) or not set(holders) <= set(channel.secrets):
        raise LabelError("a target or known value is not a row of the perturber")
    chance = {x: sympy.cancel(sum((entry for entry, y in zip(row, channel.outputs, strict=True) if y in counted),
                                  sympy.Integer(0)))
              for x, row in zip(channel.secrets, channel.rows(), strict=True)}
    spread = _spread(values, chance, t, low, high)
    merged: dict[sympy.Expr, int] = {}
    for value, count in holders.items():
        merged[chance[value]] = merged.get(chance[value], 0) + count
    # a sure report (chance 0 or 1) only shifts the count; every other group shapes its law, varying or not
    uncertain = {expression: count for expression, count in merged.items() if expression not in (0, 1)}
    if spread is None:
        return low, high, None
    return low, high, _ModeSlope([_Rational.of(e, t) for e in uncertain], list(uncertain.values()), spread)


def _spread(values: Sequence[Hashable], chance: dict[Hashable, sympy.Expr], t: sympy.Symbol, low: Fraction,
            high: Fraction) -> _Rational | None:
    """Δh = h_top − h_bottom as a rational function, with top and bottom the values proved (exact
    sign proofs) to have the highest and the lowest chance on the whole range; None where every
    value has the same chance."""
    middle = rational_between(low, high)
    at_middle = {x: chance[x].subs(t, sympy.Rational(middle.numerator, middle.denominator)) for x in values}
    top = max(values, key=lambda x: at_middle[x])
    bottom = min(values, key=lambda x: at_middle[x])
    difference = sympy.cancel(chance[top] - chance[bottom])
    if difference == 0:
        return None
    for x in values:
        for side in (chance[top] - chance[x], chance[x] - chance[bottom]):
            side = sympy.cancel(side)
            if side != 0 and sign_on(side, t, low, high, allow_zero=True) != 1:
                raise UndecidableError("the values with the highest and lowest chance of a counted report change on "
                                       "the range; the mode route needs them fixed")
    return _Rational.of(difference, t)


def _merged_pieces(found: Sequence[Piece]) -> tuple[Piece, ...]:
    """The pieces in order, consecutive ones of one direction merged."""
    merged: list[Piece] = []
    for piece in sorted(found, key=lambda p: p.low):
        if merged and merged[-1].direction == piece.direction and merged[-1].high == piece.low:
            merged[-1] = Piece(merged[-1].low, piece.high, piece.direction)
        else:
            merged.append(piece)
    return tuple(merged)
