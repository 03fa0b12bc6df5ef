"""Kohli and Laskowski's constructors (Algorithms 1 and 2), the LP routes and the two-stage framework."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polytopes.fixed_point import (
    SELECTORS,
    check_weights,
    count_error,
    count_error_weights,
    heuristic_constructor,
    unfixed_optimum,
    verify_mechanism,
)
from polytopes.lp import SparseProgram, certified_minimum, check_optimality, exact_minimum, float_minimum
from polytopes.spaces import count_polytope
from polytopes.two_stage import (
    budget_split,
    kolmogorov_smirnov,
    to_distribution,
    total_variation,
    two_stage_release,
    wasserstein1,
)
from qifkit.errors import CertificateError, DistributionError, LabelError, PrivacyParameterError, ShapeError
from qifkit.mechanisms import truncated_geometric


def binomial(n):
    return [Fraction(math.comb(n - 1, i), 2 ** (n - 1)) for i in range(n)]


weights_strategy = st.lists(st.integers(1, 9), min_size=2, max_size=7)


@settings(max_examples=40, deadline=None)
@given(weights_strategy, st.sampled_from(["2", "3/2", "5"]), st.sampled_from(SELECTORS))
def test_algorithm1_lands_in_f_and_the_float_mode_agrees(weights, e, selector):
    z = [Fraction(w, sum(weights)) for w in weights]
    result = heuristic_constructor(z, e, selector)
    assert count_polytope(len(z), e, z, fixed=True).contains([v for row in result.matrix for v in row])
    assert result.steps <= 2 * len(z) - 1  # Thm. 5
    approx = heuristic_constructor(z, e, selector, exact=False).to_numpy()
    assert np.allclose(approx, np.array([[float(v) for v in row] for row in result.matrix]), rtol=0, atol=1e-12)


def test_algorithm1_float_mode_stays_a_mechanism_far_below_the_double_range():
    # z_0 = 2^-399 and scales spanning 10^399: entries of T underflow a double, their logs do not.
    result = heuristic_constructor(binomial(400), "10", "sandwich", exact=False)
    check = result.verification
    assert check.row_sum_error <= 1e-12 and check.fixed_point_error <= 1e-12 and check.dp_ratio <= 10 * (1 + 1e-12)
    assert np.isfinite(result.log_matrix).all() and result.log_matrix.min() < math.log(np.finfo(float).tiny)


def test_algorithm2_for_a_uniform_z_is_the_truncated_geometric_mechanism():
    # Ghosh et al.: the geometric mechanism is optimal for a uniform prior and absolute error.
    for n in range(2, 7):
        z = [Fraction(1, n)] * n
        result = unfixed_optimum("2", count_error_weights(z))
        assert result.matrix == truncated_geometric(n, "2").rows()


def test_algorithm2_float_mode_matches_exact():
    z = [Fraction(k + 1, 21) for k in range(6)]
    weights = count_error_weights(z, "squared")
    exact_result = unfixed_optimum("3", weights)
    float_result = unfixed_optimum("3", np.array([[float(v) for v in row] for row in weights]), exact=False)
    assert float_result.order == exact_result.order
    assert abs(count_error(float_result, weights) - float(count_error(exact_result, weights))) < 1e-12


def test_lp_routes_agree_and_the_certificate_is_checkable():
    z = [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)]
    weights = count_error_weights(z)
    objective = [w for row in weights for w in row]
    polytope = count_polytope(4, "2", z, fixed=True)
    exact_result = exact_minimum(polytope, objective)
    certified = certified_minimum(polytope, objective)
    assert certified.method.startswith("HiGHS basis") and certified.value == exact_result.value
    assert abs(float_minimum(polytope, objective).fun - float(exact_result.value)) < 1e-9
    assert check_optimality(polytope, objective, certified.point, certified.multipliers)
    broken = list(certified.multipliers)
    k = next(i for i, y in enumerate(broken) if y and i >= len(polytope.equalities))
    broken[k] += Fraction(1, 7)
    assert not check_optimality(polytope, objective, certified.point, broken)
    # Algorithm 1 is feasible for the same LP, so it cannot beat the optimum
    assert count_error(heuristic_constructor(z, "2"), weights) >= exact_result.value


def test_sparse_program_membership():
    program = SparseProgram(2, (({0: Fraction(1), 1: Fraction(1)}, Fraction(-1)),), (({0: Fraction(1)}, Fraction(0)),))
    assert program.contains([Fraction(1, 3), Fraction(2, 3)])
    assert not program.contains([Fraction(-1), Fraction(2)])


@pytest.mark.parametrize("z, error", [
    (["0", "1/2", "1/2"], DistributionError),
    (["-1/4", "3/4", "1/2"], DistributionError),
    (["1/3", "1/3", "1/2"], DistributionError),
    (["1"], ShapeError),
    ([0.5, float("nan")], DistributionError),
])
def test_algorithm1_refuses_a_bad_fixed_point(z, error):
    with pytest.raises(error):
        heuristic_constructor(z, "2", exact=not any(isinstance(v, float) for v in z))


def test_algorithm1_refuses_bad_parameters_and_selectors():
    z = ["1/4", "1/2", "1/4"]
    for e in ("1", "1/2"):
        with pytest.raises(PrivacyParameterError):
            heuristic_constructor(z, e)
    with pytest.raises(LabelError):
        heuristic_constructor(z, "2", "middle")
    with pytest.raises(LabelError, match="not an unfilled column"):
        heuristic_constructor(z, "2", lambda z, r, c, a: 0)  # column 0 is full after the first pass


def test_a_custom_selector_is_used():
    order = heuristic_constructor(["1/4", "1/2", "1/4"], "2", lambda z, r, c, a: max(j for j in range(3) if c[j] > 0)).order
    assert order == (2, 1, 0)


def test_algorithm2_refuses_weights_it_cannot_optimise():
    with pytest.raises(DistributionError, match="concentrating"):
        check_weights([[0, 1, 0], [1, 0, 1], [2, 1, 0]])
    with pytest.raises(DistributionError, match="convex"):
        check_weights([[0, 2, 3], [1, 0, 1], [3, 2, 0]])
    with pytest.raises(ShapeError):
        unfixed_optimum("2", [[0, 1]])


def test_verification_refuses_a_matrix_outside_u():
    with pytest.raises(CertificateError):
        verify_mechanism([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]], "2")


def test_projection_to_a_distribution():
    projected = to_distribution([0.5, -0.1, 0.6])
    assert abs(projected.sum() - 1) < 1e-15 and projected.min() > 0
    assert np.allclose(to_distribution([0.2, 0.3, 0.5], floor=0.0), [0.2, 0.3, 0.5])
    assert np.allclose(projected, [0.45, 0, 0.55], atol=1e-6)


def test_distribution_distances_on_hand_examples():
    point0, point3 = [1, 0, 0, 0], [0, 0, 0, 1]
    assert wasserstein1(point0, point3) == 3
    assert total_variation(point0, point3) == 1
    assert kolmogorov_smirnov([0.5, 0.5, 0, 0], [0, 0.5, 0.5, 0]) == 0.5


def test_budget_split_rule_of_thumb():
    eps1, eps2 = budget_split(0.1)
    assert abs(eps1 / 0.1 - 0.506) < 1e-3 and abs(eps1 + eps2 - 0.1) < 1e-15  # 0.106 + 0.533·e^-0.287
    with pytest.raises(PrivacyParameterError):
        budget_split(0.0)


def test_two_stage_release_is_reproducible_with_a_seed():
    table = np.random.default_rng(0).binomial(10, 0.5, size=500)
    first = two_stage_release(table, 11, 0.5, "sandwich", np.random.default_rng(3))
    second = two_stage_release(table, 11, 0.5, "sandwich", np.random.default_rng(3))
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
