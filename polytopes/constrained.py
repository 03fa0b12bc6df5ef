"""Constrained count mechanisms (Cormode, Kulkarni and Srivastava, ICDE 2018), exactly.

A mechanism on counts 0..n is an (n+1)×(n+1) matrix M with rows as inputs: M[j][i] = Pr[i | j]
(the paper's column-stochastic P[i][j], transposed). BasicDP (eqs. (4)-(6)): rows are
distributions and α·M[j+1][i] ≤ M[j][i] ≤ M[j+1][i]/α for neighbouring inputs. The seven
structural properties (§IV-A), in the paper's words and our indices:

* RH (row honesty, (7)): Pr[i|i] ≥ Pr[i|j]: in column i of M the diagonal is largest;
* RM (row monotone, (8)): column i of M rises to the diagonal and falls after it;
* CH (column honesty, (9)): Pr[j|j] ≥ Pr[i|j]: in row j of M the diagonal is largest;
* CM (column monotone, (10)): row j of M rises to the diagonal and falls after it;
* F (fairness, (11)): the diagonal is constant;
* WH (weak honesty, (13)): Pr[i|i] ≥ 1/(n+1);
* S (symmetry, (14)): Pr[i|j] = Pr[n−i|n−j] (centrosymmetric).

Optimal mechanisms for any subset are found by an exact LP (cddlib GMP rationals).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction
from typing import Any

import cdd
import cdd.gmp

from qifkit.channel import Channel
from qifkit.errors import LabelError, PrivacyParameterError, QifError, ShapeError
from qifkit.numbers import exact

__all__ = [
    "PROPERTIES",
    "property_violation",
    "properties_of",
    "optimal_mechanism",
    "symmetrised",
    "design_rows",
    "gupte_violation",
]

PROPERTIES = ("RH", "RM", "CH", "CM", "F", "WH", "S")

Constraint = tuple[dict[tuple[int, int], Fraction], Fraction, str]  # Σ c·M[j][i] + constant ≥ 0 (or = 0), label


def _check(n: Any, alpha: Any = None) -> tuple[int, Fraction | None]:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ShapeError(f"n must be a whole number >= 1, got {n!r}")
    if alpha is None:
        return n, None
    value = exact(alpha)
    if not 0 < value < 1:
        raise PrivacyParameterError(f"alpha = {value} is not in (0, 1)")
    return n, value


def _property_rows(n: int, name: str) -> tuple[list[Constraint], list[Constraint]]:
    """(inequalities, equalities) of one property, each Σ c·M[j][i] + constant (≥ or =) 0."""
    one = Fraction(1)
    ge = lambda big, small, label: ({big: one, small: -one} if big != small else {}, Fraction(0), label)  # noqa: E731
    inequalities: list[Constraint] = []
    equalities: list[Constraint] = []
    if name == "RH":
        inequalities = [ge((i, i), (j, i), f"Pr[{i}|{i}] >= Pr[{i}|{j}]") for i in range(n + 1) for j in range(n + 1) if i != j]
    elif name == "RM":
        for i in range(n + 1):
            inequalities += [ge((j, i), (j - 1, i), f"Pr[{i}|{j - 1}] <= Pr[{i}|{j}]") for j in range(1, i + 1)]
            inequalities += [ge((j, i), (j + 1, i), f"Pr[{i}|{j + 1}] <= Pr[{i}|{j}]") for j in range(i, n)]
    elif name == "CH":
        inequalities = [ge((j, j), (j, i), f"Pr[{j}|{j}] >= Pr[{i}|{j}]") for j in range(n + 1) for i in range(n + 1) if i != j]
    elif name == "CM":
        for j in range(n + 1):
            inequalities += [ge((j, i), (j, i - 1), f"Pr[{i - 1}|{j}] <= Pr[{i}|{j}]") for i in range(1, j + 1)]
            inequalities += [ge((j, i), (j, i + 1), f"Pr[{i + 1}|{j}] <= Pr[{i}|{j}]") for i in range(j, n)]
    elif name == "F":
        equalities = [({(i, i): one, (0, 0): -one}, Fraction(0), f"Pr[{i}|{i}] = Pr[0|0]") for i in range(1, n + 1)]
    elif name == "WH":
        inequalities = [({(i, i): one}, Fraction(-1, n + 1), f"Pr[{i}|{i}] >= 1/{n + 1}") for i in range(n + 1)]
    elif name == "S":
        equalities = [({(j, i): one, (n - j, n - i): -one}, Fraction(0), f"Pr[{i}|{j}] = Pr[{n - i}|{n - j}]")
                      for j in range(n + 1) for i in range(n + 1) if (j, i) < (n - j, n - i)]
    else:
        raise LabelError(f"unknown property {name!r}; the properties are {', '.join(PROPERTIES)}")
    return [c for c in inequalities if c[0]], equalities


def _value(rows: Sequence[Sequence[Fraction]], constraint: Constraint) -> Fraction:
    coefficients, constant, _ = constraint
    return constant + sum(c * rows[j][i] for (j, i), c in coefficients.items())


def property_violation(mechanism: Channel | Sequence[Sequence[Any]], name: str) -> str | None:
    """The first inequality of property `name` that the mechanism violates, or None if it holds."""
    rows = mechanism.rows() if isinstance(mechanism, Channel) else [[exact(v) for v in row] for row in mechanism]
    n = len(rows) - 1
    inequalities, equalities = _property_rows(n, name)
    for constraint in inequalities:
        if _value(rows, constraint) < 0:
            return constraint[2]
    for constraint in equalities:
        if _value(rows, constraint) != 0:
            return constraint[2]
    return None


def properties_of(mechanism: Channel | Sequence[Sequence[Any]]) -> dict[str, str | None]:
    """Every property with its first violated inequality (None where the property holds)."""
    return {name: property_violation(mechanism, name) for name in PROPERTIES}


def design_rows(n: int, alpha: Any, properties: Collection[str] = ()) -> tuple[list[list[Fraction]], list[int]]:
    """The LP of BasicDP plus the properties, in cdd's rows (b + a·x ≥ 0) over M row-major, and
    the indices of its equality rows."""
    n, a = _check(n, alpha)
    size = (n + 1) ** 2
    cell = lambda j, i: 1 + j * (n + 1) + i  # noqa: E731
    rows: list[list[Fraction]] = []
    linear: list[int] = []

    def add(coefficients: dict[tuple[int, int], Fraction], constant: Fraction, equality: bool) -> None:
        row = [Fraction(0)] * (size + 1)
        row[0] = constant
        for (j, i), c in coefficients.items():
            row[cell(j, i)] += c
        if equality:
            linear.append(len(rows))
        rows.append(row)

    for j in range(n + 1):
        add({(j, i): Fraction(1) for i in range(n + 1)}, Fraction(-1), True)
        for i in range(n + 1):
            add({(j, i): Fraction(1)}, Fraction(0), False)
    for j in range(n):
        for i in range(n + 1):
            add({(j, i): Fraction(1), (j + 1, i): -a}, Fraction(0), False)
            add({(j + 1, i): Fraction(1), (j, i): -a}, Fraction(0), False)
    for name in sorted(set(properties)):
        inequalities, equalities = _property_rows(n, name)
        for coefficients, constant, _ in inequalities:
            add(coefficients, constant, False)
        for coefficients, constant, _ in equalities:
            add(coefficients, constant, True)
    return rows, linear


def optimal_mechanism(n: int, alpha: Any, properties: Collection[str] = (), p: int = 0,
                      weights: Sequence[Any] | None = None) -> tuple[Fraction, Channel]:
    """An exact optimum of O_{p,Σ} (Def. 3; p = 0 gives the rescaled L0 of eq. (1)) under BasicDP and
    the properties, and its value. Exact LP in GMP rationals (cddlib); for L0 the value is L0.

    Raises
    ------
    LabelError
        For an unknown property.
    QifError
        If the LP is infeasible (it never is: UM meets every property, Thm. 2).
    """
    n, _ = _check(n, alpha)
    w = [Fraction(1, n + 1)] * (n + 1) if weights is None else [exact(v) for v in weights]
    rows, linear = design_rows(n, alpha, properties)
    objective = [Fraction(0)] * ((n + 1) ** 2 + 1)
    for j in range(n + 1):
        for i in range(n + 1):
            if i != j:
                objective[1 + j * (n + 1) + i] = w[j] * abs(i - j) ** p
    scale = Fraction(n + 1, n) if p == 0 and weights is None else Fraction(1)
    matrix = cdd.gmp.matrix_from_array(rows, lin_set=linear, rep_type=cdd.RepType.INEQUALITY,
                                       obj_type=cdd.LPObjType.MIN, obj_func=objective)
    program = cdd.gmp.linprog_from_matrix(matrix)
    cdd.gmp.linprog_solve(program)
    if program.status != cdd.LPStatusType.OPTIMAL:
        raise QifError(f"the design LP is not solvable (status {program.status.name})")
    solution = [Fraction(v) for v in program.primal_solution]
    mechanism = Channel.from_rows([solution[j * (n + 1):(j + 1) * (n + 1)] for j in range(n + 1)])
    return Fraction(program.obj_value) * scale, mechanism


def symmetrised(mechanism: Channel) -> Channel:
    """M* = (M + M^rev)/2 with M^rev[j][i] = M[n−j][n−i] (the construction behind Thm. 1)."""
    rows = mechanism.rows()
    n = len(rows) - 1
    return Channel.from_rows([[(rows[j][i] + rows[n - j][n - i]) / 2 for i in range(n + 1)] for j in range(n + 1)])


def gupte_violation(mechanism: Channel, alpha: Any) -> str | None:
    """Gupte and Sundararajan's test (as stated in Cormode et al. §IV-D): a mechanism can be derived
    from GM iff every three adjacent entries satisfy
    Pr[i|j] − α·Pr[i|j−1] ≥ α·(Pr[i|j+1] − α·Pr[i|j]). Returns the first violated instance or None."""
    a = exact(alpha)
    rows = mechanism.rows()
    n = len(rows) - 1
    for i in range(n + 1):
        for j in range(1, n):
            if rows[j][i] - a * rows[j - 1][i] < a * (rows[j + 1][i] - a * rows[j][i]):
                return f"i={i}, j={j}: Pr[{i}|{j}] − α·Pr[{i}|{j - 1}] < α·(Pr[{i}|{j + 1}] − α·Pr[{i}|{j}])"
    return None
