"""Reading cdd .ine and .ext files back (issue 17): what Polytope.to_ine and to_ext write reads back
to the same exact rows and vertices, the read polytope enumerates to the same vertices, and malformed
files are refused naming the line."""

from fractions import Fraction

import pytest

from polytopes.enumerate import enumerate_vertices, read_ext, to_ext
from polytopes.hrep import read_cdd, read_ine
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
from qifkit.errors import FileFormatError, PolytopeError


@pytest.mark.parametrize("make", [
    lambda: ldp_polytope(3, eps_exp="2"), lambda: count_polytope(3, eps_exp="3/2", z=["1/4", "1/2", "1/4"], fixed=True),
    lambda: count_polytope(3, eps_exp="2"), lambda: representation_polytope(3, eps_exp="2"),
])
def test_written_files_read_back_exactly(tmp_path, make):
    polytope = make()
    ine = tmp_path / "p.ine"
    ine.write_text(polytope.to_ine())
    read = read_ine(ine, polytope.shape)
    assert (read.equalities, read.inequalities) == (polytope.equalities, polytope.inequalities)
    assert (read.name, read.eps_exp, read.shape) == (polytope.name, polytope.eps_exp, polytope.shape)
    enumeration = enumerate_vertices(polytope, "cdd")
    ext = tmp_path / "p.ext"
    ext.write_text(to_ext(enumeration))
    vertices = read_ext(ext)
    assert sorted(vertices) == sorted(v.coordinates for v in enumeration.vertices)
    assert sorted(v.coordinates for v in enumerate_vertices(read, "cdd").vertices) == sorted(vertices)


@pytest.mark.parametrize("text, message", [
    ("begin\n1 2 rational\n1 0\nend\n", "no 'H-representation' or 'V-representation'"),
    ("H-representation\nfoo\nbegin\n1 2 rational\n1 0\nend\n", "line 2: 'foo' before 'begin'"),
    ("H-representation\nbegin\n2 2 rational\n1 0\nend\n", "1 rows, the 'm d' line says m = 2"),
    ("H-representation\nbegin\n1 3 rational\n1 0\nend\n", "line 4: 2 numbers, the 'm d' line says d = 3"),
    ("H-representation\nbegin\n1 2 rational\n1 nan\nend\n", "line 4: .*nan"),
    ("H-representation\nbegin\n1 2 rational\n1 0\n", "no 'end'"),
    ("H-representation\nlinearity 2 1\nbegin\n1 2 rational\n1 0\nend\n", "is not 'linearity k"),
    ("H-representation\nlinearity 1 3\nbegin\n1 2 rational\n1 0\nend\n", "linearity names row 3 of 1"),
    ("H-representation\nbegin\n1 2 real\n1 0\nend\n", "is not 'm d rational'"),
    ("V-representation\n", "no 'begin' and the 'm d' line"),
])
def test_malformed_files_are_refused_naming_the_line(tmp_path, text, message):
    path = tmp_path / "bad.ine"
    path.write_text(text)
    with pytest.raises(FileFormatError, match=message):
        read_cdd(path)


def test_kinds_and_rays_are_checked(tmp_path):
    ext = tmp_path / "r.ext"
    ext.write_text("V-representation\nbegin\n2 3 rational\n1 1/2 1/2\n0 1 0\nend\n")
    with pytest.raises(PolytopeError, match="row 2 is a ray or a line"):
        read_ext(ext)
    with pytest.raises(PolytopeError, match="is a V-representation"):
        read_ine(ext)
    ine = tmp_path / "p.ine"
    ine.write_text("H-representation\nlinearity 1 1\nbegin\n2 3 rational\n-1 1 1\n0 1 0\nend\n")
    polytope = read_ine(ine)
    assert polytope.equalities == ((Fraction(-1), Fraction(1), Fraction(1)),) and polytope.shape == (1, 2)
    assert polytope.name == "read" and polytope.eps_exp == 0
    with pytest.raises(PolytopeError, match="is an H-representation"):
        read_ext(ine)
    with pytest.raises(PolytopeError, match="a point of shape \\(3, 3\\) has 9"):
        read_ine(ine, (3, 3))
