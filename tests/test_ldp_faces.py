"""ex(D) from the faces of the column cone (polytopes.ldp_faces), against the tangent-cone walk's
census files (results/, made and re-checked by another method) orbit by orbit, and against the
vertex counts of Holohan et al. (4 and 33 vertices at n = 2, 3; 904 at n = 4)."""

import json
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np
import pytest

from polytopes import ldp_faces
from polytopes.ldp_faces import cone_faces, face_set_orbits
from polytopes.orbitwise import _RowColumnForms
from polytopes.spaces import ldp_polytope
from qifkit.errors import ParameterError, QifError, ShapeError
from qifkit.numbers import parse_number

RESULTS = Path(__file__).resolve().parent.parent / "results"


def _census(n: int, eps_exp: str) -> dict:
    return json.loads((RESULTS / f"ldp-n{n}-e{eps_exp.replace('/', '_')}.json").read_text())


def _orbits_by_form(orbits, n):
    forms = _RowColumnForms(n, n)
    return {forms.canonical(tuple(v for row in orbit.matrix() for v in row)): orbit for orbit in orbits}


@pytest.mark.parametrize("n", [4, 5])
@pytest.mark.parametrize("eps_exp", ["5/4", "3/2", "2", "3", "5"])
def test_the_face_sets_give_the_walks_census_orbit_by_orbit(n, eps_exp):
    """Every orbit of the census file (the tangent-cone walk, re-checked with cddlib's closure) is
    found from the face sets, no other, with the same orbit size, stabiliser (row × column: the
    face set's row stabiliser times the zero columns' orders), |γ| and |λ|."""
    census = _census(n, eps_exp)
    forms = _RowColumnForms(n, n)
    expected = {forms.canonical(tuple(parse_number(v) for row in entry["representative"] for v in row)): entry
                for entry in census["orbits"]}
    found = _orbits_by_form(face_set_orbits(n, eps_exp), n)
    assert set(found) == set(expected)
    for form, orbit in found.items():
        entry = expected[form]
        assert (orbit.size, len(orbit.faces), orbit.loose) == (entry["size"], entry["gamma"], entry["lambda"])
    assert sum(orbit.size for orbit in found.values()) == census["count"]


def test_small_n_and_every_representative_is_a_vertex_of_d():
    """Holohan et al.'s counts at n = 2, 3 (4 and 33 vertices); each representative at n = 3 and
    e^ε = 3/2 is in D and its tight rows have full rank there (checked on the polytope's rows)."""
    assert sum(orbit.size for orbit in face_set_orbits(2, 2)) == 4
    assert sum(orbit.size for orbit in face_set_orbits(3, 2)) == 33
    polytope = ldp_polytope(3, eps_exp="3/2")
    for orbit in face_set_orbits(3, "3/2"):
        point = tuple(v for row in orbit.matrix() for v in row)
        assert polytope.contains(point) and polytope.is_vertex(point), orbit


def test_batched_fraction_free_determinants_are_flints():
    """The vectorised Bareiss elimination against FLINT's exact determinants on random small integer
    matrices, many singular or needing row exchanges (zero pivots): one wrong sign or division
    changes a determinant."""
    rng = np.random.default_rng(7)
    for k in (1, 2, 3, 5, 6):
        batch = rng.choice([0, 0, 1, 2, 5], size=(400, k, k))
        batch[::7, :, 0] = 0  # a zero column: singular
        batch[1::7, 1 % k] = batch[1::7, 0]  # two equal rows
        expected = [int(flint.fmpz_mat(m.tolist()).det()) for m in batch]
        assert ldp_faces._determinants(batch).tolist() == expected, k
        assert any(expected) and not all(expected)


def test_fraction_free_solutions_are_flints():
    """Cramer's numerators by one elimination of [M | 1] and fraction-free back substitution: x = X/d
    equals FLINT's exact solution on random small integer matrices; d = 0 exactly when M is singular."""
    rng = np.random.default_rng(11)
    for k in (1, 2, 4, 6):
        batch = rng.choice([0, 1, 2, 3], size=(300, k, k))
        d, numerators = ldp_faces._cramer(batch)
        for m, det, x in zip(batch, d, numerators, strict=True):
            exact = flint.fmpq_mat(m.tolist())
            if exact.rank() < k:
                assert det == 0
                continue
            solution = exact.solve(flint.fmpq_mat(k, 1, [1] * k))
            assert [flint.fmpq(int(v), int(det)) for v in x] == [solution[i, 0] for i in range(k)], (m, det, x)


