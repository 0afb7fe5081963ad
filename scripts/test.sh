#!/usr/bin/env bash
# Quick start, part 2: runs every test (GPU tests on whatever adapter is present; on a machine
# without a GPU, on the software Vulkan driver this installs), after the embedding example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-gpu-driver.sh
cargo run --locked -q -p petri-model --example embed
cargo test --workspace --locked
