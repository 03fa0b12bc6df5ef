"""Kohli and Laskowski's constructors (Algorithms 1 and 2), the LP routes and the two-stage framework."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polytopes.fixed_point import algorithm1, algorithm1_float, arithmetic, runs
from polytopes.fixed_point.algorithm1 import heuristic_constructor
from polytopes.fixed_point.algorithm2 import check_weights, count_error, count_error_weights, unfixed_optimum
from polytopes.fixed_point.named import random_fixed_point
from polytopes.fixed_point.runs import SELECTORS
from polytopes.fixed_point.verification import verify_log_mechanism, verify_mechanism
from polytopes.hrep import SparsePolytope
from polytopes.lp import certified_minimum, check_optimality, exact_minimum, float_minimum
from polytopes.spaces import count_polytope, count_program
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
    result = heuristic_constructor(z, eps_exp=e, selector=selector)
    assert count_polytope(len(z), eps_exp=e, z=z, fixed=True).contains([v for row in result.matrix for v in row])
    assert result.steps <= 2 * len(z) - 1  # Thm. 5
    approx = heuristic_constructor(z, eps_exp=e, selector=selector, exact=False).to_numpy()
    assert np.allclose(approx, np.array([[float(v) for v in row] for row in result.matrix]), rtol=0, atol=1e-12)


def test_algorithm1_float_mode_stays_a_mechanism_far_below_the_double_range():
    # z_0 = 2^-399 and scales spanning 10^399: entries of T underflow a double, their logs do not.
    result = heuristic_constructor(binomial(400), eps_exp="10", selector="sandwich", exact=False)
    check = result.verification
    assert check.row_sum_error <= 1e-12 and check.fixed_point_error <= 1e-12 and check.dp_ratio <= 10 * (1 + 1e-12)
    assert np.isfinite(result.log_matrix).all() and result.log_matrix.min() < math.log(np.finfo(float).tiny)


def test_algorithm2_for_a_uniform_z_is_the_truncated_geometric_mechanism():
    # Ghosh et al.: the geometric mechanism is optimal for a uniform prior and absolute error.
    for n in range(2, 7):
        z = [Fraction(1, n)] * n
        result = unfixed_optimum(eps_exp="2", weights=count_error_weights(z))
        assert result.matrix == truncated_geometric(n, eps_exp="2").rows()


def test_algorithm2_float_mode_matches_exact():
    z = [Fraction(k + 1, 21) for k in range(6)]
    weights = count_error_weights(z, "squared")
    exact_result = unfixed_optimum(eps_exp="3", weights=weights)
    float_result = unfixed_optimum(
        eps_exp="3", weights=np.array([[float(v) for v in row] for row in weights]), exact=False
    )
    assert float_result.order == exact_result.order
    assert abs(count_error(float_result, weights) - float(count_error(exact_result, weights))) < 1e-12


def test_lp_routes_agree_and_the_certificate_is_checkable():
    z = [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)]
    weights = count_error_weights(z)
    objective = [w for row in weights for w in row]
    polytope = count_polytope(4, eps_exp="2", z=z, fixed=True)
    exact_result = exact_minimum(polytope, objective)
    certified = certified_minimum(polytope, objective)
    assert certified.method.startswith("HiGHS basis") and certified.value == exact_result.value
    assert abs(float_minimum(polytope, objective).value - float(exact_result.value)) < 1e-9
    assert check_optimality(polytope, objective, certified.point, certified.duals)
    broken = list(certified.duals)
    k = next(i for i, y in enumerate(broken) if y and i >= len(polytope.equalities))
    broken[k] += Fraction(1, 7)
    assert not check_optimality(polytope, objective, certified.point, broken)
    # Algorithm 1 is feasible for the same LP, so it cannot beat the optimum
    assert count_error(heuristic_constructor(z, eps_exp="2"), weights) >= exact_result.value


def test_sparse_polytope_membership():
    program = SparsePolytope(2, (({0: Fraction(1), 1: Fraction(1)}, Fraction(-1)),), (({0: Fraction(1)}, Fraction(0)),))
    assert program.contains([Fraction(1, 3), Fraction(2, 3)])
    assert not program.contains([Fraction(-1), Fraction(2)])


@pytest.mark.parametrize(
    "z, error",
    [
        (["0", "1/2", "1/2"], DistributionError),
        (["-1/4", "3/4", "1/2"], DistributionError),
        (["1/3", "1/3", "1/2"], DistributionError),
        (["1"], ShapeError),
        ([0.5, float("nan")], DistributionError),
    ],
)
def test_algorithm1_refuses_a_bad_fixed_point(z, error):
    with pytest.raises(error):
        heuristic_constructor(z, eps_exp="2", exact=not any(isinstance(v, float) for v in z))


def test_algorithm1_refuses_bad_parameters_and_selectors():
    z = ["1/4", "1/2", "1/4"]
    for e in ("1", "1/2"):
        with pytest.raises(PrivacyParameterError):
            heuristic_constructor(z, eps_exp=e)
    with pytest.raises(LabelError):
        heuristic_constructor(z, eps_exp="2", selector="middle")
    with pytest.raises(LabelError, match="not an unfilled column"):
        heuristic_constructor(z, eps_exp="2", selector=lambda z, r, c, a: 0)  # column 0 is full after the first pass


def test_a_custom_selector_is_used():
    order = heuristic_constructor(
        ["1/4", "1/2", "1/4"], eps_exp="2", selector=lambda z, r, c, a: max(j for j in range(3) if c[j] > 0)
    ).order
    assert order == (2, 1, 0)


def test_algorithm2_refuses_weights_it_cannot_optimise():
    with pytest.raises(DistributionError, match="concentrating"):
        check_weights([[0, 1, 0], [1, 0, 1], [2, 1, 0]])
    with pytest.raises(DistributionError, match="convex"):
        check_weights([[0, 2, 3], [1, 0, 1], [3, 2, 0]])
    with pytest.raises(ShapeError):
        unfixed_optimum(eps_exp="2", weights=[[0, 1]])


def test_verification_refuses_a_matrix_outside_u():
    with pytest.raises(CertificateError):
        verify_mechanism([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]], eps_exp="2")


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


# --------------------------------------------------------------------------- Algorithm 1 at scale (issue 16)


def _independent_check(result, z, e, tolerance=1e-9):
    """Row sums, z·T = z and the neighbour ratios of exp(log T), recomputed with scipy's logsumexp."""
    from scipy.special import logsumexp

    logs = result.log_matrix
    log_z = np.log(np.asarray(z, dtype=float))
    assert np.max(np.abs(np.expm1(logsumexp(logs, axis=1)))) <= tolerance
    assert np.max(np.abs(np.expm1(logsumexp(log_z[:, None] + logs, axis=0) - log_z))) <= tolerance
    assert np.max(np.abs(np.diff(logs, axis=0))) <= math.log(e) + tolerance


