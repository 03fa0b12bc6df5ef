"""The exact sparse kernels under the LP engine (qifkit.sparse_exact): the block solvers, lifting
and short-row elimination agree with FLINT's dense solves, and say so when a system is singular."""

import random

import flint
import pytest

from qifkit.numbers import exact_dot
from qifkit.sparse_exact import (
    ShortRowElimination,
    SquareFactor,
    solve_bordered,
    solve_by_lifting,
    solve_square,
    solve_square_transposed,
)


def test_block_solvers_agree_with_each_other_and_with_a_dense_solve():
    """solve_square (block triangular form), solve_bordered (column groups) and FLINT's dense
    solve give the same answers on 500 random square systems; all say None when singular."""
    rng = random.Random(3)
    q = flint.fmpq
    regular = 0
    for _ in range(500):
        size, groups_count = rng.randint(1, 10), rng.randint(1, 4)
        groups = [rng.randrange(groups_count) for _ in range(size)]
        rows = []
        for _ in range(size):
            if rng.random() < 0.7:
                g = rng.randrange(groups_count)
                columns = [c for c in range(size) if groups[c] == g and rng.random() < 0.7]
            else:
                columns = [c for c in range(size) if rng.random() < 0.4]
            rows.append([(c, q(rng.randint(-3, 3), rng.randint(1, 3))) for c in columns])
            rows[-1] = [(c, a) for c, a in rows[-1] if a]
        right = [q(rng.randint(-5, 5)) for _ in range(size)]
        cost = [q(rng.randint(-5, 5)) for _ in range(size)]
        dense = flint.fmpq_mat(size, size)
        for i, row in enumerate(rows):
            for c, a in row:
                dense[i, c] += a
        x, y = solve_square(rows, right), solve_square_transposed(rows, cost)
        both = solve_bordered(rows, right, groups, cost)
        if dense.rank() < size:
            assert x is None and both is None
            continue
        regular += 1
        expected = dense.solve(flint.fmpq_mat(size, 1, right))
        assert x == [expected[k, 0] for k in range(size)] and both == (x, y)
        assert all(exact_dot((a, y[i]) for i, row in enumerate(rows) for c, a in row if c == k) == cost[k]
                   for k in range(size))
    assert regular >= 100


def _lifting_system(rng: random.Random, size: int, kind: str) -> list[list[tuple[int, flint.fmpq]]]:
    q = flint.fmpq
    rows = []
    for i in range(size):
        columns = {i} | {rng.randrange(size) for _ in range(rng.randint(1, 4))}
        if kind == "badly scaled":  # rows of probabilities like p^30 beside ones
            scale = q(1, 5 ** rng.randint(0, 30))
            rows.append([(c, scale * q(rng.randint(1, 9), rng.randint(1, 7))) for c in sorted(columns)])
        elif kind == "ratio chains":  # the count-mechanism bases: x_a - e·x_b and row sums
            rows.append([(c, q(1) if c == i else q(-2)) for c in sorted(columns)])
        else:
            rows.append([(c, q(rng.randint(-4, 4) or 1, rng.randint(1, 5))) for c in sorted(columns)])
    if kind == "singular":
        rows[-1] = list(rows[0])
    if kind == "nearly singular":
        rows[-1] = [(c, a + (q(1, 10**30) if c == rows[0][0][0] else 0)) for c, a in rows[0]]
    return rows


@pytest.mark.parametrize("kind", ["plain", "badly scaled", "ratio chains", "nearly singular", "singular"])
def test_lifting_agrees_with_a_dense_solve(kind):
    """Numeric lifting (Wan's method) on systems above the dense threshold: every answer it gives
    is the dense rational solution, singular systems give None (floats may also give up on a
    nearly singular one: the dense solve then decides), and solve_square (which tries
    lifting first on large blocks) agrees with the dense solve everywhere."""
    rng = random.Random(kind)
    q = flint.fmpq
    lifted_count = 0
    for _ in range(6):
        size = rng.randint(50, 110)
        rows = _lifting_system(rng, size, kind)
        right = [q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(size)]
        dense = flint.fmpq_mat(size, size)
        for i, row in enumerate(rows):
            for c, a in row:
                dense[i, c] += a
        lifted, square = solve_by_lifting(rows, right), solve_square(rows, right)
        if dense.rank() < size:
            assert lifted is None and square is None
            continue
        expected = dense.solve(flint.fmpq_mat(size, 1, right))
        expected = [expected[k, 0] for k in range(size)]
        assert square == expected
        if lifted is not None:
            lifted_count += 1
            assert lifted == expected
    if kind not in ("singular", "nearly singular"):  # those two fall to the dense solve
        assert lifted_count >= 4


