"""A spec's pipelines, secrets and analyst: the tally pipelines of :mod:`qifkit.pipelines` at an e^ε (the
population model's mixture row included), and the analyst's exact loss (generating functions for counts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from proofs_checks.gate import limits
from proofs_checks.gate.model import SpecError, StabilitySpec
from proofs_checks.gate.queries import bounded_comb
from proofs_checks.gate.values import loss_table, prior_file, spec_number
from qifkit.channel import Channel
from qifkit.errors import QifError
from qifkit.measures import (
    Loss,
    Prior,
    argmax_accuracy,
    bayes_risk,
    linear_error,
    posterior_uncertainty,
    squared_error,
    uniform_prior,
)
from qifkit.pipelines import (
    POPULATION,
    count_uncertainty,
    count_witness,
    histogram_prior_weights,
    histograms,
    with_population_row,
)


def target_count(spec: StabilitySpec) -> int:
    """How many unknown respondents are the secret (the rest follow the population prior)."""
    return spec.respondents - len(spec.known) - spec.others


def with_population(spec: StabilitySpec, perturber: Channel) -> tuple[Channel, tuple[Any, ...], Any]:
    """The perturber, the known respondents and the values the secret respondents hold, as the
    pipelines of :mod:`qifkit.pipelines` take them: with a population model the perturber gets the
    population's mixture row (:func:`qifkit.pipelines.with_population_row`) and each other unknown
    respondent is listed as known to hold it."""
    if spec.population is None:
        return perturber, spec.known, None
    return (with_population_row(perturber, spec.population), spec.known + (POPULATION,) * spec.others,
            perturber.secrets)


def secret_count(spec: StabilitySpec) -> int:
    """The number of secrets (histograms of the unknown respondents), capped at limits.MAX_ROWS + 1."""
    if spec.kind.bars:
        return bounded_comb(spec.respondents + spec.values - 1, spec.values - 1, limits.MAX_ROWS)
    unknown = target_count(spec)
    return spec.values if unknown == 1 else bounded_comb(unknown + spec.values - 1, spec.values - 1, limits.MAX_ROWS)


def output_count(spec: StabilitySpec) -> int:
    """The number of the pipeline's outputs (:meth:`~proofs_checks.gate.queries.Query.outputs`), capped at
    limits.MAX_ROWS + 1 where it could be astronomical."""
    return spec.kind.outputs(spec, limits.MAX_ROWS)


def builder(spec: StabilitySpec) -> Callable[[Any], Channel]:
    """The spec's pipeline at an e^ε (a number or a sympy symbol), exact or float64 as the spec says:
    the perturber, with the population's row when there is a population model, then the query's
    pipeline (:meth:`~proofs_checks.gate.queries.Query.pipeline`)."""
    family, kind = spec.perturber, spec.kind

    def build(eps_exp: Any) -> Channel:
        perturber = family(kind.side(spec), eps_exp)
        if not spec.exact:
            perturber = perturber.to_float()
        if kind.bars:
            return kind.pipeline(spec, perturber, (), None)
        return kind.pipeline(spec, *with_population(spec, perturber))

    return build


def candidate_witness(spec: StabilitySpec) -> Callable[[Any, Any], Channel | None]:
    """A candidate witness for pipeline(high) ⊑ pipeline(low): the lumped one of
    :func:`qifkit.pipelines.count_witness` for exact count queries, else none (the LP decides)."""
    if not spec.kind.witness or not spec.exact or spec.population is not None:
        return lambda high, low: None
    family = spec.perturber
    return lambda high, low: count_witness(family(spec.values, high), family(spec.values, low), spec.respondents,
                                           set(spec.counted))


def defined_between_points(spec: StabilitySpec) -> bool:
    """Whether the spec's perturber exists at every e^ε > 1, not only at the grid's: a perturber
    read from files exists only where a file is given, and the exponential mechanism only where
    e^ε has the root its exponents need (both refuse a range for this reason)."""
    return spec.family not in ("file", "exponential")


def sampled_losses(spec: StabilitySpec, eps_exps: Sequence[Fraction]) -> list[float]:
    """The spec's analyst's expected loss at each e^ε of `eps_exps`, from float64 pipelines: a
    picture of the curve between the points the verdicts decide exactly (``qifkit stability --plot``;
    only where :func:`defined_between_points`).

    Examples
    --------
    >>> from proofs_checks.gate import parse_spec
    >>> spec = parse_spec({"perturber": {"family": "geometric", "values": 7}, "population": {"respondents": 4,
    ...     "known": [0, 1, 1]}, "query": {"kind": "count", "of": [0]}, "analyst": {"prior": "uniform",
    ...     "loss": "linear", "scale": 1000}, "sweep": {"eps_exp": ["7/2", "351/100"]}})
    >>> [round(v, 6) for v in sampled_losses(spec, [Fraction(7, 2)])]  # App. D.1: 1276949536000/771895089
    [1654.304522]
    """
    build = builder(dataclasses.replace(spec, exact=False))
    pipelines = [build(e) for e in eps_exps]
    if not pipelines:
        return []
    prior, loss = (part.to_float() for part in spec.analyst)
    return [float(posterior_uncertainty(prior, pipeline, loss)) for pipeline in pipelines]


def working_analyst(spec: StabilitySpec) -> tuple[Prior, Loss]:
    """The spec's prior and loss in its arithmetic: :attr:`StabilitySpec.analyst`, or its floats for a
    float sweep."""
    prior, loss = spec.analyst
    if spec.exact:
        return prior, loss
    return prior.to_float(), loss.to_float()


def exact_analyst(spec: StabilitySpec, secrets: tuple[Any, ...]) -> tuple[Prior, Loss]:
    if spec.prior in ("uniform", "uniform_histograms"):
        prior = uniform_prior(secrets)
    elif spec.prior == "uniform_tuples":
        weights = [1] * len(secrets) if not isinstance(secrets[0], tuple) else histogram_prior_weights(secrets)
        prior = Prior.from_values([Fraction(w, sum(weights)) for w in weights], secrets)
    else:
        entries = prior_file(spec.prior, len(secrets)) if isinstance(spec.prior, str) else spec.prior
        if len(entries) != len(secrets):
            raise SpecError(f"[analyst] prior has {len(entries)} entries for {len(secrets)} secrets")
        try:
            prior = Prior.from_values([spec_number(v, "[analyst] prior entry") for v in entries], secrets)
        except QifError as error:
            raise SpecError(f"[analyst] prior: {error}") from None
    if spec.loss.endswith(".csv"):
        loss = loss_table(spec.loss, spec.values)
    elif spec.loss == "bayes":
        loss = bayes_risk(secrets)
    elif spec.loss == "linear":
        loss = linear_error(secrets)
    elif spec.loss == "squared":
        loss = squared_error(secrets)
    else:
        loss = argmax_accuracy(secrets)
    return prior, loss if spec.scale == 1 else loss.scaled(spec.scale)


def spec_analyst(spec: StabilitySpec) -> tuple[Prior, Loss]:
    """The spec's prior and loss on its secrets (:attr:`StabilitySpec.analyst` is this, built once)."""
    return exact_analyst(spec, secret_labels(spec))


