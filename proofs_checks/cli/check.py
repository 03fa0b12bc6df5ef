"""``qifkit check``: run the registered claim checks, a line per check as it finishes, a summary,
and the JSON and Markdown reports written atomically; exit 1 if a check failed, 130 if interrupted
(after writing what finished)."""

from __future__ import annotations

import argparse
import difflib
import fnmatch
from collections.abc import Sequence

from proofs_checks.cli.base import EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK, UsageError, detail_printer
from proofs_checks.cli.io import check_writable
from proofs_checks.registry import Check, Result, Status, registry, run_check
from proofs_checks.report import markdown_report, progress_line, report_document, summary_line
from qifkit.files import atomic_write_text

__all__ = ["run"]


def _select(checks: dict[str, Check], patterns: Sequence[str] | None) -> list[Check]:
    if not patterns:
        return list(checks.values())
    chosen = [c for c in checks.values() if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]
    if not chosen:
        near = sorted({m for p in patterns for m in difflib.get_close_matches(p, checks, n=5, cutoff=0.5)})
        hint = f"; near matches: {', '.join(near)}" if near else "; see qifkit check --list"
        raise UsageError(f"no check id matches {' '.join(patterns)}{hint}")
    return chosen


def run(arguments: argparse.Namespace) -> int:
    checks = registry()
    if arguments.list:
        for check in checks.values():
            print(f"{check.id:<28} {check.source}")
        return EXIT_OK
    selected = _select(checks, arguments.only)
    detail = detail_printer(arguments)
    for path in (arguments.json, arguments.markdown):
        if path:
            check_writable(path)
    results: list[Result] = []
    interrupted = False
    try:
        for index, check in enumerate(selected, start=1):
            result = run_check(check, full=arguments.full)
            results.append(result)
            if not arguments.quiet:
                print(progress_line(index, len(selected), result), flush=True)
            detail(f"{check.source}: {check.method}")
            if result.outcome.evidence:
                detail("evidence: " + ", ".join(sorted(result.outcome.evidence)))
    except KeyboardInterrupt:
        interrupted = True
    not_run = [check.id for check in selected[len(results):]]
    print(summary_line(results, len(not_run)))
    if arguments.json:
        atomic_write_text(arguments.json, report_document(results, not_run))
        print(f"report written to {arguments.json}")
    if arguments.markdown:
        atomic_write_text(arguments.markdown, markdown_report(results, not_run))
        print(f"markdown report written to {arguments.markdown}")
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_NEGATIVE if any(r.outcome.status is Status.FAILED for r in results) else EXIT_OK


