"""Matrix kernels for the three number kinds, and the rule that they never mix silently.

A qifkit matrix is one of

* **exact**: a sympy ``DomainMatrix`` over ``QQ``; with python-flint installed sympy stores it as
  a flint ``fmpq_mat``, which is what makes exact products of thousands of rows fast;
* **symbolic**: a ``DomainMatrix`` over a field of rational functions ``QQ(a, b, ...)`` in named
  parameters;
* **float**: a read-only ``numpy.ndarray`` of float64.

Exact and symbolic matrices combine (an exact rational is a constant rational function, so
nothing is lost); a float matrix combined with either raises :class:`~qifkit.errors.NumberKindError`.
Conversion between kinds is always explicit (see :class:`qifkit.Channel`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, TypeAlias

import flint
import numpy as np
import sympy
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.errors import NotANumberError, NotExactError, NumberKindError, QifError, ShapeError
from qifkit.numbers import exact, reduced_fraction

__all__ = [
    "NumberKind",
    "Matrix",
    "kind_of",
    "exact_matrix",
    "symbolic_matrix",
    "float_matrix",
    "shape_of",
    "same_kind",
    "equal",
    "matmul",
    "kron",
    "face_split",
    "public_rows",
    "public_value",
    "qq",
]

def _install_gcd() -> None:
    """Symbolic entries are sympy fractions over ZZ[t, ...], whose every operation cancels by a gcd.
    sympy 1.14 computes it over ZZ by the heuristic algorithm alone, which gives up ("HeuristicGCDFailed:
    no luck") on large polynomials (the count of explicit fair reports of 58 known respondents, as a
    function of e^ε) and is slow on long ones. In one symbol the gcd is python-flint's (exact, with
    its content and a positive leading coefficient, as sympy's); in several, where the heuristic
    gives up, sympy's own dense gcd (polynomial remainder sequences) takes over. Installed once, when
    qifkit is imported."""
    from sympy.polys import rings
    from sympy.polys.polyerrors import HeuristicGCDFailed

    heuristic = rings.PolyElement._gcd_ZZ
    if getattr(heuristic, "qifkit_gcd", False):
        return

    def gcd(f: Any, g: Any) -> Any:
        ring = f.ring
        if ring.ngens == 1:
            first, second = (flint.fmpz_poly([int(c) for c in reversed(p.to_dense())]) for p in (f, g))
            common = first.gcd(second)
            return tuple(ring.from_list([int(c) for c in reversed(p.coeffs())]) if p != 0 else ring.zero
                         for p in (common, first // common, second // common))
        try:
            return heuristic(f, g)
        except HeuristicGCDFailed:
            return ring.dmp_inner_gcd(f, g)

    gcd.qifkit_gcd = True  # type: ignore[attr-defined]
    rings.PolyElement._gcd_ZZ = gcd


_install_gcd()

# A sympy DomainMatrix (exact or symbolic kinds) or a float numpy array; which one is told by
# kind_of(), not by the type: sympy ships no type information, so a checker would see
# Union[Any, ndarray] and ask for a cast at every exact-only use.
Matrix: TypeAlias = Any


class NumberKind(enum.Enum):
    """The three kinds of numbers a qifkit object may hold: ``EXACT`` (rationals, FLINT's through
    sympy's ``QQ``), ``SYMBOLIC`` (rational functions of a symbol, e.g. t = e^ε) and ``FLOAT``
    (float64). Operations never mix two kinds silently (:class:`~qifkit.errors.NumberKindError`).

    >>> from qifkit import randomized_response
    >>> randomized_response(2, eps_exp=3).kind, randomized_response(2, eps_exp=3).to_float().kind
    (<NumberKind.EXACT: 'exact'>, <NumberKind.FLOAT: 'float'>)
    """

    EXACT = "exact"
    SYMBOLIC = "symbolic"
    FLOAT = "float"


def qq(value: Any) -> Any:
    """Convert an exact input (int, Fraction, number string, ...) to an element of ``QQ``."""
    fraction = exact(value)
    return QQ(fraction.numerator, fraction.denominator)


def kind_of(matrix: Matrix) -> NumberKind:
    """Return the number kind of a qifkit matrix."""
    if isinstance(matrix, np.ndarray):
        return NumberKind.FLOAT
    return NumberKind.EXACT if matrix.domain == QQ else NumberKind.SYMBOLIC


def shape_of(matrix: Matrix) -> tuple[int, int]:
    """Return ``(rows, columns)`` of a qifkit matrix."""
    return tuple(matrix.shape)


def _check_rectangular(rows: Sequence[Sequence[Any]], what: str) -> tuple[int, int]:
    """Return the shape of a list of rows, refusing empty and ragged input."""
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) and not isinstance(
        rows, np.ndarray
    ):
        raise ShapeError(f"{what} must be a sequence of rows, not {type(rows).__name__}")
    if len(rows) == 0:
        raise ShapeError(f"{what} is empty: it needs at least one row")
    width = len(rows[0])
    if width == 0:
        raise ShapeError(f"{what} row 0 is empty: it needs at least one column")
    for index, row in enumerate(rows):
        if isinstance(row, (str, bytes)):
            raise ShapeError(f"{what} row {index} is a string, not a sequence of entries")
        if len(row) != width:
            raise ShapeError(f"{what} is ragged: row {index} has {len(row)} entries, row 0 has {width}")
    return len(rows), width


def exact_matrix(rows: Sequence[Sequence[Any]], what: str = "matrix") -> DomainMatrix:
    """Build an exact matrix over ``QQ`` from rows of exact inputs.

    Raises
    ------
    ShapeError
        For an empty or ragged matrix.
    NotExactError, NumberSyntaxError, NotANumberError
        For an entry that is a float, a malformed string, or not a finite number.
    """
    shape = _check_rectangular(rows, what)
    flat = []
    for i, row in enumerate(rows):
        for j, entry in enumerate(row):
            try:
                flat.append(qq(entry))
            except QifError as error:
                raise type(error)(f"{what} entry ({i}, {j}): {error}") from None
    return DomainMatrix.from_list_flat(flat, shape, QQ)


def symbolic_matrix(
    rows: Sequence[Sequence[Any]], parameters: Sequence[sympy.Symbol], what: str = "matrix"
) -> DomainMatrix:
    """Build a matrix over the field ``QQ(parameters)`` from sympy expressions.

    Entries may be ints, exact rationals or sympy expressions that are rational functions of the
    given parameters. Strings are refused: symbolic input never comes from text.

    Raises
    ------
    NotExactError
        For a string, a float, or an expression that is not a rational function of `parameters`.
    """
    shape = _check_rectangular(rows, what)
    if not parameters or not all(isinstance(p, sympy.Symbol) for p in parameters):
        raise NotExactError(f"symbolic parameters must be sympy Symbols, got {parameters!r}")
    field = QQ.frac_field(*parameters)
    flat = []
    for i, row in enumerate(rows):
        for j, entry in enumerate(row):
            flat.append(_field_element(field, entry, f"{what} entry ({i}, {j})"))
    return DomainMatrix.from_list_flat(flat, shape, field)


def _field_element(field: Any, entry: Any, where: str) -> Any:
    """Convert one symbolic entry to an element of `field`."""
    if isinstance(entry, (str, bytes, float)):
        raise NotExactError(f"{where}: {entry!r} is not a sympy expression or an exact number")
    if not isinstance(entry, sympy.Basic):
        fraction = exact(entry)
        return field.convert(QQ(fraction.numerator, fraction.denominator))
    try:
        return field.from_sympy(entry)
    except (ValueError, sympy.CoercionFailed) as error:
        raise NotExactError(f"{where}: {entry} is not a rational function of {field.symbols}") from error


def float_matrix(rows: Any, what: str = "matrix") -> np.ndarray:
    """Build a read-only float64 matrix, refusing NaN and infinities."""
    array = np.array(rows, dtype=np.float64)
    if array.ndim != 2:
        if array.ndim == 1 and array.dtype == object:  # pragma: no cover - numpy raises first
            raise ShapeError(f"{what} is ragged")
        raise ShapeError(f"{what} must be two-dimensional, got shape {array.shape}")
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ShapeError(f"{what} is empty: shape {array.shape}")
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        i, j = (int(k) for k in bad[0])
        raise NotANumberError(f"{what} entry ({i}, {j}) is {array[i, j]}, not a finite number")
    array.flags.writeable = False
    return array


def same_kind(left: Matrix, right: Matrix, operation: str) -> tuple[Matrix, Matrix]:
    """Bring two matrices to a common kind, refusing to mix float with exact or symbolic.

    Exact and symbolic matrices are unified over the larger field, which loses nothing.
    """
    left_float = isinstance(left, np.ndarray)
    right_float = isinstance(right, np.ndarray)
    if left_float and right_float:
        return left, right
    if left_float or right_float:
        kinds = (kind_of(left).value, kind_of(right).value)
        raise NumberKindError(
            f"{operation} of a {kinds[0]} and a {kinds[1]} matrix would mix floats with exact "
            "values; convert one side explicitly (to_float() or to_exact())"
        )
    if left.domain == right.domain:
        return left, right
    return left.unify(right)


def equal(left: Matrix, right: Matrix) -> bool:
    """Exact equality of two matrices of the same kind, whatever their internal storage.

    (sympy compares a dense and a sparse DomainMatrix as different even with equal entries, so
    equality is decided on the difference.)
    """
    if shape_of(left) != shape_of(right):
        return False
    if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
        return isinstance(left, np.ndarray) and isinstance(right, np.ndarray) and bool(np.array_equal(left, right))
    left, right = same_kind(left, right, "comparison")
    return bool((left - right).is_zero_matrix)


def matmul(left: Matrix, right: Matrix) -> Matrix:
    """Matrix product of two qifkit matrices of compatible kinds and shapes."""
    left, right = same_kind(left, right, "product")
    if shape_of(left)[1] != shape_of(right)[0]:
        raise ShapeError(f"cannot multiply a {shape_of(left)} matrix by a {shape_of(right)} matrix")
    if isinstance(left, np.ndarray):
        return _read_only(left @ right)
    return left * right


def kron(left: Matrix, right: Matrix) -> Matrix:
    """Kronecker product (Alvim et al. 2023, Def. 16): entry ((x, x'), (y, y')) is A[x,y]·B[x',y'].

    Complexity: one multiplication per entry of the result, O(m·p·n·q).
    """
    left, right = same_kind(left, right, "Kronecker product")
    if isinstance(left, np.ndarray):
        return _read_only(np.kron(left, right))
    a_rows, b_rows = left.to_list(), right.to_list()
    flat = [a * b for row_a in a_rows for row_b in b_rows for a in row_a for b in row_b]
    shape = (len(a_rows) * len(b_rows), len(a_rows[0]) * len(b_rows[0]))
    return DomainMatrix.from_list_flat(flat, shape, left.domain)


def face_split(left: Matrix, right: Matrix) -> Matrix:
    """Row-wise Kronecker product: row x is A[x,:] ⊗ B[x,:] (parallel composition)."""
    left, right = same_kind(left, right, "parallel composition")
    if shape_of(left)[0] != shape_of(right)[0]:
        raise ShapeError(
            f"parallel composition needs the same secrets: {shape_of(left)[0]} rows vs {shape_of(right)[0]}"
        )
    if isinstance(left, np.ndarray):
        return _read_only(np.einsum("xi,xj->xij", left, right).reshape(left.shape[0], -1))
    flat = [a * b for row_a, row_b in zip(left.to_list(), right.to_list(), strict=True) for a in row_a for b in row_b]
    shape = (shape_of(left)[0], shape_of(left)[1] * shape_of(right)[1])
    return DomainMatrix.from_list_flat(flat, shape, left.domain)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def public_value(domain: Any, element: Any) -> Any:
    """Convert a domain element to the public type: Fraction (exact), sympy expression (symbolic)."""
    if domain == QQ:
        return reduced_fraction(element)
    return domain.to_sympy(element)


def public_rows(matrix: Matrix) -> list[list[Any]]:
    """Entries as nested lists of Fractions, sympy expressions or floats."""
    if isinstance(matrix, np.ndarray):
        return [[float(v) for v in row] for row in matrix]
    domain = matrix.domain
    return [[public_value(domain, v) for v in row] for row in matrix.to_list()]
