//!include common/dispatch.wgsl
// Mechanics, step 3 of a force evaluation: the compact positions copied into bin order (the
// binning's sorted point indices), so that the force kernel reads each neighbour bin as one
// contiguous run of memory.

override WG: u32 = 256u;
const COUNTER_ELEMENTS: u32 = 1u;

@group(1) @binding(0) var<storage, read> counters: array<u32>;
@group(1) @binding(1) var<storage, read> sorted_index: array<u32>;
@group(1) @binding(2) var<storage, read> cpos: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read_write> spos: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn reorder(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = dispatch_index(gid, groups, WG);
    if k >= counters[COUNTER_ELEMENTS] {
        return;
    }
    spos[k] = cpos[sorted_index[k]];
}
