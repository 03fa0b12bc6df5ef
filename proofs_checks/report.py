"""The report of a check run: one terminal line per check, a summary, and the JSON document."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from proofs_checks.claims import Status
from proofs_checks.registry import Result

__all__ = ["progress_line", "summary_counts", "summary_line", "report_document", "markdown_report"]


def progress_line(index: int, total: int, result: Result) -> str:
    """``[ 3/10] alvim23.appd1  reproduced  0.21s  evidence...`` (the summary cut to fit a line)."""
    width = len(str(total))
    summary = result.outcome.summary
    summary = summary if len(summary) <= 100 else summary[:97] + "..."
    return (f"[{index:>{width}}/{total}] {result.check.id:<28} {result.outcome.status.value:<10} "
            f"{result.seconds:7.2f}s  {summary}")


def summary_counts(results: list[Result]) -> dict[str, int]:
    """Number of checks by status (every status listed, zeros included) and in total."""
    counts = Counter(result.outcome.status.value for result in results)
    return {status.value: counts.get(status.value, 0) for status in Status} | {"total": len(results)}


def summary_line(results: list[Result], not_run: int = 0) -> str:
    """One line: ``10 checks: 5 confirmed, 3 reproduced, 2 erratum, 0 failed``."""
    counts = summary_counts(results)
    text = f"{counts['total']} checks: " + ", ".join(f"{counts[s.value]} {s.value}" for s in Status)
    return text + (f"; {not_run} not run (interrupted)" if not_run else "")


def report_document(results: list[Result], not_run: list[str] | None = None) -> str:
    """The JSON report: ``{"checks": [...], "summary": {...}}`` with exact numbers as strings."""
    document: dict[str, Any] = {
        "checks": [
            {
                "id": r.check.id,
                "status": r.outcome.status.value,
                "source": r.check.source,
                "statement": r.check.statement,
                "method": r.check.method,
                "assumptions": r.check.assumptions,
                "seconds": round(r.seconds, 4),
                "summary": r.outcome.summary,
                "evidence": r.outcome.evidence,
            }
            for r in results
        ],
        "summary": summary_counts(results),
    }
    if not_run:
        document["not_run"] = not_run
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


_PAPERS = {
    "alvim23": "Alvim, Fernandes, McIver, Morgan, Nunes (CCS 2023): Kronecker products and QIF for privacy pipelines",
    "cormode18": "Cormode, Kulkarni, Srivastava (ICDE 2018): constrained differential privacy for count data",
    "holohan17": "Holohan, Leith, Mason: extreme points of the local differential privacy polytope",
    "kohli26": "Kohli, Laskowski (PETS 2026): preserving target distributions with DP count mechanisms",
    "beyond": "Beyond the papers: results computed and certified here",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_report(results: list[Result], not_run: list[str] | None = None) -> str:
    """A report a reader can browse: the summary, the errata first, then every check by paper."""
    lines = [
        "# qifkit check: the claims of the papers, checked exactly",
        "",
        summary_line(results, len(not_run or [])),
        "",
    ]
    errata = [r for r in results if r.outcome.status is Status.ERRATUM]
    failed = [r for r in results if r.outcome.status is Status.FAILED]
    if failed:
        lines += (
            ["## Failed", ""]
            + [f"- **{r.check.id}** ({r.check.source}): {_cell(r.outcome.summary)}" for r in failed]
            + [""]
        )
    if errata:
        lines += ["## Errata: where the printed text is wrong", ""]
        for r in errata:
            evidence = r.outcome.evidence
            lines += [f"### {r.check.id} ({r.check.source})", "",
                      f"- **The paper says:** {_cell(str(evidence.get('paper_says', '')))}",
                      f"- **What is true:** {_cell(str(evidence.get('truth', '')))}",
                      f"- {_cell(r.outcome.summary)}", ""]
    for prefix, title in _PAPERS.items():
        group = [r for r in results if r.check.id.split(".")[0] == prefix]
        if not group:
            continue
        lines += [f"## {title}", "", "| id | status | seconds | evidence |", "|---|---|---|---|"]
        lines += [
            f"| {r.check.id} | {r.outcome.status.value} | {r.seconds:.2f} | {_cell(r.outcome.summary)} |" for r in group
        ]
        lines.append("")
        for r in group:
            lines += [f"<details><summary>{r.check.id}: {_cell(r.check.source)}</summary>", "",
                      f"- Statement: {_cell(r.check.statement)}", f"- Method: {_cell(r.check.method)}",
                      f"- Assumptions: {_cell(r.check.assumptions)}", "", "</details>", ""]
    if not_run:
        lines += ["## Not run (interrupted)", "", ", ".join(not_run), ""]
    return "\n".join(lines)
