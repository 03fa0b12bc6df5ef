"""ex(R_F), counted by its components (Kohli and Laskowski, Def. 7; issue 55).

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
always positive). Columns of equal weight z_j are interchangeable: what matters of a component's
columns is how many it takes of each weight, v_a (its *column vector*). A set of components with
those vectors stands for Π_w m_w! / Π_a Π_w v_a(w)! vertices, m_w the number of columns of
weight w (the components are told apart by their scales): n!/Π_a c_a! for the uniform z, where
only the numbers of columns c_a matter, which is what makes n = 5 fit.

**The count.** :func:`rf_vertex_count` takes every *core* (disjoint sets of scales of two or more,
independent differences, total dimension d ≤ n − 1), every column vector for each of its
components and every set of singletons, and solves for u. Floats search: the differences' least
singular value (independence), the residual (whether 1 is reached when d < n − 1) and the signs
of u. A candidate is dropped by floats only when it is clearly out: a least singular value below
1e-7 is decided by an exact rank; a core whose differences have a condition number above 10^4
has every candidate decided exactly (at n = 5, e^ε = 2: 843 of 2.7 million cores); for the others
(errors of about 10^4 times rounding, 1e-12), every candidate whose residual is below 1e-5 and
whose smallest u is above −1e-9 is decided in exact rationals (python-flint): its u solved
exactly, its positivity and its positive spanning trees counted exactly. The count is the sum of
those exact decisions. ``tests/test_rf_components.py`` compares it with cddlib's and Normaliz's
vertex counts at n = 3 (e^ε up to 10^10, where Φ's entries span 20 orders of magnitude) and 4,
for the uniform and the binomial z and z with no two weights equal, and at n = 5 on faces.

Examples
--------
>>> rf_vertex_count(3, 2).vertices
78
"""

from __future__ import annotations

import dataclasses
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
from polytopes.spaces import check_distribution
from qifkit.errors import CertificateError, DistributionError, ParameterError
from qifkit.numbers import exact_str, parse_eps_exp, parse_number
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["RF_COMPONENTS_MAX_N", "RF_COUNT_FORMAT", "RFCount", "RFCountCheck", "rf_vertex_count",
           "spanning_tree_cuts", "rf_count_document", "check_rf_count"]


#: The largest n counted: n = 5 takes about five minutes (its 16 scales give 2.7 million cores);
#: n = 6 has 32 scales and cores of five differences (not tried).
RF_COMPONENTS_MAX_N = 5

