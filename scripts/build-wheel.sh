#!/usr/bin/env bash
# Builds Petri's Python package as one wheel for CPython 3.9 and newer (the stable ABI, abi3),
# with maturin, and prints its path. Install it anywhere, offline:
#
#   scripts/build-wheel.sh                      # dist/petri-<version>-cp39-abi3-<platform>.whl
#   pip install --no-index dist/petri-*.whl     # needs numpy there already (or --find-links)
#
# Options: --out DIR (default dist/), --profile release|dev (default release; the tests build
# with dev, the profile `cargo test` builds with, so the dependency tree is built once for both:
# crates/python/Cargo.toml says how its features match the workspace's). Installs maturin from
# PyPI into target/wheel-tools (in $CARGO_TARGET_DIR when that is set) when none is on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --profile) profile=$2; shift 2 ;;
        *) echo "scripts/build-wheel.sh: unknown argument $1 (--out DIR, --profile release|dev)" >&2; exit 2 ;;
    esac
done
case "$profile" in
    release | dev) ;;
    *) echo "scripts/build-wheel.sh: --profile $profile is not allowed: release or dev" >&2; exit 2 ;;
esac
maturin=$(command -v maturin || true)
if [ -z "$maturin" ]; then
    tools=$(realpath -m "${CARGO_TARGET_DIR:-target}/wheel-tools")
    [ -x "$tools/bin/maturin" ] || {
        python3 -m venv "$tools" >&2
        "$tools/bin/pip" install -q --disable-pip-version-check "maturin>=1.7,<2" >&2
    }
    maturin=$tools/bin/maturin
fi
mkdir -p "$out"
out=$(realpath "$out")
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
# Only this version's wheels go: the one printed is the one just built.
rm -f "$out"/petri-"$version"-*.whl
# --compatibility linux: a wheel for this machine's kind of Linux (what pip installs here and on
# machines like it), not a manylinux claim, which needs a build in a manylinux container.
compat=()
[ "$(uname -s)" = Linux ] && compat=(--compatibility linux)
"$maturin" build --locked --quiet --manifest-path crates/python/Cargo.toml --profile "$profile" \
    --out "$out" "${compat[@]}" >&2
ls "$out"/petri-"$version"-*.whl
