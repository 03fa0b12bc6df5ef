"""The ``--certificate DIR`` folder of ``qifkit stability``: only what the toolkit wrote is ever
replaced or removed, and never through a symbolic link.

The folder lists what it holds in its own manifest, ``qifkit-certificates.json`` (each file's path
in the folder and SHA-256). Before any work, every name a run may write (``a.csv``, ``b.csv``,
``cert.json``, ``range-proof.json``, and ``pair-K/`` with the same three files for each consecutive
grid pair) is checked: one that exists and the manifest does not list with its present content is
the user's, and a symbolic link at such a name (or a ``pair-K`` that is one) was not made by the
toolkit: the run is refused naming it.

The certificates are written in an order that a stop at any moment (a full disk, Ctrl-C) cannot
turn against the next run: first a manifest that accepts both the earlier run's files and this
run's (their contents are known before anything is written), then this run's files, each
atomically, then the earlier run's files that this run does not replace are removed if unchanged
(a changed one is kept and said) and a ``pair-K`` folder only once it is empty, and last the
manifest of this run alone. A name the toolkit merely matches (``pair-programming/``) is never
touched.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from proofs_checks.cli.base import UsageError
from proofs_checks.cli.io import check_writable_folder, inside, same_file
from qifkit.errors import QifError
from qifkit.files import atomic_write_bytes, json_text, read_input, read_json, write_json
from qifkit.numbers import exact_str
from qifkit.refinement import certificate_document

__all__ = ["MANIFEST", "CertificateFolder"]

MANIFEST = "qifkit-certificates.json"
_PAIR_FILES = ("a.csv", "b.csv", "cert.json")
_TOP_FILES = (*_PAIR_FILES, "range-proof.json", "instability.json")
_OURS = re.compile(r"(?:pair-[1-9][0-9]{0,6}/)?(?:a\.csv|b\.csv|cert\.json)|range-proof\.json|instability\.json")


def _digests(listed: Any) -> tuple[str, ...]:
    """A manifest entry's SHA-256 digests: one string, or a list of them while a run writes; ()
    when it is neither (the manifest is then refused)."""
    digests = [listed] if isinstance(listed, str) else listed if isinstance(listed, list) else []
    ok = digests and all(isinstance(d, str) and re.fullmatch(r"[0-9a-f]{64}", d) for d in digests)
    return tuple(digests) if ok else ()


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
        check_writable_folder(folder, "--certificate")
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
        if (folder / MANIFEST).is_symlink():
            raise UsageError(f"--certificate {folder}: {folder / MANIFEST} is a symbolic link qifkit did not make; "
                             "nothing is written through it: move it, or give another folder")
        self.written = self._manifest()
        for name in self.names:
            target = folder / name
            for link in (target.parent, target) if target.parent != folder else (target,):
                if link.is_symlink():
                    raise UsageError(f"--certificate {folder}: {link} is a symbolic link qifkit did not make; "
                                     "nothing is written through it: move it, or give another folder")
            if target.parent != folder and target.parent.exists() and not target.parent.is_dir():
                raise UsageError(f"--certificate {folder}: {target.parent} is in the way and is not a folder "
                                 "qifkit wrote; move it, or give another folder")
            if target.exists() and _digest(target) not in self.written.get(name, ()):
                raise UsageError(f"--certificate {folder}: {target} exists and is not a certificate qifkit wrote "
                                 "there (or it changed since); move it, or give another folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--certificate {folder}: cannot create it: {error.strerror}") from None

    def _manifest(self) -> dict[str, tuple[str, ...]]:
        """The files an earlier run wrote here (path in the folder → the SHA-256 it may have: two
        while a run was writing), from its manifest."""
        path = self.path / MANIFEST
        if not (path.exists() or path.is_symlink()):
            return {}
        try:
            document = read_json(path)
            listed = document["files"] if isinstance(document, dict) else None
        except (OSError, QifError, KeyError) as error:
            raise UsageError(f"--certificate {self.path}: {path} is not a manifest qifkit wrote ({error}); "
                             "give another folder") from None
        if not isinstance(listed, dict) or not all(isinstance(name, str) and _OURS.fullmatch(name) and _digests(digest)
                                                   for name, digest in listed.items()):
            raise UsageError(f"--certificate {self.path}: {path} lists files qifkit does not write; give another "
                             "folder")
        return {name: _digests(digest) for name, digest in listed.items()}

    def _clear(self, say: Any, replaced: set[str]) -> None:
        """Remove the earlier run's files that this run did not replace and that are unchanged, and
        its emptied ``pair-K`` folders."""
        for name, digests in self.written.items():
            target = self.path / name
            if name in replaced or not target.exists() or target.is_symlink():
                continue
            if _digest(target) not in digests:
                say(f"kept {target}: it changed since qifkit wrote it")
                continue
            target.unlink()
            if target.parent != self.path:
                try:
                    target.parent.rmdir()
                except OSError:  # not empty: something of the user's is in it
                    pass

    def _write_manifest(self, files: dict[str, Any], spec_sha256: str) -> None:
        write_json(self.path / MANIFEST, {"written_by": "qifkit stability", "spec_sha256": spec_sha256,
                                          "files": files})

    def write(self, certificates: list[Any], proof: dict[str, Any] | None, spec_sha256: str, say: Any = print,
              instability: dict[str, Any] | None = None) -> None:
        """Replace the earlier run's certificates by these, the range proof and the instability
        re-derived from the spec (``instability.json``) if there are, in the order of the module
        docstring (each file atomically)."""
        contents: dict[str, bytes] = {}
        if instability is not None:
            contents["instability.json"] = json_text({**instability, "spec_sha256": spec_sha256}).encode("utf-8")
        for certified in certificates:
            prefix = "" if certified.name == "instability" else f"{certified.name}/"
            contents[f"{prefix}a.csv"] = certified.less_private.csv_text().encode("utf-8")
            contents[f"{prefix}b.csv"] = certified.more_private.csv_text().encode("utf-8")
            contents[f"{prefix}cert.json"] = json_text({
                **certificate_document(certified.certificate),
                "about": {"less_private": f"A = the pipeline at e^ε = {certified.eps_exp_high}",
                          "more_private": f"B = the pipeline at e^ε = {certified.eps_exp_low}",
                          "eps_exp_a": exact_str(certified.eps_exp_high), "eps_exp_b": exact_str(certified.eps_exp_low),
                          "spec_sha256": spec_sha256}}).encode("utf-8")
        if proof is not None:
            contents["range-proof.json"] = json_text({**proof, "spec_sha256": spec_sha256}).encode("utf-8")
        new = {name: hashlib.sha256(data).hexdigest() for name, data in contents.items()}
        both = {name: sorted(set(self.written.get(name, ())) | ({new[name]} if name in new else set()))
                for name in {*self.written, *new}}
        self._write_manifest(both, spec_sha256)
        for name, data in contents.items():
            (self.path / name).parent.mkdir(exist_ok=True)
            atomic_write_bytes(self.path / name, data)
        self._clear(say, set(new))
        self._write_manifest(dict(new), spec_sha256)
        if proof is not None:
            say(f"range proof written: {self.path / 'range-proof.json'}")
        if instability is not None:
            say(f"instability written: qifkit verify --instability {self.path / 'instability.json'} SPEC.toml")
        if certificates:
            where = self.path / ("" if certificates[0].name == "instability" else certificates[0].name)
            say(f"{len(certificates)} certificate(s) written: qifkit verify {where / 'a.csv'} {where / 'b.csv'} "
                f"{where / 'cert.json'}")