def _never_refuses(cases, largest, seed):
    rng = np.random.default_rng(seed)
    for _ in range(cases):
        n = int(rng.integers(2, largest + 1))
        e = float(np.exp(rng.uniform(math.log(1.01), math.log(20))))
        z = random_fixed_point(rng, n)
        _independent_check(heuristic_constructor(z, eps_exp=e, exact=False), z, e)


def test_algorithm1_float_mode_never_refuses_random_fixed_points():
    _never_refuses(40, 120, seed=16)


@pytest.mark.slow
def test_algorithm1_float_mode_never_refuses_200_fixed_points_up_to_n_300():
    _never_refuses(200, 300, seed=1600)


@pytest.mark.parametrize("family, e", [("mixture", 2.0), ("uniform", 1.1)])
def test_algorithm1_float_mode_at_n_2000(family, e):
    # Both were refused before the run-wise extended-precision mode: "the remainder ran out before the
    # columns did" (0.9·binomial + 0.1·uniform) and a worst ratio of 1.16 against e^ε = 1.1 (uniform).
    n = 2000
    log_binomial = np.array(
        [math.lgamma(n) - math.lgamma(k + 1) - math.lgamma(n - k) - (n - 1) * math.log(2) for k in range(n)]
    )
    z = np.full(n, 1 / n) if family == "uniform" else 0.9 * np.exp(log_binomial) + 0.1 / n
    z = list(z / math.fsum(z))
    result = heuristic_constructor(z, eps_exp=e, exact=False)
    assert result.arithmetic == "long double" and result.steps <= 2 * n - 1
    _independent_check(result, z, e)


