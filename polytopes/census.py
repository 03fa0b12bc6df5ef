"""A census of the local-DP polytope's vertices as a result file anyone can re-check (issue 33).

Holohan et al. characterise ex(D) for n ≤ 3 and conjecture n = 4; no published source counts the
vertices or orbits at n = 5. The orbit walk (:func:`polytopes.orbitwise.enumerate_orbits`) finds
them; :func:`census_document` writes one representative per orbit, its orbit size, its stabiliser's
order, its (|γ|, |λ|) (Holohan et al.'s column support and loose entries), its number of tight
inequalities and the orbits adjacent to it (the polytope's graph up to symmetry), and the command
that made it. :func:`check_census` re-verifies such a file from its numbers alone:

1. every representative is a vertex of D (in D, tight constraints of rank d, exactly);
2. every representative is its own canonical form under the row × column permutations, and no
   two are equal (the orbits are distinct);
3. every orbit size is |G| / |Stab(v)|, recomputed, and so is the stabiliser's order; the count
   is their sum and the orbit count their number; each orbit's (|γ|, |λ|) is the representative's;
4. (version 2) each orbit's number of tight inequalities is the representative's, and its list of
   adjacent orbits names listed orbits, symmetrically, and joins them all (a polytope's graph is
   connected);
5. with ``closure=True``, every neighbour of every representative (the tangent cone's extreme rays
   and an exact ratio test) is in one of the listed orbits: the graph of a polytope is connected,
   so no orbit is missing; and (version 2) the orbits its neighbours lie in are the listed
   adjacent orbits. This is the long step (one tangent cone per orbit).

Version 3 files come from the face sets of D's column cone (:mod:`polytopes.ldp_faces`, which
reaches n = 6, where no tangent cone of the hard orbits finishes): no adjacency, and their
completeness rests on the vertex criterion, so with ``closure=True`` the face-set enumeration is
run again and must give exactly the listed orbits and sizes. With ``recount=True`` that
enumeration is run for a file of any version (seconds at n ≤ 5): a file that leaves out an orbit
and keeps its totals and adjacency consistent is then refused without the tangent cones. With
``rows=True`` the vertices are enumerated a second, independent way, from tight and loose rows
(:mod:`polytopes.ldp_rows`: n = 6 in about 15 s), and must again give exactly the listed orbits and
sizes: completeness argued twice. Beyond the face sets' reach (n = 7) the rows stand in for them:
there the closure and the recount are the rows' enumeration, and the check says so
(``CensusCheck.recounted`` false, ``rows`` true).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from polytopes.adjacency import neighbours
from polytopes.classify import gamma, loose_entries
from polytopes.hrep import integer_key, key_point
from polytopes.ldp_faces import FACES_MAX_N
from polytopes.orbitwise import OrbitEnumeration, orbit_forms
from polytopes.spaces import ldp_polytope
from qifkit.errors import CertificateError
from qifkit.numbers import exact_str, parse_eps_exp, parse_number
from qifkit.validation import whole_number

__all__ = ["CENSUS_FORMAT", "FACES_CENSUS_FORMAT", "CensusCheck", "census_document", "check_census"]

#: The format tag of the census files written now: version 2 adds each orbit's number of tight
#: inequalities and the orbits adjacent to it. Version 1 files (without them) are still read.
CENSUS_FORMAT = "qifkit census of the local-DP polytope, version 2"

#: The format tag of a census made from the face sets (:mod:`polytopes.ldp_faces`): version 2
#: without the adjacency, which no tangent cone computed.
FACES_CENSUS_FORMAT = "qifkit census of the local-DP polytope, version 3 (face sets)"
_READ_FORMATS = (CENSUS_FORMAT, FACES_CENSUS_FORMAT, "qifkit census of the local-DP polytope, version 1")


@dataclass(frozen=True)
class CensusCheck:
    """What :func:`check_census` verified: the vertex count, the orbits, the group's order,
    whether the closure was checked (``neighbours`` counted there, else 0), whether the face
    sets were enumerated again and compared orbit by orbit, and whether the tight and loose rows
    were."""

    count: int
    orbits: int
    group_order: int
    closure: bool
    neighbours: int
    recounted: bool = False
    rows: bool = False


def census_document(found: OrbitEnumeration, n: int, eps_exp: str, command: str) -> dict[str, Any]:
    """The census file of an orbit walk of ``ldp_polytope(n, eps_exp=eps_exp)`` (JSON data, exact strings),
    the orbits ordered by size, then representative; of version 3 (no adjacency) when `found`
    has none (:func:`polytopes.ldp_faces.ldp_orbits_by_faces`)."""
    e = parse_eps_exp(eps_exp)
    order = sorted(range(len(found.orbits)), key=lambda k: (-found.orbits[k].size, found.orbits[k].representative))
    number = {k: place + 1 for place, k in enumerate(order)}
    orbits = []
    for k in order:
        orbit = found.orbits[k]
        matrix = [list(orbit.representative[i * n:(i + 1) * n]) for i in range(n)]
        orbits.append({
            "representative": [[exact_str(v) for v in row] for row in matrix],
            "size": orbit.size,
            "stabiliser": found.group_order // orbit.size,
            "gamma": len(gamma(matrix)),
            "lambda": len(loose_entries(matrix, e)),
            "tight": len(found.polytope.tight(orbit.representative)),
        })
        if found.adjacency:
            orbits[-1]["adjacent"] = sorted(number[other] for other in found.adjacency[k])
    return {"format": CENSUS_FORMAT if found.adjacency else FACES_CENSUS_FORMAT, "polytope": "LDP", "n": n,
            "eps_exp": exact_str(e),
            "group_order": found.group_order, "count": found.count, "orbit_count": len(orbits),
            "orbits": orbits, "command": command}


def check_census(document: Mapping[str, Any], closure: bool = True, recount: bool = False,
                 rows: bool = False) -> CensusCheck:
    """Re-verify a census file (see the module docstring), exactly; raise if anything is wrong.

    Parameters
    ----------
    document : mapping
        The census file as read (JSON data).
    closure : bool
        Check completeness by the file's own kind of closure: the adjacency closure (version 2)
        or the face-set enumeration run again (version 3).
    recount : bool
        Also enumerate the face sets again, whatever the file's version, and compare orbit by
        orbit: no file of any version can then leave out an orbit (seconds at n ≤ 5; at n = 7 the
        rows instead).
    rows : bool
        Also enumerate the vertices from tight and loose rows (:func:`polytopes.ldp_rows.ldp_orbits_by_rows`,
        independent of the face sets and of the tangent cones) and compare orbit by orbit.

    Raises
    ------
    CertificateError
        Naming the first defect: a representative that is not a vertex or not in canonical form,
        two equal orbits, a wrong size, stabiliser, (|γ|, |λ|), tight count, orbit count or
        count, a neighbour in no listed orbit, or orbits the face sets or the rows do not find again.
    """
    if not isinstance(document, Mapping) or document.get("format") not in _READ_FORMATS:
        raise CertificateError(f"not a census file (format must be {CENSUS_FORMAT!r})")
    with_adjacency = document["format"] == CENSUS_FORMAT
    with_tight = document["format"] in (CENSUS_FORMAT, FACES_CENSUS_FORMAT)
    n = whole_number(document.get("n"), 2, "the census's n", maximum=8, error=CertificateError)
    eps_exp = parse_eps_exp(str(document.get("eps_exp")))
    polytope = ldp_polytope(n, eps_exp=eps_exp)
    forms = orbit_forms(polytope)
    if document.get("group_order") != forms.order:
        raise CertificateError(f"group order {document.get('group_order')} is not |G| = {forms.order}")
    entries = document.get("orbits")
    if not isinstance(entries, list) or not entries:
        raise CertificateError("a census lists its orbits")
    seen: dict[Any, int] = {}
    sizes: dict[Any, int] = {}
    for index, entry in enumerate(entries):
        where = f"orbit {index + 1}"
        written = entry.get("representative") if isinstance(entry, Mapping) else None
        if (not isinstance(written, list) or len(written) != n
                or any(not isinstance(r, list) or len(r) != n for r in written)):
            raise CertificateError(f"{where}: the representative is not an {n}×{n} matrix")
        point = tuple(parse_number(str(v)) for row in written for v in row)
        tight = polytope.tight(point)
        if not polytope.is_vertex(point, tight):
            raise CertificateError(f"{where}: the representative is not a vertex of D (n = {n}, e^ε = {eps_exp})")
        form = forms.canonical(point)
        if form != integer_key(point):
            raise CertificateError(f"{where}: the representative is not the canonical form of its orbit")
        if form in seen:
            raise CertificateError(f"{where} is orbit {seen[form] + 1} again")
        seen[form] = index
        size = sizes[form] = forms.orbit_size(form)
        if entry.get("size") != size or entry.get("stabiliser") != forms.order // size:
            raise CertificateError(f"{where}: size {entry.get('size')} and stabiliser {entry.get('stabiliser')}, "
                                   f"but |G| / |Stab| = {forms.order} / {forms.order // size} = {size}")
        if with_tight and entry.get("tight") != len(tight):
            raise CertificateError(f"{where}: {entry.get('tight')} tight inequalities listed, "
                                   f"{len(tight)} at the representative")
        matrix = [list(point[i * n:(i + 1) * n]) for i in range(n)]
        shape = (len(gamma(matrix)), len(loose_entries(matrix, eps_exp)))
        if (entry.get("gamma"), entry.get("lambda")) != shape:
            raise CertificateError(f"{where}: (|γ|, |λ|) = ({entry.get('gamma')}, {entry.get('lambda')}) listed, "
                                   f"{shape} at the representative")
    total = sum(sizes.values())
    if document.get("count") != total or document.get("orbit_count") != len(seen):
        raise CertificateError(f"count {document.get('count')} in {document.get('orbit_count')} orbits, but the "
                               f"orbits hold {total} vertices in {len(seen)} orbits")
    adjacent = _adjacency(entries) if with_adjacency else None
    found = 0
    recounted = recount or (closure and document["format"] == FACES_CENSUS_FORMAT)
    if recounted and n > FACES_MAX_N:  # n = 7: the rows are the one complete enumeration that reaches it
        recounted, rows = False, True
    if recounted:
        from polytopes.ldp_faces import ldp_orbits_by_faces
        _recounted("the face sets", ldp_orbits_by_faces(n, eps_exp), forms, seen, sizes)
    if rows:
        from polytopes.ldp_rows import ldp_orbits_by_rows
        _recounted("the tight and loose rows", ldp_orbits_by_rows(n, eps_exp), forms, seen, sizes)
    if closure and document["format"] != FACES_CENSUS_FORMAT:
        for form, index in seen.items():
            around = neighbours(polytope, key_point(form))
            found += len(around)
            placed = {point: forms.canonical(point) for point in around}
            outside = next((point for point, other in placed.items() if other not in seen), None)
            if outside is not None:
                raise CertificateError(f"orbit {index + 1} has a neighbour in no listed orbit: "
                                       f"{[exact_str(v) for v in outside]}")
            reached = {seen[other] + 1 for other in placed.values()}
            if adjacent is not None and reached != adjacent[index]:
                raise CertificateError(f"orbit {index + 1} lists the adjacent orbits {sorted(adjacent[index])}; its "
                                       f"representative's neighbours lie in {sorted(reached)}")
    return CensusCheck(total, len(seen), forms.order, closure, found, recounted, rows)


def _recounted(method: str, found: OrbitEnumeration, forms: Any, seen: dict[Any, int], sizes: dict[Any, int]) -> None:
    """The vertices enumerated again (`found`, by the face sets of D's column cone or by tight and
    loose rows): they must give exactly the listed orbits with the listed sizes."""
    again = {forms.canonical(orbit.representative): orbit.size for orbit in found.orbits}
    if again != sizes:
        missing = sorted(seen[form] + 1 for form in set(seen) - set(again))
        raise CertificateError(f"{method}, enumerated again, give {len(again)} orbits; the file lists "
                               f"{len(seen)} (orbits not found again: {missing[:10]}; "
                               f"{len(set(again) - set(seen))} orbits found that the file does not list)")


def _adjacency(entries: list[Any]) -> list[set[int]]:
    """Each orbit's listed adjacent orbits (numbers from 1), checked to name listed orbits, to be
    symmetric (an edge joins two orbits both ways) and to join all orbits (a polytope's graph is
    connected)."""
    count = len(entries)
    adjacent = []
    for index, entry in enumerate(entries):
        listed = entry.get("adjacent")
        if (not isinstance(listed, list) or not listed
                or not all(isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= count for k in listed)):
            raise CertificateError(f"orbit {index + 1}: its adjacent orbits must be orbit numbers 1..{count}")
        adjacent.append(set(listed))
    for index, listed in enumerate(adjacent):
        one_way = next((k for k in sorted(listed) if index + 1 not in adjacent[k - 1]), None)
        if one_way is not None:
            raise CertificateError(f"orbit {index + 1} lists orbit {one_way} as adjacent, but not the other way round")
    reached, frontier = {1}, [1]
    while frontier:
        for k in adjacent[frontier.pop() - 1] - reached:
            reached.add(k)
            frontier.append(k)
    if len(reached) != count:
        raise CertificateError(f"the adjacent orbits do not join orbit {min(set(range(1, count + 1)) - reached)} to "
                               "orbit 1: a polytope's graph is connected")
    return adjacent
