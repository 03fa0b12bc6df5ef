"""HiGHS, the engine"s float stage: the program loaded in floats (rows and columns scaled by powers
of two), run within the caller"s deadline, its status and basis read back. Never a verdict."""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import scipy.sparse

from qifkit.errors import (
    TimeLimitReached,
)
from qifkit.lp.program import Bound, Flags, LinearProgram

__all__ = ["highs_model", "program_scaling", "float_rows", "float_solution", "highs_status", "basis_key", "basis_flags",
           "run_highs", "time_left"]


def highs_model(program: LinearProgram, scaling: tuple[np.ndarray, np.ndarray] | None = None) -> Any:
    """HiGHS loaded with the program in floats, rows and columns scaled by powers of two
    (:func:`_float_scaling`, or the caller's (row factors, column factors) as `scaling`: the
    scaled refinement rounds of :mod:`qifkit.lp.refine`). Positive scalings change no basis, so
    the exact solve of HiGHS's basis is that of the original program; only the floats see a
    well-scaled problem, in which HiGHS's absolute tolerances mean the same on every row."""
    import highspy

    m, n = program.shape
    matrix = float_rows(program)
    row_scale, column_scale = program_scaling(program, matrix) if scaling is None else scaling
    matrix = (scipy.sparse.diags(row_scale) @ matrix @ scipy.sparse.diags(column_scale)).tocsc()
    inf = highspy.kHighsInf

    def scaled(bounds: Sequence[Bound], factors: np.ndarray, missing: float) -> np.ndarray:
        return np.array([missing if v is None else float(v) * f for v, f in zip(bounds, factors, strict=True)])

    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.array([float(v) for v in program.cost]) * column_scale
    lp.col_lower_ = scaled(program.lower, 1 / column_scale, -inf)
    lp.col_upper_ = scaled(program.upper, 1 / column_scale, inf)
    lp.row_lower_ = scaled(program.row_lower, row_scale, -inf)
    lp.row_upper_ = scaled(program.row_upper, row_scale, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr
    lp.a_matrix_.index_ = matrix.indices
    lp.a_matrix_.value_ = matrix.data
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    highs = _silent(highspy.Highs)
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.passModel(lp)
    return highs


def _silent(make: Callable[[], Any]) -> Any:
    """make() with the process's standard output (file descriptor 1) sent to /dev/null: HiGHS 1.16
    prints its banner from C++ when an instance is made, before any option can turn it off, and it
    would land in the middle of a command's output."""
    sys.stdout.flush()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        made = make()
        try:
            ctypes.CDLL(None).fflush(None)  # C's buffer, still pointing at /dev/null
        except (OSError, AttributeError):  # pragma: no cover - no C library by that name (Windows)
            pass
        return made
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def float_rows(program: LinearProgram) -> scipy.sparse.csr_matrix:
    """The constraint matrix in floats, sparse by rows."""
    m, n = program.shape
    indices = np.fromiter((k for row in program.rows for k, _ in row), dtype=np.int64)
    values = np.fromiter((float(a) for row in program.rows for _, a in row), dtype=float)
    pointers = np.cumsum([0] + [len(row) for row in program.rows])
    return scipy.sparse.csr_matrix((values, indices, pointers), shape=(m, n))


def program_scaling(program: LinearProgram, matrix: scipy.sparse.csr_matrix | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The row and column factors HiGHS sees the program with (:func:`_float_scaling`), the
    right-hand side taken in as one more column (each row's largest finite bound): the rows are
    then scaled for their bounds too, not only for their entries. Kohli's F with a binomial z at
    n = 60 has bounds from 2^-59 to 1 that the entries' scaling left between 1e-9 and 1e8, and
    every setting of HiGHS called it infeasible; with its bounds in the scaling, between 2e-9 and
    1.3, HiGHS finds its optimum (issue 56)."""
    matrix = float_rows(program) if matrix is None else matrix
    right = np.array([max((abs(float(v)) for v in (low, high) if v is not None), default=0.0)
                      for low, high in zip(program.row_lower, program.row_upper, strict=True)])
    row_scale, column_scale = _float_scaling(scipy.sparse.hstack([matrix, right.reshape(-1, 1)], format="csr"))
    return row_scale, column_scale[:-1]


def _float_scaling(matrix: scipy.sparse.csr_matrix, passes: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Row and column factors (powers of two) that bring the float matrix's entries near 1:
    alternating geometric-mean passes, then each row's largest entry to about 1. Entries of
    1e-20 next to 1 (counting pipelines of improbable counts) otherwise fall under HiGHS's
    drop tolerance."""
    m, n = matrix.shape
    rows, columns = np.ones(m), np.ones(n)
    if matrix.nnz == 0:
        return rows, columns
    coo = matrix.tocoo()
    logs = np.log2(np.abs(coo.data))

    def centre(keys: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
        high = np.full(size, -np.inf)
        low = np.full(size, np.inf)
        np.maximum.at(high, keys, values)
        np.minimum.at(low, keys, values)
        present = np.isfinite(high)
        return np.where(present, np.round(-(np.where(present, high, 0.0) + np.where(present, low, 0.0)) / 2), 0.0)

    row_log, column_log = np.zeros(m), np.zeros(n)
    for _ in range(passes):
        row_log += centre(coo.row, logs + row_log[coo.row] + column_log[coo.col], m)
        column_log += centre(coo.col, logs + row_log[coo.row] + column_log[coo.col], n)
    high = np.full(m, -np.inf)
    np.maximum.at(high, coo.row, logs + row_log[coo.row] + column_log[coo.col])
    row_log -= np.where(np.isfinite(high), np.round(high), 0.0)
    return np.exp2(row_log), np.exp2(column_log)


def float_solution(program: LinearProgram) -> tuple[str, np.ndarray | None]:
    """HiGHS alone on `program`, in floats (scaled as the engine scales it): its status
    (``"optimal"``, ``"infeasible"``, ``"unbounded"`` or ``"unknown"``) and its point, or None.

    Never a verdict: a search whose result something exact decides (the engine's own float stage,
    :func:`qifkit.refinement.approximate_refinement`, polytopes' float minima).

    Examples
    --------
    >>> status, x = float_solution(LinearProgram.build(2, [{0: 1, 1: 1}], row_lower=[1], cost=[1, 2]))
    >>> status, [round(float(v), 12) for v in x]
    ('optimal', [1.0, 0.0])
    """
    highs = highs_model(program)
    run_highs(highs, None)
    status = highs_status(highs)
    if status != "optimal":
        return status, None
    _, column_scale = program_scaling(program)
    return status, np.array(highs.getSolution().col_value) * column_scale


def highs_status(highs: Any) -> str:
    import highspy

    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kOptimal:
        return "optimal"
    if status == highspy.HighsModelStatus.kInfeasible:
        return "infeasible"
    if status in (highspy.HighsModelStatus.kUnbounded, highspy.HighsModelStatus.kUnboundedOrInfeasible):
        return "unbounded"
    return "unknown"


def basis_key(highs: Any) -> bytes:
    basis = highs.getBasis()
    return _statuses(basis.col_status).tobytes() + b"|" + _statuses(basis.row_status).tobytes()


def _statuses(statuses: list[Any]) -> np.ndarray:
    """HiGHS's basis statuses (enum members) as int8: by their values, a third of the time numpy
    takes to convert the members (F at n = 100: 40,000 of them, read about 100 times a solve)."""
    return np.array([s.value for s in statuses], dtype=np.int8)


def basis_flags(highs: Any) -> Flags | None:
    """HiGHS's basis as (column basic, column at upper bound, row basic, row at upper bound), or
    None when it has no valid basis."""
    import highspy

    basis = highs.getBasis()
    if not basis.valid:
        return None
    basic, upper = int(highspy.HighsBasisStatus.kBasic), int(highspy.HighsBasisStatus.kUpper)
    columns, rows = _statuses(basis.col_status), _statuses(basis.row_status)
    return (columns == basic).tolist(), (columns == upper).tolist(), (rows == basic).tolist(), (rows == upper).tolist()


def run_highs(highs: Any, deadline: float | None) -> Any:
    """``highs.run()`` within the caller's deadline (``time.perf_counter()``, None: none): HiGHS is
    given the time left, and a run it stops on that time raises
    :class:`~qifkit.errors.TimeLimitReached` rather than being read as an answer.

    Stoppable while it runs: a signal whose Python handler would raise (Ctrl-C, a caller's alarm)
    is held while HiGHS runs, HiGHS is asked to stop at its next simplex or interior-point check,
    and the held handlers run once it has returned (so Ctrl-C lands within an iteration, not when
    the solve ends, and no Python exception ever unwinds through HiGHS's C++)."""
    import highspy

    if deadline is not None:
        highs.setOptionValue("time_limit", time_left(deadline))
    with _signals_held() as arrived:

        def stop_if_signalled(event: Any) -> None:
            if arrived:
                event.interrupt()

        highs.cbSimplexInterrupt += stop_if_signalled
        highs.cbIpmInterrupt += stop_if_signalled
        try:
            status = highs.run()
        finally:
            highs.cbSimplexInterrupt -= stop_if_signalled
            highs.cbIpmInterrupt -= stop_if_signalled
    if deadline is not None and highs.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
        raise TimeLimitReached
    return status


_HELD_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGALRM") if hasattr(signal, name))


@contextlib.contextmanager
def _signals_held() -> Iterator[list[tuple[int, Any]]]:
    """While the block runs, the Python handlers of SIGINT and SIGALRM only record the signals in
    the list yielded; on leaving, the handlers are put back and each recorded signal is given to
    its own handler (which may raise KeyboardInterrupt or TimeLimitReached there). Outside the main
    thread, where Python runs no handler, nothing changes."""
    arrived: list[tuple[int, Any]] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    previous = {number: handler for number in _HELD_SIGNALS if callable(handler := signal.getsignal(number))}

    def record(number: int, frame: Any) -> None:
        arrived.append((number, frame))

    for number in previous:
        signal.signal(number, record)
    try:
        yield arrived
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    for number, frame in arrived:
        previous[number](number, frame)


def time_left(deadline: float | None) -> float:
    """Seconds until the caller's deadline (inf for none); TimeLimitReached once it has passed."""
    if deadline is None:
        return math.inf
    left = deadline - time.perf_counter()
    if left <= 0:
        raise TimeLimitReached
    return left
