"""``qifkit stability SPEC.toml``: evaluate a pipeline over a grid and/or a range of e^ε (see
:mod:`proofs_checks.gate`) and exit as a deployment gate: 0 stable (certified), 1 NOT stable (a
certified instability), 4 not decided (a float sweep, or a range on which only the spec's analyst
is decided), 2 bad input. With ``--certificate DIR`` (created if missing; only the certificates of
an earlier run are replaced, :mod:`~proofs_checks.cli.certificate_folder`) an instability is written
as ``DIR/a.csv``, ``DIR/b.csv`` and ``DIR/cert.json`` and a stable grid as one ``DIR/pair-K/`` of the
same three files per consecutive pair, each for ``qifkit verify``; ``--plot`` draws the analyst's loss.
No output may be an input of the run or another output (:func:`~proofs_checks.cli.io.check_outputs`)."""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proofs_checks.cli.base import (
    EXIT_INTERRUPTED,
    EXIT_NEGATIVE,
    EXIT_OK,
    EXIT_UNDECIDED,
    UsageError,
    detail_printer,
    progress_printer,
)
from proofs_checks.cli.certificate_folder import CertificateFolder
from proofs_checks.cli.io import SHOWN_DIGITS, approximately, check_outputs, write_json
from qifkit.extras import needs_extra
from qifkit.files import read_input
from qifkit.numbers import exact_str

if TYPE_CHECKING:
    from proofs_checks.gate import GateReport

__all__ = ["run", "read_stability_spec", "sha256_of"]


def read_stability_spec(path: str) -> Any:
    """A stability spec from its file (:func:`proofs_checks.gate.read_spec`); a file that
    cannot be read is a usage error."""
    from proofs_checks.gate import read_spec  # loaded by the commands that read a spec only

    try:
        return read_spec(path)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None


