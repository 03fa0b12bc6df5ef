"""Vertex enumeration up to symmetry by adjacency decomposition (exact).

One vertex per orbit of the polytope's symmetry group, found the way the field's symmetric
enumerators do it (adjacency decomposition: SymPol, polyhedral_common): start from one vertex,
list the neighbours of each new orbit representative (:func:`polytopes.adjacency.neighbours`,
tangent-cone rays in cddlib GMP and an exact ratio test), put each neighbour in canonical form and
keep the forms not seen before. The graph of a polytope is connected, so when no representative
has a neighbour of an unseen orbit, every orbit has been found: completeness is the stopping rule,
not an extra step. The total is Σ |G| / |Stab(v)| (orbit–stabiliser), without listing the orbits.

Canonical forms: for the row × column permutations of an n×m matrix (the local-DP polytope D,
Holohan et al. Thm. 3), the least matrix with rows sorted (row permutations are absorbed by
sorting) over the column orders that sort the columns by their multisets of entries, an invariant
of row permutations (all m! orders only when every column has the same multiset); for other groups (the reversal of U, F, R_U, R_F), the
least image over the group's elements.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from polytopes.adjacency import group_elements, neighbours
from polytopes.hrep import IntegerKey, Polytope, integer_key, key_point, permuted
from polytopes.lp import exact_minimum
from polytopes.spaces import row_column_symmetries

__all__ = ["Orbit", "OrbitEnumeration", "enumerate_orbits"]

Point = tuple[Fraction, ...]


@dataclass(frozen=True)
class Orbit:
    """One orbit: its canonical representative and its size |G| / |Stab|."""

    representative: Point
    size: int


@dataclass(frozen=True)
class OrbitEnumeration:
    """The orbits of a polytope's vertices, complete by adjacency closure.

    Attributes
    ----------
    polytope : Polytope
    orbits : tuple of Orbit
        In the order found.
    group_order : int
        |G|.
    neighbours : int
        Neighbours computed (one tangent cone per orbit).
    seconds : float
    """

    polytope: Polytope
    orbits: tuple[Orbit, ...]
    group_order: int
    neighbours: int
    seconds: float

    @property
    def count(self) -> int:
        """The number of vertices, Σ of the orbit sizes."""
        return sum(orbit.size for orbit in self.orbits)


Key = IntegerKey  # Fractions compare slowly


class _RowColumnForms:
    """Canonical forms and orbit sizes under all row × column permutations of a rows×columns matrix."""

    def __init__(self, rows: int, columns: int) -> None:
        self.rows, self.columns = rows, columns
        self.column_orders = list(itertools.permutations(range(columns)))
        self.order = math.factorial(rows) * math.factorial(columns)

    def _sorted(self, entries: tuple[int, ...], order: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        width = self.columns
        return tuple(sorted(tuple(entries[i * width + j] for j in order) for i in range(self.rows)))

    def _candidate_orders(self, entries: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """The column orders that sort the columns by their multisets of entries (an invariant of
        row permutations), trying every order only within columns of equal multisets."""
        width = self.columns
        invariant = [tuple(sorted(entries[i * width + j] for i in range(self.rows))) for j in range(width)]
        ranked = sorted(range(width), key=invariant.__getitem__)
        ties = [list(group) for _, group in itertools.groupby(ranked, key=invariant.__getitem__)]
        for choice in itertools.product(*(itertools.permutations(tie) for tie in ties)):
            yield tuple(j for part in choice for j in part)

    def canonical(self, point: Point) -> Key:
        denominator, entries = integer_key(point)
        best = min(self._sorted(entries, order) for order in self._candidate_orders(entries))
        return denominator, tuple(v for row in best for v in row)

    def orbit_size(self, key: Key) -> int:
        entries = key[1]
        own = self._sorted(entries, range(self.columns))
        row_repeats = math.prod(math.factorial(len(list(group))) for _, group in itertools.groupby(own))
        fixing = sum(1 for order in self.column_orders if self._sorted(entries, order) == own)
        return self.order // (fixing * row_repeats)


class _ElementForms:
    """Canonical forms and orbit sizes from the list of the group's elements (small groups)."""

    def __init__(self, generators: Sequence[Sequence[int]], size: int) -> None:
        self.elements = group_elements(generators, size)
        self.order = len(self.elements)

    def canonical(self, point: Point) -> Key:
        denominator, entries = integer_key(point)
        return denominator, min(permuted(entries, g) for g in self.elements)

    def orbit_size(self, key: Key) -> int:
        return self.order // sum(1 for g in self.elements if permuted(key[1], g) == key[1])


