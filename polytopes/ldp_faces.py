"""ex(D) from the faces of the column cone: the vertices of Holohan et al.'s local-DP polytope D as
sets of faces, up to symmetry, without a tangent cone (issue 33: the census at n = 6).

D = {Q ∈ ℝ^{n×n} : every row sums to 1, every column lies in C_ε}, with the cone
C_ε = {v : v_i ≤ e^ε·v_j for all i, j} (which implies v ≥ 0). So D is a product of cones cut by an
affine space, and its vertices follow from the faces of C_ε:

* **The faces of C_ε** are {0}, C_ε itself, and for disjoint non-empty H, L ⊆ {0..n−1} the face
  F(H, L) = {v ∈ C_ε : v_i = e^ε·t on H, v_j = t on L}: the column's maximum sits on H, its minimum
  on L, and the other entries M ("loose", strictly between in the relative interior) are free. Its
  dimension is 1 + |M|, its linear span lin F(H, L) = span(e^ε·1_H + 1_L, e_m for m ∈ M).
* **The vertex criterion.** A point of a polyhedral cone K cut by an affine space A is a vertex iff
  the linear span of its minimal face meets A − A only in 0. For D: Q is a vertex iff its non-zero
  columns lie in the relative interiors of faces F_1, ..., F_m of C_ε whose spans are independent
  ((d_k) ↦ Σ d_k is injective on ⊕ lin F_k; so the faces are distinct and Σ dim F_k ≤ n). The
  columns are then the unique solution of Σ c_k = 1 with c_k ∈ lin F_k.

So the vertices are enumerated as **face sets**: for every multiset of dimensions with sum at most
n, the sets of distinct faces of those dimensions whose spans are independent, whose solution
exists, and lies in the relative interiors (c_k = a·(e^ε·1_H + 1_L) + Σ b_m·e_m with a > 0 and
a < b_m < e^ε·a). Each face set gives n!/(n − m)! vertices (its m columns placed among the n
outputs; distinct faces give distinct columns). The row permutations act on face sets (H, L ↦ σH,
σL), the column permutations are absorbed by the set: the face sets are generated with the first
face of largest dimension fixed to one representative of its orbit (every orbit of face sets is
reached: map one of its largest faces to its representative), and the sets found are reduced to
canonical forms under all n! row permutations, which also give each orbit's stabiliser.

Exact throughout, and vectorised: with e^ε = p/q the generators are scaled to integers (p·1_H +
q·1_L, and e_m), each candidate's determinant and Cramer numerators are computed by fraction-free
Gaussian elimination (Bareiss) in 64-bit integers over a whole batch at once (numpy), and the
relative-interior conditions are compared as integers. No float decides anything. The minors stay
below Hadamard's bound, so e^ε's numerator is limited (:func:`largest_numerator`: p ≤ 13 at n = 6)
and larger ones are refused rather than risk an overflow. The interior of C_ε (dimension n) only
ever stands alone: the constant mechanisms.

The method is independent of the tangent-cone walk (:mod:`polytopes.orbitwise`): at n = 4 and 5 it
gives exactly the census files' orbits (``results/``), which the tests check orbit by orbit.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.hrep import key_point
from polytopes.orbitwise import Orbit, OrbitEnumeration, orbit_forms
from polytopes.spaces import ldp_polytope
from qifkit.errors import InternalError, ParameterError, ShapeError
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["Face", "FaceSetOrbit", "cone_faces", "face_set_orbits", "ldp_orbits_by_faces", "largest_numerator",
           "FACES_MAX_N"]


#: Largest n taken: the face sets of n = 6 are about 36.6 million candidates (minutes); at n = 7 the
#: all-ray candidates alone are 2.8·10^10, about 950 times n = 6's.
FACES_MAX_N = 6

#: Candidates decided together.
_BATCH = 100_000

#: Candidates of one task at most: the all-ray face sets of n = 6 (about 30 million) become 10
#: tasks, so that two workers share the work evenly.
_TASK = 3_000_000


def largest_numerator(n: int) -> int:
    """The largest numerator p of e^ε = p/q for which every minor of an n × n generator matrix (entries
    0, 1, q < p and p), and every product of two of them in the elimination, stays within 64-bit
    integers: 2·H² < 2^62 with Hadamard's bound H = (p·√n)^n.

    Examples
    --------
    >>> largest_numerator(5), largest_numerator(6)
    (30, 13)
    """
    p = 1
    while 2 * ((p + 1) ** 2 * n) ** n < 2**62:
        p += 1
    return p


@dataclass(frozen=True)
class Face:
    """A face F(H, L) of C_ε (bit masks of H and L over the n coordinates); H = L = 0 is C_ε itself."""

    high: int
    low: int
    n: int

    @property
    def loose(self) -> tuple[int, ...]:
        """The coordinates M, free in the face (strictly between minimum and maximum inside it)."""
        return tuple(i for i in range(self.n) if not (self.high | self.low) >> i & 1)

    @property
    def dimension(self) -> int:
        return self.n if self.high == 0 else 1 + len(self.loose)

    def generators(self, p: int, q: int) -> list[list[int]]:
        """lin F as n × dimension integer columns, for e^ε = p/q: p·1_H + q·1_L (q times e^ε·1_H + 1_L),
        then e_m for each loose m (C_ε itself: the unit vectors)."""
        if self.high == 0:
            return [[int(i == j) for j in range(self.n)] for i in range(self.n)]
        first = [p if self.high >> i & 1 else (q if self.low >> i & 1 else 0) for i in range(self.n)]
        loose = self.loose
        return [[first[i], *(int(i == m) for m in loose)] for i in range(self.n)]

    def permuted(self, order: tuple[int, ...]) -> Face:
        """The face under the row permutation i ↦ order[i]."""
        def image(mask: int) -> int:
            return sum(1 << order[i] for i in range(self.n) if mask >> i & 1)
        return Face(image(self.high), image(self.low), self.n)


def cone_faces(n: int) -> list[Face]:
    """The faces of C_ε other than {0}: every F(H, L), by dimension then masks, and C_ε last.

    Examples
    --------
    >>> [sum(1 for f in cone_faces(4) if f.dimension == d) for d in range(1, 5)]
    [14, 24, 12, 1]
    """
    faces = [Face(high, low, n) for high in range(1, 1 << n) for low in range(1, 1 << n) if not high & low]
    return sorted(faces, key=lambda f: (f.dimension, f.high, f.low)) + [Face(0, 0, n)]


@dataclass(frozen=True)
class FaceSetOrbit:
    """One orbit of vertices of D under row × column permutations, from its face set.

    Attributes
    ----------
    faces : tuple of Face
        The canonical face set (least under the row permutations).
    key : tuple of int
        Its faces' positions in :func:`cone_faces`.
    columns : tuple of tuple of Fraction
        The vertex's non-zero columns, one per face (exact).
    stabiliser : int
        Row permutations that map the face set to itself.
    size : int
        Vertices in the orbit: n!/stabiliser face sets, each placed among the outputs in n!/(n − m)! ways.
    loose : int
        Loose entries (strictly between their column's minimum and maximum): Holohan et al.'s |λ|;
        n for the constant mechanisms.
    """

    faces: tuple[Face, ...]
    key: tuple[int, ...]
    columns: tuple[tuple[Fraction, ...], ...]
    stabiliser: int
    size: int
    loose: int

    def matrix(self) -> tuple[tuple[Fraction, ...], ...]:
        """A vertex of the orbit: the columns in the first outputs, zero columns after."""
        n = self.faces[0].n
        zero = Fraction(0)
        return tuple(tuple(self.columns[k][i] if k < len(self.columns) else zero for k in range(n)) for i in range(n))


def face_set_orbits(n: int, eps_exp: Any, client: Any = None) -> list[FaceSetOrbit]:
    """Every orbit of ex(D) (Holohan et al.'s local-DP polytope, n inputs and outputs) at e^ε, from
    the face sets of C_ε (see the module docstring), ordered by their canonical faces.

    The work is split into tasks, by multiset of dimensions, representative of its largest face,
    and ranges of at most :data:`_TASK` candidates (:func:`_task_keys`; 102 at n = 6); with a Dask
    `client` they run on its workers (keyed by the task, so a task Dask runs twice is merged once),
    submitted largest first so that the workers finish together, else here, one after the other.

    Raises
    ------
    ShapeError
        n outside 2..:data:`FACES_MAX_N`.
    QifError
        e^ε not an exact number above 1, or its numerator above :func:`largest_numerator`.

    Examples
    --------
    >>> orbits = face_set_orbits(3, 2)
    >>> len(orbits), sum(o.size for o in orbits)
    (4, 33)
    """
    whole_number(n, 2, "n")
    if n > FACES_MAX_N:
        raise ShapeError(f"n = {n}: face sets are enumerated up to n = {FACES_MAX_N} (n = 7's all-ray candidates "
                         "alone are about 950 times n = 6's)")
    e = eps_exp_above_one(eps_exp)
    p, q = e.numerator, e.denominator
    if p > largest_numerator(n):
        raise ParameterError(f"e^ε = {e}: face sets at n = {n} take numerators up to {largest_numerator(n)} (64-bit "
                             "exact elimination); the orbit walk (polytopes.orbitwise) takes any e^ε")
    faces, images = _faces_and_images(n)
    tasks = [(n, p, q, dims, leader, start, min(start + _TASK, total))
             for dims in _dimension_multisets(n) for leader in _leaders(n, dims[0])
             for total in [_candidate_count(n, dims, leader)] for start in range(0, total, _TASK)]
    if client is None:
        found = [_task_keys(*task) for task in tasks]
    else:
        from qifkit.cluster import task_key

        largest_first = sorted(tasks, key=lambda task: task[-2] - task[-1])  # Dask runs them in this order
        futures = [client.submit(_task_keys, *task, key=task_key("face-sets", *task), pure=False)
                   for task in largest_first]
        found = client.gather(futures)
    keys = set().union(*found)
    blocks = _blocks(n, p, q)
    return sorted((_orbit(key, faces, blocks, images) for key in [(len(faces) - 1,), *map(_unpacked, keys)]),
                  key=lambda orbit: orbit.key)


@functools.lru_cache(maxsize=8)
def _faces_and_images(n: int) -> tuple[list[Face], np.ndarray]:
    """The faces of C_ε and, for each row permutation, the index of each face's image (cached: a
    worker process computes them once)."""
    faces = cone_faces(n)
    index_of = {face: k for k, face in enumerate(faces)}
    images = np.array([[index_of[face.permuted(order)] for face in faces]
                       for order in itertools.permutations(range(n))], dtype=np.int64)
    return faces, images


@functools.lru_cache(maxsize=8)
def _blocks(n: int, p: int, q: int) -> dict[int, np.ndarray]:
    """For each dimension d, every face's integer generators (n × d; zeros for faces of another
    dimension), so that a batch of face sets indexes them at once."""
    faces, _ = _faces_and_images(n)
    return {d: np.array([face.generators(p, q) if face.dimension == d else [[0] * d] * n for face in faces],
                        dtype=np.int64) for d in range(1, n + 1)}


def _leaders(n: int, dimension: int) -> list[int]:
    """The representative (least index) of each orbit of faces of this dimension."""
    faces, images = _faces_and_images(n)
    return sorted({int(images[:, k].min()) for k, face in enumerate(faces[:-1]) if face.dimension == dimension})


def _task_keys(n: int, p: int, q: int, dims: tuple[int, ...], leader: int, start: int, stop: int) -> set[int]:
    """One task: the packed canonical keys of the vertex face sets of dimensions `dims` whose first
    face is `leader`, among the candidates start..stop − 1 (:func:`_candidate_sets`)."""
    faces, images = _faces_and_images(n)
    blocks = _blocks(n, p, q)
    keys: set[int] = set()
    for candidates in _candidate_sets(dims, leader, _by_dimension(n), start, stop):
        keys.update(np.unique(_canonical_keys(candidates[_vertex_sets(candidates, dims, blocks, p, q)], images))
                    .tolist())
    return keys


def ldp_orbits_by_faces(n: int, eps_exp: Any, client: Any = None) -> OrbitEnumeration:
    """The orbits of ex(D) from the face sets (:func:`face_set_orbits`), in the form of the orbit
    walk's answer (:func:`polytopes.orbitwise.enumerate_orbits`): each representative is the
    canonical form of its vertex under the row × column permutations, and each orbit's size is
    counted twice, from the face set (n!/stabiliser · n!/(n − m)!) and from the matrix's own
    stabiliser, which must agree. No adjacency (no tangent cone is computed); no neighbours. With
    a Dask `client`, the face sets' tasks run on its workers.

    Raises
    ------
    InternalError
        If the two orbit sizes, or two orbits' canonical forms, ever disagree.
    """
    begin = time.perf_counter()
    polytope = ldp_polytope(n, eps_exp=eps_exp)
    forms = orbit_forms(polytope)
    orbits = []
    for orbit in face_set_orbits(n, eps_exp, client):
        form = forms.canonical(tuple(v for row in orbit.matrix() for v in row))
        if forms.orbit_size(form) != orbit.size:
            raise InternalError(f"the face set {orbit.key} counts {orbit.size} vertices, its matrix's stabiliser "
                                f"{forms.orbit_size(form)}")
        orbits.append(Orbit(key_point(form), orbit.size))
    if len({orbit.representative for orbit in orbits}) != len(orbits):
        raise InternalError("two face-set orbits have one canonical matrix")  # pragma: no cover
    return OrbitEnumeration(polytope, tuple(orbits), forms.order, 0, time.perf_counter() - begin)


def _vertex_sets(candidates: np.ndarray, dims: tuple[int, ...], blocks: dict[int, np.ndarray], p: int, q: int
                 ) -> np.ndarray:
    """Which candidate face sets (rows of face indices, of dimensions `dims`) are vertices: spans
    independent, Σ c_k = 1 solvable, every column in its face's relative interior; exactly."""
    g = np.concatenate([blocks[d][candidates[:, s]] for s, d in enumerate(dims)], axis=2)  # (N, n, width)
    solved, numerators, determinant = _integer_solutions(g)
    sign = np.sign(determinant)
    keep = solved
    offset = 0
    for d in dims:
        a = numerators[:, offset] * sign
        keep &= a > 0
        for j in range(1, d):
            b = numerators[:, offset + j] * sign
            keep &= (b > q * a) & (b < p * a)  # e^ε·t > b > t with t = q·a (the generator is q·(e^ε·1_H + 1_L))
        offset += d
    return keep


