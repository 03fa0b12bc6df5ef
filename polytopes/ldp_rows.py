"""ex(D) from tight and loose rows: a second enumeration of the local-DP polytope's vertices up to
symmetry, independent of the face sets of :mod:`polytopes.ldp_faces` (issue 55: completeness argued
twice).

D = {Q ∈ ℝ^{n×n} : every row sums to 1, Q[i, k] ≤ e^ε·Q[j, k] for all i, j, k}. A column that is not 0
has all its entries positive; write a_k for its least entry. The characterisation used here (proved in
``docs/enumerate.md``, "Why both enumerations are complete") reads a vertex by its **rows**:

* the constant mechanism (one column of ones) is a vertex, and the only one with fewer than two
  non-zero columns;
* otherwise Q, with non-zero columns k = 1..m (m ≥ 2), is a vertex exactly when

  1. every row has at most one **loose** entry (strictly between a_k and e^ε·a_k in its column);
     the other rows are **tight**: each entry a_k or e^ε·a_k, so the row is a pattern p ∈ {1, e^ε}^m
     with p·a = 1,
  2. the tight rows' patterns have rank m.

(Then every column reaches e^ε·a_k: tight patterns with p·a = 1, a > 0 and a constant column have
rank below m.) So a = B⁻¹·1 for m independent tight patterns B, and the vertices are enumerated from
the scale vectors a: every antichain of m patterns (tight patterns of one a > 0 never contain one
another's e^ε-columns), one per orbit of the column permutations (orderly generation: a canonical
antichain without its largest pattern is one), solved exactly (python-flint's rational matrices),
kept when a > 0; for each distinct a (sorted), the tight patterns with p·a = 1 and the loose rows (a
pattern on the other columns and the entry 1 − Σ that must lie strictly between a_k and e^ε·a_k) are
listed, and every multiset of n rows with tight rank m is a vertex (tried only from pairs of first
tight rows that can begin the least multiset of its orbit under the column permutations fixing a:
:func:`_pieces`). With m = n every row is tight, so the rows are the set B itself, and a vertex's
orbit is B's orbit under the column permutations: one vertex per set with a > 0. A vertex's
canonical form under the row × column permutations (:func:`polytopes.orbitwise.orbit_forms`, shared
with every census) names its orbit.

Nothing here solves the face sets' systems Σ c_k = 1 over the spans of faces of C_ε, and nothing is
rounded: the two enumerations share only D's definition and the canonical forms, so their agreement
orbit by orbit (``tests/test_ldp_rows.py``, at n = 4, 5, 6 and five e^ε) argues completeness twice.
At n = 7, which the face sets do not reach, the rows give the census alone (40,581 orbits at
e^ε = 2, about 35 seconds in one process). With a Dask client the antichains' generation and the
vertices run as tasks on its workers (:mod:`qifkit.cluster`).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from polytopes.hrep import Polytope, key_point
from polytopes.orbitwise import Orbit, OrbitEnumeration, orbit_forms
from polytopes.spaces import ldp_polytope
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["ROWS_MAX_N", "ldp_orbits_by_rows", "pattern_sets", "scale_vectors"]

#: Largest n taken: the antichains of m patterns up to the column permutations are 1,661 at m = 6
#: and 253,104 at m = 7 (found among 364,245 candidates, each tested against 5,040 permutations,
#: once per process).
ROWS_MAX_N = 7

#: Canonical sets whose children are tested for canonical form at once, as children × |S_m| words
#: of 64 bits each half: few enough that the words stay in cache.
_PARENTS = 4

#: Tasks a level of the generation is cut into (on Dask): enough that two workers share every level
#: evenly, few enough that the scheduler's work per task stays small.
_LEVEL_TASKS = 32

Row = tuple[Fraction, ...]


def pattern_sets(m: int) -> tuple[tuple[int, ...], ...]:
    """Every **antichain** of m patterns in {1, e^ε}^m (no pattern's e^ε-columns contain another's),
    one per orbit of the m! column permutations (kept for the next call: they do not depend on e^ε).

    Only antichains can be tight rows of one vertex: if pattern y has e^ε wherever x has it and
    more, then p_y·a − p_x·a = (e^ε − 1)·Σ_{k in y but not x} a_k > 0 for a > 0, so p_x·a and p_y·a are not
    both 1. (At m = 6 this leaves 1,661 of the 143,325 sets of six patterns; at m = 7, 253,104 of
    about 1.9·10^7.)

    A pattern is a bit mask (bit k set: e^ε in column k); a set is a sorted tuple, and the one kept
    per orbit is the lexicographically least image. Built by orderly generation: an antichain that
    is its own least image stays an antichain and its own least image without its largest pattern,
    so only such sets are extended, by larger patterns comparable to none of theirs. A set's images
    are compared as 2^m-bit words (two 64-bit halves) with pattern x at bit 2^m − 1 − x, where the
    least sorted tuple is the largest word.

    Examples
    --------
    >>> pattern_sets(2)
    ((1, 2),)
    >>> len(pattern_sets(1)), len(pattern_sets(3))
    (2, 2)
    """
    return _pattern_sets(whole_number(m, 1, "the number of columns m", maximum=ROWS_MAX_N))


@functools.lru_cache(maxsize=None)
def _pattern_sets(m: int) -> tuple[tuple[int, ...], ...]:
    return _generated(m, lambda chunks: [_canonical_children(m, chunk) for chunk in chunks])


def _generated(m: int, extend: Callable[[list[np.ndarray]], list[np.ndarray]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(x) for x in chosen) for chosen in _generated_array(m, extend))


def _generated_array(m: int, extend: Callable[[list[np.ndarray]], list[np.ndarray]]) -> np.ndarray:
    """The orderly generation, level by level: each level's canonical sets, cut into about
    :data:`_LEVEL_TASKS` parts, are extended by `extend` (here, or as tasks on Dask workers), in
    order; one set a row."""
    level = np.zeros((1, 0), dtype=np.intp)
    for _ in range(m):
        step = -(-len(level) // _LEVEL_TASKS)
        level = np.concatenate(extend([level[start:start + step] for start in range(0, len(level), step)]))
    return level


@functools.lru_cache(maxsize=None)
def _images(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every pattern, its bit in the high and low 64-bit halves of its image's word under each
    column permutation (the identity first; one row a pattern, so that a pattern's bits are read
    together); and which pairs of patterns are apart (neither's e^ε-columns inside the other's).
    Cached: a worker process builds them once."""
    size = 1 << m
    orders = list(itertools.permutations(range(m)))
    image = np.array([[sum(1 << order[i] for i in range(m) if x >> i & 1) for x in range(size)] for order in orders])
    bit = size - 1 - image  # pattern x's bit in the word of its image; bits 64.. in the high half
    one = np.uint64(1)
    high = np.where(bit >= 64, np.left_shift(one, np.maximum(bit - 64, 0).astype(np.uint64)), np.uint64(0))
    low = np.where(bit < 64, np.left_shift(one, np.minimum(bit, 63).astype(np.uint64)), np.uint64(0))
    patterns = np.arange(size)
    within = (patterns[:, None] & patterns[None, :]) == patterns[:, None]  # x's e^ε-columns inside y's
    apart = ~(within | within.T)
    return np.ascontiguousarray(high.T), np.ascontiguousarray(low.T), apart


