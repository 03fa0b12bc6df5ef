"""A mechanism written by ``construct`` or ``design`` holds what was verified (issue 35): the bytes
are checked as a user will load them (``numpy.load``, ``numpy.loadtxt``), in their own dtype, before
they replace anything.

* ``.csv``: an exact mechanism as exact number strings; a float one as float64 numbers, written
  only if float64 keeps it ε-DP.
* ``.npy``: float64 if that keeps it; else long double (entries down to about 1e-4951, e.g.
  Algorithm 1 at n = 2000, whose smallest entries lie far below the smallest double); else refused.
* ``.log.npy``: the natural logarithm of every entry, float64: any magnitude.

The report says which form was written (``written.form``) and what the check of the file found.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from polytopes.fixed_point.arithmetic import exact_logs
from polytopes.fixed_point.construction import Verification
from polytopes.fixed_point.verification import verify_array, verify_log_mechanism
from proofs_checks.cli.base import UsageError
from qifkit.errors import CertificateError
from qifkit.files import atomic_write_bytes, atomic_write_text
from qifkit.numbers import exact_str

__all__ = ["MechanismCheck", "write_mechanism"]


@dataclass(frozen=True)
class MechanismCheck:
    """What a written mechanism (rows: inputs) must still satisfy: e^ε-DP between neighbouring
    inputs (`eps` is ln e^ε), rows summing to 1 and, with `log_z`, the fixed point z, each to the
    float check's tolerance."""

    eps: float
    log_z: np.ndarray | None = None

    def values(self, array: np.ndarray) -> Verification:
        """Check an array of entries (float64 or long double) as it is."""
        return verify_array(array, self.eps, self.log_z)

    def logs(self, logs: np.ndarray) -> Verification:
        """Check an array of natural logarithms of the entries."""
        return verify_log_mechanism(logs, self.eps, self.log_z)


def write_mechanism(path: str, check: MechanismCheck, exact_rows: Sequence[Sequence[Fraction]] | None = None,
                    logs: Callable[[], np.ndarray] | None = None) -> dict[str, Any]:
    """Write a mechanism (exact rows, or the long-double logs of a float one) to `path` in the first
    form that passes `check` as read back from its bytes; atomically. Returns ``{"path", "form",
    "row_sum_error", "worst_dp_ratio"}`` of the file.

    Raises
    ------
    UsageError
        When no form of this file type holds the mechanism (naming the entries that break it and
        the file type that holds it).
    """
    @functools.cache
    def logarithms() -> np.ndarray:  # at most once: float64 may be tried before long double
        if logs is not None:
            return logs()
        assert exact_rows is not None  # one of the two is given
        return exact_logs(exact_rows)

    if path.endswith(".csv") and exact_rows is not None:
        atomic_write_text(path, "".join(",".join(exact_str(v) for v in row) + "\n" for row in exact_rows))
        return _written(path, "exact", None)
    if path.endswith(".log.npy"):
        data = _npy(logarithms().astype(float))
        try:
            verified = check.logs(np.load(io.BytesIO(data)))
        except CertificateError as error:
            raise UsageError(f"--out {path}: the file would not hold the verified mechanism: {error}") from None
        atomic_write_bytes(path, data)
        return _written(path, "natural logarithms, float64", verified)
    refusals = []
    dtypes = (np.float64,) if path.endswith(".csv") else (np.float64, np.longdouble)
    for dtype in dtypes:
        array = (np.array([[float(v) for v in row] for row in exact_rows]) if exact_rows is not None
                 and dtype is np.float64 else np.exp(logarithms().astype(dtype)))
        if path.endswith(".csv"):
            text = "".join(",".join(repr(float(v)) for v in row) + "\n" for row in array)
            read_back = np.loadtxt(io.StringIO(text), delimiter=",", ndmin=2)
        else:
            data = _npy(array)
            read_back = np.load(io.BytesIO(data))
        try:
            verified = check.values(read_back)
        except CertificateError as error:
            refusals.append(str(error))
            continue
        if path.endswith(".csv"):
            atomic_write_text(path, text)
        else:
            atomic_write_bytes(path, data)
        form = "float64" if dtype is np.float64 else f"long double ({read_back.dtype})"
        if refusals:
            print(f"{path}: float64 would not hold the mechanism ({refusals[0]}); written as {form}")
        return _written(path, form, verified)
    stem = path.rsplit(".", 1)[0]
    holds = f"{stem}.log.npy (natural logarithms)" + (f", or {stem}.npy (long double)" if path.endswith(".csv") else "")
    raise UsageError(f"--out {path}: the file would not hold the verified mechanism: {refusals[-1]}; write {holds}"
                     + ("" if exact_rows is not None else ", or construct it exactly (without --float) for a .csv"))


def _written(path: str, form: str, verified: Verification | None) -> dict[str, Any]:
    print(f"mechanism written to {path} ({form}" + ("" if verified is None else ", checked as written") + ")")
    if verified is None:
        return {"path": path, "form": form}
    return {"path": path, "form": form, "row_sum_error": float(verified.row_sum_error),
            "worst_dp_ratio": float(verified.dp_ratio),
            "fixed_point_error": None if verified.fixed_point_error is None else float(verified.fixed_point_error)}


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()

