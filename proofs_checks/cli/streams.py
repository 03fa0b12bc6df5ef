"""Standard output and error as a command writes them: a reader that stops reading, a stream that
cannot be written or an encoding without ε never changes a verdict's exit status (issue 52).

* A closed pipe (``qifkit stability s.toml | head -c 1``): the rest of the output is dropped in
  silence and the command's own exit status stands, as a verdict decided is not changed by who
  stopped reading it.
* Standard output that cannot be written (``>&-``, ``> /dev/full``, a device error): the command
  stops with exit 2 and one line on standard error naming the stream and the cause; nothing was
  reported, so no verdict is claimed. Standard error that cannot be written is dropped: there is
  nowhere left to say anything, and the exit status still speaks.
* An encoding that cannot hold the toolkit's symbols (``PYTHONIOENCODING=ascii``): the text is
  written with ASCII spellings (``e^eps``, ``<=``, ``[=``) instead of failing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from qifkit.errors import QifError

__all__ = ["OutputError", "ASCII_SPELLINGS", "ascii_spelling", "guarded_streams"]


class OutputError(QifError, OSError):
    """Standard output or error cannot be written (closed, full, failing): nothing can be reported."""


#: How the toolkit's non-ASCII symbols are written where the stream's encoding cannot hold them.
ASCII_SPELLINGS = {
    "ε": "eps", "⊑": "[=", "⋢": "[/=", "≤": "<=", "≥": ">=", "≠": "!=", "×": "x", "−": "-", "·": "*",
    "…": "...", "⋯": "...", "→": "->", "←": "<-", "↦": "|->", "⇒": "=>", "⇔": "<=>", "≈": "~", "±": "+/-",
    "∓": "-/+", "≡": "==", "∝": "~", "∈": " in ", "∉": " not in ", "⊆": "<=", "∪": "|", "∩": "&", "∅": "{}",
    "⊗": "(x)", "⊕": "(+)", "⊎": "(+)", "⊥": "_|_", "√": "sqrt", "∞": "inf", "Σ": "sum", "Π": "prod",
    "⟨": "<", "⟩": ">", "⌊": "floor(", "⌋": ")", "⌈": "ceil(", "⌉": ")", "‖": "||", "′": "'", "▷": ">",
    "–": "-", "—": "--", "’": "'", "‘": "'", "“": '"', "”": '"', "•": "*", "§": "Sec. ", "½": "1/2",
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "Δ": "Delta", "ζ": "zeta", "θ": "theta", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "µ": "mu", "ν": "nu", "π": "pi", "ρ": "rho", "σ": "sigma", "ω": "omega", "Ψ": "Psi",
    "Φ": "Phi",
    "ℓ": "l", "ℝ": "R", "ᵀ": "^T", "⁻": "^-", "⁺": "^+", "¹": "^1", "²": "^2", "³": "^3", "⁴": "^4",
    "⁵": "^5", "⁶": "^6", "⁷": "^7", "⁸": "^8", "₀": "0", "₁": "1", "₂": "2", "₃": "3",
}
_TRANSLATION = str.maketrans(ASCII_SPELLINGS)


def ascii_spelling(text: str) -> str:
    """`text` in ASCII: the toolkit's symbols spelled out (:data:`ASCII_SPELLINGS`), anything else
    as a backslash escape.

    >>> ascii_spelling("A ⊑ B at e^ε ≤ 2")
    'A [= B at e^eps <= 2'
    """
    return text.translate(_TRANSLATION).encode("ascii", "backslashreplace").decode("ascii")


class _Guarded:
    """A text stream whose writes follow the module's rules; `name` is what an error calls it."""

    def __init__(self, stream: Any, name: str, fd: int, *, quiet: bool = False) -> None:
        self.stream, self.name, self.fd, self.quiet = stream, name, fd, quiet
        self.closed_by_reader = False
        self.failed: OutputError | None = None

    def _do(self, action: Any, *arguments: Any) -> Any:
        if self.closed_by_reader:
            return None
        try:
            return action(*arguments)
        except BrokenPipeError:
            self._drop()
            return None
        except OSError as error:
            if self.quiet:  # standard error: nowhere left to say it
                self._drop()
                return None
            # kept: a caller that swallows OSError (argparse's help) must not make the loss unseen
            self.failed = OutputError(f"cannot write to {self.name}: {error.strerror or error}")
            raise self.failed from None

    def _drop(self) -> None:
        """The reader is gone: everything from now on goes to /dev/null, the interpreter's own
        flush at exit included."""
        self.closed_by_reader = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.fd)
            os.close(null)
        except OSError:  # pragma: no cover - /dev/null missing
            pass

    def write(self, text: str) -> int:
        def write() -> Any:
            try:
                return self.stream.write(text)
            except UnicodeEncodeError:
                return self.stream.write(ascii_spelling(text))

        self._do(write)
        return len(text)

    def flush(self) -> None:
        """Flush, and raise the first write error again if one was met (whoever caught it)."""
        self._do(self.stream.flush)
        if self.failed is not None:
            raise self.failed

    @property
    def buffer(self) -> _GuardedBinary:
        return _GuardedBinary(self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class _GuardedBinary:
    """The binary side of a guarded stream (a document written to ``-``), under the same rules."""

    def __init__(self, text: _Guarded) -> None:
        self.text = text

    def write(self, data: bytes) -> int:
        self.text._do(self.text.stream.flush)
        self.text._do(self.text.stream.buffer.write, data)
        return len(data)

    def flush(self) -> None:
        self.text._do(self.text.stream.buffer.flush)


@contextmanager
def guarded_streams() -> Iterator[tuple[_Guarded, _Guarded]]:
    """``sys.stdout`` and ``sys.stderr`` guarded for the length of a command, restored after.

    Raises
    ------
    OutputError
        Standard output is closed (``>&-``): the command would report nothing.
    """
    if sys.stdout is None or _closed(sys.stdout):
        raise OutputError("standard output is closed: nothing could be reported (give the command a place to "
                          "write, e.g. > report.txt)")
    saved = sys.stdout, sys.stderr
    out = _Guarded(sys.stdout, "standard output", 1)
    err = _Guarded(sys.stderr, "standard error", 2, quiet=True) if sys.stderr is not None else None
    sys.stdout = out
    if err is not None:
        sys.stderr = err
    try:
        yield out, err  # type: ignore[misc]
    finally:
        sys.stdout, sys.stderr = saved


def _closed(stream: Any) -> bool:
    """Whether a standard stream's file descriptor is closed (a stream without one, as a test's
    capture, is taken as open)."""
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False
