"""Deterministic post-processors (Alvim et al. 2023, Def. 13, §5.2, eq. (16)).

A deterministic post-processor is a 0/1 channel with exactly one 1 per row: a total function from
its inputs to its outputs. Every output here is the image of some input, as Def. 13 requires.

Examples
--------
>>> from qifkit import randomized_response
>>> pairs = randomized_response(2, eps_exp="3").power(2)
>>> (pairs @ count_query(pairs.outputs, counted={0})).rows()[0]
[Fraction(1, 16), Fraction(3, 8), Fraction(9, 16)]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any

from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel
from qifkit.errors import LabelError, NotStochasticError, ShapeError
from qifkit.labelled import checked_labels

__all__ = [
    "deterministic",
    "left_inverse",
    "count_query",
    "sum_query",
    "histogram_preprocessor",
    "argmax_postprocessor",
]


def deterministic(
    function: Callable[[Any], Hashable],
    inputs: Sequence[Hashable],
    outputs: Sequence[Hashable] | None = None,
) -> Channel:
    """The post-processor of `function` on `inputs`: row x has its 1 in column function(x).

    Parameters
    ----------
    function : callable
        Maps each input label to an output label.
    inputs : sequence
        The post-processor's secrets (usually the outputs of the channel it follows).
    outputs : sequence, optional
        The output labels in order; by default the values of `function`, sorted when they can
        be, else in order of first appearance. Every output must be reached (Def. 13).

    Raises
    ------
    LabelError
        If `function` leaves `outputs`, or an output is never reached.
    """
    inputs = tuple(inputs)
    if not inputs:
        raise ShapeError("a post-processor needs at least one input")
    images = [function(x) for x in inputs]
    if outputs is None:
        distinct = list(dict.fromkeys(images))
        try:
            distinct.sort()  # type: ignore[call-arg]
        except TypeError:
            pass
        outputs = distinct
    columns = {label: j for j, label in enumerate(checked_labels(outputs, len(tuple(outputs)), "output"))}
    missing = [image for image in images if image not in columns]
    if missing:
        raise LabelError(f"the function maps to {missing[0]!r}, which is not one of the outputs")
    unreached = set(columns) - set(images)
    if unreached:
        raise LabelError(f"output {next(iter(unreached))!r} is never reached (Def. 13 needs every output)")
    flat = [QQ(0)] * (len(inputs) * len(columns))
    for i, image in enumerate(images):
        flat[i * len(columns) + columns[image]] = QQ(1)
    matrix = DomainMatrix.from_list_flat(flat, (len(inputs), len(columns)), QQ)
    return Channel(matrix, checked_labels(inputs, len(inputs), "secret"), tuple(columns))


def count_query(inputs: Sequence[Sequence[Any]], counted: Collection[Hashable]) -> Channel:
    """The counting query T = B^{⊗N}·Y (Def. 21): a tuple of N answers -> how many are in `counted`.

    Outputs are 0..N (all of them, as Def. 21's tally has N+1 columns).
    """
    inputs = [tuple(x) for x in inputs]
    size = len(inputs[0]) if inputs else 0
    return deterministic(lambda x: sum(1 for v in x if v in counted), inputs, range(size + 1))


def sum_query(inputs: Sequence[Sequence[int]]) -> Channel:
    """The sum query S of eq. (16): a tuple of numbers -> their sum (outputs: the sums that occur)."""
    return deterministic(lambda x: sum(x), [tuple(x) for x in inputs])


def _deterministic_rows(post: Channel) -> list[int]:
    """For each row of a deterministic post-processor, the column of its single 1."""
    targets = []
    for i, row in enumerate(post.rows()):
        ones = [j for j, v in enumerate(row) if v == 1]
        if len(ones) != 1 or any(v not in (0, 1) for v in row):
            raise NotStochasticError(f"row {i} of the post-processor is not a single 1 among 0s (Def. 13)")
        targets.append(ones[0])
    missing = set(range(post.shape[1])) - set(targets)
    if missing:
        raise ShapeError(f"post-processor column {min(missing)} is never reached, so it has no left inverse")
    return targets


def left_inverse(post: Channel) -> Channel:
    """A left inverse ⁻¹P of a deterministic post-processor (Alvim et al. eq. (7)): for every
    output z it picks the first input mapped to z, so ⁻¹P·P = I."""
    targets = _deterministic_rows(post)
    first = {z: targets.index(z) for z in range(post.shape[1])}
    rows = [[1 if first[z] == y else 0 for y in range(post.shape[0])] for z in range(post.shape[1])]
    return Channel.from_rows(rows, secrets=post.outputs, outputs=post.secrets)


def histogram_preprocessor(values: Sequence[Hashable], respondents: int) -> Channel:
    """H of Alvim et al. §8: every tuple of `respondents` choices among `values` to its histogram
    (counts per value, in the order of `values`). It has values^respondents rows."""
    values = tuple(values)
    tuples = list(itertools.product(values, repeat=respondents))
    return deterministic(lambda t: tuple(t.count(v) for v in values), tuples)


def argmax_postprocessor(histograms: Sequence[Sequence[int]]) -> Channel:
    """The ArgMax post-processor A (Alvim et al. Alg. 3): a histogram to the index of a tallest
    bar, the lowest index on ties; outputs are all bar indices."""
    histograms = [tuple(h) for h in histograms]
    bars = len(histograms[0]) if histograms else 0

    def tallest(histogram: tuple[int, ...]) -> int:
        return histogram.index(max(histogram))

    return deterministic(tallest, histograms, range(bars))
