"""The registry of claim checks: one registered function per claim id of the ledger.

A check is a function without required arguments, decorated with :func:`claim`, whose docstring
states, in labelled paragraphs, ``Source:`` (paper and item), ``Statement:`` (the claim in our
words), ``Method:`` and ``Assumptions:`` (finite grids, chosen ε). It returns an :class:`Outcome`.
Golden values are keyword arguments with the paper's values as defaults, so a test can feed a
wrong value and see the check fail.

Statuses: ``confirmed`` (the claim holds as stated, on the stated grid), ``reproduced`` (an
example or counterexample rebuilt with matching values), ``erratum`` (the printed text is wrong in
a detail; the corrected statement holds and the evidence says what differs), ``failed``.
"""

from __future__ import annotations

import enum
import inspect
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qifkit.errors import LabelError, QifError
from qifkit.numbers import exact_str

__all__ = [
    "Status",
    "Outcome",
    "Check",
    "Result",
    "claim",
    "registry",
    "run_check",
    "checked_evidence",
    "CheckFailedError",
    "jsonable",
]


class Status(str, enum.Enum):
    """How a check ended."""

    CONFIRMED = "confirmed"
    REPRODUCED = "reproduced"
    ERRATUM = "erratum"
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    """What a check found: its status, a one-line summary and the evidence (JSON-ready)."""

    status: Status
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def decide(cls, ok: bool, status: Status, summary: str, **evidence: Any) -> Outcome:
        """`status` when `ok`, else ``failed`` with the same evidence."""
        return cls(status if ok else Status.FAILED, summary if ok else f"FAILED: {summary}", jsonable(evidence))


_FIELDS = ("Source", "Statement", "Method", "Assumptions")


@dataclass(frozen=True)
class Check:
    """A registered claim check and the description read from its docstring."""

    id: str
    function: Callable[..., Outcome]
    source: str
    statement: str
    method: str
    assumptions: str


@dataclass(frozen=True)
class Result:
    """One check run: the outcome plus its identity and time."""

    check: Check
    outcome: Outcome
    seconds: float


_REGISTRY: dict[str, Check] = {}
_ID = re.compile(r"^[a-z0-9]+\.[a-z0-9.-]+$")


def _parse_docstring(doc: str, claim_id: str) -> dict[str, str]:
    """Read the labelled paragraphs ``Source:``, ``Statement:``, ``Method:``, ``Assumptions:``."""
    parts: dict[str, list[str]] = {}
    current = None
    for line in doc.splitlines():
        stripped = line.strip()
        label = next((name for name in _FIELDS if stripped.startswith(f"{name}:")), None)
        if label:
            current = label
            parts[current] = [stripped[len(label) + 1 :].strip()]
        elif current and stripped:
            parts[current].append(stripped)
        elif not stripped:
            current = None
    missing = [name for name in _FIELDS if name not in parts]
    if missing:
        raise ValueError(f"check {claim_id} docstring lacks {', '.join(missing)}")
    return {name.lower(): " ".join(parts[name]) for name in _FIELDS}


def claim(claim_id: str) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Register the decorated function as the check of `claim_id`."""
    if not _ID.match(claim_id):
        raise ValueError(f"claim id {claim_id!r} is not of the form paper.item")

    def register(function: Callable[..., Outcome]) -> Callable[..., Outcome]:
        if claim_id in _REGISTRY:
            raise ValueError(f"claim id {claim_id} is registered twice")
        text = _parse_docstring(function.__doc__ or "", claim_id)
        _REGISTRY[claim_id] = Check(claim_id, function, **text)
        return function

    return register


def registry() -> dict[str, Check]:
    """Every registered check, by id, after importing the paper modules."""
    from proofs_checks import beyond, cormode2018, holohan2017, kohli2026  # noqa: F401
    from proofs_checks.alvim2023 import mechanisms, refinement, stability  # noqa: F401

    return dict(sorted(_REGISTRY.items()))


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


def jsonable(value: Any) -> Any:
    """Evidence as JSON data: exact numbers become strings like ``"1276949536000/771895089"``."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Fraction) or (type(value) is int and value.bit_length() >= 12_000):
        return exact_str(value)  # any size (JSON and str() refuse ints of more than 4300 digits)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)  # sympy expressions, labels: their exact text
