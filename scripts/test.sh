#!/usr/bin/env bash
# Quick start, part 2: runs every test, then the GPU tests again on the second backend, then the
# Python package's tests (pytest, scripts/python-env.sh builds it; cargo leaves the package out, so
# the Rust tests need no Python). The MPI sweep's tests run under OpenMPI's mpirun, which this
# installs with the headers and libclang the `mpi` crate builds with. GPU tests
# run on whatever adapter is present; on a machine without a GPU, on Mesa's software drivers,
# which this installs: lavapipe (Vulkan) first, then llvmpipe through EGL (OpenGL).
set -euo pipefail
cd "$(dirname "$0")/.."
# One build, never edited: incremental caches would only take disk (gigabytes of it).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
scripts/ensure-gpu-driver.sh
scripts/ensure-mpi.sh
# Every build below has petri-cli's `mpi` feature, so the dependency tree is built once; the
# Python package's wheel reuses it too (this fails early if it would not).
scripts/check-shared-build.sh
features=(--features petri-cli/mpi)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== all tests (default adapter: Vulkan) [${SECONDS} s]"
cargo test --workspace --exclude petri-python "${features[@]}" --locked 2>&1 | tee "$log"
# The embedding example, as the tests above built it: `cargo run -p petri-model --example embed`
# resolves the features of petri-model alone and builds the dependency tree a second time.
echo "== the model written outside the workspace (examples/custom_model, its own crate) [${SECONDS} s]"
cargo test --locked --manifest-path examples/custom_model/Cargo.toml 2>&1 | tee -a "$log"
echo "== the embedding example (examples/embed.rs) [${SECONDS} s]"
"${CARGO_TARGET_DIR:-target}/debug/examples/embed"
# The second backend reruns every test that runs a kernel (unit tests, integration tests, the
# CLI's). Left out: tests that never open a device, and the long statistical checks of RDME
# (rdme_stats, rdme_min), which test the algorithm: rdme_gpu checks on this backend that its
# kernels give the CPU twin's lattice bit for bit, so their statistics would be the same.
cpu_only=" translate shader_registry sbml_general ssa_dsmts rdme_stats rdme_min "
gl_targets=(--lib --bins)
for f in crates/*/tests/*.rs tests/*.rs; do
    name=$(basename "$f" .rs)
    [[ $cpu_only == *" $name "* ]] || gl_targets+=(--test "$name")
done
echo "== GPU tests on the OpenGL backend (PETRI_BACKEND=gl) [${SECONDS} s]"
PETRI_BACKEND=gl cargo test --workspace --exclude petri-python "${features[@]}" --locked \
    "${gl_targets[@]}" 2>&1 | tee -a "$log"
echo "== Python package (its wheel; pytest, default adapter; the notebooks at PETRI_NOTEBOOK_SIZE=ci) [${SECONDS} s]"
python=$(scripts/python-env.sh)
pylog=$(mktemp)
trap 'rm -f "$log" "$pylog"' EXIT
"$python" -m pytest -q -p no:cacheprovider --durations=8 crates/python/tests 2>&1 | tee "$pylog"
# One closing line for all runs.
echo "all done in ${SECONDS} s"
awk '/^test result:/ { p += $4; f += $6 } END { printf "workspace, both backends: %d passed, %d failed\n", p, f }' "$log"
awk '/ passed| failed/ && / in [0-9.]+s/ { for (i = 1; i < NF; i++) { if ($(i + 1) ~ /^passed/) p += $i; if ($(i + 1) ~ /^failed/) f += $i } }
     END { printf "python: %d passed, %d failed\n", p, f }' "$pylog"
