"""Differential privacy of a channel: the exact tightest e^ε and the pair that attains it.

A channel C is ε-DP on an adjacency relation (a networkx graph on its secrets) when
C[x, y] ≤ e^ε · C[x', y] for all adjacent x, x' and outputs y (Alvim et al. §2.2, eq. (1) for
discrete outputs). It is d-private for a metric d when C[x, y] ≤ e^(ε·d(x, x')) · C[x', y] for all
x, x' (Alvim et al. App. C).

Examples
--------
>>> from qifkit.mechanisms import truncated_geometric
>>> bound = tightest_eps_exp(truncated_geometric(3, eps_exp="2"), count_adjacency(range(3)))
>>> bound.eps_exp
Fraction(2, 1)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import networkx as nx
import sympy

from qifkit.channel import Channel
from qifkit.errors import LabelError, UndecidableError
from qifkit.matrices import NumberKind, public_value
from qifkit.numbers import exact
from qifkit.validation import eps_exp_above_one

__all__ = [
    "local_adjacency",
    "count_adjacency",
    "histogram_adjacency",
    "PrivacyBound",
    "tightest_eps_exp",
    "satisfies_dp",
    "DPrivacyBound",
    "tightest_d_privacy",
    "local_privacy_defect_on_range",
]


def local_adjacency(secrets: Iterable[Hashable]) -> nx.Graph:
    """Local DP: every two secrets are adjacent (the complete graph).

    Parameters
    ----------
    secrets : iterable of hashable
        The secrets.

    Returns
    -------
    networkx.Graph

    >>> sorted(local_adjacency("abc").edges())
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    return nx.complete_graph(list(secrets))


def count_adjacency(secrets: Iterable[Hashable]) -> nx.Graph:
    """Counts: consecutive secrets (in the given order) are adjacent (the path graph).

    Parameters
    ----------
    secrets : iterable of hashable
        The counts, in order.

    Returns
    -------
    networkx.Graph

    >>> sorted(count_adjacency(range(3)).edges())
    [(0, 1), (1, 2)]
    """
    return nx.path_graph(list(secrets))


def histogram_adjacency(histograms: Iterable[Sequence[int]]) -> nx.Graph:
    """Histograms are adjacent when they differ by exactly one unit in exactly one bar
    (Alvim et al. Lemma 25).

    Parameters
    ----------
    histograms : iterable of sequence of int
        The histograms (the secrets of a histogram pipeline).

    Returns
    -------
    networkx.Graph

    >>> graph = histogram_adjacency([(2, 0), (1, 1), (1, 0)])
    >>> graph.has_edge((2, 0), (1, 0)), graph.has_edge((1, 1), (1, 0)), graph.has_edge((2, 0), (1, 1))
    (True, True, False)
    """
    nodes = [tuple(h) for h in histograms]
    present = set(nodes)
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    for histogram in nodes:
        for bar in range(len(histogram)):
            neighbour = histogram[:bar] + (histogram[bar] + 1,) + histogram[bar + 1 :]
            if neighbour in present:
                graph.add_edge(histogram, neighbour)
    return graph


@dataclass(frozen=True)
class PrivacyBound:
    """The tightest e^ε of a channel on an adjacency relation, with the entry that attains it.

    ``eps_exp`` is ``C[secret, output] / C[neighbour, output]``: a Fraction for an exact channel,
    a float for a float channel, ``math.inf`` when some output is possible for `secret` but not
    for its neighbour, and 1 when there are no adjacent pairs. ``secret``, ``neighbour`` and
    ``output`` are labels (None when there is no pair).
    """

    eps_exp: Any
    secret: Hashable | None
    neighbour: Hashable | None
    output: Hashable | None


def _adjacent_pairs(channel: Channel, adjacency: nx.Graph | None) -> list[tuple[int, int]]:
    """Ordered index pairs (i, j) of adjacent secrets, both directions."""
    if adjacency is None:
        adjacency = local_adjacency(channel.secrets)
    index = {label: i for i, label in enumerate(channel.secrets)}
    pairs = []
    for a, b in adjacency.edges():
        if a not in index or b not in index:
            missing = a if a not in index else b
            raise LabelError(f"adjacency names {missing!r}, which is not a secret of the channel")
        pairs += [(index[a], index[b]), (index[b], index[a])]
    return pairs


