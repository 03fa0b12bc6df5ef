"""One target's Bayes risk behind a count, proved never to rise by the others' mode (issue 50:
qifkit.mode_range). Checked against exact arithmetic: the closed form V = (1/K)(1 + Δh·M) against
the materialised pipeline's vulnerability, the float64 laws' enclosures against exact and Arb
polynomial laws, the verdicts against the exact route of real-root isolation on small pipelines
(randomized response, geometric, explicit fair), a family made to break inside the range, the
gate's goal rows, and bad input."""

import random
from fractions import Fraction as F
from math import comb

import flint
import pytest
import sympy
from conftest import pieces_agree, spec_document

from proofs_checks.gate import parse_spec
from proofs_checks.gate.work import mode_applies
from qifkit import (
    bayes_risk,
    explicit_fair_mechanism,
    randomized_response,
    truncated_geometric,
    uniform_prior,
)
from qifkit.ball_range import FALLING, RISING, UNDECIDED
from qifkit.channel import Channel
from qifkit.errors import LabelError, PrivacyParameterError, UndecidableError
from qifkit.measures import posterior_uncertainty
from qifkit.mode_range import _binomial, _Corner, _falling_hull, _gamma, _ModeSlope, count_risk_on_range, mode_slope
from qifkit.pipelines import POPULATION, count_pipeline, with_population_row
from qifkit.stability import loss_on_range

FAMILIES = {
    "randomized_response": lambda values: lambda t: randomized_response(values, eps_exp=t),
    "geometric": lambda values: lambda t: truncated_geometric(values, eps_exp=t),
    # Cormode's EM on counts 0..values−1
    "explicit_fair": lambda values: lambda t: explicit_fair_mechanism(values - 1, eps_exp=t),
}


def _exact_law(sizes, odds):
    """Σ over the groups' counts of Π C(n, k)·odds^k, exactly: the others' count law up to a constant."""
    law = {0: F(1)}
    for n, o in zip(sizes, odds, strict=True):
        o = F(o)
        new = {}
        for c, weight in law.items():
            for k in range(n + 1):
                new[c + k] = new.get(c + k, 0) + weight * comb(n, k) * o**k
        law = new
    return law


def _contains(low, high, value: F) -> bool:
    ball = flint.arb(flint.fmpq(value.numerator, value.denominator))
    return bool(low <= ball and ball <= high)


@pytest.mark.parametrize("seed", range(8))
def test_float_laws_enclose_the_exact_modes_and_ratios(seed):
    """The candidate modes hold every exact mode, and each ratio ball s_g(c − 1)/s_g(c) holds the
    exact ratio (groups of up to 60 at odds from 0.02 to 5, exact rationals)."""
    rng = random.Random(seed)
    sizes = [rng.randint(1, 60) for _ in range(rng.randint(1, 4))]
    odds = [rng.uniform(0.02, 5) for _ in sizes]
    corner = _Corner(sizes, odds)
    first, last = corner.modes()
    law = _exact_law(sizes, odds)
    peak = max(law.values())
    assert all(first <= c <= last for c, weight in law.items() if weight == peak)
    for g in range(len(sizes)):
        fewer = list(sizes)
        fewer[g] -= 1
        without = _exact_law(fewer, odds)
        for c in range(first, last + 1):
            low, high = corner.ratio(g, c, first, last)
            if not without.get(c):  # c beyond the count without g's one: the ratio is +∞
                assert not high.is_finite()
                continue
            assert _contains(low, high, without.get(c - 1, F(0)) / without[c]), (g, c)


@pytest.mark.parametrize("seed", range(3))
def test_float_laws_of_thousands_agree_with_arb_polynomials(seed):
    """Groups of up to 2,500 respondents (windows, trimmed products, tails): each ratio ball meets
    the one Arb's polynomial powers give at 200 bits, and is narrower than 1e-9 relative."""
    rng = random.Random(100 + seed)
    sizes = [rng.randint(1, 2500) for _ in range(rng.randint(2, 5))]
    odds = [rng.choice([rng.uniform(0.001, 0.05), rng.uniform(0.2, 5), rng.uniform(20, 300)]) for _ in sizes]
    corner = _Corner(sizes, odds)
    first, last = corner.modes()
    with flint.ctx.workprec(200):
        factors = [flint.arb_poly([1, flint.arb(o)]) for o in odds]
        for g in range(len(sizes)):
            without = flint.arb_poly([1])
            for h, factor in enumerate(factors):
                without *= factor ** (sizes[h] - (h == g))
            coefficients = without.coeffs()
            for c in range(first, last + 1):
                low, high = corner.ratio(g, c, first, last)
                ratio = coefficients[c - 1] / coefficients[c]
                assert low.lower() <= ratio.upper() and ratio.lower() <= high.upper(), (g, c)
                assert float((high - low).mid()) < 1e-9 * float(ratio.mid())


