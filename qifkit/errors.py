"""The exception tree of :mod:`qifkit`.

Every error the package raises on purpose derives from :class:`QifError` and also from the
builtin that a caller would expect (``ValueError`` for a bad value, ``TypeError`` for a value of
the wrong kind), so ``except ValueError`` keeps working for code that does not know qifkit.
Messages name the offending value and say why it is refused, e.g. ``row 2 sums to 5/6, not 1``.
"""

from __future__ import annotations

__all__ = [
    "QifError",
    "NumberSyntaxError",
    "NotExactError",
    "NumberKindError",
    "NotANumberError",
    "ShapeError",
    "NegativeEntryError",
    "NotStochasticError",
    "LabelError",
    "DistributionError",
    "PrivacyParameterError",
    "ParameterError",
    "UndecidableError",
    "CertificateError",
    "FileFormatError",
    "PolytopeError",
    "MissingDependencyError",
    "ClusterError",
    "InternalError",
    "TimeLimitReached",
]


class QifError(Exception):
    """Base class of every error raised on purpose by qifkit; each subclass also derives from the
    builtin a caller expects (``ValueError``, ``TypeError``, ...).

    >>> from qifkit import randomized_response
    >>> try:
    ...     randomized_response(3, eps_exp="1/2")
    ... except QifError as error:
    ...     print(type(error).__name__, isinstance(error, ValueError))
    PrivacyParameterError True
    """


class NumberSyntaxError(QifError, ValueError):
    """A number string does not follow the grammar of :func:`qifkit.parse_number`."""


class NotExactError(QifError, TypeError):
    """A float (or other inexact value) was given where exact arithmetic is required."""


class NumberKindError(QifError, TypeError):
    """Exact, symbolic and float64 values were about to be mixed silently."""


class NotANumberError(QifError, ValueError):
    """A NaN or infinite value was given as a probability or a loss."""


class ShapeError(QifError, ValueError):
    """A matrix is empty, ragged, or its size does not fit the operation."""


class NegativeEntryError(QifError, ValueError):
    """A probability or a loss is negative."""


class NotStochasticError(QifError, ValueError):
    """A row of a channel does not sum to 1."""


class LabelError(QifError, ValueError):
    """Labels are duplicated, missing, or do not match between two objects."""


class DistributionError(QifError, ValueError):
    """A prior (or another distribution) has the wrong length or does not sum to 1."""


class PrivacyParameterError(QifError, ValueError):
    """A privacy parameter is out of range, e.g. e^ε ≤ 1 where ε > 0 is needed."""


class ParameterError(QifError, ValueError):
    """An option of a call is out of its range, e.g. a time limit that is not a positive number of
    seconds (privacy parameters have :class:`PrivacyParameterError`)."""


class UndecidableError(QifError, TypeError):
    """A comparison (a minimum, a maximum) cannot be decided for symbolic entries."""


class CertificateError(QifError, ValueError):
    """A certificate document is malformed (missing keys, wrong shapes, bad number strings)."""


class FileFormatError(QifError, ValueError):
    """A file is not of the format asked for: not UTF-8 text, not JSON or TOML, nested too deep."""


class PolytopeError(QifError, ValueError):
    """A polytope or linear program is not what the operation needs: empty or unbounded,
    contradictory bounds, a point that is not a vertex, a vertex set not closed under symmetry."""


class MissingDependencyError(QifError, ImportError):
    """An optional package (pycddlib, PyNormaliz, Dask's distributed, pplpy) is needed for what was
    asked and is not installed; the message names the extra of qifkit that installs it."""


class ClusterError(QifError, ConnectionError):
    """A Dask scheduler cannot be reached at the address given, has no workers, or its workers run
    another version of qifkit."""


class InternalError(QifError, RuntimeError):
    """qifkit broke one of its own guarantees (a certificate failed its exact re-check, a theorem
    was contradicted): a bug of qifkit, never a property of the input; please report it."""


class TimeLimitReached(BaseException):
    """A caller's time limit ran out in the middle of a long evaluation (raised by the caller's timer,
    e.g. ``qifkit stability --time-limit``, or by :func:`qifkit.lp.solve`'s `time_limit`). Not an
    error of the input: like ``KeyboardInterrupt`` it derives from ``BaseException``, so no
    ``except Exception`` on the way swallows it, and the evaluation that catches it reports what
    it had certified by then."""
