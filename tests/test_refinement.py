"""Refinement certificates: the papers' counterexamples, laws, a second exact route, bad input."""

import random
from dataclasses import replace
from fractions import Fraction as F

import pytest
import sympy
from conftest import channels
from hypothesis import given
from hypothesis import strategies as st

from proofs_checks.evidence import random_channel
from qifkit import Channel, randomized_response, refinement, truncated_geometric
from qifkit.errors import DistributionError, LabelError, NumberKindError, ShapeError
from qifkit.lp import LinearProgram, solve_by_cdd
from qifkit.measures import Prior
from qifkit.postprocess import count_query, sum_query
from qifkit.refinement import Refinement, certificate_defect, certificate_from_document, refines, verify_certificate


def _sum_query(power: Channel) -> Channel:
    return sum_query(power.outputs)


def _count_zeros(power: Channel) -> Channel:
    return count_query(power.outputs, counted={0})


def test_sec62_sum_of_randomized_responses_does_not_refine():
    """Alvim et al. §6.2 and App. E: (R3⊗R3)·S ⋢ (R2⊗R2)·S, certified with an exact gap."""
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    s = _sum_query(r3.power(2))
    a, b = r3.power(2) @ s, r2.power(2) @ s
    assert a.rows()[0] == [F(9, 25), F(6, 25), F(7, 25), F(2, 25), F(1, 25)]  # App. E, row 00
    assert b.rows()[0] == [F(1, 4), F(1, 4), F(5, 16), F(1, 8), F(1, 16)]
    result = refines(a, b)
    assert not result.holds and result.gap > 0
    assert verify_certificate(a, b, result)
    assert all(0 <= v <= 1 for row in result.loss.rows() for v in row)
    assert refines(r3.power(2), r2.power(2)).holds  # the perturbers themselves do refine


@pytest.mark.parametrize("query", [_count_zeros, _sum_query])
def test_sec71_geometric_pipelines_do_not_refine(query):
    """Alvim et al. §7.1: G3^{⊗2}·P ⋢ G2^{⊗2}·P for the count of zeros and for the sum."""
    g2, g3 = truncated_geometric(3, alpha="1/2"), truncated_geometric(3, alpha="1/3")
    p = query(g3.power(2))
    result = refines(g3.power(2) @ p, g2.power(2) @ p)
    assert not result.holds and verify_certificate(g3.power(2) @ p, g2.power(2) @ p, result)


def test_geometric_witness_is_the_unique_inverse_product():
    """G3 is invertible, so the witness of G3 ⊑ G2 is G3⁻¹·G2 (middle row 5/24, 7/12, 5/24)."""
    g2, g3 = truncated_geometric(3, alpha="1/2"), truncated_geometric(3, alpha="1/3")
    result = refines(g3, g2)
    assert result.witness.rows()[1] == [F(5, 24), F(7, 12), F(5, 24)]


def test_corrupted_certificates_are_rejected():
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    good = refines(r3, r2)
    rows = good.witness.rows()
    rows[0][0], rows[0][1] = rows[0][0] + F(1, 100), rows[0][1] - F(1, 100)
    bent = replace(good, witness=Channel.from_rows(rows, good.witness.secrets, good.witness.outputs))
    assert not verify_certificate(r3, r2, bent)
    bad = refines(r2, r3)
    assert not verify_certificate(r2, r3, replace(bad, gap=bad.gap + F(1, 10**9)))
    assert not verify_certificate(r2, r3, replace(bad, uncertainty_a=bad.uncertainty_b))
    assert not verify_certificate(r3, r2, replace(bad, holds=True))


# A never reports its second output, so A·W = B constrains only W's first row: a forged second row
# passes the product test and is caught by the stochastic test alone (issue 14's mutation).
_SILENT_A = Channel.from_rows([[1, 0], [1, 0]])
_FLAT_B = Channel.from_rows([["1/2", "1/2"], ["1/2", "1/2"]])


