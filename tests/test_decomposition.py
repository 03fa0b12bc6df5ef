"""Recursive adjacency decomposition (polytopes.decomposition, issue 33): the walk with tangent cones
decomposed again under their stabilisers finds the orbits cddlib's full vertex lists give; edge
counts by orbit–stabiliser equal the rays listed at once; stabilisers and canonical forms of the
explicit subgroups agree with brute force over the whole group; bad rules and non-vertices refused."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import numpy as np
import pytest

from polytopes.adjacency import IntegerRows, edge_directions, group_elements, neighbours
from polytopes.decomposition import Recursion, SubgroupForms, edges_up_to_symmetry, row_column_stabiliser
from polytopes.enumerate import enumerate_vertices, orbits
from polytopes.hrep import Polytope, integer_key, permuted
from polytopes.orbitwise import enumerate_orbits, orbit_forms
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
from qifkit.errors import PolytopeError

EVERYWHERE = Recursion(excess=0, stabiliser=2, depth=2)
"""Decompose every cone with a symmetry, two levels deep."""

CASES = {
    "D n=3 e=2": lambda: ldp_polytope(3, eps_exp="2"),
    "D n=4 e=3/2": lambda: ldp_polytope(4, eps_exp="3/2"),
    "D 4x3 face e=3": lambda: ldp_polytope(4, eps_exp="3", columns=3),
    "U n=3 e=2": lambda: count_polytope(3, eps_exp="2"),
    "F n=3 symmetric e=2": lambda: count_polytope(3, eps_exp="2", z=("1/4", "1/2", "1/4"), fixed=True),
    "F n=3 skewed e=2 (no symmetry)": lambda: count_polytope(3, eps_exp="2", z=("1/2", "1/3", "1/6"), fixed=True),
    "RU n=3 e=2": lambda: representation_polytope(3, eps_exp="2"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_recursive_walk_finds_cdds_orbits(name):
    """Count, orbits and orbit sizes of the walk with every cone decomposed, against cddlib's full
    vertex list (an independent enumeration) grouped into orbits by brute force."""
    polytope = CASES[name]()
    result = enumerate_orbits(polytope, recursion=EVERYWHERE)
    full = enumerate_vertices(polytope)
    groups = orbits(full.vertices, polytope.symmetries)
    assert result.count == len(full.vertices)
    assert sorted(o.size for o in result.orbits) == sorted(len(g) for g in groups)
    listed = {v.coordinates for v in full.vertices}
    assert all(orbit.representative in listed for orbit in result.orbits)


@pytest.mark.parametrize(
    "polytope", [ldp_polytope(4, eps_exp="2"), representation_polytope(3, eps_exp="2")], ids=["D4", "RU3"]
)
def test_edges_by_orbit_stabiliser_equal_the_rays_listed_at_once(polytope):
    """At every orbit: the decomposed cone's Σ |K| / |Stab_K(ray)| is the number of extreme rays
    cddlib lists for the whole cone, and the neighbours found reach the same orbits."""
    forms = orbit_forms(polytope)
    for orbit in enumerate_orbits(polytope).orbits:
        vertex = orbit.representative
        stabiliser = forms.stabiliser(forms.canonical(vertex))
        some, edges = edges_up_to_symmetry(polytope, vertex, stabiliser, EVERYWHERE)
        assert edges == len(edge_directions(polytope, vertex))
        assert {forms.canonical(p) for p in some} == {forms.canonical(p) for p in neighbours(polytope, vertex)}


def _brute_stabiliser(matrix: list[list[int]]) -> set[tuple[int, ...]]:
    """Every row × column permutation (gather convention) fixing the matrix, by trying all."""
    n, m = len(matrix), len(matrix[0])
    found = set()
    for rows in itertools.permutations(range(n)):
        for columns in itertools.permutations(range(m)):
            if all(matrix[rows[i]][columns[j]] == matrix[i][j] for i in range(n) for j in range(m)):
                found.add(tuple(rows[i] * m + columns[j] for i in range(n) for j in range(m)))
    return found


def test_row_column_stabilisers_are_those_found_by_trying_every_permutation():
    rng = random.Random(3)
    for _ in range(40):
        n, m = rng.choice([(3, 3), (4, 3), (3, 4), (4, 4)])
        matrix = [[rng.choice([0, 1, 1, 2]) for _ in range(m)] for _ in range(n)]
        key = (1, tuple(v for row in matrix for v in row))
        found = row_column_stabiliser(key, n, m)
        assert {tuple(int(v) for v in g) for g in found.elements} == _brute_stabiliser(matrix)
        assert found.order == len(found.elements)


@pytest.mark.parametrize(
    "values", [[0, 1, 2, 3], [-5, 0, 7], [0, 2**40, 2**40 + 1, -(2**39)]], ids=["small", "signed", "wide"]
)
def test_subgroup_forms_are_constant_on_orbits_and_separate_them(values):
    """Under the stabiliser K of a matrix and under all of S_3 × S_3: the canonical form of every
    image g·x (g in the group) is that of x; two points get one form exactly when an element maps
    one to the other (by listing). Entries of both signs and wide ranges (one position per block)."""
    rng = random.Random(8)
    group = row_column_stabiliser((1, (0, 0, 1, 0, 0, 1, 2, 2, 0)), 3, 3)  # rows 0, 1 swapped, columns 0, 1 swapped
    assert group.order == 4
    big = SubgroupForms(np.array(group_elements(ldp_polytope(3, eps_exp="2").symmetries, 9), dtype=np.intp))
    for forms in (group, big):
        points = [tuple(F(rng.choice(values), rng.choice([1, 2])) for _ in range(9)) for _ in range(30)]
        for point in points:
            key = forms.canonical(point)
            for g in forms.elements:
                assert forms.canonical(tuple(point[k] for k in g)) == key
        for a, b in itertools.combinations(points, 2):
            related = any(tuple(a[k] for k in g) == b for g in forms.elements)
            assert (forms.canonical(a) == forms.canonical(b)) == related
        for point in points:
            key = integer_key(point)
            assert forms.orbit_size(key) * forms.stabiliser(key).order == forms.order


def test_the_element_forms_stabiliser_fixes_the_point():
    polytope = count_polytope(3, eps_exp="2", z=("1/4", "1/2", "1/4"), fixed=True)
    forms = orbit_forms(polytope)
    for orbit in enumerate_orbits(polytope).orbits:
        key = forms.canonical(orbit.representative)
        fixing = forms.stabiliser(key)
        assert fixing.order * orbit.size == forms.order
        assert all(permuted(key[1], tuple(int(v) for v in g)) == key[1] for g in fixing.elements)


def test_steps_past_int64_are_exact():
    """A square [0, 2^70]² (rows too large for int64 products): each corner's neighbours are the two
    corners beside it, exactly."""
    side = F(2**70)
    zero = F(0)
    polytope = Polytope(
        name="square",
        shape=(1, 2),
        eps_exp=F(2),
        equalities=(),
        inequalities=((zero, F(1), zero), (zero, zero, F(1)), (side, F(-1), zero), (side, zero, F(-1))),
    )
    rows = IntegerRows(polytope)
    assert rows.normals.dtype == np.int64
    assert set(neighbours(polytope, (zero, zero))) == {(side, zero), (zero, side)}
    assert set(neighbours(polytope, (side, side))) == {(side, zero), (zero, side)}
    far = rows.steps(integer_key((F(0), F(0))), [(3**50, 0)])  # a direction past int64
    assert far == [(1, (2**70, 0))]
    huge = F(2**1100)  # past floats: the ratios are compared exactly
    box = Polytope(
        name="square",
        shape=(1, 2),
        eps_exp=F(2),
        equalities=(),
        inequalities=((zero, F(1), zero), (zero, zero, F(1)), (huge, F(-1), zero), (huge + 1, zero, F(-1))),
    )
    assert set(neighbours(box, (zero, zero))) == {(huge, zero), (zero, huge + 1)}


@pytest.mark.parametrize("field, value", [("excess", -1), ("stabiliser", 1.5), ("depth", True)])
def test_a_bad_rule_is_refused(field, value):
    with pytest.raises(PolytopeError, match=field):
        Recursion(**{field: value})


def test_a_point_that_is_not_a_vertex_is_refused():
    polytope = ldp_polytope(3, eps_exp="2")
    forms = orbit_forms(polytope)
    middle = tuple(F(1, 3) for _ in range(9))
    with pytest.raises(PolytopeError, match="not a vertex"):
        edges_up_to_symmetry(polytope, middle, forms.stabiliser(forms.canonical(middle)), EVERYWHERE)


def test_the_command_line_decomposes_on_request(capsys):
    from proofs_checks.cli import main

    assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--method", "orbits", "--recurse", "0,2,1"]) == 0
    assert "904 vertices in 10 orbits" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--method", "orbits", "--recurse", "60,2"], "three whole numbers"),
        (["--method", "orbits", "--recurse", "60,2,1e3"], "three whole numbers"),
        (["--method", "orbits", "--recurse", "__import__('os'),2,1"], "three whole numbers"),
        (["--method", "cdd", "--recurse", "60,2,1"], "has none"),
    ],
)
def test_the_command_line_refuses_a_bad_rule(arguments, says, capsys):
    from proofs_checks.cli import main

    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", *arguments]) == 2
    assert says in capsys.readouterr().err


# ------------------------------------------------------------------ SymPol, an independent enumerator up to symmetry
needs_sympol = pytest.mark.skipif(
    not __import__("polytopes.sympol").sympol.sympol_available(),
    reason="polymake (with SymPol) is not installed: apt-get install polymake",
)


@needs_sympol
@pytest.mark.parametrize(
    "polytope",
    [ldp_polytope(4, eps_exp="2"), ldp_polytope(4, eps_exp="3/2"), count_polytope(4, eps_exp="2")],
    ids=["D4 e=2", "D4 e=3/2", "U4"],
)
def test_sympols_representatives_are_the_decomposed_walks_orbits(polytope):
    """SymPol (Rehn and Schürmann, in polymake) and the decomposed walk name the same orbits: each
    SymPol representative is a vertex, and their canonical forms are the walk's."""
    from polytopes.sympol import sympol_representatives

    forms = orbit_forms(polytope)
    theirs = sympol_representatives(polytope)
    assert all(polytope.is_vertex(point) for point in theirs)
    ours = enumerate_orbits(polytope, recursion=Recursion()).orbits
    assert sorted(forms.canonical(point) for point in theirs) == sorted(forms.canonical(o.representative) for o in ours)


