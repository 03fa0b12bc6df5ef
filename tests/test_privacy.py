"""Exact DP checks: tightest e^ε, the attaining pair, adjacency presets and d-privacy."""

import math
from fractions import Fraction as F

import networkx as nx
import pytest
import sympy

from qifkit import (
    Channel,
    count_adjacency,
    histogram_adjacency,
    local_adjacency,
    randomized_response,
    satisfies_dp,
    tightest_d_privacy,
    tightest_eps_exp,
    truncated_geometric,
)
from qifkit.errors import LabelError, UndecidableError


@pytest.mark.parametrize("eps_exp", ["2", "7/2", "351/100"])
def test_geometric_is_exactly_eps_dp_on_neighbours(eps_exp):
    gd = truncated_geometric(7, eps_exp=eps_exp)
    bound = tightest_eps_exp(gd, count_adjacency(gd.secrets))
    assert bound.eps_exp == F(eps_exp)
    assert gd.entry(bound.secret, bound.output) / gd.entry(bound.neighbour, bound.output) == F(eps_exp)


def test_geometric_on_all_pairs_is_eps_to_the_distance():
    """On local DP (all pairs), GD_α on 0..2 has ratio (1/α)^2 between 0 and 2 (column 0)."""
    assert tightest_eps_exp(truncated_geometric(3, eps_exp="3")).eps_exp == 9


def test_randomized_response_local_dp_is_eps_exp():
    assert tightest_eps_exp(randomized_response(4, eps_exp="5"), local_adjacency(range(4))).eps_exp == 5
    assert satisfies_dp(randomized_response(4, eps_exp="5"), eps_exp="5") and not satisfies_dp(
        randomized_response(4, eps_exp="5"), eps_exp="4.99"
    )


def test_infinite_ratio_is_reported_with_its_pair():
    c = Channel.from_rows([[1, 0], ["1/2", "1/2"]])
    bound = tightest_eps_exp(c)
    assert bound.eps_exp == math.inf
    assert (bound.secret, bound.neighbour, bound.output) == (1, 0, 1)


def test_no_adjacent_pairs_means_eps_zero():
    c = Channel.from_rows([[1, 0], [0, 1]])
    assert tightest_eps_exp(c, nx.empty_graph([0, 1])).eps_exp == 1


def test_adjacency_must_name_secrets():
    with pytest.raises(LabelError, match="not a secret"):
        tightest_eps_exp(randomized_response(2, eps_exp="2"), nx.path_graph(["x", "y"]))


def test_histogram_adjacency_one_bar_one_unit():
    graph = histogram_adjacency([(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)])
    assert set(map(frozenset, graph.edges())) == {
        frozenset({(0, 0), (1, 0)}),
        frozenset({(0, 0), (0, 1)}),
        frozenset({(1, 0), (1, 1)}),
        frozenset({(0, 1), (1, 1)}),
        frozenset({(1, 0), (2, 0)}),
    }


def test_d_privacy_of_geometric_with_the_line_metric():
    """GD_ε is ε·|x − x'|-private: the tightest e^ε under d = |x − x'| is e^ε itself."""
    bound = tightest_d_privacy(truncated_geometric(5, eps_exp="3"), lambda x, y: abs(x - y))
    assert bound.eps_exp == 3


def test_d_privacy_compares_roots_exactly():
    """Ratios 5 at distance 1 and 7 at distance 2: the tightest e^ε is 5, not the raw maximum 7."""
    c = Channel.from_rows([["8/9", "1/9"], ["4/9", "5/9"], ["2/9", "7/9"]])
    line = {(0, 1): 1, (0, 2): 2, (1, 2): 1}
    bound = tightest_d_privacy(c, lambda x, y: line[tuple(sorted((x, y)))])
    assert (bound.eps_exp, bound.secret, bound.neighbour, bound.output) == (5, 1, 0, 1)
    stretched = {(0, 1): 2, (0, 2): 2, (1, 2): 1}
    bound = tightest_d_privacy(c, lambda x, y: stretched[tuple(sorted((x, y)))])
    assert bound.eps_exp == sympy.sqrt(7) and bound.ratio == 7


def test_d_privacy_unbounded_ratio():
    c = Channel.from_rows([["1/2", "1/2"], [1, 0]])
    assert tightest_d_privacy(c, lambda x, y: 1).eps_exp == sympy.oo


def test_symbolic_channel_privacy_is_undecidable():
    e = sympy.Symbol("e")
    with pytest.raises(UndecidableError):
        tightest_eps_exp(randomized_response(2, eps_exp=e))


def test_local_privacy_on_a_whole_range_is_decided_between_the_points_too():
    """A perturber that is e^ε-private at both ends of [2, 5] but not in between: rows (1/2, 1/2)
    and (1 − q, q) with q = 1/(2t) − (t − 2)(5 − t)/(8t), so that C[0, 1]/C[1, 1] = t at the ends
    and more inside (checked by exact evaluation at the ends and at 7/2); the randomized response
    of the same t is proved private on the whole range (its ratios are exactly t)."""
    from qifkit.privacy import local_privacy_defect_on_range

    t = sympy.Symbol("t")
    rr = [[t / (t + 1), 1 / (t + 1)], [1 / (t + 1), t / (t + 1)]]
    assert local_privacy_defect_on_range(rr, t, 2, 5) is None
    low_end = 1 / (2 * t) - (t - 2) * (5 - t) / (8 * t)
    bumped = [[sympy.Rational(1, 2), sympy.Rational(1, 2)], [1 - low_end, low_end]]
    for end in (2, 5):  # private at the ends ...
        ratio = sympy.Rational(1, 2) / low_end.subs(t, end)
        assert ratio <= end
    inside = sympy.Rational(7, 2)  # ... not at 7/2
    assert sympy.Rational(1, 2) / low_end.subs(t, inside) > inside
    assert local_privacy_defect_on_range(bumped, t, 2, 5) == "C[0, 1] ≤ t·C[1, 1] fails somewhere in [2, 5]"
    negative = [[1 - (t - 3) / 10, (t - 3) / 10], [sympy.Rational(1, 2), sympy.Rational(1, 2)]]
    assert "entry (0, 1)" in local_privacy_defect_on_range(negative, t, 2, 5)
