"""The library guide (docs/library.md, once the README's "Using the library") names only what exists
(issue 18): every identifier it puts in backticks is importable from the module its bullet names (or
from qifkit, or is a method of a class of that module), and the examples in it run; so do the
README's own examples."""

import builtins
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Words in backticks that are values or arguments, not names of the API.
NOT_NAMES = {"max", "min", "sandwich", "exact", "True", "False", "None", "eval", "sympify"}


def _section() -> str:
    """The library guide of the docs (docs/library.md), from its first bullet list on."""
    return (ROOT / "docs" / "library.md").read_text()


def _bullets() -> list[tuple[list[str], list[str]]]:
    """(modules, names) of each bullet: the modules in its heading's parentheses, the backticked names."""
    found = []
    for bullet in re.split(r"\n- ", _section())[1:]:
        heading = bullet.split(":", 1)[0]
        modules = re.findall(r"`((?:qifkit|polytopes)(?:\.\w+)*)`", heading)
        if "package `polytopes`" in heading:
            modules.append("polytopes")
        names = [match for match in re.findall(r"`([A-Za-z_][\w.]*)(?:\([^`]*\))?`", bullet)
                 if match not in NOT_NAMES and match not in modules]
        found.append((modules or ["qifkit"], names))
    return found


def _object(path: str) -> object | None:
    """The object a dotted path names (a module, or attributes of the longest importable prefix)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            value = getattr(value, part, None)
            if value is None:
                return None
        return value
    return getattr(builtins, path, None)


def _resolves(name: str, modules: list[str]) -> bool:
    if _object(name) is not None:
        return True
    if re.fullmatch(r"[A-Z]\.\w+", name):  # a method on an example object: `A.kron` of a Channel A
        name = name[2:]
    for home in [_object(module) for module in [*modules, "qifkit", "qifkit.errors", "polytopes"]]:
        value = home
        for part in name.split("."):
            value = getattr(value, part, None)
        if value is not None:
            return True
        classes = [home] if inspect.isclass(home) else [cls for _, cls in inspect.getmembers(home, inspect.isclass)]
        if any(hasattr(cls, name) for cls in classes):
            return True
    return False


@pytest.mark.parametrize("modules, names", _bullets(), ids=lambda value: str(value)[:40])
def test_every_name_in_the_library_section_exists(modules, names):
    missing = [name for name in names if not _resolves(name, modules)]
    assert missing == [], f"the README names {missing} under {modules}, which do not exist there"


def test_the_library_examples_run():
    """Every python block of the section (a block inside a bullet is indented there)."""
    import textwrap

    blocks = re.findall(r"```python\n(.*?)```", _section(), re.S)
    assert len(blocks) >= 2
    for number, code in enumerate(blocks):
        exec(compile(textwrap.dedent(code), f"README example {number}", "exec"), {})


def test_the_readme_examples_run():
    """Every python block of the README, as a newcomer copies it."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 2
    for number, code in enumerate(blocks):
        exec(compile(code, f"README example {number}", "exec"), {})
