//!include common/step.wgsl
// Test kernel: writes this step's item count, taken from a table by step, as a particle count
// would be written by the pass that changes it.

@group(1) @binding(0) var<storage, read> table: array<u32>;
@group(1) @binding(1) var<storage, read_write> count: array<u32>;

@compute @workgroup_size(1)
fn main() {
    count[0] = table[step_info.step % arrayLength(&table)];
}
