"""Where a Ctrl-C goes while native code runs.

Python runs its SIGINT handler (KeyboardInterrupt) in the main thread, between bytecodes. Two
things can take a Ctrl-C away from it:

- A library that installs a SIGINT handler of its own while it computes. PyNormaliz does: its
  handler only sets a flag that Normaliz may read, or may clear unread (see
  :mod:`polytopes.normaliz`). Such a call runs inside :func:`ctrl_c_blocked`: the signal then
  waits, pending, and reaches Python's handler once the call has returned.
- Helper threads. The operating system gives a process-wide signal to any thread that does not
  block it, and the threads that numpy and scipy (each its own OpenBLAS) start on import do not,
  so while the main thread blocks SIGINT they would take it, and run whatever handler is in place.
  Threads started inside :func:`ctrl_c_blocked` inherit the blocked mask for good: the ``qifkit``
  command imports its numeric layers there (``proofs_checks.cli.app``), so its helper threads never
  take a Ctrl-C.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

__all__ = ["ctrl_c_blocked"]


@contextlib.contextmanager
def ctrl_c_blocked() -> Iterator[None]:
    """SIGINT blocked for the calling thread while the block runs.

    On leaving, the thread's previous signal mask is put back and a SIGINT that arrived meanwhile is
    delivered then, to the handler in place at that moment (Python's raises KeyboardInterrupt).
    Threads started inside the block keep SIGINT blocked. Where the platform has no signal masks
    (not POSIX), the block runs unchanged.

    Examples
    --------
    >>> import signal
    >>> with ctrl_c_blocked():
    ...     signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    True
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