@pytest.mark.parametrize("family, values, known, counted, t", [
    ("geometric", 4, (0, 1, 1, 3), {0, 1}, F(5, 2)),
    ("randomized_response", 3, (0, 2, 2, 1, 0), {2}, F(7, 3)),
    ("explicit_fair", 4, (3, 3, 0), {1}, F(3, 2)),
])
def test_the_closed_form_is_the_pipelines_bayes_vulnerability(family, values, known, counted, t):
    """V = (1/K)·(1 + Δh·M), the module's docstring, against the Bayes vulnerability of the
    materialised count pipeline (one target, uniform prior), exactly."""
    perturber = FAMILIES[family](values)(t)
    pipeline = count_pipeline(perturber, len(known) + 1, counted, known)
    risk = posterior_uncertainty(uniform_prior(range(values)), pipeline, bayes_risk(range(values)))
    chance = [sum(perturber.entry(x, y) for y in counted) for x in range(values)]
    law = {0: F(1)}
    for v in known:  # the others' count law, exactly
        law = {c: law.get(c, 0) * (1 - chance[v]) + law.get(c - 1, 0) * chance[v] for c in range(len(law) + 1)}
    assert 1 - risk == F(1, values) * (1 + (max(chance) - min(chance)) * max(law.values()))


def _small_cases():
    rng = random.Random(5)
    for family in FAMILIES:
        for _ in range(3):
            values = rng.randint(3, 5)
            known = tuple(rng.randrange(values) for _ in range(rng.randint(2, 4)))
            counted = set(rng.sample(range(values), rng.randint(1, values - 1)))
            low = F(rng.randint(11, 30), 10)
            yield family, values, known, counted, low, low + F(rng.randint(5, 40), 10)


@pytest.mark.parametrize("family, values, known, counted, low, high", list(_small_cases()))
def test_verdicts_agree_with_the_exact_route(family, values, known, counted, low, high):
    """On small pipelines (1 target and 2–4 known respondents) the exact route (real-root isolation
    of the materialised pipeline's loss) decides the risk on the range; the mode route never proves
    a piece the exact route sees rise, and proves the whole range wherever the risk never rises."""
    build = FAMILIES[family](values)
    try:
        curve = count_risk_on_range(build, counted, low, high, known=known)
    except UndecidableError as error:  # the highest or lowest chance changes hands on the range
        assert "change" in str(error)
        return
    exact = loss_on_range(lambda t: count_pipeline(build(t), len(known) + 1, counted, known), low, high,
                          uniform_prior(range(values)), bayes_risk(range(values)))
    pieces_agree(curve, exact)
    if exact.monotone:
        assert curve.monotone is True


def test_a_family_made_to_break_gets_no_proof_where_the_risk_rises():
    """Randomized response on 3 values at e^ε = t + 9/t: privacy grows with t below 3 (the risk
    rises there) and falls above. The exact route sees the rise on [2, 3]; the mode route proves it
    rising there and falling on [3, 5], leaving only a sliver around the turn undecided."""

    def family(t):
        e = t + 9 / t
        return Channel.from_symbolic([[e / (e + 2) if x == y else 1 / (e + 2) for y in range(3)] for x in range(3)],
                                     (t,))

    known = (0, 1, 2, 0, 1)
    curve = count_risk_on_range(family, {0}, 2, 5, known=known)
    exact = loss_on_range(lambda t: count_pipeline(family(t), 6, {0}, known), 2, 5, uniform_prior(range(3)),
                          bayes_risk(range(3)))
    assert exact.monotone is False and curve.monotone is False
    pieces_agree(curve, exact)
    assert [piece.direction for piece in curve.pieces] == [RISING, UNDECIDED, FALLING]
    assert curve.pieces[1].high - curve.pieces[1].low < F(1, 10**9)


def test_population_members_enter_as_one_mixture_group():
    """Known respondents and members drawn from a population (the mixture row): proved at 2,000
    respondents (1,500 known, 499 from a uniform population), the gate's goal row, in seconds."""
    population = [F(1, 6)] * 6

    def family(t):
        return with_population_row(truncated_geometric(6, eps_exp=t), population)

    known = tuple(v for v in range(6) for _ in range(250)) + (POPULATION,) * 499
    curve = count_risk_on_range(family, {0, 1}, 2, 5, known=known, target_values=range(6))
    assert curve.monotone is True and curve.evaluations > 10


