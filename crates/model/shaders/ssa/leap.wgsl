// Tau-leaping of one large network (10^3..10^6+ reactions), Cao-Gillespie-Petzold 2006 step
// selection, after Komarov et al. 2012: one thread per reaction (propensities, Poisson firing
// counts) and per species (mu, sigma^2 over a species -> reactions CSR, state update), fixed-order
// reductions for a0, the critical a0 and the tau minimum, and every decision on the GPU in a
// small control buffer, so that many leap attempts are recorded per submission with no readback.
// Launcher and table layout: crates/model/src/ssa/gpu_leap.rs.
//
// One attempt is one step of the launcher's step plan, seven passes:
//   leap_props   per reaction: a_j, critical part; per-workgroup sums of a and a_crit
//   leap_species per species: mu_i, sigma_i^2 (non-critical reactions), tau bound; workgroup min
//   leap_decide  one workgroup: totals, then tau (leap), an exact SSA step, or idle; picks the
//                critical / SSA reaction with a two-level search over the block sums
//   leap_fire    per reaction: firing count k_j (Poisson for non-critical, 1 for the picked one)
//   leap_apply   per species: x_i + sum_j v_ij k_j into x_new; flags a negative count
//   leap_commit  per species: x = x_new unless flagged
//   leap_finish  one thread: accept (advance t) or reject (halve the leap); next attempt
//
// Random numbers: Philox keyed by (seed, attempt, reaction, stream), counter-based, so the run is
// independent of workgroup size and of how attempts are split over submissions.
//!include common/step.wgsl
//!include common/rng.wgsl
//!include common/poisson.wgsl
//!include common/kinetics.wgsl
//!include ssa/time.wgsl

override WG: u32 = 256u;

struct LeapParams {
    n_species: u32,
    n_reactions: u32,
    n_blocks_rx: u32,
    n_blocks_sp: u32,
    seed_lo: u32,
    seed_hi: u32,
    n_critical: u32,
    _pad0: u32,
    epsilon: f32,
    normal_above: f32,
    ssa_factor: f32,
    _pad1: u32,
    // word offsets into `net`
    off_cons: u32,
    off_rate: u32,
    off_sp_start: u32,
    off_sp_entries: u32,
    off_kinds: u32,
    // word offsets into `state` and `fl`
    off_xnew: u32,
    off_k: u32,
    off_ac: u32,
    off_blk_a: u32,
    off_blk_ac: u32,
    off_blk_tau: u32,
    _pad2: u32,
}

// What the attempts decide and count, one copy for the whole network (mirrored by `LeapControl` in
// gpu_leap.rs). The host writes only `mode`, `stop` and `stopped`, between runs.
struct LeapControl {
    mode: u32,          // MODE_LEAP, MODE_SSA (an exact step) or MODE_IDLE (stop time reached)
    attempt: u32,       // attempts taken: the random numbers' counter
    leaps: u32,
    rejected: u32,
    ssa_steps: u32,
    pick: u32,          // reaction fired once (critical or SSA), NONE for none
    t: vec2<u32>,       // time reached, ticks (ssa/time.wgsl)
    stop: vec2<u32>,    // stop time, ticks
    tau: f32,
    scale: f32,         // leap scale: halved by each rejection, 1 after an accepted attempt
    a0: f32,
    a0c: f32,
    tau1: f32,
    extinct: u32,       // 1 once a0 = 0: nothing can fire any more
    reached: u32,       // 1 when the attempt ends exactly at the stop time
    stopped: u32,       // 1 once the stop time is reached (the host's loop waits for it)
    _pad: vec2<u32>,
}

const MODE_LEAP: u32 = 0u;
const MODE_SSA: u32 = 1u;
const MODE_IDLE: u32 = 2u;
const NONE: u32 = 0xFFFFFFFFu;
const BIG: f32 = 3.4028235e38;

