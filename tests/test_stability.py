"""Stability tools: left inverses, condition (11), loss curves and instabilities."""

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from conftest import channels
from hypothesis import given, settings
from hypothesis import strategies as st

from qifkit import (
    Channel,
    linear_error,
    posterior_uncertainty,
    randomized_response,
    refines,
    truncated_geometric,
    uniform_prior,
)
from qifkit.errors import NotStochasticError, ShapeError
from qifkit.pipelines import count_pipeline
from qifkit.postprocess import left_inverse
from qifkit.stability import condition_11, instabilities, loss_curve, pipeline_refinement

PARITY = Channel.from_rows([[1, 0], [0, 1], [1, 0], [0, 1]])


def test_left_inverse_is_a_left_inverse():
    assert left_inverse(PARITY) @ PARITY == Channel.from_rows([[1, 0], [0, 1]])


def test_left_inverse_refuses_non_deterministic_and_non_surjective():
    with pytest.raises(NotStochasticError, match="not a single 1"):
        left_inverse(Channel.from_rows([["1/2", "1/2"], [0, 1]]))
    with pytest.raises(ShapeError, match="never reached"):
        left_inverse(Channel.from_rows([[1, 0], [1, 0]]))


def test_condition_11_matches_refinement_both_ways():
    """Thm. 20 (12): P ⊑ W·P exactly when P·⁻¹P·W·P = W·P."""
    swap_within = Channel.from_rows([[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]])  # keeps parity
    mixing = Channel.from_rows([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])  # flips parity of 0, 1 only
    assert condition_11(PARITY, swap_within) and refines(PARITY, swap_within @ PARITY).holds
    assert not condition_11(PARITY, mixing) and not refines(PARITY, mixing @ PARITY).holds


def test_appd1_loss_curve_rises():
    """App. D.1: from e^ε = 7/2 to 351/100 the expected loss rises by the exact printed difference."""
    curve = loss_curve(lambda e: count_pipeline(truncated_geometric(7, eps_exp=e), 4, {0}, (0, 1, 1)),
                       ["351/100", "7/2"], uniform_prior(7), linear_error(range(7)).scaled(1000))
    assert curve.eps_exp == ("7/2", "351/100") and not curve.monotone
    assert curve.values[0] == F(1276949536000, 771895089)
    assert curve.violation[2] == F(2552438666271995640492212000, 1542907143753726048154857) - F(
        1276949536000, 771895089
    )


def test_rr_with_counting_has_no_instability_on_a_grid():
    """Thm. 24: randomised response then counting is stable on every pair of the grid."""
    def build(e):
        return count_pipeline(randomized_response(3, eps_exp=e), 3, {0})
    assert instabilities(build, ["11/10", "3/2", "2", "3", "ln(5)"]) == []


def test_geometric_count_of_zeros_is_unstable_on_a_grid():
    def build(e):
        return count_pipeline(truncated_geometric(3, eps_exp=e), 2, {0})
    found = instabilities(build, ["2", "3"])
    assert len(found) == 1 and found[0].certificate.gap > 0


def test_pipeline_refinement_checks_the_order():
    with pytest.raises(ShapeError, match="below"):
        pipeline_refinement(lambda e: randomized_response(2, eps_exp=e), "2", "3")
    assert pipeline_refinement(lambda e: randomized_response(2, eps_exp=e), "3", "2").holds


# ------------------------------------------------------------------ two-secret analysts (issue 32)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_dichotomy_risks_are_the_exact_bayes_risks_of_two_secret_priors(data):
    """Each entry of dichotomy_risks is the Bayes risk of a prior on two secrets, computed here the
    other way: posterior_uncertainty of the exact channel with that prior and the Bayes loss."""
    from qifkit import bayes_risk
    from qifkit.measures import Prior
    from qifkit.stability import DICHOTOMY_WEIGHTS, dichotomy_risks

    channel = data.draw(channels(rows=data.draw(st.integers(2, 5)), columns=data.draw(st.integers(1, 6))))
    risks = dichotomy_risks(channel.to_float().matrix)
    pairs = list(itertools.combinations(range(channel.shape[0]), 2))
    assert risks.shape == (len(pairs), len(DICHOTOMY_WEIGHTS))
    p = data.draw(st.integers(0, len(pairs) - 1))
    w = data.draw(st.integers(0, len(DICHOTOMY_WEIGHTS) - 1))
    (a, b), weight = pairs[p], DICHOTOMY_WEIGHTS[w]
    prior = Prior.from_values([weight if k == a else 1 - weight if k == b else 0 for k in range(channel.shape[0])],
                              channel.secrets)
    exact = posterior_uncertainty(prior, channel, bayes_risk(channel.secrets))
    assert abs(risks[p, w] - float(exact)) < 1e-12


def test_dichotomy_rises_keeps_each_pairs_largest_rise_and_ignores_float_noise():
    from qifkit.stability import dichotomy_rises

    weights = (F(1, 4), F(1, 2))
    flat = np.full((3, 2), 0.5)  # 3 pairs of 3 secrets, 2 weights
    rising = flat.copy()
    rising[2, 1] += 0.25  # pair (1, 2), weight 1/2
    rising[0, 0] += 0.125  # pair (0, 1), weight 1/4
    noisy = rising.copy()
    noisy[1, 0] += 1e-12  # pair (0, 2): within float noise
    found = dichotomy_rises([flat, rising, noisy], 3, weights)
    assert [(r.first, r.second, r.weight, r.step) for r in found] == [(1, 2, F(1, 2), 0), (0, 1, F(1, 4), 0)]
    assert found[0].rise == pytest.approx(0.25)
    assert dichotomy_rises([flat, rising, noisy], 3, weights, most=1) == found[:1]
    assert dichotomy_rises([flat], 3, weights) == [] and dichotomy_rises([rising, flat], 3, weights) == []
