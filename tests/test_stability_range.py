"""Stability over every e^ε of a range (issue 15): qifkit.real_roots and qifkit.stability.loss_on_range,
checked against exact evaluation of the loss at rational points (posterior_uncertainty on the exact
pipeline, never the symbolic route under test)."""

import random
from fractions import Fraction as F

import pytest
import sympy
from conftest import EXAMPLES

from qifkit import (
    Channel,
    Loss,
    Prior,
    bayes_risk,
    linear_error,
    posterior_uncertainty,
    randomized_response,
    squared_error,
    truncated_geometric,
    uniform_prior,
)
from qifkit.errors import PrivacyParameterError, UndecidableError
from qifkit.pipelines import count_pipeline, sum_pipeline
from qifkit.real_roots import RealPoint, rational_between, real_roots
from qifkit.stability import count_refinement_on_range, loss_on_range

x = sympy.Symbol("x")


def _appd1(t):
    return count_pipeline(truncated_geometric(7, eps_exp=t), 4, {0}, (0, 1, 1))


def _exact_loss(build, prior, loss, at: F) -> F:
    return posterior_uncertainty(prior, build(at), loss)


# ---------------------------------------------------------------------------------- real roots
def test_real_roots_agree_with_a_float_root_finder_and_separate_close_roots():
    """Random integer polynomials: the roots found in (−3, 5) are those numpy finds there (away from
    the ends), in order, each within 1e-9 of numpy's; two roots 1e-12 apart are kept apart."""
    import numpy as np

    rng = random.Random(5)
    for _ in range(60):
        coefficients = [rng.randint(-9, 9) for _ in range(rng.randint(2, 7))]
        if coefficients[0] == 0:
            coefficients[0] = 1
        p = sympy.Poly(coefficients, x)
        ours = [float(r.decimal(15)) for r in real_roots([p], F(-3), F(5))]
        theirs = sorted(r.real for r in np.roots(coefficients) if abs(r.imag) < 1e-7 and -3 < r.real < 5)
        assert len(ours) == len(theirs) and all(abs(a - b) < 1e-6 for a, b in zip(ours, theirs, strict=True)), (
            coefficients
        )
    close = real_roots([sympy.Poly((x - F(1)) * (x - F(1) - F(1, 10**12)), x)], F(0), F(2))
    assert [r.point for r in close] == [F(1), F(1) + F(1, 10**12)]


def test_real_points_decide_signs_exactly():
    root2 = real_roots([sympy.Poly(x**2 - 2, x)], F(0))[0]
    assert root2.sign(sympy.Poly(x**2 - 2, x)) == 0 and root2.sign(sympy.Poly(x**4 - 4, x)) == 0
    assert root2.sign(sympy.Poly(x - F(14142135623730951, 10**16), x)) == -1  # √2 = 1.41421356237309504…
    assert root2.sign(sympy.Poly(x - F(14142135623730950, 10**16), x)) == 1
    assert root2.decimal(12) == "1.414213562373"
    assert rational_between(RealPoint(F(1)), root2) < root2.bounds[0]


# ---------------------------------------------------------------------------------- App. D.1
def test_appd1_rises_on_one_stretch_whose_ends_are_checked_on_both_sides():
    """App. D.1 over every e^ε of [3, 4]: one rising stretch, [3.500544517844…, 3.516615491052…].
    Each end is checked by exact losses at rationals on both sides of it (within its isolating
    interval's width): the loss falls into the start and rises out of it; it rises into the end
    and falls after it. The paper's grid points 7/2 and 351/100 straddle the start and lie on
    either side of the stretch's inside: U(351/100) > U(7/2) (the paper's instability)."""
    prior, loss = uniform_prior(range(7)), linear_error(range(7))
    curve = loss_on_range(_appd1, 3, 4, prior, loss)
    assert [(a.decimal(12), b.decimal(12)) for a, b in curve.rising] == [("3.500544517844", "3.516615491052")]
    (start, end), = curve.rising
    def at(v):
        return _exact_loss(_appd1, prior, loss, v)
    for point, before, after in ((start, "falls", "rises"), (end, "rises", "falls")):
        low, high = point.narrowed(F(1, 10**9))
        step = high - low + F(1, 10**9)
        left, right = (at(low - step), at(low)), (at(high), at(high + step))
        assert (left[0] > left[1]) == (before == "falls") and (right[1] > right[0]) == (after == "rises")
    assert at(F(351, 100)) > at(F(7, 2))
    assert curve.loss_low == at(F(3)) and curve.loss_high == at(F(4))


