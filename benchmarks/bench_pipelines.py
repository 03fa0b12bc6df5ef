"""Benchmark: lazy pipelines (generating functions, lumping) against materialised Kronecker powers.

1. App. D.1 exactly (Alvim et al.): 4 people, values 0..6, known (0, 1, 1), count of zeros,
   loss 1000·|w − x|, per e^ε: the lazy pipeline, and the materialised 7^4-column route
   (one-row channels for the known people, Kronecker product, counting matrix) in the same run.
2. Census scale in float64 (the shape of §9.2): 11,710 respondents, 6 values, all known but one
   (a synthetic population), count of value 0, Bayes-risk analyst with the empirical prior, 200
   values of e^ε from 1.1 to 21; then an exact spot check at one e^ε for N = 1,000 against the
   float route.

Run: ``.venv/bin/python benchmarks/bench_pipelines.py``
"""

from __future__ import annotations

import random
import time
from fractions import Fraction

import numpy as np

from qifkit import (
    Channel,
    Prior,
    bayes_risk,
    linear_error,
    posterior_uncertainty,
    prior_from_counts,
    truncated_geometric,
    uniform_prior,
)
from qifkit.measures import Loss
from qifkit.pipelines import count_pipeline
from qifkit.postprocess import count_query


def materialised_appd1(eps_exp: str) -> Channel:
    gd = truncated_geometric(7, eps_exp=eps_exp)
    people = [Channel.from_rows([[1 if v == k else 0 for v in range(7)]], secrets=("known",)) @ gd for k in (0, 1, 1)]
    everyone = people[0].kron(people[1]).kron(people[2]).kron(gd)
    flat = [(a, b, c, d) for ((a, b), c), d in everyone.outputs]
    return (everyone @ count_query(flat, {0}).relabel(secrets=everyone.outputs)).relabel(secrets=range(7))


def appd1() -> None:
    loss = linear_error(range(7)).scaled(1000)
    print("App. D.1, exact")
    print(f"{'e^ε':>8} {'lazy ms':>9} {'materialised ms':>16} {'ratio':>7}  loss")
    for eps_exp in ("7/2", "351/100"):
        start = time.perf_counter()
        lazy = posterior_uncertainty(
            uniform_prior(7), count_pipeline(truncated_geometric(7, eps_exp=eps_exp), 4, {0}, (0, 1, 1)), loss
        )
        lazy_ms = 1000 * (time.perf_counter() - start)
        start = time.perf_counter()
        full = posterior_uncertainty(uniform_prior(7), materialised_appd1(eps_exp), loss)
        full_ms = 1000 * (time.perf_counter() - start)
        assert lazy == full
        print(f"{eps_exp:>8} {lazy_ms:9.2f} {full_ms:16.1f} {full_ms / lazy_ms:6.0f}x  {lazy}")


def census() -> None:
    rng = random.Random(9)
    shares = [0.35, 0.05, 0.30, 0.10, 0.12, 0.08]  # a synthetic custody-status distribution
    known = tuple(rng.choices(range(6), weights=shares, k=11709))
    counts = [known.count(v) for v in range(6)]
    prior = Prior.from_floats([c / len(known) for c in counts])
    loss = Loss.from_floats([[0.0 if x == w else 1.0 for w in range(6)] for x in range(6)])
    grid = [Fraction(11, 10) + Fraction(k, 10) for k in range(200)]
    start = time.perf_counter()
    curve = [
        posterior_uncertainty(
            prior, count_pipeline(truncated_geometric(6, eps_exp=e).to_float(), 11710, {0}, known), loss
        )
        for e in grid
    ]
    seconds = time.perf_counter() - start
    rises = sum(1 for a, b in zip(curve, curve[1:], strict=False) if b > a + 1e-12)
    print(
        f"\ncensus scale, float64: 11,710 respondents, 6 values, 200 values of e^ε: {seconds:.2f} s in total "
        f"({1000 * seconds / len(grid):.1f} ms per e^ε); Bayes risk from {curve[0]:.6f} to {curve[-1]:.6f}; "
        f"{rises} rises along the grid (float)"
    )

    small_known = known[:999]
    eps_exp = "3"
    small_prior = prior_from_counts([small_known.count(v) for v in range(6)])
    start = time.perf_counter()
    exact_pipeline = count_pipeline(truncated_geometric(6, eps_exp=eps_exp), 1000, {0}, small_known)
    exact_value = posterior_uncertainty(small_prior, exact_pipeline, bayes_risk(range(6)))
    exact_seconds = time.perf_counter() - start
    float_value = posterior_uncertainty(
        Prior.from_floats([float(p) for p in small_prior.probabilities()]),
        count_pipeline(truncated_geometric(6, eps_exp=eps_exp).to_float(), 1000, {0}, small_known),
        loss,
    )
    float_rows = np.array(
        count_pipeline(truncated_geometric(6, eps_exp=eps_exp).to_float(), 1000, {0}, small_known).matrix
    )
    exact_rows = np.array([[float(v) for v in row] for row in exact_pipeline.rows()])
    print(
        f"exact spot check, N = 1,000 at e^ε = {eps_exp}: {exact_seconds:.2f} s; |float − exact| loss "
        f"{abs(float_value - float(exact_value)):.2e}, largest entry difference "
        f"{np.abs(float_rows - exact_rows).max():.2e}"
    )


if __name__ == "__main__":
    appd1()
    census()
