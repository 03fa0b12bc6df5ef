"""The work behind ``qifkit enumerate``: exact vertex enumeration of the papers' polytopes (cdd,
lrs, Normaliz, orbit-wise, or LDP by column support for larger n), imported only when the command
runs so that the other commands do not load the polytope layer."""

from __future__ import annotations

import argparse
import re
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from polytopes.census import census_document, check_census
from polytopes.enumerate import (
    Enumeration,
    Vertex,
    enumerate_vertices,
    orbits,
    orientation,
    to_ext,
    vertices_document,
)
from polytopes.f_columns import F_COLUMNS_MAX_N
from polytopes.ldp_rows import ROWS_MAX_N
from polytopes.ldp_support import ldp_vertices_by_support
from polytopes.lrs import lrs_available
from polytopes.spaces import count_polytope, ldp_polytope, representation_polytope
from polytopes.u_columns import U_COLUMNS_MAX_N
from proofs_checks.cli.base import (
    EXIT_OK,
    UsageError,
    check_cluster_options,
    dask_session,
    detail_printer,
    progress_printer,
)
from proofs_checks.cli.io import (
    NAMED_FIXED_POINTS,
    check_outputs,
    check_writable_folder,
    fixed_point,
    inside,
    write_document,
    write_json,
)
from qifkit.errors import CertificateError, InternalError
from qifkit.files import json_text, read_json
from qifkit.numbers import exact_str

_POLYTOPES = {
    "LDP": lambda n, e, z: ldp_polytope(n, eps_exp=e),
    "U": lambda n, e, z: count_polytope(n, eps_exp=e),
    "F": lambda n, e, z: count_polytope(n, eps_exp=e, z=z, fixed=True),
    "RU": lambda n, e, z: representation_polytope(n, eps_exp=e),
    "RF": lambda n, e, z: representation_polytope(n, eps_exp=e, z=z, fixed=True),
}


ENUMERATION_MAX_N = {"LDP": 6, "U": 5, "F": 5, "RU": 5, "RF": 5}  # checked before any work (U at n = 6: columns only)

#: Sizes that only a resumable run may take (one that keeps its work in --resume DIR and goes on after
#: a kill): what was measured there (README: R_F at n = 5, n = 6 is not done), and the method a
#: resumable run needs: R_F resumes only as the orbit walk; LDP from n = 5 with any method (the
#: orbit walk, or the decomposition by supports), None.
RESUMABLE_ONLY = {
    ("RF", 5): ("no lister finishes it (Normaliz: no answer in 10 minutes; it has hundreds of millions of vertices) "
                "and a 30-minute orbit walk found 426,123 vertex orbits, 57 new per visit, far from the end; "
                "--method components counts them without listing them", "orbits"),
    ("LDP", 6): ("its tangent cones with 154 to 162 of 216 rows tight finished neither listed (Normaliz, 18 minutes) "
                 "nor decomposed (15 minutes), nor in SymPol (25 CPU minutes); --method rows finishes in seconds and "
                 "--method faces in minutes",
                 None),
}


