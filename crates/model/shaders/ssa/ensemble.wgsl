// Ensembles of a small reaction network: one thread per trajectory (direct method, optimized
// direct method, or Cao-Gillespie-Petzold tau-leaping). Launcher and table layout:
// crates/model/src/ssa/gpu_ensemble.rs; CPU mirror of the direct method: gpu_mirror.rs.
//
// Every thread runs at most `event_budget` events (or leap attempts) per dispatch and keeps its
// state in `traj` between dispatches, so a long run is many short dispatches (the GPU is never
// busy long enough to trip a driver watchdog). Random numbers are Philox keyed by
// (seed, trajectory, event counter, stream): a pure function of the trajectory's own history,
// so results do not depend on workgroup size, chunk size or how events are split over
// dispatches.
//
// Precision: counts are u32, propensities f32: WebGPU's baseline has no f64 (SHADER_F64 is
// optional, missing on many adapters and slow on most consumer GPUs). A propensity is exact
// for small counts and within a few ulps otherwise; the
// selection walks the same f32 values the total was summed from, so rounding can only move an
// event choice at a relative distance of ~1e-7, never pick a reaction that cannot fire. Time is
// a 64-bit fixed-point integer (shaders/ssa/time.wgsl), exact to 2.3e-10 whatever the number
// of steps; each dt only needs f32.
//
// Statistics: when a trajectory passes output time k it adds x and x^2 of every species to
// integer accumulators with atomics (x: 64 bits as two words, x^2: 96 bits as three). Integer
// addition is exact and commutative, so the chunk's sums are exact and independent of thread
// order; only the sums are read back.
//!include common/rng.wgsl
//!include common/poisson.wgsl
//!include common/kinetics.wgsl
//!include ssa/time.wgsl

override WG: u32 = 64u;
// Species slots per thread in workgroup memory (the network's species count).
override NS: u32 = 64u;

struct EnsembleParams {
    n_species: u32,
    n_reactions: u32,
    n_out: u32,
    chunk_len: u32,
    traj_offset: u32,
    seed_lo: u32,
    seed_hi: u32,
    // 0 direct, 1 optimized direct (ODM), 2 tau-leaping
    method: u32,
    event_budget: u32,
    // 1: also write every sample to `samples` (small runs)
    record: u32,
    n_critical: u32,
    odm_refresh: u32,
    epsilon: f32,
    normal_above: f32,
    off_changes: u32,
    off_deps: u32,
    off_species: u32,
    off_order: u32,
    off_times: u32,
    off_counts: u32,
    off_props: u32,
    off_scratch: u32,
    // Most loop iterations per thread per dispatch (software adapters; see `loop_work`).
    work_limit: u32,
    // Output index a thread stops before: n_out, or the end of a span of output times (a
    // checkpoint). A thread paused there has recorded outputs 0..out_stop and keeps, in `traj`,
    // the state it would have gone on from: the next span continues it bitwise.
    out_stop: u32,
}

// Words of one reaction record in `net` (see gpu_ensemble.rs).
const RX_WORDS: u32 = 16u;
// Words of one thread record in `traj`: t_hi, t_lo, event, next_out, tau_scale, a0, exact
// steps left before the next leap check (tau), -.
const TH_WORDS: u32 = 8u;
// Words per (output, species) accumulator: sum x (2), sum x^2 (3).
const SUM_WORDS: u32 = 5u;
// Status words: 0 threads still running after the last `run` dispatch, 1 overflow flag, 2 leaps,
// 3 rejected leaps, 4 SSA steps, 5 done flag (`done`).
const ST_ACTIVE: u32 = 0u;
const ST_OVERFLOW: u32 = 1u;
const ST_LEAPS: u32 = 2u;
const ST_REJECTED: u32 = 3u;
const ST_SSA: u32 = 4u;
const ST_DONE: u32 = 5u;
// Counts at or above this are refused (flagged): propensities are f32 and x^2 must fit 64 bits.
const COUNT_LIMIT: u32 = 0x40000000u;
// Random stream of the time and selection draws; Poisson draws of reaction j use stream j + 1.
const STREAM_EVENT: u32 = 0u;
// Tau-leaping: exact steps instead of a leap when tau' < SSA_FACTOR / a0, SSA_STEPS of them.
const SSA_FACTOR: f32 = 10.0;
const SSA_STEPS: u32 = 100u;

