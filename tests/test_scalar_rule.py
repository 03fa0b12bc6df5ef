"""The scalar rule (issue 56, item 4; stated in :mod:`qifkit.numbers`): flint rationals inside the
exact machinery (matrices, sparse_exact, the LP engine), Fractions wherever a user reads a result,
and never the two in one object: ``Fraction(1, 3) == flint.fmpq(1, 3)`` is False, so a mixed answer
would make an exact comparison silently false. One result type for every LP answer:
:class:`qifkit.lp.LPSolution`, in flint rationals from the engine and in Fractions from
:mod:`polytopes.lp`."""

import dataclasses
from fractions import Fraction as F

import flint
import pytest

from polytopes import (
    certified_minimum,
    count_error,
    count_error_weights,
    enumerate_orbits,
    exact_minimum,
    heuristic_constructor,
    ldp_polytope,
    optimal_mechanism,
    unfixed_optimum,
)
from qifkit import (
    Channel,
    explicit_fair_mechanism,
    hyper_distribution,
    linear_error,
    posterior_uncertainty,
    refines,
    tightest_eps_exp,
    truncated_geometric,
    uniform_prior,
)
from qifkit.errors import CertificateError, NotExactError
from qifkit.labelled import LabelledMatrix
from qifkit.lp import LinearProgram, LPSolution, certificate_defect, solve, solve_by_cdd

Q = flint.fmpq
FLINT_TYPES = (flint.fmpq, flint.fmpz, flint.fmpq_mat, flint.fmpz_mat)


