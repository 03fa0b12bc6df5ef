"""ex(R_F) counted by components (polytopes.rf_components, issue 55): the count against cddlib's
and Normaliz's vertex lists for the uniform z, the binomial z and z with no two weights equal, the
table by core read off those lists independently (each vertex's positive entries as a bipartite
graph), the spanning trees against Scoins' formula, and the bad input refused."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from polytopes.enumerate import enumerate_vertices
from polytopes.fixed_point.named import named_fixed_point
from polytopes.rf_components import (
    RF_COMPONENTS_MAX_N,
    check_rf_count,
    rf_count_document,
    rf_vertex_count,
    spanning_tree_cuts,
)
from polytopes.spaces import representation_polytope
from proofs_checks.cli import main
from qifkit.errors import (
    CertificateError,
    DistributionError,
    NumberSyntaxError,
    ParameterError,
    PrivacyParameterError,
)
from qifkit.files import read_json

#: Fixed points with one, two or three weights at n = 3 and 4 (none of them uniform).
OTHER_Z = {3: [("1/4", "1/2", "1/4"), ("1/6", "1/3", "1/2")],
           4: [tuple(named_fixed_point("binomial", 4)), ("1/10", "2/10", "3/10", "4/10")]}


def _vertex_matrices(n, eps_exp, method="cdd", z=None):
    polytope = representation_polytope(n, eps_exp=eps_exp, z=z, fixed=True)
    return [vertex.matrix(polytope.shape) for vertex in enumerate_vertices(polytope, method).vertices]


def _core_of(matrix):
    """The dimensions of a vertex's core, read from its positive entries: the components of the
    bipartite graph scales–columns, each with its number of scales less one (components of one
    scale left out), largest first; None if the graph has a cycle."""
    scales, columns = len(matrix), len(matrix[0])
    edges = [(i, scales + j) for i in range(scales) for j in range(columns) if matrix[i][j] > 0]
    parent = list(range(scales + columns))

    def root(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra == rb:
            return None
        parent[ra] = rb
    used = Counter(root(i) for i in range(scales) if any(v > 0 for v in matrix[i]))
    return tuple(sorted((size - 1 for size in used.values() if size > 1), reverse=True))


@pytest.mark.parametrize("eps_exp", ["2", "3/2", "3", "101/100", "1000000", "10000000000"])
def test_n3_table_is_read_off_cddlibs_vertices(eps_exp):
    """Also at e^ε = 10^6 and 10^10, where the scales' entries span 12 and 20 orders of magnitude and
    true row sums lie within the floats' margin of 0: those must be decided exactly, not dropped."""
    vertices = _vertex_matrices(3, eps_exp)
    cores = Counter(_core_of(v) for v in vertices)
    assert None not in cores  # every vertex's graph is a forest
    count = rf_vertex_count(3, eps_exp)
    assert count.vertices == len(vertices)
    assert {dims: row[2] for dims, row in count.by_core.items() if row[2]} == dict(cores)


@pytest.mark.parametrize("z", OTHER_Z[3])
@pytest.mark.parametrize("eps_exp", ["2", "3/2", "1000000"])
def test_n3_other_z_table_is_read_off_cddlibs_vertices(z, eps_exp):
    """With z not uniform, columns of different weights are no longer interchangeable: the count
    deals them to the components by weight (1/4, 1/2, 1/4 has two weights, 1/6, 1/3, 1/2 three)."""
    vertices = _vertex_matrices(3, eps_exp, z=z)
    count = rf_vertex_count(3, eps_exp, z=z)
    assert count.vertices == len(vertices)
    assert {dims: row[2] for dims, row in count.by_core.items() if row[2]} == dict(Counter(map(_core_of, vertices)))


