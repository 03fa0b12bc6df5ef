"""Interrupted runs (issue 14): Ctrl-C prints where to resume and exits 130; kill -9 in the middle of
an enumeration loses nothing that a rerun with the same --resume folder does not recover."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

COMMAND = [sys.executable, "-m", "proofs_checks.cli", "enumerate", "LDP", "--n", "5", "--eps-exp", "2"]


def _as_from_a_terminal() -> None:
    """Ctrl-C as a terminal delivers it: the child's SIGINT at its default disposition, whatever this
    test process inherited (an ignored SIGINT is inherited across exec, and Python then installs no
    KeyboardInterrupt handler: the run went on to exit 0 on a full CI run)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_wait_for_blocks(folder: Path, blocks: int) -> subprocess.Popen:
    """Start the n = 5 enumeration and return once its manifest lists `blocks` finished blocks."""
    process = subprocess.Popen([*COMMAND, "--resume", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=_as_from_a_terminal)
    manifest = folder / "manifest.json"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if len(json.loads(manifest.read_text())["blocks"]) >= blocks:
                return process
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"no manifest with {blocks} blocks within 120 s (exit {process.poll()})")


def test_ctrl_c_exits_130_and_says_how_to_go_on(tmp_path):
    folder = tmp_path / "run"
    process = _start_and_wait_for_blocks(folder, 1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert f"finished blocks are kept in {folder}: run the same command again" in err
    assert json.loads((folder / "manifest.json").read_text())["blocks"]  # what finished is still vouched for


@pytest.mark.slow
def test_kill_9_mid_enumeration_resumes_to_the_whole_vertex_set(tmp_path):
    """beyond.ldp-n5's numbers (164,825 extreme points in 47 orbits at e^ε = 2) after a kill -9."""
    folder = tmp_path / "run"
    process = _start_and_wait_for_blocks(folder, 2)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    kept = json.loads((folder / "manifest.json").read_text())["blocks"]
    rerun = subprocess.run([*COMMAND, "--resume", str(folder), "--orbits"], capture_output=True, text=True,
                           timeout=900)
    assert rerun.returncode == 0, rerun.stderr
    assert "164825 vertices in 47 orbits" in rerun.stdout
    assert all(f"read from {folder / name}" in rerun.stdout for name in kept)  # reused, not recomputed


def test_ctrl_c_blocked_holds_the_signal_until_the_block_ends(python_ctrl_c):
    """qifkit.interrupts.ctrl_c_blocked: a SIGINT sent to this thread inside the block waits, and is
    KeyboardInterrupt once the block is left."""
    from qifkit.interrupts import ctrl_c_blocked

    went_on = []
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_blocked():
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            sum(range(1000))  # bytecodes: Python's pending handler would run here
            went_on.append(True)
    assert went_on


def test_the_command_s_helper_threads_never_take_a_ctrl_c():
    """numpy's and scipy's OpenBLAS threads are started inside the command's SIGINT block, so a Ctrl-C
    that the main thread holds during a Normaliz call waits for it instead of running Normaliz's
    handler in a helper thread (SigBlk bit 2 is SIGINT)."""
    script = ("import os; from proofs_checks.cli.app import _import_command; _import_command('check'); "
              "import scipy.optimize, polytopes.normaliz\n"
              "for task in os.listdir('/proc/self/task'):\n"
              "    mask = next(line for line in open(f'/proc/self/task/{task}/status') if line.startswith('SigBlk'))\n"
              "    print(task == str(os.getpid()), int(mask.split()[1], 16) >> 1 & 1)")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("OpenBLAS starts no helper thread on one CPU: nothing to look at")
    # a helper thread to look at: Dask's nanny leaves OPENBLAS_NUM_THREADS=1 in this process's
    # environment once a test has started a local cluster (its pre-spawn-environ)
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True,
                            env=environment)
    threads = [line.split() for line in result.stdout.splitlines()]
    assert ["True", "0"] in threads  # the main thread takes Ctrl-C
    helpers = [blocked for main, blocked in threads if main == "False"]
    assert helpers and all(blocked == "1" for blocked in helpers)