@group(1) @binding(0) var<uniform> p: EnsembleParams;
@group(1) @binding(1) var<storage, read> net: array<u32>;
@group(1) @binding(2) var<storage, read_write> traj: array<u32>;
@group(1) @binding(3) var<storage, read_write> sums: array<atomic<u32>>;
@group(1) @binding(4) var<storage, read_write> samples: array<u32>;
@group(1) @binding(5) var<storage, read_write> status: array<atomic<u32>>;

// Loop iterations this thread has run in this dispatch. Mesa's llvmpipe (lavapipe) ends every
// loop of an invocation once 65535 loop iterations in total have run (its guard against
// hangs), which silently cut reaction searches short in long dispatches; so every loop here
// counts its iterations and `run` ends the dispatch early, state saved, past `work_limit`.
var<private> loop_work: u32;

fn draw(i: u32, event: u32, stream: u32) -> vec4<u32> {
    // Philox's 10-round loop.
    loop_work += 10u;
    return philox4x32_10(vec4<u32>(p.traj_offset + i, event, stream, 0u), vec2<u32>(p.seed_lo, p.seed_hi));
}

// The two uniforms (as u32) of event `event` (an exact step or a leap attempt): one Philox call
// of stream STREAM_EVENT at counter event / 2 serves two consecutive events, x, y for the even
// one and z, w for the odd one. Philox (with 32-bit multiplies emulated in 16-bit halves) is
// most of the cost of an exact step on a small network; the last call is kept per thread.
var<private> event_pair: vec4<u32>;
var<private> event_pair_of: u32 = 0xFFFFFFFFu;

fn event_draw(i: u32, event: u32) -> vec2<u32> {
    let half = event >> 1u;
    if half != event_pair_of {
        event_pair = draw(i, half, STREAM_EVENT);
        event_pair_of = half;
    }
    return select(event_pair.zw, event_pair.xy, (event & 1u) == 0u);
}

// A thread's counts live in workgroup memory during a dispatch (fast, dynamically indexable,
// no bank conflicts in this [species][thread] layout) and in `traj` between dispatches.
var<workgroup> wx: array<u32, NS * WG>;
var<private> me: u32;

fn count_at(s: u32, i: u32) -> u32 {
    return wx[s * WG + me];
}

fn count_set(s: u32, x: u32) {
    wx[s * WG + me] = x;
}

fn load_counts(i: u32) {
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        wx[s * WG + me] = traj[p.off_counts + s * p.chunk_len + i];
    }
}

fn store_counts(i: u32) {
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        traj[p.off_counts + s * p.chunk_len + i] = wx[s * WG + me];
    }
}

fn rx(j: u32, w: u32) -> u32 {
    return net[j * RX_WORDS + w];
}

// a_j = c_j * prod C(x_s, nu_s).
fn propensity(j: u32, i: u32) -> f32 {
    var a = bitcast<f32>(rx(j, 4u));
    let nu0 = rx(j, 1u);
    if nu0 > 0u {
        a = a * binom(count_at(rx(j, 0u), i), nu0);
    }
    let nu1 = rx(j, 3u);
    if nu1 > 0u {
        a = a * binom(count_at(rx(j, 2u), i), nu1);
    }
    return a;
}

fn prop_get(j: u32, i: u32) -> f32 {
    return bitcast<f32>(traj[p.off_props + j * p.chunk_len + i]);
}

fn prop_set(j: u32, i: u32, a: f32) {
    traj[p.off_props + j * p.chunk_len + i] = bitcast<u32>(a);
}

// Applies reaction j's net changes `times` times (times >= 1). Returns false (and changes
// nothing) would it exceed COUNT_LIMIT; counts never go below zero here because mass action
// gives the reaction propensity 0 when a reactant is short.
fn fire(j: u32, i: u32) {
    for (var c = rx(j, 5u); c < rx(j, 6u); c++) {
        loop_work++;
        let s = net[p.off_changes + 2u * c];
        let d = bitcast<i32>(net[p.off_changes + 2u * c + 1u]);
        let x = u32(i32(count_at(s, i)) + d);
        if x >= COUNT_LIMIT {
            atomicOr(&status[ST_OVERFLOW], 1u);
        }
        count_set(s, x);
    }
}

