"""Checks of Alvim et al. (CCS 2023) on stability: Thm. 20, random response with counting,
geometric noise with outliers, noisy ArgMax (§§4-9, Apps. A-C).

Its neighbours in this package: :mod:`.mechanisms` (channels, mechanisms, Kronecker products),
:mod:`.refinement`, and :mod:`.values` (the paper's printed tables, shared by the three).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Any

import sympy
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from proofs_checks.alvim2023 import values as paper
from proofs_checks.claims import Outcome, Status, claim
from proofs_checks.evidence import random_channel, table_mismatches
from qifkit import (
    Channel,
    Refinement,
    argmax_accuracy,
    exact,
    histogram_adjacency,
    randomized_response,
    refines,
    tightest_d_privacy,
    tightest_eps_exp,
    truncated_geometric,
    uniform_prior,
    verify_certificate,
)
from qifkit.matrices import equal, kron, matmul
from qifkit.pipelines import argmax_pipeline, count_pipeline, histograms
from qifkit.postprocess import count_query, deterministic, left_inverse
from qifkit.stability import condition_11, loss_curve


def _surjections(size: int) -> list[Channel]:
    """Every surjective deterministic post-processor from 0..size−1 onto 0..m−1, m = 1..size."""
    result = []
    for image_size in range(1, size + 1):
        for mapping in itertools.product(range(image_size), repeat=size):
            if len(set(mapping)) == image_size:
                result.append(deterministic(lambda x, f=mapping: f[x], range(size), range(image_size)))
    return result


def _symbolic_rr(size: int, a: sympy.Symbol, b: sympy.Symbol) -> DomainMatrix:
    """a·I + b·U over QQ(a, b), U the everywhere-1/K matrix (Lemma 14)."""
    field = QQ.frac_field(a, b)
    entries = [field.from_sympy(a * int(r == c) + b / size) for r in range(size) for c in range(size)]
    return DomainMatrix.from_list_flat(entries, (size, size), field)


@claim("alvim23.lemma14")
def lemma14(sizes: range = range(2, 5)) -> Outcome:
    """Random-response witnesses commute past any deterministic post-processor.

    Source: Alvim et al. 2023, Lemma 14.
    Statement: for every deterministic P with left inverse ⁻¹P and every R'' = aI + bU,
    P·⁻¹P·R''·P = R''·P.
    Method: a and b are free symbols (the identity is checked as rational functions, so for all
    a, b); P ranges over every surjective deterministic post-processor from K values; ⁻¹P picks
    the first preimage of each output.
    Assumptions: K = 2..4 (all surjections: 1 + 3 + ... = every P on those sizes).
    """
    a, b = sympy.symbols("a b")
    failures, count = [], 0
    for size in sizes:
        witness = _symbolic_rr(size, a, b)
        for post in _surjections(size):
            count += 1
            if not condition_11(post, witness):
                failures.append(f"K={size}, P={[row.index(1) for row in post.rows()]}")
    return Outcome.confirmed_unless(
        failures,
        f"P·⁻¹P·(aI+bU)·P = (aI+bU)·P symbolically for all {count} surjective P, K = 2..4",
        post_processors=count,
        sizes=list(sizes),
    )


@claim("alvim23.thm15")
def thm15(sizes: range = range(2, 5), grid: tuple[str, ...] = ("2", "3", "7/2")) -> Outcome:
    """Randomised response is stable for every deterministic post-processor.

    Source: Alvim et al. 2023, Thm. 15.
    Statement: for RR_ε ⊑ RR_ε' (ε' ≤ ε) with RR witness R'' and any deterministic P,
    RR_ε·P ⊑ RR_ε'·P with the stochastic witness ⁻¹P·R''·P.
    Method: R'' is the exact witness returned by `refines(RR_ε, RR_ε')`; X = ⁻¹P·R''·P is built and
    checked as a certificate for RR_ε·P ⊑ RR_ε'·P by the exact checker (stochastic, and
    RR_ε·P·X = RR_ε'·P).
    Assumptions: K = 2..4, every surjective P, e^ε > e^ε' over {2, 3, 7/2}.
    """
    failures, count = [], 0
    for size in sizes:
        for high, low in itertools.combinations(sorted(grid, key=exact, reverse=True), 2):
            strong, weak = randomized_response(size, eps_exp=high), randomized_response(size, eps_exp=low)
            middle = refines(strong, weak).witness
            for post in _surjections(size):
                count += 1
                candidate = left_inverse(post) @ middle @ post
                if not verify_certificate(strong @ post, weak @ post, Refinement(True, witness=candidate)):
                    failures.append(f"K={size}, {high}->{low}, P={[row.index(1) for row in post.rows()]}")
    return Outcome.confirmed_unless(failures, f"⁻¹P·R''·P certifies RR_ε·P ⊑ RR_ε'·P in all {count} cases",
                                    cases=count)


@claim("alvim23.thm20")
def thm20(trials: int = 120, seed: int = 20) -> Outcome:
    """Thm. 20's equality test decides P ⊑ W·P, both ways.

    Source: Alvim et al. 2023, Thm. 20, eq. (12).
    Statement: for a deterministic P with left inverse, P ⊑ W·P if and only if
    P·⁻¹P·W·P = W·P.
    Method: random surjective deterministic P and stochastic W; the equality test is compared with
    the certified verdict of `refines(P, W·P)`. Half of the W are random; half are a·I + (1−a)·1·qᵀ
    for a random distribution q (for these the test holds), so that both outcomes are exercised.
    Assumptions: a finite sample: `trials` random pairs, 3-5 values, fixed seed.
    """
    rng = random.Random(seed)
    agree, disagreements, outcomes = 0, [], {True: 0, False: 0}
    for trial in range(trials):
        size = rng.randint(3, 5)
        image = rng.randint(1, size - 1)
        mapping = list(range(image)) + [rng.randrange(image) for _ in range(size - image)]
        rng.shuffle(mapping)
        post = deterministic(lambda x, f=tuple(mapping): f[x], range(size), range(image))
        if trial % 2:
            witness = random_channel(rng, size, size, top=6)
        else:
            share = Fraction(rng.randint(0, 4), 4)
            (q,) = random_channel(rng, 1, size, top=6).rows()
            witness = Channel.from_rows(
                [[share * (r == c) + (1 - share) * q[c] for c in range(size)] for r in range(size)]
            )
        test = condition_11(post, witness)
        verdict = refines(post, witness @ post).holds
        outcomes[verdict] += 1
        if test == verdict:
            agree += 1
        else:
            disagreements.append(trial)
    return Outcome.decide(
        not disagreements and outcomes[True] > 0 and outcomes[False] > 0,
        Status.CONFIRMED,
        f"equality test = certified refinement verdict on {trials} pairs ({outcomes[True]} refine, {outcomes[False]} "
        "do not)",
        trials=trials,
        seed=seed,
        refines=outcomes[True],
        does_not_refine=outcomes[False],
        disagreements=disagreements,
    )


def _tally_recursively(base: Channel, count: int) -> Channel:
    """C^{⊗N}·Y_N by the recursion C^{⊗N}·Y_N = ((C^{⊗N−1}·Y_{N−1}) ⊗ C)·Z_N, where Z_N sends
    (k, b) to k + [b is True]: the mixed-product law with Y_N = (Y_{N−1} ⊗ I)·Z_N."""
    result = (base @ count_query([(True,), (False,)], counted={True}).relabel(secrets=base.outputs))
    result = result.relabel(secrets=[(s,) for s in base.secrets])
    for n in range(2, count + 1):
        grown = result.kron(base)
        merge = deterministic(lambda pair: pair[0] + (pair[1] is True), grown.outputs, range(n + 1))
        result = (grown @ merge).relabel(secrets=[head + (tail,) for head, tail in grown.secrets])
    return result


@claim("alvim23.lemma23")
def lemma23(powers: range = range(1, 9), materialised_up_to: int = 5) -> Outcome:
    """Tallies commute with Kronecker powers of any 2×2 channel.

    Source: Alvim et al. 2023, Lemma 23 (= Lemma 28 of App. A).
    Statement: for every stochastic 2×2 C and the tally Y, Y·⁻¹Y·C^{⊗N}·Y = C^{⊗N}·Y.
    Method: C = [[a, 1−a], [c, 1−c]] with free symbols a, c. C^{⊗N}·Y is computed by the recursion
    of the mixed-product law (((C^{⊗N−1}·Y) ⊗ C)·Z) and, for N ≤ 5, also by materialising C^{⊗N}
    and the tally, the two compared; the identity is then checked as rational functions, computing
    Y·(⁻¹Y·(C^{⊗N}·Y)).
    Assumptions: N = 1..8.
    """
    a, c = sympy.symbols("a c")
    base = Channel.from_symbolic(
        [[a, 1 - a], [c, 1 - c]], parameters=(a, c), secrets=(True, False), outputs=(True, False)
    )
    failures = []
    for n in powers:
        pipeline = _tally_recursively(base, n)
        tally = count_query(pipeline.secrets, counted={True})
        if n <= materialised_up_to and base.power(n) @ tally != pipeline:
            failures.append(f"N={n}: recursion differs from the materialised C^⊗N·Y")
        inverse = left_inverse(tally)
        if not equal(matmul(tally.matrix, matmul(inverse.matrix, pipeline.matrix)), pipeline.matrix):
            failures.append(f"N={n}")
    return Outcome.confirmed_unless(
        failures,
        f"Y·⁻¹Y·C^⊗N·Y = C^⊗N·Y for symbolic 2×2 C, N = {powers.start}..{powers.stop - 1}",
        powers=list(powers),
    )


@claim("alvim23.thm24")
def thm24(sizes: tuple[int, ...] = (2, 3), powers: tuple[int, ...] = (2, 3)) -> Outcome:
    """Randomised response with any counting query is stable.

    Source: Alvim et al. 2023, Thm. 24 (with Lemma 22).
    Statement: for every Boolean aggregator B, T = B^{⊗N}·Y and the RR witness W = aI + bU, condition
    (11) T·⁻¹T·W^{⊗N}·T = W^{⊗N}·T holds, so (RR^{⊗N}, T) is stable.
    Method: a, b free symbols; W^{⊗N} by the toolkit's Kronecker product over QQ(a, b); every
    non-constant Boolean aggregator B on K values; the identity checked exactly as rational
    functions.
    Assumptions: K = 2, 3 and N = 2, 3 (constant aggregators are excluded: their T has an output
    that is never reached, so no left inverse).
    """
    a, b = sympy.symbols("a b")
    failures, count = [], 0
    for size in sizes:
        witness = _symbolic_rr(size, a, b)
        for truth in itertools.product((True, False), repeat=size):
            if len(set(truth)) < 2:
                continue
            for n in powers:
                count += 1
                tuples = list(itertools.product(range(size), repeat=n))
                query = count_query(tuples, counted={v for v in range(size) if truth[v]})
                power = witness
                for _ in range(n - 1):
                    power = kron(power, witness)
                if not condition_11(query, power):
                    failures.append(f"K={size}, B={truth}, N={n}")
    return Outcome.confirmed_unless(failures, f"condition (11) holds symbolically for all {count} (B, N) with K = 2, 3",
                                    cases=count)


@claim("alvim23.appb-outliers")
def appb_outliers(printed_witness: Any = paper.APPB_WITNESS, powers: tuple[int, ...] = (2, 3)) -> Outcome:
    """Counting outliers after geometric noise is stable; the printed witness is wrong.

    Source: Alvim et al. 2023, §7.1 and App. B.
    Statement: with L = "the output is 0 or 2", L·⁻¹L·W·L = W·L for the witness W of G3 ⊑ G2, so
    G3^{⊗N}·(L^{⊗N}·Y) ⊑ G2^{⊗N}·(L^{⊗N}·Y). G3 is invertible, so W = G3⁻¹·G2 is unique: its
    middle row is (5/24, 7/12, 5/24), not the printed (7/30, 8/15, 7/30) (erratum).
    Method: W exactly by inverse and product, compared with the printed matrix and with the witness
    `refines(G3, G2)` returns; condition (11) for the true W (and, for the record, the printed one);
    the N = 2, 3 pipelines (lazy count of {0, 2}) refined with an exact, re-verified certificate.
    Assumptions: G2, G3 at α = 1/2, 1/3 as printed.
    """
    g2, g3 = truncated_geometric(3, alpha="1/2"), truncated_geometric(3, alpha="1/3")
    true_witness = Channel.from_sympy(g3.to_sympy().inv() * g2.to_sympy())
    outliers = deterministic(lambda y: y in (0, 2), range(3), outputs=(True, False))
    printed = Channel.from_rows(printed_witness)
    printed_is_witness = g3 @ printed == g2
    pipelines = {}
    for n in powers:
        result = refines(count_pipeline(g3, n, {0, 2}), count_pipeline(g2, n, {0, 2}))
        pipelines[n] = result.holds and verify_certificate(
            count_pipeline(g3, n, {0, 2}), count_pipeline(g2, n, {0, 2}), result
        )
    differences = table_mismatches(true_witness.rows(), printed_witness)
    ok = (true_witness == refines(g3, g2).witness and condition_11(outliers, true_witness)
          and all(pipelines.values()) and differences and not printed_is_witness)
    return Outcome.decide(
        bool(ok),
        Status.ERRATUM,
        "outlier counting is stable (condition (11), N = 2, 3 certified); "
        "the printed W = G3⁻¹·G2 has a wrong middle row",
        paper_says="W = G3⁻¹·G2 = [[5/6, 1/12, 1/12], [7/30, 8/15, 7/30], [1/12, 1/12, 5/6]]",
        truth=f"W = {[[str(v) for v in row] for row in true_witness.rows()]}; G3·(printed W) ≠ G2",
        condition_11_true_witness=condition_11(outliers, true_witness),
        condition_11_printed_witness=condition_11(outliers, printed),
        pipelines_refine=pipelines,
        mismatches=differences,
    )


@claim("alvim23.lemma25")
def lemma25(cases: tuple[tuple[int, int], ...] = ((1, 2), (2, 2), (3, 2), (1, 3), (2, 3)),
            grid: tuple[str, ...] = ("2", "3")) -> Outcome:
    """Noisy ArgMax is ε-DP on histograms.

    Source: Alvim et al. 2023, Lemma 25 and App. C.
    Statement: (GD_ε)^{⊗K}·ArgMax is ε-DP for histograms that differ by one in one bar.
    Method: the exact noisy-ArgMax channel on every histogram in (0..N)^K (bars are not tied to a
    total, so one-bar neighbours exist); its tightest e^ε on the one-bar-one-unit adjacency is
    computed exactly and must not exceed e^ε.
    Assumptions: (N, K) in {(1,2), (2,2), (3,2), (1,3), (2,3)}, e^ε in {2, 3}.
    """
    found, failures = {}, []
    for n, bars in cases:
        domain = list(itertools.product(range(n + 1), repeat=bars))
        for e in grid:
            pipeline = argmax_pipeline(truncated_geometric(n + 1, eps_exp=e), bars, domain)
            bound = tightest_eps_exp(pipeline, histogram_adjacency(domain)).eps_exp
            found[f"N={n}, K={bars}, e^ε={e}"] = bound
            if bound > exact(e):
                failures.append(f"N={n}, K={bars}, e^ε={e}: tightest {bound}")
    return Outcome.confirmed_unless(failures, "noisy ArgMax's tightest e^ε on one-bar neighbours never exceeds e^ε",
                                    tightest=found)


@claim("alvim23.appc")
def appc(
    sizes: tuple[int, ...] = (3, 4), powers: tuple[int, ...] = (2, 3), grid: tuple[str, ...] = ("2", "7/2")
) -> Outcome:
    """Kronecker powers of a d-private channel are Manhattan-private.

    Source: Alvim et al. 2023, App. C.
    Statement: GD_ε is ε·|x − x'|-private, and GD_ε^{⊗N} is ε·d_M-private for the Manhattan distance
    d_M(v, v') = Σ_i |v_i − v'_i|.
    Method: the exact tightest e^ε of d-privacy (ratios compared as exact roots) for GD and for its
    Kronecker powers with d_M; both must equal e^ε.
    Assumptions: GD on 3 and 4 values, N = 2, 3, e^ε in {2, 7/2}.
    """
    found, failures = {}, []
    for size in sizes:
        for e in grid:
            gd = truncated_geometric(size, eps_exp=e)
            single = tightest_d_privacy(gd, lambda x, y: abs(x - y)).eps_exp
            found[f"{size} values, e^ε={e}, N=1"] = single
            for n in powers:
                value = tightest_d_privacy(
                    gd.power(n), lambda v, w: sum(abs(p - q) for p, q in zip(v, w, strict=True))
                ).eps_exp
                found[f"{size} values, e^ε={e}, N={n}"] = value
                if value != exact(e) or single != exact(e):
                    failures.append(f"{size} values, e^ε={e}, N={n}: {value}")
    return Outcome.confirmed_unless(failures, "GD^⊗N is ε·d_M-private with exactly e^ε, N = 2, 3",
                                    tightest=found)


@claim("alvim23.fig3-ama")
def fig3_ama(respondents: int = 20, bars: int = 3, grid: tuple[str, ...] = ("11/10", "3/2", "2", "3", "5", "10"),
             printed_count: int = 105, full: bool = False) -> Outcome:
    """Noisy ArgMax looks ama-stable (Fig. 3); the histogram count in the text is wrong.

    Source: Alvim et al. 2023, §9.1, Fig. 3 and Def. 27.
    Statement: for 20 voters and 3 categories, under a uniform prior over all input histograms, the
    expected ama loss of noisy ArgMax falls as e^ε grows. There are C(22, 2) = 231 histograms, not
    the "105 = 21×20/2" the text prints (erratum).
    Method: the exact noisy-ArgMax channel (231 × 3) at each e^ε of the grid; ama loss (eq. (17));
    exact posterior uncertainty; the curve must be strictly decreasing.
    Assumptions: the finite grid e^ε in {11/10, 3/2, 2, 3, 5, 10} (ε from 0.095 to 2.3, the range
    of Fig. 3b); with --full, 30 values of e^ε from 21/20 to e^20 (rounded rationals), the range of
    Fig. 3a. Monotonicity between grid points is not claimed.
    """
    if full:
        grid = tuple(str(Fraction(math.exp(k * 20 / 30)).limit_denominator(1000)) for k in range(1, 31))
    secrets = histograms(bars, respondents)
    loss = argmax_accuracy(secrets)
    curve = loss_curve(lambda e: argmax_pipeline(truncated_geometric(respondents + 1, eps_exp=e), bars, secrets),
                       grid, uniform_prior(secrets), loss)
    strictly = all(b < a for a, b in zip(curve.values, curve.values[1:], strict=False))
    return Outcome.decide(
        strictly and len(secrets) == 231 and printed_count != len(secrets),
        Status.ERRATUM,
        f"ama loss falls strictly over the grid ({float(curve.values[0]):.4f} → {float(curve.values[-1]):.4f}); "
        "231 histograms, not 105",
        paper_says="a uniform distribution over the 105 = (21 × 20 / 2) possible histograms",
        truth=f"{len(secrets)} histograms of 20 votes in 3 bars (C(22, 2))",
        curve={str(e): v for e, v in zip(curve.eps_exp, curve.values, strict=True)},
    )


@claim("alvim23.lemma26")
def lemma26(bars: int = 2, respondents: int = 2, eps_exp_low: str = "2", eps_exp_high: str = "3") -> Outcome:
    """Noisy ArgMax is unstable.

    Source: Alvim et al. 2023, Lemma 26 and App. D.2 (proved there without an example).
    Statement: for some ε > ε', (GD_ε)^{⊗K}·ArgMax ⋢ (GD_ε')^{⊗K}·ArgMax although GD_ε ⊑ GD_ε'.
    Method: a concrete instance (K = 2 categories, N = 2 voters, e^ε = 3 vs e^ε' = 2; the smallest
    size found by beyond.argmax-smallest) decided by `refines`: the prior, the loss and the exact
    gap are re-verified by the exact checker; GD_ε ⊑ GD_ε' is certified as well.
    Assumptions: the one instance above.
    """
    secrets = histograms(bars, respondents)
    def build(e: str) -> Any:
        return argmax_pipeline(truncated_geometric(respondents + 1, eps_exp=e), bars, secrets)
    a, b = build(eps_exp_high), build(eps_exp_low)
    result = refines(a, b)
    perturbers = refines(
        truncated_geometric(respondents + 1, eps_exp=eps_exp_high),
        truncated_geometric(respondents + 1, eps_exp=eps_exp_low),
    ).holds
    ok = perturbers and not result.holds and verify_certificate(a, b, result)
    return Outcome.decide(
        ok,
        Status.CONFIRMED,
        f"K={bars}, N={respondents}: GD ⊑ GD' but the ArgMax pipelines do not refine (gap {result.gap})",
        secrets=secrets,
        eps_exp=[eps_exp_low, eps_exp_high],
        prior=result.prior.probabilities() if result.prior else None,
        loss=result.loss.rows() if result.loss else None,
        gap=result.gap,
    )
