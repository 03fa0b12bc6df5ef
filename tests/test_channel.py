"""Channels: validation, the algebra, conversions, and golden matrices of the papers."""

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_checks.alvim2023 import values as alvim
from qifkit import Channel, NumberKind, randomized_response, truncated_geometric
from qifkit.errors import (
    DistributionError,
    LabelError,
    NegativeEntryError,
    NotANumberError,
    NotExactError,
    NotStochasticError,
    NumberKindError,
    NumberSyntaxError,
    ShapeError,
)
from qifkit.measures import Loss, Prior, posterior_uncertainty, uniform_prior

R_ROWS = [["3/4", "1/4"], ["1/4", "3/4"]]


# ----------------------------------------------------------------------------- bad input
def test_row_summing_to_five_sixths_is_refused_with_the_sum():
    with pytest.raises(NotStochasticError, match=r"row 1 sums to 5/6, not 1"):
        Channel.from_rows([["1/2", "1/2"], ["1/2", "1/3"]])


def test_negative_entry_is_refused():
    with pytest.raises(NegativeEntryError, match=r"entry \(0, 1\) is -1/2"):
        Channel.from_rows([["3/2", "-1/2"], [0, 1]])


def test_nan_is_refused_in_a_float_channel():
    with pytest.raises(NotANumberError, match="nan"):
        Channel.from_floats([[0.5, float("nan")], [0.5, 0.5]])


def test_nan_is_refused_in_an_exact_channel():
    with pytest.raises(NotExactError):
        Channel.from_rows([[float("nan"), 1], [0, 1]])


def test_ragged_rows_are_refused():
    with pytest.raises(ShapeError, match="ragged: row 1 has 1 entries"):
        Channel.from_rows([["1/2", "1/2"], [1]])


@pytest.mark.parametrize("rows", [[], [[]]])
def test_empty_matrix_is_refused(rows):
    with pytest.raises(ShapeError, match="empty"):
        Channel.from_rows(rows)


def test_float_entry_in_an_exact_channel_is_refused():
    with pytest.raises(NotExactError, match="float 0.5"):
        Channel.from_rows([[0.5, 0.5]])


def test_malformed_number_string_names_the_entry():
    with pytest.raises(NumberSyntaxError, match=r"entry \(0, 1\)"):
        Channel.from_rows([["1/2", "1/2/3"]])


def test_duplicate_labels_are_refused():
    with pytest.raises(LabelError, match="'a' appears more than once"):
        Channel.from_rows(R_ROWS, secrets=("a", "a"))


def test_mixing_a_float_channel_into_an_exact_product_is_refused():
    exact = Channel.from_rows(R_ROWS)
    floats = Channel.from_floats([[0.75, 0.25], [0.25, 0.75]])
    with pytest.raises(NumberKindError, match="mix floats"):
        exact @ floats
    with pytest.raises(NumberKindError):
        exact.kron(floats)


def test_composition_checks_labels():
    first = Channel.from_rows(R_ROWS, outputs=("yes", "no"))
    with pytest.raises(LabelError, match="relabel"):
        first @ Channel.from_rows(R_ROWS)
    with pytest.raises(ShapeError):
        first @ Channel.from_rows([[1]], secrets=("yes",))


def test_symbolic_rows_must_sum_to_one_identically():
    a = sympy.Symbol("a")
    with pytest.raises(NotStochasticError):
        Channel.from_symbolic([[a, a]], parameters=(a,))


def test_symbolic_entries_must_be_rational_functions_of_the_parameters():
    a, b = sympy.symbols("a b")
    with pytest.raises(NotExactError):
        Channel.from_symbolic([[sympy.sqrt(a), 1 - sympy.sqrt(a)]], parameters=(a,))
    with pytest.raises(NotExactError):
        Channel.from_symbolic([[b, 1 - b]], parameters=(a,))
    with pytest.raises(NotExactError):
        Channel.from_symbolic([["a", 1]], parameters=(a,))


# ----------------------------------------------------------------------------- algebra
def test_eq9_kronecker_square_of_eq8():
    """Alvim et al. eq. (9): R⊗R of R in eq. (8), labels as ordered pairs."""
    labels = ("yes", "no")
    square = Channel.from_rows(alvim.EQ8, labels, labels).power(2)
    assert square.secrets == (("yes", "yes"), ("yes", "no"), ("no", "yes"), ("no", "no"))
    expected = [[F(a) * F(b) for a, b in row] for row in alvim.EQ9_FACTORS]
    assert square.rows() == expected


