//!include common/step.wgsl
// Test kernels for a loop until a GPU flag: an ensemble of trajectories, each done after its own
// number of steps; the flag rises once all are done. The counters prove that no pass ran after
// the stop.

override WG: u32 = 64u;

// The test reads these four words back; `flag` is the loop's stop flag.
struct Counters {
    unfinished: atomic<u32>,
    advances: atomic<u32>,
    even_steps: atomic<u32>,
    flag: atomic<u32>,
}

@group(1) @binding(0) var<storage, read> ends: array<u32>;
@group(1) @binding(1) var<storage, read_write> done: array<u32>;
@group(1) @binding(2) var<storage, read_write> counters: Counters;

// Advances every unfinished trajectory by one step and counts those still unfinished.
@compute @workgroup_size(WG)
fn advance(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i == 0u {
        atomicAdd(&counters.advances, 1u);
    }
    if i >= arrayLength(&ends) {
        return;
    }
    if done[i] < ends[i] {
        done[i] += 1u;
    }
    if done[i] < ends[i] {
        atomicAdd(&counters.unfinished, 1u);
    }
}

@compute @workgroup_size(1)
fn count_even_step() {
    atomicAdd(&counters.even_steps, 1u);
}

// Raises the flag once every trajectory is done, and resets the count for the next step.
@compute @workgroup_size(1)
fn check() {
    atomicStore(&counters.flag, select(0u, 1u, atomicLoad(&counters.unfinished) == 0u));
    atomicStore(&counters.unfinished, 0u);
}