def _forms(polytope: Polytope) -> _RowColumnForms | _ElementForms:
    rows, columns = polytope.shape
    if polytope.symmetries and tuple(polytope.symmetries) == row_column_symmetries(rows, columns):
        return _RowColumnForms(rows, columns)
    return _ElementForms(polytope.symmetries, polytope.dimension_of_space)


def _first_vertex(polytope: Polytope) -> Point:
    """A vertex: the exact minimiser of a generic linear objective (1, 2, 4, ... scaled)."""
    d = polytope.dimension_of_space
    objective = [Fraction(1, 2**k) for k in range(d)]
    return tuple(exact_minimum(polytope, objective).point)


def _neighbour_forms(polytope: Polytope, representative: Key, cone_method: str) -> tuple[int, frozenset[Key]]:
    """The number of neighbours of an orbit representative and their canonical forms: one
    independent unit of work (a task on a Dask worker, or a step of the serial walk)."""
    forms = _forms(polytope)
    around = neighbours(polytope, key_point(representative), cone_method)  # raises unless it is a vertex
    return len(around), frozenset(forms.canonical(point) for point in around)


def enumerate_orbits(polytope: Polytope, start: Point | None = None,
                     progress: Callable[[str], None] | None = None, cone_method: str = "cdd",
                     client: Any = None) -> OrbitEnumeration:
    """One representative per orbit of the vertices of `polytope`, complete by adjacency closure.

    Parameters
    ----------
    polytope : Polytope
        A bounded polytope with its symmetry generators (none: every orbit is one vertex).
    start : point, optional
        A vertex to start from; by default the exact minimiser of a generic objective.
    progress : callable, optional
        Called with a line after each representative.
    cone_method : {"cdd", "normaliz"}
        Who finds the edges at a vertex (:func:`polytopes.adjacency.edge_directions`).
    client : distributed.Client, optional
        Run each representative's neighbourhood as a Dask task (:func:`qifkit.cluster.dask_client`),
        keyed by the polytope and the representative's canonical form, most tight constraints (the
        largest tangent cones) first; a task run twice is merged once. By default, in this process.

    Returns
    -------
    OrbitEnumeration
        Its ``count`` is the number of vertices (orbit–stabiliser).
    """
    begin = time.perf_counter()
    forms = _forms(polytope)
    first = forms.canonical(start if start is not None else _first_vertex(polytope))
    found = {first: forms.orbit_size(first)}
    computed = 0

    def merge(around: frozenset[Key]) -> list[Key]:
        new = [form for form in sorted(around) if form not in found]
        for form in new:
            found[form] = forms.orbit_size(form)
        return new

    def say(waiting: int) -> None:
        if progress:
            progress(f"{len(found)} orbits found, {waiting} to visit ({time.perf_counter() - begin:.1f} s)")

    if client is None:
        queue = [first]
        while queue:
            count, around = _neighbour_forms(polytope, queue.pop(), cone_method)
            computed += count
            queue.extend(merge(around))
            say(len(queue))
    else:
        computed = _walk_on_dask(client, polytope, first, cone_method, merge, say)
    orbits = tuple(Orbit(key_point(form), size) for form, size in found.items())
    return OrbitEnumeration(polytope, orbits, forms.order, computed, time.perf_counter() - begin)


def _walk_on_dask(client: Any, polytope: Polytope, first: Key, cone_method: str,
                  merge: Callable[[frozenset[Key]], list[Key]], say: Callable[[int], None]) -> int:
    """The adjacency walk with every representative's neighbourhood a Dask task; returns the
    number of neighbours computed."""
    from distributed import as_completed

    from qifkit.cluster import task_key

    problem = task_key("polytope", polytope.name, polytope.inequalities, polytope.equalities, polytope.symmetries,
                       cone_method)
    shared = client.scatter(polytope, broadcast=True, hash=False)

    def submit(form: Key) -> Any:
        return client.submit(_neighbour_forms, shared, form, cone_method, key=task_key("orbit-neighbours", problem, form),
                             priority=len(polytope.tight(key_point(form))))

    running = as_completed([submit(first)])
    computed = 0
    for future in running:
        count, around = future.result()
        computed += count
        for form in merge(around):
            running.add(submit(form))
        say(running.count())
    return computed
