//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// Tip cells, part 2 (one workgroup): mark every tip's site as occupied, then turn branch wishes
// into new tips. New tips take slots in the order of their parents' indices (a workgroup prefix
// sum), so the result does not depend on thread timing. Occupancy keeps the smallest sprout index
// that reached a site (atomicMin), again independent of timing. The parent's age restarts at 0.
// CPU reference: cpu.rs (tip_commit).

const CWG: u32 = 256u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read_write> tips: array<Tip>;
@group(1) @binding(2) var<storage, read_write> flags: array<u32>;
@group(1) @binding(3) var<storage, read_write> occ: array<atomic<u32>>;
@group(1) @binding(4) var<storage, read_write> counters: array<atomic<u32>>;

var<workgroup> wg_count: u32;
var<workgroup> wg_total: u32;
var<workgroup> scan: array<u32, CWG>;

@compute @workgroup_size(CWG)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        wg_count = atomicLoad(&counters[C_TIPS]);
    }
    let count = workgroupUniformLoad(&wg_count);
    for (var i = lid; i < count; i += CWG) {
        atomicMin(&occ[tips[i].site], i);
    }
    var next_slot = count;
    for (var chunk = 0u; chunk < count; chunk += CWG) {
        let i = chunk + lid;
        var want = 0u;
        if i < count && flags[i] != 0u {
            want = 1u;
        }
        scan[lid] = want;
        workgroupBarrier();
        // Inclusive Hillis-Steele scan of the wishes in this chunk.
        for (var off = 1u; off < CWG; off *= 2u) {
            var v = 0u;
            if lid >= off {
                v = scan[lid - off];
            }
            workgroupBarrier();
            scan[lid] += v;
            workgroupBarrier();
        }
        if lid == CWG - 1u {
            wg_total = scan[lid];
        }
        let total = workgroupUniformLoad(&wg_total);
        if want == 1u {
            let slot = next_slot + scan[lid] - 1u;
            if slot < p.max_tips {
                let site = flags[i] - 1u;
                tips[slot] = Tip(site, 0.0, 1u, i);
                tips[i].age = 0.0;
                atomicMin(&occ[site], slot);
            } else {
                atomicAdd(&counters[C_TIP_OVERFLOW], 1u);
            }
            flags[i] = 0u;
        }
        next_slot += total;
        workgroupBarrier();
    }
    if lid == 0u {
        let used = min(next_slot, p.max_tips);
        atomicStore(&counters[C_TIPS], used);
        atomicAdd(&counters[C_BRANCHES], used - count);
    }
}
