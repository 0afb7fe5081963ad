// One 4-bit digit pass of a stable LSD radix sort of u32 keys with a u32 payload, in blocks of
// 2048 (256 threads, each owning 8 consecutive items). `radix_count` writes each block's digit
// histogram digit-major (counts[digit * blocks + block]), so that an exclusive scan of the
// counts (scheduler/scan.wgsl) gives every (digit, block) its first output slot; `radix_scatter`
// ranks each item within its block by (thread, item) order, i.e. input order, and writes it to
// that slot plus its rank, through workgroup memory in digit order so that neighbouring threads
// write neighbouring addresses. Ranks are integer prefix sums over fixed positions: the output does
// not depend on thread timing, and equal digits keep their order (stable).
// CPU twin: crates/scheduler/src/primitives/radix_sort.rs (cpu_radix_sort).

const RS_WG: u32 = 256u;
const RS_ITEMS: u32 = 8u;
const RS_BLOCK: u32 = 2048u;
const RS_BINS: u32 = 16u;
// Two digits' counts per u32, 16 bits each (a block's count per digit is at most 2048).
const RS_WORDS: u32 = 8u;

struct RadixPass {
    shift: u32,
    mask: u32,
    _p0: u32,
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
var<workgroup> rs_ranks: array<u32, 2048>;
var<workgroup> rs_base: array<u32, RS_BINS>;
var<workgroup> rs_local: array<u32, RS_BINS>;

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
    if lid < RS_BINS {
        atomicStore(&rs_hist[lid], 0u);
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        let i = g * RS_BLOCK + k * RS_WG + lid;
        if i < n {
            atomicAdd(&rs_hist[rs_digit(keys_in[i])], 1u);
        }
    }
    workgroupBarrier();
    if lid < RS_BINS {
        rs_counts[lid * rs_blocks(n) + g] = atomicLoad(&rs_hist[lid]);
    }
}

@compute @workgroup_size(256)
fn radix_scatter(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = rs_lens[0];
    let g = wid.x;
    if lid < RS_BINS {
        rs_base[lid] = rs_offsets[lid * rs_blocks(n) + g];
    }
    // This thread's items and its count per digit (packed two to a word).
    let first = g * RS_BLOCK + lid * RS_ITEMS;
    var keys: array<u32, RS_ITEMS>;
    var digits: array<u32, RS_ITEMS>;
    var own: array<u32, RS_WORDS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        let i = first + k;
        if i < n {
            keys[k] = keys_in[i];
            let d = rs_digit(keys[k]);
            digits[k] = d;
            own[d / 2u] += 1u << (16u * (d % 2u));
        }
    }
    // Inclusive scan over threads of the packed counts (Hillis-Steele).
    for (var w = 0u; w < RS_WORDS; w++) {
        rs_ranks[w * RS_WG + lid] = own[w];
    }
    workgroupBarrier();
    for (var d = 1u; d < RS_WG; d = d * 2u) {
        var t: array<u32, RS_WORDS>;
        if lid >= d {
            for (var w = 0u; w < RS_WORDS; w++) {
                t[w] = rs_ranks[w * RS_WG + lid - d];
            }
        }
        workgroupBarrier();
        for (var w = 0u; w < RS_WORDS; w++) {
            rs_ranks[w * RS_WG + lid] += t[w];
        }
        workgroupBarrier();
    }
    // Exclusive: the counts of earlier threads, per digit.
    var rank: array<u32, RS_WORDS>;
    for (var w = 0u; w < RS_WORDS; w++) {
        rank[w] = rs_ranks[w * RS_WG + lid] - own[w];
    }
    // Where each digit's run starts within the block (the block's totals sit in thread 255).
    if lid == 0u {
        var run = 0u;
        for (var d = 0u; d < RS_BINS; d++) {
            rs_local[d] = run;
            run += (rs_ranks[(d / 2u) * RS_WG + RS_WG - 1u] >> (16u * (d % 2u))) & 0xffffu;
        }
    }
    workgroupBarrier();
    // The block in digit order in workgroup memory (reusing rs_ranks), so that consecutive
    // threads write consecutive addresses of each digit's run: keys first, then values.
    var local_pos: array<u32, RS_ITEMS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        if first + k < n {
            let d = digits[k];
            let half = 16u * (d % 2u);
            local_pos[k] = rs_local[d] + ((rank[d / 2u] >> half) & 0xffffu);
            rank[d / 2u] += 1u << half;
            rs_ranks[local_pos[k]] = keys[k];
        }
    }
    workgroupBarrier();
    let in_block = min(n - min(n, g * RS_BLOCK), RS_BLOCK);
    var dest: array<u32, RS_ITEMS>;
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < in_block {
            let key = rs_ranks[j];
            let d = rs_digit(key);
            dest[k] = rs_base[d] + j - rs_local[d];
            keys_out[dest[k]] = key;
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        if first + k < n {
            rs_ranks[local_pos[k]] = vals_in[first + k];
        }
    }
    workgroupBarrier();
    for (var k = 0u; k < RS_ITEMS; k++) {
        let j = k * RS_WG + lid;
        if j < in_block {
            vals_out[dest[k]] = rs_ranks[j];
        }
    }
}
