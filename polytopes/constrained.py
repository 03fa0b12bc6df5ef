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

from polytopes.hrep import SparsePolytope
from polytopes.lp import certified_minimum, exact_minimum
from qifkit.channel import Channel
from qifkit.count_objectives import objective_coefficients
from qifkit.errors import InternalError, LabelError
from qifkit.lp import collector_paused
from qifkit.numbers import exact
from qifkit.validation import alpha_in_unit_interval, whole_number

__all__ = [
    "PROPERTIES",
    "property_violation",
    "properties_of",
    "optimal_mechanism",
    "symmetrised",
    "design_program",
    "weakly_honest_mechanism",
    "recommend",
    "gupte_violation",
]

#: Cormode et al.'s seven structural properties of a count mechanism (§IV-A): row and column
#: honesty and monotonicity (RH, RM, CH, CM), fairness (F), weak honesty (WH) and symmetry (S).
PROPERTIES = ("RH", "RM", "CH", "CM", "F", "WH", "S")

#: Σ c·M[j][i] + constant ≥ 0 (or = 0), and its label as a format string with its arguments (formatted
#: only when a violation is reported: the design LP at n = 100 has 10⁵ constraints).
Constraint = tuple[dict[tuple[int, int], Fraction], Fraction, tuple[str, tuple[int, ...]]]


def _size_and_alpha(n: Any, alpha: Any) -> tuple[int, Fraction]:
    return whole_number(n, 1, "n"), alpha_in_unit_interval(alpha)


def _property_rows(n: int, name: str) -> tuple[list[Constraint], list[Constraint]]:
    """(inequalities, equalities) of one property, each Σ c·M[j][i] + constant (≥ or =) 0."""
    one, minus_one, zero = Fraction(1), Fraction(-1), Fraction(0)  # shared: 10⁵ constraints at n = 100

    def ge(big, small, label):
        return ({big: one, small: minus_one} if big != small else {}, zero, label)

    inequalities: list[Constraint] = []
    equalities: list[Constraint] = []
    if name == "RH":
        inequalities = [ge((i, i), (j, i), ("Pr[{0}|{0}] >= Pr[{0}|{1}]", (i, j)))
                        for i in range(n + 1) for j in range(n + 1) if i != j]
    elif name == "RM":
        for i in range(n + 1):
            inequalities += [
                ge((j, i), (j - 1, i), ("Pr[{0}|{1}] <= Pr[{0}|{2}]", (i, j - 1, j))) for j in range(1, i + 1)
            ]
            inequalities += [ge((j, i), (j + 1, i), ("Pr[{0}|{1}] <= Pr[{0}|{2}]", (i, j + 1, j))) for j in range(i, n)]
    elif name == "CH":
        inequalities = [ge((j, j), (j, i), ("Pr[{0}|{0}] >= Pr[{1}|{0}]", (j, i)))
                        for j in range(n + 1) for i in range(n + 1) if i != j]
    elif name == "CM":
        for j in range(n + 1):
            inequalities += [
                ge((j, i), (j, i - 1), ("Pr[{0}|{2}] <= Pr[{1}|{2}]", (i - 1, i, j))) for i in range(1, j + 1)
            ]
            inequalities += [ge((j, i), (j, i + 1), ("Pr[{0}|{2}] <= Pr[{1}|{2}]", (i + 1, i, j))) for i in range(j, n)]
    elif name == "F":
        equalities = [({(i, i): one, (0, 0): -one}, zero, ("Pr[{0}|{0}] = Pr[0|0]", (i,))) for i in range(1, n + 1)]
    elif name == "WH":
        inequalities = [
            ({(i, i): one}, Fraction(-1, n + 1), ("Pr[{0}|{0}] >= 1/{1}", (i, n + 1))) for i in range(n + 1)
        ]
    elif name == "S":
        equalities = [({(j, i): one, (n - j, n - i): -one}, zero, ("Pr[{0}|{1}] = Pr[{2}|{3}]", (i, j, n - i, n - j)))
                      for j in range(n + 1) for i in range(n + 1) if (j, i) < (n - j, n - i)]
    else:
        raise LabelError(f"unknown property {name!r}; the properties are {', '.join(PROPERTIES)}")
    return [c for c in inequalities if c[0]], equalities


