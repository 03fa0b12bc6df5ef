"""Recursive adjacency decomposition: the edges at a vertex up to its stabiliser (issue 33).

The orbit walk (:mod:`polytopes.orbitwise`) needs, at each orbit representative v, one neighbour
per orbit of edges. The edges at v are the extreme rays of its tangent cone
C = {d : E·d = 0, a_k·d ≥ 0 for the inequalities k tight at v}. When v is very degenerate (the
local-DP polytope at n = 6 has vertices with 162 of 216 inequalities tight in 30 dimensions), C
has too many rays to list, but the stabiliser K = Stab_G(v) acts on them, and one ray per K-orbit
is all the walk needs: the neighbours along g·r are g applied to the neighbour along r.

So the rays are themselves found by an orbit walk, the method of SymPol (Rehn & Schürmann) and
polyhedral_common (Dutour Sikirić): cut C by the K-invariant hyperplane c·d = 1, with
c = Σ_{g∈K} g·(Σ_k a_k), positive on C \\ {0} because C is pointed. The cross-section is a polytope
whose vertices are C's rays and whose symmetry group contains K; its own vertices' neighbours are
found the same way, recursively, and a cone is handed to cddlib or Normaliz directly when it is
small or its stabiliser gives little (:class:`Recursion`, the rule). Each level is exact: the
cross-section is written with rationals, the ray steps are exact ratio tests.

Group elements here are index arrays g in the *gather* convention, ``image = x[g]`` (the inverse
of :func:`polytopes.hrep.permuted`'s); a subgroup is closed under inverses, so its element set and
every stabiliser are the same in either convention.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from polytopes.adjacency import IntegerRows, cone_rays
from polytopes.classify import rank
from polytopes.hrep import IntegerKey, Polytope, integer_key, key_point
from polytopes.lp import exact_minimum
from qifkit.cluster import RESUBMISSIONS, task_key
from qifkit.errors import ClusterError, PolytopeError
from qifkit.numbers import over_common_denominator, primitive_integers

__all__ = ["Checkpoint", "Recursion", "SubgroupForms", "edges_up_to_symmetry", "row_column_stabiliser"]

Point = tuple[Fraction, ...]


PROGRESS_EVERY = 25
"""How many ray orbits of a decomposed top-level cone are visited between two progress lines (and
two checkpoints, :class:`Checkpoint`)."""


class Checkpoint(Protocol):
    """Where a decomposed top-level cone's walk keeps its state (the ray orbits found, those still
    to visit), so that a killed run goes on inside the cone (:mod:`polytopes.orbitwise` keeps it in
    the resume folder)."""

    def recall(self) -> tuple[list[IntegerKey], list[IntegerKey]] | None:
        """The state kept by an earlier run, or None."""

    def keep(self, found: list[IntegerKey], waiting: list[IntegerKey]) -> None:
        """Keep the state (atomically)."""


@dataclass(frozen=True)
class Recursion:
    """When the edges at a vertex are found by recursion rather than by cddlib/Normaliz at once.

    A vertex's tangent cone is decomposed again when it has at least `excess` more tight
    inequalities than the polytope's dimension, its stabiliser has at least `stabiliser` elements
    and fewer than `depth` levels lie above it; otherwise its rays are listed directly.

    The defaults are the fastest measured on D at n = 5, e^ε = 2 (one process, Normaliz for the
    direct cones, CPU seconds): 9.2 s, against 10.9 s with no recursion, 30 s with depth 3 (the
    deeper cones cost more as walks than as one listing) and 18 s with excess 50, stabiliser 8,
    depth 2. Only the two tangent cones with 83 and 87 of 100 inequalities tight (3,996 and
    6,577 rays) are decomposed.
    """

    excess: int = 60
    stabiliser: int = 2
    depth: int = 1

    def __post_init__(self) -> None:
        for name in ("excess", "stabiliser", "depth"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise PolytopeError(f"Recursion.{name} must be a whole number ≥ 0, not {value!r}")

    def recurses(self, tight: int, dimension: int, stabiliser: int, level: int) -> bool:
        """Whether a vertex with `tight` tight inequalities in a polytope of `dimension`, a
        stabiliser of that order and `level` levels above it is decomposed again."""
        return tight - dimension >= self.excess and stabiliser >= self.stabiliser and level < self.depth


def _integer_array(values: Sequence[int]) -> np.ndarray:
    """int64 when every value fits, else Python integers (comparisons and gathers only)."""
    bound = max((abs(v) for v in values), default=0)
    return np.array(values, dtype=np.int64 if bound < 2**62 else object)


class SubgroupForms:
    """Canonical forms (the lexicographically least image) and orbit sizes under a group given as
    the list of its elements (gather convention, see the module docstring)."""

    def __init__(self, elements: np.ndarray) -> None:
        self.elements = np.asarray(elements, dtype=np.intp)
        self.order = len(self.elements)

    def _images(self, key: IntegerKey) -> np.ndarray:
        return _integer_array(key[1])[self.elements]

    def canonical(self, point: Sequence[Fraction]) -> IntegerKey:
        return self.canonical_key(integer_key(point))

    def canonical_key(self, key: IntegerKey) -> IntegerKey:
        """The canonical form of the point an integer key stands for: the least image, found by
        keeping, block of positions by block, the images whose block is least (each block read as
        one number in base max − min + 1, so the order of the numbers is that of the blocks)."""
        images = self._images(key)
        if images.dtype == object:
            return key[0], min(map(tuple, images.tolist()))
        low = int(images.min())
        base = int(images.max()) - low + 1
        width = max(1, int(62 / math.log2(base + 1)))
        candidates = np.arange(self.order)
        for start in range(0, images.shape[1], width):
            if len(candidates) == 1:
                break
            block = images[candidates, start:start + width] - low
            weights = base ** np.arange(block.shape[1] - 1, -1, -1, dtype=np.int64)
            codes = block @ weights
            candidates = candidates[codes == codes.min()]
        return key[0], tuple(int(v) for v in images[candidates[0]])

    def stabiliser(self, key: IntegerKey) -> SubgroupForms:
        """The subgroup fixing the point `key`."""
        own = _integer_array(key[1])
        return SubgroupForms(self.elements[(own[self.elements] == own).all(axis=1)])

    def orbit_size(self, key: IntegerKey) -> int:
        return self.order // self.stabiliser(key).order


def row_column_stabiliser(key: IntegerKey, rows: int, columns: int) -> SubgroupForms:
    """The row × column permutations fixing a rows×columns matrix (row-major `key`): for each
    column order σ, the row maps π with x[π(i), σ(j)] = x[i, j], found by matching equal rows."""
    entries = key[1]
    matrix = [tuple(entries[i * columns:(i + 1) * columns]) for i in range(rows)]
    classes: dict[tuple[int, ...], list[int]] = {}
    for i, row in enumerate(matrix):
        classes.setdefault(row, []).append(i)
    elements = []
    for order in itertools.permutations(range(columns)):
        moved: dict[tuple[int, ...], list[int]] = {}
        for i, row in enumerate(matrix):
            moved.setdefault(tuple(row[j] for j in order), []).append(i)
        if moved.keys() != classes.keys() or any(len(moved[r]) != len(classes[r]) for r in classes):
            continue
        groups = [(classes[r], moved[r]) for r in classes]  # row i of x is row k of x[:, σ] for k in moved
        for choice in itertools.product(*(itertools.permutations(target) for _, target in groups)):
            row_map = [0] * rows
            for (sources, _), targets in zip(groups, choice, strict=True):
                for i, k in zip(sources, targets, strict=True):
                    row_map[i] = k
            elements.append([row_map[i] * columns + order[j] for i in range(rows) for j in range(columns)])
    return SubgroupForms(np.array(elements, dtype=np.intp).reshape(-1, rows * columns))


def _cross_section(polytope: Polytope, tight: Sequence[int], symmetry: SubgroupForms) -> Polytope:
    """The tangent cone whose rows are the `tight` inequalities, cut by c·d = 1, c the
    `symmetry`-invariant sum of its rows' images (see the module docstring): a polytope whose
    vertices are the cone's extreme rays."""
    normals = [polytope.inequalities[k][1:] for k in tight]
    scaled = [over_common_denominator(row)[0] for row in normals]
    total = [sum(column) for column in zip(*scaled, strict=True)]
    invariant = np.array(total, dtype=object)[symmetry.elements].sum(axis=0)
    cut = [Fraction(v) for v in primitive_integers(int(v) for v in invariant)]
    zero = Fraction(0)
    return Polytope(name=f"cross-section of a tangent cone of {polytope.name}", shape=polytope.shape,
                    eps_exp=polytope.eps_exp,
                    equalities=tuple((zero, *row[1:]) for row in polytope.equalities) + ((Fraction(-1), *cut),),
                    inequalities=tuple((zero, *row) for row in normals))


