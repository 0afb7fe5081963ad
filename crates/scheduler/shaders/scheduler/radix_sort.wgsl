// One digit pass of a stable LSD radix sort of u32 keys with a u32 payload, in blocks of 2048
// (256 threads, each owning 8 consecutive items). `radix_count` writes each block's digit
// histogram digit-major (counts[digit * blocks + block]), so that an exclusive scan of the
// counts (scheduler/scan.wgsl) gives every (digit, block) its first output slot.
// `radix_scatter_narrow` (digits of up to 4 bits) ranks each item within its block with one
// scan of per-digit counts over threads and writes it to its slot through workgroup memory in
// digit order. `radix_scatter_wide` (up to 8 bits) sorts the block by digit in workgroup
// memory, stably, with two 4-bit splits (low nibble, then high nibble) of (digit, index in
// block) words, then writes each item to its digit's slot plus its place in the digit's run, so
// that neighbouring threads write neighbouring addresses. Ranks are integer prefix sums over fixed positions: the output does
// not depend on thread timing, and equal digits keep their order (stable).
// Workgroup memory of the wide scatter: the block's words and the split's scan, 8 KiB each
// (WebGPU's 16 KiB).
// CPU twin: crates/scheduler/src/primitives/radix_sort.rs (cpu_radix_sort).

const RS_WG: u32 = 256u;
const RS_ITEMS: u32 = 8u;
const RS_BLOCK: u32 = 2048u;
const RS_BINS: u32 = 256u;
const RS_NARROW_BINS: u32 = 16u;
// An item's index in its block takes the low 11 bits of its word, its digit the 8 above.
const RS_INDEX_BITS: u32 = 11u;
// The splits' 16 counters per thread, two to a u32 (16 bits each: a block holds 2048 items).
const RS_SPLIT_WORDS: u32 = 8u;

struct RadixPass {
    shift: u32,
    mask: u32,
    // Counts per block: 16 (digits of up to 4 bits) or 256 (up to 8).
    bins: u32,
    _p1: u32,
}

@group(0) @binding(0) var<uniform> rp: RadixPass;
@group(0) @binding(1) var<storage, read> rs_lens: array<u32>;
@group(0) @binding(2) var<storage, read> keys_in: array<u32>;
@group(0) @binding(3) var<storage, read> vals_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> rs_counts: array<u32>;
@group(0) @binding(7) var<storage, read> rs_offsets: array<u32>;

var<workgroup> rs_hist: array<atomic<u32>, RS_BINS>;
// The narrow scatter's digit starts: in the output, and in the block.
var<workgroup> rs_base: array<u32, RS_NARROW_BINS>;
var<workgroup> rs_local: array<u32, RS_NARROW_BINS>;
// (digit << RS_INDEX_BITS) | index in block, in the order of the split so far.
var<workgroup> rs_items: array<u32, RS_BLOCK>;
// The splits' scan over threads (word w of thread t at w * RS_WG + t); afterwards the first
// sorted position of each digit; then the block's keys and its values on their way out.
var<workgroup> rs_scan: array<u32, 2048>;

fn rs_digit(key: u32) -> u32 {
    return (key >> rp.shift) & rp.mask;
}

fn rs_blocks(n: u32) -> u32 {
    return n / RS_BLOCK + select(0u, 1u, n % RS_BLOCK != 0u);
}

@compute @workgroup_size(256)
fn radix_count(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = rs_lens[0];
    let g = wid.x;
    atomicStore(&rs_hist[lid], 0u);
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        let i = g * RS_BLOCK + k * RS_WG + lid;
        if i < n {
            atomicAdd(&rs_hist[rs_digit(keys_in[i])], 1u);
        }
    }
    workgroupBarrier();
    if lid < rp.bins {
        rs_counts[lid * rs_blocks(n) + g] = atomicLoad(&rs_hist[lid]);
    }
}

// Inclusive scan over the threads of their packed per-digit counts `own` (Hillis-Steele):
// afterwards word w of thread t at rs_scan[w * RS_WG + t] holds the counts of threads 0..=t,
// and thread 255's words the block's totals.
fn rs_scan_threads(lid: u32, own: array<u32, RS_SPLIT_WORDS>) {
    for (var w = 0u; w < RS_SPLIT_WORDS; w++) {
        rs_scan[w * RS_WG + lid] = own[w];
    }
    workgroupBarrier();
    for (var d = 1u; d < RS_WG; d = d * 2u) {
        var t: array<u32, RS_SPLIT_WORDS>;
        if lid >= d {
            for (var w = 0u; w < RS_SPLIT_WORDS; w++) {
                t[w] = rs_scan[w * RS_WG + lid - d];
            }
        }
        workgroupBarrier();
        for (var w = 0u; w < RS_SPLIT_WORDS; w++) {
            rs_scan[w * RS_WG + lid] += t[w];
        }
        workgroupBarrier();
    }
}