def test_bad_input_is_refused():
    family = FAMILIES["geometric"](3)
    with pytest.raises(LabelError, match="counted"):
        count_risk_on_range(family, {7}, 2, 5, known=(0,))
    with pytest.raises(LabelError, match="not a row"):
        count_risk_on_range(family, {0}, 2, 5, known=(9,))
    with pytest.raises(PrivacyParameterError):
        count_risk_on_range(family, {0}, 5, 2, known=(0,))
    with pytest.raises(UndecidableError, match="rational functions"):
        count_risk_on_range(lambda t: truncated_geometric(3, eps_exp=2), {0}, 2, 5, known=(0,))


@pytest.mark.parametrize("family, values, known, counted, a, b", [
    ("geometric", 4, (0, 1, 1, 3, 2, 2), {0, 1}, F(5, 2), F(21, 8)),
    ("randomized_response", 3, (0, 0, 1, 2, 2), {2}, F(3, 2), F(8, 5)),
    ("explicit_fair", 4, (3, 1, 0, 0), {1, 2}, F(2), F(41, 20)),
])
def test_each_candidates_slope_ball_holds_the_exact_log_derivative(family, values, known, counted, a, b):
    """On a piece, every candidate mode c's ball holds d/dt log(Δh(t)·q_t(c)) at rational points
    of the piece, computed exactly from the others' count law as a rational function of t (sympy);
    and the candidates hold the exact mode there."""
    t = sympy.Symbol("t", positive=True)
    perturber = FAMILIES[family](values)(t)
    chance = [sympy.cancel(sum(perturber.rows()[x][y] for y in counted)) for x in range(values)]
    z = sympy.Symbol("z")
    law = sympy.Poly(sympy.prod([1 - chance[v] + chance[v] * z for v in known]), z)
    _, _, slope = mode_slope(FAMILIES[family](values), counted, a, b, known, None)
    balls = slope.slopes(a, b)
    assert balls
    for point in (a, (a + b) / 2, b):
        at = {t: sympy.Rational(point.numerator, point.denominator)}
        spread = max(h.subs(at) for h in chance) - min(h.subs(at) for h in chance)
        top = max(range(values), key=lambda x: chance[x].subs(at))
        bottom = min(range(values), key=lambda x: chance[x].subs(at))
        weights = [sympy.cancel(law.coeff_monomial(z**c)) for c in range(len(known) + 1)]
        mode = max(range(len(weights)), key=lambda c: weights[c].subs(at))
        assert mode in balls
        for c, ball in balls.items():
            exact = sympy.Rational(sympy.diff(sympy.log((chance[top] - chance[bottom]) * weights[c]), t).subs(at))
            assert _contains(ball.lower(), ball.upper(), F(int(exact.p), int(exact.q))), (c, point)
        assert spread > 0


def test_a_window_bounds_the_mass_outside_it():
    """C(400, k)/C(400, 200) at odds 1 and C(3000, k)·(1/64)^k / (its mode's), exactly: the window's
    entries within their γ bound, and the mass outside the window below its tail bound."""
    for n, odds in ((400, 1.0), (3000, 1 / 64)):
        law = _binomial(n, odds)
        o = F(odds)
        mode = max(range(n + 1), key=lambda k: comb(n, k) * o**k)
        anchor = comb(n, mode) * o**mode
        kept = range(law.start, law.start + len(law.values))
        assert law.start > 0 or law.start + len(law.values) < n + 1  # a window, not the whole law
        error = 2 * _gamma(law.roundings)
        for k in kept:
            exact = comb(n, k) * o**k / anchor
            assert abs(F(float(law.values[k - law.start])) - exact) <= error * exact
        outside = sum(comb(n, k) * o**k for k in range(n + 1) if k not in kept) / anchor
        assert 0 < outside <= F(law.tail)


