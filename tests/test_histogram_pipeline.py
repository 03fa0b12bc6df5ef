"""qifkit.pipelines.histogram_pipeline (the histogram of the perturbed reports) against a brute force
over every tuple of reports, exactly; floats and symbols agree with it."""

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
import sympy

from qifkit import Channel, randomized_response, truncated_geometric
from qifkit.pipelines import histogram_pipeline, histograms


def brute_force(perturber, respondents, known):
    """Pr[report histogram | secret] by summing over every tuple of reports of every respondent."""
    rows = perturber.rows()
    values, outputs = list(perturber.secrets), list(perturber.outputs)
    unknown = respondents - len(known)
    secrets = values if unknown == 1 else histograms(len(values), unknown)
    table = []
    for secret in secrets:
        people = list(known) + ([secret] if unknown == 1 else
                                [v for v, count in zip(values, secret, strict=True) for _ in range(count)])
        chances = Counter()
        for reports in itertools.product(range(len(outputs)), repeat=respondents):
            chance = Fraction(1)
            for person, report in zip(people, reports, strict=True):
                chance *= rows[values.index(person)][report]
            counts = Counter(reports)
            chances[tuple(counts.get(y, 0) for y in range(len(outputs)))] += chance
        table.append([chances[h] for h in histograms(len(outputs), respondents)])
    return table


@pytest.mark.parametrize("seed", range(12))
def test_it_equals_the_sum_over_every_tuple_of_reports(seed):
    rng = random.Random(seed)
    values = rng.randint(2, 3)
    family = truncated_geometric if seed % 2 else randomized_response
    perturber = family(values, eps_exp=Fraction(rng.randint(11, 40), 10))
    respondents = rng.randint(1, 4)
    unknown = rng.randint(1, min(respondents, 2))
    known = [rng.randrange(values) for _ in range(respondents - unknown)]
    pipeline = histogram_pipeline(perturber, respondents, known)
    assert pipeline.rows() == brute_force(perturber, respondents, known)
    assert pipeline.outputs == tuple(histograms(values, respondents))


def test_floats_and_symbols_agree_with_the_exact_pipeline():
    exact = histogram_pipeline(randomized_response(3, eps_exp="2"), 3, [0])
    floats = histogram_pipeline(randomized_response(3, eps_exp="2").to_float(), 3, [0])
    assert max(abs(float(a) - b) for ra, rb in zip(exact.rows(), floats.rows(), strict=True)
               for a, b in zip(ra, rb, strict=True)) < 1e-12
    t = sympy.Symbol("t")
    symbolic = histogram_pipeline(randomized_response(3, eps_exp=t), 3, [0])
    assert symbolic.substitute({t: 2}) == exact
    assert isinstance(exact, Channel) and exact.shape == (6, 10)  # two unknown of three: 6 histograms
