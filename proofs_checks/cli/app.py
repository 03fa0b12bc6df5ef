"""The ``qifkit`` console command: its parser and dispatch. The work of each command lives in its own
module of this package (:mod:`~proofs_checks.cli.check`, ``refine``, ``verify``, ``stability``,
``enumerate``, ``construct``, ``design``, ``examples``, each with a ``run(arguments)``), imported only once the
command runs, so ``qifkit --help`` and ``qifkit --version`` answer in well under a second and a
command loads only what it needs. Usage errors (unreadable files, malformed CSV or JSON, unknown
ids) exit 2 with one line on stderr; the statuses are listed in :func:`main`.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proofs_checks.cli.base import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, documents_to_stdout
from proofs_checks.cli.streams import OutputError, guarded_streams
from qifkit import __version__
from qifkit.errors import InternalError, QifError

__all__ = ["main"]

# The parser's choices, written here so that building it imports no numeric layer; the polytope
# names, selectors and properties are compared with their homes (proofs_checks.cli.enumerate,
# polytopes.fixed_point, polytopes.constrained) in tests/test_cli.py. CONSTRUCT_METHODS is the home
# of construct's method names.
POLYTOPE_NAMES = ("F", "LDP", "RF", "RU", "U")
CONSTRUCT_METHODS = ("alg1", "alg2", "lp-fixed", "lp-unfixed")
SELECTORS = ("max", "min", "sandwich")
PROPERTIES = ("RH", "RM", "CH", "CM", "F", "WH", "S")


def _positive_seconds(text: str) -> float:
    """A time limit in seconds: a number > 0 as :func:`qifkit.numbers.parse_number` reads it (ASCII
    digits, ``"90"``, ``"2.5"``, ``"1e3"``), at most a year (argparse reports the refusal, exit 2)."""
    from qifkit.numbers import parse_number

    try:
        value = parse_number(text)
    except QifError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (ASCII digits, e.g. 90 or 2.5)") \
            from None
    if not 0 < value <= 366 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: a time limit must be a number of seconds > 0, at most a year")
    return float(value)


def _whole(text: str) -> int:
    """A whole number option (``--n``, ``--workers``, ...): ASCII digits only, at most nine of them;
    Python's int() would also take full-width and Arabic-Indic digits and ``"1_0"`` (argparse reports the
    refusal, exit 2)."""
    if re.fullmatch(r"-[0-9]+", text):
        raise argparse.ArgumentTypeError(f"{text!r} is negative: give a whole number >= 0")
    if not re.fullmatch(r"[0-9]{1,9}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number written in ASCII digits (at most 9)")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qifkit", description="Exact verification of privacy mechanisms.")
    parser.add_argument("--version", action="version", version=f"qifkit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="confirm the claims of the papers, exactly")
    check.add_argument("--only", nargs="+", metavar="GLOB", help="run only the ids matching these globs")
    check.add_argument("--json", metavar="FILE", help="write the report as JSON (atomically)")
    check.add_argument("--list", action="store_true", help="list every registered id with its source")
    check.add_argument("--markdown", metavar="FILE", help="write a browsable report, errata first (atomically)")
    check.add_argument("--full", action="store_true", help="run the long variants (wider grids, larger n)")
    _add_cluster_options(check, "run the checks side by side", "")
    check.set_defaults(module="check")
    refine = commands.add_parser("refine", help="decide A ⊑ B exactly, with a certificate")
    refine.add_argument("a", metavar="A.csv", help="channel A (one row per secret, exact numbers)")
    refine.add_argument("b", metavar="B.csv", help="channel B on the same secrets")
    refine.add_argument("--json", metavar="FILE", help="write the certificate as JSON (atomically)")
    refine.set_defaults(module="refine")
    verify = commands.add_parser("verify", help="re-check a refinement certificate exactly")
    verify.add_argument("a", metavar="A.csv", help="channel A, or the spec with --range-proof")
    verify.add_argument("b", metavar="B.csv", nargs="?")
    verify.add_argument("certificate", metavar="CERT.json", nargs="?")
    verify.add_argument("--range-proof", metavar="PROOF.json",
                        help="re-check a range proof of qifkit stability against its spec: verify --range-proof "
                        "range-proof.json SPEC.toml")
    verify.add_argument("--instability", metavar="INSTABILITY.json",
                        help="re-check an instability of qifkit stability whose pipelines were too large to write, "
                        "from its spec: verify --instability instability.json SPEC.toml")
    verify.set_defaults(module="verify")
    stability = commands.add_parser("stability", help="gate a pipeline on its stability over a grid or range of e^ε",
                                    description="Exit 0 stable (certified), 1 NOT stable (certified instability), "
                                    "4 not decided, 2 bad input. qifkit examples copies example specs into a folder.")
    stability.add_argument("spec", metavar="SPEC.toml")
    stability.add_argument("--json", metavar="FILE", help="write the report as JSON (atomically)")
    stability.add_argument("--certificate", metavar="DIR",
                           help="write the certificates for qifkit verify into DIR (created if missing)")
    stability.add_argument("--time-limit", metavar="SECONDS", type=_positive_seconds,
                           help="stop after SECONDS, anywhere in a route (a call inside a C library returns first): "
                           "an instability certified by then stands, else exit 4 with the partial report")
    stability.add_argument("--plot", metavar="FILE.png|.svg|.pdf",
                           help="draw the analyst's loss against e^ε, the rising stretches shaded (needs matplotlib)")
    stability.add_argument("--list-secrets", action="store_true",
                           help="list the spec's secrets in the order a prior.csv or loss.csv gives them, and stop")
    stability.set_defaults(module="stability")
    copy = commands.add_parser("examples", help="copy the example specs shipped with qifkit into a new folder")
    copy.add_argument("folder", metavar="DIR", nargs="?", default="qifkit-examples",
                          help="the folder to create (default: qifkit-examples); it must not exist")
    copy.add_argument("--list", action="store_true", help="name each example with its first line, copy nothing")
    copy.set_defaults(module="examples")
    enumerate_ = commands.add_parser("enumerate", help="enumerate the vertices of a DP polytope exactly")
    enumerate_.add_argument("polytope", choices=POLYTOPE_NAMES)
    enumerate_.add_argument("--n", type=_whole, required=True, help="number of values (n >= 2)")
    enumerate_.add_argument("--eps-exp", required=True, help='e^ε as "2", "7/2" or "ln(2)"')
    enumerate_.add_argument("--z", help='the fixed point of F and RF, e.g. "1/3,1/3,1/3", or "uniform" (the '
                            'default) or "binomial"')
    enumerate_.add_argument("--z-file", metavar="Z.csv|Z.npy", help="the fixed point of F and RF from a file")
    enumerate_.add_argument("--orbits", action="store_true", help="count the orbits under the symmetry group")
    enumerate_.add_argument("--json", metavar="FILE", help="write the vertices as JSON (atomically)")
    enumerate_.add_argument("--ine", metavar="FILE", help="write the H-representation (cdd .ine)")
    enumerate_.add_argument("--ext", metavar="FILE", help="write the vertices (cdd .ext)")
    enumerate_.add_argument("--method", choices=("cdd", "lrs", "normaliz", "orbits", "faces", "rows", "columns",
                                                   "components"),
                            help="vertex enumerator (default: rows for LDP --orbits from n = 5, lrs for RU and RF when "
                            "installed, else cdd); normaliz: Normaliz's exact algorithms; orbits: one vertex per "
                            "orbit by adjacency decomposition, complete by construction (LDP n = 5 in about 15 s); "
                            "faces (LDP only): one vertex per orbit from the faces of the column cone (n = 5 in 1 s, "
                            "n = 6 in minutes); rows (LDP only): one vertex per orbit from its tight and loose rows "
                            "(n = 6 in a second, n = 7 in minutes; on Dask with --workers); columns (U, and F with a "
                            "uniform z; the default for U at n = 6 and F at n = 5): every vertex from its columns' "
                            "tight steps, one entry per orbit under the column permutations and the row reversal "
                            "(U n = 6 in minutes, F n = 5 in under a minute); components (RF "
                            "only): the number of vertices from their components, without listing them (n = 5 in "
                            "minutes)")
    enumerate_.add_argument(
        "--resume",
        metavar="DIR",
        help="keep finished units (LDP's support blocks, the orbit walk's "
        "neighbourhoods) in DIR and reuse them: a killed run goes on",
    )
    enumerate_.add_argument("--recurse", nargs="?", const="", metavar="EXCESS,STABILISER,DEPTH",
                            help="orbits: decompose a degenerate vertex's tangent cone again under its stabiliser "
                            "when it has EXCESS more tight rows than the dimension, a stabiliser of at least "
                            "STABILISER elements and fewer than DEPTH levels above it (default 60,2,1)")
    _add_cluster_options(enumerate_, "orbits: run the representatives' neighbourhoods (faces, rows: their tasks)",
                         " (default: one per core for n >= 5, rows in this process; 1 = in this process)")
    enumerate_.set_defaults(module="enumerate")
    _add_design_commands(commands)
    for name, command in commands.choices.items():
        command.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
        talk = command.add_mutually_exclusive_group()
        talk.add_argument("-q", "--quiet", action="store_true",
                          help="no progress lines: only results, verdicts and errors (e.g. in a CI gate)")
        talk.add_argument("-v", "--verbose", action="store_true",
                          help="also say how each answer was reached (the route that certified it, sizes, seconds)")
        description, examples = _GUIDE[name]
        command.description = textwrap.fill(
            description + (f" {command.description}" if command.description else ""), 78
        )
        command.epilog = "examples:\n" + "\n".join(f"  {example}" for example in examples)
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


#: What each command does and how it is called, for its --help (the examples are parsed by a test).
_GUIDE: dict[str, tuple[str, tuple[str, ...]]] = {
    "check": ("Run the registered checks of the papers' claims, exactly, and report each verdict.",
              ("qifkit check", "qifkit check --only 'alvim23.*' --markdown report.md")),
    "refine": ("Decide whether A ⊑ B (B is a post-processing of A) exactly; exit 0 with a witness W (A·W = B) "
               "or 1 with a prior and a loss that B serves better.",
               ("qifkit refine A.csv B.csv --json cert.json",)),
    "verify": ("Re-check a refinement certificate with exact arithmetic only; exit 0 when it is valid. Channels "
               "whose witness (A's outputs × B's outputs) would exceed 4,000,000 entries, refine's own limit, are "
               "refused before the certificate is read.",
               ("qifkit verify A.csv B.csv cert.json", "qifkit verify --range-proof certs/range-proof.json spec.toml")),
    "stability": ("Gate a privacy pipeline: does a more private perturber always give a less useful pipeline?",
                  ("qifkit stability examples/survey_rr.toml --certificate certs/ --json report.json",
                   "qifkit stability examples/appd1_range.toml --time-limit 600")),
    "examples": ("Copy the example specs of the README (stability gates, your own perturber) into a new folder.",
                 ("qifkit examples", "qifkit examples my-specs",
                  "qifkit examples --list")),
    "enumerate": ("Enumerate the vertices of a DP mechanism polytope exactly (cddlib, lrs or Normaliz), or one "
                  "vertex per orbit (on Dask for n >= 5).",
                  ("qifkit enumerate LDP --n 4 --eps-exp 2 --orbits",
                   "qifkit enumerate F --n 4 --eps-exp 3/2 --z binomial --json vertices.json",
                   "qifkit enumerate LDP --n 5 --eps-exp 2 --method orbits --scheduler tcp://HOST:8786")),
    "construct": ("Build a count mechanism with a fixed point z (Kohli and Laskowski), verified.",
                  ("qifkit construct --z uniform --n 100 --eps-exp 2",
                   "qifkit construct --z binomial --n 2000 --eps-exp 5 --float --out T.npy")),
    "design": ("Cormode et al.'s constrained count mechanisms: a named one, or the exact optimum of their LP.",
               ("qifkit design --max-count 10 --alpha 9/10 --props RH,CH,F",
                "qifkit design --n 5 --alpha 1/2 --mechanism gm",
                "qifkit design --max-count 4 --eps-exp 11/10 --props F --out em.csv")),
}


def _add_cluster_options(command: argparse.ArgumentParser, what: str, default: str) -> None:
    """``--workers K`` and ``--scheduler ADDRESS``: where a command spreads its work on Dask (qifkit.cluster)."""
    command.add_argument("--workers", type=_whole, metavar="K",
                         help=f"{what} on a local Dask cluster of K worker processes{default}")
    command.add_argument("--scheduler", metavar="ADDRESS",
                         help=f"{what} on the Dask scheduler at ADDRESS (tcp://HOST:8786) instead")


def _add_design_commands(commands: Any) -> None:
    """Register ``construct`` and ``design`` on the ``qifkit`` subcommand parser."""
    construct = commands.add_parser("construct", help="build a count mechanism with a fixed point (Kohli-Laskowski)")
    construct.add_argument("--z", help='the fixed point, e.g. "1/4,1/2,1/4" (positive, sums to 1), or '
                           '"uniform" or "binomial" with --n')
    construct.add_argument("--z-file", metavar="Z.csv|Z.npy",
                           help="the fixed point from a file (numbers separated by commas or lines, or a .npy array)")
    construct.add_argument("--n", type=_whole, help="number of values for a named fixed point (--z uniform|binomial)")
    construct.add_argument("--eps-exp", required=True, help='e^ε as "2", "7/2" or "ln(2)"')
    construct.add_argument("--method", choices=CONSTRUCT_METHODS, default="alg1")
    construct.add_argument("--selector", choices=SELECTORS, help="column selector of alg1 (default sandwich)")
    construct.add_argument("--float", action="store_true",
                           help="float mode (alg1: long double, the remainder in high precision where that breaks; "
                                "alg2: double), logarithms of T, verified to 1e-9: for n in the thousands")
    construct.add_argument("--error", choices=("absolute", "squared"), default="absolute",
                           help="count error: expected absolute deviation or squared error")
    construct.add_argument("--out", metavar="T.npy|T.csv", help="write the mechanism (rows are true counts)")
    construct.add_argument("--json", metavar="FILE", help="write the report as JSON (atomically)")
    construct.set_defaults(module="construct")
    design = commands.add_parser("design", help="Cormode et al.'s constrained count mechanisms")
    size = design.add_mutually_exclusive_group(required=True)
    size.add_argument("--n", type=_whole, help="number of values: counts 0..n-1 (as --n means in every command)")
    size.add_argument(
        "--max-count", type=_whole, metavar="N", help="or the largest count, Cormode et al.'s n: counts 0..N"
    )
    privacy = design.add_mutually_exclusive_group(required=True)
    privacy.add_argument("--alpha", help="α = e^−ε in (0, 1), exact, e.g. 10/11 (Cormode et al.'s parameter)")
    privacy.add_argument("--eps-exp", help='or e^ε as "11/10" or "ln(2)", as the other commands take it (α = 1/e^ε)')
    design.add_argument("--props", help=f"comma-separated properties from {','.join(PROPERTIES)}")
    design.add_argument("--objective", choices=("L0", "L1", "L2"), default="L0")
    design.add_argument("--aggregate", choices=("sum", "max"), default="sum")
    design.add_argument("--min-distance", type=_whole, default=0, help="L0,d: only errors of at least d count")
    design.add_argument("--mechanism", choices=("gm", "em", "um", "wm"), help="a named mechanism instead of an optimum")
    design.add_argument("--out", metavar="M.npy|M.csv", help="write the mechanism (rows are inputs; CSV exact)")
    design.add_argument("--json", metavar="FILE", help="write matrix, objective and p_true as JSON (atomically)")
    design.set_defaults(module="design")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status.

    0 success or a positive verdict; 1 a negative verdict (does not refine, NOT stable, a check
    failed, a certificate is invalid), the reason printed; 2 bad input or usage, one line naming it;
    3 an internal error, one line (the traceback with ``--debug``); 4 not decided (``stability``);
    130 interrupted, with what to run to go on. Standard output and error are guarded
    (:mod:`proofs_checks.cli.streams`): a reader that stops reading keeps the status, a stream
    that cannot be written is exit 2.
    """
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # numbers of up to 200,000 digits are read and written whole (README)
    try:
        with guarded_streams() as (out, _):
            try:
                status = _run(argv)
            except SystemExit:  # argparse's --help, --version and usage errors: their text must arrive too
                out.flush()
                raise
            out.flush()
            return status
    except OutputError as error:
        if sys.stderr is not None:
            try:
                print(f"qifkit: error: {error}", file=sys.stderr, flush=True)
            except OSError:
                pass
        return EXIT_USAGE
    finally:
        sys.set_int_max_str_digits(limit)



