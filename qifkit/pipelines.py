"""Privacy pipelines at scale: N respondents, a perturber each, then a query, without K^N rows.

The Kronecker algebra of Alvim et al. (2023) makes these channels small:

* a tally after a Kronecker power is a product of probability generating functions (App. A):
  respondent i with value v contributes the polynomial Σ_y C[v, y]·t^{f(y)}, where f(y) is what y
  adds to the query (1 if y is counted, else 0, for a count; y itself for a sum);
* the rows of an exchangeable pipeline depend only on the histogram of the unknown values, so
  they are lumped by histogram (identical rows carry identical information: refinement and every
  posterior uncertainty are unchanged once the prior is summed over each histogram);
* respondents whose values the analyst knows (App. D.1, §9.2) enter as fixed factors;
* respondents who are neither known nor the secret (a population's other members, whose values the
  analyst knows only through a population prior π) enter the same way, each as the mixture row π·C
  (:func:`with_population_row`): the secrets stay the histograms of the targets at any N.

Exact pipelines multiply polynomials with python-flint (``fmpq_poly``), float pipelines with
numpy (binomial factors through scipy's binomial pmf), symbolic ones naively over the field.

Examples
--------
>>> from qifkit import truncated_geometric
>>> gd = truncated_geometric(7, eps_exp="7/2")
>>> count_pipeline(gd, respondents=4, counted={0}, known=(0, 1, 1)).rows()[0][0]
Fraction(196, 6561)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Sequence
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel
from qifkit.errors import LabelError, NumberKindError, ShapeError
from qifkit.matrices import NumberKind, float_matrix
from qifkit.measures import Loss, Prior
from qifkit.numbers import reduced_fraction, to_fmpq
from qifkit.validation import whole_number

__all__ = [
    "histograms",
    "count_pipeline",
    "histogram_pipeline",
    "count_uncertainty",
    "sum_pipeline",
    "argmax_pipeline",
    "histogram_prior_weights",
    "count_witness",
    "with_population_row",
    "POPULATION",
]

#: The value label of the population row (:func:`with_population_row`).
POPULATION = "population"


def histograms(values: int, respondents: int) -> list[tuple[int, ...]]:
    """All histograms of `respondents` choices among `values` categories, in lexicographic order
    of the choice multisets (for 2 values: (2, 0), (1, 1), (0, 2))."""
    if values < 1 or respondents < 0:
        raise ShapeError(f"histograms need values >= 1 and respondents >= 0, got {values}, {respondents}")
    result = []
    for choice in itertools.combinations_with_replacement(range(values), respondents):
        counts = Counter(choice)
        result.append(tuple(counts.get(v, 0) for v in range(values)))
    return result


def histogram_prior_weights(histogram_list: Sequence[Sequence[int]]) -> list[int]:
    """Number of tuples with each histogram (multinomial coefficients): the weights that lump a
    uniform prior on tuples onto histograms."""
    return [math.factorial(sum(h)) // math.prod(math.factorial(c) for c in h) for h in histogram_list]


# ------------------------------------------------------------------------------ generating functions
class _Algebra:
    """Polynomials with coefficients of one number kind. Coefficients that are rational functions of
    one symbol (a perturber as a function of e^ε) are kept over one common denominator as python-flint
    polynomials (:class:`_OverDenominator`) and cancelled only when read: sympy's fractions cancel by
    a gcd at every operation, which took minutes for the count of 60 explicit fair reports."""

    def __init__(self, channel: Channel) -> None:
        self.kind = channel.kind
        self.domain: Any = None if self.kind is NumberKind.FLOAT else channel.matrix.domain
        field = getattr(self.domain, "field", None)
        self.over_denominator = (self.kind is NumberKind.SYMBOLIC and field is not None and len(field.gens) == 1
                                 and field.domain == QQ)

    def poly(self, coefficients: Sequence[Any]) -> Any:
        if self.kind is NumberKind.EXACT:
            return flint.fmpq_poly([flint.fmpq(int(QQ.numer(c)), int(QQ.denom(c))) for c in coefficients])
        if self.kind is NumberKind.FLOAT:
            return np.asarray(coefficients, dtype=np.float64)
        if self.over_denominator:
            return _OverDenominator.of(coefficients)
        return list(coefficients)

    def one(self) -> Any:
        return self.poly([_one(self)])

    def mul(self, left: Any, right: Any) -> Any:
        if self.kind is NumberKind.EXACT or self.over_denominator:
            return left * right
        if self.kind is NumberKind.FLOAT:
            if min(len(left), len(right)) > 64:
                import scipy.signal  # here, not at import: it is slow to load and rarely needed

                return np.clip(scipy.signal.fftconvolve(left, right), 0.0, None)
            return np.convolve(left, right)
        result = [self.domain.zero] * (len(left) + len(right) - 1)
        for i, a in enumerate(left):
            for j, b in enumerate(right):
                result[i + j] += a * b
        return result

    def power(self, base: Any, exponent: int) -> Any:
        if exponent == 0:
            return self.one()
        if self.kind is NumberKind.EXACT:
            return base**exponent
        if self.kind is NumberKind.FLOAT and len(base) == 2:  # a Bernoulli: the binomial pmf, stably
            import scipy.stats

            return scipy.stats.binom.pmf(np.arange(exponent + 1), exponent, base[1] / (base[0] + base[1]))
        result, square = self.one(), base
        while exponent:
            if exponent & 1:
                result = self.mul(result, square)
            exponent >>= 1
            if exponent:
                square = self.mul(square, square)
        return result

    def coefficients(self, poly: Any, length: int) -> list[Any]:
        """The first `length` coefficients as domain elements (or floats), zero-padded."""
        if self.kind is NumberKind.EXACT:
            values = [QQ(int(c.p), int(c.q)) for c in poly.coeffs()]
            return (values + [QQ(0)] * length)[:length]
        if self.kind is NumberKind.FLOAT:
            return (list(map(float, poly)) + [0.0] * length)[:length]
        if self.over_denominator:
            return (poly.elements(self.domain.field) + [self.domain.zero] * length)[:length]
        return (list(poly) + [self.domain.zero] * length)[:length]


class _OverDenominator:
    """A polynomial in z whose coefficients are rational functions of one symbol t, as numerator
    polynomials in t (python-flint, index = power of z) over one common denominator: products
    multiply polynomials and never cancel; :meth:`elements` cancels each coefficient once."""

    def __init__(self, numerators: list[flint.fmpq_poly], denominator: flint.fmpq_poly) -> None:
        self.numerators, self.denominator = numerators, denominator

    @classmethod
    def of(cls, coefficients: Sequence[Any]) -> _OverDenominator:
        """From sympy fractions (elements of a field QQ(t)) over their least common denominator."""
        parts = [(_flint_poly(c.numer), _flint_poly(c.denom)) for c in coefficients]
        common = flint.fmpq_poly(1)
        for _, denominator in parts:
            common = common * denominator // common.gcd(denominator)
        return cls([numerator * (common // denominator) for numerator, denominator in parts], common)

    def __mul__(self, other: _OverDenominator) -> _OverDenominator:
        product = [flint.fmpq_poly()] * (len(self.numerators) + len(other.numerators) - 1)
        present = [(j, b) for j, b in enumerate(other.numerators) if b != 0]  # histograms' codes are sparse
        for i, a in enumerate(self.numerators):
            if a != 0:
                for j, b in present:
                    product[i + j] = product[i + j] + a * b
        return _OverDenominator(product, self.denominator * other.denominator)

    def elements(self, field: Any) -> list[Any]:
        """The coefficients as elements of sympy's `field` (cancelled, in sympy's own normal form)."""
        ring = field.ring
        result = []
        for numerator in self.numerators:
            common = numerator.gcd(self.denominator) if numerator != 0 else self.denominator
            result.append(field.new(_sympy_poly(ring, numerator // common),
                                    _sympy_poly(ring, self.denominator // common)))
        return result


def _flint_poly(poly: Any) -> flint.fmpq_poly:
    """A sympy polynomial in one symbol over QQ as a python-flint one."""
    return flint.fmpq_poly([flint.fmpq(int(QQ.numer(c)), int(QQ.denom(c))) for c in reversed(poly.to_dense())])


def _sympy_poly(ring: Any, poly: flint.fmpq_poly) -> Any:
    """A python-flint polynomial as an element of sympy's polynomial `ring` in one symbol over QQ."""
    return ring.from_list([QQ(int(c.p), int(c.q)) for c in reversed(poly.coeffs())]) if poly != 0 else ring.zero


