"""Every certificate ``qifkit stability --certificate`` writes is accepted by ``qifkit verify`` as
written, and a tampered copy is refused (issue 51): the witnesses and refutations of grid pairs,
range proofs, and instabilities too large to write as pipelines (``instability.json``, re-derived
from the spec)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES

from proofs_checks.cli.app import main
from proofs_checks.gate import limits

FAST_EXAMPLES = ["appd1.toml", "appd1_range.toml", "survey_rr.toml", "survey_rr_range.toml", "deploy_histogram.toml",
                 "deploy_population.toml", "own_perturber/spec.toml", "own_perturber/exponential.toml",
                 "own_perturber/expression.toml"]


def _verify_folder(folder: Path, spec: str) -> int:
    """verify every file of the folder as its kind needs; the number of files checked."""
    checked = 0
    for cert in sorted(folder.rglob("cert.json")):
        place = cert.parent
        assert main(["verify", str(place / "a.csv"), str(place / "b.csv"), str(cert)]) == 0, cert
        checked += 1
    for name, option in (("range-proof.json", "--range-proof"), ("instability.json", "--instability")):
        if (folder / name).exists():
            assert main(["verify", option, str(folder / name), spec]) == 0, name
            checked += 1
    return checked


@pytest.mark.parametrize("example", FAST_EXAMPLES)
def test_every_certificate_written_for_an_example_verifies_as_written(tmp_path, example):
    folder, spec = tmp_path / "certs", str(EXAMPLES / example)
    status = main(["stability", spec, "--certificate", str(folder), "-q"])
    checked = _verify_folder(folder, spec)
    assert checked or status == 0, "a verdict other than a stable grid-less question leaves a certificate"


def test_a_census_sized_instability_is_written_as_its_spec_and_losses_and_verified_from_the_spec(
        tmp_path, monkeypatch, capsys):
    """App. D.1's range with the pipelines' size limit lowered to 10 entries, as a census-sized one
    meets it: no CSVs, an instability.json that verify re-derives from the spec (generating
    functions), and forged copies refused: a loss, the gap, an e^ε outside the range, a prior on
    other secrets, another spec."""
    monkeypatch.setattr(limits, "MAX_CERTIFIED_ENTRIES", 10)
    folder, spec = tmp_path / "certs", str(EXAMPLES / "appd1_range.toml")
    assert main(["stability", spec, "--certificate", str(folder), "-q"]) == 1
    assert not (folder / "a.csv").exists()
    document = json.loads((folder / "instability.json").read_text())
    assert main(["verify", "--instability", str(folder / "instability.json"), spec]) == 0
    capsys.readouterr()
    for forged, says in (({**document, "loss_high": document["loss_low"]}, "not the recorded ones"),
                         ({**document, "gap": "1"}, "not the recorded ones"),
                         ({**document, "eps_exp_high": "5"}, "not two increasing e^ε of the spec's sweep"),
                         ({**document, "prior": document["prior"][:-1]}, "does not read"),
                         ({**document, "kind": "witness"}, '"kind": "instability"')):
        (tmp_path / "forged.json").write_text(json.dumps(forged))
        assert main(["verify", "--instability", str(tmp_path / "forged.json"), spec]) == 1, says
        assert says in capsys.readouterr().out
    (tmp_path / "other.toml").write_text((EXAMPLES / "appd1_range.toml").read_text() + "\n# another spec\n")
    assert main(["verify", "--instability", str(folder / "instability.json"), str(tmp_path / "other.toml")]) == 2


def test_a_refutation_needs_no_witness_limit(tmp_path, monkeypatch):
    """verify of a prior-and-loss certificate checks no witness: the witness limit is not applied."""
    from proofs_checks.cli import verify

    folder, spec = tmp_path / "certs", str(EXAMPLES / "appd1.toml")
    assert main(["stability", spec, "--certificate", str(folder), "-q"]) == 1
    monkeypatch.setattr(verify, "MAX_WITNESS_ENTRIES", 1)
    assert main(["verify", str(folder / "a.csv"), str(folder / "b.csv"), str(folder / "cert.json")]) == 0


@pytest.mark.slow
def test_the_census_example_writes_an_instability_that_verify_rederives(tmp_path):
    folder, spec = tmp_path / "certs", str(EXAMPLES / "census_gd_range.toml")
    assert main(["stability", spec, "--certificate", str(folder), "-q"]) == 1
    assert _verify_folder(folder, spec) == 1 and (folder / "instability.json").exists()
