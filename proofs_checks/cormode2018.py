"""Checks of Cormode, Kulkarni and Srivastava, "Constrained Differential Privacy for Count Data",
ICDE 2018.

The paper writes mechanisms column-stochastic (``P[i][j] = Pr[i | j]``); the toolkit keeps rows as
inputs and converts with :meth:`qifkit.Channel.to_columns` where the paper's picture is compared.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from proofs_checks.registry import Outcome, Status, claim
from qifkit import exact, explicit_fair_mechanism, geometric_mechanism, l0_score, uniform_mechanism


def _figure3(n: int, alpha: sympy.Symbol) -> sympy.Matrix:
    """Fig. 3 as printed: row 0 is x·α^j, row n is x·α^(n−j), row i inside is y·α^|i−j|."""
    x, y = 1 / (1 + alpha), (1 - alpha) / (1 + alpha)

    def entry(i: int, j: int) -> Any:
        if i == 0:
            return x * alpha**j
        if i == n:
            return x * alpha ** (n - j)
        return y * alpha ** abs(i - j)

    return sympy.Matrix(n + 1, n + 1, entry)


@claim("cormode18.gm-structure")
def gm_structure(sizes: range = range(1, 9)) -> Outcome:
    """The structure of the range-restricted geometric mechanism GM.

    Source: Cormode et al. 2018, Def. 4 and Fig. 3.
    Statement: GM on counts 0..n is the column-stochastic matrix of Fig. 3 with x = 1/(1+α) and
    y = (1−α)/(1+α); it is α-DP and every DP inequality is tight: Pr[i|j]/Pr[i|j+1] is α or 1/α.
    Method: symbolic α; the toolkit's GM (rows are inputs) is transposed to the paper's convention
    and compared with Fig. 3 as rational functions; every column sum and every ratio of
    neighbouring inputs is simplified exactly.
    Assumptions: n = 1..8, α a free symbol (0 < α < 1 assumed, not used by the identities).
    """
    alpha = sympy.Symbol("alpha", positive=True)
    problems = []
    for n in sizes:
        columns = sympy.Matrix(geometric_mechanism(n, alpha).to_columns())
        if sympy.simplify(columns - _figure3(n, alpha)) != sympy.zeros(n + 1, n + 1):
            problems.append(f"n={n}: differs from Fig. 3")
        for j in range(n + 1):
            if sympy.simplify(sum(columns[:, j]) - 1) != 0:
                problems.append(f"n={n}: column {j} does not sum to 1")
        for i in range(n + 1):
            for j in range(n):
                ratio = sympy.cancel(columns[i, j] / columns[i, j + 1])
                if ratio not in (alpha, 1 / alpha):
                    problems.append(f"n={n}: Pr[{i}|{j}]/Pr[{i}|{j + 1}] = {ratio} is not tight")
    return Outcome.decide(
        not problems, Status.CONFIRMED,
        f"GM equals Fig. 3, is column-stochastic and has every DP ratio equal to α or 1/α, n = {sizes.start}..{sizes.stop - 1}",
        sizes=list(sizes), problems=problems,
    )


@claim("cormode18.example1")
def example1(
    alpha: str = "9/10", zero_given_one: str = "9/19", two_given_one: str = "9/19",
    one_given_one: str = "1/19", zero_given_zero: str = "10/19",
) -> Outcome:
    """Example 1: GM's spikes at the extremes.

    Source: Cormode et al. 2018, Example 1 (n = 2, α = 9/10).
    Statement: for true count 1, GM reports 0 and 2 with probability 9/19 ≈ 0.47 each and the truth
    with 1/19 ≈ 0.05 (eighteen times less likely than a wrong answer); for true count 0 it reports 0
    with probability 10/19 ≈ 0.53.
    Method: exact GM at n = 2, α = 9/10; the four probabilities and the ratio 18 compared exactly.
    Assumptions: none.
    """
    gm = geometric_mechanism(2, alpha)
    found = {"Pr[0|1]": gm.entry(1, 0), "Pr[2|1]": gm.entry(1, 2), "Pr[1|1]": gm.entry(1, 1), "Pr[0|0]": gm.entry(0, 0)}
    expected = dict(zip(found, (zero_given_one, two_given_one, one_given_one, zero_given_zero)))
    ratio = (found["Pr[0|1]"] + found["Pr[2|1]"]) / found["Pr[1|1]"]
    ok = all(found[k] == exact(v) for k, v in expected.items()) and ratio == 18
    return Outcome.decide(
        ok, Status.REPRODUCED, "Pr[0|1] = Pr[2|1] = 9/19, Pr[1|1] = 1/19, Pr[0|0] = 10/19; wrong/right = 18",
        found=found, printed=expected, wrong_to_right_ratio=ratio,
    )


@claim("cormode18.gm-l0")
def gm_l0(sizes: range = range(1, 13)) -> Outcome:
    """The L0 score of GM.

    Source: Cormode et al. 2018, §IV-B (the display after Lemma 3) and eq. (1).
    Statement: L0(GM) = (n+1)/n − trace(GM)/n = 2α/(1+α) for every n ≥ 1.
    Method: symbolic α; L0 of the toolkit's GM simplified exactly and compared with 2α/(1+α).
    Assumptions: n = 1..12.
    """
    alpha = sympy.Symbol("alpha", positive=True)
    target = 2 * alpha / (1 + alpha)
    scores = {n: l0_score(geometric_mechanism(n, alpha)) for n in sizes}
    wrong = {n: s for n, s in scores.items() if sympy.simplify(s - target) != 0}
    return Outcome.decide(
        not wrong, Status.CONFIRMED, f"L0(GM) = 2α/(1+α) symbolically for n = {sizes.start}..{sizes.stop - 1}",
        sizes=list(sizes), wrong=wrong,
    )


@claim("cormode18.fig7")
def fig7(gm_true: str = "5/21", em_true: str = "121/541", printed_gm: str = "0.238", printed_em: str = "0.224") -> Outcome:
    """Probability of reporting the true count at n = 4 (Fig. 7).

    Source: Cormode et al. 2018, §I (the discussion of Fig. 7) and §IV-D (Fig. 7, "α = 0.9").
    Statement: under a uniform input, GM reports the truth with probability 5/21 ≈ 0.238 and EM with
    121/541 ≈ 0.224. These are the values at α = 10/11; at the α = 0.9 the text names they are
    23/95 ≈ 0.242 and 50/221 ≈ 0.226 (erratum).
    Method: exact GM and EM at n = 4 for α = 10/11 and α = 9/10; P(true) = trace/(n+1); the printed
    three-decimal values are compared with both.
    Assumptions: uniform prior on the 5 inputs, as the paper states.
    """
    def p_true(mechanism: Any) -> Fraction:
        return sum(mechanism.entry(j, j) for j in range(5)) / 5

    at = {a: {"GM": p_true(geometric_mechanism(4, a)), "EM": p_true(explicit_fair_mechanism(4, a)),
              "UM": p_true(uniform_mechanism(4))} for a in ("10/11", "9/10")}
    rounded = {a: {k: f"{float(v):.3f}" for k, v in values.items()} for a, values in at.items()}
    ok = (at["10/11"]["GM"] == exact(gm_true) and at["10/11"]["EM"] == exact(em_true)
          and (rounded["10/11"]["GM"], rounded["10/11"]["EM"]) == (printed_gm, printed_em)
          and (rounded["9/10"]["GM"], rounded["9/10"]["EM"]) != (printed_gm, printed_em))
    return Outcome.decide(
        ok, Status.ERRATUM, "GM 5/21 and EM 121/541 hold at α = 10/11, not at the printed α = 0.9",
        paper_says="α = 0.9, GM 0.238, EM 0.224",
        truth="0.238 = 5/21 and 0.224 = 121/541 at α = 10/11; at α = 9/10: GM 23/95, EM 50/221",
        p_true=at, rounded=rounded,
    )
