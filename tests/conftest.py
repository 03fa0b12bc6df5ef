"""Shared settings and fixtures for the test suite."""

import json
import random
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from qifkit.channel import Channel
from qifkit.lp import LinearProgram

#: The project's example specs (examples/), as the README runs them.
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

settings.register_profile("qifkit", max_examples=60, deadline=None)
settings.load_profile("qifkit")


@pytest.fixture
def unguarded_str():
    """Python's own ``str`` with its 4300-digit guard lifted for the one call: an independent way to
    write huge ints and fractions, to compare the package's writers with."""

    def write(value):
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            return str(value)
        finally:
            sys.set_int_max_str_digits(old)

    return write


def pytest_collection_modifyitems(config, items):
    """Slow tests first: in the README's parallel run (pytest-xdist) the longest one (the complete
    n = 5 local-DP polytope, about 6 minutes) then overlaps the rest of the suite instead of
    starting last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _random_program(rng: random.Random, blocks: bool = False) -> LinearProgram:
    """Small random programs of every kind: equalities, ranges, one-sided rows, free and boxed
    variables, duplicated (rank-deficient) rows, degenerate right-hand sides, and badly scaled
    rows (coefficients from 1e-9 to 1e9)."""
    n, m = rng.randint(1, 7), rng.randint(1, 7)
    rows = []
    for _ in range(m):
        rows.append({k: F(rng.randint(-4, 4), rng.choice([1, 1, 2, 3])) for k in range(n) if rng.random() < 0.6})
    if m > 2 and rng.random() < 0.3:  # a row that is a combination of two others
        first, second = rows[0], rows[1]
        rows[-1] = {k: first.get(k, 0) + 2 * second.get(k, 0) for k in set(first) | set(second)}
    if rng.random() < 0.2:  # badly scaled
        scale = F(10) ** rng.choice([-9, -6, 6, 9])
        rows[0] = {k: a * scale for k, a in rows[0].items()}
    row_lower, row_upper = [], []
    for _ in range(m):
        kind, value = rng.random(), F(rng.choice([0, 0, rng.randint(-5, 5)]))
        if kind < 0.3:
            row_lower.append(value), row_upper.append(value)
        elif kind < 0.6:
            row_lower.append(value), row_upper.append(None)
        elif kind < 0.8:
            row_lower.append(None), row_upper.append(value)
        else:
            row_lower.append(value), row_upper.append(value + rng.randint(0, 3))
    lower, upper = [], []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.6:
            lower.append(0), upper.append(None)
        elif kind < 0.8:
            lower.append(rng.randint(-2, 0)), upper.append(rng.randint(0, 3))
        else:
            lower.append(None), upper.append(None)
    cost = [rng.randint(-3, 3) for _ in range(n)]
    groups = [rng.randrange(3) for _ in range(n)] if blocks else None
    return LinearProgram.build(n, rows, row_lower=row_lower, row_upper=row_upper, cost=cost, lower=lower, upper=upper,
                               blocks=groups)


@pytest.fixture
def python_ctrl_c():
    """Python's own SIGINT handler in place for the test, put back as it was after: a test that sends
    itself SIGINT must not depend on what earlier tests left there (importing pplpy puts cysignals'
    handler in place, which does not raise KeyboardInterrupt for a signal Python's handler took)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def random_program():
    """Small random LPs of every kind, for the agreement tests of the LP engine and its oracles
    (cddlib, PPL, QSopt_ex): ``random_program(rng, blocks=False)``."""
    return _random_program


@pytest.fixture
def patch_lp(monkeypatch):
    """``patch_lp(name, value)``: replace `name` in every module of the LP engine (qifkit.lp.*) that
    has it, so that a test reaches every caller of a function the modules import from each other."""
    import importlib
    import pkgutil

    import qifkit.lp

    def patch(name, value):
        patched = 0
        for info in pkgutil.iter_modules(qifkit.lp.__path__):
            module = importlib.import_module(f"qifkit.lp.{info.name}")
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)
                patched += 1
        assert patched, f"no module of qifkit.lp has {name}"

    return patch


