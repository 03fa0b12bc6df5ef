"""The deploy gate's spec as typed values (:class:`StabilitySpec`, filled once by
:mod:`~proofs_checks.gate.parse`), its certificates (:class:`Certified`) and its error
(:class:`SpecError`)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from proofs_checks.gate.queries import QUERIES, Query
from qifkit.channel import Channel
from qifkit.errors import QifError
from qifkit.measures import Loss, Prior
from qifkit.refinement import Refinement


class SpecError(QifError, ValueError):
    """A stability spec names an unknown key or value, or asks for something impossible."""


@dataclass(frozen=True)
class StabilitySpec:
    """A validated stability spec (its format: :mod:`proofs_checks.gate.parse`)."""

    family: str
    values: int
    respondents: int
    known: tuple[int, ...]
    query: str
    counted: tuple[int, ...]
    prior: Any
    loss: str
    scale: Fraction
    eps_exp: tuple[Fraction, ...]
    exact: bool
    eps_range: tuple[Fraction, Fraction] | None = None
    files: tuple[tuple[Fraction, str], ...] = ()  # family "file": (e^ε, path of its perturber's CSV)
    matrix: str | None = None  # family "expression": the CSV of its entries as rational functions of t = e^ε
    at: int = 0  # a threshold query releases whether the count is at least `at`
    quality: str | None = None  # family "exponential": the CSV of its quality Q(value, report)
    sensitivity: Fraction = Fraction(1)  # family "exponential": the sensitivity s of Q
    table: tuple[str, ...] = ()  # a map query: the label released for each count 0..respondents
    before: tuple[int, ...] = ()  # a pre-processor: the perturber's input for each value 0..values-1
    # a family of polytopes (PerturberFamily): its build(e^ε), made when the spec was read
    built: Callable[[Any], Channel] | None = dataclasses.field(default=None, compare=False, repr=False)
    inputs: tuple[str, ...] = ()  # every file the spec names (perturbers, quality, pre-processor, map, prior, loss)
    question: str = "analyst"  # whose stability gates the release: "analyst" (the spec's) or "every_analyst"
    tolerance: Fraction = Fraction(0)  # the largest rise of the spec's analyst's loss that still passes
    # why the pipeline cannot be built (beyond the size limits), for a range that a proof may still settle
    oversize: str | None = None
    # the population model: each of `others` unknown respondents who are not the secret holds a value drawn
    # from `population` (one probability per value); None: every unknown respondent is the secret
    population: tuple[Fraction, ...] | None = None
    others: int = 0
    # how the perturber and the analyst are made from the spec (by the parser: families and pipelines
    # build on this model, so it cannot name them)
    perturber_of: Callable[[StabilitySpec], Callable[[int, Any], Channel]] | None = dataclasses.field(
        default=None, compare=False, repr=False)
    analyst_of: Callable[[StabilitySpec], tuple[Prior, Loss]] | None = dataclasses.field(
        default=None, compare=False, repr=False)

    @property
    def kind(self) -> Query:
        """The query's type (:data:`~proofs_checks.gate.queries.QUERIES`)."""
        return QUERIES[self.query]

    @functools.cached_property
    def perturber(self) -> Callable[[int, Any], Channel]:
        """The perturber at (values, e^ε), built once per spec: a named family, the file given for
        that e^ε, the expression or exponential perturber (their CSV read once), after the
        pre-processor when there is one (:func:`proofs_checks.gate.families.perturber_family`)."""
        assert self.perturber_of is not None, "a spec is made by proofs_checks.gate.parse"
        return self.perturber_of(self)

    @functools.cached_property
    def analyst(self) -> tuple[Prior, Loss]:
        """The spec's prior and loss on its secrets, exact and scaled, built once per spec (a prior or
        loss CSV is read once; :func:`proofs_checks.gate.pipelines.exact_analyst`)."""
        assert self.analyst_of is not None, "a spec is made by proofs_checks.gate.parse"
        return self.analyst_of(self)


@dataclass(frozen=True)
class Certified:
    """A checked refinement verdict between two pipelines of the spec, for ``qifkit verify``:
    `less_private` (at e^ε = `eps_exp_high`) ⊑ `more_private` (at `eps_exp_low`) holds with a
    witness, or fails with a prior, loss and gap."""

    name: str
    eps_exp_low: Fraction
    eps_exp_high: Fraction
    less_private: Channel
    more_private: Channel
    certificate: Refinement
