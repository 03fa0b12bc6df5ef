"""Installed = repository (issue 54): the wheel and the sdist built from this checkout, the wheel installed
into a fresh virtual environment and run from outside the checkout, as a user of ``pip install qifkit``
runs it.

The fresh environment gets the wheel alone (``--no-deps``); the core's dependencies come from the
suite's own environment through a path file, and the extras (pycddlib, PyNormaliz, Dask's distributed,
matplotlib) are hidden from it by an import hook, as on a machine without libcdd-dev and a compiler.
The slow test installs the wheel with ``[all]`` the same way but without the hook.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from qifkit.extras import EXTRAS

ROOT = Path(__file__).resolve().parent.parent

#: Hides the extras' modules from the fresh environment, as if they were not installed.
_HOOK = '''import sys


class _NotInstalled:
    HIDDEN = {"cdd", "PyNormaliz", "distributed", "dask", "matplotlib"}

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The wheel and the sdist of this checkout (``python -m build``, no network: the build runs in this
    environment)."""
    out = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("source") / "qifkit"  # a copy: parallel workers never build in one tree
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"))
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheel, = out.glob("qifkit-*.whl")
    sdist, = out.glob("qifkit-*.tar.gz")
    return wheel, sdist


def _fresh_environment(folder: Path, wheel: Path, extras_hidden: bool) -> Path:
    """A new virtual environment holding the wheel; the suite's site-packages after it on the path (not its
    editable qifkit: path files of an added folder are not read); the extras hidden when asked."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, text=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "zz_suite_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    if extras_hidden:
        (site / "_extras_hidden.py").write_text(_HOOK)
        (site / "_extras_hidden.pth").write_text("import _extras_hidden\n")
    return folder / "bin"


def _run(bin_folder: Path, *command: str, cwd: Path) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PATH"] = f"{bin_folder}{os.pathsep}{environment.get('PATH', '')}"
    return subprocess.run([str(bin_folder / command[0]), *command[1:]], cwd=cwd, capture_output=True, text=True,
                          env=environment, timeout=600)


def test_the_extras_are_those_of_pyproject():
    """qifkit.extras.EXTRAS (what the errors name) and pyproject's optional dependencies are the same set;
    ``all`` gathers every extra."""
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(optional) - {"dev", "all"} == set(EXTRAS)
    assert optional["all"] == [f"qifkit[{','.join(EXTRAS)}]"]


def test_the_wheel_and_sdist_hold_what_the_commands_read(built):
    wheel, sdist = built
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {str(path.relative_to(ROOT)) for folder in ("proofs_checks/results", "proofs_checks/examples")
               for path in (ROOT / folder).rglob("*") if path.is_file() and "__pycache__" not in path.parts}
    assert shipped and shipped <= names
    assert {"qifkit/__main__.py", "qifkit/py.typed"} <= names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    import tarfile

    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"LICENSE", "README.md", "pyproject.toml"} <= members and shipped <= members


def test_the_wheel_without_extras_runs_the_core_from_outside_the_checkout(built, tmp_path):
    """pip install <wheel> on a machine without the extras: the core API, ``qifkit refine``, an example spec
    through ``qifkit stability``, ``python -m qifkit --version``; a command that needs an extra is exit 2
    naming it."""
    wheel, _ = built
    bin_folder = _fresh_environment(tmp_path / "env", wheel, extras_hidden=True)
    work = tmp_path / "work"
    work.mkdir()
    where = _run(bin_folder, "python", "-c", "import qifkit, cdd", cwd=work)
    assert where.returncode == 1 and "No module named 'cdd'" in where.stderr  # the hook hides the extra
    api = _run(bin_folder, "python", "-c", """
import qifkit
from qifkit import Channel, refines
assert str(qifkit.__file__).startswith(%r), qifkit.__file__
a = Channel.from_rows([["1/2", "1/2"], ["1/4", "3/4"]])
b = Channel.from_rows([["1/2", "1/2"], ["3/8", "5/8"]])
print(refines(a, b).holds, refines(b, a).holds)
""" % str(tmp_path / "env"), cwd=work)
    assert api.returncode == 0, api.stderr
    assert api.stdout.split() == ["True", "False"]
    (work / "A.csv").write_text("1/2,1/2\n1/4,3/4\n")
    (work / "B.csv").write_text("1/2,1/2\n3/8,5/8\n")
    refine = _run(bin_folder, "qifkit", "refine", "A.csv", "B.csv", cwd=work)
    assert refine.returncode == 0 and "A ⊑ B: holds" in refine.stdout, refine.stderr
    copied = _run(bin_folder, "qifkit", "examples", "specs", cwd=work)
    assert copied.returncode == 0, copied.stderr
    stability = _run(bin_folder, "qifkit", "stability", "-q", "specs/survey_rr.toml", cwd=work)
    assert stability.returncode == 0 and "stable" in stability.stdout, stability.stderr
    version = _run(bin_folder, "python", "-m", "qifkit", "--version", cwd=work)
    assert version.returncode == 0 and version.stdout.strip() == f"qifkit {_project_version()}"
    for command, extra in ((("enumerate", "LDP", "--n", "3", "--eps-exp", "2"), "polytopes"),
                           (("stability", "specs/appd1.toml", "--plot", "loss.png"), "plot"),
                           (("check", "--only", "alvim23.*"), "polytopes")):
        refused = _run(bin_folder, "qifkit", *command, cwd=work)
        assert refused.returncode == 2 and f"pip install 'qifkit[{extra}]'" in refused.stderr, (command, refused)


@pytest.mark.slow
def test_the_wheel_with_every_extra_checks_the_census_from_outside_the_checkout(built, tmp_path):
    """``qifkit check --only beyond.ldp-census`` reads the census files shipped in the wheel, the
    gzip-compressed n = 7 file among them (about three minutes)."""
    wheel, _ = built
    bin_folder = _fresh_environment(tmp_path / "env", wheel, extras_hidden=False)
    work = tmp_path / "work"
    work.mkdir()
    census = _run(bin_folder, "qifkit", "check", "--only", "beyond.ldp-census", cwd=work)
    assert census.returncode == 0 and "1 confirmed" in census.stdout, census.stdout + census.stderr
    assert "16 census files re-verified" in census.stdout  # 15 .json files and the n = 7 .json.gz


def _project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.slow
def test_the_core_resolves_to_wheels_alone(built, tmp_path):
    """pip resolves the wheel's core dependencies from the package index with ``--only-binary=:all:``
    (no compiler, no system headers): none of the extras comes with it (reads the index, about 10 s)."""
    import json

    wheel, _ = built
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "env")], check=True, capture_output=True)
    report = tmp_path / "report.json"
    resolved = subprocess.run([str(tmp_path / "env" / "bin" / "python"), "-m", "pip", "install", "--dry-run",
                               "--quiet", "--only-binary=:all:", "--report", str(report), str(wheel)],
                              capture_output=True, text=True, timeout=600)
    assert resolved.returncode == 0, resolved.stderr[-3000:]
    names = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    assert {"qifkit", "sympy", "python-flint", "numpy", "scipy", "networkx", "highspy"} <= names
    assert not names & {"pycddlib", "pynormaliz", "distributed", "matplotlib"}, names
