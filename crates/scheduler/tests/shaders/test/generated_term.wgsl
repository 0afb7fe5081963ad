//!include common/step.wgsl
// Test kernel for a pass built from generated code (`StepPlan::add_generated_pass`): adds
// `term(i)`, which the test generates, and the step to every item.

@group(1) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&out) {
        return;
    }
    out[i] = out[i] + term(i) + step_info.step;
}

//!generated begin term
fn term(i: u32) -> u32 {
    return 1u;
}
//!generated end term
