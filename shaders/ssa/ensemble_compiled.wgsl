// The direct method with the reaction network compiled in: the launcher
// (crates/model/src/network/gpu_compiled.rs) writes the `network` section below as straight-line
// code for its network, so a thread keeps its counts and propensities in registers (private
// arrays indexed only by constants) and reads no network tables while it runs. It computes the
// same f32 operations in the same order as `run` in ssa/ensemble.wgsl, whose buffers, thread
// records, statistics and random numbers it shares, so the two give identical trajectories;
// the generic kernel reads every rate and stoichiometry from memory and, with one thread per
// trajectory, spends most of its time waiting on those loads.
//!include ssa/ensemble.wgsl

//!generated begin network
// Default body (a network of one species decaying, X -> 0 at rate 1): keeps this file valid on
// its own. Generated code defines the same names.
const NSC: u32 = 1u;
const NRC: u32 = 1u;
var<private> xs: array<u32, NSC>;
var<private> props: array<f32, NRC>;

// Every propensity into `props` and their sum (in reaction order, as `run`).
fn net_propensities() -> f32 {
    var a0 = 0.0;
    props[0] = bitcast<f32>(0x3f800000u) * binom(xs[0], 1u);
    a0 = a0 + props[0];
    return a0;
}

// The reaction whose cumulative propensity (in search order, skipping zeros) first passes
// `goal`; rounding at the top falls back to the last that can fire; NONE if none can.
fn net_select(goal: f32) -> u32 {
    var cumulative = 0.0;
    var fired = 0xFFFFFFFFu;
    if props[0] > 0.0 {
        cumulative = cumulative + props[0];
        fired = 0u;
        if cumulative > goal {
            return fired;
        }
    }
    return fired;
}

// Applies reaction j's net changes, flagging counts at or above COUNT_LIMIT.
fn net_fire(j: u32) {
    switch j {
        case 0u: {
            xs[0] = u32(i32(xs[0]) + -1);
            net_check(xs[0]);
        }
        default: {}
    }
}

// Registers to workgroup memory (where load_counts/store_counts and record_output look) and back.
fn spill() {
    count_set(0u, xs[0]);
}

fn unspill() {
    xs[0] = count_at(0u, 0u);
}
//!generated end network

fn net_check(x: u32) {
    if x >= COUNT_LIMIT {
        atomicOr(&status[ST_OVERFLOW], 1u);
    }
}

@compute @workgroup_size(WG)
fn run_compiled(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = gid.x;
    me = lid;
    if i >= p.chunk_len {
        return;
    }
    let th = i * TH_WORDS;
    var t = vec2<u32>(traj[th], traj[th + 1u]);
    var event = traj[th + 2u];
    var next_out = traj[th + 3u];
    if next_out >= p.n_out {
        return;
    }
    load_counts(i);
    unspill();
    var a0 = 0.0;
    for (var b = 0u; b < p.event_budget; b++) {
        a0 = net_propensities();
        if !(a0 > 0.0) {
            spill();
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }
        let r = event_draw(i, event);
        let t_next = ticks_add(t, ticks_from(-log(1.0 - rng_unit(r.x)) / a0));
        // Outputs passed by this event see the counts before it (only then leave registers).
        if ticks_less(out_time(next_out), t_next) {
            spill();
            next_out = record_until(t_next, next_out, i, event);
            if next_out >= p.n_out {
                break;
            }
        }
        let fired = net_select(rng_unit(r.y) * a0);
        if fired == 0xFFFFFFFFu {
            spill();
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }
        net_fire(fired);
        t = t_next;
        event++;
    }
    spill();
    traj[th] = t.x;
    traj[th + 1u] = t.y;
    traj[th + 2u] = event;
    traj[th + 3u] = next_out;
    traj[th + 5u] = bitcast<u32>(a0);
    store_counts(i);
    if next_out < p.n_out {
        atomicAdd(&status[ST_ACTIVE], 1u);
    }
}
