//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include epidermis/gene_common.wgsl
//!include epidermis/centre.wgsl
// Growth, step 1 (one thread per cell, cells 0..counters[CELLS]): a cell with fewer than 40
// elements and Delta below the threshold or at least restriction_point elements adds one
// PLAIN element at its centre in its next slot;
// flags[c] = 1 for the cells that then have 40 elements (they divide). The Added counter is an
// integer atomic sum: its value does not depend on the order. CPU reference: growth.rs (grow).

override WG: u32 = 64u;

@group(1) @binding(0) var<uniform> g: GrowthUniforms;
@group(1) @binding(1) var<storage, read_write> counters: array<atomic<u32>>;
@group(1) @binding(2) var<storage, read> genes: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(4) var<storage, read_write> counts: array<u32>;
@group(1) @binding(5) var<storage, read_write> flags: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    if c >= atomicLoad(&counters[COUNTER_CELLS]) {
        return;
    }
    var n = counts[c];
    let low_delta = genes[2u * c].y < g.delta_threshold;
    if n < MAX_ELEMENTS && (low_delta || n >= g.restriction_point) {
        let first = c * MAX_ELEMENTS;
        pos[first + n] = vec4<f32>(cell_centre(first, n, g.lx, g.ly), PLAIN);
        n += 1u;
        counts[c] = n;
        atomicAdd(&counters[COUNTER_ADDED], 1u);
    }
    flags[c] = select(0u, 1u, n == MAX_ELEMENTS);
}