# ---------------------------------------------------------------------------------- random small pipelines
def _random_case(rng: random.Random):
    """A small count or sum pipeline (geometric or randomized-response perturber on 4-7 values, 2-4
    respondents with all but one known), a random or uniform prior, a linear, squared or Bayes loss,
    and a range of e^ε within [1.1, 8]. About one in fifteen rises somewhere (seeds 11, 27, 44, 59)."""
    values, respondents = rng.randint(4, 7), rng.randint(2, 4)
    known = tuple(rng.randrange(values) for _ in range(respondents - 1))
    family = rng.choice([truncated_geometric, truncated_geometric, randomized_response])
    counted = {0} if rng.random() < 0.5 else set(rng.sample(range(values), rng.randint(1, values - 1)))
    def build(t):
        return count_pipeline(family(values, eps_exp=t), respondents, counted, known)
    weights = [rng.randint(1, 9) for _ in range(values)] if rng.random() < 0.5 else [1] * values
    prior = Prior.from_values([F(w, sum(weights)) for w in weights], range(values))
    loss = rng.choice([linear_error, squared_error, bayes_risk])(range(values))
    low = F(rng.randint(11, 40), 10)
    if rng.random() < 0.25:
        def build(t):
            return sum_pipeline(family(values, eps_exp=t), respondents, known)
    return build, prior, loss, low, low + F(rng.randint(5, 40), 10)


def _agrees_with_a_dense_grid(seed: int, points: int = 25) -> None:
    """Every rise between consecutive grid points lies on a rising stretch, and every grid step
    inside a stretch rises; the exact loss at both ends is the grid's."""
    build, prior, loss, low, high = _random_case(random.Random(seed))
    curve = loss_on_range(build, low, high, prior, loss)
    assert bool(curve.rising) == (seed in (11, 27, 44, 59)) or seed not in _QUICK, seed
    grid = [low + (high - low) * k / points for k in range(points + 1)]
    losses = [_exact_loss(build, prior, loss, v) for v in grid]
    assert curve.loss_low == losses[0] and curve.loss_high == losses[-1], seed
    stretches = [(a.bounds[0], b.bounds[1]) for a, b in curve.rising]
    inner = [(a.bounds[1], b.bounds[0]) for a, b in curve.rising]
    for left, right, u, v in zip(grid, grid[1:], losses, losses[1:], strict=False):
        if v > u:
            assert any(a < right and left < b for a, b in stretches), (seed, left, right)
        if any(a <= left and right <= b for a, b in inner):
            assert v > u, (seed, left, right)


_QUICK = [0, 1, 2, 3, 11, 27, 44, 59]  # 11, 27, 44 and 59 rise somewhere


@pytest.mark.parametrize("seed", _QUICK)
def test_range_verdicts_agree_with_dense_exact_grids(seed):
    _agrees_with_a_dense_grid(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [s for s in range(124) if s not in _QUICK])
def test_range_verdicts_agree_with_dense_exact_grids_more(seed):
    _agrees_with_a_dense_grid(seed)


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("low, high", [(1, 2), (F(1, 2), 2), (3, 3), (4, 3)])
def test_ranges_that_are_not_above_one_or_empty_are_refused(low, high):
    with pytest.raises(PrivacyParameterError, match="1 < low < high"):
        loss_on_range(_appd1, low, high, uniform_prior(range(7)), linear_error(range(7)))


def test_a_pipeline_that_ignores_the_symbol_is_refused():
    with pytest.raises(UndecidableError, match="rational functions of e"):
        loss_on_range(lambda t: _appd1(F(3)), 3, 4, uniform_prior(range(7)), linear_error(range(7)))


def test_a_flat_loss_has_no_rising_stretch():
    """A loss that charges 1 whatever the action: the expected loss is 1 at every e^ε, so no
    stretch rises (a zero slope is not a rise) and the two ends agree."""
    flat = Loss.from_function(lambda secret, action: 1, range(7))
    curve = loss_on_range(_appd1, 3, 4, uniform_prior(range(7)), flat)
    assert curve.monotone and curve.loss_low == curve.loss_high == 1


