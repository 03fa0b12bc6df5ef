"""Proofs and certificates about a spec that ``qifkit verify`` re-checks from the spec alone: the proof for
every analyst on a range (two hit probabilities, or the perturber's generator), and an instability too
large to write as pipelines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proofs_checks.claims import jsonable
from proofs_checks.gate.model import SpecError, StabilitySpec
from proofs_checks.gate.pipelines import builder, exact_loss_of, secret_labels
from proofs_checks.gate.report import Instability
from qifkit.channel import Channel
from qifkit.errors import QifError
from qifkit.generator import generator_proof_defect, generator_refinement_on_range
from qifkit.measures import (
    Loss,
    Prior,
)
from qifkit.numbers import exact_str, parse_eps_exp, parse_number
from qifkit.stability import (
    count_refinement_on_range,
    range_proof_defect,
)


def every_analyst_on_range(spec: StabilitySpec) -> tuple[dict[str, Any] | None, str]:
    """A proof that the spec's pipelines refine for every e^ε' ≤ e^ε of its range, so that no
    analyst gains from less privacy there, at any number of respondents, any known ones and any
    prior: as the JSON document ``qifkit verify --range-proof`` re-checks (without the spec's
    SHA-256), or (None, the reason there is none).

    Routes: a count whose perturber has two hit probabilities by
    :func:`qifkit.stability.count_refinement_on_range`; a count otherwise, and a histogram, by the
    perturber's generator (:func:`qifkit.generator.generator_refinement_on_range`, lumped by the
    counted values and the rest for a count). Other queries have no route: a threshold, map, sum
    or ArgMax of lumped reports need not be a post-processing of the same release at more privacy.
    """
    assert spec.eps_range is not None  # only for a range
    low, high = spec.eps_range
    family = spec.perturber

    def perturber(t: Any) -> Channel:
        return family(spec.values, t)

    if not spec.kind.proof:
        return None, f"no proof route for a {spec.query} query (count and histogram queries have one)"
    reason = ""
    if spec.kind.counts:
        proof, reason = count_refinement_on_range(perturber, spec.counted, low, high)
        if proof is not None:
            return {"kind": "count", "from": exact_str(proof.low), "to": exact_str(proof.high), "hit": proof.hit,
                    "miss": proof.miss, "conditions": list(proof.conditions)}, ""
    generator, why = generator_refinement_on_range(perturber, low, high, _blocks(spec, perturber(high).outputs))
    if generator is None:
        return None, f"{reason}; by the generator: {why}" if reason else why
    return generator.document(), ""


def _blocks(spec: StabilitySpec, outputs: Sequence[Any]) -> list[list[int]] | None:
    """The blocks of the perturber's outputs a generator proof lumps by: the counted values and the
    rest for a count, none for a histogram."""
    if not spec.kind.counts:
        return None
    counted = set(spec.counted)
    return [[j for j, y in enumerate(outputs) if y in counted], [j for j, y in enumerate(outputs) if y not in counted]]


def range_proof_problem(spec: StabilitySpec, document: Any) -> str | None:
    """What is wrong with a ``range-proof.json`` for this spec (``qifkit verify --range-proof``), or
    None when it is valid: the spec must ask a count or histogram query over a range, the proof
    must name that query and counted values and cover the spec's whole range, and it is re-checked
    exactly against the spec's perturber family (:func:`qifkit.stability.range_proof_defect` for
    two hit probabilities, :func:`qifkit.generator.generator_proof_defect` for a generator, whose
    blocks must be the counted values and the rest, or none for a histogram). The caller checks
    the spec's SHA-256 the proof names."""
    if not spec.kind.proof:
        return f"a range proof is about count or histogram pipelines; this spec asks a {spec.query} query"
    if spec.eps_range is None:
        return "this spec asks a grid of e^ε, not a range: a range proof covers a range"
    if not isinstance(document, dict):
        return "a range proof is a JSON object"
    if {key: document.get(key) for key in ("query", "counted")} != range_proof_fields(spec):
        return (f"the proof is about the query {document.get('query')!r} of {document.get('counted')!r}, not the "
                f"spec's {spec.query} query" + (f" of {list(spec.counted)}" if spec.kind.counts else ""))
    family = spec.perturber

    def perturber(t: Any) -> Channel:
        return family(spec.values, t)

    if document.get("kind") == "generator":
        blocks = _blocks(spec, perturber(spec.eps_range[1]).outputs)
        if document.get("blocks") != blocks:
            return f"the proof lumps by the blocks {document.get('blocks')!r}; this spec's query needs {blocks!r}"
        defect = generator_proof_defect(perturber, document)
    elif spec.kind.counts:
        defect = range_proof_defect(perturber, spec.counted, document)
    else:
        return 'a histogram query is proved by its perturber\'s generator: the proof needs "kind": "generator"'
    if defect is not None:
        return defect
    low, high = spec.eps_range
    if not parse_eps_exp(document["from"]) <= low < high <= parse_eps_exp(document["to"]):
        return (f"the proof covers e^ε in [{document['from']}, {document['to']}], not the spec's range "
                f"[{low}, {high}]")
    return None


