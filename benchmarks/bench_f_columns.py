"""Benchmark: every vertex of Kohli and Laskowski's F with the uniform z by its columns' steps
(polytopes.f_columns) against cddlib and Normaliz on the same polytope in the same process (issue
55: F past n = 4). Each row checks that the methods count the same vertices; the ratio is
baseline / columns.

Run: ``.venv/bin/python benchmarks/bench_f_columns.py [--sizes 3 4 5] [--normaliz-up-to 5]``
(Normaliz takes about 4 minutes at n = 5; cddlib does not finish n = 5; they run only up to
--normaliz-up-to and --cdd-up-to).
"""

from __future__ import annotations

import argparse

from bench_u_columns import timed  # shared with the U benchmark (run from benchmarks/)

from polytopes.enumerate import enumerate_vertices
from polytopes.f_columns import f_vertices_by_columns
from polytopes.normaliz import normaliz_available
from polytopes.spaces import count_polytope


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--eps-exp", default="2")
    parser.add_argument("--cdd-up-to", type=int, default=4)
    parser.add_argument("--normaliz-up-to", type=int, default=4)
    arguments = parser.parse_args()
    print(f"F (uniform z), e^ε = {arguments.eps_exp}")
    print(f"{'n':>2} {'vertices':>12} {'orbits':>7} {'tried':>10} {'columns s':>10} {'cddlib s':>9} {'ratio':>6} "
          f"{'Normaliz s':>10} {'ratio':>6}")
    for n in arguments.sizes:
        census, columns = timed(lambda n=n: f_vertices_by_columns(n, arguments.eps_exp))
        polytope = count_polytope(n, eps_exp=arguments.eps_exp, fixed=True)
        cells = []
        for method, limit, width in (("cdd", arguments.cdd_up_to, 9),
                                     ("normaliz", arguments.normaliz_up_to if normaliz_available() else 0, 10)):
            if n > limit:
                cells += [f"{'-':>{width}}", f"{'-':>6}"]
                continue
            listed, seconds = timed(lambda method=method: enumerate_vertices(polytope, method))
            if len(listed.vertices) != census.vertex_count:
                raise SystemExit(f"n = {n}: {method} lists {len(listed.vertices)}, the columns {census.vertex_count}")
            cells += [f"{seconds:>{width}.2f}", f"{seconds / columns:>6.1f}"]
        print(f"{n:>2} {census.vertex_count:>12,} {census.orbit_count:>7,} {census.visited:>10,} {columns:>10.2f} "
              + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
