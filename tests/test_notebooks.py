"""Every notebook runs top to bottom in its fast setting (QIFKIT_FAST=1) and raises nothing."""

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    monkeypatch.setenv("QIFKIT_FAST", "1")
    book = nbformat.read(path, as_version=4)
    assert not any(cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), "stored with outputs"
    NotebookClient(
        book, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    assert any(cell.get("outputs") for cell in book.cells if cell.cell_type == "code")


def test_every_topic_has_its_notebook():
    assert {p.stem[:2] for p in NOTEBOOKS} >= {"01", "02", "03", "04", "05"} and os.path.isdir(NOTEBOOKS[0].parent)
