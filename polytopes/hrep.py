"""Exact H-representations of polytopes of mechanisms, with their symmetry groups.

A :class:`Polytope` is data: variables (the entries of a matrix, row-major), equalities and
inequalities with exact rational coefficients in cddlib's convention (a row ``[b, a_1, ..., a_d]``
means ``b + a·x ≥ 0``, or ``= 0`` for an equality), and generators of a symmetry group acting by
permuting the variables.

References
----------
.. [1] K. Fukuda, cddlib reference manual (the .ine format).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import cdd
import cdd.gmp

__all__ = ["Polytope", "permuted"]

T = TypeVar("T")


def permuted(values: Sequence[T], permutation: Sequence[int]) -> tuple[T, ...]:
    """The image of a point under a symmetry: y[g[k]] = x[k] (the convention of
    :attr:`Polytope.symmetries`)."""
    image: list[T] = list(values)
    for source, target in enumerate(permutation):
        image[target] = values[source]
    return tuple(image)


@dataclass(frozen=True)
class Polytope:
    """A polytope {x : b + A·x ≥ 0 (inequalities), b + A·x = 0 (equalities)} over named variables.

    Attributes
    ----------
    name : str
        What it is, e.g. ``"LDP"`` (Holohan et al.'s D).
    shape : tuple of int
        The matrix shape of a point (rows, columns); variables are its entries row-major.
    eps_exp : Fraction
        The privacy parameter e^ε it was built for.
    equalities, inequalities : tuple of rows
        Rows ``(b, a_1, ..., a_d)`` of exact Fractions.
    symmetries : tuple of permutations
        Generators of a group of variable permutations that map the polytope onto itself.
    z : tuple of Fraction or None
        The fixed point, for polytopes that have one (F, R_F).
    """

    name: str
    shape: tuple[int, int]
    eps_exp: Fraction
    equalities: tuple[tuple[Fraction, ...], ...]
    inequalities: tuple[tuple[Fraction, ...], ...]
    symmetries: tuple[tuple[int, ...], ...] = ()
    z: tuple[Fraction, ...] | None = None

    @property
    def dimension_of_space(self) -> int:
        """Number of variables d."""
        return self.shape[0] * self.shape[1]

    def cdd_matrix(self) -> cdd.gmp.Matrix:
        """The H-representation as a pycddlib GMP matrix (equalities first, in its lin_set)."""
        rows = [list(row) for row in self.equalities] + [list(row) for row in self.inequalities]
        return cdd.gmp.matrix_from_array(rows, lin_set=range(len(self.equalities)), rep_type=cdd.RepType.INEQUALITY)

    def to_ine(self) -> str:
        """The cdd ``.ine`` text of the H-representation (exact rationals)."""
        rows = [*self.equalities, *self.inequalities]
        lines = [f"* {self.name} n={self.shape[0]} e^eps={self.eps_exp}", "H-representation"]
        if self.equalities:
            lines.append(f"linearity {len(self.equalities)} " + " ".join(str(i + 1) for i in range(len(self.equalities))))
        lines += ["begin", f"{len(rows)} {self.dimension_of_space + 1} rational"]
        lines += [" ".join(str(v) for v in row) for row in rows]
        lines.append("end")
        return "\n".join(lines) + "\n"

    def contains(self, point: Sequence[Fraction]) -> bool:
        """Exact membership of a point given as its variables (row-major)."""
        if len(point) != self.dimension_of_space:
            return False
        value = lambda row: row[0] + sum(a * x for a, x in zip(row[1:], point, strict=False) if a)  # noqa: E731
        return all(value(row) == 0 for row in self.equalities) and all(value(row) >= 0 for row in self.inequalities)

    def tight(self, point: Sequence[Fraction]) -> frozenset[int]:
        """Indices of the inequalities tight at `point`."""
        return frozenset(k for k, row in enumerate(self.inequalities)
                         if row[0] + sum(a * x for a, x in zip(row[1:], point, strict=False) if a) == 0)
