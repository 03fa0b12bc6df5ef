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


def _masking_cost(noise_matrix, shift):
    """The least L1 change of the underlying Laplace draws that turns ζ's output into ζ + shift's,
    for output = ζ + noise_matrix·L: exact over the rationals, written here from Def. 2 and the
    classic mechanism, not from the code under test. For the cyclic difference D (rank n − 1, null
    space the constants) the solutions are one δ plus t·1, and the cost is minimised at a median."""
    from fractions import Fraction

    n = len(shift)
    if noise_matrix == "identity":
        return sum(abs(v) for v in shift)
    delta = [Fraction(0)]
    for i in range(n - 1):  # δ_i − δ_{i+1} = Δ_i
        delta.append(delta[-1] - shift[i])
    assert delta[-1] - delta[0] == shift[n - 1]  # the wrap-around row holds because Σ Δ = 0
    middle = sorted(delta)[n // 2]
    return sum(abs(v - middle) for v in delta)


@pytest.mark.parametrize("mechanism, variance_per_b2, noise_matrix", [
    (cyclic_laplace, 4, "cyclic"),   # V_i − ζ_i = L_i − L_{i+1}: variance 2·2b²
    (classic_laplace, 2, "identity"),
])
def test_laplace_privatisers_have_the_scale_their_privacy_needs(mechanism, variance_per_b2, noise_matrix):
    # Thm. 1 and §3: neighbouring tables move one record's count by one, so ζ moves 1/N from one
    # position to the next. The privacy loss of that move is (least change of L that hides it)/b;
    # with b measured from 20,000 draws it must be ε (not more: private; not much less: the
    # stated scale). A halved scale would show a loss of 2ε.
    from fractions import Fraction

    n, table_size, epsilon = 5, 40, 0.7
    zeta = np.full(n, 1 / n)
    rng = np.random.default_rng(2026)
    draws = np.array([mechanism(zeta, epsilon, table_size, rng) - zeta for _ in range(20_000)])
    scale = float(np.sqrt(draws.var(axis=0).mean() / variance_per_b2))
    worst = 0
    for i in range(n - 1):
        shift = [Fraction(0)] * n
        shift[i], shift[i + 1] = Fraction(-1, table_size), Fraction(1, table_size)
        worst = max(worst, _masking_cost(noise_matrix, shift))
    assert abs(float(worst) / scale / epsilon - 1) <= 0.05
