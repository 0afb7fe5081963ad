#!/usr/bin/env bash
# Quick start, part 1: builds petri and runs the angiogenesis demo (assets/angiogenesis.json),
# writing its outputs to out/angiogenesis (CSV, VTK, PNG, manifest). Extra arguments go to
# `petri run`, e.g. scripts/demo.sh --steps 200.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-gpu-driver.sh
cargo build --release --locked -p petri-cli
./target/release/petri run assets/angiogenesis.json --out out/angiogenesis --overwrite "$@"
echo "Open out/angiogenesis/vessels.png (frames every 250 steps: vessels_*.png), or the .vti/.vtp files in ParaView."
