"""What construct and design write is what was verified (issue 35): each file is loaded the way a
user loads it (numpy.load, numpy.loadtxt) and re-checked here by plain numpy, not by the checker
under test (proofs_checks.cli.artefacts, polytopes.fixed_point.verification.verify_array)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from proofs_checks.cli import main

TOLERANCE = 1e-9


def _mixture_z(n: int) -> list[float]:
    """0.9·binomial(n − 1, 1/2) + 0.1·uniform: the issue's fixed point, whose tails lie far below
    the smallest double."""
    logs = [math.lgamma(n) - math.lgamma(k + 1) - math.lgamma(n - k) - (n - 1) * math.log(2) for k in range(n)]
    z = np.array([0.9 * math.exp(v) + 0.1 / n for v in logs])
    return list(z / math.fsum(z))


def _assert_private(matrix: np.ndarray, e: float, z: list[float] | None = None) -> None:
    """Rows sum to 1, no zero beside a positive entry, every neighbour ratio ≤ e^ε, z·T = z: each to
    1e-9, in the array's own dtype."""
    upper, lower = matrix[:-1], matrix[1:]
    assert not np.any((upper > 0) != (lower > 0))
    positive = upper > 0
    assert np.all(upper[positive] <= e * (1 + TOLERANCE) * lower[positive])
    assert np.all(lower[positive] <= e * (1 + TOLERANCE) * upper[positive])
    assert np.all(np.abs(matrix.sum(axis=1) - 1) <= TOLERANCE)
    if z is not None:
        zs = np.asarray(z, dtype=matrix.dtype)
        assert np.all(np.abs(zs @ matrix / zs - 1) <= TOLERANCE)


@pytest.fixture(scope="module")
def big_z(tmp_path_factory):
    folder = tmp_path_factory.mktemp("z")
    z = _mixture_z(2000)
    np.save(folder / "z.npy", np.array(z))
    return folder / "z.npy", z


def test_algorithm1_at_n_2000_is_written_in_a_form_that_holds_it(tmp_path, big_z):
    """The issue's case: a float64 T.npy broke e^ε = 2 at 27,020 neighbour pairs (1,852 of them a
    zero beside a positive entry). The file now holds the mechanism as numpy.load gives it."""
    path, z = big_z
    out, report = tmp_path / "T.npy", tmp_path / "T.json"
    assert main(["construct", "--z-file", str(path), "--eps-exp", "2", "--float", "--out", str(out),
                 "--json", str(report)]) == 0
    matrix = np.load(out)
    assert matrix.dtype == np.longdouble and matrix.dtype != np.float64
    _assert_private(matrix, 2.0, z)
    written = json.loads(report.read_text())["written"]
    assert written["form"].startswith("long double") and written["worst_dp_ratio"] <= 2 * (1 + TOLERANCE)
    assert len(json.loads(report.read_text())["z"]) == 2000


def test_the_float64_form_that_would_break_it_is_what_was_refused(big_z):
    """The float64 array of the same mechanism breaks e^ε (the reason the long double is written)."""
    from polytopes.fixed_point.algorithm1 import heuristic_constructor

    matrix = heuristic_constructor(big_z[1], eps_exp=2.0, exact=False).to_numpy()
    with pytest.raises(AssertionError):
        _assert_private(matrix, 2.0)


def test_a_float_csv_that_would_break_it_is_refused_naming_what_holds_it(tmp_path, big_z, capsys):
    out = tmp_path / "T.csv"
    assert main(["construct", "--z-file", str(big_z[0]), "--eps-exp", "2", "--float", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "neighbour pairs break e^ε = 2" in err and f"{tmp_path / 'T'}.log.npy" in err
    assert not out.exists()


def test_logarithms_hold_any_magnitude(tmp_path, big_z):
    out = tmp_path / "T.log.npy"
    assert main(["construct", "--z-file", str(big_z[0]), "--eps-exp", "2", "--float", "--out", str(out)]) == 0
    logs = np.load(out)
    assert logs.dtype == np.float64 and logs.min() < -1000  # entries near 2^-2000
    steps = np.abs(np.diff(logs, axis=0))
    assert np.all(np.isfinite(logs)) and steps.max() <= math.log(2) + TOLERANCE
    top = logs.max(axis=1, keepdims=True)
    assert np.all(np.abs(np.log(np.exp(logs - top).sum(axis=1)) + top[:, 0]) <= TOLERANCE)


@pytest.mark.parametrize("suffix", [".npy", ".csv"])
def test_a_small_mechanism_is_written_as_float64(tmp_path, suffix):
    out = tmp_path / f"t{suffix}"
    assert main(["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2", "--float", "--out", str(out)]) == 0
    matrix = np.load(out) if suffix == ".npy" else np.loadtxt(out, delimiter=",")
    assert matrix.dtype == np.float64
    _assert_private(matrix, 2.0, [0.25, 0.5, 0.25])
    exact = [[Fraction(4, 9), Fraction(4, 9), Fraction(1, 9)], [Fraction(2, 9), Fraction(5, 9), Fraction(2, 9)],
             [Fraction(1, 9), Fraction(4, 9), Fraction(4, 9)]]  # Algorithm 1's vertex (its docstring example)
    assert np.allclose(matrix, np.array(exact, dtype=float), rtol=1e-12, atol=0)


def test_an_exact_mechanism_whose_doubles_underflow_is_written_in_long_double(tmp_path):
    """Cormode et al.'s geometric mechanism at α = 10^-9 on counts 0..40: entries of about 10^-360,
    below the smallest double, so float64 would hold zeros beside positive entries."""
    out, report = tmp_path / "gm.npy", tmp_path / "gm.json"
    assert main(["design", "--max-count", "40", "--eps-exp", "1000000000", "--mechanism", "gm",
                 "--out", str(out), "--json", str(report)]) == 0
    matrix = np.load(out)
    assert matrix.dtype == np.longdouble and matrix.dtype != np.float64 and 0 < matrix.min() < 1e-308
    _assert_private(matrix, 1e9)
    assert json.loads(report.read_text())["written"]["form"].startswith("long double")


def test_an_exact_csv_is_exact_and_read_back_by_read_exact(tmp_path):
    """numpy.loadtxt cannot read fractions (issue 35); qifkit.files.read_exact gives them back as
    an array of Fractions, the same matrix exactly."""
    from qifkit.files import read_exact

    out = tmp_path / "t.csv"
    assert main(["construct", "--z", "1/4,1/2,1/4", "--eps-exp", "2", "--out", str(out)]) == 0
    assert out.read_text() == "4/9,4/9,1/9\n2/9,5/9,2/9\n1/9,4/9,4/9\n"
    with pytest.raises(ValueError):
        np.loadtxt(out, delimiter=",")
    matrix = read_exact(out)
    assert matrix.dtype == object and matrix.tolist() == [[Fraction(4, 9), Fraction(4, 9), Fraction(1, 9)],
                                                          [Fraction(2, 9), Fraction(5, 9), Fraction(2, 9)],
                                                          [Fraction(1, 9), Fraction(4, 9), Fraction(4, 9)]]
    assert (np.array([1, 2, 1], dtype=object) @ matrix / 4).tolist() == [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
