"""A census of the local-DP polytope's vertices as a result file anyone can re-check (issue 33).

Holohan et al. characterise ex(D) for n ≤ 3 and conjecture n = 4; no published source counts the
vertices or orbits at n = 5. The orbit walk (:func:`polytopes.orbitwise.enumerate_orbits`) finds
them; :func:`census_document` writes one representative per orbit, its orbit size, its stabiliser's
order and its (|γ|, |λ|) (Holohan et al.'s column support and loose entries), and the command
that made it. :func:`check_census` re-verifies such a file from its numbers alone:

1. every representative is a vertex of D (in D, tight constraints of rank d, exactly);
2. every representative is its own canonical form under the row × column permutations, and no
   two are equal (the orbits are distinct);
3. every orbit size is |G| / |Stab(v)|, recomputed, and the count is their sum;
4. with ``closure=True``, every neighbour of every representative (the tangent cone's extreme rays
   and an exact ratio test) is in one of the listed orbits: the graph of a polytope is connected,
   so no orbit is missing. This is the long step (one tangent cone per orbit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from polytopes.adjacency import neighbours
from polytopes.classify import gamma, loose_entries
from polytopes.hrep import integer_key, key_point
from polytopes.orbitwise import OrbitEnumeration, orbit_forms
from polytopes.spaces import ldp_polytope
from qifkit.errors import CertificateError
from qifkit.numbers import exact_str, parse_eps_exp, parse_number
from qifkit.validation import whole_number

__all__ = ["CENSUS_FORMAT", "CensusCheck", "census_document", "check_census"]

#: The format tag of a census file (a reader refuses any other).
CENSUS_FORMAT = "qifkit census of the local-DP polytope, version 1"


@dataclass(frozen=True)
class CensusCheck:
    """What :func:`check_census` verified: the vertex count, the orbits, the group's order, and
    whether the adjacency closure was checked (``neighbours`` counted there, else 0)."""

    count: int
    orbits: int
    group_order: int
    closure: bool
    neighbours: int


def census_document(found: OrbitEnumeration, n: int, eps_exp: str, command: str) -> dict[str, Any]:
    """The census file of an orbit walk of ``ldp_polytope(n, eps_exp)`` (JSON data, exact strings),
    the orbits ordered by size, then representative."""
    e = parse_eps_exp(eps_exp)
    orbits = []
    for orbit in sorted(found.orbits, key=lambda o: (-o.size, o.representative)):
        matrix = [list(orbit.representative[i * n:(i + 1) * n]) for i in range(n)]
        orbits.append({
            "representative": [[exact_str(v) for v in row] for row in matrix],
            "size": orbit.size,
            "stabiliser": found.group_order // orbit.size,
            "gamma": len(gamma(matrix)),
            "lambda": len(loose_entries(matrix, e)),
        })
    return {"format": CENSUS_FORMAT, "polytope": "LDP", "n": n, "eps_exp": exact_str(e),
            "group_order": found.group_order, "count": found.count, "orbit_count": len(orbits),
            "orbits": orbits, "command": command}


def check_census(document: Mapping[str, Any], closure: bool = True) -> CensusCheck:
    """Re-verify a census file (see the module docstring), exactly; raise if anything is wrong.

    Raises
    ------
    CertificateError
        Naming the first defect: a representative that is not a vertex or not in canonical form,
        two equal orbits, a wrong size, stabiliser or count, or a neighbour in no listed orbit.
    """
    if not isinstance(document, Mapping) or document.get("format") != CENSUS_FORMAT:
        raise CertificateError(f"not a census file (format must be {CENSUS_FORMAT!r})")
    n = whole_number(document.get("n"), 2, "the census's n", maximum=8, error=CertificateError)
    eps_exp = parse_eps_exp(str(document.get("eps_exp")))
    polytope = ldp_polytope(n, eps_exp)
    forms = orbit_forms(polytope)
    if document.get("group_order") != forms.order:
        raise CertificateError(f"group order {document.get('group_order')} is not |G| = {forms.order}")
    entries = document.get("orbits")
    if not isinstance(entries, list) or not entries:
        raise CertificateError("a census lists its orbits")
    seen: dict[Any, int] = {}
    for index, entry in enumerate(entries):
        where = f"orbit {index + 1}"
        rows = entry.get("representative") if isinstance(entry, Mapping) else None
        if not isinstance(rows, list) or len(rows) != n or any(not isinstance(r, list) or len(r) != n for r in rows):
            raise CertificateError(f"{where}: the representative is not an {n}×{n} matrix")
        point = tuple(parse_number(str(v)) for row in rows for v in row)
        if not polytope.is_vertex(point):
            raise CertificateError(f"{where}: the representative is not a vertex of D (n = {n}, e^ε = {eps_exp})")
        form = forms.canonical(point)
        if form != integer_key(point):
            raise CertificateError(f"{where}: the representative is not the canonical form of its orbit")
        if form in seen:
            raise CertificateError(f"{where} is orbit {seen[form] + 1} again")
        seen[form] = index
        size = forms.orbit_size(form)
        if entry.get("size") != size or entry.get("stabiliser") != forms.order // size:
            raise CertificateError(f"{where}: size {entry.get('size')} and stabiliser {entry.get('stabiliser')}, "
                                   f"but |G| / |Stab| = {forms.order} / {forms.order // size} = {size}")
    total = sum(forms.orbit_size(form) for form in seen)
    if document.get("count") != total or document.get("orbit_count") != len(seen):
        raise CertificateError(f"count {document.get('count')} in {document.get('orbit_count')} orbits, but the "
                               f"orbits hold {total} vertices in {len(seen)} orbits")
    found = 0
    if closure:
        for form, index in seen.items():
            around = neighbours(polytope, key_point(form))
            found += len(around)
            outside = next((point for point in around if forms.canonical(point) not in seen), None)
            if outside is not None:
                raise CertificateError(f"orbit {index + 1} has a neighbour in no listed orbit: "
                                       f"{[exact_str(v) for v in outside]}")
    return CensusCheck(total, len(seen), forms.order, closure, found)