def run(arguments: argparse.Namespace) -> int:
    outputs = {"--json": arguments.json, "--ine": arguments.ine, "--ext": arguments.ext}
    for option, path in outputs.items():
        if arguments.resume and path and path != "-" and inside(path, arguments.resume) is not None:
            raise UsageError(f"{option} {path} is inside the resume folder {arguments.resume}, which holds only what "
                             "the enumeration keeps there: write it elsewhere")
    check_outputs({"--z-file": arguments.z_file}, outputs)
    given = arguments.z is not None or arguments.z_file is not None
    if given and arguments.polytope not in ("F", "RF"):
        raise UsageError(f"--z/--z-file is the fixed point of F and RF; {arguments.polytope} has none")
    z = None
    if given:
        named = arguments.z in NAMED_FIXED_POINTS
        z, _ = fixed_point(arguments.z, arguments.z_file, arguments.n if named else None, renormalise=False)
        if len(z) != arguments.n:
            raise UsageError(f"the fixed point has {len(z)} entries; --n is {arguments.n}")
        if min(z) <= 0:
            k = z.index(min(z))
            raise UsageError(f"z[{k}] = {z[k]} is not positive; a fixed point must put mass on every count")
    if arguments.resume and Path(arguments.resume).exists() and not Path(arguments.resume).is_dir():
        raise UsageError(f"--resume {arguments.resume}: exists and is not a folder")
    if arguments.resume:
        check_writable_folder(arguments.resume, "--resume")
    by_columns = ((arguments.polytope == "U" and arguments.n == U_COLUMNS_MAX_N)
                  or (arguments.polytope == "F" and 5 <= arguments.n <= F_COLUMNS_MAX_N))
    if arguments.method is None and by_columns and (z is None or len(set(z)) == 1):
        arguments.method = "columns"  # the one method that finishes U at n = 6 and F (uniform z) at n = 5, 6
    if arguments.method == "columns":
        return _enumerate_by_columns(arguments, z)
    if arguments.method == "components":
        return _count_rf_by_components(arguments, z)
    if (arguments.method is None and arguments.polytope == "LDP" and arguments.n >= 5 and arguments.orbits
            and not (arguments.ext or arguments.resume)):
        # the fastest complete method for D's orbits (n = 6: a second, n = 7: under a minute), here or on Dask workers
        arguments.method = "rows"
    if arguments.method in ("faces", "rows"):
        return _enumerate_ldp_orbits(arguments)
    limit = ENUMERATION_MAX_N[arguments.polytope]
    if arguments.n > limit:
        raise UsageError(
            f"--n {arguments.n}: {arguments.polytope} has {arguments.n ** 2} coordinates and its vertex count grows "
            f"faster than exponentially (D: 4, 33, 904, 164,825 vertices at n = 2..5); exact enumeration here stops at "
            f"n = {limit}" + (f" (n = {U_COLUMNS_MAX_N} with --method columns, the default there)"
                              if arguments.polytope == "U" else
                              f" (n = {F_COLUMNS_MAX_N} with --method columns, the default there for the uniform z)"
                              if arguments.polytope == "F" else
                              f" (n = {ROWS_MAX_N} with --orbits, one vertex per orbit by --method rows)"
                              if arguments.polytope == "LDP" else "")
            + ". For larger n, `qifkit construct` builds single vertices of F (Algorithm 1)")
    guard = RESUMABLE_ONLY.get((arguments.polytope, arguments.n))
    if guard is not None and (not arguments.resume or guard[1] not in (None, arguments.method)):
        why, method = guard
        way = "--resume DIR" if method is None else f"--method {method} --resume DIR"
        raise UsageError(f"--n {arguments.n}: {arguments.polytope} at n = {arguments.n} runs for days: {why}. "
                         f"Run it in resumable steps: {way}")
    polytope = _POLYTOPES[arguments.polytope](arguments.n, arguments.eps_exp, z)
    detail_printer(arguments)(f"{polytope.name}: {len(polytope.inequalities)} inequalities and "
                              f"{len(polytope.equalities)} equations on {polytope.dimension_of_space} "
                              f"coordinates, a symmetry group of {len(polytope.symmetries)} generators")
    if arguments.method == "orbits":
        return _enumerate_orbits(arguments, polytope)
    if arguments.workers is not None or arguments.scheduler is not None:
        raise UsageError("--workers and --scheduler spread the work of --method orbits; this enumeration is not split")
    if arguments.recurse is not None:
        raise UsageError("--recurse decomposes the tangent cones of --method orbits; this enumeration has none")
    if arguments.polytope == "LDP" and (arguments.n >= 5 or arguments.resume):
        return _enumerate_ldp_by_support(arguments, polytope)
    if arguments.resume:
        raise UsageError(
            "--resume is for the long runs (LDP with n >= 5, --method orbits); this enumeration is one call"
        )
    if arguments.ine:
        write_document(arguments.ine, polytope.to_ine(), "H-representation")
    method = arguments.method or ("lrs" if arguments.polytope in ("RU", "RF") and lrs_available() else "cdd")
    if method == "lrs" and not lrs_available():
        raise UsageError("--method lrs needs the lrs program (Debian: apt-get install lrslib)")
    if method == "normaliz":
        from polytopes.normaliz import INSTALL_HINT, normaliz_available

        if not normaliz_available():
            raise UsageError(f"--method normaliz needs PyNormaliz: {INSTALL_HINT}")
    enumeration = enumerate_vertices(polytope, method)
    orbit_count = len(orbits(enumeration.vertices, polytope.symmetries)) if arguments.orbits else None
    print(
        f"{polytope.name} n={arguments.n} e^ε={polytope.eps_exp}: {len(enumeration.vertices)} vertices"
        + (f" in {orbit_count} orbits" if orbit_count is not None else "")
        + f" ({enumeration.seconds:.2f} s, exact, {method})"
    )
    if arguments.ext:
        write_document(arguments.ext, to_ext(enumeration), "vertices (cdd .ext)")
    if arguments.json:
        write_json(arguments.json, vertices_document(enumeration, orbit_count), "vertices", indent=1)
    return 0


