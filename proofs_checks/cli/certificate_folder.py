"""The ``--certificate DIR`` folder of ``qifkit stability``: only what the toolkit wrote is ever
replaced or removed.

The folder lists what it holds in its own manifest, ``qifkit-certificates.json`` (each file's path
in the folder and SHA-256). Before any work, every name a run may write (``a.csv``, ``b.csv``,
``cert.json``, ``range-proof.json``, and ``pair-K/`` with the same three files for each consecutive
grid pair) is checked: one that exists and the manifest does not list with its present content is
the user's, and the run is refused naming it. When the certificates are written, the files of the
earlier run are removed if the manifest lists them and their content is unchanged (a changed one is
kept and said), and a ``pair-K`` folder only once it is empty. A name the toolkit merely matches
(``pair-programming/``) is never touched.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from proofs_checks.cli.base import UsageError
from proofs_checks.cli.io import inside, same_file
from qifkit.errors import QifError
from qifkit.files import read_input, read_json, write_json
from qifkit.numbers import exact_str
from qifkit.refinement import certificate_document

__all__ = ["MANIFEST", "CertificateFolder"]

MANIFEST = "qifkit-certificates.json"
_PAIR_FILES = ("a.csv", "b.csv", "cert.json")
_TOP_FILES = (*_PAIR_FILES, "range-proof.json")
_OURS = re.compile(r"(?:pair-[1-9][0-9]{0,6}/)?(?:a\.csv|b\.csv|cert\.json)|range-proof\.json")


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_input(path)).hexdigest()
    except (OSError, QifError):
        return None


class CertificateFolder:
    """A certificate folder prepared for a run of at most `pairs` grid pairs (see the module docstring).

    Parameters
    ----------
    folder : Path
        Created if missing.
    pairs : int
        How many ``pair-K/`` folders the run may write.
    paths : dict
        The run's inputs and other outputs (option → path): refused if one is a name the folder
        would write, or the folder itself.

    Raises
    ------
    UsageError
        A file in the way that the toolkit did not write, a manifest that is not ours, or a path of
        the run that the certificates would overwrite.
    """

    def __init__(self, folder: Path, pairs: int, paths: dict[str, str | None]) -> None:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"--certificate {folder}: exists and is not a folder")
        self.path = folder
        self.names = [*_TOP_FILES] + [f"pair-{k}/{name}" for k in range(1, pairs + 1) for name in _PAIR_FILES]
        for option, given in paths.items():
            if not given or given == "-":
                continue
            if same_file(given, folder):
                raise UsageError(f"{option} {given} is the --certificate folder: give them two places")
            relative = inside(given, folder)
            if relative is not None and (relative.as_posix() in self.names or relative.as_posix() == MANIFEST):
                raise UsageError(f"{option} {given} is where --certificate {folder} writes {relative.as_posix()}: "
                                 "give another path or folder")
        self.written = self._manifest()
        for name in self.names:
            target = folder / name
            if target.parent != folder and target.parent.exists() and not target.parent.is_dir():
                raise UsageError(f"--certificate {folder}: {target.parent} is in the way and is not a folder "
                                 "qifkit wrote; move it, or give another folder")
            if (target.exists() or target.is_symlink()) and self.written.get(name) != _digest(target):
                raise UsageError(f"--certificate {folder}: {target} exists and is not a certificate qifkit wrote "
                                 "there (or it changed since); move it, or give another folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--certificate {folder}: cannot create it: {error.strerror}") from None

    def _manifest(self) -> dict[str, str]:
        """The files an earlier run wrote here (path in the folder → SHA-256), from its manifest."""
        path = self.path / MANIFEST
        if not (path.exists() or path.is_symlink()):
            return {}
        try:
            document = read_json(path)
            listed = document["files"] if isinstance(document, dict) else None
        except (OSError, QifError, KeyError) as error:
            raise UsageError(f"--certificate {self.path}: {path} is not a manifest qifkit wrote ({error}); "
                             "give another folder") from None
        if not isinstance(listed, dict) or not all(
                isinstance(name, str) and _OURS.fullmatch(name) and isinstance(digest, str)
                for name, digest in listed.items()):
            raise UsageError(f"--certificate {self.path}: {path} lists files qifkit does not write; give another "
                             "folder")
        return dict(listed)

    def _clear(self, say: Any) -> None:
        """Remove the earlier run's files that are unchanged, and its emptied ``pair-K`` folders."""
        for name, digest in self.written.items():
            target = self.path / name
            if not target.exists():
                continue
            if _digest(target) != digest:
                say(f"kept {target}: it changed since qifkit wrote it")
                continue
            target.unlink()
            if target.parent != self.path:
                try:
                    target.parent.rmdir()
                except OSError:  # not empty: something of the user's is in it
                    pass

    def write(self, certificates: list[Any], proof: dict[str, Any] | None, spec_sha256: str, say: Any = print) -> None:
        """Replace the earlier run's certificates by these, and the range proof if there is one,
        each written atomically, the manifest last."""
        self._clear(say)
        written: dict[str, str] = {}

        def record(name: str) -> None:
            digest = _digest(self.path / name)
            assert digest is not None, name  # just written
            written[name] = digest

        for certified in certificates:
            prefix = "" if certified.name == "instability" else f"{certified.name}/"
            (self.path / prefix).mkdir(exist_ok=True)
            certified.less_private.to_csv(self.path / f"{prefix}a.csv")
            certified.more_private.to_csv(self.path / f"{prefix}b.csv")
            write_json(self.path / f"{prefix}cert.json", {
                **certificate_document(certified.certificate),
                "about": {"less_private": f"A = the pipeline at e^ε = {certified.eps_exp_high}",
                          "more_private": f"B = the pipeline at e^ε = {certified.eps_exp_low}",
                          "eps_exp_a": exact_str(certified.eps_exp_high), "eps_exp_b": exact_str(certified.eps_exp_low),
                          "spec_sha256": spec_sha256}})
            for name in _PAIR_FILES:
                record(prefix + name)
        if proof is not None:
            write_json(self.path / "range-proof.json", {**proof, "spec_sha256": spec_sha256})
            record("range-proof.json")
            say(f"range proof written: {self.path / 'range-proof.json'}")
        write_json(self.path / MANIFEST, {"written_by": "qifkit stability", "spec_sha256": spec_sha256,
                                          "files": written})
        if certificates:
            where = self.path / ("" if certificates[0].name == "instability" else certificates[0].name)
            say(f"{len(certificates)} certificate(s) written: qifkit verify {where / 'a.csv'} {where / 'b.csv'} "
                f"{where / 'cert.json'}")
