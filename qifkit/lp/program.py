"""The linear programs of the engine and their answers: :class:`LinearProgram` (exact data,
validated once) and :class:`LPSolution` (a status, a value, a point and its certificate)."""

from __future__ import annotations

import contextlib
import gc
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

import flint
import numpy as np

from qifkit.errors import (
    CertificateError,
    PolytopeError,
    ShapeError,
)
from qifkit.numbers import reduced_fraction, reduced_fractions, to_fmpq
from qifkit.validation import whole_number

__all__ = ["CDD_LIMIT", "Bound", "Flags", "LinearProgram", "LPSolution", "Scalar", "collector_paused"]


#: Largest number of rows × variables that :func:`solve` hands to cddlib's exact simplex as a last
#: resort; beyond it cddlib takes hours and the engine says so (:class:`UndecidableError`) instead.
CDD_LIMIT = 200_000


Bound = flint.fmpq | None


Flags = tuple[list[bool], list[bool], list[bool], list[bool]]  # a basis: column basic, at upper; row basic, at upper


@dataclass(frozen=True)
class LinearProgram:
    """min c·x subject to row_lower ≤ A·x ≤ row_upper and lower ≤ x ≤ upper (exact data).

    Build it with :meth:`build`, which validates; the fields are read-only and hold python-flint
    rationals (``flint.fmpq``), the fast exact type of the toolkit's matrices.

    Attributes
    ----------
    variables : int
    rows : tuple of tuple of (int, flint.fmpq)
        Row i of A as (variable, coefficient) pairs, coefficients non-zero.
    row_lower, row_upper : tuple of flint.fmpq or None
    cost : tuple of flint.fmpq
    lower, upper : tuple of flint.fmpq or None
    name : str
        Used in messages.
    blocks : tuple of int or None
        Optional structure: a group for each variable such that most rows touch one group only
        (e.g. the columns of a witness matrix). Bases are then solved group by group
        (:func:`qifkit.sparse_exact.solve_bordered`); without it, by block triangular form.
    """

    variables: int
    rows: tuple[tuple[tuple[int, flint.fmpq], ...], ...]
    row_lower: tuple[Bound, ...]
    row_upper: tuple[Bound, ...]
    cost: tuple[flint.fmpq, ...]
    lower: tuple[Bound, ...]
    upper: tuple[Bound, ...]
    name: str = "LP"
    blocks: tuple[int, ...] | None = None

    @classmethod
    def build(cls, variables: int, rows: Sequence[Mapping[int, Any]], *, row_lower: Sequence[Any] | None = None,
              row_upper: Sequence[Any] | None = None, cost: Sequence[Any] | None = None,
              lower: Sequence[Any] | Any = 0, upper: Sequence[Any] | Any = None, name: str = "LP",
              blocks: Sequence[int] | None = None) -> LinearProgram:
        """Validate and build a program.

        Parameters
        ----------
        variables : int
            Number of variables, ≥ 1.
        rows : sequence of mapping int → exact number
            Row i of A: {variable: coefficient}.
        row_lower, row_upper : sequence of exact number or None, optional
            Bounds of A·x, one per row; None (the default for all) is infinite.
        cost : sequence of exact number, optional
            c (all zero by default: a feasibility problem).
        lower, upper : exact number, None, or a sequence of them
            Bounds of x; by default x ≥ 0.
        name : str
        blocks : sequence of int, optional
            A group for each variable (see the class docstring); a hint for speed only.

        Raises
        ------
        ShapeError
            Lengths that do not match, a variable index out of range.
        NotExactError, NumberSyntaxError
            A float or a malformed number.
        QifError
            A lower bound above its upper bound.
        """
        whole_number(variables, 1, "an LP's number of variables")
        with collector_paused():
            sparse_rows = _sparse_rows(rows, variables)
        m = len(sparse_rows)
        row_lower_t = _bounds(row_lower, m, "row_lower")
        row_upper_t = _bounds(row_upper, m, "row_upper")
        lower_t = _bounds(lower, variables, "lower")
        upper_t = _bounds(upper, variables, "upper")
        cost_t = tuple(to_fmpq(v) for v in cost) if cost is not None else (flint.fmpq(0),) * variables
        if len(cost_t) != variables:
            raise ShapeError(f"the cost has {len(cost_t)} coefficients for {variables} variables")
        for what, low, high in (("row", row_lower_t, row_upper_t), ("variable", lower_t, upper_t)):
            for i, (lo, hi) in enumerate(zip(low, high, strict=True)):
                if lo is not None and hi is not None and lo > hi:
                    raise PolytopeError(f"{what} {i} has lower bound {lo} above its upper bound {hi}")
        if blocks is not None and len(blocks) != variables:
            raise ShapeError(f"blocks has {len(blocks)} entries for {variables} variables")
        blocks_t = None if blocks is None else tuple(int(g) for g in blocks)
        return cls(variables, tuple(sparse_rows), row_lower_t, row_upper_t, cost_t, lower_t, upper_t, name, blocks_t)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, variables)."""
        return len(self.rows), self.variables

    def with_cost(self, cost: Sequence[Any]) -> LinearProgram:
        """The same constraints with another objective."""
        cost_t = tuple(to_fmpq(v) for v in cost)
        if len(cost_t) != self.variables:
            raise ShapeError(f"the cost has {len(cost_t)} coefficients for {self.variables} variables")
        return LinearProgram(self.variables, self.rows, self.row_lower, self.row_upper, cost_t, self.lower, self.upper,
                             self.name, self.blocks)


def _sparse_rows(rows: Sequence[Mapping[int, Any]], variables: int) -> list[tuple[tuple[int, flint.fmpq], ...]]:
    """The rows of :meth:`LinearProgram.build` as sorted (variable, non-zero flint rational) pairs."""
    sparse_rows = []
    for i, row in enumerate(rows):
        terms = []
        for k, a in row.items():
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < variables:
                raise ShapeError(f"row {i} names variable {k!r}; variables are 0..{variables - 1}")
            value = to_fmpq(a)
            if value:
                terms.append((int(k), value))
        sparse_rows.append(tuple(sorted(terms)))  # by variable: a mapping's keys are distinct
    return sparse_rows


def _bounds(values: Any, size: int, what: str) -> tuple[Bound, ...]:
    if values is None or not isinstance(values, (list, tuple, np.ndarray)):
        bound = None if values is None else to_fmpq(values)
        return (bound,) * size
    if len(values) != size:
        raise ShapeError(f"{what} has {len(values)} entries, not {size}")
    return tuple(None if v is None else to_fmpq(v) for v in values)


def _rationals(values: Sequence[Any] | None) -> tuple[flint.fmpq, ...] | None:
    return None if values is None else tuple(to_fmpq(v) for v in values)


def _fractions(values: Sequence[Any] | None) -> tuple[Fraction, ...] | None:
    return None if values is None else reduced_fractions(values)


Scalar = TypeVar("Scalar", flint.fmpq, Fraction)


@dataclass(frozen=True)
class LPSolution(Generic[Scalar]):
    """An exact answer with its certificate (see the module docstring), in **one** scalar type.

    The toolkit's scalar rule (:mod:`qifkit.numbers`): flint rationals (``flint.fmpq``) inside the
    engine, Fractions where a user reads the answer. A solution built from Fractions alone stays in
    Fractions; built from anything else (integers, decimal strings, flint rationals, a mix) it holds
    flint rationals, the engine's type; floats are refused. :meth:`as_fractions` and
    :meth:`as_fmpq` convert the whole answer at once, since ``Fraction(1, 3) == flint.fmpq(1, 3)``
    is False and the two must not meet in one comparison.

    Attributes
    ----------
    status : str
        ``"optimal"``, ``"infeasible"`` or ``"unbounded"``.
    value : Scalar or None
        min c·x when optimal.
    point : tuple of Scalar or None
        An optimal (optimal) or feasible (unbounded) x.
    duals : tuple of Scalar or None
        Row multipliers y: optimal duals (optimal) or Farkas multipliers (infeasible); with
        reduced costs d = c − Aᵀy they certify the answer (:func:`~qifkit.lp.certificate_defect`).
    ray : tuple of Scalar or None
        An improving feasible direction (unbounded).
    method : str
        Which route produced it, e.g. ``"HiGHS basis (dual simplex), exact solve"``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> LPSolution("optimal", Fraction(1, 2), (0, "1/2"), (Fraction(1),)).point  # a mix: flint rationals
    (0, 1/2)
    >>> LPSolution("optimal", Fraction(1, 2), (Fraction(1, 2),)).as_fmpq().as_fractions().value
    Fraction(1, 2)
    """

    status: str
    value: Scalar | None = None
    point: tuple[Scalar, ...] | None = None
    duals: tuple[Scalar, ...] | None = None
    ray: tuple[Scalar, ...] | None = None
    method: str = ""

    def __post_init__(self) -> None:
        vectors = [getattr(self, field) for field in _VECTORS]
        scalars = (v for v in itertools.chain((self.value,), *(vector or () for vector in vectors)) if v is not None)
        first = next(scalars, None)  # the engine's answers stop here: their first scalar is a flint rational
        if type(first) is Fraction and all(type(v) is Fraction for v in scalars):
            for field, vector in zip(_VECTORS, vectors, strict=True):
                object.__setattr__(self, field, None if vector is None else tuple(vector))
            return
        object.__setattr__(self, "value", None if self.value is None else to_fmpq(self.value))
        for field, vector in zip(_VECTORS, vectors, strict=True):
            object.__setattr__(self, field, _rationals(vector))

    def as_fractions(self) -> LPSolution[Fraction]:
        """The same answer in Fractions (reduced, without a second gcd: :func:`qifkit.numbers.reduced_fraction`)."""
        value = None if self.value is None else reduced_fraction(self.value)
        return LPSolution(self.status, value, _fractions(self.point), _fractions(self.duals), _fractions(self.ray),
                          self.method)

    def as_fmpq(self) -> LPSolution[flint.fmpq]:
        """The same answer in flint rationals, the engine's type (itself when it is already)."""
        if not self.holds_fractions:
            return self  # type: ignore[return-value]
        value = None if self.value is None else to_fmpq(self.value)
        return LPSolution(self.status, value, _rationals(self.point), _rationals(self.duals), _rationals(self.ray),
                          self.method)

    def optimum(self) -> tuple[Scalar, tuple[Scalar, ...]]:
        """(value, point) of an optimal answer.

        Raises
        ------
        CertificateError
            If the answer is not an optimum (infeasible, unbounded) or lacks its value or point.
        """
        if self.status != "optimal" or self.value is None or self.point is None:
            raise CertificateError(f"this answer is {self.status}, not an optimum with a value and a point")
        return self.value, self.point

    @property
    def holds_fractions(self) -> bool:
        """Whether the answer's scalars are Fractions (else flint rationals; one type throughout)."""
        if self.value is not None:
            return type(self.value) is Fraction
        return any(type(vector[0]) is Fraction for vector in (self.point, self.duals, self.ray) if vector)

    def reduced_costs(self, program: LinearProgram) -> tuple[flint.fmpq, ...]:
        """d = c − Aᵀy (for an infeasibility certificate, c = 0), in flint rationals."""
        if self.duals is None:
            raise CertificateError("this solution has no dual multipliers")
        d = list(program.cost) if self.status == "optimal" else [flint.fmpq(0)] * program.variables
        for row, y in zip(program.rows, self.as_fmpq().duals or (), strict=True):
            if y:
                for k, a in row:
                    d[k] -= a * y
        return tuple(d)


_VECTORS = ("point", "duals", "ray")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while the block runs, then restored as it was.

    Exact LP work allocates 10⁵ to 10⁶ small objects that form no cycles (sparse rows, flint
    rationals, Fractions), and every 700 allocations the collector scans the young ones, every few
    scans all of them: a sixth of the time of Cormode's seven-property design at n = 100 when it
    was measured (``benchmarks/bench_lp.py``). Reference
    counting frees these objects all the same; only garbage in cycles waits for the end of the
    block. The pause is process-wide (as :mod:`timeit`'s): other threads run without it meanwhile.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
