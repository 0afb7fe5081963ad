// One MPD diffusion sweep along AXIS (and with REACT the reaction substep after the z sweep),
// over the occupied sites only: the same result as rdme/diffuse.wgsl, bit for bit, on one device
// or on a slab with halos, at a cost that follows the particles instead of the sites.
//
// Three occupancy bitmaps (bit i % 32 of word i / 32: site i holds particles) sit in `occupancy`,
// map m at words [m * W, (m + 1) * W). The sweeps of a step are x, y, z in that order and each
// writes the half of the particle pair the one before read, so with the map of sweep AXIS's
// source in map AXIS:
// - map AXIS: the source's occupied sites (written by the sweep before; the overflow placement
//   at the end of the z sweep sets the bits of the sites it fills in map 0, the next step's x
//   source);
// - map (AXIS + 1) % 3: this sweep writes its destination's occupied sites there;
// - map (AXIS + 2) % 3: the destination's occupied sites before this sweep (it still holds the
//   source of the sweep before).
// A workgroup takes 64 bitmap words (2048 sites), each thread a span of one word. The sites with
// particles in reach (the source's bits and those of the neighbours along AXIS; a superset at
// the lattice's rows and planes, which is harmless: such a site gathers nothing and is written
// empty) are queued in workgroup memory and updated by consecutive threads, as in
// rdme/diffuse.wgsl; the destination's sites that held particles and get none now are emptied;
// every other destination site is empty already. On a slab with halos (HALOS) a pass covers its
// step region of planes and keeps the map bits of the sites outside it (their destination words
// stay too); after each halo exchange rdme/mark_halos.wgsl marks the halo planes in map 0.
// With REACT the last workgroup to finish also resolves the step's overflow
// (rdme/resolve_overflow.wgsl), which saves the dispatch of rdme/resolve.wgsl. It knows it is
// last from a counter in the overflow header taken after a storage barrier (a device-scope
// release of this workgroup's writes) and reads the lattice after another (the acquire). The
// counter's top bit, set by every overflow entry (rdme/overflow.wgsl), tells it whether there is
// anything to place: in most steps there is not, and it stops at once.
// Every loop here and in the includes runs to a fixed bound (4 words, 16 slots, the reactions),
// or to the queue's count, or clears one bit of a mask per round, or is the overflow
// placement's (bounded, rdme/resolve_overflow.wgsl):
//!bounded-loops
//!include common/step.wgsl
//!include common/rng.wgsl
//!include rdme/common.wgsl
//!include rdme/particles.wgsl
//!include rdme/overflow.wgsl
//!include rdme/hop.wgsl
//!include rdme/reaction.wgsl
//!include rdme/gather.wgsl
//!include rdme/region.wgsl
//!include rdme/resolve_overflow.wgsl

override AXIS: u32 = 0u;
override REACT: bool = false;
// A slab with halos (several devices): each pass covers its step region of planes
// (rdme/region.wgsl) as in rdme/diffuse.wgsl, from the halo refresh step in the uniform; the
// sites outside it keep their destination words and so their bits.
override HALOS: bool = false;
// Which planes of the step region (with HALOS): 0 all; 1 local planes [PART_BEGIN, PART_END)
// only; 2 the others only. Parts 1 and 2 split the first x and y sweeps after a halo exchange:
// part 1 (x: the owned planes; y: those the exchange does not read) runs while the host is
// exchanging, part 2 once the halos are written (slab.rs). Each part leaves the map bits of the
// other part's sites as they are in its own output map (the other part writes them) instead of
// taking the destination's old bits.
override PART: u32 = 0u;
override PART_BEGIN: u32 = 0u;
override PART_END: u32 = 0u;

