"""Benchmark: every vertex of Kohli and Laskowski's U by its columns' steps (polytopes.u_columns)
against cddlib and the reversal orbit walk on the same polytope in the same process (issue 55: U
past n = 5). Each row checks that the methods count the same vertices; the ratio is baseline /
columns.

Run: ``.venv/bin/python benchmarks/bench_u_columns.py [--sizes 4 5 6] [--walk-up-to 4]`` (the walk
at n = 5 takes about a quarter of an hour, cddlib does not finish n = 5 in 10 minutes; they run only
up to --walk-up-to and --cdd-up-to).
"""

from __future__ import annotations

import argparse
import time

from polytopes.enumerate import enumerate_vertices
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import count_polytope
from polytopes.u_columns import u_vertices_by_columns


def timed(work):
    """What `work()` returns and how many seconds it took."""
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 5, 6])
    parser.add_argument("--eps-exp", default="2")
    parser.add_argument("--cdd-up-to", type=int, default=4)
    parser.add_argument("--walk-up-to", type=int, default=4)
    arguments = parser.parse_args()
    print(f"U, e^ε = {arguments.eps_exp}")
    print(f"{'n':>2} {'vertices':>12} {'orbits':>7} {'columns s':>10} {'cddlib s':>9} {'ratio':>6} {'walk s':>8} "
          f"{'ratio':>6}")
    for n in arguments.sizes:
        census, columns = timed(lambda n=n: u_vertices_by_columns(n, arguments.eps_exp))
        cells = []
        polytope = count_polytope(n, eps_exp=arguments.eps_exp)
        if n <= arguments.cdd_up_to:
            listed, seconds = timed(lambda: enumerate_vertices(polytope))
            if len(listed.vertices) != census.vertex_count:
                raise SystemExit(f"n = {n}: cddlib lists {len(listed.vertices)}, the columns {census.vertex_count}")
            cells += [f"{seconds:>9.2f}", f"{seconds / columns:>6.1f}"]
        else:
            cells += [f"{'-':>9}", f"{'-':>6}"]
        if n <= arguments.walk_up_to:
            walked, seconds = timed(lambda: enumerate_orbits(polytope))
            if walked.count != census.vertex_count:
                raise SystemExit(f"n = {n}: the walk finds {walked.count}, the columns {census.vertex_count}")
            cells += [f"{seconds:>8.2f}", f"{seconds / columns:>6.1f}"]
        else:
            cells += [f"{'-':>8}", f"{'-':>6}"]
        print(f"{n:>2} {census.vertex_count:>12,} {census.orbit_count:>7,} {columns:>10.2f} " + " ".join(cells),
              flush=True)


if __name__ == "__main__":
    main()