@pytest.mark.parametrize("second_row, reason", [
    (["5", "-3"], "the witness is not a channel: channel entry (1, 1) is -3"),
    (["1", "1"], "the witness is not a channel: row 1"),
    (["1/2", "1/2"], None),
])
def test_forged_witnesses_are_rejected_for_the_right_reason(second_row, reason):
    document = {"refines": True, "witness": [["1/2", "1/2"], second_row]}
    defect = certificate_defect(_SILENT_A, _FLAT_B, certificate_from_document(document, _SILENT_A, _FLAT_B))
    assert defect == reason if reason is None else defect.startswith(reason)


@pytest.mark.parametrize("row", [0, 1, 2])
def test_a_witness_wrong_in_any_one_row_of_the_product_is_rejected(row):
    """Every row of A·W = B is compared: a witness whose product misses B in row `row` only."""
    a = Channel.from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    b_rows = [["1/2", "1/2"], ["1/3", "2/3"], ["1/4", "3/4"]]
    witness = [list(r) for r in b_rows]
    witness[row] = ["1", "0"]
    document = {"refines": True, "witness": witness}
    b = Channel.from_rows(b_rows)
    defect = certificate_defect(a, b, certificate_from_document(document, a, b))
    assert defect == f"(A·W)[{row}][0] = 1, but B[{row}][0] = {b_rows[row][0]}"


#: A tall A of rank 2 (rows 2 and 3 are mixtures of rows 0 and 1), its B = A·W, and W.
_TALL_A = [["1/2", "1/2", "0"], ["0", "1/2", "1/2"], ["1/4", "1/2", "1/4"], ["3/8", "1/2", "1/8"]]
_TALL_W = [["1", "0"], ["1/2", "1/2"], ["0", "1"]]


@pytest.mark.parametrize("through_basis", [True, False])
@pytest.mark.parametrize("row", range(4))
def test_a_tall_a_is_checked_in_every_row_not_only_its_row_basis(row, through_basis, monkeypatch):
    """For A with more rows than columns and a witness of large entries the checker compares
    A·W = B through a row basis R (A = T·A_R, A_R·W = B_R, T·B_R = B; forced here by a threshold
    of 0 bits); B changed in any one row, inside R or outside it, is caught, with the entry
    named, by that route and by the plain product."""
    if through_basis:
        monkeypatch.setattr(refinement, "_LARGE_WITNESS_BITS", -1)
    a, w = Channel.from_rows(_TALL_A), Channel.from_rows(_TALL_W)
    product = (a @ w).rows()
    assert verify_certificate(a, a @ w, Refinement(True, witness=w))
    changed = [list(r) for r in product]
    changed[row] = [changed[row][0] + F(1, 8), changed[row][1] - F(1, 8)]
    b = Channel.from_rows(changed)
    defect = certificate_defect(a, b, Refinement(True, witness=w))
    assert defect == f"(A·W)[{row}][0] = {product[row][0]}, but B[{row}][0] = {changed[row][0]}"
    forged = [list(r) for r in _TALL_W]  # a wrong witness for the true B
    forged[row % 3] = ["1/3", "2/3"]
    assert certificate_defect(a, a @ w, Refinement(True, witness=Channel.from_rows(forged))) is not None


def test_forged_refutations_are_rejected_for_the_right_reason():
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    bad = refines(r2, r3)
    assert certificate_defect(r2, r3, bad) is None
    gap = bad.uncertainty_a - bad.uncertainty_b
    assert certificate_defect(r2, r3, replace(bad, gap=gap + F(1, 10**9))).startswith("the gap is ")
    assert certificate_defect(r2, r3, replace(bad, uncertainty_a=bad.uncertainty_b)).startswith("U(prior, A) is ")
    assert certificate_defect(r2, r3, replace(bad, uncertainty_b=bad.uncertainty_a)).startswith("U(prior, B) is ")
    assert (
        certificate_defect(r2, r3, replace(bad, prior=None)) == "a negative certificate needs a prior, a loss and a gap"
    )
    assert certificate_defect(r3, r2, replace(bad, holds=True)) == "a positive certificate without a witness"
    # the same prior and loss for the pair the other way round: the stated numbers no longer hold
    assert certificate_defect(r3, r2, bad).startswith("U(prior, A) is ")
    document = {"refines": False, "prior": ["1/3", "1/3", "1/3"], "loss": [["-1", "0"], ["0", "1"], ["1", "0"]],
                "uncertainty_a": "0", "uncertainty_b": "0", "gap": "0"}
    assert certificate_defect(r2, r3, certificate_from_document(document, r2, r3)).startswith(
        "the prior or loss is refused")
    honest_loss = {**document, "loss": [["1", "0"], ["0", "1"], ["1", "0"]]}  # valid, but the stated 0s are not U
    assert certificate_defect(r2, r3, certificate_from_document(honest_loss, r2, r3)).endswith("not the stated 0")


