"""Benchmark: an analyst's loss over a range of e^ε by ball arithmetic (qifkit.ball_range) beside
the exact route of real-root isolation (qifkit.stability.loss_on_range) in the same process, on
App. D.1's pipeline and on geometric count pipelines of growing population (6 values, the count
of {0, 1}, all but one respondent known, uniform prior, squared loss, e^ε in [11/10, 20]), and on a
sum of 40 geometric reports; the exact route is not run beyond 12 respondents (minutes).

Columns: seconds of each route, their ratio, and what the balls decided (the share of the range's
length proved falling, rising or turning, and the enclosures spent within a budget of 4,000).

Run: ``.venv/bin/python benchmarks/bench_ball_range.py``
"""

from __future__ import annotations

import time
from fractions import Fraction

from qifkit import linear_error, squared_error, truncated_geometric, uniform_prior
from qifkit.ball_range import UNDECIDED, count_loss_on_range, sum_loss_on_range
from qifkit.pipelines import count_pipeline
from qifkit.stability import loss_on_range


def _row(name: str, values: int, respondents: int, counted: set[int], known: tuple[int, ...], loss, low: Fraction,
         high: Fraction, exact_too: bool = True) -> None:
    prior = uniform_prior(range(values))

    def family(t):
        return truncated_geometric(values, eps_exp=t)

    started = time.perf_counter()
    exact = (loss_on_range(lambda t: count_pipeline(family(t), respondents, counted, known), low, high, prior, loss)
             if exact_too else None)
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    ball = count_loss_on_range(family, respondents, counted, prior, loss, low, high, known=known)
    seconds = time.perf_counter() - started
    decided = sum((p.high - p.low for p in ball.pieces if p.direction != UNDECIDED), Fraction(0)) / (high - low)
    verdict = {True: "never rises", False: "rises", None: "undecided"}[ball.monotone]
    exact_cell = f"{baseline:.2f} s ({'monotone' if exact.monotone else 'rises'})" if exact else "not run (minutes)"
    ratio = f"{seconds / baseline:.2f}×" if exact else "—"
    print(f"| {name} | {exact_cell} | {seconds:.2f} s | {ratio} | {verdict}: {float(decided):.1%} of the range, "
          f"{ball.evaluations} enclosures |", flush=True)


def main() -> None:
    print("| pipeline | exact root isolation | ball arithmetic | ratio | balls decided |")
    print("|---|---|---|---|---|")
    _row("App. D.1 (7 values, N = 4), linear loss, [3, 4]", 7, 4, {0}, (0, 1, 1), linear_error(range(7)),
         Fraction(3), Fraction(4))
    for respondents in (2, 4, 6, 8, 12, 30, 60):
        known = tuple(k % 6 for k in range(respondents - 1))
        _row(f"geometric, 6 values, N = {respondents}", 6, respondents, {0, 1}, known, squared_error(range(6)),
             Fraction(11, 10), Fraction(20), exact_too=respondents <= 12)
    _sum_row(40)


def _sum_row(respondents: int) -> None:
    """Geometric on 4 values, the sum of the reports, all but one known, squared loss, [3/2, 8]: the
    balls alone (root isolation takes minutes at this degree)."""
    known = tuple(k % 4 for k in range(respondents - 1))
    started = time.perf_counter()
    ball = sum_loss_on_range(lambda t: truncated_geometric(4, eps_exp=t), respondents, uniform_prior(range(4)),
                             squared_error(range(4)), Fraction(3, 2), Fraction(8), known=known)
    seconds = time.perf_counter() - started
    verdict = {True: "never rises", False: "rises", None: "undecided"}[ball.monotone]
    print(f"| geometric, 4 values, sum of N = {respondents} | not run (minutes) | {seconds:.2f} s | — | {verdict}, "
          f"{ball.evaluations} enclosures |", flush=True)


if __name__ == "__main__":
    main()