#: The format of a count file (:func:`rf_count_document`).
RF_COUNT_FORMAT = "qifkit count of R_F by components, version 2"

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
    """The vertices of R_F by their components.

    Attributes
    ----------
    n, eps_exp : int, Fraction
    z : tuple of Fraction
        The fixed point.
    vertices : int
        |ex(R_F)|, exact.
    structures : int
        Sets of components with positive u and at least one positive tree for each: the vertices
        up to permutations of columns of equal weight and the choice of trees.
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
    z: tuple[Fraction, ...]
    vertices: int = 0
    structures: int = 0
    by_core: dict[tuple[int, ...], list[int]] = field(default_factory=dict)
    decided_exactly: int = 0
    seconds: float = 0.0
    face: tuple[int, ...] | None = None


@dataclass(frozen=True)
class RFCountCheck:
    """What :func:`check_rf_count` confirmed of a count file.

    Attributes
    ----------
    n, eps_exp, z : int, Fraction, tuple of Fraction
        The file's polytope.
    vertices, structures : int
        Its totals (equal to its table's).
    recounted : bool
        Whether its table was also counted again (without that, only its fields and totals were
        checked).
    """

    n: int
    eps_exp: Fraction
    z: tuple[Fraction, ...]
    vertices: int
    structures: int
    recounted: bool


def _partitions(total: int, largest: int | None = None) -> Iterator[tuple[int, ...]]:
    """The partitions of `total` into positive parts, largest first."""
    if total == 0:
        yield ()
        return
    for part in range(min(total, largest or total), 0, -1):
        for rest in _partitions(total - part, part):
            yield (part,) + rest


def _weak_compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """The tuples of `parts` non-negative integers summing to `total`."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(total + 1):
        for rest in _weak_compositions(total - first, parts - 1):
            yield (first,) + rest


def _column_vectors(sizes: Sequence[int], parts: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every way to share the columns, `sizes[w]` of weight class w, among `parts` components, each
    taking at least one: a column vector (how many of each class) per component."""
    for shares in itertools.product(*(_weak_compositions(m, parts) for m in sizes)):
        vectors = tuple(zip(*shares, strict=True)) if shares else ((),) * parts
        if all(any(v) for v in vectors):
            yield vectors


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


def _singleton_tuples(k: int, sizes: Sequence[tuple[int, ...]]) -> np.ndarray:
    """Distinct scales for singletons of the given column vectors (descending; equal vectors by
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
    its edges: for each edge, the rows and the columns on its row end's side (two bit masks). The
    flow of the edge between row margins u and column margins z is Σ_{those rows} u −
    Σ_{those columns} z (what the row side holds beyond what its columns take).

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
    """Each edge's row side (its rows and its columns as bit masks), the tree rooted at node 0."""
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
    row_mask, column_mask = [0] * nodes, [0] * nodes  # of each node's subtree
    for x in reversed(order):
        if x < rows:
            row_mask[x] |= 1 << x
        else:
            column_mask[x] |= 1 << (x - rows)
        if x:
            row_mask[parent[x]] |= row_mask[x]
            column_mask[parent[x]] |= column_mask[x]
    every_row, every_column = (1 << rows) - 1, (1 << (nodes - rows)) - 1
    return [(row_mask[a], column_mask[a]) if parent[a] == b  # the row's side is the row's subtree
            else (every_row & ~row_mask[b], every_column & ~column_mask[b])  # all but the column's subtree
            for a, b in tree]


class _Scales:
    """Φ_i = Ψ_i / w_i of the scales used (all, or those of a face), w_i = z·Ψ_i, exact (fmpq) and
    in floats; and z's columns grouped by weight."""

    def __init__(self, n: int, e: Fraction, z: Sequence[Fraction], used: Sequence[int]) -> None:
        matrix = psi(n, e)
        self.n, self.k = n, len(used)
        phi = [[matrix[r][i] / sum((z[s] * matrix[s][i] for s in range(n)), Fraction(0)) for r in range(n)]
               for i in used]
        self.exact = [[flint.fmpq(x.numerator, x.denominator) for x in column] for column in phi]
        self.floats = np.array([[float(x) for x in column] for column in phi])
        self.weights = tuple(sorted(set(z), reverse=True))  # the weight classes, heaviest first
        self.class_sizes = tuple(list(z).count(w) for w in self.weights)
        self._weights = [flint.fmpq(w.numerator, w.denominator) for w in self.weights]
        self._trees: dict[tuple[int, tuple[int, ...]], _Trees] = {}
        self._shares: dict[tuple[int, ...], flint.fmpq] = {}

    def share(self, vector: tuple[int, ...]) -> flint.fmpq:
        """z(J) of a component whose columns have this column vector, exact."""
        if vector not in self._shares:
            self._shares[vector] = sum((c * w for c, w in zip(vector, self._weights, strict=True)), flint.fmpq(0))
        return self._shares[vector]

    def share_float(self, vector: Sequence[int]) -> float:
        return float(sum((c * w for c, w in zip(vector, self.weights, strict=True)), Fraction(0)))

    def ways(self, vectors: Sequence[Sequence[int]]) -> int:
        """How many vertices a set of components with these column vectors stands for: the ways to
        deal each weight class's columns to the components."""
        ways = math.prod(math.factorial(m) for m in self.class_sizes)
        for vector in vectors:
            ways //= math.prod(math.factorial(c) for c in vector)
        return ways

    def trees(self, rows: int, vector: tuple[int, ...]) -> _Trees:
        if (rows, vector) not in self._trees:
            columns = [w for c, w in zip(vector, self._weights, strict=True) for _ in range(c)]
            self._trees[rows, vector] = _Trees(rows, columns)
        return self._trees[rows, vector]


class _Trees:
    """The spanning trees of K(rows, columns) as sets of distinct cuts (a row set as a bit mask and
    the weight of the columns on its side), so that a component's positive trees are counted from
    which cuts carry a positive flow: a tree is positive when all its cuts are."""

    def __init__(self, rows: int, columns: Sequence[flint.fmpq]) -> None:
        cuts: dict[tuple[int, flint.fmpq], int] = {}
        self.trees = []
        for tree in spanning_tree_cuts(rows, len(columns)):
            bits = 0
            for mask, taken in tree:
                weight = sum((w for j, w in enumerate(columns) if taken >> j & 1), flint.fmpq(0))
                bits |= 1 << cuts.setdefault((mask, weight), len(cuts))
            self.trees.append(bits)
        self.cuts = list(cuts)
        self.rows = rows
        self._counted: dict[int, int] = {}

    def positive(self, u: Sequence[flint.fmpq]) -> int:
        """How many trees carry a positive flow between the row margins u and the columns' weights."""
        sums = [flint.fmpq(0)] * (1 << self.rows)
        for mask in range(1, 1 << self.rows):
            low = mask & -mask
            sums[mask] = sums[mask ^ low] + u[low.bit_length() - 1]
        carried = 0
        for bit, (mask, taken) in enumerate(self.cuts):
            if sums[mask] > taken:
                carried |= 1 << bit
        if carried not in self._counted:
            self._counted[carried] = sum(1 for tree in self.trees if tree & ~carried == 0)
        return self._counted[carried]


def rf_vertex_count(n: int, eps_exp: Any, *, z: Sequence[Any] | None = None,
                    scales: Sequence[int] | None = None) -> RFCount:
    """|ex(R_F)|, by components (module docstring), exact.

    Parameters
    ----------
    n : int
        The number of counts, 2 ≤ n ≤ :data:`RF_COMPONENTS_MAX_N`.
    eps_exp : exact number or str
        e^ε > 1.
    z : sequence of exact numbers, optional
        The fixed point, every entry positive (default: uniform). The fewer distinct weights, the
        faster: the binomial z at n = 5 has three.
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
    DistributionError
        z not a distribution on n values, or with an entry 0.
    """
    size = whole_number(n, 2, "n", error=ParameterError)
    if size > RF_COMPONENTS_MAX_N:
        raise ParameterError(f"n = {size}: R_F by components stops at n = {RF_COMPONENTS_MAX_N} (n = 5 has 2.7 "
                             "million cores and takes minutes; n = 6 has 32 scales)")
    e = eps_exp_above_one(eps_exp, allow_one=False)
    point = check_distribution(z, size)
    if min(point) == 0:
        raise DistributionError(f"z[{point.index(0)}] = 0: counting by components needs every column's weight "
                                "positive (a column of weight 0 is a column of zeros in every vertex: leave it out)")
    everything = tuple(range(2 ** (size - 1)))
    used = everything if scales is None else tuple(sorted(set(scales)))
    if not used or not set(used) <= set(everything):
        raise ParameterError(f"scales {list(scales or [])}: not a non-empty set of scale indices 0..{everything[-1]}")
    started = time.perf_counter()
    table = _Scales(size, e, point, used)
    result = RFCount(size, e, point, face=None if used == everything else used)
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
        "n": count.n,
        "z": [exact_str(w) for w in count.z],
        "eps_exp": exact_str(count.eps_exp),
        "vertices": count.vertices,
        "structures": count.structures,
        "by_core": [{"core": list(dims), "cores": row[0], "structures": row[1], "vertices": row[2]}
                    for dims, row in sorted(count.by_core.items(), key=lambda item: (sum(item[0]), item[0]))],
        "decided_exactly": count.decided_exactly,
        "seconds": round(count.seconds, 1),
        "command": command,
    }


def check_rf_count(document: Mapping[str, Any], count: RFCount | None = None, *,
                   recount: bool = True) -> RFCountCheck:
    """Re-verify a count file of R_F: its fields, its totals against its table, and the table
    against the count run again (or against `count`, one just made for the same n, e^ε and z). A
    count has no vertex list to check entry by entry, so nothing short of recounting confirms it:
    with ``recount=False`` only the fields and totals are checked, and the answer says so.

    Raises
    ------
    CertificateError
        Anything wrong, named.
    """
    if not isinstance(document, Mapping) or document.get("format") != RF_COUNT_FORMAT \
            or document.get("polytope") != "RF":
        raise CertificateError(f"not a count file of R_F (format must be {RF_COUNT_FORMAT!r})")
    n = whole_number(document.get("n"), 2, "the count's n", maximum=RF_COMPONENTS_MAX_N, error=CertificateError)
    e = parse_eps_exp(str(document.get("eps_exp")))
    if e <= 1:
        raise CertificateError(f"the count's e^ε = {exact_str(e)} is not above 1")
    written = document.get("z")
    if not isinstance(written, list) or not all(isinstance(w, str) for w in written):
        raise CertificateError(f"the count's z = {written!r} is not a list of exact numbers written as strings")
    try:
        z = check_distribution([parse_number(w) for w in written], n)
    except DistributionError as error:
        raise CertificateError(f"the count's z: {error}") from None
    if min(z) <= 0:
        raise CertificateError(f"the count's z has an entry {exact_str(min(z))}: every weight must be positive")
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
    written_totals = RFCountCheck(n, e, z, document["vertices"], document["structures"], recounted=False)
    if count is None and not recount:
        return written_totals
    if count is None:
        count = rf_vertex_count(n, e, z=z)
    elif (count.n, count.eps_exp, count.z) != (n, e, z):
        raise CertificateError(f"the count given is of n = {count.n}, e^ε = {exact_str(count.eps_exp)}, "
                               f"z = ({', '.join(map(exact_str, count.z))}); the file's of n = {n}, "
                               f"e^ε = {exact_str(e)}, z = ({', '.join(map(exact_str, z))})")
    expected = rf_count_document(count, "")["by_core"]
    if table != expected:
        rows = {str(row.get("core")): row for row in table}
        first = next((row for row in expected if rows.get(str(row["core"])) != row), None)
        if first is None:
            raise CertificateError(f"the table by core lists {len(table)} rows, the count run again {len(expected)}")
        raise CertificateError(f"the table by core differs from the count run again, first at core {first['core']}: "
                               f"the file says {rows.get(str(first['core']))}, the count {first}")
    return dataclasses.replace(written_totals, recounted=True)


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
    shares: list[tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], np.ndarray]] = []
    picked: dict[tuple[tuple[int, ...], ...], np.ndarray] = {}
    for singles in range(0, n - len(sizes) + 1):
        for columns in _column_vectors(scales.class_sizes, len(sizes) + singles):
            core_columns, single_columns = columns[: len(sizes)], columns[len(sizes):]
            if list(single_columns) == sorted(single_columns, reverse=True):
                if single_columns not in picked:
                    picked[single_columns] = _singleton_tuples(scales.k, single_columns)
                shares.append((core_columns, single_columns, picked[single_columns]))
    for start in range(0, len(cores), _CHUNK):
        chunk = _Chunk(scales, cores[start: start + _CHUNK], sizes, matrix[start: start + _CHUNK],
                       pseudo_inverse[start: start + _CHUNK], exact_only[start: start + _CHUNK])
        found = sorted((c, j, m) for j, (core_columns, single_columns, picks) in enumerate(shares)
                       for c, m in chunk.candidates(core_columns, single_columns, picks))
        solver = None
        for c, j, m in found:  # by core, so that each core's solver is made once
            core_columns, single_columns, picks = shares[j]
            if solver is None or solver.key != chunk.cores[c].tobytes():
                solver = _CoreSolver(scales, chunk.cores[c], sizes)
            _decide(scales, solver, chunk.cores[c], sizes, core_columns, picks[m], single_columns, result, tally)


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