// Stable split of the block's first `m` words by the 4 bits at `shift`: thread t's words
// t * 8 .. t * 8 + 7 go, in order, after every word of a smaller nibble and every earlier word
// of the same nibble.
fn rs_split(lid: u32, m: u32, shift: u32) {
    var words: array<u32, RS_ITEMS>;
    var own: array<u32, RS_SPLIT_WORDS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = lid * RS_ITEMS + k;
        if j < m {
            words[k] = rs_items[j];
            let d = (words[k] >> shift) & 15u;
            own[d / 2u] += 1u << (16u * (d % 2u));
        }
    }
    rs_scan_threads(lid, own);
    // This thread's place per nibble: the nibble's start in the block (the totals sit in
    // thread 255) plus the counts of earlier threads.
    var place: array<u32, 16>;
    var run = 0u;
    for (var d = 0u; d < 16u; d++) {
        let half = 16u * (d % 2u);
        let word = d / 2u;
        let total = (rs_scan[word * RS_WG + RS_WG - 1u] >> half) & 0xffffu;
        let before = ((rs_scan[word * RS_WG + lid] - own[word]) >> half) & 0xffffu;
        place[d] = run + before;
        run += total;
    }
    // Everyone has read its words and the scan: the block can be rewritten in place.
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        if lid * RS_ITEMS + k < m {
            let d = (words[k] >> shift) & 15u;
            rs_items[place[d]] = words[k];
            place[d] += 1u;
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(256)
fn radix_scatter_wide(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = rs_lens[0];
    let g = wid.x;
    let first = g * RS_BLOCK;
    let m = min(n - min(n, first), RS_BLOCK);
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < m {
            rs_items[j] = (rs_digit(keys_in[first + j]) << RS_INDEX_BITS) | j;
        }
    }
    workgroupBarrier();
    rs_split(lid, m, RS_INDEX_BITS);
    rs_split(lid, m, RS_INDEX_BITS + 4u);
    // Where each digit's run starts in the sorted block.
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < m {
            let d = rs_items[j] >> RS_INDEX_BITS;
            if j == 0u || (rs_items[j - 1u] >> RS_INDEX_BITS) != d {
                rs_scan[d] = j;
            }
        }
    }
    workgroupBarrier();
    let blocks = rs_blocks(n);
    var dest: array<u32, RS_ITEMS>;
    var src: array<u32, RS_ITEMS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < m {
            let word = rs_items[j];
            let d = word >> RS_INDEX_BITS;
            src[k] = word & ((1u << RS_INDEX_BITS) - 1u);
            dest[k] = rs_offsets[d * blocks + g] + j - rs_scan[d];
        }
    }
    // Keys, then values, through workgroup memory: read from the block in order (coalesced),
    // written in digit order (runs of neighbouring addresses).
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < m {
            rs_scan[j] = keys_in[first + j];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        if k * RS_WG + lid < m {
            keys_out[dest[k]] = rs_scan[src[k]];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < m {
            rs_scan[j] = vals_in[first + j];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        if k * RS_WG + lid < m {
            vals_out[dest[k]] = rs_scan[src[k]];
        }
    }
}

// Digits of up to 4 bits: one split of the block, read from memory as it goes.
@compute @workgroup_size(256)
fn radix_scatter_narrow(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = rs_lens[0];
    let g = wid.x;
    if lid < RS_NARROW_BINS {
        rs_base[lid] = rs_offsets[lid * rs_blocks(n) + g];
    }
    // This thread's items and its count per digit (packed two to a word).
    let first = g * RS_BLOCK + lid * RS_ITEMS;
    var keys: array<u32, RS_ITEMS>;
    var digits: array<u32, RS_ITEMS>;
    var own: array<u32, RS_SPLIT_WORDS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        let i = first + k;
        if i < n {
            keys[k] = keys_in[i];
            let d = rs_digit(keys[k]);
            digits[k] = d;
            own[d / 2u] += 1u << (16u * (d % 2u));
        }
    }
    rs_scan_threads(lid, own);
    // Exclusive: the counts of earlier threads, per digit.
    var rank: array<u32, RS_SPLIT_WORDS>;
    for (var w = 0u; w < RS_SPLIT_WORDS; w++) {
        rank[w] = rs_scan[w * RS_WG + lid] - own[w];
    }
    // Where each digit's run starts within the block (the block's totals sit in thread 255).
    if lid == 0u {
        var run = 0u;
        for (var d = 0u; d < RS_NARROW_BINS; d++) {
            rs_local[d] = run;
            run += (rs_scan[(d / 2u) * RS_WG + RS_WG - 1u] >> (16u * (d % 2u))) & 0xffffu;
        }
    }
    workgroupBarrier();
    // The block in digit order in workgroup memory (reusing rs_scan), so that consecutive
    // threads write consecutive addresses of each digit's run: keys first, then values.
    var local_pos: array<u32, RS_ITEMS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        if first + k < n {
            let d = digits[k];
            let half = 16u * (d % 2u);
            local_pos[k] = rs_local[d] + ((rank[d / 2u] >> half) & 0xffffu);
            rank[d / 2u] += 1u << half;
            rs_scan[local_pos[k]] = keys[k];
        }
    }
    workgroupBarrier();
    let in_block = min(n - min(n, g * RS_BLOCK), RS_BLOCK);
    var dest: array<u32, RS_ITEMS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < in_block {
            let key = rs_scan[j];
            let d = rs_digit(key);
            dest[k] = rs_base[d] + j - rs_local[d];
            keys_out[dest[k]] = key;
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        if first + k < n {
            rs_scan[local_pos[k]] = vals_in[first + k];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < in_block {
            vals_out[dest[k]] = rs_scan[j];
        }
    }
}
