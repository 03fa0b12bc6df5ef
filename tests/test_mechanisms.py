"""Mechanism families: golden values of Cormode et al. and refusal of bad parameters."""

from fractions import Fraction as F

import pytest
import sympy

from qifkit import (
    NumberKind,
    explicit_fair_mechanism,
    exponential_mechanism,
    geometric_mechanism,
    l0_score,
    objective_value,
    randomized_response,
    truncated_geometric,
    uniform_mechanism,
)
from qifkit.errors import NotExactError, ParameterError, PrivacyParameterError, ShapeError


@pytest.mark.parametrize("eps_exp", ["1", "0.5", 1, "ln(1)", F(9, 10), 0])
def test_eps_exp_not_above_one_is_refused(eps_exp):
    with pytest.raises(PrivacyParameterError):
        randomized_response(3, eps_exp=eps_exp)
    with pytest.raises(PrivacyParameterError):
        truncated_geometric(3, eps_exp=eps_exp)


@pytest.mark.parametrize("alpha", ["1", "0", "-1/2", "3/2"])
def test_alpha_outside_zero_one_is_refused(alpha):
    with pytest.raises(PrivacyParameterError, match="not in \\(0, 1\\)"):
        geometric_mechanism(3, alpha=alpha)


def test_both_or_neither_parameter_is_refused():
    with pytest.raises(PrivacyParameterError, match="exactly one"):
        truncated_geometric(3, eps_exp="2", alpha="1/2")
    with pytest.raises(PrivacyParameterError, match="exactly one"):
        truncated_geometric(3)


def test_float_parameter_is_refused():
    with pytest.raises(NotExactError):
        randomized_response(2, eps_exp=3.0)


@pytest.mark.parametrize("size", [1, 0, -2, 2.5, True])
def test_sizes_are_checked(size):
    with pytest.raises(ShapeError):
        randomized_response(size, eps_exp="2")


def test_cormode_fig3_structure_at_one_value():
    """Cormode et al. Fig. 3 at n = 3, α = 1/2: x = 2/3, y = 1/3, powers of α; rows here are inputs."""
    gm = geometric_mechanism(3, alpha="1/2").to_columns()
    x, y = F(2, 3), F(1, 3)
    assert gm[0] == [x, x / 2, x / 4, x / 8]
    assert gm[1] == [y / 2, y, y / 2, y / 4]
    assert gm[3] == [x / 8, x / 4, x / 2, x]


def test_cormode_example1():
    """Cormode et al. Example 1 (n = 2, α = 9/10): Pr[0|1] = 9/19, Pr[1|1] = 1/19, Pr[0|0] = 10/19."""
    gm = geometric_mechanism(2, alpha="9/10")
    assert gm.entry(1, 0) == F(9, 19) == gm.entry(1, 2)
    assert gm.entry(1, 1) == F(1, 19)
    assert gm.entry(0, 0) == F(10, 19)


def test_cormode_fig4_explicit_fair_mechanism_n7():
    """Cormode et al. Fig. 4: EM at n = 7, first column y·(1, α, α, α², α², α³, α³, α⁴)."""
    alpha = sympy.Symbol("alpha")
    em = explicit_fair_mechanism(7, alpha=alpha)
    powers = [0, 1, 1, 2, 2, 3, 3, 4]
    y = em.to_sympy()[0, 0]
    for i, power in enumerate(powers):
        assert sympy.simplify(em.to_sympy()[0, i] - y * alpha**power) == 0
    middle = [3, 2, 1, 0, 1, 2, 3, 4]  # column j = 3 of Fig. 4
    for i, power in enumerate(middle):
        assert sympy.simplify(em.to_sympy()[3, i] - y * alpha**power) == 0
    assert all(sympy.simplify(em.to_sympy()[j, j] - y) == 0 for j in range(8))


def test_cormode_eq15_value_of_y_for_even_n():
    """Cormode et al. eq. (15): y = (1−α)/(1+α−2α^(n/2+1)) for even n."""
    for n in (2, 4, 6):
        em = explicit_fair_mechanism(n, alpha="2/3")
        a = F(2, 3)
        assert em.entry(0, 0) == (1 - a) / (1 + a - 2 * a ** (n // 2 + 1))


def test_fig7_probability_of_truth():
    """Cormode et al. Fig. 7 text: GM 5/21 and EM 121/541 at n = 4, α = 10/11."""
    assert sum(geometric_mechanism(4, alpha="10/11").entry(j, j) for j in range(5)) / 5 == F(5, 21)
    assert explicit_fair_mechanism(4, alpha="10/11").entry(2, 2) == F(121, 541)


def test_uniform_mechanism_scores_one():
    assert l0_score(uniform_mechanism(5)) == 1
    assert objective_value(uniform_mechanism(5)) == F(5, 6)


def test_gm_l0_by_hand():
    """Cormode et al. §IV-B: L0(GM) = 2α/(1+α); at α = 1/2 that is 2/3."""
    assert l0_score(geometric_mechanism(6, alpha="1/2")) == F(2, 3)


def test_objective_value_weights_and_max():
    gm = geometric_mechanism(2, alpha="1/2")
    assert objective_value(gm, p=1, weights=["1", "0", "0"]) == F(1, 6) * 1 + F(1, 6) * 2
    assert objective_value(gm, aggregate="max") == F(2, 3) / 3


def test_randomized_response_symbolic():
    e = sympy.Symbol("e")
    rr = randomized_response(3, eps_exp=e)
    assert rr.kind is NumberKind.SYMBOLIC
    assert sympy.simplify(rr.to_sympy()[0, 0] - e / (e + 2)) == 0


def test_geometric_equals_gm_with_one_more_value():
    assert truncated_geometric(5, alpha="1/3") == geometric_mechanism(4, alpha="1/3")


def test_exponential_mechanism_exact_and_refused():
    quality = [[0, -1, -2], [-1, 0, -1], [-2, -1, 0]]
    em = exponential_mechanism(quality, eps_exp="4")  # weights 2^(-|d-r|)
    assert em.rows()[0] == [F(4, 7), F(2, 7), F(1, 7)]
    with pytest.raises(NotExactError, match="irrational"):
        exponential_mechanism(quality, eps_exp="2")


def test_exponential_mechanism_refuses_weights_too_large_before_building_them():
    """Issue 52: a 40 × 40 quality of entries 10^6 at e^ε = 4 asks weights 2^(10^6) in 1,600 entries
    (about 2.4·10^9 bits): refused up front, naming the size; 10^4 on the same shape is built."""
    big = [[10**6 if i == j else 0 for j in range(40)] for i in range(40)]
    with pytest.raises(ParameterError, match=r"2,400,000,000 bits.*beyond 1,000,000,000"):
        exponential_mechanism(big, eps_exp="4")
    small = [[10**4 if i == j else 0 for j in range(40)] for i in range(40)]
    assert exponential_mechanism(small, eps_exp="4").rows()[0][0] > F(99, 100)
