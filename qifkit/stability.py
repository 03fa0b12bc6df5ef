"""Stability of privacy pipelines (Alvim et al. 2023, Defs. 9-10, Thm. 20).

A pipeline family C_ε·P is *stable* when a more private perturber never gives a more useful
pipeline: for ε' ≤ ε, C_ε ⊑ C_ε' must imply C_ε·P ⊑ C_ε'·P. This module offers

* Thm. 20's equality test P·⁻¹P·W·P = W·P (condition (11)) for a deterministic P and a witness W;
* exact refinement between two pipelines of a family, with the certificate of
  :func:`qifkit.refines` (a failed refinement *is* an instability, with its prior, loss and gap);
* ℓ-stability curves: one analyst's expected loss over a grid of ε, and the first place where it
  rises as privacy falls.

Examples
--------
>>> from qifkit import Channel, randomized_response
>>> parity = Channel.from_rows([[1, 0], [0, 1], [1, 0]])
>>> condition_11(parity, randomized_response(3, "2").matrix)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


from qifkit.channel import Channel
from qifkit.errors import ShapeError
from qifkit.matrices import Matrix, equal, matmul
from qifkit.measures import Loss, Prior, posterior_uncertainty
from qifkit.numbers import exact_eps_exp
from qifkit.postprocess import left_inverse
from qifkit.refinement import Refinement, refines

__all__ = [
    "condition_11",
    "pipeline_refinement",
    "Instability",
    "instabilities",
    "smallest_instability",
    "LossCurve",
    "loss_curve",
]


def condition_11(post: Channel, witness: Channel | Matrix) -> bool:
    """Thm. 20's condition (11): P·⁻¹P·W·P = W·P, decided exactly (W may be symbolic).

    By Thm. 20 (the "if and only if" (12)) it holds exactly when P ⊑ W·P.
    """
    w = witness.matrix if isinstance(witness, Channel) else witness
    p = post.matrix
    inverse = left_inverse(post).matrix
    w_p = matmul(w, p)
    return equal(matmul(matmul(p, inverse), w_p), w_p)


def pipeline_refinement(build: Callable[[Any], Channel], eps_exp_high: Any, eps_exp_low: Any) -> Refinement:
    """Decide C_ε·P ⊑ C_ε'·P for e^ε = `eps_exp_high` ≥ e^ε' = `eps_exp_low`, with a certificate.

    `build(eps_exp)` returns the pipeline channel at that e^ε. A refutation is an instability: the
    analyst of its prior and loss does strictly better with the *more private* pipeline.
    """
    if exact_eps_exp(eps_exp_high) < exact_eps_exp(eps_exp_low):
        raise ShapeError(f"eps_exp_high = {eps_exp_high} is below eps_exp_low = {eps_exp_low}")
    return refines(build(eps_exp_high), build(eps_exp_low))


@dataclass(frozen=True)
class Instability:
    """A certified instability: the pipeline at e^ε = `eps_exp_high` does not refine the more
    private one at `eps_exp_low`; `certificate` holds the prior, the loss and the exact gap."""

    eps_exp_low: Any
    eps_exp_high: Any
    certificate: Refinement


def instabilities(build: Callable[[Any], Channel], eps_grid: Sequence[Any]) -> list[Instability]:
    """Every pair e^ε' < e^ε of `eps_grid` for which C_ε·P ⋢ C_ε'·P, with its certificate.

    Complexity: one exact refinement decision per pair of the grid (each pipeline built once).
    """
    grid = sorted(set(eps_grid), key=exact_eps_exp)
    pipelines = {e: build(e) for e in grid}
    found = []
    for position, low in enumerate(grid):
        for high in grid[position + 1 :]:
            result = refines(pipelines[high], pipelines[low])
            if not result.holds:
                found.append(Instability(low, high, result))
    return found


def smallest_instability(candidates: Iterable[tuple[Any, Callable[[Any], Channel]]],
                         eps_grid: Sequence[Any]) -> tuple[dict[Any, int], Any, list[Instability]]:
    """Search pipelines in the given order (smallest first) for certified instabilities.

    `candidates` yields ``(parameters, build)`` pairs; for each, every pair of `eps_grid` is
    decided. Returns the number of unstable pairs per parameters, the first parameters with an
    instability (None if there is none) and that candidate's instabilities.
    """
    table: dict[Any, int] = {}
    first, found_there = None, []
    for parameters, build in candidates:
        found = instabilities(build, eps_grid)
        table[parameters] = len(found)
        if found and first is None:
            first, found_there = parameters, found
    return table, first, found_there


@dataclass(frozen=True)
class LossCurve:
    """One analyst's expected loss U_ℓ(π, C_ε·P) over increasing e^ε.

    ``monotone`` is True when the loss never rises as e^ε grows (less privacy, never less
    utility). Otherwise ``violation`` is the first pair ``(eps_exp_low, eps_exp_high, gap)`` with
    gap = U(high) − U(low) > 0.
    """

    eps_exp: tuple[Any, ...]
    values: tuple[Any, ...]
    monotone: bool
    violation: tuple[Any, Any, Any] | None


def loss_curve(build: Callable[[Any], Channel], eps_grid: Sequence[Any], prior: Prior | Sequence[Any], loss: Loss) -> LossCurve:
    """U_ℓ(π, build(e^ε)) for every e^ε of `eps_grid` (sorted increasing), and its first rise.

    Exact when `build` gives exact channels; a float pipeline gives a float curve (reported as
    such by its float values).
    """
    grid = sorted(eps_grid, key=exact_eps_exp)
    values = tuple(posterior_uncertainty(prior, build(e), loss) for e in grid)
    violation = next(((grid[i], grid[i + 1], values[i + 1] - values[i])
                      for i in range(len(grid) - 1) if values[i + 1] > values[i]), None)
    return LossCurve(tuple(grid), values, violation is None, violation)