def _label(constraint: Constraint) -> str:
    template, arguments = constraint[2]
    return template.format(*arguments)


def _value(rows: Sequence[Sequence[Fraction]], constraint: Constraint) -> Fraction:
    coefficients, constant, _ = constraint
    return constant + sum(c * rows[j][i] for (j, i), c in coefficients.items())


def property_violation(mechanism: Channel | Sequence[Sequence[Any]], name: str) -> str | None:
    """The first inequality of property `name` (one of :data:`PROPERTIES`, Cormode et al. §IV-A) that
    the mechanism violates, or None if it holds.

    Parameters
    ----------
    mechanism : Channel or sequence of rows
        A square count mechanism on 0..n, rows are true counts.
    name : str
        One of :data:`PROPERTIES`.

    Returns
    -------
    str or None
        The violated inequality, written out, or None.

    Examples
    --------
    Fairness (F: every true count is reported correctly with the same probability) holds for the
    uniform mechanism and fails for GM, whose corners keep more mass:

    >>> from qifkit import geometric_mechanism, uniform_mechanism
    >>> property_violation(uniform_mechanism(2), "F") is None
    True
    >>> property_violation(geometric_mechanism(2, alpha="1/2"), "F") is None
    False
    """
    rows = mechanism.rows() if isinstance(mechanism, Channel) else [[exact(v) for v in row] for row in mechanism]
    n = len(rows) - 1
    inequalities, equalities = _property_rows(n, name)
    for constraint in inequalities:
        if _value(rows, constraint) < 0:
            return _label(constraint)
    for constraint in equalities:
        if _value(rows, constraint) != 0:
            return _label(constraint)
    return None


def properties_of(mechanism: Channel | Sequence[Sequence[Any]]) -> dict[str, str | None]:
    """Every property of :data:`PROPERTIES` with its first violated inequality (None where it holds);
    see :func:`property_violation`.

    Parameters
    ----------
    mechanism : Channel or sequence of rows
        A square count mechanism on 0..n, rows are true counts.

    Returns
    -------
    dict
        Property name → its first violated inequality, or None where it holds.
    """
    return {name: property_violation(mechanism, name) for name in PROPERTIES}


def design_program(n: int, *, alpha: Any, properties: Collection[str] = (), extra_variables: int = 0) -> SparsePolytope:
    """BasicDP (eqs. (4)-(6)) plus the properties as a sparse LP over M row-major (variable
    j·(n+1) + i is M[j][i] = Pr[i | j]); `extra_variables` free variables follow (for a max objective).

    Parameters
    ----------
    n : int
        The largest count: M is (n + 1) × (n + 1).
    alpha : exact number or str, keyword only
        α = e^−ε in (0, 1) (Cormode et al.'s parameter).
    properties : collection of str
        Names from :data:`PROPERTIES`.
    extra_variables : int
        Free variables after M's entries.

    Returns
    -------
    SparsePolytope

    Examples
    --------
    Counts 0..2: nine entries, three row sums, nine signs and twelve DP ratios:

    >>> program = design_program(2, alpha="1/2")
    >>> program.variables, len(program.equalities), len(program.inequalities)
    (9, 3, 21)
    """
    n, a = _size_and_alpha(n, alpha)

    def cell(j, i):
        return j * (n + 1) + i

    one, zero, minus_a = Fraction(1), Fraction(0), -a  # shared by the 10⁵ rows at n = 100
    with collector_paused():  # 10⁵ rows at n = 100, no cycles among them
        equalities = [({cell(j, i): one for i in range(n + 1)}, -one) for j in range(n + 1)]
        inequalities = [({cell(j, i): one}, zero) for j in range(n + 1) for i in range(n + 1)]
        for j in range(n):
            for i in range(n + 1):
                inequalities.append(({cell(j, i): one, cell(j + 1, i): minus_a}, zero))
                inequalities.append(({cell(j + 1, i): one, cell(j, i): minus_a}, zero))
        for name in sorted(set(properties)):
            more, fixed = _property_rows(n, name)
            inequalities += [({cell(*k): v for k, v in terms.items()}, constant) for terms, constant, _ in more]
            equalities += [({cell(*k): v for k, v in terms.items()}, constant) for terms, constant, _ in fixed]
    return SparsePolytope((n + 1) ** 2 + extra_variables, tuple(equalities), tuple(inequalities), "design")