fn out_time(k: u32) -> vec2<u32> {
    return vec2<u32>(net[p.off_times + 2u * k], net[p.off_times + 2u * k + 1u]);
}

// Adds x and x^2 of every species to output k's accumulators (and to `samples` when recording).
fn record_output(k: u32, i: u32, event: u32) {
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        let x = count_at(s, i);
        let base = (k * p.n_species + s) * SUM_WORDS;
        let old0 = atomicAdd(&sums[base], x);
        if old0 + x < old0 {
            atomicAdd(&sums[base + 1u], 1u);
        }
        let sq = philox_mulhilo(x, x);
        let old2 = atomicAdd(&sums[base + 2u], sq.y);
        let hi = sq.x + select(0u, 1u, old2 + sq.y < old2);
        let old3 = atomicAdd(&sums[base + 3u], hi);
        if old3 + hi < old3 {
            atomicAdd(&sums[base + 4u], 1u);
        }
        if p.record == 1u {
            samples[(k * (p.n_species + 1u) + s) * p.chunk_len + i] = x;
        }
    }
    if p.record == 1u {
        samples[(k * (p.n_species + 1u) + p.n_species) * p.chunk_len + i] = event;
    }
}

// Records every output time before `t_next` (up to the span's end); returns the next output
// index.
fn record_until(t_next: vec2<u32>, next_out: u32, i: u32, event: u32) -> u32 {
    var end = next_out;
    while end < p.out_stop && ticks_less(out_time(end), t_next) {
        loop_work++;
        end++;
    }
    for (var k = next_out; k < end; k++) {
        loop_work++;
        record_output(k, i, event);
    }
    return end;
}

// The reaction that fires for target u * a0: the first one (in `order`) whose cumulative
// propensity passes the target; rounding at the top falls back to the last that can fire.
fn select_reaction(goal: f32, i: u32, stored: bool, critical_only: bool) -> u32 {
    var cumulative = 0.0;
    var fired = 0xFFFFFFFFu;
    for (var m = 0u; m < p.n_reactions; m++) {
        loop_work++;
        let j = net[p.off_order + m];
        var a: f32;
        if stored {
            a = prop_get(j, i);
        } else {
            a = propensity(j, i);
        }
        if critical_only && !is_critical(j, i, a) {
            continue;
        }
        if a > 0.0 {
            cumulative = cumulative + a;
            fired = j;
            if cumulative > goal {
                break;
            }
        }
    }
    return fired;
}

// ---- tau-leaping (Cao, Gillespie, Petzold 2006) ----

// L_j: how many times reaction j can fire before a reactant it consumes runs out.
fn firings_left(j: u32, i: u32) -> u32 {
    var l = 0xFFFFFFFFu;
    let v0 = rx(j, 10u);
    if v0 > 0u {
        l = min(l, count_at(rx(j, 9u), i) / v0);
    }
    let v1 = rx(j, 12u);
    if v1 > 0u {
        l = min(l, count_at(rx(j, 11u), i) / v1);
    }
    return l;
}

fn is_critical(j: u32, i: u32, a: f32) -> bool {
    return a > 0.0 && firings_left(j, i) < p.n_critical;
}

fn scratch_at(w: u32, s: u32, i: u32) -> u32 {
    return p.off_scratch + (w * p.n_species + s) * p.chunk_len + i;
}

// Poisson(mean) from one Philox draw (common/poisson.wgsl), its search steps counted.
fn poisson(mean: f32, r: vec4<u32>) -> u32 {
    let k = poisson_sample(mean, p.normal_above, r);
    if mean > 0.0 && mean < p.normal_above {
        loop_work += k + 1u;
    }
    return k;
}

