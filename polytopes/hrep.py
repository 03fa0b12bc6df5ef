"""Exact H-representations of polytopes of mechanisms, with their symmetry groups.

A :class:`Polytope` is data: variables (the entries of a matrix, row-major), equalities and
inequalities with exact rational coefficients in cddlib's convention (a row ``[b, a_1, ..., a_d]``
means ``b + a·x ≥ 0``, or ``= 0`` for an equality), and generators of a symmetry group acting by
permuting the variables.

References
----------
.. [1] K. Fukuda, cddlib reference manual (the .ine format).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

import flint

from qifkit.errors import FileFormatError, PolytopeError, QifError, ShapeError
from qifkit.extras import needs_extra
from qifkit.files import read_input_text
from qifkit.numbers import over_common_denominator, parse_number

if TYPE_CHECKING:
    from qifkit.lp import LinearProgram

with needs_extra("polytopes"):  # pycddlib: a missing one is an error naming the extra to install
    import cdd
    import cdd.gmp

__all__ = ["Polytope", "SparsePolytope", "SparseRow", "IntegerKey", "integer_key", "key_point", "permuted", "read_cdd",
           "read_ine"]

T = TypeVar("T")


IntegerKey = tuple[int, tuple[int, ...]]
"""A rational point as (least common denominator, numerators): equal exactly when the points are
equal, hashed and compared many times faster than tuples of Fractions, and kept by permutations."""


def integer_key(point: Sequence[Fraction]) -> IntegerKey:
    """The point over its least common denominator (see :data:`IntegerKey`)."""
    numerators, denominator = over_common_denominator(point)
    return denominator, tuple(numerators)


def key_point(key: IntegerKey) -> tuple[Fraction, ...]:
    """The point an :data:`IntegerKey` stands for (each distinct entry made a Fraction once: a
    vertex has few)."""
    denominator, numerators = key
    entries = {v: Fraction(v, denominator) for v in set(numerators)}
    return tuple(entries[v] for v in numerators)


def permuted(values: Sequence[T], permutation: Sequence[int]) -> tuple[T, ...]:
    """The image of a point under a symmetry: y[g[k]] = x[k] (the convention of
    :attr:`Polytope.symmetries`)."""
    image: list[T] = list(values)
    for source, target in enumerate(permutation):
        image[target] = values[source]
    return tuple(image)


@dataclass(frozen=True)
class Polytope:
    """A polytope {x : b + A·x ≥ 0 (inequalities), b + A·x = 0 (equalities)} over named variables.

    Attributes
    ----------
    name : str
        What it is, e.g. ``"LDP"`` (Holohan et al.'s D).
    shape : tuple of int
        The matrix shape of a point (rows, columns); variables are its entries row-major.
    eps_exp : Fraction
        The privacy parameter e^ε it was built for.
    equalities, inequalities : tuple of rows
        Rows ``(b, a_1, ..., a_d)`` of exact Fractions.
    symmetries : tuple of permutations
        Generators of a group of variable permutations that map the polytope onto itself.
    z : tuple of Fraction or None
        The fixed point, for polytopes that have one (F, R_F).

    Examples
    --------
    Holohan et al.'s D at n = 2: two row sums, four signs and four DP ratios (one per column and
    ordered pair of rows):

    >>> from polytopes import ldp_polytope
    >>> d = ldp_polytope(2, eps_exp=2)
    >>> d.name, d.shape, len(d.equalities), len(d.inequalities)
    ('LDP', (2, 2), 2, 8)
    """

    name: str
    shape: tuple[int, int]
    eps_exp: Fraction
    equalities: tuple[tuple[Fraction, ...], ...]
    inequalities: tuple[tuple[Fraction, ...], ...]
    symmetries: tuple[tuple[int, ...], ...] = ()
    z: tuple[Fraction, ...] | None = None

    @property
    def dimension_of_space(self) -> int:
        """Number of variables d."""
        return self.shape[0] * self.shape[1]

    def cdd_matrix(self) -> cdd.gmp.Matrix:
        """The H-representation as a pycddlib GMP matrix (equalities first, in its lin_set)."""
        rows = [list(row) for row in self.equalities] + [list(row) for row in self.inequalities]
        return cdd.gmp.matrix_from_array(rows, lin_set=range(len(self.equalities)), rep_type=cdd.RepType.INEQUALITY)

    def to_ine(self) -> str:
        """The cdd ``.ine`` text of the H-representation (exact rationals)."""
        rows = [*self.equalities, *self.inequalities]
        lines = [f"* {self.name} n={self.shape[0]} e^eps={self.eps_exp}", "H-representation"]
        if self.equalities:
            lines.append(
                f"linearity {len(self.equalities)} " + " ".join(str(i + 1) for i in range(len(self.equalities)))
            )
        lines += ["begin", f"{len(rows)} {self.dimension_of_space + 1} rational"]
        lines += [" ".join(str(v) for v in row) for row in rows]
        lines.append("end")
        return "\n".join(lines) + "\n"

    @functools.cached_property
    def _integer_rows(self) -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
        """Every row (equalities first) times a positive integer that clears its denominators, as
        (b, ((k, a_k) for the non-zero a_k)): the same signs at every point, in integers."""
        rows = []
        for row in (*self.equalities, *self.inequalities):
            numerators, _ = over_common_denominator(row)
            rows.append((numerators[0], tuple((k, a) for k, a in enumerate(numerators[1:]) if a)))
        return tuple(rows)

    def _values(self, point: Sequence[Fraction]) -> list[int]:
        """b + a·x at a rational point for every row (equalities first), each times a positive
        number: zero, positive and negative exactly where the row's own value is."""
        numerators, denominator = over_common_denominator(point)
        return [b * denominator + sum(a * numerators[k] for k, a in terms) for b, terms in self._integer_rows]

    def _inequality_values(self, point: Sequence[Fraction]) -> list[int] | None:
        """The inequalities' scaled values (:meth:`_values`) at a point of the polytope; None when
        the point is not in it."""
        if len(point) != self.dimension_of_space:
            return None
        values = self._values(point)
        split = len(self.equalities)
        return None if any(values[:split]) or min(values[split:], default=0) < 0 else values[split:]

    def contains(self, point: Sequence[Fraction]) -> bool:
        """Exact membership of a point given as its variables (row-major)."""
        return self._inequality_values(point) is not None

    def tight(self, point: Sequence[Fraction]) -> frozenset[int]:
        """Indices of the inequalities tight at `point`."""
        split = len(self.equalities)
        return frozenset(k for k, value in enumerate(self._values(point)[split:]) if value == 0)

    @functools.cached_property
    def _equality_columns(self) -> tuple[tuple[tuple[int, int], ...], ...] | None:
        """When the inequalities are exactly x_k ≥ 0, one per variable (standard form, as R_U and R_F):
        for each variable, its (equality, integer coefficient) pairs; else None."""
        split = len(self.equalities)
        rows = self._integer_rows[split:]
        if (any(b or len(terms) != 1 or terms[0][1] <= 0 for b, terms in rows)
                or sorted(terms[0][0] for _, terms in rows) != list(range(self.dimension_of_space))):
            return None
        columns: list[list[tuple[int, int]]] = [[] for _ in range(self.dimension_of_space)]
        for r, (_, terms) in enumerate(self._integer_rows[:split]):
            for k, a in terms:
                columns[k].append((r, a))
        return tuple(tuple(column) for column in columns)

    def _is_basic(self, point: Sequence[Fraction], columns: tuple[tuple[tuple[int, int], ...], ...]) -> bool:
        """:meth:`is_vertex` in standard form: the point is ≥ 0, satisfies the equations, and the
        equations' columns on its positive entries are linearly independent (its tight rows then
        have rank d: a basic solution). Work in the size of the support, not of d."""
        if len(point) != self.dimension_of_space:
            return False
        numerators, denominator = over_common_denominator(point)
        if min(numerators, default=0) < 0:
            return False
        support = [k for k, v in enumerate(numerators) if v]
        values = [b * denominator for b, _ in self._integer_rows[:len(self.equalities)]]
        for k in support:
            for r, a in columns[k]:
                values[r] += a * numerators[k]
        if any(values):
            return False
        if not support:
            return self.dimension_of_space == 0
        matrix = flint.fmpz_mat(len(values), len(support))
        for place, k in enumerate(support):
            for r, a in columns[k]:
                matrix[r, place] = a
        return matrix.rank() == len(support)

    def is_vertex(self, point: Sequence[Fraction], tight: frozenset[int] | None = None) -> bool:
        """Exactly: `point` lies in the polytope and its equations and tight inequalities have rank d
        (it is the only point satisfying them with equality), the definition of a vertex. `tight`:
        :meth:`tight` of the point, when the caller has it already. In standard form (every
        inequality x_k ≥ 0, as for R_U and R_F) the same is decided on the point's support."""
        if tight is None and (columns := self._equality_columns) is not None:
            return self._is_basic(point, columns)
        values = self._inequality_values(point)
        if values is None:
            return False
        if tight is None:
            tight = frozenset(k for k, value in enumerate(values) if value == 0)
        split = len(self.equalities)
        chosen = [*range(split), *(split + k for k in sorted(tight))]
        if len(chosen) < self.dimension_of_space:
            return False
        rows = flint.fmpz_mat(len(chosen), self.dimension_of_space)
        for place, index in enumerate(chosen):
            for k, a in self._integer_rows[index][1]:
                rows[place, k] = a
        return rows.rank() == self.dimension_of_space