def test_the_gate_takes_the_mode_route_only_for_its_case():
    """One target, a uniform prior, the Bayes loss and the count itself: any other loss, prior,
    number of targets or query goes to the other routes."""
    def spec(**changes):
        document = spec_document(family="geometric", values=4, respondents=3000, known_counts={0: 1000, 1: 1000,
                                 2: 999}, of=(0,), prior="uniform", eps=(), low="2", high="5")
        for section, values in changes.items():
            document[section].update(values)
        return parse_spec(document)

    assert mode_applies(spec())
    assert not mode_applies(spec(analyst={"loss": "linear"}))
    assert not mode_applies(spec(analyst={"prior": ["1/2", "1/4", "1/8", "1/8"]}))
    assert not mode_applies(spec(query={"kind": "threshold", "at": 100}))
    assert not mode_applies(spec(population={"known_counts": {"0": 1000, "1": 1000, "2": 998}},
                                 analyst={"prior": "uniform_histograms"}))


def _exact_log_slope(chance, slope, sizes, t, c):
    """d/dt log(Δh·q_t(c)) exactly at t for groups of `sizes` whose chances are the functions
    `chance` with derivatives `slope` (the first the highest, the last the lowest): by
    ∂q(c)/∂p_g = n_g·(s_g(c − 1) − s_g(c)), the laws computed with Fractions."""
    def law(counts):
        q = [F(1)]
        for h, n in zip(chance, counts, strict=True):
            for _ in range(n):
                p = h(t)
                q = [(q[k] if k < len(q) else 0) * (1 - p) + (q[k - 1] if k else 0) * p for k in range(len(q) + 1)]
        return q

    q = law(sizes)
    total = (slope[0] - slope[-1]) / (chance[0](t) - chance[-1](t))
    for g, n in enumerate(sizes):
        s = law([m - (h == g) for h, m in enumerate(sizes)])
        total += slope[g] * n * ((s[c - 1] if c else 0) - (s[c] if c < len(s) else 0)) / q[c]
    return total, max(range(len(q)), key=q.__getitem__)


def test_where_the_corners_make_the_balls_width_they_hold_the_exact_slopes():
    """Chances linear in t (their slopes exact, so the corners' ratios make the balls' width): at
    each candidate c and at points of the piece, the ball holds the exact d/dt log(Δh·q_t(c)); the
    mode changes inside the piece, and both modes are candidates."""
    t = sympy.Symbol("t", positive=True)
    expressions = [(t + 1) / 8, sympy.Rational(1, 2) - t / 10, t / 20]
    chance = [lambda x: (x + 1) / 8, lambda x: F(1, 2) - x / 10, lambda x: x / 20]
    slope = [F(1, 8), F(-1, 10), F(1, 20)]
    known = (0,) * 15 + (1,) * 15 + (2,) * 15
    a, b = F(2), F(9, 4)
    _, _, slopes = mode_slope(lambda x: Channel.from_symbolic([[p.subs(t, x), 1 - p.subs(t, x)] for p in expressions],
                                                              (x,)), {0}, a, b, known, None)
    balls = slopes.slopes(a, b)
    modes = set()
    for point in (a, a + (b - a) / 3, b - (b - a) / 3, b):
        for c, ball in balls.items():
            exact, mode = _exact_log_slope(chance, slope, [15, 15, 15], point, c)
            assert _contains(ball.lower(), ball.upper(), exact), (c, point)
        modes.add(mode)
    assert len(modes) == 2 and modes <= set(balls)


def test_the_hull_of_a_ratio_term_holds_its_four_corners():
    """(r − 1)/(1 + p·(r − 1)) rises with r and falls with p: the hull over a box holds its value at
    every corner, exactly."""
    r_low, r_high, p_low, p_high = F(1, 2), F(3, 2), F(1, 5), F(4, 5)
    hull = _falling_hull(flint.arb(flint.fmpq(1, 2)), flint.arb(flint.fmpq(3, 2)), p_low, p_high)
    for r in (r_low, r_high):
        for p in (p_low, p_high):
            assert _contains(hull.lower(), hull.upper(), (r - 1) / (1 + p * (r - 1))), (r, p)


@pytest.mark.parametrize("slopes, direction", [
    ({3: 1, 4: 2}, FALLING), ({3: -1, 4: -2}, RISING), ({3: -1, 4: 2}, UNDECIDED), ({3: 0, 4: 1}, FALLING),
    (None, UNDECIDED),
])
def test_a_piece_rises_only_when_every_candidate_falls(monkeypatch, slopes, direction):
    """Δh·M is the largest of the candidates' Δh·q_t(c): it falls on a piece only when all of them
    do, and never falls when all rise (or stay)."""
    monkeypatch.setattr(_ModeSlope, "slopes", lambda self, a, b: None if slopes is None else
                        {c: flint.arb(value) for c, value in slopes.items()})
    assert _ModeSlope([], [], None).direction(F(2), F(3)) == direction
