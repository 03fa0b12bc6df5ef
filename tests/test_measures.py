"""Priors, losses, uncertainty, posteriors and leakage: hand values and the papers' numbers."""

import re
from fractions import Fraction as F

import numpy as np
import pytest
import sympy

from proofs_checks.alvim2023 import values as alvim
from qifkit import (
    Channel,
    Gain,
    Loss,
    Prior,
    additive_leakage,
    argmax,
    argmax_accuracy,
    bayes_decision,
    bayes_risk,
    hyper_distribution,
    identity_gain,
    linear_error,
    multiplicative_leakage,
    point_prior,
    posterior_uncertainty,
    posterior_vulnerability,
    posteriors,
    prior_from_counts,
    prior_uncertainty,
    squared_error,
    uniform_prior,
)
from qifkit.errors import (
    DistributionError,
    LabelError,
    NegativeEntryError,
    NotExactError,
    NumberKindError,
    UndecidableError,
)

R = Channel.from_rows([["3/4", "1/4"], ["1/4", "3/4"]])


def test_bayes_risk_of_eq8_by_hand():
    """U_br(uniform, R) = Σ_y min_w ... = 1/2·1/4 + 1/2·1/4 = 1/4 for R of eq. (8)."""
    assert posterior_uncertainty(uniform_prior(2), R, bayes_risk(range(2))) == F(1, 4)
    assert prior_uncertainty(uniform_prior(2), bayes_risk(range(2))) == F(1, 2)


def test_optimal_actions_follow_the_output():
    decision = bayes_decision([F(1, 2), F(1, 2)], R, bayes_risk(range(2)))
    assert decision.actions == (0, 1)


def test_appd1_losses_from_the_printed_channels():
    """Alvim et al. App. D.1: the printed channels (21), (23) give the printed losses."""
    loss = linear_error(range(7), range(7)).scaled(1000)
    low = posterior_uncertainty(uniform_prior(7), Channel.from_rows(alvim.EQ21), loss)
    high = posterior_uncertainty(uniform_prior(7), Channel.from_rows(alvim.EQ23), loss)
    assert low == F(1276949536000, 771895089)
    assert high == F(2552438666271995640492212000, 1542907143753726048154857)
    assert high > low


def test_squared_and_linear_error_tables():
    assert linear_error(range(3)).rows()[0] == [0, 1, 2]
    assert squared_error(range(3)).rows()[0] == [0, 1, 4]
    with pytest.raises(LabelError, match="not an integer"):
        linear_error(("a", "b"))


def test_argmax_accuracy_uses_lowest_index_ties():
    assert argmax((2, 2, 1)) == 0
    loss = argmax_accuracy([(2, 0), (1, 1), (0, 2)])
    assert loss.rows() == [[0, 1], [0, 1], [1, 0]]


def test_loss_from_matrix_and_scaling():
    loss = Loss.from_rows([[0, "1/2"], [1, 0]])
    assert loss.scaled("2").rows() == [[0, 1], [2, 0]]
    with pytest.raises(NegativeEntryError):
        Loss.from_rows([[0, -1]])
    with pytest.raises(NegativeEntryError):
        loss.scaled(0)


def test_priors():
    assert prior_from_counts([1, 3]).probabilities() == [F(1, 4), F(3, 4)]
    assert point_prior(3, 1).probabilities() == [0, 1, 0]
    assert Prior.from_values(["0.25", "0.75"]).probabilities() == [F(1, 4), F(3, 4)]


@pytest.mark.parametrize(
    ("values", "message"),
    [(["1/2", "1/3"], "sums to 5/6"), (["3/2", "-1/2"], "negative"), ([], "at least one")],
)
def test_bad_priors_are_refused(values, message):
    with pytest.raises(DistributionError, match=message):
        Prior.from_values(values)


def test_prior_of_the_wrong_length_is_refused():
    with pytest.raises(DistributionError, match="3 entries but there are 2 secrets"):
        posterior_uncertainty(uniform_prior(3), R, bayes_risk(range(2)))


def test_prior_counts_must_be_whole_and_not_all_zero():
    with pytest.raises(DistributionError):
        prior_from_counts([0, 0])
    with pytest.raises(DistributionError):
        prior_from_counts([1, -1])


def test_float_prior_with_exact_channel_is_refused():
    with pytest.raises(NumberKindError):
        posterior_uncertainty(Prior.from_floats([0.5, 0.5]), R, bayes_risk(range(2)))


def test_float_measures_agree_with_exact():
    value = posterior_uncertainty(Prior.from_floats([0.5, 0.5]), R.to_float(), Loss.from_floats([[0, 1], [1, 0]]))
    assert value == pytest.approx(0.25)


def test_symbolic_minimum_is_undecidable():
    a = sympy.Symbol("a")
    channel = Channel.from_symbolic([[a, 1 - a], [1 - a, a]], parameters=(a,))
    with pytest.raises(UndecidableError, match="substitute"):
        posterior_uncertainty(uniform_prior(2), channel, bayes_risk(range(2)))