def test_rational_between_is_the_simplest_rational_inside():
    """Against a brute force over denominators: strictly inside, and no smaller denominator fits."""
    import math

    rng = random.Random(8)
    for _ in range(500):
        low = F(rng.randint(-50, 50), rng.randint(1, 40))
        high = low + F(rng.randint(1, 30), rng.randint(1, 200))
        found = rational_between(low, high)
        assert low < found < high
        assert all(not F(math.floor(low * d) + 1, d) < high for d in range(1, found.denominator)), (low, high)


# ---------------------------------------------------------------------------------- every analyst on a range
def _binary(hit, miss):
    """A perturber on two values whose report is 'counted' (output 0) with probability hit(t) or miss(t)."""
    from qifkit import Channel

    return lambda t: Channel.from_symbolic([[hit(t), 1 - hit(t)], [miss(t), 1 - miss(t)]], (t,))


@pytest.mark.parametrize("values, counted, low, high", [(2, {0}, "11/10", "100"), (4, {0}, "3/2", "8"),
                                                         (4, {1, 3}, "11/10", "5"), (5, {0, 1, 2}, "2", "3")])
def test_randomized_response_counts_are_proved_stable_and_refine_at_random_pairs(values, counted, low, high):
    """Thm. 24's family over a whole range: the proof exists, and, independently, the exact refinement
    decision (qifkit.refines, no candidate witness) holds between pipelines at random pairs e^ε' < e^ε
    of the range (3 respondents, one known)."""
    from qifkit import refines

    proof, reason = count_refinement_on_range(lambda t: randomized_response(values, eps_exp=t), counted, low, high)
    assert proof is not None, reason
    rng = random.Random(values)
    a, b = F(low), F(high)
    for _ in range(4):
        t_low, t_high = sorted(a + (b - a) * F(rng.randint(0, 100), 100) for _ in range(2))
        def pipeline(t):
            return count_pipeline(randomized_response(values, eps_exp=t), 3, counted, (0,))
        assert refines(pipeline(t_high), pipeline(t_low)).holds


def test_a_family_whose_hit_probability_falls_is_not_proved_and_indeed_does_not_refine():
    """H(t) = 1/2 + 1/(2t) falls as e^ε grows while M = 1/3: M/H rises, so no proof; and in fact the
    pipeline at e^ε = 3 does not refine the one at e^ε = 2 (exact refinement, 2 respondents)."""
    from qifkit import refines

    family = _binary(lambda t: sympy.Rational(1, 2) + 1 / (2 * t), lambda t: sympy.Rational(1, 3))
    proof, reason = count_refinement_on_range(family, {0}, 2, 3)
    assert proof is None and "M/H" in reason
    def exact_family(e):
        return Channel.from_rows([[F(1, 2) + 1 / (2 * e), F(1, 2) - 1 / (2 * e)], [F(1, 3), F(2, 3)]])
    assert not refines(count_pipeline(exact_family(F(3)), 2, {0}), count_pipeline(exact_family(F(2)), 2, {0})).holds


def test_a_ratio_that_turns_is_proved_only_where_it_does_not():
    """M(t) = 1/(t + 1), H(t) = 1 − 4/((t − 3)² + 7): H falls until t = 3 and rises after. On
    [3/2, 8] a condition fails and nothing is claimed; on [4, 8] both ratios fall and the proof holds."""
    family = _binary(lambda t: (t**2 - 6 * t + 12) / (t**2 - 6 * t + 16), lambda t: 1 / (t + 1))
    assert count_refinement_on_range(family, {0}, "3/2", 8)[0] is None
    assert count_refinement_on_range(family, {0}, 4, 8)[0] is not None


def test_perturbers_with_many_hit_probabilities_are_left_to_the_grid():
    proof, reason = count_refinement_on_range(lambda t: truncated_geometric(4, eps_exp=t), {0}, 2, 3)
    assert proof is None and "4 hit probabilities" in reason


def test_the_second_ratio_is_needed_too():
    """H(t) = 1/2 + 1/(4t), M(t) = 1/(4t²) on [2, 3]: M/H falls (the first condition holds) but
    (1 − H)/(1 − M) rises, so no proof; and the pipeline at e^ε = 3 indeed does not refine the one
    at e^ε = 2 (exact refinement, 2 respondents)."""
    from qifkit import refines

    family = _binary(lambda t: sympy.Rational(1, 2) + 1 / (4 * t), lambda t: 1 / (4 * t**2))
    proof, reason = count_refinement_on_range(family, {0}, 2, 3)
    assert proof is None and "(1 − H)/(1 − M)" in reason
    def exact_family(e):
        return Channel.from_rows([[F(1, 2) + 1 / (4 * e), F(1, 2) - 1 / (4 * e)],
                                  [1 / (4 * e * e), 1 - 1 / (4 * e * e)]])
    assert not refines(count_pipeline(exact_family(F(3)), 2, {0}), count_pipeline(exact_family(F(2)), 2, {0})).holds