def test_certificate_for_other_channels_is_rejected():
    r2, r3, r5 = (randomized_response(3, eps_exp=e) for e in ("2", "3", "5"))
    assert not verify_certificate(r5, r2, refines(r3, r2))
    assert not verify_certificate(r2, r5, refines(r2, r3))


def test_bad_input_is_refused():
    with pytest.raises(ShapeError, match="3 secrets and B has 2"):
        refines(randomized_response(3, eps_exp="2"), randomized_response(2, eps_exp="2"))
    with pytest.raises(NumberKindError, match="float"):
        refines(randomized_response(2, eps_exp="2").to_float(), randomized_response(2, eps_exp="2"))
    with pytest.raises(LabelError):
        refines(randomized_response(2, eps_exp="2"), randomized_response(2, eps_exp="2", labels=("a", "b")))


def test_zero_duplicate_and_proportional_columns_and_rank_deficiency():
    a = Channel.from_rows([["1/2", "1/4", "1/4", 0], ["1/2", "1/4", "1/4", 0], [0, "1/2", 0, "1/2"]])
    b = Channel.from_rows([["3/4", "1/4"], ["3/4", "1/4"], ["1/2", "1/2"]])
    result = refines(a, b)
    assert result.holds and verify_certificate(a, b, result)
    assert not refines(b, Channel.from_rows([[1, 0], [0, 1], [1, 0]])).holds


def _cdd_verdict(a: Channel, b: Channel) -> bool:
    """A second exact route: the whole witness LP (every row of A, no reduction) by cddlib alone."""
    ar, br = a.rows(), b.rows()
    outputs_a, outputs_b = a.shape[1], b.shape[1]
    rows, right = [], []
    for x in range(a.shape[0]):
        for z in range(outputs_b):
            rows.append({y * outputs_b + z: ar[x][y] for y in range(outputs_a)})
            right.append(br[x][z])
    for y in range(outputs_a):
        rows.append({y * outputs_b + z: 1 for z in range(outputs_b)})
        right.append(1)
    program = LinearProgram.build(outputs_a * outputs_b, rows, row_lower=right, row_upper=right)
    answer = solve_by_cdd(program)
    assert answer is not None
    return answer.status == "optimal"


def test_agrees_with_the_exact_lp_route_on_random_pairs():
    """A second exact route (cddlib's simplex on the unreduced witness LP) gives the same verdict on
    300 random pairs."""
    rng = random.Random(7)
    disagreements, holding = 0, 0
    for trial in range(300):
        a = random_channel(rng, 4, rng.randint(2, 4), top=10)
        b = a @ random_channel(rng, a.shape[1], 3, top=10) if trial % 2 else random_channel(rng, 4, 3, top=10)
        fast = refines(a, b)
        assert verify_certificate(a, b, fast)
        disagreements += fast.holds != _cdd_verdict(a, b)
        holding += fast.holds
    assert disagreements == 0 and holding >= 150


