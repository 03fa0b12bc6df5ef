"""The gate's report as JSON: the one place its exact numbers become text.
"""

from __future__ import annotations

from typing import Any

from proofs_checks.claims import jsonable
from qifkit.numbers import exact_str
from qifkit.real_roots import RealPoint


def exact_text(value: Any) -> str:
    """An exact number of a report as text: a fraction as ``"p/q"``, an end of a rising stretch (a
    real algebraic number, :class:`~qifkit.real_roots.RealPoint`) as its rational value or its
    polynomial and isolating interval."""
    if isinstance(value, RealPoint):
        return exact_str(value.point) if value.is_rational else str(value)
    return exact_str(value)


def decimal_text(value: Any) -> str:
    """A number of a report to 12 significant digits, for reading (the exact text decides)."""
    return value.decimal(12) if isinstance(value, RealPoint) else f"{float(value):.12g}"


def report_document(report: dict[str, Any]) -> dict[str, Any]:
    """The report of :func:`evaluate_spec` as JSON data, the one place its numbers become text:
    exact numbers as ``"p/q"`` (any size), float-sweep losses as JSON numbers, and a range's rising
    stretches and breakpoints as 12-digit decimals (``rising``, ``breakpoints``) beside their exact
    ends (``rising_exact``)."""
    document = jsonable({key: value for key, value in report.items() if key != "range"})
    if "range" in report:
        interval = dict(report["range"])
        rising, exact_ends, breakpoints = (interval.pop(key, None) for key in ("rising", "rising_exact", "breakpoints"))
        document["range"] = jsonable(interval)
        if rising is not None:
            document["range"]["rising"] = [[decimal_text(v) for v in stretch] for stretch in rising]
        if exact_ends is not None:
            document["range"]["rising_exact"] = [[exact_text(v) for v in stretch] for stretch in exact_ends]
        if breakpoints is not None:
            document["range"]["breakpoints"] = [decimal_text(v) for v in breakpoints]
    return document
