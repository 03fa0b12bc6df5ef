"""ex(R_F) with a uniform z, counted by its components (Kohli and Laskowski, Def. 7; issue 55).

R_F = {B ≥ 0 (scales × columns) : Ψ·B·1 = 1, z·Ψ·B = z}. With w_i = z·Ψ_i (the weight of scale i
under z), Φ_i = Ψ_i / w_i and C = diag(w)·B (a positive rescaling, so the vertices correspond):

    C ≥ 0,   every column j of C sums to z_j,   Σ_i (row sum of C)_i·Φ_i = 1.

**The characterisation.** C is a vertex exactly when the constraint columns (e_j ; Φ_i) of its
positive entries (i, j) are linearly independent. Read the positive entries as the edges of a
bipartite graph on the scales used and the columns. A cycle gives a dependence (alternating signs
round it cancel both parts), so the graph is a forest; call its trees the *components*, each a set
S_a of scales and a set J_a of columns (every column has z_j > 0, so it is in one). On a forest
the remaining dependences are exactly the ν ≠ 0 on the scales used with Σ_i ν_i·Φ_i = 0 and
Σ_{i ∈ S_a} ν_i = 0 on every component, i.e.

    C is a vertex  ⇔  the graph is a forest and the differences Φ_i − Φ_{b_a} (i ∈ S_a, b_a its
                      first scale) of all components together are linearly independent

(Kohli and Laskowski's Def. 8 read by components: Thm. 4). Given the components, the row sums
u_i of C solve Σ_{i ∈ S_a} u_i = z(J_a) and Σ_i u_i·Φ_i = 1, uniquely by the independence, and
must be positive; inside a component C is then the unique flow of the spanning tree between the
margins u (scales) and z (columns), which must be positive on every edge. So

    |ex(R_F)| = Σ over sets of components with positive u of Π_a (positive spanning trees of a).

Every z·Φ_i is 1, so the differences lie in the hyperplane z·x = 0: their number Σ_a (|S_a| − 1)
is at most n − 1. A component of one scale adds no difference (a *singleton*: its tree is a star,
always positive). With a uniform z only the number of columns c_a of each component matters: a
set of components with those numbers stands for n!/Π_a c_a! vertices (the components are told
apart by their scales).

**The count.** :func:`rf_vertex_count` takes every *core* (disjoint sets of scales of two or more,
independent differences, total dimension d ≤ n − 1), every number of columns for each of its
components and every set of singletons, and solves for u. Floats search: the differences' least
singular value (independence), the residual (whether 1 is reached when d < n − 1) and the signs
of u. A candidate is dropped by floats only when it is clearly out: a least singular value below
1e-7 is decided by an exact rank; a core whose differences have a condition number above 10^4
has every candidate decided exactly (at n = 5, e^ε = 2: 843 of 2.7 million cores); for the others
(errors of about 10^4 times rounding, 1e-12), every candidate whose residual is below 1e-5 and
whose smallest u is above −1e-9 is decided in exact rationals (python-flint): its u solved
exactly, its positivity and its positive spanning trees counted exactly. The count is the sum of
those exact decisions. ``tests/test_rf_components.py`` compares it with cddlib's and Normaliz's
vertex counts at n = 3 (e^ε up to 10^10, where Φ's entries span 20 orders of magnitude) and 4.

Examples
--------
>>> rf_vertex_count(3, 2).vertices
78
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from polytopes.scales import psi
from qifkit.errors import CertificateError, ParameterError
from qifkit.numbers import exact_str, parse_eps_exp
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["RF_COMPONENTS_MAX_N", "RF_COUNT_FORMAT", "RFCount", "rf_vertex_count", "spanning_tree_cuts",
           "rf_count_document", "check_rf_count"]


#: The largest n counted: n = 5 takes about five minutes (its 16 scales give 2.7 million cores);
#: n = 6 has 32 scales and cores of five differences (not tried).
RF_COMPONENTS_MAX_N = 5

#: The format of a count file (:func:`rf_count_document`).
RF_COUNT_FORMAT = "qifkit count of R_F by components, version 1"

#: Floats drop a candidate only beyond these, and only for cores whose differences have a
#: condition number of at most _CONDITION (see the module docstring).
_INDEPENDENT = 1e-7
_RESIDUAL = 1e-5
_NEGATIVE = -1e-9
_CONDITION = 1e4

#: Cores processed together in floats (memory: cores × candidates × n doubles).
_CHUNK = 20_000


@dataclass
class RFCount:
    """The vertices of R_F (uniform z) by their components.

    Attributes
    ----------
    n, eps_exp : int, Fraction
    vertices : int
        |ex(R_F)|, exact.
    structures : int
        Sets of components with positive u and at least one positive tree for each: the vertices
        up to the column permutations and the choice of trees.
    by_core : dict
        For each core's dimensions (a partition of d ≤ n − 1, () for singletons only):
        [cores with independent differences, structures, vertices].
    decided_exactly : int
        Candidates decided in exact rationals (every structure counted is one of them).
    seconds : float
        How long the count took.
    face : tuple of int or None
        The scales kept when only a face was counted (None: R_F itself).
    """

    n: int
    eps_exp: Fraction
    vertices: int = 0
    structures: int = 0
    by_core: dict[tuple[int, ...], list[int]] = field(default_factory=dict)
    decided_exactly: int = 0
    seconds: float = 0.0
    face: tuple[int, ...] | None = None


def _partitions(total: int, largest: int | None = None) -> Iterator[tuple[int, ...]]:
    """The partitions of `total` into positive parts, largest first."""
    if total == 0:
        yield ()
        return
    for part in range(min(total, largest or total), 0, -1):
        for rest in _partitions(total - part, part):
            yield (part,) + rest


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """The tuples of `parts` positive integers summing to `total`."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(1, total - parts + 2):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _disjoint_sets(k: int, sizes: Sequence[int]) -> np.ndarray:
    """Every tuple of disjoint increasing index sets of the given sizes (largest first; sets of
    equal size by increasing first index, so each set of sets once), concatenated per row."""
    found: list[tuple[int, ...]] = []

    def extend(a: int, used: frozenset[int], first: int, chosen: tuple[int, ...]) -> None:
        if a == len(sizes):
            found.append(chosen)
            return
        least = first + 1 if a > 0 and sizes[a - 1] == sizes[a] else 0
        for s in itertools.combinations([i for i in range(k) if i not in used], sizes[a]):
            if s[0] >= least:
                extend(a + 1, used | set(s), s[0], chosen + s)

    extend(0, frozenset(), -1, ())
    return np.array(found, dtype=np.int64).reshape(len(found), sum(sizes))


