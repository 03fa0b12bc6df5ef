"""qifkit: exact channels and what an analyst or adversary learns from them.

The core objects are immutable :class:`Channel` s with exact rational, exact symbolic or float64
entries (never mixed silently), the QIF measures of Alvim et al. (CCS 2023), the mechanism
families of the papers, and exact differential-privacy checks. Every error raised on purpose is a
:class:`qifkit.errors.QifError`.

Names are loaded on first use (PEP 562), so ``import qifkit`` and the ``qifkit`` command start
without sympy, scipy or FLINT until something needs them.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from qifkit import errors
from qifkit.errors import QifError
from qifkit.lazy import lazy_exports

try:
    __version__ = version("qifkit")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without installing
    __version__ = "unknown"

#: The public names, by the module each lives in.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "qifkit.channel": ("Channel",),
    "qifkit.count_objectives": ("l0_score", "objective_value"),
    "qifkit.labelled": ("LabelledMatrix",),
    "qifkit.leakage": (
        "Bits", "bayes_capacity", "conditional_entropy", "guessing_entropy", "min_entropy_capacity",
        "min_entropy_leakage", "posterior_guessing_entropy", "shannon_capacity", "shannon_entropy", "shannon_leakage",
    ),
    "qifkit.matrices": ("NumberKind",),
    "qifkit.measures": (
        "Decision", "Gain", "HyperDistribution", "Loss", "Posterior", "Prior", "additive_leakage", "argmax",
        "argmax_accuracy", "bayes_decision", "bayes_risk", "hyper_distribution", "identity_gain",
        "linear_error", "multiplicative_leakage", "point_prior", "posterior_uncertainty",
        "posterior_vulnerability", "posteriors", "prior_from_counts", "prior_uncertainty",
        "prior_vulnerability", "squared_error", "uniform_prior",
    ),
    "qifkit.mechanisms": (
        "explicit_fair_mechanism", "exponential_mechanism", "geometric_mechanism", "randomized_response",
        "truncated_geometric", "uniform_mechanism",
    ),
    "qifkit.numbers": ("exact", "exact_str", "parse_eps_exp", "parse_number"),
    "qifkit.privacy": (
        "count_adjacency", "histogram_adjacency", "local_adjacency", "satisfies_dp", "tightest_d_privacy",
        "tightest_eps_exp",
    ),
    "qifkit.refinement": ("Refinement", "refines", "verify_certificate"),
}
_HOMES, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from qifkit.channel import Channel
    from qifkit.count_objectives import l0_score, objective_value
    from qifkit.labelled import LabelledMatrix
    from qifkit.leakage import (
        Bits,
        bayes_capacity,
        conditional_entropy,
        guessing_entropy,
        min_entropy_capacity,
        min_entropy_leakage,
        posterior_guessing_entropy,
        shannon_capacity,
        shannon_entropy,
        shannon_leakage,
    )
    from qifkit.matrices import NumberKind
    from qifkit.measures import (
        Decision,
        Gain,
        HyperDistribution,
        Loss,
        Posterior,
        Prior,
        additive_leakage,
        argmax,
        argmax_accuracy,
        bayes_decision,
        bayes_risk,
        hyper_distribution,
        identity_gain,
        linear_error,
        multiplicative_leakage,
        point_prior,
        posterior_uncertainty,
        posterior_vulnerability,
        posteriors,
        prior_from_counts,
        prior_uncertainty,
        prior_vulnerability,
        squared_error,
        uniform_prior,
    )
    from qifkit.mechanisms import (
        explicit_fair_mechanism,
        exponential_mechanism,
        geometric_mechanism,
        randomized_response,
        truncated_geometric,
        uniform_mechanism,
    )
    from qifkit.numbers import exact, exact_str, parse_eps_exp, parse_number
    from qifkit.privacy import (
        count_adjacency,
        histogram_adjacency,
        local_adjacency,
        satisfies_dp,
        tightest_d_privacy,
        tightest_eps_exp,
    )
    from qifkit.refinement import Refinement, refines, verify_certificate

#: Every public name: the lazy ones by their home (_EXPORTS), and the two loaded eagerly.
__all__ = ["errors", "QifError", *_HOMES]
