"""Stability of a described pipeline: the TOML spec of ``qifkit stability`` and its evaluation.

A spec names a perturber family, a population, a query, an analyst and a sweep of e^ε::

    [perturber]  family = "geometric"        # = Cormode et al.'s GM; "randomized_response",
                                             # "explicit_fair" (Cormode et al.'s EM), "exponential",
                                             # "expression" or "file" (the user's own mechanism);
                                             # "uniform" (Cormode et al.'s UM); "fixed_point"
                                             # (z = [...], Kohli and Laskowski's Algorithm 1) and
                                             # "weakly_honest" (Cormode et al.'s WM), from polytopes
                 matrix = "mine.csv"         # family "expression": entries in t = e^ε, t/(t+2)
                 files = {"2" = "p2.csv"}    # family "file": a CSV per e^ε of the grid
                 quality = "quality.csv"     # family "exponential": Q(value, report); sensitivity = "1"
                 before = "merge.csv"        # a pre-processor (named families): rows value,input
                 values = 7                  # secrets 0..values-1
    [population] respondents = 4
                 known = [0, 1, 1]           # optional: values the analyst knows, or
                 known_counts = {"0" = 5000, "1" = 6709}  # how many known respondents hold each value
                 population_prior = ["1/2", "1/4", "1/4"]  # optional: the other unknown respondents'
                 targets = 1                 # values are drawn from it; the secret is the targets' values
    [query]      kind = "count"              # "count", "threshold", "map", "sum", "histogram" or "argmax"
                 of = [0]                    # count, threshold, map: the perturbed values counted
                 at = 2                      # threshold: the release is whether the count is >= at
                 table = "bands.csv"         # map: rows count,label; the release is the count's label
    [analyst]    prior = "uniform"           # one unknown respondent; else "uniform_histograms" or
                                             # "uniform_tuples", a list of probabilities, "prior.csv"
                 loss = "linear"             # "bayes", "linear", "squared", "ama" or "loss.csv"
                 scale = 1000                # optional multiplier of the loss
    [gate]       question = "analyst"        # or "every_analyst" (_gate: the default and why)
                 tolerance = "1/1000"        # the spec's analyst's loss may rise this much (absolute)
    [sweep]      eps_exp = ["7/2", "351/100"]  # a grid of e^ε, and/or
                 from = "3"                  # a range: every e^ε in [from, to]
                 to = "4"
                 exact = true                # false: float64 curve on the grid, no certificates

Secrets are the value of the one unknown respondent, or the histograms of the unknown
respondents (lumped; ``prior = "uniform_histograms"`` is uniform over those histograms,
``"uniform_tuples"`` uniform over the tuples of unknown values; plain ``"uniform"`` only where they
agree, one unknown respondent). With a ``population_prior`` only the ``targets`` are the secret; each
other unknown respondent enters the generating functions as one mixture row
(:func:`qifkit.pipelines.with_population_row`), so the secrets stay few at any N. For ``argmax``
(noisy ArgMax, Alvim et al. §8) the secrets are the histograms of all respondents over ``values``
categories, each bar perturbed on heights 0..respondents, and ``known`` is not allowed.

Verdicts (:func:`evaluate_spec`, an adapter over :mod:`qifkit.stability`) answer the spec's
question (:func:`_verdict`): the spec's analyst, or every analyst; the other is information.

* on the grid: the analyst's loss at each e^ε (:func:`~qifkit.stability.loss_curve`) and the
  refinement of every consecutive pair of pipelines (:func:`~qifkit.stability.pipeline_refinement`),
  each with its certificate;
* on the range: the analyst's loss at *every* e^ε of [from, to] and the stretches where it rises,
  with exact ends (:func:`~qifkit.stability.loss_on_range`), which answers the spec's analyst;
  for every analyst a range needs a proof (:func:`every_analyst_on_range`: counts and
  histograms, at any number of respondents), else refinement is certified at the grid's points
  only, and a range without a rise gives ``stable = null`` and says so.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from proofs_checks.gate import limits
from proofs_checks.gate.families import (
    FAMILIES,
    POLYTOPE_FAMILIES,
    exponential_quality,
    perturber_family,
    perturber_files,
    perturber_matrix,
    pre_processor,
)
from proofs_checks.gate.model import SpecError, StabilitySpec
from proofs_checks.gate.pipelines import output_count, secret_count, spec_analyst, target_count
from proofs_checks.gate.queries import QUERIES, HistogramQuery, Query, ThresholdQuery
from proofs_checks.gate.values import expanded_counts, map_table, spec_eps_exp, spec_grid, spec_number, whole
from qifkit.errors import QifError
from qifkit.files import read_input_text
from qifkit.numbers import exact_str, quoted, shown_number
from qifkit.refinement import MAX_WITNESS_ENTRIES

SPEC_KEYS = {
    "perturber": {"family", "values", "files", "matrix", "quality", "sensitivity", "before"},
    "population": {"respondents", "known", "known_counts", "targets", "population_prior"},
    "query": {"kind", "of", "at", "table"},
    "analyst": {"prior", "loss", "scale"},
    "sweep": {"eps_exp", "from", "to", "exact"},
    "gate": {"question", "tolerance"},
}


def read_spec(path: str) -> StabilitySpec:
    """Read and validate a TOML spec file (a perturber's files are found beside it)."""
    text = read_input_text(path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path} is not valid TOML: {error}") from None
    except RecursionError:
        raise SpecError(f"{path}: nested too deep to read") from None
    return parse_spec(document, Path(path).parent)


def parse_spec(document: dict[str, Any], folder: Path | None = None) -> StabilitySpec:
    """Validate a spec given as parsed TOML, one function per table; every refusal names the key and
    the reason. A file perturber's paths are relative to `folder` (the spec's folder; default the
    working folder)."""
    folder = folder or Path(".")
    family, table_family = _tables(document)
    tables = {name: document.get(name, {}) for name in SPEC_KEYS}
    values = whole(tables["perturber"].get("values"), "[perturber] values", 2)
    respondents, known, population, others = _population_table(tables["population"], values)
    targets = respondents - len(known) - others
    kind, counted, at, released = _query_table(tables["query"], values, respondents, folder)
    if kind.bars and (known or population):
        raise SpecError("an argmax query has histograms of all respondents as secrets: [population] known, targets and "
                        "population_prior are not allowed")
    prior, loss, scale = _analyst_table(tables["analyst"], kind, targets, folder)
    question, tolerance = _gate(tables["gate"], "analyst" in document)
    eps_list, eps_range, exact_flag = _sweep_table(tables["sweep"])
    _check_perturber_size(family, kind, kind.side(_Sides(values, respondents)), eps_list if exact_flag else ())
    files, matrix, before, quality, sensitivity, built = _perturber_table(
        tables["perturber"], family, table_family, values, kind, counted, eps_list, eps_range, folder)
    spec = StabilitySpec(family, values, respondents, tuple(known), kind.name, tuple(counted), prior, loss, scale,
                         eps_list, exact_flag, eps_range, files,
                         matrix, at, quality, sensitivity, released, before, built,
                         _named_files(document, folder, files, matrix, quality,
                                      *(p for p in (prior, loss) if isinstance(p, str) and p.endswith(".csv"))),
                         question, tolerance, None, population, others, perturber_family, spec_analyst)
    oversize = _oversize(spec)
    if oversize is not None:
        if eps_range is None or eps_list or not kind.proof or not exact_flag:
            raise SpecError(oversize + ("; a range (from, to) without a grid may still be proved for every analyst at "
                                        "any size" if kind.proof else ""))
        return dataclasses.replace(spec, oversize=oversize)
    outputs = output_count(spec)
    if exact_flag and len(eps_list) >= 2 and outputs ** 2 > MAX_WITNESS_ENTRIES:
        raise SpecError(f"the pipelines have {outputs:,} outputs: certifying one against another needs an exact "
                        f"{outputs:,} × {outputs:,} witness, more than the {MAX_WITNESS_ENTRIES:,} entries refinement "
                        "takes; set exact = false for the float curve, or use fewer respondents")
    if len(eps_list) == 1 and eps_range is None:
        raise SpecError(f"[sweep] eps_exp = [\"{exact_str(eps_list[0])}\"] is one e^ε: stability compares pipelines at "
                        "two or more, so one point decides nothing; give a second e^ε, or a range (from, to)")
    if any(isinstance(p, str) and p.endswith(".csv") for p in (prior, loss)):
        spec.analyst  # noqa: B018 - prior and loss files read now, once: a bad one is refused before any work
    return spec


@dataclass(frozen=True)
class _Sides:
    """What a query's perturber side depends on, before the spec exists."""

    values: int
    respondents: int


def _tables(document: dict[str, Any]) -> tuple[str, Any]:
    """The tables and keys a spec may have (the perturber's depend on its family): the family and,
    for a family of polytopes, its :class:`~proofs_checks.gate.families.PerturberFamily`."""
    unknown_tables = set(document) - set(SPEC_KEYS)
    if unknown_tables:
        raise SpecError(f"unknown table [{sorted(unknown_tables)[0]}]; the tables are {', '.join(sorted(SPEC_KEYS))}")
    for table in SPEC_KEYS:
        if not isinstance(document.get(table, {}), dict):
            raise SpecError(f"[{table}] must be a table")
    family = document.get("perturber", {}).get("family")
    table_family = POLYTOPE_FAMILIES.get(family) if isinstance(family, str) else None
    if family not in FAMILIES and family not in ("file", "expression", "exponential") and table_family is None:
        raise SpecError(f"unknown perturber family {quoted(family)}; use one of "
                        f"{', '.join(sorted([*FAMILIES, *POLYTOPE_FAMILIES]))}, exponential, expression or file")
    keys = {**SPEC_KEYS, "perturber": SPEC_KEYS["perturber"] | (table_family.keys if table_family else frozenset())}
    for table, allowed in keys.items():
        extra = set(document.get(table, {})) - allowed
        if extra:
            raise SpecError(
                f"unknown key {quoted(sorted(extra)[0])} in [{table}]; allowed: {', '.join(sorted(allowed))}"
            )
    return str(family), table_family


def _population_table(table: dict[str, Any], values: int) -> tuple[int, list[Any], tuple[Fraction, ...] | None, int]:
    """``[population]``: respondents, the known respondents' values, and the population model
    (:func:`_population_model`)."""
    respondents = whole(table.get("respondents"), "[population] respondents", 1)
    known = table.get("known", [])
    if not isinstance(known, list):
        raise SpecError("[population] known must be a list of values")
    if table.get("known_counts") is not None:
        if known:
            raise SpecError("[population] give the known respondents as known = [...] or as known_counts, not both")
        known = expanded_counts(table["known_counts"], values, respondents)
    for value in known:
        whole(value, "[population] known value", 0, values - 1)
    if len(known) > respondents - 1:
        raise SpecError(
            f"known lists {len(known)} values but respondents − 1 = {respondents - 1}: one must stay unknown"
        )
    population, others = _population_model(table.get("population_prior"), table.get("targets"), values,
                                           respondents - len(known))
    return respondents, known, population, others


def _query_table(table: dict[str, Any], values: int, respondents: int, folder: Path
                 ) -> tuple[Query, list[Any], int, tuple[str, ...]]:
    """``[query]``: the kind (:data:`~proofs_checks.gate.queries.QUERIES`), the counted values, a
    threshold's ``at`` and a map's labels."""
    name = table.get("kind")
    kind = QUERIES.get(name) if isinstance(name, str) else None
    if kind is None:
        raise SpecError(f"unknown query kind {quoted(name)}; use {', '.join(QUERIES)}")
    counted, at = table.get("of", []), table.get("at")
    if isinstance(kind, ThresholdQuery):
        at = whole(at, "[query] at (a threshold query releases count >= at)", 1)
        if at > respondents:
            raise SpecError(f"[query] at = {at} is more than the {respondents} respondents: the release would be "
                            "constant")
    elif at is not None:
        raise SpecError(f"[query] at is for a threshold query, not {quoted(kind.name)}")
    released = map_table(table.get("table"), kind, respondents, folder)
    if kind.counts:
        if not isinstance(counted, list) or not counted:
            raise SpecError("[query] of must list the values a count query counts")
        for value in counted:
            whole(value, "[query] of: a counted value", 0, values - 1)
    return kind, counted, at or 0, released


def _analyst_table(table: dict[str, Any], kind: Query, targets: int, folder: Path) -> tuple[Any, str, Fraction]:
    """``[analyst]``: the prior (a name, a list or a CSV), the loss (a name or a CSV) and its scale."""
    loss = table.get("loss", "bayes")
    if isinstance(loss, str) and loss.endswith(".csv"):
        if kind.bars or targets != 1:
            raise SpecError("a loss from a file has one row per value of the one unknown respondent: list the other "
                            "respondents as known (or use a named loss)")
        loss = str(folder / loss)
    elif loss not in ("bayes", "linear", "squared", "ama"):
        raise SpecError(f"unknown loss {quoted(loss)}; use bayes, linear, squared, ama or a CSV file (loss.csv)")
    if loss == "ama" and not kind.bars:
        raise SpecError("the ama loss needs the argmax query (its actions are categories)")
    if kind.bars and loss not in ("ama", "bayes"):
        raise SpecError(f"an argmax query has histograms as secrets: use the ama or bayes loss, not {loss}")
    if loss in ("linear", "squared") and (kind.bars or targets != 1):
        raise SpecError(f"the {loss} loss needs one unknown respondent (a numeric secret); use bayes, or list more "
                        "known values")
    scale = spec_number(table.get("scale", 1), "[analyst] scale")
    if scale <= 0:
        raise SpecError(f"[analyst] scale must be positive, got {scale}")
    histogram_secrets = kind.bars or targets > 1
    prior = table.get("prior", "uniform_histograms" if histogram_secrets else "uniform")
    if isinstance(prior, str) and prior.endswith(".csv"):
        prior = str(folder / prior)
    elif prior == "uniform" and histogram_secrets:
        raise SpecError('[analyst] prior = "uniform" could mean two priors when the secrets are histograms: '
                        '"uniform_histograms" (every histogram of the unknown respondents equally likely) or '
                        '"uniform_tuples" (every tuple of their values equally likely, so a histogram weighs as '
                        'many tuples as it has orderings); name one')
    elif not (prior in ("uniform", "uniform_histograms", "uniform_tuples") or isinstance(prior, list)):
        raise SpecError(f"[analyst] prior must be 'uniform' (one unknown respondent), 'uniform_histograms', "
                        f"'uniform_tuples', a list or a CSV file (prior.csv), got {quoted(prior)}")
    return prior, loss, scale


def _sweep_table(table: dict[str, Any]) -> tuple[tuple[Fraction, ...], tuple[Fraction, Fraction] | None, bool]:
    """``[sweep]``: the grid of e^ε, the range (from, to) and whether the grid is exact."""
    eps_list = spec_grid(table.get("eps_exp", []))
    ends = [table.get(key) for key in ("from", "to")]
    if (ends[0] is None) != (ends[1] is None):
        raise SpecError("[sweep] a range needs both from and to")
    eps_range = None
    if ends[0] is not None:
        low, high = (spec_eps_exp(v, f"[sweep] {key}") for v, key in zip(ends, ("from", "to"), strict=True))
        if not low < high:
            raise SpecError(f"[sweep] from = {quoted(ends[0])} must be below to = {quoted(ends[1])}")
        eps_range = (low, high)
    if not eps_list and eps_range is None:
        raise SpecError("[sweep] needs eps_exp = [...] (a grid of e^ε values) or from = ... and to = ... (a range)")
    exact_flag = table.get("exact", True)
    if not isinstance(exact_flag, bool):
        raise SpecError("[sweep] exact must be true or false")
    if eps_range is not None and not exact_flag:
        raise SpecError("[sweep] a range (from, to) is decided exactly: remove exact = false, or use a grid")
    return eps_list, eps_range, exact_flag


def _perturber_table(table: dict[str, Any], family: str, table_family: Any, values: int, kind: Query,
                     counted: list[Any], eps_list: tuple[Fraction, ...], eps_range: Any, folder: Path
                     ) -> tuple[Any, Any, Any, Any, Any, Any]:
    """``[perturber]`` past its family and values: a file family's CSVs, an expression's matrix, a
    pre-processor, an exponential mechanism's quality and sensitivity, and a family of polytopes
    built at the grid's e^ε (:mod:`~proofs_checks.gate.families`)."""
    files = perturber_files(table.get("files"), family, values, eps_list, eps_range, kind, folder)
    matrix = perturber_matrix(table.get("matrix"), family, values, eps_list, eps_range, kind, folder)
    before = pre_processor(table.get("before"), family, values, kind, counted, folder)
    quality, sensitivity = exponential_quality(table.get("quality"), table.get("sensitivity"), family, values,
                                               eps_list, eps_range, kind, folder)
    built = None
    if table_family is not None:
        if eps_range is not None:
            raise SpecError(f"a {family} perturber ({table_family.description}) is built at the grid's e^ε only: "
                            "use eps_exp = [...], not from/to")
        if kind.bars:
            raise SpecError(f"a {family} perturber perturbs the values; argmax perturbs bar heights: use count or sum")
        try:
            built = table_family.make(table, values, eps_list)
        except SpecError:
            raise
        except QifError as error:
            raise SpecError(f"[perturber] {family}: {error}") from None
    return files, matrix, before, quality, sensitivity, built


def _check_perturber_size(family: str, kind: Query, side: int, grid: Sequence[Fraction]) -> None:
    """Refuse a perturber too large to build exactly, before anything is built: more than
    :data:`~proofs_checks.gate.limits.MAX_PERTURBER` values a side, or, at a grid e^ε of many digits,
    more work than :data:`~proofs_checks.gate.limits.PERTURBER_WORK` (side³ × the bits of e^ε: a
    geometric entry holds about side × those bits, and there are side² of them; times
    :data:`~proofs_checks.gate.limits.FIXED_POINT_WORK_FACTOR` for a fixed-point perturber); a weakly
    honest perturber of more than :data:`~proofs_checks.gate.limits.WEAKLY_HONEST_MAX_VALUES` values."""
    fewer = "fewer values" + (", fewer respondents" if kind.bars else "")
    if side > limits.MAX_PERTURBER:
        raise SpecError(f"the perturber would be a {side:,} × {side:,} exact matrix; the limit is "
                        f"{limits.MAX_PERTURBER:,} ({fewer})")
    if family == "weakly_honest" and side > limits.WEAKLY_HONEST_MAX_VALUES:
        raise SpecError(f"the weakly honest mechanism on {side:,} values is an exact LP of {side**2:,} variables at "
                        f"each e^ε; the limit is {limits.WEAKLY_HONEST_MAX_VALUES} values ({fewer})")
    if family in ("file", "uniform") or not grid:
        return
    heaviest = max(grid, key=lambda e: e.numerator.bit_length() + e.denominator.bit_length())
    bits = heaviest.numerator.bit_length() + heaviest.denominator.bit_length()
    work = side**3 * bits * (limits.FIXED_POINT_WORK_FACTOR if family == "fixed_point" else 1)
    if work > limits.PERTURBER_WORK:
        raise SpecError(f"an exact {side:,} × {side:,} {family} perturber at e^ε = {shown_number(heaviest)} ({bits} "
                        f"bits) is about {work:,} units of work (side³ × bits"
                        + (f" × {limits.FIXED_POINT_WORK_FACTOR} for a fixed point" if family == "fixed_point" else "")
                        + f"), beyond {limits.PERTURBER_WORK:,}: {fewer}, or an e^ε of fewer digits")


def _gate(table: dict[str, Any], names_analyst: bool) -> tuple[str, Fraction]:
    """The ``[gate]`` table: whose stability gates the release, and the rise that still passes.

    ``question = "analyst"`` (the default when the spec has an ``[analyst]`` table: a deployer who
    names the adversary's prior and loss asks about that adversary, and it is the question that
    census-sized pipelines can answer) or ``"every_analyst"`` (refinement: the default without
    one). ``tolerance`` (default 0, exact) is absolute, in the units of the spec's analyst's
    expected loss (after ``scale``): the largest total rise of that loss as e^ε grows that still
    passes as "stable within tolerance"; it needs the analyst's question (a refinement's gap is in
    the units of whatever loss refutes it)."""
    question = table.get("question", "analyst" if names_analyst else "every_analyst")
    if question not in ("analyst", "every_analyst"):
        raise SpecError(f"[gate] question must be \"analyst\" (the spec's analyst) or \"every_analyst\", got "
                        f"{quoted(question)}")
    tolerance = spec_number(table.get("tolerance", 0), "[gate] tolerance")
    if tolerance < 0:
        raise SpecError(f"[gate] tolerance must be at least 0, got {exact_str(tolerance)}")
    if tolerance and question != "analyst":
        raise SpecError("[gate] tolerance is a rise of the spec's analyst's loss: it needs question = \"analyst\"")
    return question, tolerance


def _oversize(spec: StabilitySpec) -> str | None:
    """Why the spec's pipeline is too large to build (secrets, entries, or a histogram's generating
    polynomials beyond the limits), or None."""
    rows, respondents, values = secret_count(spec), spec.respondents, spec.values
    if isinstance(spec.kind, HistogramQuery) and respondents * (respondents + 1) ** (values - 1) + 1 > \
            limits.HISTOGRAM_MAX_LENGTH:
        return (f"a histogram query of {respondents:,} respondents over {values} values is worked out on "
                f"polynomials of {respondents * (respondents + 1) ** (values - 1) + 1:,} terms; the limit is "
                f"{limits.HISTOGRAM_MAX_LENGTH:,} (fewer respondents or values, or a count query)")
    if rows > limits.MAX_ROWS:
        unknown = respondents if spec.kind.bars else target_count(spec)
        return (f"the secrets are more than {limits.MAX_ROWS:,} histograms of {unknown:,} unknown respondents over "
                f"{values:,} values (the limit); list more respondents as known, or use fewer values")
    if rows * output_count(spec) > limits.MAX_ENTRIES:
        return (f"the pipeline would have {rows:,} secrets × {output_count(spec):,} outputs, more than "
                f"{limits.MAX_ENTRIES:,} exact entries: list more respondents as known, or use fewer respondents")
    return None


def _named_files(document: dict[str, Any], folder: Path, files: tuple[tuple[str, str], ...], *paths: Any
                 ) -> tuple[str, ...]:
    """The files a spec names, as read: its perturbers' CSVs, the other files it was given as `paths`
    (expression matrix, quality, prior and loss files; None where it has none), pre-processor and map."""
    named = [path for _, path in files] + [path for path in paths if isinstance(path, str)]
    named += [str(folder / document[table][key]) for table, key in (("perturber", "before"), ("query", "table"))
              if isinstance(document.get(table, {}).get(key), str)]
    return tuple(named)


def _population_model(prior: Any, targets: Any, values: int, unknown: int) -> tuple[tuple[Fraction, ...] | None, int]:
    """``[population] population_prior`` and ``targets``: the population prior of the unknown
    respondents who are not the secret, and how many of them there are (the unknown respondents
    but the targets, 1 by default). Without a population prior every unknown respondent is the
    secret, and ``targets`` is not needed."""
    if prior is None:
        if targets is not None:
            raise SpecError("[population] targets needs population_prior: the prior of the other unknown respondents' "
                            "values")
        return None, 0
    if not isinstance(prior, list) or len(prior) != values:
        raise SpecError(f"[population] population_prior must list {values} probabilities, one per value")
    weights = tuple(spec_number(p, "[population] population_prior entry") for p in prior)
    if any(w < 0 for w in weights) or sum(weights) != 1:
        raise SpecError(f"[population] population_prior must be a distribution (entries ≥ 0 summing to 1), got "
                        f"{[exact_str(w) for w in weights]}")
    count = whole(1 if targets is None else targets, "[population] targets", 1, unknown)
    return weights, unknown - count
