"""Deterministic post-processors: counting and sum queries (Alvim et al. Def. 13, 21, eq. (16))."""

import itertools
from fractions import Fraction as F

import pytest

from proofs_checks import alvim2023_values as alvim
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
