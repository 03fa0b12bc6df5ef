"""Lazy pipelines equal the materialised Kronecker pipelines exactly on every small case."""

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from qifkit import Channel, argmax, randomized_response, refines, truncated_geometric
from qifkit.errors import LabelError, ShapeError
from qifkit.pipelines import (
    argmax_pipeline,
    count_pipeline,
    count_witness,
    histogram_prior_weights,
    histograms,
    sum_pipeline,
)
from qifkit.postprocess import count_query, deterministic, sum_query

PERTURBERS = {
    "RR K=2": randomized_response(2, eps_exp="3"),
    "RR K=3": randomized_response(3, eps_exp="2"),
    "GD K=3": truncated_geometric(3, eps_exp="7/2"),
    "GD K=4": truncated_geometric(4, eps_exp="2"),
}


def _histogram(values, tuple_):
    """The lazy pipeline's secret for a tuple of unknown values: the value itself when there is
    one unknown respondent, else the histogram."""
    if len(tuple_) == 1:
        return tuple_[0]
    counts = Counter(tuple_)
    return tuple(counts.get(v, 0) for v in values)


@pytest.mark.parametrize("name", sorted(PERTURBERS))
@pytest.mark.parametrize("respondents", [1, 2, 3, 4])
def test_count_pipeline_equals_materialised(name, respondents):
    perturber = PERTURBERS[name]
    if len(perturber.secrets) ** respondents > 256:
        pytest.skip("materialised side too large for the default run")
    counted = {perturber.outputs[0]}
    lazy = count_pipeline(perturber, respondents, counted)
    materialised = perturber.power(respondents) @ count_query(perturber.power(respondents).outputs, counted)
    for label, row in zip(materialised.secrets, materialised.rows(), strict=True):
        assert lazy.rows()[lazy.secrets.index(_histogram(perturber.secrets, label))] == row


@pytest.mark.parametrize("name", sorted(PERTURBERS))
def test_count_pipeline_with_known_respondents_equals_materialised(name):
    perturber = PERTURBERS[name]
    known = (perturber.secrets[0], perturber.secrets[-1])
    lazy = count_pipeline(perturber, 3, {perturber.outputs[1]}, known)
    people = [Channel.from_rows([[1 if v == k else 0 for v in perturber.secrets]], secrets=("known",),
                                outputs=perturber.secrets) @ perturber for k in known]
    everyone = people[0].kron(people[1]).kron(perturber)
    flat = [(a, b, c) for (a, b), c in everyone.outputs]
    query = count_query(flat, {perturber.outputs[1]}).relabel(secrets=everyone.outputs)
    assert (everyone @ query).rows() == lazy.rows()


@pytest.mark.parametrize("respondents", [1, 2, 3])
def test_sum_pipeline_equals_materialised(respondents):
    perturber = truncated_geometric(3, eps_exp="2")
    lazy = sum_pipeline(perturber, respondents)
    power = perturber.power(respondents)
    materialised = power @ sum_query(power.outputs)
    assert lazy.outputs == materialised.outputs
    for label, row in zip(materialised.secrets, materialised.rows(), strict=True):
        assert lazy.rows()[lazy.secrets.index(_histogram(perturber.secrets, label))] == row


@pytest.mark.parametrize(("bars", "respondents"), [(2, 1), (2, 2), (3, 2), (2, 3), (3, 3), (4, 2)])
def test_argmax_pipeline_equals_materialised(bars, respondents):
    """H·(GD)^{⊗K}·ArgMax materialised over all (N+1)^K perturbed histograms (Alg. 3)."""
    perturber = truncated_geometric(respondents + 1, eps_exp="3")
    secrets = histograms(bars, respondents)
    power = perturber.power(bars)
    pick = Channel.from_rows([[1 if label == h else 0 for label in power.secrets] for h in secrets],
                             secrets=secrets, outputs=power.secrets)
    materialised = pick @ power @ deterministic(argmax, power.outputs, range(bars))
    assert argmax_pipeline(perturber, bars, secrets).rows() == materialised.rows()


def test_histograms_and_weights():
    assert histograms(2, 2) == [(2, 0), (1, 1), (0, 2)]
    assert len(histograms(3, 20)) == 231
    assert histogram_prior_weights(histograms(2, 2)) == [1, 2, 1]


def test_float_pipeline_is_close_to_exact():
    exact = count_pipeline(truncated_geometric(6, eps_exp="3"), 30, {0}, known=(1,) * 29)
    floats = count_pipeline(truncated_geometric(6, eps_exp="3").to_float(), 30, {0}, known=(1,) * 29)
    assert np.allclose(np.array(floats.matrix), np.array([[float(v) for v in row] for row in exact.rows()]), atol=1e-14)


def test_census_scale_float_rows_are_distributions():
    pipeline = count_pipeline(
        truncated_geometric(6, eps_exp="2").to_float(), 11710, {0}, known=tuple(i % 6 for i in range(11709))
    )
    assert pipeline.shape == (6, 11711)
    assert np.allclose(np.array(pipeline.matrix).sum(axis=1), 1.0, atol=1e-9)


def test_bad_populations_are_refused():
    gd = truncated_geometric(3, eps_exp="2")
    with pytest.raises(ShapeError, match="at least one respondent must be unknown"):
        count_pipeline(gd, 2, {0}, known=(0, 1))
    with pytest.raises(LabelError, match="known value 7"):
        count_pipeline(gd, 3, {0}, known=(7,))
    with pytest.raises(ShapeError):
        count_pipeline(gd, 0, {0})
    with pytest.raises(LabelError, match="counted value 9"):
        count_pipeline(gd, 2, {9})
    with pytest.raises(LabelError, match="whole numbers"):
        sum_pipeline(randomized_response(2, eps_exp="2", labels=("a", "b")), 2)
    with pytest.raises(LabelError, match="bar heights"):
        argmax_pipeline(randomized_response(2, eps_exp="2", labels=("a", "b")), 2)


