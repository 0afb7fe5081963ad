//!include common/step.wgsl
// Test kernel: appends 8 * step + ID to a tape (word 0: its length), so the tape lists which
// passes ran, in which order, at which steps.

override ID: u32 = 1u;

@group(1) @binding(0) var<storage, read_write> tape: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let n = tape[0];
    if n + 1u < arrayLength(&tape) {
        tape[n + 1u] = 8u * step_info.step + ID;
        tape[0] = n + 1u;
    }
}
