//!include common/step.wgsl
//!include common/rng.wgsl
//!include angiogenesis/common.wgsl
//!include angiogenesis/walk.wgsl
// Tip cells, part 1: each alive tip walks through the step (walk.wgsl: a Poisson number of
// events, each a move along d with probability w_d / L, w_d A&C's move coefficients clipped at 0
// with none through the walls). A tip that steps onto another sprout's site (one not of its
// family: itself, its parent, its children), or with capture next to one, stops there
// (anastomosis: a loop closes, meets_other_sprout); one that
// enters the tumour stops (in_tumour). Each move appends a vessel segment; the tip's start site
// and number of moves go to `branch` (walk_at), from which tips_spawn.wgsl walks the path again
// to mark its sites. Occupancy is read as it was before the step. Each time its sprout age passes a
// multiple of psi (branch_age), a tip has one branching trial (so results do not depend on the
// step): it branches with A&C's chance Pb(c) if the local endothelial density is high enough
// (dense_enough, its own trail of this step counted) and a neighbour is free, into a free
// neighbour chosen
// uniformly: it only records the wish here, with its rank among the wishes of its workgroup
// (a workgroup prefix sum) and the workgroup's total; tips_scan.wgsl and tips_spawn.wgsl then
// allocate the new tips in parent order. Layout of `branch` (T = max_tips, G = T/64 groups):
// [0, T) wish (site + 1, or 0), [T, 2T) rank, [2T, 2T + G) group totals, [2T + G, 2T + 2G]
// group offsets and the count before the step, then per tip slot its step's start site and
// number of moves (walk_at).
// Random numbers: the walk's (walk.wgsl), and Philox(seed, step, tip index, stream 1) .y, .z
// for branching. CPU reference: cpu.rs (tip_move).

const WG: u32 = 64u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> c_in: array<f32>;
@group(1) @binding(2) var<storage, read> f_in: array<f32>;
@group(1) @binding(3) var<storage, read> occ: array<u32>;
@group(1) @binding(4) var<storage, read_write> tips: array<Tip>;
@group(1) @binding(5) var<storage, read_write> branch: array<u32>;

var<workgroup> wg_count: u32;
var<workgroup> wish_scan: array<u32, WG>;
@group(1) @binding(6) var<storage, read_write> segments: array<vec4<u32>>;
@group(1) @binding(7) var<storage, read_write> counters: array<atomic<u32>>;
@group(1) @binding(8) var<storage, read> walk_table: array<u32>;

// A&C's branching probability Pb(c) of one trial (params.rs: BRANCH_LEVELS).
fn branch_probability(c: f32) -> f32 {
    if c < 0.25 { return 0.0; }
    if c < 0.45 { return 0.2; }
    if c < 0.6 { return 0.3; }
    if c < 0.68 { return 0.4; }
    return 1.0;
}

// One branching trial per psi of sprout age: whether the age passed a multiple of psi this
// step (every step when psi = 0). CPU twin: uniforms.rs (branch_trial).
fn branch_trial(before: f32, after: f32) -> bool {
    return p.branch_age <= 0.0
        || floor(after * p.trials_per_age) > floor(before * p.trials_per_age);
}

// Whether sprout `owner` is tip t, t's parent or a child of t: no anastomosis within a family.
// A tip's `parent` is written only when it is spawned, so reading another tip's is race-free.
fn kin(t: u32, parent: u32, owner: u32) -> bool {
    return owner == t || owner == parent || tips[owner].parent == t;
}

// Whether tip t (of sprout `parent`), entering `site`, meets another sprout's trail: on the site
// itself, or, with capture on, on a face neighbour of it (cells one site apart touch).
fn meets_other_sprout(t: u32, parent: u32, site: u32) -> bool {
    let last = select(0u, 6u, p.capture != 0u);
    for (var d = 0u; d <= last; d++) {
        let j = neighbour(site, d);
        if j != FREE {
            let owner = occ[j];
            if owner != FREE && !kin(t, parent, owner) {
                return true;
            }
        }
    }
    return false;
}

// Bit of site j in the 3x3x3 block around `centre` ((dx+1) + 3(dy+1) + 9(dz+1)), or 0 outside it.
fn block_bit(centre: u32, j: u32) -> u32 {
    let d = vec3<i32>(site_coords(p, j)) - vec3<i32>(site_coords(p, centre));
    if any(abs(d) > vec3<i32>(1)) {
        return 0u;
    }
    return 1u << u32((d.x + 1) + 3 * (d.y + 1) + 9 * (d.z + 1));
}

// The sites of the block around `centre` that tip t's walk passed through this step and
// occupancy does not hold yet (its trail of this step, marked only after it), as block bits:
// the walk again from its start (the same draws over the same fields).
fn fresh_trail(t: u32, start: u32, moves: u32, count_draw: u32, centre: u32) -> u32 {
    var trail = 0u;
    var w = walker_start(start, count_draw);
    for (var m = 0u; m < moves; m++) {
        let s1 = walker_next(&w, t);
        if occ[s1] == FREE {
            trail |= block_bit(centre, s1);
        }
    }
    return trail;
}