class _Chunk:
    """Cores processed together in floats, with what every column vector reuses: D⁺·Φᵀ (how each
    scale's share moves x) and, below n − 1 differences, N·Φᵀ with N = I − D·D⁺ (how it moves the
    part of the residue that no x reaches), each as 2-D arrays (cores × scales) per coordinate, so
    that the candidates are tested coordinate by coordinate on cores × singleton tuples."""

    def __init__(self, scales: _Scales, cores: np.ndarray, sizes: Sequence[int], matrix: np.ndarray,
                 pseudo_inverse: np.ndarray, exact_only: np.ndarray) -> None:
        self.scales, self.cores, self.sizes, self.exact_only = scales, cores, tuple(sizes), exact_only
        self.pseudo_inverse = pseudo_inverse
        phi, n = scales.floats, scales.n
        self.first = np.cumsum((0,) + self.sizes)[:-1]
        self.d = sum(self.sizes) - len(self.sizes)
        through = np.matmul(pseudo_inverse, phi.T)  # cores × d × scales
        self.through = [np.ascontiguousarray(through[:, q, :]) for q in range(self.d)]
        self.spanning = self.d == n - 1  # n − 1 independent differences span z·x = 0, where every residue lies
        if not self.spanning:
            unreached = phi.T[None, :, :] - np.matmul(matrix, through)  # cores × n × scales
            self.unreached = [np.ascontiguousarray(unreached[:, r, :]) for r in range(n)]
            self.projector = np.eye(n)[None, :, :] - np.matmul(matrix, pseudo_inverse)
        bits = np.left_shift(1, cores)
        self.core_bits = np.bitwise_or.reduce(bits, axis=1) if cores.shape[1] else np.zeros(len(cores), np.int64)

    def candidates(self, core_columns: Sequence[tuple[int, ...]], single_columns: Sequence[tuple[int, ...]],
                   picks: np.ndarray) -> list[tuple[int, int]]:
        """(core, singleton tuple) pairs that floats cannot rule out (every pair of an `exact_only` core)."""
        scales, n, phi, cores = self.scales, self.scales.n, self.scales.floats, self.cores
        core_shares = [scales.share_float(v) for v in core_columns]
        single_shares = [scales.share_float(v) for v in single_columns]
        target = np.ones((len(cores), n))
        for a, c in enumerate(core_shares):
            target -= c * phi[cores[:, self.first[a]]]
        pick_bits = np.zeros(len(picks), dtype=np.int64)
        for b in range(len(single_columns)):
            pick_bits |= np.left_shift(1, picks[:, b])
        free = (self.core_bits[:, None] & pick_bits[None, :]) == 0
        x_core = np.matmul(self.pseudo_inverse, target[:, :, None])[:, :, 0]  # cores × d
        if self.spanning:
            tested = free
            x = [self._moved(x_core[:, q], self.through[q], single_shares, picks) for q in range(self.d)]
        else:  # a core of fewer than n − 1 differences reaches only some residues: those first
            left = np.matmul(self.projector, target[:, :, None])[:, :, 0]  # cores × n
            worst = np.zeros(free.shape)
            for r in range(n):
                worst = np.maximum(worst, np.abs(self._moved(left[:, r], self.unreached[r], single_shares, picks)))
            tested = free & (worst < _RESIDUAL)
            at_core, at_pick = np.nonzero(tested)
            x = [x_core[at_core, q] - sum((s * self.through[q][at_core, picks[at_pick, b]]
                                           for b, s in enumerate(single_shares)), np.zeros(len(at_core)))
                 for q in range(self.d)]
        smallest = np.full(tested.shape if self.spanning else at_core.shape, np.inf)
        at = 0
        for a, size in enumerate(self.sizes):
            part = x[at: at + size - 1]
            at += size - 1
            smallest = np.minimum(smallest, core_shares[a] - sum(part, np.zeros(smallest.shape)))
            for value in part:
                smallest = np.minimum(smallest, value)
        if self.spanning:
            alive = tested & (smallest > _NEGATIVE)
        else:
            alive = np.zeros(free.shape, dtype=bool)
            alive[at_core[smallest > _NEGATIVE], at_pick[smallest > _NEGATIVE]] = True
        alive |= free & self.exact_only[:, None]
        return list(zip(*(axis.tolist() for axis in np.nonzero(alive)), strict=True))

    @staticmethod
    def _moved(start: np.ndarray, per_scale: np.ndarray, single_shares: Sequence[float],
               picks: np.ndarray) -> np.ndarray:
        """start − Σ_b share_b · per_scale[:, pick_b], cores × singleton tuples."""
        moved = np.repeat(start[:, None], len(picks), axis=1)
        for b, s in enumerate(single_shares):
            moved -= s * per_scale[:, picks[:, b]]
        return moved


