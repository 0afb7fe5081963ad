//!fragment
// Assembling one destination site of a diffusion sweep along AXIS from its own and its two
// neighbours' particles (gathered, so that every site is written by one thread only), for the
// sweep passes (rdme/diffuse.wgsl, rdme/diffuse_occupied.wgsl). They declare `lat`, `particles`
// (the source), `dst`, `types`, `hop`, `overflow`, `reactions` and the overrides AXIS and
// REACT, and include common/step.wgsl, common/rng.wgsl, rdme/common.wgsl, rdme/particles.wgsl,
// rdme/overflow.wgsl, rdme/hop.wgsl and rdme/reaction.wgsl.

// The destination site being assembled.
var<private> out_words: vec4<u32>;
var<private> out_count: u32;

fn arrive(global_site: u32, species: u32) {
    if out_count < CAPACITY {
        out_words = with_slot(out_words, out_count, species);
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

// The site's coordinate along AXIS, the lattice's extent along it and the index stride.
fn along_axis(x: u32, y: u32, plane: u32) -> vec3<u32> {
    if AXIS == 1u {
        return vec3<u32>(y, lat.ny, lat.nx);
    }
    if AXIS == 2u {
        return vec3<u32>(lat.z_base + plane, lat.nz, lat.nx * lat.ny);
    }
    return vec3<u32>(x, lat.nx, 1u);
}

// Assembles site i (at x, y, local plane; global index g) after the sweep in out_words /
// out_count.
fn gather(x: u32, y: u32, plane: u32, i: u32, g: u32) {
    out_words = vec4<u32>(0u);
    out_count = 0u;
    let a = along_axis(x, y, plane);
    let stride = a.z;
    let has_minus = a.x > 0u;
    let has_plus = a.x + 1u < a.y;
    let t = site_type(i);
    var t_minus = NO_SITE;
    var t_plus = NO_SITE;
    if has_minus {
        t_minus = site_type(i - stride);
    }
    if has_plus {
        t_plus = site_type(i + stride);
    }
    // Loaded beside the types, not after them (t_minus is NO_SITE exactly without has_minus).
    var minus = vec4<u32>(0u);
    var plus = vec4<u32>(0u);
    if has_minus {
        minus = load_site(i - stride);
    }
    if has_plus {
        plus = load_site(i + stride);
    }
    let own = load_site(i);
    // One loop over the occupied words of the three sources (bit 4 s + w: word w of source s,
    // 0 the - neighbour, 1 the site, 2 the + neighbour) in arrival order, with one draw per
    // word: threads of a warp whose particles sit in different sources draw together instead
    // of one source after the other.
    var todo = occupied_words(minus) | (occupied_words(own) << 4u) | (occupied_words(plus) << 8u);
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
        let word = word_at(words, w);
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

// Assembles site i (a local index) after the sweep and, with REACT, after its reaction substep,
// and stores it; returns its word 0 (0: the site is empty).
fn update_site(i: u32) -> u32 {
    let plane_sites = lat.nx * lat.ny;
    let plane = i / plane_sites;
    let y = (i % plane_sites) / lat.nx;
    let x = i % lat.nx;
    let g = i + plane_sites * lat.z_base;
    gather(x, y, plane, i, g);
    if !REACT {
        store(i, out_words, min(out_count, CAPACITY));
        return out_words.x;
    }
    var words = out_words;
    if words.x != 0u || lat.zeroth_order != 0u {
        words = react_site(words, site_type(i), g);
    }
    store(i, words, particle_count(words));
    return words.x;
}