def _numeric_rows(channel: Channel) -> list[list[Any]]:
    if channel.kind is NumberKind.SYMBOLIC:
        raise UndecidableError("the tightest ε of a symbolic channel is not decidable here; substitute() first")
    return channel.rows() if channel.kind is NumberKind.FLOAT else channel.matrix.to_list()


def tightest_eps_exp(channel: Channel, adjacency: nx.Graph | None = None) -> PrivacyBound:
    """The smallest e^ε for which `channel` is ε-DP on `adjacency` (default: local DP).

    Complexity: O(edges · outputs) exact divisions.

    Parameters
    ----------
    channel : Channel
        Exact or float (not symbolic).
    adjacency : networkx.Graph, optional
        Which secrets are neighbours (:func:`local_adjacency` by default; :func:`count_adjacency`,
        :func:`histogram_adjacency`).

    Returns
    -------
    PrivacyBound
        ``eps_exp``, the largest ratio C[x, y] / C[x', y] over adjacent x, x', and where it is attained.

    Examples
    --------
    >>> from qifkit import truncated_geometric
    >>> gd = truncated_geometric(3, eps_exp=2)
    >>> tightest_eps_exp(gd, count_adjacency(range(3))).eps_exp, tightest_eps_exp(gd).eps_exp
    (Fraction(2, 1), Fraction(4, 1))
    """
    rows = _numeric_rows(channel)
    best: Any = 1
    witness: tuple[int, int, int] | None = None
    for i, j in _adjacent_pairs(channel, adjacency):
        for y, (top, bottom) in enumerate(zip(rows[i], rows[j], strict=True)):
            if top == 0:
                continue
            if bottom == 0:
                return PrivacyBound(math.inf, channel.secrets[i], channel.secrets[j], channel.outputs[y])
            ratio = top / bottom
            if witness is None or ratio > best:
                best, witness = ratio, (i, j, y)
    if witness is None:
        return PrivacyBound(Fraction(1) if channel.kind is NumberKind.EXACT else 1.0, None, None, None)
    if channel.kind is NumberKind.EXACT:
        best = public_value(channel.matrix.domain, best)
    i, j, y = witness
    return PrivacyBound(best, channel.secrets[i], channel.secrets[j], channel.outputs[y])


def satisfies_dp(channel: Channel, *, eps_exp: Any, adjacency: nx.Graph | None = None) -> bool:
    """True when `channel` is ε-DP on `adjacency`: C[x, y] ≤ e^ε·C[x', y] for every adjacent x, x'
    and every output y (exactly; Alvim et al. Def. 11's setting, Cormode et al. Def. 1).

    Parameters
    ----------
    channel : Channel
        Rows are secrets.
    eps_exp : exact number or str
        e^ε ≥ 1, keyword only: a number, or ``"ln(x)"`` as everywhere e^ε is taken (e^ε = 1 is 0-DP).
    adjacency : networkx.Graph, optional
        Which secrets are neighbours; every pair (local DP) by default.

    Returns
    -------
    bool

    Raises
    ------
    PrivacyParameterError
        If e^ε < 1.

    Examples
    --------
    >>> from qifkit import randomized_response
    >>> rr = randomized_response(3, eps_exp=2)
    >>> satisfies_dp(rr, eps_exp=2), satisfies_dp(rr, eps_exp="3/2")
    (True, False)
    """
    return tightest_eps_exp(channel, adjacency).eps_exp <= eps_exp_above_one(eps_exp, allow_one=True)


@dataclass(frozen=True)
class DPrivacyBound:
    """The tightest e^ε of d-privacy: ``eps_exp = ratio ** (1 / distance)`` as an exact sympy
    number, attained at ``C[secret, output] / C[neighbour, output] = ratio`` with
    ``d(secret, neighbour) = distance``. ``eps_exp`` is ``sympy.oo`` for an unbounded ratio."""

    eps_exp: Any
    ratio: Any
    distance: Any
    secret: Hashable | None
    neighbour: Hashable | None
    output: Hashable | None


def _root_greater(ratio: Fraction, distance: Fraction, other_ratio: Fraction, other_distance: Fraction) -> bool:
    """Exactly decide ratio^(1/distance) > other_ratio^(1/other_distance) for ratios >= 1."""
    p, q = distance.numerator, distance.denominator
    r, s = other_distance.numerator, other_distance.denominator
    return ratio ** (q * r) > other_ratio ** (s * p)