// A&C's density condition: c times the occupied sites of the 3x3x3 block around the site (3x3
// in 2D; inside the grid; the site included), the tip's trail of this step among them,
// exceeds n_b. Always true for n_b = 0.
fn dense_enough(site: u32, trail: u32) -> bool {
    if p.branch_density <= 0.0 {
        return true;
    }
    let q = site_coords(p, site);
    let lo = vec3<u32>(max(q, vec3<u32>(1u)) - vec3<u32>(1u));
    let hi = min(q + vec3<u32>(1u), vec3<u32>(p.nx, p.ny, p.nz) - vec3<u32>(1u));
    var occupied = countOneBits(trail);
    for (var z = lo.z; z <= hi.z; z++) {
        for (var y = lo.y; y <= hi.y; y++) {
            for (var x = lo.x; x <= hi.x; x++) {
                occupied += select(0u, 1u, occ[site_index(p, x, y, z)] != FREE);
            }
        }
    }
    return c_in[site] * f32(occupied) > p.branch_density;
}

// Whether neighbour j (FREE: outside the grid) of the tip's site can take a new sprout: inside
// the grid, unoccupied, and not on the tip's trail of this step.
fn free_for_sprout(j: u32, site: u32, trail: u32) -> bool {
    return j != FREE && occ[j] == FREE && (trail & block_bit(site, j)) == 0u;
}

@compute @workgroup_size(WG)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    if lid == 0u {
        wg_count = atomicLoad(&counters[C_TIPS]);
    }
    let count = workgroupUniformLoad(&wg_count);
    let t = gid.x;
    var wish = 0u;
    if t < count {
        wish = move_tip(t);
    }
    // Rank of this wish among the workgroup's wishes: inclusive Hillis-Steele scan.
    let wants = select(0u, 1u, wish != 0u);
    wish_scan[lid] = wants;
    workgroupBarrier();
    for (var off = 1u; off < WG; off *= 2u) {
        var v = 0u;
        if lid >= off {
            v = wish_scan[lid - off];
        }
        workgroupBarrier();
        wish_scan[lid] += v;
        workgroupBarrier();
    }
    if t < p.max_tips {
        branch[t] = wish;
        branch[p.max_tips + t] = wish_scan[lid] - wants;
    }
    if lid == WG - 1u {
        branch[2u * p.max_tips + wid.x] = wish_scan[lid];
    }
}

// Records tip t's start site and number of moves this step for tips_spawn.wgsl.
fn record_walk(t: u32, start: u32, moves: u32) {
    let at = walk_at(p, t);
    branch[at] = start;
    branch[at + 1u] = moves;
}

// Moves tip t (if alive) and returns its branch wish: the new sprout's site + 1, or 0.
fn move_tip(t: u32) -> u32 {
    var tip = tips[t];
    if tip.alive == 0u {
        record_walk(t, tip.site, 0u);
        return 0u;
    }
    var wish = 0u;
    let start = tip.site;
    let rnd = rng_u32x4(step_seed(), step_info.step, t, 1u);
    var w = walker_start(start, rnd.x);
    var moves = 0u;
    loop {
        let s1 = walker_next(&w, t);
        if s1 == FREE {
            break;
        }
        moves += 1u;
        if p.anastomosis != 0u && meets_other_sprout(t, tip.parent, s1) {
            tip.alive = 0u;
            atomicAdd(&counters[C_ANASTOMOSES], 1u);
        }
        let slot = atomicAdd(&counters[C_SEGMENTS], 1u);
        if slot < p.max_segments {
            segments[slot] = vec4<u32>(tip.site, s1, t, step_info.step);
        } else {
            atomicAdd(&counters[C_SEGMENT_OVERFLOW], 1u);
        }
        if tip.alive != 0u && in_tumour(p, s1) {
            tip.alive = 0u;
            atomicAdd(&counters[C_REACHED], 1u);
        }
        tip.site = s1;
        if tip.alive == 0u {
            break;
        }
    }
    record_walk(t, start, moves);
    let age_before = tip.age;
    tip.age = tip.age + p.k;
    if p.branching != 0u && tip.alive != 0u && branch_trial(age_before, tip.age) {
        let trail = fresh_trail(t, start, moves, rnd.x, tip.site);
        if rng_unit(rnd.y) < branch_probability(c_in[tip.site]) && dense_enough(tip.site, trail) {
            var free_dirs = 0u;
            for (var d = 1u; d < 7u; d++) {
                if free_for_sprout(neighbour(tip.site, d), tip.site, trail) {
                    free_dirs += 1u;
                }
            }
            if free_dirs > 0u {
                var pick = min(u32(rng_unit(rnd.z) * f32(free_dirs)), free_dirs - 1u);
                for (var d = 1u; d < 7u; d++) {
                    let j = neighbour(tip.site, d);
                    if free_for_sprout(j, tip.site, trail) {
                        if pick == 0u {
                            wish = j + 1u;
                            break;
                        }
                        pick -= 1u;
                    }
                }
            }
        }
    }
    tips[t] = tip;
    return wish;
}