def run(arguments: argparse.Namespace) -> int:
    from proofs_checks.gate import (
        describe_work,
        evaluate_spec,
        exact_text,
        instability_document,
        range_proof_fields,
    )

    spec = read_stability_spec(arguments.spec)
    if arguments.list_secrets:
        _list_secrets(spec)
        return EXIT_OK
    inputs = {"SPEC.toml": arguments.spec, **{f"{path} (named by the spec)": path for path in spec.inputs}}
    outputs = {"--json": arguments.json, "--plot": arguments.plot}
    check_outputs(inputs, outputs)
    if arguments.plot:
        if arguments.plot == "-" or not arguments.plot.endswith((".png", ".svg", ".pdf")):
            raise UsageError(f"--plot {arguments.plot}: use a file ending .png, .svg or .pdf")
        _matplotlib()  # a missing matplotlib is said before any work
    folder = (CertificateFolder(Path(arguments.certificate), max(len(spec.eps_exp) - 1, 0), {**inputs, **outputs})
              if arguments.certificate else None)
    detail = detail_printer(arguments)
    for line in describe_work(spec):
        detail(line)
    started = time.perf_counter()
    report, certificates = evaluate_spec(spec, progress=progress_printer(arguments, sys.stderr),
                                         time_limit=arguments.time_limit, keep_partial=True)
    seconds = time.perf_counter() - started
    if report.points:
        print(f"{'e^ε':>14}  expected loss ({report.arithmetic})")
        for point in report.points:
            loss = approximately(point.loss) if spec.exact else repr(point.loss)
            print(f"{exact_str(point.eps_exp):>14}  {loss}")
    interval = report.range
    if interval is not None:
        print(f"every e^ε in [{interval.low}, {interval.high}]:")
        proof = interval.every_analyst.proof
        if proof is not None:
            how = (f"hit probabilities H = {proof['hit']}, M = {proof['miss']}" if proof["kind"] == "count" else
                   "the perturber's generator L = B⁻¹·dB/dt" + (f", lumped by the blocks {proof['blocks']}"
                                                                if proof["blocks"] else ""))
            print(f"  every analyst: PROVED at any number of respondents, the pipelines refine for every e^ε' ≤ e^ε of "
                  f"the range ({how}: " + "; ".join(proof["conditions"]) + ")")
        else:
            print(f"  every analyst: not proved ({interval.every_analyst.reason})")
        rising = interval.rising or []
        if interval.route == "sampled":  # census scale: in floats, each rise re-decided exactly at its ends
            print(f"  the spec's analyst: {interval.analyst}")
            for (low, high), (exact_low, exact_high) in zip(rising, interval.rising_exact or [], strict=True):
                print(f"  the loss RISES between the samples e^ε = {float(low):.12g} and {float(high):.12g}  (decided "
                      f"exactly: it is higher at {exact_str(exact_high)} than at {exact_str(exact_low)})")
            if not rising:
                print(f"  no rise confirmed ({interval.rises_not_confirmed} float rise(s) not confirmed exactly); "
                      "the loss is sampled, not proved monotone")
        elif interval.route == "not followed":
            print(f"  the spec's analyst: {interval.analyst}")
        else:
            if interval.loss_from is not None:  # the mode route proves the slope's sign without the ends' losses
                print(f"  the spec's analyst: loss {approximately(interval.loss_from)} at {interval.low}, "
                      f"{approximately(interval.loss_to)} at {interval.high}")
            narrowest = {"ball": "2^-32", "mode": "2^-40"}.get(interval.route)  # pieces proved rising
            for low, high in rising:
                print(f"  the loss RISES on [{low.decimal(12)}, {high.decimal(12)}]  " + (
                    f"(proved between the rationals {exact_text(low)} and {exact_text(high)}; where it stops "
                    f"rising lies within {narrowest} of an inner end)" if narrowest else
                    f"(exact ends: {_shown(exact_text(low))}; {_shown(exact_text(high))})"))
            if interval.route != "exact":  # ball arithmetic or the others' mode: say how it was proved
                print(f"  the spec's analyst: {interval.analyst}")
            if not rising:
                print("  the loss never rises as e^ε grows")
    if interval is not None and interval.constructed is not None:
        print(f"  every analyst, searched: {interval.constructed}")
    within = [rise for rise in report.rises_within_tolerance if rise.rise_at_most is not None]
    most = max((rise.rise_at_most for rise in within), default=0)
    stable = (f"stable within tolerance (the loss rises by at most {approximately(most)}, tolerance "
              f"{exact_str(report.tolerance)}; certified: {_covered(report)})" if within else
              f"stable (certified: {_covered(report)})")
    verdict = {True: stable, False: "NOT stable", None: f"not decided: {report.undecided}"}
    monotone = {True: "yes", False: "NO", None: "not decided (sampled or stopped)"}[report.monotone]
    asked = "the spec's analyst" if report.question == "analyst" else "every analyst"
    print(f"analyst's loss monotone: {monotone}; for {asked} ({report.coverage}): {verdict[report.stable]}")
    instability = report.instability
    if instability:
        print(
            f"instability ({instability.found_by}): the pipeline at e^ε = {instability.eps_exp_high} does not "
            f"refine the more private one at e^ε = {instability.eps_exp_low}; "
            + {"refinement": "a constructed analyst", "constructed": "a constructed two-secret Bayes analyst"}.get(
                instability.found_by, "the spec's analyst")
            + " loses more with less privacy, by "
              f"{approximately(instability.gap) if spec.exact else repr(instability.gap)}"
        )
        if instability.pipelines:
            print(f"  the certificate's pipelines: {instability.pipelines}")
    detail(f"evaluated in {seconds:.2f} s ({report.arithmetic}); {len(certificates)} certificate(s) kept")
    for certified in certificates:
        detail(f"{certified.name}: {certified.less_private.shape[0]} secrets, pipelines of "
               f"{certified.less_private.shape[1]} and {certified.more_private.shape[1]} outputs, by "
               f"{certified.certificate.method}")
    if folder is not None:
        for pair, certified in zip(report.pairs, certificates if report.instability is None else [], strict=False):
            pair.certificate = str(folder.path / certified.name / "cert.json")
        proved = None if interval is None else interval.every_analyst.proof
        proof = None if interval is None or proved is None else {
            "statement": f"{spec.query} pipelines refine for every {interval.low} ≤ e^ε' ≤ e^ε ≤ {interval.high} "
                         "(qifkit verify --range-proof range-proof.json SPEC.toml re-checks it)",
            "from": exact_str(interval.low), "to": exact_str(interval.high), **range_proof_fields(spec),
            "proved": True, **proved}
        unwritten = instability if instability is not None and instability.pipelines else None
        folder.write(certificates, proof, sha256_of(arguments.spec),
                     instability=None if unwritten is None else instability_document(unwritten))
    if arguments.json:  # before the plot: what was decided is kept whatever drawing does
        write_json(arguments.json, _with_provenance(report, arguments.spec, spec), "report")
    if arguments.plot:
        _plot_losses(arguments.plot, spec, report, Path(arguments.spec).name)
    if report.interrupted:
        print("qifkit: interrupted; what was certified by then is kept in the outputs above", file=sys.stderr)
        return EXIT_INTERRUPTED
    return {True: EXIT_OK, False: EXIT_NEGATIVE, None: EXIT_UNDECIDED}[report.stable]


def _shown(text: str) -> str:
    """An exact end of a rising stretch for the terminal: in full if short, else its start and size
    (a root of a polynomial of degree 300 is 30 KB; the JSON keeps it whole)."""
    return text if len(text) <= SHOWN_DIGITS else f"{text[:60]}… ({len(text):,} characters, in the JSON report)"


