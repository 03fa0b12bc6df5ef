"""Refinement A ⊑ B decided exactly, with a certificate either way.

By the Coriaceous theorem (Alvim et al. 2023, Thm. 4) A ⊑ B exactly when a stochastic W with
A·W = B exists. The certificate is that witness W when refinement holds; when it fails, it is a
prior π and a loss ℓ (actions are B's outputs) with U_ℓ(π, A) > U_ℓ(π, B), and the exact gap.

Method. A float LP (scipy's HiGHS, dual simplex, so its solution is a vertex) proposes a witness;
exact linear algebra on the support of that vertex turns it into an exact W. If the float LP says
no witness exists, the Farkas dual of the witness LP is solved in floats: multipliers M (secrets ×
B's outputs) and v with Σ_x A[x,y]·M[x,z] + v[y] ≥ 0 and ⟨M, B⟩ + Σ v < 0. With the uniform prior
and ℓ(x, z) = |X|·M[x, z] (shifted per secret to be ≥ 0, scaled into [0, 1]) this gives
U_ℓ(π, A) ≥ −Σ v > ⟨M, B⟩ ≥ U_ℓ(π, B). The rounded loss is re-checked exactly. Whatever the float
route cannot certify is settled by exact LPs in pycddlib's GMP arithmetic. No float decides: every
result passes :func:`verify_certificate`, which uses exact arithmetic only, before it is returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import cdd
import cdd.gmp
import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix
from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError

from qifkit.channel import Channel
from qifkit.errors import CertificateError, LabelError, NumberKindError, QifError, ShapeError
from qifkit.matrices import NumberKind
from qifkit.measures import Loss, Prior, posterior_uncertainty, uniform_prior
from qifkit.numbers import exact_str, parse_number

__all__ = [
    "Refinement",
    "Equivalence",
    "refines",
    "equivalent",
    "verify_certificate",
    "certificate_document",
    "certificate_from_document",
]


@dataclass(frozen=True)
class Refinement:
    """The verdict on A ⊑ B with its certificate.

    ``holds`` with a stochastic ``witness`` (A·witness = B); or not, with ``prior``, ``loss``, the
    exact ``uncertainty_a`` = U_ℓ(π, A) and ``uncertainty_b`` = U_ℓ(π, B), and ``gap`` =
    uncertainty_a − uncertainty_b > 0. ``method`` says which route produced the certificate.
    """

    holds: bool
    witness: Channel | None = None
    prior: Prior | None = None
    loss: Loss | None = None
    uncertainty_a: Fraction | None = None
    uncertainty_b: Fraction | None = None
    gap: Fraction | None = None
    method: str = ""


def _check_pair(a: Channel, b: Channel) -> None:
    for name, channel in (("A", a), ("B", b)):
        if not isinstance(channel, Channel):
            raise TypeError(f"{name} must be a Channel, not {type(channel).__name__}")
        if channel.kind is not NumberKind.EXACT:
            raise NumberKindError(f"refinement is decided exactly; channel {name} is {channel.kind.value}")
    if a.shape[0] != b.shape[0]:
        raise ShapeError(f"A has {a.shape[0]} secrets and B has {b.shape[0]}: refinement compares channels on the same secrets")
    if a.secrets != b.secrets:
        raise LabelError("A and B have different secret labels (or order)")


def refines(a: Channel, b: Channel) -> Refinement:
    """Decide A ⊑ B (B is a post-processing of A) exactly, with a certificate.

    Parameters
    ----------
    a, b : Channel
        Exact channels on the same secrets; their output sets may differ.

    Returns
    -------
    Refinement
        Verified by :func:`verify_certificate` before it is returned.

    Raises
    ------
    NumberKindError
        A float or symbolic channel.
    ShapeError, LabelError
        Channels on different secrets.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> refines(randomized_response(3, "3"), randomized_response(3, "2")).holds
    True
    >>> refines(randomized_response(3, "2"), randomized_response(3, "3")).gap > 0
    True
    """
    _check_pair(a, b)
    abstract_a, abstract_b = _abstract(a), _abstract(b)
    result = _decide(abstract_a, abstract_b)
    if abstract_a is not a or abstract_b is not b:
        result = _lift(result, a, abstract_a, b, abstract_b)
    if not verify_certificate(a, b, result):  # pragma: no cover - a bug, never a verdict
        raise QifError("internal error: a refinement certificate failed its exact re-check")
    return result


def _decide(a: Channel, b: Channel) -> Refinement:
    """The verdict for abstract channels (no zero columns, no two proportional columns)."""
    a_rows, b_rows = np.array(a.to_float().matrix), np.array(b.to_float().matrix)
    result = _full_column_rank_verdict(a, b, a_rows)
    if result is None:
        candidate = _float_witness(a_rows, b_rows)
        if candidate is not None:
            result = _exact_witness_on_support(a, b, a_rows, candidate)
        else:
            multipliers = _float_separation(a_rows, b_rows)
            if multipliers is not None:
                result = _refutation(a, b, multipliers, "float Farkas dual + exact re-check")
    return result if result is not None else _exact_lp(a, b)


def _abstract(channel: Channel) -> Channel:
    """The abstract channel when floats suggest a zero or proportional column, else `channel`
    itself (an exactly proportional pair has equal normalised float columns, so none is missed)."""
    columns = np.array(channel.to_float().matrix).T
    totals = columns.sum(axis=1)
    if np.any(totals == 0):
        return channel.reduced()
    keys = {tuple(float(f"{v:.9g}") for v in column / total) for column, total in zip(columns, totals)}
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
    if abstract_a is not a:
        group_of = {label: k for k, group in enumerate(abstract_a.outputs) for label in group}
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
            members = {label: b_rows[x][b.outputs.index(label)] / abstract_rows[x][k] for label in group}
            split.append([members.get(label, 0) for label in b.outputs])
        witness = witness @ Channel.from_rows(split, secrets=abstract_b.outputs, outputs=b.outputs)
    return Refinement(True, witness=witness, method=result.method + ", on the abstract channels")


# ------------------------------------------------------------------------------- float proposals
def _witness_lp(a_rows: np.ndarray, b_rows: np.ndarray) -> tuple[scipy.sparse.csr_matrix, np.ndarray]:
    """Equalities of the witness LP on vec(W) (row-major): A·W = B and W·1 = 1."""
    secrets, outputs_a = a_rows.shape
    outputs_b = b_rows.shape[1]
    product = scipy.sparse.kron(scipy.sparse.csr_matrix(a_rows), scipy.sparse.identity(outputs_b))
    row_sums = scipy.sparse.kron(scipy.sparse.identity(outputs_a), np.ones((1, outputs_b)))
    equalities = scipy.sparse.vstack([product, row_sums]).tocsr()
    right = np.concatenate([b_rows.reshape(-1), np.ones(outputs_a)])
    return equalities, right


def _float_witness(a_rows: np.ndarray, b_rows: np.ndarray) -> np.ndarray | None:
    equalities, right = _witness_lp(a_rows, b_rows)
    size = a_rows.shape[1] * b_rows.shape[1]
    solution = scipy.optimize.linprog(np.zeros(size), A_eq=equalities, b_eq=right, bounds=(0, None), method="highs-ds")
    if solution.status != 0:
        return None
    return solution.x.reshape(a_rows.shape[1], b_rows.shape[1])


def _float_separation(a_rows: np.ndarray, b_rows: np.ndarray) -> np.ndarray | None:
    """Farkas multipliers M (|X|×|Z|) maximising −(⟨M,B⟩ + Σv) under AᵀM + v1ᵀ ≥ 0, |M| ≤ 1."""
    secrets, outputs_a = a_rows.shape
    outputs_b = b_rows.shape[1]
    m_size = secrets * outputs_b
    # variables: vec(M) (row-major over secrets, B-outputs), then v (A-outputs)
    objective = np.concatenate([b_rows.reshape(-1), np.ones(outputs_a)])
    # -(Σ_x A[x,y] M[x,z] + v[y]) <= 0 for every (y, z)
    coupling = scipy.sparse.kron(scipy.sparse.csr_matrix(a_rows.T), scipy.sparse.identity(outputs_b))
    v_part = scipy.sparse.kron(scipy.sparse.identity(outputs_a), np.ones((outputs_b, 1)))
    inequalities = -scipy.sparse.hstack([coupling, v_part]).tocsr()
    bounds = [(-1, 1)] * m_size + [(None, None)] * outputs_a
    solution = scipy.optimize.linprog(objective, A_ub=inequalities, b_ub=np.zeros(outputs_a * outputs_b),
                                      bounds=bounds, method="highs-ds")
    if solution.status != 0 or solution.fun > -1e-12:
        return None
    return solution.x[:m_size].reshape(secrets, outputs_b)


# ------------------------------------------------------------------------------- exact certificates
def _independent_rows(float_matrix: np.ndarray) -> list[int] | None:
    """Indices of rank-many rows that floats suggest are independent (pivoted QR of the transpose),
    or None when the float rank is below the number of columns. Exactness is checked later."""
    columns = float_matrix.shape[1]
    if float_matrix.shape[0] < columns:
        return None
    _, triangular, pivots = scipy.linalg.qr(float_matrix.T, mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(triangular))
    if diagonal.size < columns or diagonal[columns - 1] <= 1e-12 * max(diagonal[0], 1.0):
        return None
    return sorted(int(i) for i in pivots[:columns])


def _solve_square(system: DomainMatrix, rows: list[int], rhs: DomainMatrix) -> DomainMatrix | None:
    """Exact solution of system[rows]·X = rhs[rows], or None if that square block is singular."""
    columns = system.shape[1]
    try:
        return system.extract(rows, range(columns)).lu_solve(rhs.extract(rows, range(rhs.shape[1])))
    except (DMNonInvertibleMatrixError, ZeroDivisionError):
        return None


def _full_column_rank_verdict(a: Channel, b: Channel, a_rows: np.ndarray) -> Refinement | None:
    """Decide A ⊑ B without an LP when A has full column rank (then a witness is unique).

    With rows R where A_R is invertible, W0 = A_R⁻¹·B_R is the only candidate. If A·W0 = B and
    W0 ≥ 0 it is the witness (its rows sum to 1 because A's and B's do). Otherwise Farkas
    multipliers are explicit: for W0[y, z] < 0, column z of M is A_R^{-T}·e_y on the rows R; for
    (A·W0)[x, z] ≠ B[x, z], it is ±(e_x − A_R^{-T}·A_xᵀ). Both satisfy AᵀM ≥ 0 and ⟨M, B⟩ < 0.
    Returns None when A is not (or not visibly) of full column rank.
    """
    rows = _independent_rows(a_rows)
    if rows is None:
        return None
    w0 = _solve_square(a.matrix, rows, b.matrix)
    if w0 is None:
        return None
    secrets, columns, outputs = a.shape[0], a.shape[1], b.shape[1]
    multipliers = None
    residual = (b.matrix - a.matrix * w0).to_list()
    offending = next(((x, z) for x, row in enumerate(residual) for z, d in enumerate(row) if d != 0), None)
    if offending is not None:
        x, z = offending
        block = a.matrix.extract(rows, range(columns)).transpose()
        u_r = block.lu_solve(a.matrix.extract([x], range(columns)).transpose()).to_list()
        sign = -1 if residual[x][z] > 0 else 1
        multipliers = [[Fraction(0)] * outputs for _ in range(secrets)]
        multipliers[x][z] = Fraction(sign)
        for index, r in enumerate(rows):
            multipliers[r][z] = -sign * _fraction(u_r[index][0])
    else:
        values = w0.to_list()
        negative = next(((y, z) for y, row in enumerate(values) for z, v in enumerate(row) if v < 0), None)
        if negative is None:
            witness = [[_fraction(v) for v in row] for row in values]
            return _witness_result(a, b, witness, "exact solve (A has full column rank, so W is unique)")
        y, z = negative
        block = a.matrix.extract(rows, range(columns)).transpose()
        unit = DomainMatrix([[QQ(1) if k == y else QQ(0)] for k in range(columns)], (columns, 1), QQ)
        m_r = block.lu_solve(unit).to_list()
        multipliers = [[Fraction(0)] * outputs for _ in range(secrets)]
        for index, r in enumerate(rows):
            multipliers[r][z] = _fraction(m_r[index][0])
    return _refutation(a, b, multipliers, "exact Farkas multipliers (A has full column rank)")


def _exact_witness_on_support(a: Channel, b: Channel, a_rows: np.ndarray, candidate: np.ndarray) -> Refinement | None:
    """An exact witness with the support of a float LP vertex.

    First column by column: the entries of column z on the support solve A[:, S_z]·w = B[:, z],
    uniquely when A[:, S_z] has full column rank. If some block is rank-deficient, the whole
    system on the support (A·W = B and W·1 = 1; its columns are independent at a vertex) is solved
    on independent rows that floats pick. The result is then checked exactly (A·W = B, rows sum
    to 1, W ≥ 0). Returns None when this fails; the exact LP then decides.
    """
    support = [(int(y), int(z)) for y, z in zip(*np.nonzero(candidate > 1e-12))]
    return _witness_by_columns(a, b, a_rows, support) or _witness_by_whole_system(a, b, a_rows, support)


def _witness_by_columns(a: Channel, b: Channel, a_rows: np.ndarray, support: list[tuple[int, int]]) -> Refinement | None:
    secrets, columns, outputs = a.shape[0], a.shape[1], b.shape[1]
    witness = [[Fraction(0)] * outputs for _ in range(columns)]
    for z in range(outputs):
        rows_of_w = [y for y, zz in support if zz == z]
        if not rows_of_w:
            continue
        rows = _independent_rows(a_rows[:, rows_of_w])
        if rows is None:
            return None
        solution = _solve_square(a.matrix.extract(range(secrets), rows_of_w), rows, b.matrix.extract(range(secrets), [z]))
        if solution is None:
            return None
        for y, (value,) in zip(rows_of_w, solution.to_list()):
            witness[y][z] = _fraction(value)
    return _witness_result(a, b, witness, "float LP vertex + exact solve on its support")


_DENSE_LIMIT = 5_000_000


def _witness_by_whole_system(a: Channel, b: Channel, a_rows: np.ndarray, support: list[tuple[int, int]]) -> Refinement | None:
    secrets, columns, outputs = a.shape[0], a.shape[1], b.shape[1]
    equations = secrets * outputs + columns
    if not support or equations * len(support) > _DENSE_LIMIT:
        return None
    system = np.zeros((equations, len(support)))
    for k, (y, z) in enumerate(support):
        system[z::outputs, k][:secrets] = a_rows[:, y]
        system[secrets * outputs + y, k] = 1.0
    rows = _independent_rows(system)
    if rows is None:
        return None
    a_exact, b_exact = a.matrix.to_list(), b.matrix.to_list()

    def exact_row(index: int) -> tuple[list[Any], Any]:
        if index < secrets * outputs:
            x, z = divmod(index, outputs)
            return [a_exact[x][y] if zz == z else QQ(0) for y, zz in support], b_exact[x][z]
        y = index - secrets * outputs
        return [QQ(1) if yy == y else QQ(0) for yy, _ in support], QQ(1)

    chosen = [exact_row(index) for index in rows]
    square = DomainMatrix([row for row, _ in chosen], (len(rows), len(support)), QQ)
    right = DomainMatrix([[value] for _, value in chosen], (len(rows), 1), QQ)
    solution = _solve_square(square, list(range(len(rows))), right)
    if solution is None:
        return None
    witness = [[Fraction(0)] * outputs for _ in range(columns)]
    for (y, z), (value,) in zip(support, solution.to_list()):
        witness[y][z] = _fraction(value)
    return _witness_result(a, b, witness, "float LP vertex + exact solve on its support")


def _fraction(value: Any) -> Fraction:
    return Fraction(int(QQ.numer(value)), int(QQ.denom(value)))


def _witness_result(a: Channel, b: Channel, witness: list[list[Fraction]], method: str) -> Refinement | None:
    try:
        channel = Channel.from_rows(witness, secrets=a.outputs, outputs=b.outputs)
    except QifError:
        return None
    return Refinement(True, witness=channel, method=method) if a @ channel == b else None


def _refutation(a: Channel, b: Channel, multipliers: Any, method: str) -> Refinement | None:
    """Turn Farkas multipliers into a loss in [0, 1] under the uniform prior; None if the exact
    gap is not positive."""
    rows = [[Fraction(v).limit_denominator(10**6) if isinstance(v, float) else Fraction(v) for v in row] for row in multipliers]
    shifted = [[v - low for v in row] for row, low in zip(rows, map(min, rows))]
    top = max(max(row) for row in shifted)
    if top <= 0:
        return None
    for denominator in (12, 100, 10**4, None):
        table = [[v / top if denominator is None else Fraction(v / top).limit_denominator(denominator) for v in row] for row in shifted]
        result = _refutation_from_loss(a, b, table, method)
        if result is not None:
            return result
    return None


def _refutation_from_loss(a: Channel, b: Channel, table: list[list[Fraction]], method: str) -> Refinement | None:
    prior = uniform_prior(a.secrets)
    loss = Loss.from_rows(table, secrets=a.secrets, actions=b.outputs)
    u_a, u_b = posterior_uncertainty(prior, a, loss), posterior_uncertainty(prior, b, loss)
    if u_a <= u_b:
        return None
    return Refinement(False, prior=prior, loss=loss, uncertainty_a=u_a, uncertainty_b=u_b, gap=u_a - u_b, method=method)


def _exact_lp(a: Channel, b: Channel) -> Refinement:
    """Exact GMP LPs (pycddlib): the witness LP, and if it is infeasible its Farkas dual."""
    a_rows, b_rows = a.rows(), b.rows()
    secrets, outputs_a, outputs_b = a.shape[0], a.shape[1], b.shape[1]
    size = outputs_a * outputs_b
    # rows [b, -A] mean b - A·w >= 0; equalities are listed in lin_set
    table, linear = [], []
    for x in range(secrets):
        for z in range(outputs_b):
            row = [Fraction(0)] * size
            for y in range(outputs_a):
                row[y * outputs_b + z] = -a_rows[x][y]
            linear.append(len(table))
            table.append([b_rows[x][z]] + row)
    for y in range(outputs_a):
        linear.append(len(table))
        table.append([Fraction(1)] + [Fraction(-1) if k // outputs_b == y else Fraction(0) for k in range(size)])
    for k in range(size):
        table.append([Fraction(0)] + [Fraction(1) if j == k else Fraction(0) for j in range(size)])
    matrix = cdd.gmp.matrix_from_array(table, lin_set=linear, rep_type=cdd.RepType.INEQUALITY,
                                       obj_type=cdd.LPObjType.MAX, obj_func=[Fraction(0)] * (size + 1))
    program = cdd.gmp.linprog_from_matrix(matrix)
    cdd.gmp.linprog_solve(program)
    if program.status == cdd.LPStatusType.OPTIMAL:
        solution = list(program.primal_solution)
        witness = [[Fraction(solution[y * outputs_b + z]) for z in range(outputs_b)] for y in range(outputs_a)]
        result = _witness_result(a, b, witness, "exact LP (cddlib GMP)")
        if result is not None:
            return result
    return _exact_separation(a, b)


def _exact_separation(a: Channel, b: Channel) -> Refinement:
    """The Farkas dual as an exact LP: maximise −(⟨M,B⟩ + Σv) with AᵀM + v1ᵀ ≥ 0, −1 ≤ M ≤ 1."""
    a_rows, b_rows = a.rows(), b.rows()
    secrets, outputs_a, outputs_b = a.shape[0], a.shape[1], b.shape[1]
    m_size, size = secrets * outputs_b, secrets * outputs_b + outputs_a
    table = []
    for y in range(outputs_a):
        for z in range(outputs_b):
            row = [Fraction(0)] * size
            for x in range(secrets):
                row[x * outputs_b + z] = a_rows[x][y]
            row[m_size + y] = Fraction(1)
            table.append([Fraction(0)] + row)
    for k in range(m_size):
        unit = [Fraction(1) if j == k else Fraction(0) for j in range(size)]
        table.append([Fraction(1)] + [-u for u in unit])
        table.append([Fraction(1)] + unit)
    objective = [Fraction(0)] + [-b_rows[k // outputs_b][k % outputs_b] for k in range(m_size)] + [Fraction(-1)] * outputs_a
    matrix = cdd.gmp.matrix_from_array(table, rep_type=cdd.RepType.INEQUALITY, obj_type=cdd.LPObjType.MAX, obj_func=objective)
    program = cdd.gmp.linprog_from_matrix(matrix)
    cdd.gmp.linprog_solve(program)
    if program.status != cdd.LPStatusType.OPTIMAL or program.obj_value <= 0:  # pragma: no cover - Farkas
        raise QifError("internal error: the exact witness LP is infeasible but its dual does not separate")
    solution = list(program.primal_solution)
    multipliers = [[Fraction(solution[x * outputs_b + z]) for z in range(outputs_b)] for x in range(secrets)]
    result = _refutation(a, b, multipliers, "exact LP (cddlib GMP) Farkas dual")
    if result is None:  # pragma: no cover - the exact multipliers always separate
        raise QifError("internal error: exact Farkas multipliers did not give a positive gap")
    return result


# ------------------------------------------------------------------------------- the checker
def verify_certificate(a: Channel, b: Channel, result: Refinement) -> bool:
    """Re-check a refinement certificate with exact arithmetic only (no LP, no float).

    A positive certificate is valid when the witness is an exact stochastic channel from A's
    outputs to B's outputs with A·W = B. A negative one is valid when the prior is a distribution
    on the secrets, the loss is non-negative with B's outputs as actions, and the stated
    uncertainties are U_ℓ(π, A) and U_ℓ(π, B) exactly, with gap = their difference > 0.

    Raises
    ------
    NumberKindError, ShapeError, LabelError
        If A or B themselves are not exact channels on the same secrets.
    """
    _check_pair(a, b)
    if result.holds:
        witness = result.witness
        if witness is None or witness.kind is not NumberKind.EXACT:
            return False
        if witness.secrets != a.outputs or witness.outputs != b.outputs:
            return False
        try:
            checked = Channel.from_rows(witness.rows(), witness.secrets, witness.outputs)  # re-validate
        except QifError:
            return False
        return a @ checked == b
    if result.prior is None or result.loss is None or result.gap is None:
        return False
    try:
        prior = Prior.from_values(result.prior.probabilities(), a.secrets)
        loss = Loss.from_rows(result.loss.rows(), a.secrets, result.loss.actions)
        u_a, u_b = posterior_uncertainty(prior, a, loss), posterior_uncertainty(prior, b, loss)
    except QifError:
        return False
    return (u_a, u_b, u_a - u_b) == (result.uncertainty_a, result.uncertainty_b, result.gap) and result.gap > 0


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
    return Refinement(False, prior=prior, loss=loss_table, uncertainty_a=values[0], uncertainty_b=values[1], gap=values[2])


def _exact_unchecked(rows: list[list[Fraction]]) -> DomainMatrix:
    """An exact matrix without validation: a certificate is judged by verify_certificate."""
    flat = [QQ(v.numerator, v.denominator) for row in rows for v in row]
    return DomainMatrix.from_list_flat(flat, (len(rows), len(rows[0])), QQ)
