"""Resume folders: the finished units of a long enumeration, kept so that a killed run goes on.

A folder describes itself: ``manifest.json`` holds the problem (a JSON object) and the SHA-256 of
every unit file written. Files are written atomically, the manifest after each. A folder of
another problem is refused; a file the manifest does not list (foreign, or from before its
manifest) or whose content changed is not trusted: the caller recomputes it. A file the manifest
does not list, or a symbolic link, is never replaced or written through: the run is refused. Used by
:func:`polytopes.ldp_support.ldp_vertices_by_support` (one file per support block) and
:func:`polytopes.orbitwise.enumerate_orbits` (one file per orbit representative).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qifkit.errors import QifError
from qifkit.files import atomic_write_text, read_input, read_json, write_json

__all__ = ["ResumeMismatchError", "ResumeFolder"]

MANIFEST = "manifest.json"


class ResumeMismatchError(QifError, ValueError):
    """A resume folder belongs to a different problem, or its manifest is not one of ours."""


class ResumeFolder:
    """A resume folder for one problem (see the module docstring).

    Parameters
    ----------
    folder : str or Path
        Created if missing.
    problem : dict
        What is being computed; a folder whose manifest records anything else is refused.
    say : callable, optional
        Told, in a line, why a file was not trusted.

    Raises
    ------
    ResumeMismatchError
        If the folder's manifest is of another problem or not a manifest of this tool.
    """

    def __init__(self, folder: str | Path, problem: dict[str, Any], say: Callable[[str], None] | None = None) -> None:
        self.path = Path(folder)
        self.problem = problem
        self.say = say or (lambda text: None)
        self.path.mkdir(parents=True, exist_ok=True)
        if (self.path / MANIFEST).is_symlink():
            raise ResumeMismatchError(f"{self.path / MANIFEST} is a symbolic link, not a manifest this tool wrote; "
                                      "give an empty folder")
        self.hashes = self._read_manifest()

    def _read_manifest(self) -> dict[str, str]:
        path = self.path / MANIFEST
        if not path.exists():
            return {}
        try:
            manifest = read_json(path)
            recorded, hashes = manifest["problem"], manifest["blocks"]
        except (ValueError, KeyError, TypeError) as error:
            raise ResumeMismatchError(
                f"{path} is not a manifest of this tool ({error}); give an empty folder"
            ) from None
        if recorded != self.problem:
            raise ResumeMismatchError(f"{self.path} holds a different problem: {json.dumps(recorded)}")
        if not isinstance(hashes, dict):
            raise ResumeMismatchError(f"{path}: 'blocks' is not a table of file hashes")
        return dict(hashes)

    def read(self, name: str) -> bytes | None:
        """The content of unit file `name` if the manifest vouches for it; None (recompute) otherwise."""
        path = self.path / name
        if not path.exists():
            return None
        data = read_input(path)
        if self.hashes.get(name) != hashlib.sha256(data).hexdigest():
            self.say(f"{path}: not the block the manifest lists (foreign or changed); recomputed")
            return None
        return data

    def write(self, name: str, text: str) -> None:
        """Write unit file `name` atomically and list it, with its hash, in the manifest.

        Raises
        ------
        ResumeMismatchError
            If a file the manifest does not list, or a symbolic link, is at that name: it is the
            user's, and is never replaced or written through (a listed block that changed is ours,
            recomputed and replaced).
        """
        target = self.path / name
        if target.is_symlink() or (target.exists() and name not in self.hashes):
            raise ResumeMismatchError(f"{target} is in the resume folder but is not a block this tool wrote there (a "
                                      "file of yours or a link); move it, or give an empty folder")
        atomic_write_text(target, text)
        self.hashes[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        write_json(self.path / MANIFEST, {"problem": self.problem, "blocks": self.hashes}, indent=1)