def test_algorithm1_float_mode_follows_the_exact_path():
    z = binomial(60)
    exact_result = heuristic_constructor(z, eps_exp="3/2")
    float_result = heuristic_constructor(z, eps_exp="3/2", exact=False)
    assert float_result.order == exact_result.order
    exact_logs = np.array([[math.log(v) for v in row] for row in exact_result.matrix])
    assert np.max(np.abs(float_result.log_matrix - exact_logs)) <= 1e-10


def test_algorithm1_precise_redo_where_extended_precision_breaks():
    # z_1 = 1e-277 beside z_2 ≈ 1: the remainder of the last column is far below the rounding of a long
    # double; the run is redone with the remainder in high precision (128, 512, then 2048 bits) and must
    # agree with the exact mechanism.
    z = [Fraction(1, 10**84), Fraction(1, 10**277)]
    z.append(1 - sum(z))
    result = heuristic_constructor(z, eps_exp="35/2", exact=False)
    assert result.arithmetic == "long double, remainder in 2048 bits"
    exact_logs = np.array(
        [
            [math.log(v.numerator) - math.log(v.denominator) for v in row]
            for row in heuristic_constructor(z, eps_exp="35/2").matrix
        ]
    )
    assert np.max(np.abs(result.log_matrix - exact_logs)) <= 1e-10


def _narrow_bumps(n):
    """Two Gaussian bumps of sd n/50 at n/4 and 3n/4 as exact fractions (entries down to 1e-300)."""
    rows = np.arange(n)
    z = np.exp(-0.5 * ((rows - n / 4) / (n / 50)) ** 2) + np.exp(-0.5 * ((rows - 3 * n / 4) / (n / 50)) ** 2)
    z = [Fraction(v) for v in np.maximum(z / math.fsum(z), 1e-300)]
    return [v / sum(z) for v in z]


def test_algorithm1_precise_redo_agrees_with_the_exact_mechanism():
    # Between and beyond two narrow bumps the remainder falls below a long double's rounding of what the
    # bumps' columns took (e^ε = 11/10: "a scale would use up the remainder"); the redo keeps it in high
    # precision and must land on the exact algorithm's vertex, step for step.
    z = _narrow_bumps(60)
    result = heuristic_constructor(z, eps_exp="11/10", exact=False)
    exact_result = heuristic_constructor(z, eps_exp="11/10")
    assert result.arithmetic == "long double, remainder in 192 bits"
    assert result.order == exact_result.order and result.steps == exact_result.steps
    exact_logs = np.array(
        [[math.log(v.numerator) - math.log(v.denominator) for v in row] for row in exact_result.matrix]
    )
    assert np.max(np.abs(result.log_matrix - exact_logs)) <= 1e-10


def test_algorithm1_goes_straight_to_high_precision_when_the_last_column_is_below_rounding(monkeypatch):
    # The sandwich order ends at column n/2, between the bumps, where z is about 1e-34: far below a long
    # double's rounding of what the other columns take, so the long-double run is not even tried.
    def no_long_double_run(*args):
        raise AssertionError("the long-double run was tried")

    monkeypatch.setattr(algorithm1, "heuristic_values", no_long_double_run)
    z = [float(v) for v in _narrow_bumps(60)]
    assert heuristic_constructor(z, eps_exp=2.0, exact=False).arithmetic.startswith("long double, remainder in")
    z = list(np.full(60, 1 / 60))  # the middle column holds 1/60: the long-double run goes first
    with pytest.raises(AssertionError, match="was tried"):
        heuristic_constructor(z, eps_exp=2.0, exact=False)


