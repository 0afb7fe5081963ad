//!fragment
// Overflow resolution (one thread): the particles that did not fit in their destination site this
// step (from any sweep or the reactions) are sorted by (global site, substep, arrival) so every
// device sees them in one order, then each goes to the nearest site of the same type with room
// in the same z plane (Euclidean distance, ties to the lower index). Staying in the plane keeps
// the result independent of how the lattice is split into z-slabs. Entries in the halo planes
// this step updates are placed too (the halo must evolve as on its owner) but only the owned
// planes' moves are counted; entries outside that region are dropped (those planes are stale
// and refreshed from the owner before they are read again). A particle with no room anywhere in
// its plane is counted as unresolved and the run stops (crates/model/src/rdme/sim.rs).
// Every loop runs to a fixed bound (the entries, the ring radius, the ring's rows) or moves its
// counter toward it by at least one each round (the insertion sort's j, the ring's dx), as
// `//!bounded-loops` in an includer asks.
// For RDME passes that declare `lat` (Lattice), `types` and `overflow`, include
// common/step.wgsl, rdme/common.wgsl, rdme/particles.wgsl and rdme/region.wgsl, and define
// the lattice it places into: `target_word(k)` and `set_target_word(k, value)` (word k of the
// word planes), and `mark_occupied(i)` (site i now holds particles).

// The words of site i in the lattice being resolved (as load_site reads `particles`).
fn target_site(i: u32) -> vec4<u32> {
    var w = vec4<u32>(target_word(i), 0u, 0u, 0u);
    if (w.x >> 24u) != 0u {
        w.y = target_word(lat.sites + i);
        if (w.y >> 24u) != 0u {
            w.z = target_word(2u * lat.sites + i);
            if (w.z >> 24u) != 0u {
                w.w = target_word(3u * lat.sites + i);
            }
        }
    }
    return w;
}

fn entry_less(a_site: u32, a_tag: u32, b_site: u32, b_tag: u32) -> bool {
    return a_site < b_site || (a_site == b_site && (a_tag & 0xFFFFFF00u) < (b_tag & 0xFFFFFF00u));
}

// Places this step's overflow entries and empties the list (one thread).
fn resolve_overflow() {
    let n = min(atomicLoad(&overflow[OVERFLOW_COUNT]), lat.overflow_capacity);
    if n == 0u {
        return;
    }
    // Insertion sort: the list is short (overflow is rare at sensible lattice spacings).
    for (var k = 1u; k < n; k++) {
        let site = atomicLoad(&overflow[OVERFLOW_HEADER + 2u * k]);
        let tag = atomicLoad(&overflow[OVERFLOW_HEADER + 2u * k + 1u]);
        var j = k;
        while j > 0u {
            let ps = atomicLoad(&overflow[OVERFLOW_HEADER + 2u * (j - 1u)]);
            let pt = atomicLoad(&overflow[OVERFLOW_HEADER + 2u * (j - 1u) + 1u]);
            if !entry_less(site, tag, ps, pt) {
                break;
            }
            atomicStore(&overflow[OVERFLOW_HEADER + 2u * j], ps);
            atomicStore(&overflow[OVERFLOW_HEADER + 2u * j + 1u], pt);
            j -= 1u;
        }
        atomicStore(&overflow[OVERFLOW_HEADER + 2u * j], site);
        atomicStore(&overflow[OVERFLOW_HEADER + 2u * j + 1u], tag);
    }
    let plane_sites = lat.nx * lat.ny;
    for (var k = 0u; k < n; k++) {
        let g = atomicLoad(&overflow[OVERFLOW_HEADER + 2u * k]);
        let species = atomicLoad(&overflow[OVERFLOW_HEADER + 2u * k + 1u]) & 0xFFu;
        let z = g / plane_sites;
        let region = step_region(step_info.step, 1u);
        if z < lat.z_base + region.x || z >= lat.z_base + region.y {
            continue;
        }
        let owned = z >= lat.z_base + lat.own_begin && z < lat.z_base + lat.own_end;
        let base = (z - lat.z_base) * plane_sites;
        let x0 = i32(g % lat.nx);
        let y0 = i32((g / lat.nx) % lat.ny);
        let t = site_type(base + u32(x0) + lat.nx * u32(y0));
        var best = 0xFFFFFFFFu;
        var best_d2 = 0x7FFFFFFF;
        let max_r = i32(max(lat.nx, lat.ny));
        for (var r = 0; r <= max_r; r++) {
            if best != 0xFFFFFFFFu && r * r > best_d2 {
                break;
            }
            for (var dy = -r; dy <= r; dy++) {
                let y = y0 + dy;
                if y < 0 || y >= i32(lat.ny) {
                    continue;
                }
                // On the ring's top and bottom rows every x; otherwise only the two ends.
                let full_row = dy == -r || dy == r;
                var dx = -r;
                while dx <= r {
                    let x = x0 + dx;
                    if x >= 0 && x < i32(lat.nx) {
                        let i = base + u32(x) + lat.nx * u32(y);
                        let d2 = dx * dx + dy * dy;
                        if site_type(i) == t && particle_count(target_site(i)) < CAPACITY {
                            if d2 < best_d2 || (d2 == best_d2 && i < best) {
                                best = i;
                                best_d2 = d2;
                            }
                        }
                    }
                    if full_row || r == 0 {
                        dx += 1;
                    } else {
                        dx += 2 * r;
                    }
                }
            }
        }
        if best == 0xFFFFFFFFu {
            if owned {
                atomicAdd(&overflow[OVERFLOW_UNRESOLVED], 1u);
            }
            continue;
        }
        let m = particle_count(target_site(best));
        let w = (m >> 2u) * lat.sites + best;
        // A particle opening a new word overwrites whatever stale word was there.
        let bits = species << ((m & 3u) * 8u);
        set_target_word(w, select(target_word(w) | bits, bits, (m & 3u) == 0u));
        // Filling a word's top slot makes readers look at the next word: it must be empty.
        if (m & 3u) == 3u && m + 1u < CAPACITY {
            set_target_word(w + lat.sites, 0u);
        }
        mark_occupied(best);
        if owned {
            atomicAdd(&overflow[OVERFLOW_MOVED], 1u);
        }
    }
    atomicStore(&overflow[OVERFLOW_COUNT], 0u);
}