def test_a_range_too_large_to_follow_symbolically_is_sampled_and_each_rise_decided_exactly(monkeypatch):
    """Census scale (issue 15): beyond RANGE_MAX_ENTRIES the analyst's loss is sampled in floats and
    each rise re-decided exactly at two sampled e^ε. Forced here on App. D.1 over [3, 4], whose exact
    rising stretch is [3.50054..., 3.51662...] (the symbolic route): the confirmed pair lies in it,
    and the two losses, recomputed from the materialised pipelines, do rise."""
    from fractions import Fraction
    from pathlib import Path

    from proofs_checks import gate
    from proofs_checks.gate import limits
    from qifkit import linear_error, posterior_uncertainty, truncated_geometric, uniform_prior
    from qifkit.pipelines import count_pipeline

    monkeypatch.setattr(limits, "RANGE_MAX_ENTRIES", 0)
    spec = gate.read_spec(str(Path(__file__).resolve().parent.parent / "examples" / "appd1_range.toml"))
    report, certificates = gate.evaluate_spec(spec)
    assert report.stable is False and report.range.samples >= 150
    (low, high), = [[Fraction(v) for v in pair] for pair in report.range.rising_exact]
    assert Fraction(3500544, 1000000) <= low < high <= Fraction(3516616, 1000000)
    loss = linear_error(range(7)).scaled(1000)
    before, after = (posterior_uncertainty(uniform_prior(7), count_pipeline(truncated_geometric(7, eps_exp=e), 4, {0},
                                                                            (0, 1, 1)), loss) for e in (low, high))
    assert after > before and Fraction(report.instability.gap) == after - before
    assert certificates and certificates[0].certificate.gap == after - before


@pytest.mark.slow
def test_the_census_range_example_is_decided_with_an_exact_gap(tmp_path):
    """examples/census_gd_range.toml (11,710 people, every e^ε in [2, 200000]): NOT stable, the rise
    decided exactly at two sampled e^ε; the exact gap agrees with the float64 pipelines' difference."""
    import json
    from pathlib import Path

    from proofs_checks.cli import main
    from proofs_checks.gate import read_spec, sampled_losses
    from qifkit.numbers import parse_number  # the gap has 32,000 digits: beyond int()'s default limit

    example = Path(__file__).resolve().parent.parent / "examples" / "census_gd_range.toml"
    assert main(["stability", str(example), "-q", "--json", str(tmp_path / "r.json")]) == 1
    report = json.loads((tmp_path / "r.json").read_text())
    low, high = (F(report["instability"][key]) for key in ("eps_exp_low", "eps_exp_high"))
    floats = sampled_losses(read_spec(str(example)), [low, high])
    assert floats[1] - floats[0] == pytest.approx(float(parse_number(report["instability"]["gap"])), rel=1e-3)


def test_sign_on_refuses_a_touching_root_and_a_pole():
    """Issue 37: (t − 2)² touches 0 inside [1, 3] (not strictly positive there), and 1/(t − 2) has a
    pole there (no sign on the whole interval); each is refused only by its own test."""
    from qifkit.real_roots import sign_on

    t = sympy.Symbol("t")
    assert sign_on((t - 2) ** 2, t, F(1), F(3)) is None
    assert sign_on((t - 2) ** 2, t, F(1), F(3), allow_zero=True) == 1
    assert sign_on(1 / (t - 2), t, F(1), F(3)) is None
    assert sign_on(1 / (t - 2), t, F(3), F(4)) == 1


def test_the_loss_is_not_followed_across_a_pole_of_the_pipeline():
    """Issue 37: a pipeline whose entries have a pole at e^ε = 2 inside [3/2, 3] is refused, not
    reported monotone."""
    from qifkit import Channel

    def build(t):
        return Channel.from_symbolic([[(t - 3) / (t - 2), 1 / (t - 2)], [F(1, 2), F(1, 2)]], parameters=(t,))

    with pytest.raises(UndecidableError, match="vanishes between"):
        loss_on_range(build, "3/2", "3", uniform_prior((0, 1)), bayes_risk((0, 1)))