def _channel_from_rows(
    algebra: _Algebra, rows: list[list[Any]], secrets: Sequence[Hashable], outputs: Sequence[Hashable]
) -> Channel:
    if algebra.kind is NumberKind.FLOAT:
        matrix: Any = float_matrix(rows, "pipeline")
    else:
        matrix = DomainMatrix(rows, (len(rows), len(rows[0])), algebra.domain)
    return Channel(matrix, tuple(secrets), tuple(outputs))


def _check_population(perturber: Channel, respondents: int, known: Sequence[Hashable],
                      unknown_values: Sequence[Hashable] | None = None) -> int:
    whole_number(respondents, 1, "respondents")
    if unknown_values is not None and (not unknown_values or not set(unknown_values) <= set(perturber.secrets)):
        raise LabelError(f"the unknown respondents' values {list(unknown_values)!r} must be some of the perturber's "
                         f"values {perturber.secrets}")
    if len(known) > respondents - 1:
        raise ShapeError(
            f"{len(known)} known values for {respondents} respondents: at least one respondent must be unknown"
        )
    for value in known:
        if value not in perturber.secrets:
            raise LabelError(f"known value {value!r} is not one of the perturber's values {perturber.secrets}")
    return respondents - len(known)


def _lumped(algebra: _Algebra, perturber: Channel, factors: dict[Hashable, Any], respondents: int,
            known: Sequence[Hashable], length: int, outputs: Sequence[Hashable],
            unknown_values: Sequence[Hashable] | None = None) -> Channel:
    """Rows of Π_i factor(value_i): fixed factors for the known values, then one row per value of
    a single unknown respondent, or per histogram of several (over `unknown_values`, default every
    value)."""
    base = algebra.one()
    for value, count in Counter(known).items():
        base = algebra.mul(base, algebra.power(factors[value], count))
    secrets, held = unknown_secrets(unknown_values or perturber.secrets, respondents - len(known))
    rows = []
    for counts in held:
        poly = base
        for value, count in counts.items():
            poly = algebra.mul(poly, factors[value] if count == 1 else algebra.power(factors[value], count))
        rows.append(algebra.coefficients(poly, length))
    return _channel_from_rows(algebra, rows, secrets, outputs)