// The slab's numbers are pipeline constants here (only the halo refresh step changes, and the
// slab is rebuilt when its planes change), so the compiler folds the index arithmetic and,
// without halos, no pass waits on the uniform.
@group(1) @binding(0) var<uniform> lattice_uniform: Lattice;
override NX: u32 = 1u;
override NY: u32 = 1u;
override NZ: u32 = 1u;
override PLANES: u32 = 1u;
override Z_BASE: u32 = 0u;
override OWN_BEGIN: u32 = 0u;
override OWN_END: u32 = 1u;
override HALO_DEPTH: u32 = 1u;
override N_TYPES: u32 = 1u;
override N_SPECIES: u32 = 1u;
override N_REACTIONS: u32 = 0u;
override OVERFLOW_CAPACITY: u32 = 0u;
override ZEROTH_ORDER: u32 = 0u;
var<private> lat: Lattice;
@group(1) @binding(1) var<storage, read> particles: array<u32>;
@group(1) @binding(2) var<storage, read_write> dst: array<u32>;
@group(1) @binding(3) var<storage, read> types: array<u32>;
@group(1) @binding(4) var<storage, read> hop: array<f32>;
@group(1) @binding(5) var<storage, read_write> overflow: array<atomic<u32>>;
// Used with REACT only.
@group(1) @binding(6) var<storage, read> reactions: array<Reaction>;
@group(1) @binding(7) var<storage, read_write> occupancy: array<u32>;

// Threads per workgroup: 64, 128, 256 or 512 (slab.rs passes 128 or 256); a workgroup covers WORDS
// bitmap words, QUEUE sites, so each thread looks at QUEUE / THREADS consecutive sites of one
// word (its span).
override THREADS: u32 = 256u;
const WORDS: u32 = 64u;
// Every site of the workgroup may be busy.
const QUEUE: u32 = WORDS * 32u;

var<workgroup> busy_sites: array<u32, QUEUE>;
var<workgroup> busy_count: atomic<u32>;
// The workgroup's words of the destination's map, gathered before one plain store each.
var<workgroup> out_bits: array<atomic<u32>, WORDS>;

var<workgroup> last_done: u32;

// The overflow resolution places particles into the destination.
fn target_word(k: u32) -> u32 {
    return dst[k];
}

fn set_target_word(k: u32, value: u32) {
    dst[k] = value;
}

// Map 0 is the z sweep's destination map (and the next x sweep's source map).
fn mark_occupied(i: u32) {
    occupancy[i / 32u] |= 1u << (i & 31u);
}

fn map_words() -> u32 {
    return (lat.sites + 31u) / 32u;
}

// 32 bits of map `m` from bit `start` on; bits before 0 or past the map read as 0.
fn bits_from(m: u32, start: i32) -> u32 {
    let n = i32(map_words());
    let q = start >> 5u;
    let r = u32(start & 31);
    var low = 0u;
    var high = 0u;
    if q >= 0 && q < n {
        low = occupancy[m * u32(n) + u32(q)];
    }
    if q + 1 >= 0 && q + 1 < n {
        high = occupancy[m * u32(n) + u32(q + 1)];
    }
    if r == 0u {
        return low;
    }
    return (low >> r) | (high << (32u - r));
}

fn axis_stride() -> u32 {
    if AXIS == 1u {
        return lat.nx;
    }
    if AXIS == 2u {
        return lat.nx * lat.ny;
    }
    return 1u;
}

// The bits of map word w this pass updates: its sites in `region` and in its PART.
fn part_bits(w: u32, region: vec2<u32>) -> u32 {
    let part = vec2<u32>(PART_BEGIN, PART_END) * (NX * NY);
    if PART == 1u {
        return range_bits(w, max(region.x, part.x), min(region.y, part.y));
    }
    if PART == 2u {
        return range_bits(w, region.x, min(region.y, part.x))
            | range_bits(w, max(region.x, part.y), region.y);
    }
    return range_bits(w, region.x, region.y);
}