def test_the_float_search_confirms_a_rise_by_exact_losses_and_only_then():
    """qifkit.stability.search_rises: a loss (e − 3)² on [2, 4] rises after its minimum at 3; the
    rise is confirmed at two sampled e^ε whose exact losses are the formula's. A float curve that
    rises where the exact one does not (a float artefact) is counted, never confirmed."""
    from qifkit.errors import ParameterError, PrivacyParameterError
    from qifkit.stability import search_rises

    def curve(e):
        return (e - 3) ** 2
    found = search_rises(lambda grid: [float(curve(e)) for e in grid], curve, 2, 4, samples=50)
    (rise,) = found.confirmed
    assert abs(rise.start - 3) < F(1, 10) and rise.start <= rise.low < rise.high <= rise.end == 4
    assert (rise.loss_low, rise.loss_high) == ((rise.low - 3) ** 2, (rise.high - 3) ** 2)
    assert found.unconfirmed == 0 and len(found.samples) == 50 and found.samples[0] == 2
    def falling(e):
        return 1 / e
    artefact = search_rises(lambda grid: [1.0 if e < 3 else 2.0 for e in grid], falling, 2, 4)
    assert artefact.confirmed == () and artefact.unconfirmed == 1
    with pytest.raises(ParameterError, match="samples"):
        search_rises(lambda grid: [0.0] * len(grid), falling, 2, 4, samples=2)
    with pytest.raises(PrivacyParameterError, match="1 < low < high"):
        search_rises(lambda grid: [0.0] * len(grid), falling, 4, 2)


def test_a_range_refutation_is_the_same_in_every_process(tmp_path):
    """The refuting e^ε of App. D.1's range do not depend on the process's string hashes: the
    isolating intervals of the loss's breakpoints were refined in the order of a set of factors
    (PYTHONHASHSEED 4 gave e^ε = 326/93, 5 gave 396/113)."""
    import json
    import os
    import subprocess
    import sys

    found = []
    for seed in ("4", "5"):
        out = tmp_path / f"r{seed}.json"
        subprocess.run([sys.executable, "-m", "proofs_checks.cli", "stability", str(EXAMPLES / "appd1_range.toml"),
                        "--json", str(out)], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True,
                       check=False)
        document = json.loads(out.read_text())
        found.append((document["instability"], document["range"]["rising_exact"]))
    assert found[0] == found[1]


@pytest.mark.parametrize("entries, work, ball, routes, why", [
    (2000, 4_000_000, True, ("exact",), None),
    (2000, 4_000_001, True, ("sampled", "ball", "exact"), "symbolic work 4,000,001"),
    (2000, 4_000_001, False, ("sampled", "exact"), "symbolic work"),
    (2001, 10, True, ("sampled", "ball"), "2,001 pipeline entries"),
    (2001, 10, False, ("sampled",), "beyond 2,000 for a symbolic build"),
])
def test_the_range_routes_are_chosen_by_size_and_work_before_any_starts(entries, work, ball, routes, why):
    """Issue 51: the choice among range routes lives in qifkit.stability (the gate passes its limits):
    the exact route alone within both limits; else the float search first, ball arithmetic where it
    applies, and the exact route last only for a pipeline it can build."""
    from qifkit.stability import range_routes

    plan = range_routes(entries, work, max_entries=2000, follow_work=4_000_000, ball=ball)
    assert plan.routes == routes
    assert (plan.why is None) if why is None else why in plan.why


def test_the_exact_route_says_each_step_as_it_ends():
    """Issue 51: the exact route is never silent: a line when the pipeline is built, when the changes
    of best action are isolated and when the slope's sign is decided (App. D.1 on [3, 4])."""
    from qifkit import linear_error, truncated_geometric, uniform_prior

    lines: list[str] = []
    loss_on_range(lambda t: count_pipeline(truncated_geometric(7, eps_exp=t), 4, {0}, (0, 1, 1)), 3, 4,
                  uniform_prior(range(7)), linear_error(range(7)), progress=lines.append)
    assert [line.split(":")[1].split()[0:2] for line in lines] == [["the", "pipeline"], ["4", "changes"],
                                                                   ["the", "loss's"]]
