"""Algorithm 1's bookkeeping, the same in every arithmetic: the column selectors κ (§6) and the
runs of rows joined by tight privacy bounds (Step 7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from qifkit.errors import LabelError

__all__ = ["SELECTORS", "Selector", "Placed", "column_chooser", "Runs"]


SELECTORS = ("max", "min", "sandwich")

Selector = str | Callable[..., int]

Placed = list[list[tuple[Any, np.ndarray]]]  # per column: (amount, row heights) of each scale


def column_chooser(selector: Selector) -> Callable[[Any, Any, Any, Any, np.ndarray], int]:
    """κ as a function of (z, r, c, A, open mask), r, c and A given as functions that compute them (only
    a callable κ, which gets (z, r, c, A) and is checked, needs them)."""
    if callable(selector):

        def custom(
            z: Any, r: Callable[[], Any], c: Callable[[], Any], a: Callable[[], Any], is_open: np.ndarray
        ) -> int:
            j = selector(z, r(), c(), a())
            if (
                isinstance(j, bool)
                or not isinstance(j, (int, np.integer))
                or not 0 <= j < len(is_open)
                or not is_open[j]
            ):
                raise LabelError(f"the column selector returned {j!r}, which is not an unfilled column (c_j > 0)")
            return int(j)
        return custom
    if selector not in SELECTORS:
        raise LabelError(f"unknown column selector {selector!r}; use one of {', '.join(SELECTORS)} or a callable")

    def builtin(z: Any, r: Callable[[], Any], c: Callable[[], Any], a: Callable[[], Any], is_open: np.ndarray) -> int:
        candidates = np.flatnonzero(is_open)
        if selector == "sandwich":  # columns are filled once each, in the order 0, n−1, 1, n−2, ...
            filled = len(is_open) - candidates.size
            return filled // 2 if filled % 2 == 0 else len(is_open) - 1 - filled // 2
        if isinstance(z, np.ndarray):
            values = z[candidates]
            return int(candidates[np.argmax(values) if selector == "max" else np.argmin(values)])
        pick = max if selector == "max" else min
        return int(pick(candidates, key=lambda j: (z[j], -j if selector == "max" else j)))
    return builtin


class Runs:
    """The rows of the remainder r joined by tight privacy bounds (Algorithm 1, Step 7).

    A bound of r between rows i and i + 1 that is tight stays tight, and every later scale follows
    it (s_{i+1}/s_i = r_{i+1}/r_i); so r, and each scale, is one number per run of rows joined by
    tight bounds times e^{ε·off_i}, where ``off`` is the row's height inside its run. This class
    keeps that integer bookkeeping; the arithmetic (exact or logarithmic) keeps one value of r and
    one weight Σ_{i in run} z_i·e^{ε·off_i} per run, which makes a step O(number of runs).
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.starts = np.arange(n)
        self.spans = np.zeros(n, dtype=np.int64)  # off of the run's last row
        self.off = np.zeros(n, dtype=np.int64)

    def lengths(self) -> np.ndarray:
        return np.diff(np.append(self.starts, self.n))

    def directions(self, j: int) -> np.ndarray:
        """The single-peaked pattern at column j across each loose bound: +1 left of j, −1 right."""
        return np.where(self.starts[1:] <= j, 1, -1)

    def heights(self, directions: np.ndarray) -> np.ndarray:
        """H_k, the scale's height (log base e^ε) at the first row of run k."""
        heights = np.zeros(self.starts.size, dtype=np.int64)
        np.cumsum(self.spans[:-1] + directions, out=heights[1:])
        return heights

    def row_heights(self, heights: np.ndarray) -> np.ndarray:
        return np.repeat(heights, self.lengths()) + self.off

    def merge(self, bounds: np.ndarray, directions: np.ndarray) -> list[tuple[int, int]]:
        """Join run k and k + 1 for every newly tight bound k; the bound's direction is the
        opposite of the scale's step there (the attained side of Prop. 2). Returns (k, shift) for
        each join, right to left, where run k + 1's heights move up by shift."""
        joined = []
        for k in sorted(bounds.tolist(), reverse=True):
            shift = int(self.spans[k]) - int(directions[k])
            end = self.starts[k + 2] if k + 2 < self.starts.size else self.n
            self.off[self.starts[k + 1]:end] += shift
            self.spans[k] = shift + self.spans[k + 1]
            self.starts = np.delete(self.starts, k + 1)
            self.spans = np.delete(self.spans, k + 1)
            joined.append((k, shift))
        return joined
