#!/usr/bin/env bash
# Set up qifkit: the system packages it needs (only those missing), a virtual environment in
# .venv/, and the package with every extra and the dev tools. Safe to re-run: a second run with an unchanged
# pyproject.toml does nothing but check.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}

# --- system packages (Debian/Ubuntu), installed only where missing --------------------------
missing=()
if command -v dpkg >/dev/null 2>&1; then
    # lrslib and qsopt-ex: the independent exact oracles of the tests (lrs against cdd, QSopt_ex against the LP engine)
    for package in libcdd-dev libgmp-dev lrslib qsopt-ex; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    command -v gcc >/dev/null 2>&1 || missing+=(gcc)
    if ! command -v "$python" >/dev/null 2>&1; then
        missing+=(python3 python3-venv python3-dev)
    else
        "$python" -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
        "$python" - <<'PY' || missing+=(python3-dev)
import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))
PY
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        echo "setup: installing system packages: ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
else
    echo "setup: not a Debian/Ubuntu system; make sure cddlib and GMP headers are installed (see README)"
fi

# --- Python >= 3.11 and the virtual environment --------------------------------------------
"$python" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"setup: qifkit needs Python >= 3.11, found {sys.version.split()[0]}; set PYTHON=/path/to/python3.11")
PY
[ -x .venv/bin/python ] || "$python" -m venv .venv

stamp=.venv/.qifkit-setup
wanted=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && .venv/bin/python -c 'import qifkit, cdd, flint' 2>/dev/null; then
    echo "setup: .venv is up to date"
    exit 0
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[all,dev]'
echo "$wanted" > "$stamp"
echo "setup: done (.venv/bin/qifkit is ready)"
