"""Stability of a described pipeline: the TOML spec of ``qifkit stability`` and its evaluation.

A spec names a perturber family, a population, a query, an analyst and a sweep of e^ε::

    [perturber]  family = "geometric"        # = Cormode et al.'s GM; "randomized_response",
                                             # "explicit_fair" (Cormode et al.'s EM), "exponential",
                                             # "expression" or "file" (the user's own mechanism);
                                             # "uniform" (Cormode et al.'s UM); "fixed_point"
                                             # (z = [...], Kohli and Laskowski's Algorithm 1) and
                                             # "weakly_honest" (Cormode et al.'s WM), from polytopes
                 matrix = "mine.csv"         # family "expression": entries in t = e^ε, t/(t+2)
                 files = {"2" = "p2.csv"}    # family "file": a CSV per e^ε of the grid
                 quality = "quality.csv"     # family "exponential": Q(value, report); sensitivity = "1"
                 before = "merge.csv"        # a pre-processor (named families): rows value,input
                 values = 7                  # secrets 0..values-1
    [population] respondents = 4
                 known = [0, 1, 1]           # optional: values the analyst knows, or
                 known_counts = {"0" = 5000, "1" = 6709}  # how many known respondents hold each value
                 population_prior = ["1/2", "1/4", "1/4"]  # optional: the other unknown respondents'
                 targets = 1                 # values are drawn from it; the secret is the targets' values
    [query]      kind = "count"              # "count", "threshold", "map", "sum", "histogram" or "argmax"
                 of = [0]                    # count, threshold, map: the perturbed values counted
                 at = 2                      # threshold: the release is whether the count is >= at
                 table = "bands.csv"         # map: rows count,label; the release is the count's label
    [analyst]    prior = "uniform"           # one unknown respondent; else "uniform_histograms" or
                                             # "uniform_tuples", a list of probabilities, "prior.csv"
                 loss = "linear"             # "bayes", "linear", "squared", "ama" or "loss.csv"
                 scale = 1000                # optional multiplier of the loss
    [gate]       question = "analyst"        # or "every_analyst" (_gate: the default and why)
                 tolerance = "1/1000"        # the spec's analyst's loss may rise this much (absolute)
    [sweep]      eps_exp = ["7/2", "351/100"]  # a grid of e^ε, and/or
                 from = "3"                  # a range: every e^ε in [from, to]
                 to = "4"
                 exact = true                # false: float64 curve on the grid, no certificates

Secrets are the value of the one unknown respondent, or the histograms of the unknown
respondents (lumped; ``prior = "uniform_histograms"`` is uniform over those histograms,
``"uniform_tuples"`` uniform over the tuples of unknown values; plain ``"uniform"`` only where they
agree, one unknown respondent). With a ``population_prior`` only the ``targets`` are the secret; each
other unknown respondent enters the generating functions as one mixture row
(:func:`qifkit.pipelines.with_population_row`), so the secrets stay few at any N. For ``argmax``
(noisy ArgMax, Alvim et al. §8) the secrets are the histograms of all respondents over ``values``
categories, each bar perturbed on heights 0..respondents, and ``known`` is not allowed.

Verdicts (:func:`evaluate_spec`, an adapter over :mod:`qifkit.stability`) answer the spec's
question (:func:`_verdict`): the spec's analyst, or every analyst; the other is information.

* on the grid: the analyst's loss at each e^ε (:func:`~qifkit.stability.loss_curve`) and the
  refinement of every consecutive pair of pipelines (:func:`~qifkit.stability.pipeline_refinement`),
  each with its certificate;
* on the range: the analyst's loss at *every* e^ε of [from, to] and the stretches where it rises,
  with exact ends (:func:`~qifkit.stability.loss_on_range`), which answers the spec's analyst;
  for every analyst a range needs a proof (:func:`every_analyst_on_range`: counts and
  histograms, at any number of respondents), else refinement is certified at the grid's points
  only, and a range without a rise gives ``stable = null`` and says so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import signal
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from proofs_checks.claims import jsonable
from qifkit.ball_range import count_loss_on_range, sum_loss_on_range
from qifkit.channel import Channel
from qifkit.errors import QifError, TimeLimitReached, UndecidableError
from qifkit.expressions import parse_rational_function
from qifkit.files import read_input_text, read_table_csv
from qifkit.generator import generator_proof_defect, generator_refinement_on_range
from qifkit.measures import (
    Loss,
    Prior,
    argmax_accuracy,
    bayes_risk,
    linear_error,
    posterior_uncertainty,
    squared_error,
    uniform_prior,
)
from qifkit.mechanisms import (
    explicit_fair_mechanism,
    exponential_mechanism,
    randomized_response,
    truncated_geometric,
    uniform_mechanism,
)
from qifkit.numbers import exact, exact_eps_exp, exact_str, parse_eps_exp, parse_number, quoted, reduced_fraction
from qifkit.pipelines import (
    POPULATION,
    argmax_pipeline,
    count_pipeline,
    count_uncertainty,
    count_witness,
    histogram_pipeline,
    histogram_prior_weights,
    histograms,
    sum_pipeline,
    with_population_row,
)
from qifkit.postprocess import deterministic
from qifkit.real_roots import RealPoint, rational_between
from qifkit.refinement import MAX_WITNESS_ENTRIES, Refinement
from qifkit.stability import (
    DICHOTOMY_WEIGHTS,
    count_refinement_on_range,
    dichotomy_rises,
    dichotomy_risks,
    loss_curve,
    loss_on_range,
    pipeline_refinement,
    range_proof_defect,
    sample_grid,
    search_rises,
)
from qifkit.validation import bounded_eps_exp, whole_number

__all__ = ["SpecError", "StabilitySpec", "Certified", "read_spec", "parse_spec", "evaluate_spec",
           "describe_work", "range_proof_problem", "sampled_losses", "secret_labels", "report_document", "exact_text",
           "MAX_ROWS", "MAX_ENTRIES",
           "MAX_PERTURBER", "RANGE_MAX_ENTRIES", "RANGE_SAMPLES", "RANGE_FOLLOW_WORK"]

#: The largest secret space (rows) a spec may ask for.
MAX_ROWS = 10**6
#: The largest pipeline (secrets × outputs) a spec may ask for: about 10^7 exact entries.
MAX_ENTRIES = 10**7
#: The largest perturber side (values, or respondents + 1 for argmax): an exact square matrix.
MAX_PERTURBER = 1000
#: The most values of an expression perturber: its privacy on a range is values²·(values − 1) sign proofs.
MAX_EXPRESSION_VALUES = 20
#: The largest pipeline (secrets × outputs) whose analyst is followed over a [sweep] range: that
#: builds it with entries that are rational functions of e^ε, whose cost grows with the entries and
#: their degree (App. D.1's 7 × 5 is quick; the survey's 286 × 31 is not, ``bench_stability.py``).
#: Larger ones are sampled in floats and each rise seen is re-decided exactly at its ends
#: (:data:`RANGE_SAMPLES` points), unless every analyst is proved safe anyway.
RANGE_MAX_ENTRIES = 2000
#: The longest polynomial a histogram query is worked out on (N·(N+1)^(K−1) + 1 terms for N
#: respondents over K values, :func:`qifkit.pipelines.histogram_pipeline`).
HISTOGRAM_MAX_LENGTH = 200_000
#: How many e^ε of a range a pipeline beyond :data:`RANGE_MAX_ENTRIES` (or
#: :data:`RANGE_FOLLOW_WORK`) is sampled at, in float64.
RANGE_SAMPLES = 200
#: The most symbolic work (pipeline entries × degree² in e^ε, the estimate :func:`describe_work`
#: prints) on which a range's analyst is followed exactly straight away. Root isolation grows with
#: the cube of the degree, so beyond it the loss is first searched in float64 and a rise that exact
#: losses confirm decides the verdict (NOT stable) at once; when none is confirmed, ball arithmetic
#: (:data:`BALL_QUERIES`) and then, where pieces remain undecided, the exact route (within
#: :data:`RANGE_MAX_ENTRIES`) follow the analyst at every e^ε. A choice by the spec's size, never by
#: the clock.
RANGE_FOLLOW_WORK = 4_000_000
#: The queries a ball-arithmetic route decides on a range (tallies of the reports:
#: :mod:`qifkit.ball_range`), tried after the float search and before root isolation ...
BALL_QUERIES = ("count", "threshold", "map", "sum")
#: ... within this much work (:func:`_ball_range`): enclosures × their cost, the tallies' length ×
#: (values + secrets + actions), about 12 µs a unit here (30 respondents over 10 values: 620 a
#: piece, 8 ms); a choice by size, never by the clock ...
BALL_WORK = 4_000_000
#: ... and not tried where that allows fewer enclosures than this (census scale: 10^5 a piece).
BALL_MIN_PIECES = 200
#: How many undecided stretches of the ball route the report lists.
SHOWN_STRETCHES = 5
#: The largest pipelines (secrets × outputs) an instability's certificate carries, for
#: ``qifkit verify``; beyond it (census scale: 6 × 11,711 entries of tens of thousands of digits)
#: the report keeps the prior, loss and exact losses, and says that the pipelines were not formed.
MAX_CERTIFIED_ENTRIES = 20_000
#: A range that no proof covers is searched for a two-secret analyst whose loss rises (every pair of
#: at most this many secrets; :func:`qifkit.stability.dichotomy_risks`) ...
DICHOTOMY_MAX_SECRETS = 10
#: ... and the largest rises of this many pairs are re-decided exactly.
DICHOTOMY_CONFIRMATIONS = 3
_KEYS = {
    "perturber": {"family", "values", "files", "matrix", "quality", "sensitivity", "before"},
    "population": {"respondents", "known", "known_counts", "targets", "population_prior"},
    "query": {"kind", "of", "at", "table"},
    "analyst": {"prior", "loss", "scale"},
    "sweep": {"eps_exp", "from", "to", "exact"},
    "gate": {"question", "tolerance"},
}
_FAMILIES: dict[str, Callable[[int, Any], Channel]] = {
    "geometric": truncated_geometric,  # also Cormode et al.'s GM on counts 0..values-1
    "randomized_response": randomized_response,
    # Cormode et al.'s explicit fair mechanism EM on the values 0..values-1 (their n = values - 1)
    "explicit_fair": lambda values, eps_exp: explicit_fair_mechanism(values - 1, eps_exp=eps_exp),
    # Cormode et al.'s uniform mechanism UM (Def. 5): the same at every e^ε, the baseline of no utility
    "uniform": lambda values, eps_exp: uniform_mechanism(values - 1),
}


class SpecError(QifError, ValueError):
    """A stability spec names an unknown key or value, or asks for something impossible."""


@dataclass(frozen=True)
class PerturberFamily:
    """A perturber family built from :mod:`polytopes` when the spec is read, at the grid's e^ε
    (:data:`_POLYTOPE_FAMILIES`: Kohli and Laskowski's fixed-point mechanisms, Cormode et al.'s WM).

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
        rows = heuristic_constructor(z, eps_exp, selector).matrix
        assert rows is not None  # the exact mode always has the matrix
        return Channel.from_rows([list(row) for row in rows])

    for eps_exp in grid:
        build(eps_exp)
    return build


def _weakly_honest_perturber(table: dict[str, Any], values: int, grid: tuple[Fraction, ...]
                             ) -> Callable[[Any], Channel]:
    """``family = "weakly_honest"``: Cormode et al.'s WM on the values 0..values-1 at α = 1/e^ε
    (:func:`polytopes.constrained.weakly_honest_mechanism`), an exact certified LP optimum at each
    e^ε of the grid, built when the spec is read. The optimum is not unique; the LP engine's choice
    is deterministic, and another optimal WM may give another stability verdict."""
    from polytopes.constrained import weakly_honest_mechanism

    def build(eps_exp: Any) -> Channel:
        return weakly_honest_mechanism(values - 1, 1 / exact(eps_exp))

    for eps_exp in grid:
        build(eps_exp)
    return build


