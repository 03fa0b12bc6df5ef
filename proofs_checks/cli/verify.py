"""``qifkit verify A.csv B.csv CERT.json``: re-check a refinement certificate with exact arithmetic
only; exit 0 exactly when it is valid, 1 when it is not, 2 when it is malformed. ``qifkit verify
--range-proof PROOF.json SPEC.toml`` re-checks a range proof of ``qifkit stability`` the same way."""

from __future__ import annotations

import argparse

from proofs_checks.cli.base import EXIT_NEGATIVE, EXIT_OK, UsageError, detail_printer
from proofs_checks.cli.io import read_channel
from qifkit.files import read_json
from qifkit.refinement import MAX_WITNESS_ENTRIES, certificate_defect, certificate_from_document

__all__ = ["run"]


def run(arguments: argparse.Namespace) -> int:
    if arguments.range_proof is not None:
        return _range_proof(arguments)
    if arguments.certificate is None:
        raise UsageError("verify takes A.csv B.csv CERT.json, or --range-proof PROOF.json SPEC.toml")
    a, b = read_channel(arguments.a), read_channel(arguments.b)
    entries = a.shape[1] * b.shape[1]
    if entries > MAX_WITNESS_ENTRIES:  # checked before the certificate is read: re-checking one would run for minutes
        raise UsageError(f"verify re-checks certificates of channels whose witness (A's outputs × B's outputs) has at "
                         f"most {MAX_WITNESS_ENTRIES:,} entries, the limit of refine; A has {a.shape[1]:,} outputs and "
                         f"B {b.shape[1]:,}: {entries:,}")
    try:
        document = read_json(arguments.certificate)
    except OSError as error:
        raise UsageError(f"cannot read {arguments.certificate}: {error.strerror}") from None
    certificate = certificate_from_document(document, a, b)
    defect = certificate_defect(a, b, certificate)
    detail_printer(arguments)(
        "checked: "
        + (
            "the witness is stochastic and A·W = B, entry by entry"
            if certificate.holds
            else "the prior is a distribution, the loss is finite, and the two uncertainties and their gap, recomputed"
        )
    )
    claim = "A ⊑ B" if certificate.holds else "A ⋢ B"
    print(f"certificate for {claim}: " + ("valid" if defect is None else f"INVALID: {defect}") + " (exact re-check)")
    return EXIT_OK if defect is None else EXIT_NEGATIVE




def _range_proof(arguments: argparse.Namespace) -> int:
    """``verify --range-proof PROOF.json SPEC.toml``: the proof re-checked exactly against the spec's
    perturber family (:func:`proofs_checks.stability_spec.range_proof_problem`); a spec whose SHA-256 is not
    the one the proof records is refused (the proof is about another spec)."""
    from proofs_checks.cli.stability import read_stability_spec, sha256_of
    from proofs_checks.stability_spec import range_proof_problem

    if arguments.b is not None or arguments.certificate is not None:
        raise UsageError("verify --range-proof PROOF.json takes one more argument: the spec it proves")
    try:
        document = read_json(arguments.range_proof)
    except OSError as error:
        raise UsageError(f"cannot read {arguments.range_proof}: {error.strerror}") from None
    spec = read_stability_spec(arguments.a)
    recorded = document.get("spec_sha256") if isinstance(document, dict) else None
    if recorded is not None and recorded != sha256_of(arguments.a):
        raise UsageError(f"{arguments.range_proof} was written for another spec (SHA-256 {str(recorded)[:16]}…), "
                         f"not {arguments.a}")
    problem = ("it names no spec (a range proof records its spec's SHA-256 as spec_sha256)" if recorded is None
               else range_proof_problem(spec, document))
    detail_printer(arguments)("checked: H and M are the perturber's hit probabilities, H − M > 0 and the ratios "
                              "M/H and (1 − H)/(1 − M) never rise on the range, each decided exactly")
    print("range proof: " + ("valid" if problem is None else f"INVALID: {problem}") + " (exact re-check)")
    return EXIT_OK if problem is None else EXIT_NEGATIVE
