"""ex(D) from tight and loose rows (polytopes.ldp_rows, issue 55): the orderly generation against
brute force, every vertex against cddlib's list (n = 3) and the orbit walk (n = 4, also at e^ε the
face sets refuse), the census files orbit by orbit at n = 4, 5 (the walk's) and n = 6 (the face sets',
slow), and the bad input it refuses."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from polytopes.enumerate import enumerate_vertices
from polytopes.ldp_faces import ldp_orbits_by_faces
from polytopes.ldp_rows import ldp_orbits_by_rows, pattern_sets, scale_vectors
from polytopes.orbitwise import enumerate_orbits, orbit_forms
from polytopes.spaces import ldp_polytope
from qifkit.errors import ParameterError, PrivacyParameterError, ShapeError
from qifkit.files import read_json
from qifkit.numbers import parse_number

RESULTS = Path(__file__).resolve().parent.parent / "results"
CENSUS_EPS = ("5/4", "3/2", "2", "3", "5")


def _census_orbits(n, eps_exp):
    """The census file's orbits as {representative: size} (the walk's at n ≤ 5, the face sets' at 6)."""
    document = json.loads((RESULTS / f"ldp-n{n}-e{eps_exp.replace('/', '_')}.json").read_text())
    return {tuple(parse_number(v) for row in orbit["representative"] for v in row): orbit["size"]
            for orbit in document["orbits"]}


def _found_orbits(found):
    return {orbit.representative: orbit.size for orbit in found.orbits}


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_pattern_sets_keep_the_least_antichain_of_every_orbit(m):
    """Brute force over all m-sets of {0..2^m − 1} that are antichains (no pattern's bits inside
    another's) and all m! column permutations: the sets kept are exactly the lexicographically least
    of each orbit, one per orbit."""
    def image(x, order):
        return sum(1 << order[k] for k in range(m) if x >> k & 1)

    least = {min(tuple(sorted(image(x, order) for x in chosen)) for order in itertools.permutations(range(m)))
             for chosen in itertools.combinations(range(1 << m), m)
             if not any(x & y in (x, y) for x, y in itertools.combinations(chosen, 2))}
    assert list(pattern_sets(m)) == sorted(least)


@pytest.mark.parametrize("eps_exp", ["2", "3/2", "5", "101/100"])
def test_only_antichains_have_positive_scales(eps_exp):
    """The pruning to antichains loses nothing: over **every** set of m patterns (m = 2, 3, 4, no
    symmetry used), each independent set with a > 0, solved by hand-written elimination in Fractions,
    gives a scale vector that scale_vectors lists, and every listed one is found so."""
    e = parse_number(eps_exp)
    for m in (2, 3, 4):
        found = set()
        for chosen in itertools.combinations(range(1 << m), m):
            a = _solve([[e if x >> k & 1 else 1 for k in range(m)] for x in chosen])
            if a is not None and min(a) > 0:
                found.add(tuple(sorted(a)))
        assert sorted(found) == scale_vectors(m, e)


def _solve(rows):
    """The a with rows·a = 1, or None when the rows are dependent (Gauss–Jordan in Fractions)."""
    size = len(rows)
    augmented = [[Fraction(v) for v in row] + [Fraction(1)] for row in rows]
    for column in range(size):
        pivot = next((i for i in range(column, size) if augmented[i][column] != 0), None)
        if pivot is None:
            return None
        augmented[column], augmented[pivot] = augmented[pivot], augmented[column]
        for i in range(size):
            if i != column and augmented[i][column] != 0:
                factor = augmented[i][column] / augmented[column][column]
                augmented[i] = [u - factor * v for u, v in zip(augmented[i], augmented[column], strict=True)]
    return tuple(augmented[i][size] / augmented[i][i] for i in range(size))


def test_scale_vectors_solve_their_patterns():
    """Every scale vector is positive and fixed by m independent tight patterns (checked by hand-written
    Gaussian elimination in Fractions, not the flint solver): at m = 2, e^ε = 2 only (1/3, 1/3), the
    columns of the two-output randomised response."""
    assert scale_vectors(2, Fraction(2)) == [(Fraction(1, 3), Fraction(1, 3))]
    e = Fraction(3, 2)
    for m in (3, 5):  # at m = 5 eight antichains of patterns solve to a with a zero scale: none is listed
        for a in scale_vectors(m, e):
            assert min(a) > 0
            tight = [[e if x >> k & 1 else 1 for k in range(m)] for x in range(1 << m)
                     if sum((e if x >> k & 1 else 1) * a[k] for k in range(m)) == 1]
            assert _rank(tight) == m


