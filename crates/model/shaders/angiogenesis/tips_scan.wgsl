//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// Tip cells, part 2 (one workgroup): exclusive prefix sum of the per-workgroup wish totals that
// tips_move.wgsl wrote, giving each workgroup the offset of its new tips. Updates the tip count
// (capped at max_tips; the rest counted as overflow) and the branch count, and keeps the count
// before this step for tips_spawn.wgsl. Layout of `branch`: see tips_move.wgsl.

const SWG: u32 = 256u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read_write> branch: array<u32>;
@group(1) @binding(2) var<storage, read_write> counters: array<atomic<u32>>;

var<workgroup> wg_count: u32;
var<workgroup> wg_total: u32;
var<workgroup> scan: array<u32, SWG>;

@compute @workgroup_size(SWG)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        wg_count = atomicLoad(&counters[C_TIPS]);
    }
    let count = workgroupUniformLoad(&wg_count);
    let groups_total = (p.max_tips + 63u) / 64u;
    let totals = 2u * p.max_tips;
    let offsets = totals + groups_total;
    let groups = (count + 63u) / 64u;
    var running = 0u;
    for (var chunk = 0u; chunk < groups; chunk += SWG) {
        let g = chunk + lid;
        var v = 0u;
        if g < groups {
            v = branch[totals + g];
        }
        scan[lid] = v;
        workgroupBarrier();
        for (var off = 1u; off < SWG; off *= 2u) {
            var u = 0u;
            if lid >= off {
                u = scan[lid - off];
            }
            workgroupBarrier();
            scan[lid] += u;
            workgroupBarrier();
        }
        if g < groups {
            branch[offsets + g] = running + scan[lid] - v;
        }
        if lid == SWG - 1u {
            wg_total = scan[lid];
        }
        running += workgroupUniformLoad(&wg_total);
    }
    if lid == 0u {
        let wanted = count + running;
        let used = min(wanted, p.max_tips);
        branch[offsets + groups_total] = count;
        atomicStore(&counters[C_TIPS], used);
        atomicAdd(&counters[C_BRANCHES], used - count);
        atomicAdd(&counters[C_TIP_OVERFLOW], wanted - used);
    }
}
