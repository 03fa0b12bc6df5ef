"""How a claim check is written: the :func:`claim` decorator and what a check returns.

A check is a function without required arguments, decorated with :func:`claim`, whose docstring
states, in labelled paragraphs, ``Source:`` (paper and item), ``Statement:`` (the claim in our
words), ``Method:`` and ``Assumptions:`` (finite grids, chosen ε). It returns an :class:`Outcome`.
Golden values are keyword arguments with the paper's values as defaults, so a test can feed a
wrong value and see the check fail.

Statuses: ``confirmed`` (the claim holds as stated, on the stated grid), ``reproduced`` (an
example or counterexample rebuilt with matching values), ``erratum`` (the printed text is wrong in
a detail; the corrected statement holds and the evidence says what differs), ``failed``.

The paper modules import this module only; :mod:`proofs_checks.registry` imports the paper modules
to collect their checks (so no import cycle joins the two).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from qifkit.numbers import exact_str

__all__ = ["Status", "Outcome", "Check", "claim", "registered_checks", "jsonable"]


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

    @classmethod
    def confirmed_unless(cls, failures: list[Any], summary: str, **evidence: Any) -> Outcome:
        """``confirmed`` when no case failed, else ``failed``: the checks' common verdict. The
        evidence lists the first :data:`SHOWN_FAILURES` failures (and their number when more)."""
        shown = {"failures": failures[:SHOWN_FAILURES]}
        if len(failures) > SHOWN_FAILURES:
            shown["failures_total"] = len(failures)
        return cls.decide(not failures, Status.CONFIRMED, summary, **evidence, **shown)


#: How many failing cases an outcome lists (the first ones found).
SHOWN_FAILURES = 5

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


def registered_checks() -> dict[str, Check]:
    """The checks registered so far, by id, sorted (:func:`proofs_checks.registry.registry`
    imports the paper modules first)."""
    return dict(sorted(_REGISTRY.items()))


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