def _canonical_children(m: int, parents: np.ndarray) -> np.ndarray:
    """The canonical antichains that extend canonical antichains `parents` (one per row, all of one
    size) by one larger pattern apart from each of theirs: one step of the generation, one task;
    the parents taken :data:`_PARENTS` at a time."""
    return np.concatenate([_children_of_few(m, parents[start:start + _PARENTS])
                           for start in range(0, len(parents), _PARENTS)])


def _children_of_few(m: int, parents: np.ndarray) -> np.ndarray:
    high, low, apart = _images(m)
    patterns = np.arange(1 << m)
    allowed = apart[parents].all(axis=1) & (patterns > (parents[:, -1:] if parents.shape[1] else -1))
    which, larger = np.nonzero(allowed)  # each child: its parent's row and its new, larger pattern
    # a child's image is its parent's image and one more pattern: two ORs instead of one a pattern
    words_high = np.bitwise_or.reduce(high[parents], axis=1)[which] | high[larger]  # a child a row
    words_low = np.bitwise_or.reduce(low[parents], axis=1)[which] | low[larger]
    tied = words_high == words_high[:, :1]
    least = (words_high.max(axis=1) == words_high[:, 0]) & (
        np.where(tied, words_low, np.uint64(0)).max(axis=1) == words_low[:, 0])
    result: np.ndarray = np.column_stack([parents[which], larger])[least]
    return result