class _CoreSolver:
    """One core's exact answers to each piece of a residue r = 1 − Σ_t s_t·Φ_{i_t}: with D (n × d,
    independent) and d of its rows R where D_R is invertible, y_1 = D_R⁻¹·1_R and y_i = D_R⁻¹·Φ_i,R
    (scale i; made when first asked for), so that x = y_1 − Σ_t s_t·y_{i_t}. Below n − 1 differences
    r may lie outside D's span: then also the misses m_1 = D·y_1 − 1 and m_i = D·y_i − Φ_i, and r is
    reached exactly when m_1 − Σ_t s_t·m_{i_t} = 0. (With n − 1 differences D spans z·x = 0, where
    every residue lies: z·1 = Σ_j z_j = 1 = z·Φ_i and Σ_t s_t = 1.)"""

    def __init__(self, scales: _Scales, core: np.ndarray, sizes: Sequence[int]) -> None:
        self.key = core.tobytes()
        self.phi = scales.exact
        self.vectors = _exact_differences(scales, core, sizes)
        d, n = len(self.vectors), scales.n
        self.spanning = d == n - 1
        self.rows: list[int] = []
        self.inverse = flint.fmpq_mat(0, 0)
        if d:
            reduced, rank = flint.fmpq_mat(self.vectors).rref()  # d × n, rank d: a pivot per difference
            self.rows = [next(c for c in range(n) if reduced[r, c] != 0) for r in range(rank)]
            self.inverse = flint.fmpq_mat(d, d, [self.vectors[q][r] for r in self.rows for q in range(d)]).inv()
        self._pieces: dict[int, tuple[list[flint.fmpq], list[flint.fmpq]]] = {}
        self.one = self._piece([flint.fmpq(1)] * n)

    def _piece(self, column: list[flint.fmpq]) -> tuple[list[flint.fmpq], list[flint.fmpq]]:
        """(D_R⁻¹·column_R, D·that − column): the answer to one piece and what it misses."""
        d = len(self.vectors)
        y = list((self.inverse * flint.fmpq_mat(d, 1, [column[r] for r in self.rows])).entries()) if d else []
        if self.spanning:
            return y, []
        return y, [sum((y[q] * self.vectors[q][r] for q in range(d)), flint.fmpq(0)) - column[r]
                   for r in range(len(column))]

    def piece(self, scale: int) -> tuple[list[flint.fmpq], list[flint.fmpq]]:
        if scale not in self._pieces:
            self._pieces[scale] = self._piece(self.phi[scale])
        return self._pieces[scale]

    def solve(self, terms: Sequence[tuple[flint.fmpq, int]]) -> list[flint.fmpq] | None:
        """x with Σ_q x_q·D_q = 1 − Σ_t s_t·Φ_{i_t} for terms (s_t, i_t), or None when there is none."""
        x, miss = list(self.one[0]), list(self.one[1])
        for share, scale in terms:
            y, m = self.piece(scale)
            x = [a - share * b for a, b in zip(x, y, strict=True)]
            miss = [a - share * b for a, b in zip(miss, m, strict=True)]
        return None if any(miss) else x


