"""The linter is part of the suite (issue 18): ruff with the rules configured in pyproject.toml
finds nothing in the packages, tests and benchmarks. Seen to fail with an unused import added."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: it is in the dev extras (pip install -e '.[dev]')")
    found = subprocess.run([ruff, "check", "--no-cache", "qifkit", "polytopes", "proofs_checks", "tests", "benchmarks"],
                           cwd=ROOT, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
