"""Orbit-wise enumeration (polytopes.orbitwise) against full enumeration by cddlib, and its CLI."""

import json
import random

import pytest

from polytopes.adjacency import group_elements
from polytopes.enumerate import enumerate_vertices, orbits
from polytopes.orbitwise import enumerate_orbits, orbit_forms
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
from proofs_checks.cli import main

CASES = {
    "D n=3 e=2": lambda: ldp_polytope(3, eps_exp="2"),
    "D n=4 e=3/2": lambda: ldp_polytope(4, eps_exp="3/2"),
    "D 4x3 face e=3": lambda: ldp_polytope(4, eps_exp="3", columns=3),
    "U n=3 e=2": lambda: count_polytope(3, eps_exp="2"),
    "F n=4 binomial e=2": lambda: count_polytope(4, eps_exp="2", z=("1/8", "3/8", "3/8", "1/8"), fixed=True),
    "F n=3 skewed e=2 (no symmetry)": lambda: count_polytope(3, eps_exp="2", z=("1/2", "1/3", "1/6"), fixed=True),
    "RU n=3 e=2": lambda: representation_polytope(3, eps_exp="2"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_orbits_agree_with_full_enumeration(name):
    """The count, the number of orbits and each orbit's size, against cddlib's full vertex list."""
    polytope = CASES[name]()
    result = enumerate_orbits(polytope)
    full = enumerate_vertices(polytope)
    groups = orbits(full.vertices, polytope.symmetries)
    assert result.count == len(full.vertices)
    assert len(result.orbits) == len(groups)
    listed = {v.coordinates for v in full.vertices}
    assert all(orbit.representative in listed for orbit in result.orbits)
    assert sorted(o.size for o in result.orbits) == sorted(len(g) for g in groups)


@pytest.mark.parametrize("name", ["D n=4 e=3/2", "F n=4 binomial e=2"])
def test_the_canonical_form_is_the_same_on_the_whole_orbit(name):
    polytope = CASES[name]()
    forms = orbit_forms(polytope)
    elements = group_elements(polytope.symmetries, polytope.dimension_of_space)
    rng = random.Random(5)
    for vertex in rng.sample(enumerate_vertices(polytope).vertices, 20):
        point = vertex.coordinates
        key = forms.canonical(point)
        for g in rng.sample(elements, min(10, len(elements))):
            image = [None] * len(point)
            for source, target in enumerate(g):
                image[target] = point[source]
            assert forms.canonical(tuple(image)) == key


def test_row_column_forms_separate_exactly_the_orbits_of_matrices_with_tied_columns():
    """Canonical forms of small 4×3 matrices of 0, 1, 2 (many columns with equal multisets, where
    the forms must try the tied column orders): equal exactly when one matrix is a row × column
    permutation of the other, decided by listing the orbit by brute force."""
    import itertools
    from fractions import Fraction

    rows, columns = 4, 3
    forms = orbit_forms(ldp_polytope(rows, eps_exp="2", columns=columns))
    rng = random.Random(11)
    samples = [tuple(Fraction(rng.choice((0, 1, 1, 2))) for _ in range(rows * columns)) for _ in range(60)]

    def orbit(point):
        grid = [point[i * columns:(i + 1) * columns] for i in range(rows)]
        return {tuple(grid[i][j] for i in row_order for j in column_order)
                for row_order in itertools.permutations(range(rows))
                for column_order in itertools.permutations(range(columns))}

    orbits_of = {point: orbit(point) for point in samples}
    keys = {point: forms.canonical(point) for point in samples}
    for point in samples:
        assert all(forms.canonical(image) == keys[point] for image in orbits_of[point])
    for first, second in itertools.combinations(samples, 2):
        assert (keys[first] == keys[second]) == (second in orbits_of[first])


def test_enumerate_orbits_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "orbits.json"
    assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--method", "orbits", "--json", str(out)]) == 0
    assert "904 vertices in 10 orbits under a group of order 576" in capsys.readouterr().out
    document = json.loads(out.read_text())
    assert document["count"] == 904 and sum(r["size"] for r in document["orbits"]) == 904
    assert (
        main(["enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--method", "orbits", "--ext", str(tmp_path / "x")])
        == 2
    )


# ------------------------------------------------------------------ resuming the walk
def _no_cones(*args, **kwargs):
    raise AssertionError("a tangent cone was computed")


def test_a_resumed_walk_reads_every_neighbourhood_back(tmp_path, monkeypatch):
    from polytopes import orbitwise

    polytope, folder = ldp_polytope(4, eps_exp="2"), tmp_path / "walk"
    first = enumerate_orbits(polytope, folder=str(folder))
    assert len(list(folder.glob("orbit-*.json"))) == len(first.orbits) == 10
    monkeypatch.setattr(orbitwise, "neighbours", _no_cones)  # the second run may only read
    again = enumerate_orbits(polytope, folder=str(folder))
    assert [(o.representative, o.size) for o in again.orbits] == [(o.representative, o.size) for o in first.orbits]
    assert again.neighbours == first.neighbours


def test_a_walk_killed_half_way_recomputes_only_what_is_missing_or_untrusted(tmp_path, monkeypatch):
    from polytopes import orbitwise
    from polytopes.resume import ResumeFolder

    polytope, folder = ldp_polytope(4, eps_exp="3/2"), tmp_path / "walk"
    first = enumerate_orbits(polytope, folder=str(folder))
    files = sorted(folder.glob("orbit-*.json"))
    files[0].unlink()  # never written (the kill came first)
    files[1].write_text(files[1].read_text().replace('"neighbours": ', '"neighbours": 1'))  # changed by hand
    store = ResumeFolder(folder, json.loads((folder / "manifest.json").read_text())["problem"])
    store.write(files[2].name, '{"representative": [1, [1, 2]], "neighbours": 3, "forms": []}')  # listed, wrong
    computed, lines = [], []
    original = orbitwise.neighbours
    monkeypatch.setattr(orbitwise, "neighbours", lambda *a: computed.append(1) or original(*a))
    again = enumerate_orbits(polytope, folder=str(folder), progress=lines.append)
    assert len(computed) == 3
    assert any("not the block the manifest lists" in line for line in lines)
    assert any("does not parse" in line for line in lines)
    assert sorted((o.representative, o.size) for o in again.orbits) == sorted((o.representative, o.size)
                                                                            for o in first.orbits)
    assert again.neighbours == first.neighbours


def test_a_walk_refuses_the_folder_of_another_polytope(tmp_path):
    from polytopes.resume import ResumeMismatchError

    enumerate_orbits(ldp_polytope(3, eps_exp="2"), folder=str(tmp_path))
    with pytest.raises(ResumeMismatchError, match="different problem"):
        enumerate_orbits(ldp_polytope(3, eps_exp="3"), folder=str(tmp_path))


def test_resume_from_the_command_line(tmp_path, capsys):
    folder = tmp_path / "walk"
    command = ["enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--method", "orbits", "--resume", str(folder)]
    assert main(command) == 0
    assert "read from" not in capsys.readouterr().out
    assert main(command) == 0
    out = capsys.readouterr().out  # a resumed result says what it took from the folder unrecomputed
    assert "904 vertices in 10 orbits" in out and "10 of 10 orbits' neighbourhoods read from" in out
    assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "3", "--method", "orbits", "--resume", str(folder)]) == 2
    assert "different problem" in capsys.readouterr().err


