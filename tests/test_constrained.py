"""Cormode et al.'s structural properties and the exact design LP."""

from fractions import Fraction as F

import pytest

from polytopes.constrained import (
    PROPERTIES,
    design_program,
    optimal_mechanism,
    properties_of,
    property_violation,
    symmetrised,
)
from polytopes.lp import certified_minimum
from qifkit import Channel, explicit_fair_mechanism, geometric_mechanism, l0_score, uniform_mechanism
from qifkit.count_objectives import objective_coefficients
from qifkit.errors import LabelError, PrivacyParameterError, ShapeError


def test_example1_gm_is_not_column_honest_nor_weakly_honest():
    """Cormode et al. Example 1 (n = 2, α = 9/10): Pr[1|1] = 1/19 < Pr[0|1] = 9/19 and < 1/3."""
    found = properties_of(geometric_mechanism(2, alpha="9/10"))
    assert found["CH"] == "Pr[1|1] >= Pr[0|1]" and found["WH"] == "Pr[1|1] >= 1/3"
    assert found["RH"] is None and found["RM"] is None and found["S"] is None and found["F"] is not None


def test_uniform_mechanism_meets_every_property():
    """Def. 5: UM meets every property (with equality for RM, CM, WH)."""
    assert all(v is None for v in properties_of(uniform_mechanism(5)).values())


def test_gm_is_the_basicdp_optimum_and_em_the_fair_one():
    value, mechanism = optimal_mechanism(4, alpha="10/11")
    assert value == F(20, 21) and mechanism == geometric_mechanism(4, alpha="10/11")
    fair_value, _ = optimal_mechanism(4, alpha="10/11", properties=["F"])
    assert fair_value == l0_score(explicit_fair_mechanism(4, alpha="10/11"))


@pytest.mark.parametrize(("n", "alpha", "route"), [
    # the rounds' dual feasible bases miss 17 bounds (round 5), then 320 and 141: the dual simplex
    # finishes from the 17 and wandered from the last
    pytest.param(55, "1/3", "HiGHS basis, then exact dual simplex",
                 id="n = 55, alpha = 1/3: dual pivots from the basis missing fewest bounds"),
    # the scaled rounds end on a basis whose point meets every bound; the later rounds do not
    pytest.param(60, "1/3", "HiGHS basis, then exact primal simplex", marks=pytest.mark.slow,
                 id="n = 60, alpha = 1/3: primal pivots from an earlier basis"),
    # the dual simplex stalls (dual degenerate): the costs are shifted and perturbed
    pytest.param(60, "1/2", "on shifted costs", marks=pytest.mark.slow, id="n = 60, alpha = 1/2: perturbed costs"),
])
def test_the_fair_optimum_is_certified_past_n_50(n, alpha, route):
    """Issue 56: the fair design (RH, CH, F) had no certificate from n = 55 (UndecidableError after
    55-77 s); certified now by the route named, its value is the L0 score of Cormode et al.'s
    explicit fair mechanism, computed from EM's formula, not by an LP (Thm. 4: EM is optimal under
    all seven properties; fairness with RH and CH already has EM's value, as F alone has at n = 4
    above). The L0 objective of the program is n/(n + 1) times the score (optimal_mechanism's scale)."""
    program = design_program(n, alpha=alpha, properties=("RH", "CH", "F"))
    objective = [F(0)] * program.variables
    for j, row in enumerate(objective_coefficients(n, 0)):
        for i, c in enumerate(row):
            objective[j * (n + 1) + i] = c
    found = certified_minimum(program, objective)
    assert found.value * F(n + 1, n) == l0_score(explicit_fair_mechanism(n, alpha=alpha))
    assert route in found.method


def test_symmetrised_is_centrosymmetric():
    m = Channel.from_rows([[F(1, 2), F(1, 2), 0], [F(1, 3), F(1, 3), F(1, 3)], [0, F(1, 4), F(3, 4)]])
    assert property_violation(symmetrised(m), "S") is None and property_violation(m, "S") is not None


