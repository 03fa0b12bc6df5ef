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

Then, up to symmetry, in CPU seconds: the orbit walk flat and with the recursive decomposition
(polytopes.decomposition, its default rule) against SymPol (polytopes.sympol: Rehn and
Schürmann's adjacency decomposition with cdd inside, in polymake). polymake is not a dependency:
where it is not installed (Debian: ``apt-get install polymake``), that column says so.

Run: ``.venv/bin/python benchmarks/bench_polytopes.py [--full]``
"""

from __future__ import annotations

import argparse
import resource
import time

from polytopes.decomposition import Recursion
from polytopes.enumerate import enumerate_vertices, orbits
from polytopes.lrs import lrs_available, lrs_vertices
from polytopes.normaliz import normaliz_available, normaliz_vertices
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
from polytopes.sympol import sympol_available, sympol_representatives


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
    cases = [("D", n, lambda n=n, nn=True: ldp_polytope(n, eps_exp="2", nonnegativity=nn)) for n in (3, 4)]
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
        walk, walk_seconds = timed(lambda: enumerate_orbits(ldp_polytope(5, eps_exp="2"), cone_method=way))
        assert (walk.count, len(walk.orbits)) == (len(vertices), 47)
        print(f"{'D':<9} {5:>2} {walk.count:>9} {len(walk.orbits):>7} {'':>12} {walk_seconds:>8.2f}   orbit-wise "
              f"(tangent cones by {way}; ratio to by support {seconds / walk_seconds:.1f}x)")
    up_to_symmetry(cones)


def cpu_timed(function):
    """The value and the CPU seconds of this process and its children (polymake) it took."""
    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    start = cpu()
    value = function()
    return value, cpu() - start


def up_to_symmetry(cones: str) -> None:
    """The second table: the orbit walk, flat and decomposed, against SymPol, in CPU seconds."""
    have_sympol = sympol_available()
    print(f"\n{'up to symmetry':<14} {'n':>2} {'orbits':>7} {'walk cpu s':>11} {'decomposed cpu s':>17} "
          f"{'SymPol cpu s':>13} {'SymPol/decomposed':>18}")
    cases = [("D", 4, ldp_polytope(4, eps_exp="2")), ("U", 4, count_polytope(4, eps_exp="2")),
             ("F", 4, count_polytope(4, eps_exp="2", fixed=True)), ("RU", 4, representation_polytope(4, eps_exp="2")),
             ("D", 5, ldp_polytope(5, eps_exp="2"))]
    for name, n, polytope in cases:
        flat, flat_seconds = cpu_timed(lambda: enumerate_orbits(polytope, cone_method=cones))
        decomposed, seconds = cpu_timed(lambda: enumerate_orbits(polytope, cone_method=cones, recursion=Recursion()))
        assert (decomposed.count, len(decomposed.orbits)) == (flat.count, len(flat.orbits))
        sympol_text, ratio = "(no polymake)", "-"
        if have_sympol:
            found, sympol_seconds = cpu_timed(lambda: sympol_representatives(polytope))
            assert len(found) == len(flat.orbits), f"{name} {n}: SymPol finds {len(found)} orbits"
            sympol_text, ratio = f"{sympol_seconds:.2f}", f"{sympol_seconds / seconds:.2f}x"
        print(f"{name:<14} {n:>2} {len(flat.orbits):>7} {flat_seconds:>11.2f} {seconds:>17.2f} {sympol_text:>13} "
              f"{ratio:>18}")


def build(name: str, n: int):
    if name in ("U", "F"):
        return count_polytope(n, eps_exp="2", fixed=name == "F")
    return representation_polytope(n, eps_exp="2", fixed=name == "RF")


if __name__ == "__main__":
    main()
