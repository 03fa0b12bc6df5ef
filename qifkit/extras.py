"""The extras of qifkit: what each optional group of dependencies installs, and one way to import
them so that a missing one is an error naming the extra (``pip install 'qifkit[polytopes]'``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from qifkit.errors import InternalError, MissingDependencyError

__all__ = ["EXTRAS", "needs_extra"]

#: What each extra of qifkit installs (``pip install 'qifkit[polytopes]'``). The core (channels,
#: measures, leakage, refinement, the LP engine and the deploy gate) needs none of them.
EXTRAS = {
    "polytopes": "pycddlib and PyNormaliz: vertex enumeration, design, construct, the polytope papers' checks",
    "cluster": "Dask's distributed: enumeration and checks on worker processes or several machines",
    "plot": "matplotlib: qifkit stability --plot",
}


@contextmanager
def needs_extra(extra: str) -> Iterator[None]:
    """Imports made inside this block belong to the extra `extra` of qifkit: a missing module becomes a
    :class:`MissingDependencyError` naming the extra to install, instead of a bare ``ModuleNotFoundError``.

    >>> with needs_extra("polytopes"):
    ...     import module_that_is_not_installed
    Traceback (most recent call last):
    ...
    qifkit.errors.MissingDependencyError: module_that_is_not_installed is not installed; it comes with the extra \
polytopes of qifkit (pycddlib and PyNormaliz: ...): pip install 'qifkit[polytopes]'
    """
    if extra not in EXTRAS:
        raise InternalError(f"{extra!r} is not an extra of qifkit (extras: {', '.join(EXTRAS)})")
    try:
        yield
    except ModuleNotFoundError as error:
        module = error.name or "a module"
        package = {"cdd": "pycddlib", "PyNormaliz": "pynormaliz"}.get(module.split(".")[0])
        missing = module if package is None else f"{package} (module {module})"
        raise MissingDependencyError(
            f"{missing} is not installed; it comes with the extra {extra} of qifkit ({EXTRAS[extra]}): "
            f"pip install 'qifkit[{extra}]'") from None