def test_a_symmetry_that_does_not_permute_the_facets_is_refused_before_sympol_runs():
    from polytopes.sympol import _script

    square = ldp_polytope(2, eps_exp="2")
    bogus = Polytope(
        name=square.name,
        shape=square.shape,
        eps_exp=square.eps_exp,
        equalities=square.equalities,
        inequalities=square.inequalities,
        symmetries=((1, 0, 2, 3),),
    )  # swaps two entries of one row
    with pytest.raises(PolytopeError, match="does not map its facets"):
        _script(bogus)
    assert "FACETS_ACTION" in _script(square)


def test_a_decomposed_cone_reports_its_progress(monkeypatch):
    """The walk's progress callback hears from inside a decomposed cone (here after every ray orbit)."""
    import polytopes.decomposition

    monkeypatch.setattr(polytopes.decomposition, "PROGRESS_EVERY", 1)
    lines: list[str] = []
    enumerate_orbits(ldp_polytope(4, eps_exp="2"), recursion=Recursion(0, 2, 1), progress=lines.append)
    inside = [line for line in lines if "ray orbits found" in line]
    assert inside and all("decomposed under" in line for line in inside)


# ------------------------------------------------------------------ a killed run goes on inside a decomposed cone
def _counting_cone_steps(monkeypatch, stop_after=None):
    """Count the vertices visited inside decomposed cones (depth 1); raise KeyboardInterrupt at
    the visit after `stop_after`, as a Ctrl-C would."""
    import polytopes.decomposition as decomposition

    monkeypatch.setattr(decomposition, "PROGRESS_EVERY", 1)
    visits = []
    original = decomposition._Level.edges

    def edges(self, key, stabiliser):
        if self.depth == 1:
            if stop_after is not None and len(visits) == stop_after:
                raise KeyboardInterrupt
            visits.append(key)
        return original(self, key, stabiliser)

    monkeypatch.setattr(decomposition._Level, "edges", edges)
    return visits


