"""Stability of privacy pipelines (Alvim et al. 2023, Defs. 9-10, Thm. 20).

A pipeline family C_ε·P is *stable* when a more private perturber never gives a more useful
pipeline: for ε' ≤ ε, C_ε ⊑ C_ε' must imply C_ε·P ⊑ C_ε'·P. This module offers

* Thm. 20's equality test P·⁻¹P·W·P = W·P (condition (11)) for a deterministic P and a witness W;
* exact refinement between two pipelines of a family, with the certificate of
  :func:`qifkit.refines` (a failed refinement *is* an instability, with its prior, loss and gap);
* ℓ-stability curves: one analyst's expected loss over a grid of ε, and the first place where it
  rises as privacy falls;
* the same analyst over *every* e^ε of an interval (:func:`loss_on_range`): the loss as an exact
  piecewise rational function of e^ε and the stretches where it rises, with exact endpoints;
* every analyst over every pair of e^ε of an interval, for count queries whose perturber has two
  hit probabilities (:func:`count_refinement_on_range`): a proof by sign conditions in one variable.

Examples
--------
>>> from qifkit import Channel, randomized_response
>>> parity = Channel.from_rows([[1, 0], [0, 1], [1, 0]])
>>> condition_11(parity, randomized_response(3, eps_exp="2").matrix)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from qifkit.channel import Channel
from qifkit.errors import ParameterError, PrivacyParameterError, QifError, ShapeError, UndecidableError
from qifkit.expressions import parse_rational_function
from qifkit.matrices import Matrix, NumberKind, equal, matmul
from qifkit.measures import Loss, Prior, expected_table, posterior_uncertainty
from qifkit.numbers import exact_eps_exp
from qifkit.postprocess import left_inverse
from qifkit.real_roots import RealPoint, rational_between, real_roots, sign_on, value
from qifkit.refinement import Refinement, refines
from qifkit.validation import whole_number

__all__ = [
    "symbolic_on_range",
    "range_proof_defect",
    "condition_11",
    "pipeline_refinement",
    "Instability",
    "instabilities",
    "smallest_instability",
    "LossCurve",
    "loss_curve",
    "RangeLoss",
    "loss_on_range",
    "SampledRise",
    "RangeSearch",
    "RangeRoutes",
    "range_routes",
    "search_rises",
    "sample_grid",
    "DICHOTOMY_WEIGHTS",
    "dichotomy_risks",
    "DichotomyRise",
    "dichotomy_rises",
    "CountRangeProof",
    "count_refinement_on_range",
]


def condition_11(post: Channel, witness: Channel | Matrix) -> bool:
    """Thm. 20's condition (11): P·⁻¹P·W·P = W·P, decided exactly (W may be symbolic).

    By Thm. 20 (the "if and only if" (12)) it holds exactly when P ⊑ W·P.
    """
    w = witness.matrix if isinstance(witness, Channel) else witness
    p = post.matrix
    inverse = left_inverse(post).matrix
    w_p = matmul(w, p)
    return equal(matmul(matmul(p, inverse), w_p), w_p)


def pipeline_refinement(build: Callable[[Any], Channel], eps_exp_high: Any, eps_exp_low: Any,
                        candidate: Channel | None = None, time_limit: float | None = None) -> Refinement:
    """Decide C_ε·P ⊑ C_ε'·P for e^ε = `eps_exp_high` ≥ e^ε' = `eps_exp_low`, with a certificate.

    `build(eps_exp)` returns the pipeline channel at that e^ε. A refutation is an instability: the
    analyst of its prior and loss does strictly better with the *more private* pipeline. A
    `candidate` witness (e.g. :func:`qifkit.pipelines.count_witness`) is tried first and accepted
    only after the exact check of :func:`qifkit.refines`. `time_limit` (seconds) bounds its LP as
    for :func:`qifkit.refines`: HiGHS itself stops then, and the call raises
    :class:`~qifkit.errors.TimeLimitReached` rather than answering.
    """
    if exact_eps_exp(eps_exp_high) < exact_eps_exp(eps_exp_low):
        raise ShapeError(f"eps_exp_high = {eps_exp_high} is below eps_exp_low = {eps_exp_low}")
    return refines(build(eps_exp_high), build(eps_exp_low), candidate=candidate, time_limit=time_limit)


@dataclass(frozen=True)
class Instability:
    """A certified instability: the pipeline at e^ε = `eps_exp_high` does not refine the more
    private one at `eps_exp_low`; `certificate` holds the prior, the loss and the exact gap."""

    eps_exp_low: Any
    eps_exp_high: Any
    certificate: Refinement


def instabilities(build: Callable[[Any], Channel], eps_grid: Sequence[Any]) -> list[Instability]:
    """Every pair e^ε' < e^ε of `eps_grid` for which C_ε·P ⋢ C_ε'·P, with its certificate.

    Complexity: one exact refinement decision per pair of the grid (each pipeline built once).
    """
    grid = sorted(set(eps_grid), key=exact_eps_exp)
    pipelines = {e: build(e) for e in grid}
    found = []
    for position, low in enumerate(grid):
        for high in grid[position + 1 :]:
            result = refines(pipelines[high], pipelines[low])
            if not result.holds:
                found.append(Instability(low, high, result))
    return found


def smallest_instability(candidates: Iterable[tuple[Any, Callable[[Any], Channel]]],
                         eps_grid: Sequence[Any]) -> tuple[dict[Any, int], Any, list[Instability]]:
    """Search pipelines in the given order (smallest first) for certified instabilities.

    `candidates` yields ``(parameters, build)`` pairs; for each, every pair of `eps_grid` is
    decided. Returns the number of unstable pairs per parameters, the first parameters with an
    instability (None if there is none) and that candidate's instabilities.
    """
    table: dict[Any, int] = {}
    first, found_there = None, []
    for parameters, build in candidates:
        found = instabilities(build, eps_grid)
        table[parameters] = len(found)
        if found and first is None:
            first, found_there = parameters, found
    return table, first, found_there


@dataclass(frozen=True)
class LossCurve:
    """One analyst's expected loss U_ℓ(π, C_ε·P) over increasing e^ε.

    ``monotone`` is True when the loss never rises as e^ε grows (less privacy, never less
    utility). Otherwise ``violation`` is the first pair ``(eps_exp_low, eps_exp_high, gap)`` with
    gap = U(high) − U(low) > 0.
    """

    eps_exp: tuple[Any, ...]
    values: tuple[Any, ...]
    monotone: bool
    violation: tuple[Any, Any, Any] | None


def loss_curve(build: Callable[[Any], Channel], eps_grid: Sequence[Any], prior: Prior | Sequence[Any], loss: Loss,
               uncertainty: Callable[[Any], Any] | None = None) -> LossCurve:
    """U_ℓ(π, build(e^ε)) for every e^ε of `eps_grid` (sorted increasing), and its first rise.

    Exact when `build` gives exact channels; a float pipeline gives a float curve (reported as
    such by its float values). `uncertainty`, if given, is a faster route to the same value at an
    e^ε that does not form the pipeline (e.g. :func:`qifkit.pipelines.count_uncertainty`).
    """
    grid = sorted(eps_grid, key=exact_eps_exp)
    values = tuple(posterior_uncertainty(prior, build(e), loss) if uncertainty is None else uncertainty(e)
                   for e in grid)
    violation = next(((grid[i], grid[i + 1], values[i + 1] - values[i])
                      for i in range(len(grid) - 1) if values[i + 1] > values[i]), None)
    return LossCurve(tuple(grid), values, violation is None, violation)


@dataclass(frozen=True)
class RangeLoss:
    """One analyst's expected loss at every e^ε of [low, high], decided exactly.

    ``rising`` lists the maximal stretches (start, end) on which the loss strictly increases as
    e^ε grows (less privacy, less utility: an ℓ-instability of Def. 10 between any two e^ε of a
    stretch); the ends are exact (:class:`~qifkit.real_roots.RealPoint`: rational, or an algebraic
    number with its isolating interval). ``breakpoints`` are the e^ε where the analyst's best
    action changes for some output; between them the loss is one rational function of e^ε.
    ``loss_low`` and ``loss_high`` are the exact losses at the ends. ``rise_bounds``, when a
    tolerance was given to :func:`loss_on_range`, has for each rising stretch rational bounds
    (lower, upper) of how much the loss rises over it, L(end) − L(start); upper is None where no
    bound was found within the work allowed.
    """

    low: Fraction
    high: Fraction
    rising: tuple[tuple[RealPoint, RealPoint], ...]
    breakpoints: tuple[RealPoint, ...]
    loss_low: Fraction
    loss_high: Fraction
    rise_bounds: tuple[tuple[Fraction, Fraction | None], ...] = ()

    @property
    def monotone(self) -> bool:
        """True when the loss never rises on [low, high]."""
        return not self.rising


def loss_on_range(build: Callable[[Any], Channel], low: Any, high: Any, prior: Prior | Sequence[Any],
                  loss: Loss, tolerance: Fraction | None = None,
                  progress: Callable[[str], None] | None = None) -> RangeLoss:
    """U_ℓ(π, build(e^ε)) for every e^ε in [low, high], and the stretches where it rises.

    `build` is called once with a sympy symbol t standing for e^ε and must return the pipeline with
    entries rational functions of t (the toolkit's mechanisms and pipelines accept a symbol).
    Method, exact throughout (Alvim et al. 2023, Def. 2 and Def. 10): for each output y and action
    w, E[w, y](t) = Σ_x π_x C_t[x, y] ℓ(x, w) is a rational function; over one output the
    functions share a denominator positive on the interval, so the best action can change only at
    real roots of differences of numerators. Between those breakpoints the loss is a single
    rational function, and it rises exactly where the numerator of its derivative is positive;
    every such numerator's roots are added, and the sign is decided at one rational point of
    each gap (:mod:`qifkit.real_roots`). No floating point is used.

    With a `tolerance`, each rising stretch's rise L(end) − L(start) is also bounded: below by the
    exact losses at rationals just inside its ends, above by enclosing the loss at each algebraic
    end (the piece's rational function in centred form over the end's isolating interval), the
    intervals narrowed (widths 2^-32 down to 2^-1024 of the range) until the bounds settle which
    side of the tolerance the rises are on (their sum at most it, or one of them beyond it).
    `progress`, if given, is told as each step ends (the pipeline built, the changes of best action
    isolated, the slope's sign decided).

    Complexity: one symbolic pipeline, and for every output a root isolation of each pair of
    distinct expected-loss polynomials, so it suits pipelines of tens of secrets and actions
    (App. D.1: 7 secrets, 5 outputs, in a fraction of a second).

    Raises
    ------
    PrivacyParameterError
        If low ≤ 1 or high ≤ low.
    UndecidableError
        If `build` does not give a channel over rational functions of t, or a denominator of the
        pipeline vanishes inside the interval.

    Examples
    --------
    App. D.1's pipeline (geometric perturber on 7 values, 4 respondents of whom 3 are known, the
    count of zeros, linear loss). The paper's grid shows the loss rising from e^ε = 7/2 to 351/100;
    over every e^ε of [3, 4] it rises on exactly one stretch, from its minimum at a root of a
    degree-9 polynomial (3.500544517844…, just after 7/2) to a change of best action at
    3.516615491052…, and falls elsewhere.

    >>> from qifkit import truncated_geometric, uniform_prior, linear_error
    >>> from qifkit.pipelines import count_pipeline
    >>> build = lambda t: count_pipeline(truncated_geometric(7, eps_exp=t), 4, {0}, (0, 1, 1))
    >>> curve = loss_on_range(build, 3, 4, uniform_prior(range(7)), linear_error(range(7)))
    >>> [(a.decimal(12), b.decimal(12)) for a, b in curve.rising]
    [('3.500544517844', '3.516615491052')]
    """
    say = progress or (lambda line: None)
    low, high, t, channel = symbolic_on_range(build, low, high, "pipeline")
    say(f"exact route: the pipeline built as rational functions of e^ε ({channel.shape[0]:,} × {channel.shape[1]:,})")
    domain, table = expected_table(prior, channel, loss)
    columns = [_column(domain, column, t, low, high) for column in zip(*table, strict=True)]
    differences = [f - g for denominator, polys in columns for i, f in enumerate(polys) for g in polys[i + 1:]]
    breakpoints = real_roots(differences, low, high)
    say(f"exact route: {len(breakpoints):,} changes of best action isolated among {len(differences):,} differences")

    def chosen(at: Fraction) -> list[sympy.Poly]:
        return [min(polys, key=lambda f: value(f, at)) for _, polys in columns]

    total_denominator = columns[0][0]
    for denominator, _ in columns[1:]:
        total_denominator = total_denominator.lcm(denominator)
    cofactors = [total_denominator.quo(d) for d, _ in columns]
    total_slope = total_denominator.diff(t)

    def slope_numerator(best: list[sympy.Poly]) -> sympy.Poly:
        """The numerator of the loss's derivative when each output's best action is `best`."""
        numerator = sum((f * c for f, c in zip(best, cofactors, strict=True)), sympy.Poly(0, t))
        return numerator.diff(t) * total_denominator - numerator * total_slope

    ends = [RealPoint(low), *breakpoints, RealPoint(high)]
    slopes = [slope_numerator(chosen(rational_between(a, b))) for a, b in zip(ends, ends[1:], strict=False)]
    points = [RealPoint(low), *real_roots(differences + [p for p in slopes if not p.is_zero], low, high),
              RealPoint(high)]
    say(f"exact route: the loss's slope isolated on {len(slopes):,} pieces; its sign decided at {len(points) - 1:,} "
        "points")
    stretches: list[list[Any]] = []  # start, end, and a rational inside the first and the last piece
    for a, b in zip(points, points[1:], strict=False):
        middle = rational_between(a, b)
        if value(slope_numerator(chosen(middle)), middle) > 0:
            if stretches and stretches[-1][1] is a:
                stretches[-1][1], stretches[-1][3] = b, middle
            else:
                stretches.append([a, b, middle, middle])

    def loss_at(at: Fraction) -> Fraction:
        return sum((value(f, at) / value(d, at) for f, (d, _) in zip(chosen(at), columns, strict=True)), Fraction(0))

    def piece(inside: Fraction) -> sympy.Poly:
        """The numerator, over the common denominator, of the loss on the piece holding `inside`."""
        return sum((f * c for f, c in zip(chosen(inside), cofactors, strict=True)), sympy.Poly(0, t))

    bounds = () if tolerance is None or not stretches else _rise_bounds(
        [(a, b, piece(first), piece(last)) for a, b, first, last in stretches], total_denominator, loss_at,
        high - low, tolerance)
    return RangeLoss(low, high, tuple((a, b) for a, b, _, _ in stretches), tuple(breakpoints), loss_at(low),
                     loss_at(high), bounds)


#: The widths (as fractions of the range) that :func:`_rise_bounds` narrows a stretch's ends to, in turn.
_RISE_WIDTHS = tuple(Fraction(1, 2 ** (32 << k)) for k in range(6))


def _rise_bounds(stretches: Sequence[tuple[RealPoint, RealPoint, sympy.Poly, sympy.Poly]], denominator: sympy.Poly,
                 loss_at: Callable[[Fraction], Fraction], length: Fraction, tolerance: Fraction
                 ) -> tuple[tuple[Fraction, Fraction | None], ...]:
    """For each rising stretch (start, end, the loss's numerator on its first and on its last piece),
    rational bounds of L(end) − L(start) (:func:`loss_on_range`, with a tolerance; the upper one
    None while an end's interval is too wide to bound the loss there). Work is bounded by
    :data:`_RISE_WIDTHS`, never by the clock."""
    found: list[tuple[Fraction, Fraction | None]] = []
    for width in _RISE_WIDTHS:
        found = []
        for start, end, first, last in stretches:
            (start_low, start_high), (end_low, end_high) = (point.narrowed(width * length) for point in (start, end))
            at_end, at_start = _enclosure(last, denominator, end_low, end_high), _enclosure(first, denominator,
                                                                                             start_low, start_high)
            upper = None if at_end is None or at_start is None else at_end[1] - at_start[0]
            lower = loss_at(end_low) - loss_at(start_high) if start_high < end_low else Fraction(0)
            found.append((max(lower, Fraction(0)), upper))
        uppers = [upper for _, upper in found if upper is not None]
        if (len(uppers) == len(found) and sum(uppers, Fraction(0)) <= tolerance
                or max(low for low, _ in found) > tolerance):
            break
    return tuple(found)


def _enclosure(numerator: sympy.Poly, denominator: sympy.Poly, low: Fraction, high: Fraction
               ) -> tuple[Fraction, Fraction] | None:
    """Rational bounds of numerator/denominator on [low, high], where the denominator is positive
    (None when the interval is too wide for its enclosure to stay positive): each polynomial in
    centred form, p(m) ± Σ_k |p_k| r^k with p(m + s) = Σ_k p_k s^k."""
    middle, radius = (low + high) / 2, (high - low) / 2

    def centred(p: sympy.Poly) -> tuple[Fraction, Fraction]:
        coefficients = p.shift(sympy.Rational(middle.numerator, middle.denominator)).all_coeffs()[::-1]
        exact = [Fraction(int(c.p), int(c.q)) for c in map(sympy.Rational, coefficients)]
        spread = sum((abs(c) * radius**k for k, c in enumerate(exact) if k), Fraction(0))
        return exact[0] - spread, exact[0] + spread

    top, bottom = centred(numerator), centred(denominator)
    if bottom[0] <= 0:
        return None
    quotients = [a / b for a in top for b in bottom]
    return min(quotients), max(quotients)


@dataclass(frozen=True)
class RangeRoutes:
    """The routes that follow one analyst's loss on a range, in the order they are tried
    (:func:`range_routes`): ``"exact"`` (:func:`loss_on_range`, root isolation), ``"sampled"``
    (:func:`search_rises`, float samples whose rises are re-decided exactly) and ``"ball"`` (ball
    arithmetic, :mod:`qifkit.ball_range`); ``why`` says why the exact route is not first (None when
    it is)."""

    routes: tuple[str, ...]
    why: str | None = None


def range_routes(entries: int, work: int, *, max_entries: int, follow_work: int, ball: bool) -> RangeRoutes:
    """Which routes follow an analyst's loss on a range, chosen by work before any starts.

    Parameters
    ----------
    entries : int
        The pipeline's entries (secrets × outputs), each a rational function of e^ε for the exact route.
    work : int
        The exact route's estimated work (entries × degree²).
    max_entries : int
        The most entries the exact route builds as rational functions.
    follow_work : int
        The most work the exact route starts on without a float search first.
    ball : bool
        Whether ball arithmetic applies (count, threshold, map and sum releases).

    Returns
    -------
    RangeRoutes
        Within both limits, the exact route alone. Beyond either, the float search first (a rise it
        confirms exactly decides), then ball arithmetic where it applies, then the exact route only
        if the entries are within `max_entries`.

    Examples
    --------
    >>> range_routes(100, 10**4, max_entries=2000, follow_work=4 * 10**6, ball=True).routes
    ('exact',)
    >>> range_routes(10**6, 10**9, max_entries=2000, follow_work=4 * 10**6, ball=True).routes
    ('sampled', 'ball')
    """
    if entries <= max_entries and work <= follow_work:
        return RangeRoutes(("exact",))
    why = (f"{entries:,} pipeline entries, beyond {max_entries:,} for a symbolic build" if entries > max_entries else
           f"symbolic work {work:,} = entries × degree², beyond {follow_work:,} before a search")
    return RangeRoutes(("sampled",) + (("ball",) if ball else ()) + (("exact",) if entries <= max_entries else ()), why)



@dataclass(frozen=True)
class SampledRise:
    """A stretch of a float search where the loss rose, confirmed exactly: between the samples
    `start` and `end` the floats rise, and the exact losses at the sampled e^ε `low` < `high` in it
    are `loss_low` < `loss_high` (an ℓ-instability of Alvim et al. Def. 10, whatever the floats)."""

    start: Fraction
    end: Fraction
    low: Fraction
    high: Fraction
    loss_low: Any
    loss_high: Any


@dataclass(frozen=True)
class RangeSearch:
    """What :func:`search_rises` saw: its sampled e^ε, the rises it confirmed exactly, and how
    many rises of the floats the exact losses did not confirm (float noise, or a rise between the
    two e^ε tried)."""

    samples: tuple[Fraction, ...]
    confirmed: tuple[SampledRise, ...]
    unconfirmed: int


def sample_grid(low: Any, high: Any, samples: int = 200) -> list[Fraction]:
    """`samples` rational e^ε from `low` to `high` (both included), spread evenly in ε = ln e^ε:
    each inside point is the simplest rational within a quarter of its gap of the even point
    (exact losses cost with the digits of e^ε). The float searches' grid."""
    low, high = exact_eps_exp(low), exact_eps_exp(high)
    if not 1 < low < high:
        raise PrivacyParameterError(f"the range of e^ε must satisfy 1 < low < high, got [{low}, {high}]")
    whole_number(samples, 3, "samples", error=ParameterError)
    step = (math.log(high) - math.log(low)) / (samples - 1)  # in ε; each sample moves by at most a quarter of its gap
    points = (math.exp(math.log(low) + step * k) for k in range(1, samples - 1))
    inside = {rational_between(Fraction(x - x * math.expm1(step) / 4), Fraction(x + x * math.expm1(step) / 4))
              for x in points}
    return sorted({low, high} | {v for v in inside if low < v < high})


def search_rises(float_losses: Callable[[Sequence[Fraction]], Sequence[float]], exact_loss: Callable[[Fraction], Any],
                 low: Any, high: Any, samples: int = 200) -> RangeSearch:
    """Search [low, high] for e^ε where an analyst's loss rises: floats search, exact losses decide.

    The loss is computed in float64 by `float_losses` at `samples` rational e^ε spread evenly in
    ε = ln e^ε (the simplest rational within a quarter of each gap: exact losses cost with the
    digits of e^ε), and each run of consecutive rises of the floats is re-decided by `exact_loss`
    at two sampled e^ε: the run's first step (the smallest e^ε, the cheapest numbers), then its two
    ends. A confirmed rise is a certified instability, whatever the floats said between; a range
    with none confirmed is only searched, not proved monotone (a rise between two samples can be
    missed), for which :func:`loss_on_range` is the exact route.

    Examples
    --------
    >>> curve = lambda e: (e - 3) ** 2  # falls to its minimum at e^ε = 3, then rises
    >>> found = search_rises(lambda es: [float(curve(e)) for e in es], curve, 2, 4, samples=20)
    >>> [(float(r.start), float(r.end)) for r in found.confirmed], found.unconfirmed
    ([(3.0, 4.0)], 0)
    """
    grid = sample_grid(low, high, samples)
    losses = list(float_losses(grid))
    noise = 1e-9 * max(abs(v) for v in losses)
    runs, start = [], None
    for k in range(len(grid) - 1):
        if losses[k + 1] - losses[k] > noise:
            start = k if start is None else start
        elif start is not None:
            runs.append((start, k))
            start = None
    if start is not None:
        runs.append((start, len(grid) - 1))
    confirmed = []
    for first, last in runs:
        for a, b in dict.fromkeys(((grid[first], grid[first + 1]), (grid[first], grid[last]))):
            lower, upper = exact_loss(a), exact_loss(b)
            if upper > lower:
                confirmed.append(SampledRise(grid[first], grid[last], a, b, lower, upper))
                break
    return RangeSearch(tuple(grid), tuple(confirmed), len(runs) - len(confirmed))


def symbolic_on_range(build: Callable[[Any], Channel], low: Any, high: Any, what: str
                       ) -> tuple[Fraction, Fraction, sympy.Symbol, Channel]:
    """The range's exact ends (checked 1 < low < high), the symbol t standing for e^ε, and
    build(t), which must have entries that are rational functions of t."""
    low, high = exact_eps_exp(low), exact_eps_exp(high)
    if not 1 < low < high:
        raise PrivacyParameterError(f"the range of e^ε must satisfy 1 < low < high, got [{low}, {high}]")
    t = sympy.Symbol("t", positive=True)
    channel = build(t)
    if channel.kind is not NumberKind.SYMBOLIC or tuple(channel.matrix.domain.symbols) != (t,):
        raise UndecidableError(f"the {what} must have entries that are rational functions of e^ε "
                               f"(built from the symbol it is given), got {channel.kind.name.lower()} entries")
    return low, high, t, channel


def _column(domain: Any, entries: Sequence[Any], t: sympy.Symbol, low: Fraction, high: Fraction
            ) -> tuple[sympy.Poly, list[sympy.Poly]]:
    """One output's expected losses as numerators over a common denominator that is positive on
    [low, high]; duplicates dropped."""
    fractions = [sympy.fraction(sympy.cancel(domain.to_sympy(e))) for e in entries]
    numerators = [sympy.Poly(n, t, domain="QQ") for n, _ in fractions]
    denominators = [sympy.Poly(d, t, domain="QQ") for _, d in fractions]
    common = denominators[0]
    for d in denominators[1:]:
        common = common.lcm(d)
    if common.degree() > 0 and common.count_roots(sympy.Rational(low), sympy.Rational(high)) > 0:
        raise UndecidableError(f"a pipeline denominator, {common.as_expr()}, vanishes between e^ε = {low} and {high}")
    sign = 1 if value(common, low) > 0 else -1
    polys: dict[Any, Any] = {}
    for n, d in zip(numerators, denominators, strict=True):
        f = n * common.quo(d) * sign
        polys.setdefault(tuple(f.all_coeffs()), f)
    return common * sign, list(polys.values())


@dataclass(frozen=True)
class CountRangeProof:
    """A proof that count pipelines refine for every low ≤ e^ε' ≤ e^ε ≤ high: C_ε·P ⊑ C_ε'·P for
    any number of respondents and any known ones, so no analyst ever gains from less privacy.

    ``hit`` and ``miss`` are the two probabilities H(t) > M(t) (t = e^ε) that a respondent's report
    is counted, by secret value; ``conditions`` are the sign conditions proved exactly on [low,
    high] (see :func:`count_refinement_on_range`).
    """

    low: Fraction
    high: Fraction
    hit: str
    miss: str
    conditions: tuple[str, ...]


def count_refinement_on_range(perturber: Callable[[Any], Channel], counted: Iterable[Any], low: Any, high: Any
                              ) -> tuple[CountRangeProof | None, str]:
    """Prove the stability of count pipelines over every e^ε of [low, high], or say why not.

    Method. A count pipeline sees each respondent only through the probability h_v(t) that a
    report of value v is counted (:func:`qifkit.pipelines.count_pipeline`). When h takes two
    values, H(t) > M(t), the pipeline at t' ≤ t is the one at t post-processed by the 2×2 channel
    of :func:`qifkit.pipelines.count_witness` (counted stays counted with probability a, uncounted
    becomes counted with probability b), lumped to the counts (Alvim et al. 2023, App. A), as long
    as a and b lie in [0, 1]. Solving for them, that holds exactly when M(t')/H(t') ≥ M(t)/H(t)
    and (1 − H(t'))/(1 − M(t')) ≥ (1 − H(t))/(1 − M(t)) — both follow, for every t' ≤ t of the
    interval, from: H − M > 0 on [low, high], and the two ratios M/H and (1 − H)/(1 − M) are
    non-increasing there. Each is a sign condition on a polynomial in t, decided exactly at the
    interval's ends and between the real roots (:mod:`qifkit.real_roots`). One value of h: the
    count carries no information and the pipelines are all equal.

    Returns
    -------
    (CountRangeProof, "") when proved; (None, reason) when the route does not apply (more than two
    hit probabilities) or a condition fails (then the pipelines may still refine at some pairs).

    Examples
    --------
    Randomized response on 4 values, counting one of them, for every e^ε in [3/2, 8]:

    >>> from qifkit import randomized_response
    >>> proof, _ = count_refinement_on_range(lambda t: randomized_response(4, eps_exp=t), {0}, "3/2", 8)
    >>> proof.hit, proof.miss
    ('t/(t + 3)', '1/(t + 3)')
    """
    low, high, t, channel = symbolic_on_range(perturber, low, high, "perturber")
    hits = _hit_probabilities(channel, counted)
    if len(hits) == 1:
        return CountRangeProof(low, high, _written(hits[0]), _written(hits[0]),
                               ("one hit probability: the count is blind",)), ""
    if len(hits) > 2:
        return None, f"the perturber has {len(hits)} hit probabilities; this proof needs two"
    gap_sign = sign_on(sympy.cancel(hits[0] - hits[1]), t, low, high)
    if gap_sign in (0, None):
        return None, "the two hit probabilities are not strictly ordered on the whole range"
    hit, miss = (hits[0], hits[1]) if gap_sign > 0 else (hits[1], hits[0])
    failed, conditions = _proof_conditions(hit, miss, t, low, high)
    if failed:
        return None, failed
    return CountRangeProof(low, high, _written(hit), _written(miss), conditions), ""


def _hit_probabilities(channel: Channel, counted: Iterable[Any]) -> list[sympy.Expr]:
    """The distinct probabilities, one per secret value, that a report is counted (cancelled)."""
    columns = [j for j, y in enumerate(channel.outputs) if y in set(counted)]
    hits: list[sympy.Expr] = []
    for row in channel.rows():
        h = sympy.cancel(sum((row[j] for j in columns), sympy.Integer(0)))
        if all(sympy.cancel(h - other) != 0 for other in hits):
            hits.append(h)
    return hits


def _proof_conditions(hit: sympy.Expr, miss: sympy.Expr, t: sympy.Symbol, low: Fraction, high: Fraction
                      ) -> tuple[str, tuple[str, ...]]:
    """The sign conditions of :func:`count_refinement_on_range`, decided exactly: ("", the
    conditions) when all hold, else (the first that fails, ())."""
    if sign_on(sympy.cancel(hit - miss), t, low, high) != 1:
        return f"H − M = {sympy.cancel(hit - miss)} is not > 0 on [{low}, {high}]", ()
    conditions = [f"H − M > 0 on [{low}, {high}]"]
    for name, ratio in (("M/H", miss / hit), ("(1 − H)/(1 − M)", (1 - hit) / (1 - miss))):
        slope = sign_on(sympy.cancel(sympy.diff(ratio, t)), t, low, high, allow_zero=True)
        if slope is None or slope > 0:
            return f"{name} = {sympy.cancel(ratio)} is not non-increasing on [{low}, {high}]", ()
        conditions.append(f"d/dt {name} ≤ 0 on [{low}, {high}]")
    return "", tuple(conditions)


def _written(expression: sympy.Expr) -> str:
    """A rational function of t as :func:`qifkit.expressions.parse_rational_function` reads it back."""
    return str(expression).replace("**", "^")


def range_proof_defect(perturber: Callable[[Any], Channel], counted: Iterable[Any], proof: Any) -> str | None:
    """What is wrong with a range proof of :func:`count_refinement_on_range` given as its JSON
    document (``from``, ``to``, ``hit``, ``miss``), for this perturber family and counted set; None
    when it is valid. Exact: H and M are read by our own grammar (never evaluated as code), must be
    exactly the perturber's two hit probabilities (H > M), and the three sign conditions are decided
    again on [from, to]. A proof with one hit probability is valid when the perturber has only it."""
    if not isinstance(proof, dict) or not all(isinstance(proof.get(k), str) for k in ("from", "to", "hit", "miss")):
        return 'a range proof is a JSON object with the strings "from", "to", "hit" and "miss"'
    try:
        low, high, t, channel = symbolic_on_range(perturber, proof["from"], proof["to"], "perturber")
        hit, miss = (parse_rational_function(proof[k], t) for k in ("hit", "miss"))
    except QifError as error:
        return f"the proof does not read: {error}"
    hits = _hit_probabilities(channel, counted)
    claimed = [hit] if sympy.cancel(hit - miss) == 0 else [hit, miss]
    if len(hits) != len(claimed) or any(all(sympy.cancel(h - c) != 0 for h in hits) for c in claimed):
        return (f"the perturber's hit probabilities are {', '.join(_written(h) for h in hits)}, not "
                f"{', '.join(proof[k] for k in ('hit', 'miss'))}")
    if len(claimed) == 1:
        return None
    failed, _ = _proof_conditions(hit, miss, t, low, high)
    return failed or None


#: The prior weights w of the two-secret analysts of :func:`dichotomy_risks` (w on one secret,
#: 1 − w on the other).
DICHOTOMY_WEIGHTS: tuple[Fraction, ...] = tuple(Fraction(k, 20) for k in range(1, 20))


def dichotomy_risks(pipeline: np.ndarray, weights: Sequence[Fraction] = DICHOTOMY_WEIGHTS) -> np.ndarray:
    """The Bayes risk of every two-secret analyst of a float pipeline: for each pair of rows a < b
    (in the order of :func:`itertools.combinations`) and each weight w, 1 − Σ_y max(w·C[a, y],
    (1 − w)·C[b, y]), the risk of guessing the secret from the output when it is a with
    probability w and b otherwise. An array of shape (pairs, weights), in float64.

    For two secrets these analysts decide refinement (Blackwell's comparison of dichotomies: a
    channel refines another on two secrets exactly when no prior gives it the higher Bayes risk),
    so a rise of one of them with e^ε is a candidate instability for any pipeline.
    """
    w = np.array([float(v) for v in weights])
    rows = np.asarray(pipeline, dtype=float)
    risks = [1 - np.maximum(np.outer(w, rows[a]), np.outer(1 - w, rows[b])).sum(axis=1)
             for a, b in itertools.combinations(range(rows.shape[0]), 2)]
    return np.array(risks).reshape(-1, w.size)


@dataclass(frozen=True)
class DichotomyRise:
    """A two-secret analyst whose Bayes risk rose in floats from sample `step` to `step` + 1 of a
    sweep: the secrets' row indices `first` < `second`, the weight on `first` (the rest on
    `second`), and the float rise (a candidate only: exact losses decide)."""

    first: int
    second: int
    weight: Fraction
    step: int
    rise: float


def dichotomy_rises(risks: Sequence[np.ndarray], secrets: int, weights: Sequence[Fraction] = DICHOTOMY_WEIGHTS,
                    most: int = 3) -> list[DichotomyRise]:
    """The largest rises of two-secret analysts' Bayes risks between consecutive samples of a sweep
    (`risks[k]` is :func:`dichotomy_risks` of the pipeline of `secrets` rows at the k-th e^ε,
    increasing): for each pair of secrets its largest rise (over the weights and the steps), and
    of those the `most` largest, larger first (the first pair in order among equals). A rise within
    1e-9 of the largest risk is float noise, not a candidate."""
    whole_number(most, 1, "most", error=ParameterError)
    table = np.array(risks)  # (samples, pairs, weights)
    if table.shape[0] < 2 or table.size == 0:
        return []
    steps = np.diff(table, axis=0)  # (samples - 1, pairs, weights)
    noise = 1e-9 * max(float(np.abs(table).max()), 1.0)
    found = []
    for p, (first, second) in enumerate(itertools.combinations(range(secrets), 2)):
        step, w = np.unravel_index(int(steps[:, p, :].argmax()), steps[:, p, :].shape)
        if steps[step, p, w] > noise:
            found.append(DichotomyRise(first, second, weights[int(w)], int(step), float(steps[step, p, w])))
    return sorted(found, key=lambda rise: -rise.rise)[:most]