def flint_values(obj, path="result", seen=None):
    """Where a flint number sits in `obj` (walking dataclasses, containers and the rows of labelled
    matrices), as paths; empty when there is none."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, FLINT_TYPES):
        return [f"{path}: {type(obj).__name__}"]
    if isinstance(obj, LabelledMatrix):
        return flint_values(obj.rows(), f"{path}.rows()", seen)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [p for f in dataclasses.fields(obj)
                for p in flint_values(getattr(obj, f.name), f"{path}.{f.name}", seen)]
    if isinstance(obj, dict):
        return [p for k, v in obj.items()
                for p in flint_values(k, f"{path} key", seen) + flint_values(v, f"{path}[{k!r}]", seen)]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [p for i, v in enumerate(obj) for p in flint_values(v, f"{path}[{i}]", seen)]
    return []


A = Channel.from_rows([["1/2", "1/2"], ["1/4", "3/4"]])
W = Channel.from_rows([["2/3", "1/3"], ["1/5", "4/5"]])
Z4 = [F(1, 10), F(2, 10), F(3, 10), F(4, 10)]

PUBLIC_RESULTS = {
    "refines, holds (witness)": lambda: refines(A, A @ W),
    "refines, fails (prior, loss, gap)": lambda: refines(A @ W, A),
    "truncated_geometric": lambda: truncated_geometric(5, eps_exp="2"),
    "explicit_fair_mechanism": lambda: explicit_fair_mechanism(5, eps_exp="2"),
    "posterior_uncertainty": lambda: posterior_uncertainty(uniform_prior(5), truncated_geometric(5, eps_exp="2"),
                                                           linear_error(range(5))),
    "tightest_eps_exp": lambda: tightest_eps_exp(A),
    "hyper_distribution": lambda: hyper_distribution(uniform_prior(2), A),
    "certified_minimum": lambda: certified_minimum(ldp_polytope(2, eps_exp=2), [-1, 0, 0, -1]),
    "exact_minimum": lambda: exact_minimum(ldp_polytope(2, eps_exp=2), [-1, 0, 0, -1]),
    "heuristic_constructor (Algorithm 1)": lambda: heuristic_constructor(Z4, eps_exp="2"),
    "unfixed_optimum (Algorithm 2)": lambda: unfixed_optimum(eps_exp="3", weights=count_error_weights(Z4)),
    "count_error": lambda: count_error(heuristic_constructor(Z4, eps_exp="2"), count_error_weights(Z4)),
    "optimal_mechanism (Cormode's LP)": lambda: optimal_mechanism(4, alpha=F(1, 2), properties=("RH", "CH", "F")),
    "enumerate_orbits": lambda: enumerate_orbits(ldp_polytope(3, eps_exp=2)),
}


@pytest.mark.parametrize("name", PUBLIC_RESULTS)
def test_public_results_hold_no_flint_numbers(name):
    """What a user reads is in Fractions (or sympy/floats where they asked for them), even where
    flint rationals computed it (the LP engine, FLINT's exact solves)."""
    result = PUBLIC_RESULTS[name]()
    assert flint_values(result) == []


def test_the_walk_sees_a_flint_number_where_one_is():
    """The guard above can fail: the engine's own answer, inside the rule, is flint rationals."""
    answer = solve(LinearProgram.build(2, [{0: 1, 1: 1}], row_lower=[1], cost=[2, 3]))
    assert flint_values(answer)[:2] == ["result.value: fmpq", "result.point[0]: fmpq"]
    assert flint_values({"x": [1, (F(1), Q(1, 2))]}) == ["result['x'][1][1]: fmpq"]


def test_the_lp_minima_of_polytopes_are_the_engines_one_result_type_in_fractions():
    answer = certified_minimum(ldp_polytope(2, eps_exp=2), [-1, 0, 0, -1])
    assert type(answer) is LPSolution and answer.holds_fractions
    assert answer.value == F(-4, 3) and answer.point == (F(2, 3), F(1, 3), F(1, 3), F(2, 3))
    assert answer.as_fmpq().value == Q(-4, 3)
    assert answer.optimum() == (F(-4, 3), answer.point)


def test_programs_and_answers_hold_one_scalar_type():
    """Issue 34: the engine's answers hold flint rationals on every route; an answer built from a
    mix of exact numbers is converted to them; one built from Fractions alone stays in Fractions.
    Floats are refused."""
    routes = {
        "HiGHS basis": solve(LinearProgram.build(2, [{0: 1, 1: 1}], row_lower=[1], cost=[2, 3])),
        "cddlib": solve_by_cdd(LinearProgram.build(2, [{0: 1, 1: 1}], row_lower=[1], cost=[2, 3])),
        "Farkas": solve(LinearProgram.build(1, [{0: 1}, {0: -1}], row_lower=[2, -1])),
        "cddlib's Farkas": solve_by_cdd(LinearProgram.build(1, [{0: 1}, {0: -1}], row_lower=[2, -1])),
        "unbounded": solve(LinearProgram.build(1, [{0: 1}], row_lower=[0], cost=[-1])),
        "built from a mix": LPSolution("optimal", F(1, 2), (F(1, 2), 0, "1/3"), (F(-1, 5),)),
    }
    for route, answer in routes.items():
        assert answer is not None, route
        fields = [answer.value, *(answer.point or ()), *(answer.duals or ()), *(answer.ray or ())]
        assert fields and all(type(v) is flint.fmpq for v in fields if v is not None), (route, fields)
        assert not answer.holds_fractions and answer.as_fmpq() is answer
    assert routes["built from a mix"].point == (Q(1, 2), Q(0), Q(1, 3))
    assert routes["Farkas"].status == routes["cddlib's Farkas"].status == "infeasible"
    fractions = LPSolution("optimal", F(1, 2), (F(1, 2), F(0)), (F(-1, 5),))
    assert fractions.holds_fractions and all(type(v) is F for v in (fractions.value, *fractions.point))
    assert fractions.as_fmpq().as_fractions() == fractions and fractions.as_fmpq().point == (Q(1, 2), Q(0))
    with pytest.raises(NotExactError):
        LPSolution("optimal", 0.5)
    with pytest.raises(NotExactError):
        LPSolution("optimal", F(1), (F(1), 0.5))


def test_the_checker_reads_an_answer_in_fractions_as_the_same_answer():
    program = LinearProgram.build(1, [{0: 1}], row_lower=[1], cost=[1])
    assert certificate_defect(program, LPSolution("optimal", F(1), (F(1),), (F(1),))) is None
    assert certificate_defect(program, LPSolution("optimal", F(1), (F(1),), (F(-1),))) is not None
    assert certificate_defect(program, LPSolution("optimal", F(2), (F(2),), (F(1),))) is not None


def test_an_answer_that_is_not_an_optimum_has_no_optimum():
    infeasible = solve(LinearProgram.build(1, [{0: 1}, {0: -1}], row_lower=[2, -1]))
    with pytest.raises(CertificateError, match="infeasible"):
        infeasible.optimum()
