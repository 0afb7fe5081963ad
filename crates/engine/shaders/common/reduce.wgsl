// Deterministic reductions of an f32 array without float atomics: each workgroup reduces a
// contiguous block (each thread a fixed stride-256 set, then a tree in workgroup memory) and
// writes one partial; the scheduler repeats the pass over the partials until one value is left.
// The order of operations is fixed by the array length alone, so the result is bitwise
// reproducible. CPU twin: crates/scheduler/src/reduce.rs (cpu_reduce).
//!include common/reduce_ops.wgsl

const REDUCE_WG: u32 = 256u;
const REDUCE_ITEMS: u32 = 16u;

struct ReduceParams {
    len: u32,
    groups_x: u32,
}

@group(0) @binding(0) var<uniform> rp: ReduceParams;
@group(0) @binding(1) var<storage, read> r_in: array<f32>;
@group(0) @binding(2) var<storage, read_write> r_out: array<f32>;

var<workgroup> r_scratch: array<f32, REDUCE_WG>;

fn reduce_block(op: u32, lid: u32, wid: vec3<u32>) {
    let group = wid.x + wid.y * rp.groups_x;
    let base = group * REDUCE_WG * REDUCE_ITEMS;
    var acc = reduce_identity(op);
    for (var k = 0u; k < REDUCE_ITEMS; k++) {
        let i = base + k * REDUCE_WG + lid;
        if i < rp.len {
            acc = reduce_combine(op, acc, r_in[i]);
        }
    }
    r_scratch[lid] = acc;
    workgroupBarrier();
    for (var s = REDUCE_WG / 2u; s > 0u; s = s / 2u) {
        if lid < s {
            r_scratch[lid] = reduce_combine(op, r_scratch[lid], r_scratch[lid + s]);
        }
        workgroupBarrier();
    }
    if lid == 0u && base < rp.len {
        r_out[group] = r_scratch[0];
    }
}

@compute @workgroup_size(256)
fn reduce_sum(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    reduce_block(0u, lid, wid);
}

@compute @workgroup_size(256)
fn reduce_min(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    reduce_block(1u, lid, wid);
}

@compute @workgroup_size(256)
fn reduce_max(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    reduce_block(2u, lid, wid);
}
