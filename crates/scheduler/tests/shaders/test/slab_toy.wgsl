//!include common/step.wgsl
//!include test/slab_toy_layout.wgsl
// Test kernel of a z-decomposed toy model (test/slab_toy_layout.wgsl). Each word takes its z
// neighbours, twice itself and a quarter of the field below it, with wrapping adds, and is odd
// whenever any of them is non-zero, so a field that is zero over some planes has been zero there all along. A plane
// outside the local buffer reads as zero: right at the lattice's ends, wrong at a halo's outer
// edge, from where the error moves one plane inward per step.

@group(1) @binding(1) var<storage, read_write> next: array<u32>;

@compute @workgroup_size(8, 4, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= NX || gid.y >= NY || gid.z >= PLANES {
        return;
    }
    let i = gid.x + NX * gid.y;
    let z = i32(gid.z);
    for (var f = 0u; f < FIELDS; f++) {
        let below = word(f, i, z - 1);
        let here = word(f, i, z);
        let above = word(f, i, z + 1);
        var feed = 0u;
        if f > 0u {
            feed = word(f - 1u, i, z) >> 2u;
        }
        var v = below + 2u * here + above + feed;
        if (below | here | above | feed) != 0u {
            v |= 1u;
        }
        next[(f * PLANES + gid.z) * NX * NY + i] = v;
    }
}
