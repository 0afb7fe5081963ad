// The overflow resolution pass after the z sweep and the reactions (rdme/resolve_overflow.wgsl),
// for the sweeps that look at every site; rdme/diffuse_occupied.wgsl runs the same resolution at
// the end of its z sweep instead.
// Every loop runs to a fixed bound (the entries, the ring radius, the ring's rows) or moves its
// counter toward it by at least one each round (the insertion sort's j, the ring's dx):
//!bounded-loops
//!include common/step.wgsl
//!include rdme/common.wgsl
//!include rdme/particles.wgsl
//!include rdme/region.wgsl
//!include rdme/resolve_overflow.wgsl

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read_write> particles: array<u32>;
@group(1) @binding(2) var<storage, read> types: array<u32>;
@group(1) @binding(3) var<storage, read_write> overflow: array<atomic<u32>>;

fn target_word(k: u32) -> u32 {
    return particles[k];
}

fn set_target_word(k: u32, value: u32) {
    particles[k] = value;
}

// The every-site sweeps keep no occupancy maps.
fn mark_occupied(i: u32) {}

@compute @workgroup_size(1)
fn resolve() {
    resolve_overflow();
    atomicStore(&overflow[OVERFLOW_DONE], 0u);
}