def test_algorithm1_precise_redo_refuses_a_precision_that_loses_the_remainder():
    z = _narrow_bumps(60)
    log_z, eps = arithmetic.log_distribution(z), arithmetic.epsilon("11/10")
    with pytest.raises(CertificateError, match="ran out|fails its check"):  # a long double's 64 bits, again
        algorithm1_float.heuristic_log(
            log_z, eps, runs.column_chooser("sandwich"), algorithm1_float._PreciseRemainder(z, Fraction(11, 10), 64)
        )


def test_algorithm1_precise_step_decides_what_the_screen_only_proposes():
    # Three rows, r = (1, 9/10, b), e^ε = 2, column 0: Prop. 2's bounds are (1 − r_1/2)/(1 − 1/4) at
    # row 0 and (2·r_1 − b)/(1 − 1/4) at row 1; b makes the second smaller by a relative 1e-14. The
    # screened logs are told the opposite by 1e-13, within what a screen can be wrong by: the step
    # must compute both in high precision and make row 1 tight.
    import flint

    e, a = Fraction(2), Fraction(9, 10)
    b = e * a - (1 - a / e) * (1 - Fraction(1, 10**14))
    remainder = algorithm1_float._PreciseRemainder([Fraction(98, 100), Fraction(1, 100), Fraction(1, 100)], e, 192)
    with arithmetic.precision(192):
        remainder.rho = np.array(
            [flint.arb(1), flint.arb(flint.fmpq(9, 10)), flint.arb(flint.fmpq(b.numerator, b.denominator))],
            dtype=object,
        )
    bound_0, bound_1 = (1 - a / e) / Fraction(3, 4), (e * a - b) / Fraction(3, 4)
    assert bound_1 < bound_0 < bound_1 * (1 + Fraction(2, 10**14))
    screened = np.array([math.log(bound_0) - 1e-13, math.log(bound_1)])
    slack = np.array([math.log(2) - math.log(a), math.log(2) - math.log(b / a)])
    log_q, tight, full, _ = remainder.step(
        0, screened, slack, np.array([0, -1, -2]), np.array([0, 0]), np.array([-1, -1])
    )
    assert list(tight) == [1] and not full
    assert abs(float(log_q) - math.log(bound_1)) <= 1e-15


@pytest.mark.slow
@pytest.mark.parametrize("family, e", [("geometric(0.9)", 1.1), ("bumps", 5.0)])
def test_algorithm1_float_mode_at_n_2000_where_the_remainder_decays(family, e):
    # Both were refused before the high-precision redo (the README's "limit"): the columns filled first
    # hold nearly all of z, and the remainder falls below a long double's rounding.
    n = 2000
    if family == "bumps":
        z = [float(v) for v in _narrow_bumps(n)]
    else:
        z = 0.9 ** np.arange(n)
        z = list(z / math.fsum(z))
    result = heuristic_constructor(z, eps_exp=e, exact=False)
    assert result.arithmetic == "long double, remainder in 320 bits"
    _independent_check(result, z, e)


def test_algorithm1_exact_mode_lands_in_f_at_n_24():
    z = [Fraction(k % 5 + 1, 70) for k in range(24)]
    result = heuristic_constructor(z, eps_exp="7/4", selector="max")
    assert count_polytope(24, eps_exp="7/4", z=z, fixed=True).contains([v for row in result.matrix for v in row])
    assert result.steps <= 2 * 24 - 1