def _scales(patterns: tuple[int, ...] | list[int], e: Fraction) -> tuple[Fraction, ...] | None:
    """The a with p·a = 1 for each of m patterns (m columns), exactly; None if they are dependent."""
    m = len(patterns)
    p, q = e.numerator, e.denominator  # the system times q: entries p (e^ε) or q (1), right-hand side q
    entries = [p if x >> k & 1 else q for x in patterns for k in range(m)]
    try:
        solution = flint.fmpq_mat(m, m, entries).solve(flint.fmpq_mat(m, 1, [q] * m))
    except ZeroDivisionError:  # singular
        return None
    return tuple(Fraction(int(v.p), int(v.q)) for v in solution.entries())


def scale_vectors(m: int, e: Fraction) -> list[tuple[Fraction, ...]]:
    """Every column scale a > 0 (sorted) that m independent tight patterns fix: a = B⁻¹·1, exactly.

    Examples
    --------
    >>> scale_vectors(2, Fraction(2))
    [(Fraction(1, 3), Fraction(1, 3))]
    """
    found = set()
    for chosen in pattern_sets(m):
        a = _scales(chosen, e)
        if a is not None and min(a) > 0:
            found.add(tuple(sorted(a)))
    return sorted(found)


def _full_support(chosen_sets: Sequence[tuple[int, ...]], e: Fraction) -> Iterator[tuple[Row, ...]]:
    """The vertices with no zero column, one per orbit: all n rows are tight, so the rows are n
    independent patterns, and a vertex's orbit is its pattern set's orbit under the column
    permutations; kept when a > 0."""
    for chosen in chosen_sets:
        a = _scales(chosen, e)
        if a is not None and min(a) > 0:
            n = len(chosen)
            yield tuple(tuple((e if x >> k & 1 else 1) * a[k] for k in range(n)) for x in chosen)


@functools.lru_cache(maxsize=256)
def _rows_of(a: tuple[Fraction, ...], e: Fraction) -> tuple[list[int], list[Row]]:
    """The rows a vertex with column scales a may have: the tight patterns (p·a = 1), and the loose
    rows (one entry strictly between a_k and e^ε·a_k, the others a_j or e^ε·a_j)."""
    m = len(a)
    tight = [x for x in range(1 << m) if sum((e if x >> k & 1 else 1) * a[k] for k in range(m)) == 1]
    loose = []
    for k in range(m):
        for x in range(1 << m):
            if x >> k & 1:
                continue  # the loose column's bit is not read: each pattern of the others once
            entries = [(e if x >> j & 1 else 1) * a[j] for j in range(m)]
            entries[k] = 1 - (sum(entries) - entries[k])
            if a[k] < entries[k] < e * a[k]:
                loose.append(tuple(entries))
    return tight, loose


def _vertices_with_scales(a: tuple[Fraction, ...], n: int, e: Fraction, first: int,
                          second: int) -> Iterator[tuple[Row, ...]]:
    """The vertices with non-zero columns of least entries a whose two first tight rows (in the
    order of :func:`_rows_of`) are its tight patterns `first` ≤ `second`, each as a sorted tuple
    of its n rows (its m non-zero columns only): tight rows of rank m, at most one loose entry a
    row. Over the pairs of :func:`_pieces`, every vertex with scales a once."""
    m = len(a)
    tight, loose = _rows_of(a, e)
    ranks: dict[frozenset[int], int] = {}
    for count in range(m, n + 1):
        for rest in itertools.combinations_with_replacement(tight[second:], count - 2):
            chosen = (tight[first], tight[second], *rest)
            support = frozenset(chosen)
            if support not in ranks:
                entries = [e.numerator if x >> k & 1 else e.denominator for x in support for k in range(m)]
                ranks[support] = flint.fmpz_mat(len(support), m, entries).rank()
            if ranks[support] < m:
                continue
            fixed = [tuple((e if x >> k & 1 else 1) * a[k] for k in range(m)) for x in chosen]
            for extra in itertools.combinations_with_replacement(loose, n - count):
                yield tuple(sorted(fixed + list(extra)))


def _multisets(kinds: int, size: int) -> int:
    """How many multisets of `size` elements `kinds` kinds make."""
    return 1 if size == 0 else math.comb(kinds + size - 1, size)