def _integer_solutions(g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a batch of integer n × k matrices G (k ≤ n), whether G has rank k and G·x = 1 has its
    (then unique) solution, with x = numerators / determinant exactly: on the first k rows whose
    minor is not zero (all n rows when k = n), by :func:`_cramer`; every row then checked in
    integers."""
    count, n, k = g.shape
    if k == n:
        square = g
    else:
        chosen = np.zeros(count, dtype=bool)
        rows = np.zeros((count, k), dtype=np.int64)
        for subset in itertools.combinations(range(n), k):
            fresh = ~chosen & (_determinants(g[:, subset, :]) != 0)
            rows[fresh] = subset
            chosen |= fresh
        square = np.take_along_axis(g, rows[:, :, None], axis=1)  # (N, k, k)
    determinant, numerators = _cramer(square)
    solved = (determinant != 0) & np.all(np.einsum("nik,nk->ni", g, numerators) == determinant[:, None], axis=1)
    return solved, numerators, determinant


def _cramer(square: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a batch of regular or singular integer k × k matrices M: d and integers X with M·X = d·1
    (d = ± det M, 0 when singular), by one fraction-free elimination of [M | 1] (Bareiss) and
    fraction-free back substitution (d·x_i are integers, each division exact)."""
    count, k, _ = square.shape
    augmented = np.concatenate([square, np.ones((count, k, 1), dtype=np.int64)], axis=2)
    upper, singular, _ = _eliminated(augmented, k)
    d = np.where(singular, 0, upper[:, k - 1, k - 1])
    safe = np.where(singular, 1, d)
    numerators = np.zeros((count, k), dtype=np.int64)
    for i in range(k - 1, -1, -1):
        total = safe * upper[:, i, k] - np.einsum("nj,nj->n", upper[:, i, i + 1:k], numerators[:, i + 1:])
        numerators[:, i] = total // np.where(singular, 1, upper[:, i, i])
    numerators[singular] = 0
    return d, numerators


def _determinants(m: np.ndarray) -> np.ndarray:
    """Exact determinants of a batch of small integer square matrices (:func:`_eliminated`)."""
    k = m.shape[1]
    upper, singular, sign = _eliminated(m, k)
    return np.where(singular, 0, sign * upper[:, k - 1, k - 1])


def _eliminated(m: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fraction-free elimination (Bareiss) of a batch of integer k × w matrices (w ≥ k) on their first
    k columns, with row exchanges, in int64: the upper triangular result (its entry (k−1, k−1) is
    ± the determinant of the first k columns; every entry a minor, every division exact), which
    matrices are singular there, and the exchanges' signs."""
    a = m.astype(np.int64, copy=True)
    count = a.shape[0]
    everyone = np.arange(count)
    sign = np.ones(count, dtype=np.int64)
    previous = np.ones(count, dtype=np.int64)
    singular = np.zeros(count, dtype=bool)
    for c in range(k):
        nonzero = a[:, c:k, c] != 0
        singular |= ~nonzero.any(axis=1)
        r = c + nonzero.argmax(axis=1)
        swap = everyone[~singular & (r != c)]
        if len(swap):
            top = a[swap, c].copy()
            a[swap, c] = a[swap, r[swap]]
            a[swap, r[swap]] = top
            sign[swap] = -sign[swap]
        pivot = np.where(singular, 1, a[:, c, c])
        if c + 1 < k:
            a[:, c + 1:k, c + 1:] = (a[:, c + 1:k, c + 1:] * pivot[:, None, None]
                                     - a[:, c + 1:k, c:c + 1] * a[:, c:c + 1, c + 1:]) // previous[:, None, None]
        previous = pivot
    return a, singular, sign


def _orbit(key: tuple[int, ...], faces: list[Face], blocks: dict[int, np.ndarray], images: np.ndarray
           ) -> FaceSetOrbit:
    """The orbit of a canonical face set that is a vertex: its exact columns, stabiliser and size."""
    n = faces[0].n
    dims = [faces[k].dimension for k in key]
    g = np.concatenate([blocks[d][[k]] for k, d in zip(key, dims, strict=True)], axis=2)
    solved, numerators, determinant = _integer_solutions(g)
    if not solved[0]:  # pragma: no cover - the same exact test decided it a vertex
        raise InternalError(f"the face set {key} was a vertex and is no longer")
    columns, offset = [], 0
    for d in dims:
        block = g[0, :, offset:offset + d]
        column = block @ numerators[0, offset:offset + d]
        columns.append(tuple(Fraction(int(v), int(determinant[0])) for v in column))
        offset += d
    stabiliser = int(np.all(np.sort(images[:, list(key)], axis=1) == np.array(key), axis=1).sum())
    size = math.factorial(n) // stabiliser * (math.factorial(n) // math.factorial(n - len(key)))
    loose = sum(n if faces[k].high == 0 else len(faces[k].loose) for k in key)
    return FaceSetOrbit(tuple(faces[k] for k in key), key, tuple(columns), stabiliser, size, loose)


#: Bits of a face index in a packed key (n = 6 has 603 faces); a key holds up to 6 of them.
_BITS = 10


def _canonical_keys(face_sets: np.ndarray, images: np.ndarray) -> np.ndarray:
    """For each face set (a row of face indices), its canonical form packed in one integer: the
    least, over the row permutations, of its sorted image read as base-2^10 digits (sets of one
    size compare as their sorted tuples); the set's size is the number of digits."""
    if len(face_sets) == 0:
        return np.zeros(0, dtype=np.int64)
    mapped = np.sort(images[:, face_sets], axis=2)  # (orders, sets, m)
    packed = np.zeros(mapped.shape[:2], dtype=np.int64)
    for s in range(mapped.shape[2]):
        packed = (packed << _BITS) | mapped[:, :, s]
    size = np.int64(face_sets.shape[1]) << np.int64(6 * _BITS)
    return packed.min(axis=0) | size


def _unpacked(key: int) -> tuple[int, ...]:
    """The sorted face indices of a packed canonical key."""
    size = key >> (6 * _BITS)
    digits = key & ((1 << (6 * _BITS)) - 1)
    return tuple((digits >> (_BITS * (size - 1 - s))) & ((1 << _BITS) - 1) for s in range(size))


def _dimension_multisets(n: int) -> Iterator[tuple[int, ...]]:
    """The dimensions of a face set, non-increasing, each below n, summing to at most n (the interior
    C_ε, of dimension n, stands alone and is added separately)."""
    def below(limit: int, left: int) -> Iterator[tuple[int, ...]]:
        for d in range(min(limit, left), 0, -1):
            yield (d,)
            for rest in below(d, left - d):
                yield (d, *rest)
    return (dims for dims in below(n - 1, n) if len(dims) <= n)


def _by_dimension(n: int) -> dict[int, list[int]]:
    """The faces' indices by dimension (C_ε itself left out)."""
    faces, _ = _faces_and_images(n)
    by_dimension: dict[int, list[int]] = {}
    for index, face in enumerate(faces[:-1]):
        by_dimension.setdefault(face.dimension, []).append(index)
    return by_dimension


def _groups(dims: tuple[int, ...]) -> list[tuple[int, int]]:
    """The dimensions after the first, as (dimension, how many), largest first."""
    return [(d, sum(1 for x in dims[1:] if x == d)) for d in sorted(set(dims[1:]), reverse=True)]


def _candidate_count(n: int, dims: tuple[int, ...], leader: int) -> int:
    """How many face sets :func:`_candidate_sets` generates for these dimensions and first face."""
    by_dimension = _by_dimension(n)
    return math.prod(math.comb(len(by_dimension[d]) - (d == dims[0]), count) for d, count in _groups(dims))


def _candidate_sets(dims: tuple[int, ...], leader: int, by_dimension: dict[int, list[int]], first: int, stop: int
                    ) -> Iterator[np.ndarray]:
    """Arrays of face sets (one row each, face indices in the order of `dims`) whose first face is
    `leader` (the representative of its orbit) and whose other faces are any distinct others of
    their dimensions: those numbered first..stop − 1 in a fixed order, in batches of :data:`_BATCH`."""
    groups = _groups(dims)
    pools = [[k for k in by_dimension[d] if k != leader] for d, _ in groups]
    parts = [np.array(list(itertools.combinations(pool, count)), dtype=np.int64).reshape(-1, count)
             for pool, (_, count) in zip(pools, groups, strict=True)]
    if any(len(part) == 0 for part in parts):
        return
    sizes = [len(part) for part in parts]
    for start in range(first, stop, _BATCH):
        flat = np.arange(start, min(start + _BATCH, stop), dtype=np.int64)
        columns = [np.full((len(flat), 1), leader, dtype=np.int64)]
        for part, size, later in zip(parts, sizes, [math.prod(sizes[j + 1:]) for j in range(len(sizes))],
                                     strict=True):
            columns.append(part[(flat // later) % size])
        yield np.concatenate(columns, axis=1)
