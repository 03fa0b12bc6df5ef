"""Polytopes: exact enumeration against brute force and lrs, orbits, classification, bad input."""

import itertools
import json
from fractions import Fraction as F

import numpy as np
import pytest
from sympy import Matrix, Rational

from polytopes.classify import gamma, in_d_tilde_prime, loose_entries, rank, tight_constraint_rank, tilde
from polytopes.enumerate import enumerate_vertices, orbits, to_ext
from polytopes.lrs import lrs_available, lrs_vertices
from polytopes.spaces import ldp_polytope
from proofs_checks.cli import main
from qifkit.errors import PrivacyParameterError, ShapeError


@pytest.mark.parametrize(("n", "count"), [(2, 4), (3, 33), (4, 904)])
def test_ldp_vertex_counts(n, count):
    """Holohan et al. §5 (and the issue's measurements): |ex(D)| = 4, 33, 904 at e^ε = 2."""
    assert len(enumerate_vertices(ldp_polytope(n, eps_exp="2")).vertices) == count


def _brute_force_vertices(polytope):
    """Every basis of tight constraints solved: candidates from floats, confirmed exactly."""
    d = polytope.dimension_of_space
    rows = list(polytope.equalities) + list(polytope.inequalities)
    coefficients = np.array([[float(v) for v in row[1:]] for row in rows])
    constants = np.array([float(row[0]) for row in rows])
    equalities = len(polytope.equalities)
    found, seen = set(), set()
    for chosen in itertools.combinations(range(equalities, len(rows)), d - equalities):
        basis = list(range(equalities)) + list(chosen)
        a = coefficients[basis]
        if abs(np.linalg.det(a)) < 1e-12:
            continue
        x = np.linalg.solve(a, -constants[basis])
        if np.any(constants[equalities:] + coefficients[equalities:] @ x < -1e-9):
            continue  # infeasible in floats: no exact check needed
        key = tuple(np.round(x, 9))
        if key in seen:
            continue
        seen.add(key)
        exact = Matrix([[Rational(v.numerator, v.denominator) for v in rows[k][1:]] for k in basis]).LUsolve(
            Matrix([-Rational(rows[k][0].numerator, rows[k][0].denominator) for k in basis]))
        point = tuple(F(int(v.p), int(v.q)) for v in exact)
        if polytope.contains(point):
            found.add(point)
    return found


@pytest.mark.parametrize(("n", "eps_exp"), [(2, "2"), (2, "3/2"), (3, "2")])
def test_enumeration_equals_brute_force(n, eps_exp):
    """Without the redundant rows a_ij ≥ 0 (Lemma 1) the brute force is small enough for n ≤ 3."""
    polytope = ldp_polytope(n, eps_exp=eps_exp, nonnegativity=False)
    cdd_vertices = {v.coordinates for v in enumerate_vertices(ldp_polytope(n, eps_exp=eps_exp)).vertices}
    assert _brute_force_vertices(polytope) == cdd_vertices


@pytest.mark.skipif(not lrs_available(), reason="lrs (Debian lrslib) is not installed")
@pytest.mark.parametrize(("n", "eps_exp"), [(3, "2"), (4, "3")])
def test_lrs_agrees(n, eps_exp):
    polytope = ldp_polytope(n, eps_exp=eps_exp)
    assert lrs_vertices(polytope) == {v.coordinates for v in enumerate_vertices(polytope).vertices}


def test_orbits_partition_the_vertices():
    polytope = ldp_polytope(4, eps_exp="2")
    groups = orbits(enumerate_vertices(polytope).vertices, polytope.symmetries)
    assert len(groups) == 10 and sum(map(len, groups)) == 904
    assert all((24 * 24) % len(group) == 0 for group in groups)  # orbit sizes divide |S4 × S4|


def test_vertices_carry_their_tight_constraints():
    polytope = ldp_polytope(3, eps_exp="2")
    for vertex in enumerate_vertices(polytope).vertices:
        assert vertex.tight == polytope.tight(vertex.coordinates)


