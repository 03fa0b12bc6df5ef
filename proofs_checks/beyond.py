"""Results none of the papers has, computed and certified here."""

from __future__ import annotations

import math
from typing import Any

from proofs_checks.registry import Outcome, Status, claim
from qifkit import truncated_geometric, verify_certificate
from qifkit.pipelines import argmax_pipeline, histograms
from qifkit.stability import Instability, smallest_instability

ARGMAX_GRID = ("11/10", "6/5", "3/2", "2", "3", "5", "10")
ARGMAX_SIZES = ((2, 1), (3, 1), (2, 2), (2, 3), (3, 2), (4, 1))


def smallest_argmax_instability(sizes: tuple[tuple[int, int], ...] = ARGMAX_SIZES,
                                grid: tuple[str, ...] = ARGMAX_GRID) -> tuple[dict[str, int], tuple[int, int] | None, list[Instability]]:
    """Search (K, N) in order of the number of histograms C(N+K−1, K−1), then K: for each, how many
    grid pairs are unstable; the first (K, N) with one, and its instabilities."""
    ordered = sorted(sizes, key=lambda s: (math.comb(s[1] + s[0] - 1, s[0] - 1), s[0], s[1]))

    def builder(bars: int, respondents: int) -> Any:
        secrets = histograms(bars, respondents)
        return lambda e: argmax_pipeline(truncated_geometric(respondents + 1, e), bars, secrets)

    table, first, found = smallest_instability(((size, builder(*size)) for size in ordered), grid)
    return {f"K={k}, N={n}": count for (k, n), count in table.items()}, first, found


def instability_evidence(instability: Instability) -> dict[str, Any]:
    """The certificate of an instability as JSON-ready evidence."""
    certificate = instability.certificate
    return {
        "eps_exp_low": instability.eps_exp_low,
        "eps_exp_high": instability.eps_exp_high,
        "prior": certificate.prior.probabilities(),
        "loss": certificate.loss.rows(),
        "uncertainty_more_private": certificate.uncertainty_b,
        "uncertainty_less_private": certificate.uncertainty_a,
        "gap": certificate.gap,
    }


@claim("beyond.argmax-smallest")
def argmax_smallest(sizes: tuple[tuple[int, int], ...] = ARGMAX_SIZES, grid: tuple[str, ...] = ARGMAX_GRID) -> Outcome:
    """The smallest noisy-ArgMax instability.

    Source: beyond the papers (Alvim et al. 2023, Lemma 26 proves instability without an example).
    Statement: two voters and two categories already make noisy ArgMax unstable: for every pair
    e^ε' < e^ε of the grid, (GD_ε)^{⊗2}·ArgMax ⋢ (GD_ε')^{⊗2}·ArgMax on the 3 histograms. With one
    voter (K = 2, 3, 4) no pair of the grid is unstable, so K = 2, N = 2 is the smallest unstable
    size searched.
    Method: for each (K, N) in order of the number of histograms, every pair of the grid is decided
    by `refines` with an exact certificate; the representative certificate (e^ε = 2 vs 3) is
    re-verified by the exact checker.
    Assumptions: the sizes (K, N) in {(2,1), (3,1), (4,1), (2,2), (2,3), (3,2)} and the finite grid
    e^ε in {11/10, 6/5, 3/2, 2, 3, 5, 10}; stability of N = 1 is shown only on that grid.
    """
    table, first, found = smallest_argmax_instability(sizes, grid)
    representative = next((i for i in found if (i.eps_exp_low, i.eps_exp_high) == ("2", "3")), found[0] if found else None)
    ok = first == (2, 2) and representative is not None
    if ok:
        secrets = histograms(2, 2)
        a = argmax_pipeline(truncated_geometric(3, representative.eps_exp_high), 2, secrets)
        b = argmax_pipeline(truncated_geometric(3, representative.eps_exp_low), 2, secrets)
        ok = verify_certificate(a, b, representative.certificate)
    return Outcome.decide(
        ok, Status.CONFIRMED,
        f"smallest unstable noisy ArgMax: K=2, N=2 (all {len(found)} grid pairs); gap {representative.certificate.gap if representative else None} at e^ε 2 vs 3",
        unstable_pairs_by_size=table, smallest=first, grid=list(grid),
        certificate=instability_evidence(representative) if representative else None,
    )
