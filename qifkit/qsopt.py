"""QSopt_ex (Applegate, Cook, Dash and Espinoza's exact simplex; Debian ``qsopt-ex``, command
``esolver``) as an independent exact oracle for the LP engine (:mod:`qifkit.lp`), in tests and
benchmarks: a :class:`~qifkit.lp.LinearProgram` written as free MPS with its rationals kept
(``3/7``, which QSopt_ex reads exactly), solved by ``esolver``, and its exact optimal value read
back. Like :func:`qifkit.lp.ppl_optimum`, it gives no certificate the engine could return.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import flint

from qifkit.errors import InternalError, MissingDependencyError
from qifkit.lp import LinearProgram
from qifkit.numbers import exact_str, parse_number, to_fmpq

__all__ = ["mps_text", "qsopt_optimum"]


def mps_text(program: LinearProgram) -> str:
    """`program` in free MPS: rows ``r0, r1, …`` (``E``, ``G``, ``L``, or ``G`` with a range for a
    row bounded on both sides; a row with no bound is left out), columns ``x0, x1, …``, bounds
    ``LO``/``UP``/``FX``/``FR``/``MI``, every number an exact rational string.

    Examples
    --------
    >>> program = LinearProgram.build(2, [{0: 3, 1: 6}], row_lower=["1/3"], cost=[3, 2], upper=[1, None])
    >>> print(mps_text(program))  # doctest: +NORMALIZE_WHITESPACE
    NAME LP
    ROWS
     N obj
     G r0
    COLUMNS
     x0 obj 3
     x0 r0 3
     x1 obj 2
     x1 r0 6
    RHS
     rhs r0 1/3
    BOUNDS
     UP bnd x0 1
    ENDATA
    """
    kept = [i for i in range(len(program.rows)) if program.row_lower[i] is not None or program.row_upper[i] is not None]
    lines = [f"NAME {program.name.split()[0] if program.name.split() else 'LP'}", "ROWS", " N obj"]
    ranges: list[tuple[int, Any]] = []
    rhs: list[tuple[int, Any]] = []
    for i in kept:
        low, high = program.row_lower[i], program.row_upper[i]
        if low is not None and high is not None and low == high:
            lines.append(f" E r{i}")
            rhs.append((i, low))
        elif low is not None:
            lines.append(f" G r{i}")
            rhs.append((i, low))
            if high is not None:
                ranges.append((i, high - low))
        else:
            lines.append(f" L r{i}")
            rhs.append((i, high))
    entries: list[list[tuple[str, Any]]] = [[] for _ in range(program.variables)]
    for j, c in enumerate(program.cost):
        if c:
            entries[j].append(("obj", c))
    for i in kept:
        for j, a in program.rows[i]:
            entries[j].append((f"r{i}", a))
    lines.append("COLUMNS")
    for j, column in enumerate(entries):
        lines += [f" x{j} {row} {exact_str(value)}" for row, value in column] or [f" x{j} obj 0"]
    lines.append("RHS")
    lines += [f" rhs r{i} {exact_str(value)}" for i, value in rhs if value]
    if ranges:
        lines.append("RANGES")
        lines += [f" rng r{i} {exact_str(value)}" for i, value in ranges]
    bounds = []
    for j, (low, high) in enumerate(zip(program.lower, program.upper, strict=True)):
        if low is not None and high is not None and low == high:
            bounds.append(f" FX bnd x{j} {exact_str(low)}")
            continue
        if low is None:
            bounds.append(f" {'FR' if high is None else 'MI'} bnd x{j}")
        elif low != 0 or (high is not None and high < 0):  # an UP below 0 alone means MI to some readers
            bounds.append(f" LO bnd x{j} {exact_str(low)}")
        if high is not None:
            bounds.append(f" UP bnd x{j} {exact_str(high)}")
    if bounds:
        lines.append("BOUNDS")
        lines += bounds
    lines.append("ENDATA")
    return "\n".join(lines) + "\n"


def qsopt_optimum(program: LinearProgram, time_limit: float = 600) -> tuple[str, flint.fmpq | None]:
    """The status (``"optimal"``, ``"infeasible"``, ``"unbounded"``) and exact optimal value (a flint
    rational, as the engine's :class:`~qifkit.lp.LPSolution`) of `program` by QSopt_ex's ``esolver``
    (run in a temporary folder, at most `time_limit` seconds).

    Raises
    ------
    MissingDependencyError
        When ``esolver`` is not installed (``apt install qsopt-ex``).
    InternalError
        When esolver stops without one of those answers (its output is quoted).
    """
    command = shutil.which("esolver")
    if command is None:
        raise MissingDependencyError("QSopt_ex is an optional oracle: apt install qsopt-ex (the command esolver)")
    with tempfile.TemporaryDirectory() as folder:
        problem, solution = Path(folder) / "lp.mps", Path(folder) / "lp.sol"
        problem.write_text(mps_text(program))
        finished = subprocess.run([command, "-O", str(solution), str(problem)], capture_output=True, text=True,
                                  timeout=time_limit, cwd=folder, check=False)
        text = solution.read_text() if solution.exists() else ""
    status = next((line.split("=", 1)[1].strip() for line in text.splitlines() if line.startswith("status =")), None)
    if status == "OPTIMAL":
        value = next(line.split("=", 1)[1].strip() for line in text.splitlines() if line.strip().startswith("Value ="))
        return "optimal", to_fmpq(parse_number(value))
    if status in ("INFEASIBLE", "UNBOUNDED"):
        return status.lower(), None
    raise InternalError(f"esolver gave no answer for {program.name} (status {status}): "
                        f"{(finished.stdout + finished.stderr)[-300:]}")
