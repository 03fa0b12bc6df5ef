"""The polytopes of the papers as exact H-representations.

* :func:`ldp_polytope`: Holohan, Leith and Mason's local-DP polytope D (Def. 4): n×n stochastic
  matrices with a_ij ≤ e^ε·a_kj for all i, j, k (and a_ij ≥ 0, which is implied when ε > 0,
  Lemma 1). Its symmetry group is all row × column permutations (Thm. 3).
* :func:`count_polytope`: Kohli and Laskowski's U_ε (Def. 4) and, with a fixed point z, F_ε[z]
  (Def. 5): n×n row-stochastic count mechanisms T (rows are true counts) whose columns are
  ε-neighbour indistinguishable, e^−ε·T[i+1,j] ≤ T[i,j] ≤ e^ε·T[i+1,j], and z·T = z for F.
* :func:`representation_polytope`: R_U (Def. 18) and R_F (Def. 7): B ≥ 0 (scales × columns) with
  Ψ·B·1 = 1, and z·Ψ·B = z for R_F; Ψ maps it onto U or F (Thms. 3, 10).

Symmetries: U (and F, R_U, R_F when z is symmetric) are invariant under the reversal i → n−1−i
of rows and columns (for R_U, R_F: of the scales and the columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from polytopes.hrep import Polytope, SparsePolytope, SparseRow
from polytopes.scales import psi, scales
from qifkit.errors import DistributionError
from qifkit.numbers import exact
from qifkit.validation import eps_exp_above_one, whole_number

__all__ = ["ldp_polytope", "row_column_symmetries", "count_polytope", "count_program", "representation_polytope",
           "check_distribution"]


def row_column_symmetries(rows: int, columns: int) -> tuple[tuple[int, ...], ...]:
    """Generators of all row × column permutations of a rows×columns matrix, acting on its
    row-major entries: a transposition and a full cycle for rows, the same for columns."""
    def permutation(row_map: list[int], column_map: list[int]) -> tuple[int, ...]:
        image = [0] * (rows * columns)
        for i in range(rows):
            for j in range(columns):
                image[i * columns + j] = row_map[i] * columns + column_map[j]
        return tuple(image)

    identity_rows, identity_columns = list(range(rows)), list(range(columns))
    generators = []
    for size, is_row in ((rows, True), (columns, False)):
        if size < 2:
            continue
        swap = [1, 0] + list(range(2, size))
        cycle = [(k + 1) % size for k in range(size)]
        for mapping in (swap, cycle):
            generators.append(permutation(mapping, identity_columns) if is_row else permutation(identity_rows, mapping))
    return tuple(dict.fromkeys(generators))


def ldp_polytope(n: int, *, eps_exp: Any, nonnegativity: bool = True, columns: int | None = None) -> Polytope:
    """Holohan et al.'s local-DP polytope D for n values (Def. 4), exactly.

    Parameters
    ----------
    n : int
        Number of values (n ≥ 2).
    eps_exp : exact number or string
        e^ε ≥ 1 (e^ε = 1 is ε = 0, allowed: Cor. 2).
    nonnegativity : bool
        Include the rows a_ij ≥ 0 (redundant for ε > 0 by Lemma 1).
    columns : int, optional
        Number of outputs m (default n): the n×m polytope is the face of D where the other n − m
        columns are zero.

    Examples
    --------
    >>> ldp_polytope(2, eps_exp="2").shape
    (2, 2)
    """
    size = whole_number(n, 2, "n")
    width = size if columns is None else columns
    whole_number(width, 1, "columns", maximum=size)
    e = eps_exp_above_one(eps_exp, allow_one=True)
    d = size * width

    def index(i, j):  # column 0 is the constant
        return 1 + i * width + j

    equalities = []
    for i in range(size):
        row = [Fraction(0)] * (d + 1)
        row[0] = Fraction(-1)
        for j in range(width):
            row[index(i, j)] = Fraction(1)
        equalities.append(tuple(row))
    inequalities = []
    if nonnegativity:
        for k in range(d):
            row = [Fraction(0)] * (d + 1)
            row[1 + k] = Fraction(1)
            inequalities.append(tuple(row))
    for j in range(width):
        for i in range(size):
            for k in range(size):
                if i != k:
                    row = [Fraction(0)] * (d + 1)
                    row[index(k, j)] = e
                    row[index(i, j)] = Fraction(-1)
                    inequalities.append(tuple(row))
    return Polytope("LDP", (size, width), e, tuple(equalities), tuple(inequalities), row_column_symmetries(size, width))


def check_distribution(z: Sequence[Any] | None, n: int) -> tuple[Fraction, ...]:
    """A fixed point z: n exact non-negative numbers summing to 1 (default: uniform)."""
    if z is None:
        return tuple(Fraction(1, n) for _ in range(n))
    values = tuple(exact(v) for v in z)
    if len(values) != n:
        raise DistributionError(f"z has {len(values)} entries, n = {n}")
    negative = [v for v in values if v < 0]
    if negative:
        raise DistributionError(f"z has a negative entry {negative[0]}")
    if sum(values) != 1:
        raise DistributionError(f"z sums to {sum(values)}, not 1")
    return values


def _row(d: int, constant: Fraction, entries: dict[int, Fraction]) -> tuple[Fraction, ...]:
    row = [Fraction(0)] * (d + 1)
    row[0] = constant
    for k, v in entries.items():
        row[1 + k] += v
    return tuple(row)


def _reversal(rows: int, columns: int, row_map: Sequence[int]) -> tuple[int, ...]:
    """The permutation of row-major entries (i, j) -> (row_map[i], columns−1−j)."""
    return tuple(row_map[i] * columns + (columns - 1 - j) for i in range(rows) for j in range(columns))


def count_polytope(n: int, *, eps_exp: Any, z: Sequence[Any] | None = None, fixed: bool = False) -> Polytope:
    """U_ε (``fixed=False``) or F_ε[z] (``fixed=True``) of Kohli and Laskowski, exactly.

    Parameters
    ----------
    n : int
        The number of counts 0..n−1: points are n × n count mechanisms.
    eps_exp : exact number or str, keyword only
        e^ε > 1.
    z : sequence of exact numbers, optional
        The fixed point of F (a distribution on 0..n−1); uniform by default.
    fixed : bool
        F_ε[z] (z·T = z) instead of U_ε.

    Returns
    -------
    Polytope
        Exact H-representation with its symmetry group.

    Examples
    --------
    >>> count_polytope(3, eps_exp="2").name, count_polytope(3, eps_exp="2", fixed=True).name
    ('U', 'F')
    """
    size, e, point, equalities, inequalities = _count_rows(n, eps_exp, z, fixed)
    d = size * size
    symmetric = not fixed or point == point[::-1]
    symmetries = (_reversal(size, size, [size - 1 - i for i in range(size)]),) if symmetric else ()
    return Polytope("F" if fixed else "U", (size, size), e, tuple(_row(d, b, terms) for terms, b in equalities),
                    tuple(_row(d, b, terms) for terms, b in inequalities), symmetries, point if fixed else None)


def count_program(n: int, eps_exp: Any, z: Sequence[Any] | None = None, fixed: bool = False) -> SparsePolytope:
    """U_ε or F_ε[z] as sparse rows, in the order of :func:`count_polytope`'s rows, for LPs at n
    in the hundreds: the dense polytope at n = 100 holds 3·10⁸ entries (8 s to build and 10 s
    more to make sparse again).

    Examples
    --------
    >>> program = count_program(3, "2", fixed=True)
    >>> program.variables, len(program.equalities), len(program.inequalities)
    (9, 6, 21)
    """
    size, _, _, equalities, inequalities = _count_rows(n, eps_exp, z, fixed)
    return SparsePolytope(size * size, tuple(equalities), tuple(inequalities), "F" if fixed else "U")


def _count_rows(n: int, eps_exp: Any, z: Sequence[Any] | None, fixed: bool
                ) -> tuple[int, Fraction, tuple[Fraction, ...], list[SparseRow], list[SparseRow]]:
    """The checked n, e^ε and z, and the rows b + a·x (= 0, ≥ 0) of U or F: row sums, the fixed
    point (F only), then x ≥ 0 and the ε-DP ratios of neighbouring rows, column by column."""
    size, e = whole_number(n, 2, "n"), eps_exp_above_one(eps_exp, allow_one=False)
    point = check_distribution(z, size)

    def cell(i, j):
        return i * size + j

    one, minus_one, zero = Fraction(1), Fraction(-1), Fraction(0)  # shared by the 30,000 rows at n = 100
    equalities = [({cell(i, j): one for j in range(size)}, minus_one) for i in range(size)]
    if fixed:
        equalities += [({cell(i, j): point[i] for i in range(size) if point[i]}, -point[j]) for j in range(size)]
    inequalities = [({k: one}, zero) for k in range(size * size)]
    for j in range(size):
        for i in range(size - 1):
            inequalities.append(({cell(i + 1, j): e, cell(i, j): minus_one}, zero))
            inequalities.append(({cell(i, j): e, cell(i + 1, j): minus_one}, zero))
    return size, e, point, equalities, inequalities


def representation_polytope(n: int, *, eps_exp: Any, z: Sequence[Any] | None = None, fixed: bool = False) -> Polytope:
    """R_U (``fixed=False``, Def. 18) or R_F (``fixed=True``, Def. 7): representation matrices B
    (rows: the 2^(n−1) scales in the order of :func:`polytopes.scales.scales`, columns: outputs).

    Parameters
    ----------
    n : int
        The number of counts.
    eps_exp : exact number or str, keyword only
        e^ε > 1.
    z : sequence of exact numbers, optional
        The fixed point of R_F; uniform by default.
    fixed : bool
        R_F instead of R_U.

    Returns
    -------
    Polytope

    Examples
    --------
    >>> representation_polytope(3, eps_exp=2).shape  # 2^(3−1) scales × 3 outputs
    (4, 3)
    """
    size, e = whole_number(n, 2, "n"), eps_exp_above_one(eps_exp, allow_one=False)
    point = check_distribution(z, size)
    matrix = psi(size, e)
    k = len(matrix[0])
    d = k * size

    def cell(i, j):
        return i * size + j

    equalities = [
        _row(d, Fraction(-1), {cell(i, j): matrix[r][i] for i in range(k) for j in range(size)}) for r in range(size)
    ]
    if fixed:
        weight = [sum((point[r] * matrix[r][i] for r in range(size)), Fraction(0)) for i in range(k)]
        equalities += [_row(d, -point[j], {cell(i, j): weight[i] for i in range(k)}) for j in range(size)]
    inequalities = [_row(d, Fraction(0), {c: Fraction(1)}) for c in range(d)]
    all_scales = scales(size, e)
    mirror = [all_scales.index(tuple(reversed(s))) for s in all_scales]
    symmetric = not fixed or point == point[::-1]
    symmetries = (_reversal(k, size, mirror),) if symmetric else ()
    return Polytope(
        "RF" if fixed else "RU",
        (k, size),
        e,
        tuple(equalities),
        tuple(inequalities),
        symmetries,
        point if fixed else None,
    )
