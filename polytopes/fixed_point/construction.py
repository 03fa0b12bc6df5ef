"""What Kohli and Laskowski's constructors return: the mechanism (exact rows, or log entries),
how it was made, and what was verified of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, overload

import flint
import numpy as np

from polytopes.fixed_point.arithmetic import exact_logs
from qifkit.numbers import reduced_fraction

__all__ = ["Verification", "ColumnFractions", "Construction"]


@dataclass(frozen=True)
class Verification:
    """What was checked of a constructed mechanism, in the arithmetic it was built in.

    Attributes
    ----------
    row_sum_error : Fraction or float
        max_i |Σ_j T[i,j] − 1| (exactly 0 in exact mode).
    fixed_point_error : Fraction, float or None
        max_j |(z·T)_j − z_j| / z_j (None for a mechanism of U, which has no fixed point).
    dp_ratio : Fraction or float
        The worst neighbour ratio max T[i,j]/T[i±1,j], at most e^ε.
    eps_exp : Fraction or float
        The e^ε it was checked against.
    """

    row_sum_error: Any
    fixed_point_error: Any
    dp_ratio: Any
    eps_exp: Any


class ColumnFractions(Sequence[list[Fraction]]):
    """An exact n×n matrix kept as T[i, j] = N[i, j]/d_j (N an fmpz_mat, one denominator per
    column), read as rows of reduced Fractions.

    Reducing n² fractions of thousands of bits is a gcd each and costs as much as building and
    checking the matrix (Algorithm 1 at n = 500, e^ε = 2: about 12 s), so a row is reduced when it
    is first read and then kept. ``==`` compares with any sequence of rows.
    """

    def __init__(self, numerators: Any, denominators: Sequence[Any]) -> None:
        self._entries = numerators.entries()
        self._denominators = list(denominators)
        self._rows: dict[int, list[Fraction]] = {}

    def __len__(self) -> int:
        return len(self._denominators)

    @overload
    def __getitem__(self, index: int) -> list[Fraction]: ...

    @overload
    def __getitem__(self, index: slice) -> list[list[Fraction]]: ...

    def __getitem__(self, index: int | slice) -> list[Fraction] | list[list[Fraction]]:
        n = len(self)
        if isinstance(index, slice):
            return [self[i] for i in range(n)[index]]
        i = range(n)[index]
        if i not in self._rows:
            self._rows[i] = [
                reduced_fraction(flint.fmpq(self._entries[i * n + j], d)) for j, d in enumerate(self._denominators)
            ]
        return self._rows[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(
            list(mine) == list(theirs) for mine, theirs in zip(self, other, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr([list(row) for row in self])


@dataclass(frozen=True)
class Construction:
    """A constructed count mechanism.

    Attributes
    ----------
    matrix : sequence of list of Fraction, or None
        T (rows: true counts) in exact mode: a list of rows, or from Algorithm 1 a
        :class:`ColumnFractions` whose rows are reduced when first read.
    log_matrix : numpy.ndarray or None
        log T entrywise in float mode (entries of T may lie far below the smallest double).
    steps : int
        Scale additions (Algorithm 1) or loop iterations (Algorithm 2).
    order : tuple of int
        Columns in the order they were filled (Algorithm 1) or the column of each Σ_l (Algorithm 2).
    verification : Verification
    arithmetic : str
        What it was computed in: ``"exact"`` (rationals), ``"long double"`` (Algorithm 1's float
        mode), ``"long double, remainder in N bits"`` (its high-precision redo) or ``"double"``
        (Algorithm 2's).

    Examples
    --------
    >>> from polytopes import heuristic_constructor
    >>> built = heuristic_constructor(["1/4", "1/2", "1/4"], eps_exp=2)
    >>> built.verification.fixed_point_error, built.verification.dp_ratio  # z·T = z exactly, e^ε = 2 met
    (Fraction(0, 1), Fraction(2, 1))
    """

    matrix: Sequence[list[Fraction]] | None
    log_matrix: np.ndarray | None
    steps: int
    order: tuple[int, ...]
    verification: Verification
    arithmetic: str = "exact"

    @property
    def exact(self) -> bool:
        """True when the matrix is exact."""
        return self.matrix is not None

    def to_numpy(self, dtype: Any = np.float64) -> np.ndarray:
        """T as an array of float64 (exact entries correctly rounded) or ``np.longdouble``.

        Entries below the dtype's range become 0 (Algorithm 1 at n = 2000 has entries near
        2^-2000, below the smallest double): check the array as it is with
        :func:`polytopes.fixed_point.verification.verify_array` before relying on it, or keep
        :meth:`logs`."""
        if self.matrix is not None and np.dtype(dtype) == np.float64:
            return np.array([[float(v) for v in row] for row in self.matrix])
        return np.exp(self.logs().astype(dtype))

    def logs(self) -> np.ndarray:
        """The natural logarithm of every entry of T (−inf for a zero), as long doubles: any
        magnitude, from the exact entries' integers or from the float mode's logs."""
        if self.matrix is None:
            assert self.log_matrix is not None  # one of the two is always set
            return self.log_matrix.astype(np.longdouble)
        return exact_logs(self.matrix)
