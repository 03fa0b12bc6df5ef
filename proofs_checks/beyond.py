"""Results none of the papers has, computed and certified here."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from polytopes.enumerate import enumerate_vertices, orbits
from polytopes.lrs import lrs_available
from polytopes.spaces import count_polytope, representation_polytope
from proofs_checks.claims import Outcome, Status, claim
from qifkit import truncated_geometric, verify_certificate
from qifkit.numbers import exact_str
from qifkit.pipelines import argmax_pipeline, histograms
from qifkit.stability import Instability, smallest_instability

ARGMAX_GRID = ("11/10", "6/5", "3/2", "2", "3", "5", "10")
ARGMAX_SIZES = ((2, 1), (3, 1), (2, 2), (2, 3), (3, 2), (4, 1))


def _smallest_argmax_instability(
    sizes: tuple[tuple[int, int], ...] = ARGMAX_SIZES, grid: tuple[str, ...] = ARGMAX_GRID
) -> tuple[dict[str, int], tuple[int, int] | None, list[Instability]]:
    """Search (K, N) in order of the number of histograms C(N+K−1, K−1), then K: for each, how many
    grid pairs are unstable; the first (K, N) with one, and its instabilities."""
    ordered = sorted(sizes, key=lambda s: (math.comb(s[1] + s[0] - 1, s[0] - 1), s[0], s[1]))

    def builder(bars: int, respondents: int) -> Any:
        secrets = histograms(bars, respondents)
        return lambda e: argmax_pipeline(truncated_geometric(respondents + 1, eps_exp=e), bars, secrets)

    table, first, found = smallest_instability(((size, builder(*size)) for size in ordered), grid)
    return {f"K={k}, N={n}": count for (k, n), count in table.items()}, first, found


def _instability_evidence(instability: Instability) -> dict[str, Any]:
    """The certificate of an instability as JSON-ready evidence."""
    certificate = instability.certificate
    return {
        "eps_exp_low": instability.eps_exp_low,
        "eps_exp_high": instability.eps_exp_high,
        "prior": certificate.prior.probabilities(),
        "loss": certificate.loss.rows(),
        "uncertainty_more_private": certificate.uncertainty_b,
        "uncertainty_less_private": certificate.uncertainty_a,
        "gap": certificate.gap,
    }


@claim("beyond.argmax-smallest")
def argmax_smallest(sizes: tuple[tuple[int, int], ...] = ARGMAX_SIZES, grid: tuple[str, ...] = ARGMAX_GRID) -> Outcome:
    """The smallest noisy-ArgMax instability.

    Source: beyond the papers (Alvim et al. 2023, Lemma 26 proves instability without an example).
    Statement: two voters and two categories already make noisy ArgMax unstable: for every pair
    e^ε' < e^ε of the grid, (GD_ε)^{⊗2}·ArgMax ⋢ (GD_ε')^{⊗2}·ArgMax on the 3 histograms. With one
    voter (K = 2, 3, 4) no pair of the grid is unstable, so K = 2, N = 2 is the smallest unstable
    size searched.
    Method: for each (K, N) in order of the number of histograms, every pair of the grid is decided
    by `refines` with an exact certificate; the representative certificate (e^ε = 2 vs 3) is
    re-verified by the exact checker.
    Assumptions: the sizes (K, N) in {(2,1), (3,1), (4,1), (2,2), (2,3), (3,2)} and the finite grid
    e^ε in {11/10, 6/5, 3/2, 2, 3, 5, 10}; stability of N = 1 is shown only on that grid.
    """
    table, first, found = _smallest_argmax_instability(sizes, grid)
    representative = next(
        (i for i in found if (i.eps_exp_low, i.eps_exp_high) == ("2", "3")), found[0] if found else None
    )
    ok = first == (2, 2) and representative is not None
    if ok:
        secrets = histograms(2, 2)
        a = argmax_pipeline(truncated_geometric(3, eps_exp=representative.eps_exp_high), 2, secrets)
        b = argmax_pipeline(truncated_geometric(3, eps_exp=representative.eps_exp_low), 2, secrets)
        ok = verify_certificate(a, b, representative.certificate)
    return Outcome.decide(
        ok,
        Status.CONFIRMED,
        f"smallest unstable noisy ArgMax: K=2, N=2 (all {len(found)} grid pairs); gap "
        f"{representative.certificate.gap if representative else None} at e^ε 2 vs 3",
        unstable_pairs_by_size=table,
        smallest=first,
        grid=list(grid),
        certificate=_instability_evidence(representative) if representative else None,
    )


KOHLI_N4 = {"U": 664, "F": 1806, "RU": 2192, "RF": 44358}


@claim("beyond.kohli-n4")
def kohli_n4(expected: dict[str, int] | None = None, full: bool = False) -> Outcome:
    """The extreme points of Kohli and Laskowski's polytopes for n = 4.

    Source: beyond the papers (Kohli and Laskowski print n = 3 only).
    Statement: for n = 4, z uniform and ε = ln 2: |ex(U)| = 664, |ex(F)| = 1806, |ex(R_U)| = 2192 and
    |ex(R_F)| = 44,358.
    Method: exact vertex enumeration of each polytope (cddlib GMP for U, F, R_U; lrs, exact
    reverse search, for R_F, which takes cddlib about 16 minutes), with orbit counts under the
    reversal symmetry; with --full, R_F is also enumerated by cddlib and the two sets compared.
    Assumptions: z uniform, e^ε = 2. Without lrs installed the check fails unless --full
    (R_F by cddlib).
    """
    expected = expected or KOHLI_N4
    if not lrs_available() and not full:  # a claim about four polytopes is not confirmed by three
        return Outcome.decide(False, Status.CONFIRMED, "R_F not enumerated: lrs is missing (install lrslib, "
                              "as the README's setup does, or run with --full for cddlib's 16 minutes)")
    found, orbit_counts = {}, {}
    builders = {
        "U": lambda: count_polytope(4, eps_exp="2"),
        "F": lambda: count_polytope(4, eps_exp="2", fixed=True),
        "RU": lambda: representation_polytope(4, eps_exp="2"),
        "RF": lambda: representation_polytope(4, eps_exp="2", fixed=True),
    }
    agree = None
    for name, build in builders.items():
        polytope = build()
        if name == "RF":
            if lrs_available():
                vertices = enumerate_vertices(polytope, "lrs").vertices
                if full:
                    agree = {v.coordinates for v in vertices} == {
                        v.coordinates for v in enumerate_vertices(polytope).vertices
                    }
            else:
                vertices = enumerate_vertices(polytope).vertices
        else:
            vertices = enumerate_vertices(polytope).vertices
        found[name] = len(vertices)
        orbit_counts[name] = len(orbits(vertices, polytope.symmetries))
    ok = all(found[name] == expected[name] for name in found) and agree is not False
    return Outcome.decide(ok, Status.CONFIRMED,
                          f"n = 4: {', '.join(f'|ex({k})| = {v}' for k, v in found.items())}",
                          counts=found, orbits=orbit_counts, rf_by_lrs=lrs_available(),
                          cdd_agrees_with_lrs_on_rf=agree if agree is not None else
                          "not compared: cddlib's enumeration of R_F (16 minutes) runs with --full only")


@claim("beyond.ldp-n5")
def ldp_n5(eps_exp: str = "2") -> Outcome:
    """The complete set of extreme points of the local-DP polytope for n = 5.

    Source: beyond the papers (Holohan et al. characterise n ≤ 3, conjecture n = 4 and give one
    n = 5 example; plain cdd does not finish n = 5 in 50 minutes).
    Statement: at e^ε = 2, ex(D) for n = 5 is computed completely: its size, its orbits under row ×
    column permutations and the table of (|γ|, |λ|); it contains the paper's n = 5 example.
    Method: by support (polytopes.ldp_support): vertices with zero columns are vertices of faces,
    the 5×m LDP polytopes (m ≤ 4), enumerated exactly by Normaliz (cddlib without it) and
    embedded in every column set; vertices without zero columns are D̃ ∩ {|γ| = 5} (Holohan et
    al. Cor. 5), built exactly from the definition. Completeness by a second, independent
    argument (polytopes.adjacency): the list is closed under the 14,400 row × column
    permutations (orbits), each orbit's representative is a vertex (tight rank 25) whose
    neighbours, found from the extreme rays of its tangent cone (by cddlib: another program than
    the faces') and an exact ratio test, are all in the list; a polytope's graph is connected, so
    no vertex is missing. The orbit–stabiliser count Σ |G|/|Stab| must give the list's size.
    Assumptions: e^ε = 2 only; the full-support block rests on Cor. 5 (proved in the paper), and the
    completeness argument does not.
    """
    from polytopes.adjacency import adjacency_closure
    from polytopes.classify import gamma, loose_entries
    from polytopes.enumerate import Vertex
    from polytopes.ldp_support import ldp_vertices_by_support
    from polytopes.spaces import ldp_polytope

    vertices, by_size = ldp_vertices_by_support(5, eps_exp)
    polytope = ldp_polytope(5, eps_exp=eps_exp)
    flat = [tuple(v for row in m for v in row) for m in vertices]
    groups = orbits([Vertex(point, frozenset()) for point in flat], polytope.symmetries)
    representatives = [min(v.coordinates for v in group) for group in groups]
    table: dict[str, int] = {}
    for point, group in zip(representatives, groups, strict=True):  # |γ| and |λ| are the same on an orbit
        matrix = [point[5 * i:5 * i + 5] for i in range(5)]
        key = f"|γ|={len(gamma(matrix))}, |λ|={len(loose_entries(matrix, eps_exp))}"
        table[key] = table.get(key, 0) + len(group)
    closure = adjacency_closure(polytope, flat, representatives)
    complete = closure.missing is None and closure.orbit_stabiliser_total == len(vertices)
    e = Fraction(eps_exp)
    raw = [[1, 1, 2 * e, 1, 0], [e, 1, 2, e, 0], [e, e, 2, 1, 0], [1, e, 2, e, 0], [1, 1, 1 + e, e, 0]]
    example = tuple(tuple(Fraction(v) / (3 + 2 * e) for v in row) for row in raw)
    ok = complete and example in vertices and sum(by_size.values()) == len(vertices)
    return Outcome.decide(
        ok, Status.CONFIRMED,
        f"n = 5, e^ε = {eps_exp}: {len(vertices)} extreme points in {len(groups)} orbits, complete (adjacency "
        f"closure of the {len(groups)} orbit representatives); the paper's example is one",
        count=len(vertices), orbits=len(groups), by_support=by_size, gamma_lambda_table=dict(sorted(table.items())),
        orbit_sizes=sorted((len(g) for g in groups), reverse=True)[:20],
        completeness={"neighbours_checked": closure.neighbours, "group_order": closure.group_order,
                      "missing_neighbour": None if closure.missing is None else [str(v) for v in closure.missing],
                      "orbit_stabiliser_total": closure.orbit_stabiliser_total},
        contains_paper_example=example in vertices,
    )


@claim("beyond.ldp-n5-orbits")
def ldp_n5_orbits(grid: tuple[str, ...] = ("2",), by_support: tuple[int, int] = (164_825, 47),
                  full: bool = False) -> Outcome:
    """The extreme points of the local-DP polytope for n = 5, orbit by orbit.

    Source: beyond the papers (issue 17: the field's symmetric enumerators work up to symmetry).
    Statement: ex(D) for n = 5 has 164,825 extreme points in 47 orbits under row × column
    permutations at e^ε = 2 (and, in the full tier, the same counts at e^ε = 3/2 and 3), found
    one orbit at a time.
    Method: adjacency decomposition (polytopes.orbitwise): from one vertex, the neighbours of each
    new orbit representative (tangent-cone rays by Normaliz, or cddlib without it; an exact ratio test), canonical
    forms under the 14,400 permutations, until no representative has a neighbour in an unseen
    orbit; the graph of a polytope is connected, so the orbit list is complete. Sizes by
    orbit–stabiliser. At e^ε = 2 it must agree with beyond.ldp-n5, which lists every vertex by
    column support and Holohan et al.'s Cor. 5: two independent methods.
    Assumptions: the grid only (e^ε = 2; 3/2, 2, 3 with --full).
    """
    from polytopes.normaliz import normaliz_available
    from polytopes.orbitwise import enumerate_orbits
    from polytopes.spaces import ldp_polytope

    results = {}
    cones = "normaliz" if normaliz_available() else "cdd"
    for eps_exp in (("3/2", "2", "3") if full else grid):
        found = enumerate_orbits(ldp_polytope(5, eps_exp=eps_exp), cone_method=cones)
        results[eps_exp] = {
            "count": found.count,
            "orbits": len(found.orbits),
            "group_order": found.group_order,
            "neighbours_checked": found.neighbours,
            "seconds": round(found.seconds, 1),
            "cones_by": cones,
            "orbit_sizes": sorted((o.size for o in found.orbits), reverse=True),
        }
    agrees = "2" not in results or (results["2"]["count"], results["2"]["orbits"]) == by_support
    counts = ", ".join(f"e^ε = {e}: {r['count']} in {r['orbits']} orbits" for e, r in results.items())
    return Outcome.decide(agrees, Status.CONFIRMED,
                          f"n = 5 by adjacency decomposition, complete: {counts}; agrees with the support method",
                          results=results, by_support_at_2={"count": by_support[0], "orbits": by_support[1]})


N5_PATTERN = ((0, 1, 1, 0, 0), (0, 0, 1, 1, 0), (1, 0, 0, 0, 2), (0, 1, 0, 1, 1))  # Holohan's n = 5 example


@claim("beyond.ldp-n4-all-eps")
def ldp_n4_all_eps(patterns: tuple | None = None, grid_check: str = "2") -> Outcome:
    """The n = 4 conjecture of Holohan et al. holds for every ε > 0.

    Source: Holohan, Leith and Mason, §5 (the conjecture ex(D) = D̃' ∪ D̃ for n = 4, checked there
    and in holohan17.conj-n4 at a few values of ε only).
    Statement: for n = 4 and every e^ε > 1, every extreme point of the local-DP polytope D is in
    D̃' ∪ D̃; equivalently no extreme point has a loose entry.
    Method: the reduction of :mod:`polytopes.ldp_parametric` (a vertex other than D̃' is a pattern of
    low / high / loose entries in ratio-tight columns whose row-sum system has a unique solution with
    m_j > 0 and m_j < x < e·m_j); for each of the 182 loose patterns (up to row and column symmetry)
    every deciding polynomial in e is formed exactly, its real roots > 1 isolated, and the pattern
    tested at every root and at a rational point of every gap (sympy polynomials, Sturm counts,
    rationals; no floats). The reduction is cross-checked on the cdd enumeration at e^ε = 2 (every
    one of the 904 vertices is D̃' or a loose-free pattern), and the search is shown able to find a
    loose vertex: Holohan's n = 5 example's pattern is reported feasible.
    Assumptions: the reduction is our derivation from the definitions (stated in the module
    docstring); e^ε = 1 (ε = 0) is excluded, where D is the single matrix class of Cor. 2.
    """
    from polytopes.classify import gamma, in_d_tilde_prime
    from polytopes.ldp_parametric import feasible_values, loose_patterns
    from polytopes.spaces import ldp_polytope

    search = loose_patterns(4) if patterns is None else list(patterns)
    feasible = {str(p): found for p in search if (found := feasible_values(p))}
    polytope = ldp_polytope(4, eps_exp=grid_check)
    e = Fraction(grid_check)
    unexplained = 0
    vertices = enumerate_vertices(polytope).vertices
    for vertex in vertices:
        a = vertex.matrix(polytope.shape)
        if in_d_tilde_prime(a):
            continue
        for j in gamma(a):
            column = [row[j] for row in a]
            low, high = min(column), max(column)
            if high != e * low or any(low < v < high for v in column):
                unexplained += 1
                break
    n5_found = bool(feasible_values(N5_PATTERN))
    return Outcome.decide(
        not feasible and not unexplained and n5_found,
        Status.CONFIRMED,
        f"no loose n = 4 pattern is a vertex for any e^ε > 1 ({len(search)} patterns decided exactly); "
        f"reduction agrees with the {len(vertices)} cdd vertices at e^ε = {grid_check}",
        patterns=len(search),
        feasible_loose_patterns=feasible,
        vertices_checked=len(vertices),
        unexplained_vertices=unexplained,
        n5_example_found=n5_found,
    )


#: The census files of scripts/census.py, shipped with the package (``proofs_checks/results/``; the
#: repository's ``results/`` is a link to it).
CENSUS_FOLDER = Path(str(resources.files("proofs_checks") / "results"))


@claim("beyond.ldp-census")
def ldp_census(folder: Path = CENSUS_FOLDER, at_two: tuple[int, int] = (164_825, 47), full: bool = False) -> Outcome:
    """The census of the local-DP polytope's vertices: the result files re-verified.

    Source: beyond the papers (issue 33: Holohan et al. characterise n ≤ 3 and conjecture n = 4; no
    source counts the vertices of D at n = 5).
    Statement: results/ holds, for n = 4, 5 and 6 and e^ε ∈ {5/4, 3/2, 2, 3, 5}, and for n = 7 at
    e^ε = 2, one representative per orbit of ex(D) under row × column permutations, with its orbit
    size and (|γ|, |λ|); every file is a true census, and at n = 5, e^ε = 2 it counts 164,825
    vertices in 47 orbits, as the support method (beyond.ldp-n5) does. The n = 6 files come from the
    face sets of the column cone (polytopes.ldp_faces, format version 3); the n = 7 file (774,319,815,073
    vertices in 40,581 orbits, issue 55) from the tight and loose rows, which alone reach n = 7.
    Completeness is argued twice for every file up to n = 6: the tight and loose rows
    (polytopes.ldp_rows, a second characterisation of D's vertices) give exactly the listed orbits
    and sizes.
    Method: polytopes.census.check_census on each file: every representative a vertex (exact
    rank test) and its own canonical form, the orbits distinct, sizes and stabilisers by
    orbit–stabiliser, (|γ|, |λ|) and the tight count recomputed from the representative, the count
    and orbit count their sum and number; for every file the vertices enumerated from tight and
    loose rows and compared orbit by orbit (an orbit left out with the totals kept consistent is
    refused; n = 6 in about a second a file, n = 7 in about 35 seconds); at n ≤ 5 the face sets of
    the column cone enumerated again and compared the same way; the adjacency closure (every
    neighbour of every representative, by cddlib's tangent cones and an exact ratio test, in a
    listed orbit) for n = 4 always and for n = 5 with --full; for the face-set files (n = 6) the
    face-set enumeration run again, with --full.
    Assumptions: the files in results/ (written by scripts/census.py); at n = 6 without --full,
    completeness rests on the rows alone (with --full, on the face sets too); at n = 7 on the rows
    alone (the tests compare its 2- and 3-column orbits with cddlib and Normaliz and probe it with
    exact LP optima of random objectives).
    """
    from polytopes.census import check_census
    from qifkit.files import read_json

    files = sorted([*folder.glob("ldp-n*-e*.json"), *folder.glob("ldp-n*-e*.json.gz")])
    found: dict[str, Any] = {}
    for path in files:
        document = read_json(str(path))
        checked = check_census(document, closure=full or document["n"] <= 4, recount=full or document["n"] <= 5,
                               rows=True)
        table: dict[str, int] = {}
        for orbit in document["orbits"]:
            key = f"|γ|={orbit['gamma']}, |λ|={orbit['lambda']}"
            table[key] = table.get(key, 0) + orbit["size"]
        found[path.name] = {"n": document["n"], "eps_exp": document["eps_exp"], "count": checked.count,
                            "orbits": checked.orbits, "closure_checked": checked.closure,
                            "complete_by": [method for method, done in (("adjacency closure", checked.neighbours > 0),
                                                                       ("face sets", checked.recounted),
                                                                       ("tight and loose rows", checked.rows)) if done],
                            "gamma_lambda_table": dict(sorted(table.items()))}
    at_2 = next(((r["count"], r["orbits"]) for r in found.values() if r["n"] == 5 and r["eps_exp"] == "2"), None)
    ok = len(found) >= 10 and at_2 == at_two
    counts = "; ".join(f"n = {r['n']}, e^ε = {r['eps_exp']}: {r['count']:,} in {r['orbits']} orbits"
                       for r in found.values())
    return Outcome.decide(ok, Status.CONFIRMED, f"{len(found)} census files re-verified: {counts}",
                          files=found, n5_at_2_by_support={"count": at_two[0], "orbits": at_two[1]})


def _positive_vertices_from_scales(n: int, eps_exp: str) -> int:
    """Kohli and Laskowski's Thm. 2, counted directly: the positive vertices of U are the mechanisms
    whose columns are independent multiples of distinct ε-scales (polytopes.scales.positive_scale_sets),
    n! column orders per set."""
    from polytopes.scales import positive_scale_sets

    return sum(1 for _ in positive_scale_sets(n, eps_exp)) * math.factorial(n)


@claim("beyond.u-census")
def u_census(folder: Path = CENSUS_FOLDER, at_two: tuple[int, int] | None = (25_827_726, 20_179)) -> Outcome:
    """The census of U's vertices at n = 5 and 6: the result files re-verified and recounted.

    Source: beyond the papers (Kohli and Laskowski enumerate U only where cddlib does, n ≤ 4 here;
    `enumerate` stopped at n = 5, which cddlib did not finish in 10 minutes).
    Statement: results/ holds the vertices of U_ε, one entry per orbit under the column
    permutations and the row reversal (a group of order 2·n!), for n = 5 at e^ε ∈ {5/4, 3/2, 2, 3,
    5} and n = 6 at e^ε = 2, where U has 25,827,726 vertices in 20,179 orbits; each file is a true
    and complete census, and its positive vertices are those of Thm. 2.
    Method: polytopes.u_columns.check_u_census with its recount on each file: every entry's steps
    solved from U's constraints as equations (rank n²) into a matrix of U with exactly those steps,
    the orbit names distinct and canonical, sizes and count recomputed, and the enumeration by the
    columns' steps run again (an orbit left out is refused; about 2 minutes at n = 6). Thm. 2 on
    the n = 5 files: the positive vertices listed (n non-zero columns) equal, in number, those built
    directly from every set of n distinct scales with a positive exact solution.
    Assumptions: the files in results/ (scripts/census.py --polytope U); the census method's
    characterisation is proved in docs/enumerate.md and agrees with cddlib (n ≤ 4, four e^ε) and
    Normaliz (n = 5, e^ε = 2 and 3/2) in the tests; at n = 6 Thm. 2's direct count (906,192 sets) is
    left to the tests' slow run.
    """
    from polytopes.u_columns import check_u_census
    from qifkit.files import read_json

    found: dict[str, Any] = {}
    failures = []
    for path in sorted(folder.glob("u-n*-e*.json")):
        document = read_json(str(path))
        checked = check_u_census(document, recount=True)
        positive = sum(o["size"] for o in document["orbits"] if len(o["steps"].split()) == document["n"])
        entry = {"n": document["n"], "eps_exp": document["eps_exp"], "count": checked.count, "orbits": checked.orbits,
                 "positive_vertices": positive, "recounted": checked.recounted}
        if document["n"] <= 5:
            built = _positive_vertices_from_scales(document["n"], document["eps_exp"])
            entry["positive_vertices_by_thm2"] = built
            if built != positive:
                failures.append(f"{path.name}: {positive} positive vertices listed, {built} built by Thm. 2")
        found[path.name] = entry
    at_2 = next(((r["count"], r["orbits"]) for r in found.values() if r["n"] == 6 and r["eps_exp"] == "2"), None)
    if at_two is not None and at_2 != at_two:
        failures.append(f"n = 6, e^ε = 2: {at_2} (count, orbits), expected {at_two}")
    counts = "; ".join(f"n = {r['n']}, e^ε = {r['eps_exp']}: {r['count']:,} in {r['orbits']} orbits"
                       for r in found.values())
    return Outcome.confirmed_unless(failures, f"{len(found)} census files of U re-verified and recounted: {counts}",
                                    files=found)


#: |ex(F)| with the uniform z at n = 5 and its orbits (column permutations × reversal), by e^ε: the
#: vertex counts are Normaliz's (its exact vertex list of F, 2026-11-29, 4 minutes each), the orbits
#: the census's.
F_N5_COUNTS = {"5/4": (857_190, 3_715), "3/2": (1_058_040, 4_546), "2": (1_169_850, 5_008),
               "3": (1_191_390, 5_121), "5": (1_210_650, 5_208)}

#: |ex(F)| with the uniform z at n = 6, e^ε = 2, and its orbits: the census's own numbers (no other
#: method reaches n = 6; the search by fixed and loose columns, the same in two runs whose float
#: filters differed).
F_N6_COUNTS = {"2": (2_085_631_760, 1_455_809)}


@claim("beyond.f-census")
def f_census(folder: Path = CENSUS_FOLDER, expected: dict[str, tuple[int, int]] | None = None,
             full: bool = False, expected_n6: dict[str, tuple[int, int]] | None = None) -> Outcome:
    """The census of F's vertices with the uniform z at n = 5 and 6: the result files re-verified.

    Source: beyond the papers (Kohli and Laskowski enumerate F only where cddlib does, n ≤ 4 here;
    cddlib does not finish n = 5).
    Statement: results/ holds the vertices of F_ε with the uniform z at n = 5, one entry per orbit
    under the column permutations and the row reversal (a group of order 240), for e^ε ∈ {5/4,
    3/2, 2, 3, 5}; at e^ε = 2 F has 1,169,850 vertices in 5,008 orbits. Each file is a true census
    and a complete one. At n = 6, e^ε = 2 (a group of order 1,440) F has 2,085,631,760 vertices in
    1,455,809 orbits.
    Method: polytopes.f_columns.check_f_census on each n = 5 file: every entry's steps solved from
    F's constraints as equations (rank n²) into a matrix of F with exactly those steps, orbit names
    distinct and canonical, sizes and count recomputed; then every file's vertex count must be
    Normaliz's (its exact vertex list, computed once; at e^ε = 2 the set is the census's vertex for
    vertex in the tests' slow run). Listed orbits that are true, distinct vertex orbits and whose
    sizes add up to the number of vertices leave no vertex out: the file is complete without a
    recount. With --full each n = 5 file is also enumerated again by the columns' steps (about a
    second each) and compared orbit by orbit, and the n = 6 file (gzip-compressed) is checked the
    same way, entry by entry (about 2 minutes) and enumerated again (about 20 minutes).
    Assumptions: the files in results/ (scripts/census.py --polytope F); the characterisation is
    proved in docs/enumerate.md and agrees with cddlib at n ≤ 4 (six e^ε up to 10^30) and Normaliz
    at n = 5 in the tests. Without --full the n = 6 file is not read (it is too large for the daily
    run): the tests' slow run checks it entry by entry and probes it with exact LP optima of random
    objectives; its completeness rests on the characterisation and the enumeration alone.
    """
    from polytopes.f_columns import check_f_census
    from qifkit.files import read_json

    expected = F_N5_COUNTS if expected is None else expected
    expected_n6 = F_N6_COUNTS if expected_n6 is None else expected_n6
    found: dict[str, Any] = {}
    failures = []
    for path in sorted([*folder.glob("f-n*-e*.json"), *folder.glob("f-n*-e*.json.gz")]):
        if not full and not path.name.startswith("f-n5-"):
            found[path.name] = {"checked": False, "why": "n > 5: checked and recounted with --full only"}
            continue
        document = read_json(str(path))
        checked = check_f_census(document, recount=full)
        found[path.name] = {"n": document["n"], "eps_exp": document["eps_exp"], "count": checked.count,
                            "orbits": checked.orbits, "recounted": checked.recounted, "checked": True}
    at_five = {r["eps_exp"]: (r["count"], r["orbits"]) for r in found.values() if r.get("n") == 5}
    if at_five != expected:
        failures.append(f"n = 5: (count, orbits) by e^ε {at_five}, expected {expected}")
    at_six = {r["eps_exp"]: (r["count"], r["orbits"]) for r in found.values() if r.get("n") == 6}
    if full and at_six != expected_n6:
        failures.append(f"n = 6: (count, orbits) by e^ε {at_six}, expected {expected_n6}")
    counts = "; ".join(f"n = {r['n']}, e^ε = {r['eps_exp']}: {r['count']:,} in {r['orbits']} orbits"
                       for r in found.values() if r["checked"])
    skipped = [name for name, r in found.items() if not r["checked"]]
    return Outcome.confirmed_unless(failures, f"{len(found) - len(skipped)} census files of F (uniform z) re-verified: "
                                    f"{counts}" + (f"; not read without --full: {', '.join(skipped)}" if skipped
                                                   else ""), files=found)


#: |ex(R_F)| at n = 5, e^ε = 2, by fixed point: the counts by components of results/ (no vertex
#: lister finishes n = 5; the count agrees with Normaliz on faces of R_F at n = 5 and on R_F itself
#: at n = 3 and 4, in the tests).
RF_N5_COUNTS = {"uniform": 893_493_240, "binomial": 438_379_536}


@claim("beyond.rf-count")
def rf_count(folder: Path = CENSUS_FOLDER, expected: Mapping[str, int] | None = None, full: bool = False) -> Outcome:
    """The number of vertices of R_F at n = 4 and 5, for the uniform and the binomial z, counted by
    their components.

    Source: beyond the papers (Kohli and Laskowski enumerate R_F where cddlib does, n ≤ 4 here; no
    lister answers n = 5: Normaliz gave none in 10 minutes and the orbit walk found 426,123 orbits
    in 30 minutes, far from the end).
    Statement: results/ holds the number of vertices of R_F with its table by core, each file naming
    its z; at n = 5, e^ε = 2, R_F has 893,493,240 vertices with the uniform z (3,469,103 sets of
    components up to the column permutations) and 438,379,536 with the binomial z
    (C(4, k)/16).
    Method: polytopes.rf_components.check_rf_count on each file: its fields and totals, and the
    count run again for the file's z (floats search; every candidate they cannot rule out is
    decided in exact rationals: its row sums solved and its positive spanning trees counted), which
    must give the file's table row by row (about 3 minutes for the uniform z at n = 5). The
    binomial z at n = 5 takes about half an hour to count again: by default its file's fields and
    totals are checked and its total must be the golden one; --full counts it again too.
    Assumptions: the files in results/ (qifkit enumerate RF --method components --json); the
    characterisation by components is proved in docs/enumerate.md and gives cddlib's vertex count
    and table at n = 3 (several e^ε and z) and Normaliz's at n = 4 and on faces at n = 5 in the
    tests; the floats drop a candidate only when its least singular value, residual or smallest row
    sum is far outside (1e-7, 1e-5, −1e-9) what rounding of numbers of order 1 can reach.
    """
    from polytopes.fixed_point.named import NAMED_FIXED_POINTS, named_fixed_point
    from polytopes.rf_components import check_rf_count
    from qifkit.files import read_json

    expected = RF_N5_COUNTS if expected is None else expected
    found: dict[str, Any] = {}
    failures = []
    for path in sorted(folder.glob("rf-n*-e*.json")):
        document = read_json(str(path))
        checked = check_rf_count(document, recount=False)
        if full or not (checked.n == 5 and len(set(checked.z)) > 1):  # n = 5 with another z: an hour, not minutes
            checked = check_rf_count(document)
        z = next((name for name in NAMED_FIXED_POINTS if list(checked.z) == named_fixed_point(name, checked.n)),
                 "(" + ", ".join(map(exact_str, checked.z)) + ")")
        found[path.name] = {"n": checked.n, "eps_exp": exact_str(checked.eps_exp), "z": z,
                            "vertices": checked.vertices, "structures": checked.structures,
                            "recounted": checked.recounted}
    for z, vertices in expected.items():
        at_2 = next((r["vertices"] for r in found.values() if (r["n"], r["eps_exp"], r["z"]) == (5, "2", z)), None)
        if at_2 != vertices:
            failures.append(f"n = 5, e^ε = 2, {z} z: {'no count file' if at_2 is None else f'{at_2:,} vertices'}, "
                            f"expected {vertices:,}")
    counts = "; ".join(f"n = {r['n']}, e^ε = {r['eps_exp']}, {r['z']} z: {r['vertices']:,}"
                       f"{'' if r['recounted'] else ' (totals checked; --full counts again)'}" for r in found.values())
    return Outcome.confirmed_unless(failures, f"{len(found)} counts of R_F checked: {counts}", files=found)


#: The census files whose every orbit beyond.census-preimages maps back to R_F or R_U by default
#: (with --full, the n = 6 files of U and F too).
PREIMAGE_FILES = tuple(f"{polytope}-n5-{tag}.json" for polytope in ("f", "u")
                       for tag in ("e5_4", "e3_2", "e2", "e3", "e5"))


@claim("beyond.census-preimages")
def census_preimages(folder: Path = CENSUS_FOLDER, expected: tuple[str, ...] = PREIMAGE_FILES,
                     full: bool = False) -> Outcome:
    """Every vertex of the censuses of F and U is the image of a vertex of R_F (R_U): Kohli and
    Laskowski's Thms. 3 and 10 at n = 5 (and 6), with Thm. 4, Cor. 2, Thm. 11 and Cor. 5 on the
    preimages.

    Source: Kohli and Laskowski, Thm. 3 (ex(F) ⊆ Ψ·ex(R_F)), Thm. 4 (B ∈ ex(R_F) iff Ψ-affinely
    simplified), Cor. 2 (between |P| and |P| + n − 1 positive entries), Thm. 10 and Thm. 11 (B ∈
    ex(R_U) iff Ψ-linearly simplified), Cor. 5 (at most n positive entries, one per row);
    kohli26.thm3-prop1, thm4, cor2 and thm11-cor5 check them on complete enumerations at n = 3, 4.
    Statement: for every orbit of the census files of F (uniform z) at n = 5, e^ε ∈ {5/4, 3/2, 2, 3,
    5}, 5,008 orbits at e^ε = 2, and of U at n = 5 (and, with --full, F and U at n = 6, e^ε = 2:
    1,455,809 and 20,179 orbits), the listed matrix T is a vertex and some vertex B of R_F (R_U)
    has Ψ·B = T; each such B is Ψ-affinely (linearly) simplified and has as many positive entries as
    Cor. 2 (Cor. 5) allows.
    Method: each file first checked as a census (check_f_census, check_u_census: its format, every
    entry, the sizes); T solved from the entry's steps (polytopes.u_columns.matrix_from_steps) and
    checked to be a vertex by the definition (its tight rows of the H-representation have rank n²); B built
    column by column, each column peeled into linearly independent ε-scales
    (polytopes.representation.preimage, whose docstring proves that B is a vertex); Ψ·B = T
    exactly, and B a vertex of R_F (R_U) (Polytope.is_vertex: the equations' columns on B's
    positive entries independent, i.e. its tight rows of rank 2^(n−1)·n), then Def. 8 (Def. 19) and
    the positive entries counted. The polytopes' symmetries act on T and
    B alike (columns; rows reversed and scales mirrored), so one entry per orbit covers all. About
    15 seconds; with --full about 20 minutes (F at n = 6, about 0.7 ms per orbit).
    Assumptions: the census files in results/ (beyond.f-census and beyond.u-census verify them).
    """
    from polytopes.f_columns import check_f_census
    from polytopes.u_columns import check_u_census
    from qifkit.errors import CertificateError
    from qifkit.files import read_json

    names = [*expected, *(["u-n6-e2.json", "f-n6-e2.json.gz"] if full else [])]
    found: dict[str, Any] = {}
    failures = []
    for name in names:
        path = folder / name
        if not path.exists():
            failures.append(f"{name}: no such census file")
            continue
        document = read_json(str(path))
        if document.get("polytope") == "F" and document.get("z") != "uniform":
            failures.append(f"{name}: F with z {document.get('z')!r}, not the uniform z")
            continue
        try:  # a true census first (its format, every entry a vertex, the sizes): the checks of beyond.*-census
            (check_f_census if document.get("polytope") == "F" else check_u_census)(document)
        except CertificateError as error:
            failures.append(f"{name}: {error}")
            continue
        found[name], failed = _census_preimages(document)
        failures += [f"{name}: {reason}" for reason in failed]
    tallies = "; ".join(f"{r['polytope']} n = {r['n']}, e^ε = {r['eps_exp']}: {r['orbits']:,} orbits, "
                        f"positive entries {r['positive_entries'][0]}..{r['positive_entries'][-1]}"
                        for r in found.values() if r["positive_entries"])
    rest = "" if full else "; U and F at n = 6 with --full"
    return Outcome.confirmed_unless(failures, f"every listed vertex has a vertex preimage, simplified as Thms. 4 "
                                    f"and 11 say, within Cors. 2 and 5: {tallies}{rest}", files=found)


def _census_preimages(document: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Thms. 3/10 with Thm. 4 (or 11) and Cor. 2 (or 5) on every orbit of one census file of F
    (uniform z) or U: the tally, and what failed (named by the entries' steps)."""
    from polytopes import representation
    from polytopes.scales import psi
    from polytopes.u_columns import matrix_from_steps
    from qifkit.numbers import parse_eps_exp
    from qifkit.validation import whole_number

    n, e = whole_number(document.get("n"), 2, "the census's n"), parse_eps_exp(str(document.get("eps_exp")))
    fixed = document.get("polytope") == "F"
    polytope = count_polytope(n, eps_exp=e, fixed=fixed)
    preimages = representation_polytope(n, eps_exp=e, fixed=fixed)
    matrix, z = psi(n, e), [Fraction(1, n)] * n
    low, high = (n, 2 * n - 1) if fixed else (1, n)  # Cor. 2 with |P| = n; Cor. 5
    failures, positives = [], set()
    for orbit in document["orbits"]:
        t = matrix_from_steps(orbit["steps"].split(), n, e, fixed)
        if t is None or not polytope.is_vertex([v for row in t for v in row]):
            failures.append(f"{orbit['steps']}: not a vertex of {polytope.name}")
            continue
        b = representation.preimage(t, e)
        count = representation.positive_entries(b)
        positives.add(count)
        simplified = (representation.affinely_simplified(b, matrix, z) if fixed
                      else representation.linearly_simplified(b, matrix))
        one_per_row = fixed or all(sum(1 for v in row if v) <= 1 for row in b)
        if (representation.apply_psi(matrix, b) != t or not preimages.is_vertex([v for row in b for v in row])
                or not simplified or not low <= count <= high or not one_per_row):
            failures.append(f"{orbit['steps']}: the preimage {b} fails")
    tally = {"polytope": polytope.name, "n": n, "eps_exp": document["eps_exp"], "orbits": len(document["orbits"]),
             "positive_entries": sorted(positives)}
    return tally, failures