# ------------------------------------------------------------------ shared hypothesis strategies
# (``from conftest import channels``: the test folder is on the import path)
@st.composite
def stochastic_rows(draw, rows=None, columns=None):
    """Rows of small non-negative integers (not all zero), normalised exactly."""
    m = draw(st.integers(1, 4)) if rows is None else rows
    n = draw(st.integers(1, 4)) if columns is None else columns
    result = []
    for _ in range(m):
        weights = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n).filter(any))
        total = sum(weights)
        result.append([F(w, total) for w in weights])
    return result


@st.composite
def channels(draw, rows=None, columns=None):
    return Channel.from_rows(draw(stochastic_rows(rows, columns)))


# ------------------------------------------------------------------ stability specs
def spec_document(family="randomized_response", values=2, respondents=3, *, known=None, known_counts=None,
                  query="count", of=(0,), at=None, table=None, prior="uniform_histograms", loss="bayes",
                  eps=("2", "3"), low=None, high=None, exact=None, question=None, tolerance=None, sections=None):
    """A stability spec as ``parse_spec`` reads it (the tests' one spec writer): keywords for the
    usual keys; `of` is written for the count, threshold and map queries; `sections` replaces whole
    sections (``{"perturber": {...}}``) for anything the keywords do not say; `question` and
    `tolerance` make a ``[gate]`` table."""
    population = {"respondents": respondents}
    if known is not None:
        population["known"] = list(known)
    if known_counts is not None:
        population["known_counts"] = {str(value): count for value, count in known_counts.items()}
    query_section = {"kind": query}
    if query in ("count", "threshold", "map"):
        query_section["of"] = list(of)
    query_section.update({key: value for key, value in (("at", at), ("table", table)) if value is not None})
    sweep = {"eps_exp": list(eps)} if eps else {}
    sweep.update({key: value for key, value in (("from", low), ("to", high), ("exact", exact)) if value is not None})
    document = {"perturber": {"family": family, "values": values}, "population": population, "query": query_section,
                "analyst": {"prior": prior, "loss": loss}, "sweep": sweep}
    gate = {key: value for key, value in (("question", question), ("tolerance", tolerance)) if value is not None}
    if gate:
        document["gate"] = gate
    document.update({name: section for name, section in (sections or {}).items() if section is not None})
    return document


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string (JSON's escapes are TOML's)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_value(str(key))} = {_toml_value(item)}" for key, item in value.items()) + "}"
    return "[" + ", ".join(_toml_value(item) for item in value) + "]"


def spec_toml(document):
    """The TOML text of a spec document (tables of strings, whole numbers, booleans, lists and
    inline tables: what specs hold)."""
    return "".join(f"[{name}]\n" + "".join(f"{key} = {_toml_value(value)}\n" for key, value in section.items())
                   for name, section in document.items())


def write_spec(folder, document, name="spec.toml"):
    """Write a spec document (or a text, written as it is) to `folder`/`name`; its path as a string."""
    path = folder / name
    path.write_text(document if isinstance(document, str) else spec_toml(document))
    return str(path)


def left_of(point, q) -> bool:
    """A real point (qifkit.real_roots.RealPoint) ≤ the rational q, decided by narrowing the point's
    isolating interval (a rational point compares at once)."""
    while True:
        low, high = point.bounds
        if high <= q:
            return True
        if low > q:
            return False
        point.narrowed((high - low) / 4)


def right_of(point, q) -> bool:
    """A real point ≥ the rational q."""
    while True:
        low, high = point.bounds
        if low >= q:
            return True
        if high < q:
            return False
        point.narrowed((high - low) / 4)


def pieces_agree(curve, exact) -> None:
    """Every piece a piecewise route decided (qifkit.ball_range, qifkit.mode_range) agrees with the
    exact stretches of root isolation: a rising piece lies in an exact rising stretch, a falling
    piece meets none, a decided verdict is the exact one, and the pieces tile the range."""
    rising, falling = "rising", "falling"
    for piece in curve.pieces:
        if piece.direction == rising:
            assert any(left_of(s, piece.low) and right_of(e, piece.high) for s, e in exact.rising), piece
        elif piece.direction == falling:
            assert all(left_of(e, piece.low) or right_of(s, piece.high) for s, e in exact.rising), piece
    assert curve.monotone in (None, exact.monotone)
    assert curve.pieces[0].low == exact.low and curve.pieces[-1].high == exact.high
    assert all(p.high == q.low for p, q in zip(curve.pieces, curve.pieces[1:], strict=False))