def test_classification_of_the_printed_examples():
    """Holohan et al. Example 1 (λ), and the n = 5 example at e^ε = 2 (λ = {(5,3)}, rank 4, 25 tight)."""
    example1 = [[F(4, 7), F(1, 7), F(2, 7)], [F(3, 7), F(2, 7), F(2, 7)], [F(2, 7), F(1, 7), F(4, 7)]]
    assert loose_entries(example1, 2) == [(1, 0)]
    e = F(2)
    raw = [[1, 1, 2 * e, 1, 0], [e, 1, 2, e, 0], [e, e, 2, 1, 0], [1, e, 2, e, 0], [1, 1, 1 + e, e, 0]]
    a = [[F(v) / (3 + 2 * e) for v in row] for row in raw]
    assert loose_entries(a, e) == [(4, 2)] and rank(a) == 4 and gamma(a) == [0, 1, 2, 3]
    assert tight_constraint_rank(a, e) == 25
    assert tilde([[F(1, 3), F(2, 3)], [F(2, 3), F(1, 3)]]) == [[1, 2], [2, 1]]
    assert in_d_tilde_prime([[0, 1], [0, 1]])


def test_exports(tmp_path):
    polytope = ldp_polytope(2, eps_exp="2")
    ine = polytope.to_ine()
    assert "linearity 2 1 2" in ine and "rational" in ine
    ext = to_ext(enumerate_vertices(polytope))
    assert ext.count("\n1 ") == 4


def test_bad_input_is_refused(tmp_path, capsys):
    with pytest.raises(ShapeError, match="n must be"):
        ldp_polytope(1, eps_exp="2")
    with pytest.raises(PrivacyParameterError):
        ldp_polytope(3, eps_exp="1/2")
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "abc"]) == 2
    assert "not a number" in capsys.readouterr().err
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--z", "1/3,1/3,1/3"]) == 2
    assert main(["enumerate", "F", "--n", "3", "--eps-exp", "2", "--z", "1/2,1/2,1/2"]) == 2
    assert "sums to 3/2" in capsys.readouterr().err
    assert main(["enumerate", "RF", "--n", "3", "--eps-exp", "2", "--z=-1/3,2/3,2/3"]) == 2
    assert main(["enumerate", "U", "--n", "3", "--eps-exp", "1"]) == 2
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--json", str(tmp_path / "no" / "v.json")]) == 2


def test_enumerate_command_writes_json(tmp_path):
    import json

    out = tmp_path / "v.json"
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "ln(2)", "--orbits", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert (document["count"], document["orbits"], document["eps_exp"]) == (33, 4, "2")
    assert len(document["vertices"][0]) == 9


@pytest.mark.parametrize("n, faces", [(3, "cdd"), (4, "cdd"), (4, "normaliz")])
def test_support_decomposition_equals_direct_enumeration(n, faces):
    """The n = 5 method (faces by cdd or Normaliz, full support by Cor. 5) reproduces cdd's ex(D) at n = 3, 4."""
    from polytopes.ldp_support import ldp_vertices_by_support

    vertices, by_size = ldp_vertices_by_support(n, "3", face_method=faces)
    enumerated = enumerate_vertices(ldp_polytope(n, eps_exp="3")).vertices
    direct = {tuple(tuple(r) for r in v.matrix((n, n))) for v in enumerated}
    assert vertices == direct and sum(by_size.values()) == len(direct)


def test_resume_reuses_blocks_and_refuses_another_problem(tmp_path, capsys):
    from polytopes.ldp_support import ldp_vertices_by_support
    from polytopes.resume import ResumeMismatchError

    folder = tmp_path / "run"
    first, _ = ldp_vertices_by_support(3, "2", str(folder))
    messages = []
    second, _ = ldp_vertices_by_support(3, "2", str(folder), progress=messages.append)
    assert first == second and all("read from" in m for m in messages)
    with pytest.raises(ResumeMismatchError, match="different problem"):
        ldp_vertices_by_support(3, "3", str(folder))
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "3", "--resume", str(folder)]) == 2
    assert "different problem" in capsys.readouterr().err
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume", str(folder), "--orbits"]) == 0
    assert "33 vertices in 4 orbits" in capsys.readouterr().out


