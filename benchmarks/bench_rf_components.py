"""Benchmark: the number of vertices of R_F (uniform or binomial z) counted by its components
(polytopes.rf_components) against Normaliz's and lrs's vertex lists of the same polytope in the
same process (issue 55: R_F past n = 4). Each row checks that the methods give the same number; the
ratio is baseline / components.

Run: ``.venv/bin/python benchmarks/bench_rf_components.py [--sizes 3 4 5] [--list-up-to 4] [--z binomial]`` (no
lister finishes n = 5: Normaliz gave no answer in 10 minutes; they run only up to --list-up-to).
"""

from __future__ import annotations

import argparse

from bench_u_columns import timed  # shared with the U benchmark (run from benchmarks/)

from polytopes.fixed_point.named import NAMED_FIXED_POINTS, named_fixed_point
from polytopes.lrs import lrs_available, lrs_vertices
from polytopes.normaliz import normaliz_available, normaliz_vertices
from polytopes.rf_components import rf_vertex_count
from polytopes.spaces import representation_polytope


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--eps-exp", default="2")
    parser.add_argument("--list-up-to", type=int, default=4)
    parser.add_argument("--z", choices=NAMED_FIXED_POINTS, default="uniform")
    arguments = parser.parse_args()
    print(f"R_F, {arguments.z} z, e^ε = {arguments.eps_exp}")
    print(f"{'n':>2} {'vertices':>13} {'decided exactly':>16} {'components s':>13} {'Normaliz s':>11} {'ratio':>6} "
          f"{'lrs s':>8} {'ratio':>6}")
    for n in arguments.sizes:
        z = named_fixed_point(arguments.z, n)
        count, seconds = timed(lambda n=n, z=z: rf_vertex_count(n, arguments.eps_exp, z=z))
        cells = []
        polytope = representation_polytope(n, eps_exp=arguments.eps_exp, z=z, fixed=True)
        for available, lister in ((normaliz_available, normaliz_vertices), (lrs_available, lrs_vertices)):
            if n > arguments.list_up_to or not available():
                cells += ["–", "–"]
                continue
            listed, baseline = timed(lambda lister=lister: lister(polytope))
            if len(listed) != count.vertices:
                raise SystemExit(f"n = {n}: {lister.__name__} lists {len(listed)} vertices, the count is "
                                 f"{count.vertices}")
            cells += [f"{baseline:.2f}", f"{baseline / seconds:.1f}x"]
        print(f"{n:>2} {count.vertices:>13,} {count.decided_exactly:>16,} {seconds:>13.2f} {cells[0]:>11} "
              f"{cells[1]:>6} {cells[2]:>8} {cells[3]:>6}", flush=True)


if __name__ == "__main__":
    main()
