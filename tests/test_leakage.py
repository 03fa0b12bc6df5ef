"""The leakage measures (qifkit.leakage, issue 35) against libqif 1.6 on 1,000 random channels, and
against values worked by hand; the Bayes defaults of qifkit.measures."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from qifkit import Channel, randomized_response
from qifkit.leakage import (
    Bits,
    bayes_capacity,
    conditional_entropy,
    guessing_entropy,
    min_entropy_capacity,
    min_entropy_leakage,
    posterior_guessing_entropy,
    shannon_capacity,
    shannon_entropy,
    shannon_leakage,
)
from qifkit.measures import (
    Prior,
    additive_leakage,
    bayes_risk,
    identity_gain,
    multiplicative_leakage,
    posterior_uncertainty,
    posterior_vulnerability,
    prior_vulnerability,
)

qif = pytest.importorskip("qif", reason="libqif (pip qif) is the peer these measures are checked against")


def _random_pair(rng: np.random.Generator) -> tuple[Prior, Channel, np.ndarray, np.ndarray]:
    """An exact prior and channel (denominators up to 1000, zeros included) and their floats."""
    secrets, outputs = int(rng.integers(2, 7)), int(rng.integers(1, 7))

    def distribution(size: int) -> list[F]:
        units = rng.multinomial(1000, rng.dirichlet(np.full(size, 0.7)))
        return [F(int(u), 1000) for u in units]

    prior_values = distribution(secrets)
    while not any(prior_values):
        prior_values = distribution(secrets)
    rows = [distribution(outputs) for _ in range(secrets)]
    return (Prior.from_values(prior_values), Channel.from_rows(rows),
            np.array([float(v) for v in prior_values]), np.array([[float(v) for v in row] for row in rows]))


def _close(ours: Bits | F, theirs: float, slack: float = 1e-9) -> bool:
    value = ours.value if isinstance(ours, Bits) else float(ours)
    error = ours.error if isinstance(ours, Bits) else 0.0
    return abs(value - theirs) <= error + slack * max(1.0, abs(theirs))


def test_every_measure_agrees_with_libqif_on_a_thousand_random_channels():
    rng = np.random.default_rng(35)
    measure = qif.measure
    for trial in range(1000):
        prior, channel, pi, matrix = _random_pair(rng)
        assert _close(bayes_capacity(channel), measure.bayes_vuln.mult_capacity(matrix)), trial
        assert _close(min_entropy_capacity(channel), math.log2(measure.bayes_vuln.mult_capacity(matrix))), trial
        if pi.max() > 0:
            leakage = measure.bayes_vuln.min_entropy_leakage(pi, matrix)
            assert _close(min_entropy_leakage(prior, channel), leakage), trial
            assert _close(multiplicative_leakage(prior, channel), measure.bayes_vuln.mult_leakage(pi, matrix)), trial
        assert _close(additive_leakage(prior, channel), measure.bayes_vuln.add_leakage(pi, matrix)), trial
        assert _close(shannon_entropy(prior), measure.shannon.prior(pi)), trial
        assert _close(conditional_entropy(prior, channel), measure.shannon.posterior(pi, matrix)), trial
        assert _close(shannon_leakage(prior, channel), measure.shannon.add_leakage(pi, matrix)), trial
        assert _close(guessing_entropy(prior), measure.guessing.prior(pi)), trial
        assert _close(posterior_guessing_entropy(prior, channel), measure.guessing.posterior(pi, matrix)), trial
        if trial % 10 == 0:  # libqif's capacity is an iteration to 1e-7
            capacity, _ = measure.shannon.add_capacity(matrix)
            assert _close(shannon_capacity(channel), capacity, 1e-6), trial


def test_exact_measures_are_exact():
    rr = randomized_response(3, eps_exp="2")  # 1/2 on the diagonal, 1/4 elsewhere
    assert bayes_capacity(rr) == F(3, 2)
    assert guessing_entropy(["1/2", "3/10", "1/5"]) == F(17, 10)
    # after one output of rr under the uniform prior: each column's joint is (1/6, 1/12, 1/12)
    assert posterior_guessing_entropy(["1/3", "1/3", "1/3"], rr) == 3 * (F(1, 6) + 2 * F(1, 12) + 3 * F(1, 12))
    assert posterior_vulnerability(["1/3", "1/3", "1/3"], rr) == F(1, 2)


def test_a_measure_in_bits_is_enclosed_rigorously():
    """H(1/3, 1/3, 1/3) = log2 3; the reported error covers the float's distance to it."""
    entropy = shannon_entropy(["1/3", "1/3", "1/3"])
    assert 0 < entropy.error < 1e-15 and abs(entropy.value - math.log2(3)) <= entropy.error
    leakage = min_entropy_leakage(["1/2", "1/2"], Channel.from_rows([[1, 0], [0, 1]]))  # log2 2 = 1
    assert abs(leakage.value - 1) <= leakage.error and float(leakage) == leakage.value
    capacity = shannon_capacity(randomized_response(2, eps_exp="3"))  # 1 − h(1/4)
    truth = 1 + 0.25 * math.log2(0.25) + 0.75 * math.log2(0.75)
    assert abs(capacity.value - truth) <= capacity.error + 1e-15 and capacity.error < 1e-9


