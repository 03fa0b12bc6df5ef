"""The mechanism families of the papers, built exactly (or symbolically) as channels.

Every family takes its privacy parameter exactly and by keyword only (``randomized_response(3, 2)``
would leave a reader guessing whether 2 is ε or e^ε): ``eps_exp=`` is e^ε, ``alpha=`` is e^−ε, and
``epsilon=`` is ε itself as ``"ln(x)"``. ``eps_exp`` and ``alpha`` may be an int, a Fraction, a number
string (``"7/2"``), or a sympy Symbol for a symbolic channel. Rows are inputs in every result;
Cormode et al.'s column-stochastic pictures are the transposes.

>>> randomized_response(3, epsilon="ln(2)") == randomized_response(3, eps_exp=2)
True

References
----------
.. [1] Alvim et al., CCS 2023: Def. 11 (randomised response), Def. 12 with §7.1 and eq. (20)
   (truncated geometric).
.. [2] G. Cormode, T. Kulkarni, D. Srivastava, "Constrained Differential Privacy for Count Data",
   ICDE 2018: Def. 4 and Fig. 3 (GM), eq. (16) and Fig. 4 (EM), Def. 5 (UM), eq. (2)
   (exponential mechanism).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

import sympy
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel
from qifkit.errors import NotExactError, ParameterError, PrivacyParameterError, ShapeError
from qifkit.numbers import eps_exp_of_epsilon, exact, reduced_fraction
from qifkit.validation import alpha_in_unit_interval, eps_exp_above_one, whole_number

__all__ = [
    "privacy_alpha",
    "randomized_response",
    "truncated_geometric",
    "geometric_mechanism",
    "explicit_fair_mechanism",
    "uniform_mechanism",
    "exponential_mechanism",
]


def privacy_alpha(*, eps_exp: Any = None, alpha: Any = None, epsilon: Any = None) -> tuple[Any, Any]:
    """Resolve a privacy parameter to ``(domain, α)`` with α = e^−ε, checking ε > 0.

    Exactly one of `eps_exp` (e^ε), `alpha` (e^−ε) and `epsilon` (ε itself, as ``"ln(x)"`` or a
    sympy expression with a rational exponential: :func:`qifkit.numbers.eps_exp_of_epsilon`) must be
    given. A sympy Symbol as `eps_exp` or `alpha` gives a symbolic α in the field ``QQ(symbol)``; its
    range (ε > 0) is then an assumption.

    Raises
    ------
    PrivacyParameterError
        If none or more than one is given, or e^ε ≤ 1 (α ≥ 1 or α ≤ 0).
    NotExactError
        If `epsilon` has an irrational exponential.
    """
    if sum(given is not None for given in (eps_exp, alpha, epsilon)) != 1:
        raise PrivacyParameterError("give exactly one of eps_exp (e^ε), alpha (e^-ε) and epsilon (ε, as \"ln(x)\")")
    if epsilon is not None:
        eps_exp = eps_exp_of_epsilon(epsilon)
    given = eps_exp if alpha is None else alpha
    if isinstance(given, sympy.Symbol):
        field = QQ.frac_field(given)
        symbol = field.from_sympy(given)
        return field, (1 / symbol if alpha is None else symbol)
    if isinstance(given, sympy.Basic) and not given.is_Rational:
        raise NotExactError(f"privacy parameter {given} is neither a Symbol nor an exact rational")
    value = 1 / eps_exp_above_one(eps_exp) if alpha is None else alpha_in_unit_interval(alpha)
    return QQ, QQ(value.numerator, value.denominator)


def _channel(domain: Any, rows: list[list[Any]], labels: Sequence[Hashable] | None) -> Channel:
    """Wrap mechanism rows (domain elements) in a validated channel."""
    shape = (len(rows), len(rows[0]))
    matrix = DomainMatrix(rows, shape, domain)
    return Channel._validated(matrix, labels, labels)


def randomized_response(
    values: int, *, eps_exp: Any = None, alpha: Any = None, epsilon: Any = None,
    labels: Sequence[Hashable] | None = None,
) -> Channel:
    """Randomised response RR_ε^K on K = `values` values (Alvim et al. Def. 11, Fig. 2).

    Entry (r, c) is p + p̄/K if r = c and p̄/K otherwise, with Kp/p̄ + 1 = e^ε; solved, the
    diagonal is e^ε/(e^ε + K − 1) and every other entry 1/(e^ε + K − 1).

    Parameters
    ----------
    values : int
        K ≥ 2, the number of values (secrets and reports alike, labelled 0..K−1 unless `labels`).
    eps_exp, alpha, epsilon : exact number, str or sympy Symbol, keyword only
        Exactly one: e^ε > 1, α = e^−ε in (0, 1), or ε itself as ``"ln(x)"``. A Symbol gives the
        channel as rational functions of it (the gate's exact route follows those).
    labels : sequence of hashable, optional
        The values' labels, for rows and columns alike.

    Returns
    -------
    Channel
        K × K, exact (or symbolic), rows are true values.

    Raises
    ------
    PrivacyParameterError
        If none or more than one privacy parameter is given, or e^ε ≤ 1.
    ShapeError
        If `values` is not a whole number ≥ 2.

    Examples
    --------
    >>> randomized_response(3, eps_exp="2").rows()[0]
    [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    """
    count = whole_number(values, 2, "randomized response values")
    domain, a = privacy_alpha(eps_exp=eps_exp, alpha=alpha, epsilon=epsilon)
    denominator = 1 + (count - 1) * a
    diagonal, other = 1 / denominator, a / denominator
    rows = [[diagonal if r == c else other for c in range(count)] for r in range(count)]
    return _channel(domain, rows, labels)


def truncated_geometric(
    values: int, *, eps_exp: Any = None, alpha: Any = None, epsilon: Any = None,
    labels: Sequence[Hashable] | None = None,
) -> Channel:
    """The truncated α-geometric mechanism GD_α on `values` values 0..n−1 (Alvim et al. Def. 12).

    The printed formula of Def. 12 is garbled; the matrices G2, G3 of §7.1 and eq. (20) fix it:
    interior columns (1−α)/(1+α)·α^|r−c|, first column α^r/(1+α), last column α^(n−1−r)/(1+α).
    It equals Cormode et al.'s GM with n = values − 1 (transposed).

    Parameters
    ----------
    values : int
        K ≥ 2, the number of values (secrets and reports alike, labelled 0..K−1 unless `labels`).
    eps_exp, alpha, epsilon : exact number, str or sympy Symbol, keyword only
        Exactly one: e^ε > 1, α = e^−ε in (0, 1), or ε itself as ``"ln(x)"``. A Symbol gives the
        channel as rational functions of it (the gate's exact route follows those).
    labels : sequence of hashable, optional
        The values' labels, for rows and columns alike.

    Returns
    -------
    Channel
        K × K, exact (or symbolic), rows are true values.

    Raises
    ------
    PrivacyParameterError
        If none or more than one privacy parameter is given, or e^ε ≤ 1.
    ShapeError
        If `values` is not a whole number ≥ 2.

    Examples
    --------
    >>> truncated_geometric(3, alpha="1/2").rows()[1]
    [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    """
    count = whole_number(values, 2, "geometric mechanism values")
    domain, a = privacy_alpha(eps_exp=eps_exp, alpha=alpha, epsilon=epsilon)
    last = count - 1

    def entry(r: int, c: int) -> Any:
        if c == 0:
            return a**r / (1 + a)
        if c == last:
            return a ** (last - r) / (1 + a)
        return (1 - a) / (1 + a) * a ** abs(r - c)

    return _channel(domain, [[entry(r, c) for c in range(count)] for r in range(count)], labels)


def geometric_mechanism(n: int, *, alpha: Any = None, eps_exp: Any = None, epsilon: Any = None) -> Channel:
    """Cormode et al.'s range-restricted geometric mechanism GM for counts 0..n (Def. 4, Fig. 3).

    Returned with rows as inputs: row j is the distribution of the output given true count j.
    Fig. 3 (columns as inputs) has x = 1/(1+α) in the corners and y = (1−α)/(1+α) inside.

    Parameters
    ----------
    n : int
        The largest count (Cormode et al.'s n): the mechanism is (n + 1) × (n + 1).
    alpha, eps_exp, epsilon : exact number or str, keyword only
        Exactly one: α = e^−ε in (0, 1), e^ε > 1, or ε as ``"ln(x)"``.

    Returns
    -------
    Channel
        The same matrix as :func:`truncated_geometric` on n + 1 values.

    Examples
    --------
    >>> geometric_mechanism(2, alpha="1/2").rows()[0]  # 1/(1+α), (1−α)/(1+α)·α, α²/(1+α)
    [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)]
    """
    return truncated_geometric(whole_number(n, 1, "GM size n") + 1, eps_exp=eps_exp, alpha=alpha, epsilon=epsilon)


def explicit_fair_mechanism(n: int, *, alpha: Any = None, eps_exp: Any = None, epsilon: Any = None) -> Channel:
    """Cormode et al.'s explicit fair mechanism EM for counts 0..n (eq. (16), Fig. 4).

    Pr[i | j] = y·α^d if d < min(j, n−j), else y·α^⌈(d + min(j, n−j))/2⌉ where d = abs(i − j), with y chosen
    so that each distribution sums to 1 (every input has the same multiset of powers; for even n
    this is eq. (15), y = (1−α)/(1+α−2α^(n/2+1))). Rows are inputs j.

    Parameters
    ----------
    n : int
        The largest count (Cormode et al.'s n): the mechanism is (n + 1) × (n + 1).
    alpha, eps_exp, epsilon : exact number, str or sympy Symbol, keyword only
        Exactly one: α = e^−ε in (0, 1), e^ε > 1, or ε as ``"ln(x)"``.

    Returns
    -------
    Channel
        Rows are true counts, exact (or symbolic).

    Examples
    --------
    >>> explicit_fair_mechanism(4, alpha="10/11").entry(2, 2)
    Fraction(121, 541)
    """
    size = whole_number(n, 1, "EM size n")
    domain, a = privacy_alpha(eps_exp=eps_exp, alpha=alpha, epsilon=epsilon)

    def power(i: int, j: int) -> int:
        distance, edge = abs(i - j), min(j, size - j)
        return distance if distance < edge else math.ceil(Fraction(distance + edge, 2))

    y = 1 / sum((a ** power(i, 0) for i in range(size + 1)), domain.zero)
    rows = [[y * a ** power(i, j) for i in range(size + 1)] for j in range(size + 1)]
    return _channel(domain, rows, None)


def uniform_mechanism(n: int) -> Channel:
    """Cormode et al.'s uniform mechanism UM (Def. 5): every count 0..n with probability 1/(n+1),
    whatever the input (0-DP, and of no use: the baseline of their figures).

    Parameters
    ----------
    n : int
        The largest count: the mechanism is (n + 1) × (n + 1).

    Returns
    -------
    Channel

    Examples
    --------
    >>> uniform_mechanism(2).rows()[1]
    [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    """
    size = whole_number(n, 1, "UM size n")
    share = QQ(1, size + 1)
    return _channel(QQ, [[share] * (size + 1) for _ in range(size + 1)], None)


def _exact_root(value: Fraction, degree: int) -> Fraction | None:
    """The exact positive `degree`-th root of a positive rational, or None if it is irrational."""
    parts = [sympy.integer_nthroot(part, degree) for part in (value.numerator, value.denominator)]
    if not all(is_exact for _, is_exact in parts):
        return None
    return Fraction(int(parts[0][0]), int(parts[1][0]))


#: The most bits the exact weights of :func:`exponential_mechanism` may take together (about
#: 125 MB; a 40 × 40 quality of entries 10^7 at e^ε = 4 would take 1.6·10^10 bits and a minute).
MAX_EXPONENTIAL_BITS = 10**9


def exponential_mechanism(
    quality: Sequence[Sequence[Any]],
    *,
    eps_exp: Any = None,
    epsilon: Any = None,
    sensitivity: Any = 1,
    secrets: Sequence[Hashable] | None = None,
    outputs: Sequence[Hashable] | None = None,
) -> Channel:
    """The exponential mechanism (McSherry-Talwar; Cormode et al. eq. (2)) for a quality matrix.

    Pr[r | d] ∝ exp(ε·Q(d, r)/(2s)) = (e^ε)^(Q(d, r)/(2s)). The result is exact when e^ε has an
    exact root of the degree that the exponents Q/(2s) need (e.g. integer Q, s = 1 and
    e^ε = 4 give base 2); otherwise the value is irrational and the call is refused.

    Parameters
    ----------
    quality : rows of exact numbers
        ``quality[d][r]``, rows are inputs d, columns outputs r.
    eps_exp : exact number or number string
        e^ε, above 1 (keyword only, as every privacy parameter of qifkit).
    epsilon : str or sympy expression
        Or ε itself, ``"ln(x)"`` for e^ε = x (:func:`qifkit.numbers.eps_exp_of_epsilon`).
    sensitivity : exact number
        s > 0, the most Q can change between neighbouring inputs.

    Raises
    ------
    NotExactError
        When the weights are irrational for this e^ε.
    ParameterError
        When the exact weights would take more than :data:`MAX_EXPONENTIAL_BITS` bits.

    Examples
    --------
    >>> exponential_mechanism([[0, -1], [-1, 0]], eps_exp="9").rows()
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    """
    domain, a = privacy_alpha(eps_exp=eps_exp, epsilon=epsilon)
    if domain != QQ:
        raise NotExactError("the exponential mechanism needs a numeric e^ε, not a symbol")
    base = 1 / reduced_fraction(a)
    scale = exact(sensitivity)
    if scale <= 0:
        raise PrivacyParameterError(f"sensitivity {scale} is not positive")
    grid = [[exact(q) / (2 * scale) for q in row] for row in quality]
    if not grid or not grid[0] or any(len(row) != len(grid[0]) for row in grid):
        raise ShapeError("quality must be a non-empty rectangular matrix")
    degree = math.lcm(*(e.denominator for row in grid for e in row))
    root = _exact_root(base, degree)
    if root is None:
        raise NotExactError(
            f"(e^ε)^(Q/2s) needs the {degree}-th root of {base}, which is irrational; choose e^ε "
            "as an exact power or scale the quality"
        )
    exponents = [[int(e * degree) for e in row] for row in grid]
    bits = sum(len(row) * (max(row) - min(row)) for row in exponents) * max(root.numerator.bit_length(),
                                                                            root.denominator.bit_length())
    if bits > MAX_EXPONENTIAL_BITS:
        raise ParameterError(
            f"the exponential mechanism's exact weights would take about {bits:,} bits (each row's spread of "
            f"Q/2s, {degree}-th roots of e^ε, times its length), beyond {MAX_EXPONENTIAL_BITS:,}; scale the "
            "quality down or use a smaller e^ε")
    weights = [[root ** k for k in row] for row in exponents]
    rows = [[w / sum(row) for w in row] for row in weights]
    return Channel.from_rows(rows, secrets, outputs)