def test_resume_never_trusts_a_block_its_manifest_does_not_vouch_for(tmp_path):
    from polytopes.ldp_support import ldp_vertices_by_support
    from polytopes.resume import ResumeMismatchError

    folder = tmp_path / "run"
    at_two, _ = ldp_vertices_by_support(3, "2", str(folder))
    at_three, _ = ldp_vertices_by_support(3, "3")
    assert at_two != at_three
    # the manifest deleted: blocks computed at e^ε = 2 must not be reused at e^ε = 3, nor replaced
    # (issue 52: a file the manifest does not list may be the user's)
    (folder / "manifest.json").unlink()
    block = (folder / "support-1.json").read_bytes()
    with pytest.raises(ResumeMismatchError, match="not a block this tool wrote"):
        ldp_vertices_by_support(3, "3", str(folder))
    assert (folder / "support-1.json").read_bytes() == block
    folder = tmp_path / "again"
    messages = []
    again, _ = ldp_vertices_by_support(3, "3", str(folder), progress=messages.append)
    assert again == at_three and not any("read from" in m for m in messages)
    # one block emptied: recomputed, not trusted
    (folder / "support-2.json").write_text("[]")
    messages = []
    again, _ = ldp_vertices_by_support(3, "3", str(folder), progress=messages.append)
    assert again == at_three and any("foreign or changed" in m for m in messages)
    assert sum("read from" in m for m in messages) == 2  # the other two blocks are reused
    # a manifest that is not ours is refused
    (folder / "manifest.json").write_text('{"n": 3}')
    with pytest.raises(ResumeMismatchError, match="not a manifest"):
        ldp_vertices_by_support(3, "3", str(folder))


@pytest.mark.skipif(not lrs_available(), reason="lrs (Debian lrslib) is not installed")
def test_lrs_method_gives_the_same_vertices_and_tight_sets():
    from polytopes.spaces import representation_polytope

    polytope = representation_polytope(3, eps_exp="2", fixed=True)
    by_cdd = {v.coordinates: v.tight for v in enumerate_vertices(polytope).vertices}
    by_lrs = {v.coordinates: v.tight for v in enumerate_vertices(polytope, "lrs").vertices}
    assert by_cdd == by_lrs and len(by_lrs) == 78
    with pytest.raises(Exception, match="unknown enumeration method"):
        enumerate_vertices(polytope, "simplex")


def test_parametric_search_finds_no_loose_vertex_at_n3_and_finds_holohans_n5_example():
    from polytopes.ldp_parametric import HIGH, LOOSE, LOW, feasible_values, loose_patterns

    assert all(not feasible_values(p) for p in loose_patterns(3))  # Holohan et al. prove n ≤ 3
    n5 = (
        (LOW, HIGH, HIGH, LOW, LOW),
        (LOW, LOW, HIGH, HIGH, LOW),
        (HIGH, LOW, LOW, LOW, LOOSE),
        (LOW, HIGH, LOW, HIGH, HIGH),
    )
    assert feasible_values(n5)  # a vertex for every e^ε > 1 (its entries are 1, e, 2, 2e, 1+e over 3+2e)


def _forge(folder, name, blocks):
    """Rewrite a unit of a resume folder and update its manifest hash, as a careless script would."""
    from polytopes.resume import ResumeFolder

    store = ResumeFolder(folder, json.loads((folder / "manifest.json").read_text())["problem"])
    store.write(name, json.dumps(blocks))