def tightest_d_privacy(channel: Channel, metric: Callable[[Hashable, Hashable], Any]) -> DPrivacyBound:
    """The smallest e^ε with C[x, y] ≤ e^(ε·d(x, x'))·C[x', y] for all secrets x ≠ x' and outputs y.

    `metric(x, x')` must return an exact positive number for distinct secrets. Comparisons of
    ``ratio^(1/d)`` are decided exactly by raising both sides to integer powers.

    Parameters
    ----------
    channel : Channel
        Exact.
    metric : callable
        d(x, x'), an exact positive number for distinct secrets.

    Returns
    -------
    DPrivacyBound
        ``eps_exp`` (exact, ``sympy.oo`` when unbounded) and where the ratio is attained.

    Raises
    ------
    UndecidableError
        For a float or symbolic channel.

    Examples
    --------
    The truncated geometric mechanism is d-private for the distance between counts, at its own e^ε:

    >>> from qifkit import truncated_geometric
    >>> tightest_d_privacy(truncated_geometric(4, eps_exp=2), lambda x, y: abs(x - y)).eps_exp
    2
    """
    if channel.kind is not NumberKind.EXACT:
        raise UndecidableError(f"d-privacy is decided exactly here; this channel is {channel.kind.value}")
    rows = channel.rows()
    best: tuple[Fraction, Fraction, int, int, int] | None = None
    for i, x in enumerate(channel.secrets):
        for j, x2 in enumerate(channel.secrets):
            if i == j:
                continue
            distance = exact(metric(x, x2))
            if distance <= 0:
                raise LabelError(f"metric d({x!r}, {x2!r}) = {distance} is not positive")
            for y, (top, bottom) in enumerate(zip(rows[i], rows[j], strict=True)):
                if top == 0:
                    continue
                if bottom == 0:
                    return DPrivacyBound(sympy.oo, math.inf, distance, x, x2, channel.outputs[y])
                ratio = top / bottom
                if ratio > 1 and (best is None or _root_greater(ratio, distance, best[0], best[1])):
                    best = (ratio, distance, i, j, y)
    if best is None:
        return DPrivacyBound(sympy.Integer(1), Fraction(1), None, None, None, None)
    ratio, distance, i, j, y = best
    value = sympy.Rational(ratio.numerator, ratio.denominator) ** sympy.Rational(
        distance.denominator, distance.numerator
    )
    return DPrivacyBound(value, ratio, distance, channel.secrets[i], channel.secrets[j], channel.outputs[y])


def local_privacy_defect_on_range(rows: Sequence[Sequence[sympy.Expr]], t: sympy.Symbol, low: Any, high: Any
                                  ) -> str | None:
    """What keeps a perturber whose entries are rational functions of t = e^ε from being
    e^ε-locally-private at *every* e^ε of [low, high], or None when it is: each entry ≥ 0 and
    C[x, y] ≤ t·C[x', y] for every column y and pair of rows x ≠ x' (Alvim et al. eq. (1), every two
    values adjacent), each a sign condition on the interval decided exactly by real-root isolation
    (:func:`qifkit.real_roots.sign_on`); values² · (values − 1) conditions.

    Examples
    --------
    >>> t = sympy.Symbol("t")
    >>> rr = [[t / (t + 1), 1 / (t + 1)], [1 / (t + 1), t / (t + 1)]]  # randomized response
    >>> local_privacy_defect_on_range(rr, t, 2, 5) is None
    True
    >>> local_privacy_defect_on_range([[t / (t + 1), 1 / (t + 1)], [1 / (t**2 + 1), t**2 / (t**2 + 1)]], t, 2, 5)
    'C[0, 0] ≤ t·C[1, 0] fails somewhere in [2, 5]'
    """
    from qifkit.real_roots import sign_on

    low, high = exact(low), exact(high)
    for i, row in enumerate(rows):
        for j, entry in enumerate(row):
            if sign_on(entry, t, low, high, allow_zero=True) not in (0, 1):
                return f"entry ({i}, {j}) = {entry} is not ≥ 0 for every e^ε in [{low}, {high}]"
    for j in range(len(rows[0]) if rows else 0):
        for i, other in itertools.permutations(range(len(rows)), 2):
            if sign_on(t * rows[other][j] - rows[i][j], t, low, high, allow_zero=True) not in (0, 1):
                return f"C[{i}, {j}] ≤ t·C[{other}, {j}] fails somewhere in [{low}, {high}]"
    return None
