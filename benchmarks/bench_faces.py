"""Benchmark: ex(D) from the face sets of the column cone (polytopes.ldp_faces) and from tight and
loose rows (polytopes.ldp_rows), against the orbit walk at n = 5, and the face sets on Dask at n = 6
(2 local workers against 1).

n = 5: the walk in this process (tangent cones by Normaliz where installed), the face sets and the
rows in this process, same e^ε; each must give 164,825 vertices in 47 orbits. n = 6: the rows in
this process (the first call at this n, which builds the pattern sets, and a second one, which
finds them built), the face sets in this process, then on local clusters of 1 and 2
single-threaded worker processes (started before the clock: their start-up is its own column);
every run must give 164,806,776 vertices in 655 orbits, or the benchmark stops. The speedup is 1
worker's time over 2 workers'; the rows' ratio is the face sets' time in this process over theirs.
With ``--n7`` the rows also take n = 7 (which no other method reaches; under a minute, the
antichains of seven patterns generated first), timed against the rows at n = 6 in the same process,
and then on local clusters of 1 and 2 workers (each new, so each generates the antichains again);
every run must give 774,319,815,073 vertices in 40,581 orbits (e^ε = 2 only).

Run: ``.venv/bin/python benchmarks/bench_faces.py [--eps-exp 2] [--skip-6] [--n7] [--no-dask]``
"""

from __future__ import annotations

import argparse
import time

from bench_scaleout import on_local_clusters  # shared with the walk's scale-out benchmark

from polytopes.ldp_faces import face_set_orbits
from polytopes.ldp_rows import ldp_orbits_by_rows
from polytopes.normaliz import normaliz_available
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import ldp_polytope

EXPECTED = {5: (164_825, 47), 6: (164_806_776, 655), 7: (774_319_815_073, 40_581)}


def _warm() -> None:
    import polytopes.ldp_faces  # noqa: F401  (workers import the polytope layer before the clock runs)


def timed_faces(n: int, eps_exp: str, client=None) -> float:
    start = time.perf_counter()
    orbits = face_set_orbits(n, eps_exp, client)
    seconds = time.perf_counter() - start
    if (sum(o.size for o in orbits), len(orbits)) != EXPECTED[n]:
        raise SystemExit(f"wrong answer at n = {n}: {sum(o.size for o in orbits)} vertices in {len(orbits)} orbits")
    return seconds


def timed_rows(n: int, eps_exp: str, client=None) -> float:
    start = time.perf_counter()
    found = ldp_orbits_by_rows(n, eps_exp, client=client)
    seconds = time.perf_counter() - start
    if (found.count, len(found.orbits)) != EXPECTED[n]:
        raise SystemExit(f"wrong answer from the rows at n = {n}: {found.count} in {len(found.orbits)} orbits")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps-exp", default="2")
    parser.add_argument("--skip-6", action="store_true", help="n = 5 only")
    parser.add_argument("--n7", action="store_true", help="the rows at n = 7 too (under a minute; e^ε = 2)")
    parser.add_argument("--no-dask", action="store_true", help="leave out the face sets on local Dask clusters")
    arguments = parser.parse_args()
    cones = "normaliz" if normaliz_available() else "cdd"
    start = time.perf_counter()
    walk = enumerate_orbits(ldp_polytope(5, eps_exp=arguments.eps_exp), cone_method=cones)
    walked = time.perf_counter() - start
    if (walk.count, len(walk.orbits)) != EXPECTED[5]:
        raise SystemExit(f"wrong answer from the walk: {walk.count} in {len(walk.orbits)} orbits")
    faces = timed_faces(5, arguments.eps_exp)
    rows = timed_rows(5, arguments.eps_exp)
    print(f"ex(D), n = 5, e^ε = {arguments.eps_exp}: walk {walked:.2f} s (cones by {cones}), face sets {faces:.2f} s "
          f"({walked / faces:.1f}x), rows {rows:.2f} s ({walked / rows:.1f}x)", flush=True)
    if arguments.skip_6:
        return
    first, again = timed_rows(6, arguments.eps_exp), timed_rows(6, arguments.eps_exp)
    here = timed_faces(6, arguments.eps_exp)
    print(f"ex(D), n = 6, e^ε = {arguments.eps_exp}, one process: rows {first:.1f} s (first call), {again:.1f} s "
          f"(pattern sets built), face sets {here:.1f} s: rows {here / first:.1f}x / {here / again:.1f}x faster",
          flush=True)
    if arguments.n7:
        if arguments.eps_exp != "2":
            raise SystemExit("--n7 knows the answer at e^ε = 2 only")
        seventh = timed_rows(7, arguments.eps_exp)
        print(f"ex(D), n = 7, e^ε = 2, one process: rows {seventh:.1f} s, {seventh / first:.0f}x the rows at n = 6 "
              "(no other method finishes n = 7)", flush=True)
        if not arguments.no_dask:
            row = on_local_clusters(lambda client: timed_rows(7, arguments.eps_exp, client), _warm)
            print(f"{'rows, n = 7':>14} {'in-process s':>13} {'start 1 s':>10} {'1 worker s':>11} {'start 2 s':>10} "
                  f"{'2 workers s':>12} {'speedup':>8}")
            print(f"{'e^ε = 2':>14} {seventh:>13.1f} {row[0][0]:>10.2f} {row[0][1]:>11.1f} {row[1][0]:>10.2f} "
                  f"{row[1][1]:>12.1f} {row[0][1] / row[1][1]:>7.2f}x", flush=True)
    if arguments.no_dask:
        return
    row = on_local_clusters(lambda client: timed_faces(6, arguments.eps_exp, client), _warm)
    print(f"{'ex(D), n = 6':>14} {'in-process s':>13} {'start 1 s':>10} {'1 worker s':>11} {'start 2 s':>10} "
          f"{'2 workers s':>12} {'speedup':>8}")
    print(f"{'e^ε = ' + arguments.eps_exp:>14} {here:>13.1f} {row[0][0]:>10.2f} {row[0][1]:>11.1f} {row[1][0]:>10.2f} "
          f"{row[1][1]:>12.1f} {row[0][1] / row[1][1]:>7.2f}x", flush=True)


if __name__ == "__main__":
    main()
