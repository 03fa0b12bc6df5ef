"""Exact vertex enumeration (pycddlib, GMP arithmetic) and vertex orbits under a symmetry group.

Floating-point enumeration loses vertices of degenerate polytopes (cddlib issue 67, pycddlib
issue 15); these polytopes are highly degenerate, so only GMP rationals are used here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from polytopes.hrep import Polytope, integer_key, permuted, read_cdd
from qifkit.errors import LabelError, PolytopeError
from qifkit.extras import needs_extra

with needs_extra("polytopes"):  # pycddlib: a missing one is an error naming the extra to install
    import cdd
    import cdd.gmp

__all__ = [
    "orientation",
    "Vertex",
    "Enumeration",
    "enumerate_vertices",
    "orbits",
    "vertices_document",
    "to_ext",
    "read_ext",
]


@dataclass(frozen=True)
class Vertex:
    """A vertex: exact coordinates (the matrix entries, row-major) and its tight inequalities.

    Attributes
    ----------
    coordinates : tuple of Fraction
        The point, the matrix entries row by row.
    tight : frozenset of int
        The indices of the inequalities tight on it.
    """

    coordinates: tuple[Fraction, ...]
    tight: frozenset[int]

    def matrix(self, shape: tuple[int, int]) -> list[list[Fraction]]:
        """The vertex as a matrix of the given shape."""
        rows, columns = shape
        return [list(self.coordinates[i * columns:(i + 1) * columns]) for i in range(rows)]


@dataclass(frozen=True)
class Enumeration:
    """The vertices of a polytope and how long cdd took.

    Attributes
    ----------
    polytope : Polytope
        What was enumerated.
    vertices : tuple of Vertex
        Every vertex, exactly.
    seconds : float
        The enumerator's time.
    """

    polytope: Polytope
    vertices: tuple[Vertex, ...]
    seconds: float


def enumerate_vertices(polytope: Polytope, method: str = "cdd") -> Enumeration:
    """All vertices of a bounded polytope, exactly, each with the inequalities tight on it.

    Parameters
    ----------
    polytope : Polytope
        An exact H-representation, e.g. :func:`~polytopes.ldp_polytope` or
        :func:`~polytopes.count_polytope`.
    method : {"cdd", "lrs", "normaliz"}
        cddlib's double description in GMP rationals (pycddlib), David Avis's lrs (reverse
        search, exact; much faster on the representation polytopes; lrs must be installed, Debian
        lrslib), or Normaliz through PyNormaliz (:mod:`polytopes.normaliz`).

    Returns
    -------
    Enumeration
        ``vertices``: each a :class:`Vertex` (exact coordinates, row by row, and its tight rows).

    Raises
    ------
    QifError
        If cdd finds rays or lines (the set is not a polytope), or the method is unknown.

    Examples
    --------
    Holohan et al.'s D at n = 2: the two constant mechanisms, randomised response and its flip:

    >>> from polytopes import ldp_polytope
    >>> len(enumerate_vertices(ldp_polytope(2, eps_exp=2)).vertices)
    4
    """
    if method in ("lrs", "normaliz"):
        from polytopes.lrs import lrs_vertices
        from polytopes.normaliz import normaliz_vertices

        start = time.perf_counter()
        points = sorted(lrs_vertices(polytope) if method == "lrs" else normaliz_vertices(polytope))
        seconds = time.perf_counter() - start
        return Enumeration(polytope, tuple(Vertex(p, polytope.tight(p)) for p in points), seconds)
    if method != "cdd":
        raise LabelError(f"unknown enumeration method {method!r}; use cdd, lrs or normaliz")
    start = time.perf_counter()
    body = cdd.gmp.polyhedron_from_matrix(polytope.cdd_matrix())
    generators = cdd.gmp.copy_generators(body)
    incidence = cdd.gmp.copy_incidence(body)
    seconds = time.perf_counter() - start
    if generators.lin_set or any(row[0] == 0 for row in generators.array):
        raise PolytopeError(f"{polytope.name} is not bounded: cdd found rays or lines")
    offset = len(polytope.equalities)
    vertices = tuple(
        Vertex(tuple(Fraction(v) for v in row[1:]), frozenset(k - offset for k in tight if k >= offset))
        for row, tight in zip(generators.array, incidence, strict=True)
    )
    return Enumeration(polytope, vertices, seconds)


def orbits(vertices: Sequence[Vertex], symmetries: Sequence[Sequence[int]]) -> list[list[Vertex]]:
    """The orbits of a vertex set closed under the group the permutations generate.

    A generator maps a point x to y with y[g[k]] = x[k]. The vertex set must be complete (closed
    under the group); a missing image raises, since then it was not.
    """
    keys = [integer_key(v.coordinates) for v in vertices]
    position = {key: k for k, key in enumerate(keys)}
    parent = list(range(len(vertices)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for k, (denominator, numerators) in enumerate(keys):
        for generator in symmetries:
            other = position.get((denominator, permuted(numerators, generator)))
            if other is None:
                raise PolytopeError("the vertex set is not closed under the symmetry group")
            parent[find(k)] = find(other)
    groups: dict[int, list[Vertex]] = {}
    for k, vertex in enumerate(vertices):
        groups.setdefault(find(k), []).append(vertex)
    return list(groups.values())


def orientation(polytope: Polytope) -> str:
    """How a vertex's coordinates lay out its matrix, said in every JSON document of vertices."""
    rows, columns = polytope.shape
    if polytope.name in ("RU", "RF"):
        return (f"row-major {rows}×{columns} matrix B: entry u*{columns} + j is the weight of ε-scale u in column j "
                "of the mechanism T = Ψ·B (Kohli and Laskowski, Def. 7 and 18)")
    return (f"row-major {rows}×{columns} matrix: entry i*{columns} + j is the probability of output j on input "
            "(true value) i; each row sums to 1")


