"""ex(D) by support: an exact decomposition that reaches n = 5 (Holohan et al.'s D).

Every vertex A of D has a set S = γ(A) of non-zero columns. Fixing the other columns to zero
gives a face of D, the n×|S| local-DP polytope, and A is a vertex of that face with no zero
column. So ex(D) is the union, over m = 1..n−1 and the C(n, m) column sets, of the vertices
without zero columns of the n×m polytope (enumerated exactly by Normaliz, or cddlib), embedded; and, for
m = n, of the vertices with no zero column, which are exactly D̃ ∩ {|γ| = n} (Holohan et al.,
Cor. 5: rank n and no loose entry). Those are built from their definition: Ã has rows in
{1, e^ε}^n (with both values in every column), m solves Ã·m = 1 with m > 0; candidates are the
multisets of n row patterns (rows can be permuted freely), screened in floats and confirmed
exactly (once per multiset: D̃ is closed under row permutations), then spread over all row orders.

Each block is written atomically to a folder when one is given (:class:`polytopes.resume.ResumeFolder`:
a manifest of the problem and of every block's SHA-256), and read back on a later run with the same n
and e^ε, so a killed run resumes. A folder from another problem is refused; a block file the manifest
does not list, one whose hash does not match, or one that does not parse is recomputed and said so,
never trusted. A block the manifest vouches for is re-verified all the same (hashes detect accidents,
not a folder made wrong and consistent): its matrices must have m non-zero columns, form a set closed
under D's row and column permutations, and be vertices of D at this e^ε (one per orbit is checked
exactly; the group maps vertices to vertices). A block that fails is refused, naming it. What no
check short of recomputing can see is a whole orbit of vertices removed from a block.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from polytopes.classify import _exact_solution, in_d_tilde
from polytopes.enumerate import Vertex, enumerate_vertices, orbits
from polytopes.resume import ResumeFolder, ResumeMismatchError
from polytopes.spaces import ldp_polytope
from qifkit.errors import PolytopeError, QifError
from qifkit.files import read_json
from qifkit.numbers import exact_eps_exp, parse_number

__all__ = ["ldp_vertices_by_support", "full_support_vertices"]

Matrix = tuple[tuple[Fraction, ...], ...]


def full_support_vertices(n: int, eps_exp: Any) -> set[Matrix]:
    """The vertices of D with no zero column: D̃ ∩ {|γ| = n} (Cor. 5), built from the definition."""
    e = exact_eps_exp(eps_exp)
    patterns = list(itertools.product((0, 1), repeat=n))
    multisets = list(itertools.combinations_with_replacement(range(len(patterns)), n))
    stack = np.array([[patterns[r] for r in chosen] for chosen in multisets], dtype=float)  # (count, n, n) of 0/1
    mixed = np.all((stack.sum(axis=1) > 0) & (stack.sum(axis=1) < n), axis=1)  # both values in each column
    scaled = 1.0 + stack[mixed] * (float(e) - 1.0)
    chosen = [multisets[k] for k in np.flatnonzero(mixed)]
    determinants = np.linalg.det(scaled)
    regular = np.abs(determinants) > 1e-9
    solutions = np.linalg.solve(scaled[regular], np.ones((int(regular.sum()), n, 1)))[..., 0]
    positive = np.all(solutions > 1e-12, axis=1)
    found: set[Matrix] = set()
    for index in np.flatnonzero(regular)[positive]:
        rows = [[e if bit else Fraction(1) for bit in patterns[r]] for r in chosen[index]]
        minima = _exact_solution(rows, n)
        if minima is None or min(minima) <= 0:
            continue
        base = tuple(tuple(rows[i][j] * minima[j] for j in range(n)) for i in range(n))
        if in_d_tilde(base, e):  # membership of D̃ is invariant under row permutations (Thm. 3), so test once
            found.update(itertools.permutations(base))
    return found


def _face_vertices(n: int, m: int, eps_exp: Any, method: str) -> set[Matrix]:
    """Vertices of the n×m LDP polytope with no zero column, enumerated by `method`."""
    polytope = ldp_polytope(n, eps_exp=eps_exp, nonnegativity=False, columns=m)
    result = set()
    for vertex in enumerate_vertices(polytope, method).vertices:
        matrix = vertex.matrix((n, m))
        if all(any(row[j] for row in matrix) for j in range(m)):
            result.add(tuple(tuple(row) for row in matrix))
    return result


def _embed(block: set[Matrix], n: int, m: int) -> set[Matrix]:
    result = set()
    for columns in itertools.combinations(range(n), m):
        for matrix in block:
            result.add(
                tuple(tuple(row[columns.index(j)] if j in columns else Fraction(0) for j in range(n)) for row in matrix)
            )
    return result


def _parse_block(data: bytes, path: Path, n: int, say: Callable[[str], None]) -> set[Matrix] | None:
    """A block file's vertices if it parses as n×n matrices of exact numbers; None (recompute) otherwise."""
    try:
        block = {tuple(tuple(parse_number(v) for v in row) for row in matrix) for matrix in read_json(data)}
    except (ValueError, TypeError, QifError):
        say(f"{path}: does not parse; recomputed")
        return None
    if any(len(matrix) != n or any(len(row) != n for row in matrix) for matrix in block):
        say(f"{path}: not {n}×{n} matrices; recomputed")
        return None
    return block