def instability_document(instability: Instability) -> dict[str, Any]:
    """An instability whose pipelines are too large to write (``pipelines`` in the report) as the
    JSON of ``instability.json``: the two e^ε, the prior and the loss on the spec's secrets, and the
    exact losses and gap, for :func:`instability_problem` (the caller adds the spec's SHA-256)."""
    return {"kind": "instability", **{key: jsonable(getattr(instability, key)) for key in (
        "found_by", "eps_exp_low", "eps_exp_high", "prior", "loss", "loss_low", "loss_high", "gap")}}


def instability_problem(spec: StabilitySpec, document: Any) -> str | None:
    """What is wrong with an ``instability.json`` (:func:`instability_document`) for this spec, or
    None when it is valid: the prior must be a distribution and the loss a table of non-negative
    numbers on the spec's secrets, both e^ε in the spec's sweep, and the analyst's exact losses there,
    recomputed from the spec (generating functions for counts, never the written pipelines), must be
    the recorded ones and rise by more than the spec's tolerance. The caller checks the SHA-256."""
    if not isinstance(document, dict) or document.get("kind") != "instability":
        return 'an instability certificate is a JSON object with "kind": "instability"'
    if spec.oversize is not None:
        return f"this spec's pipeline is not built ({spec.oversize})"
    secrets = secret_labels(spec)
    try:
        low, high = (parse_eps_exp(str(document.get(key))) for key in ("eps_exp_low", "eps_exp_high"))
        prior = Prior.from_values([parse_number(str(p)) for p in _listed(document.get("prior"), len(secrets))],
                                  secrets)
        rows = [[parse_number(str(v)) for v in _listed(row, None)] for row in _listed(document.get("loss"),
                                                                                    len(secrets))]
        loss = Loss.from_rows(rows, secrets, range(len(rows[0]) if rows else 0))
        recorded = [parse_number(str(document.get(key))) for key in ("loss_low", "loss_high", "gap")]
    except (QifError, TypeError, ValueError) as error:
        return f"the certificate does not read: {error}"
    grid = set(spec.eps_exp)
    inside = spec.eps_range is not None and spec.eps_range[0] <= low and high <= spec.eps_range[1]
    if not low < high or not ({low, high} <= grid or inside):
        return f"e^ε = {exact_str(low)} and {exact_str(high)} are not two increasing e^ε of the spec's sweep"
    exact_loss = exact_loss_of(spec, prior, loss, builder(spec))
    losses = [exact_loss(low), exact_loss(high)]
    if [*losses, losses[1] - losses[0]] != recorded:
        return (f"the losses recomputed from the spec are {exact_str(losses[0])} and {exact_str(losses[1])}, not the "
                "recorded ones")
    if not losses[1] - losses[0] > spec.tolerance:
        return f"the loss rises by {exact_str(losses[1] - losses[0])}, not more than the tolerance"
    return None


def _listed(value: Any, length: int | None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise SpecError(f"expected a list of {length if length is not None else 'some'} entries")
    return value


def range_proof_fields(spec: StabilitySpec) -> dict[str, Any]:
    """What a range proof names of its spec besides the SHA-256 (:func:`range_proof_problem` checks
    them): the query it is about and the counted values (none for a histogram)."""
    return {"query": spec.query, "counted": list(spec.counted)}