def _singleton_tuples(k: int, sizes: Sequence[int]) -> np.ndarray:
    """Distinct scales for singletons of the given numbers of columns (descending; equal numbers by
    increasing scale, so each set once)."""
    found: list[tuple[int, ...]] = []

    def extend(b: int, chosen: tuple[int, ...]) -> None:
        if b == len(sizes):
            found.append(chosen)
            return
        least = chosen[-1] + 1 if b > 0 and sizes[b - 1] == sizes[b] else 0
        for i in range(least, k):
            if i not in chosen:
                extend(b + 1, chosen + (i,))

    extend(0, ())
    return np.array(found, dtype=np.int64).reshape(len(found), len(sizes))


def spanning_tree_cuts(rows: int, columns: int) -> list[list[tuple[int, int]]]:
    """Every spanning tree of the complete bipartite graph K(rows, columns), each as the cuts of
    its edges: for each edge, the rows (a bit mask) and the number of columns on its row end's
    side. The flow of the edge between row margins u and column margins 1/n is
    Σ_{those rows} u − columns/n (what the row side holds beyond what its columns take).

    The trees are grown edge by edge in a fixed order, an edge joining two components or left out
    (a branch ends when too few edges remain); each tree is then rooted at row 0 and every edge's
    cut read from the subtree below it.

    Examples
    --------
    K(2, 2) has four spanning trees (paths), each of three edges:

    >>> [len(tree) for tree in spanning_tree_cuts(2, 2)]
    [3, 3, 3, 3]
    """
    nodes = rows + columns
    edges = [(i, rows + j) for i in range(rows) for j in range(columns)]
    found: list[tuple[tuple[int, int], ...]] = []

    def grow(k: int, component: tuple[int, ...], chosen: tuple[tuple[int, int], ...]) -> None:
        needed = nodes - 1 - len(chosen)
        if needed == 0:
            found.append(chosen)
            return
        if len(edges) - k < needed:
            return
        a, b = edges[k]
        if component[a] != component[b]:
            joined = tuple(component[a] if c == component[b] else c for c in component)
            grow(k + 1, joined, chosen + (edges[k],))
        grow(k + 1, component, chosen)

    grow(0, tuple(range(nodes)), ())
    return [_cuts(tree, rows, nodes) for tree in found]


