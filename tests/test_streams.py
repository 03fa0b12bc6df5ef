"""Standard output and error under faults (issue 52, proofs_checks.cli.streams): a reader that stops
reading keeps the verdict's exit status, a stream that cannot be written is exit 2 with one line,
and an ASCII-only encoding gets ASCII spellings. Each case runs the command in its own process,
as a shell or a CI gate would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import spec_document, write_spec

ROOT = Path(__file__).resolve().parent.parent
IDENTITY, FLAT = "1,0\n0,1\n", "1/2,1/2\n1/2,1/2\n"


def _qifkit(*argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=None, shell_redirect=""):
    command = [sys.executable, "-m", "proofs_checks.cli", *map(str, argv)]
    if shell_redirect:
        command = ["sh", "-c", f'exec "$0" "$@" {shell_redirect}', *command]
    return subprocess.run(command, stdout=stdout, stderr=stderr, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _closed_pipe_run(*argv):
    """The command with standard output a pipe whose reader is already gone (``| head -c 0``)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return _qifkit(*argv, stdout=writer)
    finally:
        os.close(writer)


@pytest.fixture
def channels(tmp_path):
    (tmp_path / "a.csv").write_text(IDENTITY)
    (tmp_path / "b.csv").write_text(FLAT)
    return tmp_path / "a.csv", tmp_path / "b.csv"


@pytest.mark.parametrize("order, status", [((0, 1), 0), ((1, 0), 1)])
def test_a_reader_that_stops_reading_keeps_the_verdict(channels, order, status):
    """`qifkit refine A B | head -c 1` exited 1 whatever the verdict (a CI gate read "does not hold")."""
    run = _closed_pipe_run("refine", *(channels[k] for k in order))
    assert run.returncode == status and b"Traceback" not in run.stderr and run.stderr == b""


def test_a_stable_spec_piped_to_a_reader_that_stops_stays_stable(tmp_path):
    spec = write_spec(tmp_path, spec_document(family="randomized_response", values=3, respondents=2,
                                              eps=("3/2", "2")))
    run = _closed_pipe_run("stability", spec)
    assert run.returncode == 0 and b"Traceback" not in run.stderr
    run = _closed_pipe_run("stability", spec, "--json", "-")
    assert run.returncode == 0 and b"Traceback" not in run.stderr


@pytest.mark.parametrize("redirect, says", [(">&-", "standard output is closed"),
                                            ("> /dev/full", "cannot write to standard output: No space left")])
def test_an_output_that_cannot_be_written_is_exit_2_with_one_line(channels, redirect, says):
    """`refine A B >&-` exited 0 having reported nothing; `> /dev/full` crashed."""
    if redirect.endswith("/dev/full") and not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this machine")
    run = _qifkit("refine", *channels, stdout=None, shell_redirect=redirect)
    lines = run.stderr.decode().strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1 and lines[0].startswith("qifkit: error: ") and says in lines[0]


def test_a_standard_error_that_cannot_be_written_keeps_the_verdict(channels):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this machine")
    run = _qifkit("refine", channels[1], channels[0], stderr=None, shell_redirect="2> /dev/full")
    assert run.returncode == 1 and b"does not hold" in run.stdout


@pytest.mark.parametrize("variables", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONIOENCODING": "ascii"}])
def test_an_ascii_only_encoding_gets_ascii_spellings(channels, variables):
    """ε, ⊑ and · in the output crashed under an ASCII encoding (exit 3)."""
    run = _qifkit("refine", *channels, env=variables)
    out = run.stdout.decode("ascii")
    assert run.returncode == 0 and "A [= B: holds" in out and "A*W = B" in out and b"Traceback" not in run.stderr


def test_ascii_spellings_cover_every_symbol_the_toolkit_prints():
    """Every non-ASCII character of the three packages' source (their messages among it) has an
    ASCII spelling, but letters with accents in authors' names and combining marks, which are
    written as backslash escapes."""
    from proofs_checks.cli.streams import ASCII_SPELLINGS

    text = "".join(path.read_text(encoding="utf-8") for package in ("qifkit", "polytopes", "proofs_checks")
                   for path in (ROOT / package).rglob("*.py"))
    unspelled = {ch for ch in text if ord(ch) > 127} - set(ASCII_SPELLINGS)
    assert all(ch in "üöćÃ" or 0x300 <= ord(ch) < 0x370 for ch in unspelled), sorted(unspelled)


@pytest.mark.parametrize("errno_, cause", [(28, "No space left on device"), (30, "Read-only file system"),
                                            (13, "Permission denied")])
def test_a_fault_while_writing_an_output_is_exit_2_naming_the_path(channels, tmp_path, monkeypatch, capsys, errno_,
                                                                   cause):
    """Issue 52: ENOSPC, EROFS or EACCES while `--json` is written was an internal error (exit 3);
    it is exit 2, one line naming the path and the cause, and the earlier file is left as it was
    (the writer is made to fail here, as a full or read-only disk would)."""
    from proofs_checks.cli import main
    from qifkit import files

    out = tmp_path / "cert.json"
    out.write_text("the earlier certificate")

    def failing(path, data):
        raise OSError(errno_, cause, str(path))

    monkeypatch.setattr(files, "atomic_write_bytes", failing)
    assert main(["refine", *map(str, channels), "--json", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(out) in lines[0] and cause in lines[0]
    assert out.read_text() == "the earlier certificate"


@pytest.mark.parametrize("argv, option", [
    (["stability", "{spec}", "--certificate", "{d}/certs"], "--certificate"),
    (["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume", "{d}/walk"], "--resume"),
])
def test_an_output_folder_that_cannot_be_written_is_refused_before_any_work(tmp_path, monkeypatch, capsys, argv,
                                                                             option):
    """Issue 52: output folders are checked writable before any work. A read-only file system (the
    probe file cannot be made there, as on a read-only mount) is exit 2 naming the folder and the
    cause; the work (the gate's evaluation, the enumeration) never starts."""
    import tempfile

    from proofs_checks import gate
    from proofs_checks.cli import enumerate as enumerate_command
    from proofs_checks.cli import main

    spec = write_spec(tmp_path, spec_document(respondents=2, known=[0]))
    started = []
    monkeypatch.setattr(gate, "evaluate_spec", lambda *a, **k: started.append(1))
    monkeypatch.setattr(enumerate_command, "_POLYTOPES", {"LDP": lambda *a: started.append(1)})
    real = tempfile.TemporaryFile

    def read_only(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).resolve() == tmp_path.resolve():
            raise OSError(30, "Read-only file system", str(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    code = main([a.replace("{spec}", str(spec)).replace("{d}", str(tmp_path)) for a in argv])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not started
    assert len(lines) == 1 and option in lines[0] and "Read-only file system" in lines[0], lines
