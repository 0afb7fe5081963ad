#!/usr/bin/env bash
# Quick start, part 2: runs every test, then the GPU tests again on the second backend. GPU tests
# run on whatever adapter is present; on a machine without a GPU, on Mesa's software drivers,
# which this installs: lavapipe (Vulkan) first, then llvmpipe through EGL (OpenGL).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-gpu-driver.sh
cargo run --locked -q -p petri-model --example embed
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== all tests (default adapter: Vulkan)"
cargo test --workspace --locked 2>&1 | tee "$log"
echo "== GPU tests on the OpenGL backend (PETRI_BACKEND=gl)"
PETRI_BACKEND=gl cargo test --workspace --locked 2>&1 | tee -a "$log"
# One closing line for both runs.
awk '/^test result:/ { p += $4; f += $6 } END { printf "workspace, both backends: %d passed, %d failed\n", p, f }' "$log"