def test_eq10_counting_pipeline_by_hand():
    """Alvim et al. eq. (10): R^{⊗2}·T is the distribution of the number of 'yes' answers."""
    labels = ("yes", "no")
    square = Channel.from_rows(alvim.EQ8, labels, labels).power(2)
    t = Channel.from_rows(alvim.EQ10, secrets=square.outputs)
    assert (square @ t).rows()[0] == [F(1, 16), F(6, 16), F(9, 16)]
    assert (square @ t).rows()[1] == [F(3, 16), F(10, 16), F(3, 16)]


def test_power_zero_is_the_one_by_one_identity():
    one = Channel.from_rows(R_ROWS).power(0)
    assert one.rows() == [[1]] and one.secrets == ((),)


def test_power_labels_are_flat_tuples():
    cube = Channel.from_rows(R_ROWS).power(3)
    assert cube.shape == (8, 8)
    assert cube.secrets == tuple(itertools.product((0, 1), repeat=3))


def test_parallel_composition_multiplies_row_entries():
    c = Channel.from_rows([["1/2", "1/2"], [1, 0]])
    d = Channel.from_rows([["1/3", "2/3"], ["1/4", "3/4"]])
    both = c.parallel(d)
    assert both.outputs == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert both.rows() == [[F(1, 6), F(1, 3), F(1, 6), F(1, 3)], [F(1, 4), F(3, 4), 0, 0]]


def test_reduced_drops_zero_columns_and_merges_proportional_ones():
    c = Channel.from_rows([["1/4", 0, "1/4", "1/2"], ["1/8", 0, "1/8", "3/4"]])
    abstract = c.reduced()
    assert abstract.outputs == ((0, 2), (3,))
    assert abstract.rows() == [[F(1, 2), F(1, 2)], [F(1, 4), F(3, 4)]]


def test_float_channel_algebra_stays_float():
    c = Channel.from_floats([[0.75, 0.25], [0.25, 0.75]])
    assert (c @ c).kind is NumberKind.FLOAT
    assert np.allclose((c @ c).matrix, [[0.625, 0.375], [0.375, 0.625]])
    assert c.power(2).shape == (4, 4)
    assert c.reduced().shape == (2, 2)


def test_symbolic_general_two_by_two_channel():
    a, c = sympy.symbols("a c")
    channel = Channel.from_symbolic([[a, 1 - a], [c, 1 - c]], parameters=(a, c))
    square = channel.power(2)
    assert sympy.simplify(square.to_sympy()[0, 0] - a**2) == 0
    assert channel.substitute({a: "1/3", c: F(1, 2)}).rows() == [[F(1, 3), F(2, 3)], [F(1, 2), F(1, 2)]]


def test_exact_and_symbolic_combine_without_loss():
    a = sympy.Symbol("a")
    symbolic = Channel.from_symbolic([[a, 1 - a], [1 - a, a]], parameters=(a,))
    product = Channel.from_rows(R_ROWS) @ symbolic
    assert product.kind is NumberKind.SYMBOLIC
    assert sympy.simplify(product.to_sympy()[0, 0] - (F(3, 4) * a + F(1, 4) * (1 - a))) == 0


# ----------------------------------------------------------------------------- conversions
def test_numpy_round_trip():
    c = Channel.from_rows(R_ROWS)
    assert np.array_equal(c.to_numpy(), [[0.75, 0.25], [0.25, 0.75]])
    assert Channel.from_numpy(c.to_numpy(exact=True)) == c
    assert Channel.from_numpy(np.array([[1, 0], [0, 1]])).kind is NumberKind.EXACT
    assert Channel.from_numpy(c.to_numpy()).kind is NumberKind.FLOAT


def test_float_to_exact_is_explicit():
    floats = Channel.from_floats([[0.75, 0.25], [0.5, 0.5]])
    assert floats.to_exact() == Channel.from_rows([["3/4", "1/4"], ["1/2", "1/2"]])
    with pytest.raises(NotStochasticError, match="not 1"):  # binary 0.1 + 0.9 is 1 + 2^-55
        Channel.from_floats([[0.1, 0.9]]).to_exact()
    with pytest.raises(NotStochasticError, match="sums to 1/2"):
        Channel.from_floats([[0.2, 0.2, 0.6]]).to_exact(max_denominator=2)