@pytest.mark.parametrize("damage", ["ratio", "row", "fixed point"])
def test_float_verification_refuses_a_damaged_mechanism(damage):
    z = [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    logs = heuristic_constructor(z, eps_exp="2", exact=False).log_matrix.copy()
    log_z = np.log([0.25, 0.5, 0.25])
    if damage == "ratio":  # column 0 gets a neighbour ratio of 2·(1 + 1e-8); rows rescaled to sum to 1
        logs[0, 0] = logs[1, 0] + math.log(2) + 1e-8
    elif damage == "row":
        logs[1] += 1e-8
    else:  # rows still sum to 1, but mass moves between columns 0 and 1
        logs[1, 0] += 1e-8
        logs[1, 1] = math.log(1 - math.exp(logs[1, 0]) - math.exp(logs[1, 2]))
    if damage == "ratio":
        logs[0] -= np.log(np.sum(np.exp(logs[0])))
    with pytest.raises(CertificateError):  # each damage is seen by its own check alone
        verify_log_mechanism(logs, math.log(2), log_z if damage == "fixed point" else None)


def test_algorithm1_float_paths_agree_and_the_log_path_takes_any_range(monkeypatch):
    # The long-double value path (fast) and the log path (any range) are the same steps in two numerics.
    z = [Fraction(k % 7 + 1, 1) for k in range(300)]
    z = [v / sum(z) for v in z]
    values = heuristic_constructor(z, eps_exp="3", exact=False)
    monkeypatch.setattr(algorithm1, "values_fit", lambda log_z, eps: False)
    logs = heuristic_constructor(z, eps_exp="3", exact=False)
    assert values.order == logs.order and values.steps == logs.steps
    assert np.max(np.abs(values.log_matrix - logs.log_matrix)) <= 1e-9
    monkeypatch.undo()
    # scales of e^(8·1499): beyond a long double, so only the log path can hold them
    big = heuristic_constructor(binomial(1500), eps_exp=math.exp(8), exact=False)
    assert big.arithmetic == "long double" and not algorithm1_float.values_fit(np.zeros(1500), 8.0)
    assert big.log_matrix.min() < -8 * 1400


@pytest.mark.parametrize(
    "damage, message",
    [
        ("ratio", "worst ratio 3 "),
        ("row", "row-sum error 1/100"),
        ("fixed point", "fixed-point error 1/50"),
        ("zero", "column 0"),
    ],
)
def test_exact_verification_refuses_a_damaged_mechanism(damage, message):
    half, quarter = Fraction(1, 2), Fraction(1, 4)
    z = [quarter, half, quarter]
    t = [list(row) for row in heuristic_constructor(z, eps_exp="2").matrix]  # [[4/9, 4/9, 1/9], [2/9, 5/9, 2/9], ...]
    verify_mechanism(t, eps_exp="2", z=z)
    if damage == "ratio":  # row 0 becomes (2/3, 2/9, 1/9): 2/3 against 2/9 below it is a ratio of 3
        t[0] = [Fraction(2, 3), Fraction(2, 9), Fraction(1, 9)]
    elif damage == "row":  # ratios stay within 2
        t[1] = [t[1][0], t[1][1] + Fraction(1, 100), t[1][2]]
    elif damage == "fixed point":  # rows still sum to 1 and ratios stay within 2; mass moves from column 1 to 0
        t[1] = [t[1][0] + Fraction(1, 100), t[1][1] - Fraction(1, 100), t[1][2]]
    else:
        t[0] = [Fraction(0), Fraction(8, 9), Fraction(1, 9)]
    with pytest.raises(CertificateError, match=message):  # a row-sum damage is seen without z (a mechanism of U)
        verify_mechanism(t, eps_exp="2", z=None if damage == "row" else z)


THIRD, FIFTH = Fraction(1, 3), Fraction(1, 5)


@pytest.mark.parametrize(
    "rows, message",
    [
        # only the ratio upwards breaks (1/2 over 1/5 in column 0), then only the ratio downwards
        (
            [
                [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)],
                [FIFTH, 2 * FIFTH, 2 * FIFTH],
                [FIFTH, 2 * FIFTH, 2 * FIFTH],
            ],
            "worst ratio 5/2 ",
        ),
        (
            [
                [FIFTH, 2 * FIFTH, 2 * FIFTH],
                [FIFTH, 2 * FIFTH, 2 * FIFTH],
                [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)],
            ],
            "worst ratio 5/2 ",
        ),
        # a negative entry that keeps the row sums: named as the pair it breaks
        ([[Fraction(3, 2), Fraction(-1, 2)], [Fraction(1, 2), Fraction(1, 2)]], "column 1 is not"),
        # rows that sum to 1 except the last, in the last of an odd number of columns (left over by the pairwise sum)
        ([[THIRD] * 3, [THIRD] * 3, [THIRD, THIRD, THIRD + Fraction(1, 7**40)]], "row-sum error 1/"),
    ],
)
def test_exact_verification_sees_each_bound_on_its_own(rows, message):
    with pytest.raises(CertificateError, match=message):
        verify_mechanism(rows, eps_exp="2")