def test_full_column_rank_routes_need_no_lp():
    """Invertible or tall full-rank A: the unique candidate W0 = A_R⁻¹·B_R decides all three cases."""
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    assert refines(r3, r2).method.startswith("exact solve")
    negative_entry = refines(r2, r3)  # W0 = R2⁻¹·R3 has negative entries
    assert not negative_entry.holds and negative_entry.method.startswith("exact Farkas")
    tall = Channel.from_rows([[1, 0], ["1/2", "1/2"], [0, 1]])
    outside = Channel.from_rows([[1, 0], [1, 0], [0, 1]])  # not A·W for any W: the middle row differs
    result = refines(tall, outside)
    assert not result.holds and result.method.startswith("exact Farkas") and verify_certificate(tall, outside, result)


def test_rank_deficient_a_goes_to_the_exact_lp_engine():
    a = Channel.from_rows([["1/2", "1/2", 0], ["1/2", "1/2", 0], [0, "1/2", "1/2"]])
    b = a @ Channel.from_rows([[1, 0], [0, 1], ["1/3", "2/3"]])
    result = refines(a, b)
    assert result.holds and result.method.startswith("exact LP engine") and verify_certificate(a, b, result)


def test_cddlib_decides_when_no_float_basis_certifies(patch_lp):
    """The engine's last resort: with every HiGHS basis refused, cddlib's simplex still decides."""
    patch_lp("by_bases", lambda program, deadline, certify, pivots=0, scaled=False: ("unknown", None))
    patch_lp("ray_certificate", lambda program, deadline: None)
    a = Channel.from_rows([["1/2", "1/2", 0], ["1/2", "1/2", 0], [0, "1/2", "1/2"]])
    holds = a @ Channel.from_rows([[1, 0], [0, 1], ["1/3", "2/3"]])
    assert "cddlib" in refines(a, holds).method
    fails = Channel.from_rows([[1, 0], [1, 0], [0, 1]])
    negative = refines(a, fails)
    assert not negative.holds and "cddlib" in negative.method and verify_certificate(a, fails, negative)


def _rank_deficient_pair(rng: random.Random, holds: bool) -> tuple[Channel, Channel]:
    """A = R·M of rank r below its column count; B = A·W (holds) or A·V with V stochastic after a
    sign change, so that B stays in A's row space and only the LP can refute."""
    rows, rank, columns = rng.randint(3, 6), rng.randint(1, 3), rng.randint(4, 6)
    a = random_channel(rng, rows, rank, top=6) @ random_channel(rng, rank, columns, top=6)
    w = random_channel(rng, columns, rng.randint(2, 4), top=6)
    if holds:
        return a, a @ w
    u = random_channel(rng, columns, w.shape[1], top=6)
    t = F(rng.randint(1, 6), 2)
    mixed = [
        [(1 + t) * p - t * q for p, q in zip(r1, r2, strict=True)] for r1, r2 in zip(w.rows(), u.rows(), strict=True)
    ]
    product = [[sum(x * m[z] for x, m in zip(row, mixed, strict=True)) for z in range(w.shape[1])] for row in a.rows()]
    if any(v < 0 for row in product for v in row):
        return a, random_channel(rng, rows, w.shape[1], top=6)
    return a, Channel.from_rows(product)


def test_rank_deficient_pairs_agree_with_libqif():
    """Issue 13: 300 rank-deficient pairs (A = R·M, no full column rank) agree with libqif's exact
    rational route, and every certificate re-verifies."""
    qif = pytest.importorskip("qif")
    import numpy as np

    rng = random.Random(1300)
    disagreements, holding, lp_decided = [], 0, 0
    for trial in range(300):
        a, b = _rank_deficient_pair(rng, holds=trial % 2 == 0)
        result = refines(a, b)
        assert verify_certificate(a, b, result)
        theirs = bool(qif.refinement.refined_by(np.array(a.rows(), dtype=object), np.array(b.rows(), dtype=object)))
        holding += result.holds
        lp_decided += result.method.startswith("exact LP engine")
        if result.holds != theirs:
            disagreements.append(trial)
    assert disagreements == [] and 150 <= holding <= 250 and lp_decided >= 150