def test_a_run_killed_inside_a_decomposed_cone_goes_on_from_its_kept_state(tmp_path, monkeypatch):
    polytope = ldp_polytope(4, eps_exp="2")
    rule = Recursion(0, 2, 1)
    with monkeypatch.context() as patch:
        fresh = _counting_cone_steps(patch)
        expected = enumerate_orbits(polytope, recursion=rule, folder=str(tmp_path / "fresh"))
    with monkeypatch.context() as patch:
        _counting_cone_steps(patch, stop_after=len(fresh) // 2)
        with pytest.raises(KeyboardInterrupt):
            enumerate_orbits(polytope, recursion=rule, folder=str(tmp_path / "killed"))
    assert any(path.name.startswith("cone") for path in (tmp_path / "killed").iterdir())
    with monkeypatch.context() as patch:
        again = _counting_cone_steps(patch)
        resumed = enumerate_orbits(polytope, recursion=rule, folder=str(tmp_path / "killed"))
    assert (resumed.count, len(resumed.orbits)) == (expected.count, len(expected.orbits)) == (904, 10)
    assert len(again) < len(fresh) - len(fresh) // 2 + 1  # the visits before the kill are not made again


def test_a_forged_cone_state_is_refused(tmp_path):
    """A state listing a point that is no ray of the cone (here the representative itself) is
    refused, naming what is wrong, not walked from."""
    from polytopes.orbitwise import _first_vertex, _Store

    polytope = ldp_polytope(4, eps_exp="2")
    forms = orbit_forms(polytope)
    first = forms.canonical(_first_vertex(polytope))
    store = _Store(polytope, forms, str(tmp_path), lambda text: None)
    store.cone_state(first).keep([first], [first])
    with pytest.raises(PolytopeError, match="kept cone state"):
        enumerate_orbits(polytope, recursion=Recursion(0, 2, 1), folder=str(tmp_path))