_HEADER = re.compile(r"^\*\s*(\S+)\s+n=\d+\s+e\^eps=(\S+)\s*$")  # the comment to_ine and to_ext write


#: One sparse row ({k: a_k}, b): b + Σ a_k·x_k (≥ or =) 0.
SparseRow = tuple[dict[int, Fraction], Fraction]


@dataclass(frozen=True)
class SparsePolytope:
    """A polytope as sparse rows: ``b + a·x = 0`` (equalities) and ``b + a·x ≥ 0`` (inequalities),
    in Fractions; :meth:`linear_program` makes it the LP engine's one program type,
    :class:`qifkit.lp.LinearProgram`.

    Dense :class:`Polytope` rows of n² + 1 entries are fine for enumeration at small n; LPs at
    n = 100 (10⁴ variables, 10⁵ rows) need this form.

    Attributes
    ----------
    variables : int
        The number of variables.
    equalities, inequalities : tuple of rows
        Each row a mapping variable → coefficient and its constant b.
    name : str
        What it is (named in messages and results).
    """

    variables: int
    equalities: tuple[SparseRow, ...]
    inequalities: tuple[SparseRow, ...]
    name: str = "LP"

    @classmethod
    def from_polytope(cls, polytope: Polytope) -> SparsePolytope:
        """The same polytope, sparse."""
        # getattr(a, "_numerator", a) reads a Fraction's numerator without its Python-level
        # __bool__ (3× faster on the 10⁷ mostly-zero entries of F at n = 40); ints pass as they are
        def sparse(rows):
            return tuple(({k: a for k, a in enumerate(r[1:]) if getattr(a, "_numerator", a)}, r[0])
                                    for r in rows)
        return cls(
            polytope.dimension_of_space, sparse(polytope.equalities), sparse(polytope.inequalities), polytope.name
        )

    def contains(self, point: Sequence[Fraction]) -> bool:
        """Exact membership."""
        return (len(point) == self.variables and all(_value(r, point) == 0 for r in self.equalities)
                and all(_value(r, point) >= 0 for r in self.inequalities))

    def linear_program(self, objective: Sequence[Any]) -> LinearProgram:
        """min objective·x over this polytope as the engine's program (equalities first)."""
        from qifkit.lp import LinearProgram  # the engine (HiGHS included) loads only when an LP is asked for

        if len(objective) != self.variables:
            raise ShapeError(f"the objective has {len(objective)} coefficients, the program {self.variables} variables")
        rows = [terms for terms, _ in self.equalities + self.inequalities]
        bounds = [(-b if b else b) if isinstance(b, Fraction) else -Fraction(b)  # 10⁵ zeros in Cormode's design
                  for _, b in self.equalities + self.inequalities]
        upper = bounds[: len(self.equalities)] + [None] * len(self.inequalities)
        return LinearProgram.build(self.variables, rows, row_lower=bounds, row_upper=upper, cost=objective,
                                   lower=None, upper=None, name=self.name)