def _cuts(tree: Sequence[tuple[int, int]], rows: int, nodes: int) -> list[tuple[int, int]]:
    """Each edge's row side (rows as a bit mask, number of columns), the tree rooted at node 0."""
    neighbours: list[list[int]] = [[] for _ in range(nodes)]
    for a, b in tree:
        neighbours[a].append(b)
        neighbours[b].append(a)
    parent, order = [-1] * nodes, [0]
    parent[0] = 0
    for x in order:
        for y in neighbours[x]:
            if parent[y] < 0:
                parent[y] = x
                order.append(y)
    row_mask, column_count = [0] * nodes, [0] * nodes  # of each node's subtree
    for x in reversed(order):
        if x < rows:
            row_mask[x] |= 1 << x
        else:
            column_count[x] += 1
        if x:
            row_mask[parent[x]] |= row_mask[x]
            column_count[parent[x]] += column_count[x]
    every_row, columns = (1 << rows) - 1, nodes - rows
    return [(row_mask[a], column_count[a]) if parent[a] == b  # the row's side is the row's subtree
            else (every_row & ~row_mask[b], columns - column_count[b])  # all but the column's subtree
            for a, b in tree]


class _Scales:
    """Φ_i = Ψ_i / w_i of the scales used (all, or those of a face), under the uniform z, exact
    (fmpq) and in floats."""

    def __init__(self, n: int, e: Fraction, used: Sequence[int]) -> None:
        matrix = psi(n, e)
        self.n, self.k = n, len(used)
        phi = [[matrix[r][i] / (sum((matrix[s][i] for s in range(n)), Fraction(0)) / n) for r in range(n)]
               for i in used]
        self.exact = [[flint.fmpq(x.numerator, x.denominator) for x in column] for column in phi]
        self.floats = np.array([[float(x) for x in column] for column in phi])
        self._trees: dict[tuple[int, int], _Trees] = {}

    def trees(self, rows: int, columns: int) -> _Trees:
        if (rows, columns) not in self._trees:
            self._trees[rows, columns] = _Trees(rows, columns, self.n)
        return self._trees[rows, columns]


class _Trees:
    """The spanning trees of K(rows, columns) as sets of distinct cuts (a row set as a bit mask, a
    number of columns), so that a component's positive trees are counted from which cuts carry a
    positive flow: a tree is positive when all its cuts are."""

    def __init__(self, rows: int, columns: int, n: int) -> None:
        cuts: dict[tuple[int, int], int] = {}
        self.trees = []
        for tree in spanning_tree_cuts(rows, columns):
            bits = 0
            for cut in tree:
                bits |= 1 << cuts.setdefault(cut, len(cuts))
            self.trees.append(bits)
        self.cuts = list(cuts)
        self.rows = rows
        self.columns_taken = [flint.fmpq(taken, n) for _, taken in self.cuts]
        self._counted: dict[int, int] = {}

    def positive(self, u: Sequence[flint.fmpq]) -> int:
        """How many trees carry a positive flow between the row margins u and column margins 1/n."""
        sums = [flint.fmpq(0)] * (1 << self.rows)
        for mask in range(1, 1 << self.rows):
            low = mask & -mask
            sums[mask] = sums[mask ^ low] + u[low.bit_length() - 1]
        carried = 0
        for bit, ((mask, _), taken) in enumerate(zip(self.cuts, self.columns_taken, strict=True)):
            if sums[mask] > taken:
                carried |= 1 << bit
        if carried not in self._counted:
            self._counted[carried] = sum(1 for tree in self.trees if tree & ~carried == 0)
        return self._counted[carried]


