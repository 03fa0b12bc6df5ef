"""Distribution privatisers of the two-stage framework: reproducible, exact sums, bad input."""

import numpy as np
import pytest

from polytopes.two_stage import classic_laplace, cyclic_difference, cyclic_laplace
from qifkit.errors import PrivacyParameterError, ShapeError


def test_seeded_draws_are_reproducible_and_sum_to_one():
    first = cyclic_laplace([0.5, 0.3, 0.2], 1.0, 50, np.random.default_rng(7))
    second = cyclic_laplace([0.5, 0.3, 0.2], 1.0, 50, np.random.default_rng(7))
    assert np.array_equal(first, second) and abs(first.sum() - 1) < 1e-12
    assert classic_laplace([0.5, 0.5], 1.0, 50, np.random.default_rng(1)).shape == (2,)


def test_cyclic_difference_has_zero_column_sums():
    d = cyclic_difference(4)
    assert all(sum(row[j] for row in d) == 0 for j in range(4)) and d[3][0] == -1


def test_bad_parameters_are_refused():
    with pytest.raises(PrivacyParameterError):
        cyclic_laplace([1.0], 0.0, 10, np.random.default_rng(0))
    with pytest.raises(ShapeError):
        classic_laplace([1.0], 1.0, 0, np.random.default_rng(0))
    with pytest.raises(ShapeError):
        cyclic_difference(1)
