//!include common/step.wgsl
// Test kernels for a loop until a GPU flag: an ensemble of trajectories, each done after its own
// number of steps; the flag rises once all are done. The counters prove that no pass ran after
// the stop.

override WG: u32 = 64u;

const ACTIVE: u32 = 0u;
const ADVANCES: u32 = 1u;
const EVEN_STEPS: u32 = 2u;
const FLAG: u32 = 3u;

@group(1) @binding(0) var<storage, read> ends: array<u32>;
@group(1) @binding(1) var<storage, read_write> done: array<u32>;
@group(1) @binding(2) var<storage, read_write> counters: array<atomic<u32>>;

// Advances every unfinished trajectory by one step and counts those still unfinished.
@compute @workgroup_size(WG)
fn advance(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i == 0u {
        atomicAdd(&counters[ADVANCES], 1u);
    }
    if i >= arrayLength(&ends) {
        return;
    }
    if done[i] < ends[i] {
        done[i] += 1u;
    }
    if done[i] < ends[i] {
        atomicAdd(&counters[ACTIVE], 1u);
    }
}

@compute @workgroup_size(1)
fn count_even_step() {
    atomicAdd(&counters[EVEN_STEPS], 1u);
}

// Raises the flag once no trajectory is active, and resets the count for the next step.
@compute @workgroup_size(1)
fn check() {
    atomicStore(&counters[FLAG], select(0u, 1u, atomicLoad(&counters[ACTIVE]) == 0u));
    atomicStore(&counters[ACTIVE], 0u);
}
