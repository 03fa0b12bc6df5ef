"""Readers of a spec's values and of the small tables it names (prior, loss, quality, pre-processor, map),
each refusal naming the key and the reason.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from proofs_checks.gate import limits
from proofs_checks.gate.model import SpecError
from proofs_checks.gate.queries import MapQuery
from qifkit.errors import QifError
from qifkit.files import read_input_text, read_table_csv
from qifkit.measures import Loss
from qifkit.numbers import exact_str, parse_number, quoted
from qifkit.validation import bounded_eps_exp, whole_number


def spec_table(path: str, what: str) -> tuple[list[list[str]], list[str] | None, list[str] | None]:
    """A CSV table a spec names (a loss, a quality, a prior), read by :func:`qifkit.files.read_table_csv`;
    an unreadable or malformed file is a :class:`SpecError` naming it."""
    try:
        return read_table_csv(path)
    except OSError as error:
        raise SpecError(f"cannot read the {what} {path}: {error.strerror}") from None
    except QifError as error:
        raise SpecError(str(error)) from None


def loss_table(path: str, values: int) -> Loss:
    """An analyst's loss from a CSV: one row per value 0..values-1 of the unknown respondent, one
    column per action (a header of action names, and a first column 0..values-1, are optional)."""
    table, rows, actions = spec_table(path, "loss")
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


def quality_rows(path: str, values: int) -> list[list[Fraction]]:
    table, _, _ = spec_table(path, "quality")
    if len(table) != values or any(len(row) != values for row in table):
        raise SpecError(f"the quality {path} must be {values} × {values} (values = {values}), not "
                        f"{len(table)} × {len(table[0])}")
    return [[spec_number(cell, f"the quality {path}, row {i + 1}") for cell in row] for i, row in enumerate(table)]


def prior_file(path: str, secrets: int) -> list[str]:
    """An analyst's prior from a CSV: one probability per secret (a column, or a row), in the order of
    the secrets (the values 0..values-1 of the one unknown respondent, or the histograms of the
    unknown respondents as ``qifkit.pipelines.histograms`` lists them)."""
    table, _, _ = spec_table(path, "prior")
    cells = [row[0] for row in table] if all(len(row) == 1 for row in table) else table[0] if len(table) == 1 else None
    if cells is None:
        raise SpecError(f"the prior {path} must be one column (or one row) of probabilities")
    if len(cells) != secrets:
        raise SpecError(f"the prior {path} has {len(cells)} entries for {secrets} secrets")
    return cells


def pairs_csv(path: str, what: str, count: int) -> list[str]:
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


def map_table(table: Any, query: Any, respondents: int, folder: Path) -> tuple[str, ...]:
    """A map query: the count of the counted values, post-processed by the user's table, a CSV of
    rows ``count,label`` for every count 0..respondents (a deterministic map, Alvim et al. Def. 13;
    its labels are the releases, in the order they first appear)."""
    if not isinstance(query, MapQuery):
        if table is not None:
            raise SpecError(f"[query] table is for a map query, not {quoted(query.name)}")
        return ()
    if not isinstance(table, str):
        raise SpecError('[query] table must name a CSV of count,label rows, e.g. table = "bands.csv"')
    return tuple(pairs_csv(str(folder / table), "map", respondents + 1))


def expanded_counts(counts: Any, values: int, respondents: int) -> list[int]:
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
        checked[int(key)] = whole(count, f"[population] known_counts {quoted(key)}", 0)
    if sum(checked.values()) > respondents - 1:
        raise SpecError(f"known_counts add up to {sum(checked.values()):,} but respondents − 1 = {respondents - 1:,}: "
                        "one must stay unknown")
    return sorted(value for value, count in checked.items() for _ in range(count))


def whole(value: Any, name: str, minimum: int, maximum: int | None = None) -> int:
    return whole_number(value, minimum, name, maximum=maximum, error=SpecError)


def spec_eps_exp(value: Any, name: str) -> Fraction:
    """An e^ε of the spec (:func:`qifkit.validation.bounded_eps_exp`: > 1, bounded in digits and size)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise SpecError(f"{name} = {quoted(value)}: give e^ε as a string such as \"7/2\" or an integer")
    try:
        return bounded_eps_exp(value if isinstance(value, str) else str(value))
    except QifError as error:
        raise SpecError(f"{name} {quoted(value)}: {error}") from None


def spec_grid(values: Any) -> tuple[Fraction, ...]:
    """The grid of e^ε, a set: a value given twice, in any spelling (``"35/10"`` and ``"3.5"``,
    ``"ln(2)"`` and ``"2"``), is refused, since it would compare a pipeline with itself."""
    if not isinstance(values, list):
        raise SpecError("[sweep] eps_exp must be a list of e^ε values")
    seen: dict[Fraction, Any] = {}
    for value in values:
        number = spec_eps_exp(value, "[sweep] eps_exp value")
        if number in seen:
            raise SpecError(f"[sweep] eps_exp gives e^ε = {exact_str(number)} twice ({quoted(seen[number])} and "
                            f"{quoted(value)}): a grid is a set of values")
        seen[number] = value
    return tuple(seen)


def spec_number(value: Any, name: str) -> Fraction:
    if isinstance(value, bool) or isinstance(value, float):
        raise SpecError(f"{name} = {quoted(value)}: give exact numbers as integers or strings such as \"0.1\"")
    if isinstance(value, str) and len(value) > limits.MAX_SPEC_NUMBER_TEXT:
        raise SpecError(f"{name} is a number string of {len(value):,} characters; a spec's numbers have at most "
                        f"{limits.MAX_SPEC_NUMBER_TEXT:,}")
    try:
        return parse_number(value) if isinstance(value, str) else Fraction(int(value))
    except (QifError, TypeError, ValueError) as error:
        raise SpecError(f"{name} = {quoted(value)}: {error}") from None