def rf_vertex_count(n: int, eps_exp: Any, *, scales: Sequence[int] | None = None) -> RFCount:
    """|ex(R_F)| for a uniform z, by components (module docstring), exact.

    Parameters
    ----------
    n : int
        The number of counts, 2 ≤ n ≤ :data:`RF_COMPONENTS_MAX_N`.
    eps_exp : exact number or str
        e^ε > 1.
    scales : sequence of int, optional
        Count only the vertices of the face where every other scale's row of B is 0: the scales
        kept, as indices into :func:`polytopes.scales.scales` (default: all, R_F itself).

    Returns
    -------
    RFCount

    Raises
    ------
    ParameterError
        n outside 2..RF_COMPONENTS_MAX_N, or e^ε not a number > 1.
    """
    size = whole_number(n, 2, "n", error=ParameterError)
    if size > RF_COMPONENTS_MAX_N:
        raise ParameterError(f"n = {size}: R_F by components stops at n = {RF_COMPONENTS_MAX_N} (n = 5 has 2.7 "
                             "million cores and takes minutes; n = 6 has 32 scales)")
    e = eps_exp_above_one(eps_exp, allow_one=False)
    everything = tuple(range(2 ** (size - 1)))
    used = everything if scales is None else tuple(sorted(set(scales)))
    if not used or not set(used) <= set(everything):
        raise ParameterError(f"scales {list(scales or [])}: not a non-empty set of scale indices 0..{everything[-1]}")
    started = time.perf_counter()
    table = _Scales(size, e, used)
    result = RFCount(size, e, face=None if used == everything else used)
    for d in range(size):
        for dims in _partitions(d):
            _count_cores(table, dims, result)
    result.seconds = time.perf_counter() - started
    return result


def rf_count_document(count: RFCount, command: str) -> dict[str, Any]:
    """The count file of :func:`rf_vertex_count` (JSON data): the totals and the table by core."""
    if count.face is not None:
        raise ParameterError(f"a count file holds R_F itself, not the face of scales {list(count.face)}")
    return {
        "format": RF_COUNT_FORMAT,
        "polytope": "RF",
        "z": "uniform",
        "n": count.n,
        "eps_exp": exact_str(count.eps_exp),
        "vertices": count.vertices,
        "structures": count.structures,
        "by_core": [{"core": list(dims), "cores": row[0], "structures": row[1], "vertices": row[2]}
                    for dims, row in sorted(count.by_core.items(), key=lambda item: (sum(item[0]), item[0]))],
        "decided_exactly": count.decided_exactly,
        "seconds": round(count.seconds, 1),
        "command": command,
    }


