#!/usr/bin/env bash
# Quick start, part 2: runs every test (GPU tests on whatever adapter is present; on a machine
# without a GPU, on the software Vulkan driver this installs), after the embedding example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-gpu-driver.sh
cargo run --locked -q -p petri-model --example embed
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# One closing line for the whole workspace.
awk '/^test result:/ { p += $4; f += $6 } END { printf "workspace: %d passed, %d failed\n", p, f }' "$log"
