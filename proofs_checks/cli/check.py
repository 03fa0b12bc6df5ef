"""``qifkit check``: run the registered claim checks, a line per check as it finishes, a summary,
and the JSON and Markdown reports written atomically; exit 1 if a check failed, 130 if interrupted
(after writing what finished)."""

from __future__ import annotations

import argparse
import difflib
import fnmatch
from collections.abc import Callable, Sequence

from proofs_checks.claims import Check, Outcome, Status
from proofs_checks.cli.base import (
    EXIT_INTERRUPTED,
    EXIT_NEGATIVE,
    EXIT_OK,
    UsageError,
    check_cluster_options,
    dask_session,
    detail_printer,
)
from proofs_checks.cli.io import check_outputs, write_document
from proofs_checks.registry import Result, registry, run_check, run_check_by_id
from proofs_checks.report import markdown_report, progress_line, report_document, summary_line

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


def _run_on_dask(selected: list[Check], arguments: argparse.Namespace, finished: Callable[[Result], None]) -> None:
    """Each check a Dask task (:mod:`qifkit.cluster`), in the registry's order, reported as it
    finishes; a check whose task is lost with its worker is a failed check, named so."""
    from distributed import as_completed

    from qifkit.cluster import task_key

    with dask_session(arguments, arguments.workers) as client:
        futures = {client.submit(run_check_by_id, check.id, arguments.full, priority=-k,
                                 key=task_key("check", check.id, arguments.full)): check
                   for k, check in enumerate(selected)}
        try:
            for future in as_completed(futures):
                check = futures[future]
                try:
                    outcome, seconds = future.result()
                except Exception as error:  # the task itself was lost (a worker died); the run goes on
                    outcome, seconds = Outcome(Status.FAILED, f"FAILED: lost on the cluster: {error!r}",
                                               {"error": repr(error)}), 0.0
                finished(Result(check, outcome, seconds))
        finally:
            client.cancel(list(futures))


def run(arguments: argparse.Namespace) -> int:
    checks = registry()
    if arguments.list:
        for check in checks.values():
            print(f"{check.id:<28} {check.source}")
        return EXIT_OK
    selected = _select(checks, arguments.only)
    detail = detail_printer(arguments)
    from proofs_checks.beyond import CENSUS_FOLDER

    census_files = {f"census file {path.name}": str(path) for path in sorted(CENSUS_FOLDER.glob("*.json"))}
    check_outputs(census_files, {"--json": arguments.json, "--markdown": arguments.markdown})
    check_cluster_options(arguments)
    results: list[Result] = []

    def finished(result: Result) -> None:
        results.append(result)
        if not arguments.quiet:
            print(progress_line(len(results), len(selected), result), flush=True)
        detail(f"{result.check.source}: {result.check.method}")
        if result.outcome.evidence:
            detail("evidence: " + ", ".join(sorted(result.outcome.evidence)))

    interrupted = False
    try:
        if arguments.workers is None and arguments.scheduler is None:
            for check in selected:
                finished(run_check(check, full=arguments.full))
        else:
            _run_on_dask(selected, arguments, finished)
    except KeyboardInterrupt:
        interrupted = True
    order = {check.id: k for k, check in enumerate(selected)}
    results.sort(key=lambda result: order[result.check.id])  # the reports list checks in the registry's order
    done = {result.check.id for result in results}
    not_run = [check.id for check in selected if check.id not in done]
    print(summary_line(results, len(not_run)))
    if arguments.json:
        write_document(arguments.json, report_document(results, not_run), "report")
    if arguments.markdown:
        write_document(arguments.markdown, markdown_report(results, not_run), "markdown report")
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_NEGATIVE if any(r.outcome.status is Status.FAILED for r in results) else EXIT_OK