// Group 0 is the scheduler's step info (common/step.wgsl); the random numbers are keyed by
// `control.attempt` instead of the step, since attempts stop counting once the stop time is
// reached.
@group(1) @binding(0) var<uniform> p: LeapParams;
// rx[4j..4j+4] = (s0, nu0, s1, nu1); cons, rates, species CSR and kinds at offsets.
@group(1) @binding(1) var<storage, read> net: array<u32>;
// x (counts), x_new, k (firing counts)
@group(1) @binding(2) var<storage, read_write> state: array<u32>;
// a, a_crit, block sums of both, block minima of tau
@group(1) @binding(3) var<storage, read_write> fl: array<f32>;
@group(1) @binding(4) var<storage, read_write> control: LeapControl;
// Raised by leap_apply when a count would go negative; cleared by leap_finish.
@group(1) @binding(5) var<storage, read_write> negative: atomic<u32>;

var<workgroup> wa: array<f32, WG>;
var<workgroup> wb: array<f32, WG>;
var<workgroup> wpick: u32;

fn idle() -> bool {
    return control.mode == MODE_IDLE;
}

fn propensity(j: u32) -> f32 {
    var a = bitcast<f32>(net[p.off_rate + j]);
    let nu0 = net[4u * j + 1u];
    if nu0 > 0u {
        a = a * binom(state[net[4u * j]], nu0);
    }
    let nu1 = net[4u * j + 3u];
    if nu1 > 0u {
        a = a * binom(state[net[4u * j + 2u]], nu1);
    }
    return a;
}

// L_j < n_c: fewer than n_critical firings left before a consumed reactant runs out.
fn critical(j: u32) -> bool {
    var l = 0xFFFFFFFFu;
    let c = p.off_cons + 4u * j;
    if net[c + 1u] > 0u {
        l = min(l, state[net[c]] / net[c + 1u]);
    }
    if net[c + 3u] > 0u {
        l = min(l, state[net[c + 2u]] / net[c + 3u]);
    }
    return l < p.n_critical;
}

