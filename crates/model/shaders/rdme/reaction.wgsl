//!fragment
// The reaction substep of one site, for RDME passes that declare `lat` (Lattice), `reactions`
// (array<Reaction>) and `overflow` and include common/step.wgsl, common/rng.wgsl and
// rdme/overflow.wgsl: total propensity a tau from the reactions allowed in the site's type
// (order 0: c; order 1: c n_A; A + B: c n_A n_B; A + A: c n_A (n_A - 1) / 2, all with tau folded
// into c), then at most one reaction with probability 1 - exp(-a tau) (u1), chosen by u2 a tau
// over the cumulative propensities. Reactants are removed (first occurrence), products
// appended; products past 16 go to the overflow list.

struct Reaction {
    reactant_a: u32,
    reactant_b: u32,
    products: u32,
    type_mask: u32,
    c_tau: f32,
    order: u32,
    _pad0: u32,
    _pad1: u32,
}

// Bytes of `w` that are zero (exact: no carries between bytes).
fn zero_bytes(w: u32) -> u32 {
    let y = (w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu;
    return countOneBits(~(y | w | 0x7F7F7F7Fu));
}

// Particles of `species` (never 0) in the site: the bytes equal to it, i.e. the zero bytes of
// each word xor the species in every byte. The words must be zero past the site's last particle,
// as the gather and remove_one build them (so does particle_count). Branch-free and with no
// indexing by slot, which the compiler would put in local memory; this runs for every reaction
// of every occupied site.
fn count_species(words: vec4<u32>, species: u32) -> u32 {
    let s = species * 0x01010101u;
    return zero_bytes(words.x ^ s) + zero_bytes(words.y ^ s) + zero_bytes(words.z ^ s)
        + zero_bytes(words.w ^ s);
}

fn propensity_tau(words: vec4<u32>, r: Reaction) -> f32 {
    if r.order == 0u {
        return r.c_tau;
    }
    let na = f32(count_species(words, r.reactant_a));
    if r.order == 1u {
        return r.c_tau * na;
    }
    if r.reactant_a == r.reactant_b {
        return r.c_tau * (na * (na - 1.0) * 0.5);
    }
    return r.c_tau * (na * f32(count_species(words, r.reactant_b)));
}

// 1 - exp(-x) without the cancellation of f32 exp at small x (a tau is often 1e-6).
fn fire_probability(x: f32) -> f32 {
    if x < 1e-3 {
        return x * (1.0 - x * (0.5 - x * (1.0 / 6.0)));
    }
    return 1.0 - exp(-x);
}

// The site without the first particle of `species`, still packed from slot 0.
fn remove_one(words: vec4<u32>, species: u32) -> vec4<u32> {
    var out = vec4<u32>(0u);
    var n = 0u;
    var removed = false;
    for (var j = 0u; j < CAPACITY; j++) {
        let s = species_at(words, j);
        if s == 0u {
            break;
        }
        if !removed && s == species {
            removed = true;
            continue;
        }
        out = with_slot(out, n, s);
        n += 1u;
    }
    return out;
}

// The site's words after the reaction substep; `t` is its type, `g` its global index.
fn react_site(site: vec4<u32>, t: u32, g: u32) -> vec4<u32> {
    var words = site;
    let bit = 1u << t;
    var total = 0.0;
    for (var k = 0u; k < lat.n_reactions; k++) {
        let r = reactions[k];
        if (r.type_mask & bit) != 0u {
            total += propensity_tau(words, r);
        }
    }
    if total > 0.0 {
        let u = threefry_u32x4(step_seed(), step_info.step, g, STREAM_REACTION);
        if rng_unit(u.x) < fire_probability(total) {
            let pick = rng_unit(u.y) * total;
            var chosen = 0xFFFFFFFFu;
            var last = 0u;
            var sum = 0.0;
            for (var k = 0u; k < lat.n_reactions; k++) {
                let r = reactions[k];
                if (r.type_mask & bit) != 0u {
                    let a = propensity_tau(words, r);
                    if a > 0.0 {
                        last = k;
                        sum += a;
                        if chosen == 0xFFFFFFFFu && pick < sum {
                            chosen = k;
                        }
                    }
                }
            }
            // Rounding can leave pick just past the last partial sum: take the last one.
            if chosen == 0xFFFFFFFFu {
                chosen = last;
            }
            let r = reactions[chosen];
            if r.order >= 1u {
                words = remove_one(words, r.reactant_a);
            }
            if r.order == 2u {
                words = remove_one(words, r.reactant_b);
            }
            var n = particle_count(words);
            for (var p = 0u; p < 4u; p++) {
                let sp = (r.products >> (8u * p)) & 0xFFu;
                if sp == 0u {
                    break;
                }
                if n < CAPACITY {
                    words = with_slot(words, n, sp);
                } else {
                    push_overflow(g, overflow_tag(3u, n, sp));
                }
                n += 1u;
            }
        }
    }
    return words;
}