def _value(row: SparseRow, point: Sequence[Any]) -> Any:
    return row[1] + sum(a * point[k] for k, a in row[0].items())


def read_cdd(source: str | os.PathLike[str]) -> tuple[str, tuple[tuple[Fraction, ...], ...], frozenset[int], str]:
    """A cdd ``.ine`` or ``.ext`` file read exactly (Fukuda's format [1]_, as :meth:`Polytope.to_ine`
    and :func:`polytopes.enumerate.to_ext` write it; comments ``*``, ``linearity k i_1 … i_k``,
    ``begin``, ``m d rational|integer``, m rows, ``end``). Numbers are read by
    :func:`qifkit.numbers.parse_number`, never evaluated.

    Returns
    -------
    kind : {"H", "V"}
    rows : tuple of tuple of Fraction
    linearity : frozenset of int
        The 0-based rows that are equalities (H) or lines (V).
    header : str
        The first comment line, or "".

    Raises
    ------
    FileFormatError
        A missing representation, ``begin`` or ``end``, a row count or row length that does not
        match the ``m d`` line, or a malformed number, each naming its line.
    """
    lines = read_input_text(source).splitlines()
    kind: str | None = None
    linearity: frozenset[int] = frozenset()
    header, rows = "", []
    size: tuple[int, int] | None = None
    reading, ended = False, False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        where = f"{source}, line {number}"
        if not line or ended:
            continue
        if line.startswith("*"):
            header = header or line
            continue
        if not reading:
            if line in ("H-representation", "V-representation"):
                kind = line[0]
            elif line.startswith("linearity"):
                cells = line.split()[1:]
                if not cells or not all(c.isdigit() for c in cells) or int(cells[0]) != len(cells) - 1:
                    raise FileFormatError(f"{where}: {line!r} is not 'linearity k i_1 ... i_k'")
                linearity = frozenset(int(c) - 1 for c in cells[1:])
            elif line == "begin":
                reading = True
            else:
                raise FileFormatError(f"{where}: {line[:40]!r} before 'begin'")
            continue
        if size is None:
            cells = line.split()
            if (
                len(cells) != 3
                or not cells[0].isdigit()
                or not cells[1].isdigit()
                or cells[2] not in ("rational", "integer")
            ):
                raise FileFormatError(f"{where}: {line[:40]!r} is not 'm d rational'")
            size = (int(cells[0]), int(cells[1]))
            continue
        if line == "end":
            ended = True
            continue
        cells = line.split()
        if len(cells) != size[1]:
            raise FileFormatError(f"{where}: {len(cells)} numbers, the 'm d' line says d = {size[1]}")
        try:
            rows.append(tuple(parse_number(cell) for cell in cells))
        except QifError as error:
            raise FileFormatError(f"{where}: {error}") from None
    if kind is None or size is None or not ended:
        missing = "'H-representation' or 'V-representation'" if kind is None else "'begin' and the 'm d' line" \
            if size is None else "'end'"
        raise FileFormatError(f"{source}: no {missing}")
    if len(rows) != size[0]:
        raise FileFormatError(f"{source}: {len(rows)} rows, the 'm d' line says m = {size[0]}")
    if any(k >= len(rows) for k in linearity):
        raise FileFormatError(f"{source}: linearity names row {max(linearity) + 1} of {len(rows)}")
    return kind, tuple(rows), linearity, header