def test_a_refutation_uses_the_callers_prior():
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    prior = Prior.from_values(["1/2", "1/3", "1/6"])
    result = refines(r2, r3, prior=prior)
    assert not result.holds and result.prior.probabilities() == [F(1, 2), F(1, 3), F(1, 6)]
    assert verify_certificate(r2, r3, result)
    with pytest.raises(DistributionError, match="probability 0"):
        refines(r2, r3, prior=Prior.from_values([1, 0, 0]))
    with pytest.raises(DistributionError):
        refines(r2, r3, prior=Prior.from_values(["1/2", "1/2"]))


@st.composite
def channel_and_post(draw):
    x, y, z = (draw(st.integers(1, 4)) for _ in range(3))
    return draw(channels(x, y)), draw(channels(y, z))


@given(channel_and_post())
def test_a_channel_refines_any_post_processing_of_itself(case):
    a, w = case
    result = refines(a, a @ w)
    assert result.holds and verify_certificate(a, a @ w, result)
    assert refines(a, a).holds


@given(channel_and_post(), channel_and_post())
def test_transitivity_by_composing_witnesses(first, second):
    a, w = first
    _, v = second
    v = v if v.shape[0] == w.shape[1] else Channel.from_rows([[F(1, v.shape[1])] * v.shape[1]] * w.shape[1])
    b, c = a @ w, a @ w @ v
    ab, bc = refines(a, b), refines(b, c)
    composed = replace(ab, witness=ab.witness @ bc.witness)
    assert verify_certificate(a, c, composed)


def test_agrees_with_libqif_on_300_random_pairs():
    """libqif (the peer, exact rational mode) gives the same verdict on 300 random pairs."""
    qif = pytest.importorskip("qif")
    import numpy as np

    rng = random.Random(300)
    disagreements, holding = [], 0
    for trial in range(300):
        a = random_channel(rng, rng.randint(2, 5), rng.randint(2, 4), top=10)
        b = (
            a @ random_channel(rng, a.shape[1], rng.randint(2, 4), top=10)
            if trial % 2
            else random_channel(rng, a.shape[0], rng.randint(2, 4), top=10)
        )
        ours = refines(a, b).holds
        theirs = bool(qif.refinement.refined_by(np.array(a.rows(), dtype=object), np.array(b.rows(), dtype=object)))
        holding += ours
        if ours != theirs:
            disagreements.append(trial)
    assert disagreements == [] and holding >= 150


# ---------------------------------------------------------------------------------- forged certificates
def _forged(a: Channel, b: Channel, witness: list[list[str]]):
    """A witness certificate read as a user's document would be (not validated on reading)."""
    return certificate_from_document({"refines": True, "witness": witness}, a, b)


def test_a_witness_whose_row_does_not_sum_to_one_is_rejected():
    """A's second output never occurs, so A·W = B holds whatever W's second row is; only the
    stochastic test of the checker can refuse a row summing to 3/4."""
    a = Channel.from_rows([[1, 0], [1, 0]])
    b = Channel.from_rows([["1/2", "1/2"], ["1/2", "1/2"]])
    assert verify_certificate(a, b, _forged(a, b, [["1/2", "1/2"], ["1/2", "1/2"]]))
    assert not verify_certificate(a, b, _forged(a, b, [["1/2", "1/2"], ["1/2", "1/4"]]))


def test_a_witness_with_a_negative_entry_is_rejected():
    """A of rank 1: W' = [[3/2, −1/2], [−1/2, 3/2]] gives A·W' = A = B like the identity does."""
    a = Channel.from_rows([["1/2", "1/2"], ["1/2", "1/2"]])
    assert verify_certificate(a, a, _forged(a, a, [["1", "0"], ["0", "1"]]))
    assert not verify_certificate(a, a, _forged(a, a, [["3/2", "-1/2"], ["-1/2", "3/2"]]))


