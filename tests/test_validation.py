"""The one home of size and privacy-parameter checks (qifkit.validation), and the entry points of
every layer that go through it: the same refusal, naming the value and why."""

from fractions import Fraction

import pytest

from polytopes.constrained import optimal_mechanism
from polytopes.fixed_point.algorithm1 import heuristic_constructor
from polytopes.scales import scales
from polytopes.spaces import count_polytope
from qifkit import randomized_response, truncated_geometric
from qifkit.errors import PrivacyParameterError, ShapeError
from qifkit.validation import alpha_in_unit_interval, eps_exp_above_one, whole_number


def test_the_checks_return_exact_values_and_name_what_they_refuse():
    assert whole_number(5, 2, "n") == 5 and eps_exp_above_one("7/2") == Fraction(7, 2)
    assert eps_exp_above_one(1, allow_one=True) == 1 and alpha_in_unit_interval("9/10") == Fraction(9, 10)
    for bad in (True, 1, 2.0, "3", None):
        with pytest.raises(ShapeError, match=f"n must be a whole number >= 2, got {bad!r}"):
            whole_number(bad, 2, "n")
    with pytest.raises(ShapeError, match="got True"):  # True is an int equal to 1, not a size
        whole_number(True, 1, "respondents")
    for bad, shown in (("1", "1"), ("ln(1)", "1"), (1, "1"), (0, "0"), (Fraction(1, 2), "1/2")):
        with pytest.raises(PrivacyParameterError, match=rf"e\^ε = {shown} must be > 1"):
            eps_exp_above_one(bad)
    with pytest.raises(PrivacyParameterError, match=r"e\^ε = 1/2 must be ≥ 1"):
        eps_exp_above_one(Fraction(1, 2), allow_one=True)
    with pytest.raises(PrivacyParameterError, match="below 1"):  # text below 1: the parser says so first
        eps_exp_above_one("1/2")
    for bad in ("1", "0", "-1/2", "3/2"):
        with pytest.raises(PrivacyParameterError, match=r"is not in \(0, 1\)"):
            alpha_in_unit_interval(bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda e: randomized_response(3, eps_exp=e),
        lambda e: truncated_geometric(3, eps_exp=e),
        lambda e: count_polytope(3, eps_exp=e),
        lambda e: scales(3, e),
        lambda e: heuristic_constructor(["1/2", "1/2"], eps_exp=e),
    ],
)
def test_every_layer_refuses_e_eps_one_the_same_way(call):
    with pytest.raises(PrivacyParameterError, match=r"e\^ε = 1 must be > 1"):
        call("1")


def test_sizes_and_alpha_of_the_design_lp_go_through_the_same_checks():
    with pytest.raises(ShapeError, match="n must be a whole number >= 1, got 0"):
        optimal_mechanism(0, alpha="1/2")
    with pytest.raises(PrivacyParameterError, match=r"alpha = e\^-ε = 1 is not in \(0, 1\)"):
        optimal_mechanism(2, alpha="1")
    with pytest.raises(ShapeError, match="must be a whole number >= 2, got True"):
        count_polytope(True, eps_exp="2")


def test_whole_numbers_have_one_home_with_the_callers_error_class():
    """Issue 36: the inline copies of the whole-number check (lp, pipelines ×2, cluster, channel,
    spaces, two_stage ×2, the stability spec ×3) all go through qifkit.validation.whole_number now;
    each caller keeps its own error class and bounds."""
    from proofs_checks.gate import SpecError, parse_spec
    from qifkit import lp
    from qifkit.errors import ParameterError
    from qifkit.pipelines import count_pipeline
    from qifkit.stability import search_rises

    assert whole_number(3, 0, "k", maximum=3) == 3
    with pytest.raises(ShapeError, match=r"k must be a whole number in 0\.\.3, got 4"):
        whole_number(4, 0, "k", maximum=3)
    with pytest.raises(ParameterError, match="k must be a whole number >= 1, got 'x'"):
        whole_number("x", 1, "k", error=ParameterError)
    with pytest.raises(ShapeError, match="respondents must be a whole number >= 1, got 0"):
        count_pipeline(randomized_response(2, eps_exp=2), 0, {0})
    with pytest.raises(ShapeError, match="count must be a whole number >= 0, got -1"):
        randomized_response(2, eps_exp=2).power(-1)
    with pytest.raises(ParameterError, match="pivots must be a whole number >= 0"):
        lp.solve(lp.LinearProgram.build(1, []), pivots=1.5)
    with pytest.raises(ParameterError, match="samples must be a whole number >= 3, got 1"):
        search_rises(lambda grid: [0.0] * len(grid), lambda e: 0, 2, 3, samples=1)
    with pytest.raises(SpecError, match=r"known value must be a whole number in 0\.\.1, got 2"):
        parse_spec(
            {
                "perturber": {"family": "randomized_response", "values": 2},
                "population": {"respondents": 2, "known": [2]},
                "query": {"kind": "count", "of": [0]},
                "sweep": {"eps_exp": ["2", "3"]},
            }
        )
