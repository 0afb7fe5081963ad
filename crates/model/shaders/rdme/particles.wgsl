//!fragment
// Reading sites, for RDME passes that declare `lat` (Lattice), `types` (site types, four per
// u32) and `particles` (the four word planes they read).

// A site's words: word w > 0 only when slot 4w - 1 is occupied (common.wgsl).
fn load_site(i: u32) -> vec4<u32> {
    var w = vec4<u32>(particles[i], 0u, 0u, 0u);
    if (w.x >> 24u) != 0u {
        w.y = particles[lat.sites + i];
        if (w.y >> 24u) != 0u {
            w.z = particles[2u * lat.sites + i];
            if (w.z >> 24u) != 0u {
                w.w = particles[3u * lat.sites + i];
            }
        }
    }
    return w;
}

fn site_type(i: u32) -> u32 {
    return (types[i >> 2u] >> ((i & 3u) * 8u)) & 0xFFu;
}