def _perturber_with_hits(hits, counted, rng):
    """An exact K×K perturber whose probability of a counted output in row v is hits[v], the mass
    spread over the counted and the other outputs at random."""
    size = len(hits)
    rows = []
    for hit in hits:
        inside = [Fraction(int(w)) for w in rng.integers(1, 9, size=size)]
        outside = [Fraction(int(w)) for w in rng.integers(1, 9, size=size)]
        in_total = sum(w for y, w in enumerate(inside) if y in counted)
        out_total = sum(w for y, w in enumerate(outside) if y not in counted)
        rows.append([hit * inside[y] / in_total if y in counted else (1 - hit) * outside[y] / out_total
                     for y in range(size)])
    return Channel.from_rows(rows)


@pytest.mark.parametrize("seed", range(12))
def test_count_witness_post_processes_the_materialised_pipelines(seed):
    """A·W = B against the materialised Kronecker pipelines (not count_pipeline): perturbers built
    to have low hit probabilities affine in the high ones, h_low = b + (a − b)·h_high."""
    rng = np.random.default_rng(seed)
    size, respondents, counted = 3, 3, {0, 2} if seed % 2 else {1}
    high_hits = [Fraction(int(rng.integers(1, 10)), 10) for _ in range(size)]
    stay, enter = Fraction(int(rng.integers(0, 8)), 7), Fraction(int(rng.integers(0, 8)), 7)
    low_hits = [enter + (stay - enter) * h for h in high_hits]
    high = _perturber_with_hits(high_hits, counted, rng)
    low = _perturber_with_hits(low_hits, counted, rng)
    witness = count_witness(high, low, respondents, counted)
    assert witness is not None
    def materialise(p):
        return p.power(respondents) @ count_query(p.power(respondents).outputs, counted)
    assert materialise(high) @ witness == materialise(low)
    assert all(sum(row) == 1 and min(row) >= 0 for row in witness.rows())


def test_count_witness_declines_what_it_cannot_lump():
    # geometric hit probabilities of value 0 are not affine in one another across e^ε
    assert count_witness(truncated_geometric(4, eps_exp=3), truncated_geometric(4, eps_exp=2), 5, {0}) is None
    # a more accurate low side would need a, b outside [0, 1]
    assert count_witness(randomized_response(4, eps_exp=2), randomized_response(4, eps_exp=3), 5, {0}) is None
    with pytest.raises(LabelError):
        count_witness(randomized_response(4, eps_exp=3), randomized_response(4, eps_exp=2), 5, {"z"})
    with pytest.raises(LabelError):
        count_witness(randomized_response(4, eps_exp=3), randomized_response(3, eps_exp=2), 5, {0})


def test_refines_ignores_a_wrong_candidate():
    """A candidate is only a suggestion: a wrong one changes neither verdict."""
    high, low = randomized_response(3, eps_exp="3"), randomized_response(3, eps_exp="2")
    identity = Channel.from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    kept = refines(high, low, candidate=identity)
    assert kept.holds and "candidate" not in kept.method
    post = Channel.from_rows([[Fraction(1, 2), Fraction(1, 2), 0], [0, 1, 0], [0, Fraction(1, 3), Fraction(2, 3)]])
    taken = refines(high, high @ post, candidate=post)
    assert taken.holds and "candidate" in taken.method and taken.witness == post
    refuted = refines(low, high, candidate=identity)
    assert not refuted.holds and refuted.gap > 0
    with pytest.raises(TypeError):
        refines(high, low, candidate=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("family", ["explicit_fair", "geometric", "randomized_response"])
@pytest.mark.parametrize("query", ["count", "sum", "histogram"])
def test_symbolic_pipelines_over_one_denominator_are_the_exact_ones_at_every_point(family, query):
    """A perturber as a function of t = e^ε gives pipelines whose coefficients are kept over one
    common denominator (python-flint) and cancelled when read: substituted at rational e^ε they are
    the pipelines built exactly there, and they equal the same pipelines computed in sympy's own
    fractions (the generic route, forced)."""
    import sympy

    import qifkit.pipelines as pipelines
    from qifkit.mechanisms import explicit_fair_mechanism, randomized_response, truncated_geometric

    t = sympy.Symbol("t", positive=True)
    make = {"explicit_fair": lambda e: explicit_fair_mechanism(3, eps_exp=e),
            "geometric": lambda e: truncated_geometric(4, eps_exp=e),
            "randomized_response": lambda e: randomized_response(3, eps_exp=e)}
    build = {"count": lambda ch: pipelines.count_pipeline(ch, 4, {0}, [1, 2]),
             "sum": lambda ch: pipelines.sum_pipeline(ch, 4, [1, 2]),
             "histogram": lambda ch: pipelines.histogram_pipeline(ch, 4, [1, 2])}[query]
    symbolic = build(make[family](t))
    for point in (Fraction(3, 2), Fraction(3), Fraction(17, 5)):
        assert symbolic.substitute({t: point}) == build(make[family](point))
    generic = pipelines._Algebra.__init__

    def without_common_denominator(self, channel):
        generic(self, channel)
        self.over_denominator = False

    pipelines._Algebra.__init__ = without_common_denominator
    try:
        assert build(make[family](t)).matrix.to_list() == symbolic.matrix.to_list()
    finally:
        pipelines._Algebra.__init__ = generic