@pytest.mark.parametrize("z", OTHER_Z[4])
def test_n4_other_z_is_normaliz(z):
    """The binomial z (42,092 vertices at e^ε = 2) and four distinct weights (52,736), each about
    8 s in Normaliz."""
    from polytopes.normaliz import normaliz_available

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    vertices = _vertex_matrices(4, "2", "normaliz", z=z)
    count = rf_vertex_count(4, "2", z=z)
    assert count.vertices == len(vertices)
    assert {dims: row[2] for dims, row in count.by_core.items() if row[2]} == dict(Counter(map(_core_of, vertices)))


def test_n4_table_is_read_off_normaliz_vertices():
    """R_F at n = 4, e^ε = 2: 44,358 vertices (Normaliz, about 15 s; cddlib takes minutes)."""
    from polytopes.normaliz import normaliz_available

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    vertices = _vertex_matrices(4, "2", "normaliz")
    cores = Counter(_core_of(v) for v in vertices)
    count = rf_vertex_count(4, "2")
    assert count.vertices == len(vertices) == 44358
    assert {dims: row[2] for dims, row in count.by_core.items() if row[2]} == dict(cores)


def _face(n, eps_exp, kept, z=None):
    """The face of R_F where the scales not kept have rows of 0 (equations B[i, j] = 0)."""
    import dataclasses
    from fractions import Fraction

    polytope = representation_polytope(n, eps_exp=eps_exp, z=z, fixed=True)
    scales, columns = polytope.shape
    zeros = []
    for i in set(range(scales)) - set(kept):
        for j in range(columns):
            row = [Fraction(0)] * (polytope.dimension_of_space + 1)
            row[1 + i * columns + j] = Fraction(1)
            zeros.append(tuple(row))
    return dataclasses.replace(polytope, equalities=polytope.equalities + tuple(zeros), symmetries=())


@pytest.mark.parametrize("kept", [
    (1, 3, 5, 6, 7, 8, 15),  # 48,600 vertices, Normaliz about 10 s
    pytest.param((2, 6, 7, 8, 9, 10, 12), marks=pytest.mark.slow),  # 144,480, about 25 s
    pytest.param((0, 3, 4, 6, 7, 9, 12, 15), marks=pytest.mark.slow),  # 382,320, about 90 s
])
def test_n5_faces_against_normaliz(kept):
    """R_F at n = 5 is beyond every lister, but its faces where only some scales are used are not:
    there the count by components, with trees of up to 5 columns, must give Normaliz's number."""
    from polytopes.normaliz import normaliz_available, normaliz_vertices

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    assert rf_vertex_count(5, 2, scales=kept).vertices == len(normaliz_vertices(_face(5, 2, kept)))


@pytest.mark.parametrize("kept", [
    (1, 3, 5, 6, 7, 8, 15),  # 35,986 vertices
    pytest.param((0, 3, 4, 6, 7, 9, 12, 15), marks=pytest.mark.slow),  # 308,272
])
def test_n5_binomial_faces_against_normaliz(kept):
    """The binomial z at n = 5 (weights 1, 4, 6, 4, 1 over 16: three classes) on faces Normaliz lists."""
    from polytopes.normaliz import normaliz_available, normaliz_vertices

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    z = named_fixed_point("binomial", 5)
    assert rf_vertex_count(5, 2, z=z, scales=kept).vertices == len(normaliz_vertices(_face(5, 2, kept, z)))


def test_a_face_count_is_no_count_file():
    with pytest.raises(ParameterError, match="not the face of scales"):
        rf_count_document(rf_vertex_count(3, 2, scales=(0, 1, 2)), "test")
    with pytest.raises(ParameterError, match="scale indices 0..3"):
        rf_vertex_count(3, 2, scales=(0, 4))


@pytest.mark.slow
@pytest.mark.parametrize("eps_exp", ["3", "3/2"])
def test_n4_count_is_normaliz_at_other_eps(eps_exp):
    from polytopes.normaliz import normaliz_available

    if not normaliz_available():
        pytest.skip("PyNormaliz is not installed")
    assert rf_vertex_count(4, eps_exp).vertices == len(_vertex_matrices(4, eps_exp, "normaliz"))


