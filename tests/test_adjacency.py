"""Completeness by adjacency closure (polytopes.adjacency), checked against full enumeration."""

from fractions import Fraction as F

import pytest

from polytopes.adjacency import adjacency_closure, group_elements, neighbours
from polytopes.enumerate import enumerate_vertices, orbits
from polytopes.spaces import count_polytope, ldp_polytope
from qifkit.errors import QifError


def _listed(polytope):
    enumeration = enumerate_vertices(polytope)
    groups = orbits(enumeration.vertices, polytope.symmetries)
    return [v.coordinates for v in enumeration.vertices], groups


@pytest.mark.parametrize(
    "polytope",
    [ldp_polytope(3, eps_exp="2"), ldp_polytope(4, eps_exp="3/2"), count_polytope(3, eps_exp="2")],
    ids=["D n=3", "D n=4", "U n=3"],
)
def test_the_complete_list_is_closed_and_the_orbit_stabiliser_count_matches(polytope):
    listed, groups = _listed(polytope)
    closure = adjacency_closure(polytope, listed, [group[0].coordinates for group in groups])
    assert closure.missing is None
    assert closure.orbit_stabiliser_total == len(listed)


@pytest.mark.parametrize("dropped", [0, -1])
def test_a_list_missing_one_orbit_is_caught(dropped):
    """D at n = 4 (904 vertices, 10 orbits) with one orbit left out: some neighbour is not listed."""
    polytope = ldp_polytope(4, eps_exp="2")
    listed, groups = _listed(polytope)
    gone = {v.coordinates for v in groups[dropped]}
    kept = [group[0].coordinates for k, group in enumerate(groups) if group is not groups[dropped]]
    closure = adjacency_closure(polytope, [p for p in listed if p not in gone], kept)
    assert closure.missing in gone


def test_neighbours_are_the_graph_of_a_square():
    """D at n = 2, e^ε = 2 is a 2-dimensional polytope with 4 vertices: each has 2 neighbours."""
    polytope = ldp_polytope(2, eps_exp="2")
    listed, _ = _listed(polytope)
    for vertex in listed:
        around = neighbours(polytope, vertex)
        assert len(around) == 2 and around <= set(listed) and vertex not in around


def test_the_row_column_group_has_the_right_order():
    assert len(group_elements(ldp_polytope(3, eps_exp="2").symmetries, 9)) == 36  # |S3 × S3|


def test_a_point_that_is_not_a_vertex_is_refused():
    polytope = ldp_polytope(2, eps_exp="2")
    with pytest.raises(QifError, match="not a vertex"):
        neighbours(polytope, (F(1, 2), F(1, 2), F(1, 2), F(1, 2)))
    with pytest.raises(QifError, match="not in the polytope"):
        neighbours(polytope, (F(1), F(0), F(0), F(1)))