#: The perturber families of :mod:`polytopes`, built at the grid's e^ε when the spec is read.
_POLYTOPE_FAMILIES = {
    "fixed_point": PerturberFamily(frozenset({"z", "selector"}), _fixed_point_perturber,
                                   "Kohli and Laskowski's Algorithm 1 with fixed point z"),
    "weakly_honest": PerturberFamily(frozenset(), _weakly_honest_perturber,
                                     "Cormode et al.'s weakly honest mechanism WM"),
}


@dataclass(frozen=True)
class StabilitySpec:
    """A validated stability spec (see the module docstring)."""

    family: str
    values: int
    respondents: int
    known: tuple[int, ...]
    query: str
    counted: tuple[int, ...]
    prior: Any
    loss: str
    scale: Fraction
    eps_exp: tuple[Fraction, ...]
    exact: bool
    eps_range: tuple[Fraction, Fraction] | None = None
    files: tuple[tuple[Fraction, str], ...] = ()  # family "file": (e^ε, path of its perturber's CSV)
    matrix: str | None = None  # family "expression": the CSV of its entries as rational functions of t = e^ε
    at: int = 0  # a threshold query releases whether the count is at least `at`
    quality: str | None = None  # family "exponential": the CSV of its quality Q(value, report)
    sensitivity: Fraction = Fraction(1)  # family "exponential": the sensitivity s of Q
    table: tuple[str, ...] = ()  # a map query: the label released for each count 0..respondents
    before: tuple[int, ...] = ()  # a pre-processor: the perturber's input for each value 0..values-1
    # a family of polytopes (PerturberFamily): its build(e^ε), made when the spec was read
    built: Callable[[Any], Channel] | None = dataclasses.field(default=None, compare=False, repr=False)
    inputs: tuple[str, ...] = ()  # every file the spec names (perturbers, quality, pre-processor, map, prior, loss)
    question: str = "analyst"  # whose stability gates the release: "analyst" (the spec's) or "every_analyst"
    tolerance: Fraction = Fraction(0)  # the largest rise of the spec's analyst's loss that still passes
    # why the pipeline cannot be built (beyond the size limits), for a range that a proof may still settle
    oversize: str | None = None
    # the population model: each of `others` unknown respondents who are not the secret holds a value drawn
    # from `population` (one probability per value); None: every unknown respondent is the secret
    population: tuple[Fraction, ...] | None = None
    others: int = 0

    @functools.cached_property
    def perturber(self) -> Callable[[int, Any], Channel]:
        """The perturber at (values, e^ε), built once per spec: a named family, the file given for
        that e^ε, the expression or exponential perturber (their CSV read once), after the
        pre-processor when there is one (:func:`_family`)."""
        return _family(self)

    @functools.cached_property
    def analyst(self) -> tuple[Prior, Loss]:
        """The spec's prior and loss on its secrets, exact and scaled, built once per spec (a prior or
        loss CSV is read once; :func:`_exact_analyst`)."""
        return _exact_analyst(self, secret_labels(self))


@dataclass(frozen=True)
class Certified:
    """A checked refinement verdict between two pipelines of the spec, for ``qifkit verify``:
    `less_private` (at e^ε = `eps_exp_high`) ⊑ `more_private` (at `eps_exp_low`) holds with a
    witness, or fails with a prior, loss and gap."""

    name: str
    eps_exp_low: Fraction
    eps_exp_high: Fraction
    less_private: Channel
    more_private: Channel
    certificate: Refinement


def read_spec(path: str) -> StabilitySpec:
    """Read and validate a TOML spec file (a perturber's files are found beside it)."""
    text = read_input_text(path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path} is not valid TOML: {error}") from None
    except RecursionError:
        raise SpecError(f"{path}: nested too deep to read") from None
    return parse_spec(document, Path(path).parent)


def _check_private(channel: Channel, eps_exp: Fraction, what: str) -> None:
    """Refuse a user's perturber that is not e^ε-locally-private at its e^ε, naming its tightest e^ε
    (networkx, which the privacy check uses, is loaded only for the user's own perturbers)."""
    from qifkit.privacy import tightest_eps_exp

    tightest = tightest_eps_exp(channel).eps_exp  # local DP: every two values adjacent
    if tightest > eps_exp:
        raise SpecError(f"{what} is not {exact_str(eps_exp)}-locally-private: its tightest e^ε is "
                        f"{tightest if tightest == math.inf else exact_str(tightest)}")