def _rank(rows):
    rows = [list(r) for r in rows]
    rank = 0
    for column in range(len(rows[0])):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][column] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][column] != 0:
                factor = rows[i][column] / rows[rank][column]
                rows[i] = [u - factor * v for u, v in zip(rows[i], rows[rank], strict=True)]
        rank += 1
    return rank


@pytest.mark.parametrize("eps_exp", ["2", "3/2", f"{10**30 + 1}/{10**30}"])
def test_rows_give_cdds_vertices_at_n3(eps_exp):
    """n = 3: the orbits' sizes sum to cddlib's vertex count (33), every cddlib vertex lies in a listed
    orbit, and every representative is a vertex (exact rank test on D's inequalities). The last e^ε
    makes the forms' integers wider than 64 bits, so the tasks' answers travel as Python integers."""
    polytope = ldp_polytope(3, eps_exp=eps_exp)
    found = ldp_orbits_by_rows(3, eps_exp)
    vertices = enumerate_vertices(polytope).vertices
    forms = orbit_forms(polytope)
    assert found.count == len(vertices) == 33
    listed = {forms.canonical(orbit.representative) for orbit in found.orbits}
    assert {forms.canonical(v.coordinates) for v in vertices} == listed
    assert all(polytope.is_vertex(o.representative, polytope.tight(o.representative)) for o in found.orbits)


@pytest.mark.parametrize("eps_exp", ["101/100", "199/2", "1000/999"])
def test_rows_give_the_walks_orbits_where_the_face_sets_would_overflow(eps_exp):
    """n = 4 at e^ε with large numerators, which the face sets refuse (their 64-bit eliminations stop
    at p = 98 at n = 4; the rows are decided in flint rationals): the orbit walk's orbits and sizes
    (tangent cones by cddlib, complete by adjacency closure)."""
    with pytest.raises(ParameterError):
        ldp_orbits_by_faces(4, eps_exp)
    walk = enumerate_orbits(ldp_polytope(4, eps_exp=eps_exp), cone_method="cdd")
    assert _found_orbits(ldp_orbits_by_rows(4, eps_exp)) == _found_orbits(walk)


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("eps_exp", CENSUS_EPS)
def test_rows_give_the_walk_census_orbit_by_orbit(n, eps_exp):
    """The census files of n = 4 and 5 (the orbit walk's, complete by adjacency closure): the same
    representatives and sizes (904 in 10 orbits, 164,825 in 47)."""
    found = ldp_orbits_by_rows(n, eps_exp)
    assert _found_orbits(found) == _census_orbits(n, eps_exp)
    assert (found.count, len(found.orbits)) == {4: (904, 10), 5: (164_825, 47)}[n]


@pytest.mark.parametrize("eps_exp", CENSUS_EPS)
def test_rows_give_the_face_set_census_at_n6_orbit_by_orbit(eps_exp):
    """n = 6 (the face sets' census, 164,806,776 vertices in 655 orbits): the same representatives and
    sizes from the second characterisation (about a second each)."""
    found = ldp_orbits_by_rows(6, eps_exp)
    assert _found_orbits(found) == _census_orbits(6, eps_exp)
    assert (found.count, len(found.orbits)) == (164_806_776, 655)


@pytest.mark.slow
def test_the_n7_census_holds_the_exact_optimum_of_random_objectives():
    """n = 7, e^ε = 2 (the rows' census, no other method reaches it): the certified exact LP optimum
    of D under 60 random integer objectives (HiGHS's basis, solved and checked in rationals; a
    route that shares nothing with the rows) is a vertex of a listed orbit, every time."""
    import random

    from polytopes.lp import certified_minimum

    document = read_json(RESULTS / "ldp-n7-e2.json.gz")
    polytope = ldp_polytope(7, eps_exp="2")
    forms = orbit_forms(polytope)
    listed = {forms.canonical(tuple(parse_number(v) for row in orbit["representative"] for v in row))
              for orbit in document["orbits"]}
    generator = random.Random(55)
    for _ in range(60):
        objective = [generator.randint(-1000, 1000) for _ in range(49)]
        optimum = certified_minimum(polytope, objective)
        assert polytope.is_vertex(optimum.point)
        assert forms.canonical(optimum.point) in listed, objective