def read_ine(source: str | os.PathLike[str], shape: tuple[int, int] | None = None) -> Polytope:
    """A :class:`Polytope` from a cdd ``.ine`` file (:func:`read_cdd`): linearity rows are its
    equalities, the others its inequalities. The name and e^ε come from the comment
    :meth:`Polytope.to_ine` writes (else ``"read"`` and 0, unknown); the point's `shape` is given,
    or (1, d). No symmetry group is read (the format has none).

    Parameters
    ----------
    source : path
        A cdd ``.ine`` file.
    shape : (int, int), optional
        The shape of a point (a mechanism's rows × columns).

    Returns
    -------
    Polytope

    Raises
    ------
    FileFormatError
        A malformed file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polytopes.spaces import ldp_polytope
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.ine"
    >>> _ = path.write_text(ldp_polytope(2, eps_exp="2").to_ine())
    >>> read_ine(path, (2, 2)).inequalities == ldp_polytope(2, eps_exp="2").inequalities
    True
    """
    kind, rows, linearity, header = read_cdd(source)
    if kind != "H":
        raise PolytopeError(f"{source} is a V-representation; read it with polytopes.enumerate.read_ext")
    width = len(rows[0]) - 1 if rows else 0
    if shape is None:
        shape = (1, width)
    if shape[0] * shape[1] != width:
        raise PolytopeError(f"{source} has {width} variables; a point of shape {shape} has {shape[0] * shape[1]}")
    found = _HEADER.match(header)
    name, eps_exp = (found.group(1), parse_number(found.group(2))) if found else ("read", Fraction(0))
    equalities = tuple(row for k, row in enumerate(rows) if k in linearity)
    inequalities = tuple(row for k, row in enumerate(rows) if k not in linearity)
    return Polytope(name, shape, eps_exp, equalities, inequalities)
