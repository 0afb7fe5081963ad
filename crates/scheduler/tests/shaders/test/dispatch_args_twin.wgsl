//!include common/dispatch.wgsl
// Test kernel: evaluates `dispatch_args` for (count, group size, max groups) triples, to compare
// with its CPU twin.

@group(1) @binding(0) var<storage, read> inputs: array<vec4<u32>>;
@group(1) @binding(1) var<storage, read_write> outputs: array<vec4<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&inputs) {
        return;
    }
    let v = inputs[i];
    outputs[i] = vec4<u32>(dispatch_args(v.x, v.y, v.z), 0u);
}