def test_sympy_round_trip():
    c = Channel.from_rows(R_ROWS)
    assert Channel.from_sympy(c.to_sympy()) == c


def test_column_stochastic_input_is_transposed():
    columns = [["1/2", "1/3"], ["1/2", "2/3"]]  # column j is the distribution for input j
    c = Channel.from_columns(columns)
    assert c.rows() == [[F(1, 2), F(1, 2)], [F(1, 3), F(2, 3)]]
    assert c.to_columns() == [[F(1, 2), F(1, 3)], [F(1, 2), F(2, 3)]]


def test_csv_round_trip_with_labels(tmp_path):
    c = Channel.from_rows(R_ROWS, secrets=("yes", "no"), outputs=("Y", "N"))
    path = tmp_path / "c.csv"
    c.to_csv(path)
    assert Channel.read_csv(path) == c


def test_csv_writes_entries_of_any_size(tmp_path, unguarded_str):
    # 3^10000 has 4772 digits, beyond str()'s 4300-digit guard
    tiny = F(1, 3**10_000)
    c = Channel.from_rows([[tiny, 1 - tiny], [F(1, 2), F(1, 2)]])
    path = tmp_path / "huge.csv"
    c.to_csv(path)
    assert unguarded_str(tiny) in path.read_text()


def test_csv_without_labels_and_with_default_labels(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("3/4,1/4\n0.25,0.75\n")
    assert Channel.read_csv(path).rows() == [[F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]]
    Channel.from_rows(R_ROWS).to_csv(path)
    assert Channel.read_csv(path).secrets == ("0", "1")


def test_csv_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1/2,1/3\n1,0\n")
    with pytest.raises(NotStochasticError, match="bad.csv"):
        Channel.read_csv(path)


def test_csv_with_a_byte_order_mark_reads_the_same_channel(tmp_path):
    # A spreadsheet's BOM made the first data row a label row (the channel lost a row, a verdict flipped).
    plain, marked = tmp_path / "plain.csv", tmp_path / "marked.csv"
    plain.write_text("3/4,1/4\n0.25,0.75\n1/2,1/2\n", encoding="utf-8")
    marked.write_text("\ufeff3/4,1/4\n0.25,0.75\n1/2,1/2\n", encoding="utf-8")
    assert Channel.read_csv(marked) == Channel.read_csv(plain)
    assert len(Channel.read_csv(marked).secrets) == 3


@pytest.mark.parametrize("first_row, where", [
    ("3/4,1/4x", "row 1 mixes numbers and labels: cell 2 is '1/4x'"),
    ("nan,1", "row 1 mixes numbers and labels: cell 1 is 'nan'"),
    ("1/0,1", "row 1 mixes numbers and labels: cell 1 is '1/0'"),
    ("١/2,1/2", "row 1 mixes numbers and labels: cell 1"),
])
def test_csv_refuses_a_first_row_that_mixes_numbers_and_labels(tmp_path, first_row, where):
    path = tmp_path / "typo.csv"
    path.write_text(first_row + "\n0.25,0.75\n", encoding="utf-8")
    with pytest.raises(NumberSyntaxError, match=where):
        Channel.read_csv(path)


def test_csv_refuses_a_first_column_that_mixes_numbers_and_labels(tmp_path):
    path = tmp_path / "column.csv"
    path.write_text(",a,b\ns0,1/2,1/2\n",)
    assert Channel.read_csv(path).secrets == ("s0",)
    path.write_text("secret,a,b\ns0,1/2,1/2\n1/2,1/4,3/4\n")
    with pytest.raises(NumberSyntaxError, match="column 1 mixes numbers and labels: row 2 is 's0'"):
        Channel.read_csv(path)


def test_channel_is_immutable():
    c = Channel.from_rows(R_ROWS)
    with pytest.raises(AttributeError):
        c.secrets = ("x", "y")  # type: ignore[misc]
    floats = Channel.from_floats([[1.0]])
    with pytest.raises(ValueError):
        floats.matrix[0, 0] = 0.5


# ----------------------------------------------------------------------------- golden matrices
def test_fig2_randomized_response_k4():
    """Alvim et al. Fig. 2: RR_ε^4 has p + p̄/4 on the diagonal and p̄/4 elsewhere."""
    e = sympy.Symbol("e")
    p = (e - 1) / (e + 3)  # from Kp/p̄ + 1 = e^ε with K = 4
    rr = randomized_response(4, eps_exp=e).to_sympy()
    for r in range(4):
        for c in range(4):
            expected = p + (1 - p) / 4 if r == c else (1 - p) / 4
            assert sympy.simplify(rr[r, c] - expected) == 0


def test_sec62_r2_r3():
    """Alvim et al. §6.2: R2 and R3 as printed."""
    assert randomized_response(3, eps_exp="2").rows() == [[F(v) for v in row] for row in alvim.R2]
    assert randomized_response(3, eps_exp="ln(3)").rows() == [[F(v) for v in row] for row in alvim.R3]


def test_sec71_g2_g3():
    """Alvim et al. §7.1: G2 (α = 1/2) and G3 (α = 1/3) as printed."""
    assert truncated_geometric(3, alpha="1/2").rows() == [[F(v) for v in row] for row in alvim.G2]
    assert truncated_geometric(3, eps_exp="3").rows() == [[F(v) for v in row] for row in alvim.G3]


def test_eq20_geometric_seven_values():
    """Alvim et al. App. D.1 eq. (20): GD at e^ε = 7/2 on 0..6, entry by entry."""
    assert truncated_geometric(7, eps_exp="7/2").rows() == [[F(v) for v in row] for row in alvim.EQ20]


def _flat(label):
    return tuple(x for part in label for x in _flat(part)) if isinstance(label, tuple) else (label,)


def test_eq21_count_of_zeros_channel():
    """Alvim et al. App. D.1 eq. (21): known (0, 1, 1), count of zeros, by materialising 7^4 columns."""
    gd = truncated_geometric(7, eps_exp="7/2")
    people = [Channel.from_rows([[1 if v == k else 0 for v in range(7)]], secrets=("known",)) @ gd for k in (0, 1, 1)]
    everyone = people[0].kron(people[1]).kron(people[2]).kron(gd)
    assert everyone.shape == (7, 7**4)
    count = Channel.from_rows(
        [[1 if _flat(label).count(0) == k else 0 for k in range(5)] for label in everyone.outputs],
        secrets=everyone.outputs,
    )
    assert (everyone @ count).rows() == [[F(v) for v in row] for row in alvim.EQ21]


def test_atomic_writes_keep_modes_links_and_special_files(tmp_path, capsysbinary):
    import os
    import stat
    import threading

    from qifkit.files import atomic_write_text

    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    kept.chmod(0o640)
    atomic_write_text(kept, "new")
    assert kept.read_text() == "new" and stat.S_IMODE(kept.stat().st_mode) == 0o640
    mask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "fresh.txt", "x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "fresh.txt").stat().st_mode) == 0o644  # not mkstemp's 0600
    link = tmp_path / "link.txt"
    link.symlink_to(kept)
    atomic_write_text(link, "through the link")
    assert link.is_symlink() and kept.read_text() == "through the link"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    atomic_write_text(fifo, "streamed")
    reader.join(timeout=10)
    assert received == ["streamed"] and stat.S_ISFIFO(fifo.stat().st_mode)
    atomic_write_text("-", "to standard output")
    assert capsysbinary.readouterr().out == b"to standard output"


# ---------------------------------------------------------------------------------- reading a channel
def test_str_is_a_table_with_labels_and_elided_middle():
    """str(channel): outputs across, secrets down; beyond 8 of either, the middle elided; long
    exact entries as ≈ decimals (issue 18: a channel had no readable form)."""
    assert str(randomized_response(3, eps_exp="2")) == ("Channel (exact, 3 secrets × 3 outputs)\n"
                                                 "     0    1    2\n"
                                                 "0  1/2  1/4  1/4\n"
                                                 "1  1/4  1/2  1/4\n"
                                                 "2  1/4  1/4  1/2")
    lines = str(truncated_geometric(12, eps_exp="7/2")).splitlines()
    assert len(lines) == 1 + 1 + 9 and lines[6].split() == ["…"] * 10
    assert lines[1].split() == ["0", "1", "2", "3", "…", "8", "9", "10", "11"]
    assert lines[2].split()[1] == "7/9" and lines[2].split()[-1] == "≈8.05577e-07"  # p/q of more than 12 characters


def test_indexing_by_labels_and_numpy_conversion():
    channel = Channel.from_rows([["1/2", "1/2"], ["1/4", "3/4"]], secrets=["a", "b"], outputs=["x", "y"])
    assert channel["b", "x"] == F(1, 4)
    with pytest.raises(LabelError, match="index a channel by"):
        channel["b"]
    with pytest.raises(LabelError):
        channel["c", "x"]
    assert np.asarray(channel).tolist() == [[0.5, 0.5], [0.25, 0.75]]
    assert np.asarray(channel, dtype=np.float32).dtype == np.float32


def test_priors_and_losses_go_to_floats_and_back_explicitly():
    """A float channel takes a float prior and loss (to_float); floats come back exactly only
    when asked (to_exact, optionally to the nearest small fraction)."""
    channel = randomized_response(3, eps_exp="2")
    loss = Loss.from_rows([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    exact_value = posterior_uncertainty(uniform_prior(3), channel, loss)
    float_value = posterior_uncertainty(uniform_prior(3).to_float(), channel.to_float(), loss.to_float())
    assert exact_value == F(1, 2) and float_value == pytest.approx(0.5)
    with pytest.raises(NumberKindError, match="to_float"):
        posterior_uncertainty(uniform_prior(3), channel.to_float(), loss)
    assert Prior.from_floats([0.25, 0.75]).to_exact().probabilities() == [F(1, 4), F(3, 4)]
    with pytest.raises(DistributionError, match="not 1"):
        Prior.from_floats([0.1, 0.9]).to_exact()  # the binary values of 0.1 and 0.9 sum to 1 + 2^-55
    assert Prior.from_floats([0.1, 0.9]).to_exact(100).probabilities() == [F(1, 10), F(9, 10)]
    assert Loss.from_floats([[0.1, 0.9]]).to_exact(10).rows() == [[F(1, 10), F(9, 10)]]
    assert loss.to_float().to_exact().rows() == loss.rows()


def test_a_numpy_float_is_refused_with_its_plain_value():
    with pytest.raises(NotExactError, match=r"float 1\.0 is not exact; give it as a string such as '1\.0'"):
        Loss.from_rows(np.eye(2))
    assert Loss.from_rows(np.eye(2, dtype=int)).rows() == [[1, 0], [0, 1]]


# ------------------------------------------------------------------ floats in, exact out (issue 35)
def _dirichlet_rows(rows: int, columns: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).dirichlet(np.full(columns, 0.5), size=rows)
    matrix[matrix < 1e-3] = 0.0  # zeros the exact channel must keep
    return matrix / matrix.sum(axis=1, keepdims=True)


def test_a_float_channel_becomes_exact_only_when_asked_to_renormalise():
    """The issue's case: rows that sum to 1 in floats were refused by to_exact() (their binary values
    sum to 36028797018963967/36028797018963968), with nothing suggesting a way."""
    matrix = _dirichlet_rows(40, 7, 1)
    floats = Channel.from_numpy(matrix)
    with pytest.raises(NotStochasticError):
        floats.to_exact()
    exact = floats.to_exact(renormalise=True)
    rows = exact.rows()
    assert all(sum(row) == 1 for row in rows)
    changes = [abs(v - F(float(m)))
               for row, m_row in zip(rows, matrix, strict=True) for v, m in zip(row, m_row, strict=True)]
    assert max(changes) <= F(1, 10**9) and sum(c > 0 for c in changes) <= 40  # one entry per row at most
    assert [[v == 0 for v in row] for row in rows] == (matrix == 0).tolist()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), columns=st.integers(1, 12), denominator=st.sampled_from([1, 7, 100, 10**6]))
def test_renormalising_to_a_denominator_moves_every_entry_by_less_than_it(seed, columns, denominator):
    matrix = _dirichlet_rows(5, columns, seed)
    rows = Channel.from_numpy(matrix).to_exact(denominator, renormalise=True).rows()
    for row, floats in zip(rows, matrix, strict=True):
        assert sum(row) == 1
        for value, float_value in zip(row, floats, strict=True):
            assert (value * denominator).denominator == 1 and value >= 0
            assert abs(value - F(float(float_value))) < F(1, denominator)
            assert value > 0 if float_value >= 1 / denominator else value <= F(1, denominator)
            assert float_value > 0 or value == 0  # a zero stays zero


def test_renormalising_refuses_what_rounding_cannot_explain():
    # rows within the float tolerance of 1 (1e-9), but 500 units of 10^-12 over it
    over = Channel.from_numpy([[0.5, 0.5 + 5e-10], [0.5, 0.5]])
    with pytest.raises(NotStochasticError, match="secret 0 sums to 1.0000000005"):
        over.to_exact(10**12, renormalise=True)
    assert sum(over.to_exact(renormalise=True).rows()[0]) == 1
    with pytest.raises(NumberKindError, match="need not sum to 1"):
        Loss.from_rows([["1/2", "1/4"], ["1", "0"]]).to_float().to_exact(renormalise=True)
    prior = Prior.from_floats([0.1, 0.2, 0.7]).to_exact(10, renormalise=True)
    assert prior.rows() == [[F(1, 10), F(1, 5), F(7, 10)]]


def test_a_float_channel_of_200_by_50_gets_its_refinement_decided():
    """Issue 35's goal: a float 200 × 50 Dirichlet channel → exact → refinement decided, one call
    each; the witness of A ⊑ A·W is checked by hand (A·W = B, W stochastic)."""
    from qifkit import refines

    a = Channel.from_numpy(_dirichlet_rows(200, 50, 7)).to_exact(10**6, renormalise=True)
    w = Channel.from_numpy(_dirichlet_rows(50, 20, 8)).to_exact(1000, renormalise=True)
    b = a @ w
    forward = refines(a, b)
    assert forward.holds and (a @ forward.witness).rows() == b.rows()
    assert all(sum(row) == 1 and min(row) >= 0 for row in forward.witness.rows())
    backward = refines(b, a)
    assert not backward.holds and backward.gap > 0


def test_a_kronecker_power_beyond_the_size_limit_is_refused_before_it_is_built():
    """Issue 52: Channel.power(40) of a 2×2 channel started building 2^40 rows. The size is compared
    (by logarithms) before anything is allocated; 2^12 × 2^12 = 16,777,216 entries is past 10^7."""
    from qifkit.channel import MAX_BUILT_ENTRIES

    channel = Channel.from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    for count in (12, 40, 10**9):
        with pytest.raises(ShapeError, match=f"beyond the {MAX_BUILT_ENTRIES:,}"):
            channel.power(count)
    assert channel.power(3).shape == (8, 8)
    with pytest.raises(ShapeError, match="parallel composition"):
        channel.power(6).parallel(channel.power(6)).parallel(channel.power(6))


def test_a_row_of_huge_integers_is_refused_in_a_readable_line():
    """Issue 52: a row holding 10^5000 crashed with Python's 4,300-digit conversion limit while the
    refusal was being written; it is refused as not stochastic, the number shortened to its ends."""
    with pytest.raises(NotStochasticError, match=r"sums to 10000000000000000000…0{20} \(5,001 digits\), not 1"):
        Channel.from_rows([[10**5000, 0], [0, 1]])
    with pytest.raises(NegativeEntryError, match=r"is -10{19}…0{20} \(5,001 digits\), a negative"):
        Channel.from_rows([[-(10**5000), 1 + 10**5000], [0, 1]])


def test_a_gcd_sympys_heuristic_gives_up_on_is_computed_and_agrees_with_sympys_dense_gcd():
    """Symbolic entries cancel by gcds over ZZ[t]; sympy's heuristic gcd gives up on these two
    polynomials (met while building an explicit fair count of 58 known respondents, which crashed
    with HeuristicGCDFailed). With qifkit imported the gcd is python-flint's: it divides both and
    equals sympy's dense gcd by remainder sequences (an independent algorithm), up to sign."""
    import json
    from pathlib import Path

    from sympy.polys.domains import ZZ
    from sympy.polys.heuristicgcd import heugcd
    from sympy.polys.polyerrors import HeuristicGCDFailed
    from sympy.polys.rings import ring

    import qifkit.matrices  # noqa: F401 - installs python-flint's gcd

    data = json.loads((Path(__file__).parent / "data" / "heuristic_gcd_failure.json").read_text())
    R, t = ring("t", ZZ)
    f, g = (sum((int(c) * t ** int(k) for k, c in data[name].items()), R.zero) for name in ("f", "g"))
    with pytest.raises(HeuristicGCDFailed):
        heugcd(f, g)  # the cause: if a sympy release fixes it, this test says so
    h, cff, cfg = f.cofactors(g)
    assert h * cff == f and h * cfg == g
    dense, _, _ = R.dmp_inner_gcd(f, g)
    assert h in (dense, -dense)
