// MPD-RDME lattice layout shared by the RDME passes (crates/model/src/rdme).
// A site holds up to 16 particles as one-byte species ids (0 = empty) packed from slot 0 in four
// u32 words; the lattice stores the words as four planes (word w of site i at w * sites + i) so
// neighbouring threads read neighbouring words. Site types are one byte each, four per u32.
// Word w > 0 of a site means something only when slot 4w - 1 (the top byte of word w - 1) is
// occupied: passes read and write only the words in use, so a sparse lattice costs 4 B per site
// per pass instead of 16, and a stale word behind a short site is never read.
// A device holds a z-slab: planes [0, planes) of the local buffers are global planes
// [z_base, z_base + planes); it owns (updates in the z sweep and the reactions) the local planes
// [own_begin, own_end); the planes around them are halos copied from the neighbouring device.
// Halos are `halo_depth` planes deep and refreshed every `halo_depth` steps: in between, the
// device steps its halo planes too (the same random numbers as their owner, so the same result)
// on a region that shrinks by one plane per step on each side with a neighbour, because the
// outermost plane's own outer neighbour is not here (rdme/region.wgsl).

struct Lattice {
    nx: u32,
    ny: u32,
    planes: u32,
    sites: u32,
    z_base: u32,
    nz: u32,
    own_begin: u32,
    own_end: u32,
    n_types: u32,
    n_species: u32,
    n_reactions: u32,
    overflow_capacity: u32,
    // Number of zeroth-order reactions (which fire in empty sites).
    zeroth_order: u32,
    // Planes of halo on each side with a neighbour (1 on a single device) and the step at which
    // the halos were last refreshed (low 32 bits).
    halo_depth: u32,
    halo_start: u32,
    _pad0: u32,
}

const CAPACITY: u32 = 16u;

// Overflow list header (array<atomic<u32>>): entries this step, entries lost because the list
// was full, particles with no site of their type with room in their plane, particles moved so far,
// and the workgroups of the current z sweep done so far (rdme/diffuse_occupied.wgsl: the last
// one resolves the overflow) with OVERFLOW_PENDING set once this step has an entry, so that the
// last one knows from its own ticket whether there is anything to place.
const OVERFLOW_COUNT: u32 = 0u;
const OVERFLOW_LOST: u32 = 1u;
const OVERFLOW_UNRESOLVED: u32 = 2u;
const OVERFLOW_MOVED: u32 = 3u;
const OVERFLOW_DONE: u32 = 4u;
const OVERFLOW_HEADER: u32 = 5u;
const OVERFLOW_PENDING: u32 = 0x80000000u;

// The four random streams of a step: x, y, z sweeps use 4 * axis + word, reactions 12.
const STREAM_REACTION: u32 = 12u;

// The bits j of bitmap word w whose sites lo <= 32 w + j < hi (an occupancy map's word,
// rdme/diffuse_occupied.wgsl).
fn range_bits(w: u32, lo: u32, hi: u32) -> u32 {
    let a = clamp(i32(lo) - i32(32u * w), 0, 32);
    let b = clamp(i32(hi) - i32(32u * w), 0, 32);
    if b <= a {
        return 0u;
    }
    let below_b = select((1u << u32(b)) - 1u, 0xFFFFFFFFu, b == 32);
    return below_b & ~((1u << u32(a)) - 1u);
}

// Words a reader looks at for `n` particles: those holding particles, plus the next one (which
// must then read as empty) when the last word is full.
fn words_in_use(n: u32) -> u32 {
    return min(4u, n / 4u + 1u);
}

// Word w of a site, by selects: words[w] with a computed w would put the site in local memory.
fn word_at(words: vec4<u32>, w: u32) -> u32 {
    return select(select(select(words.w, words.z, w == 2u), words.y, w == 1u), words.x, w == 0u);
}

// The site with `species` put in slot j (which must be empty).
fn with_slot(words: vec4<u32>, j: u32, species: u32) -> vec4<u32> {
    let bits = vec4<u32>(species << ((j & 3u) * 8u));
    return words | select(vec4<u32>(0u), bits, vec4<u32>(j >> 2u) == vec4<u32>(0u, 1u, 2u, 3u));
}

fn species_at(words: vec4<u32>, j: u32) -> u32 {
    return (word_at(words, j >> 2u) >> ((j & 3u) * 8u)) & 0xFFu;
}

// Particles in a site: slots are packed from 0, so count the non-zero bytes.
fn particle_count(words: vec4<u32>) -> u32 {
    var n = 0u;
    for (var w = 0u; w < 4u; w++) {
        let v = words[w];
        n += select(0u, 1u, (v & 0xFFu) != 0u) + select(0u, 1u, (v & 0xFF00u) != 0u)
            + select(0u, 1u, (v & 0xFF0000u) != 0u) + select(0u, 1u, (v & 0xFF000000u) != 0u);
    }
    return n;
}

// Tag of an overflow entry: which substep produced it and the arrival number at the site, so
// entries sort into one order on every device.
fn overflow_tag(substep: u32, arrival: u32, species: u32) -> u32 {
    return (substep << 16u) | (arrival << 8u) | species;
}