def _pieces(m: int, n: int, e: Fraction) -> list[tuple[int, tuple[tuple[Fraction, ...], int, int]]]:
    """The vertices with m < n non-zero columns cut into pieces (a, first, second) for
    :func:`_vertices_with_scales`, each with its work: the multisets of rows it tries. One scale
    vector can hold most of the work (at n = 7, the a = 1/9 of m = 6 has 20 tight patterns and
    657,800 multisets), so its pieces, not the scale vectors, are what tasks share out.

    Only pieces that can begin a least multiset of its orbit are kept. The column permutations G_a
    that fix a map the tight patterns among themselves and a vertex to one of its orbit; in the
    orbit of a multiset of tight patterns take the least (as sorted tuples of their indices): no
    image of its first pattern is smaller (else an image of the multiset would begin lower), and
    no image of its second under the g ∈ G_a fixing the first is (else that image would be less).
    So `first` least in its G_a-orbit and `second` least in its orbit under first's stabiliser
    (the 1/9 above: 4 pieces of 210)."""
    found = []
    for a in scale_vectors(m, e):
        tight, loose = _rows_of(a, e)
        symmetries = [g for g in itertools.permutations(range(m)) if all(a[g[k]] == a[k] for k in range(m))]
        for first, x in enumerate(tight):
            if any(_moved(x, g) < x for g in symmetries):
                continue
            fixing = [g for g in symmetries if _moved(x, g) == x]
            for second in range(first, len(tight)):
                if any(_moved(tight[second], g) < tight[second] for g in fixing):
                    continue
                work = sum(_multisets(len(tight) - second, count - 2) * _multisets(len(loose), n - count)
                           for count in range(m, n + 1))
                found.append((work, (a, first, second)))
    return found


def _moved(pattern: int, order: Sequence[int]) -> int:
    """A pattern's image under a column permutation: bit k moved to bit order[k]."""
    return sum(1 << target for source, target in enumerate(order) if pattern >> source & 1)


