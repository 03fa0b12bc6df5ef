"""Stability tools: left inverses, condition (11), loss curves and instabilities."""

from fractions import Fraction as F

import pytest

from qifkit import Channel, linear_error, randomized_response, refines, truncated_geometric, uniform_prior
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
    curve = loss_curve(lambda e: count_pipeline(truncated_geometric(7, e), 4, {0}, (0, 1, 1)),
                       ["351/100", "7/2"], uniform_prior(7), linear_error(range(7)).scaled(1000))
    assert curve.eps_exp == ("7/2", "351/100") and not curve.monotone
    assert curve.values[0] == F(1276949536000, 771895089)
    assert curve.violation[2] == F(2552438666271995640492212000, 1542907143753726048154857) - F(
        1276949536000, 771895089
    )


def test_rr_with_counting_has_no_instability_on_a_grid():
    """Thm. 24: randomised response then counting is stable on every pair of the grid."""
    def build(e):
        return count_pipeline(randomized_response(3, e), 3, {0})
    assert instabilities(build, ["11/10", "3/2", "2", "3", "ln(5)"]) == []


def test_geometric_count_of_zeros_is_unstable_on_a_grid():
    def build(e):
        return count_pipeline(truncated_geometric(3, e), 2, {0})
    found = instabilities(build, ["2", "3"])
    assert len(found) == 1 and found[0].certificate.gap > 0


def test_pipeline_refinement_checks_the_order():
    with pytest.raises(ShapeError, match="below"):
        pipeline_refinement(lambda e: randomized_response(2, e), "2", "3")
    assert pipeline_refinement(lambda e: randomized_response(2, e), "3", "2").holds