def count_pipeline(perturber: Channel, respondents: int, counted: Collection[Hashable],
                   known: Sequence[Hashable] = (), unknown_values: Sequence[Hashable] | None = None) -> Channel:
    """C^{⊗N}·T for the counting query T = B^{⊗N}·Y with B = "the output is in `counted`" (Def. 21).

    Parameters
    ----------
    perturber : Channel
        The single-respondent perturber C (rows: values, columns: perturbed values).
    respondents : int
        N.
    counted : collection
        The perturbed values the query counts.
    known : sequence, optional
        Values of respondents the analyst knows; the others are the secret.
    unknown_values : sequence, optional
        The values an unknown respondent may hold (default: every value of the perturber); with a
        population row (:func:`with_population_row`), every value but it, the population's
        members then listed in `known` as :data:`POPULATION`.

    Returns
    -------
    Channel
        Outputs are the counts 0..N. Secrets are the values of the one unknown respondent, or the
        histograms (tuples of counts per value) of the unknown respondents.

    Complexity: with u unknown respondents, C(u+K−1, K−1) rows, each a product of at most K+1
    binomial polynomials of degree ≤ N; nothing of size K^N is formed.
    """
    _check_population(perturber, respondents, known, unknown_values)
    unknown_outputs = [y for y in counted if y not in perturber.outputs]
    if unknown_outputs:
        raise LabelError(f"counted value {unknown_outputs[0]!r} is not an output of the perturber")
    algebra = _Algebra(perturber)
    columns = [j for j, y in enumerate(perturber.outputs) if y in counted]
    factors = {}
    for value, row in zip(perturber.secrets, _rows(perturber), strict=True):
        hit = sum((row[j] for j in columns), _zero(algebra))
        factors[value] = algebra.poly([_one(algebra) - hit, hit])
    return _lumped(algebra, perturber, factors, respondents, known, respondents + 1, range(respondents + 1),
                   unknown_values)


