"""The ``--certificate`` folder (proofs_checks.cli.certificate_folder, issue 53): only what the
toolkit wrote is ever replaced or removed; forged manifests and run paths are refused."""

from __future__ import annotations

import hashlib
import json

import pytest

from proofs_checks.cli.base import UsageError
from proofs_checks.cli.certificate_folder import MANIFEST, CertificateFolder


def _earlier_run(folder, files):
    """A folder as an earlier run left it: the files and a manifest listing them with their digests."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    listed = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in files.items()}
    (folder / MANIFEST).write_text(json.dumps({"written_by": "qifkit stability", "files": listed}))


def test_an_earlier_certificate_the_user_changed_is_kept_and_said(tmp_path):
    """An earlier run wrote pair-3/ (this run writes one pair only, so pair-3 is not in its way):
    the unchanged a.csv is removed, the cert.json the user edited since is kept, and the run says so."""
    _earlier_run(tmp_path, {"pair-3/a.csv": "a", "pair-3/cert.json": "ours"})
    (tmp_path / "pair-3" / "cert.json").write_text("the user's notes")
    said = []
    CertificateFolder(tmp_path, 1, {}).write([], None, "0" * 64, say=said.append)
    assert not (tmp_path / "pair-3" / "a.csv").exists()
    assert (tmp_path / "pair-3" / "cert.json").read_text() == "the user's notes"
    assert any(line.startswith("kept ") and "cert.json" in line for line in said)


def test_a_run_path_that_is_the_folders_manifest_is_refused(tmp_path):
    with pytest.raises(UsageError, match=f"where --certificate .* writes {MANIFEST}"):
        CertificateFolder(tmp_path, 1, {"--json": str(tmp_path / MANIFEST)})


@pytest.mark.parametrize("name", ["a.csv.old", "cert.json/../../notes.txt", "pair-1/cert.jsonl", "range-proof.json~"])
def test_a_manifest_listing_a_name_that_only_starts_like_ours_is_refused(tmp_path, name):
    """A manifest is trusted only when every name it lists is one the toolkit writes, whole: a name
    that merely begins like one (a backup, a path climbing out) would let a run delete the user's file."""
    (tmp_path / MANIFEST).write_text(json.dumps({"files": {name: "0" * 64}}))
    with pytest.raises(UsageError, match="lists files qifkit does not write"):
        CertificateFolder(tmp_path, 1, {})


def _stable_spec(tmp_path, eps=("3/2", "2", "3")):
    from conftest import spec_document, write_spec

    return write_spec(tmp_path, spec_document(family="randomized_response", values=3, respondents=2, of=(0,),
                                              eps=eps, question="every_analyst"))


def test_a_pair_folder_that_is_the_users_symbolic_link_is_never_written_through(tmp_path, capsys):
    """Issue 52: ``pair-1`` a link to the user's own folder: the run wrote through it and the
    user's notes.txt was gone. A link at any name the folder writes is refused before any work."""
    from proofs_checks.cli import main

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    (mine / "cert.json").write_text("mine too")
    folder = tmp_path / "certs"
    folder.mkdir()
    (folder / "pair-1").symlink_to(mine, target_is_directory=True)
    assert main(["stability", _stable_spec(tmp_path), "--certificate", str(folder)]) == 2
    assert "symbolic link qifkit did not make" in capsys.readouterr().err
    assert sorted(p.name for p in mine.iterdir()) == ["cert.json", "notes.txt"]
    assert (mine / "cert.json").read_text() == "mine too"
    (folder / "pair-1").unlink()
    (folder / "a.csv").symlink_to(mine / "notes.txt")
    assert main(["stability", _stable_spec(tmp_path), "--certificate", str(folder)]) == 2
    assert (mine / "notes.txt").read_text() == "my notes"


def test_a_run_stopped_by_a_full_disk_leaves_a_folder_the_next_run_accepts(tmp_path, capsys, monkeypatch):
    """Issue 52: ENOSPC while writing the certificates had already deleted the earlier ones and left
    the old manifest, so every later run into the folder was refused. Now the earlier files stay
    until the new ones are written, the error is one line (exit 2), and the next run goes on."""
    from proofs_checks.cli import certificate_folder, main

    spec, folder = _stable_spec(tmp_path), tmp_path / "certs"
    assert main(["stability", spec, "--certificate", str(folder), "-q"]) == 0
    before = {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    written = []
    real_write = certificate_folder.atomic_write_bytes

    def full_disk(path, data):
        if len(written) == 2:
            raise OSError(28, "No space left on device", str(path))
        written.append(path)
        real_write(path, data)

    monkeypatch.setattr(certificate_folder, "atomic_write_bytes", full_disk)
    capsys.readouterr()
    spec = _stable_spec(tmp_path, eps=("3/2", "5/2", "3"))  # other pipelines: other files at the same names
    assert main(["stability", spec, "--certificate", str(folder), "-q"]) == 2
    assert "No space left on device" in capsys.readouterr().err
    after = {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    assert set(before) <= set(after) and after != before  # two files new, nothing of the earlier run removed
    monkeypatch.undo()
    assert main(["stability", spec, "--certificate", str(folder), "-q"]) == 0
    manifest = json.loads((folder / MANIFEST).read_text())["files"]
    assert all(hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest for name, digest in manifest.items())


def test_a_file_of_the_user_where_a_pair_folder_goes_is_refused_before_any_work(tmp_path):
    """A file named pair-1 (the user's) where the run would make its first pair's folder: refused
    up front, naming it, and kept (a fresh mutant of issue 53 let the run work, then fail writing)."""
    (tmp_path / "pair-1").write_text("the user's")
    with pytest.raises(UsageError, match="pair-1 is in the way"):
        CertificateFolder(tmp_path, 2, {})
    assert (tmp_path / "pair-1").read_text() == "the user's"


def test_a_run_path_that_is_the_certificate_folder_itself_is_refused(tmp_path):
    """A fresh mutant of issue 53: an output of the run given as the certificate folder (or as a
    path that leads to it) would be written over by the certificates, or write over them."""
    (tmp_path / "x").mkdir()
    for given in (tmp_path, tmp_path / "x" / ".."):
        with pytest.raises(UsageError, match="is the --certificate folder"):
            CertificateFolder(tmp_path, 1, {"--json": str(given)})