def test_exact_verification_reports_a_worst_ratio_below_e():
    rows = [[THIRD] * 3, [2 * FIFTH, FIFTH, 2 * FIFTH], [THIRD] * 3]
    assert verify_mechanism(rows, eps_exp="2").dp_ratio == Fraction(5, 3)  # 1/3 over 1/5: no bound is tight


def test_exact_verification_refuses_a_matrix_that_is_not_square():
    with pytest.raises(ShapeError, match="2 rows"):
        verify_mechanism([[Fraction(1, 2)] * 2, [Fraction(1, 3)] * 3], eps_exp="2")


def test_shared_denominator_remainder_is_rational_arithmetic_kept_reduced():
    # The exact mode keeps r over one denominator; each step must equal plain rational arithmetic and
    # leave the numerators and the denominator coprime, with no power of e^ε's p or s left over.
    import flint

    from polytopes.fixed_point.algorithm1_exact import _SharedDenominator

    rng = np.random.default_rng(7)
    n, e = 9, flint.fmpq(7, 4)
    power = [e**h for h in range(-n, n + 1)]
    remainder = _SharedDenominator(n, e)
    reference = [flint.fmpq(1)] * n
    for _ in range(30):
        q = flint.fmpq(int(rng.integers(1, 50)), int(rng.integers(1, 10**6))) / 10**6
        heights = [int(h) + n for h in rng.integers(-n + 1, n, size=len(reference))]
        remainder.subtract(q, heights, power)
        reference = [r - q * power[h] for r, h in zip(reference, heights, strict=True)]
        assert list(remainder) == reference
        common = flint.fmpz(1)
        for r in reference:
            common = common.lcm(r.q)
        assert remainder.denominator == common
        if rng.random() < 0.2 and len(reference) > 2:  # a run joins its neighbour
            k = int(rng.integers(len(reference)))
            del remainder[k], reference[k]


def test_column_fractions_read_like_a_list_of_rows():
    import flint

    from polytopes.fixed_point.construction import ColumnFractions

    # T[i, j] = N[i, j]/d_j with d = (4, 6): rows (2/4, 3/6) and (1/4, 5/6), reduced when read
    matrix = ColumnFractions(flint.fmpz_mat(2, 2, [2, 3, 1, 5]), [flint.fmpz(4), flint.fmpz(6)])
    expected = [[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(5, 6)]]
    assert len(matrix) == 2 and matrix[1] == expected[1] and matrix[-1] == expected[1]
    assert matrix[:1] == expected[:1] and matrix == expected and matrix != [expected[0]]
    assert matrix[0][0].denominator == 2  # reduced
    with pytest.raises(IndexError):
        matrix[2]
    assert repr(matrix) == repr(expected)