def test_orbits_of_a_list_not_closed_under_the_group_are_refused():
    """polytopes.enumerate.orbits: cddlib's full list of D at n = 3 with one vertex left out (its
    images are still there) is not closed under row × column permutations, and must be refused."""
    from polytopes.enumerate import Vertex
    from qifkit.errors import PolytopeError

    polytope = ldp_polytope(3, eps_exp="2")
    listed = enumerate_vertices(polytope).vertices
    assert len(orbits(listed, polytope.symmetries)) == 4
    missing_one = [v for v in listed if v.coordinates != max(w.coordinates for w in listed)]
    with pytest.raises(PolytopeError, match="not closed under the symmetry group"):
        orbits([Vertex(v.coordinates, frozenset()) for v in missing_one], polytope.symmetries)


@pytest.mark.parametrize("forgery, message", [
    ("emptied", "at least one neighbour"),  # issue 38: every neighbourhood emptied, hashes updated: '1 orbits'
    ("not-canonical", "not the canonical form"),  # an orbit listed twice under another of its vertices
    ("not-a-vertex", "not the canonical form of a vertex"),
])
def test_a_resumed_walk_refuses_neighbourhoods_that_are_consistent_but_wrong(tmp_path, capsys, forgery, message):
    from polytopes.resume import ResumeFolder

    folder = tmp_path / "walk"
    command = ["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--method", "orbits", "--resume", str(folder)]
    assert main(command) == 0
    store = ResumeFolder(folder, json.loads((folder / "manifest.json").read_text())["problem"])
    for unit in sorted(folder.glob("orbit-*.json")):
        document = json.loads(unit.read_text())
        denominator, numerators = document["forms"][0]
        if forgery == "emptied":
            document["forms"], document["neighbours"] = [], 0
        elif forgery == "not-canonical":  # the same vertex with its rows in reverse order
            rows = [numerators[i:i + 3] for i in range(0, 9, 3)][::-1]
            document["forms"].append([denominator, [v for row in rows for v in row]])
        else:  # the centre of D, in D but no vertex
            document["forms"].append([3, [1] * 9])
        store.write(unit.name, json.dumps(document))
    assert main(command) == 2
    assert message in capsys.readouterr().err
