"""Sphinx configuration of qifkit's documentation: ``python -m sphinx -W -b html docs docs/_build/html``
(tests/test_docs.py builds it with warnings as errors).

The API reference is written here from the packages' ``__all__`` (one page per exported name,
through autosummary), so a name exported is a name documented; the notebooks are executed at build
in their fast setting (QIFKIT_FAST=1), so their plots and numbers are those of this build.
"""

import inspect
import os
import types
from pathlib import Path

import polytopes
import qifkit

HERE = Path(__file__).resolve().parent

project = "qifkit"
author = "The qifkit developers"
copyright = "2026, The qifkit developers"
version = release = qifkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "notebooks/figures"]
html_theme = "alabaster"
html_title = f"qifkit {release}"

autosummary_generate = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

nb_execution_mode = "force"
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_in_temp = True  # the notebooks save their figures into the working folder: not into the checkout
os.environ.setdefault("QIFKIT_FAST", "1")
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


def _write_api_pages() -> None:
    """api/<package>.rst: an autosummary of every name the package exports."""
    folder = HERE / "api"
    folder.mkdir(exist_ok=True)
    for package, blurb in ((qifkit, "channels, measures, refinement, mechanisms, pipelines, stability, the LP engine"),
                           (polytopes, "DP mechanism polytopes: vertices, classification, constructions, design")):
        names = sorted(package.__all__, key=str.lower)
        title = f"``{package.__name__}``: {blurb}"
        lines = [title, "=" * len(title), "", f".. currentmodule:: {package.__name__}", "",
                 ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {name}" for name in names]
        text = "\n".join(lines) + "\n"
        page = folder / f"{package.__name__}.rst"
        if not page.exists() or page.read_text() != text:
            page.write_text(text)


_write_api_pages()


def _names_used(function, depth=3, seen=None):
    """The global names a check's code reads, and those of the helpers of its module that it calls."""
    seen = set() if seen is None else seen
    code = getattr(function, "__code__", None)
    if code is None or code in seen:
        return set()
    seen.add(code)
    found, stack = set(), [code]
    while stack:
        block = stack.pop()
        found |= set(block.co_names)
        stack += [k for k in block.co_consts if isinstance(k, types.CodeType)]
    module = inspect.getmodule(function)
    for name in list(found) if depth else ():
        helper = getattr(module, name, None)
        if inspect.isfunction(helper) and helper.__module__ == module.__name__:
            found |= _names_used(helper, depth - 1, seen)
    return found


def _checks_by_name():
    """name -> the ids of the registered checks whose code uses it (``qifkit check --only ID``)."""
    from proofs_checks.registry import registry

    used = {claim_id: _names_used(check.function) for claim_id, check in registry().items()}
    exported = set(qifkit.__all__) | set(polytopes.__all__)
    return {name: sorted(claim_id for claim_id, names in used.items() if name in names) for name in exported}


_CHECKS = _checks_by_name()


def _data_comment(package, short):
    """The ``#:`` comment above a constant in the module that defines it (a re-exported tuple carries no
    docstring of its own, and autodoc reads comments only in the module a name is documented under)."""
    from sphinx.pycode import ModuleAnalyzer

    home = package._HOMES.get(short)
    if home is None:
        return []
    comment = ModuleAnalyzer.for_module(home).find_attr_docs().get(("", short))
    return list(comment or [])


def _add_checks(app, what, name, obj, options, lines):
    """Each exported name's page ends with the checks of the papers that exercise it; a constant gets
    the comment of its home module."""
    package, _, short = name.partition(".")
    if package not in ("qifkit", "polytopes") or "." in short or short not in _CHECKS:
        return
    if what == "data":
        lines[:] = _data_comment(qifkit if package == "qifkit" else polytopes, short)
    ids = _CHECKS[short]
    lines += ["", ".. rubric:: Checked by", ""]
    lines += ([f"``qifkit check --only {claim_id}``" + (";" if k < len(ids) - 1 else "")
               for k, claim_id in enumerate(ids)] if ids else
              [f"No check of the papers uses it directly; the tests that do: {_tests_using(short)}."])


def _tests_using(name):
    """The test files that name `name`, for a page whose name no check uses."""
    import re

    files = sorted(path.name for path in (HERE.parent / "tests").glob("test_*.py")
                   if re.search(rf"\b{name}\b", path.read_text(encoding="utf-8")))
    more = f" and {len(files) - 4} more" if len(files) > 4 else ""
    return ", ".join(f"``tests/{file}``" for file in files[:4]) + more


def setup(app):
    app.connect("autodoc-process-docstring", _add_checks)