def _tight_ine_rows(polytope: Any, vertex: Any) -> list[int]:
    """The rows of the polytope's .ine file (1-based, equations first, as ``--ine`` writes it) of the
    inequalities tight at `vertex`."""
    return [len(polytope.equalities) + k + 1 for k in sorted(polytope.tight(vertex))]


def _recursion_rule(text: str) -> Any:
    """``--recurse``'s EXCESS,STABILISER,DEPTH (each a whole number; an empty text: the defaults)."""
    from polytopes.decomposition import Recursion

    if not text:
        return Recursion()
    parts = text.split(",")
    if len(parts) != 3 or not all(re.fullmatch(r"\d{1,6}", part.strip()) for part in parts):
        raise UsageError(f"--recurse {text!r}: give three whole numbers EXCESS,STABILISER,DEPTH, e.g. 60,2,1")
    excess, stabiliser, depth = (int(part) for part in parts)
    return Recursion(excess=excess, stabiliser=stabiliser, depth=depth)


def _enumerate_orbits(arguments: argparse.Namespace, polytope: Any) -> int:
    """``--method orbits``: one vertex per orbit (polytopes.orbitwise), with orbit sizes."""
    from polytopes.normaliz import normaliz_available
    from polytopes.orbitwise import enumerate_orbits

    if arguments.ext:
        raise UsageError("--method orbits lists one vertex per orbit: --ext needs every vertex (use --method cdd, "
                         "normaliz or lrs)")
    check_cluster_options(arguments)
    if arguments.ine:
        write_document(arguments.ine, polytope.to_ine(), "H-representation")
    cone_method = "normaliz" if normaliz_available() else "cdd"
    recursion = None if arguments.recurse is None else _recursion_rule(arguments.recurse)
    progress = progress_printer(arguments, sys.stderr)
    workers = arguments.workers if arguments.workers is not None else (None if arguments.n >= 5 else 1)
    if workers == 1 and arguments.scheduler is None:
        result = enumerate_orbits(polytope, progress=progress, cone_method=cone_method, folder=arguments.resume,
                                  recursion=recursion)
    else:
        with dask_session(arguments, workers) as client:
            result = enumerate_orbits(polytope, progress=progress, cone_method=cone_method, client=client,
                                      folder=arguments.resume, recursion=recursion)
    recalled = "" if not result.recalled else (
        f"; {result.recalled} of {len(result.orbits)} orbits' neighbourhoods read from {arguments.resume} (checked as "
        "written, not recomputed: run without --resume to recompute them)")
    _report_orbits(arguments, result,
                   f"adjacency decomposition: complete, {result.neighbours} neighbours checked{recalled}")
    return EXIT_OK


