"""Deterministic post-processors (Alvim et al. 2023, Def. 13, §5.2, eq. (16)).

A deterministic post-processor is a 0/1 channel with exactly one 1 per row: a total function from
its inputs to its outputs. Every output here is the image of some input, as Def. 13 requires.

Examples
--------
>>> from qifkit import randomized_response
>>> pairs = randomized_response(2, "3").power(2)
>>> (pairs @ count_query(pairs.outputs, counted={0})).rows()[0]
[Fraction(1, 16), Fraction(3, 8), Fraction(9, 16)]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any

from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel, _labels
from qifkit.errors import LabelError, ShapeError

__all__ = ["deterministic", "count_query", "sum_query"]


def deterministic(
    function: Callable[[Hashable], Hashable],
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
            distinct.sort()  # type: ignore[type-var]
        except TypeError:
            pass
        outputs = distinct
    columns = {label: j for j, label in enumerate(_labels(outputs, len(tuple(outputs)), "output"))}
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
    return Channel(matrix, _labels(inputs, len(inputs), "secret"), tuple(columns))


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