def _matplotlib() -> Any:
    """matplotlib's pyplot without a display, or an error naming the extra ``plot`` that installs it."""
    with needs_extra("plot"):
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plot_losses(path: str, spec: Any, report: GateReport, title: str) -> None:
    """The spec's analyst's loss against e^ε: a float64 curve over the grid and the range (300
    points; a perturber that exists only at the grid's e^ε, from files or the exponential
    mechanism, gets its grid values joined by lines instead), the exactly decided grid values as
    dots, the rising stretches (exact ends) shaded and the certified instability's pair marked;
    written atomically."""
    import io

    from proofs_checks.gate import defined_between_points, sampled_losses
    from qifkit.files import atomic_write_bytes

    plt = _matplotlib()
    grid = [point.eps_exp for point in report.points]
    interval = report.range
    ends = grid + ([interval.low, interval.high] if interval is not None else [])
    low, high = min(ends), max(ends)
    xs = [low + (high - low) * k / 299 for k in range(300)] if high > low else [low]
    figure, axis = plt.subplots(figsize=(6.4, 3.6))
    exact_losses = [float(p.loss) for p in report.points]
    if defined_between_points(spec):
        axis.plot([float(x) for x in xs], sampled_losses(spec, xs), color="tab:blue", label="analyst's loss (float64)")
    else:
        axis.plot([float(x) for x in grid], exact_losses, color="tab:blue", lw=1,
                  label="joined (the perturber exists at the grid's e^ε only)")
    if grid:
        axis.plot([float(x) for x in grid], exact_losses, "o", color="black", label="grid, exact")
    rising = [] if interval is None else interval.rising or []
    for start, end in rising:
        axis.axvspan(float(start), float(end), color="tab:red", alpha=0.3, lw=0)
    if rising:
        axis.axvspan(0, 0, color="tab:red", alpha=0.3, label="rising (exact ends)")
    if report.instability is not None:
        for at in (report.instability.eps_exp_low, report.instability.eps_exp_high):
            axis.axvline(float(at), color="tab:red", ls="--", lw=1)
    verdict = {True: "stable", False: "NOT stable", None: "not decided"}[report.stable]
    asked = "this analyst" if report.question == "analyst" else "every analyst"
    by = None if report.instability is None else report.instability.found_by
    other = ("\n(refuted by a constructed analyst; the curve is the spec's own)"
             if by in ("refinement", "constructed") else "")
    axis.set(xlabel="e^ε", ylabel="the spec's analyst's expected loss", title=f"{title}: {verdict} for {asked}{other}")
    axis.set_xlim(float(low), float(high) if high > low else float(low) + 1)
    axis.legend(fontsize=8)
    buffer = io.BytesIO()
    figure.savefig(buffer, format=path.rsplit(".", 1)[1], dpi=120, bbox_inches="tight")
    plt.close(figure)
    atomic_write_bytes(path, buffer.getvalue())
    print(f"loss curve drawn in {path}")


def _with_provenance(report: GateReport, path: str, spec: Any) -> dict[str, Any]:
    """The report with what produced it: the spec file's SHA-256 and parsed content, and versions."""
    import dataclasses
    import platform
    from importlib.metadata import version

    from proofs_checks.claims import jsonable

    fields = {field.name: getattr(spec, field.name) for field in dataclasses.fields(spec) if field.repr}
    content = {key: jsonable(value if isinstance(value, (int, str, list, tuple, bool, Fraction)) or value is None
                             else str(value)) for key, value in fields.items()}
    return {"input": {"spec": path, "sha256": sha256_of(path), "parsed": content},
            "versions": {name: version(name) for name in ("qifkit", "sympy", "python-flint", "highspy")}
            | {"python": platform.python_version()}, **report.document()}


def sha256_of(path: str) -> str:
    """The SHA-256 of the spec file, as the report and the certificates record it."""
    import hashlib

    return hashlib.sha256(read_input(path)).hexdigest()


def _covered(report: GateReport) -> str:
    """What a stable verdict covered, in words: for the spec's analyst, its loss on the grid and the
    range; for every analyst, the grid pairs certified and the range proved."""
    covered, interval = report.covered, report.range
    assert covered is not None  # a finished report says what it covered
    parts = []
    if covered.question == "analyst":
        if report.points:
            parts.append(f"the spec's analyst's loss at the grid's {len(report.points)} e^ε")
        if interval is not None:
            parts.append("every analyst proved on the range, the spec's included"
                         if interval.every_analyst.proved else f"the spec's analyst's loss {interval.analyst}")
        return "; ".join(parts)
    if covered.grid_pairs:
        parts.append(f"{covered.grid_pairs_compared} of {covered.grid_pairs} consecutive grid pairs refine")
    if covered.interval is not None:
        parts.append(f"the pipelines refine for every e^ε' ≤ e^ε of the range, {covered.interval}")
    return "; ".join(parts)


def _list_secrets(spec: Any) -> None:
    """``--list-secrets``: the secrets, one a line, in the order of the pipeline's rows (and of a
    prior.csv): a value of the one unknown respondent, or a histogram (how many unknown respondents
    hold each value 0..values-1, all respondents for argmax) as counts separated by spaces."""
    from proofs_checks.gate import secret_labels

    secrets = secret_labels(spec)
    histograms = bool(secrets) and isinstance(secrets[0], tuple)
    print(f"# {len(secrets):,} secrets of {spec.query} query, in the order of a prior.csv: "
          + ("histograms, the count of each value 0.." + str(spec.values - 1) if histograms else
             "the value of the unknown respondent"))
    for secret in secrets:
        print(" ".join(str(c) for c in secret) if histograms else secret)