def _enumerate_ldp_orbits(arguments: argparse.Namespace) -> int:
    """``--method faces`` and ``--method rows``: D's orbits from the face sets of its column cone
    (polytopes.ldp_faces, on Dask workers from n = 6) or from its tight and loose rows (polytopes.ldp_rows,
    on Dask workers when asked); two independent characterisations of D's vertices."""
    from polytopes.ldp_faces import FACES_MAX_N, ldp_orbits_by_faces
    from polytopes.ldp_rows import ldp_orbits_by_rows

    method = arguments.method
    if arguments.polytope != "LDP":
        raise UsageError(f"--method {method} enumerates D (LDP) from the structure of its columns; "
                         f"{arguments.polytope} is not a product of cones cut by its row sums: use --method orbits, "
                         "cdd, lrs or normaliz")
    limit = FACES_MAX_N if method == "faces" else ROWS_MAX_N
    if arguments.n > limit:
        raise UsageError(f"--n {arguments.n}: --method {method} stops at n = {limit}")
    for given, option in ((arguments.resume, "--resume"), (arguments.ext, "--ext"), (arguments.recurse, "--recurse")):
        if given is not None:
            raise UsageError(f"{option} is not an option of --method {method} (one call, one vertex per orbit; n = 6 "
                             f"in {'minutes' if method == 'faces' else 'seconds'})")
    check_cluster_options(arguments)
    spread = arguments.workers is not None or arguments.scheduler is not None
    if method == "rows":  # one process unless workers are asked for: n = 6 in a second, n = 7 in about 35 seconds
        if not spread or (arguments.workers == 1 and arguments.scheduler is None):
            result = ldp_orbits_by_rows(arguments.n, arguments.eps_exp)
        else:
            with dask_session(arguments, arguments.workers) as client:
                result = ldp_orbits_by_rows(arguments.n, arguments.eps_exp, client=client)
        how = "tight and loose rows: complete by the rank criterion"
    else:
        workers = arguments.workers if spread else (None if arguments.n >= 6 else 1)
        if workers == 1 and arguments.scheduler is None:
            result = ldp_orbits_by_faces(arguments.n, arguments.eps_exp)
        else:
            with dask_session(arguments, workers) as client:
                result = ldp_orbits_by_faces(arguments.n, arguments.eps_exp, client)
        how = "face sets of the column cone: complete by the vertex criterion"
    if arguments.ine:
        write_document(arguments.ine, result.polytope.to_ine(), "H-representation")
    _report_orbits(arguments, result, how)
    return EXIT_OK


def _refuse_options(arguments: argparse.Namespace, names: tuple[str, ...], method: str) -> None:
    """A usage error naming the first of these options that was given: `method` has no use for it."""
    for name in names:
        if getattr(arguments, name) not in (None, False):
            raise UsageError(f"--{name} is not an option of {method}")


