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
of row permutations (all m! orders only when every column has the same multiset); for other
groups (the reversal of U, F, R_U, R_F), the least image over the group's elements.

The walk runs in this process or on Dask (one task per representative, :mod:`qifkit.cluster`), and
keeps what it found in a resume folder when given one (:mod:`polytopes.resume`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.adjacency import group_elements, neighbours
from polytopes.decomposition import Checkpoint, Recursion, SubgroupForms, edges_up_to_symmetry, row_column_stabiliser
from polytopes.hrep import IntegerKey, Polytope, integer_key, key_point, permuted
from polytopes.lp import exact_minimum
from polytopes.resume import ResumeFolder, ResumeMismatchError
from polytopes.spaces import row_column_symmetries
from qifkit.cluster import RESUBMISSIONS, task_key
from qifkit.errors import ClusterError
from qifkit.files import read_json

__all__ = ["Orbit", "OrbitEnumeration", "enumerate_orbits", "orbit_forms"]

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
    adjacency : tuple of frozenset of int
        For each orbit (by position in `orbits`), the orbits that hold a neighbour of its
        representative: the graph of the polytope, quotiented by the group.
    recalled : int
        Neighbourhoods taken from a resume folder: checked as written (canonical forms of vertices),
        not recomputed, so a form left out of one is not seen.
    """

    polytope: Polytope
    orbits: tuple[Orbit, ...]
    group_order: int
    neighbours: int
    seconds: float
    adjacency: tuple[frozenset[int], ...] = ()
    recalled: int = 0

    @property
    def count(self) -> int:
        """The number of vertices, Σ of the orbit sizes."""
        return sum(orbit.size for orbit in self.orbits)


Key = IntegerKey  # Fractions compare slowly


class _RowColumnForms:
    """Canonical forms and orbit sizes under all row × column permutations of a rows×columns matrix."""

    def __init__(self, rows: int, columns: int) -> None:
        self.rows, self.columns = rows, columns
        self.order = math.factorial(rows) * math.factorial(columns)

    def _sorted(self, entries: tuple[int, ...], order: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        width = self.columns
        return tuple(sorted(tuple(entries[i * width + j] for j in order) for i in range(self.rows)))

    def _ties(self, entries: tuple[int, ...]) -> list[list[int]]:
        """The columns grouped by their multisets of entries (an invariant of row permutations),
        the groups in the order of their multisets."""
        width = self.columns
        invariant = [tuple(sorted(entries[i * width + j] for i in range(self.rows))) for j in range(width)]
        ranked = sorted(range(width), key=invariant.__getitem__)
        return [list(group) for _, group in itertools.groupby(ranked, key=invariant.__getitem__)]

    def _candidate_orders(self, entries: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """The column orders that sort the columns by their multisets of entries, trying every
        order only within columns of equal multisets."""
        for choice in itertools.product(*(itertools.permutations(tie) for tie in self._ties(entries))):
            yield tuple(j for part in choice for j in part)

    def _multiset_preserving_orders(self, entries: tuple[int, ...]) -> Iterator[list[int]]:
        """The column orders that put at every place a column of the same multiset: the only ones
        that can fix the matrix up to its rows' order."""
        ties = self._ties(entries)
        for choice in itertools.product(*(itertools.permutations(tie) for tie in ties)):
            order = list(range(self.columns))
            for tie, image in zip(ties, choice, strict=True):
                for place, column in zip(tie, image, strict=True):
                    order[place] = column
            yield order

    def canonical(self, point: Point) -> Key:
        denominator, entries = integer_key(point)
        best = min(self._sorted(entries, order) for order in self._candidate_orders(entries))
        return denominator, tuple(v for row in best for v in row)

    def orbit_size(self, key: Key) -> int:
        entries = key[1]
        own = self._sorted(entries, range(self.columns))
        row_repeats = math.prod(math.factorial(len(list(group))) for _, group in itertools.groupby(own))
        fixing = sum(1 for order in self._multiset_preserving_orders(entries) if self._sorted(entries, order) == own)
        return self.order // (fixing * row_repeats)

    def stabiliser(self, key: Key) -> SubgroupForms:
        """The row × column permutations fixing the point `key`, as a list of elements."""
        return row_column_stabiliser(key, self.rows, self.columns)


class _ElementForms:
    """Canonical forms and orbit sizes from the list of the group's elements (small groups)."""

    def __init__(self, generators: Sequence[Sequence[int]], size: int) -> None:
        self.elements = group_elements(generators, size)
        self.order = len(self.elements)

    def canonical(self, point: Point) -> Key:
        denominator, entries = integer_key(point)
        return denominator, min(permuted(entries, g) for g in self.elements)

    def orbit_size(self, key: Key) -> int:
        return self.order // self.stabiliser(key).order

    def stabiliser(self, key: Key) -> SubgroupForms:
        """The elements fixing the point `key` (closed under inverses: the same set in either
        convention of :mod:`polytopes.decomposition`)."""
        return SubgroupForms(np.array([g for g in self.elements if permuted(key[1], g) == key[1]], dtype=np.intp))


def orbit_forms(polytope: Polytope) -> _RowColumnForms | _ElementForms:
    """The canonical forms of the polytope's symmetry group: ``canonical(point)``,
    ``orbit_size(form)`` and the group's ``order``."""
    rows, columns = polytope.shape
    if polytope.symmetries and tuple(polytope.symmetries) == row_column_symmetries(rows, columns):
        return _RowColumnForms(rows, columns)
    return _ElementForms(polytope.symmetries, polytope.dimension_of_space)


def _first_vertex(polytope: Polytope) -> Point:
    """A vertex: the exact minimiser of a generic linear objective (1, 2, 4, ... scaled)."""
    d = polytope.dimension_of_space
    objective = [Fraction(1, 2**k) for k in range(d)]
    return exact_minimum(polytope, objective).optimum()[1]


Neighbourhood = tuple[Key, int, frozenset[Key]]  # a representative, its neighbours' number and canonical forms


def _neighbour_forms(polytope: Polytope, representative: Key, cone_method: str,
                     recursion: Recursion | None = None, progress: Callable[[str], None] | None = None,
                     checkpoint: Checkpoint | None = None, spread: bool = False) -> Neighbourhood:
    """The number of neighbours of an orbit representative and their canonical forms: one
    independent unit of work (a task on a Dask worker, or a step of the serial walk). With a
    `recursion` rule, one neighbour per orbit of the representative's stabiliser on its edges
    (:func:`polytopes.decomposition.edges_up_to_symmetry`): the same canonical forms; `spread` (on
    a worker) makes a decomposed cone's visits tasks of their own."""
    forms = orbit_forms(polytope)
    point = key_point(representative)
    if recursion is None:
        around = neighbours(polytope, point, cone_method)  # raises unless it is a vertex
        return representative, len(around), frozenset(forms.canonical(other) for other in around)
    some, edges = edges_up_to_symmetry(polytope, point, forms.stabiliser(representative), recursion, cone_method,
                                       progress, checkpoint, spread)
    return representative, edges, frozenset(forms.canonical(other) for other in some)


class _Store:
    """The neighbourhoods already computed, kept in a resume folder (:class:`polytopes.resume.ResumeFolder`),
    one file per representative named by a digest of its canonical form.

    A neighbourhood read back is re-verified, not trusted for its hash (which a folder made wrong
    and consistent passes): its representative and every form it lists must be canonical forms of
    vertices of this polytope (exact rank of the tight rows), and it must list at least one
    neighbour and no more forms than neighbours (a vertex of a polytope with two or more vertices
    has an edge). A neighbourhood that fails is refused, naming its file. Forms left out of a
    stored neighbourhood cannot be seen short of recomputing it; the walk's closure still visits
    every orbit that another neighbourhood reaches."""

    def __init__(self, polytope: Polytope, forms: _RowColumnForms | _ElementForms, folder: str | None,
                 say: Callable[[str], None]) -> None:
        self.polytope = polytope
        self.forms = forms
        self.verified: set[Key] = set()  # forms already found canonical vertices: each is checked once
        self.recalled = 0  # neighbourhoods taken from the folder (checked as written, not recomputed)
        self.dimension = polytope.dimension_of_space
        self.folder = None
        if folder is not None:
            h_representation = hashlib.sha256(polytope.to_ine().encode("utf-8")).hexdigest()
            problem = {"polytope": polytope.name, "shape": list(polytope.shape), "eps_exp": str(polytope.eps_exp),
                       "method": "orbits", "h_representation_sha256": h_representation}
            self.folder = ResumeFolder(folder, problem, say)
        self.say = say

    @staticmethod
    def _name(form: Key) -> str:
        return f"{task_key('orbit', form)}.json"

    def _key(self, value: Any) -> Key:
        denominator, numerators = value
        if (not isinstance(denominator, int) or isinstance(denominator, bool) or denominator < 1
                or not isinstance(numerators, list) or len(numerators) != self.dimension
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in numerators)):
            raise ValueError("not a point over a common denominator")
        return denominator, tuple(numerators)

    def recall(self, form: Key) -> Neighbourhood | None:
        """The stored neighbourhood of `form`, if the folder vouches for one that parses."""
        if self.folder is None:
            return None
        name = self._name(form)
        data = self.folder.read(name)
        if data is None:
            return None
        try:
            document = read_json(data)
            if self._key(document["representative"]) != form:
                raise ValueError("another representative")
            count = document["neighbours"]
            if not isinstance(count, int) or count < 0:
                raise ValueError("a bad number of neighbours")
            around = frozenset(self._key(value) for value in document["forms"])
        except (ValueError, KeyError, TypeError) as error:
            self.say(f"{self.folder.path / name}: does not parse ({error}); recomputed")
            return None
        self._verify(form, count, around, self.folder.path / name)
        self.recalled += 1
        return form, count, around

    def _verify(self, form: Key, count: int, around: frozenset[Key], path: Any) -> None:
        """Refuse a stored neighbourhood that is not one of this polytope (see the class docstring)."""
        if not around or count < len(around):
            raise ResumeMismatchError(f"{path}: {count} neighbours in {len(around)} orbits; a vertex has at least one "
                                      "neighbour, each in one orbit: remove the folder or the file to recompute")
        for key in (form, *sorted(around - self.verified)):
            if key in self.verified:
                continue
            point = key_point(key)
            if self.forms.canonical(point) != key or not self.polytope.is_vertex(point):
                raise ResumeMismatchError(f"{path}: ({', '.join(str(v) for v in point)}) is not the canonical form of "
                                          f"a vertex of {self.polytope.name} at e^ε = {self.polytope.eps_exp}: remove "
                                          "the folder or the file to recompute")
            self.verified.add(key)

    def cone_state(self, form: Key) -> _ConeState | None:
        """Where the decomposed tangent cone of representative `form` keeps its walk, if there is a folder."""
        return None if self.folder is None else _ConeState(self, form)

    def keep(self, result: Neighbourhood) -> None:
        if self.folder is not None:
            form, count, around = result
            document = {"representative": [form[0], list(form[1])], "neighbours": count,
                        "forms": [[d, list(v)] for d, v in sorted(around)]}
            self.folder.write(self._name(form), json.dumps(document))