def _chain_system(rng: random.Random, size: int, long_rows: int) -> list[list[tuple[int, flint.fmpq]]]:
    """Mostly two-term rows x_a − e·x_b (tight ε-DP constraints), one-term rows, and a few long
    rows (row sums), in a random order: the shape of the bases of DP mechanism polytopes."""
    q = flint.fmpq
    own = list(range(size))  # row i's own column, so that every column occurs
    rng.shuffle(own)
    rows: list[list[tuple[int, flint.fmpq]]] = []
    for i in range(size - long_rows):
        other = rng.randrange(size)
        if other == own[i] or rng.random() < 0.05:
            rows.append([(own[i], q(rng.randint(1, 5), rng.randint(1, 3)))])
        else:
            rows.append([(own[i], q(1)), (other, q(-rng.choice([2, 3, 5]), rng.choice([1, 2])))])
    for i in range(size - long_rows, size):
        columns = {own[i]} | set(rng.sample(range(size), rng.randint(2, size // 2)))
        rows.append([(c, q(rng.randint(1, 3))) for c in sorted(columns)])
    rng.shuffle(rows)
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_short_row_elimination_agrees_with_a_dense_solve(seed):
    """ShortRowElimination's solve and transposed solve (and solve_square, which eliminates large
    blocks on their short rows or short columns, and one SquareFactor solved with repeatedly) give
    FLINT's dense solutions of M·x = b and Mᵀ·y = c on chain-shaped systems of 48 to 120 unknowns,
    and None exactly when M is singular; transposing M makes the column route the one taken."""
    rng = random.Random(seed)
    q = flint.fmpq
    size = rng.randint(48, 120)
    rows = _chain_system(rng, size, rng.randint(1, 6))
    if seed % 4 == 3:  # a repeated row: singular
        rows[-1] = list(rows[0])
    right = [q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(size)]
    cost = [q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(size)]
    dense = flint.fmpq_mat(size, size)
    for i, row in enumerate(rows):
        for c, a in row:
            dense[i, c] += a
    columns: list[list[tuple[int, flint.fmpq]]] = [[] for _ in range(size)]
    for i, row in enumerate(rows):
        for c, a in row:
            columns[c].append((i, a))
    elimination = ShortRowElimination(rows)
    assert elimination.singular or len(elimination.rest_rows) == len(elimination.rest_columns) < size // 2
    factor = SquareFactor(rows)  # one factorisation, solved with four times, the transposed way first
    answers = [
        elimination.solve(right),
        elimination.solve_transposed(cost),
        solve_square(rows, right),
        solve_square_transposed(rows, cost),
        solve_square(columns, cost),
        solve_square_transposed(columns, right),
        factor.solve_transposed(cost),
        factor.solve(right),
        factor.solve_transposed(right),
        factor.solve(cost),
    ]
    if dense.rank() < size:
        assert all(answer is None for answer in answers)
        return
    x = dense.solve(flint.fmpq_mat(size, 1, right))
    y = dense.transpose().solve(flint.fmpq_mat(size, 1, cost))
    x_of_cost = dense.solve(flint.fmpq_mat(size, 1, cost))
    y_of_right = dense.transpose().solve(flint.fmpq_mat(size, 1, right))
    x, y = [x[k, 0] for k in range(size)], [y[k, 0] for k in range(size)]
    x_of_cost, y_of_right = [x_of_cost[k, 0] for k in range(size)], [y_of_right[k, 0] for k in range(size)]
    assert answers == [x, y, x, y, y, x, y, x, y_of_right, x_of_cost]
