//!include common/step.wgsl
//!include test/slab_toy_layout.wgsl
// The fields the neighbours need of a toy slab's boundary planes (the first and the last DEPTH
// owned planes): one more than the highest field with a non-zero word there
// (crates/scheduler/tests/slabs.rs, the halo exchange's field count).

override OWN_BEGIN: u32 = 0u;
override OWN_END: u32 = 1u;
override DEPTH: u32 = 1u;

@group(1) @binding(1) var<storage, read_write> needed: array<atomic<u32>>;

@compute @workgroup_size(8, 4, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= NX || gid.y >= NY || gid.z >= 2u * DEPTH {
        return;
    }
    var plane = OWN_BEGIN + gid.z;
    if gid.z >= DEPTH {
        plane = OWN_END + gid.z - 2u * DEPTH;
    }
    let i = gid.x + NX * gid.y;
    for (var f = FIELDS; f > 0u; f--) {
        if word(f - 1u, i, i32(plane)) != 0u {
            atomicMax(&needed[0], f);
            return;
        }
    }
}
