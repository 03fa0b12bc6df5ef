"""Benchmark: the vertex preimages of beyond.census-preimages (Kohli and Laskowski's Thms. 3 and 10 on
the census files), per orbit, with R_F's vertex test on B's support (standard form) against the
same test by all of B's tight rows (the definition, the baseline) in the same process. Each row
checks that both tests accept every preimage.

Run: ``.venv/bin/python benchmarks/bench_preimages.py [--every 700]`` (the n = 6 file of F is
sampled: every 700th orbit by default; the n = 5 files are read whole).
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from polytopes.representation import preimage
from polytopes.spaces import representation_polytope
from polytopes.u_columns import matrix_from_steps
from proofs_checks.beyond import CENSUS_FOLDER
from qifkit.files import read_json


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=int, default=700, help="take every k-th orbit of the n = 6 file")
    arguments = parser.parse_args()
    print(f"{'census':<18} {'orbits':>7} {'preimage ms':>11} {'support ms':>10} {'tight rows ms':>13} {'ratio':>6}")
    for name, every in (("u-n5-e2.json", 1), ("f-n5-e2.json", 1), ("u-n6-e2.json", 10),
                        ("f-n6-e2.json.gz", arguments.every)):
        document = read_json(str(CENSUS_FOLDER / name))
        n, e, fixed = document["n"], Fraction(document["eps_exp"]), document["polytope"] == "F"
        polytope = representation_polytope(n, eps_exp=e, fixed=fixed)
        orbits = document["orbits"][::every]
        matrices = [matrix_from_steps(o["steps"].split(), n, e, fixed) for o in orbits]
        start = time.perf_counter()
        points = [[v for row in preimage(t, e) for v in row] for t in matrices]
        built = time.perf_counter() - start
        start = time.perf_counter()
        by_support = all(polytope.is_vertex(p) for p in points)
        support = time.perf_counter() - start
        start = time.perf_counter()
        by_rows = all(polytope.is_vertex(p, tight=polytope.tight(p)) for p in points)
        rows = time.perf_counter() - start
        assert by_support and by_rows, name
        each = 1000 / len(points)
        print(f"{name:<18} {len(points):>7} {built * each:>11.3f} {support * each:>10.3f} {rows * each:>13.3f} "
              f"{rows / support:>6.1f}")


if __name__ == "__main__":
    main()
