//!include test/tape_append.wgsl
// Test kernel for a pass that records itself, with no step info: appends ID to the tape of
// test/tape.wgsl, bound at group 0 by its own recorder.

override ID: u32 = 2u;

@group(0) @binding(0) var<storage, read_write> tape: array<u32>;

@compute @workgroup_size(1)
fn main() {
    append(ID);
}