@pytest.mark.parametrize("path", ["values", "logs"])
def test_algorithm1_float_mode_gives_a_tiny_last_column_its_mass(path, monkeypatch):
    # The sandwich order fills column 300 of 600 last, with all of r. With z_300 = 1e-13/n the rounding
    # of r (1 minus what the other columns took) was a relative error of 2.6 in z·T[:, 300]; the long
    # double run must carry it (the high-precision redo would hide it, three times as slow).
    if path == "logs":
        monkeypatch.setattr(algorithm1, "values_fit", lambda log_z, eps: False)
    z = np.full(600, 1.0)
    z[300] = 1e-13
    result = heuristic_constructor(list(z / z.sum()), eps_exp=2.0, exact=False)
    assert result.order[-1] == 300 and result.arithmetic == "long double"
    assert result.verification.fixed_point_error <= 1e-11


def _is_count_mechanism(matrix, e, z):
    """Kohli and Laskowski's Defs. 4 and 5 read directly: rows are distributions, neighbouring
    rows within a factor e in every column, and z·T = z when z is given."""
    n = len(matrix)
    return (
        all(v >= 0 for row in matrix for v in row)
        and all(sum(row) == 1 for row in matrix)
        and all(
            matrix[i][j] <= e * matrix[i + 1][j] and matrix[i + 1][j] <= e * matrix[i][j]
            for i in range(n - 1)
            for j in range(n)
        )
        and (z is None or all(sum(z[i] * matrix[i][j] for i in range(n)) == z[j] for j in range(n)))
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.sampled_from([Fraction(2), Fraction(3, 2)]), st.booleans(), st.data())
def test_count_program_and_count_polytope_hold_exactly_the_count_mechanisms(n, e, fixed, data):
    """The sparse rows (count_program, for LPs at n = 100) and the dense polytope describe the same
    set as Defs. 4 and 5 read directly, on candidates at and near the boundary: mixtures of the
    identity-like geometric mechanism with small integer perturbations."""
    z = [Fraction(1, n)] * n if fixed else None
    entries = data.draw(st.lists(st.integers(0, 4), min_size=n * n, max_size=n * n))
    matrix = [[Fraction(entries[i * n + j] + (3 if i == j else 1)) for j in range(n)] for i in range(n)]
    if data.draw(st.booleans()):  # doubly stochastic after a rescale: fixed point of the uniform z
        matrix = [[Fraction(1, n)] * n for _ in range(n)]
        k = data.draw(st.integers(0, n - 2))
        delta = Fraction(data.draw(st.integers(-2, 2)), 8 * n)
        for a, b in ((k, k), (k + 1, k + 1)):
            matrix[a][b] += delta
        for a, b in ((k, k + 1), (k + 1, k)):
            matrix[a][b] -= delta
    else:
        matrix = [[v / sum(row) for v in row] for row in matrix]
    point = [v for row in matrix for v in row]
    expected = _is_count_mechanism(matrix, e, z)
    assert count_program(n, e, z, fixed=fixed).contains(point) == expected
    assert count_polytope(n, eps_exp=e, z=z, fixed=fixed).contains(point) == expected


def test_exact_verification_refuses_a_matrix_that_moves_z():
    """Issue 37: rows stochastic and every ratio within e^ε = 2, but z·T = (5/12, 7/12) ≠ z."""

    matrix = [[Fraction(2, 3), Fraction(1, 3)], [Fraction(1, 3), Fraction(2, 3)]]
    assert verify_mechanism(matrix, eps_exp="2").dp_ratio == 2  # in U
    with pytest.raises(CertificateError, match="fixed"):
        verify_mechanism(matrix, eps_exp="2", z=[Fraction(1, 4), Fraction(3, 4)])


def test_exact_verification_refuses_a_ratio_above_e_eps_upwards():
    """Issue 37: column 1 of [[2/5, 3/5], [4/5, 1/5]] has the ratio 3 > e^ε = 2 (row 0 over row 1),
    while column 0 sits exactly at e^ε downwards."""

    with pytest.raises(CertificateError, match="worst ratio 3"):
        verify_mechanism([[Fraction(2, 5), Fraction(3, 5)], [Fraction(4, 5), Fraction(1, 5)]], eps_exp="2")


