"""Hostile inputs for every command (issue 14): each case is a file, option or folder a careless or
malicious user could give, with the outcome a careful library owes them. A refusal is exit 2 with one
``qifkit: error:`` line naming the problem and no traceback; an answer is the right verdict.

A case may also name files the run must leave as they were (``kept``: the user's spec, channel or
notes: a changed one is data loss), FIFOs to create (a read of one would wait forever), and a
``setup`` that builds a folder first (a resume folder made wrong but consistent, issue 38).

The catalogue is data (``CASES``); ``python tests/test_hostile_inputs.py`` prints the tally for the
README's reliability table (each case run in a child process with a time limit: refused, answered,
wrong, data loss, crashed, timed out).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import spec_document, spec_toml

from proofs_checks.beyond import CENSUS_FOLDER
from proofs_checks.cli import main

IDENTITY = "1,0\n0,1\n"
FLAT = "1/2,1/2\n1/2,1/2\n"
REFUSED = 2


@dataclass(frozen=True)
class Case:
    """One hostile input: the files to create (name -> text or bytes), the arguments (``{d}`` is the
    case's folder), the exit status owed, and a text the output must contain (lower case)."""

    id: str
    argv: tuple[str, ...]
    files: dict[str, str | bytes] = field(default_factory=dict)
    status: int = REFUSED
    says: str = ""
    kept: tuple[str, ...] = ()
    fifos: tuple[str, ...] = ()
    setup: Callable[[Path], None] | None = None
    stdout: str = ""  # "" as usual; "gone" (a pipe whose reader left), "closed" (>&-), "full" (/dev/full)
    env: dict[str, str] = field(default_factory=dict)


def _refine_a(name: str, a_text: str | bytes, says: str = "", status: int = REFUSED) -> Case:
    return Case(f"refine-csv-{name}", ("refine", "{d}/a.csv", "{d}/b.csv"), {"a.csv": a_text, "b.csv": FLAT},
                status, says)


# Cells that are not exact numbers: every one must be refused, naming the cell.
_BAD_CELLS = {
    "nan": "nan", "inf": "inf", "minus-inf": "-inf", "one-over-zero": "1/0", "zero-over-zero": "0/0",
    "fullwidth-digit": "\uff11", "arabic-indic-digit": "\u0661", "vulgar-half": "\u00bd", "superscript": "\u00b9",
    "hex": "0x1", "underscore": "1_0", "python-expr": "__import__('os')", "power": "2**-1", "true": "True",
    "empty-fraction": "1/", "double-slash": "1//2", "two-slashes": "1/2/2", "comma-decimal": "0;5",
    "ln": "ln(1)", "sqrt": "sqrt(1/4)", "letter-o": "O", "space-inside": "1 2", "percent": "50%",
    "huge-exponent": "1e5000", "tiny-exponent": "1e-5000", "exponent-5000-digits": "1e" + "9" * 5000,
    "long-cell": "1" * 200_001, "null-byte": "1\x00", "minus-minus": "--1", "plus-minus": "+-1",
    "dot-only": ".", "e-only": "e5", "complex": "1j", "tab-inside": "1\t2",
}


def _csv_cases() -> list[Case]:
    cases = []
    for name, cell in _BAD_CELLS.items():
        cases.append(_refine_a(f"cell-{name}", f"{cell},1\n0,1\n"))  # a bad cell in the first row
        cases.append(_refine_a(f"row2-{name}", f"1,0\n{cell},1\n"))  # a bad cell in a data row
    rows = {
        "negative": ("2,-1\n0,1\n", "negative"), "not-stochastic": ("1/2,1/4\n0,1\n", "sum"),
        "row-sum-over": ("1,1\n0,1\n", "sum"), "ragged": ("1,0\n1\n", ""), "empty": ("", "no rows"),
        "blank-lines": ("\n\n\n", "no rows"), "header-only": ("x,y\n", "header"),
        "one-by-zero-sum": ("0,0\n0,1\n", "sum"), "decimal-near-one": ("0.3333333333,0.6666666666\n0,1\n", "sum"),
        "float-thirds": ("0.1,0.2\n0,1\n", "sum"), "duplicate-secrets": (",a,b\ns,1,0\ns,0,1\n", ""),
        "duplicate-outputs": (",a,a\ns,1,0\nt,0,1\n", ""), "labels-mixed": ("a,0.5\n0.5,0.5\n", "mixes"),
        "semicolons": ("1;0\n0;1\n", ""), "tabs": ("1\t0\n0\t1\n", ""),
        "quote-unclosed": ('"1,0\n0,1\n', ""), "only-labels": (",a\ns,\n", ""),
        "wide-one-row": ("1" + ",0" * 19_999 + "\n", ""),
    }
    for name, (text, says) in rows.items():
        cases.append(_refine_a(name, text, says))
    encodings = {
        "utf16": IDENTITY.encode("utf-16"), "latin1-label": ",\xe9,b\ns,1,0\nt,0,1\n".encode("latin-1"),
        "binary": bytes(range(256)), "gzip-magic": b"\x1f\x8b\x08\x00" + b"\x00" * 20,
    }
    for name, data in encodings.items():
        cases.append(_refine_a(f"encoding-{name}", data))
    # Inputs that must be answered, and answered right.
    answered = {
        "bom": ("\ufeff1,0\n0,1\n", 0, "holds"),
        "crlf": ("1,0\r\n0,1\r\n", 0, "holds"),
        "spaces": (" 1 , 0 \n 0 , 1 \n", 0, "holds"),
        "decimals": ("1.0,0.00\n0e3,1e0\n", 0, "holds"),
        "labelled-against-unlabelled": (",y0,y1\nx0,1,0\nx1,0,1\n", REFUSED, "labels"),
        "trailing-blank": ("1,0\n0,1\n\n\n", 0, "holds"),
        "plus-sign": ("+1,0\n0,+1\n", 0, "holds"),
        "big-fraction": (f"{10**50}/{10**50},0\n0,1\n", 0, "holds"),
    }
    for name, (text, status, says) in answered.items():
        cases.append(_refine_a(f"answer-{name}", text, says, status))
    cases.append(Case("refine-answer-does-not-hold", ("refine", "{d}/b.csv", "{d}/a.csv"),
                      {"a.csv": IDENTITY, "b.csv": FLAT}, 1, "does not hold"))
    wide = ",".join(["1/20000"] * 20_000) + "\n"
    cases.append(Case("refine-witness-of-400-million-entries", ("refine", "{d}/a.csv", "{d}/b.csv"),
                      {"a.csv": wide, "b.csv": wide}, REFUSED, "more than 4,000,000"))
    cases.append(Case("refine-secret-mismatch", ("refine", "{d}/a.csv", "{d}/b.csv"),
                      {"a.csv": IDENTITY, "b.csv": "1\n1\n1\n"}, REFUSED, "secret"))
    cases.append(Case("refine-missing-file", ("refine", "{d}/none.csv", "{d}/b.csv"), {"b.csv": FLAT}, REFUSED,
                      "cannot read"))
    cases.append(Case("refine-folder-as-file", ("refine", "{d}", "{d}/b.csv"), {"b.csv": FLAT}, REFUSED, ""))
    cases.append(Case("refine-json-into-missing-folder", ("refine", "{d}/a.csv", "{d}/b.csv", "--json",
                                                           "{d}/no/cert.json"),
                      {"a.csv": IDENTITY, "b.csv": FLAT}, REFUSED, "does not exist"))
    cases.append(Case("refine-json-onto-folder", ("refine", "{d}/a.csv", "{d}/b.csv", "--json", "{d}"),
                      {"a.csv": IDENTITY, "b.csv": FLAT}, REFUSED, "folder"))
    return cases


def _certificate_cases() -> list[Case]:
    def verify(name: str, text: str | bytes, says: str = "", status: int = REFUSED) -> Case:
        return Case(f"verify-{name}", ("verify", "{d}/a.csv", "{d}/b.csv", "{d}/c.json"),
                    {"a.csv": IDENTITY, "b.csv": FLAT, "c.json": text}, status, says)

    good = {"refines": True, "witness": [["1/2", "1/2"], ["1/2", "1/2"]]}
    documents = {
        "not-json": ("{refines: true", "not json"), "empty": ("", "not json"), "list": ("[]", ""),
        "deep-nesting": ("[" * 100_000 + "]" * 100_000, ""), "nan-literal": ('{"refines": true, "witness": NaN}', ""),
        "missing-witness": ('{"refines": true}', "witness"), "no-claim": ('{"witness": []}', "refines"),
        "claim-string": (json.dumps({**good, "refines": "yes"}), "refines"),
        "witness-floats": (json.dumps({**good, "witness": [[0.5, 0.5], [0.5, 0.5]]}), ""),
        "witness-short": (json.dumps({**good, "witness": [["1", "0"]]}), ""),
        "witness-ragged": (json.dumps({**good, "witness": [["1"], ["1/2", "1/2"]]}), ""),
        "witness-bad-number": (json.dumps({**good, "witness": [["1/2", "x"], ["1/2", "1/2"]]}), "not a number"),
        "witness-huge-exponent": (json.dumps({**good, "witness": [["1e99999", "0"], ["1/2", "1/2"]]}), "exponent"),
        "refutation-missing-prior": (json.dumps({"refines": False, "loss": [["1"]]}), ""),
        "refutation-bad-prior": (json.dumps({"refines": False, "prior": ["a", "b"], "loss": [["1", "0"], ["0", "1"]]}),
                                 ""),
        "non-utf8": (b'{"refines": tru\xff}', ""),
        "huge-integer": ('{"refines": true, "witness": [[' + "1" * 5000 + ', 0], [0, 1]]}', ""),
    }
    cases = [verify(name, text, says) for name, (text, says) in documents.items()]
    # Certificates that parse but are wrong are INVALID (exit 1), never accepted.
    wrong = {
        "witness-not-stochastic": {**good, "witness": [["1", "1/2"], ["1/2", "1/2"]]},
        "witness-negative": {**good, "witness": [["3/2", "-1/2"], ["1/2", "1/2"]]},
        "witness-wrong-product": {**good, "witness": [["1", "0"], ["0", "1"]]},
    }
    cases += [verify(name, json.dumps(document), "invalid", 1) for name, document in wrong.items()]
    cases.append(verify("valid", json.dumps(good), "valid", 0))
    return cases


_SPEC = spec_document(respondents=2, known=[0])


def _with(table: str, **changes: object) -> dict:
    document = {t: dict(keys) for t, keys in _SPEC.items()}
    for key, value in changes.items():
        if value is None:
            document[table].pop(key, None)
        else:
            document[table][key] = value
    return document


def _spec_cases() -> list[Case]:
    def stability(name: str, text: str | bytes, says: str = "", status: int = REFUSED) -> Case:
        return Case(f"spec-{name}", ("stability", "{d}/s.toml"), {"s.toml": text}, status, says)

    documents = {
        "family-unknown": (_with("perturber", family="laplace"), "family"),
        "family-missing": (_with("perturber", family=None), "family"),
        "values-one": (_with("perturber", values=1), "values"),
        "values-string": (_with("perturber", values="2"), "values"),
        "values-float": (_with("perturber", values=2.0), "values"),
        "values-bool": (_with("perturber", values=True), "values"),
        "values-million": (_with("perturber", values=10**6), ""),
        "values-million-one-respondent": ({**_with("perturber", values=10**6),
                                           "population": {"respondents": 1, "known": []}}, ""),
        "values-billion-respondents-billion": ({**_with("perturber", values=10**9),
                                                "population": {"respondents": 10**9, "known": []}}, ""),
        "respondents-zero": (_with("population", respondents=0), "respondents"),
        "respondents-negative": (_with("population", respondents=-3), "respondents"),
        "respondents-huge": (_with("population", respondents=10**18), ""),
        "known-out-of-range": (_with("population", known=[5]), "known value must be a whole number in 0.."),
        "known-negative": (_with("population", known=[-1]), "known value must be a whole number in 0.."),
        "known-all": (_with("population", known=[0, 1]), "unknown"),
        "known-not-list": (_with("population", known="0"), "known"),
        "known-floats": (_with("population", known=[0.0]), ""),
        "query-unknown": (_with("query", kind="median"), "query"),
        "query-of-empty": (_with("query", of=[]), "of"),
        "query-of-out-of-range": (_with("query", of=[9]), "counted value must be a whole number in 0.."),
        "loss-unknown": (_with("analyst", loss="hinge"), "loss"),
        "loss-ama-count": (_with("analyst", loss="ama"), "ama"),
        "scale-zero": (_with("analyst", scale="0"), "scale"),
        "scale-float": (_with("analyst", scale=0.5), "scale"),
        "scale-text": (_with("analyst", scale="big"), "scale"),
        "prior-unknown": (_with("analyst", prior="jeffreys"), "prior"),
        "prior-wrong-length": (_with("analyst", prior=["1"]), ""),
        "prior-not-distribution": (_with("analyst", prior=["1", "1"]), ""),
        "prior-negative": (_with("analyst", prior=["3/2", "-1/2"]), ""),
        "prior-nan": (_with("analyst", prior=["nan", "1"]), ""),
        "eps-one": (_with("sweep", eps_exp=["1", "2"]), "ε"),
        "eps-below-one": (_with("sweep", eps_exp=["1/2"]), ""),
        "eps-zero": (_with("sweep", eps_exp=["0"]), ""),
        "eps-negative": (_with("sweep", eps_exp=["-2"]), ""),
        "eps-float": (_with("sweep", eps_exp=[2.5]), ""),
        "eps-nan": (_with("sweep", eps_exp=["nan"]), ""),
        "eps-ln-zero": (_with("sweep", eps_exp=["ln(0)"]), ""),
        "eps-expression": (_with("sweep", eps_exp=["2**3"]), "not a number"),
        "eps-exponent": (_with("sweep", eps_exp=["1e" + "9" * 5000]), ""),
        "eps-empty": (_with("sweep", eps_exp=[]), "sweep"),
        "range-reversed": (_with("sweep", eps_exp=None, **{"from": "3", "to": "2"}), "below"),
        "range-half": (_with("sweep", eps_exp=None, **{"from": "3"}), "both"),
        "range-float": (_with("sweep", eps_exp=None, exact=False, **{"from": "2", "to": "3"}), "exact"),
        "exact-string": (_with("sweep", exact="yes"), "exact"),
        "unknown-table": ({**_SPEC, "extra": {"a": 1}}, "unknown table"),
        "unknown-key": (_with("query", colour="red"), "unknown key"),
        # issue 50: the gate's question, tolerance, the named priors and the population model
        "gate-question-unknown": ({**_SPEC, "gate": {"question": "mine"}}, "question"),
        "gate-question-number": ({**_SPEC, "gate": {"question": 1}}, "question"),
        "gate-tolerance-negative": ({**_SPEC, "gate": {"tolerance": "-1"}}, "at least 0"),
        "gate-tolerance-float": ({**_SPEC, "gate": {"tolerance": 0.5}}, "exact numbers"),
        "gate-tolerance-nan": ({**_SPEC, "gate": {"tolerance": "nan"}}, "tolerance"),
        "gate-tolerance-inf": ({**_SPEC, "gate": {"tolerance": "inf"}}, "tolerance"),
        "gate-tolerance-long": ({**_SPEC, "gate": {"tolerance": "9" * 5001}}, "characters"),
        "gate-tolerance-every-analyst": ({**_SPEC, "gate": {"question": "every_analyst", "tolerance": "1/2"}},
                                         "needs question"),
        "prior-uniform-ambiguous": (_with("analyst", prior="uniform") | {"population": {"respondents": 3}},
                                    "uniform_histograms"),
        "population-prior-short": (_with("population", population_prior=["1"]), "probabilities"),
        "population-prior-not-list": (_with("population", population_prior="1/2"), "probabilities"),
        "population-prior-sum": (_with("population", population_prior=["1/2", "1/3"]), "distribution"),
        "population-prior-negative": (_with("population", population_prior=["3/2", "-1/2"]), "distribution"),
        "population-prior-nan": (_with("population", population_prior=["nan", "1"]), ""),
        "population-targets-alone": (_with("population", targets=1), "needs population_prior"),
        "population-targets-zero": (_with("population", targets=0, population_prior=["1/2", "1/2"]), "targets"),
        "population-targets-huge": (_with("population", targets=10**18, population_prior=["1/2", "1/2"]), "targets"),
        "population-targets-float": (_with("population", targets=1.0, population_prior=["1/2", "1/2"]), "targets"),
        "perturber-work-digits": (_with("perturber", family="geometric", values=1000)
                                  | {"sweep": {"eps_exp": ["999999999", "1000000000"]}}, "units of work"),
    }
    cases = [stability(name, spec_toml(document), says) for name, (document, says) in documents.items()]
    raw = {
        "not-toml": ("[perturber\nfamily = 1", "toml"),
        "empty": ("", ""),
        "non-utf8": (b'[perturber]\nfamily = "\xff"\n', ""),
        "table-is-value": ("perturber = 3\n", "table"),
        "binary": (bytes(range(256)), ""),
        "deep-arrays": ("x = " + "[" * 10_000 + "]" * 10_000 + "\n", ""),
        "gate-not-table": ('gate = "analyst"\n' + spec_toml(_SPEC), "[gate] must be a table"),
    }
    cases += [stability(name, text, says) for name, (text, says) in raw.items()]
    cases.append(Case("spec-missing-file", ("stability", "{d}/none.toml"), {}, REFUSED, "cannot read"))
    cases.append(Case("spec-certificate-onto-file", ("stability", "{d}/s.toml", "--certificate", "{d}/s.toml"),
                      {"s.toml": spec_toml(_SPEC)}, REFUSED, "not a folder"))
    cases.append(stability("answer-stable", spec_toml(_SPEC), "stable", 0))
    cases.append(stability("answer-population-model", spec_toml(_with(
        "population", respondents=40, known=[0] * 10, targets=1, population_prior=["1/3", "2/3"])), "stable", 0))
    cases.append(stability("answer-histogram-ten-thousand", spec_toml(spec_document(
        respondents=10_000, query="histogram", eps=(), low="3/2", high="8", question="every_analyst")), "stable", 0))
    return cases


def _option_cases() -> list[Case]:
    eps = {
        "zero": "0",
        "negative": "-1",
        "one-half": "1/2",
        "nan": "nan",
        "inf": "inf",
        "div-zero": "1/0",
        "empty": "",
        "ln-zero": "ln(0)",
        "ln-negative": "ln(-1)",
        "ln-nested": "ln(ln(2))",
        "exponent": "1e5000",
        "long-garbage": "9" * 100_000 + "x",
        "long-div-zero": "9" * 5000 + "/0",
        "expression": "2+1",
        "words": "two",
        "fullwidth": "\uff12",
    }
    cases = []
    for name, value in eps.items():
        cases.append(Case(f"enumerate-eps-{name}", ("enumerate", "LDP", "--n", "2", "--eps-exp", value)))
        cases.append(Case(f"construct-eps-{name}", ("construct", "--z", "uniform", "--n", "3", "--eps-exp", value)))
    sizes = {"n-zero": "0", "n-negative": "-4", "n-huge": str(10**20), "n-text": "three",
             "n-float": "2.5"}
    for name, value in sizes.items():
        cases.append(Case(f"enumerate-{name}", ("enumerate", "U", "--n", value, "--eps-exp", "2")))
        cases.append(Case(f"design-{name}", ("design", "--max-count", value, "--alpha", "1/2", "--mechanism", "gm")))
        cases.append(Case(f"design-values-{name}", ("design", "--n", value, "--alpha", "1/2", "--mechanism", "gm")))
    cases += [
        Case("enumerate-ldp-n100", ("enumerate", "LDP", "--n", "100", "--eps-exp", "2"), says="stops at"),
        Case(
            "enumerate-z-for-u", ("enumerate", "U", "--n", "2", "--eps-exp", "2", "--z", "1/2,1/2"), says="fixed point"
        ),
        Case("enumerate-z-zero", ("enumerate", "F", "--n", "3", "--eps-exp", "2", "--z", "1/2,1/2,0"), says="positive"),
        Case("enumerate-z-length", ("enumerate", "F", "--n", "3", "--eps-exp", "2", "--z", "1/2,1/2"), says="entries"),
        Case("enumerate-z-sum", ("enumerate", "F", "--n", "2", "--eps-exp", "2", "--z", "1/2,1/4")),
        Case("enumerate-unknown-polytope", ("enumerate", "X", "--n", "2", "--eps-exp", "2")),
        Case(
            "enumerate-resume-small",
            ("enumerate", "U", "--n", "2", "--eps-exp", "2", "--resume", "{d}/r"),
            says="resume",
        ),
        Case(
            "enumerate-json-missing-folder",
            ("enumerate", "U", "--n", "2", "--eps-exp", "2", "--json", "{d}/no/v.json"),
            says="does not exist",
        ),
        Case(
            "enumerate-answer-ldp-n3", ("enumerate", "LDP", "--n", "3", "--eps-exp", "2"), status=0, says="33 vertices"
        ),
        Case("construct-z-zero", ("construct", "--z", "1/2,1/2,0", "--eps-exp", "2")),
        Case("construct-z-negative", ("construct", "--z", "3/2,-1/2", "--eps-exp", "2")),
        Case("construct-z-sum", ("construct", "--z", "1/2,1/4", "--eps-exp", "2")),
        Case("construct-z-empty-entry", ("construct", "--z", "1/2,,1/2", "--eps-exp", "2"), says="empty"),
        Case("construct-z-nan", ("construct", "--z", "nan,1", "--eps-exp", "2")),
        Case(
            "construct-z-and-file",
            ("construct", "--z", "1/2,1/2", "--z-file", "{d}/z.csv", "--eps-exp", "2"),
            {"z.csv": "1/2,1/2\n"},
        ),
        Case("construct-no-z", ("construct", "--eps-exp", "2")),
        Case("construct-named-without-n", ("construct", "--z", "binomial", "--eps-exp", "2"), says="--n"),
        Case("construct-n-without-name", ("construct", "--z", "1/2,1/2", "--n", "2", "--eps-exp", "2")),
        Case("construct-float-n-huge", ("construct", "--z", "uniform", "--n", "100000", "--float", "--eps-exp", "2")),
        Case("construct-exact-n-huge", ("construct", "--z", "uniform", "--n", "100000", "--eps-exp", "2")),
        Case(
            "construct-lp-n-huge",
            ("construct", "--z", "uniform", "--n", "5000", "--method", "lp-fixed", "--eps-exp", "2"),
        ),
        Case(
            "construct-selector-alg2",
            ("construct", "--z", "uniform", "--n", "3", "--eps-exp", "2", "--method", "alg2", "--selector", "max"),
            says="selector",
        ),
        Case(
            "construct-float-lp",
            ("construct", "--z", "uniform", "--n", "3", "--eps-exp", "2", "--method", "lp-fixed", "--float"),
            says="float",
        ),
        Case(
            "construct-out-format",
            ("construct", "--z", "uniform", "--n", "3", "--eps-exp", "2", "--out", "{d}/t.txt"),
            says="format",
        ),
        Case(
            "construct-out-missing-folder",
            ("construct", "--z", "uniform", "--n", "3", "--eps-exp", "2", "--out", "{d}/no/t.csv"),
            says="does not exist",
        ),
        Case(
            "construct-zfile-missing", ("construct", "--z-file", "{d}/none.csv", "--eps-exp", "2"), says="cannot read"
        ),
        Case("construct-zfile-garbage", ("construct", "--z-file", "{d}/z.csv", "--eps-exp", "2"), {"z.csv": "a,b\n"}),
        Case(
            "construct-zfile-binary",
            ("construct", "--z-file", "{d}/z.csv", "--eps-exp", "2"),
            {"z.csv": bytes(range(256))},
        ),
        Case(
            "construct-zfile-npy-garbage",
            ("construct", "--z-file", "{d}/z.npy", "--eps-exp", "2"),
            {"z.npy": b"not numpy"},
        ),
        Case("construct-zfile-empty", ("construct", "--z-file", "{d}/z.csv", "--eps-exp", "2"), {"z.csv": ""}),
        Case(
            "construct-answer-uniform",
            ("construct", "--z", "uniform", "--n", "3", "--eps-exp", "2"),
            status=0,
            says="worst ratio 2",
        ),
        Case("design-alpha-one", ("design", "--max-count", "3", "--alpha", "1")),
        Case("design-alpha-five", ("design", "--max-count", "3", "--alpha", "5", "--mechanism", "um"), says="alpha"),
        Case("design-alpha-zero", ("design", "--max-count", "3", "--alpha", "0")),
        Case("design-alpha-negative", ("design", "--max-count", "3", "--alpha", "-1/2")),
        Case("design-alpha-nan", ("design", "--max-count", "3", "--alpha", "nan")),
        Case("design-alpha-float-words", ("design", "--max-count", "3", "--alpha", "half")),
        Case(
            "design-min-distance-negative",
            ("design", "--max-count", "3", "--alpha", "1/2", "--min-distance", "-5"),
            says="negative",
        ),
        Case(
            "design-props-unknown", ("design", "--max-count", "3", "--alpha", "1/2", "--props", "XX"), says="property"
        ),
        Case(
            "design-props-empty-entry",
            ("design", "--max-count", "3", "--alpha", "1/2", "--props", "WH,,CM"),
            says="empty",
        ),
        Case(
            "design-props-and-mechanism",
            ("design", "--max-count", "3", "--alpha", "1/2", "--props", "WH", "--mechanism", "gm"),
        ),
        Case(
            "design-n-100000-gm",
            ("design", "--max-count", "100000", "--alpha", "1/2", "--mechanism", "gm"),
            says="stops",
        ),
        Case("design-optimum-n-1000", ("design", "--max-count", "1000", "--alpha", "1/2"), says="stops"),
        Case("enumerate-n-one", ("enumerate", "U", "--n", "1", "--eps-exp", "2")),
        Case("design-answer-n-one", ("design", "--max-count", "1", "--alpha", "1/2", "--mechanism", "gm"), status=0),
        Case(
            "design-answer-gm",
            ("design", "--max-count", "2", "--alpha", "1/2", "--mechanism", "gm"),
            status=0,
            says="gm",
        ),
        Case("check-unknown-id", ("check", "--only", "nobody.*"), says="no check id"),
        Case("check-json-folder", ("check", "--only", "cormode18.example1", "--json", "{d}"), says="folder"),
        Case("no-command", ()),
        Case("unknown-command", ("frobnicate",)),
    ]
    return cases


def _resume_cases() -> list[Case]:
    base = ("enumerate", "LDP", "--n", "5", "--eps-exp", "2", "--resume", "{d}/r")
    foreign = json.dumps({"problem": "not ours"})
    return [
        Case("resume-manifest-garbage", base, {"r/manifest.json": "{not json"}, says="manifest"),
        Case("resume-manifest-foreign", base, {"r/manifest.json": foreign}, says="manifest"),
        Case("resume-manifest-list", base, {"r/manifest.json": "[]"}, says="manifest"),
        Case("resume-manifest-binary", base, {"r/manifest.json": bytes(range(256))}, says="manifest"),
        Case("resume-folder-is-file", base, {"r": "a file"}),
        # issue 52: a file of the user's at a block's name, and links, are never replaced or written through
        Case("resume-users-file-at-a-block-name", ("enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume",
                                                   "{d}/r"), {"r/support-1.json": "my notes"},
             says="not a block this tool wrote", kept=("r/support-1.json",)),
        Case("resume-manifest-a-link", ("enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume", "{d}/r"),
             {"notes.txt": "my notes"}, says="symbolic link", kept=("notes.txt",),
             setup=lambda d: ((d / "r").mkdir(), (d / "r" / "manifest.json").symlink_to(d / "notes.txt"))),
        Case("resume-block-a-link", ("enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume", "{d}/r"),
             {"notes.txt": "my notes"}, says="not a block this tool wrote", kept=("notes.txt",),
             setup=lambda d: ((d / "r").mkdir(), (d / "r" / "support-1.json").symlink_to(d / "notes.txt"))),
    ]


def _lost_files_cases() -> list[Case]:
    """Issue 38: outputs onto inputs or onto each other, and a certificate folder beside the user's files."""
    spec = {"s.toml": spec_toml(_SPEC)}
    channels = {"a.csv": IDENTITY, "b.csv": FLAT}
    mechanism = ("design", "--max-count", "2", "--alpha", "1/2", "--mechanism", "gm")
    return [
        Case(
            "lost-stability-json-onto-spec",
            ("stability", "{d}/s.toml", "--json", "{d}/s.toml"),
            spec,
            says="input",
            kept=("s.toml",),
        ),
        Case(
            "lost-stability-json-onto-spec-by-another-path",
            ("stability", "{d}/s.toml", "--json", "{d}/x/../s.toml"),
            {**spec, "x/keep": ""},
            says="input",
            kept=("s.toml",),
        ),
        Case(
            "lost-refine-json-onto-a",
            ("refine", "{d}/a.csv", "{d}/b.csv", "--json", "{d}/a.csv"),
            channels,
            says="input",
            kept=("a.csv",),
        ),
        Case(
            "lost-refine-json-onto-b",
            ("refine", "{d}/a.csv", "{d}/b.csv", "--json", "{d}/b.csv"),
            channels,
            says="input",
            kept=("b.csv",),
        ),
        Case(
            "lost-certificate-folder-beside-notes",
            ("stability", "{d}/s.toml", "--certificate", "{d}"),
            {**spec, "pair-programming/notes.txt": "mine", "notes.txt": "mine"},
            0,
            "stable",
            kept=("pair-programming/notes.txt", "notes.txt", "s.toml"),
        ),
        Case(
            "lost-certificate-folder-holds-a-users-cert",
            ("stability", "{d}/s.toml", "--certificate", "{d}"),
            {**spec, "cert.json": "the user's"},
            says="not a certificate qifkit wrote",
            kept=("cert.json",),
        ),
        Case(
            "lost-certificate-over-the-spec",
            ("stability", "{d}/a.csv", "--certificate", "{d}"),
            {"a.csv": spec_toml(_SPEC)},
            says="writes a.csv",
            kept=("a.csv",),
        ),
        Case(
            "lost-stability-json-onto-its-perturber",
            ("stability", "{d}/s.toml", "--json", "{d}/p.csv"),
            {
                "s.toml": spec_toml({**_with("perturber", family="file", files={"2": "p.csv", "3": "q.csv"})}),
                "p.csv": "2/3,1/3\n1/3,2/3\n",
                "q.csv": "3/4,1/4\n1/4,3/4\n",
            },
            says="named by the spec",
            kept=("p.csv",),
        ),
        Case("lost-design-out-and-json", (*mechanism, "--out", "{d}/m.json", "--json", "{d}/m.json"), says="one file"),
        Case(
            "lost-construct-out-and-json",
            (
                "construct",
                "--z",
                "uniform",
                "--n",
                "3",
                "--eps-exp",
                "2",
                "--out",
                "{d}/t.json",
                "--json",
                "{d}/t.json",
            ),
            says="one file",
        ),
        Case(
            "lost-construct-out-onto-z-file",
            ("construct", "--z-file", "{d}/z.csv", "--eps-exp", "2", "--out", "{d}/z.csv"),
            {"z.csv": "1/2,1/2\n"},
            says="input",
            kept=("z.csv",),
        ),
        Case(
            "lost-enumerate-ine-ext-json",
            ("enumerate", "U", "--n", "2", "--eps-exp", "2", "--ine", "{d}/x", "--ext", "{d}/x", "--json", "{d}/x"),
            says="one file",
        ),
        Case(
            "lost-enumerate-json-into-resume",
            ("enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume", "{d}/r", "--json", "{d}/r/manifest.json"),
            says="resume folder",
        ),
        Case(
            "lost-check-markdown-and-json",
            ("check", "--only", "cormode18.example1", "--markdown", "{d}/r", "--json", "{d}/r"),
            says="one file",
        ),
        Case(
            "lost-stability-plot-and-json",
            ("stability", "{d}/s.toml", "--plot", "{d}/x.png", "--json", "{d}/x.png"),
            spec,
            says="one file",
        ),
        Case(
            "lost-two-outputs-to-stdout",
            ("enumerate", "U", "--n", "2", "--eps-exp", "2", "--ine", "-", "--json", "-"),
            says="standard output",
        ),
    ]


def _vacuous_cases() -> list[Case]:
    """Issue 38: grids that compare a pipeline with itself, values given twice, keys given twice."""
    def stability(name: str, document: dict, says: str) -> Case:
        return Case(f"vacuous-{name}", ("stability", "{d}/s.toml"), {"s.toml": spec_toml(document)}, REFUSED, says)

    twice = json.dumps({"refines": True, "witness": [["1/2", "1/2"], ["1/2", "1/2"]]})[:-1] + ', "refines": false}'
    return [
        stability("grid-same-twice", _with("sweep", eps_exp=["2", "2"]), "twice"),
        stability("grid-two-spellings", _with("sweep", eps_exp=["35/10", "3.5"]), "twice"),
        stability("grid-ln-and-value", _with("sweep", eps_exp=["ln(2)", "2"]), "twice"),
        stability("grid-one-point", _with("sweep", eps_exp=["2"]), "one e^ε"),
        stability("known-counts-twice", _with("population", known=None, respondents=3,
                                              known_counts={"1": 1, "01": 1}), "twice"),
        Case("vacuous-certificate-key-twice", ("verify", "{d}/a.csv", "{d}/b.csv", "{d}/c.json"),
             {"a.csv": IDENTITY, "b.csv": FLAT, "c.json": twice}, REFUSED, "given twice"),
    ]


def _fill_by_support(folder: Path) -> None:
    """A by-support resume folder of D at n = 4, e^ε = 2 whose support-3 block lost a vertex, the
    manifest's hash updated to match (issue 38: '903 vertices', exit 0)."""
    from polytopes.ldp_support import ldp_vertices_by_support
    from polytopes.resume import ResumeFolder

    ldp_vertices_by_support(4, "2", str(folder / "r"))
    block = json.loads((folder / "r" / "support-3.json").read_text())
    store = ResumeFolder(folder / "r", json.loads((folder / "r" / "manifest.json").read_text())["problem"])
    store.write("support-3.json", json.dumps(block[1:]))


def _hang_cases() -> list[Case]:
    """Issue 38: inputs that could block or run for minutes, each refused at once."""
    wide = "1" + ",0" * 2000 + "\n"  # one secret, 2,001 outputs: a 2,001 × 2,001 witness is beyond 4,000,000
    spec = {"s.toml": spec_toml(_SPEC)}
    return [
        Case(
            "hang-certificate-fifo",
            ("verify", "{d}/a.csv", "{d}/b.csv", "{d}/c.json"),
            {"a.csv": IDENTITY, "b.csv": FLAT},
            says="fifo",
            fifos=("c.json",),
        ),
        Case(
            "hang-certificate-dev-zero",
            ("verify", "{d}/a.csv", "{d}/b.csv", "/dev/zero"),
            {"a.csv": IDENTITY, "b.csv": FLAT},
            says="character device",
        ),
        Case("hang-channel-fifo", ("refine", "{d}/a.csv", "{d}/b.csv"), {"b.csv": FLAT}, says="fifo", fifos=("a.csv",)),
        Case("hang-spec-fifo", ("stability", "{d}/s.toml"), says="fifo", fifos=("s.toml",)),
        Case(
            "hang-z-file-fifo", ("construct", "--z-file", "{d}/z.csv", "--eps-exp", "2"), says="fifo", fifos=("z.csv",)
        ),
        Case(
            "hang-resume-unit-fifo",
            ("enumerate", "LDP", "--n", "3", "--eps-exp", "2", "--resume", "{d}/r"),
            says="fifo",
            fifos=("r/support-1.json",),
        ),
        Case("hang-spec-a-folder", ("stability", "{d}"), says="folder"),
        Case(
            "hang-grid-1e300",
            ("stability", "{d}/s.toml"),
            {"s.toml": spec_toml(_with("sweep", eps_exp=["2", "1e300"]))},
            says="10^9",
        ),
        Case(
            "hang-range-90000-digits",
            ("stability", "{d}/s.toml"),
            {
                "s.toml": spec_toml(
                    _with("sweep", eps_exp=None, **{"from": "2", "to": "3" + "0" * 90_000 + "/1" + "0" * 89_999})
                )
            },
            says="characters",
        ),
        Case(
            "hang-prior-90000-digits",
            ("stability", "{d}/s.toml"),
            {"s.toml": spec_toml(_with("analyst", prior=["1/3" + "0" * 90_000, "1"]))},
            says="at most 1,000",
        ),
        Case(
            "hang-verify-witness-beyond-the-limit",
            ("verify", "{d}/a.csv", "{d}/b.csv", "{d}/c.json"),
            {"a.csv": wide, "b.csv": wide, "c.json": "{}"},
            says="4,000,000",
        ),
        Case(
            "hang-resume-forged-by-support",
            ("enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--resume", "{d}/r"),
            says="not closed",
            setup=_fill_by_support,
        ),
        *(
            Case(f"answer-{name}", ("stability", "{d}/s.toml", *option), spec, 0, "stable")
            for name, option in (("json-stdout", ("--json", "-")), ("quiet", ("-q",)))
        ),
    ]


# Round 4 (issue 52): how options spell numbers, standard streams, outputs onto the check's inputs,
# links in the certificate folder.
_BAD_WHOLE = {
    "fullwidth": "\uff13", "arabic-indic": "\u0663", "devanagari": "\u0969", "thai": "\u0e53", "superscript": "\u00b3",
    "underscore": "1_0", "space-before": " 3", "hex": "0x3", "exponent": "3e0", "decimal": "3.0", "empty": "",
    "nan": "nan", "inf": "inf", "ten-digits": "9999999999", "negative": "-3",
}
_WHOLE_OPTIONS = {
    "enumerate-n": ("enumerate", "LDP", "--n", "{x}", "--eps-exp", "2"),
    "construct-n": ("construct", "--z", "uniform", "--n", "{x}", "--eps-exp", "2"),
    "design-n": ("design", "--n", "{x}", "--alpha", "1/2"),
    "design-max-count": ("design", "--max-count", "{x}", "--alpha", "1/2"),
    "design-min-distance": ("design", "--max-count", "3", "--alpha", "1/2", "--min-distance", "{x}"),
    "check-workers": ("check", "--only", "holohan17.lemma1", "--workers", "{x}"),
    "enumerate-workers": ("enumerate", "LDP", "--n", "4", "--eps-exp", "2", "--method", "orbits", "--workers", "{x}"),
}
_BAD_SECONDS = {name: text for name, text in _BAD_WHOLE.items()  # 3e0, 3.0 and " 3" are numbers of seconds
                if name not in ("exponent", "decimal", "ten-digits", "space-before")}
_STREAM_COMMANDS = {  # (arguments, files, the verdict's status)
    "refine-holds": (("refine", "{d}/a.csv", "{d}/b.csv"), {"a.csv": IDENTITY, "b.csv": FLAT}, 0),
    "refine-fails": (("refine", "{d}/b.csv", "{d}/a.csv"), {"a.csv": IDENTITY, "b.csv": FLAT}, 1),
    "check-list": (("check", "--list"), {}, 0),
    "stability": (("stability", "{d}/s.toml"), {"s.toml": spec_toml(_SPEC)}, 0),
    "stability-json": (("stability", "{d}/s.toml", "--json", "-"), {"s.toml": spec_toml(_SPEC)}, 0),
    "enumerate": (("enumerate", "LDP", "--n", "3", "--eps-exp", "2"), {}, 0),
    "construct": (("construct", "--z", "uniform", "--n", "4", "--eps-exp", "2"), {}, 0),
    "design": (("design", "--max-count", "3", "--alpha", "1/2", "--mechanism", "gm"), {}, 0),
    "help": (("--help",), {}, 0),
}


def _user_link(name: str, target_is_folder: bool = False) -> Callable[[Path], None]:
    """A setup: the user's own notes (a file, or a folder holding one) and a certificate folder
    whose `name` is the user's symbolic link to them."""
    def setup(folder: Path) -> None:
        (folder / "certs").mkdir()
        mine = folder / ("mine" if target_is_folder else "notes.txt")
        if target_is_folder:
            mine.mkdir()
            (mine / "cert.json").write_text("my notes")
        else:
            mine.write_text("my notes")
        link = folder / "certs" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(mine, target_is_directory=target_is_folder)
    return setup


def _round4_cases() -> list[Case]:
    cases = [Case(f"option-{option}-{name}", tuple(a.replace("{x}", text) for a in argv), {"s.toml": spec_toml(_SPEC)})
             for option, argv in _WHOLE_OPTIONS.items() for name, text in _BAD_WHOLE.items()]
    cases += [Case(f"option-time-limit-{name}", ("stability", "{d}/s.toml", "--time-limit", text),
                   {"s.toml": spec_toml(_SPEC)}) for name, text in _BAD_SECONDS.items()]
    cases += [Case(f"option-{command}-workers-beyond-the-machine", (command, *rest, "--workers", "100000"),
                   says="--workers 100000")
              for command, rest in (("check", ("--only", "holohan17.lemma1")),
                                    ("enumerate", ("LDP", "--n", "4", "--eps-exp", "2", "--method", "orbits")))]
    for name, (argv, files, verdict) in _STREAM_COMMANDS.items():
        cases.append(Case(f"stream-reader-gone-{name}", argv, files, verdict, stdout="gone"))
        cases.append(Case(f"stream-closed-{name}", argv, files, REFUSED, "standard output is closed", stdout="closed"))
        cases.append(Case(f"stream-full-{name}", argv, files, REFUSED, "no space left", stdout="full"))
        cases.append(Case(f"stream-ascii-{name}", argv, files, verdict, env={"PYTHONIOENCODING": "ascii"}))
    for census in sorted(CENSUS_FOLDER.glob("ldp-n4-*.json")):
        for option in ("--json", "--markdown"):
            cases.append(Case(f"check-{option[2:]}-onto-{census.stem}",
                              ("check", "--only", "beyond.ldp-census", option, str(census)), says="is the input"))
    twice = {"p.csv": "2/3,1/3\n1/3,2/3\n", "q.csv": "3/4,1/4\n1/4,3/4\n"}
    for name, keys in (("decimal", ("2", "2.0")), ("ln", ("ln(2)", "2")), ("fraction", ("4/2", "2"))):
        files = {keys[0]: "p.csv", keys[1]: "q.csv", "3": "q.csv"}
        cases.append(Case(f"spec-file-family-e-eps-twice-{name}", ("stability", "{d}/s.toml"),
                          {"s.toml": spec_toml(_with("perturber", family="file", files=files)), **twice},
                          says="twice"))
    pole = {"pole.csv": "(t-1)/(t-2),1-(t-1)/(t-2)\n1/2,1/2\n"}
    cases.append(Case("spec-expression-pole-at-a-grid-point", ("stability", "{d}/s.toml"),
                      {"s.toml": spec_toml(_with("perturber", family="expression", values=2, matrix="pole.csv")),
                       **pole}, says="has a pole at e^ε = 2"))
    nested = {"n.csv": "((t^64)^64)^64/(1+((t^64)^64)^64),1/(1+((t^64)^64)^64)\n1/2,1/2\n"}
    for name, sweep in (("grid", {}), ("range", {"eps_exp": None, "from": "2", "to": "3"})):
        document = _with("perturber", family="expression", values=2, matrix="n.csv")
        document["sweep"] = {**document["sweep"], **sweep}
        document["sweep"] = {k: v for k, v in document["sweep"].items() if v is not None}
        cases.append(Case(f"spec-expression-nested-powers-{name}", ("stability", "{d}/s.toml"),
                          {"s.toml": spec_toml(document), **nested}, says="beyond 256"))
    long = "1" * 5001  # past Python's 4,300-digit conversion limit, within the README's 200,000 characters
    cases += [_refine_a("5001-digit-row-sum", f"1/{long},1\n0,1\n", "5,001 digits"),
              _refine_a("5001-digit-cell-holds", f"{long}/{long},0\n0,1\n", "holds", 0),
              Case("construct-z-of-5001-digits", ("construct", "--z", f"1/{long},1", "--eps-exp", "2"), says="z sums"),
              Case("construct-eps-exp-5001-digits", ("construct", "--z", "uniform", "--n", "3", "--eps-exp", long),
                   status=0, says="alg1")]
    sizes = {"fixed-point-600": (_with("perturber", family="fixed_point", values=600, z="uniform"), {},
                                 "units of work"),
             "weakly-honest-200": (_with("perturber", family="weakly_honest", values=200), {}, "exact lp of 40,000"),
             "exponential-quality-1e7": (_with("perturber", family="exponential", values=40, quality="q.csv"),
                                         {"q.csv": "\n".join(",".join("10000000" if i == j else "0" for j in range(40))
                                                             for i in range(40)) + "\n"}, "bits")}
    for name, (document, files, says) in sizes.items():  # at the sizes the README allows: refused in seconds
        document["sweep"] = {**document["sweep"], "eps_exp": ["4", "9"]}
        cases.append(Case(f"spec-{name}", ("stability", "{d}/s.toml"), {"s.toml": spec_toml(document), **files},
                          says=says))
    spec = {"s.toml": spec_toml(_with("sweep", eps_exp=["3/2", "2", "3"]))}
    for name, folder in (("a.csv", False), ("cert.json", False), ("pair-1", True), ("pair-2", True),
                         ("qifkit-certificates.json", False)):
        cases.append(Case(f"certificate-folder-link-{name}", ("stability", "{d}/s.toml", "--certificate", "{d}/certs"),
                          spec, REFUSED, "symbolic link", setup=_user_link(name, folder)))
    return cases


CASES: list[Case] = (_csv_cases() + _certificate_cases() + _spec_cases() + _option_cases() + _resume_cases()
                     + _lost_files_cases() + _vacuous_cases() + _hang_cases() + _round4_cases())


def materialise(case: Case, folder: Path) -> list[str]:
    """Create the case's files, FIFOs and folders in `folder` and return its arguments."""
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    for name in case.fifos:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(folder / name)
    if case.setup is not None:
        case.setup(folder)
    return [argument.replace("{d}", str(folder)) for argument in case.argv]


def lost(case: Case, folder: Path) -> list[str]:
    """The files the case must keep that the run changed or removed (data loss)."""
    return [name for name in case.kept if not (folder / name).is_file() or (folder / name).read_bytes()
            != (case.files[name].encode("utf-8") if isinstance(case.files[name], str) else case.files[name])]


def test_the_catalogue_is_large_and_its_ids_are_unique():
    assert len(CASES) >= 150
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_input(case, tmp_path, capsys):
    if case.stdout or case.env:  # standard streams and the environment are the process's own
        assert _run_in_child(case, 300) in ("refused", "answered")
        return
    argv = materialise(case, tmp_path)
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own usage errors
        status = exit_.code
    out, err = capsys.readouterr()
    assert not lost(case, tmp_path), f"data loss: {lost(case, tmp_path)}"
    assert status == case.status, f"exit {status}, expected {case.status}; stderr: {err[-500:]}"
    assert "Traceback" not in err
    if case.status == REFUSED:
        last = err.strip().splitlines()[-1] if err.strip() else ""
        assert last.startswith(("qifkit: error:", "qifkit ")), err[-500:]
        assert len(last) < 2000, "one readable line, not a dump"
    assert case.says.lower() in (out + err).lower(), (out + err)[-500:]


def _run_in_child(case: Case, timeout: float) -> str:  # pragma: no cover - the README's table
    """The case's outcome in a child process with a time limit: refused, answered, wrong, crashed or
    timed out (a crash is a traceback or an exit status that is not the toolkit's)."""
    import subprocess
    import tempfile

    root = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory() as folder:
        argv = materialise(case, Path(folder))
        command = [sys.executable, "-m", "proofs_checks.cli", *argv]
        stdout: Any = subprocess.PIPE
        if case.stdout == "gone":
            reader, stdout = os.pipe()
            os.close(reader)
        elif case.stdout:
            command = ["sh", "-c", 'exec "$0" "$@" ' + {"closed": ">&-", "full": "> /dev/full"}[case.stdout], *command]
        try:
            run = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=timeout, cwd=root,
                                 env={**os.environ, "PYTHONPATH": root, **case.env})
        except subprocess.TimeoutExpired:
            return "timed out"
        finally:
            if case.stdout == "gone":
                os.close(stdout)
        damaged = lost(case, Path(folder))
    text = ((run.stdout or "") + run.stderr).lower()
    if damaged:
        outcome = "data loss"
    elif "traceback" in text or run.returncode not in (0, 1, 2, 3, 4):
        outcome = "crashed"
    elif run.returncode != case.status or case.says.lower() not in text:
        outcome = "wrong"
    else:
        return "refused" if case.status == REFUSED else "answered"
    print(f"{outcome.upper()} {case.id} rc={run.returncode}: {(run.stderr or run.stdout).strip().splitlines()[-1:]}",
          flush=True)
    return outcome


def _tally(timeout: float = 60.0) -> None:  # pragma: no cover - the README's table
    """Run every case in a child process (two at a time) and print the reliability table."""
    from collections import Counter
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        counts = Counter(pool.map(lambda case: _run_in_child(case, timeout), CASES))
    names = ("refused", "answered", "wrong", "data loss", "crashed", "timed out")
    print(f"{len(CASES)} inputs: " + ", ".join(f"{counts[name]} {name}" for name in names))


if __name__ == "__main__":  # pragma: no cover
    _tally()