@pytest.mark.parametrize("wrong_row", [0, 1, 2])
def test_a_witness_wrong_in_one_row_of_a_w_equals_b_is_rejected(wrong_row):
    """A = I₃: A·W = B row by row; a certificate that is right everywhere but one row fails."""
    a = Channel.from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    rows = [["1/2", "1/2"], ["1/3", "2/3"], ["1", "0"]]
    b = Channel.from_rows(rows)
    assert verify_certificate(a, b, _forged(a, b, rows))
    forged = [list(row) for row in rows]
    forged[wrong_row] = ["1/4", "3/4"]
    assert not verify_certificate(a, b, _forged(a, b, forged))


def test_a_refutation_with_a_wrong_gap_or_loss_is_rejected():
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    result = refines(r2, r3)
    assert verify_certificate(r2, r3, result)
    assert not verify_certificate(r2, r3, replace(result, gap=result.gap * 2))
    assert not verify_certificate(r2, r3, replace(result, uncertainty_a=result.uncertainty_a + 1, gap=result.gap + 1))
    flipped = replace(result, uncertainty_a=result.uncertainty_b, uncertainty_b=result.uncertainty_a, gap=-result.gap)
    assert not verify_certificate(r2, r3, flipped)


def _row_space_pair(seed, rows, columns, rank):
    """A = R·M of rank `rank`; B = A·((1+t)W − tU), in A's row space, with a zero entry: only the LP refutes it."""
    rng = random.Random(seed)
    a = random_channel(rng, rows, rank) @ random_channel(rng, rank, columns)
    aw, au = (a @ random_channel(rng, columns, columns)).rows(), (a @ random_channel(rng, columns, columns)).rows()
    t = min(p / (q - p) for rp, rq in zip(aw, au, strict=True) for p, q in zip(rp, rq, strict=True) if q > p)
    return a, Channel.from_rows(
        [[(1 + t) * p - t * q for p, q in zip(rp, rq, strict=True)] for rp, rq in zip(aw, au, strict=True)]
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_refutations_of_rank_deficient_pairs_come_with_small_denominator_losses(seed):
    # The Farkas multipliers' loss carries the basis's large denominators; a rounded copy with
    # denominators up to 10^4, checked exactly, is tried first (floats only pass over candidates whose
    # gap is plainly not positive). Seen to fail when every rounded candidate is passed over.
    a, b = _row_space_pair(seed, 40, 12, 6)
    result = refines(a, b)
    assert not result.holds and result.gap > 0 and verify_certificate(a, b, result)
    assert max(v.denominator for row in result.loss.rows() for v in row) <= 10**4


def test_the_float_gap_never_passes_over_a_loss_with_a_positive_exact_gap():
    from qifkit.measures import posterior_uncertainty, uniform_prior

    a, b = _row_space_pair(4, 30, 10, 5)
    result = refines(a, b)
    table = result.loss.rows()
    floats = refinement._FloatGap(a, b, [F(1)] * a.shape[0])
    assert posterior_uncertainty(uniform_prior(a.secrets), a, result.loss) > posterior_uncertainty(
        uniform_prior(a.secrets), b, result.loss
    )
    assert not floats.clearly_not_positive(table)


def test_a_refutation_with_gap_zero_is_refused():
    """Issue 37: 'A does not refine A' with equal uncertainties and gap 0 is no refutation."""
    from qifkit.measures import bayes_risk, posterior_uncertainty, uniform_prior

    a = randomized_response(3, eps_exp="2")
    prior, loss = uniform_prior(a.secrets), bayes_risk(a.secrets)
    u = posterior_uncertainty(prior, a, loss)
    forged = refinement.Refinement(False, prior=prior, loss=loss, uncertainty_a=u, uncertainty_b=u, gap=F(0))
    assert refinement.certificate_defect(a, a, forged) == "the gap 0 is not positive"


def test_a_float_row_basis_that_misses_a_direction_of_a_is_not_trusted():
    """Issue 37: A (4 × 3) has exact rank 2, but its rows differ by 1e-13, so a float QR sees rank 1.
    A witness W with denominators beyond 256 bits sends the check through a row basis; with the
    float basis {row 0}, A_R·W = B_R and T·B_R = B hold for B = four copies of A_0·W, though
    A·W ≠ B. Only the exact test A = T·A_R refuses that basis."""
    tiny = [F(k, 10**13) for k in (3, 2, 1, 0)]
    a = Channel.from_rows([[F(1, 2), F(1, 4) + d, F(1, 4) - d] for d in tiny])
    p, q = F(1, 2**300 + 1), F(1, 2**300 + 3)
    w = Channel.from_rows([[1, 0], [p, 1 - p], [q, 1 - q]], secrets=a.outputs)
    row = (a @ w).rows()[0]
    b = Channel.from_rows([row] * 4, secrets=a.secrets)
    assert (a @ w).rows() != b.rows()
    defect = refinement.certificate_defect(a, b, refinement.Refinement(True, witness=w))
    assert defect is not None and defect.startswith("(A·W)[1]")


# ------------------------------------------------------------------ approximate refinement (issue 35)
def _distance_by_hand(a_rows, w_rows, b_rows):
    """max |(A·W − B)[x][z]| in plain Fractions, the floats read as their binary values."""
    def exact(v):
        return F(v) if not isinstance(v, F) else v

    return max(abs(sum(exact(a_rows[x][y]) * w_rows[y][z] for y in range(len(w_rows))) - exact(b_rows[x][z]))
               for x in range(len(a_rows)) for z in range(len(b_rows[0])))


def test_an_approximate_witness_comes_with_its_exact_distance():
    import numpy as np

    from qifkit.refinement import approximate_refinement

    rng = np.random.default_rng(5)
    a = rng.dirichlet(np.ones(6), size=12)
    w = rng.dirichlet(np.ones(4), size=6)
    near = a @ w + rng.normal(0, 1e-7, size=(12, 4))
    near = np.clip(near, 0, None)
    near /= near.sum(axis=1, keepdims=True)
    for b, at_most in ((a @ w, 1e-8), (near, 1e-6)):
        found = approximate_refinement(Channel.from_numpy(a), Channel.from_numpy(b))
        rows = found.witness.rows()
        assert all(sum(row) == 1 and min(row) >= 0 for row in rows)
        assert found.distance == _distance_by_hand(a.tolist(), rows, b.tolist())
        assert found.distance <= at_most
    # B more informative than A: no witness comes near, and refines says so exactly
    coarse = Channel.from_numpy(a @ w).to_exact(renormalise=True)
    fine = Channel.from_numpy(a).to_exact(renormalise=True)
    far = approximate_refinement(coarse, fine)
    assert far.distance > F(1, 100) and not refines(coarse, fine).holds
    assert far.distance == _distance_by_hand(coarse.rows(), far.witness.rows(), fine.rows())


def test_approximate_refinement_refuses_what_it_cannot_compare():
    from qifkit.refinement import approximate_refinement

    with pytest.raises(ShapeError, match="same secrets"):
        approximate_refinement(randomized_response(3, eps_exp="2"), randomized_response(2, eps_exp="2"))
    t = sympy.Symbol("t", positive=True)
    symbolic = Channel.from_symbolic([[t / (t + 1), 1 / (t + 1)], [1 / (t + 1), t / (t + 1)]], [t])
    with pytest.raises(NumberKindError, match="symbolic"):
        approximate_refinement(symbolic, randomized_response(2, eps_exp="2"))


def test_each_channels_float_copy_is_made_once_per_call(monkeypatch):
    """Issue 36: A's float copy served the abstraction test, the row basis and the float screen of
    candidate losses, made anew by each; it is now made once per channel and shared."""
    from qifkit import labelled

    made = []

    def counting_float_matrix(rows, what="matrix"):
        made.append(what)
        return labelled_float_matrix(rows, what)

    labelled_float_matrix = labelled.float_matrix
    monkeypatch.setattr(labelled, "float_matrix", counting_float_matrix)
    r2, r3 = randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")
    s = _sum_query(r3.power(2))
    a, b = r3.power(2) @ s, r2.power(2) @ s
    result = refines(a, b)
    assert not result.holds and result.gap > 0
    assert made and len(made) <= 2
    assert a.to_float() is a.to_float()