def check_rf_count(document: Mapping[str, Any], count: RFCount | None = None) -> RFCount:
    """Re-verify a count file of R_F: its fields, its totals against its table, and the table
    against the count run again (or against `count`, one just made for the same n and e^ε). A
    count has no vertex list to check entry by entry, so nothing short of recounting confirms it.

    Raises
    ------
    CertificateError
        Anything wrong, named.
    """
    if not isinstance(document, Mapping) or document.get("format") != RF_COUNT_FORMAT \
            or document.get("polytope") != "RF" or document.get("z") != "uniform":
        raise CertificateError(f"not a count file of R_F with a uniform z (format must be {RF_COUNT_FORMAT!r})")
    n = whole_number(document.get("n"), 2, "the count's n", maximum=RF_COMPONENTS_MAX_N, error=CertificateError)
    e = parse_eps_exp(str(document.get("eps_exp")))
    if e <= 1:
        raise CertificateError(f"the count's e^ε = {exact_str(e)} is not above 1")
    table = document.get("by_core")
    if not isinstance(table, list):
        raise CertificateError("a count of R_F lists its table by core (by_core)")
    for total in ("vertices", "structures"):
        numbers = [row.get(total) if isinstance(row, Mapping) else None for row in table]
        whole = [v for v in numbers if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
        if len(whole) != len(numbers):
            raise CertificateError(f"by_core: every row's {total} must be a whole number")
        if document.get(total) != sum(whole):
            raise CertificateError(f"{total} = {document.get(total)!r} is not the sum of the table's, {sum(whole):,}")
    if count is None:
        count = rf_vertex_count(n, e)
    elif (count.n, count.eps_exp) != (n, e):
        raise CertificateError(f"the count given is of n = {count.n}, e^ε = {exact_str(count.eps_exp)}, the file's of "
                               f"n = {n}, e^ε = {exact_str(e)}")
    expected = rf_count_document(count, "")["by_core"]
    if table != expected:
        rows = {str(row.get("core")): row for row in table}
        first = next((row for row in expected if rows.get(str(row["core"])) != row), None)
        if first is None:
            raise CertificateError(f"the table by core lists {len(table)} rows, the count run again {len(expected)}")
        raise CertificateError(f"the table by core differs from the count run again, first at core {first['core']}: "
                               f"the file says {rows.get(str(first['core']))}, the count {first}")
    return count


def _count_cores(scales: _Scales, dims: tuple[int, ...], result: RFCount) -> None:
    """Add the structures whose core has these dimensions."""
    n, phi = scales.n, scales.floats
    sizes = tuple(x + 1 for x in dims)
    cores = _disjoint_sets(scales.k, sizes)
    first = np.cumsum((0,) + sizes)[:-1]
    differences = [phi[cores[:, first[a] + q]] - phi[cores[:, first[a]]][:, :]
                   for a in range(len(sizes)) for q in range(1, sizes[a])]
    matrix = np.stack(differences, axis=2) if differences else np.zeros((len(cores), n, 0))
    if differences:
        singular = np.linalg.svd(matrix, compute_uv=False)
        least = singular[:, -1]
        unsure = [c for c in np.nonzero(least <= _INDEPENDENT)[0] if _independent(scales, cores[c], sizes)]
        keep = least > _INDEPENDENT
        keep[unsure] = True
        # exactly independent although nearly dependent, or ill-conditioned: every candidate exact
        exact_only = keep & (singular[:, 0] > _CONDITION * np.maximum(least, _INDEPENDENT))
        exact_only[unsure] = True
        cores, matrix, exact_only = cores[keep], matrix[keep], exact_only[keep]
    else:
        exact_only = np.zeros(len(cores), dtype=bool)
    tally = result.by_core.setdefault(dims, [0, 0, 0])
    tally[0] += len(cores)
    pseudo_inverse = np.linalg.pinv(matrix) if differences else np.zeros((len(cores), 0, n))
    for singles in range(0, n - len(sizes) + 1):
        for columns in _compositions(n, len(sizes) + singles):
            core_columns, single_columns = columns[: len(sizes)], columns[len(sizes):]
            if list(single_columns) != sorted(single_columns, reverse=True):
                continue
            picks = _singleton_tuples(scales.k, single_columns)
            for start in range(0, len(cores), _CHUNK):
                chunk = slice(start, start + _CHUNK)
                found = _float_candidates(scales, cores[chunk], sizes, matrix[chunk], pseudo_inverse[chunk],
                                          core_columns, single_columns, picks, exact_only[chunk])
                solver = None
                for c, m in found:
                    core = cores[start + c]
                    if solver is None or solver.key != core.tobytes():
                        solver = _CoreSolver(scales, core, sizes)
                    _decide(scales, solver, core, sizes, core_columns, picks[m], single_columns, result, tally)


def _independent(scales: _Scales, core: np.ndarray, sizes: Sequence[int]) -> bool:
    """Exactly: are the core's differences linearly independent?"""
    vectors = _exact_differences(scales, core, sizes)
    return flint.fmpq_mat(vectors).rank() == len(vectors)


def _exact_differences(scales: _Scales, core: np.ndarray, sizes: Sequence[int]) -> list[list[flint.fmpq]]:
    phi, vectors, at = scales.exact, [], 0
    for size in sizes:
        base = phi[core[at]]
        vectors += [[x - y for x, y in zip(phi[core[at + q]], base, strict=True)] for q in range(1, size)]
        at += size
    return vectors


def _float_candidates(scales: _Scales, cores: np.ndarray, sizes: Sequence[int], matrix: np.ndarray,
                      pseudo_inverse: np.ndarray, core_columns: Sequence[int], single_columns: Sequence[int],
                      picks: np.ndarray, exact_only: np.ndarray) -> list[tuple[int, int]]:
    """(core, singleton tuple) pairs that floats cannot rule out (every pair of an `exact_only` core)."""
    n, phi = scales.n, scales.floats
    first = np.cumsum((0,) + tuple(sizes))[:-1]
    target = np.ones((len(cores), n))
    for a, c in enumerate(core_columns):
        target -= (c / n) * phi[cores[:, first[a]]]
    core_bits = np.bitwise_or.reduce(np.left_shift(1, cores), axis=1) if cores.shape[1] else np.zeros(len(cores), int)
    pick_bits = np.zeros(len(picks), dtype=np.int64)
    for b in range(len(single_columns)):
        pick_bits |= np.left_shift(1, picks[:, b])
    taken = (core_bits[:, None] & pick_bits[None, :]) != 0
    # x is linear in the residue: the core's part once, each singleton's as a column of pinv·Φᵀ
    x = np.matmul(pseudo_inverse, target[:, :, None])[:, None, :, 0]
    through = np.matmul(pseudo_inverse, phi.T)  # cores × d × scales
    for b, c in enumerate(single_columns):
        x = x - (c / n) * through[:, :, picks[:, b]].transpose(0, 2, 1)
    if x.shape[2] < n - 1:  # a core of fewer than n − 1 differences reaches only some targets
        residue = target[:, None, :] - sum(((c / n) * phi[picks[:, b]] for b, c in enumerate(single_columns)),
                                           np.zeros((len(picks), n)))[None, :, :]
        reached = np.abs(np.matmul(x, matrix.transpose(0, 2, 1)) - residue).max(axis=2) < _RESIDUAL
    else:  # n − 1 independent differences span the hyperplane z·x = 0, where every residue lies
        reached = np.ones(taken.shape, dtype=bool)
    smallest = np.full(taken.shape, np.inf)
    at = 0
    for a, size in enumerate(sizes):
        part = x[:, :, at: at + size - 1]
        at += size - 1
        smallest = np.minimum(smallest, core_columns[a] / n - part.sum(axis=2))
        if size > 1:
            smallest = np.minimum(smallest, part.min(axis=2))
    alive = ~taken & ((reached & (smallest > _NEGATIVE)) | exact_only[:, None])
    return list(zip(*(axis.tolist() for axis in np.nonzero(alive)), strict=True))


class _CoreSolver:
    """One core's exact differences D (n × d, independent) and the inverse of d of its rows, so
    that each candidate is one product and one check: x = D_rows⁻¹·r_rows, then D·x = r."""

    def __init__(self, scales: _Scales, core: np.ndarray, sizes: Sequence[int]) -> None:
        self.key = core.tobytes()
        self.vectors = _exact_differences(scales, core, sizes)
        d, n = len(self.vectors), scales.n
        self.rows: list[int] = []
        self.inverse = flint.fmpq_mat(0, 0)
        if d:
            reduced, rank = flint.fmpq_mat(self.vectors).rref()  # d × n, rank d: a pivot per difference
            self.rows = [next(c for c in range(n) if reduced[r, c] != 0) for r in range(rank)]
            self.inverse = flint.fmpq_mat(d, d, [self.vectors[q][r] for r in self.rows for q in range(d)]).inv()

    def solve(self, residue: list[flint.fmpq]) -> list[flint.fmpq] | None:
        """x with Σ_q x_q·D_q = residue, or None when there is none."""
        d = len(self.vectors)
        if not d:
            return [] if all(r == 0 for r in residue) else None
        x = self.inverse * flint.fmpq_mat(d, 1, [residue[r] for r in self.rows])
        solution = [x[q, 0] for q in range(d)]
        for r, target in enumerate(residue):
            if sum((solution[q] * self.vectors[q][r] for q in range(d)), flint.fmpq(0)) != target:
                return None  # 1 is not reached
        return solution


def _decide(scales: _Scales, solver: _CoreSolver, core: np.ndarray, sizes: Sequence[int],
            core_columns: Sequence[int], singles: np.ndarray, single_columns: Sequence[int], result: RFCount,
            tally: list[int]) -> None:
    """Exactly: solve the row sums u of this set of components; if all are positive, count its
    positive spanning trees and add its vertices."""
    result.decided_exactly += 1
    n, phi = scales.n, scales.exact
    share = [flint.fmpq(c, n) for c in core_columns]
    residue = [flint.fmpq(1)] * n
    at = 0
    for a, size in enumerate(sizes):
        residue = [r - share[a] * x for r, x in zip(residue, phi[core[at]], strict=True)]
        at += size
    for i, c in zip(singles.tolist(), single_columns, strict=True):
        residue = [r - flint.fmpq(c, n) * x for r, x in zip(residue, phi[i], strict=True)]
    x = solver.solve(residue)
    if x is None:
        return
    product, at = 1, 0
    for a, size in enumerate(sizes):
        part = x[at: at + size - 1]
        at += size - 1
        u = [share[a] - sum(part, flint.fmpq(0))] + part
        if min(u) <= 0:
            return
        if core_columns[a] > 1:
            product *= scales.trees(size, core_columns[a]).positive(u)
            if product == 0:
                return
    ways = math.factorial(n)
    for c in tuple(core_columns) + tuple(single_columns):
        ways //= math.factorial(c)
    result.structures += 1
    result.vertices += ways * product
    tally[1] += 1
    tally[2] += ways * product
