"""The commands' shared input and output: options that list values, the fixed point z of construct and
enumerate (``--z``, ``--z-file``), and the check that an output path can be written, before any work."""

from __future__ import annotations

import io
import os
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from proofs_checks.cli.base import UsageError, document_stream
from qifkit import files
from qifkit.errors import FileFormatError, QifError
from qifkit.numbers import exact, exact_str, parse_number

if TYPE_CHECKING:
    from qifkit.channel import Channel

__all__ = ["NAMED_FIXED_POINTS", "approximately", "check_mechanism_outputs", "check_outputs", "check_writable",
           "comma_list", "fixed_point", "inside", "number_text", "read_channel", "same_file",
           "write_document", "write_json"]


def comma_list(text: str, what: str) -> list[str]:
    """The entries of a comma-separated option, refused if one is empty."""
    cells = [c.strip() for c in text.split(",")]
    if not all(cells):
        raise UsageError(f"{what} {text!r} has an empty entry")
    return cells


# polytopes.fixed_point.NAMED_FIXED_POINTS (tested), kept light for the parser
NAMED_FIXED_POINTS = ("uniform", "binomial")
FLOAT_SUM_TOLERANCE = Fraction(1, 10**9)  # float mode: a z summing to 1 within this is renormalised (and said)


def fixed_point(text: str | None, path: str | None, n: int | None, *, renormalise: bool) -> tuple[list[Fraction], str]:
    """The fixed point z from ``--z`` (numbers, or ``uniform``/``binomial`` with ``--n``) or ``--z-file``.

    A file holds numbers separated by commas or line breaks (exact strings, as in ``--z``) or is a
    ``.npy`` array of floats (read exactly). With `renormalise` (float mode) a z whose sum is within
    1e-9 of 1 is divided by its sum, exactly, and the returned note says so; otherwise the sum must be
    exactly 1 (checked by the constructor). Returns (z, note).
    """
    if (text is None) == (path is None):
        raise UsageError("give the fixed point with one of --z and --z-file")
    if text in NAMED_FIXED_POINTS:
        if n is None or n < 2:
            raise UsageError(f"--z {text} needs --n N with N >= 2 values, got {n}")
        from polytopes.fixed_point.named import named_fixed_point  # the commands that take a z load polytopes anyway

        return named_fixed_point(text, n), ""
    if n is not None:
        raise UsageError(f"--n goes with a named fixed point ({', '.join(NAMED_FIXED_POINTS)}); z gives n itself")
    if text is not None:
        z = [exact(c) for c in comma_list(text, "--z")]
    elif path.endswith(".npy"):
        z = _npy_numbers(path)
    else:
        z = _text_numbers(path)
    total = sum(z)
    if total == 1 or abs(total - 1) > FLOAT_SUM_TOLERANCE:
        return z, ""  # exact, or far off: the constructor names the sum
    off = f"1 {'+' if total > 1 else '-'} {float(abs(total - 1)):.3g}"
    if renormalise:  # a z with a zero or negative entry goes on to the constructor, which names it
        return ([v / total for v in z], f"z summed to {off}; renormalised") if all(v > 0 for v in z) else (z, "")
    raise UsageError(f"z sums to {off}, not exactly 1; the exact methods need an exact distribution "
                           "(--float renormalises such a z)")


def _npy_numbers(path: str) -> list[Fraction]:
    try:
        values = np.load(io.BytesIO(files.read_input(path)), allow_pickle=False)
    except FileFormatError:
        raise
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: not a readable .npy array ({error})") from None
    if values.ndim != 1 or values.dtype.kind not in "fiu":
        raise UsageError(f"{path}: z must be a 1-D array of numbers, got shape {values.shape}, dtype {values.dtype}")
    bad = np.flatnonzero(~np.isfinite(values.astype(float)))
    if bad.size:
        raise UsageError(f"{path}: entry {bad[0]} is {values[bad[0]]}, not a finite number")
    return [Fraction(v) for v in values.tolist()]


def _text_numbers(path: str) -> list[Fraction]:
    try:
        lines = files.read_input_text(path).splitlines()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the fixed point ({error})") from None
    z = []
    for row, line in enumerate(lines, start=1):
        for column, cell in enumerate(line.split(","), start=1):
            cell = cell.strip()
            if not cell and line.strip():
                raise UsageError(f"{path}, line {row}, entry {column}: empty")
            if cell:
                try:
                    z.append(parse_number(cell))
                except QifError as error:
                    raise UsageError(f"{path}, line {row}, entry {column}: {error}") from None
    return z


