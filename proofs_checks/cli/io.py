"""The commands' shared input and output: options that list values, the fixed point z of construct and
enumerate (``--z``, ``--z-file``), and the check that an output path can be written, before any work."""

from __future__ import annotations

import io
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from proofs_checks.cli.base import UsageError
from qifkit import files
from qifkit.errors import QifError
from qifkit.files import atomic_write_bytes, atomic_write_text
from qifkit.numbers import exact, exact_str, parse_number

if TYPE_CHECKING:
    from qifkit.channel import Channel

__all__ = ["NAMED_FIXED_POINTS", "approximately", "check_mechanism_outputs", "check_writable", "comma_list",
           "fixed_point", "number_text", "read_channel", "write_json", "write_mechanism"]


def comma_list(text: str, what: str) -> list[str]:
    """The entries of a comma-separated option, refused if one is empty."""
    cells = [c.strip() for c in text.split(",")]
    if not all(cells):
        raise UsageError(f"{what} {text!r} has an empty entry")
    return cells


NAMED_FIXED_POINTS = ("uniform", "binomial")  # polytopes.fixed_point.NAMED_FIXED_POINTS (tested), kept light for the parser
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
        from polytopes.fixed_point import named_fixed_point  # the commands that take a z load polytopes anyway

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
        values = np.load(path, allow_pickle=False)
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
        with open(path, encoding="utf-8-sig") as stream:
            lines = stream.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
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
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def write_json(path: str, document: Any, what: str, indent: int | None = 2) -> None:
    """Write a command's JSON document atomically (:func:`qifkit.files.write_json`) and say so."""
    files.write_json(path, document, indent)
    print(f"{what} written to {path}")


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


def approximately(exact_text: str) -> str:
    """An exact number string with its decimal value beside it (the exact value decides); read
    by :func:`qifkit.numbers.parse_number`, which takes numbers of any length. One longer than
    :data:`SHOWN_DIGITS` characters (census-scale losses have tens of thousands of digits) is shown
    as its decimal value and its size instead."""
    value = parse_number(exact_text)
    if len(exact_text) > SHOWN_DIGITS:
        numerator, denominator = exact_text.partition("/")[::2]
        size = f"{len(numerator.lstrip('-')):,}" + (f" / {len(denominator):,}" if denominator else "")
        return f"≈ {float(value):.10g}  (exact, {size} digits: in the JSON report)"
    return exact_text if value.denominator == 1 else f"{exact_text}  (≈ {float(value):.10g})"


def number_text(value: Any) -> str:
    """An entry as the commands write it: exact for a Fraction, else the float's shortest repr."""
    return exact_str(value) if isinstance(value, Fraction) else repr(float(value))


def check_mechanism_outputs(arguments: Any) -> None:
    """``--out`` (.npy or .csv) and ``--json`` of construct and design: formats known and places
    writable, before any work."""
    for path in (arguments.out, arguments.json):
        if path and not path.endswith((".npy", ".csv", ".json")):
            raise UsageError(f"cannot tell the format of {path}: use .npy, .csv (--out) or .json")
        if path:
            check_writable(path)


def write_mechanism(path: str, exact_rows: Any, floats: Any) -> None:
    """A mechanism to `path`, atomically: ``.npy`` floats, or ``.csv`` with exact number strings
    (`exact_rows`) or floats when it has no exact form (`floats` gives the array when asked)."""
    if path.endswith(".npy"):
        buffer = io.BytesIO()
        np.save(buffer, floats())
        atomic_write_bytes(path, buffer.getvalue())
    else:
        rows = exact_rows if exact_rows is not None else floats().tolist()
        atomic_write_text(path, "".join(",".join(number_text(v) for v in row) + "\n" for row in rows))
    print(f"mechanism written to {path}")
