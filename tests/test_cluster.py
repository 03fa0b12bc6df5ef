"""Scale-out on Dask (qifkit.cluster): orbit-wise enumeration on worker processes gives exactly the
orbits of the serial walk, also when a worker dies mid-run; the README's several-machine recipe
(``dask scheduler`` / ``dask worker`` / ``--scheduler``) run as written on this machine; bad
addresses, worker counts and mixed versions refused."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from polytopes.orbitwise import enumerate_orbits  # noqa: E402
from polytopes.spaces import count_polytope, ldp_polytope  # noqa: E402
from proofs_checks.cli import main  # noqa: E402
from qifkit import cluster  # noqa: E402
from qifkit.cluster import dask_client  # noqa: E402
from qifkit.errors import ClusterError, ShapeError  # noqa: E402

CASES = {
    "D n=4 e=2": lambda: ldp_polytope(4, eps_exp="2"),
    "U n=3 e=2 (the reversal)": lambda: count_polytope(3, eps_exp="2"),
}


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2) as running:
        yield running


def _orbits(result):
    return sorted((orbit.representative, orbit.size) for orbit in result.orbits)


@pytest.mark.parametrize("name", sorted(CASES))
def test_orbits_on_two_worker_processes_are_those_of_the_serial_walk(client, name):
    polytope = CASES[name]()
    serial = enumerate_orbits(polytope)
    spread = enumerate_orbits(polytope, client=client)
    assert _orbits(spread) == _orbits(serial)
    assert spread.neighbours == serial.neighbours and spread.count == serial.count
    assert len(client.scheduler_info()["workers"]) == 2


def test_decomposed_cones_on_workers_give_the_serial_walks_orbits_and_graph(client):
    """The recursion rule travels with each task: D n = 4 with every symmetric cone decomposed, on
    two workers, gives the flat serial walk's orbits, neighbour count and orbit graph; the visits of
    the decomposed cones' walks ran as tasks of their own (on both workers)."""
    from polytopes.decomposition import Recursion

    polytope = ldp_polytope(4, eps_exp="2")
    serial = enumerate_orbits(polytope)
    with distributed.get_task_stream(client) as stream:
        spread = enumerate_orbits(polytope, client=client, recursion=Recursion(0, 2, 1))
    assert _orbits(spread) == _orbits(serial) and spread.neighbours == serial.neighbours
    visits = [task for task in stream.data if task["key"].startswith("ray-orbits-")]
    assert len(visits) > 5 and len({task["worker"] for task in visits}) == 2

    def graph(result):
        names = [orbit.representative for orbit in result.orbits]
        return {(names[k], frozenset(names[j] for j in adjacent)) for k, adjacent in enumerate(result.adjacency)}

    assert graph(spread) == graph(serial)


@pytest.mark.parametrize("recursion", [None, (0, 2, 1)], ids=["flat", "decomposed"])
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(client, recursion):
    """The first progress line kills one worker process (Dask's restart: the nanny kills it and
    starts another); Dask re-runs its tasks elsewhere (same keys), and the orbits, their sizes and
    the neighbours counted are those of the serial walk; also when the cones' walks are tasks."""
    from polytopes.decomposition import Recursion

    rule = Recursion(*recursion) if recursion else None
    polytope = ldp_polytope(4, eps_exp="3/2")
    serial = enumerate_orbits(polytope)
    killed = []

    def kill_one(line):
        if not killed:
            victim = sorted(client.scheduler_info()["workers"])[0]
            killed.append(victim)
            client.restart_workers([victim])  # its nanny kills the process and starts a new one

    spread = enumerate_orbits(polytope, client=client, progress=kill_one, recursion=rule)
    assert _orbits(spread) == _orbits(serial) and spread.neighbours == serial.neighbours
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the other tests
    assert killed and killed[0] not in client.scheduler_info()["workers"]  # it did die (and came back elsewhere)