def _enumerate_by_columns(arguments: argparse.Namespace, z: list[Fraction] | None) -> int:
    """``--method columns``: every vertex of U, or of F with the uniform z, from its columns' tight
    steps (polytopes.u_columns, polytopes.f_columns), one entry per orbit under the column
    permutations and the row reversal; --json writes the census file of results/ (check_u_census,
    check_f_census), checked as a reader loads it before it is written."""
    from polytopes.f_columns import COLUMN_CENSUSES

    polytope = arguments.polytope
    if polytope not in ("U", "F"):
        raise UsageError(f"--method columns enumerates U and F from the tight steps of their columns; {polytope} "
                         "is neither: use --method orbits, cdd, lrs or normaliz")
    if polytope == "F" and z is not None and len(set(z)) != 1:
        raise UsageError(f"--method columns enumerates F with the uniform z (its columns are then interchangeable), "
                         f"not z = ({', '.join(map(exact_str, z))}): use --method orbits, cdd, lrs or normaliz")
    limit, work = ((U_COLUMNS_MAX_N, "n = 6 visits 5.3 million sets of steps in about 2 minutes, 156 times n = 5's")
                   if polytope == "U" else
                   (F_COLUMNS_MAX_N, "n = 6 considers 6·10^9 multisets of steps in about 20 minutes"))
    if arguments.n > limit:
        raise UsageError(f"--n {arguments.n}: --method columns stops at n = {limit} for {polytope} ({work}; "
                         f"n = {limit + 1} would take hours)")
    _refuse_options(arguments, ("resume", "ext", "recurse", "workers", "scheduler"),
                    "--method columns (one call in this process, one entry per orbit)")
    if arguments.ine:
        write_document(arguments.ine, count_polytope(arguments.n, eps_exp=arguments.eps_exp,
                                                     fixed=polytope == "F").to_ine(), "H-representation")
    enumerate_by_columns, document_of, check = COLUMN_CENSUSES[polytope]
    found = enumerate_by_columns(arguments.n, arguments.eps_exp)
    command = f"qifkit enumerate {polytope} --n {arguments.n} --eps-exp {arguments.eps_exp} --method columns"
    document = document_of(found, command)
    print(f"{polytope}{' (uniform z)' if polytope == 'F' else ''} n={arguments.n} e^ε={found.eps_exp}: "
          f"{found.vertex_count} vertices in {len(document['orbits'])} orbits under a group of order "
          f"{document['group_order']} ({found.seconds:.2f} s, exact, columns' tight steps: complete by the "
          f"independence criterion, {found.visited} step sets tried)")
    if arguments.json:
        text = json_text(document, None)
        try:
            check(read_json(text.encode("utf-8")))
        except CertificateError as error:  # our enumeration or writer broke: nothing is written
            raise InternalError(f"the census about to be written fails its own check: {error}") from None
        write_document(arguments.json, text, f"census of {polytope}")
    return EXIT_OK


def _count_rf_by_components(arguments: argparse.Namespace, z: list[Fraction] | None) -> int:
    """``--method components``: |ex(R_F)| counted by its components (polytopes.rf_components),
    with the table by core; --json writes the count file of results/ (check_rf_count), checked as a
    reader loads it before it is written."""
    from polytopes.rf_components import RF_COMPONENTS_MAX_N, check_rf_count, rf_count_document, rf_vertex_count

    if arguments.polytope != "RF":
        raise UsageError(f"--method components counts the vertices of RF by their components; {arguments.polytope} "
                         "is not RF: use --method orbits, cdd, lrs or normaliz")
    if arguments.n > RF_COMPONENTS_MAX_N:
        raise UsageError(f"--n {arguments.n}: --method components stops at n = {RF_COMPONENTS_MAX_N} (n = 5 decides "
                         "about 4 million candidates in minutes; n = 6 has 32 scales)")
    _refuse_options(arguments, ("resume", "ext", "ine", "recurse", "workers", "scheduler", "orbits"),
                    "--method components (one call in this process; it counts the vertices and lists none)")
    found = rf_vertex_count(arguments.n, arguments.eps_exp, z=z)
    command = f"qifkit enumerate RF --n {arguments.n} --eps-exp {arguments.eps_exp} --method components"
    if arguments.z is not None:
        command += f" --z {arguments.z}"
    if arguments.z_file is not None:
        command += f" --z-file {arguments.z_file}"
    document = rf_count_document(found, command)
    print(f"RF n={arguments.n} e^ε={exact_str(found.eps_exp)}, z = ({', '.join(map(exact_str, found.z))}): "
          f"{found.vertices:,} vertices, {found.structures:,} sets of components up to permutations of columns of "
          f"equal weight ({found.seconds:.1f} s; floats searched, {found.decided_exactly:,} candidates decided "
          "exactly)")
    detail = detail_printer(arguments)
    for row in document["by_core"]:
        detail(f"core {tuple(row['core'])}: {row['cores']:,} cores, {row['structures']:,} sets, "
               f"{row['vertices']:,} vertices")
    if arguments.json:
        text = json_text(document, None)
        try:
            check_rf_count(read_json(text.encode("utf-8")), found)
        except CertificateError as error:  # our count or writer broke: nothing is written
            raise InternalError(f"the count about to be written fails its own check: {error}") from None
        write_document(arguments.json, text, "count of R_F")
    return EXIT_OK