@pytest.mark.parametrize(
    "forgery, message",
    [
        ("lost", "not closed"),  # issue 38: '903 vertices', exit 0
        ("added", "not closed"),  # a non-vertex added alone: '905'
        ("added-orbit", "not a vertex"),  # a non-vertex added with its whole orbit
        ("other-eps", "not a vertex"),  # the block of a run at e^ε = 3, hash updated: 288 non-vertices
        ("wrong-support", "non-zero columns"),
    ],
)
def test_a_resumed_block_that_is_consistent_but_wrong_is_refused(tmp_path, capsys, forgery, message):
    from polytopes.ldp_support import ldp_vertices_by_support

    folder = tmp_path / "run"
    ldp_vertices_by_support(4, "2", str(folder))
    name = "support-3.json"
    block = json.loads((folder / name).read_text())
    base = [["1/3", "1/3", "1/3", "0"]] * 4  # in D at e^ε = 2, with support 3, and not a vertex
    if forgery == "lost":
        block = block[1:]
    elif forgery == "added":
        block.append(base)
    elif forgery == "added-orbit":
        for order in itertools.permutations(range(4)):
            block.append([[row[j] for j in order] for row in base])
    elif forgery == "other-eps":
        ldp_vertices_by_support(4, "3", str(tmp_path / "other"))
        block = json.loads((tmp_path / "other" / name).read_text())
    else:
        block = json.loads((folder / "support-2.json").read_text())
    _forge(folder, name, block)
    assert main(["enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--resume", str(folder)]) == 2
    err = capsys.readouterr().err
    assert message in err and name in err


@pytest.mark.parametrize("method", ["cdd", "normaliz", "lrs"])
def test_every_enumerator_refuses_an_unbounded_set(method):
    """Issue 37: a half-line has no vertex list; each route must say so (only Normaliz's was tested)."""
    from fractions import Fraction as F

    from polytopes.hrep import Polytope
    from polytopes.normaliz import normaliz_available
    from qifkit.errors import QifError

    if method == "lrs" and not lrs_available() or method == "normaliz" and not normaliz_available():
        pytest.skip(f"{method} is not installed")
    half_line = Polytope("half-line", (1, 1), F(2), (), ((F(0), F(1)),))
    with pytest.raises(QifError, match="not bounded"):
        enumerate_vertices(half_line, method)


def test_a_basic_point_outside_the_polytope_is_not_a_vertex():
    """D at n = 2, e^ε = 2: Q = [[1, 0], [2, −1]] meets the row sums, Q[0, 1] ≥ 0 and Q[1, 0] ≤ 2·Q[0, 0]
    with equality, four independent rows in four coordinates, but Q[1, 1] < 0: the rank alone would
    call it a vertex; membership refuses it (exact, in the polytope's scaled integer rows)."""
    polytope = ldp_polytope(2, eps_exp=2)
    point = (F(1), F(0), F(2), F(-1))
    assert len(polytope.tight(point)) >= 2
    assert not polytope.contains(point) and not polytope.is_vertex(point)
    assert polytope.is_vertex((F(2, 3), F(1, 3), F(1, 3), F(2, 3)))


@pytest.mark.parametrize("fixed", [False, True])
def test_a_vertex_in_standard_form_is_decided_on_its_support_as_by_its_tight_rows(fixed):
    """R_U and R_F (x ≥ 0 and equations) take is_vertex's support route: on cddlib's 36 (78) vertices
    at n = 3, e^ε = 2, their pairwise midpoints, a vertex doubled (off the equations) and one negated,
    it must answer as the tight rows' rank does (the definition) and accept exactly the vertices."""
    from polytopes.spaces import representation_polytope

    polytope = representation_polytope(3, eps_exp=2, fixed=fixed)
    vertices = [tuple(x for row in v.matrix(polytope.shape) for x in row)
                for v in enumerate_vertices(polytope).vertices]
    assert len(vertices) == (78 if fixed else 36)
    midpoints = [tuple((a + b) / 2 for a, b in zip(v, vertices[(i * 7 + 3) % len(vertices)], strict=True))
                 for i, v in enumerate(vertices)]
    others = [tuple(2 * x for x in vertices[0]), tuple(-x for x in vertices[1])]
    for point in vertices + midpoints + others:
        by_rows = polytope.contains(point) and polytope.is_vertex(point, tight=polytope.tight(point))
        assert polytope.is_vertex(point) == by_rows == (point in vertices), point
