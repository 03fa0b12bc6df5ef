"""Scale-out on Dask: independent units of exact work on a local cluster or a real one.

The toolkit schedules nothing itself. Work that splits into independent, deterministic tasks
(the neighbourhoods of orbit representatives in :func:`polytopes.orbitwise.enumerate_orbits`, the
visits of a decomposed tangent cone's walk in :mod:`polytopes.decomposition`, the face sets of
:func:`polytopes.ldp_faces.face_set_orbits`) is submitted to a ``distributed.Client``: by default a
``LocalCluster`` of one single-threaded worker process per core of this machine, or the scheduler
at an address (``tcp://host:8786``) for a cluster of several machines. Tasks carry keys derived
from their exact inputs, so a task resubmitted, or re-run by Dask after a worker died, is the same
task and its result is merged once.

Running on several machines (each with qifkit installed at the same version; see
:data:`WORKER_TTL_NOTE` for the scheduler's setting, :data:`ALLOCATOR_NOTE` for the workers')::

    DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL=None dask scheduler   # on one machine: prints tcp://HOST:8786
    export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=67108864   # see ALLOCATOR_NOTE
    dask worker tcp://HOST:8786 --nthreads 1        # on each machine, once per core
    qifkit enumerate LDP --n 5 --eps-exp 2 --method orbits --scheduler tcp://HOST:8786
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from qifkit.errors import ClusterError
from qifkit.extras import needs_extra
from qifkit.validation import whole_number

__all__ = ["dask_client", "task_key", "CONNECT_SECONDS", "RESUBMISSIONS", "WORKER_TTL_NOTE", "ALLOCATOR_NOTE",
           "ALLOCATOR_ENVIRONMENT"]

CONNECT_SECONDS = 10
"""How long to wait for a scheduler at an address before giving up."""

RESUBMISSIONS = 5
"""How often a task that Dask cancelled (its worker lost, its key forgotten) is submitted again under
a new key before the run gives up."""

_ADDRESS = re.compile(r"(tcp|tls|inproc|ucx)://[A-Za-z0-9_.\-\[\]:]+")


WORKER_TTL_NOTE = (
    "A tangent cone or a vertex enumeration runs in C (Normaliz, cddlib) and holds the GIL for minutes, "
    "so its worker cannot send heartbeats; a scheduler that restarts silent workers (Dask's worker-ttl, "
    "5 minutes by default) would kill every long task again and again. The local cluster turns that off; "
    "start a scheduler of your own with DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL=None.")


ALLOCATOR_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": 32 * 1024 * 1024, "MALLOC_TRIM_THRESHOLD_": 64 * 1024 * 1024}
"""glibc's malloc thresholds (bytes) for the local cluster's workers: where its adaptive thresholds
end up after large arrays are freed (the mmap threshold's ceiling, and twice it for trimming); see
:data:`ALLOCATOR_NOTE`."""

ALLOCATOR_NOTE = (
    "Dask's nanny starts each worker with MALLOC_TRIM_THRESHOLD_=65536, and setting any of glibc's malloc "
    "thresholds turns its adaptive thresholds off: every array of 128 KiB or more is then a fresh mmap, and in "
    "a task's thread (its own malloc arena) the heap is given back and faulted in again at almost every free. "
    "Measured: one n = 6 face-set task 17.4 s on a worker against 13.7 s in process; the visits of a "
    "decomposed tangent cone of D at n = 5 (its 4 ray orbits) in a thread 0.54 s with the nanny's setting "
    "against 0.17 s with glibc's defaults. The local cluster starts its workers with MALLOC_MMAP_THRESHOLD_ "
    "at 32 MiB and MALLOC_TRIM_THRESHOLD_ at 64 MiB (0.20 s and 11.7-13.8 s); start workers of your own with "
    "both in their environment.")


def _version() -> str:
    """qifkit's version where this runs (called on each worker to refuse a mixed cluster)."""
    from qifkit import __version__

    return __version__


def task_key(kind: str, *parts: Any) -> str:
    """A Dask key for a deterministic task: `kind` and the SHA-256 of the reprs of its exact inputs."""
    digest = hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:32]
    return f"{kind}-{digest}"


def _answers_dask(scheduler: str) -> None:
    """Refuse a scheduler address whose server does not answer Dask's own protocol (an identity
    request) within 2 × :data:`CONNECT_SECONDS`: a Client's handshake with, say, an HTTP server
    that accepts the connection and then waits for a request line never ends."""
    import asyncio

    from distributed.comm import connect

    async def identity() -> Any:
        comm = await connect(scheduler, timeout=CONNECT_SECONDS)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(identity(), 2 * CONNECT_SECONDS))
    except (OSError, TimeoutError, asyncio.TimeoutError) as error:
        raise ClusterError(f"no Dask scheduler answered at {scheduler} within {2 * CONNECT_SECONDS} s "
                           f"({type(error).__name__}: {str(error) or 'no answer'})") from None
    except Exception as error:  # a server that answers, but not in Dask's protocol
        raise ClusterError(f"the server at {scheduler} does not speak Dask's protocol ({type(error).__name__})") \
            from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ClusterError(f"the server at {scheduler} is not a Dask scheduler (it answered {str(reply)[:80]!r})")


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: on the scheduler at `scheduler`, or on a new local cluster.

    Parameters
    ----------
    scheduler : str, optional
        A running scheduler's address, e.g. ``"tcp://10.0.0.5:8786"``.
    workers : int, optional
        Worker processes of the local cluster (one thread each); by default one per core.

    Raises
    ------
    ClusterError
        If the scheduler cannot be reached within :data:`CONNECT_SECONDS`, has no workers, or a
        worker runs another version of qifkit.
    MissingDependencyError
        If ``distributed`` is not installed.
    """
    with needs_extra("cluster"):
        from distributed import Client, LocalCluster
    if scheduler is not None and not _ADDRESS.fullmatch(scheduler):
        raise ClusterError(f"scheduler address {scheduler!r} is not of the form tcp://HOST:PORT")
    if workers is not None:
        whole_number(workers, 1, "workers")
    if scheduler is None:
        import dask

        allocator = {f"distributed.nanny.pre-spawn-environ.{key}": size for key, size in ALLOCATOR_ENVIRONMENT.items()}
        with dask.config.set({"distributed.scheduler.worker-ttl": None, **allocator}):  # see the two notes
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   dashboard_address=":0")  # any free port: clusters side by side never collide
        try:
            with Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    _answers_dask(scheduler)
    try:
        client = Client(scheduler, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"no Dask scheduler answered at {scheduler} within {CONNECT_SECONDS} s ({error})") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except TimeoutError:
            raise ClusterError(f"the scheduler at {scheduler} has no workers") from None
        ours = _version()
        try:
            versions = client.run(_version)
        except Exception as error:  # anything a worker raises while unpickling or running it
            raise ClusterError(f"the workers at {scheduler} cannot run qifkit ({error!r})") from None
        theirs = {worker: version for worker, version in versions.items() if version != ours}
        if theirs:
            raise ClusterError(f"workers run another qifkit version than this one ({ours}): {theirs}")
        yield client