@pytest.mark.parametrize("rows, columns", [(1, 1), (1, 4), (2, 2), (2, 3), (3, 3), (3, 4)])
def test_spanning_trees_are_scoins_count(rows, columns):
    """K(r, c) has r^(c−1)·c^(r−1) spanning trees (Scoins 1962); each edge's cut is a non-empty set
    of rows with a set of columns."""
    trees = spanning_tree_cuts(rows, columns)
    assert len(trees) == rows ** (columns - 1) * columns ** (rows - 1)
    assert all(len(tree) == rows + columns - 1 for tree in trees)
    assert all(0 < mask < 1 << rows and 0 <= taken < 1 << columns for tree in trees for mask, taken in tree)


def test_the_flows_of_a_path_are_its_cuts():
    """K(2, 2): the path column 0 – row 0 – column 1 – row 1 with row margins (3/10, 7/10) and
    column margins (1/5, 4/5): row 0 gives column 0 its 1/5 and column 1 the other 1/10, row 1
    gives column 1 its 7/10 (by hand); so the cut sums of some tree of K(2, 2) must be those flows."""
    from fractions import Fraction as F

    u, z = (F(3, 10), F(7, 10)), (F(1, 5), F(4, 5))
    flows = [sorted(sum(u[i] for i in range(2) if mask >> i & 1) - sum(z[j] for j in range(2) if taken >> j & 1)
                    for mask, taken in tree)
             for tree in spanning_tree_cuts(2, 2)]
    assert sorted([F(1, 5), F(1, 10), F(7, 10)]) in flows


def test_bad_input_is_refused():
    with pytest.raises(ParameterError, match="stops at n = 5"):
        rf_vertex_count(RF_COMPONENTS_MAX_N + 1, 2)
    with pytest.raises(ParameterError):
        rf_vertex_count(1, 2)
    with pytest.raises(PrivacyParameterError):
        rf_vertex_count(3, 1)
    with pytest.raises(NumberSyntaxError, match="'nan' is not a number"):
        rf_vertex_count(3, "nan")
    with pytest.raises(DistributionError, match=r"z\[1\] = 0"):
        rf_vertex_count(3, 2, z=("1/2", "0", "1/2"))
    with pytest.raises(DistributionError, match="sums to 5/6"):
        rf_vertex_count(3, 2, z=("1/2", "1/6", "1/6"))
    with pytest.raises(DistributionError, match="z has 2 entries"):
        rf_vertex_count(3, 2, z=("1/2", "1/2"))


def test_the_command_writes_a_count_its_check_accepts(tmp_path, capsys):
    """`qifkit enumerate RF --method components --json` at n = 3: the summary, and a file that
    check_rf_count (which counts again) accepts and that names the command."""
    path = tmp_path / "rf3.json"
    assert main(["enumerate", "RF", "--n", "3", "--eps-exp", "2", "--method", "components", "--json", str(path)]) == 0
    assert "78 vertices" in capsys.readouterr().out
    document = read_json(str(path))
    assert document["vertices"] == 78 and "--method components" in document["command"]
    assert check_rf_count(document).vertices == 78


@pytest.mark.parametrize("z, vertices", [(["--z", "uniform"], 78), (["--z", "1/3,1/3,1/3"], 78), ([], 78),
                                         (["--z", "binomial"], 48), (["--z", "1/6,1/3,1/2"], 76)])
def test_the_command_counts_the_z_given(z, vertices, capsys, tmp_path):
    """The count is of the z given, named or written out (cddlib's counts at n = 3, e^ε = 2), and
    the file names it."""
    path = tmp_path / "rf3.json"
    assert main(["enumerate", "RF", "--n", "3", "--eps-exp", "2", "--method", "components", *z,
                 "--json", str(path)]) == 0
    assert f"{vertices} vertices" in capsys.readouterr().out
    assert check_rf_count(read_json(str(path))).vertices == vertices


