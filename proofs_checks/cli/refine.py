"""``qifkit refine A.csv B.csv``: decide A ⊑ B exactly and print the verdict with its certificate
(exit 0 when it holds, 1 when it does not; the certificate JSON is written atomically either way)."""

from __future__ import annotations

import argparse
import time

from proofs_checks.cli.base import EXIT_NEGATIVE, EXIT_OK, detail_printer
from proofs_checks.cli.io import approximately, check_outputs, read_channel, write_json
from qifkit.refinement import certificate_document, refines

__all__ = ["run"]


def run(arguments: argparse.Namespace) -> int:
    check_outputs({"A.csv": arguments.a, "B.csv": arguments.b}, {"--json": arguments.json})
    a, b = read_channel(arguments.a), read_channel(arguments.b)
    started = time.perf_counter()
    result = refines(a, b)
    detail = detail_printer(arguments)
    detail(f"A is {a.shape[0]}×{a.shape[1]}, B is {b.shape[0]}×{b.shape[1]}; decided and re-checked in "
           f"{time.perf_counter() - started:.2f} s by: {result.method}")
    document = certificate_document(result)
    print(f"A ⊑ B: {'holds' if result.holds else 'does not hold'} ({result.method}); certificate re-verified exactly")
    if result.holds:
        print("witness W with A·W = B (rows are A's outputs, columns B's outputs):")
        for label, row in zip(a.outputs, document["witness"], strict=True):
            print(f"  {label}: " + ", ".join(row))
    else:
        print("prior: " + ", ".join(document["prior"]))
        print("loss (rows are secrets, columns are actions):")
        for label, row in zip(a.secrets, document["loss"], strict=True):
            print(f"  {label}: " + ", ".join(row))
        print(f"U(prior, A) = {approximately(result.uncertainty_a)}")
        print(f"  > U(prior, B) = {approximately(result.uncertainty_b)}")
        print(f"gap {approximately(result.gap)}")
    if arguments.json:
        write_json(arguments.json, document, "certificate")
    return EXIT_OK if result.holds else EXIT_NEGATIVE


