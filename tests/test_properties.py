"""Algebraic laws, property-based (hypothesis): Kronecker laws, associativity, data processing."""

from fractions import Fraction

import pytest
from conftest import channels, stochastic_rows
from hypothesis import given
from hypothesis import strategies as st

from qifkit import Channel, Loss, Prior, posterior_uncertainty
from qifkit.errors import NotExactError


@st.composite
def chains(draw):
    """Three composable channels A: X->Y, B: Y->Z, C: Z->W."""
    sizes = [draw(st.integers(1, 4)) for _ in range(4)]
    return tuple(draw(channels(sizes[k], sizes[k + 1])) for k in range(3))


@given(chains())
def test_composition_is_associative(chain):
    a, b, c = chain
    assert (a @ b) @ c == a @ (b @ c)


@given(channels(), channels(), channels())
def test_kronecker_is_associative_up_to_label_nesting(a, b, c):
    left, right = a.kron(b).kron(c), a.kron(b.kron(c))
    assert left.rows() == right.rows()


@given(chains(), chains())
def test_mixed_product_law(first, second):
    """(A⊗B)·(C⊗D) = (A·C)⊗(B·D) (Alvim et al. §4.3)."""
    a, c, _ = first
    b, d, _ = second
    assert a.kron(b) @ c.kron(d) == (a @ c).kron(b @ d)


@given(channels(), st.integers(0, 3))
def test_power_is_iterated_kronecker(a, n):
    power = a.power(n)
    assert power.shape == (a.shape[0] ** n, a.shape[1] ** n)
    if n >= 2:
        assert power.rows() == a.power(n - 1).kron(a).rows()


@st.composite
def channel_prior_loss_witness(draw):
    x, y, z, w = (draw(st.integers(1, 4)) for _ in range(4))
    channel = draw(channels(x, y))
    witness = draw(channels(y, z))
    prior = Prior.from_values(draw(stochastic_rows(1, x))[0])
    loss = Loss.from_rows(
        [[Fraction(draw(st.integers(0, 9)), draw(st.integers(1, 5))) for _ in range(w)] for _ in range(x)]
    )
    return channel, witness, prior, loss


@given(channel_prior_loss_witness())
def test_post_processing_never_helps_the_analyst(case):
    """U_ℓ(π, C·W) ≥ U_ℓ(π, C) for every stochastic W (data-processing inequality, Alvim §2.1)."""
    channel, witness, prior, loss = case
    assert posterior_uncertainty(prior, channel @ witness, loss) >= posterior_uncertainty(prior, channel, loss)


@given(channel_prior_loss_witness())
def test_abstract_channel_has_the_same_uncertainty(case):
    """Dropping zero columns and merging proportional ones changes no posterior uncertainty."""
    channel, _, prior, loss = case
    assert posterior_uncertainty(prior, channel.reduced(), loss) == posterior_uncertainty(prior, channel, loss)


@given(channels())
def test_float_conversion_is_close_and_explicit(a):
    floats = a.to_float()
    assert all(
        abs(f - float(e)) <= 1e-15
        for fr, er in zip(floats.rows(), a.rows(), strict=True)
        for f, e in zip(fr, er, strict=True)
    )


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_exact_constructors_reject_floats(value):
    with pytest.raises(NotExactError):
        Channel.from_rows([[value, 1]])
    with pytest.raises(NotExactError):
        Prior.from_values([value])