// The largest leap satisfying the leap condition for the non-critical reactions (propensities
// already in `props`, summing to a0): the smaller of the species bound of CGP 2006 and the
// propensity bound of Gillespie & Petzold 2003 (`propensity_bound`), as in ssa/tau.rs.
fn leap_tau(i: u32, a0: f32) -> f32 {
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        traj[scratch_at(0u, s, i)] = 0u;
        traj[scratch_at(1u, s, i)] = 0u;
    }
    for (var j = 0u; j < p.n_reactions; j++) {
        loop_work++;
        let a = prop_get(j, i);
        if a <= 0.0 || is_critical(j, i, a) {
            continue;
        }
        for (var c = rx(j, 5u); c < rx(j, 6u); c++) {
            loop_work++;
            let s = net[p.off_changes + 2u * c];
            let d = f32(bitcast<i32>(net[p.off_changes + 2u * c + 1u]));
            let m = scratch_at(0u, s, i);
            let v = scratch_at(1u, s, i);
            traj[m] = bitcast<u32>(bitcast<f32>(traj[m]) + d * a);
            traj[v] = bitcast<u32>(bitcast<f32>(traj[v]) + d * d * a);
        }
    }
    var tau = 3.4028235e38;
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        let kind = net[p.off_species + s];
        if kind == 0u {
            continue;
        }
        let x = count_at(s, i);
        let bound = max(p.epsilon * f32(x) / g_factor(kind, x), 1.0);
        let mu = abs(bitcast<f32>(traj[scratch_at(0u, s, i)]));
        let var2 = bitcast<f32>(traj[scratch_at(1u, s, i)]);
        if mu > 0.0 {
            tau = min(tau, bound / mu);
        }
        if var2 > 0.0 {
            tau = min(tau, bound * bound / var2);
        }
    }
    return min(tau, propensity_bound(i, a0));
}

// The largest leap over which no propensity (zero and critical ones included) is expected to
// change by more than epsilon a0, from the species' drift (scratch 0) and variance (scratch 1)
// over the leap's reactions: the species bound lets a count below g / epsilon change by one
// molecule, which for A + R -> C at R = 0 and a large A switches on a large propensity within
// the leap (see ssa/tau.rs). d a_j / d x_s is the change from one more molecule of s.
fn propensity_bound(i: u32, a0: f32) -> f32 {
    let allowed = p.epsilon * a0;
    var tau = 3.4028235e38;
    for (var j = 0u; j < p.n_reactions; j++) {
        loop_work++;
        // (drift, sd) of a_j over the leap.
        let change = reactant_change(j, 0u, i) + reactant_change(j, 1u, i);
        if change.x != 0.0 {
            tau = min(tau, allowed / abs(change.x));
        }
        if change.y > 0.0 {
            tau = min(tau, allowed * allowed / (change.y * change.y));
        }
    }
    return tau;
}

// The part of a_j's expected change (drift, sd) due to its reactant in slot k (record words
// 2k, 2k + 1): d a_j / d x_s times the drift and sd of x_s.
fn reactant_change(j: u32, k: u32, i: u32) -> vec2<f32> {
    let nu = rx(j, 2u * k + 1u);
    if nu == 0u {
        return vec2<f32>(0.0, 0.0);
    }
    let s = rx(j, 2u * k);
    var partial = bitcast<f32>(rx(j, 4u)) * select(f32(count_at(s, i)), 1.0, nu == 1u);
    let other = 2u * (1u - k);
    let nu_other = rx(j, other + 1u);
    if nu_other > 0u {
        partial = partial * binom(count_at(rx(j, other), i), nu_other);
    }
    let mu = bitcast<f32>(traj[scratch_at(0u, s, i)]);
    let sd = sqrt(bitcast<f32>(traj[scratch_at(1u, s, i)]));
    return partial * vec2<f32>(mu, sd);
}

// Adds `times` firings of reaction j to the per-species change tally (scratch word 2).
fn tally(j: u32, times: u32, i: u32) {
    for (var c = rx(j, 5u); c < rx(j, 6u); c++) {
        loop_work++;
        let s = net[p.off_changes + 2u * c];
        let d = bitcast<i32>(net[p.off_changes + 2u * c + 1u]);
        let w = scratch_at(2u, s, i);
        traj[w] = bitcast<u32>(bitcast<i32>(traj[w]) + d * i32(times));
    }
}

