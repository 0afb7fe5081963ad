#!/usr/bin/env bash
# Builds the Python package into a virtual environment for the tests: target/venv (in
# $CARGO_TARGET_DIR/venv when that is set), with maturin, numpy, pytest, Dask's distributed (the
# sweep test) and what runs the notebooks (nbclient, ipykernel, matplotlib) from PyPI. `petri`
# goes in as a user installs it: the wheel scripts/build-wheel.sh builds (the dev profile, as
# `cargo test` builds, into target/wheels), then `pip install --no-index` of that wheel.
# Installs Debian's python3-venv first when the machine's Python cannot make a virtual
# environment. Prints the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
venv=$target/venv

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    echo "Installing Python's venv module (python3-venv)" >&2
    SUDO=""
    [ "$(id -u)" != 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3 python3-venv python3-pip >&2
fi
# A folder left by a creation that was cut short (a python, no pip) is made again.
if ! [ -x "$venv/bin/python" ] || ! [ -x "$venv/bin/pip" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
fi
"$venv/bin/pip" install -q --disable-pip-version-check "maturin>=1.7,<2" numpy pytest distributed \
    nbclient nbformat ipykernel matplotlib >&2
wheel=$(PATH="$venv/bin:$PATH" scripts/build-wheel.sh --profile dev --out "$target/wheels")
"$venv/bin/pip" uninstall -q -y petri >&2 2>/dev/null || true
"$venv/bin/pip" install -q --disable-pip-version-check --no-index "$wheel" >&2
echo "$venv/bin/python"
