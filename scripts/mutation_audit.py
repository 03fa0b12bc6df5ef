"""Re-run the guard audit: break one guard at a time in a copy of the tree and see a test fail.

Each entry of ``MUTATIONS`` is a guard of the toolkit's promise (a certificate checker, a sign
decision, a refusal), the one-line change that breaks it, and the test files that must catch it.
For each, the tracked files (and the untracked ones git does not ignore) are copied to a temporary
folder, the change is applied there (the text must occur exactly once), and pytest runs on the copy;
the working tree is never touched. A mutation is *killed* when the tests fail, *survived* when they
pass. Run from the repository root::

    .venv/bin/python scripts/mutation_audit.py                 # every mutation, its own test files
    .venv/bin/python scripts/mutation_audit.py --only lp-      # the ids starting with lp-
    .venv/bin/python scripts/mutation_audit.py --suite         # each against the whole fast suite

With ``--suite`` the entry's own test files run first in the fast tier (the default ``-m 'not
slow'``): what they kill, the fast suite kills; only a survivor is run against the rest of it.
``EQUIVALENT`` lists the mutations judged to be undetectable by any input, each with its reason;
they are not run.

Exit status 0 when every mutation is killed, 1 otherwise. Add a mutation here with each new guard.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutation:
    """One broken guard: replace `old` (exactly once in `path`) by `new`; `tests` must then fail."""

    id: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    what: str


MUTATIONS = (
    Mutation("lp-row-upper", "qifkit/lp/certificate.py",
             "        if high is not None and activity > high:\n            return f\"row {i} = {activity} is above",
             "        if False:\n            return f\"row {i} = {activity} is above",
             ("tests/test_lp.py",), "the certificate checker skips a row's upper bound"),
    Mutation("lp-variable-upper-slack", "qifkit/lp/certificate.py",
             "        if high is not None and v > high:", "        if high is not None and v > high + 1:",
             ("tests/test_lp.py",), "a variable may exceed its upper bound by up to 1"),
    Mutation("lp-ray-lower-side-only", "qifkit/lp/certificate.py",
             "        if (low is not None and change < 0) or (high is not None and change > 0):",
             "        if low is not None and change < 0:",
             ("tests/test_lp.py",), "a ray is checked against lower bounds only"),
    Mutation("lp-route-reads-the-clock", "qifkit/lp/attempts.py",
             "        if residual is None:\n            break",
             "        if residual is None or __import__('qifkit.lp.highs').lp.highs.time.perf_counter() > 7200:\n"
             "            break",
             ("tests/test_lp.py",), "the refinement rounds end when the clock says so (a busy machine's route)"),
    Mutation("lp-time-limit-answers", "qifkit/lp/highs.py",
             "    if deadline is None:\n        return math.inf\n    left",
             "    if True:\n        return math.inf\n    left",
             ("tests/test_lp.py",), "a caller's time limit is never checked: the solve answers after it"),
    Mutation("lp-eta-sign", "qifkit/lp/simplex.py",
             "                        u[p] -= a * t", "                        u[p] += a * t",
             ("tests/test_lp.py",), "the exact dual simplex applies an eta vector (product form) with the wrong sign"),
    Mutation("lp-primal-ratio-test-largest", "qifkit/lp/primal.py",
             "theta < best[0] or", "theta > best[0] or",
             ("tests/test_lp.py",), "the exact primal simplex's ratio test takes the largest step, leaving the bounds"),
    Mutation("lp-primal-flip-ignored", "qifkit/lp/primal.py",
             "high - low < best[0]", "high - low > best[0]",
             ("tests/test_lp.py",), "the primal ratio test lets a variable pass its own other bound"),
    Mutation("lp-primal-moves-up-always", "qifkit/lp/simplex.py",
             "move = -1 if at_upper else 1", "move = 1",
             ("tests/test_lp.py",), "the primal pricing moves a variable at its upper bound further up"),
    Mutation("lp-shifted-row-cost-sign", "qifkit/lp/primal.py",
             "cost[k] -= state.reduced[q] * a", "cost[k] += state.reduced[q] * a",
             ("tests/test_lp.py",), "a tight row's wrong-signed dual is shifted the wrong way"),
    Mutation("construct-lp-uniform-limit-for-any-z", "proofs_checks/cli/construct.py",
             "len(set(z)) == 1)", "True)",
             ("tests/test_cli_design.py",), "construct's exact LP takes n = 100 for any z, not only a uniform one"),
    Mutation("mode-ratio-corner-swapped", "qifkit/mode_range.py",
             "ratio_low, _ = high_corner.ratio(g, c, first, last)",
             "ratio_low, _ = low_corner.ratio(g, c, first, last)",
             ("tests/test_mode_range.py",), "the lower ratio bound is read at the corner of the lower chances"),
    Mutation("mode-candidates-one-corner", "qifkit/mode_range.py",
             "first, last = low_corner.modes()[0], high_corner.modes()[1]", "first, last = low_corner.modes()",
             ("tests/test_mode_range.py",), "the candidate modes are those of one corner only"),
    Mutation("mode-hull-one-chance", "qifkit/mode_range.py",
             "f(ratio_low.lower(), p_high)", "f(ratio_low.lower(), p_low)",
             ("tests/test_mode_range.py",), "the hull of D_g forgets that it falls with the chance"),
    Mutation("mode-window-tail-dropped", "qifkit/mode_range.py",
             "tail += end * (1 + 1e-9) * ratio / (1 - ratio)", "tail += 0.0",
             ("tests/test_mode_range.py",), "the mass outside a binomial window is not bounded"),
    Mutation("mode-rising-if-any-falls", "qifkit/mode_range.py",
             "return RISING if all(ball < 0", "return RISING if any(ball < 0",
             ("tests/test_mode_range.py",), "a piece is called rising when one candidate's slope is negative"),
    Mutation("mode-route-any-loss", "proofs_checks/gate/work.py",
             'spec.kind.mode and spec.loss == "bayes"', "spec.kind.mode",
             ("tests/test_mode_range.py",), "the gate takes the mode route for a loss other than Bayes"),
    Mutation("lp-block-not-dual-feasible", "qifkit/lp/simplex.py",
             "    if not new.dual_feasible():\n        return None\n    new.refactor(factor)",
             "    new.refactor(factor)",
             ("tests/test_lp.py",), "a block of dual simplex pivots is kept without the exact dual feasibility check"),
    Mutation("rows-scale-zero-kept", "polytopes/ldp_rows.py",
             "        if a is not None and min(a) > 0:\n            found",
             "        if a is not None and min(a) >= 0:\n            found",
             ("tests/test_ldp_rows.py",), "a column scale vector with a zero scale is kept"),
    Mutation("rows-loose-row-dropped", "polytopes/ldp_rows.py",
             "                loose.append(tuple(entries))", "                pass",
             ("tests/test_ldp_rows.py",), "no row with a loose entry is listed (Holohan et al.'s n = 5 example)"),
    Mutation("rows-pattern-sets-greatest", "polytopes/ldp_rows.py",
             "np.where(tied, words_low, np.uint64(0)).max(axis=0) == words_low[0])",
             "np.where(tied, words_low, np.iinfo(np.uint64).max).min(axis=0) == words_low[0])",
             ("tests/test_ldp_rows.py",), "the orderly generation keeps the greatest image, which is not hereditary"),
    Mutation("rows-antichains-too-few", "polytopes/ldp_rows.py",
             "    apart = ~(within | within.T)\n",
             "    apart = ~(within | within.T) & ((patterns[:, None] | patterns[None, :]) != size - 1)\n",
             ("tests/test_ldp_rows.py",), "two patterns that cover every column together are taken as comparable"),
    Mutation("files-gzip-trailing-bytes", "qifkit/files.py",
             "    if not unpacker.eof or unpacker.unused_data:", "    if False:",
             ("tests/test_files.py",), "a gzip stream cut short, or with bytes after its end, is read"),
    Mutation("census-rows-recount-skipped", "polytopes/census.py",
             "    if rows:\n", "    if False:\n",
             ("tests/test_census.py",), "a census with an orbit removed passes the tight and loose rows"),
    Mutation("u-loose-on-the-boundary", "polytopes/u_columns.py",
             "if not (q * left < p * right and q * right < p * left):",
             "if not (q * left <= p * right and q * right <= p * left):",
             ("tests/test_u_columns.py",), "a loose step on its bound counts: one vertex under two sets of steps"),
    Mutation("u-completion-dependent", "polytopes/u_columns.py",
             "        if not inner_det:\n            continue", "        if not inner_det:\n            inner_det = 1",
             ("tests/test_u_columns.py",), "a completing column dependent on the basis is kept"),
    Mutation("u-dependent-segment-kept", "polytopes/u_columns.py",
             "            if pivot < 0:\n                return None",
             "            if pivot < 0:\n                pivot = 0",
             ("tests/test_u_columns.py",), "a dependent segment vector joins the span"),
    Mutation("u-census-steps-unchecked", "polytopes/u_columns.py",
             "        if [_steps_of(", "        if False and [_steps_of(",
             ("tests/test_u_columns.py",), "a census entry whose loose step is tight is accepted"),
    Mutation("u-census-recount-skipped", "polytopes/u_columns.py",
             "    if recount:\n", "    if False:\n",
             ("tests/test_u_columns.py",), "a census of U with an orbit removed passes"),
    Mutation("rf-zero-row-sum-kept", "polytopes/rf_components.py",
             "        if min(u) <= 0:\n            return", "        if min(u) < 0:\n            return",
             ("tests/test_rf_components.py",), "a set of trees with a zero row sum counts: one vertex under two sets"),
    Mutation("rf-zero-flow-tree-kept", "polytopes/rf_components.py",
             "            if sums[mask] > taken:", "            if sums[mask] >= taken:",
             ("tests/test_rf_components.py",), "a spanning tree with a zero flow counts"),
    Mutation("rf-columns-ways-dropped", "polytopes/rf_components.py",
             "        ways //= math.factorial(c)", "        ways //= 1",
             ("tests/test_rf_components.py",), "the column assignments of a tree with several columns overcount"),
    Mutation("rf-negative-candidate-dropped-early", "polytopes/rf_components.py",
             "_NEGATIVE = -1e-9", "_NEGATIVE = 1e-9",
             ("tests/test_rf_components.py",), "floats drop candidates whose smallest row sum is a rounding of 0"),
    Mutation("rf-singleton-in-core", "polytopes/rf_components.py",
             "    taken = (core_bits[:, None] & pick_bits[None, :]) != 0",
             "    taken = (core_bits[:, None] & pick_bits[None, :] & 0) != 0",
             ("tests/test_rf_components.py",), "a one-scale tree may reuse a scale of the core"),
    Mutation("rf-count-table-unchecked", "polytopes/rf_components.py",
             "    if table != expected:", "    if False:",
             ("tests/test_rf_components.py",), "a count file with a forged table passes"),
    Mutation("faces-boundary-column", "polytopes/ldp_faces.py",
             "keep &= (b > q * a) & (b < p * a)", "keep &= (b > q * a) & (b <= p * a)",
             ("tests/test_ldp_faces.py",), "a column on its face's boundary counts: one vertex, two face sets"),
    Mutation("faces-bareiss-swap-sign", "polytopes/ldp_faces.py",
             "            sign[swap] = -sign[swap]", "            sign[swap] = sign[swap]",
             ("tests/test_ldp_faces.py",), "a row exchange in the exact elimination keeps the determinant's sign"),
    Mutation("census-faces-closure-skipped", "polytopes/census.py",
             "    if again != sizes:", "    if False:",
             ("tests/test_census.py",), "a face-set census missing an orbit passes its closure"),
    Mutation("decomposition-spread-loses-orbits", "polytopes/decomposition.py",
             "                submit_all(new)\n", "                submit_all(new[:1])\n",
             ("tests/test_cluster.py",), "a decomposed cone's walk on Dask visits one new ray orbit per result"),
    Mutation("cluster-nanny-allocator", "qifkit/cluster.py",
             '"distributed.scheduler.worker-ttl": None, **allocator}', '"distributed.scheduler.worker-ttl": None}',
             ("tests/test_cluster.py",), "local workers run with the nanny's malloc setting (a third slower)"),
    Mutation("faces-tasks-in-enumeration-order", "polytopes/ldp_faces.py",
             "largest_first = sorted(tasks, key=lambda task: task[-2] - task[-1])", "largest_first = tasks",
             ("tests/test_ldp_faces.py",), "the all-ray face-set tasks go to Dask last: workers end apart"),
    Mutation("enumerate-ldp-6-unguarded", "proofs_checks/cli/enumerate.py", '    ("LDP", 6): (', '    ("LDP", 7): (',
             ("tests/test_cli_design.py",), "D at n = 6 runs without --resume, for days"),
    Mutation("enumerate-rf-5-any-method", "proofs_checks/cli/enumerate.py",
             "guard[1] not in (None, arguments.method))",
             "guard[1] not in (None, arguments.method) and arguments.method != 'normaliz')",
             ("tests/test_cli_design.py",), "R_F at n = 5 goes to a lister that cannot resume"),
    Mutation("lp-dual-feasible-free-side", "qifkit/lp/simplex.py",
             "            if low is None and high is None:\n                move = -1 if d > 0 else 1",
             "            if low is None and high is None:\n                continue",
             ("tests/test_lp.py",), "a free or upper-only non-basic variable's reduced cost may have either sign"),
    Mutation("lp-float-proposal-sign", "qifkit/lp/simplex.py",
             "    upward = (alpha > 0) if direction > 0 else (alpha < 0)",
             "    upward = (alpha < 0) if direction > 0 else (alpha > 0)",
             ("tests/test_lp.py",), "the float guess of a block's swaps reads the pivot row's signs the wrong way"),
    Mutation("lp-block-objective-falls", "qifkit/lp/simplex.py",
             "strict=True)) > objective:", "strict=True)) > objective - 1000:",
             ("tests/test_lp.py",), "a block of dual simplex pivots is kept though the objective does not rise"),
    Mutation("lp-scaled-units-ignored", "qifkit/lp/refine.py",
             "misses = [binary_log(gap) + u for", "misses = [binary_log(gap) for",
             ("tests/test_lp.py",), "a scaled refinement round magnifies by the violation in absolute units"),
    Mutation("lp-scaled-clamp-unscaled", "qifkit/lp/refine.py",
             "far = fars[u] = _FAR * flint.fmpq(2) ** -u", "far = fars[u] = _FAR",
             ("tests/test_lp.py",), "a scaled refinement round clamps its bounds in absolute units"),
    Mutation("lp-scaled-never-interrupted", "qifkit/lp/refine.py",
             "            if seen[\"repeats\"] >= _REPEATS:\n                into.user_interrupt = True\n",
             "            if seen[\"repeats\"] >= _REPEATS:\n                pass\n",
             ("tests/test_lp.py",), "a scaled refinement round is never interrupted when HiGHS keeps returning"),
    Mutation("lp-scaled-basis-called-astray", "qifkit/lp/attempts.py",
             "and (round_ > 1 or fewest is None)", "and True",
             ("tests/test_lp.py",), "the last scaled round's wrong duals are handed to the exact dual simplex"),
    Mutation("lp-scaled-for-derived-programs", "qifkit/lp/attempts.py",
             "range(1, SCALED_ROUNDS + 1 if scaled else 1)", "range(1, SCALED_ROUNDS + 1)",
             ("tests/test_lp.py",), "the scaled refinement rounds run for derived programs too"),
    Mutation("search-rises-unconfirmed", "qifkit/stability.py",
             "            lower, upper = exact_loss(a), exact_loss(b)\n            if upper > lower:",
             "            lower, upper = exact_loss(a), exact_loss(b)\n            if upper >= lower or True:",
             ("tests/test_stability_range.py",), "a rise of the floats counts as confirmed without the exact losses"),
    Mutation("range-privacy-ratio-skipped", "qifkit/privacy.py",
             "            if sign_on(t * rows[other][j] - rows[i][j], t, low, high, allow_zero=True) not in (0, 1):",
             "            if False:",
             ("tests/test_privacy.py",), "a perturber's ratios are not proved on the range, only its signs"),
    Mutation("artefact-unchecked", "proofs_checks/cli/artefacts.py",
             "            verified = check.values(read_back)", "            verified = None",
             ("tests/test_artefacts.py",), "a mechanism file is written without checking it as read back"),
    Mutation("array-check-ratio", "polytopes/fixed_point/verification.py",
             "    broken = ratio > math.exp(eps) * (1 + tolerance)", "    broken = ratio > 2 * math.exp(eps)",
             ("tests/test_fixed_point.py",), "a written ratio above e^ε, below 2·e^ε, is not named"),
    Mutation("renormalise-spare-unchecked", "qifkit/labelled.py",
             "    if not 0 <= spare <= len(order):", "    if False:",
             ("tests/test_channel.py",), "a row too far from 1 for multiples of 1/D is renormalised anyway"),
    Mutation("mps-ranges-dropped", "qifkit/qsopt.py",
             "                ranges.append((i, high - low))", "                pass",
             ("tests/test_qsopt.py",), "a row bounded on both sides goes to QSopt_ex with its lower bound only"),
    Mutation("guessing-ascending", "qifkit/leakage.py",
             "    ordered = sorted(weights, reverse=True)", "    ordered = sorted(weights)",
             ("tests/test_leakage.py",), "guessing entropy guesses the least likely secret first"),
    Mutation("conditional-entropy-sign", "qifkit/leakage.py",
             "    return _entropy_ball([j for row in joint for j in row]) - _entropy_ball(outputs)",
             "    return _entropy_ball([j for row in joint for j in row]) + _entropy_ball(outputs) * 0",
             ("tests/test_leakage.py",), "H(X | Y) is taken as the joint entropy H(X, Y)"),
    Mutation("whole-number-maximum-ignored", "qifkit/validation.py",
             "            (maximum is not None and value > maximum):",
             "            (maximum is not None and value > maximum + 1):",
             ("tests/test_validation.py", "tests/test_stability_cli.py"),
             "a whole number one above its maximum passes (a known value beyond the values)"),
    Mutation("refinement-gap-zero", "qifkit/refinement.py",
             "    if result.gap <= 0:", "    if result.gap < 0:",
             ("tests/test_refinement.py",), "a refutation with gap 0 is accepted"),
    Mutation("refinement-row-basis-unchecked", "qifkit/refinement.py",
             "    return combination if combination * a_rows == exact_a else None", "    return combination",
             ("tests/test_refinement.py",), "a row basis is used without the exact test A = T·A_R"),
    Mutation("sign-on-touching-root", "qifkit/real_roots.py",
             "    if not allow_zero and (roots or 0 in signs):", "    if not allow_zero and 0 in signs:",
             ("tests/test_stability_range.py",), "a root where the sign does not change passes as strict"),
    Mutation("sign-on-pole", "qifkit/real_roots.py",
             "    if denominator.degree() > 0 and (value(denominator, low) == 0",
             "    if False and denominator.degree() > 0 and (value(denominator, low) == 0",
             ("tests/test_stability_range.py",), "a pole inside the interval is not seen"),
    Mutation("loss-on-range-pole", "qifkit/stability.py",
             "    if common.degree() > 0 and common.count_roots(",
             "    if False and common.degree() > 0 and common.count_roots(",
             ("tests/test_stability_range.py",), "the loss is followed across a pole of the pipeline"),
    Mutation("fixed-point-z-unchecked", "polytopes/fixed_point/verification.py",
             "    if worst_ratio > e or row_error or fixed_error:", "    if worst_ratio > e or row_error:",
             ("tests/test_fixed_point.py",), "exact verification does not enforce z·T = z"),
    Mutation("fixed-point-upward-ratio", "polytopes/fixed_point/verification.py",
             "    within = min(falls, default=0) >= 0 and min(rises, default=0) >= 0",
             "    within = min(falls, default=0) >= 0",
             ("tests/test_fixed_point.py",), "exact verification skips the upward ratio bound"),
    Mutation("log-mechanism-zero-beside-positive", "polytopes/fixed_point/verification.py",
             "np.isneginf(logs[1:]) & np.isneginf(logs[:-1])", "np.isneginf(logs[1:]) | np.isneginf(logs[:-1])",
             ("tests/test_fixed_point.py",), "float verification takes a zero beside a positive entry as ratio 1"),
    Mutation("cdd-unbounded", "polytopes/enumerate.py",
             "    if generators.lin_set or any(row[0] == 0 for row in generators.array):", "    if False:",
             ("tests/test_polytopes.py",), "cddlib's enumeration accepts an unbounded set"),
    Mutation("count-uncertainty-unknown-counted", "qifkit/pipelines.py",
             "    if len(columns) != len(set(counted)):", "    if False:",
             ("tests/test_count_uncertainty.py",), "a counted value that is not an output is ignored"),
    Mutation("table-mismatches-in-floats", "proofs_checks/evidence.py",
             "        if value != exact(expected)", "        if abs(float(value) - float(exact(expected))) > 1e-9",
             ("tests/test_checks.py",), "printed tables are compared in floats to 1e-9"),
    Mutation("two-stage-tolerance-50", "proofs_checks/kohli2026.py",
             "abs(ours[name] - quoted) > 0.25 * quoted", "abs(ours[name] - quoted) > 0.5 * quoted",
             ("tests/test_checks.py",), "the two-stage check's tolerance widened from 25 % to 50 %"),
    # the guards of round 4 (issues 32, 38)
    Mutation("range-proof-hits-unchecked", "qifkit/stability.py",
             "    if len(hits) != len(claimed) or any(", "    if False and any(",
             ("tests/test_stability_gate.py",), "a range proof's H and M are not compared with the perturber's"),
    Mutation("output-onto-input", "proofs_checks/cli/io.py",
             "            if source and source != \"-\" and same_file(path, source):", "            if False:",
             ("tests/test_hostile_inputs.py",), "an output may replace an input of the run"),
    Mutation("certificate-folder-foreign-file", "proofs_checks/cli/certificate_folder.py",
             "            if target.exists() and _digest(target) not in self.written.get(name, ()):",
             "            if False:",
             ("tests/test_hostile_inputs.py", "tests/test_stability_cli.py"),
             "the certificate folder writes over a file it did not write"),
    Mutation("input-not-a-regular-file", "qifkit/files.py",
             "    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:", "    if info.st_size > limit:",
             ("tests/test_hostile_inputs.py",), "a FIFO or a device is read as an input"),
    Mutation("resume-block-unchecked", "polytopes/ldp_support.py",
             "            _check_block(block, n, m, polytope, store.path / name)\n", "",
             ("tests/test_polytopes.py",), "a resumed support block is trusted for its hash"),
    Mutation("labelled-matrix-raw-data", "qifkit/labelled.py",
             "        if not (isinstance(matrix, np.ndarray) and matrix.ndim == 2",
             "        if False and not (isinstance(matrix, np.ndarray) and matrix.ndim == 2",
             ("tests/test_measures.py",), "Prior(pi) and Channel(rows) accept raw data"),
    Mutation("table-labels-unchecked", "qifkit/measures.py",
             "            if labels is not None and (isinstance(labels, (str, bytes))",
             "            if False and labels is not None and (isinstance(labels, (str, bytes))",
             ("tests/test_measures.py",), "bayes_risk(3) fails with a raw TypeError"),
    Mutation("constructed-analyst-unconfirmed", "proofs_checks/gate/ranges.py",
             "        if upper > lower:", "        if True:",
             ("tests/test_stability_gate.py",),
             "a float rise of a two-secret analyst is a verdict without exact losses"),
    Mutation("outcome-failures-ignored", "proofs_checks/claims.py",
             "        return cls.decide(not failures, Status.CONFIRMED, summary, **evidence, **shown)",
             "        return cls.decide(True, Status.CONFIRMED, summary, **evidence, **shown)",
             ("tests/test_checks.py",), "a check whose cases failed is confirmed"),
    Mutation("ball-side-first-candidate", "qifkit/ball_range.py",
             "            for choice in itertools.product(*(candidates[y] for y in torn)):",
             "            for choice in itertools.product(*(candidates[y][:1] for y in torn)):",
             ("tests/test_ball_range.py",), "where a best action may change, one side's slope taken for the piece"),
    Mutation("ball-candidate-dropped", "qifkit/ball_range.py",
             "        return bool((before > 0 and after >= 0) or (before >= 0 and after > 0))",
             "        return bool(before > 0 or after > 0)",
             ("tests/test_ball_range.py",), "an action above another at one end only is dropped from the candidates"),
    Mutation("ball-turn-sign", "qifkit/ball_range.py",
             "        falling_first = left < 0",
             "        falling_first = left > 0",
             ("tests/test_ball_range.py",), "a turn of the loss reported the wrong way round"),
    Mutation("decomposition-edges-uncounted", "polytopes/decomposition.py",
             "        edges = sum(stabiliser.orbit_size(ray) for ray in vertices)",
             "        edges = len(vertices)",
             ("tests/test_decomposition.py",), "a decomposed cone's edges counted once per orbit"),
    Mutation("decomposition-walk-stops", "polytopes/decomposition.py",
             "                    found[key] = None\n                    queue.append(key)",
             "                    found[key] = None",
             ("tests/test_decomposition.py",), "a cross-section's walk visits only its first vertex's neighbours"),
    Mutation("stabiliser-rows-fixed", "polytopes/decomposition.py",
             "        for choice in itertools.product(*(itertools.permutations(target) for _, target in groups)):",
             "        for choice in [tuple(target for _, target in groups)]:",
             ("tests/test_decomposition.py",), "a row × column stabiliser misses the maps that swap equal rows"),
    Mutation("census-adjacency-one-way", "polytopes/census.py",
             "        if one_way is not None:", "        if False:",
             ("tests/test_census.py",), "a census orbit may list an adjacent orbit that does not list it back"),
    Mutation("census-adjacency-unclosed", "polytopes/census.py",
             "            if adjacent is not None and reached != adjacent[index]:",
             "            if adjacent is None and reached != adjacent[index]:",
             ("tests/test_census.py",), "the closure does not compare the listed adjacent orbits with the neighbours'"),
    # the guards of issue 57 and of the census check (issues 52, 53)
    Mutation("ball-nan-enclosure-dominated", "qifkit/ball_range.py",
             "                if not all(_finite(value) and _finite(slope) for value, slope, _ in row):",
             "                if False:",
             ("tests/test_ball_range.py",), "actions whose enclosures are NaN are dropped: the finite one decides"),
    Mutation("census-stabiliser-unchecked", "polytopes/census.py",
             ' or entry.get("stabiliser") != forms.order // size:', ":",
             ("tests/test_census.py",), "a census orbit's stabiliser order is not compared with |G| / size"),
    Mutation("census-gamma-lambda-unchecked", "polytopes/census.py",
             '        if (entry.get("gamma"), entry.get("lambda")) != shape:', "        if False:",
             ("tests/test_census.py",), "a census orbit's (|γ|, |λ|) is not recomputed"),
    Mutation("census-orbit-count-unchecked", "polytopes/census.py",
             ' or document.get("orbit_count") != len(seen):', ":",
             ("tests/test_census.py",), "a census's orbit count is not compared with the orbits listed"),
    Mutation("census-too-few-tight", "polytopes/census.py",
             'entry.get("tight") != len(tight)', 'entry.get("tight") > len(tight)',
             ("tests/test_census.py",), "a census orbit listing too few tight inequalities passes"),
    Mutation("census-adjacency-subset", "polytopes/census.py",
             "reached != adjacent[index]", "not reached >= adjacent[index]",
             ("tests/test_census.py",), "a listed adjacency that is a subset of the neighbours' orbits passes"),
    Mutation("census-recount-skipped", "polytopes/census.py",
             "    if recounted:\n", "    if False:\n",
             ("tests/test_census.py",), "a walk census with an orbit removed passes without the tangent cones"),
    Mutation("array-exact-row-sum-signed", "polytopes/fixed_point/verification.py",
             "row_error = max(abs(Fraction(int(v), int(common)) - 1) for v in sums)",
             "row_error = max((Fraction(int(v), int(common)) - 1) for v in sums)",
             ("tests/test_fixed_point.py",), "an exact row below 1 hides behind a row that sums to 1"),
    Mutation("array-float-row-sum-signed", "polytopes/fixed_point/verification.py",
             "row_error = float(np.max(np.abs(np.expm1(logsumexp(logs, axis=1))))) + rounding",
             "row_error = float(np.max(np.expm1(logsumexp(logs, axis=1)))) + rounding",
             ("tests/test_fixed_point.py",), "a float row below 1 hides behind a row that sums to 1"),
    Mutation("array-float-fixed-point-signed", "polytopes/fixed_point/verification.py",
             "fixed_error = float(np.max(np.abs(np.expm1(logsumexp(z[:, None] + logs, axis=0) - z)))) + rounding",
             "fixed_error = float(np.max(np.expm1(logsumexp(z[:, None] + logs, axis=0) - z))) + rounding",
             ("tests/test_fixed_point.py",), "z·T below z at a tiny coordinate hides behind a tiny surplus"),
    Mutation("array-negative-entries", "polytopes/fixed_point/verification.py",
             "or not np.all(np.isfinite(values)) or np.any(values < 0)):", "or not np.all(np.isfinite(values))):",
             ("tests/test_fixed_point.py",), "an array with a negative entry is taken for a mechanism's shape"),
    Mutation("lp-variable-lower-dropped", "qifkit/lp/certificate.py",
             "        if low is not None and v < low:", "        if False:",
             ("tests/test_lp.py",), "a point below a variable's lower bound passes the primal check"),
    Mutation("lp-optimum-without-value", "qifkit/lp/certificate.py",
             "    if stated is None or to_fmpq(stated) != primal_value:",
             "    if stated is not None and to_fmpq(stated) != primal_value:",
             ("tests/test_lp.py",), "an optimum that states no value is accepted"),
    Mutation("lp-checked-optimum-flag-inverted", "qifkit/lp/certificate.py",
             "    if not feasible and primal_defect(program, x) is not None:",
             "    if feasible and primal_defect(program, x) is not None:",
             ("tests/test_lp.py",), "checked_optimum skips the point's check when the caller has not made it"),
    Mutation("ball-product-remainder-dropped", "qifkit/ball_range.py",
             "        rest = self.rest * (other.bound() + other.rest) + self.bound() * other.rest",
             "        rest = self.rest * (other.bound() + other.rest)",
             ("tests/test_ball_range.py",), "a Taylor-model product drops one part times the other's remainder"),
    Mutation("ball-dominated-unproved", "qifkit/ball_range.py",
             "        if not (change > 0 or change < 0):\n            return False\n        left, right",
             "        left, right",
             ("tests/test_ball_range.py",), "an action above at both ends is dropped, its difference not monotone"),
    Mutation("bits-error-without-radius", "qifkit/leakage.py",
             "    return Bits(value, float(ball.rad()) + abs(float(ball.mid() - value)) + math.ulp(value))",
             "    return Bits(value, abs(float(ball.mid() - value)) + math.ulp(value))",
             ("tests/test_leakage.py",), "a measure's error bound leaves out its ball's radius"),
    Mutation("capacity-least-divergence", "qifkit/leakage.py",
             "        top = max(above, key=lambda ball: ball.upper())",
             "        top = min(above, key=lambda ball: ball.upper())",
             ("tests/test_leakage.py",), "Arimoto's upper bound is taken over the least row divergence"),
    Mutation("capacity-input-not-renormalised", "qifkit/leakage.py",
             "    weights = [w / sum(weights) for w in weights]", "    pass",
             ("tests/test_leakage.py",), "the capacity's input distribution is not made an exact distribution"),
    Mutation("certificate-folder-changed-removed", "proofs_checks/cli/certificate_folder.py",
             "            if _digest(target) not in digests:", "            if False:",
             ("tests/test_certificate_folder.py",), "an earlier certificate the user changed is removed anyway"),
    Mutation("certificate-folder-manifest-as-run-path", "proofs_checks/cli/certificate_folder.py",
             " or relative.as_posix() == MANIFEST):", "):",
             ("tests/test_certificate_folder.py",), "a run's output path may be the folder's manifest"),
    Mutation("certificate-folder-manifest-prefix", "proofs_checks/cli/certificate_folder.py",
             "_OURS.fullmatch(name)", "_OURS.match(name)",
             ("tests/test_certificate_folder.py",), "a manifest name that only starts like the toolkit's is trusted"),
    Mutation("certificate-folder-through-links", "proofs_checks/cli/certificate_folder.py",
             "                if link.is_symlink():", "                if False:",
             ("tests/test_certificate_folder.py",), "a certificate is written through the user's symbolic link"),
    Mutation("certificate-folder-one-generation", "proofs_checks/cli/certificate_folder.py",
             "        self._write_manifest(both, spec_sha256)", "        pass",
             ("tests/test_certificate_folder.py",), "a run stopped while writing leaves files the next run refuses"),
    Mutation("stdout-reader-gone-is-a-verdict", "proofs_checks/cli/streams.py",
             "        except BrokenPipeError:\n            self._drop()\n            return None",
             "        except BrokenPipeError:\n            raise",
             ("tests/test_streams.py",), "a reader that stops reading changes the exit status"),
    Mutation("stdout-closed-unseen", "proofs_checks/cli/streams.py",
             "    if sys.stdout is None or _closed(sys.stdout):", "    if False:",
             ("tests/test_streams.py",), "a run with standard output closed reports nothing and exits 0"),
    Mutation("kronecker-power-unbounded", "qifkit/channel.py",
             "{rows}×{columns} channel\", count)", "{rows}×{columns} channel\", 0)",
             ("tests/test_channel.py",), "a Kronecker power of 2^40 rows starts being built"),
    # fresh mutants of the checkers (issue 53, item 3) that survived until a test was written for them
    Mutation("lp-point-length", "qifkit/lp/certificate.py",
             "        if solution.point is None or len(solution.point) != n:", "        if solution.point is None:",
             ("tests/test_lp.py",), "a point shorter than the program is checked on the entries it has"),
    Mutation("lp-ray-length", "qifkit/lp/certificate.py",
             "        if solution.ray is None or len(solution.ray) != n:", "        if solution.ray is None:",
             ("tests/test_lp.py",), "a ray shorter than the program is checked on the entries it has"),
    Mutation("census-empty-adjacency", "polytopes/census.py",
             "        if (not isinstance(listed, list) or not listed", "        if (not isinstance(listed, list)",
             ("tests/test_census.py",), "an orbit listing no adjacent orbit is not named"),
    Mutation("array-not-square", "polytopes/fixed_point/verification.py",
             "values.ndim != 2 or values.shape[0] != values.shape[1] or", "values.ndim != 2 or",
             ("tests/test_fixed_point.py",), "a written array that is not square is checked as a mechanism"),
    Mutation("certificate-folder-file-as-pair-folder", "proofs_checks/cli/certificate_folder.py",
             "            if target.parent != folder and target.parent.exists() and not target.parent.is_dir():",
             "            if False:",
             ("tests/test_certificate_folder.py",), "a file where a pair folder goes is found only after the work"),
    Mutation("certificate-folder-run-path-is-the-folder", "proofs_checks/cli/certificate_folder.py",
             "            if same_file(given, folder):", "            if False:",
             ("tests/test_certificate_folder.py",), "a run's output given as the certificate folder itself passes"),
    Mutation("range-proof-single-hit-unconditioned", "qifkit/stability.py",
             "    if len(claimed) == 1:\n        return None", "    if True:\n        return None",
             ("tests/test_stability_gate.py", "tests/test_stability_range.py"),
             "a count range proof with two hit probabilities is accepted without its sign conditions"),
    Mutation("scheduler-not-probed", "qifkit/cluster.py",
             "    _answers_dask(scheduler)\n", "",
             ("tests/test_cluster.py",), "a scheduler address that does not speak Dask is waited on forever"),
    Mutation("range-proof-for-any-query", "proofs_checks/gate/proofs.py",
             '    if not spec.kind.proof:\n        return f"a range proof is about count or',
             '    if False:\n        return f"a range proof is about count or',
             ("tests/test_stability_gate.py",), "a count's range proof is accepted for a threshold spec"),
    Mutation("range-proof-range-uncovered", "proofs_checks/gate/proofs.py",
             '    if not parse_eps_exp(document["from"]) <= low < high <= parse_eps_exp(document["to"]):',
             "    if False:",
             ("tests/test_stability_gate.py",), "a range proof on part of the spec's range is accepted"),
    Mutation("range-proof-counted-unbound", "proofs_checks/gate/proofs.py",
             '    if {key: document.get(key) for key in ("query", "counted")} != range_proof_fields(spec):',
             "    if False:",
             ("tests/test_stability_gate.py",), "a range proof about other counted values is accepted"),
    Mutation("range-proof-hash-optional", "proofs_checks/cli/verify.py",
             "SHA-256 as spec_sha256)\" if recorded is None\n               else check(spec, document))",
             "SHA-256 as spec_sha256)\" if False\n               else check(spec, document))",
             ("tests/test_stability_gate.py",), "a range proof naming no spec is checked as if it named this one"),
    Mutation("rise-points-outer-ends", "proofs_checks/gate/ranges.py",
             "    inner_start, inner_end = first.bounds[1], last.bounds[0]",
             "    inner_start, inner_end = first.bounds[0], last.bounds[1]",
             ("tests/test_stability_gate.py",), "a rise's certificate points come from its intervals' outer ends"),
    Mutation("rise-ends-not-separated", "proofs_checks/gate/ranges.py",
             "    while first.bounds[1] >= last.bounds[0]:", "    while False:",
             ("tests/test_stability_gate.py",), "a rise's ends are used with overlapping isolating intervals"),
    Mutation("ball-route-count-not-release", "proofs_checks/gate/ranges.py",
             "known=known, release=spec.kind.release(spec), pieces=budget",
             "known=known, release=None, pieces=budget",
             ("tests/test_stability_gate.py",), "the ball route of a threshold decides the count's loss"),
    Mutation("sampled-range-monotone", "proofs_checks/gate/report.py",
             'FOLLOWED = ("exact", "ball", "mode")',
             'FOLLOWED = ("exact", "ball", "mode", "sampled")',
             ("tests/test_stability_gate.py",), "a range only sampled in floats keeps monotone = true"),
    Mutation("two-secret-search-at-ten", "proofs_checks/gate/ranges.py",
             "    if len(secrets) > limits.DICHOTOMY_MAX_SECRETS:",
             "    if len(secrets) >= limits.DICHOTOMY_MAX_SECRETS:",
             ("tests/test_stability_gate.py",), "the two-secret search is skipped at exactly 10 secrets"),
    Mutation("two-secret-risks-at-ten", "proofs_checks/gate/ranges.py",
             "        pairs = len(self.secrets) <= limits.DICHOTOMY_MAX_SECRETS",
             "        pairs = len(self.secrets) < limits.DICHOTOMY_MAX_SECRETS",
             ("tests/test_stability_gate.py",), "the float sweep keeps no two-secret risks at exactly 10 secrets"),
    Mutation("tolerance-includes-its-bound", "proofs_checks/gate/evaluate.py",
             "        if gap > spec.tolerance:", "        if gap >= spec.tolerance:",
             ("tests/test_gate_question.py",), "a rise equal to the tolerance fails the release"),
    Mutation("rise-bound-wrong-ends", "qifkit/stability.py",
             "at_end[1] - at_start[0]", "at_end[0] - at_start[1]",
             ("tests/test_gate_question.py",), "a rising stretch's upper bound is below its exact rise"),
    Mutation("generator-proof-blocks-unbound", "proofs_checks/gate/proofs.py",
             '        if document.get("blocks") != blocks:', "        if False:",
             ("tests/test_gate_question.py",), "a histogram's generator proof is accepted for a count spec"),
    Mutation("instability-losses-not-recomputed", "proofs_checks/gate/proofs.py",
             "    if [*losses, losses[1] - losses[0]] != recorded:", "    if False:",
             ("tests/test_certificate_roundtrip.py",), "a census-sized instability with forged losses is accepted"),
    Mutation("population-row-first-value", "qifkit/pipelines.py",
             "    return Channel(perturber.matrix.vstack(row * perturber.matrix), secrets, perturber.outputs)",
             "    return Channel(perturber.matrix.vstack(perturber.matrix[0:1, :]), secrets, perturber.outputs)",
             ("tests/test_population_model.py",), "the other respondents report as if they held value 0"),
    Mutation("analyst-question-compares-pairs", "proofs_checks/gate/evaluate.py",
             '        if spec.question == "analyst":\n            for pair in report.pairs:',
             "        if False:\n            for pair in report.pairs:",
             ("tests/test_gate_question.py",), "a spec asking about its analyst is failed by a constructed one"),
)

#: Mutations judged undetectable by any input, with the reason (issue 53: none without one).
EQUIVALENT = (
    ("array-exact-fixed-point-signed", "polytopes/fixed_point/verification.py",
     "the exact fixed-point error max((z·T)_j / z_j − 1) without its absolute value: it is raised in one "
     "test with the row-sum error, and when every row sums to 1 exactly, Σ_j (z·T)_j = Σ_j z_j, so a coordinate "
     "below z_j forces another above it: the signed maximum is positive exactly when the absolute one is"),
    ("rows-loose-on-the-boundary", "polytopes/ldp_rows.py",
     "a loose entry allowed at its column's minimum or maximum (<= for <): such a row is a tight pattern with "
     "p·a = 1, so every multiset it joins already has tight rows of rank m and is found with the row as tight"),
    ("rows-full-support-zero-scale", "polytopes/ldp_rows.py",
     "a full-support pattern set kept with a zero scale (>= 0 for > 0): B is invertible, so its other n − 1 "
     "columns have rank n − 1 and the matrix is a vertex with one zero column, the same orbit the m = n − 1 "
     "enumeration lists"),
    ("u-completion-zero-coefficient", "polytopes/u_columns.py",
     "a completing column's coefficient of 0 let past the early sign test (< 0 for <= 0): that test only saves "
     "work; the coefficient enters β as c·d₀ = 0 and _Columns.vertex refuses every β with an entry ≤ 0"),
    ("ball-rising-both-ends-nonnegative", "qifkit/ball_range.py",
     "_monotone_slope's rising test (U'(a) ≥ 0 and U'(b) > 0, or U'(a) > 0 and U'(b) ≥ 0) weakened to both ≥ 0: "
     "an Arb ball is ≥ 0 and not > 0 only when its lower end is exactly 0; Arb rounds radii up (a ball of "
     "midpoint r and radius r comes out with radius r + 2^-29 r), so apart from the exact point 0, which the "
     "falling branch takes first, no enclosure of U' has that form (tried: constructors, unions, sums)"),
)


def _copy_tree(source: Path, target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=source, check=True,
                            capture_output=True, text=True).stdout.splitlines()
    for name in listed:
        if (source / name).is_symlink():  # results/ links to proofs_checks/results: tests read the census there
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(source / name), target / name)
        elif (source / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)


def run(mutation: Mutation, root: Path, whole_suite: bool) -> tuple[bool, str]:
    """Apply `mutation` to a copy of `root` and run its tests; (killed, the first failing test or why)."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutation.id}-") as folder:
        copy = Path(folder)
        _copy_tree(root, copy)
        path = copy / mutation.path
        text = path.read_text(encoding="utf-8")
        if text.count(mutation.old) != 1:
            return (
                False,
                f"the guard's text occurs {text.count(mutation.old)} times in {mutation.path}: update the entry",
            )
        path.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
        # the entry's own test files first, in the fast tier (pyproject's -m 'not slow'): a mutant
        # they kill is killed by the fast suite; the rest of the suite runs only for a survivor
        killed, detail = _pytest(copy, list(mutation.tests))
        if killed or not whole_suite:
            return killed, detail
        return _pytest(copy, ["-n", "2", *(f"--deselect={name}" for name in mutation.tests)])


def _pytest(copy: Path, arguments: list[str]) -> tuple[bool, str]:
    """pytest on the mutated copy: (whether it failed, the first failing test or its last line)."""
    command = [sys.executable, "-m", "pytest", "-x", "-rf", "-p", "no:cacheprovider", *arguments]
    result = subprocess.run(command, cwd=copy, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(copy)})
    failed = [line for line in result.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    last = result.stdout.strip().splitlines()[-1:] or [""]
    return result.returncode != 0, failed[0] if failed else last[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the mutations whose id starts with this")
    parser.add_argument("--suite", action="store_true", help="run the whole fast suite on each mutant")
    arguments = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    chosen = [m for m in MUTATIONS if m.id.startswith(arguments.only)]
    survivors = 0
    for mutation in chosen:
        killed, detail = run(mutation, root, arguments.suite)
        survivors += not killed
        print(
            f"{'killed  ' if killed else 'SURVIVED'} {mutation.id:<36} {mutation.what}\n         {detail}", flush=True
        )
    print(f"{len(chosen) - survivors} of {len(chosen)} mutations killed")
    return 0 if survivors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
