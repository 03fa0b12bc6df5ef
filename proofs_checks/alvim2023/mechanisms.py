"""Checks of Alvim et al. (CCS 2023) on channels and mechanisms (§§2-3, Apps. D and F): RR (Def. 11),
GD (Def. 12), the uncertainties of eqs. (9)-(10), the Kronecker laws, App. D.1's pipeline and App. F's
formula (27).

Each function below is one claim of the ledger; its docstring states source, statement, method
and assumptions, and its keyword defaults are the paper's printed values (:mod:`.values`).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

import sympy
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from proofs_checks.alvim2023 import values as paper
from proofs_checks.claims import Outcome, Status, claim
from proofs_checks.evidence import table_mismatches
from qifkit import (
    Channel,
    count_adjacency,
    exact,
    linear_error,
    local_adjacency,
    posterior_uncertainty,
    randomized_response,
    tightest_eps_exp,
    truncated_geometric,
    uniform_prior,
)
from qifkit.matrices import equal, kron, matmul
from qifkit.pipelines import count_pipeline
from qifkit.postprocess import count_query

RR_GRID = ("11/10", "2", "3", "7/2", "100")


@claim("alvim23.def11-rr")
def def11_rr(
    r2: Any = paper.R2, r3: Any = paper.R3, eq8: Any = paper.EQ8, values: range = range(2, 7)
) -> Outcome:
    """Randomised response RR_ε^K as defined.

    Source: Alvim et al. 2023, Def. 11, Fig. 2; matrices R2, R3 of §6.2 and R of eq. (8).
    Statement: RR_ε^K has p + p̄/K on the diagonal and p̄/K elsewhere, where Kp/p̄ + 1 = e^ε; its
    rows sum to 1 and its tightest local-DP parameter is exactly e^ε.
    Method: for each K and e^ε, p is solved from the defining equation, the equation is re-checked,
    every entry is compared, and the maximum ratio over all pairs of rows is computed exactly. Fig. 2
    is checked for a symbolic e^ε (K = 4); R2, R3 and R are compared with the printed matrices.
    Assumptions: K = 2..6 and e^ε in {11/10, 2, 3, 7/2, 100} (a finite grid); Fig. 2 symbolically.
    """
    problems: list[str] = []
    for count in values:
        for text in RR_GRID:
            e = exact(text)
            p = (e - 1) / (e - 1 + count)
            if count * p / (1 - p) + 1 != e:
                problems.append(f"p for K={count}, e^ε={e} does not solve Kp/p̄+1=e^ε")
            channel = randomized_response(count, eps_exp=text)
            expected = [
                [p + (1 - p) / count if r == c else (1 - p) / count for c in range(count)] for r in range(count)
            ]
            if channel.rows() != expected:
                problems.append(f"entries differ for K={count}, e^ε={e}")
            if tightest_eps_exp(channel, local_adjacency(channel.secrets)).eps_exp != e:
                problems.append(f"tightest e^ε differs from {e} for K={count}")
    e = sympy.Symbol("e", positive=True)
    p = (e - 1) / (e - 1 + 4)
    symbolic = randomized_response(4, eps_exp=e).to_sympy()
    figure2 = sympy.Matrix(4, 4, lambda r, c: p + (1 - p) / 4 if r == c else (1 - p) / 4)
    if sympy.simplify(symbolic - figure2) != sympy.zeros(4, 4):
        problems.append("Fig. 2 (K=4, symbolic e^ε) differs")
    printed = {"R2 (e^ε=2, K=3)": (randomized_response(3, eps_exp="2"), r2),
               "R3 (e^ε=3, K=3)": (randomized_response(3, eps_exp="3"), r3),
               "R of eq. (8) (e^ε=3, K=2)": (randomized_response(2, eps_exp="3"), eq8)}
    for name, (channel, table) in printed.items():
        if table_mismatches(channel.rows(), table):
            problems.append(f"{name} differs from the printed matrix")
    return Outcome.decide(
        not problems, Status.CONFIRMED,
        f"RR entries, row sums and tightest e^ε exact for K=2..6 x {len(RR_GRID)} values; Fig. 2, R2, R3, (8) match",
        grid={"K": list(values), "eps_exp": list(RR_GRID)}, problems=problems,
    )


def _printed_def12(alpha: Fraction, size: int) -> list[list[Fraction]]:
    """The formula as printed in Def. 12: 1 − α/(1+α)·α^|r−c|."""
    return [[1 - alpha / (1 + alpha) * alpha ** abs(r - c) for c in range(size)] for r in range(size)]


@claim("alvim23.def12-gd")
def def12_gd(g2: Any = paper.G2, g3: Any = paper.G3, eq20: Any = paper.EQ20, eq22: Any = paper.EQ22) -> Outcome:
    """The truncated geometric mechanism GD_α, and the garbled formula of Def. 12.

    Source: Alvim et al. 2023, Def. 12; G2 and G3 of §7.1; eqs. (20) and (22) of App. D.1.
    Statement: the printed formula (GD_α)_{r,c} = 1 − α/(1+α)·α^|r−c| is not a channel; the matrices
    the paper uses are given by interior columns (1−α)/(1+α)·α^|r−c|, first column α^r/(1+α) and
    last column α^(n−1−r)/(1+α), which realise exactly e^ε = 1/α on adjacent values.
    Method: rebuild G2 (α=1/2), G3 (α=1/3), (20) (e^ε=7/2, 7 values) and (22) (e^ε=351/100) entry by
    entry and compare with the printed values; evaluate the printed formula on G2's size and show
    that it differs and that its rows do not sum to 1; compute the tightest e^ε on the path graph.
    Assumptions: the four printed matrices; the formula itself is the corrected reading above.
    """
    cases = {"G2": (truncated_geometric(3, alpha="1/2"), g2, Fraction(2)),
             "G3": (truncated_geometric(3, alpha="1/3"), g3, Fraction(3)),
             "eq. (20)": (truncated_geometric(7, eps_exp="7/2"), eq20, Fraction(7, 2)),
             "eq. (22)": (truncated_geometric(7, eps_exp="351/100"), eq22, Fraction(351, 100))}
    mismatches = {name: table_mismatches(ch.rows(), table) for name, (ch, table, _) in cases.items()}
    bounds = {name: tightest_eps_exp(ch, count_adjacency(ch.secrets)).eps_exp for name, (ch, _, _) in cases.items()}
    printed = _printed_def12(Fraction(1, 2), 3)
    printed_row_sums = [sum(row) for row in printed]
    ok = (
        not any(mismatches.values())
        and all(bounds[name] == e for name, (_, _, e) in cases.items())
        and printed != cases["G2"][0].rows()
        and any(total != 1 for total in printed_row_sums)
    )
    return Outcome.decide(
        ok, Status.ERRATUM,
        "G2, G3, (20), (22) rebuilt exactly by the corrected formula; the printed Def. 12 formula is not stochastic",
        paper_says="(GD_α)_{r,c} = 1 − α/(1+α)·α^|r−c|",
        truth="interior columns (1−α)/(1+α)·α^|r−c|; column 0: α^r/(1+α); last column: α^(n−1−r)/(1+α)",
        printed_formula_at_alpha_half=printed, printed_formula_row_sums=printed_row_sums,
        tightest_eps_exp=bounds, mismatches=mismatches,
    )


@claim("alvim23.eq9-eq10")
def eq9_eq10(
    eq8: Any = paper.EQ8, eq9_factors: Any = paper.EQ9_FACTORS, eq10: Any = paper.EQ10,
    counts: Any = (("1/16", "3/8", "9/16"), ("3/16", "5/8", "3/16"), ("3/16", "5/8", "3/16"), ("9/16", "3/8", "1/16")),
) -> Outcome:
    """R^{⊗2} and the counting pipeline R^{⊗2}·T of §4.2.

    Source: Alvim et al. 2023, §4.2, eqs. (8), (9), (10).
    Statement: for R = RR_{ln 3}^2 of (8), R⊗R is the matrix (9) of products, T of (10) counts the
    "yes" answers of two respondents, and R^{⊗2}·T gives the distribution of the count.
    Method: R⊗R is computed by the toolkit and compared with the printed products; T is built from
    its definition and compared with (10); R^{⊗2}·T is compared with the count distributions worked
    out by hand (row (yes,yes): 1/16, 3/8, 9/16) and with the convolution of the two respondents'
    Bernoulli "yes" probabilities, an independent route.
    Assumptions: none beyond the printed matrices.
    """
    labels = ("yes", "no")
    r = Channel.from_rows(eq8, labels, labels)
    square = r.power(2)
    printed9 = [[exact(a) * exact(b) for a, b in row] for row in eq9_factors]
    t = count_query(square.outputs, counted={"yes"})
    pipeline = square @ t
    convolution = []
    for first, second in square.secrets:
        p, q = r.entry(first, "yes"), r.entry(second, "yes")
        convolution.append([(1 - p) * (1 - q), p * (1 - q) + (1 - p) * q, p * q])
    problems = {
        "eq. (9)": table_mismatches(square.rows(), printed9),
        "eq. (10)": table_mismatches(t.rows(), eq10),
        "R^{⊗2}·T vs hand values": table_mismatches(pipeline.rows(), counts),
        "R^{⊗2}·T vs convolution": table_mismatches(pipeline.rows(), convolution),
    }
    return Outcome.decide(
        not any(problems.values()), Status.REPRODUCED,
        "R⊗R equals (9), T equals (10), R^{⊗2}·T equals the hand-computed count distributions",
        pipeline=pipeline.rows(), mismatches=problems,
    )


def _random_matrix(rng: random.Random, rows: int, columns: int) -> DomainMatrix:
    entries = [QQ(rng.randint(-9, 9), rng.randint(1, 7)) for _ in range(rows * columns)]
    return DomainMatrix.from_list_flat(entries, (rows, columns), QQ)


def _kron_by_definition(a: DomainMatrix, b: DomainMatrix) -> DomainMatrix:
    """Def. 16 entry by entry: ((x, x'), (y, y')) -> A[x,y]·B[x',y'] (rows of B vary fastest)."""
    (m, n), (p, q) = a.shape, b.shape
    entries = [a[x, y].element * b[x2, y2].element
               for x in range(m) for x2 in range(p) for y in range(n) for y2 in range(q)]
    return DomainMatrix.from_list_flat(entries, (m * p, n * q), QQ)


@claim("alvim23.kron-laws")
def kron_laws(trials: int = 25, seed: int = 2023) -> Outcome:
    """The algebra of the Kronecker product.

    Source: Alvim et al. 2023, Def. 16 and the properties listed after it (§4.3).
    Statement: ⊗ is associative and bilinear, satisfies the mixed-product law
    (A⊗B)·(C⊗D) = (A·C)⊗(B·D), inverts factorwise (A⊗B)⁻¹ = A⁻¹⊗B⁻¹, and agrees with Def. 16.
    Method: exact random rational matrices of random shapes (entries in [-9, 9]/[1, 7]); every law
    is checked as an exact matrix identity.
    Assumptions: a finite sample: `trials` random instances from a fixed seed (evidence gives both).
    """
    rng = random.Random(seed)
    failures: list[str] = []
    for trial in range(trials):
        m, n, p, q, r, s = (rng.randint(1, 3) for _ in range(6))
        a, b, c = _random_matrix(rng, m, n), _random_matrix(rng, p, q), _random_matrix(rng, r, s)
        a2 = _random_matrix(rng, m, n)
        c_mixed, d_mixed = _random_matrix(rng, n, rng.randint(1, 3)), _random_matrix(rng, q, rng.randint(1, 3))
        k = QQ(rng.randint(-5, 5), rng.randint(1, 5))
        laws = {
            "definition": equal(kron(a, b), _kron_by_definition(a, b)),
            "associativity": equal(kron(kron(a, b), c), kron(a, kron(b, c))),
            "left distributivity": equal(kron(a + a2, b), kron(a, b) + kron(a2, b)),
            "scalars": equal(kron(a * k, b), kron(a, b) * k),
            "mixed product": equal(
                matmul(kron(a, b), kron(c_mixed, d_mixed)), kron(matmul(a, c_mixed), matmul(b, d_mixed))
            ),
        }
        square_a, square_b = _random_matrix(rng, m, m), _random_matrix(rng, p, p)
        if square_a.det() != 0 and square_b.det() != 0:
            laws["inverse"] = equal(kron(square_a, square_b).inv(), kron(square_a.inv(), square_b.inv()))
        failures += [f"trial {trial}: {law}" for law, holds in laws.items() if not holds]
    return Outcome.confirmed_unless(
        failures,
        f"definition, associativity, bilinearity, mixed product and inverse hold on {trials} random exact instances",
        trials=trials, seed=seed,
    )


def _brute_force_counts(perturber: Channel, known: tuple[int, ...]) -> list[list[Fraction]]:
    """The same channel by summing over all 7^4 output tuples (an independent route)."""
    rows = perturber.rows()
    size = len(rows)
    result = []
    for x in range(size):
        people = [rows[v] for v in known] + [rows[x]]
        counts = [Fraction(0)] * (len(people) + 1)
        for outputs in itertools.product(range(size), repeat=len(people)):
            probability = Fraction(1)
            for row, y in zip(people, outputs, strict=True):
                probability *= row[y]
            counts[sum(1 for y in outputs if y == 0)] += probability
        result.append(counts)
    return result


@claim("alvim23.appd1")
def appd1(
    eq20: Any = paper.EQ20, eq21: Any = paper.EQ21, eq22: Any = paper.EQ22, eq23: Any = paper.EQ23,
    loss_low: str = paper.APPD1_LOSS_LOW, loss_high: str = paper.APPD1_LOSS_HIGH,
) -> Outcome:
    """A hand-checkable instability of geometric noise with a counting query.

    Source: Alvim et al. 2023, App. D.1, eqs. (19)-(23).
    Statement: four people with values in 0..6, the first three known to be (0, 1, 1), the fourth
    uniform; each perturbs with GD; the analyst sees the number of zeros and pays 1000·|w − x|. At
    e^ε = 7/2 the channel is (21) and the expected loss 1276949536000/771895089; at the less private
    e^ε = 351/100 it is (23) with the larger loss 2552438666271995640492212000/1542907143753726048154857.
    More privacy gave more utility: the pipeline is unstable.
    Method: GD from the corrected Def. 12 (compared with (20) and (22)); the pipeline by the lazy
    pipeline algebra (a product of generating functions, the known respondents as fixed factors);
    the same channel by brute force over all 7^4 output tuples; exact posterior uncertainty (Def. 2).
    Assumptions: the scenario of App. D.1 exactly as printed.
    """
    known = (0, 1, 1)
    loss = linear_error(range(7)).scaled(paper.APPD1_LOSS_SCALE)
    found: dict[str, Any] = {}
    problems: dict[str, Any] = {}
    for name, eps_exp, gd_table, channel_table in (("e^ε = 7/2", "7/2", eq20, eq21),
                                                   ("e^ε = 351/100", "351/100", eq22, eq23)):
        perturber = truncated_geometric(7, eps_exp=eps_exp)
        channel = count_pipeline(perturber, respondents=4, counted={0}, known=known)
        found[name] = posterior_uncertainty(uniform_prior(7), channel, loss)
        problems[name] = {
            "perturber": table_mismatches(perturber.rows(), gd_table),
            "channel": table_mismatches(channel.rows(), channel_table),
            "brute force": table_mismatches(channel.rows(), _brute_force_counts(perturber, known)),
        }
    low, high = found["e^ε = 7/2"], found["e^ε = 351/100"]
    ok = (not any(v for p in problems.values() for v in p.values())
          and low == exact(loss_low) and high == exact(loss_high) and high > low)
    return Outcome.decide(
        ok, Status.REPRODUCED,
        f"(21), (23) rebuilt; losses {low} < {high}: less privacy, less utility",
        loss_at_7_over_2=low, loss_at_351_over_100=high, printed_losses=[loss_low, loss_high],
        loss_difference=high - low, mismatches=problems,
    )


def _iverson_power3(a: Any, b: Any, size: int, coefficients: dict[str, Any]) -> sympy.Matrix:
    """Σ over the 8 words in {I, U}^3 of coefficient(word) · (word₁ ⊗ word₂ ⊗ word₃)."""
    identity, uniform = sympy.eye(size), sympy.ones(size, size) / size
    total = sympy.zeros(size**3, size**3)
    for word, coefficient in coefficients.items():
        factors = [identity if letter == "I" else uniform for letter in word]
        total += coefficient * sympy.kronecker_product(*factors)
    return total


@claim("alvim23.appf")
def appf(sizes: tuple[int, ...] = (2, 3)) -> Outcome:
    """The expansion (27) of (aI + bU)^{⊗3}.

    Source: Alvim et al. 2023, App. F, eqs. (26)-(27).
    Statement: entry ((x1,x2,x3),(y1,y2,y3)) of (aI+bU)^{⊗3} is a³[all three equal] +
    a²b/K·Σ[two named equal] + ab²/K²·Σ[one named equal] + b³/K³. The display before (27) pairs
    a²b with I⊗U⊗U and ab² with U⊗I⊗I; those two coefficients are swapped (erratum), (27) is right.
    Method: symbolic a, b (sympy); (aI+bU)^{⊗3} by the toolkit's Kronecker product over QQ(a, b),
    compared with (27) evaluated entry by entry with Iverson brackets, with the printed display, and
    with the display after swapping the two coefficients.
    Assumptions: K = 2 and 3 (the identity is polynomial in a, b for each K).
    """
    a, b = sympy.symbols("a b")
    field = QQ.frac_field(a, b)
    printed = {"III": a**3, "IIU": a**2 * b, "IUI": a**2 * b, "IUU": a**2 * b,
               "UII": a * b**2, "UIU": a * b**2, "UUI": a * b**2, "UUU": b**3}
    corrected = dict(printed, IUU=a * b**2, UII=a**2 * b)
    results = {}
    for size in sizes:
        base = DomainMatrix.from_Matrix(a * sympy.eye(size) + b * sympy.ones(size, size) / size).convert_to(field)
        power = kron(kron(base, base), base).to_Matrix()
        tuples = list(itertools.product(range(size), repeat=3))
        formula = sympy.Matrix(size**3, size**3, lambda r, c: _formula27(a, b, size, tuples[r], tuples[c]))  # noqa: B023 (called at once)
        results[size] = {
            "formula (27) holds": sympy.expand(power - formula) == sympy.zeros(size**3, size**3),
            "printed display holds": sympy.expand(power - _iverson_power3(a, b, size, printed))
            == sympy.zeros(size**3, size**3),
            "display with IUU/UII coefficients swapped holds": sympy.expand(
                power - _iverson_power3(a, b, size, corrected)
            )
            == sympy.zeros(size**3, size**3),
        }
    ok = all(r["formula (27) holds"] and not r["printed display holds"]
             and r["display with IUU/UII coefficients swapped holds"] for r in results.values())
    return Outcome.decide(
        ok, Status.ERRATUM,
        "(27) holds symbolically for K=2,3; the display above it swaps the coefficients of I⊗U⊗U and U⊗I⊗I",
        paper_says="a²b × (I⊗U⊗U) and ab² × (U⊗I⊗I) in the display before (27)",
        truth="ab² × (I⊗U⊗U) and a²b × (U⊗I⊗I); the evaluated formula (27) is correct",
        results=results,
    )


def _formula27(a: Any, b: Any, size: int, xs: tuple, ys: tuple) -> Any:
    same = [int(x == y) for x, y in zip(xs, ys, strict=True)]
    return (a**3 * int(all(same))
            + a**2 * b / size * sum(same[i] and same[j] for i, j in ((0, 1), (0, 2), (1, 2)))
            + a * b**2 / size**2 * sum(same)
            + b**3 / size**3)
