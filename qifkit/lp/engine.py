"""The route of :func:`solve`: HiGHS proposes bases, exact algebra decides, each stage bounded by
work (attempts, refinement rounds, pivots); cddlib only as the last resort for small programs."""

from __future__ import annotations

import time

from qifkit.errors import (
    ParameterError,
    UndecidableError,
)
from qifkit.lp.attempts import by_bases
from qifkit.lp.basis import optimum_of
from qifkit.lp.farkas import farkas_certificate, ray_certificate, unbounded_certificate
from qifkit.lp.highs import time_left
from qifkit.lp.oracles import solve_by_cdd
from qifkit.lp.program import CDD_LIMIT, LinearProgram, LPSolution, collector_paused
from qifkit.validation import whole_number

__all__ = ["solve"]


#: Bases the exact dual simplex may visit after the refinement rounds, by default (a single pivot
#: or a block of pivots each make one).
_PIVOTS = 200


def solve(program: LinearProgram, *, time_limit: float | None = None, fallback: bool = True,
          pivots: int = _PIVOTS) -> LPSolution:
    """Solve `program` exactly; the answer is certified before it is returned.

    The route is bounded by work alone (HiGHS's iteration counts, a number of refinement rounds,
    a number of exact dual simplex bases), so the same program gets the same answer, certificate or
    :class:`UndecidableError`, on an idle machine and on a busy one.

    Parameters
    ----------
    program : LinearProgram
    time_limit : float or None
        The caller's bound on the whole solve, in seconds of wall-clock time (None: none). It never
        changes the route or the answer: once it has passed, the solve stops with
        :class:`~qifkit.errors.TimeLimitReached`.
    fallback : bool
        Whether cddlib's exact simplex may be tried when no float basis certifies (only for
        programs of at most :data:`CDD_LIMIT` variables × rows).
    pivots : int
        How many bases the exact dual simplex may visit from a float basis that misses bounds by a
        hair (one pivot, or a block of pivots kept at once, each make one; 0: none).

    Returns
    -------
    LPSolution
        status ``"optimal"``, ``"infeasible"`` or ``"unbounded"``, with its certificate, which
        has passed :func:`certificate_defect`.

    Raises
    ------
    UndecidableError
        When neither the float bases nor (within its size limit) cddlib give a certificate.
    TimeLimitReached
        When `time_limit` has passed.
    """
    if not isinstance(program, LinearProgram):
        raise TypeError(f"solve takes a LinearProgram, not {type(program).__name__}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, int | float)
                                   or not time_limit > 0):
        raise ParameterError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
    whole_number(pivots, 0, "pivots", error=ParameterError)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    with collector_paused():
        return _solve(program, deadline, fallback, pivots)


def _solve(program: LinearProgram, deadline: float | None, fallback: bool, pivots: int) -> LPSolution:
    status, solution = by_bases(program, deadline, optimum_of(program), pivots=pivots, scaled=True)
    if solution is None and status == "infeasible":
        solution = ray_certificate(program, deadline) or farkas_certificate(program, deadline)
    if solution is None and status == "unbounded":
        solution = unbounded_certificate(program, deadline)
    if solution is None and status != "infeasible":  # feasible to HiGHS's tolerance only (1e-9 from a bound)?
        solution = ray_certificate(program, deadline)
        if solution is None and status != "optimal":  # the elastic LP costs a full solve: not after an optimum
            solution = farkas_certificate(program, deadline)
    if solution is None and fallback and len(program.rows) * program.variables <= CDD_LIMIT:
        time_left(deadline)
        solution = solve_by_cdd(program)
    if solution is None:
        raise UndecidableError(f"no certificate found for {program.name} ({len(program.rows)} rows, "
                               f"{program.variables} variables): HiGHS's bases did not certify exactly"
                               + ("" if fallback else " and the cddlib fallback was not allowed")
                               + (f"; cddlib is not tried beyond {CDD_LIMIT} variables × rows" if fallback else ""))
    return solution
