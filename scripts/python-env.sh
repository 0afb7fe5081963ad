#!/usr/bin/env bash
# Builds the Python package into a virtual environment for the tests: target/venv, with
# maturin, numpy, pytest and Dask's distributed (the sweep test) from PyPI, and `petri` built in place (`maturin develop`, the dev
# profile, sharing target/ with cargo; in $CARGO_TARGET_DIR/venv when that is set). Installs
# Debian's python3-venv first when the machine's Python cannot make a virtual environment.
# Prints the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(realpath -m "${CARGO_TARGET_DIR:-target}/venv")

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    echo "Installing Python's venv module (python3-venv)" >&2
    SUDO=""
    [ "$(id -u)" != 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3 python3-venv python3-pip >&2
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check "maturin>=1.7,<2" numpy pytest distributed >&2
(cd crates/python && VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --locked -q >&2)
echo "$venv/bin/python"
