"""An independent cross-check: vertices from David Avis's ``lrs`` (Debian package lrslib), when
it is installed. lrs uses reverse search, a different algorithm from cdd's double description."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path

from polytopes.hrep import Polytope
from qifkit.errors import PolytopeError

__all__ = ["lrs_available", "lrs_vertices"]


def lrs_available() -> bool:
    """True when the ``lrs`` program is on the PATH."""
    return shutil.which("lrs") is not None


def lrs_vertices(polytope: Polytope, timeout: float = 600.0) -> set[tuple[Fraction, ...]]:
    """The vertices lrs finds, as exact coordinate tuples.

    Parameters
    ----------
    polytope : Polytope
        A bounded polytope.
    timeout : float
        Seconds lrs may run.

    Returns
    -------
    set of tuple of Fraction

    Raises
    ------
    FileNotFoundError
        If lrs is not installed.
    PolytopeError
        If lrs finds a ray or a line: the set is not a polytope, and its vertices alone do not describe it.
    """
    program = shutil.which("lrs")
    if program is None:
        raise FileNotFoundError("lrs is not installed (Debian: apt-get install lrslib)")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "polytope.ine"
        source.write_text(polytope.to_ine())
        output = subprocess.run(
            [program, str(source)], capture_output=True, text=True, timeout=timeout, check=True
        ).stdout
    vertices, inside = set(), False
    for line in output.splitlines():
        words = line.split()
        if words[:1] == ["begin"]:
            inside = True
        elif words[:1] == ["end"]:
            break
        elif words[:1] == ["linearity"] or inside and words[:1] == ["0"]:
            raise PolytopeError(f"{polytope.name} is not bounded: lrs found rays or lines")
        elif inside and words and words[0] == "1":
            vertices.add(tuple(Fraction(w) for w in words[1:]))
    return vertices
