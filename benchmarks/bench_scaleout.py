"""Benchmark: orbit-wise enumeration of ex(D) at n = 5 on Dask, 2 local workers against 1.

For each e^ε: the walk in this process (the baseline of the README's orbit table; Normaliz may
use a second thread here), then on a local Dask cluster of 1 and of 2 single-threaded worker
processes (started before the clock runs: the start-up is its own column), each repeated. The
speedup is the best time on 1 worker over the best on 2. Every run must give 164,825 vertices in
47 orbits, or the benchmark stops.

With ``--decomposed`` the two largest tangent cones are decomposed under their stabilisers
(:class:`polytopes.decomposition.Recursion`'s defaults); on Dask each visit of their walks is a task.

Run: ``.venv/bin/python benchmarks/bench_scaleout.py [--values 3/2,2,3] [--repeat 2] [--decomposed]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from polytopes.decomposition import Recursion
from polytopes.normaliz import normaliz_available
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import ldp_polytope
from qifkit.cluster import dask_client


def _warm() -> None:
    import polytopes.orbitwise  # noqa: F401  (workers import the polytope layer before the clock runs)


def on_local_clusters(run: Callable[[Any], float], warm: Callable[[], None], counts: tuple[int, ...] = (1, 2)
                      ) -> list[tuple[float, float]]:
    """For each worker count, a local Dask cluster started (and its workers warmed) before the clock:
    (its start-up seconds, what `run(client)` measured)."""
    row = []
    for workers in counts:
        start = time.perf_counter()
        with dask_client(workers=workers) as client:
            client.run(warm)
            started = time.perf_counter() - start
            row.append((started, run(client)))
    return row


def timed_walk(polytope, cone_method: str, client=None, recursion: Recursion | None = None) -> float:
    start = time.perf_counter()
    result = enumerate_orbits(polytope, cone_method=cone_method, client=client, recursion=recursion)
    seconds = time.perf_counter() - start
    if (result.count, len(result.orbits)) != (164825, 47):
        raise SystemExit(f"wrong answer: {result.count} vertices in {len(result.orbits)} orbits")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", default="2", help="values of e^ε, comma-separated (default 2)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each configuration (the best is reported)")
    parser.add_argument("--decomposed", action="store_true",
                        help="the largest tangent cones decomposed (Recursion()); on Dask their visits are tasks")
    arguments = parser.parse_args()
    cones = "normaliz" if normaliz_available() else "cdd"
    recursion = Recursion() if arguments.decomposed else None
    print(f"ex(D), n = 5, tangent cones by {cones}{', decomposed' if recursion else ''}; best of {arguments.repeat}")
    print(f"{'e^ε':>5} {'in-process s':>13} {'start 1 s':>10} {'1 worker s':>11} {'start 2 s':>10} {'2 workers s':>12} "
          f"{'speedup':>8}")
    for value in arguments.values.split(","):
        polytope = ldp_polytope(5, eps_exp=value)
        serial = min(timed_walk(polytope, cones, None, recursion) for _ in range(arguments.repeat))
        row = on_local_clusters(lambda client: min(timed_walk(polytope, cones, client, recursion)
                                                   for _ in range(arguments.repeat)), _warm)
        print(f"{value:>5} {serial:>13.2f} {row[0][0]:>10.2f} {row[0][1]:>11.2f} {row[1][0]:>10.2f} {row[1][1]:>12.2f} "
              f"{row[0][1] / row[1][1]:>7.2f}x", flush=True)


if __name__ == "__main__":
    main()