def _decide(scales: _Scales, solver: _CoreSolver, core: np.ndarray, sizes: Sequence[int],
            core_columns: Sequence[tuple[int, ...]], singles: np.ndarray, single_columns: Sequence[tuple[int, ...]],
            result: RFCount, tally: list[int]) -> None:
    """Exactly: solve the row sums u of this set of components; if all are positive, count its
    positive spanning trees and add its vertices."""
    result.decided_exactly += 1
    share = [scales.share(v) for v in core_columns]
    terms = [(share[a], int(core[sum(sizes[:a])])) for a in range(len(sizes))]
    terms += [(scales.share(v), i) for i, v in zip(singles.tolist(), single_columns, strict=True)]
    x = solver.solve(terms)
    if x is None:
        return
    product, at = 1, 0
    for a, size in enumerate(sizes):
        part = x[at: at + size - 1]
        at += size - 1
        u = [share[a] - sum(part, flint.fmpq(0))] + part
        if min(u) <= 0:
            return
        if sum(core_columns[a]) > 1:
            product *= scales.trees(size, core_columns[a]).positive(u)
            if product == 0:
                return
    ways = scales.ways(tuple(core_columns) + tuple(single_columns))
    result.structures += 1
    result.vertices += ways * product
    tally[1] += 1
    tally[2] += ways * product
