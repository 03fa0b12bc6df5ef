"""The layer rule: qifkit ← polytopes ← proofs_checks (the CLI at the apex); no lower layer imports
an upper one, not even inside a function."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("qifkit", "polytopes", "proofs_checks")


def imported_packages(path):
    """The top-level package of every import statement in a file (relative imports stay inside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]


def upward_imports(package):
    """Imports of an upper layer; ``qifkit/__main__.py`` (``python -m qifkit``) is the command line's entry
    point, at the apex whatever folder holds it, and imports nothing else."""
    above = set(LAYERS[LAYERS.index(package) + 1:])
    return [f"{path.relative_to(ROOT)}:{line} imports {name}"
            for path in sorted((ROOT / package).rglob("*.py")) if path.name != "__main__.py"
            for line, name in imported_packages(path) if name in above]


@pytest.mark.parametrize("package", LAYERS[:-1])
def test_no_lower_layer_imports_an_upper_one(package):
    assert upward_imports(package) == []


def test_the_checks_do_not_import_the_command_line():
    """The CLI sits at the apex: the paper modules, the registry and the report hold checks only."""
    users = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "proofs_checks").glob("*.py"))
             for line, module in _modules_imported(path) if module.startswith("proofs_checks.cli")]
    assert users == []


def _modules_imported(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)


def test_the_rule_sees_an_import_inside_a_function(tmp_path):
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from proofs_checks.registry import claim\n    import polytopes.lp\n")
    assert [name for _, name in imported_packages(source)] == ["proofs_checks", "polytopes"]


@pytest.mark.parametrize("package, eager", [("qifkit", {"errors", "QifError"}), ("polytopes", set())])
def test_the_lazy_exports_match_all(package, eager):
    """A package loads its names on first use from a table: every name of __all__ is in the table (or
    imported eagerly), every table entry resolves to an object of that name, and the TYPE_CHECKING
    imports list the same names."""
    import importlib

    module = importlib.import_module(package)
    assert set(module.__all__) == set(module._HOMES) | eager
    assert all(getattr(module, name) is not None for name in module.__all__)
    assert all(getattr(module, name).__name__ == name for name in module._HOMES
               if hasattr(getattr(module, name), "__name__"))
    tree = ast.parse((ROOT / package / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If))
    typed = {alias.name for node in block.body for alias in node.names}
    assert typed == set(module._HOMES)
    assert set(module._HOMES) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'nothing_of_that_name'"):
        module.nothing_of_that_name  # noqa: B018 (the access is the test)


def test_every_error_is_also_the_builtin_a_caller_expects():
    """Every class of the exception tree derives from QifError and from a builtin exception besides
    Exception (ValueError, TypeError, ImportError, RuntimeError), and no module raises a bare
    QifError (issue 18: 25 did), so `except ValueError` code keeps working."""
    import inspect
    import re

    from qifkit import errors

    classes = [cls for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, errors.QifError)]
    # TimeLimitReached is a caller's stop, not an error: like KeyboardInterrupt, no `except Exception` catches it
    assert set(errors.__all__) == {cls.__name__ for cls in classes} | {"TimeLimitReached"}
    assert issubclass(errors.TimeLimitReached, BaseException) and not issubclass(errors.TimeLimitReached, Exception)
    for cls in classes:
        if cls is not errors.QifError:
            assert any(base.__module__ == "builtins" and base is not Exception for base in cls.__mro__[1:-2]), cls
    bare = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in LAYERS
        for path in (ROOT / package).rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"raise (errors\.)?QifError\(", line)
    ]
    assert bare == []


