"""Stability for every analyst and every number of respondents, proved from the perturber's
generator (issue 50, item 2).

Let B_t be a square perturber whose entries are rational functions of t = e^ε and which is
invertible at every t of [low, high]. Its generator L(t) = B_t⁻¹ · dB_t/dt has rows summing to 0
(each row of B_t sums to 1, so dB_t/dt · 1 = 0). Suppose every entry of L off its diagonal is ≤ 0
on the whole range. For low ≤ t' ≤ t ≤ high, let T(s) solve dT/ds = T(s)·L(s) from T(t) = I as s
goes down from t to t': then B_s = B_t·T(s) (both sides solve the same equation from the same
value), and in the variable u = t − s, dT/du = T·(−L), with −L a matrix of Markov rates
(non-negative off the diagonal, rows summing to 0): T(t') is stochastic. So

    B_t' = B_t · T(t, t'),  T stochastic, for every t' ≤ t in the range:

the more private perturber is a post-processing of the less private one. With N respondents the
reports at t' are those at t post-processed by T^⊗N, which commutes with permuting respondents, so
the histogram of the reports at t' is the histogram at t post-processed by a channel from
histograms to histograms. Every pipeline that releases a function of the histogram (of any known
respondents, any prior over the unknown ones, any N) is then refined by the pipeline at t:
stable for every analyst. A coarser release lumps: a count of the values in S is a function of
the histogram, and if L(s) is lumpable by the blocks {S, not S} at every s (the rates from every
value of a block into another block are one function), so is T, and the count at t' is the count
at t post-processed by a channel on counts.

Every condition is exact: the determinant's sign and each off-diagonal entry's sign are decided by
real-root isolation (:func:`qifkit.real_roots.sign_on`), each lumpability identity by cancelling
rational functions. :func:`generator_proof_defect` re-derives a written proof from the perturber.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError

from qifkit.channel import Channel
from qifkit.errors import ParameterError, QifError, ShapeError
from qifkit.expressions import parse_rational_function
from qifkit.numbers import exact_str, parse_eps_exp
from qifkit.real_roots import sign_on
from qifkit.stability import symbolic_on_range

__all__ = ["GeneratorProof", "generator_matrix", "generator_refinement_on_range", "generator_proof_defect"]


@dataclass(frozen=True)
class GeneratorProof:
    """A proof that B_t' = B_t·T with T stochastic for every low ≤ t' ≤ t ≤ high (the module
    docstring), and, with `blocks`, that T is lumpable by them.

    Attributes
    ----------
    low, high : Fraction
        The range of e^ε.
    generator : tuple of tuple of str
        L(t) = B_t⁻¹·dB_t/dt, each entry a rational function of t as
        :func:`qifkit.expressions.parse_rational_function` reads it.
    blocks : tuple of tuple of int, or None
        The partition of the perturber's outputs (by index) that L is lumpable by, or None.
    conditions : tuple of str
        What was decided, in words.
    """

    low: Fraction
    high: Fraction
    generator: tuple[tuple[str, ...], ...]
    blocks: tuple[tuple[int, ...], ...] | None
    conditions: tuple[str, ...]

    def document(self) -> dict[str, Any]:
        """The proof as JSON data (exact strings), as :func:`generator_proof_defect` reads it."""
        return {"kind": "generator", "from": exact_str(self.low), "to": exact_str(self.high),
                "generator": [list(row) for row in self.generator],
                "blocks": None if self.blocks is None else [list(block) for block in self.blocks],
                "conditions": list(self.conditions)}


def _written(expression: sympy.Expr) -> str:
    return str(sympy.factor(expression)).replace("**", "^")


def generator_matrix(channel: Channel, t: sympy.Symbol) -> sympy.Matrix:
    """L(t) = B_t⁻¹·dB_t/dt of a square channel whose entries are rational functions of `t`,
    exactly (entries cancelled).

    Raises
    ------
    ShapeError
        If B_t is not square.
    ParameterError
        If B_t is singular as a matrix of rational functions.
    """
    rows, columns = channel.shape
    if rows != columns:
        raise ShapeError(f"the generator needs a square perturber; this one is {rows}×{columns}")
    matrix = channel.matrix
    domain = matrix.domain
    derivative = matrix.applyfunc(lambda entry: domain.from_sympy(sympy.diff(domain.to_sympy(entry), t)))
    try:
        inverse = matrix.inv()
    except DMNonInvertibleMatrixError:
        raise ParameterError("the perturber is singular as a matrix of rational functions of e^ε") from None
    product = inverse * derivative
    return sympy.Matrix(rows, columns, lambda i, j: sympy.cancel(domain.to_sympy(product[i, j].element)))


def generator_refinement_on_range(perturber: Callable[[Any], Channel], low: Any, high: Any,
                                  blocks: Sequence[Sequence[int]] | None = None
                                  ) -> tuple[GeneratorProof | None, str]:
    """Prove that the perturber at every e^ε' ≤ e^ε of [low, high] is a post-processing of the one at
    e^ε (so every histogram pipeline, and with `blocks` every count of a block, is stable for every
    analyst at any number of respondents), or say why the proof does not apply.

    Parameters
    ----------
    perturber : callable
        The perturber at an e^ε: called once with a sympy symbol, it must give a square channel
        whose entries are rational functions of it (the toolkit's mechanisms do).
    low, high
        The range of e^ε, 1 < low < high.
    blocks : sequence of sequences of int, optional
        A partition of the outputs (by index) that the generator must be lumpable by: for a
        count of the values S, ``[S, the rest]``.

    Returns
    -------
    (GeneratorProof, "") when proved; (None, reason) when a condition fails (the pipelines may
    still be stable; the reason names the first condition that failed).

    Examples
    --------
    Randomized response on 4 values, every e^ε in [3/2, 8], and the count of value 0:

    >>> from qifkit import randomized_response
    >>> family = lambda t: randomized_response(4, eps_exp=t)
    >>> proof, _ = generator_refinement_on_range(family, "3/2", 8, [[0], [1, 2, 3]])
    >>> proof.generator[0][1], proof.blocks
    ('-1/((t - 1)*(t + 3))', ((0,), (1, 2, 3)))
    """
    low, high, t, channel = symbolic_on_range(perturber, low, high, "perturber")
    try:
        generator = generator_matrix(channel, t)
    except QifError as error:
        return None, str(error)
    size = generator.rows
    determinant = sympy.cancel(channel.matrix.domain.to_sympy(channel.matrix.det()))
    if sign_on(determinant, t, low, high) in (0, None):
        return None, f"the perturber is singular (or not defined) somewhere in [{low}, {high}]"
    conditions = [f"det B_t ≠ 0 on [{low}, {high}]"]
    for i in range(size):
        for j in range(size):
            if i != j and sign_on(generator[i, j], t, low, high, allow_zero=True) not in (0, -1):
                return None, (
                    f"the generator's entry L[{i}, {j}] = {_written(generator[i, j])} is positive "
                    f"somewhere in [{low}, {high}]"
                )
    conditions.append(f"every entry of L = B_t⁻¹·dB_t/dt off its diagonal is ≤ 0 on [{low}, {high}]")
    partition = None
    if blocks is not None:
        partition = _partition(blocks, size)
        failed = _lumping_defect(generator, partition)
        if failed:
            return None, failed
        conditions.append(f"L is lumpable by the blocks {[list(b) for b in partition]} at every e^ε")
    return GeneratorProof(
        low,
        high,
        tuple(tuple(_written(generator[i, j]) for j in range(size)) for i in range(size)),
        partition,
        tuple(conditions),
    ), ""


def _partition(blocks: Sequence[Sequence[int]], size: int) -> tuple[tuple[int, ...], ...]:
    if not all(
        isinstance(block, (list, tuple)) and all(isinstance(k, int) and not isinstance(k, bool) for k in block)
        for block in blocks
    ):
        raise ShapeError(f"the blocks must be lists of output indices, got {str(blocks)[:80]}")
    partition = tuple(tuple(sorted(block)) for block in blocks)
    if sorted(k for block in partition for k in block) != list(range(size)) or any(not b for b in partition):
        raise ShapeError(f"the blocks {[list(b) for b in partition]} are not a partition of the outputs 0..{size - 1}")
    return partition


def _lumping_defect(generator: sympy.Matrix, partition: tuple[tuple[int, ...], ...]) -> str:
    """Why L is not lumpable by the partition (the rate from a row into a block differs between two
    rows of one block), or ""."""
    for source in partition:
        for target in partition:
            rates = [sympy.cancel(sum((generator[i, j] for j in target), sympy.Integer(0))) for i in source]
            different = next((k for k, rate in enumerate(rates) if sympy.cancel(rate - rates[0]) != 0), None)
            if different is not None:
                return (
                    f"the generator is not lumpable by {[list(b) for b in partition]}: rows {source[0]} and "
                    f"{source[different]} move into block {list(target)} at different rates"
                )
    return ""


def generator_proof_defect(perturber: Callable[[Any], Channel], document: Any) -> str | None:
    """What is wrong with a written :class:`GeneratorProof` (:meth:`GeneratorProof.document`) for
    this perturber family, or None when it is valid: the generator is derived again from the
    perturber and must equal the written one entry by entry, and every condition is decided again
    on the written range (a caller checks that the range covers its own)."""
    if not isinstance(document, dict) or document.get("kind") != "generator":
        return 'a generator proof is a JSON object with "kind": "generator"'
    try:
        low, high = parse_eps_exp(str(document.get("from"))), parse_eps_exp(str(document.get("to")))
        proof, reason = generator_refinement_on_range(perturber, low, high, document.get("blocks"))
    except QifError as error:
        return f"the proof does not read: {error}"
    if proof is None:
        return reason
    written = document.get("generator")
    if not isinstance(written, list) or len(written) != len(proof.generator):
        return f"the generator must be a {len(proof.generator)}×{len(proof.generator)} table of rational functions"
    t = sympy.Symbol("t", positive=True)
    for i, (row, ours) in enumerate(zip(written, proof.generator, strict=True)):
        if not isinstance(row, list) or len(row) != len(ours):
            return f"row {i} of the generator has {len(row) if isinstance(row, list) else 'no'} entries"
        for j, (text, entry) in enumerate(zip(row, ours, strict=True)):
            try:
                theirs = parse_rational_function(str(text), t)
            except QifError as error:
                return f"the generator's entry L[{i}, {j}] does not read: {error}"
            if sympy.cancel(theirs - parse_rational_function(entry, t)) != 0:
                return f"the generator's entry L[{i}, {j}] is {entry}, not {text}"
    return None