def _perturber_files(files: Any, family: str, values: int, grid: tuple[Fraction, ...], eps_range: Any, query: Any,
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
    if query == "argmax":
        raise SpecError("a file perturber perturbs the values; argmax perturbs bar heights: use count or sum")
    if not isinstance(files, dict) or not files:
        raise SpecError('[perturber] files must map each e^ε of the grid to a CSV, e.g. files = {"2" = "p2.csv"}')
    by_value: dict[Fraction, tuple[str, Any]] = {}
    for key, path in files.items():
        value = _eps_exp(key, "[perturber] files key")
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


def _perturber_matrix(matrix: Any, family: str, values: int, grid: tuple[Fraction, ...],
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
    if query == "argmax":
        raise SpecError("an expression perturber perturbs the values; argmax perturbs bar heights: use count or sum")
    if values > MAX_EXPRESSION_VALUES:
        raise SpecError(f"an expression perturber on {values} values needs {values ** 2 * (values - 1):,} exact sign "
                        f"proofs on a range; the limit is {MAX_EXPRESSION_VALUES} values")
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


def _spec_table(path: str, what: str) -> tuple[list[list[str]], list[str] | None, list[str] | None]:
    """A CSV table a spec names (a loss, a quality, a prior), read by :func:`qifkit.files.read_table_csv`;
    an unreadable or malformed file is a :class:`SpecError` naming it."""
    try:
        return read_table_csv(path)
    except OSError as error:
        raise SpecError(f"cannot read the {what} {path}: {error.strerror}") from None
    except QifError as error:
        raise SpecError(str(error)) from None


def _loss_table(path: str, values: int) -> Loss:
    """An analyst's loss from a CSV: one row per value 0..values-1 of the unknown respondent, one
    column per action (a header of action names, and a first column 0..values-1, are optional)."""
    table, rows, actions = _spec_table(path, "loss")
    if len(table) != values:
        raise SpecError(f"the loss {path} has {len(table)} rows; the unknown respondent has {values} values")
    if rows is not None and rows != [str(value) for value in range(values)]:
        raise SpecError(
            f"the loss {path} labels its rows {rows[:4]}...; they must be the values 0..{values - 1} in order"
        )
    try:
        return Loss.from_rows(table, range(values), actions)
    except QifError as error:
        raise SpecError(f"the loss {path}: {error}") from None


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


def _family(spec: StabilitySpec) -> Callable[[int, Any], Channel]:
    """The spec's perturber at a value of e^ε: a named family, the file given for that e^ε, or the
    expression perturber at that e^ε; after the pre-processor when the spec has one (a named
    family on the pre-processor's inputs, composed: D·C, Alvim et al.'s pre-processing)."""
    if spec.before:
        inputs = max(spec.before) + 1
        before = deterministic(lambda value: spec.before[value], range(spec.values), range(inputs))
        named = _FAMILIES[spec.family]
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
        quality = _quality_rows(spec.quality, spec.values)
        return lambda values, eps_exp: exponential_mechanism(quality, eps_exp, spec.sensitivity)
    if spec.family != "file":
        return _FAMILIES[spec.family]
    paths = dict(spec.files)
    return lambda values, eps_exp: _file_channel(paths[exact_eps_exp(eps_exp)], values)


def _exponential_quality(quality: Any, sensitivity: Any, family: str, values: int, grid: tuple[Fraction, ...],
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
    if query == "argmax":
        raise SpecError("an exponential perturber perturbs the values; argmax perturbs bar heights: use count or sum")
    scale = _number(1 if sensitivity is None else sensitivity, "[perturber] sensitivity")
    if scale <= 0:
        raise SpecError(f"[perturber] sensitivity must be positive, got {scale}")
    path = str(folder / quality)
    rows = _quality_rows(path, values)
    for key in grid:
        try:
            exponential_mechanism(rows, key, scale)
        except QifError as error:
            raise SpecError(f"the exponential perturber at e^ε = {exact_str(key)}: {error}") from None
    return path, scale


def _quality_rows(path: str, values: int) -> list[list[Fraction]]:
    table, _, _ = _spec_table(path, "quality")
    if len(table) != values or any(len(row) != values for row in table):
        raise SpecError(f"the quality {path} must be {values} × {values} (values = {values}), not "
                        f"{len(table)} × {len(table[0])}")
    return [[_number(cell, f"the quality {path}, row {i + 1}") for cell in row] for i, row in enumerate(table)]


def _prior_file(path: str, secrets: int) -> list[str]:
    """An analyst's prior from a CSV: one probability per secret (a column, or a row), in the order of
    the secrets (the values 0..values-1 of the one unknown respondent, or the histograms of the
    unknown respondents as ``qifkit.pipelines.histograms`` lists them)."""
    table, _, _ = _spec_table(path, "prior")
    cells = [row[0] for row in table] if all(len(row) == 1 for row in table) else table[0] if len(table) == 1 else None
    if cells is None:
        raise SpecError(f"the prior {path} must be one column (or one row) of probabilities")
    if len(cells) != secrets:
        raise SpecError(f"the prior {path} has {len(cells)} entries for {secrets} secrets")
    return cells


def _pre_processor(before: Any, family: str, values: int, query: Any, counted: list[Any],
                   folder: Path) -> tuple[int, ...]:
    """``[perturber] before = "coarsen.csv"``: a deterministic pre-processor, rows ``value,input`` for
    every value 0..values-1, mapping each respondent's value onto the inputs 0..K-1 of a named
    family built on K values (every input used): e.g. merging rare categories before randomized
    response. Counted values (``of``) are then the perturber's outputs 0..K-1."""
    if before is None:
        return ()
    if family not in _FAMILIES:
        raise SpecError(f"[perturber] before goes with a named family ({', '.join(sorted(_FAMILIES))}), not "
                        f"{quoted(family)}: give your own perturber its pre-processing directly")
    if query == "argmax":
        raise SpecError("[perturber] before pre-processes the values; argmax perturbs bar heights: use count or sum")
    if not isinstance(before, str):
        raise SpecError('[perturber] before must name a CSV of value,input rows, e.g. before = "coarsen.csv"')
    path = str(folder / before)
    rows = _pairs_csv(path, "pre-processor", values)
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


def _pairs_csv(path: str, what: str, count: int) -> list[str]:
    """The second cells of a CSV of ``key,value`` rows whose keys are 0..count-1, each once, in any
    order (a map of the count, a pre-processor of the values), read without any evaluation."""
    try:
        lines = [line.strip() for line in read_input_text(path).splitlines() if line.strip()]
    except OSError as error:
        raise SpecError(f"cannot read the {what} {path}: {error.strerror}") from None
    found: dict[int, str] = {}
    for number, line in enumerate(lines, start=1):
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != 2 or not (cells[0].isascii() and cells[0].isdigit()) or not cells[1]:
            raise SpecError(f"{path}, line {number}: {quoted(line)} is not a row key,value")
        key = int(cells[0])
        if key in found:
            raise SpecError(f"{path}, line {number}: {key} is mapped twice")
        found[key] = cells[1]
    missing = [key for key in range(count) if key not in found]
    if missing or len(found) != count:
        raise SpecError(f"{path} must map every one of 0..{count - 1} once"
                        + (f"; {missing[0]} is missing" if missing else f"; it maps {max(found)}"))
    return [found[key] for key in range(count)]


def _map_table(table: Any, query: Any, respondents: int, folder: Path) -> tuple[str, ...]:
    """A map query: the count of the counted values, post-processed by the user's table, a CSV of
    rows ``count,label`` for every count 0..respondents (a deterministic map, Alvim et al. Def. 13;
    its labels are the releases, in the order they first appear)."""
    if query != "map":
        if table is not None:
            raise SpecError(f"[query] table is for a map query, not {quoted(query)}")
        return ()
    if not isinstance(table, str):
        raise SpecError('[query] table must name a CSV of count,label rows, e.g. table = "bands.csv"')
    return tuple(_pairs_csv(str(folder / table), "map", respondents + 1))


def _expanded_counts(counts: Any, values: int, respondents: int) -> list[int]:
    """``known_counts = {"0" = 5000, "1" = 6709}`` (how many known respondents hold each value; for
    census-sized populations) as the list of known values it stands for; the counts are checked
    against the respondents before any list is made."""
    if not isinstance(counts, dict):
        raise SpecError('[population] known_counts must be a table of value = count, e.g. {"0" = 5000, "1" = 6709}')
    checked: dict[int, int] = {}
    for key, count in counts.items():
        if not (key.isascii() and key.isdigit()) or not 0 <= int(key) < values:
            raise SpecError(f"[population] known_counts: {quoted(key)} is not a value 0..{values - 1}")
        if int(key) in checked:
            raise SpecError(f"[population] known_counts gives the value {int(key)} twice (as {quoted(key)} too)")
        checked[int(key)] = _whole(count, f"[population] known_counts {quoted(key)}", 0)
    if sum(checked.values()) > respondents - 1:
        raise SpecError(f"known_counts add up to {sum(checked.values()):,} but respondents − 1 = {respondents - 1:,}: "
                        "one must stay unknown")
    return sorted(value for value, count in checked.items() for _ in range(count))


def _whole(value: Any, name: str, minimum: int, maximum: int | None = None) -> int:
    return whole_number(value, minimum, name, maximum=maximum, error=SpecError)


def parse_spec(document: dict[str, Any], folder: Path | None = None) -> StabilitySpec:
    """Validate a spec given as parsed TOML; every refusal names the key and the reason. A file
    perturber's paths are relative to `folder` (the spec's folder; default the working folder)."""
    unknown_tables = set(document) - set(_KEYS)
    if unknown_tables:
        raise SpecError(f"unknown table [{sorted(unknown_tables)[0]}]; the tables are {', '.join(sorted(_KEYS))}")
    for table in _KEYS:
        if not isinstance(document.get(table, {}), dict):
            raise SpecError(f"[{table}] must be a table")
    family = document.get("perturber", {}).get("family")
    table_family = _POLYTOPE_FAMILIES.get(family) if isinstance(family, str) else None
    if family not in _FAMILIES and family not in ("file", "expression", "exponential") and table_family is None:
        raise SpecError(f"unknown perturber family {quoted(family)}; use one of "
                        f"{', '.join(sorted([*_FAMILIES, *_POLYTOPE_FAMILIES]))}, exponential, expression or file")
    family = str(family)
    keys = {**_KEYS, "perturber": _KEYS["perturber"] | (table_family.keys if table_family else frozenset())}
    for table, allowed in keys.items():
        extra = set(document.get(table, {})) - allowed
        if extra:
            raise SpecError(
                f"unknown key {quoted(sorted(extra)[0])} in [{table}]; allowed: {', '.join(sorted(allowed))}"
            )

    def get(table, key, default=None):
        return document.get(table, {}).get(key, default)

    values = _whole(get("perturber", "values"), "[perturber] values", 2)
    respondents = _whole(get("population", "respondents"), "[population] respondents", 1)
    known = get("population", "known", [])
    if not isinstance(known, list):
        raise SpecError("[population] known must be a list of values")
    known_counts = get("population", "known_counts")
    if known_counts is not None:
        if known:
            raise SpecError("[population] give the known respondents as known = [...] or as known_counts, not both")
        known = _expanded_counts(known_counts, values, respondents)
    for value in known:
        _whole(value, "[population] known value", 0, values - 1)
    if len(known) > respondents - 1:
        raise SpecError(
            f"known lists {len(known)} values but respondents − 1 = {respondents - 1}: one must stay unknown"
        )
    population, others = _population_model(get("population", "population_prior"), get("population", "targets"),
                                           values, respondents - len(known))
    targets = respondents - len(known) - others
    query = get("query", "kind")
    if query not in ("count", "threshold", "map", "sum", "histogram", "argmax"):
        raise SpecError(f"unknown query kind {quoted(query)}; use count, threshold, map, sum, histogram or argmax")
    counted = get("query", "of", [])
    at = get("query", "at")
    if query == "threshold":
        at = _whole(at, "[query] at (a threshold query releases count >= at)", 1)
        if at > respondents:
            raise SpecError(f"[query] at = {at} is more than the {respondents} respondents: the release would be "
                            "constant")
    elif at is not None:
        raise SpecError(f"[query] at is for a threshold query, not {quoted(query)}")
    released = _map_table(get("query", "table"), query, respondents, folder or Path("."))
    if query in ("count", "threshold", "map"):
        if not isinstance(counted, list) or not counted:
            raise SpecError("[query] of must list the values a count query counts")
        for value in counted:
            _whole(value, "[query] of: a counted value", 0, values - 1)
    if query == "argmax" and (known or population):
        raise SpecError("an argmax query has histograms of all respondents as secrets: [population] known, targets and "
                        "population_prior are not allowed")
    loss = get("analyst", "loss", "bayes")
    if isinstance(loss, str) and loss.endswith(".csv"):
        if query == "argmax" or targets != 1:
            raise SpecError("a loss from a file has one row per value of the one unknown respondent: list the other "
                            "respondents as known (or use a named loss)")
        loss = str((folder or Path(".")) / loss)
    elif loss not in ("bayes", "linear", "squared", "ama"):
        raise SpecError(f"unknown loss {quoted(loss)}; use bayes, linear, squared, ama or a CSV file (loss.csv)")
    if loss == "ama" and query != "argmax":
        raise SpecError("the ama loss needs the argmax query (its actions are categories)")
    if query == "argmax" and loss not in ("ama", "bayes"):
        raise SpecError(f"an argmax query has histograms as secrets: use the ama or bayes loss, not {loss}")
    if loss in ("linear", "squared") and (query == "argmax" or targets != 1):
        raise SpecError(f"the {loss} loss needs one unknown respondent (a numeric secret); use bayes, or list more "
                        "known values")
    scale = _number(get("analyst", "scale", 1), "[analyst] scale")
    if scale <= 0:
        raise SpecError(f"[analyst] scale must be positive, got {scale}")
    histogram_secrets = query == "argmax" or targets > 1
    prior = get("analyst", "prior", "uniform_histograms" if histogram_secrets else "uniform")
    if isinstance(prior, str) and prior.endswith(".csv"):
        prior = str((folder or Path(".")) / prior)
    elif prior == "uniform" and histogram_secrets:
        raise SpecError('[analyst] prior = "uniform" could mean two priors when the secrets are histograms: '
                        '"uniform_histograms" (every histogram of the unknown respondents equally likely) or '
                        '"uniform_tuples" (every tuple of their values equally likely, so a histogram weighs as '
                        'many tuples as it has orderings); name one')
    elif not (prior in ("uniform", "uniform_histograms", "uniform_tuples") or isinstance(prior, list)):
        raise SpecError(f"[analyst] prior must be 'uniform' (one unknown respondent), 'uniform_histograms', "
                        f"'uniform_tuples', a list or a CSV file (prior.csv), got {quoted(prior)}")
    question, tolerance = _gate(document.get("gate", {}), "analyst" in document)
    eps_list = _grid(get("sweep", "eps_exp", []))
    ends = [get("sweep", key) for key in ("from", "to")]
    if (ends[0] is None) != (ends[1] is None):
        raise SpecError("[sweep] a range needs both from and to")
    eps_range = None
    if ends[0] is not None:
        low, high = (_eps_exp(v, f"[sweep] {key}") for v, key in zip(ends, ("from", "to"), strict=True))
        if not low < high:
            raise SpecError(f"[sweep] from = {quoted(ends[0])} must be below to = {quoted(ends[1])}")
        eps_range = (low, high)
    if not eps_list and eps_range is None:
        raise SpecError("[sweep] needs eps_exp = [...] (a grid of e^ε values) or from = ... and to = ... (a range)")
    exact_flag = get("sweep", "exact", True)
    if not isinstance(exact_flag, bool):
        raise SpecError("[sweep] exact must be true or false")
    if eps_range is not None and not exact_flag:
        raise SpecError("[sweep] a range (from, to) is decided exactly: remove exact = false, or use a grid")
    files = _perturber_files(get("perturber", "files"), family, values, eps_list, eps_range, query, folder or Path("."))
    matrix = _perturber_matrix(get("perturber", "matrix"), family, values, eps_list, eps_range, query,
                               folder or Path("."))
    before = _pre_processor(get("perturber", "before"), family, values, query, counted, folder or Path("."))
    quality, sensitivity = _exponential_quality(get("perturber", "quality"), get("perturber", "sensitivity"),
                                                family, values, eps_list, eps_range, query, folder or Path("."))
    built = None
    if table_family is not None:
        if eps_range is not None:
            raise SpecError(f"a {family} perturber ({table_family.description}) is built at the grid's e^ε only: "
                            "use eps_exp = [...], not from/to")
        if query == "argmax":
            raise SpecError(f"a {family} perturber perturbs the values; argmax perturbs bar heights: use count or sum")
        try:
            built = table_family.make(document["perturber"], values, eps_list)
        except SpecError:
            raise
        except QifError as error:
            raise SpecError(f"[perturber] {family}: {error}") from None
    spec = StabilitySpec(family, values, respondents, tuple(known), query, tuple(counted), prior, loss, scale,
                         eps_list, exact_flag, eps_range, files,
                         matrix, at or 0, quality, sensitivity, released, before, built,
                         _named_files(document, folder or Path("."), files, matrix, quality,
                                      *(p for p in (prior, loss) if isinstance(p, str) and p.endswith(".csv"))),
                         question, tolerance, None, population, others)
    side = respondents + 1 if query == "argmax" else values
    if side > MAX_PERTURBER:
        raise SpecError(f"the perturber would be a {side:,} × {side:,} exact matrix; the limit is {MAX_PERTURBER:,} "
                        "(fewer values" + (", fewer respondents" if query == "argmax" else "") + ")")
    oversize = _oversize(spec)
    if oversize is not None:
        if eps_range is None or eps_list or query not in ("count", "histogram") or not exact_flag:
            raise SpecError(oversize + (
                "; a range (from, to) without a grid may still be proved for every analyst at any size"
                if query in ("count", "histogram") else ""))
        return dataclasses.replace(spec, oversize=oversize)
    outputs = _output_count(spec)
    if exact_flag and len(eps_list) >= 2 and outputs ** 2 > MAX_WITNESS_ENTRIES:
        raise SpecError(f"the pipelines have {outputs:,} outputs: certifying one against another needs an exact "
                        f"{outputs:,} × {outputs:,} witness, more than the {MAX_WITNESS_ENTRIES:,} entries refinement "
                        "takes; set exact = false for the float curve, or use fewer respondents")
    if len(eps_list) == 1 and eps_range is None:
        raise SpecError(f"[sweep] eps_exp = [\"{exact_str(eps_list[0])}\"] is one e^ε: stability compares pipelines at "
                        "two or more, so one point decides nothing; give a second e^ε, or a range (from, to)")
    if any(isinstance(p, str) and p.endswith(".csv") for p in (prior, loss)):
        spec.analyst  # noqa: B018 - prior and loss files read now, once: a bad one is refused before any work
    return spec


def _gate(table: dict[str, Any], names_analyst: bool) -> tuple[str, Fraction]:
    """The ``[gate]`` table: whose stability gates the release, and the rise that still passes.

    ``question = "analyst"`` (the default when the spec has an ``[analyst]`` table: a deployer who
    names the adversary's prior and loss asks about that adversary, and it is the question that
    census-sized pipelines can answer) or ``"every_analyst"`` (refinement: the default without
    one). ``tolerance`` (default 0, exact) is absolute, in the units of the spec's analyst's
    expected loss (after ``scale``): the largest total rise of that loss as e^ε grows that still
    passes as "stable within tolerance"; it needs the analyst's question (a refinement's gap is in
    the units of whatever loss refutes it)."""
    question = table.get("question", "analyst" if names_analyst else "every_analyst")
    if question not in ("analyst", "every_analyst"):
        raise SpecError(f"[gate] question must be \"analyst\" (the spec's analyst) or \"every_analyst\", got "
                        f"{quoted(question)}")
    tolerance = _number(table.get("tolerance", 0), "[gate] tolerance")
    if tolerance < 0:
        raise SpecError(f"[gate] tolerance must be at least 0, got {exact_str(tolerance)}")
    if tolerance and question != "analyst":
        raise SpecError("[gate] tolerance is a rise of the spec's analyst's loss: it needs question = \"analyst\"")
    return question, tolerance


def _oversize(spec: StabilitySpec) -> str | None:
    """Why the spec's pipeline is too large to build (secrets, entries, or a histogram's generating
    polynomials beyond the limits), or None."""
    rows, respondents, values = _secret_count(spec), spec.respondents, spec.values
    if spec.query == "histogram" and respondents * (respondents + 1) ** (values - 1) + 1 > HISTOGRAM_MAX_LENGTH:
        return (f"a histogram query of {respondents:,} respondents over {values} values is worked out on "
                f"polynomials of {respondents * (respondents + 1) ** (values - 1) + 1:,} terms; the limit is "
                f"{HISTOGRAM_MAX_LENGTH:,} (fewer respondents or values, or a count query)")
    if rows > MAX_ROWS:
        unknown = respondents if spec.query == "argmax" else _targets(spec)
        return (f"the secrets are more than {MAX_ROWS:,} histograms of {unknown:,} unknown respondents over "
                f"{values:,} values (the limit); list more respondents as known, or use fewer values")
    if rows * _output_count(spec) > MAX_ENTRIES:
        return (f"the pipeline would have {rows:,} secrets × {_output_count(spec):,} outputs, more than "
                f"{MAX_ENTRIES:,} exact entries: list more respondents as known, or use fewer respondents")
    return None


def _named_files(document: dict[str, Any], folder: Path, files: tuple[tuple[str, str], ...], *paths: Any
                 ) -> tuple[str, ...]:
    """The files a spec names, as read: its perturbers' CSVs, the other files it was given as `paths`
    (expression matrix, quality, prior and loss files; None where it has none), pre-processor and map."""
    named = [path for _, path in files] + [path for path in paths if isinstance(path, str)]
    named += [str(folder / document[table][key]) for table, key in (("perturber", "before"), ("query", "table"))
              if isinstance(document.get(table, {}).get(key), str)]
    return tuple(named)


def _eps_exp(value: Any, name: str) -> Fraction:
    """An e^ε of the spec (:func:`qifkit.validation.bounded_eps_exp`: > 1, bounded in digits and size)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise SpecError(f"{name} = {quoted(value)}: give e^ε as a string such as \"7/2\" or an integer")
    try:
        return bounded_eps_exp(value if isinstance(value, str) else str(value))
    except QifError as error:
        raise SpecError(f"{name} {quoted(value)}: {error}") from None


def _grid(values: Any) -> tuple[Fraction, ...]:
    """The grid of e^ε, a set: a value given twice, in any spelling (``"35/10"`` and ``"3.5"``,
    ``"ln(2)"`` and ``"2"``), is refused, since it would compare a pipeline with itself."""
    if not isinstance(values, list):
        raise SpecError("[sweep] eps_exp must be a list of e^ε values")
    seen: dict[Fraction, Any] = {}
    for value in values:
        number = _eps_exp(value, "[sweep] eps_exp value")
        if number in seen:
            raise SpecError(f"[sweep] eps_exp gives e^ε = {exact_str(number)} twice ({quoted(seen[number])} and "
                            f"{quoted(value)}): a grid is a set of values")
        seen[number] = value
    return tuple(seen)


#: The longest number string of a spec (a prior's entry, a scale, a sensitivity), checked before it
#: is read: exact work on a 90,000-digit prior would run for minutes for nothing.
MAX_SPEC_NUMBER_TEXT = 1000


def _number(value: Any, name: str) -> Fraction:
    if isinstance(value, bool) or isinstance(value, float):
        raise SpecError(f"{name} = {quoted(value)}: give exact numbers as integers or strings such as \"0.1\"")
    if isinstance(value, str) and len(value) > MAX_SPEC_NUMBER_TEXT:
        raise SpecError(f"{name} is a number string of {len(value):,} characters; a spec's numbers have at most "
                        f"{MAX_SPEC_NUMBER_TEXT:,}")
    try:
        return parse_number(value) if isinstance(value, str) else Fraction(int(value))
    except (QifError, TypeError, ValueError) as error:
        raise SpecError(f"{name} = {quoted(value)}: {error}") from None


def _bounded_comb(total: int, chosen: int, limit: int) -> int:
    """C(total, chosen), or limit + 1 once it is known to exceed `limit` (without computing a
    number of a billion digits for a spec that asks for one)."""
    chosen = min(chosen, total - chosen)
    value = 1
    for i in range(chosen):
        value = value * (total - i) // (i + 1)
        if value > limit:
            return limit + 1
    return value


def _population_model(prior: Any, targets: Any, values: int, unknown: int) -> tuple[tuple[Fraction, ...] | None, int]:
    """``[population] population_prior`` and ``targets``: the population prior of the unknown
    respondents who are not the secret, and how many of them there are (the unknown respondents
    but the targets, 1 by default). Without a population prior every unknown respondent is the
    secret, and ``targets`` is not needed."""
    if prior is None:
        if targets is not None:
            raise SpecError("[population] targets needs population_prior: the prior of the other unknown respondents' "
                            "values")
        return None, 0
    if not isinstance(prior, list) or len(prior) != values:
        raise SpecError(f"[population] population_prior must list {values} probabilities, one per value")
    weights = tuple(_number(p, "[population] population_prior entry") for p in prior)
    if any(w < 0 for w in weights) or sum(weights) != 1:
        raise SpecError(f"[population] population_prior must be a distribution (entries ≥ 0 summing to 1), got "
                        f"{[exact_str(w) for w in weights]}")
    count = _whole(1 if targets is None else targets, "[population] targets", 1, unknown)
    return weights, unknown - count


def _targets(spec: StabilitySpec) -> int:
    """How many unknown respondents are the secret (the rest follow the population prior)."""
    return spec.respondents - len(spec.known) - spec.others


def _with_population(spec: StabilitySpec, perturber: Channel) -> tuple[Channel, tuple[Any, ...], Any]:
    """The perturber, the known respondents and the values the secret respondents hold, as the
    pipelines of :mod:`qifkit.pipelines` take them: with a population model the perturber gets the
    population's mixture row (:func:`qifkit.pipelines.with_population_row`) and each other unknown
    respondent is listed as known to hold it."""
    if spec.population is None:
        return perturber, spec.known, None
    return (with_population_row(perturber, spec.population), spec.known + (POPULATION,) * spec.others,
            perturber.secrets)


def _secret_count(spec: StabilitySpec) -> int:
    """The number of secrets (histograms of the unknown respondents), capped at MAX_ROWS + 1."""
    if spec.query == "argmax":
        return _bounded_comb(spec.respondents + spec.values - 1, spec.values - 1, MAX_ROWS)
    unknown = _targets(spec)
    return spec.values if unknown == 1 else _bounded_comb(unknown + spec.values - 1, spec.values - 1, MAX_ROWS)


def _output_count(spec: StabilitySpec) -> int:
    if spec.query == "threshold":
        return 2
    if spec.query == "map":
        return len(set(spec.table))
    if spec.query == "count":
        return spec.respondents + 1
    if spec.query == "sum":
        return (spec.values - 1) * spec.respondents + 1
    if spec.query == "histogram":
        return _bounded_comb(spec.respondents + spec.values - 1, spec.values - 1, MAX_ROWS)
    return spec.values


def _release(spec: StabilitySpec) -> Callable[[Any], Any] | None:
    """What a count-based query releases of the count: itself (None), whether it reaches `at`
    (threshold), or the user's label for it (map)."""
    if spec.query == "threshold":
        return lambda count: int(count >= spec.at)
    if spec.query == "map":
        return lambda count: spec.table[count]
    return None


def _builder(spec: StabilitySpec) -> Callable[[Any], Channel]:
    family = spec.perturber
    release = _release(spec)

    def build(eps_exp: Any) -> Channel:
        if spec.query == "argmax":
            perturber = family(spec.respondents + 1, eps_exp)
        else:
            perturber = family(spec.values, eps_exp)
        if not spec.exact:
            perturber = perturber.to_float()
        if spec.query == "argmax":
            return argmax_pipeline(perturber, spec.values, histograms(spec.values, spec.respondents))
        perturber, known, values = _with_population(spec, perturber)
        if spec.query in ("count", "threshold", "map"):
            counts = count_pipeline(perturber, spec.respondents, set(spec.counted), known, values)
            if release is None:
                return counts
            labels = tuple(dict.fromkeys(release(count) for count in counts.outputs))
            post = deterministic(release, counts.outputs, labels)
            return counts @ (post if spec.exact else post.to_float())
        if spec.query == "sum":
            return sum_pipeline(perturber, spec.respondents, known, values)
        return histogram_pipeline(perturber, spec.respondents, known, values)

    return build


def _candidate(spec: StabilitySpec) -> Callable[[Any, Any], Channel | None]:
    """A candidate witness for pipeline(high) ⊑ pipeline(low): the lumped one of
    :func:`qifkit.pipelines.count_witness` for exact count queries, else none (the LP decides)."""
    if spec.query != "count" or not spec.exact or spec.population is not None:
        return lambda high, low: None
    family = spec.perturber
    return lambda high, low: count_witness(family(spec.values, high), family(spec.values, low), spec.respondents,
                                           set(spec.counted))


def defined_between_points(spec: StabilitySpec) -> bool:
    """Whether the spec's perturber exists at every e^ε > 1, not only at the grid's: a perturber
    read from files exists only where a file is given, and the exponential mechanism only where
    e^ε has the root its exponents need (both refuse a range for this reason)."""
    return spec.family not in ("file", "exponential")


def sampled_losses(spec: StabilitySpec, eps_exps: Sequence[Fraction]) -> list[float]:
    """The spec's analyst's expected loss at each e^ε of `eps_exps`, from float64 pipelines: a
    picture of the curve between the points the verdicts decide exactly (``qifkit stability --plot``;
    only where :func:`defined_between_points`).

    Examples
    --------
    >>> spec = parse_spec({"perturber": {"family": "geometric", "values": 7}, "population": {"respondents": 4,
    ...     "known": [0, 1, 1]}, "query": {"kind": "count", "of": [0]}, "analyst": {"prior": "uniform",
    ...     "loss": "linear", "scale": 1000}, "sweep": {"eps_exp": ["7/2", "351/100"]}})
    >>> [round(v, 6) for v in sampled_losses(spec, [Fraction(7, 2)])]  # App. D.1: 1276949536000/771895089
    [1654.304522]
    """
    build = _builder(dataclasses.replace(spec, exact=False))
    pipelines = [build(e) for e in eps_exps]
    if not pipelines:
        return []
    prior, loss = (part.to_float() for part in spec.analyst)
    return [float(posterior_uncertainty(prior, pipeline, loss)) for pipeline in pipelines]


def _analyst(spec: StabilitySpec) -> tuple[Prior, Loss]:
    """The spec's prior and loss in its arithmetic: :attr:`StabilitySpec.analyst`, or its floats for a
    float sweep."""
    prior, loss = spec.analyst
    if spec.exact:
        return prior, loss
    return prior.to_float(), loss.to_float()


def _exact_analyst(spec: StabilitySpec, secrets: tuple[Any, ...]) -> tuple[Prior, Loss]:
    if spec.prior in ("uniform", "uniform_histograms"):
        prior = uniform_prior(secrets)
    elif spec.prior == "uniform_tuples":
        weights = [1] * len(secrets) if not isinstance(secrets[0], tuple) else histogram_prior_weights(secrets)
        prior = Prior.from_values([Fraction(w, sum(weights)) for w in weights], secrets)
    else:
        entries = _prior_file(spec.prior, len(secrets)) if isinstance(spec.prior, str) else spec.prior
        if len(entries) != len(secrets):
            raise SpecError(f"[analyst] prior has {len(entries)} entries for {len(secrets)} secrets")
        try:
            prior = Prior.from_values([_number(v, "[analyst] prior entry") for v in entries], secrets)
        except QifError as error:
            raise SpecError(f"[analyst] prior: {error}") from None
    if spec.loss.endswith(".csv"):
        loss = _loss_table(spec.loss, spec.values)
    elif spec.loss == "bayes":
        loss = bayes_risk(secrets)
    elif spec.loss == "linear":
        loss = linear_error(secrets)
    elif spec.loss == "squared":
        loss = squared_error(secrets)
    else:
        loss = argmax_accuracy(secrets)
    return prior, loss if spec.scale == 1 else loss.scaled(spec.scale)


def secret_labels(spec: StabilitySpec) -> tuple[Any, ...]:
    """The pipeline's secrets without building it: the values of the one unknown respondent, or the
    histograms of the unknown respondents (all respondents for argmax), as the pipelines list them."""
    if spec.query == "argmax":
        return tuple(histograms(spec.values, spec.respondents))
    unknown = _targets(spec)
    return tuple(range(spec.values)) if unknown == 1 else tuple(histograms(spec.values, unknown))


def _exact_loss(spec: StabilitySpec, prior: Prior, loss: Loss, build: Callable[[Any], Channel]
                ) -> Callable[[Any], Any]:
    """The analyst's exact loss at an e^ε: for count, threshold and map queries by generating
    functions (:func:`qifkit.pipelines.count_uncertainty`, census-sized populations in seconds),
    else from the built pipeline."""
    if spec.query not in ("count", "threshold", "map") or not spec.exact:
        return lambda eps_exp: posterior_uncertainty(prior, build(eps_exp), loss)
    family, release = spec.perturber, _release(spec)

    def exact_loss(eps_exp: Any) -> Any:
        perturber, known, values = _with_population(spec, family(spec.values, eps_exp))
        return count_uncertainty(perturber, spec.respondents, set(spec.counted), prior, loss, known, release, values)

    return exact_loss


def every_analyst_on_range(spec: StabilitySpec) -> tuple[dict[str, Any] | None, str]:
    """A proof that the spec's pipelines refine for every e^ε' ≤ e^ε of its range, so that no
    analyst gains from less privacy there, at any number of respondents, any known ones and any
    prior: as the JSON document ``qifkit verify --range-proof`` re-checks (without the spec's
    SHA-256), or (None, the reason there is none).

    Routes: a count whose perturber has two hit probabilities by
    :func:`qifkit.stability.count_refinement_on_range`; a count otherwise, and a histogram, by the
    perturber's generator (:func:`qifkit.generator.generator_refinement_on_range`, lumped by the
    counted values and the rest for a count). Other queries have no route: a threshold, map, sum
    or ArgMax of lumped reports need not be a post-processing of the same release at more privacy.
    """
    assert spec.eps_range is not None  # only for a range
    low, high = spec.eps_range
    family = spec.perturber

    def perturber(t: Any) -> Channel:
        return family(spec.values, t)

    if spec.query not in ("count", "histogram"):
        return None, f"no proof route for a {spec.query} query (count and histogram queries have one)"
    blocks = None
    if spec.query == "count":
        proof, reason = count_refinement_on_range(perturber, spec.counted, low, high)
        if proof is not None:
            return {"kind": "count", "from": exact_str(proof.low), "to": exact_str(proof.high), "hit": proof.hit,
                    "miss": proof.miss, "conditions": list(proof.conditions)}, ""
        counted = set(spec.counted)
        outputs = perturber(high).outputs
        blocks = [[j for j, y in enumerate(outputs) if y in counted], [j for j, y in enumerate(outputs)
                                                                       if y not in counted]]
    generator, why = generator_refinement_on_range(perturber, low, high, blocks)
    if generator is None:
        return None, why if spec.query == "histogram" else f"{reason}; by the generator: {why}"
    return generator.document(), ""


def range_proof_problem(spec: StabilitySpec, document: Any) -> str | None:
    """What is wrong with a ``range-proof.json`` for this spec (``qifkit verify --range-proof``), or
    None when it is valid: the spec must ask a count or histogram query over a range, the proof
    must name that query and counted values and cover the spec's whole range, and it is re-checked
    exactly against the spec's perturber family (:func:`qifkit.stability.range_proof_defect` for
    two hit probabilities, :func:`qifkit.generator.generator_proof_defect` for a generator, whose
    blocks must be the counted values and the rest, or none for a histogram). The caller checks
    the spec's SHA-256 the proof names."""
    if spec.query not in ("count", "histogram"):
        return f"a range proof is about count or histogram pipelines; this spec asks a {spec.query} query"
    if spec.eps_range is None:
        return "this spec asks a grid of e^ε, not a range: a range proof covers a range"
    if not isinstance(document, dict):
        return "a range proof is a JSON object"
    if {key: document.get(key) for key in ("query", "counted")} != range_proof_fields(spec):
        return (f"the proof is about the query {document.get('query')!r} of {document.get('counted')!r}, not the "
                f"spec's {spec.query} query" + (f" of {list(spec.counted)}" if spec.query == "count" else ""))
    family = spec.perturber

    def perturber(t: Any) -> Channel:
        return family(spec.values, t)

    if document.get("kind") == "generator":
        outputs = perturber(spec.eps_range[1]).outputs
        blocks = (None if spec.query == "histogram" else
                  [[j for j, y in enumerate(outputs) if y in set(spec.counted)],
                   [j for j, y in enumerate(outputs) if y not in set(spec.counted)]])
        if document.get("blocks") != blocks:
            return f"the proof lumps by the blocks {document.get('blocks')!r}; this spec's query needs {blocks!r}"
        defect = generator_proof_defect(perturber, document)
    elif spec.query == "count":
        defect = range_proof_defect(perturber, spec.counted, document)
    else:
        return 'a histogram query is proved by its perturber\'s generator: the proof needs "kind": "generator"'
    if defect is not None:
        return defect
    low, high = spec.eps_range
    if not parse_eps_exp(document["from"]) <= low < high <= parse_eps_exp(document["to"]):
        return (f"the proof covers e^ε in [{document['from']}, {document['to']}], not the spec's range "
                f"[{low}, {high}]")
    return None


def instability_document(instability: dict[str, Any]) -> dict[str, Any]:
    """An instability whose pipelines are too large to write (``pipelines`` in the report) as the
    JSON of ``instability.json``: the two e^ε, the prior and the loss on the spec's secrets, and the
    exact losses and gap, for :func:`instability_problem` (the caller adds the spec's SHA-256)."""
    return {"kind": "instability", **{key: jsonable(instability[key]) for key in (
        "found_by", "eps_exp_low", "eps_exp_high", "prior", "loss", "loss_low", "loss_high", "gap")}}


def instability_problem(spec: StabilitySpec, document: Any) -> str | None:
    """What is wrong with an ``instability.json`` (:func:`instability_document`) for this spec, or
    None when it is valid: the prior must be a distribution and the loss a table of non-negative
    numbers on the spec's secrets, both e^ε in the spec's sweep, and the analyst's exact losses there,
    recomputed from the spec (generating functions for counts, never the written pipelines), must be
    the recorded ones and rise by more than the spec's tolerance. The caller checks the SHA-256."""
    if not isinstance(document, dict) or document.get("kind") != "instability":
        return 'an instability certificate is a JSON object with "kind": "instability"'
    if spec.oversize is not None:
        return f"this spec's pipeline is not built ({spec.oversize})"
    secrets = secret_labels(spec)
    try:
        low, high = (parse_eps_exp(str(document.get(key))) for key in ("eps_exp_low", "eps_exp_high"))
        prior = Prior.from_values([parse_number(str(p)) for p in _listed(document.get("prior"), len(secrets))],
                                  secrets)
        rows = [[parse_number(str(v)) for v in _listed(row, None)] for row in _listed(document.get("loss"),
                                                                                    len(secrets))]
        loss = Loss.from_rows(rows, secrets, range(len(rows[0]) if rows else 0))
        recorded = [parse_number(str(document.get(key))) for key in ("loss_low", "loss_high", "gap")]
    except (QifError, TypeError, ValueError) as error:
        return f"the certificate does not read: {error}"
    grid = set(spec.eps_exp)
    inside = spec.eps_range is not None and spec.eps_range[0] <= low and high <= spec.eps_range[1]
    if not low < high or not ({low, high} <= grid or inside):
        return f"e^ε = {exact_str(low)} and {exact_str(high)} are not two increasing e^ε of the spec's sweep"
    exact_loss = _exact_loss(spec, prior, loss, _builder(spec))
    losses = [exact_loss(low), exact_loss(high)]
    if [*losses, losses[1] - losses[0]] != recorded:
        return (f"the losses recomputed from the spec are {exact_str(losses[0])} and {exact_str(losses[1])}, not the "
                "recorded ones")
    if not losses[1] - losses[0] > spec.tolerance:
        return f"the loss rises by {exact_str(losses[1] - losses[0])}, not more than the tolerance"
    return None


def _listed(value: Any, length: int | None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise SpecError(f"expected a list of {length if length is not None else 'some'} entries")
    return value


def range_proof_fields(spec: StabilitySpec) -> dict[str, Any]:
    """What a range proof names of its spec besides the SHA-256 (:func:`range_proof_problem` checks
    them): the query it is about and the counted values (none for a histogram)."""
    return {"query": spec.query, "counted": list(spec.counted)}


def _range_degree(spec: StabilitySpec) -> int:
    """An estimate of the degree in e^ε of the pipeline's entries over a range: every respondent's
    report multiplies in a perturber entry of degree about values − 1."""
    return spec.respondents * (spec.values - 1)


def _symbolic_work(spec: StabilitySpec) -> int:
    """The size of following the analyst symbolically over a range: pipeline entries × degree²
    (compared with :data:`RANGE_FOLLOW_WORK`)."""
    return _secret_count(spec) * _output_count(spec) * _range_degree(spec) ** 2


def describe_work(spec: StabilitySpec) -> list[str]:
    """The size of the work a spec asks for, said before it begins (``qifkit stability -v``): the
    pipeline's secrets, outputs and entries, the grid pairs to certify, and the route the range
    takes, with the degree in e^ε that its symbolic route works on (an estimate,
    :func:`_range_degree`)."""
    if spec.oversize is not None:
        return [f"pipeline: not built ({spec.oversize})",
                f"range [{spec.eps_range[0]}, {spec.eps_range[1]}]: decided only by a proof for every analyst "  # type: ignore[index]
                "(the perturber's hit probabilities or its generator), which holds at any number of respondents"]
    secrets, outputs = _secret_count(spec), _output_count(spec)
    entries = secrets * outputs
    lines = [f"question: {'the spec' + chr(39) + 's analyst' if spec.question == 'analyst' else 'every analyst'}"
             + (f" (tolerance {exact_str(spec.tolerance)})" if spec.tolerance else ""),
             f"pipeline: {secrets:,} secrets × {outputs:,} outputs = {entries:,} entries "
             f"({'exact' if spec.exact else 'float64'})"]
    if spec.population is not None:
        lines.append(f"population: {_targets(spec):,} target(s) (the secret), {len(spec.known):,} known, "
                     f"{spec.others:,} others drawn from the population prior, one mixture row each")
    if len(spec.eps_exp) >= 2:
        lines.append(
            f"grid: {len(spec.eps_exp)} e^ε, {len(spec.eps_exp) - 1} consecutive pairs to certify"
            + (f" (witnesses of up to {outputs:,} × {outputs:,} entries)" if spec.exact else " (not compared)")
        )
    if spec.eps_range is not None:
        degree, work = _range_degree(spec), _symbolic_work(spec)
        symbolic = (f"symbolic: entries are rational functions of e^ε of degree up to about {degree:,} "
                    f"({spec.respondents:,} respondents' reports), every change of best action and every rise by "
                    "real-root isolation")
        sampled = f"sampled at {RANGE_SAMPLES} e^ε in float64, each rise re-decided exactly"
        cost, budget = _ball_budget(spec)
        ball = ("" if spec.query not in BALL_QUERIES else
                f"if no rise is confirmed, in ball arithmetic piece by piece (at most {budget:,} enclosures of cost "
                f"{cost:,}); " if budget >= BALL_MIN_PIECES else
                f"(ball arithmetic not tried: one enclosure costs {cost:,}, so its budget of {BALL_WORK:,} would allow "
                f"only {budget}, fewer than the {BALL_MIN_PIECES} it needs); ")
        if entries > RANGE_MAX_ENTRIES:
            route = f"{sampled} ({entries:,} entries, beyond {RANGE_MAX_ENTRIES:,} for a symbolic build); {ball}"
        elif work > RANGE_FOLLOW_WORK:
            route = (f"{sampled} first (symbolic work {work:,} = entries × degree², beyond {RANGE_FOLLOW_WORK:,}); "
                     f"{ball}if still undecided, {symbolic}")
        else:
            route = symbolic
        proof = "a proof for every analyst is tried first; " if spec.query in ("count", "histogram") else ""
        lines.append(f"range [{spec.eps_range[0]}, {spec.eps_range[1]}]: {proof}the spec's analyst {route}")
        pairs = secrets * (secrets - 1) // 2
        if spec.question == "every_analyst":
            lines.append(
                f"range, without a proof or a rise: {pairs:,} pairs of secrets searched for a two-secret analyst "
                f"whose loss rises ({RANGE_SAMPLES} e^ε in float64; the largest {DICHOTOMY_CONFIRMATIONS} decided "
                "exactly)" if secrets <= DICHOTOMY_MAX_SECRETS else
                f"range, without a proof or a rise: not decided ({secrets:,} secrets, beyond the "
                f"{DICHOTOMY_MAX_SECRETS} whose pairs are searched for a constructed analyst)")
    return lines


def evaluate_spec(spec: StabilitySpec, progress: Callable[[str], None] | None = None,
                  time_limit: float | None = None, keep_partial: bool = False
                  ) -> tuple[dict[str, Any], list[Certified]]:
    """The stability report of a spec and its certificates.

    `progress`, if given, receives a line as each step begins (the grid's losses, the range's
    proof, the analyst on the range) and one per decided grid pair, with the time it took and an
    estimate of the time left (the mean so far times the pairs left). `time_limit` (seconds) is
    checked between steps and, in the main thread, also stops a step in the middle (a timer raises
    :class:`~qifkit.errors.TimeLimitReached`, which a caller's own timer or `progress` may raise
    too; a step inside a C library stops when that call returns). Either way no further step
    begins, an instability found by then stands, and otherwise ``stable`` is null with
    ``undecided`` saying how far the run got; what was certified is kept. With `keep_partial`,
    a ``KeyboardInterrupt`` is handled the same way and the report has ``"interrupted": true``.

    The report has ``points`` (e^ε and the analyst's expected loss, increasing e^ε), ``monotone``
    (true: the analyst's loss never rises, on the grid and on the whole range; false: it rises
    somewhere, decided exactly; null: the range was only sampled or not finished), ``range`` (for
    a range: its ends, the exact losses there, the rising stretches as decimals and exactly), ``coverage``
    (``"grid"``, ``"interval"`` or ``"grid and interval"``), ``stable`` (true: every consecutive
    pair of the grid certified to refine and no range asked; false: a certified instability;
    null: float sweep, or a range on which the analyst sees no rise but refinement between the
    pipelines is only certified on the grid) with ``undecided`` saying why, and ``instability``:
    null, or the first one found: a rise of the analyst's loss on the grid (``found_by:
    "analyst"``), a failed pipeline refinement on the grid (``"refinement"``), a rising stretch of
    the range (``"range"``) or, on a range no proof covers, a two-secret Bayes analyst whose loss
    rises (``"constructed"``, :func:`_constructed_analyst`), with prior, loss and exact gap.

    ``pairs`` has one entry per consecutive pair of the grid (``eps_exp_low``, ``eps_exp_high``,
    ``verdict``: ``"refines"``, ``"does not refine"`` or ``"not compared"`` with the reason, and the
    ``method`` that certified it), and ``covered`` says what a verdict rests on: the grid pairs
    compared out of all, and whether the range was proved for every analyst.

    The certificates: the instability's (less and more private pipeline and the refutation), or
    each consecutive pair's witness certified before the run ended (kept when the verdict is
    undecided too: a time limit or an undecided range does not void them).
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    say = progress or (lambda line: None)
    exact_build = _builder(spec)
    built: dict[Any, Channel] = {}

    def build(eps_exp: Any) -> Channel:
        key = exact_eps_exp(eps_exp)
        if key not in built:
            built[key] = exact_build(eps_exp)
        return built[key]

    grid = sorted(spec.eps_exp, key=exact_eps_exp)
    number = exact if spec.exact else float  # the report keeps numbers; report_document writes them
    report: dict[str, Any] = {
        "question": spec.question,
        "tolerance": spec.tolerance,
        "arithmetic": "exact" if spec.exact else "float",
        "secrets": None if spec.oversize else _secret_count(spec),
        "coverage": " and ".join(c for c, on in (("grid", grid), ("interval", spec.eps_range)) if on),
        "points": [],
        "monotone": True,
        "instability": None,
        "rises_within_tolerance": [],
        "pairs": [
            {
                "eps_exp_low": low,
                "eps_exp_high": high,
                "verdict": "not compared",
                "method": None if spec.exact else "a float sweep compares no pair",
            }
            for low, high in zip(grid, grid[1:], strict=False)
        ],
    }
    instability: Certified | None = None
    witnesses: list[Certified] = []

    def refuted(found_by: str, low: Any, high: Any, certificate: Refinement) -> None:
        nonlocal instability
        assert certificate.prior is not None and certificate.loss is not None  # a refutation has both
        if instability is None:
            report["instability"] = {"found_by": found_by, "eps_exp_low": low, "eps_exp_high": high,
                                     "prior": [number(p) for p in certificate.prior.probabilities()],
                                     "loss": [[number(v) for v in row] for row in certificate.loss.rows()],
                                     "loss_low": number(certificate.uncertainty_b),
                                     "loss_high": number(certificate.uncertainty_a), "gap": number(certificate.gap)}
            entries = _secret_count(spec) * _output_count(spec)
            if spec.exact and entries <= MAX_CERTIFIED_ENTRIES:
                instability = Certified("instability", low, high, build(high), build(low), certificate)
            elif spec.exact:
                report["instability"]["pipelines"] = (
                    f"not materialised: {entries:,} exact entries each (beyond {MAX_CERTIFIED_ENTRIES:,}); the two "
                    "losses are exact, and qifkit verify --instability re-derives them from the spec")

    stage = ["before the grid's losses"]

    def steps() -> str | None:
        """The grid and the range, in order; the reason the run stopped early, or None."""
        if spec.oversize is not None:  # a range only: nothing but a proof for every analyst can decide it
            stage[0] = "during the proof for every analyst"
            say(f"range {list(map(exact_str, spec.eps_range or ()))}: a proof for every analyst (the pipeline is "
                "not built)")
            proof, reason = every_analyst_on_range(spec)
            report["range"] = {"from": spec.eps_range[0], "to": spec.eps_range[1],  # type: ignore[index]
                               "every_analyst": {"proved": True, **proof} if proof is not None else
                               {"proved": False, "reason": reason}, "analyst": f"not followed: {spec.oversize}",
                               "route": "not followed"}
            return None
        prior, loss = _analyst(spec)
        exact_loss = _exact_loss(spec, prior, loss, build)
        if grid:
            say(f"the analyst's loss at {len(grid)} e^ε of the grid")
            stage[0] = "during the grid's losses"
            curve = loss_curve(build, grid, prior, loss, exact_loss if spec.exact else None)
            report["points"] = [{"eps_exp": e, "loss": number(v)} for e, v in zip(curve.eps_exp, curve.values,
                                                                                strict=True)]
            if curve.violation is not None:
                report["monotone"] = False
                low, high, gap = _largest_rise(curve) if spec.tolerance else curve.violation
                if gap > spec.tolerance:
                    refuted("analyst", low, high, _analyst_refutation(prior, loss, curve, low, high, gap))
                else:
                    report["rises_within_tolerance"].append({"where": "grid", "rise_at_least": gap,
                                                             "rise_at_most": gap})
            if spec.exact and spec.question == "analyst":
                for pair in report["pairs"]:
                    pair["method"] = ('the question is the spec\'s analyst; question = "every_analyst" compares '
                                      "the pipelines")
            elif spec.exact:
                candidate = _candidate(spec)
                pairs, started = len(grid) - 1, time.perf_counter()
                for k, (low, high) in enumerate(zip(grid, grid[1:], strict=False)):
                    begun = time.perf_counter()
                    stage[0] = f"after {k} of {pairs} grid pairs"
                    if deadline is not None and begun > deadline:
                        return f"the time limit of {time_limit:g} s was reached {stage[0]}"
                    result = pipeline_refinement(build, high, low, candidate(high, low))
                    now = time.perf_counter()
                    left = (now - started) / (k + 1) * (pairs - k - 1)
                    say(f"pair {k + 1}/{pairs} (e^ε {high} vs {low}): {'refines' if result.holds else 'FAILS'}"
                        f" in {now - begun:.1f} s; about {left:.0f} s left")
                    report["pairs"][k].update(verdict="refines" if result.holds else "does not refine",
                                              method=result.method)
                    if not result.holds:
                        refuted("refinement", low, high, result)
                        break
                    witnesses.append(Certified(f"pair-{k + 1}", low, high, build(high), build(low), result))
        if spec.eps_range is not None:
            stage[0] = "before the range"
            if deadline is not None and time.perf_counter() > deadline:
                return f"the time limit of {time_limit:g} s was reached {stage[0]}"
            stage[0] = "during the range"
            sweep = _FloatSweep(spec)
            _range_report(spec, report, prior, loss, build, exact_loss, refuted, say, sweep)
            if (spec.question == "every_analyst" and report["instability"] is None
                    and not report["range"]["every_analyst"]["proved"]):
                stage[0] = "during the search for a constructed analyst"
                _constructed_analyst(spec, report, build, refuted, say, sweep)
        return None

    try:
        with _alarm(time_limit):
            timed_out = steps()
    except TimeLimitReached:
        timed_out = f"the time limit of {time_limit:g} s was reached {stage[0]}" if time_limit else \
            f"the caller's time limit was reached {stage[0]}"
    except KeyboardInterrupt:
        if not keep_partial:
            raise
        timed_out, report["interrupted"] = f"interrupted (Ctrl-C) {stage[0]}", True
    if "range" in report:
        report["range"].setdefault("analyst", f"not followed: {timed_out}")
        report["range"].setdefault("route", "not followed")
        followed = report["range"]["route"] in ("exact", "ball")
        if report["monotone"] and not followed and not report["range"]["every_analyst"].get("proved"):
            report["monotone"] = None  # sampled, or stopped: the loss between the points is not known
    proved = bool(report.get("range", {}).get("every_analyst", {}).get("proved"))
    report["stable"], report["undecided"] = _verdict(spec, report, timed_out, proved, bool(grid))
    compared = sum(pair["verdict"] != "not compared" for pair in report["pairs"])
    report["covered"] = {"question": spec.question, "grid_pairs_compared": compared, "grid_pairs": len(report["pairs"]),
                         "interval": None if spec.eps_range is None else
                         f"proved for every analyst on [{spec.eps_range[0]}, {spec.eps_range[1]}]" if proved else
                         "not proved for every analyst"}
    return report, [instability] if instability is not None else witnesses


def _verdict(spec: StabilitySpec, report: dict[str, Any], timed_out: str | None, proved: bool, grid: bool
             ) -> tuple[bool | None, str | None]:
    """``stable`` and ``undecided`` of a report, answering the spec's question (``[gate] question``):
    the spec's analyst (its loss never rises by more than the tolerance as e^ε grows, on the grid
    and at every e^ε of the range; every analyst proved on the range covers it too) or every
    analyst (every grid pair refines and the range is proved)."""
    if not spec.exact:
        return None, "a float sweep decides nothing; set exact = true"
    if report["instability"] is not None:
        return False, None
    if timed_out is not None:
        return None, timed_out
    if spec.oversize is not None and not proved:
        return None, (f"the pipeline is not built ({spec.oversize}) and no proof for every analyst covers the range "
                      f"({report['range']['every_analyst']['reason']})")
    if spec.question == "analyst":
        interval = report.get("range", {})
        unbounded = [rise for rise in report["rises_within_tolerance"]
                     if rise["rise_at_most"] is None or rise["rise_at_most"] > spec.tolerance]
        if unbounded:
            rise = unbounded[0]
            return None, (f"the spec's analyst's loss rises by at least {_decimal(rise['rise_at_least'])} on the "
                          f"{rise['where']}, within the tolerance {exact_str(spec.tolerance)}, but "
                          + ("no upper bound of the rise was found" if rise["rise_at_most"] is None else
                             f"it is only bounded by {_decimal(rise['rise_at_most'])}"))
        followed = interval.get("route") in ("exact", "ball")
        if spec.eps_range is not None and not (proved or followed):
            return None, ("the spec's analyst's loss was not followed at every e^ε of the range ("
                          + str(interval.get("analyst", "not reached")) + ") and no proof for every analyst covers it"
                          + (f" ({interval['every_analyst']['reason']})" if "every_analyst" in interval else ""))
        return True, None
    if spec.eps_range is not None and not proved:
        outputs = _output_count(spec)
        where = ("only at the grid's points" if grid else "only where a grid is given (eps_exp)"
                 if outputs ** 2 <= MAX_WITNESS_ENTRIES else
                 f"nowhere at this size: a grid's pairs would need {outputs:,} × {outputs:,} witnesses, beyond the "
                 f"{MAX_WITNESS_ENTRIES:,} entries refinement takes, so no spec of this pipeline gets a verdict for "
                 "every analyst yet")
        searched = report["range"].get("constructed")
        return None, ("no rise was found, but refinement between the pipelines (every analyst) over the range is not "
                      f"proved ({report['range']['every_analyst']['reason']}); it is certified " + where
                      + (f"; two-secret analysts searched: {searched}" if searched else ""))
    return True, None


def _largest_rise(curve: Any) -> tuple[Any, Any, Any]:
    """The grid's e^ε low < high where the analyst's loss rises most, and that rise (exact):
    what a tolerance is compared with."""
    best: tuple[Any, Any, Any] = (curve.eps_exp[0], curve.eps_exp[0], 0)
    lowest = 0
    for k, loss in enumerate(curve.values):
        if loss - curve.values[lowest] > best[2]:
            best = (curve.eps_exp[lowest], curve.eps_exp[k], loss - curve.values[lowest])
        if loss < curve.values[lowest]:
            lowest = k
    return best


def exact_text(value: Any) -> str:
    """An exact number of a report as text: a fraction as ``"p/q"``, an end of a rising stretch (a
    real algebraic number, :class:`~qifkit.real_roots.RealPoint`) as its rational value or its
    polynomial and isolating interval."""
    if isinstance(value, RealPoint):
        return exact_str(value.point) if value.is_rational else str(value)
    return exact_str(value)


def _decimal(value: Any) -> str:
    """A number of a report to 12 significant digits, for reading (the exact text decides)."""
    return value.decimal(12) if isinstance(value, RealPoint) else f"{float(value):.12g}"


def report_document(report: dict[str, Any]) -> dict[str, Any]:
    """The report of :func:`evaluate_spec` as JSON data, the one place its numbers become text:
    exact numbers as ``"p/q"`` (any size), float-sweep losses as JSON numbers, and a range's rising
    stretches and breakpoints as 12-digit decimals (``rising``, ``breakpoints``) beside their exact
    ends (``rising_exact``)."""
    document = jsonable({key: value for key, value in report.items() if key != "range"})
    if "range" in report:
        interval = dict(report["range"])
        rising, exact_ends, breakpoints = (interval.pop(key, None) for key in ("rising", "rising_exact", "breakpoints"))
        document["range"] = jsonable(interval)
        if rising is not None:
            document["range"]["rising"] = [[_decimal(v) for v in stretch] for stretch in rising]
        if exact_ends is not None:
            document["range"]["rising_exact"] = [[exact_text(v) for v in stretch] for stretch in exact_ends]
        if breakpoints is not None:
            document["range"]["breakpoints"] = [_decimal(v) for v in breakpoints]
    return document


@contextlib.contextmanager
def _alarm(seconds: float | None) -> Iterator[None]:
    """Raise :class:`~qifkit.errors.TimeLimitReached` where the evaluation is once `seconds` have
    passed (a real-time timer, in the main thread only; elsewhere the checks between steps apply)."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise TimeLimitReached

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _analyst_refutation(prior: Prior, loss: Loss, curve: Any, low: Any, high: Any, gap: Any) -> Refinement:
    """The spec's analyst as the certificate that pipeline(high) does not refine pipeline(low)."""
    values = dict(zip(curve.eps_exp, curve.values, strict=True))
    return Refinement(False, prior=prior, loss=loss, uncertainty_a=values[high], uncertainty_b=values[low],
                      gap=gap, method="the spec's analyst")


def _range_report(spec: StabilitySpec, report: dict[str, Any], prior: Prior, loss: Loss,
                  build: Callable[[Any], Channel], exact_loss: Callable[[Any], Any],
                  refuted: Callable[..., None], say: Callable[[str], None], sweep: _FloatSweep) -> None:
    """The spec's range, into ``report["range"]``: refinement for every analyst where a proof exists
    (:func:`every_analyst_on_range`), and the spec's analyst at every e^ε
    (:func:`qifkit.stability.loss_on_range`) for pipelines of at most :data:`RANGE_MAX_ENTRIES`
    entries; beyond :data:`RANGE_FOLLOW_WORK` a float search comes first, and a rise it confirms
    exactly is the verdict. `say` is told as each step begins."""
    low, high = spec.eps_range  # type: ignore[misc]
    say(f"range [{low}, {high}]: a proof for every analyst"
        + ("" if spec.query in ("count", "histogram") else f" (none for a {spec.query} query)"))
    proof, reason = every_analyst_on_range(spec)
    report["range"] = {"from": low, "to": high, "every_analyst": (
        {"proved": True, **proof} if proof is not None else {"proved": False, "reason": reason})}
    entries, work = _secret_count(spec) * _output_count(spec), _symbolic_work(spec)
    if entries > RANGE_MAX_ENTRIES or work > RANGE_FOLLOW_WORK:
        if proof is not None:  # a proof settles every analyst; else the analyst's curve is searched in floats
            report["range"].update(analyst="not followed: every analyst is proved safe on the range",
                                   route="not followed")
            return
        why = (f"{entries:,} pipeline entries, beyond {RANGE_MAX_ENTRIES:,} for a symbolic build"
               if entries > RANGE_MAX_ENTRIES else
               f"symbolic work {work:,} = entries × degree², beyond {RANGE_FOLLOW_WORK:,} before a search")
        say(f"range: the analyst's loss sampled at {RANGE_SAMPLES} e^ε ({why}), each rise re-decided exactly")
        if _sampled_range(spec, report, prior, loss, exact_loss, refuted, why, sweep):
            return
        if _ball_range(spec, report, prior, loss, exact_loss, refuted, say) or entries > RANGE_MAX_ENTRIES:
            return
        for key in ("samples", "rises_not_confirmed"):  # the search found nothing; the exact route decides
            del report["range"][key]
    say(f"range: the analyst's loss followed exactly at every e^ε ({entries:,} pipeline entries as rational "
        "functions of e^ε, their best actions' changes and the loss's slope by real-root isolation)")
    curve = loss_on_range(_builder(spec), low, high, prior, loss, tolerance=spec.tolerance or None)

    report["range"].update(
        {
            "analyst": "followed at every e^ε",
            "route": "exact",
            "loss_from": curve.loss_low,
            "loss_to": curve.loss_high,
            "rising": [list(stretch) for stretch in curve.rising],
            "rising_exact": [list(stretch) for stretch in curve.rising],
            "breakpoints": list(curve.breakpoints),
        }
    )
    if curve.rising and proof is not None:  # pragma: no cover - a proof excludes every rise
        raise UndecidableError("internal contradiction: a proved-stable range shows a rising loss")
    if not curve.rising:
        return
    report["monotone"] = False
    stretch = 0
    if spec.tolerance:
        bounds = curve.rise_bounds
        report["range"]["rise_bounds"] = [list(bound) for bound in bounds]
        stretch = max(range(len(bounds)), key=lambda k: bounds[k][0])
        if bounds[stretch][0] <= spec.tolerance:
            uppers = [upper for _, upper in bounds]
            report["rises_within_tolerance"].append({
                "where": "range", "rise_at_least": bounds[stretch][0],
                "rise_at_most": None if None in uppers else sum(uppers, Fraction(0))})
            return
        start, end = curve.rising[stretch]  # narrowed by the bounds: the inner ends are inside the rise
        a, b = start.bounds[1], end.bounds[0]
        lower, upper = exact_loss(a), exact_loss(b)
    else:
        a, b, lower, upper = _inside_rise(*curve.rising[0], exact_loss)
    refuted("range", a, b, Refinement(False, prior=prior, loss=loss, uncertainty_a=upper, uncertainty_b=lower,
                                      gap=upper - lower, method="the spec's analyst on the range's rising stretch"))


def _inside_rise(start: RealPoint | Fraction, end: RealPoint | Fraction, exact_loss: Callable[[Any], Any]
                 ) -> tuple[Any, Any, Any, Any]:
    """Simple rationals start < a < b < end in the first and last quarters of a rising stretch, and
    the exact losses there (lower at a, upper at b), the two sides of its refutation. Ends that are
    algebraic numbers are narrowed until their isolating intervals are apart, and the quarters are
    taken between their inner ends: a point of an outer end's interval may lie outside the rise."""
    first, last = (point if isinstance(point, RealPoint) else RealPoint(point) for point in (start, end))
    while first.bounds[1] >= last.bounds[0]:
        for point in (first, last):
            low, high = point.bounds
            point.narrowed((high - low) / 2)
    inner_start, inner_end = first.bounds[1], last.bounds[0]
    quarter = (inner_end - inner_start) / 4
    a, b = rational_between(inner_start, inner_start + quarter), rational_between(inner_end - quarter, inner_end)
    return a, b, exact_loss(a), exact_loss(b)


class _FloatSweep:
    """A spec's float64 pipelines at the range's :data:`RANGE_SAMPLES` e^ε (:func:`sample_grid`),
    built once for both searches that read them: the spec's analyst's losses (:func:`_sampled_range`)
    and, for at most :data:`DICHOTOMY_MAX_SECRETS` secrets, every two-secret analyst's Bayes risks
    (:func:`_constructed_analyst`). Only the numbers are kept, not the pipelines."""

    def __init__(self, spec: StabilitySpec) -> None:
        assert spec.eps_range is not None  # only for a range
        self.spec, self.grid = spec, sample_grid(*spec.eps_range, samples=RANGE_SAMPLES)
        self.secrets = secret_labels(spec)
        self._losses: list[float] | None = None
        self._risks: list[Any] = []

    def _run(self) -> None:
        build = _builder(dataclasses.replace(self.spec, exact=False))
        prior, loss = (part.to_float() for part in self.spec.analyst)
        pairs = len(self.secrets) <= DICHOTOMY_MAX_SECRETS
        self._losses = []
        for eps_exp in self.grid:
            pipeline = build(eps_exp)
            self._losses.append(float(posterior_uncertainty(prior, pipeline, loss)))
            if pairs:
                self._risks.append(dichotomy_risks(pipeline.matrix))

    def losses(self, grid: Sequence[Fraction]) -> list[float]:
        """The spec's analyst's float losses at `grid`, which must be the sweep's."""
        assert list(grid) == self.grid, "a float sweep answers for its own samples only"
        if self._losses is None:
            self._run()
        assert self._losses is not None
        return self._losses

    def risks(self) -> list[Any]:
        """The two-secret analysts' Bayes risks at each sample (:func:`qifkit.stability.dichotomy_risks`)."""
        if self._losses is None:
            self._run()
        return self._risks


def _constructed_analyst(spec: StabilitySpec, report: dict[str, Any], build: Callable[[Any], Channel],
                         refuted: Callable[..., None], say: Callable[[str], None], sweep: _FloatSweep) -> None:
    """On a range that no proof covers and where the spec's analyst saw no rise: search every
    two-secret Bayes analyst (:func:`qifkit.stability.dichotomy_risks`, float64 pipelines at
    :data:`RANGE_SAMPLES` e^ε) and re-decide the largest rises of :data:`DICHOTOMY_CONFIRMATIONS`
    pairs exactly (the generating functions of :func:`_exact_loss`); a confirmed one is a certified
    instability, found by a constructed analyst. What was searched goes to
    ``report["range"]["constructed"]``."""
    secrets = sweep.secrets
    if len(secrets) > DICHOTOMY_MAX_SECRETS:
        report["range"]["constructed"] = (f"not searched: {len(secrets):,} secrets, beyond the "
                                          f"{DICHOTOMY_MAX_SECRETS} whose pairs are searched")
        return
    pairs = len(secrets) * (len(secrets) - 1) // 2
    say(f"range: {pairs} pairs of secrets searched for a two-secret analyst whose loss rises ({RANGE_SAMPLES} e^ε in "
        "float64), the largest rises re-decided exactly")
    grid = sweep.grid
    loss = bayes_risk(secrets)
    candidates = dichotomy_rises(sweep.risks(), len(secrets), most=DICHOTOMY_CONFIRMATIONS)
    for candidate in candidates:
        weight = {candidate.first: candidate.weight, candidate.second: 1 - candidate.weight}
        prior = Prior.from_values([weight.get(k, Fraction(0)) for k in range(len(secrets))], secrets)
        exact_loss = _exact_loss(spec, prior, loss, build)
        low, high = grid[candidate.step], grid[candidate.step + 1]
        lower, upper = exact_loss(low), exact_loss(high)
        if upper > lower:
            report["range"]["constructed"] = (
                f"a rise found: the Bayes risk of secrets {secrets[candidate.first]!r} (prior {candidate.weight}) and "
                f"{secrets[candidate.second]!r} is higher at e^ε = {high} than at {low}, decided exactly")
            refuted("constructed", low, high, Refinement(
                False, prior=prior, loss=loss, uncertainty_a=upper, uncertainty_b=lower, gap=upper - lower,
                method="a two-secret Bayes analyst, found in float64 at sampled e^ε and decided exactly"))
            return
    report["range"]["constructed"] = (f"no rise confirmed: {pairs} pairs × {len(DICHOTOMY_WEIGHTS)} priors at "
                                      f"{len(grid)} e^ε in float64, {len(candidates)} candidate(s) re-decided exactly")


def _ball_budget(spec: StabilitySpec) -> tuple[int, int]:
    """The cost of one enclosure of the ball route, the tallies' length (respondents + 1 for a
    count, (values − 1) × respondents + 1 for a sum) × (values + secrets + actions), and how many
    :data:`BALL_WORK` allows."""
    length = (spec.values - 1) * spec.respondents + 1 if spec.query == "sum" else spec.respondents + 1
    cost = length * (spec.values + _secret_count(spec) + len(spec.analyst[1].actions))
    return cost, BALL_WORK // cost


def _ball_range(spec: StabilitySpec, report: dict[str, Any], prior: Prior, loss: Loss,
                exact_loss: Callable[[Any], Any], refuted: Callable[..., None], say: Callable[[str], None]) -> bool:
    """The spec's analyst on a range too large to follow by root isolation, in ball arithmetic
    (:mod:`qifkit.ball_range`; count, threshold, map and sum queries): within a
    budget of :data:`BALL_WORK`, the loss proved never to rise at any e^ε, or a rising stretch
    proved and confirmed by the exact losses at two rational points of it. Returns whether the
    range was decided; what was tried goes to ``report["range"]["ball"]``."""
    if spec.query not in BALL_QUERIES:
        return False
    assert spec.eps_range is not None  # only called for a range
    cost, budget = _ball_budget(spec)
    if budget < BALL_MIN_PIECES:
        report["range"]["ball"] = (f"not tried: a piece's enclosure costs {cost:,} (the tally's length times values, "
                                   f"secrets and actions), so {BALL_WORK:,} allow {budget} (fewer than "
                                   f"{BALL_MIN_PIECES})")
        return False
    say(f"range: the analyst's loss decided piece by piece in ball arithmetic (at most {budget:,} enclosures)")
    family = spec.perturber
    _, known, values = _with_population(spec, family(spec.values, spec.eps_range[1]))

    def perturber(t: Any) -> Channel:
        return _with_population(spec, family(spec.values, t))[0]

    if spec.query == "sum":
        curve = sum_loss_on_range(perturber, spec.respondents, prior, loss, *spec.eps_range, known=known,
                                  pieces=budget, unknown_values=values)
    else:
        curve = count_loss_on_range(perturber, spec.respondents, set(spec.counted), prior, loss, *spec.eps_range,
                                    known=known, release=_release(spec), pieces=budget, unknown_values=values)
    undecided = curve.undecided
    report["range"]["ball"] = {"pieces": len(curve.pieces), "enclosures": curve.evaluations,
                               "undecided": [list(stretch) for stretch in undecided[:SHOWN_STRETCHES]],
                               "undecided_stretches": len(undecided)}
    if curve.monotone is None:
        return False
    if curve.rising:
        a, b, lower, upper = _inside_rise(*curve.rising[0], exact_loss)
        if not upper > lower:  # pragma: no cover - a proved rise that exact losses deny: say so, decide nothing
            report["range"]["ball"]["unconfirmed_rise"] = [a, b]
            return False
    for key in ("samples", "rises_not_confirmed"):
        report["range"].pop(key, None)
    report["range"].update({
        "route": "ball",
        "analyst": f"followed at every e^ε in ball arithmetic ({len(curve.pieces):,} pieces proved rising or "
                   f"falling, {curve.evaluations:,} enclosures)",
        "loss_from": exact_loss(curve.low), "loss_to": exact_loss(curve.high),
        "rising": [[RealPoint(s), RealPoint(e)] for s, e in curve.rising],
        "rising_exact": [[RealPoint(s), RealPoint(e)] for s, e in curve.rising],
    })
    if curve.rising:
        report["monotone"] = False
        if upper - lower <= spec.tolerance:
            report["rises_within_tolerance"].append({"where": "range", "rise_at_least": upper - lower,
                                                     "rise_at_most": None})
            return True
        refuted("range", a, b, Refinement(False, prior=prior, loss=loss, uncertainty_a=upper, uncertainty_b=lower,
                                          gap=upper - lower,
                                          method="the spec's analyst on a rising stretch proved in ball arithmetic"))
    return True


def _sampled_range(spec: StabilitySpec, report: dict[str, Any], prior: Prior, loss: Loss,
                   exact_loss: Callable[[Any], Any], refuted: Callable[..., None], why: str, sweep: _FloatSweep
                   ) -> bool:
    """The spec's analyst on a range too large to follow symbolically first (`why` says how), by
    :func:`qifkit.stability.search_rises` (float64 pipelines at :data:`RANGE_SAMPLES` e^ε, each rise
    re-decided by the exact losses), into ``report["range"]``. The rising stretches are reported
    between sampled points, not with exact ends. Returns whether a rise beyond the spec's tolerance
    was confirmed."""
    assert spec.eps_range is not None  # only called for a range
    found = search_rises(sweep.losses, exact_loss, *spec.eps_range, samples=RANGE_SAMPLES)
    report["range"].update({
        "route": "sampled",
        "analyst": f"sampled ({why}): its loss in float64 at {len(found.samples)} e^ε, each rise re-decided exactly",
        "samples": len(found.samples),
        "rising": [[rise.start, rise.end] for rise in found.confirmed],
        "rising_exact": [[rise.low, rise.high] for rise in found.confirmed],
        "rises_not_confirmed": found.unconfirmed,
    })
    if found.confirmed:
        report["monotone"] = False
    beyond = [rise for rise in found.confirmed if rise.loss_high - rise.loss_low > spec.tolerance]
    if beyond:
        rise = beyond[0]
        certificate = Refinement(False, prior=prior, loss=loss, uncertainty_a=rise.loss_high,
                                 uncertainty_b=rise.loss_low, gap=rise.loss_high - rise.loss_low,
                                 method="the spec's analyst at two sampled e^ε of a rise")
        refuted("range", rise.low, rise.high, certificate)
    return bool(beyond)
