// One MPD diffusion sweep along AXIS (0 = x, 1 = y, 2 = z), gathered per destination site.
// Each particle in a site with type t hops + with probability q(t, t+, species) (u < q+) and -
// with probability q(t, t-, species) (u >= 1 - q-), from one uniform u keyed by (seed, step,
// 4 * AXIS + slot / 4, global site; Threefry, common/rng.wgsl) so the source and both
// neighbours draw the same decision.
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
//!include rdme/reaction.wgsl

override AXIS: u32 = 0u;
override WX: u32 = 64u;
override WY: u32 = 4u;
override WZ: u32 = 1u;

@group(1) @binding(0) var<uniform> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> dst: array<u32>;
@group(1) @binding(3) var<storage, read> types: array<u32>;
@group(1) @binding(4) var<storage, read> hop: array<f32>;
@group(1) @binding(5) var<storage, read_write> overflow: array<atomic<u32>>;
// Used by diffuse_react only.
@group(1) @binding(6) var<storage, read> reactions: array<Reaction>;

// The destination site being assembled.
var<private> out_words: vec4<u32>;
var<private> out_count: u32;

fn arrive(global_site: u32, species: u32) {
    if out_count < CAPACITY {
        // A select per word instead of out_words[out_count / 4], which would put the site in
        // local memory.
        let word = vec4<u32>(out_count >> 2u);
        let bits = vec4<u32>(species << ((out_count & 3u) * 8u));
        out_words |= select(vec4<u32>(0u), bits, word == vec4<u32>(0u, 1u, 2u, 3u));
    } else {
        push_overflow(global_site, overflow_tag(AXIS, out_count, species));
    }
    out_count += 1u;
}

// Bit w is set when word w of the site holds particles.
fn occupied_words(words: vec4<u32>) -> u32 {
    return select(0u, 1u, words.x != 0u) | select(0u, 2u, words.y != 0u)
        | select(0u, 4u, words.z != 0u) | select(0u, 8u, words.w != 0u);
}

// Assembles site (gid.x, gid.y, local plane gid.z; local index i, global g) after the sweep in
// out_words / out_count.
fn gather(gid: vec3<u32>, i: u32, g: u32) {
    out_words = vec4<u32>(0u);
    out_count = 0u;
    var c = gid.x;
    var n = lat.nx;
    var stride = 1u;
    if AXIS == 1u {
        c = gid.y;
        n = lat.ny;
        stride = lat.nx;
    } else if AXIS == 2u {
        c = lat.z_base + gid.z;
        n = lat.nz;
        stride = lat.nx * lat.ny;
    }
    // Most sites of a sparse lattice and their neighbours are empty: nothing arrives.
    let has_minus = c > 0u;
    let has_plus = c + 1u < n;
    let near = particles[i] | select(0u, particles[i - stride], has_minus) | select(0u, particles[i + stride], has_plus);
    if near == 0u {
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
    var minus = vec4<u32>(0u);
    var plus = vec4<u32>(0u);
    if t_minus != NO_SITE {
        minus = load_site(i - stride);
    }
    if t_plus != NO_SITE {
        plus = load_site(i + stride);
    }
    let own = load_site(i);
    // One loop over the occupied words of the three sources (bit 4 s + w: word w of source s,
    // 0 the - neighbour, 1 the site, 2 the + neighbour) in arrival order, with one draw per
    // word: threads of a warp whose particles sit in different sources draw together instead
    // of one source after the other.
    var todo = occupied_words(minus) | (occupied_words(own) << 4u) | (occupied_words(plus) << 8u);
    out_words = vec4<u32>(0u);
    out_count = 0u;
    while todo != 0u {
        let bit = firstTrailingBit(todo);
        todo &= todo - 1u;
        let source = bit >> 2u;
        let w = bit & 3u;
        var words = own;
        var t_source = t;
        var dir = 0;
        var g_source = g;
        if source == 0u {
            words = minus;
            t_source = t_minus;
            dir = 1;
            g_source = g - stride;
        } else if source == 2u {
            words = plus;
            t_source = t_plus;
            dir = -1;
            g_source = g + stride;
        }
        let word = select(select(select(words.w, words.z, w == 2u), words.y, w == 1u), words.x, w == 0u);
        let r = threefry_u32x4(step_seed(), step_info.step, g_source, 4u * AXIS + w);
        for (var b = 0u; b < 4u; b++) {
            let sp = (word >> (8u * b)) & 0xFFu;
            if sp == 0u {
                break;
            }
            if arrives(dir, rng_unit(r[b]), t_source, t, t_minus, t_plus, sp) {
                arrive(g, sp);
            }
        }
    }
}

// Writes the words a site of `count` particles uses.
fn store(i: u32, words: vec4<u32>, count: u32) {
    let used = words_in_use(count);
    for (var w = 0u; w < used; w++) {
        dst[w * lat.sites + i] = words[w];
    }
}

// One sweep on its own (the step plan runs x and y this way, z with the reactions below).
@compute @workgroup_size(WX, WY, WZ)
fn diffuse(@builtin(global_invocation_id) gid: vec3<u32>) {
    let region = step_region(step_info.step, select(0u, 1u, AXIS == 2u));
    if gid.x >= lat.nx || gid.y >= lat.ny || gid.z < region.x || gid.z >= region.y {
        return;
    }
    let i = gid.x + lat.nx * (gid.y + lat.ny * gid.z);
    let g = gid.x + lat.nx * (gid.y + lat.ny * (lat.z_base + gid.z));
    gather(gid, i, g);
    store(i, out_words, min(out_count, CAPACITY));
}

// The z sweep (AXIS 2) and then the reaction substep of the same site, in one pass: a site's
// reactions need only its own particles after the z sweep, so that result never goes to memory.
@compute @workgroup_size(WX, WY, WZ)
fn diffuse_react(@builtin(global_invocation_id) gid: vec3<u32>) {
    let region = step_region(step_info.step, 1u);
    if gid.x >= lat.nx || gid.y >= lat.ny || gid.z < region.x || gid.z >= region.y {
        return;
    }
    let i = gid.x + lat.nx * (gid.y + lat.ny * gid.z);
    let g = gid.x + lat.nx * (gid.y + lat.ny * (lat.z_base + gid.z));
    gather(gid, i, g);
    var words = out_words;
    // An empty site changes only through zeroth-order reactions.
    if words.x != 0u || lat.zeroth_order != 0u {
        words = react_site(words, site_type(i), g);
    }
    store(i, words, particle_count(words));
}