def _shares(pieces: list[tuple[int, Any]]) -> list[tuple[int, tuple[Any, ...]]]:
    """Consecutive pieces dealt into about :data:`_TASKS_PER_SUPPORT` shares of equal work (a
    piece heavier than a share stands alone), each with its work."""
    target = max(1, sum(work for work, _ in pieces) // _TASKS_PER_SUPPORT)
    shares: list[tuple[int, list[Any]]] = []
    for work, piece in pieces:
        if not shares or shares[-1][0] >= target:
            shares.append((0, []))
        shares[-1] = (shares[-1][0] + work, shares[-1][1] + [piece])
    return [(work, tuple(share)) for work, share in shares]


def ldp_orbits_by_rows(n: int, eps_exp: Any, *, largest_support: int | None = None,
                       client: Any = None) -> OrbitEnumeration:
    """The orbits of ex(D) from tight and loose rows (see the module docstring), in the form of the
    orbit walk's answer: each representative the canonical form of its vertex under the row ×
    column permutations, each size |G| / |Stab|. No adjacency, no neighbours.

    Parameters
    ----------
    n : int
        D's size, 2..ROWS_MAX_N.
    eps_exp : number or str
        e^ε > 1, exact.
    largest_support : int, optional
        Only the vertices with at most this many non-zero columns (all of them by default): the
        vertices of D's faces with the other columns zero, complete for those.
    client : distributed.Client, optional
        Run the work on its workers: the generation of the antichains of n patterns (by chunks of
        :data:`_PARENTS` canonical sets a level) and the vertices (by chunks of pattern sets or
        scale vectors), each task keyed by its exact inputs; without one, everything runs here.

    Raises
    ------
    ShapeError
        If n is not a whole number 2..ROWS_MAX_N, or the largest support is not 1..n.
    PrivacyParameterError
        If e^ε is not above 1.

    Examples
    --------
    >>> found = ldp_orbits_by_rows(3, 2)
    >>> len(found.orbits), sum(orbit.size for orbit in found.orbits)
    (4, 33)
    """
    n = whole_number(n, 2, "n", maximum=ROWS_MAX_N)
    support = whole_number(n if largest_support is None else largest_support, 1,
                           f"the largest support (n = {n})", maximum=n)
    e = eps_exp_above_one(eps_exp)
    begin = time.perf_counter()
    polytope, forms = _forms(n, e.numerator, e.denominator)
    constant = forms.canonical(tuple(Fraction(1) if k == 0 else Fraction(0) for _ in range(n) for k in range(n)))

    def tasks(m: int, items: Sequence[Any]) -> list[tuple[int, int, int, int, tuple[Any, ...]]]:
        step = max(1, -(-len(items) // _TASKS_PER_SUPPORT))
        return [(n, e.numerator, e.denominator, m, tuple(items[start:start + step]))
                for start in range(0, len(items), step)]

    shares = [(work, m, share) for m in range(2, min(support, n - 1) + 1) for work, share in _shares(_pieces(m, n, e))]
    shares.sort(key=lambda share: -share[0])  # the heaviest first, so that the workers finish together
    smaller = [(n, e.numerator, e.denominator, m, share) for _, m, share in shares]
    if client is None:
        found = [_vertex_keys(*task) for task in smaller + (tasks(n, pattern_sets(n)) if support == n else [])]
    else:
        from qifkit.cluster import task_key

        def submitted(chosen: list[tuple[Any, ...]]) -> list[Any]:
            return [client.submit(_vertex_keys, *task, key=task_key("ldp-rows", *task), pure=False) for task in chosen]

        futures = submitted(smaller)  # they run while the antichains of n patterns are generated
        if support == n:  # the antichains go to the workers as arrays, keyed by their bytes
            level = _generated_array(n, _on(client, n))
            step = max(1, -(-len(level) // _TASKS_PER_SUPPORT))
            futures += [client.submit(_vertex_keys, n, e.numerator, e.denominator, n, level[start:start + step],
                                      key=task_key("ldp-rows", n, e.numerator, e.denominator, n,
                                                   level[start:start + step].tobytes()), pure=False)
                        for start in range(0, len(level), step)]
        found = client.gather(futures)
    sizes = {constant: forms.orbit_size(constant)}
    for part in found:
        sizes.update(((row[0], tuple(row[2:])), row[1]) for row in part.tolist())
    orbits = tuple(Orbit(key_point(form), sizes[form]) for form in sorted(sizes))
    return OrbitEnumeration(polytope, orbits, forms.order, 0, time.perf_counter() - begin)


#: Vertex tasks per number of non-zero columns: about this many chunks of pattern sets (m = n) or
#: shares of pieces (m < n, :func:`_shares`); small enough that two workers finish together.
_TASKS_PER_SUPPORT = 64


@functools.lru_cache(maxsize=8)
def _forms(n: int, p: int, q: int) -> tuple[Polytope, Any]:
    """D at n and e^ε = p/q, and its canonical forms (cached: a worker process builds them once)."""
    polytope = ldp_polytope(n, eps_exp=Fraction(p, q))
    return polytope, orbit_forms(polytope)


def _vertex_keys(n: int, p: int, q: int, m: int, items: Sequence[Any]) -> np.ndarray:
    """One task: the canonical forms of the vertices with m non-zero columns from `items`, the
    antichains of n patterns (m = n: tuples, or the rows of an array) or the pieces
    (a, first, second) of :func:`_pieces` (m < n), each with its orbit's size: one row a form,
    (denominator, size, numerators...), as 64-bit integers where they fit (an array moves
    between Dask processes about 30 times faster than a dict of tuples) and Python's otherwise."""
    e, (_, forms) = Fraction(p, q), _forms(n, p, q)
    if isinstance(items, np.ndarray):
        items = [tuple(int(x) for x in chosen) for chosen in items]
    found = set(_full_support(items, e)) if m == n else {
        rows for a, first, second in items for rows in _vertices_with_scales(a, n, e, first, second)}
    keys = {forms.canonical(tuple(v for r in rows for v in (*r, *[Fraction(0)] * (n - m)))) for rows in found}
    rows = [(key[0], forms.orbit_size(key), *key[1]) for key in keys]
    wide = any(abs(v) >= 1 << 62 for row in rows for v in row)
    return np.array(rows, dtype=object if wide else np.int64).reshape(len(rows), 2 + n * n)


def _on(client: Any, m: int) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
    """The generation's step on a Dask client: one task a chunk of canonical sets, keyed by its bytes."""
    from qifkit.cluster import task_key

    def extend(chunks: list[np.ndarray]) -> list[np.ndarray]:
        return list(client.gather([client.submit(_canonical_children, m, chunk, pure=False,
                                                 key=task_key("antichains", m, chunk.shape, chunk.tobytes()))
                                   for chunk in chunks]))

    return extend