def _import_command(name: str) -> Any:
    """The module of subcommand `name`, imported with SIGINT blocked, after numpy and scipy.linalg:
    the helper threads that their two OpenBLAS copies start on import inherit the mask and never take
    a Ctrl-C, so one that arrives while the main thread holds SIGINT (during a Normaliz call) waits
    for the main thread (:mod:`qifkit.interrupts`). Those two are imported here, not left to the
    command, because some commands import them only later, outside this block."""
    from qifkit.interrupts import ctrl_c_blocked

    with ctrl_c_blocked():
        importlib.import_module("numpy")
        importlib.import_module("scipy.linalg")
        return importlib.import_module(f"proofs_checks.cli.{name}")


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main` within guarded streams: parse, dispatch, and map every outcome to its status."""
    arguments = _parser().parse_args(argv)
    try:
        with documents_to_stdout(arguments):
            return _import_command(arguments.module).run(arguments)
    except InternalError as error:  # a guarantee of ours broken: a bug, whatever the input
        if arguments.debug:
            raise
        print(f"qifkit: internal error: {error}. This is a bug of qifkit: please report it with the command; "
              "--debug shows the traceback", file=sys.stderr)
        return EXIT_INTERNAL
    except OutputError:
        raise
    except QifError as error:
        from qifkit.numbers import readable_message  # not at import: --help loads no numeric layer

        print(f"qifkit: error: {readable_message(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        resume = getattr(arguments, "resume", None)
        hint = (f"; finished blocks are kept in {resume}: run the same command again to go on" if resume
                else "; nothing was written")
        print(f"qifkit: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:  # the machine refused a read or write: a full disk, a read-only folder, permissions
        if arguments.debug:
            raise
        named = f"{error.filename}: " if error.filename else ""
        print(f"qifkit: error: cannot complete the run: {named}{error.strerror or error} (each output is written "
              "whole or left as it was)", file=sys.stderr)
        return EXIT_USAGE
    except (MemoryError, RecursionError) as error:
        if arguments.debug:
            raise
        print(f"qifkit: error: the input is too large for this machine ({type(error).__name__}); nothing was "
              "written. Ask for less (smaller n, fewer values), or call the library from Python", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a bug of ours: one line, the details on request
        if arguments.debug:
            raise
        where = error.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        place = f" at {Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}" if where else ""
        print(f"qifkit: internal error: {type(error).__name__}: {str(error)[:300]}{place}. This is a bug of qifkit: "
              "please report it with the command; --debug shows the traceback", file=sys.stderr)
        return EXIT_INTERNAL