def test_posteriors_and_hyper_distribution_merge_equal_posteriors():
    c = Channel.from_rows([["1/2", "1/4", "1/4"], [0, "1/2", "1/2"]])
    inner = posteriors(uniform_prior(2), c)
    assert [p.probability for p in inner] == [F(1, 4), F(3, 8), F(3, 8)]
    assert inner[1].distribution == (F(1, 3), F(2, 3))
    hyper = hyper_distribution(uniform_prior(2), c)
    assert hyper.outer == (F(1, 4), F(3, 4))
    assert hyper.inners == ((1, 0), (F(1, 3), F(2, 3)))


def test_bayes_leakage_is_sum_of_column_maxima_under_uniform_prior():
    """A known identity: multiplicative Bayes leakage under a uniform prior is Σ_y max_x C[x, y]."""
    c = Channel.from_rows([["1/2", "1/4", "1/4"], [0, "1/2", "1/2"], ["1/3", "1/3", "1/3"]])
    expected = F(1, 2) + F(1, 2) + F(1, 2)
    assert multiplicative_leakage(uniform_prior(3), c, identity_gain(range(3))) == expected
    assert additive_leakage(uniform_prior(3), c, identity_gain(range(3))) == F(1, 2) - F(1, 3)
    assert posterior_vulnerability(uniform_prior(3), c, identity_gain(range(3))) == F(1, 2)


def test_gain_may_be_negative_but_needs_positive_prior_vulnerability_for_ratios():
    gain = Gain.from_rows([[-1, 0], [0, -1]])
    with pytest.raises(DistributionError, match="prior vulnerability"):
        multiplicative_leakage(uniform_prior(2), R, gain)


def test_loss_labels_must_match_the_channel():
    with pytest.raises(LabelError):
        posterior_uncertainty(uniform_prior(2), R, bayes_risk(("a", "b")))


def test_priors_and_losses_are_labelled_matrices_like_channels():
    """One base (qifkit.labelled.LabelledMatrix) gives channels, priors, losses and gains the same
    views: entries by label, numpy arrays, a readable table, float and exact forms."""
    import numpy as np

    from qifkit.labelled import LabelledMatrix

    prior = Prior.from_values(["1/2", "1/3", "1/6"], secrets=("a", "b", "c"))
    loss = Loss.from_rows([[0, 1], [1, 0], ["1/2", "1/2"]], secrets=("a", "b", "c"), actions=("yes", "no"))
    assert all(isinstance(x, LabelledMatrix) for x in (prior, loss, bayes_risk(range(2)), identity_gain(range(2))))
    assert prior["b"] == F(1, 3) and loss["c", "no"] == F(1, 2)
    assert np.asarray(prior).tolist() == [0.5, 1 / 3, 1 / 6] and np.asarray(loss).shape == (3, 2)
    assert repr(prior) == "Prior(exact, 3 secrets)" and repr(loss) == "Loss(exact, 3 secrets x 2 actions)"
    assert str(loss).splitlines() == ["Loss (exact, 3 secrets × 2 actions)", "   yes   no", "a    0    1",
                                      "b    1    0", "c  1/2  1/2"]
    assert str(prior).splitlines()[0] == "Prior (exact, 3 secrets)"
    assert prior.to_float().kind.value == "float" and loss.to_float()["c", "no"] == 0.5
    assert prior.to_float().to_exact(10).probabilities() == [F(1, 2), F(1, 3), F(1, 6)]
    assert loss.to_float().to_exact().rows() == loss.rows()
    with pytest.raises(LabelError, match="no entry for secret 'z' and action 'no'"):
        loss["z", "no"]
    with pytest.raises(LabelError, match=r"index a loss by \[secret, action\]"):
        loss["a"]
    with pytest.raises(DistributionError, match="not 1"):  # a conversion is validated like a factory
        Prior.from_floats([0.1, 0.2, 0.7]).to_exact()  # the three doubles, read exactly, miss 1


@pytest.mark.parametrize("call, error, says", [
    (lambda: bayes_risk(3), LabelError, "range(3)"),
    (lambda: Prior(np.array([0.5, 0.5])), NumberKindError, "Prior.from_floats"),
    (lambda: Prior([F(1, 2), F(1, 2)]), NumberKindError, "Prior.from_values"),
    (lambda: Channel([[1]], (0,), (0,)), NumberKindError, "Channel.from_rows"),
    (lambda: Prior.from_values(np.array([0.5, 0.5])), NotExactError, "Prior.from_floats"),
])
def test_a_factory_misused_names_the_one_to_use(call, error, says):
    """Issue 35: bayes_risk(3) raised a raw TypeError, Prior(pi) an IndexError, and
    Prior.from_values of floats did not name from_floats."""
    with pytest.raises(error, match=re.escape(says)):
        call()


def test_satisfies_dp_takes_e_eps_as_every_command_does():
    """Issue 35: satisfies_dp(C, "ln(2)") was refused though the CLI takes ln(2)."""
    from qifkit import randomized_response
    from qifkit.privacy import satisfies_dp

    rr = randomized_response(2, eps_exp="2")
    assert satisfies_dp(rr, eps_exp="ln(2)") and satisfies_dp(rr, eps_exp="2")
    assert not satisfies_dp(rr, eps_exp="ln(3/2)")
