"""What every command shares and the parser needs without loading a numeric layer: the usage
error, the exit statuses, the progress printers of ``-q`` and ``-v``, and the Dask options
(``--workers``, ``--scheduler``) of the commands that spread their work."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from typing import Any

from qifkit.errors import QifError

__all__ = ["UsageError", "EXIT_OK", "EXIT_NEGATIVE", "EXIT_USAGE", "EXIT_INTERNAL", "EXIT_UNDECIDED",
           "EXIT_INTERRUPTED", "MAX_WORKERS", "progress_printer", "detail_printer", "check_cluster_options",
           "dask_session",
           "documents_to_stdout", "document_stream"]


class UsageError(QifError, ValueError):
    """A command-line argument cannot be honoured."""


#: The exit statuses of every command (README, "Exit statuses").
EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE, EXIT_INTERNAL, EXIT_UNDECIDED, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


def progress_printer(arguments: argparse.Namespace, stream: Any) -> Callable[[str], None]:
    """The progress printer of a long command: lines to `stream`, or nothing with -q/--quiet."""
    if arguments.quiet:
        return lambda line: None
    return lambda line: print(line, file=stream, flush=True)


def detail_printer(arguments: argparse.Namespace) -> Callable[[str], None]:
    """The printer of ``-v/--verbose``: how an answer was reached (routes, timings, sizes), indented
    under the line it explains, on standard output; nothing without -v."""
    if not arguments.verbose:
        return lambda line: None
    return lambda line: print(f"  · {line}", flush=True)


#: The most local Dask worker processes ``--workers`` starts: 4 per core (more only wait for a core).
MAX_WORKERS = 4 * (os.cpu_count() or 1)


def check_cluster_options(arguments: Any) -> None:
    """Refuse ``--workers`` below 1, and ``--workers`` beside ``--scheduler`` (a running cluster has
    its own workers): the options of the commands that spread work on Dask (``check``, ``enumerate``)."""
    if arguments.workers is not None and not 1 <= arguments.workers <= MAX_WORKERS:
        raise UsageError(f"--workers {arguments.workers}: give a whole number of worker processes from 1 to "
                         f"{MAX_WORKERS} (4 per core of this machine; a cluster of more machines goes by --scheduler)")
    if arguments.workers is not None and arguments.scheduler is not None:
        raise UsageError("--workers sizes a local cluster; a cluster at --scheduler has its own workers: give one")


@contextmanager
def dask_session(arguments: argparse.Namespace, workers: int | None) -> Iterator[Any]:
    """The Dask client of ``--scheduler`` or of a local cluster of `workers` processes
    (:func:`qifkit.cluster.dask_client`), said in a ``-v`` line."""
    from qifkit.cluster import dask_client

    with dask_client(arguments.scheduler, workers) as client:
        detail_printer(arguments)(f"on Dask: {len(client.scheduler_info()['workers'])} workers at "
                                  f"{client.scheduler.address}")
        yield client


#: Standard output as it was before :func:`documents_to_stdout` sent every other line to standard error.
_DOCUMENTS: list[Any] = []


@contextmanager
def documents_to_stdout(arguments: argparse.Namespace) -> Iterator[None]:
    """With an output of ``-`` (``--json -``), the document alone on standard output, so that it
    can be piped to ``jq``: every other line (verdicts, progress, notes) goes to standard error."""
    if "-" not in (getattr(arguments, name, None) for name in ("json", "markdown", "ine", "ext")):
        yield
        return
    _DOCUMENTS.append(sys.stdout)
    try:
        with redirect_stdout(sys.stderr):
            yield
    finally:
        _DOCUMENTS.pop()


def document_stream() -> Any:
    """Where a document written to ``-`` goes: standard output (the real one under
    :func:`documents_to_stdout`)."""
    return _DOCUMENTS[-1] if _DOCUMENTS else sys.stdout