def count_uncertainty(perturber: Channel, respondents: int, counted: Collection[Hashable], prior: Prior,
                      loss: Loss, known: Sequence[Hashable] = (),
                      release: Callable[[int], Hashable] | None = None,
                      unknown_values: Sequence[Hashable] | None = None) -> Fraction:
    """U_ℓ(π, count_pipeline(...)·R) exactly, without forming the pipeline (Alvim et al. 2023, Def. 2
    and App. A's generating functions): census-sized populations in seconds.

    Every secret x (a value of the one unknown respondent, or a histogram of the unknown ones) has
    the pipeline row base·P_x, where base = Π_known f_v and P_x = Π_v f_v^{x_v} are products of the
    factors f_v = 1 − h_v + h_v·t (h_v: the chance that value v is reported as a counted value).
    So the analyst's expected loss of action w at count y, E[w, y] = Σ_x π_x ℓ(x, w) [t^y] base·P_x,
    is the coefficient of t^y in base·Q_w with Q_w = Σ_x π_x ℓ(x, w) P_x: one polynomial product per
    action, on integers over one common denominator (FLINT). With `release` (a deterministic map
    of the count, e.g. a threshold) the columns of one released label are summed first. Then
    U = Σ_label min_w E[w, label].

    Parameters
    ----------
    perturber, respondents, counted, known, unknown_values
        As for :func:`count_pipeline`; the perturber exact.
    prior, loss : Prior, Loss
        Exact, on the pipeline's secrets (:func:`count_pipeline`'s order).
    release : callable, optional
        The label released for each count 0..N (default: the count itself).

    Returns
    -------
    Fraction
        Equal to ``posterior_uncertainty(prior, count_pipeline(...) @ R, loss)`` (tested).
    """
    _check_population(perturber, respondents, known, unknown_values)
    if any(item.kind is not NumberKind.EXACT for item in (perturber, prior, loss)):
        raise NumberKindError("count_uncertainty is exact: give an exact perturber, prior and loss")
    columns = [j for j, y in enumerate(perturber.outputs) if y in counted]
    if len(columns) != len(set(counted)):
        raise LabelError(f"a counted value is not an output of the perturber: {sorted(map(repr, counted))}")
    factor = {}
    for value, row in zip(perturber.secrets, perturber.rows(), strict=True):
        hit = to_fmpq(sum((row[j] for j in columns), Fraction(0)))
        factor[value] = flint.fmpq_poly([1 - hit, hit])
    base = flint.fmpq_poly([1])
    for value, count in Counter(known).items():
        base *= factor[value] ** count
    secrets, held = unknown_secrets(unknown_values or perturber.secrets, respondents - len(known))
    polys = []
    for counts in held:
        poly = flint.fmpq_poly([1])
        for value, count in counts.items():
            poly *= factor[value] ** count
        polys.append(poly)
    prior = prior._aligned(tuple(secrets))
    if tuple(loss.secrets) != tuple(secrets):
        raise LabelError("the loss's secrets are not the pipeline's secrets (in the same order)")
    weights = [to_fmpq(p) for p in prior.probabilities()]
    table = [[to_fmpq(v) for v in row] for row in loss.rows()]
    expected = []
    for w in range(len(loss.actions)):
        q = flint.fmpq_poly([0])
        for k, poly in enumerate(polys):
            if weights[k] and table[k][w]:
                q += poly * (weights[k] * table[k][w])
        expected.append(base * q)
    denominator = math.lcm(*(int(e.denom()) for e in expected))
    length = respondents + 1
    rows = []
    for e in expected:
        coefficients = (e.numer() * (denominator // int(e.denom()))).coeffs()
        rows.append(coefficients + [flint.fmpz(0)] * (length - len(coefficients)))
    if release is None:
        best = [min(column) for column in zip(*rows, strict=True)]
    else:
        grouped: dict[Hashable, list[Any]] = {}
        for y in range(length):
            sums = grouped.setdefault(release(y), [flint.fmpz(0)] * len(rows))
            for w, row in enumerate(rows):
                sums[w] += row[y]
        best = [min(sums) for sums in grouped.values()]
    return Fraction(int(sum(best, flint.fmpz(0))), denominator)


def unknown_secrets(values: Sequence[Hashable], unknown: int) -> tuple[list[Any], list[dict[Hashable, int]]]:
    """A count pipeline's secrets in :func:`count_pipeline`'s order, and for each how many unknown
    respondents hold each value: the one unknown respondent's value, or the histograms of the
    `unknown` respondents over `values`.

    >>> unknown_secrets(["a", "b"], 2)
    ([(2, 0), (1, 1), (0, 2)], [{'a': 2}, {'a': 1, 'b': 1}, {'b': 2}])
    """
    if unknown == 1:
        return list(values), [{value: 1} for value in values]
    secrets = histograms(len(values), unknown)
    return secrets, [{v: c for v, c in zip(values, h, strict=True) if c} for h in secrets]


def count_witness(perturber_high: Channel, perturber_low: Channel, respondents: int,
                  counted: Collection[Hashable]) -> Channel | None:
    """A witness W with count_pipeline(high)·W = count_pipeline(low), by lumping, or None.

    A count pipeline sees each respondent only through the probability h(v) that the perturbed
    value is counted (its factor 1 − h + h·t in :func:`count_pipeline`). When the two perturbers'
    hit probabilities are affinely related, h_low(v) = b + (a − b)·h_high(v) with a, b in [0, 1],
    the 2×2 channel "counted stays counted with probability a, uncounted becomes counted with
    probability b" post-processes each high report into a low one; on the counts it lumps to
    W[c, c'] = [t^c'] (1 − a + a·t)^c (1 − b + b·t)^(N−c) (Alvim et al. 2023, App. A's generating
    functions; the Kronecker power of the 2×2 channel is never formed). W is the same for every
    set of known respondents. None when no such a, b exist (the pipelines may still refine; the
    witness LP decides those) or the perturbers are not exact.

    Parameters
    ----------
    perturber_high, perturber_low : Channel
        Exact perturbers on the same values, e.g. at e^ε ≥ e^ε'.
    respondents : int
        N.
    counted : collection
        The perturbed values the query counts.

    Returns
    -------
    Channel or None
        Stochastic, exact, on the counts 0..N; A·W = B is left to the caller's exact check
        (:func:`qifkit.refines` verifies any candidate it is given).

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> w = count_witness(randomized_response(4, eps_exp=3), randomized_response(4, eps_exp=2), 2, {0})
    >>> w.rows()[0]
    [Fraction(81, 100), Fraction(9, 50), Fraction(1, 100)]
    """
    _check_population(perturber_high, respondents, ())
    if perturber_high.secrets != perturber_low.secrets:
        raise LabelError("the two perturbers have different values (or order)")
    if perturber_high.kind is not NumberKind.EXACT or perturber_low.kind is not NumberKind.EXACT:
        return None
    hits = []
    for perturber in (perturber_high, perturber_low):
        missing = [y for y in counted if y not in perturber.outputs]
        if missing:
            raise LabelError(f"counted value {missing[0]!r} is not an output of the perturber")
        columns = [j for j, y in enumerate(perturber.outputs) if y in counted]
        hits.append([sum((Fraction(row[j]) for j in columns), Fraction(0)) for row in perturber.rows()])
    high, low = hits
    distinct = next((v for v in range(1, len(high)) if high[v] != high[0]), None)
    if distinct is None:
        if len(set(low)) > 1:
            return None
        slope, intercept = Fraction(0), low[0]
    else:
        slope = (low[distinct] - low[0]) / (high[distinct] - high[0])
        intercept = low[0] - slope * high[0]
    stay, enter = intercept + slope, intercept
    if not (0 <= stay <= 1 and 0 <= enter <= 1) or any(
        lo != intercept + slope * h for h, lo in zip(high, low, strict=True)
    ):
        return None
    factor = {True: flint.fmpq_poly([to_fmpq(1 - stay), to_fmpq(stay)]),
              False: flint.fmpq_poly([to_fmpq(1 - enter), to_fmpq(enter)])}
    rows = []
    for c in range(respondents + 1):
        poly = factor[True] ** c * factor[False] ** (respondents - c)
        coefficients = [reduced_fraction(v) for v in poly.coeffs()]
        rows.append((coefficients + [Fraction(0)] * (respondents + 1))[:respondents + 1])
    return Channel.from_rows(rows, secrets=range(respondents + 1), outputs=range(respondents + 1))


def histogram_pipeline(perturber: Channel, respondents: int, known: Sequence[Hashable] = (),
                       unknown_values: Sequence[Hashable] | None = None) -> Channel:
    """C^{⊗N}·H: the histogram of the N perturbed reports is released (how many reported each output),
    Alvim et al.'s histogram pre-processor H applied after the perturber.

    The multivariate generating function Π_i Σ_y C[v_i, y]·x_y is formed in one variable by
    Kronecker substitution, x_y = t^((N+1)^y) (no carries: every count is at most N), with the
    same lumping, known respondents and `unknown_values` as :func:`count_pipeline`; the coefficient of
    t^(Σ_y h_y (N+1)^y) is the chance of the report histogram h.

    Returns
    -------
    Channel
        Outputs are the histograms of N reports over the perturber's outputs (tuples of counts in
        :func:`histograms` order); secrets as in :func:`count_pipeline`.

    Complexity: rows of length N·(N+1)^(K−1) + 1 for K outputs before the histograms are picked,
    so meant for small K and N (a spec checks the size first).
    """
    _check_population(perturber, respondents, known, unknown_values)
    width = len(perturber.outputs)
    base = respondents + 1
    algebra = _Algebra(perturber)
    factors = {}
    for value, row in zip(perturber.secrets, _rows(perturber), strict=True):
        coefficients = [_zero(algebra)] * (base ** (width - 1) + 1)
        for y, probability in enumerate(row):
            coefficients[base**y] = probability
        factors[value] = algebra.poly(coefficients)
    length = respondents * base ** (width - 1) + 1
    lumped = _lumped(algebra, perturber, factors, respondents, known, length, range(length), unknown_values)
    outputs = histograms(width, respondents)
    picked = [sum(count * base**y for y, count in enumerate(h)) for h in outputs]
    rows = [[row[k] for k in picked] for row in _rows(lumped)]  # domain elements, or floats
    return _channel_from_rows(algebra, rows, lumped.secrets, outputs)


def sum_pipeline(perturber: Channel, respondents: int, known: Sequence[Hashable] = (),
                 unknown_values: Sequence[Hashable] | None = None) -> Channel:
    """C^{⊗N}·S for the sum query S of eq. (16); the perturber's outputs must be integers ≥ 0.

    Outputs are the sums 0..N·max(output). Secrets, `known` and `unknown_values` as in
    :func:`count_pipeline`.
    """
    _check_population(perturber, respondents, known, unknown_values)
    if not all(isinstance(y, int) and not isinstance(y, bool) and y >= 0 for y in perturber.outputs):
        raise LabelError("a sum query needs perturber outputs that are whole numbers >= 0")
    outputs = [y for y in perturber.outputs if isinstance(y, int)]  # all of them, as checked
    algebra = _Algebra(perturber)
    top = max(outputs)
    factors = {}
    for value, row in zip(perturber.secrets, _rows(perturber), strict=True):
        coefficients = [_zero(algebra)] * (top + 1)
        for y, probability in zip(outputs, row, strict=True):
            coefficients[y] = probability
        factors[value] = algebra.poly(coefficients)
    length = respondents * top + 1
    return _lumped(algebra, perturber, factors, respondents, known, length, range(length), unknown_values)


def with_population_row(perturber: Channel, weights: Sequence[Any], label: Hashable = POPULATION) -> Channel:
    """The perturber with one more row, `label`: π·C, the report distribution of a respondent whose
    value is drawn from the population prior π (`weights`, one per value, exact): a population's
    member who is neither known nor the secret. List such members in `known` as `label`, and the
    perturber's own values as `unknown_values`, in the pipelines of this module.

    Raises
    ------
    ShapeError, NegativeEntryError, NotStochasticError
        If `weights` is not a distribution over the perturber's values.
    LabelError
        If `label` is already a value of the perturber.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> with_population_row(randomized_response(2, eps_exp=3), ["1/2", "1/2"]).rows()[2]
    [Fraction(1, 2), Fraction(1, 2)]
    """
    if label in perturber.secrets:
        raise LabelError(f"the population row's label {label!r} is already a value of the perturber")
    prior = Prior.from_values(list(weights), perturber.secrets)
    secrets = (*perturber.secrets, label)
    if perturber.kind is NumberKind.FLOAT:
        matrix = np.asarray(perturber.matrix, dtype=np.float64)
        mixed = np.asarray([float(p) for p in prior.probabilities()]) @ matrix
        return Channel(np.vstack([matrix, mixed]), secrets, perturber.outputs)
    domain = perturber.matrix.domain
    row = DomainMatrix([[domain.convert_from(QQ(p.numerator, p.denominator), QQ) for p in prior.probabilities()]],
                       (1, len(perturber.secrets)), domain)
    return Channel(perturber.matrix.vstack(row * perturber.matrix), secrets, perturber.outputs)


def argmax_pipeline(perturber: Channel, bars: int, histogram_list: Sequence[Sequence[int]] | None = None) -> Channel:
    """Noisy ArgMax (Alvim et al. §8, Alg. 3): H·(GD)^{⊗K}·ArgMax, rows lumped to histograms.

    Each of the K = `bars` bars of an input histogram is perturbed independently by `perturber`
    (whose values are the bar heights 0..N); the output is the index of a tallest perturbed bar,
    the lowest index on ties. Row h, column k is
    Σ_v P(Y_k = v)·Π_{j<k} P(Y_j < v)·Π_{j>k} P(Y_j ≤ v) with Y_j distributed as perturber row h_j.

    Parameters
    ----------
    histogram_list : sequence of histograms, optional
        The secrets; by default all histograms of N = max(value) respondents over `bars` choices.
    """
    heights = perturber.secrets
    if list(heights) != list(range(len(heights))) or list(perturber.outputs) != list(heights):
        raise LabelError("argmax_pipeline needs a perturber on bar heights 0..N (secrets and outputs)")
    whole_number(bars, 1, "bars")
    rows_of = _rows(perturber)
    algebra = _Algebra(perturber)
    if histogram_list is None:
        histogram_list = histograms(bars, len(heights) - 1)
    histogram_list = [tuple(h) for h in histogram_list]
    for histogram in histogram_list:
        if len(histogram) != bars or any(c not in range(len(heights)) for c in histogram):
            raise LabelError(f"histogram {histogram} does not have {bars} bars of heights 0..{len(heights) - 1}")
    below = {}  # height value -> (P(Y < v), P(Y <= v)) for each input height
    for height, row in zip(heights, rows_of, strict=True):
        strictly, running = [], _zero(algebra)
        for probability in row:
            strictly.append(running)
            running = running + probability
        below[height] = (strictly, [s + p for s, p in zip(strictly, row, strict=True)])
    table = []
    for histogram in histogram_list:
        row = []
        for k in range(bars):
            total = _zero(algebra)
            for v, probability in enumerate(rows_of[histogram[k]]):
                term = probability
                for j in range(bars):
                    if j != k:
                        term = term * (below[histogram[j]][0][v] if j < k else below[histogram[j]][1][v])
                total = total + term
            row.append(total)
        table.append(row)
    return _channel_from_rows(algebra, table, histogram_list, range(bars))


def _rows(channel: Channel) -> list[list[Any]]:
    """Rows as domain elements (exact, symbolic) or floats."""
    return channel.matrix.tolist() if channel.kind is NumberKind.FLOAT else channel.matrix.to_list()


def _zero(algebra: _Algebra) -> Any:
    return 0.0 if algebra.kind is NumberKind.FLOAT else algebra.domain.zero


def _one(algebra: _Algebra) -> Any:
    return 1.0 if algebra.kind is NumberKind.FLOAT else algebra.domain.one
