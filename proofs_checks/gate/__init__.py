"""The deploy gate of ``qifkit stability``: a TOML spec read once into typed values
(:mod:`~proofs_checks.gate.parse`, :mod:`~proofs_checks.gate.model`), its perturber families
(:mod:`~proofs_checks.gate.families`) and pipelines (:mod:`~proofs_checks.gate.pipelines`), evaluated
in named stages (:mod:`~proofs_checks.gate.evaluate`, the range's routes in
:mod:`~proofs_checks.gate.ranges`, chosen by the work of :mod:`~proofs_checks.gate.work` within
:mod:`~proofs_checks.gate.limits`) into a report (:mod:`~proofs_checks.gate.report`) whose proofs and
census-sized instabilities ``qifkit verify`` re-checks from the spec (:mod:`~proofs_checks.gate.proofs`).
The spec's format is described in :mod:`proofs_checks.gate.parse`."""

from proofs_checks.gate.evaluate import evaluate_spec
from proofs_checks.gate.model import Certified, SpecError, StabilitySpec
from proofs_checks.gate.parse import parse_spec, read_spec
from proofs_checks.gate.pipelines import defined_between_points, sampled_losses, secret_labels
from proofs_checks.gate.proofs import (
    every_analyst_on_range,
    instability_document,
    instability_problem,
    range_proof_fields,
    range_proof_problem,
)
from proofs_checks.gate.report import GateReport, exact_text
from proofs_checks.gate.work import describe_work

__all__ = ["Certified", "GateReport", "SpecError", "StabilitySpec", "defined_between_points", "describe_work",
           "evaluate_spec", "every_analyst_on_range", "exact_text", "instability_document", "instability_problem",
           "parse_spec", "range_proof_fields", "range_proof_problem", "read_spec", "sampled_losses", "secret_labels"]
