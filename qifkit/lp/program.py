"""The linear programs of the engine and their answers: :class:`LinearProgram` (exact data,
validated once) and :class:`LPSolution` (a status, a value, a point and its certificate)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import flint
import numpy as np

from qifkit.errors import (
    CertificateError,
    PolytopeError,
    ShapeError,
)
from qifkit.numbers import to_fmpq
from qifkit.validation import whole_number

__all__ = ["CDD_LIMIT", "Bound", "Flags", "LinearProgram", "LPSolution", "collector_paused"]


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


@dataclass(frozen=True)
class LPSolution:
    """An exact answer with its certificate (see the module docstring), in the scalar type of
    :class:`LinearProgram`: flint rationals (``flint.fmpq``), whatever exact numbers it was built
    from (Fractions, integers and decimal strings are converted; floats refused). Use
    :func:`qifkit.numbers.reduced_fractions` where Fractions are needed: a Fraction never compares equal to a flint
    rational.

    Attributes
    ----------
    status : str
        ``"optimal"``, ``"infeasible"`` or ``"unbounded"``.
    value : flint.fmpq or None
        min c·x when optimal.
    point : tuple of flint.fmpq or None
        An optimal (optimal) or feasible (unbounded) x.
    duals : tuple of flint.fmpq or None
        Row multipliers y: optimal duals (optimal) or Farkas multipliers (infeasible).
    ray : tuple of flint.fmpq or None
        An improving feasible direction (unbounded).
    method : str
        Which route produced it, e.g. ``"highs basis, exact solve"``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> LPSolution("optimal", Fraction(1, 2), (0, "1/2"), (Fraction(1),)).point
    (0, 1/2)
    """

    status: str
    value: flint.fmpq | None = None
    point: tuple[flint.fmpq, ...] | None = None
    duals: tuple[flint.fmpq, ...] | None = None
    ray: tuple[flint.fmpq, ...] | None = None
    method: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", None if self.value is None else to_fmpq(self.value))
        for field in ("point", "duals", "ray"):
            object.__setattr__(self, field, _rationals(getattr(self, field)))

    def reduced_costs(self, program: LinearProgram) -> tuple[flint.fmpq, ...]:
        """d = c − Aᵀy (for an infeasibility certificate, c = 0)."""
        if self.duals is None:
            raise CertificateError("this solution has no dual multipliers")
        d = list(program.cost) if self.status == "optimal" else [flint.fmpq(0)] * program.variables
        for row, y in zip(program.rows, self.duals, strict=True):
            if y:
                for k, a in row:
                    d[k] -= a * y
        return tuple(d)


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