class _ConeState:
    """The walk inside one representative's decomposed tangent cone, kept in the resume folder
    (:class:`polytopes.decomposition.Checkpoint`): the cross-section's vertices found and those
    still to visit, as integer keys. The decomposition re-verifies what is read back."""

    def __init__(self, store: _Store, form: Key) -> None:
        assert store.folder is not None
        self.store, self.folder = store, store.folder
        self.name = f"{task_key('cone', form)}.json"

    def recall(self) -> tuple[list[Key], list[Key]] | None:
        data = self.folder.read(self.name)
        if data is None:
            return None
        try:
            document = read_json(data)
            return ([self.store._key(value) for value in document["found"]],
                    [self.store._key(value) for value in document["waiting"]])
        except (ValueError, KeyError, TypeError) as error:
            self.store.say(f"{self.folder.path / self.name}: does not parse ({error}); the cone is walked afresh")
            return None

    def keep(self, found: list[Key], waiting: list[Key]) -> None:
        self.folder.write(self.name, json.dumps({"found": [[d, list(v)] for d, v in found],
                                                 "waiting": [[d, list(v)] for d, v in waiting]}))


def enumerate_orbits(polytope: Polytope, start: Point | None = None,
                     progress: Callable[[str], None] | None = None, cone_method: str = "cdd",
                     client: Any = None, folder: str | None = None,
                     recursion: Recursion | None = None) -> OrbitEnumeration:
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
        largest tangent cones) first; a task run twice is merged once; a cone that `recursion`
        decomposes has the visits of its walk submitted as tasks of their own. By default, in this
        process.
    folder : str, optional
        A resume folder: each representative's neighbourhood (its canonical forms) is written there
        atomically as it is found, and read back instead of recomputed by a later run of the same
        polytope, so a killed walk goes on where it stopped (:class:`polytopes.resume.ResumeFolder`);
        in this process, a decomposed cone's own walk is kept there too, every
        :data:`polytopes.decomposition.PROGRESS_EVERY` ray orbits.
    recursion : Recursion, optional
        Decompose the tangent cones this rule selects again, under the representative's stabiliser
        (:mod:`polytopes.decomposition`); by default every cone's rays are listed at once.

    Returns
    -------
    OrbitEnumeration
        Its ``count`` is the number of vertices (orbit–stabiliser).

    Examples
    --------
    Holohan et al.'s D at n = 3 (whose extreme points they characterise) has 33 vertices, in 4
    orbits under permutations of rows and columns:

    >>> from polytopes import ldp_polytope
    >>> walk = enumerate_orbits(ldp_polytope(3, eps_exp=2))
    >>> walk.count, len(walk.orbits)
    (33, 4)
    """
    begin = time.perf_counter()
    forms = orbit_forms(polytope)
    store = _Store(polytope, forms, folder, progress or (lambda text: None))
    first = forms.canonical(start if start is not None else _first_vertex(polytope))
    found = {first: forms.orbit_size(first)}
    around: dict[Key, frozenset[Key]] = {}
    computed = 0

    def merge(result: Neighbourhood) -> list[Key]:
        nonlocal computed
        computed += result[1]
        around[result[0]] = result[2]
        new = [form for form in sorted(result[2]) if form not in found]
        for form in new:
            found[form] = forms.orbit_size(form)
        return new

    def say(waiting: int) -> None:
        if progress:
            progress(f"{len(found)} orbits found, {waiting} to visit ({time.perf_counter() - begin:.1f} s)")

    if client is None:
        queue = [first]
        while queue:
            form = queue.pop()
            result = store.recall(form)
            if result is None:
                result = _neighbour_forms(polytope, form, cone_method, recursion, progress, store.cone_state(form))
                store.keep(result)
            queue.extend(merge(result))
            say(len(queue))
    else:
        _walk_on_dask(client, polytope, first, cone_method, recursion, store, merge, say)
    orbits = tuple(Orbit(key_point(form), size) for form, size in found.items())
    position = {form: k for k, form in enumerate(found)}
    adjacency = tuple(frozenset(position[other] for other in around[form]) for form in found)
    return OrbitEnumeration(polytope, orbits, forms.order, computed, time.perf_counter() - begin, adjacency,
                            store.recalled)


def _walk_on_dask(client: Any, polytope: Polytope, first: Key, cone_method: str, recursion: Recursion | None,
                  store: _Store,
                  merge: Callable[[Neighbourhood], list[Key]], say: Callable[[int], None]) -> None:
    """The adjacency walk with every representative's neighbourhood not in `store` a Dask task."""
    from distributed import as_completed

    problem = task_key("polytope", polytope.name, polytope.inequalities, polytope.equalities, polytope.symmetries,
                       cone_method)
    running = as_completed()
    recalled: list[Neighbourhood] = []
    submitted: dict[str, tuple[Key, int]] = {}  # task key: the representative, its submission

    def submit(form: Key, tries: int = 1) -> None:
        if tries > RESUBMISSIONS:
            raise ClusterError(f"the neighbourhood task of {key_point(form)} was lost {RESUBMISSIONS} times; "
                               "is the cluster healthy?")
        key = task_key("orbit-neighbours", problem, form, tries)  # a lost key is not reused: Dask forgets it
        submitted[key] = (form, tries)
        running.add(client.submit(_neighbour_forms, polytope, form, cone_method, recursion,  # by value: tens of kB
                                  key=key, priority=len(polytope.tight(key_point(form))), spread=True))

    def dispatch(form: Key) -> None:
        result = store.recall(form)
        if result is not None:
            recalled.append(result)
        else:
            submit(form)

    dispatch(first)
    while recalled or not running.is_empty():
        if recalled:
            result = recalled.pop()
        else:
            future = next(running)
            try:
                result = future.result()
            except CancelledError:  # its worker died and Dask dropped the key: the same task again
                form, tries = submitted[future.key]
                submit(form, tries + 1)
                continue
            store.keep(result)
        for form in merge(result):
            dispatch(form)
        say(running.count() + len(recalled))
