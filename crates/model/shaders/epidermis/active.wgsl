//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include epidermis/gene_common.wgsl
// Growth, step 3 (one thread per cell): the active-slot list, cell c's slots at offsets[c]..
// (offsets: the exclusive scan of the counts; total: their sum, the new Elements counter).
// CPU reference: growth.rs (active_list).

override WG: u32 = 64u;

@group(1) @binding(0) var<uniform> g: GrowthUniforms;
@group(1) @binding(1) var<storage, read_write> counters: array<u32>;
@group(1) @binding(2) var<storage, read> counts: array<u32>;
@group(1) @binding(3) var<storage, read> offsets: array<u32>;
@group(1) @binding(4) var<storage, read> total: array<u32>;
@group(1) @binding(5) var<storage, read_write> active_slots: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    if c == 0u {
        counters[COUNTER_ELEMENTS] = total[0];
    }
    if c >= counters[COUNTER_CELLS] {
        return;
    }
    let first = c * MAX_ELEMENTS;
    let o = offsets[c];
    for (var k = 0u; k < min(counts[c], MAX_ELEMENTS); k++) {
        active_slots[o + k] = first + k;
    }
}
