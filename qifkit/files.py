"""Files: bounded reads of the user's files, tables as CSV, JSON, and atomic writes (a reader
never sees half a file).

Channel CSV (read and written by :meth:`qifkit.channel.Channel.read_csv` and ``to_csv`` through
:func:`read_table_csv` and :func:`csv_text`): one row per secret, entries as exact number
strings (``3/7``, ``0.25``; ASCII digits only). The first row holds output labels if its first cell
is blank or none of its cells is a number; the first column holds secret labels if the header's
first cell is blank or none of its cells (below a header) is a number. A first row or column that
mixes numbers and non-numbers is refused, naming the cell: a typo, ``nan`` or ``1/0`` in the data
never turns a row into labels. A UTF-8 byte-order mark is skipped. Labels are read as strings. A CSV
is always read as an exact channel.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import stat
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

from qifkit.errors import FileFormatError, NumberSyntaxError, ShapeError
from qifkit.numbers import MAX_NUMBER_TEXT, parse_number, quoted

__all__ = ["MAX_INPUT_BYTES", "atomic_write_text", "atomic_write_bytes", "gzip_bytes", "json_text", "not_utf8",
           "read_input",
           "read_exact", "read_input_text", "read_json", "read_table_csv", "csv_text", "write_json"]

#: The largest input file the toolkit reads (bytes): 1 GiB, far above the largest certificate of a
#: census-scale pipeline; a larger file is refused before a byte of it is read.
MAX_INPUT_BYTES = 1 << 30

_FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_input(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of an input file, read only if it is a regular file of at most `limit` bytes.

    The file is opened without blocking and checked on its open descriptor before any read, so a
    FIFO (whose read waits for a writer), a device (``/dev/zero`` never ends) or a folder is refused
    at once, and a file larger than `limit` is refused by its size, not by running out of memory.

    Raises
    ------
    FileFormatError
        If `path` is not a regular file, or is larger than `limit` bytes.
    OSError
        If it cannot be opened (missing, no permission); the caller names the option.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(descriptor)
    except OSError:
        os.close(descriptor)
        raise
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(descriptor)
        kind = next((name for test, name in _FILE_KINDS if test(info.st_mode)), "not a regular file")
        raise FileFormatError(f"{path} is {kind}, not a regular file: give the input as a file"
                              if not stat.S_ISREG(info.st_mode) else
                              f"{path} has {info.st_size:,} bytes; inputs are read up to {limit:,} bytes")
    with os.fdopen(descriptor, "rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise FileFormatError(f"{path} has more than {limit:,} bytes; inputs are read up to {limit:,} bytes")
    return data


def read_input_text(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES) -> str:
    """An input file's UTF-8 text (a byte-order mark skipped), read by :func:`read_input`; a file
    that is not UTF-8 is refused with :class:`FileFormatError` naming the first bad byte."""
    try:
        return read_input(path, limit).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise not_utf8(path, error) from None


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically (see :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def json_text(document: Any, indent: int | None = 2) -> str:
    """`document` as the toolkit writes JSON: non-ASCII kept, a final newline."""
    return json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


def write_json(path: str | os.PathLike[str], document: Any, indent: int | None = 2) -> None:
    """Write `document` as JSON (:func:`json_text`, UTF-8) to `path`, atomically: the one JSON
    writer of the toolkit's files (reports, certificates, vertex lists, resume manifests)."""
    atomic_write_text(path, json_text(document, indent))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and an atomic rename.

    ``"-"`` writes to standard output. A symbolic link is followed (the file it points to is
    replaced, the link stays); a path that is not a regular file (``/dev/stdout``, a FIFO) is
    written through, never replaced. The new file keeps the permission bits of the file it replaces
    (a new file gets the usual ones, 0666 less the umask) and, where the process may give it, its
    owner and group.

    Raises
    ------
    OSError
        If the folder does not exist, is not writable or is full, naming `path` (its filename);
        `path` is then left untouched.
    """
    if str(path) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    target = Path(path).resolve() if Path(path).is_symlink() else Path(path)
    if target.exists() and not target.is_file():
        with open(target, "wb") as stream:
            stream.write(data)
        return
    owner = None
    if target.exists():
        info = target.stat()
        mode, owner = stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)
    else:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.",
                                             suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            try:
                os.chown(temporary, *owner)
            except PermissionError:  # only root gives a file away; the user's own file stays theirs anyway
                pass
        os.replace(temporary, target)
    except OSError as error:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from None
    except BaseException:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise


def not_utf8(where: object, error: UnicodeDecodeError) -> FileFormatError:
    """The refusal of a file that is not UTF-8 text, naming the file and the first bad byte."""
    return FileFormatError(f"{where}: not UTF-8 text (byte {error.start}: {error.reason})")


def read_json(source: str | os.PathLike[str] | bytes) -> Any:
    """A JSON document from a file (read by :func:`read_input`) or its bytes, gzip-compressed or
    not (:func:`gzip_bytes`; the large census files ship so), refused with :class:`FileFormatError`
    when it is not UTF-8, not JSON, nested too deep, names a key twice in one object (which of the
    two would count?), holds an integer literal longer than Python reads (exact numbers travel as
    strings), or is a broken gzip stream or one that unpacks beyond :data:`MAX_INPUT_BYTES`;
    OSError is left to the caller, which knows the option."""
    data = source if isinstance(source, bytes) else read_input(source)
    where = "the document" if isinstance(source, bytes) else str(source)
    if data[:2] == _GZIP_MAGIC:
        data = _gunzipped(data, where)

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise FileFormatError(f"{where}: the key {quoted(key)} is given twice in one object")
            seen.add(key)
        return dict(pairs)

    try:
        return json.loads(data.decode("utf-8-sig"), object_pairs_hook=unique_keys)
    except FileFormatError:
        raise
    except UnicodeDecodeError as error:
        raise not_utf8(where, error) from None
    except json.JSONDecodeError as error:
        raise FileFormatError(f"{where} is not JSON: {error}") from None
    except RecursionError:
        raise FileFormatError(f"{where}: JSON nested too deep to read") from None
    except ValueError as error:  # an integer literal beyond Python's digit limit
        raise FileFormatError(f"{where}: {str(error).split(';')[0]} (write exact numbers as strings)") from None


_GZIP_MAGIC = b"\x1f\x8b"


def gzip_bytes(text: str) -> bytes:
    """`text` (UTF-8) gzip-compressed with no time stamp in its header: the same text always gives
    the same bytes, so a written file can be compared with what was meant."""
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def _gunzipped(data: bytes, where: str) -> bytes:
    """One gzip member unpacked, at most :data:`MAX_INPUT_BYTES` of it (a small file can unpack to
    gigabytes); a broken stream or bytes after it are refused."""
    unpacker = zlib.decompressobj(wbits=31)
    try:
        text = unpacker.decompress(data, MAX_INPUT_BYTES + 1)
    except zlib.error as error:
        raise FileFormatError(f"{where} is not a readable gzip stream: {error}") from None
    if len(text) > MAX_INPUT_BYTES:
        raise FileFormatError(f"{where} unpacks to more than {MAX_INPUT_BYTES:,} bytes; inputs are read up to "
                              f"{MAX_INPUT_BYTES:,} bytes")
    if not unpacker.eof or unpacker.unused_data:
        raise FileFormatError(f"{where} is not one whole gzip stream (cut short, or bytes after its end)")
    return text


def _is_number(cell: str) -> bool:
    try:
        parse_number(cell)
    except NumberSyntaxError:
        return False
    return True


def _labels(cells: list[str], where: str, unit: str, first: int = 1) -> bool:
    """True if no cell is a number (labels), False if all are (data); refuse a mix, naming the cell."""
    numbers = [_is_number(cell) for cell in cells]
    if all(numbers) or not any(numbers):
        return not any(numbers)
    k = numbers.index(False)
    raise NumberSyntaxError(f"{where} mixes numbers and labels: {unit} {k + first} is {quoted(cells[k])}, not a number "
                            "(a label row or column has no numbers, or a blank first cell)")


def read_table_csv(path: str | os.PathLike[str]) -> tuple[list[list[str]], list[str] | None, list[str] | None]:
    """The cells of a CSV table of exact number strings, and its row and column labels if it has
    them: a first row or column with no number in it (or a blank top-left cell) holds labels; one
    that mixes numbers and other text is refused, naming the cell. The cells are left as text for
    the caller's reader (a channel's, a loss's)."""
    if csv.field_size_limit() < MAX_NUMBER_TEXT + 1:  # the longest number string we read, not csv's 131,072
        csv.field_size_limit(MAX_NUMBER_TEXT + 1)
    reader = csv.reader(io.StringIO(read_input_text(path), newline=""))
    try:
        table = [row for row in reader if any(cell.strip() for cell in row)]
    except csv.Error as error:
        raise ShapeError(f"{path}, line {reader.line_num}: {error} (a number string has at most "
                         f"{MAX_NUMBER_TEXT:,} characters)") from None
    if not table:
        raise ShapeError(f"{path}: no rows")
    corner_blank = not table[0][0].strip()
    outputs = None
    if corner_blank or _labels(table[0], f"{path}: row 1", "cell"):
        outputs, table = [cell.strip() for cell in table[0]], table[1:]
    if not table:
        raise ShapeError(f"{path}: a header but no rows")
    secrets = None
    first = 2 if outputs is not None else 1
    if (outputs is not None and corner_blank) or _labels([row[0] for row in table], f"{path}: column 1", "row", first):
        secrets, table = [row[0].strip() for row in table], [row[1:] for row in table]
        if outputs is not None and len(outputs) == len(table[0]) + 1:
            outputs = outputs[1:]
    return table, secrets, outputs