VISITS_PER_TASK = 8
"""How many ray orbits one Dask task of a decomposed cone's walk visits (a visit of D at n = 5 takes
about 30 ms, too little to carry a task's messages alone)."""


def _visits(level: _Level, forms: tuple[IntegerKey, ...]) -> list[list[IntegerKey]]:
    """Visits of a decomposed cone's walk, as one Dask task (:meth:`_Level.visit`)."""
    return [level.visit(form) for form in forms]


def _dimension(polytope: Polytope) -> int:
    """The dimension of the affine hull when the equalities are all that bind it (true for D and
    for every cross-section made here: a pointed cone with non-empty interior in E·d = 0)."""
    equations = [row[1:] for row in polytope.equalities]
    return polytope.dimension_of_space - (rank(equations) if equations else 0)


def edges_up_to_symmetry(polytope: Polytope, vertex: Sequence[Fraction], symmetry: SubgroupForms,
                         rule: Recursion, cone_method: str = "cdd",
                         progress: Callable[[str], None] | None = None,
                         checkpoint: Checkpoint | None = None, spread: bool = False) -> tuple[list[Point], int]:
    """Neighbours of `vertex`, at least one in each orbit of its stabiliser on the edges, and the
    number of edges at `vertex`.

    Parameters
    ----------
    polytope : Polytope
    vertex : point
        A vertex of `polytope` (checked exactly: its tight rows have rank d).
    symmetry : SubgroupForms
        The stabiliser of `vertex` in a symmetry group of `polytope`.
    rule : Recursion
        When to decompose a tangent cone again rather than list its rays at once.
    cone_method : {"cdd", "normaliz"}
        Who lists the rays of a cone that is not decomposed (:func:`polytopes.adjacency.cone_rays`).
    progress : callable, optional
        Told every :data:`PROGRESS_EVERY` ray orbits visited in a decomposed cone at `vertex` how
        many are found and waiting.
    checkpoint : Checkpoint, optional
        Where the walk in a decomposed cone at `vertex` keeps its state as often, and finds it
        again; a state read back is re-verified (each ray orbit a vertex of the cross-section in
        canonical form), not trusted.
    spread : bool
        Called in a Dask task: the walk in a decomposed cone at `vertex` submits each of its visits
        (a ray orbit's own edges and their canonical forms) as a task of its own, through
        ``distributed.worker_client`` (this task leaves its worker's thread while it waits), so
        that one large cone is shared by the workers.

    Returns
    -------
    neighbours : list of points
    edges : int
        Σ over the edge orbits of |K| / |Stab_K(ray)|, or the number of rays listed.

    Raises
    ------
    PolytopeError
        If `vertex` is not a vertex of `polytope`.
    """
    if not polytope.is_vertex(vertex):
        raise PolytopeError("the point is not a vertex: outside the polytope, or its tight rows have rank below d")
    level = _Level(polytope, _dimension(polytope), symmetry, rule, cone_method, 0, progress, checkpoint, spread)
    around, edges = level.edges(integer_key(vertex), symmetry)
    return [key_point(key) for key in around], edges


