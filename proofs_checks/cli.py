"""The ``qifkit`` console command.

``qifkit check [--only GLOB ...] [--json FILE] [--list]`` runs the registered claim checks, prints a
line per check as it finishes and a summary, writes the JSON report atomically, and exits 1 if any
check failed (130 if interrupted, after writing what finished).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from proofs_checks.registry import Check, Result, Status, registry, run_check
from proofs_checks.report import progress_line, report_document, summary_line
from qifkit.errors import QifError
from qifkit.files import atomic_write_text

__all__ = ["main"]


class UsageError(QifError, ValueError):
    """A command-line argument cannot be honoured."""


def _select(checks: dict[str, Check], patterns: Sequence[str] | None) -> list[Check]:
    if not patterns:
        return list(checks.values())
    chosen = [c for c in checks.values() if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]
    if not chosen:
        near = sorted({m for p in patterns for m in difflib.get_close_matches(p, checks, n=5, cutoff=0.5)})
        hint = f"; near matches: {', '.join(near)}" if near else "; see qifkit check --list"
        raise UsageError(f"no check id matches {' '.join(patterns)}{hint}")
    return chosen


def _check_writable(path: str) -> None:
    """Fail before any work if the report cannot be written next to `path`."""
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: folder {folder} does not exist")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def _run_check_command(arguments: argparse.Namespace) -> int:
    checks = registry()
    if arguments.list:
        for check in checks.values():
            print(f"{check.id:<28} {check.source}")
        return 0
    selected = _select(checks, arguments.only)
    if arguments.json:
        _check_writable(arguments.json)
    results: list[Result] = []
    interrupted = False
    try:
        for index, check in enumerate(selected, start=1):
            result = run_check(check)
            results.append(result)
            print(progress_line(index, len(selected), result), flush=True)
    except KeyboardInterrupt:
        interrupted = True
    not_run = [check.id for check in selected[len(results):]]
    print(summary_line(results, len(not_run)))
    if arguments.json:
        atomic_write_text(arguments.json, report_document(results, not_run))
        print(f"report written to {arguments.json}")
    if interrupted:
        return 130
    return 1 if any(r.outcome.status is Status.FAILED for r in results) else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qifkit", description="Exact verification of privacy mechanisms.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="confirm the claims of the papers, exactly")
    check.add_argument("--only", nargs="+", metavar="GLOB", help="run only the ids matching these globs")
    check.add_argument("--json", metavar="FILE", help="write the report as JSON (atomically)")
    check.add_argument("--list", action="store_true", help="list every registered id with its source")
    check.set_defaults(handler=_run_check_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    arguments = _parser().parse_args(argv)
    try:
        return arguments.handler(arguments)
    except QifError as error:
        print(f"qifkit: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `qifkit check --list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