def test_bad_input_is_refused():
    with pytest.raises(LabelError, match="unknown property 'XX'"):
        optimal_mechanism(3, alpha="1/2", properties=["XX"])
    with pytest.raises(PrivacyParameterError):
        optimal_mechanism(3, alpha="3/2")
    with pytest.raises(ShapeError):
        optimal_mechanism(0, alpha="1/2")
    assert set(PROPERTIES) == {"RH", "RM", "CH", "CM", "F", "WH", "S"}


def test_flowchart_recommendation_is_the_lp_optimum_for_every_subset():
    # Fig. 5 against an independent route: the exact LP for each of the 128 subsets.
    import itertools

    from polytopes.constrained import recommend
    from qifkit.count_objectives import l0_score

    for alpha in ("10/11", "1/2"):
        for k in range(len(PROPERTIES) + 1):
            for subset in itertools.combinations(PROPERTIES, k):
                name, mechanism = recommend(3, alpha=alpha, properties=subset)
                value, _ = optimal_mechanism(3, alpha=alpha, properties=subset)
                assert l0_score(mechanism) == value, (alpha, subset, name)
                assert all(property_violation(mechanism, p) is None for p in subset), (alpha, subset, name)


def test_the_engine_agrees_with_cddlibs_simplex_on_the_design_lp():
    for properties in ((), ("WH",), ("WH", "CM"), PROPERTIES):
        exact_value, _ = optimal_mechanism(5, alpha="9/10", properties=properties, method="cdd")
        certified_value, mechanism = optimal_mechanism(5, alpha="9/10", properties=properties)
        assert certified_value == exact_value
        assert all(property_violation(mechanism, p) is None for p in properties)


def test_max_and_l0d_objectives():
    from qifkit.count_objectives import objective_value

    for kwargs in ({"aggregate": "max"}, {"p": 1}, {"p": 2, "aggregate": "max"}, {"min_distance": 2}):
        value, mechanism = optimal_mechanism(4, alpha="10/11", **kwargs)
        p = kwargs.get("p", 0)
        assert objective_value(mechanism, p, aggregate=kwargs.get("aggregate", "sum"),
                               min_distance=kwargs.get("min_distance", 0)) == value
    # UM is feasible for every objective, so no optimum can exceed its value
    from qifkit.mechanisms import uniform_mechanism

    assert optimal_mechanism(4, alpha="10/11", aggregate="max")[0] <= objective_value(
        uniform_mechanism(4), 0, aggregate="max"
    )


def test_design_refuses_bad_options():
    from polytopes.constrained import recommend
    from qifkit.errors import LabelError

    with pytest.raises(LabelError):
        optimal_mechanism(3, alpha="1/2", aggregate="mean")
    with pytest.raises(LabelError):
        optimal_mechanism(3, alpha="1/2", p=3)
    with pytest.raises(LabelError):
        recommend(3, alpha="1/2", properties=["honest"])


# --------------------------------------------------------------------------- an independent reference
# Cormode et al. §IV-A, eqs. (7)–(14), written here from the paper with P(i | j) = rows[j][i] (rows are
# true inputs j, columns reported outputs i), quantifiers as printed. The package derives both its
# property test and the design LP's constraints from one table (_property_rows), so a slip there
# would agree with itself; this is a second source.

def _reference_properties(rows):
    n = len(rows) - 1
    def p(i, j):
        return rows[j][i]
    indices = range(n + 1)
    return {
        "RH": all(p(i, i) >= p(i, j) for i in indices for j in indices),                              # (7)
        "RM": all(p(i, j - 1) <= p(i, j) for i in indices for j in range(1, i + 1))                   # (8)
        and all(p(i, j + 1) <= p(i, j) for i in indices for j in range(i, n)),
        "CH": all(p(j, j) >= p(i, j) for i in indices for j in indices),                              # (9)
        "CM": all(p(i - 1, j) <= p(i, j) for j in indices for i in range(1, j + 1))                  # (10)
        and all(p(i + 1, j) <= p(i, j) for j in indices for i in range(j, n)),
        "F": len({p(i, i) for i in indices}) == 1,                                                    # (11)
        "WH": all(p(i, i) >= F(1, n + 1) for i in indices),                                           # (13)
        "S": all(p(i, j) == p(n - i, n - j) for i in indices for j in indices),                       # (14)
    }


