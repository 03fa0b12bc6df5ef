"""QSopt_ex (``esolver``) as an independent exact oracle for the LP engine (issue 34): the same status
and the same exact optimum on random programs and on ≥ 50 programs of the toolkit's own families
(Kohli and Laskowski's F and U, Cormode et al.'s design LPs). Skipped where esolver is absent
(``apt install qsopt-ex``; ``scripts/setup.sh`` installs it)."""

from __future__ import annotations

import math
import random
import shutil
from fractions import Fraction as F

import pytest

from qifkit.lp import LinearProgram, certificate_defect, solve
from qifkit.qsopt import mps_text, qsopt_optimum

needs_esolver = pytest.mark.skipif(shutil.which("esolver") is None,
                                   reason="QSopt_ex's esolver is not installed (apt install qsopt-ex)")


def _toolkit_programs() -> list[tuple[str, LinearProgram]]:
    """min E|i − j| over F (uniform and binomial z) and U at n = 3..7 and e^ε ∈ {2, 3/2, 5}, and
    Cormode et al.'s design LP (L0 and L1 objectives, with and without properties) at n = 3..6."""
    from polytopes.constrained import design_program
    from polytopes.fixed_point.algorithm2 import count_error_weights
    from polytopes.spaces import count_program

    programs = []
    for n in range(3, 8):
        for e in ("2", "3/2", "5"):
            for shape in ("uniform", "binomial"):
                z = [F(1, n)] * n if shape == "uniform" else [F(math.comb(n - 1, k), 2 ** (n - 1)) for k in range(n)]
                objective = [w for row in count_error_weights(z) for w in row]
                program = count_program(n, e, z, fixed=True).linear_program(objective)
                programs.append((f"F n={n} e={e} {shape}", program))
            objective = [w for row in count_error_weights([F(1, n)] * n) for w in row]
            programs.append((f"U n={n} e={e}", count_program(n, e, None, fixed=False).linear_program(objective)))
    for n in range(3, 7):
        for properties in ([], ["F"], ["RH", "CM"]):
            design = design_program(n, alpha=F(1, 2), properties=properties)
            for p in (0, 1):
                cost = [F(abs(j - i) ** p if p else int(j != i), n + 1) for j in range(n + 1) for i in range(n + 1)]
                programs.append((f"design n={n} {properties} L{p}", design.linear_program(cost)))
    return programs


def test_the_mps_text_keeps_every_bound_kind_and_exact_rationals():
    program = LinearProgram.build(4, [{0: 1, 1: "1/3"}, {1: 2, 2: -1}, {3: 1}, {0: 5}],
                                  row_lower=["1/7", None, 0, 2], row_upper=["9/7", 3, 0, None],
                                  cost=[1, 0, "-2/3", 0], lower=[0, None, -1, None], upper=[None, 4, 1, -2])
    text = mps_text(program)
    assert " G r0\n L r1\n E r2\n G r3\n" in text
    assert " x1 r0 1/3\n" in text and " x2 obj -2/3\n" in text
    assert " rhs r0 1/7\n rhs r1 3\n rhs r3 2\n" in text and " rng r0 8/7\n" in text
    assert " MI bnd x1\n UP bnd x1 4\n LO bnd x2 -1\n UP bnd x2 1\n MI bnd x3\n UP bnd x3 -2\n" in text


@needs_esolver
def test_agrees_with_qsopt_ex_on_random_programs(random_program):
    """Issue 34's acceptance: 300 random programs (equalities, ranges, free and boxed variables,
    rank-deficient rows, degenerate right-hand sides, rows scaled by 1e-9 to 1e9) get QSopt_ex's
    status and exact optimum, and every certificate passes the independent checker."""
    rng = random.Random(29)
    statuses = set()
    for trial in range(300):
        program = random_program(rng, blocks=trial % 3 == 0)
        expected_status, expected_value = qsopt_optimum(program)
        solution = solve(program)
        statuses.add(solution.status)
        assert (solution.status, solution.value) == (expected_status, expected_value), trial
        assert certificate_defect(program, solution) is None, trial
    assert statuses == {"optimal", "infeasible", "unbounded"}


@needs_esolver
def test_agrees_with_qsopt_ex_on_the_toolkits_own_programs():
    programs = _toolkit_programs()
    assert len(programs) >= 50
    for name, program in programs:
        status, value = qsopt_optimum(program)
        solution = solve(program)
        assert (solution.status, solution.value) == (status, value), name


def test_a_missing_esolver_is_named(monkeypatch):
    from qifkit.errors import MissingDependencyError

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(MissingDependencyError, match="apt install qsopt-ex"):
        qsopt_optimum(LinearProgram.build(1, [{0: 1}], row_lower=[0], cost=[1]))
