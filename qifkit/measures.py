"""What a Bayesian analyst or adversary learns from a channel: priors, losses, gains, uncertainty.

Conventions (Alvim et al. 2023, §2.1): a loss ℓ(x, w) ≥ 0 is stored as a matrix whose rows are
secrets x and whose columns are actions w. The prior uncertainty is
``U_ℓ(π) = min_w Σ_x π_x ℓ(x, w)`` and the posterior uncertainty (Def. 2) is
``U_ℓ(π, C) = Σ_y min_w Σ_x π_x C[x, y] ℓ(x, w)``. Gain functions g(x, w) give vulnerabilities the
same way with max for min (the g-leakage framework); leakage compares posterior with prior
vulnerability.

Everything is exact when prior, channel and loss are exact. Minima over symbolic values cannot be
decided in general and raise :class:`~qifkit.errors.UndecidableError`.

References
----------
.. [1] Alvim et al., CCS 2023, Defs. 1-3, eqs. (3)-(5), (17).
.. [2] M. S. Alvim et al., *The Science of Quantitative Information Flow*, Springer 2020 (g-leakage).

Examples
--------
>>> from qifkit import Channel
>>> C = Channel.from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
>>> posterior_uncertainty(uniform_prior(2), C, bayes_risk(range(2)))
Fraction(1, 4)
>>> prior_uncertainty(uniform_prior(2), bayes_risk(range(2)))
Fraction(1, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

import numpy as np
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel
from qifkit.errors import (
    DistributionError,
    LabelError,
    NegativeEntryError,
    NotExactError,
    UndecidableError,
)
from qifkit.labelled import LabelledMatrix, checked_labels
from qifkit.matrices import (
    Matrix,
    NumberKind,
    exact_matrix,
    float_matrix,
    matmul,
    public_rows,
    public_value,
    qq,
    same_kind,
    shape_of,
)

__all__ = [
    "Prior",
    "as_prior",
    "uniform_prior",
    "point_prior",
    "prior_from_counts",
    "Loss",
    "Gain",
    "bayes_risk",
    "linear_error",
    "squared_error",
    "argmax_accuracy",
    "argmax",
    "identity_gain",
    "Decision",
    "prior_uncertainty",
    "posterior_uncertainty",
    "expected_table",
    "bayes_decision",
    "prior_vulnerability",
    "posterior_vulnerability",
    "multiplicative_leakage",
    "additive_leakage",
    "Posterior",
    "posteriors",
    "HyperDistribution",
    "hyper_distribution",
]


# ---------------------------------------------------------------------------------- priors
@dataclass(frozen=True, eq=False, repr=False)  # repr: LabelledMatrix's
class Prior(LabelledMatrix):
    """A probability distribution on secrets, stored as a 1×n exact or float matrix.

    `secrets` may be ``None``: the prior is then positional and fits any channel with n secrets.
    Made by :meth:`from_values` (exact), :meth:`from_floats`, :func:`uniform_prior`,
    :func:`point_prior` or :func:`prior_from_counts`; refused unless its entries are non-negative
    and sum to 1 (exactly, or within float rounding for floats).

    Examples
    --------
    >>> Prior.from_values(["1/3", "2/3"], ["rain", "sun"]).probabilities()
    [Fraction(1, 3), Fraction(2, 3)]
    >>> Prior.from_values(["1/3", "1/3"])
    Traceback (most recent call last):
    ...
    qifkit.errors.DistributionError: ...
    """

    matrix: Matrix
    secrets: tuple[Hashable, ...] | None = None
    factories: ClassVar[str] = "from_values (exact) or Prior.from_floats"
    stochastic_rows: ClassVar[bool] = True

    @classmethod
    def from_values(cls, values: Sequence[Any], secrets: Sequence[Hashable] | None = None) -> Prior:
        """An exact prior from ints, Fractions or number strings.

        Raises
        ------
        DistributionError
            If it is empty, has a negative entry, or does not sum to exactly 1.
        """
        values = list(values)
        if not values:
            raise DistributionError("a prior needs at least one secret")
        try:
            matrix = exact_matrix([values], "prior")
        except NotExactError as error:
            raise NotExactError(f"{error}; or read float probabilities with Prior.from_floats") from None
        return cls._validated(matrix, secrets)

    @classmethod
    def from_floats(cls, values: Sequence[float], secrets: Sequence[Hashable] | None = None) -> Prior:
        """A float64 prior; it must sum to 1 within 1e-9."""
        return cls._validated(float_matrix([list(values)], "prior"), secrets)

    @classmethod
    def _validated(cls, matrix: Matrix, secrets: Sequence[Hashable] | None) -> Prior:
        count = shape_of(matrix)[1]
        prior = cls(matrix, None if secrets is None else checked_labels(secrets, count, "secret"))
        values = prior.probabilities()
        for index, value in enumerate(values):
            if value < 0:
                raise DistributionError(f"prior entry {index} is {value}, a negative probability")
        total = sum(values)
        if (abs(total - 1) > 1e-9) if prior.kind is NumberKind.FLOAT else total != 1:
            raise DistributionError(f"prior sums to {total}, not 1")
        return prior

    row_role: ClassVar[str] = "prior"
    column_role: ClassVar[str] = "secret"

    @property
    def row_labels(self) -> tuple[Hashable, ...]:
        return ("π",)

    @property
    def column_labels(self) -> tuple[Hashable, ...]:
        return tuple(range(len(self))) if self.secrets is None else self.secrets

    def _with_matrix(self, matrix: Matrix) -> Prior:
        return Prior._validated(matrix, self.secrets)

    def __len__(self) -> int:
        return shape_of(self.matrix)[1]

    def probabilities(self) -> list[Any]:
        """The probabilities as Fractions (exact) or floats."""
        return public_rows(self.matrix)[0]

    def __getitem__(self, secret: Hashable) -> Any:
        """``prior[secret]``: its probability, by label (the position, for a positional prior)."""
        return self.entry("π", secret)

    def to_numpy(self, exact: bool = False) -> np.ndarray:
        """The probabilities as a 1-D array: float64, or Fractions with ``exact=True``."""
        return super().to_numpy(exact)[0]

    def _title(self) -> str:
        return f"Prior ({self.kind.value}, {len(self)} secrets)"

    def __repr__(self) -> str:
        return f"Prior({self.kind.value}, {len(self)} secrets)"

    def _aligned(self, secrets: tuple[Hashable, ...]) -> Prior:
        """Check that this prior fits secrets in that order."""
        if len(self) != len(secrets):
            raise DistributionError(f"prior has {len(self)} entries but there are {len(secrets)} secrets")
        if self.secrets is not None and self.secrets != secrets:
            raise LabelError("the prior's secrets are not the channel's secrets (in the same order)")
        return self


def as_prior(prior: Prior | Sequence[Any]) -> Prior:
    return prior if isinstance(prior, Prior) else Prior.from_values(prior)


def uniform_prior(secrets: int | Sequence[Hashable]) -> Prior:
    """The exact uniform prior on `secrets` (a count or a sequence of labels).

    Parameters
    ----------
    secrets : int or sequence of hashable
        A number of secrets (labelled 0..n−1) or their labels.

    Returns
    -------
    Prior
        Probability 1/n on each secret, exact.

    Raises
    ------
    DistributionError
        If there are no secrets.

    Examples
    --------
    >>> uniform_prior(["yes", "no"]).probabilities()
    [Fraction(1, 2), Fraction(1, 2)]
    """
    labels = tuple(range(secrets)) if isinstance(secrets, int) else tuple(secrets)
    if not labels:
        raise DistributionError("a prior needs at least one secret")
    share = QQ(1, len(labels))
    return Prior(
        DomainMatrix([[share] * len(labels)], (1, len(labels)), QQ), checked_labels(labels, len(labels), "secret")
    )


def point_prior(secrets: int | Sequence[Hashable], at: Hashable) -> Prior:
    """The exact prior putting probability 1 on the secret `at`.

    Parameters
    ----------
    secrets : int or sequence of hashable
        A number of secrets (labelled 0..n−1) or their labels.
    at : hashable
        The secret of probability 1.

    Returns
    -------
    Prior

    Raises
    ------
    LabelError
        If `at` is not a secret.

    Examples
    --------
    >>> point_prior(["a", "b"], "b").probabilities()
    [Fraction(0, 1), Fraction(1, 1)]
    """
    labels = tuple(range(secrets)) if isinstance(secrets, int) else tuple(secrets)
    if at not in labels:
        raise LabelError(f"point prior at {at!r}, which is not one of the secrets")
    return Prior.from_values([1 if label == at else 0 for label in labels], labels)


def prior_from_counts(counts: Sequence[int], secrets: Sequence[Hashable] | None = None) -> Prior:
    """The exact empirical prior ``counts[i] / sum(counts)``.

    Parameters
    ----------
    counts : sequence of int
        Non-negative counts, at least one positive.
    secrets : sequence of hashable, optional
        Their labels (0..n−1 by default).

    Returns
    -------
    Prior

    Examples
    --------
    >>> prior_from_counts([1, 3]).probabilities()
    [Fraction(1, 4), Fraction(3, 4)]
    """
    counts = list(counts)
    for index, count in enumerate(counts):
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise NotExactError(f"count {index} is {count!r}, not a whole number")
        if count < 0:
            raise DistributionError(f"count {index} is {count}, a negative count")
    total = sum(int(c) for c in counts)
    if total == 0:
        raise DistributionError("all counts are zero: no prior can be formed")
    return Prior.from_values([f"{int(c)}/{total}" for c in counts], secrets)


# ---------------------------------------------------------------------------------- losses and gains
_Table = TypeVar("_Table", bound="_DecisionTable")


@dataclass(frozen=True, eq=False, repr=False)  # repr: LabelledMatrix's
class _DecisionTable(LabelledMatrix):
    """A matrix ``table[x, w]``: rows are secrets, columns are actions."""

    matrix: Matrix
    secrets: tuple[Hashable, ...]
    actions: tuple[Hashable, ...]
    factories: ClassVar[str] = "from_rows (or .from_function)"

    @classmethod
    def from_rows(
        cls: type[_Table],
        rows: Sequence[Sequence[Any]],
        secrets: Sequence[Hashable] | None = None,
        actions: Sequence[Hashable] | None = None,
    ) -> _Table:
        """An exact table from rows of exact numbers (rows are secrets, columns actions)."""
        return cls._validated(exact_matrix(rows, cls.__name__.lower()), secrets, actions)

    @classmethod
    def from_floats(
        cls: type[_Table],
        rows: Any,
        secrets: Sequence[Hashable] | None = None,
        actions: Sequence[Hashable] | None = None,
    ) -> _Table:
        """A float64 table."""
        return cls._validated(float_matrix(rows, cls.__name__.lower()), secrets, actions)

    @classmethod
    def from_function(
        cls: type[_Table],
        function: Callable[[Any, Any], Any],
        secrets: Sequence[Hashable],
        actions: Sequence[Hashable] | None = None,
    ) -> _Table:
        """An exact table ``function(x, w)`` for every secret x and action w (default: the secrets).

        The function must return exact values (ints, Fractions, number strings).
        """
        for what, labels in (("secrets", secrets), ("actions", actions)):
            if labels is not None and (isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable)):
                raise LabelError(f"the {what} are a sequence of labels, e.g. range(3) or the channel's .secrets, "
                                 f"not {labels!r}")
        secrets = tuple(secrets)
        actions = secrets if actions is None else tuple(actions)
        return cls.from_rows([[function(x, w) for w in actions] for x in secrets], secrets, actions)

    @classmethod
    def _validated(
        cls: type[_Table], matrix: Matrix, secrets: Sequence[Hashable] | None, actions: Sequence[Hashable] | None
    ) -> _Table:
        rows, columns = shape_of(matrix)
        table = cls(matrix, checked_labels(secrets, rows, "secret"), checked_labels(actions, columns, "action"))
        table._check()
        return table

    def _check(self) -> None:
        """Subclasses refuse values that their definition excludes."""

    column_role: ClassVar[str] = "action"

    @property
    def row_labels(self) -> tuple[Hashable, ...]:
        return self.secrets

    @property
    def column_labels(self) -> tuple[Hashable, ...]:
        return self.actions

    def _with_matrix(self: _Table, matrix: Matrix) -> _Table:
        return type(self)._validated(matrix, self.secrets, self.actions)

    def scaled(self: _Table, factor: Any) -> _Table:
        """The table multiplied by a positive exact factor (a float factor for a float table)."""
        if self.kind is NumberKind.FLOAT:
            scale = float(factor)
            if not scale > 0:
                raise NegativeEntryError(f"scale factor {factor!r} is not positive")
            return type(self)(float_matrix(self.matrix * scale), self.secrets, self.actions)
        value = qq(factor)
        if value <= 0:
            raise NegativeEntryError(f"scale factor {factor!r} is not positive")
        return type(self)(self.matrix * self.matrix.domain.convert(value), self.secrets, self.actions)


class Loss(_DecisionTable):
    """A loss function ℓ(x, w) ≥ 0 (Alvim et al. Def. 1): rows are secrets, columns actions.

    Made by :func:`bayes_risk`, :func:`linear_error`, :func:`squared_error`,
    :func:`argmax_accuracy`, or from a table (``Loss.from_rows``) or a function of (secret, action)
    (``Loss.from_function``); a negative entry is refused (:class:`~qifkit.errors.NegativeEntryError`).

    >>> Loss.from_function(lambda x, w: abs(x - w), range(3)).rows()[2]
    [Fraction(2, 1), Fraction(1, 1), Fraction(0, 1)]
    """

    def _check(self) -> None:
        # exact entries are compared as the domain's own numbers (FLINT's), not converted to Fractions
        entries = self.matrix.to_list() if self.kind is NumberKind.EXACT else self.rows()
        for i, row in enumerate(entries):
            for j, value in enumerate(row):
                if value < 0:
                    raise NegativeEntryError(f"loss entry ({i}, {j}) is {value}, a negative loss")


class Gain(_DecisionTable):
    """A gain function g(x, w) (the g-leakage framework): rows are secrets, columns actions; the
    counterpart of :class:`Loss` for vulnerabilities (:func:`identity_gain` gives Bayes vulnerability).

    >>> Gain.from_function(lambda x, w: int(x == w), ["a", "b"]).rows()
    [[Fraction(1, 1), Fraction(0, 1)], [Fraction(0, 1), Fraction(1, 1)]]
    """


def _numeric(label: Hashable, what: str) -> Any:
    if isinstance(label, bool) or not isinstance(label, (int, np.integer)):
        raise LabelError(f"{what} label {label!r} is not an integer, so |w - x| is undefined")
    return int(label)


def bayes_risk(secrets: Sequence[Hashable]) -> Loss:
    """Bayes risk br(w, x) = 0 if w = x else 1 (Alvim et al. eq. (3)); actions are the secrets.

    Parameters
    ----------
    secrets : sequence of hashable
        The secrets, which are also the actions (a guess of the secret).

    Returns
    -------
    Loss
        The 0-1 loss: its uncertainty is the probability of guessing wrong.

    Examples
    --------
    >>> bayes_risk(["a", "b"]).rows()
    [[Fraction(0, 1), Fraction(1, 1)], [Fraction(1, 1), Fraction(0, 1)]]
    """
    return Loss.from_function(lambda x, w: 0 if x == w else 1, secrets)


def linear_error(secrets: Sequence[Hashable], actions: Sequence[Hashable] | None = None) -> Loss:
    """Linear error le(w, x) = abs(w − x) on integer labels (Alvim et al. eq. (4)).

    Parameters
    ----------
    secrets : sequence of int
        The secrets (rows), integers.
    actions : sequence of int, optional
        The actions (columns); the secrets by default.

    Returns
    -------
    Loss
        Entry (x, w) is abs(w − x).

    Raises
    ------
    LabelError
        If a label is not an integer.

    Examples
    --------
    >>> linear_error(range(3)).rows()[0]
    [Fraction(0, 1), Fraction(1, 1), Fraction(2, 1)]
    """
    return Loss.from_function(
        lambda x, w: abs(_numeric(w, "action") - _numeric(x, "secret")), secrets, actions
    )


def squared_error(secrets: Sequence[Hashable], actions: Sequence[Hashable] | None = None) -> Loss:
    """Squared error mse(w, x) = (w − x)² on integer labels (Alvim et al. eq. (5)).

    Parameters
    ----------
    secrets : sequence of int
        The secrets (rows), integers.
    actions : sequence of int, optional
        The actions (columns); the secrets by default.

    Returns
    -------
    Loss

    Examples
    --------
    >>> squared_error(range(3)).rows()[0]
    [Fraction(0, 1), Fraction(1, 1), Fraction(4, 1)]
    """
    return Loss.from_function(
        lambda x, w: (_numeric(w, "action") - _numeric(x, "secret")) ** 2, secrets, actions
    )


def argmax(histogram: Sequence[int]) -> int:
    """The index of the largest bar; ties go to the lowest index (Alvim et al. Alg. 3).

    Parameters
    ----------
    histogram : sequence of int
        The bars.

    Returns
    -------
    int

    Examples
    --------
    >>> argmax([1, 3, 3])
    1
    """
    values = list(histogram)
    if not values:
        raise LabelError("ArgMax of an empty histogram")
    return values.index(max(values))


def argmax_accuracy(histograms: Sequence[Sequence[int]], categories: Sequence[int] | None = None) -> Loss:
    """ArgMax accuracy ama(x, k) = 0 if ArgMax(x) = k else 1 (Alvim et al. eq. (17)).

    Secrets are histograms (tuples of counts); actions are categories, by default 0..K−1.

    Parameters
    ----------
    histograms : sequence of sequence of int
        The secrets.
    categories : sequence of int, optional
        The actions; 0..K−1 by default.

    Returns
    -------
    Loss

    Examples
    --------
    >>> argmax_accuracy([(2, 0), (0, 2)]).rows()
    [[Fraction(0, 1), Fraction(1, 1)], [Fraction(1, 1), Fraction(0, 1)]]
    """
    histograms = [tuple(h) for h in histograms]
    if not histograms:
        raise LabelError("argmax_accuracy needs at least one histogram")
    actions = tuple(range(len(histograms[0]))) if categories is None else tuple(categories)
    return Loss.from_function(lambda x, k: 0 if argmax(x) == k else 1, histograms, actions)


def identity_gain(secrets: Sequence[Hashable]) -> Gain:
    """The identity gain g_id(x, w) = 1 if w = x else 0 (Bayes vulnerability).

    Parameters
    ----------
    secrets : sequence of hashable
        The secrets, which are also the actions.

    Returns
    -------
    Gain

    Examples
    --------
    >>> identity_gain(["a", "b"]).rows()[0]
    [Fraction(1, 1), Fraction(0, 1)]
    """
    return Gain.from_function(lambda x, w: 1 if x == w else 0, secrets)


# ---------------------------------------------------------------------------------- decisions
@dataclass(frozen=True)
class Decision:
    """A Bayesian decision: the optimal expected value and the best action for every output.

    ``actions[k]`` is the optimal action after output ``outputs[k]`` (ties: the first action in
    the table's order). For an output of probability zero every action is optimal and the first
    one is reported.

    Attributes
    ----------
    value : Fraction or float
        The optimal expected loss (or gain).
    outputs : tuple
        The channel's outputs.
    actions : tuple
        The best action after each output.
    """

    value: Any
    outputs: tuple[Hashable, ...]
    actions: tuple[Hashable, ...]


def expected_table(
    prior: Prior | Sequence[Any], channel: Channel, table: _DecisionTable
) -> tuple[Any, list[list[Any]]]:
    """The W × Y matrix ``E[w, y] = Σ_x table[x, w] · π_x · C[x, y]`` (Alvim et al. 2023, Def. 2,
    before the best action is chosen): the sympy domain of its entries (None for floats) and the
    rows, one per action. Entries are domain elements; with a symbolic channel they are rational
    functions, which :func:`qifkit.stability.loss_on_range` compares over an interval."""
    prior = as_prior(prior)._aligned(channel.secrets)
    if table.secrets != channel.secrets:
        raise LabelError("the loss/gain's secrets are not the channel's secrets (in the same order)")
    table_matrix, prior_matrix = same_kind(table.matrix, prior.matrix, "expectation")
    table_matrix, channel_matrix = same_kind(table_matrix, channel.matrix, "expectation")
    if isinstance(table_matrix, np.ndarray):
        weighted = table_matrix.T * np.asarray(prior.matrix)[0]
        return None, (weighted @ channel_matrix).tolist()
    domain = table_matrix.domain
    prior_row = prior_matrix.convert_to(domain).to_list()[0]
    weighted_rows = [
        [value * weight for value, weight in zip(row, prior_row, strict=True)]
        for row in table_matrix.transpose().to_list()
    ]
    weighted = DomainMatrix(weighted_rows, (len(weighted_rows), len(prior_row)), domain)
    return domain, matmul(weighted, channel_matrix.convert_to(domain)).to_list()


def _best_decision(
    domain: Any, expected: list[list[Any]], best: Callable[[Any, Any], bool], outputs: tuple, actions: tuple
) -> Decision:
    if domain is not None and domain != QQ and len(expected) > 1:
        raise UndecidableError(
            f"choosing the best of {len(expected)} actions over symbolic values in {domain.symbols} "
            "is not decidable in general; substitute() values first"
        )
    total = domain.zero if domain is not None else 0.0
    chosen = []
    for column in zip(*expected, strict=True):
        index = 0
        for candidate in range(1, len(column)):
            if best(column[candidate], column[index]):
                index = candidate
        total += column[index]
        chosen.append(actions[index])
    value = float(total) if domain is None else public_value(domain, total)
    return Decision(value, outputs, tuple(chosen))


def _trivial_channel(prior: Prior, secrets: tuple[Hashable, ...]) -> Channel:
    """The channel with one output: observing it teaches nothing."""
    count = len(secrets)
    if prior.kind is NumberKind.FLOAT:
        return Channel(float_matrix(np.ones((count, 1))), secrets, ("⊥",))
    return Channel(DomainMatrix.ones((count, 1), QQ), secrets, ("⊥",))


def bayes_decision(prior: Prior | Sequence[Any], channel: Channel, loss: Loss) -> Decision:
    """The posterior ℓ-uncertainty of `channel` (Alvim et al. Def. 2) with the optimal actions.

    Complexity: one product of a W×X by an X×Y matrix, O(W·X·Y), plus O(W·Y) comparisons.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets.
    loss : Loss
        ℓ(x, w).

    Returns
    -------
    Decision
        ``value`` = U_ℓ(π, C) and the best action after each output.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> decision = bayes_decision(uniform_prior(2), randomized_response(2, eps_exp=3), bayes_risk(range(2)))
    >>> decision.value, decision.actions  # guess what was reported
    (Fraction(1, 4), (0, 1))
    """
    domain, expected = expected_table(prior, channel, loss)
    return _best_decision(domain, expected, lambda a, b: a < b, channel.outputs, loss.actions)


def _bayes(table: type[_Table], secrets: tuple[Hashable, ...], kind: NumberKind) -> _Table:
    """The Bayes gain (identity) or loss (0-1) on `secrets`, floats for a float `kind`: the default
    of the measures below (libqif's ``bayes_vuln`` and ``bayes_risk``)."""
    bayes = identity_gain(secrets) if table is Gain else bayes_risk(secrets)
    return cast(_Table, bayes.to_float() if kind is NumberKind.FLOAT else bayes)


def posterior_uncertainty(prior: Prior | Sequence[Any], channel: Channel, loss: Loss | None = None) -> Any:
    """U_ℓ(π, C) = Σ_y min_w Σ_x π_x C[x, y] ℓ(x, w) (Alvim et al. Def. 2): the expected loss of an
    analyst who sees C's output and then acts optimally.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets.
    loss : Loss, optional
        ℓ(x, w); the Bayes risk (0-1 loss) by default.

    Returns
    -------
    Fraction or float or sympy expression
        Exact for exact inputs, float64 for float inputs (never mixed silently).

    Raises
    ------
    LabelError
        If the prior, channel and loss name different secrets.

    Examples
    --------
    Randomised response on two values at e^ε = 3 (entries 3/4 and 1/4): with a uniform prior the
    analyst guesses the report and is wrong a quarter of the time.

    >>> from qifkit import randomized_response
    >>> posterior_uncertainty(uniform_prior(2), randomized_response(2, eps_exp=3))
    Fraction(1, 4)
    """
    loss = loss if loss is not None else _bayes(Loss, channel.secrets, channel.kind)
    return bayes_decision(prior, channel, loss).value


def prior_uncertainty(prior: Prior | Sequence[Any], loss: Loss | None = None) -> Any:
    """U_ℓ(π) = min_w Σ_x π_x ℓ(x, w): the expected loss of the best blind action (Alvim et al.
    Def. 2 with a channel that reveals nothing).

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π.
    loss : Loss, optional
        ℓ(x, w); the Bayes risk by default.

    Returns
    -------
    Fraction or float
        As :func:`posterior_uncertainty`.

    Examples
    --------
    >>> prior_uncertainty(["1/4", "3/4"])  # guess the likelier secret: wrong with probability 1/4
    Fraction(1, 4)
    """
    prior = as_prior(prior)
    loss = loss if loss is not None else _bayes(Loss, prior.column_labels, prior.kind)
    return posterior_uncertainty(prior, _trivial_channel(prior, loss.secrets), loss)


def posterior_vulnerability(prior: Prior | Sequence[Any], channel: Channel, gain: Gain | None = None) -> Any:
    """V_g(π, C) = Σ_y max_w Σ_x π_x C[x, y] g(x, w); g the identity gain (Bayes vulnerability) by
    default.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets.
    gain : Gain, optional
        g(x, w); the identity gain (Bayes vulnerability) by default.

    Returns
    -------
    Fraction or float
        Exact for exact inputs.

    Examples
    --------
    >>> from qifkit import Channel
    >>> posterior_vulnerability(Prior.from_floats([0.5, 0.3, 0.2]),
    ...                         Channel.from_numpy([[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]]))  # libqif: 0.59
    0.59
    """
    gain = gain if gain is not None else _bayes(Gain, channel.secrets, channel.kind)
    domain, expected = expected_table(prior, channel, gain)
    return _best_decision(domain, expected, lambda a, b: a > b, channel.outputs, gain.actions).value


def prior_vulnerability(prior: Prior | Sequence[Any], gain: Gain | None = None) -> Any:
    """V_g(π) = max_w Σ_x π_x g(x, w) (Bayes vulnerability, max_x π_x, by default).

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π.
    gain : Gain, optional
        g(x, w); the identity gain by default.

    Returns
    -------
    Fraction or float
        As :func:`posterior_uncertainty`.

    Examples
    --------
    >>> prior_vulnerability(["1/4", "3/4"])
    Fraction(3, 4)
    """
    prior = as_prior(prior)
    gain = gain if gain is not None else _bayes(Gain, prior.column_labels, prior.kind)
    return posterior_vulnerability(prior, _trivial_channel(prior, gain.secrets), gain)


def multiplicative_leakage(prior: Prior | Sequence[Any], channel: Channel, gain: Gain | None = None) -> Any:
    """Multiplicative g-leakage V_g(π, C) / V_g(π) (Bayes by default); needs V_g(π) > 0.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets.
    gain : Gain, optional
        g(x, w); the identity gain (Bayes vulnerability) by default.

    Returns
    -------
    Fraction or float

    Raises
    ------
    DistributionError
        If V_g(π) is not positive.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> multiplicative_leakage(uniform_prior(2), randomized_response(2, eps_exp=3))  # (3/4) / (1/2)
    Fraction(3, 2)
    """
    gain = gain if gain is not None else _bayes(Gain, channel.secrets, channel.kind)
    before = prior_vulnerability(prior, gain)
    if not before > 0:
        raise DistributionError(f"prior vulnerability is {before}; multiplicative leakage needs it > 0")
    return posterior_vulnerability(prior, channel, gain) / before


def additive_leakage(prior: Prior | Sequence[Any], channel: Channel, gain: Gain | None = None) -> Any:
    """Additive g-leakage V_g(π, C) − V_g(π) (Bayes by default).

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets.
    gain : Gain, optional
        g(x, w); the identity gain (Bayes vulnerability) by default.

    Returns
    -------
    Fraction or float

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> additive_leakage(uniform_prior(2), randomized_response(2, eps_exp=3))  # 3/4 − 1/2
    Fraction(1, 4)
    """
    gain = gain if gain is not None else _bayes(Gain, channel.secrets, channel.kind)
    return posterior_vulnerability(prior, channel, gain) - prior_vulnerability(prior, gain)


# ---------------------------------------------------------------------------------- posteriors
@dataclass(frozen=True)
class Posterior:
    """The analyst's view after one output: its probability and the posterior on secrets.

    Attributes
    ----------
    output : hashable
        The output seen.
    probability : Fraction or float
        Its probability Σ_x π_x C[x, y].
    distribution : tuple
        The posterior on the secrets, in the channel's order.
    """

    output: Hashable
    probability: Any
    distribution: tuple[Any, ...]


@dataclass(frozen=True)
class HyperDistribution:
    """A distribution on posteriors: ``outer[k]`` is the probability of posterior ``inners[k]``.

    Attributes
    ----------
    outer : tuple
        The probability of each distinct posterior.
    inners : tuple of tuple
        The distinct posteriors, in order of first appearance.
    """

    outer: tuple[Any, ...]
    inners: tuple[tuple[Any, ...], ...]


def posteriors(prior: Prior | Sequence[Any], channel: Channel) -> tuple[Posterior, ...]:
    """One :class:`Posterior` for every output of positive probability, in output order.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, exact or float (not symbolic).

    Returns
    -------
    tuple of Posterior
        Each with the output, its probability Σ_x π_x C[x, y] and the posterior on the secrets.

    Raises
    ------
    UndecidableError
        For a symbolic channel (substitute values first).

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> first = posteriors(uniform_prior(2), randomized_response(2, eps_exp=3))[0]
    >>> first.probability, first.distribution
    (Fraction(1, 2), (Fraction(3, 4), Fraction(1, 4)))
    """
    prior = as_prior(prior)._aligned(channel.secrets)
    if channel.kind is NumberKind.SYMBOLIC:
        raise UndecidableError("posteriors of a symbolic channel: substitute() values first")
    weights = prior.probabilities()
    same_kind(prior.matrix, channel.matrix, "posterior")
    result = []
    for output, column in zip(channel.outputs, zip(*channel.rows(), strict=True), strict=True):
        joint = [w * c for w, c in zip(weights, column, strict=True)]
        probability = sum(joint)
        if probability != 0:
            result.append(Posterior(output, probability, tuple(j / probability for j in joint)))
    return tuple(result)


def hyper_distribution(prior: Prior | Sequence[Any], channel: Channel) -> HyperDistribution:
    """The hyper-distribution [π▷C]: equal posteriors merged, in order of first appearance.

    Parameters
    ----------
    prior : Prior or sequence of exact numbers
        π on the channel's secrets.
    channel : Channel
        C, rows are secrets.

    Returns
    -------
    HyperDistribution
        ``outer`` and ``inners``, exact for exact inputs.

    Examples
    --------
    >>> C = Channel.from_rows([["1/2", "1/2", 0], [0, "1/2", "1/2"]])
    >>> h = hyper_distribution(uniform_prior(2), C)
    >>> h.outer
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    merged: dict[tuple[Any, ...], Any] = {}
    for posterior in posteriors(prior, channel):
        merged[posterior.distribution] = merged.get(posterior.distribution, 0) + posterior.probability
    return HyperDistribution(tuple(merged.values()), tuple(merged))
