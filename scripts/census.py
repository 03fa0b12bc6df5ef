"""Write the census of the local-DP polytope's vertices (issue 33): one JSON file per (n, e^ε) in
results/, made by the orbit walk (its most degenerate tangent cones decomposed again under their
stabilisers, polytopes.decomposition's default rule) and re-verified from the file's text (read back
as a user reads it) before it is written, with the closure computed the other way (every cone's
rays listed at once); the file written is then read again and must be that text.

Run: ``.venv/bin/python scripts/census.py --n 5 --eps-exp 5/4 3/2 2 3 5`` (about a minute each on
two cores). ``qifkit check --only beyond.ldp-census`` re-checks the files (``--full``: with the
adjacency closure). ``--method faces`` makes the census from the face sets of D's column cone
instead (polytopes.ldp_faces; version 3 files, no adjacency; n = 6), re-checked by enumerating
them again and by the tight and loose rows (polytopes.ldp_rows); ``--method rows`` makes it from
the rows (a second at n = 6), re-checked by the face sets; at n = 7, where only the rows reach
(``--n 7 --eps-exp 2 --method rows``: about 35 seconds, and as long again for the check), by
the rows run again.

``--polytope U`` writes the census of Kohli and Laskowski's U instead, from its columns' steps
(polytopes.u_columns; results/u-n{n}-e{e^ε}.json, one entry per orbit under the column permutations
and the row reversal), every entry re-verified against U's H-representation before it is written:
``.venv/bin/python scripts/census.py --polytope U --n 6 --eps-exp 2`` (a few minutes). ``--polytope F``
does the same for F with the uniform z (polytopes.f_columns; results/f-n{n}-e{e^ε}.json):
``.venv/bin/python scripts/census.py --polytope F --n 5 --eps-exp 5/4 3/2 2 3 5`` (seconds each; ``--n 6
--eps-exp 2``: about 20 minutes, and about 2 more to check its 1.46 million entries before it is written).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from polytopes.census import census_document, check_census
from polytopes.decomposition import Recursion
from polytopes.f_columns import COLUMN_CENSUSES
from polytopes.ldp_faces import ldp_orbits_by_faces
from polytopes.ldp_rows import ldp_orbits_by_rows
from polytopes.normaliz import normaliz_available
from polytopes.orbitwise import enumerate_orbits
from polytopes.spaces import ldp_polytope
from qifkit.files import atomic_write_bytes, gzip_bytes, json_text, read_json
from qifkit.numbers import exact_str, parse_eps_exp

RESULTS = Path(__file__).resolve().parent.parent / "proofs_checks" / "results"


#: A census whose indented text is longer is written gzip-compressed and compact (.json.gz): D at
#: n = 7 is 47 MB as indented text, 376 kB so; qifkit.files.read_json reads both.
COMPRESSED_ABOVE_BYTES = 8_000_000


def census_path(n: int, eps_exp: str, polytope: str = "LDP", compressed: bool = False) -> Path:
    """results/ldp-n{n}-e{e^ε with / as _}.json (u-n… for U, f-n… for F), .json.gz when compressed"""
    suffix = ".json.gz" if compressed else ".json"
    return RESULTS / f"{polytope.lower()}-n{n}-e{exact_str(parse_eps_exp(eps_exp)).replace('/', '_')}{suffix}"


def census_bytes(document: dict) -> tuple[bytes, bool]:
    """The file's bytes: indented JSON text, or compact and gzip-compressed when that text is longer
    than COMPRESSED_ABOVE_BYTES; and whether it was compressed."""
    text = json_text(document, 2)
    if len(text) <= COMPRESSED_ABOVE_BYTES:
        return text.encode("utf-8"), False
    return gzip_bytes(json_text(document, None)), True


def write_column_census(polytope: str, n: int, eps_exp: str) -> None:
    """The census of U or F (uniform z) by its columns' steps, every entry re-verified from the file's text."""
    enumerate_by_columns, document_of, check = COLUMN_CENSUSES[polytope]
    started = time.perf_counter()
    found = enumerate_by_columns(n, eps_exp)
    document = document_of(found, f"python scripts/census.py --polytope {polytope} --n {n} --eps-exp {eps_exp}")
    data, compressed = census_bytes(document)
    checked = check(read_json(data))
    path = census_path(n, eps_exp, polytope, compressed)
    atomic_write_bytes(path, data)
    if path.read_bytes() != data:
        raise SystemExit(f"{path}: the file written is not the census checked")
    print(f"{polytope}, n = {n}, e^ε = {eps_exp}: {checked.count:,} vertices in {checked.orbits} orbits "
          f"({found.seconds:.1f} s; re-checked in {time.perf_counter() - started - found.seconds:.1f} s) -> {path}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--eps-exp", nargs="+", required=True)
    parser.add_argument("--method", choices=("walk", "faces", "rows"), default="walk")
    parser.add_argument("--polytope", choices=("LDP", "U", "F"), default="LDP")
    arguments = parser.parse_args()
    if arguments.polytope in COLUMN_CENSUSES:
        for eps_exp in arguments.eps_exp:
            write_column_census(arguments.polytope, arguments.n, eps_exp)
        return
    cones = "normaliz" if normaliz_available() else "cdd"
    for eps_exp in arguments.eps_exp:
        started = time.perf_counter()
        if arguments.method == "faces":
            found = ldp_orbits_by_faces(arguments.n, eps_exp)
        elif arguments.method == "rows":
            found = ldp_orbits_by_rows(arguments.n, eps_exp)
        else:
            found = enumerate_orbits(
                ldp_polytope(arguments.n, eps_exp=eps_exp), cone_method=cones, recursion=Recursion()
            )
        walked = time.perf_counter() - started
        command = f"python scripts/census.py --n {arguments.n} --eps-exp {eps_exp}" + (
            "" if arguments.method == "walk" else f" --method {arguments.method}"
        )
        document = census_document(found, arguments.n, eps_exp, command)
        document[f"{arguments.method}_seconds"] = round(walked, 1)
        data, compressed = census_bytes(document)
        path = census_path(arguments.n, eps_exp, compressed=compressed)
        # the file's bytes, as read back, with its closure and the enumeration it did not come from (at n = 7,
        # which only the rows reach, the closure is the rows' enumeration run again)
        checked = check_census(read_json(data), closure=True, rows=arguments.method != "rows")
        atomic_write_bytes(path, data)
        if path.read_bytes() != data:
            raise SystemExit(f"{path}: the file written is not the census checked")
        print(
            f"n = {arguments.n}, e^ε = {eps_exp}: {checked.count:,} vertices in {checked.orbits} orbits "
            f"({arguments.method} {walked:.1f} s; re-checked with the closure in "
            f"{time.perf_counter() - started - walked:.1f} s) -> {path}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
