"""``qifkit verify A.csv B.csv CERT.json``: re-check a refinement certificate with exact arithmetic
only; exit 0 exactly when it is valid, 1 when it is not, 2 when it is malformed. ``qifkit verify
--range-proof PROOF.json SPEC.toml`` re-checks a range proof of ``qifkit stability`` the same way, and
``qifkit verify --instability INSTABILITY.json SPEC.toml`` an instability whose pipelines were too large
to write, from its spec."""

from __future__ import annotations

import argparse

from proofs_checks.cli.base import EXIT_NEGATIVE, EXIT_OK, UsageError, detail_printer
from proofs_checks.cli.io import read_channel
from qifkit.files import read_json
from qifkit.refinement import MAX_WITNESS_ENTRIES, certificate_defect, certificate_from_document

__all__ = ["run"]


def run(arguments: argparse.Namespace) -> int:
    if arguments.range_proof is not None and arguments.instability is not None:
        raise UsageError("verify takes one of --range-proof and --instability, with the spec")
    if arguments.range_proof is not None:
        return _against_spec(arguments, arguments.range_proof, "range proof")
    if arguments.instability is not None:
        return _against_spec(arguments, arguments.instability, "instability")
    if arguments.certificate is None:
        raise UsageError("verify takes A.csv B.csv CERT.json, or --range-proof PROOF.json SPEC.toml, or --instability "
                         "INSTABILITY.json SPEC.toml")
    try:
        document = read_json(arguments.certificate)
    except OSError as error:
        raise UsageError(f"cannot read {arguments.certificate}: {error.strerror}") from None
    a, b = read_channel(arguments.a), read_channel(arguments.b)
    entries = a.shape[1] * b.shape[1]
    # a witness is checked entry by entry: its size is bounded before the work; a prior and a loss are not
    refutation = isinstance(document, dict) and document.get("refines") is False
    if not refutation and entries > MAX_WITNESS_ENTRIES:
        raise UsageError(f"verify re-checks witnesses (A's outputs × B's outputs) of at most {MAX_WITNESS_ENTRIES:,} "
                         f"entries, the limit of refine; A has {a.shape[1]:,} outputs and B {b.shape[1]:,}: "
                         f"{entries:,}")
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


def _against_spec(arguments: argparse.Namespace, path: str, what: str) -> int:
    """``verify --range-proof PROOF.json SPEC.toml`` and ``verify --instability INSTABILITY.json
    SPEC.toml``: the file re-checked exactly against the spec
    (:func:`proofs_checks.gate.proofs.range_proof_problem`,
    :func:`~proofs_checks.gate.proofs.instability_problem`: the proof's conditions decided again
    from the perturber family, the instability's losses recomputed from the spec); a file that
    names another spec's SHA-256, or none, is refused."""
    from proofs_checks.cli.stability import read_stability_spec, sha256_of
    from proofs_checks.gate import instability_problem, range_proof_problem

    option = "--range-proof" if what == "range proof" else "--instability"
    if arguments.b is not None or arguments.certificate is not None:
        raise UsageError(f"verify {option} FILE.json takes one more argument: the spec it is about")
    try:
        document = read_json(path)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    spec = read_stability_spec(arguments.a)
    recorded = document.get("spec_sha256") if isinstance(document, dict) else None
    if recorded is not None and recorded != sha256_of(arguments.a):
        raise UsageError(f"{path} was written for another spec (SHA-256 {str(recorded)[:16]}…), not {arguments.a}")
    check = range_proof_problem if what == "range proof" else instability_problem
    problem = (f"it names no spec (a {what} records its spec's SHA-256 as spec_sha256)" if recorded is None
               else check(spec, document))
    detail_printer(arguments)(
        "checked: " + ("each condition of the proof, decided exactly again from the spec's perturber family"
                       if what == "range proof" else
                       "the prior and loss on the spec's secrets, and the analyst's exact losses at both e^ε, "
                       "recomputed from the spec"))
    print(f"{what}: " + ("valid" if problem is None else f"INVALID: {problem}") + " (exact re-check)")
    return EXIT_OK if problem is None else EXIT_NEGATIVE