def check_writable(path: str) -> None:
    """Fail before any work if `path` cannot be written: its folder missing or not writable, or
    the path itself a folder (the commands' shared output check)."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"cannot write {path}: it is a folder")
    folder = target.resolve().parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: folder {folder} does not exist")
    _probe(folder, f"cannot write {path}")


def check_writable_folder(folder: str | Path, option: str) -> None:
    """Fail before any work if the output folder `folder` (given as `option`) cannot be written: a
    file is made and removed there, or, for a folder still to be made, in its nearest existing
    parent (a read-only file system or a folder without write permission is said now, not after
    the work)."""
    place = Path(folder)
    while not place.exists() and place != place.parent:
        place = place.parent
    if not place.is_dir():
        raise UsageError(f"{option} {folder}: {place} is not a folder")
    _probe(place, f"{option} {folder}: cannot write in {place}")


def _probe(folder: Path, refusal: str) -> None:
    """Make and remove a file in `folder`; if that fails, a usage error: `refusal` and the cause."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UsageError(f"{refusal}: {error.strerror}") from None


def same_file(first: str | Path, second: str | Path) -> bool:
    """True if two paths name one file: the same file when both exist (links and ``..`` included),
    else the same absolute path once links in their folders are followed."""
    try:
        if Path(first).exists() and Path(second).exists():
            return os.path.samefile(first, second)
    except OSError:
        pass
    return Path(first).resolve() == Path(second).resolve()


def inside(path: str | Path, folder: str | Path) -> Path | None:
    """`path` relative to `folder` if it lies inside it (links followed), else None."""
    try:
        return Path(path).resolve().relative_to(Path(folder).resolve())
    except ValueError:
        return None


def check_outputs(inputs: dict[str, str | None], outputs: dict[str, str | None]) -> None:
    """The output policy of every command, before any work: each output (option → path) can be
    written (:func:`check_writable`), and none is an input of the run or another output of it (the
    report would replace the user's spec, or two outputs would overwrite each other); ``-``
    (standard output) may be given to one output only. Refusals name both options."""
    given = [(option, path) for option, path in outputs.items() if path]
    for k, (option, path) in enumerate(given):
        if path == "-":
            if any(other == "-" for _, other in given[:k]):
                raise UsageError(f"{option} - and another output both write to standard output: give one a file")
            continue
        check_writable(path)
        for name, source in inputs.items():
            if source and source != "-" and same_file(path, source):
                raise UsageError(f"{option} {path} is the input {name} ({source}): writing it would destroy the "
                                 "input; give another path")
        for other_option, other in given[:k]:
            if other != "-" and same_file(path, other):
                raise UsageError(f"{option} {path} and {other_option} {other} are one file: one output would "
                                 "overwrite the other; give two paths")


def write_document(path: str, text: str, what: str) -> None:
    """Write a command's text output atomically, or to standard output for ``-``, and say so."""
    if path == "-":
        stream = document_stream()
        stream.write(text)
        stream.flush()
        return
    files.atomic_write_text(path, text)
    print(f"{what} written to {path}")


def write_json(path: str, document: Any, what: str, indent: int | None = 2) -> None:
    """Write a command's JSON document (:func:`write_document`; the form of :func:`qifkit.files.write_json`)."""
    write_document(path, files.json_text(document, indent), what)


def read_channel(path: str) -> Channel:
    """A channel from a CSV file (one row per secret, exact numbers); an unreadable file is a
    usage error naming it."""
    from qifkit.channel import Channel  # not loaded by the commands that read no channel

    try:
        return Channel.read_csv(path)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None


#: Exact numbers longer than this are shown by their decimal value and size in a terminal; the
#: JSON report and the certificates keep every digit.
SHOWN_DIGITS = 120


def approximately(value: Fraction) -> str:
    """An exact number for the terminal: its exact text with its decimal value beside it (the exact
    value decides). One longer than :data:`SHOWN_DIGITS` characters (census-scale losses have tens
    of thousands of digits) is shown as its decimal value and its size instead."""
    text = exact_str(value)
    if len(text) > SHOWN_DIGITS:
        numerator, denominator = text.partition("/")[::2]
        size = f"{len(numerator.lstrip('-')):,}" + (f" / {len(denominator):,}" if denominator else "")
        return f"≈ {float(value):.10g}  (exact, {size} digits: in the JSON report)"
    return text if value.denominator == 1 else f"{text}  (≈ {float(value):.10g})"


def number_text(value: Any) -> str:
    """An entry as the commands write it: exact for a Fraction, else the float's shortest repr."""
    return exact_str(value) if isinstance(value, Fraction) else repr(float(value))


def check_mechanism_outputs(arguments: Any, inputs: dict[str, str | None]) -> None:
    """``--out`` (.npy, .log.npy or .csv) and ``--json`` of construct and design: formats known, and the
    output policy (:func:`check_outputs`), before any work."""
    for path in (arguments.out, arguments.json):
        if path and path != "-" and not path.endswith((".npy", ".csv", ".json")):
            raise UsageError(f"cannot tell the format of {path}: use .npy, .log.npy, .csv (--out) or .json")
    if arguments.out == "-":
        raise UsageError("--out - : a mechanism is written to a file (.npy, .log.npy or .csv); "
                         "--json - writes the report")
    check_outputs(inputs, {"--out": arguments.out, "--json": arguments.json})