def vertices_document(enumeration: Enumeration, orbit_count: int | None = None) -> dict[str, Any]:
    """The JSON report: polytope, n, eps_exp, z, shape, orientation, count, orbits, vertices (row-major
    strings), seconds."""
    polytope = enumeration.polytope
    return {
        "polytope": polytope.name,
        "n": polytope.shape[0],
        "eps_exp": str(polytope.eps_exp),
        "z": None if polytope.z is None else [str(v) for v in polytope.z],
        "shape": list(polytope.shape),
        "orientation": orientation(polytope),
        "count": len(enumeration.vertices),
        "orbits": orbit_count,
        "vertices": [[str(v) for v in vertex.coordinates] for vertex in enumeration.vertices],
        "seconds": round(enumeration.seconds, 4),
    }


def to_ext(enumeration: Enumeration) -> str:
    """The vertices in cdd's ``.ext`` format (exact rationals)."""
    d = enumeration.polytope.dimension_of_space
    lines = [f"* {enumeration.polytope.name} n={enumeration.polytope.shape[0]} e^eps={enumeration.polytope.eps_exp}",
             "V-representation", "begin", f"{len(enumeration.vertices)} {d + 1} rational"]
    lines += ["1 " + " ".join(str(v) for v in vertex.coordinates) for vertex in enumeration.vertices]
    lines.append("end")
    return "\n".join(lines) + "\n"


def read_ext(source: str | os.PathLike[str]) -> tuple[tuple[Fraction, ...], ...]:
    """The vertices of a cdd ``.ext`` file (as :func:`to_ext` writes it), exact, read by
    :func:`polytopes.hrep.read_cdd`. A ray or line (a row starting with 0, or a linearity) is
    refused: the toolkit's polytopes are bounded.

    Parameters
    ----------
    source : path
        A cdd ``.ext`` file (``qifkit enumerate ... --ext FILE`` writes one).

    Returns
    -------
    tuple of tuple of Fraction
        One exact point per vertex, in the file's order.

    Raises
    ------
    FileFormatError
        A malformed file (see :func:`~polytopes.hrep.read_cdd`).
    PolytopeError
        An H-representation, or a ray or line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polytopes import ldp_polytope
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d2.ext"
    >>> _ = path.write_text(to_ext(enumerate_vertices(ldp_polytope(2, eps_exp=2))))
    >>> sorted(read_ext(path))[0]  # rows (0, 1) and (0, 1): always the second value
    (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1), Fraction(1, 1))
    """
    kind, rows, linearity, _ = read_cdd(source)
    if kind != "V":
        raise PolytopeError(f"{source} is an H-representation; read it with polytopes.hrep.read_ine")
    for k, row in enumerate(rows):
        if row[0] != 1 or k in linearity:
            raise PolytopeError(f"{source}: row {k + 1} is a ray or a line (it starts with {row[0]}), not a vertex")
    return tuple(row[1:] for row in rows)