def _check_block(block: set[Matrix], n: int, m: int, polytope: Any, path: Path) -> None:
    """Refuse a block read back unless it is a block of vertices of D with support size m (see the
    module docstring): ResumeMismatchError naming the file and the first matrix that fails."""
    for matrix in block:
        if sum(1 for j in range(n) if any(row[j] for row in matrix)) != m:
            raise ResumeMismatchError(f"{path}: a matrix with other than {m} non-zero columns is in the block of "
                                      f"support {m}: {_shown(matrix)}; remove the folder or the file to recompute")
    flat = [Vertex(tuple(v for row in matrix for v in row), frozenset()) for matrix in block]
    try:
        groups = orbits(flat, polytope.symmetries)
    except PolytopeError:
        raise ResumeMismatchError(f"{path}: the block is not closed under the row and column permutations (a vertex "
                                  "is missing, or one was added): remove the folder or the file to recompute") from None
    for group in groups:
        if not polytope.is_vertex(group[0].coordinates):
            raise ResumeMismatchError(f"{path}: {_shown(group[0].matrix((n, n)))} is not a vertex of D at e^ε = "
                                      f"{polytope.eps_exp}: remove the folder or the file to recompute")


def _shown(matrix: Any) -> str:
    return "[" + "; ".join(", ".join(str(v) for v in row) for row in matrix) + "]"


def ldp_vertices_by_support(n: int, eps_exp: Any, folder: str | None = None,
                            progress: Callable[[str], None] | None = None,
                            face_method: str | None = None) -> tuple[set[Matrix], dict[int, int]]:
    """ex(D) for n values, block by block (see the module docstring).

    Parameters
    ----------
    face_method : {"normaliz", "cdd", "lrs"}, optional
        Who enumerates the n×m faces (:func:`polytopes.enumerate.enumerate_vertices`); by default
        Normaliz where PyNormaliz is installed (the 5×4 face: 4 s against cddlib's 100 s), else cddlib.

    Returns the vertices and, for each support size m, the number of vertices with |γ| = m.
    """
    if face_method is None:
        from polytopes.normaliz import normaliz_available

        face_method = "normaliz" if normaliz_available() else "cdd"
    e = exact_eps_exp(eps_exp)
    say = progress or (lambda text: None)
    problem = {"polytope": "LDP", "n": n, "eps_exp": str(e), "method": "by support"}
    store = ResumeFolder(folder, problem, say) if folder else None
    polytope = ldp_polytope(n, eps_exp=e)
    vertices: set[Matrix] = set()
    by_size: dict[int, int] = {}
    for m in range(1, n + 1):
        name = f"support-{m}.json"
        start = time.perf_counter()
        data = store.read(name) if store is not None else None
        block = _parse_block(data, store.path / name, n, say) if store is not None and data is not None else None
        if store is not None and block is not None:
            _check_block(block, n, m, polytope, store.path / name)
            say(f"support {m}: {len(block)} vertices read from {store.path / name}, re-verified")
        else:
            block = full_support_vertices(n, e) if m == n else _embed(_face_vertices(n, m, e, face_method), n, m)
            if store is not None:
                store.write(name, json.dumps([[[str(v) for v in row] for row in matrix] for matrix in sorted(block)]))
            say(f"support {m}: {len(block)} vertices ({time.perf_counter() - start:.1f} s)")
        by_size[m] = len(block)
        vertices |= block
    return vertices, by_size