def optimal_mechanism(n: int, *, alpha: Any, properties: Collection[str] = (), p: int = 0,
                      weights: Sequence[Any] | None = None, aggregate: str = "sum", min_distance: int = 0,
                      method: str = "exact") -> tuple[Fraction, Channel]:
    """An exact optimum of O_{p,⊕} (Def. 3) under BasicDP and the properties, and its value.

    Parameters
    ----------
    n : int
        The largest count.
    alpha : exact number or str, keyword only
        α = e^−ε in (0, 1) (Cormode et al.'s parameter).
    properties : collection of str
        Names from :data:`PROPERTIES`.
    p : int
        0 (L0: a wrong answer costs 1; with uniform weights and the sum the value is rescaled to the
        L0 of eq. (1)), 1 (L1) or 2 (L2).
    weights : sequence, optional
        w_j for each input (default uniform 1/(n+1)).
    aggregate : {"sum", "max"}
        Σ_j or max_j of the per-input cost w_j·Σ_i Pr[i|j]·abs(i−j)^p (max via an extra variable t).
    min_distance : int
        Only outputs with abs(i − j) ≥ d cost (L0,d; d = 0 or 1 is plain L0).
    method : {"exact", "cdd"}
        The toolkit's exact LP engine (:func:`polytopes.lp.certified_minimum`: HiGHS's basis
        solved and certified exactly; ``"certified"`` is the same route by its older name), which
        scales to n in the hundreds; or cddlib's exact simplex alone, the independent route
        for cross-checks.

    Returns
    -------
    (Fraction, Channel)
        The optimal value and an optimal mechanism (rows are true counts), both exact.

    Raises
    ------
    LabelError
        For an unknown property, aggregate or method.
    QifError
        If the LP is infeasible (it never is: UM meets every property, Thm. 2).

    Examples
    --------
    Counts 0..1 at α = 1/2: GM is L0-optimal (Thm. 3), reporting the truth with probability 2/3:

    >>> value, mechanism = optimal_mechanism(1, alpha="1/2")
    >>> value, mechanism.rows()[0]
    (Fraction(2, 3), [Fraction(2, 3), Fraction(1, 3)])
    """
    n, _ = _size_and_alpha(n, alpha)
    if aggregate not in ("sum", "max"):
        raise LabelError(f"aggregate must be 'sum' or 'max', got {aggregate!r}")
    if method not in ("exact", "certified", "cdd"):
        raise LabelError(f"method must be 'exact' or 'cdd', got {method!r}")
    if p not in (0, 1, 2) or isinstance(p, bool):
        raise LabelError(f"p must be 0, 1 or 2 (L0, L1, L2), got {p!r}")
    size = (n + 1) ** 2
    coefficients = objective_coefficients(n, p, weights, min_distance)
    cost = {j: {j * (n + 1) + i: c for i, c in enumerate(row) if c} for j, row in enumerate(coefficients)}
    program = design_program(n, alpha=alpha, properties=properties, extra_variables=int(aggregate == "max"))
    objective = [Fraction(0)] * program.variables
    if aggregate == "sum":
        for terms in cost.values():
            for k, v in terms.items():
                objective[k] = v
    else:  # t ≥ cost_j for every j; minimise t
        objective[size] = Fraction(1)
        bounds = tuple(
            ({size: Fraction(1), **{k: -v for k, v in terms.items()}}, Fraction(0)) for terms in cost.values()
        )
        program = SparsePolytope(program.variables, program.equalities, program.inequalities + bounds, "design")
    result = (exact_minimum if method == "cdd" else certified_minimum)(program, objective)
    scale = (
        Fraction(n + 1, n) if p == 0 and weights is None and aggregate == "sum" and min_distance <= 1 else Fraction(1)
    )
    value, solution = result.optimum()
    mechanism = Channel.from_rows([list(solution[j * (n + 1):(j + 1) * (n + 1)]) for j in range(n + 1)])
    return value * scale, mechanism


