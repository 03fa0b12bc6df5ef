"""Small helpers the checks share to compare computed values with printed ones."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from qifkit import Channel, exact

__all__ = ["table_mismatches", "random_channel"]


def random_channel(rng: random.Random, rows: int, columns: int, top: int = 9) -> Channel:
    """A random exact channel: rows of integers 0..top (at least one positive) normalised."""
    table = []
    for _ in range(rows):
        weights = [rng.randint(0, top) for _ in range(columns)]
        weights[rng.randrange(columns)] += 1
        table.append([Fraction(w, sum(weights)) for w in weights])
    return Channel.from_rows(table)


def table_mismatches(computed: Sequence[Sequence[Any]], printed: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """Entries where an exact computed table differs from a printed one (number strings allowed).

    A difference in shape is reported as one mismatch naming both shapes.
    """
    shape = (len(computed), len(computed[0]) if computed else 0)
    printed_shape = (len(printed), len(printed[0]) if printed else 0)
    if shape != printed_shape:
        return [{"shape": list(shape), "printed_shape": list(printed_shape)}]
    return [
        {"row": i, "column": j, "computed": str(value), "printed": str(expected)}
        for i, (row, printed_row) in enumerate(zip(computed, printed, strict=True))
        for j, (value, expected) in enumerate(zip(row, printed_row, strict=True))
        if value != exact(expected)
    ]
