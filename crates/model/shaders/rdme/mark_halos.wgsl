// After a halo refresh (the host wrote the neighbours' boundary planes into the state's halo
// planes, crates/scheduler/src/slabs/halo.rs; recorded on demand by crates/model/src/rdme/slab.rs,
// group 0 being the plan's step info, unused here), marks the halo planes' sites anew in map 0 of
// rdme/diffuse_occupied.wgsl's occupancy maps (the state's, the next x sweep's source) from
// their word 0; the owned planes' bits stay. One thread per map word.
// The loop clears one bit of a mask per round:
//!bounded-loops
//!include rdme/common.wgsl

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> occupancy: array<u32>;

@compute @workgroup_size(64)
fn mark_halos(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = gid.x + gid.y * 65535u * 64u;
    let plane_sites = lat.nx * lat.ny;
    let halos = range_bits(w, 0u, lat.own_begin * plane_sites)
        | range_bits(w, lat.own_end * plane_sites, lat.sites);
    if halos == 0u {
        return;
    }
    var bits = 0u;
    var todo = halos;
    while todo != 0u {
        let j = firstTrailingBit(todo);
        todo &= todo - 1u;
        if particles[32u * w + j] != 0u {
            bits |= 1u << j;
        }
    }
    occupancy[w] = (occupancy[w] & ~halos) | bits;
}
