"""The registry of claim checks: every check of the paper modules, by claim id, and how one runs
(:mod:`proofs_checks.claims` says how a check is written).
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Any

from proofs_checks.claims import Check, Outcome, Status, registered_checks
from qifkit.errors import LabelError, QifError

__all__ = ["Result", "registry", "run_check", "run_check_by_id", "checked_evidence", "CheckFailedError"]


@dataclass(frozen=True)
class Result:
    """One check run: the outcome plus its identity and time."""

    check: Check
    outcome: Outcome
    seconds: float


def registry() -> dict[str, Check]:
    """Every registered check, by id, after importing the paper modules."""
    from proofs_checks import beyond, cormode2018, holohan2017, kohli2026  # noqa: F401
    from proofs_checks.alvim2023 import mechanisms, refinement, stability  # noqa: F401

    return registered_checks()


def run_check(check: Check, full: bool = False) -> Result:
    """Run one check; an exception becomes a ``failed`` outcome naming it.

    With ``full``, a check that has a ``full`` keyword runs its long variant (wider grids, larger n).
    """
    start = time.perf_counter()
    try:
        takes_full = "full" in inspect.signature(check.function).parameters
        outcome = check.function(full=True) if full and takes_full else check.function()
    except Exception as error:  # a check that crashes has failed; the run goes on
        outcome = Outcome(Status.FAILED, f"FAILED: {type(error).__name__}: {error}", {"error": repr(error)})
    return Result(check, outcome, time.perf_counter() - start)


def run_check_by_id(claim_id: str, full: bool = False) -> tuple[Outcome, float]:
    """Run the check registered as `claim_id` where this is called (a Dask worker of ``qifkit check
    --workers``): its outcome and seconds, as :func:`run_check` gives them."""
    result = run_check(registry()[claim_id], full)
    return result.outcome, result.seconds


class CheckFailedError(QifError, RuntimeError):
    """A registered check did not reproduce its claim."""


def checked_evidence(claim_id: str) -> dict[str, Any]:
    """Run the check of `claim_id` (default variant) and return its JSON-ready evidence.

    This is how a notebook or script ties a number it shows to `qifkit check`: exact values appear
    in the evidence as exact strings (``"13/1188"``).

    Raises
    ------
    LabelError
        If no check is registered under `claim_id`.
    CheckFailedError
        If the check fails (its summary names what went wrong).
    """
    checks = registry()
    if claim_id not in checks:
        raise LabelError(f"no check is registered as {claim_id!r}")
    outcome = run_check(checks[claim_id]).outcome
    if outcome.status is Status.FAILED:
        raise CheckFailedError(f"check {claim_id} failed: {outcome.summary}")
    return outcome.evidence


