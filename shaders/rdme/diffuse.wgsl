// One MPD diffusion sweep along AXIS (0 = x, 1 = y, 2 = z), gathered per destination site.
// Each particle in a site with type t hops + with probability q(t, t+, species) (u < q+) and -
// with probability q(t, t-, species) (u >= 1 - q-), from one uniform u keyed by (seed, step,
// 4 * AXIS + slot / 4, global site) so the source and both neighbours draw the same decision.
// q = 0 (a wall, or no neighbour at the lattice edge) never hops. Arrivals are packed in the
// order: from the - neighbour, stayers, from the + neighbour; past 16 they go to the overflow
// list. Each sweep covers its `step_region` of the local planes (halos included, redundantly
// with the neighbouring device).
//!include common/step.wgsl
//!include common/rng.wgsl
//!include rdme/common.wgsl
//!include rdme/particles.wgsl
//!include rdme/region.wgsl
//!include rdme/overflow.wgsl
//!include rdme/hop.wgsl

override AXIS: u32 = 0u;
override WX: u32 = 64u;
override WY: u32 = 4u;

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> dst: array<u32>;
@group(1) @binding(3) var<storage, read> types: array<u32>;
@group(1) @binding(4) var<storage, read> hop: array<f32>;
@group(1) @binding(5) var<storage, read_write> overflow: array<atomic<u32>>;

// The destination site being assembled.
var<private> out_words: vec4<u32>;
var<private> out_count: u32;

fn arrive(global_site: u32, species: u32) {
    if out_count < CAPACITY {
        out_words[out_count >> 2u] |= species << ((out_count & 3u) * 8u);
    } else {
        push_overflow(global_site, overflow_tag(AXIS, out_count, species));
    }
    out_count += 1u;
}

// Particles of site `i` (global index `g`, type `t`) whose draw u satisfies
// lo <= u < hi arrive at the destination; the bounds come from the q of the move.
// `dir` picks the move: +1 (u < q_to), 0 (stay), -1 (u >= 1 - q_to).
fn gather_from(i: u32, g: u32, t: u32, t_dest: u32, t_minus: u32, t_plus: u32, dir: i32, dest: u32) {
    let words = load_site(i);
    for (var w = 0u; w < 4u; w++) {
        let word = words[w];
        if word == 0u {
            break;
        }
        let r = rng_u32x4(step_seed(), step_info.step, g, 4u * AXIS + w);
        for (var b = 0u; b < 4u; b++) {
            let sp = (word >> (8u * b)) & 0xFFu;
            if sp == 0u {
                break;
            }
            if arrives(dir, rng_unit(r[b]), t, t_dest, t_minus, t_plus, sp) {
                arrive(dest, sp);
            }
        }
    }
}

@compute @workgroup_size(WX, WY, 1)
fn diffuse(@builtin(global_invocation_id) gid: vec3<u32>) {
    let plane = gid.z;
    let region = step_region(step_info.step, select(0u, 1u, AXIS == 2u));
    if gid.x >= lat.nx || gid.y >= lat.ny || plane < region.x || plane >= region.y {
        return;
    }
    let i = gid.x + lat.nx * (gid.y + lat.ny * plane);
    let g = gid.x + lat.nx * (gid.y + lat.ny * (lat.z_base + plane));
    var c = gid.x;
    var n = lat.nx;
    var stride = 1u;
    if AXIS == 1u {
        c = gid.y;
        n = lat.ny;
        stride = lat.nx;
    } else if AXIS == 2u {
        c = lat.z_base + plane;
        n = lat.nz;
        stride = lat.nx * lat.ny;
    }
    // Most sites of a sparse lattice and their neighbours are empty: nothing arrives.
    let has_minus = c > 0u;
    let has_plus = c + 1u < n;
    let near = particles[i] | select(0u, particles[i - stride], has_minus) | select(0u, particles[i + stride], has_plus);
    if near == 0u {
        dst[i] = 0u;
        return;
    }
    let t = site_type(i);
    var t_minus = NO_SITE;
    var t_plus = NO_SITE;
    if has_minus {
        t_minus = site_type(i - stride);
    }
    if has_plus {
        t_plus = site_type(i + stride);
    }
    out_words = vec4<u32>(0u);
    out_count = 0u;
    if t_minus != NO_SITE {
        gather_from(i - stride, g - stride, t_minus, t, NO_SITE, NO_SITE, 1, g);
    }
    gather_from(i, g, t, t, t_minus, t_plus, 0, g);
    if t_plus != NO_SITE {
        gather_from(i + stride, g + stride, t_plus, t, NO_SITE, NO_SITE, -1, g);
    }
    let used = words_in_use(min(out_count, CAPACITY));
    for (var w = 0u; w < used; w++) {
        dst[w * lat.sites + i] = out_words[w];
    }
}
