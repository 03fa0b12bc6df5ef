"""The gate's report as typed values, and its one JSON writer (:meth:`GateReport.document`): the one
place its exact numbers become text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from proofs_checks.claims import jsonable
from qifkit.numbers import exact_str
from qifkit.real_roots import RealPoint

#: The routes that follow the spec's analyst on a range (``RangeReport.route``): by root isolation,
#: in ball arithmetic, by the others' mode (one target's Bayes risk behind a count), by float samples
#: re-decided exactly, or not at all.
ROUTES = ("exact", "ball", "mode", "sampled", "not followed")
#: The routes that decide the analyst's loss at every e^ε of the range.
FOLLOWED = ("exact", "ball", "mode")


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


@dataclass
class PointLoss:
    """The spec's analyst's expected loss at one e^ε of the grid (exact, or a float sweep's)."""

    eps_exp: Fraction
    loss: Any


@dataclass
class PairReport:
    """One consecutive pair of the grid under the every-analyst question: ``verdict`` is
    ``"refines"``, ``"does not refine"``, ``"not decided"`` or ``"not compared"``, ``method`` the
    certificate's method or why it was not compared, ``certificate`` where it was written."""

    eps_exp_low: Fraction
    eps_exp_high: Fraction
    verdict: str = "not compared"
    method: str | None = None
    certificate: str | None = None


@dataclass
class Instability:
    """The first instability found: where (``found_by``: ``"analyst"``, ``"refinement"``,
    ``"range"`` or ``"constructed"``), the two e^ε, the prior and loss that show it and the exact
    losses and gap; ``pipelines`` says why they were not written, when they were not."""

    found_by: str
    eps_exp_low: Any
    eps_exp_high: Any
    prior: list[Any]
    loss: list[list[Any]]
    loss_low: Any
    loss_high: Any
    gap: Any
    pipelines: str | None = None


@dataclass
class Rise:
    """A rise of the spec's analyst's loss within the tolerance: where (``"grid"`` or ``"range"``),
    at least how large and at most how large (None: no upper bound found)."""

    where: str
    rise_at_least: Any
    rise_at_most: Any


@dataclass
class EveryAnalyst:
    """The proof for every analyst on the range: ``proof`` is the document ``qifkit verify
    --range-proof`` re-checks, or None with the ``reason`` there is none."""

    proof: dict[str, Any] | None
    reason: str | None = None

    @property
    def proved(self) -> bool:
        return self.proof is not None


@dataclass
class RangeReport:
    """The spec's range: the proof for every analyst, the route that followed the spec's analyst
    (:data:`ROUTES`) and what it found. ``rising`` holds the rising stretches (ends as exact
    algebraic numbers, or sampled e^ε) and ``rising_exact`` the points that decided them."""

    low: Fraction
    high: Fraction
    every_analyst: EveryAnalyst
    route: str = "not followed"
    analyst: str | None = None
    loss_from: Any = None
    loss_to: Any = None
    rising: list[list[Any]] | None = None
    rising_exact: list[list[Any]] | None = None
    breakpoints: list[Any] | None = None
    samples: int | None = None
    rises_not_confirmed: int | None = None
    ball: dict[str, Any] | str | None = None
    mode: dict[str, Any] | str | None = None
    constructed: str | None = None
    rise_bounds: list[list[Any]] | None = None

    @property
    def followed(self) -> bool:
        """Whether the route decided the analyst's loss at every e^ε of the range."""
        return self.route in FOLLOWED

    def document(self) -> dict[str, Any]:
        every = self.every_analyst
        document: dict[str, Any] = {
            "from": self.low, "to": self.high,
            "every_analyst": {"proved": True, **every.proof} if every.proof is not None else
            {"proved": False, "reason": every.reason}}
        for key in ("route", "analyst", "loss_from", "loss_to", "samples", "rises_not_confirmed", "ball",
                    "mode", "constructed", "rise_bounds"):
            if getattr(self, key) is not None:
                document[key] = getattr(self, key)
        document = jsonable(document)
        if self.rising is not None:
            document["rising"] = [[decimal_text(v) for v in stretch] for stretch in self.rising]
        if self.rising_exact is not None:
            document["rising_exact"] = [[exact_text(v) for v in stretch] for stretch in self.rising_exact]
        if self.breakpoints is not None:
            document["breakpoints"] = [decimal_text(v) for v in self.breakpoints]
        return document


@dataclass
class Covered:
    """What a verdict rests on: the question, the grid pairs compared out of all, and whether the
    range was proved for every analyst (None: no range)."""

    question: str
    grid_pairs_compared: int
    grid_pairs: int
    interval: str | None


@dataclass
class GateReport:
    """The report of :func:`~proofs_checks.gate.evaluate_spec`: the spec's question and tolerance,
    the grid's losses (``points``), whether the analyst's loss never rises (``monotone``: None when
    only sampled or stopped), each grid pair, the range, the first instability, the rises within the
    tolerance, and the verdict answering the question (``stable``: True, False, or None with
    ``undecided`` saying why), with what it covered. ``interrupted``: stopped by Ctrl-C."""

    question: str
    tolerance: Fraction
    arithmetic: str
    secrets: int | None
    coverage: str
    pairs: list[PairReport]
    points: list[PointLoss] = field(default_factory=list)
    monotone: bool | None = True
    instability: Instability | None = None
    rises_within_tolerance: list[Rise] = field(default_factory=list)
    range: RangeReport | None = None
    stable: bool | None = None
    undecided: str | None = None
    covered: Covered | None = None
    interrupted: bool = False

    def document(self) -> dict[str, Any]:
        """The report as JSON data: exact numbers as ``"p/q"`` (any size), float-sweep losses as JSON
        numbers, and a range's rising stretches and breakpoints as 12-digit decimals (``rising``,
        ``breakpoints``) beside their exact ends (``rising_exact``)."""
        document = jsonable({
            "question": self.question, "tolerance": self.tolerance, "arithmetic": self.arithmetic,
            "secrets": self.secrets, "coverage": self.coverage,
            "points": [vars(point) for point in self.points], "monotone": self.monotone,
            "instability": None if self.instability is None else
            {key: value for key, value in vars(self.instability).items() if key != "pipelines" or value},
            "rises_within_tolerance": [vars(rise) for rise in self.rises_within_tolerance],
            "pairs": [{key: value for key, value in vars(pair).items() if key != "certificate" or value}
                      for pair in self.pairs],
            "stable": self.stable, "undecided": self.undecided,
            "covered": None if self.covered is None else vars(self.covered)})
        if self.range is not None:
            document["range"] = self.range.document()
        if self.interrupted:
            document["interrupted"] = True
        return document
