// Per-step information, bound by the scheduler at group 0 with a dynamic offset
// (crates/scheduler/src/plan.rs, StepInfo). `parity` tells which half of each ping-pong pair
// holds the current state.
struct StepInfo {
    step: u32,
    seed_lo: u32,
    seed_hi: u32,
    parity: u32,
}

@group(0) @binding(0) var<uniform> step_info: StepInfo;

fn step_seed() -> vec2<u32> {
    return vec2<u32>(step_info.seed_lo, step_info.seed_hi);
}