@compute @workgroup_size(THREADS)
fn diffuse_occupied(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    var halo_start = 0u;
    if HALOS {
        halo_start = lattice_uniform.halo_start;
    }
    lat = Lattice(NX, NY, PLANES, NX * NY * PLANES, Z_BASE, NZ, OWN_BEGIN, OWN_END, N_TYPES,
        N_SPECIES, N_REACTIONS, OVERFLOW_CAPACITY, ZEROTH_ORDER, HALO_DEPTH, halo_start, 0u);
    // The sites this pass updates (all of them without halos).
    let region = step_region(step_info.step, select(0u, 1u, REACT)) * lat.nx * lat.ny;
    if lid == 0u {
        atomicStore(&busy_count, 0u);
    }
    if lid < WORDS {
        atomicStore(&out_bits[lid], 0u);
    }
    workgroupBarrier();
    let n = map_words();
    let first_word = (wid.x + wid.y * groups.x) * WORDS;
    let span = QUEUE / THREADS;
    let w = first_word + lid * span / 32u;
    if w < n {
        let stride = i32(axis_stride());
        let start = i32(32u * w);
        var reach = occupancy[AXIS * n + w] | bits_from(AXIS, start - stride)
            | bits_from(AXIS, start + stride);
        // Zeroth-order reactions fire in empty sites too.
        if REACT && lat.zeroth_order != 0u {
            reach = 0xFFFFFFFFu;
        }
        // This thread's span of the word, within the lattice.
        let first_bit = (lid * span) & 31u;
        let left = lat.sites - 32u * w;
        let mask = ((0xFFFFFFFFu >> (32u - span)) << first_bit) & part_bits(w, region);
        reach &= select(mask, mask & ((1u << left) - 1u), left < 32u);
        var emptied = occupancy[((AXIS + 2u) % 3u) * n + w] & mask & ~reach;
        while emptied != 0u {
            dst[32u * w + firstTrailingBit(emptied)] = 0u;
            emptied &= emptied - 1u;
        }
        var k = 0u;
        if reach != 0u {
            k = atomicAdd(&busy_count, countOneBits(reach));
        }
        while reach != 0u {
            busy_sites[k] = 32u * w + firstTrailingBit(reach);
            reach &= reach - 1u;
            k += 1u;
        }
    }
    workgroupBarrier();
    let busy = atomicLoad(&busy_count);
    for (var k = lid; k < busy; k += THREADS) {
        let i = busy_sites[k];
        if update_site(i) != 0u {
            atomicOr(&out_bits[i / 32u - first_word], 1u << (i & 31u));
        }
    }
    workgroupBarrier();
    let word = first_word + lid;
    if lid < WORDS && word < n {
        var bits = atomicLoad(&out_bits[lid]);
        if HALOS {
            let kept = select((AXIS + 2u) % 3u, (AXIS + 1u) % 3u, PART != 0u);
            bits |= occupancy[kept * n + word] & ~part_bits(word, region);
        }
        occupancy[((AXIS + 1u) % 3u) * n + word] = bits;
    }
    if !REACT {
        return;
    }
    storageBarrier();
    if lid == 0u {
        // The ticket also tells whether any workgroup (this one included: its entries were
        // pushed before the barrier) has recorded overflow this step.
        let done = atomicAdd(&overflow[OVERFLOW_DONE], 1u);
        let last = (done & ~OVERFLOW_PENDING) + 1u == groups.x * groups.y * groups.z;
        let pending = (done & OVERFLOW_PENDING) != 0u;
        if last && !pending {
            atomicStore(&overflow[OVERFLOW_DONE], 0u);
        }
        last_done = select(0u, 1u, last && pending);
    }
    // Only the last workgroup of a step with overflow goes on.
    if workgroupUniformLoad(&last_done) == 0u {
        return;
    }
    storageBarrier();
    if lid == 0u {
        atomicStore(&overflow[OVERFLOW_DONE], 0u);
        resolve_overflow();
    }
}