// Fixed-order tree sum (op 0) or min (op 1) of wa within the workgroup; result in wa[0].
fn tree(lid: u32, op: u32) {
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if lid < s {
            if op == 0u {
                wa[lid] = wa[lid] + wa[lid + s];
                wb[lid] = wb[lid] + wb[lid + s];
            } else {
                wa[lid] = min(wa[lid], wa[lid + s]);
            }
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn leap_props(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>) {
    let j = gid.x;
    var a = 0.0;
    var ac = 0.0;
    if !idle() && j < p.n_reactions {
        a = propensity(j);
        if a > 0.0 && critical(j) {
            ac = a;
        }
        fl[j] = a;
        fl[p.off_ac + j] = ac;
    }
    wa[lid] = a;
    wb[lid] = ac;
    tree(lid, 0u);
    if lid == 0u {
        fl[p.off_blk_a + wid.x] = wa[0];
        fl[p.off_blk_ac + wid.x] = wb[0];
    }
}

@compute @workgroup_size(WG)
fn leap_species(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                @builtin(workgroup_id) wid: vec3<u32>) {
    let i = gid.x;
    var tau = BIG;
    if !idle() && i < p.n_species {
        let kind = net[p.off_kinds + i];
        if kind > 0u {
            var mu = 0.0;
            var var2 = 0.0;
            for (var e = net[p.off_sp_start + i]; e < net[p.off_sp_start + i + 1u]; e++) {
                let j = net[p.off_sp_entries + 2u * e];
                let a = fl[j];
                if a > 0.0 && fl[p.off_ac + j] == 0.0 {
                    let d = f32(bitcast<i32>(net[p.off_sp_entries + 2u * e + 1u]));
                    mu = mu + d * a;
                    var2 = var2 + d * d * a;
                }
            }
            let x = state[i];
            let bound = max(p.epsilon * f32(x) / g_factor(kind, x), 1.0);
            if mu != 0.0 {
                tau = min(tau, bound / abs(mu));
            }
            if var2 > 0.0 {
                tau = min(tau, bound * bound / var2);
            }
        }
    }
    wa[lid] = tau;
    tree(lid, 1u);
    if lid == 0u {
        fl[p.off_blk_tau + wid.x] = wa[0];
    }
}

// Fixed-order reduction of `n` block values at `off` (op 0 sum, 1 min) by the whole workgroup.
fn reduce_blocks(off: u32, n: u32, op: u32, lid: u32) -> f32 {
    var acc = select(0.0, BIG, op == 1u);
    for (var b = lid; b < n; b += WG) {
        if op == 0u {
            acc = acc + fl[off + b];
        } else {
            acc = min(acc, fl[off + b]);
        }
    }
    wa[lid] = acc;
    wb[lid] = 0.0;
    tree(lid, op);
    let r = wa[0];
    workgroupBarrier();
    return r;
}

// The reaction whose cumulative propensity (array at `off_a`, block sums at `off_blk`) first
// passes `goal`: each thread sums a contiguous run of blocks, thread 0 walks the runs, then the
// blocks of its run, then the reactions of the block. Rounding past the end falls back to the
// last reaction with a positive value. Every thread must call it.
fn pick(off_a: u32, off_blk: u32, goal: f32, lid: u32) -> u32 {
    let per = (p.n_blocks_rx + WG - 1u) / WG;
    var s = 0.0;
    for (var b = lid * per; b < min((lid + 1u) * per, p.n_blocks_rx); b++) {
        s = s + fl[off_blk + b];
    }
    wa[lid] = s;
    workgroupBarrier();
    if lid == 0u {
        var cumulative = 0.0;
        var found = NONE;
        var last = NONE;
        for (var r = 0u; r < WG && found == NONE; r++) {
            if wa[r] <= 0.0 {
                continue;
            }
            if cumulative + wa[r] <= goal {
                cumulative = cumulative + wa[r];
                // remember the last reaction with a > 0 in case rounding runs past the end
                last = r;
                continue;
            }
            for (var b = r * per; b < min((r + 1u) * per, p.n_blocks_rx) && found == NONE; b++) {
                let bs = fl[off_blk + b];
                if bs <= 0.0 {
                    continue;
                }
                if cumulative + bs <= goal {
                    cumulative = cumulative + bs;
                    continue;
                }
                for (var j = b * WG; j < min((b + 1u) * WG, p.n_reactions); j++) {
                    let a = fl[off_a + j];
                    if a > 0.0 {
                        cumulative = cumulative + a;
                        found = j;
                        if cumulative > goal {
                            break;
                        }
                    }
                }
            }
        }
        if found == NONE && last != NONE {
            // past the end by rounding: the last positive reaction of the last positive run
            for (var b = last * per; b < min((last + 1u) * per, p.n_blocks_rx); b++) {
                for (var j = b * WG; j < min((b + 1u) * WG, p.n_reactions); j++) {
                    if fl[off_a + j] > 0.0 {
                        found = j;
                    }
                }
            }
        }
        wpick = found;
    }
    workgroupBarrier();
    return wpick;
}

fn draw(j: u32, stream: u32) -> vec4<u32> {
    return philox4x32_10(vec4<u32>(j, control.attempt, stream, 0u), vec2<u32>(p.seed_lo, p.seed_hi));
}

var<workgroup> wmode: u32;
var<workgroup> wsel: u32;
var<workgroup> wgoal: f32;

@compute @workgroup_size(WG)
fn leap_decide(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        wmode = control.mode;
    }
    // Barriers follow: branch only on workgroup-uniform values.
    if workgroupUniformLoad(&wmode) == MODE_IDLE {
        return;
    }
    let a0 = reduce_blocks(p.off_blk_a, p.n_blocks_rx, 0u, lid);
    let a0c = reduce_blocks(p.off_blk_ac, p.n_blocks_rx, 0u, lid);
    let tau1 = reduce_blocks(p.off_blk_tau, p.n_blocks_sp, 1u, lid) * control.scale;
    if lid == 0u {
        let t = control.t;
        let stop = control.stop;
        var gap = 0.0;
        if ticks_less(t, stop) {
            gap = ticks_diff(stop, t);
        }
        // Reaction index NONE, stream 0: the decision's own draws.
        let r = draw(NONE, 0u);
        // Without a leap or step to take, jump to the stop time (nothing fires).
        var mode = MODE_SSA;
        var tau = max(gap, 0.0);
        var reached = 1u;
        var sel = 0u;
        var goal = 0.0;
        if !(a0 > 0.0) {
            control.extinct = 1u;
        } else if gap > 0.0 {
            if tau1 < p.ssa_factor / a0 {
                // Leaping would gain little: one exact step. Memoryless, so stopping at the
                // stop time when the next event lies beyond it is exact.
                let dt = -log(1.0 - rng_unit(r.x)) / a0;
                if dt < gap {
                    tau = dt;
                    reached = 0u;
                    sel = 1u;
                    goal = rng_unit(r.y) * a0;
                }
            } else {
                var tau2 = BIG;
                if a0c > 0.0 {
                    tau2 = -log(1.0 - rng_unit(r.x)) / a0c;
                }
                mode = MODE_LEAP;
                if gap > min(tau1, tau2) {
                    reached = 0u;
                    tau = min(tau1, tau2);
                    if tau2 <= tau1 {
                        sel = 2u;
                        goal = rng_unit(r.y) * a0c;
                    }
                }
            }
        }
        control.mode = mode;
        control.reached = reached;
        control.tau = tau;
        control.a0 = a0;
        control.a0c = a0c;
        control.tau1 = tau1;
        wsel = sel;
        wgoal = goal;
    }
    let sel = workgroupUniformLoad(&wsel);
    var picked = NONE;
    if sel == 1u {
        picked = pick(0u, p.off_blk_a, wgoal, lid);
    } else if sel == 2u {
        picked = pick(p.off_ac, p.off_blk_ac, wgoal, lid);
    }
    if lid == 0u {
        control.pick = picked;
    }
}

@compute @workgroup_size(WG)
fn leap_fire(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if idle() || j >= p.n_reactions {
        return;
    }
    var k = 0u;
    if control.mode == MODE_LEAP && fl[p.off_ac + j] == 0.0 {
        k = poisson_sample(fl[j] * control.tau, p.normal_above, draw(j, 1u));
    }
    if j == control.pick {
        k = k + 1u;
    }
    state[p.off_k + j] = k;
}

@compute @workgroup_size(WG)
fn leap_apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if idle() || i >= p.n_species {
        return;
    }
    // i32 arithmetic: counts stay below 2^31 (checked on the host at start, flagged here).
    var x = i32(state[i]);
    for (var e = net[p.off_sp_start + i]; e < net[p.off_sp_start + i + 1u]; e++) {
        let k = state[p.off_k + net[p.off_sp_entries + 2u * e]];
        if k > 0u {
            x = x + bitcast<i32>(net[p.off_sp_entries + 2u * e + 1u]) * i32(k);
        }
    }
    if x < 0 {
        atomicOr(&negative, 1u);
    }
    state[p.off_xnew + i] = u32(x);
}

@compute @workgroup_size(WG)
fn leap_commit(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if idle() || i >= p.n_species || atomicLoad(&negative) != 0u {
        return;
    }
    state[i] = state[p.off_xnew + i];
}

@compute @workgroup_size(1)
fn leap_finish() {
    if idle() {
        return;
    }
    let rejected = atomicLoad(&negative) != 0u;
    atomicStore(&negative, 0u);
    control.attempt = control.attempt + 1u;
    if rejected {
        // Never clamp: reject and retry with half the leap (CGP 2006).
        control.rejected = control.rejected + 1u;
        control.scale = control.scale * 0.5;
        return;
    }
    control.scale = 1.0;
    if control.mode == MODE_LEAP {
        control.leaps = control.leaps + 1u;
    } else if control.pick != NONE {
        control.ssa_steps = control.ssa_steps + 1u;
    }
    if control.reached == 1u {
        control.t = control.stop;
        control.mode = MODE_IDLE;
        control.stopped = 1u;
    } else {
        control.t = ticks_add(control.t, ticks_from(control.tau));
        control.mode = MODE_LEAP;
    }
}
