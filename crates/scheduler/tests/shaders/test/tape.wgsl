//!include common/step.wgsl
//!include test/tape_append.wgsl
// Test kernel: appends 8 * step + ID, so the tape lists which passes ran at which steps.

override ID: u32 = 1u;

@group(1) @binding(0) var<storage, read_write> tape: array<u32>;

@compute @workgroup_size(1)
fn main() {
    append(8u * step_info.step + ID);
}
