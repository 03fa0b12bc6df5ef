"""The type checker is part of the suite (issue 18): mypy, configured in pyproject.toml, finds
nothing in the library layers qifkit and polytopes. Seen to fail with `Channel.kind` read as a
string in qifkit.pipelines."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_nothing_in_the_library_layers(tmp_path):
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.fail("mypy is not installed: it is in the dev extras (pip install -e '.[dev]')")
    found = subprocess.run([mypy, "--cache-dir", str(tmp_path / "cache")], cwd=ROOT, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
