"""Checks of Alvim et al. (CCS 2023) on refinement (§§3-7): Lemma 5, the RR and GD families, Lemma 17,
the App. E tables and loss, and the zeros and sums of §7.1.

Each function below is one claim of the ledger; its docstring states source, statement, method
and assumptions, and its keyword defaults are the paper's printed values (:mod:`.values`).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

from proofs_checks.alvim2023 import values as paper
from proofs_checks.claims import Outcome, Status, claim
from proofs_checks.evidence import random_channel, table_mismatches
from qifkit import (
    Channel,
    Loss,
    Refinement,
    count_adjacency,
    exact,
    local_adjacency,
    posterior_uncertainty,
    randomized_response,
    refines,
    tightest_eps_exp,
    truncated_geometric,
    uniform_prior,
    verify_certificate,
)
from qifkit.numbers import reduced_fraction
from qifkit.postprocess import count_query, deterministic, sum_query


@claim("alvim23.lemma5")
def lemma5(trials: int = 60, seed: int = 5) -> Outcome:
    """Refinement never weakens ε-DP.

    Source: Alvim et al. 2023, Lemma 5 (and the DPI of §2.1).
    Statement: if C ⊑ C' and C is ε-DP then so is C'; in particular the tightest e^ε of C·W is at
    most that of C for every stochastic W, on every adjacency relation.
    Method: random exact channels C and witnesses W; C ⊑ C·W is certified by `refines` (and
    re-verified), and the exact tightest e^ε of C and C·W are compared on local DP (all pairs) and
    on the count path graph.
    Assumptions: a finite sample: `trials` random pairs (sizes 2-5) from a fixed seed.
    """
    rng = random.Random(seed)
    problems = []
    for trial in range(trials):
        c = random_channel(rng, rng.randint(2, 5), rng.randint(2, 5))
        post = c @ random_channel(rng, c.shape[1], rng.randint(1, 5))
        certificate = refines(c, post)
        if not (certificate.holds and verify_certificate(c, post, certificate)):
            problems.append(f"trial {trial}: C ⊑ C·W not certified")
        for name, graph in (("local", local_adjacency(c.secrets)), ("path", count_adjacency(c.secrets))):
            before, after = tightest_eps_exp(c, graph).eps_exp, tightest_eps_exp(post, graph).eps_exp
            if after > before:
                problems.append(f"trial {trial} ({name}): e^ε rose from {before} to {after}")
    return Outcome.decide(
        not problems, Status.CONFIRMED,
        f"ε(C·W) ≤ ε(C) and C ⊑ C·W certified on {trials} random exact pairs (local and path adjacency)",
        trials=trials, seed=seed, problems=problems,
    )


RR_FAMILY_GRID = ("11/10", "2", "3", "7/2", "100")


@claim("alvim23.rr-family")
def rr_family(values: range = range(2, 6), grid: tuple[str, ...] = RR_FAMILY_GRID) -> Outcome:
    """Randomised response is a refinement-preserving family whose witnesses are RR matrices.

    Source: Alvim et al. 2023, §4.1 (before Lemma 14), Def. 6, with [16].
    Statement: for e^ε' ≤ e^ε, RR_ε ⊑ RR_ε' with witness R'' = q·I + (1−q)·U, q = p(ε')/p(ε) where
    p(ε) = (e^ε − 1)/(e^ε − 1 + K); R'' is itself RR with e^ε'' = 1 + Kq/(1−q). For e^ε' > e^ε
    refinement fails.
    Method: the closed-form R'' is built, RR_ε·R'' = RR_ε' is checked exactly, R'' is compared with
    the toolkit's RR at e^ε'', and `refines` (whose witness is unique, RR_ε being invertible) must
    return R''; the reverse direction must come back refuted with a verified certificate.
    Assumptions: K = 2..5 and e^ε over the finite grid {11/10, 2, 3, 7/2, 100}.
    """
    problems = []
    pairs = 0
    for count in values:
        for high, low in itertools.combinations(sorted((exact(g) for g in grid), reverse=True), 2):
            pairs += 1
            def p(e: Fraction) -> Fraction:
                return (e - 1) / (e - 1 + count)  # noqa: B023 (called at once)
            q = p(low) / p(high)
            closed = Channel.from_rows([[q + (1 - q) / count if r == c else (1 - q) / count for c in range(count)]
                                        for r in range(count)])
            strong, weak = randomized_response(count, eps_exp=high), randomized_response(count, eps_exp=low)
            e_mid = 1 + count * q / (1 - q)
            certificate = refines(strong, weak)
            reverse = refines(weak, strong)
            if strong @ closed != weak or closed != randomized_response(count, eps_exp=e_mid):
                problems.append(f"K={count}, {high} -> {low}: closed form fails")
            if not certificate.holds or certificate.witness != closed:
                problems.append(f"K={count}, {high} -> {low}: refines gave another witness")
            if reverse.holds or not verify_certificate(weak, strong, reverse):
                problems.append(f"K={count}, {low} -> {high}: reverse not refuted")
    return Outcome.decide(
        not problems, Status.CONFIRMED,
        f"RR_ε ⊑ RR_ε' with RR witness q = p(ε')/p(ε) on {pairs} ordered pairs; the reverse is refuted",
        K=list(values), eps_exp=list(grid), problems=problems,
    )


GD_FAMILY_PAIRS = (("1/3", "1/2"), ("1/2", "2/3"), ("100/351", "2/7"), ("1/10", "9/10"), ("1/2", "1/2"))


@claim("alvim23.gd-family")
def gd_family(sizes: range = range(2, 8), pairs: tuple[tuple[str, str], ...] = GD_FAMILY_PAIRS) -> Outcome:
    """The truncated geometric mechanisms form a refinement-preserving family.

    Source: Alvim et al. 2023, §7 and Def. 6, with [16].
    Statement: for α ≤ α' (ε ≥ ε'), W = GD_α⁻¹·GD_α' is stochastic, so GD_α ⊑ GD_α'.
    Method: exact inverse and product; W is checked entry by entry (≥ 0, rows summing to 1) and
    compared with the witness `refines` returns (the unique one, GD_α being invertible).
    Assumptions: sizes 2..7 and the α pairs (1/3, 1/2), (1/2, 2/3), (100/351, 2/7) (App. D.1's
    e^ε = 351/100 and 7/2), (1/10, 9/10) and (1/2, 1/2).
    """
    problems = []
    for size in sizes:
        for strong_alpha, weak_alpha in pairs:
            if exact(strong_alpha) > exact(weak_alpha):
                problems.append(f"pair ({strong_alpha}, {weak_alpha}) is not ordered α ≤ α'")
                continue
            strong = truncated_geometric(size, alpha=strong_alpha)
            weak = truncated_geometric(size, alpha=weak_alpha)
            product = (strong.matrix.inv() * weak.matrix).to_list()
            entries = [reduced_fraction(v) for row in product for v in row]
            if min(entries) < 0 or any(sum(row) != 1 for row in product):
                problems.append(f"size {size}, α={strong_alpha} ≤ α'={weak_alpha}: W not stochastic")
                continue
            certificate = refines(strong, weak)
            if not certificate.holds or certificate.witness.rows() != [
                [reduced_fraction(v) for v in row] for row in product
            ]:
                problems.append(f"size {size}, α={strong_alpha}: refines disagrees with GD⁻¹·GD'")
    return Outcome.decide(
        not problems, Status.CONFIRMED,
        "GD_α⁻¹·GD_α' is stochastic for every size 2..7 and α ≤ α' pair tried",
        sizes=list(sizes), alpha_pairs=[list(p) for p in pairs], problems=problems,
    )


@claim("alvim23.lemma17")
def lemma17(trials: int = 20, seed: int = 17, powers: tuple[int, ...] = (2, 3)) -> Outcome:
    """Kronecker powers preserve refinement with witness W^{⊗N}.

    Source: Alvim et al. 2023, Lemma 17.
    Statement: if C·W = C' then C^{⊗N}·W^{⊗N} = C'^{⊗N}, so W^{⊗N} witnesses C^{⊗N} ⊑ C'^{⊗N}.
    Method: random exact C and W; the identity is checked exactly and W^{⊗N} is re-verified as a
    certificate by the exact checker.
    Assumptions: a finite sample: `trials` random pairs (C of size 2-3 × 2-3) from a fixed seed, N = 2, 3.
    """
    rng = random.Random(seed)
    problems = []
    for trial in range(trials):
        c = random_channel(rng, rng.randint(2, 3), rng.randint(2, 3))
        w = random_channel(rng, c.shape[1], rng.randint(2, 3))
        for n in powers:
            big, image = c.power(n), (c @ w).power(n)
            if big @ w.power(n) != image or not verify_certificate(big, image, Refinement(True, witness=w.power(n))):
                problems.append(f"trial {trial}, N={n}")
    return Outcome.decide(
        not problems, Status.CONFIRMED,
        f"C^⊗N·W^⊗N = (C·W)^⊗N and the witness re-verifies, {trials} random pairs, N = {', '.join(map(str, powers))}",
        trials=trials, seed=seed, powers=list(powers), problems=problems,
    )


def _pipelines(strong: Channel, weak: Channel, query: Channel) -> tuple[Channel, Channel]:
    return strong.power(2) @ query, weak.power(2) @ query


def _refutation_evidence(a: Channel, b: Channel) -> tuple[bool, dict[str, Any]]:
    certificate = refines(a, b)
    ok = not certificate.holds and verify_certificate(a, b, certificate)
    return ok, {
        "refines": certificate.holds,
        "gap": certificate.gap,
        "prior": certificate.prior.probabilities() if certificate.prior else None,
        "loss": certificate.loss.rows() if certificate.loss else None,
        "method": certificate.method,
    }


@claim("alvim23.sec62-sum-rr")
def sec62_sum_rr(r3_table: Any = paper.APPE_R3_SUM, r2_table: Any = paper.APPE_R2_SUM) -> Outcome:
    """Summing randomised responses is not stable.

    Source: Alvim et al. 2023, §6.2 and App. E.
    Statement: R3 ⊑ R2, yet (R3⊗R3)·S ⋢ (R2⊗R2)·S for the sum query S of (16): some analyst prefers
    the more private R2 pipeline.
    Method: both App. E tables are rebuilt exactly and compared with the printed decimals read
    exactly; `refines` returns a prior, a loss in [0, 1] and the exact gap, re-verified by the
    exact checker; R3^{⊗2} ⊑ R2^{⊗2} is certified too.
    Assumptions: none beyond the printed matrices.
    """
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    s = sum_query(r3.power(2).outputs)
    a, b = _pipelines(r3, r2, s)
    mismatches = {"(R3⊗R3)·S": table_mismatches(a.rows(), r3_table), "(R2⊗R2)·S": table_mismatches(b.rows(), r2_table)}
    ok, evidence = _refutation_evidence(a, b)
    perturbers = refines(r3.power(2), r2.power(2)).holds
    return Outcome.decide(
        ok and perturbers and not any(mismatches.values()), Status.REPRODUCED,
        f"App. E tables rebuilt; (R3⊗R3)·S ⋢ (R2⊗R2)·S with exact gap {evidence['gap']}",
        mismatches=mismatches, perturbers_refine=perturbers, certificate=evidence,
    )


@claim("alvim23.appe-loss")
def appe_loss(loss_table: Any = paper.APPE_LOSS) -> Outcome:
    """The refuting loss printed in App. E works.

    Source: Alvim et al. 2023, App. E (the loss found with libqif).
    Statement: with the printed loss (rows are pairs x, columns actions w_1..w_5) and a uniform
    prior, the R2 pipeline has a strictly lower expected loss than the R3 pipeline, which shows
    (R3⊗R3)·S ⋢ (R2⊗R2)·S.
    Method: the printed eight-decimal entries are read as exact decimals; both posterior
    uncertainties are computed exactly.
    Assumptions: the uniform prior on the 9 pairs (the paper does not print the prior; libqif's
    counterexamples are for the uniform prior).
    """
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    s = sum_query(r3.power(2).outputs)
    a, b = _pipelines(r3, r2, s)
    loss = Loss.from_rows(loss_table, secrets=a.secrets)
    u_r3, u_r2 = (
        posterior_uncertainty(uniform_prior(a.secrets), a, loss),
        posterior_uncertainty(uniform_prior(b.secrets), b, loss),
    )
    return Outcome.decide(
        u_r2 < u_r3, Status.REPRODUCED,
        f"printed loss: U(R2 pipeline) = {float(u_r2):.8f} < U(R3 pipeline) = {float(u_r3):.8f} (exact)",
        uncertainty_r3_pipeline=u_r3, uncertainty_r2_pipeline=u_r2, gap=u_r3 - u_r2,
    )


@claim("alvim23.sec71-zeros")
def sec71_zeros(alphas: tuple[str, str] = ("1/3", "1/2")) -> Outcome:
    """Counting zeros after geometric noise is not stable.

    Source: Alvim et al. 2023, §7.1.
    Statement: G3 ⊑ G2, yet G3^{⊗2}·(Z^{⊗2}·Y) ⋢ G2^{⊗2}·(Z^{⊗2}·Y), with Z the aggregator "is 0"
    and Y the tally.
    Method: Z, Z^{⊗2} and Y are built as in Def. 21 (and Z^{⊗2}·Y compared with the direct count
    query); `refines` certifies both the refinement of the perturbers and the failure for the
    pipelines, with an exact gap re-verified by the exact checker.
    Assumptions: G2, G3 at α = 1/2, 1/3 on {0, 1, 2}, two respondents, as printed.
    """
    g3, g2 = truncated_geometric(3, alpha=alphas[0]), truncated_geometric(3, alpha=alphas[1])
    z = deterministic(lambda y: y == 0, g3.outputs, outputs=(True, False))
    tally = z.power(2) @ count_query(z.power(2).outputs, counted={True})
    direct = count_query(g3.power(2).outputs, counted={0})
    a, b = _pipelines(g3, g2, tally)
    ok, evidence = _refutation_evidence(a, b)
    perturbers = refines(g3.power(2), g2.power(2)).holds
    return Outcome.decide(
        ok and perturbers and tally == direct, Status.REPRODUCED,
        f"G3⊗G3 ⊑ G2⊗G2 but the count-of-zeros pipelines do not refine; gap {evidence['gap']}",
        perturbers_refine=perturbers, certificate=evidence,
    )


@claim("alvim23.sec71-sum-gd")
def sec71_sum_gd(alphas: tuple[str, str] = ("1/3", "1/2")) -> Outcome:
    """Summing geometric noise is not stable.

    Source: Alvim et al. 2023, §7.1 (the sum query S of (16)).
    Statement: G3^{⊗2}·S ⋢ G2^{⊗2}·S although G3 ⊑ G2.
    Method: `refines` certifies the failure with a prior, a loss in [0, 1] and an exact gap,
    re-verified by the exact checker.
    Assumptions: G2, G3 at α = 1/2, 1/3 on {0, 1, 2}, two respondents, as printed.
    """
    g3, g2 = truncated_geometric(3, alpha=alphas[0]), truncated_geometric(3, alpha=alphas[1])
    a, b = _pipelines(g3, g2, sum_query(g3.power(2).outputs))
    ok, evidence = _refutation_evidence(a, b)
    return Outcome.decide(
        ok, Status.REPRODUCED, f"G3^⊗2·S ⋢ G2^⊗2·S with exact gap {evidence['gap']}", certificate=evidence,
    )