def read_exact(path: str | os.PathLike[str]) -> Any:
    """An exact CSV (``32/159`` cells, as the commands write exact matrices, labels allowed) as a
    numpy array of Fractions (``dtype=object``): what ``numpy.loadtxt`` and ``pandas.read_csv``
    cannot read. ``.astype(float)`` rounds it; arithmetic on it stays exact.

    Raises
    ------
    ShapeError
        For ragged rows (and as :func:`read_table_csv`).
    NumberSyntaxError
        For a cell that is not an exact number string, naming it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> path.write_text("4/9,4/9,1/9\\n2/9,5/9,2/9\\n")
    24
    >>> matrix = read_exact(path)
    >>> matrix[0, 2], matrix.sum(axis=1).tolist() == [1, 1]
    (Fraction(1, 9), True)
    """
    import numpy as np  # here: the command line reads files without loading numpy

    table, _, _ = read_table_csv(path)
    if len({len(row) for row in table}) != 1:
        raise ShapeError(f"{path}: rows of {sorted({len(row) for row in table})} cells; a matrix has rows of one "
                         "length")
    array = np.empty((len(table), len(table[0])), dtype=object)
    for i, row in enumerate(table):
        for j, cell in enumerate(row):
            try:
                array[i, j] = parse_number(cell)
            except NumberSyntaxError as error:
                raise NumberSyntaxError(f"{path}, row {i + 1}, column {j + 1}: {error}") from None
    return array


def csv_text(rows: Any) -> str:
    """Rows of cells (strings) as the toolkit's CSV text (one line each, ``\\n`` ends)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()
