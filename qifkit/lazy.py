"""Public names loaded on first use (PEP 562), for the packages' ``__init__`` modules.

``import qifkit`` and ``import polytopes`` list their names without importing sympy, scipy or FLINT;
a name's module is imported when the name is first read, and the value is then kept in the package.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]]) -> tuple[
        dict[str, str], Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of `package` for the names of `exports`.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (it must be importing, i.e. in ``sys.modules``).
    exports : dict
        Module name -> the public names it holds.

    Returns
    -------
    homes : dict
        Public name -> its module.
    getattr, dir : callable
        A name of `exports` is imported from its module and kept in the package; any other name is
        tried as a submodule (``qifkit.lp``); else AttributeError.
    """
    homes = {name: module for module, names in exports.items() for name in names}
    namespace = sys.modules[package].__dict__

    def lazy_getattr(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            if importlib.util.find_spec(f"{package}.{name}") is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            return importlib.import_module(f"{package}.{name}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def lazy_dir() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return homes, lazy_getattr, lazy_dir
