"""The perturber families a spec may name: the toolkit's mechanisms, the user's own (files per e^ε, an
expression in t = e^ε, the exponential mechanism of a quality table), Kohli and Laskowski's fixed-point
mechanisms and Cormode et al.'s WM from :mod:`polytopes`, and a pre-processor before any of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from proofs_checks.gate import limits
from proofs_checks.gate.model import SpecError, StabilitySpec
from proofs_checks.gate.values import pairs_csv, quality_rows, spec_eps_exp, spec_number
from qifkit.channel import Channel
from qifkit.errors import QifError
from qifkit.expressions import parse_rational_function
from qifkit.files import read_input_text
from qifkit.mechanisms import (
    explicit_fair_mechanism,
    exponential_mechanism,
    randomized_response,
    truncated_geometric,
    uniform_mechanism,
)
from qifkit.numbers import exact, exact_eps_exp, exact_str, quoted, reduced_fraction
from qifkit.postprocess import deterministic

FAMILIES: dict[str, Callable[[int, Any], Channel]] = {
    "geometric": lambda values, eps_exp: truncated_geometric(values, eps_exp=eps_exp),  # Cormode's GM on 0..values-1
    "randomized_response": lambda values, eps_exp: randomized_response(values, eps_exp=eps_exp),
    # Cormode et al.'s explicit fair mechanism EM on the values 0..values-1 (their n = values - 1)
    "explicit_fair": lambda values, eps_exp: explicit_fair_mechanism(values - 1, eps_exp=eps_exp),
    # Cormode et al.'s uniform mechanism UM (Def. 5): the same at every e^ε, the baseline of no utility
    "uniform": lambda values, eps_exp: uniform_mechanism(values - 1),
}


@dataclass(frozen=True)
class PerturberFamily:
    """A perturber family built from :mod:`polytopes` when the spec is read, at the grid's e^ε
    (:data:`POLYTOPE_FAMILIES`: Kohli and Laskowski's fixed-point mechanisms, Cormode et al.'s WM).

    Attributes
    ----------
    keys : frozenset of str
        The [perturber] keys it reads besides ``family`` and ``values``.
    make : callable
        ``make(table, values, grid)`` gets the [perturber] table, the number of values and the
        grid's e^ε (exact); it validates them (raising a :class:`~qifkit.errors.QifError` that
        names the key) and returns ``build(eps_exp) -> Channel``, a values × values perturber.
    description : str
        What it is, for messages.
    """

    keys: frozenset[str]
    make: Callable[[dict[str, Any], int, tuple[Fraction, ...]], Callable[[Any], Channel]]
    description: str = ""


def _fixed_point_perturber(table: dict[str, Any], values: int, grid: tuple[Fraction, ...]) -> Callable[[Any], Channel]:
    """``family = "fixed_point"``: ``z = ["1/4", "1/2", "1/4"]`` (or ``"uniform"``, ``"binomial"``) on
    ``values`` values and an optional ``selector``; Kohli and Laskowski's Algorithm 1 mechanism at
    each e^ε (:func:`polytopes.fixed_point.heuristic_constructor`, exact; T[i][j] = Pr[report j |
    value i], z·T = z: a respondent's value keeps its distribution z in expectation), built and
    verified at every e^ε of the grid before the spec is accepted."""
    from polytopes.fixed_point.algorithm1 import heuristic_constructor
    from polytopes.fixed_point.named import named_fixed_point
    from polytopes.fixed_point.runs import SELECTORS

    given = table.get("z")
    if isinstance(given, str):
        z = named_fixed_point(given, values)
    elif isinstance(given, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in given):
        z = [exact(v) for v in given]
    else:
        raise SpecError('z must be a list of probabilities, e.g. z = ["1/4", "1/2", "1/4"], or "uniform" or "binomial"')
    if len(z) != values:
        raise SpecError(f"z has {len(z)} entries for values = {values}")
    selector = table.get("selector", "sandwich")
    if selector not in SELECTORS:
        raise SpecError(f"selector {quoted(selector)} is not one of {', '.join(SELECTORS)}")

    def build(eps_exp: Any) -> Channel:
        rows = heuristic_constructor(z, eps_exp=eps_exp, selector=selector).matrix
        assert rows is not None  # the exact mode always has the matrix
        return Channel.from_rows([list(row) for row in rows])

    return _built_at_grid(build, grid)


def _weakly_honest_perturber(table: dict[str, Any], values: int, grid: tuple[Fraction, ...]
                             ) -> Callable[[Any], Channel]:
    """``family = "weakly_honest"``: Cormode et al.'s WM on the values 0..values-1 at α = 1/e^ε
    (:func:`polytopes.constrained.weakly_honest_mechanism`), an exact certified LP optimum at each
    e^ε of the grid, built when the spec is read. The optimum is not unique; the LP engine's choice
    is deterministic, and another optimal WM may give another stability verdict."""
    from polytopes.constrained import weakly_honest_mechanism

    def build(eps_exp: Any) -> Channel:
        return weakly_honest_mechanism(values - 1, alpha=1 / exact(eps_exp))

    return _built_at_grid(build, grid)


def _built_at_grid(build: Callable[[Any], Channel], grid: tuple[Fraction, ...]) -> Callable[[Any], Channel]:
    """`build` run at every e^ε of the grid now (a perturber that cannot be built is refused with the
    spec), each result kept: the evaluation asks for the same e^ε again, and these families are
    the costly ones (an exact construction or LP at each e^ε)."""
    built: dict[Any, Channel] = {}

    def once(eps_exp: Any) -> Channel:
        key = exact_eps_exp(eps_exp)
        if key not in built:
            built[key] = build(eps_exp)
        return built[key]

    for eps_exp in grid:
        once(eps_exp)
    return once


#: The perturber families of :mod:`polytopes`, built at the grid's e^ε when the spec is read.
POLYTOPE_FAMILIES = {
    "fixed_point": PerturberFamily(frozenset({"z", "selector"}), _fixed_point_perturber,
                                   "Kohli and Laskowski's Algorithm 1 with fixed point z"),
    "weakly_honest": PerturberFamily(frozenset(), _weakly_honest_perturber,
                                     "Cormode et al.'s weakly honest mechanism WM"),
}


def _check_private(channel: Channel, eps_exp: Fraction, what: str) -> None:
    """Refuse a user's perturber that is not e^ε-locally-private at its e^ε, naming its tightest e^ε
    (networkx, which the privacy check uses, is loaded only for the user's own perturbers)."""
    from qifkit.privacy import tightest_eps_exp

    tightest = tightest_eps_exp(channel).eps_exp  # local DP: every two values adjacent
    if tightest > eps_exp:
        raise SpecError(f"{what} is not {exact_str(eps_exp)}-locally-private: its tightest e^ε is "
                        f"{tightest if tightest == math.inf else exact_str(tightest)}")


def perturber_files(files: Any, family: str, values: int, grid: tuple[Fraction, ...], eps_range: Any, query: Any,
                     folder: Path) -> tuple[tuple[Fraction, str], ...]:
    """Family "file": one CSV per e^ε of the grid (``files = {"2" = "p2.csv", ...}``), each a
    values × values channel (rows and columns in the order 0..values-1, labels optional) that is
    e^ε-locally-private at its own e^ε, checked exactly here."""
    if family != "file":
        if files is not None:
            raise SpecError(f"[perturber] files is for family = \"file\", not {quoted(family)}")
        return ()
    if eps_range is not None:
        raise SpecError("a file perturber is known at the grid's e^ε only: [sweep] from/to needs a family in e^ε")
    if query.bars:
        raise SpecError("a file perturber perturbs the values; argmax perturbs bar heights: use count or sum")
    if not isinstance(files, dict) or not files:
        raise SpecError('[perturber] files must map each e^ε of the grid to a CSV, e.g. files = {"2" = "p2.csv"}')
    by_value: dict[Fraction, tuple[str, Any]] = {}
    for key, path in files.items():
        value = spec_eps_exp(key, "[perturber] files key")
        if value in by_value:
            raise SpecError(f"[perturber] files names e^ε = {exact_str(value)} twice ({quoted(by_value[value][0])} and "
                            f"{quoted(key)}): which CSV is the perturber there?")
        by_value[value] = (key, path)
    found = []
    for key in grid:
        if key not in by_value:
            raise SpecError(f"[perturber] files has no CSV for e^ε = {exact_str(key)} of the grid")
        name, path = by_value[key]
        if not isinstance(path, str):
            raise SpecError(f"[perturber] files: the path for {quoted(name)} must be a string")
        _check_private(_file_channel(str(folder / path), values), key, path)
        found.append((key, str(folder / path)))
    return tuple(found)


def _file_channel(path: str, values: int) -> Channel:
    try:
        channel = Channel.read_csv(path)
    except OSError as error:
        raise SpecError(f"cannot read the perturber {path}: {error.strerror}") from None
    if channel.shape != (values, values):
        raise SpecError(f"the perturber {path} is {channel.shape[0]} × {channel.shape[1]}; values = {values} needs "
                        f"{values} × {values}")
    return Channel.from_rows(channel.rows(), secrets=range(values), outputs=range(values))


def perturber_matrix(matrix: Any, family: str, values: int, grid: tuple[Fraction, ...],
                      eps_range: tuple[Fraction, Fraction] | None, query: Any, folder: Path) -> str | None:
    """Family "expression": one CSV whose entries are rational functions of t = e^ε (``t/(t+2)``),
    read by :func:`qifkit.expressions.parse_rational_function`; its rows must sum to 1 identically,
    and it must be a mechanism that is e^ε-locally-private at every e^ε of the sweep: checked exactly
    at the grid's points and, on a range, for every e^ε of it (each entry ≥ 0, and C[x, y] ≤ t·C[x', y]
    for every column and pair of rows, as sign conditions decided by real-root isolation)."""
    if family != "expression":
        if matrix is not None:
            raise SpecError(f"[perturber] matrix is for family = \"expression\", not {quoted(family)}")
        return None
    if not isinstance(matrix, str):
        raise SpecError('[perturber] matrix must name a CSV of expressions in t = e^ε, e.g. matrix = "mine.csv"')
    if query.bars:
        raise SpecError("an expression perturber perturbs the values; argmax perturbs bar heights: use count or sum")
    if values > limits.MAX_EXPRESSION_VALUES:
        raise SpecError(f"an expression perturber on {values} values needs {values ** 2 * (values - 1):,} exact sign "
                        f"proofs on a range; the limit is {limits.MAX_EXPRESSION_VALUES} values")
    path = str(folder / matrix)
    rows = _expression_rows(path, values)
    try:
        Channel.from_symbolic(rows, parameters=(_T,))
    except QifError as error:
        raise SpecError(f"{path}: {error}") from None
    for key in grid:
        _check_private(_expression_channel(rows, key), key, f"{path} at e^ε = {exact_str(key)}")
    if eps_range is not None:
        from qifkit.privacy import local_privacy_defect_on_range  # networkx: for the user's own perturbers only

        low, high = eps_range
        defect = local_privacy_defect_on_range(rows, _T, low, high)
        if defect is not None:
            raise SpecError(f"{path} is not e^ε-locally-private on [{low}, {high}]: {defect}")
    return path


_T = sympy.Symbol("t")  # e^ε in an expression perturber's entries


def _expression_rows(path: str, values: int) -> list[list[sympy.Expr]]:
    """The entries of an expression perturber's CSV (a header row and a label column are dropped
    when the top-left cell is blank, as in a channel CSV)."""
    try:
        text = read_input_text(path)
    except OSError as error:
        raise SpecError(f"cannot read the perturber {path}: {error.strerror}") from None
    cells = [[cell.strip() for cell in line.split(",")] for line in text.splitlines() if line.strip()]
    if cells and cells[0] and cells[0][0] == "":
        cells = [row[1:] for row in cells[1:]]
    if len(cells) != values or any(len(row) != values for row in cells):
        raise SpecError(f"the perturber {path} is not {values} × {values} (values = {values})")
    rows = []
    for i, row in enumerate(cells):
        try:
            rows.append([parse_rational_function(cell, _T) for cell in row])
        except QifError as error:
            raise SpecError(f"{path}, row {i}: {error}") from None
    return rows


def _expression_channel(rows: list[list[sympy.Expr]], eps_exp: Any) -> Channel:
    """The expression perturber at an exact e^ε, or with entries in a given symbol (a range)."""
    if isinstance(eps_exp, sympy.Symbol):
        return Channel.from_symbolic(
            [[entry.subs(_T, eps_exp) for entry in row] for row in rows], parameters=(eps_exp,)
        )
    value = exact_eps_exp(eps_exp)
    point = sympy.Rational(value.numerator, value.denominator)
    exact_rows = []
    for i, row in enumerate(rows):
        entries = []
        for j, entry in enumerate(row):
            if sympy.fraction(sympy.cancel(entry))[1].subs(_T, point) == 0:
                raise SpecError(f"the expression perturber's entry ({i}, {j}) = {entry} has a pole at e^ε = "
                                f"{exact_str(value)}: it is no mechanism there")
            entries.append(reduced_fraction(sympy.Rational(entry.subs(_T, point))))
        exact_rows.append(entries)
    return Channel.from_rows(exact_rows)


def perturber_family(spec: StabilitySpec) -> Callable[[int, Any], Channel]:
    """The spec's perturber at a value of e^ε: a named family, the file given for that e^ε, or the
    expression perturber at that e^ε; after the pre-processor when the spec has one (a named
    family on the pre-processor's inputs, composed: D·C, Alvim et al.'s pre-processing)."""
    if spec.before:
        inputs = max(spec.before) + 1
        before = deterministic(lambda value: spec.before[value], range(spec.values), range(inputs))
        named = FAMILIES[spec.family]
        return lambda values, eps_exp: before @ named(inputs, eps_exp)
    if spec.family == "expression":
        assert spec.matrix is not None  # parse_spec requires it
        rows = _expression_rows(spec.matrix, spec.values)
        return lambda values, eps_exp: _expression_channel(rows, eps_exp)
    if spec.built is not None:
        build = spec.built
        return lambda values, eps_exp: build(eps_exp)
    if spec.family == "exponential":
        assert spec.quality is not None  # parse_spec requires it
        quality = quality_rows(spec.quality, spec.values)
        return lambda values, eps_exp: exponential_mechanism(quality, eps_exp=eps_exp, sensitivity=spec.sensitivity)
    if spec.family != "file":
        return FAMILIES[spec.family]
    paths = dict(spec.files)
    return lambda values, eps_exp: _file_channel(paths[exact_eps_exp(eps_exp)], values)


def exponential_quality(quality: Any, sensitivity: Any, family: str, values: int, grid: tuple[Fraction, ...],
                         eps_range: Any, query: Any, folder: Path) -> tuple[str | None, Fraction]:
    """Family "exponential": McSherry and Talwar's mechanism (Cormode et al. eq. (2)) with the quality
    Q(value, report) of a values × values CSV and sensitivity s (default 1): Pr[r | v] ∝
    (e^ε)^(Q(v, r)/(2s)). Exact only where e^ε has the root the exponents need, so each e^ε of the
    grid is tried here; a range is refused (the entries are not rational functions of e^ε)."""
    if family != "exponential":
        for key, value in (("quality", quality), ("sensitivity", sensitivity)):
            if value is not None:
                raise SpecError(f"[perturber] {key} is for family = \"exponential\", not {quoted(family)}")
        return None, Fraction(1)
    if not isinstance(quality, str):
        raise SpecError('[perturber] quality must name a CSV of Q(value, report), e.g. quality = "quality.csv"')
    if eps_range is not None:
        raise SpecError("the exponential mechanism's entries are powers (e^ε)^(Q/2s), not rational functions of e^ε: "
                        "use a grid (eps_exp = [...]), not from/to")
    if query.bars:
        raise SpecError("an exponential perturber perturbs the values; argmax perturbs bar heights: use count or sum")
    scale = spec_number(1 if sensitivity is None else sensitivity, "[perturber] sensitivity")
    if scale <= 0:
        raise SpecError(f"[perturber] sensitivity must be positive, got {scale}")
    path = str(folder / quality)
    rows = quality_rows(path, values)
    for key in grid:
        try:
            exponential_mechanism(rows, eps_exp=key, sensitivity=scale)
        except QifError as error:
            raise SpecError(f"the exponential perturber at e^ε = {exact_str(key)}: {error}") from None
    return path, scale


def pre_processor(before: Any, family: str, values: int, query: Any, counted: list[Any],
                   folder: Path) -> tuple[int, ...]:
    """``[perturber] before = "coarsen.csv"``: a deterministic pre-processor, rows ``value,input`` for
    every value 0..values-1, mapping each respondent's value onto the inputs 0..K-1 of a named
    family built on K values (every input used): e.g. merging rare categories before randomized
    response. Counted values (``of``) are then the perturber's outputs 0..K-1."""
    if before is None:
        return ()
    if family not in FAMILIES:
        raise SpecError(f"[perturber] before goes with a named family ({', '.join(sorted(FAMILIES))}), not "
                        f"{quoted(family)}: give your own perturber its pre-processing directly")
    if query.bars:
        raise SpecError("[perturber] before pre-processes the values; argmax perturbs bar heights: use count or sum")
    if not isinstance(before, str):
        raise SpecError('[perturber] before must name a CSV of value,input rows, e.g. before = "coarsen.csv"')
    path = str(folder / before)
    rows = pairs_csv(path, "pre-processor", values)
    inputs = []
    for value, text in enumerate(rows):
        if not (text.isascii() and text.isdigit()):
            raise SpecError(f"{path}: value {value} goes to {quoted(text)}, not a perturber input 0, 1, ...")
        inputs.append(int(text))
    missing = sorted(set(range(max(inputs) + 1)) - set(inputs))
    if missing or max(inputs) < 1:
        raise SpecError(f"{path}: the perturber's inputs must be 0..K-1 with K >= 2, each used"
                        + (f"; {missing[0]} is not" if missing else ""))
    for value in counted:
        if isinstance(value, int) and not isinstance(value, bool) and value > max(inputs):
            raise SpecError(f"counted value {value} is not an output of the perturber after {path} "
                            f"(its outputs are 0..{max(inputs)})")
    return tuple(inputs)
