"""Benchmark: exact vertex enumeration of the DP polytopes, plain cdd against ours.

"Plain cdd" is pycddlib's GMP double description on the H-representation as the paper states
it (with the non-negativity rows). "Ours": for D, cdd without the rows Lemma 1 (Holohan et al.)
shows redundant; for R_U and R_F, lrs (exact reverse search) with the tight constraints of every
vertex recomputed exactly; for U and F, cdd; then the orbit computation under the polytope's
symmetry group. Beside them, in the same run: Normaliz (PyNormaliz) on the plain H-representation,
and orbit-wise enumeration (polytopes.orbitwise, adjacency decomposition with Normaliz's tangent
cones), which gives the orbits without listing every vertex. Plain cdd on R_F at n = 4 (about 16
minutes) runs only with ``--full``. D at n = 5 runs by column support (polytopes.ldp_support) and
orbit-wise: plain cdd did not finish it in 50 minutes when measured, so its baseline is not rerun.

Run: ``.venv/bin/python benchmarks/bench_polytopes.py [--full]``
"""

from __future__ import annotations

import argparse
import time

from polytopes.enumerate import enumerate_vertices, orbits
from polytopes.lrs import lrs_available, lrs_vertices
from polytopes.normaliz import normaliz_available, normaliz_vertices
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also R_F at n = 4 (about 16 minutes)")
    arguments = parser.parse_args()
    print(f"{'polytope':<9} {'n':>2} {'vertices':>9} {'orbits':>7} {'plain cdd s':>12} {'ours s':>8} "
          f"{'ours+orbits s':>14} {'ratio':>6} {'lrs s':>8} {'normaliz s':>11} {'orbit-wise s':>13}")
    cones = "normaliz" if normaliz_available() else "cdd"
    cases = [("D", n, lambda n=n, nn=True: ldp_polytope(n, "2", nonnegativity=nn)) for n in (3, 4)]
    cases += [
        (name, n, lambda n=n, name=name, nn=True: build(name, n)) for name in ("U", "F", "RU", "RF") for n in (3, 4)
    ]
    for name, n, make in cases:
        plain = make()
        ours = make(nn=False) if name == "D" else plain
        method = "lrs" if name in ("RU", "RF") and lrs_available() else "cdd"
        our_enumeration, our_seconds = timed(lambda: enumerate_vertices(ours, method))
        groups, orbit_seconds = timed(lambda: orbits(our_enumeration.vertices, ours.symmetries))
        if name == "RF" and n == 4 and not arguments.full:
            plain_text, ratio = "(--full)", "-"
        else:
            enumeration, plain_seconds = timed(lambda: enumerate_vertices(plain))
            assert {v.coordinates for v in enumeration.vertices} == {v.coordinates for v in our_enumeration.vertices}
            plain_text, ratio = f"{plain_seconds:.2f}", f"{plain_seconds / our_seconds:.2f}x"
        lrs_text = "-"
        if lrs_available():
            found, lrs_seconds = timed(lambda: lrs_vertices(plain))
            assert found == {v.coordinates for v in our_enumeration.vertices}
            lrs_text = f"{lrs_seconds:.2f}"
        normaliz_text = "-"
        if normaliz_available():
            found, normaliz_seconds = timed(lambda: normaliz_vertices(plain))
            assert found == {v.coordinates for v in our_enumeration.vertices}
            normaliz_text = f"{normaliz_seconds:.2f}"
        walk_text = "(small group)"  # one tangent cone per orbit: R_F at n = 4 would take about 22,000
        if 4 * len(groups) <= len(our_enumeration.vertices) or n == 3:
            walk, walk_seconds = timed(lambda: enumerate_orbits(ours, cone_method=cones))
            assert (walk.count, len(walk.orbits)) == (len(our_enumeration.vertices), len(groups))
            walk_text = f"{walk_seconds:.2f}"
        print(
            f"{name:<9} {n:>2} {len(our_enumeration.vertices):>9} {len(groups):>7} {plain_text:>12} "
            f"{our_seconds:>8.2f} "
            f"{our_seconds + orbit_seconds:>14.2f} {ratio:>6} {lrs_text:>8} {normaliz_text:>11} {walk_text:>13}"
        )
    from polytopes.ldp_support import ldp_vertices_by_support

    (vertices, _), seconds = timed(lambda: ldp_vertices_by_support(5, "2"))
    print(
        f"{'D':<9} {5:>2} {len(vertices):>9} {'':>7} {'> 3000 (issue)':>12} {seconds:>8.2f}   "
        "by support (faces by cdd, full support by Cor. 5)"
    )
    for way in dict.fromkeys((cones, "cdd")):
        walk, walk_seconds = timed(lambda: enumerate_orbits(ldp_polytope(5, "2"), cone_method=way))
        assert (walk.count, len(walk.orbits)) == (len(vertices), 47)
        print(f"{'D':<9} {5:>2} {walk.count:>9} {len(walk.orbits):>7} {'':>12} {walk_seconds:>8.2f}   orbit-wise "
              f"(tangent cones by {way}; ratio to by support {seconds / walk_seconds:.1f}x)")


def build(name: str, n: int):
    if name in ("U", "F"):
        return count_polytope(n, "2", fixed=name == "F")
    return representation_polytope(n, "2", fixed=name == "RF")


if __name__ == "__main__":
    main()