def _report_orbits(arguments: argparse.Namespace, result: Any, how: str) -> None:
    """The summary line, one detail line per orbit, and the --json document of an orbit enumeration."""
    polytope = result.polytope
    print(f"{polytope.name} n={arguments.n} e^ε={polytope.eps_exp}: {result.count} vertices in {len(result.orbits)} "
          f"orbits under a group of order {result.group_order} ({result.seconds:.2f} s, exact, {how})")
    detail = detail_printer(arguments)
    for number, orbit in enumerate(result.orbits, start=1):
        detail(f"orbit {number}: {orbit.size} vertices, e.g. ({', '.join(str(v) for v in orbit.representative)})")
    if arguments.json and polytope.name.startswith("LDP"):  # one census format: that of results/ (check_census)
        command = f"qifkit enumerate LDP --n {arguments.n} --eps-exp {arguments.eps_exp} --method {arguments.method}"
        document = census_document(result, arguments.n, str(polytope.eps_exp), command) | {
            "neighbours_checked": result.neighbours, "neighbourhoods_from_resume_folder": result.recalled,
            "seconds": round(result.seconds, 4)}
        text = json_text(document, 2)
        # the text as a reader loads it: every representative a vertex in canonical form, sizes, stabilisers,
        # (|γ|, |λ|) and counts (n = 6: 9 s beside minutes of enumeration; the closure is the run just done)
        try:
            check_census(read_json(text.encode("utf-8")), closure=False)
        except CertificateError as error:  # our enumeration or writer broke: nothing is written
            raise InternalError(f"the census about to be written fails its own check: {error}") from None
        write_document(arguments.json, text, "census of orbits")
    elif arguments.json:
        document = {"polytope": polytope.name, "n": arguments.n, "eps_exp": str(polytope.eps_exp),
                    "z": None if polytope.z is None else [str(v) for v in polytope.z], "count": result.count,
                    "orbits": len(result.orbits), "group_order": result.group_order,
                    "shape": list(polytope.shape), "orientation": orientation(polytope),
                    "representatives": [{"id": number, "size": orbit.size,
                                         "vertex": [str(v) for v in orbit.representative],
                                         "tight_ine_rows": _tight_ine_rows(polytope, orbit.representative)}
                                        for number, orbit in enumerate(result.orbits, start=1)],
                    "neighbours_checked": result.neighbours,
                    "neighbourhoods_from_resume_folder": result.recalled,
                    "seconds": round(result.seconds, 4)}
        write_json(arguments.json, document, "orbit representatives")


def _enumerate_ldp_by_support(arguments: argparse.Namespace, polytope: Any) -> int:
    """D for larger n: block by block over column supports, resumable (polytopes.ldp_support)."""
    start = time.perf_counter()
    vertices, by_size = ldp_vertices_by_support(arguments.n, arguments.eps_exp, arguments.resume,
                                                progress=progress_printer(arguments, sys.stdout),
                                                face_method=arguments.method)
    ordered = sorted(vertices)
    flat = [Vertex(tuple(v for row in m for v in row), frozenset()) for m in ordered]
    orbit_count = len(orbits(flat, polytope.symmetries)) if arguments.orbits else None
    seconds = time.perf_counter() - start
    print(f"LDP n={arguments.n} e^ε={polytope.eps_exp}: {len(ordered)} vertices"
          + (f" in {orbit_count} orbits" if orbit_count is not None else "") + f" ({seconds:.1f} s, exact, by support)")
    enumeration = Enumeration(polytope, tuple(flat), seconds)
    if arguments.ext:
        write_document(arguments.ext, to_ext(enumeration), "vertices (cdd .ext)")
    if arguments.json:
        write_json(arguments.json, vertices_document(enumeration, orbit_count), "vertices", indent=None)
    return 0


