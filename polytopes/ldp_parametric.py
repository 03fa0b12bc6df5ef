"""Vertices of the local-DP polytope D with loose entries, decided for every e^ε > 1 at once.

Reduction (ours, from the definitions of Holohan et al.). Let A be a vertex of D (n×n, rows
sum to 1, a_ij ≤ e·a_kj). In a non-zero column j with max = e·min ("ratio-tight"), each entry is
low (= m_j, the minimum), high (= e·m_j) or loose (strictly between); the tight constraints tie
the low and high entries to one unknown m_j and leave each loose entry free. A non-zero column
with max < e·min has no tight ratio, so all n of its entries are free: then the row sums leave no
room for another non-zero column, and A is the column of ones (D̃'). So a vertex other than D̃' is
given by a pattern (one word over {low, high, loose} per ratio-tight column, at least one low and
one high each) with u = #columns + #loose unknowns, and A is a vertex exactly when the n row sums
Σ_j c_ij(e)·m_j + Σ loose = 1 (c = 1 for low, e for high) have a unique solution with m_j > 0 and
m_j < x < e·m_j for every loose x. Without loose entries these are the members of D̃ (the rank of A
is that of the 0/1 pattern); the conjecture ex(D) = D̃' ∪ D̃ is therefore that no pattern with a
loose entry is feasible.

For one pattern every condition is the vanishing or the sign of a polynomial in e (minors, and
Cramer numerators times the determinant). Between consecutive real roots of all of them the
answer is constant, so it is decided at one rational point per gap and at every root > 1 itself
(exactly: rational roots by substitution, irrational ones by divisibility by their irreducible
polynomial and by sign on a refined isolating interval). No floating point is used.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from fractions import Fraction

import sympy

from qifkit.real_roots import RealPoint, real_roots

__all__ = ["LOW", "HIGH", "LOOSE", "loose_patterns", "feasible_values", "canonical", "loose_vertex_search"]

LOW, HIGH, LOOSE = 0, 1, 2
E = sympy.Symbol("e")

Pattern = tuple[tuple[int, ...], ...]  # one word per ratio-tight column


def canonical(pattern: Pattern) -> Pattern:
    """The least form of a pattern under row permutations and column reorderings."""
    n = len(pattern[0])
    return min(tuple(sorted(tuple(column[i] for i in order) for column in pattern))
               for order in itertools.permutations(range(n)))


def loose_patterns(n: int) -> list[Pattern]:
    """Every pattern with at least one loose entry and at most n unknowns, one per symmetry class."""
    words = [w for w in itertools.product((LOW, HIGH, LOOSE), repeat=n) if LOW in w and HIGH in w]
    found = set()
    for columns in range(1, n):
        for pattern in itertools.combinations_with_replacement(words, columns):
            loose = sum(w.count(LOOSE) for w in pattern)
            if loose and columns + loose <= n:
                found.add(canonical(pattern))
    return sorted(found)


class _System:
    """The row-sum system of a pattern (rows: the n row sums; unknowns: m_j, then the loose
    entries) and the polynomials that decide it."""

    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern
        self.n = len(pattern[0])
        self.loose = [(i, j) for j, w in enumerate(pattern) for i in range(self.n) if w[i] == LOOSE]
        self.u = len(pattern) + len(self.loose)
        coefficient = {LOW: 1, HIGH: E, LOOSE: 0}
        self.matrix = [[sympy.Poly(coefficient[w[i]], E) for w in pattern]
                       + [sympy.Poly(int(k == i), E) for (k, _) in self.loose] for i in range(self.n)]

    def minor(self, rows: Sequence[int], replace: int | None = None) -> sympy.Poly:
        """det of the rows × all unknowns (column `replace` taken as the right-hand side of ones)."""
        one = sympy.Poly(1, E)
        return sympy.Poly(_det([[one if c == replace else self.matrix[r][c] for c in range(self.u)] for r in rows]), E)

    def augmented_minor(self, rows: Sequence[int]) -> sympy.Poly:
        """det of the rows × (all unknowns, right-hand side): zero for every such choice of u + 1
        rows exactly when the system is consistent (given rank u)."""
        one = sympy.Poly(1, E)
        return sympy.Poly(_det([[self.matrix[r][c] for c in range(self.u)] + [one] for r in rows]), E)

    def conditions(self, rows: Sequence[int]) -> list[sympy.Poly]:
        """The polynomials that must be > 0, by Cramer's rule on these rows (det D ≠ 0):
        m_j·D² > 0, (x − m_j)·D² > 0 and (e·m_j − x)·D² > 0."""
        d = self.minor(rows)
        numerators = [self.minor(rows, replace=k) for k in range(self.u)]
        positive = [numerators[j] * d for j in range(len(self.pattern))]
        for position, (_, j) in enumerate(self.loose):
            x = numerators[len(self.pattern) + position]
            positive += [(x - numerators[j]) * d, (numerators[j] * sympy.Poly(E, E) - x) * d]
        return positive


def _det(table: list[list[sympy.Poly]]) -> sympy.Poly | int:
    size = len(table)
    if size == 0:
        return 1
    if size == 1:
        return table[0][0].as_expr()
    total = 0
    for c in range(size):
        if table[0][c].is_zero:
            continue
        rest = [row[:c] + row[c + 1:] for row in table[1:]]
        total += (-1) ** c * table[0][c].as_expr() * _det(rest)
    return sympy.expand(total)


def _feasible(system: _System, point: RealPoint) -> bool:
    n, u = system.n, system.u
    chosen = next((rows for rows in itertools.combinations(range(n), u) if point.sign(system.minor(rows)) != 0), None)
    if chosen is None:
        return False  # rank < u: not a vertex
    if any(point.sign(system.augmented_minor(rows)) != 0 for rows in itertools.combinations(range(n), u + 1)):
        return False  # inconsistent
    return all(point.sign(p) > 0 for p in system.conditions(chosen))


def feasible_values(pattern: Pattern) -> list[str]:
    """Witnesses e^ε > 1 at which the pattern is a vertex: of the test points (every root > 1 of
    the deciding polynomials, and one rational point in every gap between them, where the answer
    is constant) those that pass, as text. Empty means: a vertex for no e^ε > 1.

    Examples
    --------
    >>> feasible_values(((LOW, HIGH, LOOSE),))  # one column with one loose entry, n = 3
    []
    """
    system = _System(pattern)
    n, u = system.n, system.u
    polynomials = []
    for rows in itertools.combinations(range(n), u):
        d = system.minor(rows)
        if not d.is_zero:
            polynomials += [d, *system.conditions(rows)]
    if not polynomials:
        return []  # rank < u for every e
    polynomials += [
        m for rows in itertools.combinations(range(n), u + 1) if not (m := system.augmented_minor(rows)).is_zero
    ]
    points: list[RealPoint] = []
    previous = Fraction(1)
    for root in real_roots([p for p in polynomials if not p.is_zero], Fraction(1)):
        points.append(RealPoint((previous + root.bounds[0]) / 2))
        points.append(root)
        previous = root.bounds[1]
    points.append(RealPoint(previous + 1))
    return [str(p) for p in points if _feasible(system, p)]


def loose_vertex_search(n: int) -> Iterator[tuple[Pattern, list[str]]]:
    """Every loose pattern of size n with the e^ε > 1 at which it is a vertex (usually none)."""
    for pattern in loose_patterns(n):
        yield pattern, feasible_values(pattern)