// One leap attempt of length tau: Poisson firings of the non-critical reactions plus one
// firing of `critical` (0xFFFFFFFF for none). Commits and returns true when no count would go
// negative; otherwise changes nothing and returns false (the caller halves the leap).
fn try_leap(tau: f32, critical: u32, event: u32, i: u32) -> bool {
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        traj[scratch_at(2u, s, i)] = 0u;
    }
    for (var j = 0u; j < p.n_reactions; j++) {
        loop_work++;
        let a = prop_get(j, i);
        if a <= 0.0 || is_critical(j, i, a) {
            continue;
        }
        let k = poisson(a * tau, draw(i, event, j + 1u));
        if k > 0u {
            tally(j, k, i);
        }
    }
    if critical != 0xFFFFFFFFu {
        tally(critical, 1u, i);
    }
    var ok = true;
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        let x = add_signed(count_at(s, i), bitcast<i32>(traj[scratch_at(2u, s, i)]));
        if x < 0 {
            ok = false;
        }
    }
    if !ok {
        return false;
    }
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        let x = u32(add_signed(count_at(s, i), bitcast<i32>(traj[scratch_at(2u, s, i)])));
        if x >= COUNT_LIMIT {
            atomicOr(&status[ST_OVERFLOW], 1u);
        }
        count_set(s, x);
    }
    return true;
}

// x + d for a count below COUNT_LIMIT (2^30) and a change of either sign, as i32.
fn add_signed(x: u32, d: i32) -> i32 {
    return i32(x) + d;
}

// ---- entry points ----

@compute @workgroup_size(WG)
fn init(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = gid.x;
    me = lid;
    if i >= p.chunk_len {
        return;
    }
    let th = i * TH_WORDS;
    traj[th] = 0u;
    traj[th + 1u] = 0u;
    traj[th + 2u] = 0u;
    traj[th + 3u] = 0u;
    traj[th + 4u] = bitcast<u32>(1.0);
    traj[th + 5u] = 0u;
    traj[th + 6u] = 0u;
    for (var s = 0u; s < p.n_species; s++) {
        loop_work++;
        traj[p.off_counts + s * p.chunk_len + i] = net[p.off_species + p.n_species + s];
    }
    load_counts(i);
    if p.method == 1u {
        var a0 = 0.0;
        for (var m = 0u; m < p.n_reactions; m++) {
            loop_work++;
            let j = net[p.off_order + m];
            let a = propensity(j, i);
            prop_set(j, i, a);
            a0 = a0 + a;
        }
        traj[th + 5u] = bitcast<u32>(a0);
    }
}

