"""The population model (issue 50, item 1): targets are the secret, known respondents are fixed, and
every other unknown respondent holds a value drawn from a population prior, entering the generating
functions as one mixture row (qifkit.pipelines.with_population_row). Checked against brute force:
the other respondents' values enumerated, each assignment's pipeline weighted by its prior."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import pytest
from conftest import spec_document, write_spec

from proofs_checks.cli.app import main
from proofs_checks.gate import SpecError, evaluate_spec, parse_spec
from qifkit import bayes_risk, randomized_response, truncated_geometric
from qifkit.errors import DistributionError, LabelError
from qifkit.measures import Prior, posterior_uncertainty
from qifkit.pipelines import (
    POPULATION,
    count_pipeline,
    count_uncertainty,
    histogram_pipeline,
    sum_pipeline,
    with_population_row,
)

POPULATION_PRIOR = (F(1, 2), F(1, 3), F(1, 6))
PERTURBERS = {
    "geometric": truncated_geometric(3, eps_exp=2),
    "randomized response": randomized_response(3, eps_exp="5/2"),
}
QUERIES = {
    "count": lambda perturber, n, known, values=None: count_pipeline(perturber, n, {0}, known, values),
    "sum": lambda perturber, n, known, values=None: sum_pipeline(perturber, n, known, values),
    "histogram": lambda perturber, n, known, values=None: histogram_pipeline(perturber, n, known, values),
}


def _brute_force(query, perturber, respondents, known, targets, others):
    """Rows of the pipeline of `targets` secret respondents, the others' values enumerated as
    tuples and weighted by the population prior."""
    rows = None
    for values in itertools.product(range(3), repeat=others):
        weight = math.prod((POPULATION_PRIOR[v] for v in values), start=F(1))
        pipeline = QUERIES[query](perturber, respondents, (*known, *values))
        part = [[weight * entry for entry in row] for row in pipeline.rows()]
        rows = (
            part
            if rows is None
            else [[a + b for a, b in zip(r, s, strict=True)] for r, s in zip(rows, part, strict=True)]
        )
    assert pipeline.shape[0] == (3 if targets == 1 else math.comb(targets + 2, 2))
    return rows


@pytest.mark.parametrize("query", sorted(QUERIES))
@pytest.mark.parametrize("name", sorted(PERTURBERS))
@pytest.mark.parametrize(("targets", "others"), [(1, 2), (2, 2), (1, 3)])
def test_one_mixture_row_per_other_respondent_agrees_with_enumerating_them(query, name, targets, others):
    perturber = PERTURBERS[name]
    known = (0,)
    respondents = len(known) + targets + others
    mixed = with_population_row(perturber, POPULATION_PRIOR)
    pipeline = QUERIES[query](mixed, respondents, (*known, *[POPULATION] * others), perturber.secrets)
    assert pipeline.rows() == _brute_force(query, perturber, respondents, known, targets, others)


def test_the_exact_loss_by_generating_functions_agrees_with_the_enumerated_pipeline():
    perturber, known, others = truncated_geometric(3, eps_exp="7/2"), (1, 2), 3
    brute = _brute_force("count", perturber, 6, known, 1, others)
    prior = Prior.from_values([F(1, 5), F(1, 2), F(3, 10)], range(3))
    loss = bayes_risk(range(3))
    from qifkit import Channel

    expected = posterior_uncertainty(prior, Channel.from_rows(brute, range(3), range(7)), loss)
    mixed = with_population_row(perturber, POPULATION_PRIOR)
    assert (
        count_uncertainty(mixed, 6, {0}, prior, loss, (*known, *[POPULATION] * others), None, perturber.secrets)
        == expected
    )


def test_a_spec_with_a_population_prior_is_evaluated_on_the_enumerated_pipeline():
    """The gate's loss at each grid point is the loss on the brute-force pipeline."""
    document = spec_document(
        family="geometric",
        values=3,
        respondents=6,
        known=(1, 2),
        eps=("2", "7/2"),
        prior="uniform",
        sections={
            "population": {"respondents": 6, "known": [1, 2], "targets": 1, "population_prior": ["1/2", "1/3", "1/6"]}
        },
    )
    report, _ = evaluate_spec(parse_spec(document))
    from qifkit import Channel

    for point in report.points:
        brute = Channel.from_rows(
            _brute_force("count", truncated_geometric(3, eps_exp=point.eps_exp), 6, (1, 2), 1, 3), range(3), range(7)
        )
        assert point.loss == posterior_uncertainty(
            Prior.from_values([F(1, 3)] * 3, range(3)), brute, bayes_risk(range(3))
        )


@pytest.mark.parametrize(
    ("population", "message"),
    [
        ({"targets": 1}, "targets needs population_prior"),
        ({"population_prior": ["1/2", "1/2"]}, "must list 3 probabilities"),
        ({"population_prior": ["1/2", "1/2", "1/2"]}, "must be a distribution"),
        ({"population_prior": ["1/2", "-1/2", "1"]}, "must be a distribution"),
        ({"population_prior": ["1/3", "1/3", "1/3"], "targets": 5}, "targets must be a whole number in 1..3"),
        ({"population_prior": ["1/3", "1/3", "1/3"], "targets": 0}, "targets must be a whole number"),
    ],
)
def test_a_bad_population_model_is_refused(tmp_path, capsys, population, message):
    document = spec_document(
        values=3, respondents=4, known=(0,), sections={"population": {"respondents": 4, "known": [0], **population}}
    )
    assert main(["stability", write_spec(tmp_path, document)]) == 2
    assert message in capsys.readouterr().err


def test_a_population_row_needs_a_distribution_and_a_fresh_label():
    with pytest.raises(DistributionError, match="sums to 3/2"):
        with_population_row(randomized_response(3, eps_exp=2), ["1/2", "1/2", "1/2"])
    with pytest.raises(LabelError, match="already a value"):
        with_population_row(randomized_response(3, eps_exp=2), ["1/3", "1/3", "1/3"], label=0)
    with pytest.raises(LabelError, match="must be some of the perturber's values"):
        count_pipeline(randomized_response(3, eps_exp=2), 3, {0}, (0,), unknown_values=(7,))


def test_argmax_refuses_a_population_model():
    with pytest.raises(SpecError, match="population_prior are not allowed"):
        parse_spec(
            spec_document(
                values=3,
                respondents=3,
                query="argmax",
                sections={"population": {"respondents": 3, "population_prior": ["1/3", "1/3", "1/3"]}},
            )
        )


def test_the_float_population_row_is_the_exact_one_rounded():
    """The float sweeps (a plot, the sampled route) mix the same row in float64."""
    exact = with_population_row(truncated_geometric(3, eps_exp="7/2"), POPULATION_PRIOR).rows()[3]
    floats = with_population_row(truncated_geometric(3, eps_exp="7/2").to_float(), POPULATION_PRIOR).rows()[3]
    assert floats == pytest.approx([float(v) for v in exact], rel=1e-15)
