"""``qifkit verify A.csv B.csv CERT.json``: re-check a refinement certificate with exact arithmetic
only; exit 0 exactly when it is valid, 1 when it is not, 2 when it is malformed."""

from __future__ import annotations

import argparse

from proofs_checks.cli.base import EXIT_NEGATIVE, EXIT_OK, UsageError, detail_printer
from proofs_checks.cli.io import read_channel
from qifkit.files import read_json
from qifkit.refinement import MAX_WITNESS_ENTRIES, certificate_defect, certificate_from_document

__all__ = ["run"]


def run(arguments: argparse.Namespace) -> int:
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
    detail_printer(arguments)("checked: " + ("the witness is stochastic and A·W = B, entry by entry" if certificate.holds
                                             else "the prior is a distribution, the loss is finite, and the two "
                                             "uncertainties and their gap, recomputed"))
    claim = "A ⊑ B" if certificate.holds else "A ⋢ B"
    print(f"certificate for {claim}: " + ("valid" if defect is None else f"INVALID: {defect}") + " (exact re-check)")
    return EXIT_OK if defect is None else EXIT_NEGATIVE