def test_every_package_is_in_the_distribution():
    """pyproject lists packages by name: a sub-package left out would be missing from a wheel
    (an editable install would not show it)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    present = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for layer in LAYERS
        for init in (ROOT / layer).rglob("__init__.py")
    }
    assert listed == present


def test_the_architecture_map_names_every_module_and_only_modules_that_exist():
    """Issue 36: ARCHITECTURE.md's concept table is the reader's map; every module of the three
    packages has a row there (the command line's modules by file name in its row, Alvim et al.'s
    topic modules by their package), and every dotted name it mentions exists."""
    import importlib
    import re

    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for name in set(re.findall(r"`((?:qifkit|polytopes|proofs_checks)(?:\.\w+)+)", text)):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            parent, _, attribute = name.rpartition(".")
            assert hasattr(importlib.import_module(parent), attribute), f"ARCHITECTURE.md names {name}, which is gone"
    missing = []
    for package in ("qifkit", "polytopes", "proofs_checks"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.stem in ("__init__", "__main__"):
                continue
            dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            parent = dotted.rpartition(".")[0]
            covered = (any(f"`{dotted}{end}" in text for end in "`. ")
                       or parent == "proofs_checks.alvim2023" and "`proofs_checks.alvim2023`" in text
                       or parent == "proofs_checks.cli" and f"`{path.stem}`" in text)
            if not covered:
                missing.append(dotted)
    assert not missing, f"modules without a row in ARCHITECTURE.md: {missing}"


def module_imports():
    """The import graph of the three packages: module -> the modules it imports (anywhere in the
    file); a name imported from a package (``from qifkit import Channel``) counts as an import of
    its home module, which the package's lazy table names."""
    import importlib

    homes = {package: importlib.import_module(package)._HOMES for package in ("qifkit", "polytopes")}
    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts): path
               for package in LAYERS for path in (ROOT / package).rglob("*.py") if path.name != "__init__.py"}
    graph = {}
    for module, path in modules.items():
        targets = set()
        for _, name in _modules_imported(path):
            head, _, last = name.rpartition(".")
            home = homes.get(head, {}).get(last)
            targets |= {candidate for candidate in (name, head, home) if candidate in modules}
        graph[module] = targets - {module}
    return graph


def import_cycle(graph):
    """One cycle of `graph` as a list of modules, or None (a depth-first search)."""
    state, trail = {}, []

    def visit(module):
        state[module] = "open"
        trail.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return trail[trail.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = "done"
        trail.pop()
        return None

    return next((found for module in sorted(graph) if module not in state and (found := visit(module))), None)


def test_no_two_modules_import_each_other():
    """Issue 36: no import cycle, not even through a function-level import or a package's lazy
    names (channel ⟷ files and the registry ⟷ the paper modules were two)."""
    assert import_cycle(module_imports()) is None


def test_the_cycle_search_finds_a_cycle():
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert import_cycle({"a": {"b"}, "b": set()}) is None


def test_the_gate_is_small_modules_and_the_cli_reads_none_of_its_prose():
    """Issue 51: the gate is a package of modules of at most 500 lines that asks its query type
    (:mod:`proofs_checks.gate.queries`) instead of comparing query names, and the command line prints
    the report's typed fields: it never matches a string the library wrote (by prefix, suffix,
    substring or split)."""
    import re

    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines())
             for path in (ROOT / "proofs_checks" / "gate").glob("*.py")}
    assert len(sizes) >= 8 and max(sizes.values()) <= 500, sizes
    for path in (ROOT / "proofs_checks" / "gate").glob("*.py"):  # the query is asked, its name never compared
        named = re.findall(r"(?<!for )(?<!\w)query\s*(?:==|!=|in|not in)\s*[\"'(]", path.read_text(encoding="utf-8"))
        assert not named, (path.name, named)
    for name in ("stability.py", "verify.py"):
        text = (ROOT / "proofs_checks" / "cli" / name).read_text(encoding="utf-8")
        read = re.findall(r"\[[\"'][a-z_]+[\"']\]\s*\.\s*(?:startswith|endswith|split|find|index)\(", text)
        contained = re.findall(r"[\"'][^\"']+[\"']\s+in\s+(?:report|interval|every|instability)\[", text)
        assert not read and not contained, (name, read, contained)
