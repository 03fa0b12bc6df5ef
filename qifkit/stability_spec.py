"""Stability of a described pipeline: the TOML spec of ``qifkit stability`` and its evaluation.

A spec names a perturber family, a population, a query, an analyst and a sweep of e^ε::

    [perturber]  family = "geometric"        # or "randomized_response"
                 values = 7                  # secrets 0..values-1
    [population] respondents = 4
                 known = [0, 1, 1]           # optional: values the analyst knows
    [query]      kind = "count"              # "count", "sum" or "argmax"
                 of = [0]                    # count: the perturbed values counted
    [analyst]    prior = "uniform"           # or "uniform_tuples", or a list of probabilities
                 loss = "linear"             # "bayes", "linear", "squared" or "ama"
                 scale = 1000                # optional multiplier of the loss
    [sweep]      eps_exp = ["7/2", "351/100"]
                 exact = true                # false: float64 curve, no certificates

Secrets are the value of the one unknown respondent, or the histograms of the unknown
respondents (lumped; ``prior = "uniform"`` is uniform over those histograms, ``"uniform_tuples"``
uniform over the tuples of unknown values). For ``argmax`` (noisy ArgMax, Alvim et al. §8) the
secrets are the histograms of all respondents over ``values`` categories, each bar perturbed on
heights 0..respondents, and ``known`` is not allowed.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

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
from qifkit.mechanisms import randomized_response, truncated_geometric
from qifkit.numbers import exact_eps_exp, exact_str, parse_number
from qifkit.pipelines import (
    argmax_pipeline,
    count_pipeline,
    count_witness,
    histogram_prior_weights,
    histograms,
    sum_pipeline,
)
from qifkit.refinement import Refinement, refines

__all__ = ["SpecError", "StabilitySpec", "read_spec", "parse_spec", "evaluate_spec", "MAX_ROWS"]

#: The largest secret space (rows) a spec may ask for.
MAX_ROWS = 10**6
_KEYS = {
    "perturber": {"family", "values"},
    "population": {"respondents", "known"},
    "query": {"kind", "of"},
    "analyst": {"prior", "loss", "scale"},
    "sweep": {"eps_exp", "exact"},
}
_FAMILIES = {"geometric": truncated_geometric, "randomized_response": randomized_response}


class SpecError(QifError, ValueError):
    """A stability spec names an unknown key or value, or asks for something impossible."""


@dataclass(frozen=True)
class StabilitySpec:
    """A validated stability spec (see the module docstring)."""

    family: str
    values: int
    respondents: int
    known: tuple[int, ...]
    query: str
    counted: tuple[int, ...]
    prior: Any
    loss: str
    scale: Fraction
    eps_exp: tuple[Any, ...]
    exact: bool


def read_spec(path: str) -> StabilitySpec:
    """Read and validate a TOML spec file."""
    try:
        with open(path, "rb") as stream:
            document = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path} is not valid TOML: {error}") from None
    return parse_spec(document)


def _whole(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SpecError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return value


def parse_spec(document: dict[str, Any]) -> StabilitySpec:
    """Validate a spec given as parsed TOML; every refusal names the key and the reason."""
    unknown_tables = set(document) - set(_KEYS)
    if unknown_tables:
        raise SpecError(f"unknown table [{sorted(unknown_tables)[0]}]; the tables are {', '.join(sorted(_KEYS))}")
    for table, allowed in _KEYS.items():
        section = document.get(table, {})
        if not isinstance(section, dict):
            raise SpecError(f"[{table}] must be a table")
        extra = set(section) - allowed
        if extra:
            raise SpecError(f"unknown key {sorted(extra)[0]!r} in [{table}]; allowed: {', '.join(sorted(allowed))}")
    get = lambda table, key, default=None: document.get(table, {}).get(key, default)  # noqa: E731
    family = get("perturber", "family")
    if family not in _FAMILIES:
        raise SpecError(f"unknown perturber family {family!r}; use one of {', '.join(sorted(_FAMILIES))}")
    values = _whole(get("perturber", "values"), "[perturber] values", 2)
    respondents = _whole(get("population", "respondents"), "[population] respondents", 1)
    known = get("population", "known", [])
    if not isinstance(known, list):
        raise SpecError("[population] known must be a list of values")
    for value in known:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < values:
            raise SpecError(f"known value {value!r} is out of range: values are 0..{values - 1}")
    if len(known) > respondents - 1:
        raise SpecError(f"known lists {len(known)} values but respondents − 1 = {respondents - 1}: one must stay unknown")
    query = get("query", "kind")
    if query not in ("count", "sum", "argmax"):
        raise SpecError(f"unknown query kind {query!r}; use count, sum or argmax")
    counted = get("query", "of", [])
    if query == "count":
        if not isinstance(counted, list) or not counted:
            raise SpecError("[query] of must list the values a count query counts")
        for value in counted:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < values:
                raise SpecError(f"counted value {value!r} is out of range: values are 0..{values - 1}")
    if query == "argmax" and known:
        raise SpecError("an argmax query has histograms as secrets: [population] known is not allowed")
    loss = get("analyst", "loss", "bayes")
    if loss not in ("bayes", "linear", "squared", "ama"):
        raise SpecError(f"unknown loss {loss!r}; use bayes, linear, squared or ama")
    if loss == "ama" and query != "argmax":
        raise SpecError("the ama loss needs the argmax query (its actions are categories)")
    if query == "argmax" and loss not in ("ama", "bayes"):
        raise SpecError(f"an argmax query has histograms as secrets: use the ama or bayes loss, not {loss}")
    if loss in ("linear", "squared") and (query == "argmax" or respondents - len(known) != 1):
        raise SpecError(f"the {loss} loss needs one unknown respondent (a numeric secret); use bayes, or list more known values")
    scale = _number(get("analyst", "scale", 1), "[analyst] scale")
    if scale <= 0:
        raise SpecError(f"[analyst] scale must be positive, got {scale}")
    prior = get("analyst", "prior", "uniform")
    if not (prior in ("uniform", "uniform_tuples") or isinstance(prior, list)):
        raise SpecError(f"[analyst] prior must be 'uniform', 'uniform_tuples' or a list, got {prior!r}")
    eps_list = get("sweep", "eps_exp")
    if not isinstance(eps_list, list) or not eps_list:
        raise SpecError("[sweep] eps_exp must be a non-empty list of e^ε values")
    for value in eps_list:
        try:
            number = exact_eps_exp(value if isinstance(value, str) else str(value))
        except QifError as error:
            raise SpecError(f"[sweep] eps_exp value {value!r}: {error}") from None
        if number <= 1:
            raise SpecError(f"[sweep] eps_exp value {value!r} is e^ε = {number} ≤ 1, so ε is not > 0")
    exact_flag = get("sweep", "exact", True)
    if not isinstance(exact_flag, bool):
        raise SpecError("[sweep] exact must be true or false")
    spec = StabilitySpec(family, values, respondents, tuple(known), query, tuple(counted), prior, loss, scale,
                         tuple(v if isinstance(v, str) else str(v) for v in eps_list), exact_flag)
    rows = _secret_count(spec)
    if rows > MAX_ROWS:
        unknown = respondents if query == "argmax" else respondents - len(spec.known)
        raise SpecError(
            f"the secrets are {rows:,} histograms (materialising the pipeline would need {values}^{unknown} "
            f"rows); the limit is {MAX_ROWS:,}: list more respondents as known, or use fewer values"
        )
    return spec


def _number(value: Any, name: str) -> Fraction:
    if isinstance(value, bool) or isinstance(value, float):
        raise SpecError(f"{name} = {value!r}: give exact numbers as integers or strings such as \"0.1\"")
    try:
        return parse_number(value) if isinstance(value, str) else Fraction(int(value))
    except (QifError, TypeError, ValueError) as error:
        raise SpecError(f"{name} = {value!r}: {error}") from None


def _secret_count(spec: StabilitySpec) -> int:
    if spec.query == "argmax":
        return math.comb(spec.respondents + spec.values - 1, spec.values - 1)
    unknown = spec.respondents - len(spec.known)
    return spec.values if unknown == 1 else math.comb(unknown + spec.values - 1, spec.values - 1)


def _builder(spec: StabilitySpec) -> Callable[[Any], Channel]:
    family = _FAMILIES[spec.family]

    def build(eps_exp: Any) -> Channel:
        if spec.query == "argmax":
            perturber = family(spec.respondents + 1, eps_exp)
        else:
            perturber = family(spec.values, eps_exp)
        if not spec.exact:
            perturber = perturber.to_float()
        if spec.query == "count":
            return count_pipeline(perturber, spec.respondents, set(spec.counted), spec.known)
        if spec.query == "sum":
            return sum_pipeline(perturber, spec.respondents, spec.known)
        return argmax_pipeline(perturber, spec.values, histograms(spec.values, spec.respondents))

    return build


def _candidate(spec: StabilitySpec) -> Callable[[Any, Any], Channel | None]:
    """A candidate witness for pipeline(high) ⊑ pipeline(low): the lumped one of
    :func:`qifkit.pipelines.count_witness` for exact count queries, else none (the LP decides)."""
    if spec.query != "count" or not spec.exact:
        return lambda high, low: None
    family = _FAMILIES[spec.family]
    return lambda high, low: count_witness(family(spec.values, high), family(spec.values, low), spec.respondents,
                                           set(spec.counted))


def _analyst(spec: StabilitySpec, secrets: tuple[Any, ...]) -> tuple[Prior, Loss]:
    if spec.prior == "uniform":
        prior = uniform_prior(secrets)
    elif spec.prior == "uniform_tuples":
        weights = [1] * len(secrets) if not isinstance(secrets[0], tuple) else histogram_prior_weights(secrets)
        prior = Prior.from_values([Fraction(w, sum(weights)) for w in weights], secrets)
    else:
        if len(spec.prior) != len(secrets):
            raise SpecError(f"[analyst] prior has {len(spec.prior)} entries for {len(secrets)} secrets")
        prior = Prior.from_values([_number(v, "[analyst] prior entry") for v in spec.prior], secrets)
    if spec.loss == "bayes":
        loss = bayes_risk(secrets)
    elif spec.loss == "linear":
        loss = linear_error(secrets)
    elif spec.loss == "squared":
        loss = squared_error(secrets)
    else:
        loss = argmax_accuracy(secrets)
    if not spec.exact:
        prior = Prior.from_floats([float(p) for p in prior.probabilities()], secrets)
        loss = Loss.from_floats([[float(v) * float(spec.scale) for v in row] for row in loss.rows()], loss.secrets, loss.actions)
    elif spec.scale != 1:
        loss = loss.scaled(spec.scale)
    return prior, loss


def evaluate_spec(spec: StabilitySpec) -> tuple[dict[str, Any], tuple[Channel, Channel, Refinement] | None]:
    """The stability report of a spec, and the certified instability (pipelines and certificate)
    when there is one.

    The report has ``points`` (e^ε and the analyst's expected loss, increasing e^ε), ``monotone``
    (the loss never rises as e^ε grows), ``stable`` (exact sweeps: every consecutive pair of
    pipelines refines, certified; null for float sweeps) and ``instability``: null, or the first
    rise of the analyst's loss (``found_by: "analyst"``) or, if the analyst sees none, the first
    failed pipeline refinement (``found_by: "refinement"``), with prior, loss and exact gap.
    """
    build = _builder(spec)
    grid = sorted(spec.eps_exp, key=exact_eps_exp)
    pipelines = {e: build(e) for e in grid}
    secrets = pipelines[grid[0]].secrets
    prior, loss = _analyst(spec, secrets)
    values = [posterior_uncertainty(prior, pipelines[e], loss) for e in grid]
    text = (lambda v: exact_str(v)) if spec.exact else (lambda v: repr(float(v)))
    report: dict[str, Any] = {
        "arithmetic": "exact" if spec.exact else "float",
        "secrets": len(secrets),
        "points": [{"eps_exp": e, "loss": text(v)} for e, v in zip(grid, values)],
    }
    rise = next((i for i in range(len(grid) - 1) if values[i + 1] > values[i]), None)
    report["monotone"] = rise is None
    certified = None
    if rise is not None:
        low, high = grid[rise], grid[rise + 1]
        report["instability"] = {
            "found_by": "analyst", "eps_exp_low": low, "eps_exp_high": high,
            "prior": [text(p) for p in prior.probabilities()], "loss": [[text(v) for v in row] for row in loss.rows()],
            "gap": text(values[rise + 1] - values[rise]),
        }
        if spec.exact:
            certificate = Refinement(False, prior=prior, loss=loss, uncertainty_a=values[rise + 1],
                                     uncertainty_b=values[rise], gap=values[rise + 1] - values[rise],
                                     method="the spec's analyst")
            certified = (pipelines[high], pipelines[low], certificate)
    else:
        report["instability"] = None
    report["stable"] = None
    if spec.exact:
        report["stable"] = True
        candidate = _candidate(spec)
        for low, high in zip(grid, grid[1:]):
            result = refines(pipelines[high], pipelines[low], candidate=candidate(high, low))
            if not result.holds:
                report["stable"] = False
                if report["instability"] is None:
                    report["instability"] = {
                        "found_by": "refinement", "eps_exp_low": low, "eps_exp_high": high,
                        "prior": [exact_str(p) for p in result.prior.probabilities()],
                        "loss": [[exact_str(v) for v in row] for row in result.loss.rows()],
                        "gap": exact_str(result.gap),
                    }
                    certified = (pipelines[high], pipelines[low], result)
                break
    return report, certified
