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
import scipy.optimize
import scipy.sparse
from sympy.polys.domains import QQ
from sympy.polys.matrices import DomainMatrix

from qifkit.channel import Channel
from qifkit.errors import LabelError, NumberKindError, QifError, ShapeError
from qifkit.matrices import NumberKind
from qifkit.measures import Loss, Prior, posterior_uncertainty, uniform_prior

__all__ = ["Refinement", "refines", "verify_certificate"]


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
    a_rows, b_rows = np.array(a.to_float().matrix), np.array(b.to_float().matrix)
    candidate = _float_witness(a_rows, b_rows)
    result = None
    if candidate is not None:
        result = _unique_witness(a, b) or _exact_witness_on_support(a, b, candidate)
    else:
        multipliers = _float_separation(a_rows, b_rows)
        if multipliers is not None:
            result = _refutation(a, b, multipliers, "float Farkas dual + exact re-check")
    if result is None:
        result = _exact_lp(a, b)
    if not verify_certificate(a, b, result):  # pragma: no cover - a bug, never a verdict
        raise QifError("internal error: a refinement certificate failed its exact re-check")
    return result


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
def _unique_witness(a: Channel, b: Channel) -> Refinement | None:
    """When A has full column rank the witness is unique: solve it on |Y| independent rows of A."""
    columns = a.shape[1]
    _, pivots = a.matrix.transpose().rref()
    if len(pivots) != columns:
        return None
    rows = list(pivots)
    solution = a.matrix.extract(rows, range(columns)).lu_solve(b.matrix.extract(rows, range(b.shape[1])))
    witness = [[Fraction(int(QQ.numer(v)), int(QQ.denom(v))) for v in row] for row in solution.to_list()]
    return _witness_result(a, b, witness, "exact solve (A has full column rank, so W is unique)")


def _exact_witness_on_support(a: Channel, b: Channel, candidate: np.ndarray) -> Refinement | None:
    """Solve A·W = B, W·1 = 1 exactly with W zero off the float vertex's support."""
    support = [(y, z) for y, z in zip(*np.nonzero(candidate > 1e-12))]
    if not support:
        return None
    a_rows, b_rows = a.matrix.to_list(), b.matrix.to_list()
    equations, right = [], []
    for x, b_row in enumerate(b_rows):
        for z in range(b.shape[1]):
            equations.append([a_rows[x][y] if zz == z else QQ(0) for y, zz in support])
            right.append(b_row[z])
    for y in range(a.shape[1]):
        equations.append([QQ(1) if yy == y else QQ(0) for yy, _ in support])
        right.append(QQ(1))
    system = DomainMatrix(equations, (len(equations), len(support)), QQ)
    augmented = system.hstack(DomainMatrix([[r] for r in right], (len(right), 1), QQ))
    reduced, pivots = augmented.rref()
    if len(support) in pivots:
        return None  # inconsistent on this support
    values = [QQ(0)] * len(support)
    rows = reduced.to_list()
    for row_index, column in enumerate(pivots):
        values[column] = rows[row_index][-1]
    if any(value < 0 for value in values):
        return None
    witness = [[Fraction(0)] * b.shape[1] for _ in range(a.shape[1])]
    for (y, z), value in zip(support, values):
        witness[y][z] = Fraction(int(QQ.numer(value)), int(QQ.denom(value)))
    return _witness_result(a, b, witness, "float LP vertex + exact solve on its support")


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
    shifted = [[v - min(row) for v in row] for row in rows]
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
