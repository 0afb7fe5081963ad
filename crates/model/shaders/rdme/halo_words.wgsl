// Word planes the neighbours need of a slab's boundary planes (the first and the last
// `halo_depth` owned planes): the most words in use over those sites, by atomicMax. Only these
// words are sent to the neighbours' halos (the field count of the halo exchange,
// crates/scheduler/src/slabs/halo.rs); a word a site does not use is never read
// (rdme/common.wgsl), so the stale words left there do not matter. A pass of the slab's step
// plan recorded on demand: group 0 is the plan's step info, unused here.
//!include rdme/common.wgsl
//!include rdme/particles.wgsl

override WX: u32 = 64u;
override WY: u32 = 4u;

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> needed: array<atomic<u32>>;
// Declared for particles.wgsl's site_type; not used here.
@group(1) @binding(3) var<storage, read> types: array<u32>;

@compute @workgroup_size(WX, WY, 1)
fn halo_words(@builtin(global_invocation_id) gid: vec3<u32>) {
    let h = lat.halo_depth;
    if gid.x >= lat.nx || gid.y >= lat.ny || gid.z >= 2u * h {
        return;
    }
    // z 0..h: the first owned planes; h..2h: the last.
    var plane = lat.own_begin + gid.z;
    if gid.z >= h {
        plane = lat.own_end + gid.z - 2u * h;
    }
    let i = gid.x + lat.nx * (gid.y + lat.ny * plane);
    // Fewer than four particles use one word, the floor the host assumes.
    if (particles[i] >> 24u) != 0u {
        atomicMax(&needed[0], words_in_use(particle_count(load_site(i))));
    }
}
