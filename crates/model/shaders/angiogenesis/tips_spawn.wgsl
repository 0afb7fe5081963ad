//!include common/step.wgsl
//!include angiogenesis/common.wgsl
//!include angiogenesis/walk.wgsl
// Tip cells, part 3 (one thread per tip slot): marks every site each tip visited this step as
// occupied (walking its path again from the start site and number of moves tips_move.wgsl
// recorded in `branch`: the same draws over the same fields give the same sites) and turns
// branch wishes into new tips at slot = count before this step + workgroup offset + rank, so new
// sprouts are numbered in their parents' order whatever the thread timing. Occupancy keeps the
// smallest sprout index at a site (atomicMin), again independent of timing; every marked site
// also gets its bit in `occupied` (atomicOr), which the field update reads, and a site marked for
// the first time is counted in C_OCCUPIED. The parent's and the
// new sprout's ages restart at the time since the trial's moment (branch_restart). CPU
// reference: cpu.rs (tip_commit). Layout of `branch`: see tips_move.wgsl.

const WG: u32 = 64u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read_write> tips: array<Tip>;
@group(1) @binding(2) var<storage, read> branch: array<u32>;
@group(1) @binding(3) var<storage, read_write> occ: array<atomic<u32>>;
@group(1) @binding(4) var<storage, read_write> occupied: array<atomic<u32>>;
@group(1) @binding(5) var<storage, read> c_in: array<f32>;
@group(1) @binding(6) var<storage, read> f_in: array<f32>;
@group(1) @binding(7) var<storage, read> walk_table: array<u32>;
@group(1) @binding(8) var<storage, read_write> counters: array<atomic<u32>>;

// Marks site i as occupied by sprout `id`, counting it the first time (the one thread that finds
// it free).
fn occupy(i: u32, id: u32) {
    if atomicMin(&occ[i], id) == FREE {
        atomicAdd(&counters[C_OCCUPIED], 1u);
    }
    atomicOr(&occupied[i >> 5u], 1u << (i & 31u));
}

// A branching parent's age, and its new sprout's, after a trial during this step: the time since
// the multiple of psi its age passed (age - floor(age / psi) psi, below k), not 0, so the next
// trial comes psi after the branching moment and no step's rest is lost per generation. 0 when
// psi = 0. CPU twin: uniforms.rs (branch_restart).
fn branch_restart(age: f32) -> f32 {
    if p.branch_age <= 0.0 {
        return 0.0;
    }
    return max(age - floor(age * p.trials_per_age) * p.branch_age, 0.0);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let groups_total = (p.max_tips + 63u) / 64u;
    let offsets = 2u * p.max_tips + groups_total;
    let count = branch[offsets + groups_total];
    let i = gid.x;
    if i >= count {
        return;
    }
    let at = walk_at(p, i);
    let moves = branch[at + 1u];
    if moves > 0u {
        var w = walker_start(branch[at], rng_u32x4(step_seed(), step_info.step, i, 1u).x);
        for (var m = 0u; m < moves; m++) {
            occupy(walker_next(&w, i), i);
        }
    }
    occupy(tips[i].site, i);
    let wish = branch[i];
    if wish == 0u {
        return;
    }
    let slot = count + branch[offsets + i / 64u] + branch[p.max_tips + i];
    if slot < p.max_tips {
        let age = branch_restart(tips[i].age);
        tips[slot] = Tip(wish - 1u, age, 1u, i);
        tips[i].age = age;
        occupy(wish - 1u, slot);
    }
}