def test_bayes_is_the_default_gain_and_loss_in_each_number_kind():
    """libqif's bayes_vuln.posterior(pi, C) needs no gain; neither does qifkit (issue 35): the default
    is the identity gain (0-1 loss) in the channel's kind, so floats stay floats."""
    pi, matrix = [0.5, 0.3, 0.2], [[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]]
    floats = Channel.from_numpy(matrix)
    assert posterior_vulnerability(Prior.from_floats(pi), floats) == pytest.approx(0.59, abs=1e-15)
    assert prior_vulnerability(Prior.from_floats(pi)) == 0.5
    assert posterior_uncertainty(Prior.from_floats(pi), floats) == pytest.approx(0.41, abs=1e-15)
    exact = Channel.from_rows([["7/10", "3/10"], ["1/5", "4/5"], ["1/2", "1/2"]])
    prior = Prior.from_values(["1/2", "3/10", "1/5"])
    assert posterior_vulnerability(prior, exact) == posterior_vulnerability(prior, exact, identity_gain(exact.secrets))
    assert posterior_uncertainty(prior, exact) == posterior_uncertainty(prior, exact, bayes_risk(exact.secrets))
    assert posterior_vulnerability(prior, exact) == F(59, 100)


def _arb_capacity_of_randomized_response(values: int, eps_exp: int):
    """Randomized response is symmetric, so the uniform input attains its capacity: log2 K − H(row),
    the row being e^ε/(K − 1 + e^ε) once and 1/(K − 1 + e^ε) K − 1 times (200-bit balls)."""
    import flint

    with flint.ctx.workprec(200):
        high, low = flint.arb(eps_exp) / (values - 1 + eps_exp), flint.arb(1) / (values - 1 + eps_exp)
        return (flint.arb(values).log() + high * high.log() + (values - 1) * low * low.log()) / flint.arb(2).log()


@pytest.mark.parametrize("values", [3, 7, 100])
def test_a_capacity_is_enclosed_to_the_last_bit(values):
    """Issue 53: the input distribution found in floats is made an exact distribution before the
    balls: 1/K in floats sums to 1 − 5.6·10^-17 over K = 3, and I(p; C) of weights that do not
    sum to 1 lies outside the reported error (1.8 to 6 times it, by hand on the mutant)."""
    capacity = shannon_capacity(randomized_response(values, eps_exp="3"))
    assert abs(_arb_capacity_of_randomized_response(values, 3) - capacity.value) <= capacity.error


def test_an_early_stopped_capacity_still_encloses_the_truth():
    """Issue 53: the Z channel (rows (1, 0) and (1/2, 1/2)) after one Blahut–Arimoto step: I(p; C)
    and Arimoto's bound max_x D(C_x ‖ p·C) are 3 % apart, and the capacity log2(5/4) (Z channel
    with crossover 1/2: log2(1 + (1 − p)·p^(p/(1 − p)))) lies between them. The error is the
    ball's radius (a bound without it is a few ulps), and the least row divergence is below the
    capacity (an upper bound taken there misses it)."""
    capacity = shannon_capacity(Channel.from_rows([[1, 0], ["1/2", "1/2"]]), iterations=1)
    assert capacity.error > 0.01
    assert abs(capacity.value - math.log2(1.25)) <= capacity.error
