"""qifkit.pipelines.count_uncertainty (the analyst's loss of a count pipeline by generating functions,
without forming the pipeline) against the materialised pipeline and bayes_decision, on random small
cases: one or several unknown respondents, known ones, a released map of the count."""

import random
from fractions import Fraction

import pytest

from qifkit import Loss, Prior, posterior_uncertainty, randomized_response, truncated_geometric
from qifkit.errors import NumberKindError
from qifkit.pipelines import count_pipeline, count_uncertainty, histograms
from qifkit.postprocess import deterministic


def random_distribution(rng, size):
    weights = [rng.randint(0, 5) for _ in range(size)]
    weights[rng.randrange(size)] += 1
    return [Fraction(w, sum(weights)) for w in weights]


@pytest.mark.parametrize("seed", range(40))
def test_it_equals_the_loss_of_the_materialised_pipeline(seed):
    rng = random.Random(seed)
    values = rng.randint(2, 4)
    e = Fraction(rng.randint(11, 60), 10)
    perturber = (truncated_geometric if seed % 2 else randomized_response)(values, eps_exp=e)
    respondents = rng.randint(1, 6)
    unknown = rng.randint(1, min(respondents, 3))
    known = [rng.randrange(values) for _ in range(respondents - unknown)]
    counted = set(rng.sample(range(values), rng.randint(1, values - 1)))
    secrets = list(range(values)) if unknown == 1 else histograms(values, unknown)
    prior = Prior.from_values(random_distribution(rng, len(secrets)), secrets)
    actions = rng.randint(1, 4)
    loss = Loss.from_rows([[rng.randint(0, 9) for _ in range(actions)] for _ in secrets], secrets)
    pipeline = count_pipeline(perturber, respondents, counted, known)
    release = None
    if seed % 3 == 0:  # a deterministic map of the count: bands of width 2
        def release(count):
            return count // 2
        pipeline = pipeline @ deterministic(release, pipeline.outputs, sorted({c // 2 for c in pipeline.outputs}))
    expected = posterior_uncertainty(prior, pipeline, loss)
    assert count_uncertainty(perturber, respondents, counted, prior, loss, known, release) == expected


def test_floats_are_refused():
    perturber = randomized_response(2, eps_exp="3")
    prior = Prior.from_values(["1/2", "1/2"])
    loss = Loss.from_rows([[0, 1], [1, 0]])
    with pytest.raises(NumberKindError):
        count_uncertainty(perturber.to_float(), 2, {0}, prior, loss, known=[0])


def test_a_counted_value_that_is_not_an_output_is_refused():
    """Issue 37: counting {0, 7} of a perturber on 0..2 must not silently count {0} alone."""
    from qifkit.errors import LabelError
    from qifkit.measures import bayes_risk, uniform_prior

    perturber = randomized_response(3, eps_exp="2")
    with pytest.raises(LabelError, match="not an output"):
        count_uncertainty(perturber, 2, {0, 7}, uniform_prior(range(3)), bayes_risk(range(3)), (0,))