def test_float_verification_refuses_a_zero_beside_a_positive_entry():
    """Issue 37: log T with −inf (a zero) beside a finite entry is an infinite ratio."""

    logs = np.array([[0.0, -np.inf], [math.log(0.5), math.log(0.5)]])
    with pytest.raises(CertificateError, match="worst ratio inf"):
        verify_log_mechanism(logs, math.log(2))
    both_zero = np.array([[0.0, -np.inf], [0.0, -np.inf]])  # a column of zeros: ratio 1
    assert verify_log_mechanism(both_zero, math.log(2)).dp_ratio == pytest.approx(1)


def test_an_array_is_checked_as_it_holds_the_mechanism_naming_the_pairs_that_break_it():
    """verify_array (issue 35): a ratio of 3 where e^ε = 2 is named with its column and rows, in
    float64 and in long double; a ratio of exactly e^ε passes."""
    from polytopes.fixed_point.verification import verify_array

    for dtype in (np.float64, np.longdouble):
        with pytest.raises(
            CertificateError,
            match=r"^2 neighbour pairs break e\^ε = 2 as written .*: column 0, rows 0 "
            r"and 1 hold 7\.5e-01 and 2\.5e-01",
        ):
            verify_array(np.array([[0.75, 0.25], [0.25, 0.75]], dtype=dtype), math.log(2))
        assert verify_array(np.array([[2, 1], [1, 2]], dtype=dtype) / 3, math.log(2)).row_sum_error < 1e-12


def test_exact_verification_refuses_a_row_below_one_beside_an_exact_row():
    """Issue 53: row 1 of [[1/2, 1/2], [1/2, 1/4]] sums to 3/4 while row 0 sums to 1 and every ratio
    is within e^ε = 2; a row-sum error taken without its absolute value (1/4 below is −1/4) hides
    behind row 0's 0."""
    with pytest.raises(CertificateError, match="row-sum error 1/4"):
        verify_mechanism([[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 2), Fraction(1, 4)]], eps_exp="2")


def test_float_verification_refuses_a_row_below_one_beside_an_exact_row():
    """Issue 53: the float check of the same forgery (row 1 sums to 0.9)."""
    with pytest.raises(CertificateError, match="row-sum error 0.1"):
        verify_log_mechanism(np.log([[0.5, 0.5], [0.5, 0.4]]), math.log(2))


def test_float_verification_refuses_a_fixed_point_half_lost_at_a_tiny_coordinate():
    """Issue 53: z = (1e-12, 1 − 1e-12) and T = [[1/4, 3/4], [b, 1 − b]] with b chosen so that
    (z·T)_0 = z_0 / 2: rows sum to 1, ratios within e^30, and the surplus at coordinate 1 is a
    relative 5e-13, below the tolerance; only the relative error −1/2 at coordinate 0, taken
    with its absolute value, shows that z·T ≠ z."""
    z = np.array([1e-12, 1 - 1e-12])
    b = z[0] * 0.25 / z[1]
    logs = np.log([[0.25, 0.75], [b, 1 - b]])
    with pytest.raises(CertificateError, match="fixed-point error 0.5"):
        verify_log_mechanism(logs, 30.0, np.log(z))


def test_an_array_with_a_negative_entry_is_not_a_mechanism():
    """Issue 53: a negative entry is refused as a shape error before any ratio is taken."""
    from polytopes.fixed_point.verification import verify_array

    with pytest.raises(ShapeError, match="non-negative"):
        verify_array(np.array([[1.5, -0.5], [0.5, 0.5]]), math.log(2))
    with pytest.raises(ShapeError, match=r"shape \(2, 3\)"):  # not square (a fresh mutant)
        verify_array(np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]]), math.log(2))