def test_integer_solutions_of_square_and_tall_systems():
    """G·x = 1 solved exactly for square and tall integer G: a regular square system; a tall one
    whose ones vector is in the column space (solved on its first regular rows, every row checked);
    a tall inconsistent one and a rank-deficient one refused."""
    g = np.array([[[2, 1], [1, 1]],  # x = (0, 1)
                  [[1, 1], [1, 1]]])  # singular
    solved, numerators, determinant = ldp_faces._integer_solutions(g)
    assert solved.tolist() == [True, False]
    assert [Fraction(int(v), int(determinant[0])) for v in numerators[0]] == [0, 1]
    tall = np.array([[[0, 0], [1, 0], [0, 2], [1, 2]],  # first rows singular; x = (1, 1/2) on rows 1, 2; row 3: 2 ≠ 1
                     [[0, 0], [1, 0], [0, 2], [1, 0]],  # consistent: x = (1, 1/2)... row 0 gives 0 ≠ 1
                     [[2, 0], [0, 2], [1, 1], [2, 0]],  # x = (1/2, 1/2), every row 1
                     [[1, 2], [1, 2], [1, 2], [1, 2]]])  # rank 1
    solved, numerators, determinant = ldp_faces._integer_solutions(tall)
    assert solved.tolist() == [False, False, True, False]
    assert [Fraction(int(v), int(determinant[2])) for v in numerators[2]] == [Fraction(1, 2), Fraction(1, 2)]


def test_the_faces_of_the_column_cone():
    """F(H, L) for disjoint non-empty H, L, of dimension 1 + |M|: at n = 4, 14 rays (2^4 − 2),
    24 faces of dimension 2, 12 of dimension 3, and the cone itself; the loose coordinates of a
    face are those in neither set, its first generator e^ε on H and 1 on L."""
    faces = cone_faces(4)
    assert [sum(1 for f in faces if f.dimension == d) for d in (1, 2, 3, 4)] == [14, 24, 12, 1]
    face = next(f for f in faces if (f.high, f.low) == (0b0001, 0b0100))
    assert face.loose == (1, 3) and face.dimension == 3
    assert face.generators(3, 2) == [[3, 0, 0], [0, 1, 0], [2, 0, 0], [0, 0, 1]]  # e^ε = 3/2, scaled by 2


def test_bad_sizes_and_rates_are_refused():
    """n beyond 6, e^ε ≤ 1 or malformed, and numerators whose minors could leave 64 bits."""
    with pytest.raises(ShapeError, match="n = 7"):
        face_set_orbits(7, 2)
    with pytest.raises(ParameterError, match="numerators up to 13"):
        face_set_orbits(6, 14)
    with pytest.raises(QifError):
        face_set_orbits(4, "-1")
    with pytest.raises(QifError):
        face_set_orbits(1, 2)
    with pytest.raises(QifError):
        face_set_orbits(4, "1")
    with pytest.raises(QifError):
        face_set_orbits(4, "0.5e")


class _RecordingClient:
    """Runs each submitted task at once and records its number of candidates, in submission order."""

    def __init__(self):
        self.sizes = []

    def submit(self, function, *task, key, pure):
        self.sizes.append(task[-1] - task[-2])
        return function(*task)

    def gather(self, futures):
        return futures


def test_tasks_go_to_a_cluster_largest_first():
    """Dask runs tasks in submission order; submitted as enumerated, the five all-ray tasks of a
    sixth each came last at n = 6, and two workers ended 5 s apart (largest first: together)."""
    client = _RecordingClient()
    spread = face_set_orbits(5, 2, client)
    assert client.sizes == sorted(client.sizes, reverse=True) and len(client.sizes) > 40
    assert [(o.key, o.size) for o in spread] == [(o.key, o.size) for o in face_set_orbits(5, 2)]