def secret_labels(spec: StabilitySpec) -> tuple[Any, ...]:
    """The pipeline's secrets without building it: the values of the one unknown respondent, or the
    histograms of the unknown respondents (all respondents for argmax), as the pipelines list them."""
    if spec.kind.bars:
        return tuple(histograms(spec.values, spec.respondents))
    unknown = target_count(spec)
    return tuple(range(spec.values)) if unknown == 1 else tuple(histograms(spec.values, unknown))


def exact_loss_of(spec: StabilitySpec, prior: Prior, loss: Loss, build: Callable[[Any], Channel]
                ) -> Callable[[Any], Any]:
    """The analyst's exact loss at an e^ε: for count, threshold and map queries by generating
    functions (:func:`qifkit.pipelines.count_uncertainty`, census-sized populations in seconds),
    else from the built pipeline."""
    if not spec.kind.counts or not spec.exact:
        return lambda eps_exp: posterior_uncertainty(prior, build(eps_exp), loss)
    family, release = spec.perturber, spec.kind.release(spec)

    def exact_loss(eps_exp: Any) -> Any:
        perturber, known, values = with_population(spec, family(spec.values, eps_exp))
        return count_uncertainty(perturber, spec.respondents, set(spec.counted), prior, loss, known, release, values)

    return exact_loss
