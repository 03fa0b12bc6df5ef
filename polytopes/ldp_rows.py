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

(Then every column reaches e^ε·a_k: tight patterns with p·a = 1, a > 0 and a constant column
have rank below m.) So a = B⁻¹·1 for m independent tight patterns B, and the vertices are
enumerated from the scale vectors a: every antichain of m patterns (tight patterns of one a > 0
never contain one another's e^ε-columns), one per orbit of the column permutations (orderly
generation: a canonical antichain without its largest pattern is one), solved exactly
(python-flint's rational matrices), kept when a > 0; for each distinct a (sorted), the tight
patterns with p·a = 1 and the loose rows (a pattern on the other columns and the entry 1 − Σ that
must lie strictly between a_k and e^ε·a_k) are listed, and every multiset of n rows with tight rank
m is a vertex. With m = n every row is tight, so the rows are the set B itself, and a
vertex's orbit is B's orbit under the column permutations: one vertex per set with a > 0. A vertex's
canonical form under the row × column permutations (:func:`polytopes.orbitwise.orbit_forms`, shared
with every census) names its orbit.

Nothing here solves the face sets' systems Σ c_k = 1 over the spans of faces of C_ε, and nothing is
rounded: the two enumerations share only D's definition and the canonical forms, so their agreement
orbit by orbit (``tests/test_ldp_rows.py``, at n = 4, 5, 6 and five e^ε) argues completeness twice.
At n = 7, which the face sets do not reach, the rows give the census alone (40,581 orbits at
e^ε = 2, about two minutes in one process). With a Dask client the antichains' generation and the
vertices run as tasks on its workers (:mod:`qifkit.cluster`).
"""

from __future__ import annotations

import functools
import itertools
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
#: and 253,104 at m = 7 (found among 364,245 candidates, each tested against 5,040 permutations:
#: about 40 s, once per process).
ROWS_MAX_N = 7

#: Canonical sets extended together: their children (about 7 each at m = 7) are tested for canonical
#: form at once, as |S_m| × children words of 64 bits each half (about 9 MB each at m = 7). Small
#: enough that the last level (1,661 parents at m = 7) makes 52 tasks, which two workers share
#: evenly (256 made 7: n = 7 on two workers 72.3 s, with 32: 67.9 s).
_PARENTS = 32

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
    """The orderly generation, level by level: each level's canonical sets, in chunks of
    :data:`_PARENTS`, are extended by `extend` (here, or as tasks on Dask workers), in order; one
    set a row."""
    level = np.zeros((1, 0), dtype=np.intp)
    for _ in range(m):
        level = np.concatenate(extend([level[start:start + _PARENTS] for start in range(0, len(level), _PARENTS)]))
    return level


@functools.lru_cache(maxsize=None)
def _images(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every column permutation (the identity first), each pattern's bit in the high and low
    64-bit halves of its image's word; and which pairs of patterns are apart (neither's e^ε-columns
    inside the other's). Cached: a worker process builds them once."""
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
    return high, low, apart


def _canonical_children(m: int, parents: np.ndarray) -> np.ndarray:
    """The canonical antichains that extend canonical antichains `parents` (one per row, all of one
    size) by one larger pattern apart from each of theirs: one step of the generation, one task."""
    high, low, apart = _images(m)
    patterns = np.arange(1 << m)
    allowed = apart[parents].all(axis=1) & (patterns > (parents[:, -1:] if parents.shape[1] else -1))
    which, larger = np.nonzero(allowed)  # each child: its parent's row and its new, larger pattern
    # a child's image is its parent's image and one more pattern: two ORs instead of one a pattern
    words_high = np.bitwise_or.reduce(high[:, parents], axis=2)[:, which] | high[:, larger]
    words_low = np.bitwise_or.reduce(low[:, parents], axis=2)[:, which] | low[:, larger]
    tied = words_high == words_high[0]
    least = (words_high.max(axis=0) == words_high[0]) & (
        np.where(tied, words_low, np.uint64(0)).max(axis=0) == words_low[0])
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


def _vertices_with_scales(a: tuple[Fraction, ...], n: int, e: Fraction) -> Iterator[tuple[Row, ...]]:
    """Every vertex with non-zero columns of least entries a, as a sorted tuple of its n rows (its
    m non-zero columns only): tight rows of rank m, at most one loose entry a row."""
    m = len(a)
    tight, loose = _rows_of(a, e)
    ranks: dict[frozenset[int], int] = {}
    for count in range(m, n + 1):
        for chosen in itertools.combinations_with_replacement(tight, count):
            support = frozenset(chosen)
            if support not in ranks:
                entries = [e.numerator if x >> k & 1 else e.denominator for x in support for k in range(m)]
                ranks[support] = flint.fmpz_mat(len(support), m, entries).rank()
            if ranks[support] < m:
                continue
            fixed = [tuple((e if x >> k & 1 else 1) * a[k] for k in range(m)) for x in chosen]
            for extra in itertools.combinations_with_replacement(loose, n - count):
                yield tuple(sorted(fixed + list(extra)))


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

    smaller = [task for m in range(2, min(support, n - 1) + 1) for task in tasks(m, scale_vectors(m, e))]
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
        sizes.update(part)
    orbits = tuple(Orbit(key_point(form), sizes[form]) for form in sorted(sizes))
    return OrbitEnumeration(polytope, orbits, forms.order, 0, time.perf_counter() - begin)


#: Vertex tasks per number of non-zero columns: about this many chunks of pattern sets (m = n) or
#: scale vectors (m < n); small enough that two workers finish together.
_TASKS_PER_SUPPORT = 256


@functools.lru_cache(maxsize=8)
def _forms(n: int, p: int, q: int) -> tuple[Polytope, Any]:
    """D at n and e^ε = p/q, and its canonical forms (cached: a worker process builds them once)."""
    polytope = ldp_polytope(n, eps_exp=Fraction(p, q))
    return polytope, orbit_forms(polytope)


def _vertex_keys(n: int, p: int, q: int, m: int, items: Sequence[Any]) -> dict[Any, int]:
    """One task: the canonical forms of the vertices with m non-zero columns from `items`, the
    antichains of n patterns (m = n: tuples, or the rows of an array) or the scale vectors a
    (m < n), each with its orbit's size."""
    e, (_, forms) = Fraction(p, q), _forms(n, p, q)
    if isinstance(items, np.ndarray):
        items = [tuple(int(x) for x in chosen) for chosen in items]
    found = set(_full_support(items, e)) if m == n else {
        rows for a in items for rows in _vertices_with_scales(a, n, e)}
    keys = {forms.canonical(tuple(v for r in rows for v in (*r, *[Fraction(0)] * (n - m)))) for rows in found}
    return {key: forms.orbit_size(key) for key in keys}


def _on(client: Any, m: int) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
    """The generation's step on a Dask client: one task a chunk of canonical sets, keyed by its bytes."""
    from qifkit.cluster import task_key

    def extend(chunks: list[np.ndarray]) -> list[np.ndarray]:
        return list(client.gather([client.submit(_canonical_children, m, chunk, pure=False,
                                                 key=task_key("antichains", m, chunk.shape, chunk.tobytes()))
                                   for chunk in chunks]))

    return extend