@compute @workgroup_size(WG)
fn run(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = gid.x;
    me = lid;
    loop_work = 0u;
    if i >= p.chunk_len {
        return;
    }
    let th = i * TH_WORDS;
    var t = vec2<u32>(traj[th], traj[th + 1u]);
    var event = traj[th + 2u];
    var next_out = traj[th + 3u];
    var tau_scale = bitcast<f32>(traj[th + 4u]);
    var a0 = bitcast<f32>(traj[th + 5u]);
    var ssa_left = traj[th + 6u];
    // Counted per thread, added once per dispatch (one contended atomic per event would
    // serialise the threads).
    var n_leaps = 0u;
    var n_rejected = 0u;
    var n_ssa = 0u;
    if next_out >= p.out_stop {
        return;
    }
    load_counts(i);
    for (var b = 0u; b < p.event_budget; b++) {
        loop_work++;
        if loop_work >= p.work_limit {
            break;
        }
        if p.method == 0u {
            a0 = 0.0;
            for (var j = 0u; j < p.n_reactions; j++) {
                loop_work++;
                a0 = a0 + propensity(j, i);
            }
        } else if p.method == 1u {
            // Incremental a0 drifts by rounding: re-sum the stored propensities now and then.
            if event % p.odm_refresh == 0u {
                a0 = 0.0;
                for (var m = 0u; m < p.n_reactions; m++) {
                    loop_work++;
                    a0 = a0 + prop_get(net[p.off_order + m], i);
                }
            }
        } else {
            a0 = 0.0;
            for (var j = 0u; j < p.n_reactions; j++) {
                loop_work++;
                let a = propensity(j, i);
                prop_set(j, i, a);
                a0 = a0 + a;
            }
        }
        if !(a0 > 0.0) {
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }
        if p.method == 2u && ssa_left == 0u {
            // Tau-leaping: leap when the leap condition allows more than ~10 SSA steps.
            let tau1 = leap_tau(i, a0) * tau_scale;
            if tau1 >= SSA_FACTOR / a0 {
                let r = event_draw(i, event);
                let a0c = a0_critical(i);
                var tau2 = 3.4028235e38;
                if a0c > 0.0 {
                    tau2 = -log(1.0 - rng_unit(r.x)) / a0c;
                }
                let gap = ticks_diff(out_time(next_out), t);
                let tau = min(min(tau1, tau2), gap);
                var critical = 0xFFFFFFFFu;
                if tau2 <= tau1 && tau2 <= gap {
                    critical = select_reaction(rng_unit(r.y) * a0c, i, true, true);
                }
                let accepted = try_leap(tau, critical, event, i);
                event++;
                if !accepted {
                    tau_scale = tau_scale * 0.5;
                    n_rejected++;
                    continue;
                }
                tau_scale = 1.0;
                n_leaps++;
                if gap <= min(tau1, tau2) {
                    // The leap ended on the output time: record there exactly.
                    t = out_time(next_out);
                    record_output(next_out, i, event);
                    next_out++;
                    if next_out >= p.out_stop {
                        break;
                    }
                } else {
                    t = ticks_add(t, ticks_from(tau));
                }
                continue;
            }
            // Not worth leaping: a run of exact steps before the leap condition is evaluated
            // again (CGP 2006).
            ssa_left = SSA_STEPS;
        }
        if p.method == 2u {
            ssa_left--;
            n_ssa++;
        }
        // One exact step (direct method; also tau-leaping's SSA fallback).
        let r = event_draw(i, event);
        let t_next = ticks_add(t, ticks_from(-log(1.0 - rng_unit(r.x)) / a0));
        next_out = record_until(t_next, next_out, i, event);
        if next_out >= p.out_stop {
            if next_out < p.n_out && p.method == 2u {
                // Paused at the span's end before this step: it is taken, and counted, when
                // the next span goes on from the same state.
                ssa_left++;
                n_ssa--;
            }
            break;
        }
        let fired = select_reaction(rng_unit(r.y) * a0, i, p.method != 0u, false);
        if fired == 0xFFFFFFFFu {
            // Only an ODM total drifting above zero by rounding once all propensities are 0.
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }
        fire(fired, i);
        if p.method == 1u {
            for (var d = rx(fired, 7u); d < rx(fired, 8u); d++) {
                loop_work++;
                let j = net[p.off_deps + d];
                let a = propensity(j, i);
                a0 = a0 + (a - prop_get(j, i));
                prop_set(j, i, a);
            }
        }
        if p.method == 2u {
            // A successful exact step also ends a run of rejections.
            tau_scale = 1.0;
        }
        t = t_next;
        event++;
    }
    traj[th] = t.x;
    traj[th + 1u] = t.y;
    traj[th + 2u] = event;
    traj[th + 3u] = next_out;
    traj[th + 4u] = bitcast<u32>(tau_scale);
    traj[th + 5u] = bitcast<u32>(a0);
    traj[th + 6u] = ssa_left;
    store_counts(i);
    if p.method == 2u {
        atomicAdd(&status[ST_LEAPS], n_leaps);
        atomicAdd(&status[ST_REJECTED], n_rejected);
        atomicAdd(&status[ST_SSA], n_ssa);
    }
    if next_out < p.out_stop {
        atomicAdd(&status[ST_ACTIVE], 1u);
    }
}

// One thread after every `run` dispatch: the scheduler runs `run`, `done` until the done flag
// rises (StepPlan::run_until), which it does once no thread is still running or a count
// overflowed. Clears the count of running threads for the next `run`.
@compute @workgroup_size(1)
fn done() {
    if atomicLoad(&status[ST_ACTIVE]) == 0u || atomicLoad(&status[ST_OVERFLOW]) != 0u {
        atomicStore(&status[ST_DONE], 1u);
    }
    atomicStore(&status[ST_ACTIVE], 0u);
}

fn a0_critical(i: u32) -> f32 {
    var a0c = 0.0;
    for (var j = 0u; j < p.n_reactions; j++) {
        loop_work++;
        let a = prop_get(j, i);
        if is_critical(j, i, a) {
            a0c = a0c + a;
        }
    }
    return a0c;
}
