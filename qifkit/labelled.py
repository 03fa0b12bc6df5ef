"""The labelled matrix: what channels, priors, losses and gains share.

A :class:`LabelledMatrix` is a matrix (a sympy ``DomainMatrix`` over ``QQ`` for exact entries or over
``QQ(parameters)`` for symbolic ones, or a float64 ``numpy.ndarray``) with a label for each row and
each column. This module is the one home of what does not depend on the meaning of the entries:
labels and their checks, the number kind, entries by label, ``numpy.asarray``, the printed table,
and the conversions between floats and exact numbers. What the entries must satisfy (a channel's
rows are distributions, a prior sums to 1, a loss is non-negative) is each subclass's
``_check``, run by every factory and conversion through ``_with_matrix``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any, ClassVar, TypeVar

import numpy as np
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.errors import LabelError, NegativeEntryError, NotStochasticError, NumberKindError, ParameterError
from qifkit.matrices import Matrix, NumberKind, exact_matrix, float_matrix, kind_of, public_rows, public_value, shape_of
from qifkit.numbers import exact_str, float_fraction
from qifkit.validation import whole_number

__all__ = ["LabelledMatrix", "checked_labels", "SHOWN"]

#: Rows and columns that ``str`` shows before eliding the middle with "…".
SHOWN = 8

_Self = TypeVar("_Self", bound="LabelledMatrix")


def checked_labels(given: Sequence[Hashable] | None, count: int, what: str) -> tuple[Hashable, ...]:
    """Default labels 0..count-1, or check that the given ones fit and are distinct.

    Raises
    ------
    LabelError
        Too many or too few labels, an unhashable one, or one given twice (named).
    """
    if given is None:
        return tuple(range(count))
    given = tuple(given)
    if len(given) != count:
        raise LabelError(f"{len(given)} {what} labels given for {count} {what}")
    try:
        distinct = len(set(given))
    except TypeError as error:
        raise LabelError(f"{what} labels must be hashable: {error}") from None
    if distinct != count:
        seen: set[Hashable] = set()
        for label in given:
            if label in seen:
                raise LabelError(f"{what} label {label!r} appears more than once")
            seen.add(label)
    return given


class LabelledMatrix:
    """Base of :class:`~qifkit.Channel`, :class:`~qifkit.Prior`, :class:`~qifkit.Loss` and
    :class:`~qifkit.Gain`: a matrix with labelled rows and columns.

    Subclasses are frozen dataclasses with a ``matrix`` field and their own label fields; they say
    which labels are the rows and the columns (:attr:`row_labels`, :attr:`column_labels`), what a
    row and a column stand for (``row_role``, ``column_role``, used in messages and ``str``), and
    how a matrix with the same labels is validated (:meth:`_with_matrix`).

    Attributes
    ----------
    matrix : sympy DomainMatrix or numpy.ndarray
        The entries: exact or symbolic in a DomainMatrix, float64 in an array.
    kind : NumberKind
        Which of the three.

    Examples
    --------
    >>> from qifkit import Channel
    >>> C = Channel.from_rows([["1/2", "1/2"], [1, 0]], secrets=("a", "b"))
    >>> C.row_labels, C.column_labels, C.entry("a", 1)
    (('a', 'b'), (0, 1), Fraction(1, 2))
    """

    __slots__ = ()
    matrix: Matrix
    row_role: ClassVar[str] = "secret"
    column_role: ClassVar[str] = "output"
    #: The factories that build one from user data, named when the constructor is given anything else.
    factories: ClassVar[str] = "from_rows"
    #: Whether every row is a probability distribution (a channel, a prior): what renormalising keeps.
    stochastic_rows: ClassVar[bool] = False

    def __post_init__(self) -> None:
        """Refuse a constructor call on raw data (``Prior(pi)`` with a list or a 1-D array): the
        matrix must be a float64 array of two dimensions or a sympy ``DomainMatrix``; the error
        names the factories that read user data."""
        matrix = self.matrix
        if not (isinstance(matrix, np.ndarray) and matrix.ndim == 2 and matrix.dtype == np.float64
                or isinstance(matrix, DomainMatrix)):
            name = type(self).__name__
            raise NumberKindError(f"{name}(...) takes a qifkit matrix, not {type(matrix).__name__}"
                                  + (f" of shape {matrix.shape}" if isinstance(matrix, np.ndarray) else "")
                                  + f"; build a {name} from your values with {name}.{self.factories}(...)")

    # ------------------------------------------------------------------ what subclasses say
    @property
    def row_labels(self) -> tuple[Hashable, ...]:
        raise NotImplementedError

    @property
    def column_labels(self) -> tuple[Hashable, ...]:
        raise NotImplementedError

    def _with_matrix(self: _Self, matrix: Matrix) -> _Self:
        """The same labels on another matrix of the same shape, validated as a factory would."""
        raise NotImplementedError

    # ------------------------------------------------------------------ views
    @property
    def kind(self) -> NumberKind:
        """:class:`~qifkit.matrices.NumberKind` of the entries."""
        return kind_of(self.matrix)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, columns)``."""
        return shape_of(self.matrix)

    def rows(self) -> list[list[Any]]:
        """Entries as nested lists: Fractions (exact), sympy expressions (symbolic) or floats."""
        return public_rows(self.matrix)

    def entry(self, row: Hashable, column: Hashable) -> Any:
        """The entry at a row and a column, looked up by label."""
        try:
            i, j = self.row_labels.index(row), self.column_labels.index(column)
        except ValueError:
            raise LabelError(f"no entry for {self.row_role} {row!r} and {self.column_role} {column!r}") from None
        if isinstance(self.matrix, np.ndarray):
            return float(self.matrix[i, j])
        return public_value(self.matrix.domain, self.matrix[i, j].element)

    def __getitem__(self, key: tuple[Hashable, Hashable]) -> Any:
        """``table[row, column]``: the entry by labels (the positions, with the default labels)."""
        if not isinstance(key, tuple) or len(key) != 2:
            raise LabelError(
                f"index a {type(self).__name__.lower()} by [{self.row_role}, {self.column_role}], not by {key!r}"
            )
        return self.entry(*key)

    def to_numpy(self, exact: bool = False) -> np.ndarray:
        """A numpy array: float64 by default, or an object array of Fractions with ``exact=True``."""
        if exact:
            if self.kind is not NumberKind.EXACT:
                raise NumberKindError(f"exact=True needs exact entries; these are {self.kind.value}")
            return np.array(self.rows(), dtype=object)
        return np.array(self.to_float().matrix, dtype=np.float64)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``numpy.asarray(x)``: the entries in float64 (exact ones correctly rounded)."""
        array = self.to_numpy()
        return array if dtype is None else array.astype(dtype)

    def _title(self) -> str:
        rows, columns = self.shape
        return f"{type(self).__name__} ({self.kind.value}, {rows} {self.row_role}s × {columns} {self.column_role}s)"

    def __repr__(self) -> str:
        rows, columns = self.shape
        return f"{type(self).__name__}({self.kind.value}, {rows} {self.row_role}s x {columns} {self.column_role}s)"

    def __str__(self) -> str:
        """A table: columns across, rows down, at most :data:`SHOWN` of each (the middle elided by
        "…"); exact entries of more than 12 characters as ≈ decimals."""
        rows, columns = self.shape
        shown_rows, shown_columns = _shown(rows), _shown(columns)
        table = [[""] + [_cell_label(self.column_labels[j]) if j is not None else "…" for j in shown_columns]]
        for i in shown_rows:
            if i is None:
                table.append(["…"] * (len(shown_columns) + 1))
                continue
            values = self.matrix[i] if isinstance(self.matrix, np.ndarray) else None
            row = [_cell_label(self.row_labels[i])]
            for j in shown_columns:
                if j is None:
                    row.append("…")
                elif values is not None:
                    row.append(f"{values[j]:.6g}")
                else:
                    row.append(_cell_text(public_value(self.matrix.domain, self.matrix[i, j].element)))
            table.append(row)
        widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
        lines = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in table]
        return "\n".join([self._title(), *lines])

    # ------------------------------------------------------------------ conversions
    def to_float(self: _Self) -> _Self:
        """The same labels with float64 entries (exact ones rounded correctly; symbolic refused),
        to go with float channels."""
        if self.kind is NumberKind.FLOAT:
            return self
        if self.kind is NumberKind.SYMBOLIC:
            raise NumberKindError(f"a symbolic {type(self).__name__} has no float value; substitute() first")
        return self._float_copy

    @cached_property
    def _float_copy(self: _Self) -> _Self:
        """:meth:`to_float` of an exact matrix, made once per object (it is immutable), so the
        routes of one call (refinement's abstraction test, row basis and loss screen) share it."""
        numer, denom = QQ.numer, QQ.denom  # int / int is correctly rounded, and skips the Fractions of rows()
        rows = [[int(numer(v)) / int(denom(v)) for v in row] for row in self.matrix.to_list()]
        return self._with_matrix(float_matrix(rows, type(self).__name__.lower()))

    def to_exact(self: _Self, max_denominator: int | None = None, *, renormalise: bool = False) -> _Self:
        """Exact entries from float ones, validated exactly (a channel's rows must then sum to
        exactly 1, a prior too).

        Parameters
        ----------
        max_denominator : int, optional
            Without `renormalise`: each entry becomes the nearest fraction with at most this
            denominator. Without either, each float is read exactly (its binary value).
        renormalise : bool
            For a channel or a prior whose float rows sum to 1 only up to rounding: rows made
            exactly stochastic with the least change. With `max_denominator` D, every entry becomes
            a multiple of 1/D (the floor of its value, plus 1/D for the entries of largest
            remainder until the row sums to 1), so each moves by less than 1/D, a zero stays zero
            and no entry turns negative; without it, the floats' binary values with the row's
            largest entry taking up the difference (at most the float tolerance, 1e-9).

        Raises
        ------
        NotStochasticError
            A row that no multiples of 1/`max_denominator` within 1/`max_denominator` of its
            entries sum to 1 (its floats sum to 1 only within 1e-9, and 1/D is finer), naming the
            row and its sum.

        Examples
        --------
        >>> from qifkit import Channel
        >>> noisy = Channel.from_numpy([[0.1, 0.2, 0.7], [1 / 3, 1 / 3, 1 / 3]])
        >>> noisy.to_exact(10**6, renormalise=True).rows()[1]  # 333,334 + 333,333 + 333,333 millionths
        [Fraction(166667, 500000), Fraction(333333, 1000000), Fraction(333333, 1000000)]
        """
        if self.kind is NumberKind.EXACT:
            return self
        if self.kind is NumberKind.SYMBOLIC:
            raise NumberKindError(f"a symbolic {type(self).__name__} is exact already; use substitute() for values")
        if renormalise:
            if not self.stochastic_rows:
                raise NumberKindError(f"the rows of a {type(self).__name__} need not sum to 1: nothing to renormalise")
            rows = [_stochastic_row(row, max_denominator, f"{self.row_role} {label!r}")
                    for row, label in zip(self.matrix, self.row_labels, strict=True)]
        else:
            rows = [[float_fraction(v, max_denominator) for v in row] for row in self.matrix]
        return self._with_matrix(exact_matrix(rows, type(self).__name__.lower()))


def _shown(count: int) -> list[int | None]:
    """The positions that ``str`` shows: all, or the first and last halves of :data:`SHOWN` around None."""
    if count <= SHOWN:
        return list(range(count))
    half = SHOWN // 2
    return [*range(half), None, *range(count - half, count)]


def _cell_label(label: Any) -> str:
    """A label or symbolic entry as text of at most 12 characters."""
    text = str(label)
    return text if len(text) <= 12 else text[:11] + "…"


def _cell_text(value: Any) -> str:
    """An exact entry as p/q, or ≈ its decimal when p/q is longer than 12 characters."""
    if isinstance(value, Fraction):
        text = exact_str(value)
        return text if len(text) <= 12 else f"≈{float(value):.6g}"
    return _cell_label(value)


def _stochastic_row(row: Any, denominator: int | None, which: str) -> list[Fraction]:
    """A float row as exact entries summing to 1 (see ``to_exact(renormalise=True)``)."""
    values = [Fraction(float(v)) for v in row]
    if any(v < 0 for v in values):
        raise NegativeEntryError(f"{which} has a negative entry {float(min(values))!r}")
    if denominator is None:  # a float row sums to 1 within 1e-9 (validated): its largest entry takes that up
        largest = max(range(len(values)), key=values.__getitem__)
        values[largest] += 1 - sum(values, Fraction(0))
        return values
    denominator = whole_number(denominator, 1, "max_denominator", error=ParameterError)
    units = [v * denominator for v in values]
    floors = [int(u) for u in units]  # u ≥ 0, so int() is the floor
    spare = denominator - sum(floors)
    order = sorted((k for k in range(len(units)) if units[k] > floors[k]), key=lambda k: floors[k] - units[k])
    if not 0 <= spare <= len(order):
        raise NotStochasticError(f"{which} sums to {float(sum(values))!r}: no row of multiples of 1/{denominator} "
                                 f"summing to 1 lies within 1/{denominator} of every entry; fix the data")
    for k in order[:spare]:
        floors[k] += 1
    return [Fraction(f, denominator) for f in floors]
