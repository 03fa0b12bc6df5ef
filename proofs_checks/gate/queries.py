"""The query kinds a spec may ask (``[query] kind``), one type each: what it releases of the
perturbed reports, how many outputs its pipeline has, how the pipeline is built, and which routes
and proofs apply to it. The rest of the gate asks the query, never compares its name.

* ``count``: how many reports fall in the counted values (Alvim et al. Def. 21);
* ``threshold``: whether that count reaches ``at``; ``map``: the user's label of the count;
* ``sum``: the sum of the reports (eq. (16)); ``histogram``: how many reported each value;
* ``argmax``: the noisy ArgMax of the histogram of all respondents (§8), each bar perturbed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from qifkit.channel import Channel
from qifkit.pipelines import argmax_pipeline, count_pipeline, histogram_pipeline, histograms, sum_pipeline
from qifkit.postprocess import deterministic

__all__ = ["Query", "QUERIES", "bounded_comb"]


def bounded_comb(total: int, chosen: int, limit: int) -> int:
    """C(total, chosen), or limit + 1 once it is known to exceed `limit` (without computing a
    number of a billion digits for a spec that asks for one)."""
    chosen = min(chosen, total - chosen)
    value = 1
    for i in range(chosen):
        value = value * (total - i) // (i + 1)
        if value > limit:
            return limit + 1
    return value


@dataclass(frozen=True)
class Query:
    """A query kind; each kind is a subclass that says its outputs and builds its pipeline.

    Attributes
    ----------
    name : str
        As the spec writes it.
    counts : bool
        A tally of the counted values, perhaps relabelled (count, threshold, map): it needs
        ``of``, and its exact loss comes from generating functions without the pipeline
        (:func:`qifkit.pipelines.count_uncertainty`).
    ball : bool
        Decided on a range in ball arithmetic (:mod:`qifkit.ball_range`: counts and sums).
    proof : bool
        Proved for every analyst on a range at any size (a count or a histogram:
        :func:`proofs_checks.gate.proofs.every_analyst_on_range`).
    bars : bool
        Perturbs bar heights 0..respondents, not values (ArgMax): the secrets are the histograms of
        all respondents, and nobody is known.
    witness : bool
        Grid pairs may be refined by the lumped witness of :func:`qifkit.pipelines.count_witness`
        (the count itself) before an LP.
    mode : bool
        Releases the count itself, so one target's Bayes risk under a uniform prior is decided on
        a range by the others' mode (:mod:`qifkit.mode_range`).
    """

    name: str
    counts: bool = False
    ball: bool = False
    proof: bool = False
    bars: bool = False
    witness: bool = False
    mode: bool = False

    def outputs(self, spec: Any, limit: int) -> int:
        """How many outputs the spec's pipeline has (capped at limit + 1 where it could be huge)."""
        raise NotImplementedError

    def release(self, spec: Any) -> Callable[[int], Any] | None:
        """What a counting query releases of the count: the count itself (None) unless said."""
        return None

    def side(self, spec: Any) -> int:
        """The perturber's side: its values (bar heights 0..respondents for ArgMax)."""
        return spec.values

    def pipeline(self, spec: Any, perturber: Channel, known: Sequence[Any], values: Sequence[Any] | None) -> Channel:
        """The spec's pipeline from its perturber at one e^ε (`known` and `values` as
        :func:`proofs_checks.gate.pipelines.with_population` gives them)."""
        raise NotImplementedError


class CountQuery(Query):
    """How many reports fall in the counted values; a subclass relabels the count."""

    def outputs(self, spec: Any, limit: int) -> int:
        labels = self.release(spec)
        return spec.respondents + 1 if labels is None else len({labels(c) for c in range(spec.respondents + 1)})

    def pipeline(self, spec: Any, perturber: Channel, known: Sequence[Any], values: Sequence[Any] | None) -> Channel:
        counts = count_pipeline(perturber, spec.respondents, set(spec.counted), known, values)
        release = self.release(spec)
        if release is None:
            return counts
        labels = tuple(dict.fromkeys(release(count) for count in counts.outputs))
        post = deterministic(release, counts.outputs, labels)
        return counts @ (post if spec.exact else post.to_float())


class ThresholdQuery(CountQuery):
    """Whether the count reaches ``at``."""

    def release(self, spec: Any) -> Callable[[int], Any] | None:
        return lambda count: int(count >= spec.at)


class MapQuery(CountQuery):
    """The user's label of the count (``table``)."""

    def release(self, spec: Any) -> Callable[[int], Any] | None:
        return lambda count: spec.table[count]


class SumQuery(Query):
    """The sum of the reports."""

    def outputs(self, spec: Any, limit: int) -> int:
        return (spec.values - 1) * spec.respondents + 1

    def pipeline(self, spec: Any, perturber: Channel, known: Sequence[Any], values: Sequence[Any] | None) -> Channel:
        return sum_pipeline(perturber, spec.respondents, known, values)


class HistogramQuery(Query):
    """How many reported each value."""

    def outputs(self, spec: Any, limit: int) -> int:
        return bounded_comb(spec.respondents + spec.values - 1, spec.values - 1, limit)

    def pipeline(self, spec: Any, perturber: Channel, known: Sequence[Any], values: Sequence[Any] | None) -> Channel:
        return histogram_pipeline(perturber, spec.respondents, known, values)


class ArgmaxQuery(Query):
    """The noisy ArgMax of the histogram of all respondents, each bar's height perturbed."""

    def outputs(self, spec: Any, limit: int) -> int:
        return spec.values

    def side(self, spec: Any) -> int:
        return spec.respondents + 1

    def pipeline(self, spec: Any, perturber: Channel, known: Sequence[Any], values: Sequence[Any] | None) -> Channel:
        return argmax_pipeline(perturber, spec.values, histograms(spec.values, spec.respondents))


#: Every query kind, by its name in a spec.
QUERIES: dict[str, Query] = {query.name: query for query in (
    CountQuery("count", counts=True, ball=True, proof=True, witness=True, mode=True),
    ThresholdQuery("threshold", counts=True, ball=True),
    MapQuery("map", counts=True, ball=True),
    SumQuery("sum", ball=True),
    HistogramQuery("histogram", proof=True),
    ArgmaxQuery("argmax", bars=True),
)}
