"""Refinement A ⊑ B decided exactly, with a certificate either way.

By the Coriaceous theorem (Alvim et al. 2023, Thm. 4) A ⊑ B exactly when a stochastic W with
A·W = B exists. The certificate is that witness W when refinement holds; when it fails, it is a
prior π and a loss ℓ (actions are B's outputs) with U_ℓ(π, A) > U_ℓ(π, B), and the exact gap.

Method. The question is first made small by exact linear algebra: the abstract channels (no zero
or proportional columns), then an exact row basis R of A (A = T·A_R, rows suggested by a float
pivoted QR and checked exactly), so that A·W = B exactly when A_R·W = B_R and B = T·B_R. A row of
B outside that span refutes at once with explicit Farkas multipliers; a full-column-rank A has one
candidate W and needs no LP. What remains is the witness LP on the rows R, decided by the
toolkit's exact LP engine (:func:`qifkit.lp.solve`: HiGHS proposes a basis, exact algebra
solves and checks it), which returns a witness or Farkas multipliers M and v with
Σ_x A[x,y]·M[x,z] + v[y] ≥ 0 and ⟨M, B⟩ + Σ v < 0. With a prior π of full support (the uniform one
unless the caller gives another) and ℓ(x, z) = M[x, z]/π_x (shifted per secret to be ≥ 0, scaled
into [0, 1]) this gives U_ℓ(π, A) ≥ −Σ v > ⟨M, B⟩ ≥ U_ℓ(π, B). No float decides: every result
passes :func:`verify_certificate`, which uses exact arithmetic only, before it is returned.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import flint
import numpy as np
import scipy.linalg
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel
from qifkit.errors import (
    CertificateError,
    DistributionError,
    InternalError,
    LabelError,
    NumberKindError,
    QifError,
    ShapeError,
)
from qifkit.lp import LinearProgram, float_solution
from qifkit.lp import solve as solve_lp
from qifkit.matrices import NumberKind
from qifkit.measures import Loss, Prior, posterior_uncertainty, uniform_prior
from qifkit.numbers import (
    exact_str,
    over_common_denominator,
    parse_number,
    reduced_fraction,
    reduced_fractions,
    to_fmpq,
)

__all__ = [
    "Refinement",
    "ApproximateRefinement",
    "approximate_refinement",
    "Equivalence",
    "refines",
    "equivalent",
    "verify_certificate",
    "certificate_defect",
    "MAX_WITNESS_ENTRIES",
    "certificate_document",
    "certificate_from_document",
]


@dataclass(frozen=True)
class Refinement:
    """The verdict on A ⊑ B with its certificate.

    ``holds`` with a stochastic ``witness`` (A·witness = B); or not, with ``prior``, ``loss``, the
    exact ``uncertainty_a`` = U_ℓ(π, A) and ``uncertainty_b`` = U_ℓ(π, B), and ``gap`` =
    uncertainty_a − uncertainty_b > 0. ``method`` says which route produced the certificate.
    :func:`verify_certificate` re-checks either kind exactly.

    Attributes
    ----------
    holds : bool
        Whether A ⊑ B.
    witness : Channel or None
        W with A·W = B, when it holds.
    prior, loss : Prior, Loss or None
        The refuting analyst, when it does not.
    uncertainty_a, uncertainty_b, gap : Fraction or None
        U_ℓ(π, A), U_ℓ(π, B) and their difference, exact.
    method : str
        The route that produced the certificate.

    Examples
    --------
    >>> from qifkit import randomized_response, refines
    >>> no = refines(randomized_response(3, eps_exp=2), randomized_response(3, eps_exp=3))
    >>> no.holds, no.gap > 0, no.uncertainty_a - no.uncertainty_b == no.gap
    (False, True, True)
    """

    holds: bool
    witness: Channel | None = None
    prior: Prior | None = None
    loss: Loss | None = None
    uncertainty_a: Fraction | None = None
    uncertainty_b: Fraction | None = None
    gap: Fraction | None = None
    method: str = ""


def _check_pair(a: Channel, b: Channel, floats_allowed: bool = False) -> None:
    """Channels on the same secrets; exact ones (numbers, floats too when `floats_allowed`)."""
    for name, channel in (("A", a), ("B", b)):
        if not isinstance(channel, Channel):
            raise TypeError(f"{name} must be a Channel, not {type(channel).__name__}")
        if channel.kind is NumberKind.SYMBOLIC or (channel.kind is NumberKind.FLOAT and not floats_allowed):
            raise NumberKindError(f"refinement is decided exactly; channel {name} is {channel.kind.value}"
                                  + ("" if floats_allowed else " (approximate_refinement takes floats)"))
    if a.shape[0] != b.shape[0]:
        raise ShapeError(
            f"A has {a.shape[0]} secrets and B has {b.shape[0]}: refinement compares channels on the same secrets"
        )
    if a.secrets != b.secrets:
        raise LabelError("A and B have different secret labels (or order)")


def _check_prior(prior: Prior, a: Channel) -> None:
    if not isinstance(prior, Prior) or prior.kind is not NumberKind.EXACT:
        raise NumberKindError("a refutation's prior must be an exact Prior")
    prior._aligned(a.secrets)
    zero = next((x for x, p in zip(a.secrets, prior.probabilities(), strict=True) if p == 0), None)
    if zero is not None:
        raise DistributionError(f"the prior gives secret {zero!r} probability 0; a refutation needs every secret")


#: The largest witness (A's outputs × B's outputs) refines builds: a 3000 × 3000 witness takes a
#: minute to write and check exactly; 20,000 × 20,000 exhausts memory inside GMP (an abort).
MAX_WITNESS_ENTRIES = 4_000_000


def refines(a: Channel, b: Channel, *, prior: Prior | None = None, time_limit: float | None = None,
            candidate: Channel | None = None) -> Refinement:
    """Decide A ⊑ B (B is a post-processing of A) exactly, with a certificate.

    Parameters
    ----------
    a, b : Channel
        Exact channels on the same secrets; their output sets may differ.
    prior : Prior, optional
        The prior a refutation should use (it must give every secret positive probability);
        the uniform prior by default.
    time_limit : float or None
        The caller's bound on the LP, in seconds (see :func:`qifkit.lp.solve`): it never changes
        the answer; once passed, :class:`~qifkit.errors.TimeLimitReached` is raised.
    candidate : Channel, optional
        A witness to try first, e.g. one built from the channels' structure
        (:func:`qifkit.pipelines.count_witness`). It is accepted only if it passes
        :func:`verify_certificate`; otherwise the question is decided as without it.

    Returns
    -------
    Refinement
        Verified by :func:`verify_certificate` before it is returned.

    Raises
    ------
    NumberKindError
        A float or symbolic channel.
    ShapeError, LabelError
        Channels on different secrets, or a witness (A's outputs × B's outputs) of more than
        MAX_WITNESS_ENTRIES entries, refused before any work.
    DistributionError, LabelError
        A prior of another length or on other secrets, or one with a zero entry.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> refines(randomized_response(3, eps_exp="3"), randomized_response(3, eps_exp="2")).holds
    True
    >>> refines(randomized_response(3, eps_exp="2"), randomized_response(3, eps_exp="3")).gap > 0
    True
    """
    _check_pair(a, b)
    entries = a.shape[1] * b.shape[1]
    if entries > MAX_WITNESS_ENTRIES:
        raise ShapeError(
            f"a witness from A's {a.shape[1]:,} outputs to B's {b.shape[1]:,} would have {entries:,} exact "
            f"entries, more than {MAX_WITNESS_ENTRIES:,}: merge outputs that A or B never tell apart, "
            "or compare post-processed channels with fewer outputs"
        )
    if prior is not None:
        _check_prior(prior, a)
    if candidate is not None:
        if not isinstance(candidate, Channel):
            raise TypeError(f"a candidate witness must be a Channel, not {type(candidate).__name__}")
        offered = Refinement(True, witness=candidate, method="candidate witness from the channels' structure, "
                                                               "checked exactly")
        if verify_certificate(a, b, offered):
            return offered
    abstract_a, abstract_b = _abstract(a), _abstract(b)
    basis = _row_basis(abstract_a)
    result = _abstract_verdict(abstract_a, abstract_b, prior, time_limit, basis)
    if abstract_a is not a or abstract_b is not b:
        result = _lift(result, a, abstract_a, b, abstract_b)
    # the re-check may reuse A's row basis: it was checked exactly (A = T·A_R) when it was found
    if _defect(a, b, result, basis if abstract_a is a else None) is not None:  # pragma: no cover - a bug
        raise InternalError("a refinement certificate failed its exact re-check")
    return result


def _abstract_verdict(a: Channel, b: Channel, prior: Prior | None, time_limit: float | None,
            basis: tuple[list[int], flint.fmpq_mat] | None) -> Refinement:
    """The verdict for abstract channels (no zero columns, no two proportional columns).

    1. An exact row basis R of A (:func:`_row_basis`, or None when none was found). Then
       A·W = B exactly when A_R·W = B_R and B = T·B_R; a row x with B_x ≠ T_x·B_R refutes at once.
    2. When A has full column rank, W = A_R⁻¹·B_R is the only candidate: no LP.
    3. Otherwise the witness LP on the rows R alone goes to the exact LP engine
       (:func:`qifkit.lp.solve`), which returns a witness or Farkas multipliers.
    """
    rows, combination = basis if basis is not None else (list(range(a.shape[0])), None)
    if combination is not None:
        refuted = _outside_row_space(a, b, rows, combination, prior)
        if refuted is not None:
            return refuted
        if len(rows) == a.shape[1]:
            return _unique_candidate(a, b, rows, prior)
    return _witness_lp_verdict(a, b, rows, prior, time_limit)

def _abstract(channel: Channel) -> Channel:
    """The abstract channel when floats suggest a zero or proportional column, else `channel`
    itself (an exactly proportional pair has equal normalised float columns, so none is missed)."""
    columns = np.asarray(channel.to_float().matrix).T
    totals = columns.sum(axis=1)
    if np.any(totals == 0):
        return channel.reduced()
    keys = {tuple(float(f"{v:.9g}") for v in column / total) for column, total in zip(columns, totals, strict=True)}
    return channel.reduced() if len(keys) < len(columns) else channel


def _lift(result: Refinement, a: Channel, abstract_a: Channel, b: Channel, abstract_b: Channel) -> Refinement:
    """Carry a certificate for the abstract channels back to A and B.

    A refutation carries over unchanged (a channel and its abstract channel have the same
    posterior uncertainty for every prior and loss). A witness W' for abstract A' ⊑ B' becomes
    W = E·W'·S: E sends each output of A to its group (an all-zero output to the first group, it
    never occurs), S splits each group of B back into its outputs in their fixed proportions.
    """
    if not result.holds:
        return result
    witness = result.witness
    assert witness is not None  # a refinement that holds has its witness
    if abstract_a is not a:  # the abstract channels' outputs are the groups, tuples of outputs
        group_of = {label: k for k, group in enumerate(abstract_a.outputs) for label in cast(tuple, group)}
        expand = Channel.from_rows(
            [[1 if group_of.get(label, 0) == k else 0 for k in range(abstract_a.shape[1])] for label in a.outputs],
            secrets=a.outputs, outputs=abstract_a.outputs,
        )
        witness = expand @ witness
    if abstract_b is not b:
        b_rows, abstract_rows = b.rows(), abstract_b.rows()
        split = []
        for k, group in enumerate(abstract_b.outputs):
            x = next(i for i, row in enumerate(abstract_rows) if row[k] != 0)
            members = {label: b_rows[x][b.outputs.index(label)] / abstract_rows[x][k] for label in cast(tuple, group)}
            split.append([members.get(label, 0) for label in b.outputs])
        witness = witness @ Channel.from_rows(split, secrets=abstract_b.outputs, outputs=b.outputs)
    return Refinement(True, witness=witness, method=result.method + ", on the abstract channels")


# ------------------------------------------------------------------------------- exact certificates
def _row_basis(a: Channel) -> tuple[list[int], flint.fmpq_mat] | None:
    """Rows R of A that span its row space and T with A = T·A_R, exactly.

    The rows that a float pivoted QR suggests, kept if they pass the exact test A = T·A_R; else
    (an ill-conditioned A whose float rank is too low) the pivots of an exact fraction-free
    echelon form, for A of at most :data:`_EXACT_RANK_LIMIT` entries. None when neither gives a
    basis (the witness LP then keeps every row)."""
    exact_a = _flint_matrix(a.matrix)
    a_float = np.asarray(a.to_float().matrix)
    _, triangular, row_pivots = scipy.linalg.qr(a_float.T, mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(triangular))
    rank = int(np.sum(diagonal > 1e-10 * max(diagonal[0], 1.0)))
    rows = sorted(int(i) for i in row_pivots[:rank])
    _, _, column_pivots = scipy.linalg.qr(a_float[rows], mode="economic", pivoting=True)
    found = _combination(exact_a, rows, sorted(int(j) for j in column_pivots[:rank]))
    if found is None and a.shape[0] * a.shape[1] <= _EXACT_RANK_LIMIT:
        rows = _pivots(_integer_rows(exact_a).transpose())
        a_rows = _flint_matrix(a.matrix, rows)
        found = _combination(exact_a, rows, _pivots(_integer_rows(a_rows)))
    return None if found is None else (rows, found)


#: Largest A (entries) whose row basis is found by an exact echelon form when floats fail.
_EXACT_RANK_LIMIT = 200_000


def _combination(exact_a: flint.fmpq_mat, rows: list[int], columns: list[int]) -> flint.fmpq_mat | None:
    """T with A = T·A_R when A[R, C] is invertible and the identity holds exactly, else None."""
    secrets, outputs = exact_a.nrows(), exact_a.ncols()
    rank = len(rows)
    if len(columns) != rank:
        return None
    square = flint.fmpq_mat(rank, rank, [exact_a[r, c] for r in rows for c in columns])
    chosen = flint.fmpq_mat(secrets, rank, [exact_a[x, c] for x in range(secrets) for c in columns])
    try:
        combination = square.transpose().solve(chosen.transpose()).transpose()
    except ZeroDivisionError:
        return None
    a_rows = flint.fmpq_mat(rank, outputs, [exact_a[r, y] for r in rows for y in range(outputs)])
    return combination if combination * a_rows == exact_a else None


def _integer_rows(matrix: flint.fmpq_mat) -> flint.fmpz_mat:
    """Each row times the common denominator of its entries (same row space, integer entries)."""
    rows = []
    for r in range(matrix.nrows()):
        rows.append(over_common_denominator([matrix[r, c] for c in range(matrix.ncols())])[0])
    return flint.fmpz_mat(rows)


def _pivots(matrix: flint.fmpz_mat) -> list[int]:
    """The pivot columns of the reduced echelon form (exact, fraction-free)."""
    echelon, _, rank = matrix.rref()
    return [next(c for c in range(matrix.ncols()) if echelon[r, c] != 0) for r in range(rank)]


def _flint_matrix(matrix: DomainMatrix, rows: Sequence[int] | None = None) -> flint.fmpq_mat:
    """The exact entries as a FLINT matrix, only those of `rows` when given: sympy's own row
    extraction and conversion (``extract``, ``to_dfm_or_ddm``: FLINT's matrix itself where sympy's
    ground types are FLINT's, as python-flint makes them; callers never write to it), entry by
    entry otherwise."""
    if rows is not None:
        matrix = matrix.extract(list(rows), list(range(matrix.shape[1])))
    converted = getattr(matrix.to_dfm_or_ddm(), "rep", None)
    if isinstance(converted, flint.fmpq_mat):
        return converted
    height, width = matrix.shape
    return flint.fmpq_mat(height, width, [v for row in matrix.to_list() for v in row])


def _outside_row_space(a: Channel, b: Channel, rows: list[int], combination: flint.fmpq_mat,
                       prior: Prior | None) -> Refinement | None:
    """A refutation when some row of B is not the combination T_x of B's rows R that A's row x is:
    then M = ±(e_x − Σ_r T[x, r]·e_r) in one column z has AᵀM = 0 and ⟨M, B⟩ < 0."""
    exact_b = _flint_matrix(b.matrix)
    outputs = b.shape[1]
    b_rows = _flint_matrix(b.matrix, rows)
    residual = exact_b - combination * b_rows
    for x in range(b.shape[0]):
        for z in range(outputs):
            if residual[x, z] != 0:
                sign = -1 if residual[x, z] > 0 else 1
                multipliers = [[Fraction(0)] * outputs for _ in range(b.shape[0])]
                multipliers[x][z] += sign
                for index, r in enumerate(rows):
                    multipliers[r][z] -= sign * reduced_fraction(combination[x, index])
                return _refutation(a, b, multipliers, "exact Farkas multipliers (B leaves A's row space)", prior)
    return None


def _unique_candidate(a: Channel, b: Channel, rows: list[int], prior: Prior | None) -> Refinement:
    """A of full column rank: W0 = A_R⁻¹·B_R is the only candidate (its rows sum to 1 since A_R's
    and B_R's do). W0 ≥ 0 is the witness; a negative W0[y, z] gives the multipliers
    M_R[:, z] = A_R^{-T}·e_y, with AᵀM = e_y·e_zᵀ ≥ 0 and ⟨M, B⟩ = W0[y, z] < 0."""
    exact_a, exact_b = _flint_matrix(a.matrix), _flint_matrix(b.matrix)
    size, outputs = len(rows), b.shape[1]
    a_r = flint.fmpq_mat(size, size, [exact_a[r, y] for r in rows for y in range(size)])
    b_r = flint.fmpq_mat(size, outputs, [exact_b[r, z] for r in rows for z in range(outputs)])
    w0 = a_r.solve(b_r)
    negative = next(((y, z) for y in range(size) for z in range(outputs) if w0[y, z] < 0), None)
    if negative is None:
        witness = [[reduced_fraction(w0[y, z]) for z in range(outputs)] for y in range(size)]
        result = _witness_result(a, b, witness, "exact solve (A has full column rank, so W is unique)")
        if result is None:  # pragma: no cover - A = T·A_R and B = T·B_R make A·W0 = B
            raise InternalError("the unique candidate witness does not satisfy A·W = B")
        return result
    y, z = negative
    unit = flint.fmpq_mat(size, 1, [1 if k == y else 0 for k in range(size)])
    column = a_r.transpose().solve(unit)
    multipliers = [[Fraction(0)] * outputs for _ in range(a.shape[0])]
    for index, r in enumerate(rows):
        multipliers[r][z] = reduced_fraction(column[index, 0])
    result = _refutation(a, b, multipliers, "exact Farkas multipliers (A has full column rank)", prior)
    if result is None:  # pragma: no cover - exact multipliers always separate
        raise InternalError("exact Farkas multipliers did not give a positive gap")
    return result


def _witness_lp_verdict(a: Channel, b: Channel, rows: list[int], prior: Prior | None,
                        time_limit: float | None) -> Refinement:
    """The witness LP on the rows R (A_R·W = B_R, W·1 = 1, W ≥ 0) by the exact LP engine.

    The equations are posed in reduced echelon form, E·W = S·B_R with E = S·A_R = rref(A_R) and
    S the inverse of A_R on its pivot columns (when the rows R are independent): the same
    feasible set, but each equation holds one pivot variable and the free ones, about half the
    non-zeros of a dense A_R, which the float simplex feels (several times faster at 1000×100 of
    rank 50: ``benchmarks/bench_refinement.py``). Farkas multipliers Y of the echelon equations
    are SᵀY for A_R's rows: with v on the row sums, A_RᵀSᵀY + v1ᵀ ≤ 0 and ⟨SᵀY, B_R⟩ + Σv > 0, and
    M = −SᵀY (zero off R) is the separation that :func:`_refutation` takes.
    """
    outputs_a, outputs_b = a.shape[1], b.shape[1]
    a_rows, b_rows = _flint_matrix(a.matrix, rows), _flint_matrix(b.matrix, rows)
    echelon, rank = a_rows.rref()
    if rank == len(rows):
        pivots = [next(y for y in range(outputs_a) if echelon[r, y] != 0) for r in range(rank)]
        scaling = flint.fmpq_mat(rank, rank, [a_rows[r, y] for r in range(rank) for y in pivots]).inv()
        left, right_side = echelon, scaling * b_rows
    else:  # dependent rows (no exact row basis was found): the rows as they are
        scaling, left, right_side = None, a_rows, b_rows
    equations: list[dict[int, Any]] = []
    right: list[Any] = []
    for r in range(left.nrows()):
        coefficients = [(y, left[r, y]) for y in range(outputs_a) if left[r, y] != 0]
        for z in range(outputs_b):
            equations.append({y * outputs_b + z: v for y, v in coefficients})
            right.append(right_side[r, z])
    one = flint.fmpq(1)
    for y in range(outputs_a):
        equations.append({y * outputs_b + z: one for z in range(outputs_b)})
        right.append(one)
    program = LinearProgram.build(outputs_a * outputs_b, equations, row_lower=right, row_upper=right,
                                  name=f"witness LP ({len(rows)} rows of A, {outputs_a}x{outputs_b} witness)",
                                  blocks=[k % outputs_b for k in range(outputs_a * outputs_b)])
    answer = solve_lp(program, time_limit=time_limit)
    method = f"exact LP engine: {answer.method}"
    if answer.status == "optimal":
        point = reduced_fractions(answer.point)  # type: ignore[arg-type]
        witness = [[point[y * outputs_b + z] for z in range(outputs_b)] for y in range(outputs_a)]
        result = _witness_result(a, b, witness, method)
    else:
        duals = flint.fmpq_mat(left.nrows(), outputs_b, list(answer.duals[: left.nrows() * outputs_b]))  # type: ignore[index]
        on_rows = duals if scaling is None else scaling.transpose() * duals
        multipliers = [[Fraction(0)] * outputs_b for _ in range(a.shape[0])]
        for index, x in enumerate(rows):
            for z in range(outputs_b):
                value = on_rows[index, z]
                multipliers[x][z] = -reduced_fraction(value)
        result = _refutation(a, b, multipliers, method, prior)
    if result is None:  # pragma: no cover - the engine's certificates are checked
        raise InternalError("the exact LP engine's certificate did not carry over to the channels")
    return result


def _witness_result(a: Channel, b: Channel, witness: list[list[Any]], method: str) -> Refinement | None:
    """The witness as a channel (A·W = B is left to :func:`verify_certificate`, the one check)."""
    try:
        channel = Channel.from_rows(witness, secrets=a.outputs, outputs=b.outputs)
    except QifError:
        return None
    return Refinement(True, witness=channel, method=method)


def _refutation(a: Channel, b: Channel, multipliers: Any, method: str, prior: Prior | None = None) -> Refinement | None:
    """Turn Farkas multipliers M (AᵀM + v1ᵀ ≥ 0, ⟨M, B⟩ + Σv < 0) into a loss in [0, 1]: ℓ(x, z) =
    M[x, z]/π_x, shifted per secret to be ≥ 0 and scaled (neither changes the sign of the gap).
    The prior π is the caller's (of full support), else uniform. Losses with small denominators
    (read off a float copy of ℓ; the exact gap decides) are tried before ℓ itself, whose entries
    carry the basis's large denominators. None if no exact gap is positive."""
    if prior is None:
        prior, weights = uniform_prior(a.secrets), [Fraction(1)] * a.shape[0]
    else:
        weights = [Fraction(p) for p in prior.probabilities()]
    floats = _FloatGap(a, b, weights)
    for denominator in (12, 100, 10**4):
        table = _rounded_loss(multipliers, weights, denominator)
        if table is None or floats.clearly_not_positive(table):
            continue  # floats only skip a candidate; a gap is always decided exactly
        result = _refutation_from_loss(a, b, prior, table, method)
        if result is not None:
            return result
    rows = [[Fraction(v) / weight for v in row] for row, weight in zip(multipliers, weights, strict=True)]
    shifted = [[v - low for v in row] for row, low in zip(rows, map(min, rows), strict=True)]
    top = max(max(row) for row in shifted)
    if top <= 0:
        return None
    return _refutation_from_loss(a, b, prior, [[v / top for v in row] for row in shifted], method)


class _FloatGap:
    """U_ℓ(π, A) − U_ℓ(π, B) in floats, to pass over a candidate loss whose gap is plainly not
    positive before its exact evaluation (two exact products with a large A, each a pass over all
    its entries in rationals)."""

    def __init__(self, a: Channel, b: Channel, weights: list[Fraction]) -> None:
        self.channels: tuple[np.ndarray, np.ndarray] | None = None
        self.sources, self.weights = (a, b), np.array([float(w) for w in weights])

    def clearly_not_positive(self, table: list[list[Fraction]]) -> bool:
        if self.channels is None:
            a, b = self.sources
            self.channels = (np.asarray(a.to_float().matrix), np.asarray(b.to_float().matrix))
        loss = np.array(table, dtype=float)
        a_float, b_float = self.channels
        uncertainty = [float(np.min((self.weights[:, None] * c).T @ loss, axis=1).sum()) for c in (a_float, b_float)]
        return uncertainty[0] - uncertainty[1] < -1e-9 * max(1.0, abs(uncertainty[0]))


def _rounded_loss(multipliers: Any, weights: list[Fraction], denominator: int) -> list[list[Fraction]] | None:
    """The loss of :func:`_refutation` computed in floats and rounded to fractions of at most
    `denominator` (None when the floats overflow or the loss vanishes): a candidate only."""
    try:
        rows = [[float(v) / float(weight) for v in row] for row, weight in zip(multipliers, weights, strict=True)]
    except OverflowError:
        return None
    shifted = [[v - low for v in row] for row, low in zip(rows, map(min, rows), strict=True)]
    top = max(max(row) for row in shifted)
    if not 0 < top < math.inf:
        return None
    return [[Fraction(v / top).limit_denominator(denominator) for v in row] for row in shifted]


def _refutation_from_loss(a: Channel, b: Channel, prior: Prior, table: list[list[Fraction]],
                          method: str) -> Refinement | None:
    loss = Loss.from_rows(table, secrets=a.secrets, actions=b.outputs)
    u_a, u_b = posterior_uncertainty(prior, a, loss), posterior_uncertainty(prior, b, loss)
    if u_a <= u_b:
        return None
    return Refinement(False, prior=prior, loss=loss, uncertainty_a=u_a, uncertainty_b=u_b, gap=u_a - u_b, method=method)



# ------------------------------------------------------------------------------- the checker
def verify_certificate(a: Channel, b: Channel, result: Refinement) -> bool:
    """Re-check a refinement certificate with exact arithmetic only (no LP, no float): True exactly
    when :func:`certificate_defect` finds nothing wrong with it.

    Parameters
    ----------
    a, b : Channel
        The channels the certificate speaks of (A ⊑ B or A ⋢ B).
    result : Refinement
        What :func:`refines` returned, or a certificate read back from JSON: a witness W with
        A·W = B, or a prior and a loss under which B is less uncertain than A (Alvim et al. §3).

    Returns
    -------
    bool

    Raises
    ------
    NumberKindError, ShapeError, LabelError
        If A or B themselves are not exact channels on the same secrets.

    Examples
    --------
    >>> from qifkit import randomized_response, refines
    >>> a, b = randomized_response(3, eps_exp=3), randomized_response(3, eps_exp=2)
    >>> verify_certificate(a, b, refines(a, b)), verify_certificate(b, a, refines(b, a))
    (True, True)
    """
    return certificate_defect(a, b, result) is None


def certificate_defect(a: Channel, b: Channel, result: Refinement) -> str | None:
    """What is wrong with a refinement certificate, or None when it is valid (exact arithmetic only).

    A positive certificate (Alvim et al., Def. of refinement: A ⊑ B iff A·W = B for a channel W) is
    valid when the witness is an exact stochastic channel from A's outputs to B's outputs (every
    entry ≥ 0, every row summing to 1) with A·W = B entry by entry. A negative one (the theorem of
    refinement: A ⋢ B iff some prior and loss make B less uncertain) is valid when the prior is a
    distribution on the secrets, the loss is non-negative with B's outputs as actions, and the
    stated uncertainties are U_ℓ(π, A) and U_ℓ(π, B) exactly, with gap = their difference > 0.

    Raises
    ------
    NumberKindError, ShapeError, LabelError
        If A or B themselves are not exact channels on the same secrets.
    """
    _check_pair(a, b)
    return _defect(a, b, result, None)


def _defect(a: Channel, b: Channel, result: Refinement, basis: tuple[list[int], flint.fmpq_mat] | None) -> str | None:
    """:func:`certificate_defect` for a checked pair, with A's row basis when the caller has one."""
    if result.holds:
        witness = result.witness
        if witness is None:
            return "a positive certificate without a witness"
        if witness.kind is not NumberKind.EXACT:
            return f"the witness holds {witness.kind.value} numbers, not exact ones"
        if witness.secrets != a.outputs or witness.outputs != b.outputs:
            return "the witness does not go from A's outputs to B's outputs"
        exact_w = _flint_matrix(witness.matrix)
        if not _is_stochastic(exact_w):  # re-validated; from_rows names the defect
            try:
                Channel.from_rows(witness.rows(), witness.secrets, witness.outputs)
            except QifError as error:
                return f"the witness is not a channel: {error}"
        if _product_is(a, witness, exact_w, b, basis):
            return None
        product = a @ witness  # rows are read only to name a difference
        for x, (got, wanted) in enumerate(zip(product.rows(), b.rows(), strict=True)):
            for z, (value, target) in enumerate(zip(got, wanted, strict=True)):
                if value != target:
                    return f"(A·W)[{x}][{z}] = {exact_str(value)}, but B[{x}][{z}] = {exact_str(target)}"
        return None
    if result.prior is None or result.loss is None or result.gap is None:
        return "a negative certificate needs a prior, a loss and a gap"
    try:
        prior = Prior.from_values(result.prior.probabilities(), a.secrets)
        loss = Loss.from_rows(result.loss.rows(), a.secrets, result.loss.actions)
        u_a, u_b = posterior_uncertainty(prior, a, loss), posterior_uncertainty(prior, b, loss)
    except QifError as error:
        return f"the prior or loss is refused: {error}"
    for name, stated, value in (("U(prior, A)", result.uncertainty_a, u_a), ("U(prior, B)", result.uncertainty_b, u_b),
                                ("the gap", result.gap, u_a - u_b)):
        if stated != value:
            return f"{name} is {exact_str(value)}, not the stated {exact_str(stated) if stated is not None else None}"
    if result.gap <= 0:
        return f"the gap {exact_str(result.gap)} is not positive"
    return None


def _is_stochastic(matrix: flint.fmpq_mat) -> bool:
    """Every entry ≥ 0 and every row summing to exactly 1, on the exact entries as they are (no
    conversion: a witness from an LP basis has thousand-digit entries)."""
    rows, columns = matrix.nrows(), matrix.ncols()
    if any(matrix[i, j] < 0 for i in range(rows) for j in range(columns)):
        return False
    sums = matrix * flint.fmpq_mat(columns, 1, [1] * columns)
    return all(sums[i, 0] == 1 for i in range(rows))


def _product_is(a: Channel, w: Channel, exact_w: flint.fmpq_mat, b: Channel,
                basis: tuple[list[int], flint.fmpq_mat] | None) -> bool:
    """Whether A·W = B exactly. When A has more rows than columns and W's entries are large
    (denominators beyond :data:`_LARGE_WITNESS_BITS` bits, as an LP basis gives), through an exact
    row basis: A = T·A_R (checked entry by entry when the basis is found), A_R·W = B_R and
    T·B_R = B give A·W = T·A_R·W = T·B_R = B, and W's large entries meet only the rank-many rows
    R (several times faster at 1000×100 of rank 50). Otherwise, or when no basis is found, one
    product A·W compared with B (cheaper when W's entries are small: a row basis costs more). A
    `basis` the caller found is used instead of finding one again."""
    large = any(exact_w[y, z].q.bit_length() > _LARGE_WITNESS_BITS
                for y in range(exact_w.nrows()) for z in range(exact_w.ncols()))
    if large and a.shape[0] > a.shape[1]:
        basis = basis or _row_basis(a)
        if basis is not None:
            rows, combination = basis
            a_rows, b_rows = _flint_matrix(a.matrix, rows), _flint_matrix(b.matrix, rows)
            return a_rows * exact_w == b_rows and combination * b_rows == _flint_matrix(b.matrix)
    return a @ w == b


#: Witness denominators beyond this many bits send the check A·W = B through a row basis of A.
_LARGE_WITNESS_BITS = 256


@dataclass(frozen=True)
class Equivalence:
    """A ≡ B: both A ⊑ B and B ⊑ A, each with its certificate."""

    holds: bool
    forward: Refinement
    backward: Refinement


def equivalent(a: Channel, b: Channel) -> Equivalence:
    """Decide A ≡ B (each refines the other), with both certificates."""
    forward, backward = refines(a, b), refines(b, a)
    return Equivalence(forward.holds and backward.holds, forward, backward)


# ------------------------------------------------------------------------------- approximate
@dataclass(frozen=True)
class ApproximateRefinement:
    """A witness W that takes A *near* B, and exactly how near: ``distance`` = max over entries of
    |(A·W − B)[x, z]|, computed exactly from A's and B's entries as given (a float's binary value).

    Not a certificate of refinement: W is an exact channel (a float LP's witness, rounded to
    multiples of 1/D and renormalised), and A ⊑ B is proved only when ``distance == 0`` (then
    :func:`refines` gives the certificate). It answers a numpy user's question, "is B a
    post-processing of A up to estimation noise, and how much noise?", with a number anyone can
    re-check.
    """

    witness: Channel
    distance: Fraction


def approximate_refinement(a: Channel, b: Channel, max_denominator: int = 10**9) -> ApproximateRefinement:
    """The witness W minimising max |A·W − B| by a float LP (HiGHS), made an exact channel (entries
    multiples of 1/`max_denominator`, rows summing to 1), and the exact distance max |A·W − B| it
    reaches (:class:`ApproximateRefinement`). A and B may hold floats or exact numbers (not
    symbolic); they must have the same secrets.

    Examples
    --------
    >>> import numpy as np
    >>> a = Channel.from_numpy(np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> b = Channel.from_numpy(np.array([[0.5, 0.5], [0.4, 0.6]]))
    >>> found = approximate_refinement(a, b)
    >>> float(found.distance) < 1e-9, found.witness.kind.value
    (True, 'exact')
    """
    _check_pair(a, b, floats_allowed=True)
    rows_a, rows_b = _binary_rows(a), _binary_rows(b)
    secrets, outputs_a, outputs_b = a.shape[0], a.shape[1], b.shape[1]
    entries = outputs_a * outputs_b
    if entries > MAX_WITNESS_ENTRIES:
        raise ShapeError(f"a witness of {entries:,} entries is more than {MAX_WITNESS_ENTRIES:,}")
    distance = entries  # the variable t, after the witness's entries W[y][z] at y·|Z| + z
    constraints: list[dict[int, Any]] = []
    lower: list[Any] = []
    upper: list[Any] = []
    for x in range(secrets):
        for z in range(outputs_b):
            terms = {y * outputs_b + z: rows_a[x][y] for y in range(outputs_a) if rows_a[x][y]}
            constraints += [{**terms, distance: -1}, {**terms, distance: 1}]  # A·W − t ≤ B ≤ A·W + t
            lower += [None, rows_b[x][z]]
            upper += [rows_b[x][z], None]
    for y in range(outputs_a):
        constraints.append({y * outputs_b + z: 1 for z in range(outputs_b)})
        lower.append(1)
        upper.append(1)
    program = LinearProgram.build(entries + 1, constraints, row_lower=lower, row_upper=upper,
                                  cost=[0] * entries + [1], name="nearest witness")
    status, point = float_solution(program)
    if point is None:  # pragma: no cover - the program is always feasible and bounded below
        raise InternalError(f"HiGHS found no witness ({status})")
    floats = np.clip(point[:entries].reshape(outputs_a, outputs_b), 0.0, None)
    floats /= floats.sum(axis=1, keepdims=True)
    witness = Channel.from_numpy(floats, secrets=a.outputs, outputs=b.outputs).to_exact(max_denominator,
                                                                                          renormalise=True)
    exact_a = flint.fmpq_mat([[to_fmpq(v) for v in row] for row in rows_a])
    exact_b = flint.fmpq_mat([[to_fmpq(v) for v in row] for row in rows_b])
    gap = exact_a * _flint_matrix(witness.matrix) - exact_b
    return ApproximateRefinement(witness, max((abs(reduced_fraction(gap[x, z])) for x in range(secrets)
                                               for z in range(outputs_b)), default=Fraction(0)))


def _binary_rows(channel: Channel) -> list[list[Fraction]]:
    """The entries as exact rationals: a float's binary value, an exact entry itself."""
    return [[v if isinstance(v, Fraction) else Fraction(float(v)) for v in row] for row in channel.rows()]


# ------------------------------------------------------------------------------- JSON documents
def certificate_document(result: Refinement) -> dict[str, Any]:
    """The certificate as JSON data: ``{"refines", "witness", "prior", "loss", "uncertainty_a",
    "uncertainty_b", "gap", "method"}`` with exact numbers as strings."""

    def table(rows: Any) -> Any:
        return None if rows is None else [[exact_str(v) for v in row] for row in rows]

    return {
        "refines": result.holds,
        "witness": table(result.witness.rows()) if result.witness is not None else None,
        "prior": [exact_str(v) for v in result.prior.probabilities()] if result.prior is not None else None,
        "loss": table(result.loss.rows()) if result.loss is not None else None,
        "uncertainty_a": None if result.uncertainty_a is None else exact_str(result.uncertainty_a),
        "uncertainty_b": None if result.uncertainty_b is None else exact_str(result.uncertainty_b),
        "gap": None if result.gap is None else exact_str(result.gap),
        "method": result.method,
    }


def certificate_from_document(document: Any, a: Channel, b: Channel) -> Refinement:
    """Read a certificate document for channels A and B (labels are taken from them).

    Raises
    ------
    CertificateError
        For a document that is not of the form :func:`certificate_document` writes, naming the
        key and why. A well-formed but wrong certificate is not an error: it fails
        :func:`verify_certificate`.
    """
    if not isinstance(document, dict) or not isinstance(document.get("refines"), bool):
        raise CertificateError('a certificate is a JSON object with a boolean "refines"')

    def number(value: Any, key: str) -> Fraction:
        if not isinstance(value, str):
            raise CertificateError(f'"{key}": {value!r} is not a number string')
        try:
            return parse_number(value)
        except QifError as error:
            raise CertificateError(f'"{key}": {error}') from None

    def table(key: str) -> list[list[Fraction]]:
        rows = document.get(key)
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            raise CertificateError(f'"{key}" must be a non-empty list of rows')
        return [[number(v, key) for v in row] for row in rows]

    try:
        if document["refines"]:
            witness = table("witness")
            if len(witness) != a.shape[1] or any(len(row) != b.shape[1] for row in witness):
                raise CertificateError(f'"witness" must be {a.shape[1]} x {b.shape[1]} (A\'s outputs x B\'s outputs)')
            return Refinement(True, witness=Channel(_exact_unchecked(witness), a.outputs, b.outputs))
        prior_values = document.get("prior")
        if not isinstance(prior_values, list) or len(prior_values) != a.shape[0]:
            raise CertificateError(f'"prior" must list {a.shape[0]} probabilities')
        loss = table("loss")
        if len(loss) != a.shape[0] or any(len(row) != len(loss[0]) for row in loss):
            raise CertificateError(f'"loss" must have {a.shape[0]} rows of equal length')
        prior = Prior(_exact_unchecked([[number(v, "prior") for v in prior_values]]), a.secrets)
        loss_table = Loss(_exact_unchecked(loss), a.secrets, tuple(range(len(loss[0]))))
        values = [number(document.get(key), key) for key in ("uncertainty_a", "uncertainty_b", "gap")]
    except KeyError as error:
        raise CertificateError(f"missing key {error}") from None
    return Refinement(
        False, prior=prior, loss=loss_table, uncertainty_a=values[0], uncertainty_b=values[1], gap=values[2]
    )


def _exact_unchecked(rows: list[list[Fraction]]) -> DomainMatrix:
    """An exact matrix without validation: a certificate is judged by verify_certificate."""
    flat = [QQ(v.numerator, v.denominator) for row in rows for v in row]
    return DomainMatrix.from_list_flat(flat, (len(rows), len(rows[0])), QQ)
