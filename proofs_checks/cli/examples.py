"""``qifkit examples [DIR]``: copy the example specs shipped with qifkit into a new folder DIR (default
``qifkit-examples``), so that an installed qifkit runs them as the README does from a checkout; ``--list``
names each with its first line instead."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from proofs_checks.cli.base import EXIT_OK, UsageError

__all__ = ["run", "EXAMPLES_FOLDER"]

#: The example specs, shipped with the package (``proofs_checks/examples/``; the repository's
#: ``examples/`` is a link to it).
EXAMPLES_FOLDER = Path(str(resources.files("proofs_checks") / "examples"))


def run(arguments: argparse.Namespace) -> int:
    specs = sorted(EXAMPLES_FOLDER.rglob("*.toml"))
    if arguments.list:
        for spec in specs:
            first = spec.read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
            print(f"{spec.relative_to(EXAMPLES_FOLDER)}: {first}")
        return EXIT_OK
    target = Path(arguments.folder)
    if target.exists() or target.is_symlink():
        raise UsageError(f"{target} exists: name a folder that does not (nothing is overwritten)")
    parent = target.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"{target}: the folder {parent} does not exist")
    staging = Path(tempfile.mkdtemp(prefix=".qifkit-examples-", dir=parent))
    try:  # copied whole under a temporary name, then renamed: a stopped copy leaves no half folder
        shutil.copytree(EXAMPLES_FOLDER, staging, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"{len(specs)} example specs copied into {target}; run one with: qifkit stability "
          f"{target / 'survey_rr.toml'}")
    return EXIT_OK
