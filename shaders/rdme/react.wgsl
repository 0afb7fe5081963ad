// The reaction substep (rdme/reaction.wgsl), one thread per site of the step's region.
// Reads the lattice after the z sweep (particles) and writes the step's result (dst).
//!include common/step.wgsl
//!include common/rng.wgsl
//!include rdme/common.wgsl
//!include rdme/particles.wgsl
//!include rdme/region.wgsl
//!include rdme/overflow.wgsl
//!include rdme/reaction.wgsl

override WX: u32 = 64u;
override WY: u32 = 4u;

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> dst: array<u32>;
@group(1) @binding(3) var<storage, read> types: array<u32>;
@group(1) @binding(4) var<storage, read> reactions: array<Reaction>;
@group(1) @binding(5) var<storage, read_write> overflow: array<atomic<u32>>;

@compute @workgroup_size(WX, WY, 1)
fn react(@builtin(global_invocation_id) gid: vec3<u32>) {
    let plane = gid.z;
    let region = step_region(step_info.step, 1u);
    if gid.x >= lat.nx || gid.y >= lat.ny || plane < region.x || plane >= region.y {
        return;
    }
    let i = gid.x + lat.nx * (gid.y + lat.ny * plane);
    let g = gid.x + lat.nx * (gid.y + lat.ny * (lat.z_base + plane));
    var words = load_site(i);
    // An empty site changes only through zeroth-order reactions.
    if words.x == 0u && lat.zeroth_order == 0u {
        dst[i] = 0u;
        return;
    }
    words = react_site(words, site_type(i), g);
    let used = words_in_use(particle_count(words));
    for (var w = 0u; w < used; w++) {
        dst[w * lat.sites + i] = words[w];
    }
}
