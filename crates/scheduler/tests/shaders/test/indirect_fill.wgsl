//!include common/step.wgsl
//!include common/dispatch.wgsl
// Test kernel for indirect dispatch: updates every item below the count (out = 3 out + step + 1)
// and counts the workgroups that ran, so a dispatch of the wrong size shows.

override WG: u32 = 64u;

@group(1) @binding(0) var<storage, read> count: array<u32>;
@group(1) @binding(1) var<storage, read_write> out: array<u32>;
@group(1) @binding(2) var<storage, read_write> hits: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if lid == 0u {
        atomicAdd(&hits[0], 1u);
    }
    let i = dispatch_index(gid, groups, WG);
    if i >= count[0] || i >= arrayLength(&out) {
        return;
    }
    out[i] = out[i] * 3u + step_info.step + 1u;
}
