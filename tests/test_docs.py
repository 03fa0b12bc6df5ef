"""The documentation site (issue 54): Sphinx builds docs/ with warnings as errors, the notebooks
executed, and every name the packages export has its page in the API reference; the guides link to
pages that exist."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import polytopes
import qifkit

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_every_page_of_the_docs_is_in_a_table_of_contents():
    """A page left out of every toctree is unreachable from the site (Sphinx warns; checked here without
    a build): each .md under docs/ but index is named in index.md."""
    index = (DOCS / "index.md").read_text()
    pages = {path.stem for path in DOCS.glob("*.md")} - {"index"}
    assert pages and all(re.search(rf"^{page}$", index, re.M) for page in pages), pages


def test_the_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)\)", (ROOT / "README.md").read_text())
    assert links and all((ROOT / link).is_file() for link in links), links


@pytest.mark.slow
def test_the_docs_build_with_warnings_as_errors(tmp_path):
    """``sphinx -W``: a broken reference, a malformed docstring or a notebook that raises fails the build
    (a few minutes: the notebooks run in their fast setting)."""
    out = tmp_path / "html"
    built = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                            str(out)], capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    for package in (qifkit, polytopes):
        missing = [name for name in package.__all__
                   if not (out / "api" / "generated" / f"{package.__name__}.{name}.html").is_file()]
        assert missing == [], f"exported by {package.__name__} without an API page: {missing}"
    notebook = (out / "notebooks" / "02_stability.html").read_text()
    assert "<img" in notebook  # the notebooks are rendered with their plots