def test_a_forged_count_is_refused():
    """A count file whose table was changed, with its totals made to agree, is refused by the
    recount; so are a wrong total, another polytope's file and a foreign count given to compare."""
    document = rf_count_document(rf_vertex_count(3, 2), "test")
    forged = copy.deepcopy(document)
    forged["by_core"][-1]["vertices"] += 6
    forged["vertices"] += 6
    with pytest.raises(CertificateError, match="differs from the count run again"):
        check_rf_count(forged)
    wrong_total = copy.deepcopy(document)
    wrong_total["structures"] += 1
    with pytest.raises(CertificateError, match="structures"):
        check_rf_count(wrong_total)
    with pytest.raises(CertificateError, match="not a count file"):
        check_rf_count(document | {"polytope": "RU"})
    with pytest.raises(CertificateError, match="the count given is of n = 4"):
        check_rf_count(document, rf_vertex_count(4, 2))
    with pytest.raises(CertificateError, match=r"z = \(1/4, 1/2, 1/4\); the file's of n = 3, e\^ε = 2, z = \(1/3"):
        check_rf_count(document, rf_vertex_count(3, 2, z=("1/4", "1/2", "1/4")))


def test_without_a_recount_only_the_totals_are_checked():
    """check_rf_count(recount=False) says it did not count again: a table forged with its totals kept
    passes it and fails the recount; a total that is not the table's fails both."""
    document = rf_count_document(rf_vertex_count(3, 2), "test")
    assert check_rf_count(document, recount=False).recounted is False
    assert check_rf_count(document).recounted is True
    forged = copy.deepcopy(document)
    moved = next(row for row in forged["by_core"] if row["vertices"] >= 6)
    moved["vertices"] -= 6
    forged["by_core"][0]["vertices"] += 6
    assert check_rf_count(forged, recount=False).vertices == 78
    with pytest.raises(CertificateError, match="differs from the count run again"):
        check_rf_count(forged)
    forged["vertices"] += 1
    with pytest.raises(CertificateError, match="is not the sum of the table's"):
        check_rf_count(forged, recount=False)


def test_a_count_is_bound_to_its_z():
    """The uniform count relabelled as the binomial z's (or the other way) is refused by the recount,
    which is of the file's z; a z that is no distribution, or not written as exact strings, is refused
    before any work."""
    uniform = rf_count_document(rf_vertex_count(3, 2), "test")
    with pytest.raises(CertificateError, match="differs from the count run again"):
        check_rf_count(uniform | {"z": ["1/4", "1/2", "1/4"]})
    binomial = rf_count_document(rf_vertex_count(3, 2, z=("1/4", "1/2", "1/4")), "test")
    with pytest.raises(CertificateError, match="differs from the count run again"):
        check_rf_count(binomial | {"z": ["1/3", "1/3", "1/3"]})
    for z, message in [(["1/2", "1/2", "1/2"], "sums to 3/2"), (["1/2", "1/2"], "2 entries"),
                       ([0.25, 0.5, 0.25], "not a list of exact numbers"), ("uniform", "not a list"),
                       (["1/2", "0", "1/2"], "every weight must be positive")]:
        with pytest.raises(CertificateError, match=message):
            check_rf_count(uniform | {"z": z})


@pytest.mark.parametrize("arguments, message", [
    (["U", "--n", "3", "--method", "components"], "U is not RF"),
    (["RF", "--n", "3", "--method", "components", "--z", "1/2,0,1/2"], "z[1] = 0 is not positive"),
    (["RF", "--n", "6", "--method", "components"], "stops at n = 5"),
    (["RF", "--n", "3", "--method", "components", "--orbits"], "--orbits is not an option"),
])
def test_the_command_refuses(arguments, message, capsys):
    assert main(["enumerate", *arguments[:1], "--eps-exp", "2", *arguments[1:]]) == 2
    assert message in capsys.readouterr().err
