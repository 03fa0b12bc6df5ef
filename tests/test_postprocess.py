"""Deterministic post-processors: counting and sum queries (Alvim et al. Def. 13, 21, eq. (16))."""

import itertools
from fractions import Fraction as F

import pytest

from proofs_checks.alvim2023 import values as alvim
from qifkit import Channel
from qifkit.errors import LabelError
from qifkit.postprocess import count_query, deterministic, sum_query


def test_eq10_is_the_count_of_yes():
    pairs = list(itertools.product(("yes", "no"), repeat=2))
    assert count_query(pairs, counted={"yes"}).rows() == [[F(v) for v in row] for row in alvim.EQ10]


def test_app_e_sum_query_matrix():
    """Alvim et al. App. E: S on pairs of values 0..2 has outputs 0..4, row 12 -> 3."""
    pairs = list(itertools.product(range(3), repeat=2))
    s = sum_query(pairs)
    assert s.outputs == (0, 1, 2, 3, 4)
    assert s.rows()[pairs.index((1, 2))] == [0, 0, 0, 1, 0]


def test_deterministic_needs_every_output_reached_and_no_other():
    with pytest.raises(LabelError, match="never reached"):
        deterministic(lambda x: x % 2, range(4), outputs=(0, 1, 2))
    with pytest.raises(LabelError, match="not one of the outputs"):
        deterministic(lambda x: x, range(3), outputs=(0, 1))


def test_post_processing_composes_with_channels():
    c = Channel.from_rows([["1/2", "1/2", 0], [0, "1/2", "1/2"]])
    parity = deterministic(lambda y: y % 2, c.outputs)
    assert (c @ parity).rows() == [[F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]]


def test_histogram_preprocessor_and_argmax_post_processor():
    """Alvim et al. §8: H sends a tuple of choices to its histogram; ArgMax takes the lowest tallest bar."""
    from qifkit.postprocess import argmax_postprocessor, histogram_preprocessor

    h = histogram_preprocessor(range(3), 2)
    assert h.shape == (9, 6)
    assert h.outputs[h.rows()[h.secrets.index((2, 0))].index(1)] == (1, 0, 1)
    a = argmax_postprocessor([(1, 1, 0), (0, 2, 0), (0, 1, 1), (0, 0, 2)])
    assert [row.index(1) for row in a.rows()] == [0, 1, 1, 2]


def test_three_stage_argmax_pipeline_lumps_tuples_to_histograms():
    """H·(GD)^{⊗K}·ArgMax on all K^N tuples equals H followed by the lazy histogram pipeline."""
    from qifkit import truncated_geometric
    from qifkit.pipelines import argmax_pipeline
    from qifkit.postprocess import argmax_postprocessor, histogram_preprocessor

    bars, voters = 2, 3
    h = histogram_preprocessor(range(bars), voters)
    gd = truncated_geometric(voters + 1, eps_exp="2")
    power = gd.power(bars)
    embed = Channel.from_rows([[1 if label == hist else 0 for label in power.secrets] for hist in h.outputs],
                              secrets=h.outputs, outputs=power.secrets)
    materialised = h @ embed @ power @ argmax_postprocessor(power.outputs)
    lazy = h @ argmax_pipeline(gd, bars, h.outputs).relabel(outputs=range(bars))
    assert materialised.rows() == lazy.rows()
