//!include common/step.wgsl
// Test kernel of a z-decomposed toy model (crates/scheduler/tests/slabs.rs): FIELDS field
// planes of PLANES z planes of NX * NY u32 words. Each word takes its z neighbours, twice itself
// and a quarter of the field below it, with wrapping adds, and is odd whenever any of them is
// non-zero, so a field that is zero over some planes has been zero there all along. A plane
// outside the local buffer reads as zero: right at the lattice's ends, wrong at a halo's outer
// edge, from where the error moves one plane inward per step.

override NX: u32 = 8u;
override NY: u32 = 4u;
override PLANES: u32 = 1u;
override FIELDS: u32 = 3u;

@group(1) @binding(0) var<storage, read> current: array<u32>;
@group(1) @binding(1) var<storage, read_write> next: array<u32>;

fn word(f: u32, i: u32, z: i32) -> u32 {
    if z < 0 || u32(z) >= PLANES {
        return 0u;
    }
    return current[f * NX * NY * PLANES + u32(z) * NX * NY + i];
}

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
        next[f * NX * NY * PLANES + gid.z * NX * NY + i] = v;
    }
}
