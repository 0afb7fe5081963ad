// Observables, one thread per owned site: particle counts per (site type, species) and per
// (global z plane, species), by integer atomics (order-free, so deterministic). A pass of the
// slab's step plan recorded on demand: group 0 is the plan's step info, unused here.
//!include rdme/common.wgsl
//!include rdme/particles.wgsl

override WX: u32 = 64u;
override WY: u32 = 4u;

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read> types: array<u32>;
// [n_types * n_species] counts by type, then [nz * n_species] counts by plane.
@group(1) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;

@compute @workgroup_size(WX, WY, 1)
fn observe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let plane = lat.own_begin + gid.z;
    if gid.x >= lat.nx || gid.y >= lat.ny || plane >= lat.own_end {
        return;
    }
    let i = gid.x + lat.nx * (gid.y + lat.ny * plane);
    let words = load_site(i);
    if words.x == 0u {
        return;
    }
    let t = site_type(i);
    let z = lat.z_base + plane;
    let by_plane = lat.n_types * lat.n_species;
    for (var j = 0u; j < CAPACITY; j++) {
        let s = species_at(words, j);
        if s == 0u {
            break;
        }
        atomicAdd(&counts[t * lat.n_species + s], 1u);
        atomicAdd(&counts[by_plane + z * lat.n_species + s], 1u);
    }
}
