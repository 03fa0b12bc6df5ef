"""An independent cross-check up to symmetry: SymPol (Rehn and Schürmann), the adjacency
decomposition bundled with polymake (Debian package ``polymake``), when it is installed.

SymPol converts a polytope's facets into one vertex per orbit of a group acting on the facets
(``representation_conversion_up_to_symmetry``, cdd inside). It is handed the facets and equations
cddlib's canonical form keeps (implicit equations found, redundant rows dropped) and each symmetry
generator as the permutation it induces on those facets; its representatives come back as exact
rationals. polymake is large and optional: nothing of the toolkit's own needs it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from fractions import Fraction

from polytopes.hrep import Polytope, permuted
from qifkit.errors import PolytopeError
from qifkit.extras import needs_extra
from qifkit.numbers import parse_number, primitive_integers

with needs_extra("polytopes"):  # pycddlib: a missing one is an error naming the extra to install
    import cdd
    import cdd.gmp

__all__ = ["sympol_available", "sympol_representatives"]


def sympol_available() -> bool:
    """True when the ``polymake`` program (which bundles SymPol) is on the PATH."""
    return shutil.which("polymake") is not None


def _script(polytope: Polytope) -> str:
    """The polymake script: facets, equations, the group's action on the facets, SymPol's answer."""
    matrix = polytope.cdd_matrix()
    cdd.gmp.matrix_canonicalize(matrix)
    rows = [primitive_integers(row) for row in matrix.array]
    facets = [row for k, row in enumerate(rows) if k not in matrix.lin_set]
    equations = [row for k, row in enumerate(rows) if k in matrix.lin_set]
    position = {row: k for k, row in enumerate(facets)}
    try:
        actions = [[position[primitive_integers((row[0], *permuted(row[1:], g)))] for row in facets]
                   for g in polytope.symmetries]
    except KeyError:
        raise PolytopeError(f"a symmetry of {polytope.name} does not map its facets onto facets") from None

    def listed(rows: Sequence[Sequence[int]]) -> str:
        return "[" + ",".join("[" + ",".join(str(v) for v in row) + "]" for row in rows) + "]"

    group = f"new group::PermutationAction(GENERATORS => {listed(actions or [list(range(len(facets)))])})"
    return "\n".join([
        'use application "polytope";',
        f"my $p = new Polytope<Rational>(FACETS => {listed(facets)}, AFFINE_HULL => {listed(equations)});",
        f"$p->GROUP = new group::Group(FACETS_ACTION => {group});",
        "my $r = representation_conversion_up_to_symmetry($p, v_to_h => 0, method => 'cdd');",
        'print "begin\\n", $r, "end\\n";',
    ]) + "\n"


def sympol_representatives(polytope: Polytope, timeout: float = 3600.0) -> list[tuple[Fraction, ...]]:
    """One vertex per orbit of the polytope's symmetry group, as SymPol finds them, exactly.

    Raises
    ------
    FileNotFoundError
        If polymake is not installed.
    PolytopeError
        If a symmetry does not permute the facets, or SymPol answers with a ray (not a polytope).
    """
    program = shutil.which("polymake")
    if program is None:
        raise FileNotFoundError("polymake (with SymPol) is not installed (Debian: apt-get install polymake)")
    with tempfile.NamedTemporaryFile("w", suffix=".pl") as script:
        script.write(_script(polytope))
        script.flush()
        output = subprocess.run([program, "--script", script.name], capture_output=True, text=True,
                                timeout=timeout, check=True).stdout
    rows = output.split("begin\n", 1)[-1].split("end\n", 1)[0].split("\n")
    found = []
    for line in filter(None, (row.strip() for row in rows)):
        leading, *coordinates = (parse_number(word) for word in line.split())
        if leading == 0:
            raise PolytopeError(f"SymPol found a ray of {polytope.name}: it is not a polytope")
        found.append(tuple(v / leading for v in coordinates))
    return found