class _Level:
    """One polytope of the recursion (the polytope itself, or a cross-section of a tangent cone of
    the level above) with its integer rows, dimension and symmetry group."""

    def __init__(self, polytope: Polytope, dimension: int, symmetry: SubgroupForms, rule: Recursion,
                 cone_method: str, depth: int, progress: Callable[[str], None] | None = None,
                 checkpoint: Checkpoint | None = None, spread: bool = False) -> None:
        self.polytope, self.dimension, self.symmetry = polytope, dimension, symmetry
        self.rule, self.cone_method, self.depth, self.progress = rule, cone_method, depth, progress
        self.checkpoint, self.spread = checkpoint, spread
        self.rows = IntegerRows(polytope)
        self.equations = [row[1:] for row in polytope.equalities]

    def edges(self, key: IntegerKey, stabiliser: SubgroupForms) -> tuple[list[IntegerKey], int]:
        """Neighbours of the vertex `key`, one or more per orbit of `stabiliser` on its edges, and
        the number of its edges."""
        tight = self.rows.tight(key)
        if not self.rule.recurses(len(tight), self.dimension, stabiliser.order, self.depth):
            rays = cone_rays(self.equations, [self.polytope.inequalities[k][1:] for k in tight], self.cone_method)
            return self.rows.steps(key, rays), len(rays)
        told = (self.progress, self.checkpoint, self.spread) if self.depth == 0 else (None, None, False)  # top level
        section = _Level(_cross_section(self.polytope, tight, stabiliser), self.dimension - 1, stabiliser, self.rule,
                         self.cone_method, self.depth + 1, *told)
        vertices = section.orbits()  # the cone's rays, scaled to c·d = 1
        edges = sum(stabiliser.orbit_size(ray) for ray in vertices)
        return self.rows.steps(key, [ray[1] for ray in vertices]), edges

    def orbits(self) -> list[IntegerKey]:
        """One vertex per orbit of this level's symmetry, by the adjacency walk (complete by the
        connectedness of a polytope's graph, as in :func:`polytopes.orbitwise.enumerate_orbits`)."""
        state = self.checkpoint.recall() if self.checkpoint else None
        if state is None:
            start = exact_minimum(self.polytope, [Fraction(1, 2**k) for k in range(self.polytope.dimension_of_space)])
            first = self.symmetry.canonical(start.optimum()[1])
            found, queue = {first: None}, [first]
        else:
            found, queue = dict.fromkeys(self._verified(state[0])), self._verified(state[1])
            if not set(queue) <= found.keys():
                raise PolytopeError("a kept cone state waits on a ray orbit it has not found: remove it to recompute")
        if self.spread:
            return self._orbits_on_dask(found, queue)
        visited = 0
        while queue:
            visited += 1
            if visited % PROGRESS_EVERY == 0:
                self._tell(found, queue)
            form = queue.pop()
            for key in self.visit(form):
                if key not in found:
                    found[key] = None
                    queue.append(key)
        return list(found)

    def visit(self, form: IntegerKey) -> list[IntegerKey]:
        """The canonical forms of the neighbours of the vertex `form` (one walk step)."""
        around, _ = self.edges(form, self.symmetry.stabiliser(form))
        return [self.symmetry.canonical_key(other) for other in around]

    def _tell(self, found: dict[IntegerKey, None], waiting: Sequence[IntegerKey]) -> None:
        """Keep the walk's state and say how far it is (every :data:`PROGRESS_EVERY` visits)."""
        if self.checkpoint:
            self.checkpoint.keep(list(found), list(waiting))
        if self.progress:
            self.progress(f"a tangent cone with {len(self.polytope.inequalities)} tight rows, decomposed under "
                          f"{self.symmetry.order} symmetries: {len(found)} ray orbits found, "
                          f"{len(waiting)} to visit")

    def _orbits_on_dask(self, found: dict[IntegerKey, None], queue: list[IntegerKey]) -> list[IntegerKey]:
        """:meth:`orbits`' walk with every visit a Dask task, submitted from the task that runs this
        cone; a visit Dask cancels (its worker lost) is submitted again under a new key, at most
        :data:`qifkit.cluster.RESUBMISSIONS` times."""
        from distributed import as_completed, worker_client

        alone = _Level(self.polytope, self.dimension, self.symmetry, self.rule, self.cone_method, self.depth)
        problem = task_key("cross-section", self.polytope.inequalities, self.polytope.equalities,
                           self.symmetry.elements.tobytes(), self.rule, self.cone_method, self.depth)
        waiting = set(queue)
        submitted: dict[str, tuple[tuple[IntegerKey, ...], int]] = {}
        visited = 0
        with worker_client() as client:
            shared = client.scatter(alone, hash=False)
            running = as_completed()

            def submit(forms: tuple[IntegerKey, ...], tries: int = 1) -> None:
                if tries > RESUBMISSIONS:
                    raise ClusterError(f"the visits of ray orbits {forms} were lost {RESUBMISSIONS} times; is the "
                                       "cluster healthy?")
                key = task_key("ray-orbits", problem, forms, tries)
                submitted[key] = (forms, tries)
                running.add(client.submit(_visits, shared, forms, key=key))

            def submit_all(forms: list[IntegerKey]) -> None:
                for start in range(0, len(forms), VISITS_PER_TASK):
                    submit(tuple(forms[start:start + VISITS_PER_TASK]))

            submit_all(queue)
            for future in running:
                forms, tries = submitted[future.key]
                try:
                    arounds = future.result()
                except CancelledError:
                    submit(forms, tries + 1)
                    continue
                waiting.difference_update(forms)
                new = []
                for around in arounds:
                    visited += 1
                    if visited % PROGRESS_EVERY == 0:
                        self._tell(found, sorted(waiting))
                    for key in around:
                        if key not in found:
                            found[key] = None
                            waiting.add(key)
                            new.append(key)
                submit_all(new)
        return list(found)

    def _verified(self, keys: list[IntegerKey]) -> list[IntegerKey]:
        """Kept ray orbits, each checked to be a vertex of this cross-section in canonical form."""
        for key in keys:
            if self.symmetry.canonical_key(key) != key or not self.polytope.is_vertex(key_point(key)):
                raise PolytopeError(f"a kept cone state lists {key}, not the canonical form of a ray of this cone: "
                                    "remove it to recompute")
        return keys
