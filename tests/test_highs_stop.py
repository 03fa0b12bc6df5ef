"""A signal that arrives while HiGHS runs stops HiGHS there (qifkit.lp.highs.run_highs): the
handler's exception is raised once HiGHS has returned, and HiGHS reports that it was interrupted,
not that it finished (issue 51: Ctrl-C waited minutes inside HiGHS)."""

import os
import signal

import highspy
import numpy as np
import pytest

from qifkit.errors import TimeLimitReached
from qifkit.lp.highs import highs_model, run_highs
from qifkit.lp.program import LinearProgram


def _assignment(k: int = 120) -> LinearProgram:
    """An assignment problem of k × k variables: hundreds of simplex iterations."""
    costs = np.random.default_rng(1).integers(1, 1000, k * k)
    rows = [{i * k + j: 1 for j in range(k)} for i in range(k)] + [{i * k + j: 1 for i in range(k)} for j in range(k)]
    return LinearProgram.build(k * k, rows, row_lower=[1] * (2 * k), row_upper=[1] * (2 * k),
                               cost=[int(c) for c in costs])


def _signal_at_first_iteration(highs, number: int) -> list[int]:
    """Send `number` to this process when HiGHS first calls its simplex check; the calls seen."""
    seen: list[int] = []

    def send(event) -> None:
        seen.append(1)
        if len(seen) == 1:
            os.kill(os.getpid(), number)

    highs.setOptionValue("presolve", "off")
    highs.cbSimplexInterrupt += send
    return seen


def test_ctrl_c_inside_highs_stops_highs_and_raises_after_it():
    highs = highs_model(_assignment())
    seen = _signal_at_first_iteration(highs, signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        run_highs(highs, None)
    assert seen, "HiGHS never called its simplex check"
    assert highs.getModelStatus() == highspy.HighsModelStatus.kInterrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_alarm_inside_highs_reaches_its_own_handler_after_highs():
    def alarm(number, frame):
        raise TimeLimitReached

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        highs = highs_model(_assignment())
        _signal_at_first_iteration(highs, signal.SIGALRM)
        with pytest.raises(TimeLimitReached):
            run_highs(highs, None)
        assert highs.getModelStatus() == highspy.HighsModelStatus.kInterrupt
        assert signal.getsignal(signal.SIGALRM) is alarm
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_no_signal_no_change():
    highs = highs_model(_assignment())
    highs.setOptionValue("presolve", "off")
    run_highs(highs, None)
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