def _random_mechanism(rng, n, symmetric):
    rows = [[F(int(v) + 1) for v in rng.integers(0, 4, size=n + 1)] for _ in range(n + 1)]
    if symmetric:  # average with the centro-symmetric image, so that S (and often F) holds
        rows = [[rows[j][i] + rows[n - j][n - i] for i in range(n + 1)] for j in range(n + 1)]
    return [[v / sum(row) for v in row] for row in rows]


def test_property_tests_agree_with_the_papers_definitions():
    import numpy as np

    from polytopes.constrained import weakly_honest_mechanism

    rng = np.random.default_rng(18)
    mechanisms: list = [_random_mechanism(rng, int(rng.integers(1, 5)), symmetric) for symmetric in (False, True)
                  for _ in range(150)]
    for n in (1, 2, 3, 6):
        for alpha in ("1/2", "10/11", "99/100"):
            mechanisms += [m(n, alpha=alpha).rows()
                           for m in (geometric_mechanism, weakly_honest_mechanism, explicit_fair_mechanism)]
        mechanisms.append(uniform_mechanism(n).rows())
    for n in (1, 2, 3):  # UM meets every inequality with equality; moving mass within one row breaks a few
        for j in range(n + 1):
            for up in range(n + 1):
                for down in range(n + 1):
                    if up != down:
                        rows = [[F(1, n + 1)] * (n + 1) for _ in range(n + 1)]
                        rows[j][up] += F(1, 4 * (n + 1))
                        rows[j][down] -= F(1, 4 * (n + 1))
                        mechanisms.append(rows)
    seen = {name: set() for name in PROPERTIES}
    for rows in mechanisms:
        reference = _reference_properties(rows)
        for name in PROPERTIES:
            assert (property_violation(rows, name) is None) == reference[name], (name, rows)
            seen[name].add(reference[name])
    assert all(outcomes == {True, False} for outcomes in seen.values())  # every property both held and failed


def test_fig6_properties_by_the_papers_definitions():
    # Fig. 6 (with §V-A: WM is built for WH + RM + CM) on the reference alone, beside the package's
    # mechanisms: S and RM for all four, CM and WH for WM, EM, UM, F for EM and UM only.
    from polytopes.constrained import weakly_honest_mechanism

    for n in (2, 4, 7):
        for alpha in ("1/2", "10/11", "19/25"):
            found = {name: _reference_properties(m(n, alpha=alpha).rows()) for name, m in (
                ("GM", geometric_mechanism), ("WM", weakly_honest_mechanism), ("EM", explicit_fair_mechanism))}
            found["UM"] = _reference_properties(uniform_mechanism(n).rows())
            for name in ("GM", "WM", "EM", "UM"):
                assert found[name]["S"] and found[name]["RM"], (n, alpha, name)
            for name in ("WM", "EM", "UM"):
                assert found[name]["CM"] and found[name]["WH"], (n, alpha, name)
            assert found["EM"]["F"] and found["UM"]["F"] and not found["GM"]["F"] and not found["WM"]["F"]


def test_one_objective_for_the_lp_and_the_evaluation():
    """Def. 3's coefficients, by hand at n = 2: w_j·|i − j|^p off the diagonal (p = 0 counts a wrong
    answer), only where |i − j| ≥ d; the design LP's optimum, evaluated by objective_value, is its value."""
    from fractions import Fraction as F

    from qifkit.count_objectives import objective_coefficients, objective_value

    third = F(1, 3)
    assert objective_coefficients(2, p=1) == [[0, third, 2 * third], [third, 0, third], [2 * third, third, 0]]
    assert objective_coefficients(2) == [[0, third, third], [third, 0, third], [third, third, 0]]  # L0
    assert objective_coefficients(2, p=0, min_distance=2) == [[0, 0, third], [0, 0, 0], [third, 0, 0]]
    assert objective_coefficients(2, p=2, weights=[1, 0, 0]) == [[0, 1, 4], [0, 0, 0], [0, 0, 0]]
    for p, aggregate, d in ((1, "sum", 0), (2, "max", 0), (0, "sum", 2)):
        value, mechanism = optimal_mechanism(3, alpha="1/2", properties=["RM"], p=p, aggregate=aggregate,
                                             min_distance=d)
        assert objective_value(mechanism, p, aggregate=aggregate, min_distance=d) == value