def weakly_honest_mechanism(n: int, *, alpha: Any) -> Channel:
    """WM: an L0-optimal mechanism with WH, RM and CM (Cormode et al. §V-A), taken symmetric. The
    optimum is not unique; by Thm. 1 a symmetric one costs the same, which is checked.

    Parameters
    ----------
    n : int
        The largest count.
    alpha : exact number or str, keyword only
        α = e^−ε in (0, 1).

    Returns
    -------
    Channel

    Raises
    ------
    InternalError
        If a symmetric optimum cost more than the optimum (it cannot, by Thm. 1).
    """
    value, mechanism = optimal_mechanism(n, alpha=alpha, properties=["WH", "RM", "CM", "S"])
    if value != optimal_mechanism(n, alpha=alpha, properties=["WH", "RM", "CM"])[0]:
        raise InternalError(f"symmetric WM at n={n}, α={alpha} costs more than the WM optimum (contradicts Thm. 1)")
    return mechanism


def recommend(n: int, *, alpha: Any, properties: Collection[str] = ()) -> tuple[str, Channel]:
    """Which mechanism to use for L0 under these properties (Cormode et al. §IV-D, Fig. 5).

    Fairness wanted: EM (Thm. 4). Otherwise for α ≤ 1/2: GM. For α > 1/2: a column property (CH or
    CM) needs the WH + CM LP optimum (WM); weak honesty alone needs the WH LP optimum unless
    n ≥ 2α/(1−α), where GM is weakly honest (Lemma 2); anything else: GM (Thm. 3). The two LP
    optima are solved with the requested properties added, which by §IV-D costs nothing extra.

    Returns
    -------
    (name, mechanism)
        name is ``"EM"``, ``"GM"``, ``"WM"`` (the WH + CM optimum) or ``"WH-LP"``.

    Parameters
    ----------
    n : int
        The largest count.
    alpha : exact number or str, keyword only
        α = e^−ε in (0, 1).
    properties : collection of str
        The properties wanted, from :data:`PROPERTIES`.

    Examples
    --------
    >>> asked = (("10/11", ["RM", "S"]), ("10/11", ["CH"]), ("1/2", ["CM"]))
    >>> [recommend(4, alpha=alpha, properties=properties)[0] for alpha, properties in asked]
    ['GM', 'WM', 'GM']
    """
    from qifkit.mechanisms import explicit_fair_mechanism, geometric_mechanism

    n, a = _size_and_alpha(n, alpha)
    unknown = set(properties) - set(PROPERTIES)
    if unknown:
        raise LabelError(f"unknown property {sorted(unknown)[0]!r}; the properties are {', '.join(PROPERTIES)}")
    wanted = set(properties)
    if "F" in wanted:
        return "EM", explicit_fair_mechanism(n, alpha=a)
    if a > Fraction(1, 2) and wanted & {"CH", "CM"}:
        return "WM", optimal_mechanism(n, alpha=a, properties={"WH", "CM"} | wanted)[1]
    if a > Fraction(1, 2) and "WH" in wanted and n < 2 * a / (1 - a):
        return "WH-LP", optimal_mechanism(n, alpha=a, properties={"WH"} | wanted)[1]
    return "GM", geometric_mechanism(n, alpha=a)


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