@pytest.mark.slow
def test_the_rows_at_n7_with_a_zero_column_keep_the_table_of_all_pattern_sets():
    """n = 7 with at most six non-zero columns: the counts docs/enumerate.md recorded when the
    scale vectors came from every set of patterns (not only antichains), before the pruning, column
    count by column count (136,722,277,153 vertices in 8,731 orbits)."""
    found = ldp_orbits_by_rows(7, "2", largest_support=6)
    table: dict[int, list[int]] = {}
    for orbit in found.orbits:
        columns = sum(1 for k in range(7) if any(orbit.representative[i * 7 + k] for i in range(7)))
        table.setdefault(columns, [0, 0])
        table[columns][0] += orbit.size
        table[columns][1] += 1
    assert table == {6: [132_565_870_080, 7_825], 5: [4_117_528_800, 822], 4: [38_749_200, 72], 3: [126_420, 8],
                     2: [2_646, 3], 1: [7, 1]}


def test_a_largest_support_gives_the_census_orbits_with_that_many_columns():
    """At n = 5 with at most 3 non-zero columns: exactly the census orbits with |γ| ≤ 3 (3,000 + 300 +
    5 vertices in 7 orbits, docs/enumerate.md's table), each a vertex of D."""
    document = json.loads((RESULTS / "ldp-n5-e2.json").read_text())
    narrow = {tuple(parse_number(v) for row in o["representative"] for v in row): o["size"]
              for o in document["orbits"] if o["gamma"] <= 3}
    found = ldp_orbits_by_rows(5, "2", largest_support=3)
    assert _found_orbits(found) == narrow and (found.count, len(found.orbits)) == (3_305, 7)


@pytest.mark.slow
def test_n7_vertices_with_two_or_three_columns_are_the_narrow_faces_vertices():
    """n = 7, where no census exists: the rows' orbits with 2 and 3 non-zero columns are exactly the
    full-support vertices of D's 7 × 2 face (cddlib) and 7 × 3 face (Normaliz, about a minute),
    padded with zero columns: 21 × 126 and 35 × 3,612 vertices."""
    from polytopes.normaliz import normaliz_available

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    found = ldp_orbits_by_rows(7, "2", largest_support=3)
    polytope = ldp_polytope(7, eps_exp="2")
    forms = orbit_forms(polytope)
    for columns, method, full_support in ((2, "cdd", 126), (3, "normaliz", 3_612)):
        face = enumerate_vertices(ldp_polytope(7, eps_exp="2", columns=columns), method).vertices
        wide = [v.coordinates for v in face if all(any(v.coordinates[i * columns + j] for i in range(7))
                                                   for j in range(columns))]
        assert len(wide) == full_support
        padded = {forms.canonical(tuple(x for i in range(7) for x in (*v[i * columns:(i + 1) * columns],
                                                                     *[Fraction(0)] * (7 - columns))))
                  for v in wide}
        listed = {form: size for form, size in ((forms.canonical(o.representative), o.size) for o in found.orbits)
                  if sum(1 for j in range(7) if any(form[1][i * 7 + j] for i in range(7))) == columns}
        assert set(listed) == padded
        assert sum(listed.values()) == math.comb(7, columns) * full_support


@pytest.mark.parametrize(("n", "eps_exp", "error", "says"), [
    (8, "2", ShapeError, "2..7, got 8"), (1, "2", ShapeError, "n"),
    (True, "2", ShapeError, "n"),
    (3, "1", PrivacyParameterError, "must be > 1"), (3, "1/2", PrivacyParameterError, "below 1"),
])
def test_bad_input_is_refused(n, eps_exp, error, says):
    with pytest.raises(error, match=says):
        ldp_orbits_by_rows(n, eps_exp)


@pytest.mark.parametrize(("support", "says"), [(0, "1..4, got 0"), (5, "1..4, got 5"), ("3", "whole number")])
def test_a_bad_largest_support_is_refused(support, says):
    with pytest.raises(ShapeError, match=says):
        ldp_orbits_by_rows(4, "2", largest_support=support)