def test_the_several_machine_recipe_runs_as_written(tmp_path):
    """README: ``dask scheduler`` on one machine, ``dask worker ADDRESS --nthreads 1`` on each, then
    ``qifkit enumerate ... --method orbits --scheduler ADDRESS``; here all three on this machine."""
    dask = Path(sys.executable).parent / "dask"
    address_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([str(dask), "scheduler", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(address_file)],
                                 env={**os.environ, "DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": "None"},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        import json

        address = json.loads(address_file.read_text())["address"]
        worker = subprocess.Popen(
            [str(dask), "worker", address, "--nthreads", "1", "--nworkers", "2", "--no-dashboard"],
            env={**{name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")},
                 "MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "67108864"},  # the recipe's,
            # not what a local cluster's nanny left in this process's environment
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "proofs_checks.cli",
                "enumerate",
                "LDP",
                "--n",
                "4",
                "--eps-exp",
                "2",
                "--method",
                "orbits",
                "--scheduler",
                address,
                "-v",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        assert "904 vertices in 10 orbits under a group of order 576" in run.stdout
        assert "on Dask:" in run.stdout and address in run.stdout
        with distributed.Client(address, timeout=30) as remote:  # the recipe's scheduler never restarts a busy worker
            assert remote.run_on_scheduler(_worker_ttl_query()) is None
            assert set(remote.run(_environment_query("MALLOC_MMAP_THRESHOLD_")).values()) == {"33554432"}
            assert set(remote.run(_environment_query("MALLOC_TRIM_THRESHOLD_")).values()) == {"67108864"}
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def _worker_ttl_query():
    """A function that reads the scheduler's worker-ttl: defined locally, so that Dask sends it by
    value (a scheduler in another process cannot import this test module)."""

    def worker_ttl(dask_scheduler):
        return dask_scheduler.worker_ttl

    return worker_ttl


def _environment_query(name):
    """A function that reads a variable of the worker's own environment (``os.environ.get`` itself
    would travel as a bound method of this process's environment, and read that)."""

    def read():
        import os

        return os.environ.get(name)

    return read


def test_the_local_cluster_never_restarts_a_worker_busy_in_c_code(client):
    """Normaliz and cddlib hold the GIL for minutes; Dask's default worker-ttl (5 minutes without a
    heartbeat) restarted both workers of an n = 6 walk and lost 10 minutes of tangent cones."""
    assert client.run_on_scheduler(_worker_ttl_query()) is None


def test_the_local_clusters_workers_keep_glibcs_large_allocations_off_mmap(client):
    """Dask's nanny sets MALLOC_TRIM_THRESHOLD_ to 64 KiB, which turns glibc's adaptive thresholds
    off; a face-set task then ran 17.4 s on a worker against 13.7 s here, and a decomposed cone's
    visits three times as long (qifkit.cluster.ALLOCATOR_NOTE)."""
    assert set(client.run(_environment_query("MALLOC_MMAP_THRESHOLD_")).values()) == {"33554432"}
    assert set(client.run(_environment_query("MALLOC_TRIM_THRESHOLD_")).values()) == {"67108864"}


def test_workers_of_another_version_are_refused(client, monkeypatch):
    import qifkit

    address = client.scheduler.address
    monkeypatch.setattr(qifkit, "__version__", "0.0.0-not-the-workers")
    with pytest.raises(ClusterError, match="another qifkit version"):
        with dask_client(address):
            pass


def test_bad_addresses_and_worker_counts_are_refused(monkeypatch):
    with pytest.raises(ClusterError, match="not of the form"):
        with dask_client("http://example.org"):
            pass
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)
    with pytest.raises(ClusterError, match="no Dask scheduler answered at tcp://127.0.0.1:9"):
        with dask_client("tcp://127.0.0.1:9"):
            pass
    for workers in (0, -2, True, 1.5):
        with pytest.raises(ShapeError, match="workers"):
            with dask_client(workers=workers):
                pass


@pytest.mark.parametrize("options, message", [
    (["--workers", "0"], "--workers 0"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "give one"),
    (["--scheduler", "ftp://x"], "not of the form"),
])
def test_the_command_line_refuses_bad_cluster_options(capsys, options, message):
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--method", "orbits", *options]) == 2
    assert message in capsys.readouterr().err


def test_cluster_options_are_for_the_orbit_walk_only(capsys):
    assert main(["enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--workers", "2"]) == 2
    assert "--method orbits" in capsys.readouterr().err


def test_a_walk_on_dask_keeps_its_neighbourhoods_for_a_resumed_run(client, tmp_path, monkeypatch):
    """The walk on workers writes each neighbourhood to the resume folder; a later run (here in
    this process, with tangent cones forbidden) reads them all back and gives the same orbits."""
    from polytopes import orbitwise

    polytope = ldp_polytope(4, eps_exp="2")
    spread = enumerate_orbits(polytope, client=client, folder=str(tmp_path))
    assert len(list(tmp_path.glob("orbit-*.json"))) == len(spread.orbits)

    def no_cones(*args, **kwargs):
        raise AssertionError("a tangent cone was computed")

    monkeypatch.setattr(orbitwise, "neighbours", no_cones)
    again = enumerate_orbits(polytope, folder=str(tmp_path))
    assert _orbits(again) == _orbits(spread) and again.neighbours == spread.neighbours
    monkeypatch.setattr(client, "submit", no_cones)  # nothing is submitted: every neighbourhood is read back
    resumed_on_dask = enumerate_orbits(polytope, client=client, folder=str(tmp_path))
    assert _orbits(resumed_on_dask) == _orbits(spread)


def test_checks_on_the_cluster_report_what_they_report_in_process(client, tmp_path, capsys):
    """``qifkit check --scheduler``: the same statuses and summaries as the in-process run, the
    reports in the registry's order whatever order the workers finish in."""
    chosen = ["holohan17.lemma1", "holohan17.thm2", "cormode18.lemma3", "alvim23.thm24"]
    here, there = tmp_path / "here.json", tmp_path / "there.json"
    assert main(["check", "--only", *chosen, "--json", str(here), "-q"]) == 0
    assert main(["check", "--only", *chosen, "--json", str(there), "-q", "--scheduler", client.scheduler.address]) == 0
    import json

    def statuses(path):
        return [(c["id"], c["status"], c["summary"]) for c in json.loads(path.read_text())["checks"]]

    assert statuses(there) == statuses(here)
    assert [entry[0] for entry in statuses(there)] == sorted(chosen)
    assert "4 checks: " in capsys.readouterr().out


def test_check_refuses_bad_cluster_options(capsys):
    assert main(["check", "--only", "holohan17.lemma1", "--workers", "0"]) == 2
    assert "--workers 0" in capsys.readouterr().err
    assert main(["check", "--only", "holohan17.lemma1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "give one" in capsys.readouterr().err


def test_face_sets_on_two_worker_processes_are_those_of_one_process(client):
    """polytopes.ldp_faces split into its tasks (a multiset of dimensions and a largest face each) on
    two workers: D's orbits at n = 5 exactly as in one process (the walk's census, 47 orbits)."""
    from polytopes.ldp_faces import face_set_orbits

    here = face_set_orbits(5, "3/2")
    spread = face_set_orbits(5, "3/2", client)
    assert [(o.key, o.columns, o.size) for o in spread] == [(o.key, o.columns, o.size) for o in here]
    assert len(here) == 47 and sum(o.size for o in here) == 164_825


def test_rows_on_two_worker_processes_are_those_of_one_process(client):
    """polytopes.ldp_rows on two workers: the antichains of six patterns generated as tasks (a chunk
    of canonical sets each), the vertices by chunks of pattern sets and scale vectors; D's orbits at
    n = 6 exactly as in one process (the census's 655), and the antichains those of one process."""
    from polytopes.ldp_rows import _generated, _on, ldp_orbits_by_rows, pattern_sets

    assert _generated(6, _on(client, 6)) == pattern_sets(6)
    spread = ldp_orbits_by_rows(6, "3/2", client=client)
    assert _orbits(spread) == _orbits(ldp_orbits_by_rows(6, "3/2"))
    assert (spread.count, len(spread.orbits)) == (164_806_776, 655)


def test_enumerate_ldp_orbits_with_workers_spreads_the_rows(tmp_path):
    """`enumerate LDP --orbits --workers 2` from n = 5 takes the rows (the default there) on a local
    cluster: the census it writes lists the orbits the rows give in this process."""
    import json

    spread, here = tmp_path / "spread.json", tmp_path / "here.json"
    common = ["enumerate", "LDP", "--n", "5", "--eps-exp", "3/2", "--orbits", "--json"]
    assert main([*common, str(spread), "--workers", "2"]) == 0
    assert main([*common, str(here)]) == 0
    documents = [json.loads(path.read_text()) for path in (spread, here)]
    assert documents[0]["orbits"] == documents[1]["orbits"] and documents[0]["count"] == 164_825


def test_a_scheduler_address_that_does_not_speak_dask_is_refused():
    """Issue 52: ``--scheduler`` pointing at an HTTP server waited forever (the server accepts the
    connection, then waits for a request line; Dask's handshake waits for its answer). An identity
    request bounded by twice the connect time refuses it: exit 2, one line. The command runs in a
    child process with a time limit of its own, so that a wait forever fails the test."""
    import http.server
    import threading

    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, *arguments):  # the server's own log is not the command's output
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.server_address[1]}"
    root = Path(__file__).resolve().parent.parent
    try:
        run = subprocess.run([sys.executable, "-m", "proofs_checks.cli", "check", "--only", "holohan17.lemma1",
                              "--scheduler", address], capture_output=True, text=True,
                             timeout=10 * cluster.CONNECT_SECONDS, cwd=root,
                             env={**os.environ, "PYTHONPATH": str(root)})
    finally:
        server.shutdown()
    error = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(error) == 1 and error[0].startswith("qifkit: error: ") and address in error[0]
