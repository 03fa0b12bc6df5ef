"""The immutable :class:`Channel`: a stochastic matrix with labelled secrets and outputs.

Rows are secrets (inputs) and columns are outputs everywhere in qifkit; a column-stochastic matrix
of the literature (Cormode et al. 2018 write ``P[i][j] = Pr[i | j]``) is converted at the edge by
:meth:`Channel.from_columns`.

References
----------
.. [1] M. S. Alvim, N. Fernandes, A. McIver, C. Morgan, G. H. Nunes. "A Novel Analysis of Utility
   in Privacy Pipelines, Using Kronecker Products and Quantitative Information Flow." CCS 2023,
   §2.1 (channels), Def. 16 (Kronecker product).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import sympy
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.errors import (
    LabelError,
    NegativeEntryError,
    NotExactError,
    NotStochasticError,
    NumberKindError,
    QifError,
    ShapeError,
)
from qifkit.files import atomic_write_text, csv_text, read_table_csv
from qifkit.labelled import LabelledMatrix, checked_labels
from qifkit.matrices import (
    Matrix,
    NumberKind,
    equal,
    exact_matrix,
    face_split,
    float_matrix,
    kron,
    matmul,
    public_value,
    shape_of,
    symbolic_matrix,
)
from qifkit.numbers import exact, exact_str, reduced_fraction, shown_number
from qifkit.validation import whole_number

__all__ = ["Channel", "FLOAT_TOLERANCE", "MAX_BUILT_ENTRIES"]

#: Largest deviation of a float channel's row sum from 1 that is accepted.
FLOAT_TOLERANCE = 1e-9


def _shown(value: Any) -> str:
    """An entry or row sum in a message: a rational of any size readable (:func:`shown_number`), an
    expression as sympy writes it."""
    return shown_number(value) if isinstance(value, Fraction) else str(value)


def _row_name(labels: tuple[Hashable, ...], index: int) -> str:
    return f"row {index}" if labels[index] == index else f"row {index} (secret {labels[index]!r})"


#: The most entries a channel built by :meth:`Channel.power` or :meth:`Channel.parallel` may have:
#: 10^7 (about a gigabyte of exact entries). Symmetric queries of many respondents go through the
#: pipeline algebra (:mod:`qifkit.pipelines`), which never builds the power.
MAX_BUILT_ENTRIES = 10**7


def _within_size(rows: int, columns: int, what: str, power: int = 1) -> None:
    """Refuse, before any allocation, a channel of (rows × columns)^power entries beyond
    :data:`MAX_BUILT_ENTRIES` (compared by logarithms: a huge power is never computed)."""
    if rows * columns > 1 and power * math.log2(rows * columns) > math.log2(MAX_BUILT_ENTRIES):
        size = f"({rows} × {columns})^{power}" if power > 1 else f"{rows:,} × {columns:,}"
        raise ShapeError(f"{what} would have {size} entries, beyond the {MAX_BUILT_ENTRIES:,} a channel may be "
                         "built with; for a count, sum or histogram of many respondents use qifkit.pipelines")


@dataclass(frozen=True, eq=False, repr=False)  # repr: LabelledMatrix's
class Channel(LabelledMatrix):
    """A channel from secrets to outputs: ``matrix[x, y]`` is the probability of output y given x.

    Build channels with the factories (:meth:`from_rows`, :meth:`from_symbolic`,
    :meth:`from_floats`, :meth:`from_numpy`, :meth:`from_sympy`, :meth:`from_columns`,
    :meth:`read_csv`), which validate; the constructor itself trusts its entries (it refuses only a
    matrix that is not a qifkit matrix, naming the factories).

    Attributes
    ----------
    matrix : DomainMatrix or numpy.ndarray
        Exact (over ``QQ``), symbolic (over ``QQ(parameters)``) or float64 entries.
    secrets : tuple
        Row labels.
    outputs : tuple
        Column labels.

    Examples
    --------
    >>> R = Channel.from_rows([["3/4", "1/4"], ["1/4", "3/4"]], secrets=("yes", "no"),
    ...                       outputs=("yes", "no"))
    >>> R.entry("yes", "no")
    Fraction(1, 4)
    >>> (R @ R).rows()[0]
    [Fraction(5, 8), Fraction(3, 8)]
    >>> R.power(2).shape
    (4, 4)
    """

    matrix: Matrix
    secrets: tuple[Hashable, ...]
    outputs: tuple[Hashable, ...]
    factories: ClassVar[str] = "from_rows (exact), Channel.from_numpy or Channel.from_symbolic"
    stochastic_rows: ClassVar[bool] = True

    # ------------------------------------------------------------------ factories
    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Sequence[Any]],
        secrets: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
    ) -> Channel:
        """An exact channel from rows of ints, Fractions or number strings (``"3/7"``, ``"0.25"``).

        Raises
        ------
        ShapeError
            Empty or ragged rows.
        NotExactError
            A float entry: give ``"0.1"`` as a string, or use :meth:`from_floats`.
        NumberSyntaxError
            A malformed number string.
        NegativeEntryError, NotStochasticError
            A negative entry, or a row that does not sum to exactly 1.
        """
        return cls._validated(exact_matrix(rows, "channel"), secrets, outputs)

    @classmethod
    def from_symbolic(
        cls,
        rows: Sequence[Sequence[Any]],
        parameters: Sequence[sympy.Symbol],
        secrets: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
    ) -> Channel:
        """A symbolic channel whose entries are rational functions of the named `parameters`.

        Rows must sum to 1 identically (as rational functions). Non-negativity of an entry that
        depends on the parameters is the caller's assumption about their range; constant entries
        are checked.

        Examples
        --------
        >>> a, c = sympy.symbols("a c")
        >>> C = Channel.from_symbolic([[a, 1 - a], [c, 1 - c]], parameters=(a, c))
        >>> C.kind.value
        'symbolic'
        """
        return cls._validated(symbolic_matrix(rows, tuple(parameters), "channel"), secrets, outputs)

    @classmethod
    def from_floats(
        cls,
        rows: Any,
        secrets: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
    ) -> Channel:
        """A float64 channel, for scale; rows must sum to 1 within ``FLOAT_TOLERANCE``."""
        return cls._validated(float_matrix(rows, "channel"), secrets, outputs)

    @classmethod
    def from_numpy(
        cls,
        array: np.ndarray,
        secrets: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
    ) -> Channel:
        """A channel from a numpy array: float arrays give float channels, integer and object
        arrays (of exact values) give exact channels."""
        array = np.asarray(array)
        if array.dtype.kind == "f":
            return cls.from_floats(array, secrets, outputs)
        if array.ndim != 2:
            raise ShapeError(f"channel must be two-dimensional, got shape {array.shape}")
        return cls.from_rows(array.tolist(), secrets, outputs)

    @classmethod
    def from_sympy(
        cls,
        matrix: sympy.MatrixBase,
        parameters: Sequence[sympy.Symbol] | None = None,
        secrets: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
    ) -> Channel:
        """A channel from a sympy Matrix: exact if it has no free symbols, else symbolic in
        `parameters` (default: its free symbols sorted by name)."""
        rows = matrix.tolist()
        free = sorted(matrix.free_symbols, key=lambda s: s.name)
        if not free and parameters is None:
            return cls.from_rows([[_sympy_rational(v) for v in row] for row in rows], secrets, outputs)
        return cls.from_symbolic(rows, parameters or free, secrets, outputs)

    @classmethod
    def from_columns(
        cls,
        columns: Sequence[Sequence[Any]],
        secrets: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
        parameters: Sequence[sympy.Symbol] | None = None,
    ) -> Channel:
        """A channel from a column-stochastic matrix ``P[i][j] = Pr[output i | input j]``.

        This is the convention of Cormode et al. (2018); the result has rows as inputs.
        `secrets` label the columns of `columns` (the inputs), `outputs` its rows.
        """
        if not columns or not all(len(row) == len(columns[0]) for row in columns):
            exact_matrix(columns, "column-stochastic matrix")  # raises the precise ShapeError
        transposed = [list(column) for column in zip(*columns, strict=True)]
        if parameters is not None:
            return cls.from_symbolic(transposed, parameters, secrets, outputs)
        return cls.from_rows(transposed, secrets, outputs)

    @classmethod
    def read_csv(cls, path: str) -> Channel:
        """Read an exact channel from a CSV file (the format: :mod:`qifkit.files`).

        Raises
        ------
        ShapeError
            An empty file, ragged rows, or a label row/column that does not fit.
        NumberSyntaxError, NegativeEntryError, NotStochasticError
            From the entries, naming the file and the cell.
        """
        table, secrets, outputs = read_table_csv(path)
        try:
            return cls.from_rows(table, secrets=secrets, outputs=outputs)
        except QifError as error:
            raise type(error)(f"{path}: {error}") from None

    @classmethod
    def _validated(
        cls,
        matrix: Matrix,
        secrets: Sequence[Hashable] | None,
        outputs: Sequence[Hashable] | None,
    ) -> Channel:
        rows, columns = shape_of(matrix)
        channel = cls(matrix, checked_labels(secrets, rows, "secret"), checked_labels(outputs, columns, "output"))
        channel._check_stochastic()
        return channel

    @property
    def row_labels(self) -> tuple[Hashable, ...]:
        return self.secrets

    @property
    def column_labels(self) -> tuple[Hashable, ...]:
        return self.outputs

    def _with_matrix(self, matrix: Matrix) -> Channel:
        return Channel._validated(matrix, self.secrets, self.outputs)

    def _check_stochastic(self) -> None:
        """Raise unless every entry is non-negative and every row sums to 1."""
        matrix = self.matrix
        if isinstance(matrix, np.ndarray):
            negative = np.argwhere(matrix < 0)
            if len(negative):
                i, j = (int(k) for k in negative[0])
                raise NegativeEntryError(
                    f"channel entry ({i}, {j}) is {matrix[i, j]!r}, a negative probability"
                )
            sums = matrix.sum(axis=1)
            bad = np.flatnonzero(np.abs(sums - 1.0) > FLOAT_TOLERANCE)
            if len(bad):
                i = int(bad[0])
                raise NotStochasticError(f"{_row_name(self.secrets, i)} sums to {sums[i]!r}, not 1")
            return
        domain = matrix.domain
        rows = matrix.to_list()
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                if _is_negative_constant(domain, value):
                    raise NegativeEntryError(
                        f"channel entry ({i}, {j}) is {_shown(public_value(domain, value))}, a negative probability"
                    )
        for i, row in enumerate(rows):  # summed row by row: a product with a ones column clears every
            total = sum(row, domain.zero)  # denominator of the matrix at once (minutes at 250 values)
            if total != domain.one:
                raise NotStochasticError(
                    f"{_row_name(self.secrets, i)} sums to {_shown(public_value(domain, total))}, not 1"
                )

    # ------------------------------------------------------------------ views
    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        """The symbols of a symbolic channel (empty for exact and float channels)."""
        if self.kind is NumberKind.SYMBOLIC:
            return tuple(self.matrix.domain.symbols)
        return ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Channel):
            return NotImplemented
        if (self.secrets, self.outputs) != (other.secrets, other.outputs):
            return False
        return equal(self.matrix, other.matrix)

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ conversions
    def substitute(self, values: Mapping[sympy.Symbol, Any]) -> Channel:
        """An exact channel from a symbolic one, with every parameter given an exact value.

        Examples
        --------
        >>> a = sympy.Symbol("a")
        >>> Channel.from_symbolic([[a, 1 - a]], (a,)).substitute({a: "1/3"}).rows()
        [[Fraction(1, 3), Fraction(2, 3)]]
        """
        if self.kind is not NumberKind.SYMBOLIC:
            raise NumberKindError(f"substitute() needs a symbolic channel, this one is {self.kind.value}")
        missing = [p for p in self.parameters if p not in values]
        if missing:
            raise LabelError(f"no value given for parameter(s) {missing}")
        exact_values = {p: sympy.Rational(*_fraction_pair(values[p])) for p in self.parameters}
        rows = []
        for i, row in enumerate(self.to_sympy().tolist()):
            new_row = []
            for j, entry in enumerate(row):
                value = sympy.cancel(entry).subs(exact_values)
                if not value.is_Rational:
                    raise ShapeError(f"entry ({i}, {j}) = {entry} is undefined at {exact_values}")
                new_row.append(reduced_fraction(value))
            rows.append(new_row)
        return Channel.from_rows(rows, self.secrets, self.outputs)

    def to_sympy(self) -> sympy.Matrix:
        """A sympy Matrix of the entries (exact rationals or expressions)."""
        if self.kind is NumberKind.FLOAT:
            raise NumberKindError("a float channel has no exact sympy form; use to_exact() first")
        return self.matrix.to_Matrix()

    def to_columns(self) -> list[list[Any]]:
        """The column-stochastic form ``P[i][j] = Pr[output i | input j]`` of Cormode et al."""
        return [list(column) for column in zip(*self.rows(), strict=True)]

    def to_csv(self, path: str) -> None:
        """Write an exact or float channel to CSV, atomically, with labels in the first row/column."""
        atomic_write_text(path, self.csv_text())

    def csv_text(self) -> str:
        """The channel as :meth:`to_csv` writes it: labels in the first row and column, exact numbers."""
        if self.kind is NumberKind.SYMBOLIC:
            raise NumberKindError("CSV holds numbers only: substitute() the parameters first")
        header = [""] + [str(label) for label in self.outputs]
        body = [[str(label)] + [repr(v) if isinstance(v, float) else exact_str(v) for v in row]
                for label, row in zip(self.secrets, self.rows(), strict=True)]
        return csv_text([header, *body])

    def relabel(
        self, secrets: Sequence[Hashable] | None = None, outputs: Sequence[Hashable] | None = None
    ) -> Channel:
        """The same matrix with new secret and/or output labels."""
        rows, columns = self.shape
        return Channel(
            self.matrix,
            self.secrets if secrets is None else checked_labels(secrets, rows, "secret"),
            self.outputs if outputs is None else checked_labels(outputs, columns, "output"),
        )

    # ------------------------------------------------------------------ algebra
    def compose(self, post: Channel) -> Channel:
        """Sequential composition ``self · post``: run `self`, then feed its output to `post`.

        The outputs of `self` must be the secrets of `post`, label for label.
        """
        if not isinstance(post, Channel):
            raise TypeError(f"can only compose with a Channel, not {type(post).__name__}")
        if self.outputs != post.secrets:
            if len(self.outputs) != len(post.secrets):
                raise ShapeError(
                    f"cannot compose: {len(self.outputs)} outputs feed {len(post.secrets)} secrets"
                )
            index = next(i for i, (a, b) in enumerate(zip(self.outputs, post.secrets, strict=True)) if a != b)
            raise LabelError(
                f"cannot compose: output {index} is {self.outputs[index]!r} but the next channel's "
                f"secret {index} is {post.secrets[index]!r}; relabel() one of them"
            )
        return Channel(matmul(self.matrix, post.matrix), self.secrets, post.outputs)

    def __matmul__(self, post: Channel) -> Channel:
        return self.compose(post)

    def kron(self, other: Channel) -> Channel:
        """Kronecker product ``self ⊗ other`` (Alvim et al. Def. 16), labels are pairs."""
        return Channel(
            kron(self.matrix, other.matrix),
            tuple(itertools.product(self.secrets, other.secrets)),
            tuple(itertools.product(self.outputs, other.outputs)),
        )

    def power(self, count: int) -> Channel:
        """The `count`-fold Kronecker power; labels are `count`-tuples; power 0 is the 1×1 identity.

        The result has ``rows**count`` rows: for symmetric queries use the pipeline algebra
        instead of materialising it.
        """
        whole_number(count, 0, "a Kronecker power's count")
        rows, columns = self.shape
        _within_size(rows, columns, f"the {count}-fold Kronecker power of a {rows}×{columns} channel", count)
        if count == 0:
            identity = (
                float_matrix([[1.0]]) if self.kind is NumberKind.FLOAT
                else DomainMatrix([[self.matrix.domain.one]], (1, 1), self.matrix.domain)
            )
            return Channel(identity, ((),), ((),))
        matrix = self.matrix
        for _ in range(count - 1):
            matrix = kron(matrix, self.matrix)
        return Channel(
            matrix,
            tuple(itertools.product(self.secrets, repeat=count)),
            tuple(itertools.product(self.outputs, repeat=count)),
        )

    def parallel(self, other: Channel) -> Channel:
        """Parallel composition on the same secret: output (y, z) with probability C[x,y]·D[x,z]."""
        if self.secrets != other.secrets:
            raise LabelError("parallel composition needs both channels on the same secrets")
        _within_size(self.shape[0], self.shape[1] * other.shape[1], "a parallel composition")
        return Channel(
            face_split(self.matrix, other.matrix),
            self.secrets,
            tuple(itertools.product(self.outputs, other.outputs)),
        )

    def reduced(self) -> Channel:
        """The abstract channel: all-zero columns dropped, proportional columns merged (summed).

        Each output of the result is labelled by the tuple of the original outputs it merges,
        in their original order. For a float channel, proportionality is decided after rounding
        the normalised column to 12 significant digits, so the result is approximate.

        Examples
        --------
        >>> C = Channel.from_rows([["1/2", "1/4", 0, "1/4"], ["1/2", "1/2", 0, 0]])
        >>> C.reduced().outputs
        ((0,), (1,), (3,))
        >>> D = Channel.from_rows([["1/2", "1/4", "1/4"], ["1/4", "3/8", "3/8"]]).reduced()
        >>> D.outputs, D.rows()
        (((0,), (1, 2)), [[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]])
        """
        float_kind = self.kind is NumberKind.FLOAT
        columns = self.matrix.T.tolist() if float_kind else self.matrix.transpose().to_list()
        groups: dict[Any, list[int]] = {}
        for index, column in enumerate(columns):
            pivot = next((v for v in column if v != 0), None)
            if pivot is None:
                continue
            key = tuple(float(f"{v / pivot:.12g}") if float_kind else v / pivot for v in column)
            groups.setdefault(key, []).append(index)
        labels = tuple(tuple(self.outputs[j] for j in members) for members in groups.values())
        if float_kind:
            merged = np.stack([self.matrix[:, members].sum(axis=1) for members in groups.values()], axis=1)
            return Channel(float_matrix(merged, "channel"), self.secrets, labels)
        domain = self.matrix.domain
        flat = [
            sum((row[j] for j in members), domain.zero)
            for row in self.matrix.to_list()
            for members in groups.values()
        ]
        matrix = DomainMatrix.from_list_flat(flat, (self.shape[0], len(groups)), domain)
        return Channel(matrix, self.secrets, labels)


def _is_negative_constant(domain: Any, value: Any) -> bool:
    """True when `value` is a constant of `domain` below zero (symbolic non-constants: False)."""
    if domain == QQ:
        return value < 0
    expression = domain.to_sympy(value)
    return bool(expression.is_number and expression < 0)


def _sympy_rational(value: Any) -> Fraction:
    if isinstance(value, sympy.Basic) and not value.is_Rational:
        raise NotExactError(f"{value} is not an exact rational number")
    return reduced_fraction(value) if isinstance(value, sympy.Basic) else value


def _fraction_pair(value: Any) -> tuple[int, int]:
    fraction = exact(value)
    return fraction.numerator, fraction.denominator
