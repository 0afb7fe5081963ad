// Exclusive prefix sum of u32 (wrapping), any length, in levels of blocks of 2048 (256 threads
// x 8 consecutive items each). Reduce-then-scan: `scan_reduce` writes each block's sum of level
// l as level l+1's data; the top level (one block) is scanned by `scan_down` with offset 0 and
// writes the total; then `scan_down` scans every lower level's blocks, starting each block at
// its (already scanned) entry of the level above. Level 0 reads `s_in` and writes `s_out`;
// higher levels live in `s_scratch` and are scanned in place. Integer sums, so the result is
// exact and independent of the order. CPU twin: primitives/scan.rs (cpu_exclusive_scan).

const SCAN_WG: u32 = 256u;
const SCAN_ITEMS: u32 = 8u;
const SCAN_BLOCK: u32 = 2048u;

struct ScanLevel {
    // 0: data in s_in / s_out; above: in s_scratch at data_off.
    level: u32,
    // This level's length: s_lens[len_slot].
    len_slot: u32,
    data_off: u32,
    // Offset in s_scratch of the level above (this level's block sums).
    sums_off: u32,
    // 1 for the top level: one block, offset 0, writes the total.
    top: u32,
    _p0: u32,
    _p1: u32,
    _p2: u32,
}

@group(0) @binding(0) var<uniform> sl: ScanLevel;
@group(0) @binding(1) var<storage, read> s_lens: array<u32>;
@group(0) @binding(2) var<storage, read> s_in: array<u32>;
@group(0) @binding(3) var<storage, read_write> s_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> s_scratch: array<u32>;
@group(0) @binding(5) var<storage, read_write> s_total: array<u32>;

var<workgroup> s_block: array<u32, SCAN_BLOCK>;
var<workgroup> s_sums: array<u32, SCAN_WG>;

fn scan_load(i: u32, len: u32) -> u32 {
    if i >= len {
        return 0u;
    }
    if sl.level == 0u {
        return s_in[i];
    }
    return s_scratch[sl.data_off + i];
}

fn scan_store(i: u32, v: u32) {
    if sl.level == 0u {
        s_out[i] = v;
    } else {
        s_scratch[sl.data_off + i] = v;
    }
}

// Loads block `g` (coalesced) and returns the sum of this thread's 8 consecutive items.
fn scan_load_block(g: u32, lid: u32, len: u32) -> u32 {
    let base = g * SCAN_BLOCK;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        s_block[k * SCAN_WG + lid] = scan_load(base + k * SCAN_WG + lid, len);
    }
    workgroupBarrier();
    var sum = 0u;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        sum += s_block[lid * SCAN_ITEMS + k];
    }
    return sum;
}

// Inclusive scan of one value per thread over the workgroup (Hillis-Steele); afterwards
// s_sums[SCAN_WG - 1] holds the total.
fn scan_workgroup(lid: u32, v: u32) -> u32 {
    s_sums[lid] = v;
    workgroupBarrier();
    for (var d = 1u; d < SCAN_WG; d = d * 2u) {
        var t = 0u;
        if lid >= d {
            t = s_sums[lid - d];
        }
        workgroupBarrier();
        s_sums[lid] += t;
        workgroupBarrier();
    }
    return s_sums[lid];
}

@compute @workgroup_size(256)
fn scan_reduce(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let len = s_lens[sl.len_slot];
    let sum = scan_load_block(wid.x, lid, len);
    let incl = scan_workgroup(lid, sum);
    if lid == SCAN_WG - 1u {
        s_scratch[sl.sums_off + wid.x] = incl;
    }
}

@compute @workgroup_size(256)
fn scan_down(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let len = s_lens[sl.len_slot];
    let g = wid.x;
    let sum = scan_load_block(g, lid, len);
    let incl = scan_workgroup(lid, sum);
    var run = incl - sum;
    if sl.top == 0u {
        run += s_scratch[sl.sums_off + g];
    } else if lid == SCAN_WG - 1u {
        s_total[0] = incl;
    }
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        let j = lid * SCAN_ITEMS + k;
        let v = s_block[j];
        s_block[j] = run;
        run += v;
    }
    workgroupBarrier();
    let base = g * SCAN_BLOCK;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        let i = base + k * SCAN_WG + lid;
        if i < len {
            scan_store(i, s_block[k * SCAN_WG + lid]);
        }
    }
}
