// Sum, min or max of f32 values per segment, segment s being values[offsets[s]..offsets[s+1]]
// (CSR; e.g. the cell offsets of a binning). One thread per segment adds its values in index
// order from the identity, so the result is fixed by the data alone and an empty segment gives
// the identity (min: f32::MAX, max: -f32::MAX, as common/reduce.wgsl). Meant for short segments
// (cells, neighbour lists); a long one is one thread's serial loop.
// CPU twin: crates/scheduler/src/primitives/segmented.rs (cpu_segmented_reduce).
//!include common/reduce_ops.wgsl

// [0]: segments.
@group(0) @binding(0) var<storage, read> sr_lens: array<u32>;
@group(0) @binding(1) var<storage, read> sr_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> sr_values: array<f32>;
@group(0) @binding(3) var<storage, read_write> sr_out: array<f32>;

fn seg_reduce(op: u32, s: u32) {
    if s >= sr_lens[0] {
        return;
    }
    var acc = reduce_identity(op);
    for (var j = sr_offsets[s]; j < sr_offsets[s + 1u]; j++) {
        acc = reduce_combine(op, acc, sr_values[j]);
    }
    sr_out[s] = acc;
}

@compute @workgroup_size(256)
fn seg_sum(@builtin(global_invocation_id) gid: vec3<u32>) {
    seg_reduce(0u, gid.x);
}

@compute @workgroup_size(256)
fn seg_min(@builtin(global_invocation_id) gid: vec3<u32>) {
    seg_reduce(1u, gid.x);
}

@compute @workgroup_size(256)
fn seg_max(@builtin(global_invocation_id) gid: vec3<u32>) {
    seg_reduce(2u, gid.x);
}
