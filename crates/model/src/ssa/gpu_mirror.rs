//! CPU mirror of one GPU ensemble thread running the direct method
//! (`shaders/ssa/ensemble.wgsl`, method 0): the same f32 propensities summed in the same order,
//! the same Philox draws keyed by (seed, trajectory, event / 2, stream; an even event takes
//! outputs 0 and 1, an odd one 2 and 3), the same fixed-point time.
//! The one difference is `ln`: the GPU's `log` may differ from Rust's in the last bits, so
//! event times can differ by a few ulps; event choices (which need no transcendental) agree
//! exactly, and a sample can only differ when an event falls within those ulps of an output
//! time. Also measures firing frequencies for the optimized direct method's search order.

use super::gpu_tables::NetTables;
use super::gpu_time::{ticks_add, ticks_from_f32, ticks_to_time, time_to_ticks};
use petri_engine::rng::{philox4x32_10, seed_key, unit};

/// One mirrored trajectory.
#[derive(Clone, Debug, PartialEq)]
pub struct MirrorRun {
    /// `counts[time][species]`.
    pub counts: Vec<Vec<u64>>,
    /// Events taken before each output time.
    pub events: Vec<u32>,
    /// Event times, for judging near-ties with outputs.
    pub event_times: Vec<f64>,
    /// Firings per reaction.
    pub fired: Vec<u64>,
}

fn binom(x: u32, nu: u32) -> f32 {
    let xf = x as f32;
    if nu == 1 {
        return xf;
    }
    xf * (xf - 1.0).max(0.0) * 0.5
}

fn propensity(t: &NetTables, j: usize, x: &[u32]) -> f32 {
    let r = &t.reactions[j];
    let mut a = r.rate;
    for &(s, nu) in &r.reactants {
        if nu > 0 {
            a *= binom(x[s as usize], nu);
        }
    }
    a
}

/// Trajectory `trajectory` of the direct method with `seed`, sampled at `times`; stops early
/// (remaining samples at the last state) after `max_events` events.
pub fn direct_f32(
    t: &NetTables,
    seed: u64,
    trajectory: u32,
    times: &[f64],
    max_events: u64,
) -> MirrorRun {
    let key = seed_key(seed);
    let outs: Vec<u64> = times.iter().map(|&x| time_to_ticks(x)).collect();
    let mut x = t.initial.clone();
    let mut run = MirrorRun {
        counts: Vec::with_capacity(times.len()),
        events: Vec::with_capacity(times.len()),
        event_times: Vec::new(),
        fired: vec![0; t.reactions.len()],
    };
    let mut now = 0u64;
    let mut event = 0u32;
    let record = |run: &mut MirrorRun, x: &[u32], event: u32| {
        run.counts.push(x.iter().map(|&c| c as u64).collect());
        run.events.push(event);
    };
    while run.counts.len() < times.len() {
        let mut a0 = 0.0f32;
        for j in 0..t.reactions.len() {
            a0 += propensity(t, j, &x);
        }
        if a0.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || event as u64 >= max_events {
            while run.counts.len() < times.len() {
                record(&mut run, &x, event);
            }
            break;
        }
        let pair = philox4x32_10([trajectory, event / 2, 0, 0], key);
        let r = match event % 2 {
            0 => [pair[0], pair[1]],
            _ => [pair[2], pair[3]],
        };
        let next = ticks_add(now, ticks_from_f32(-(1.0 - unit(r[0])).ln() / a0));
        while run.counts.len() < times.len() && outs[run.counts.len()] < next {
            record(&mut run, &x, event);
        }
        if run.counts.len() == times.len() {
            break;
        }
        let target = unit(r[1]) * a0;
        let mut cumulative = 0.0f32;
        let mut fired = usize::MAX;
        for &j in &t.order {
            let a = propensity(t, j as usize, &x);
            if a > 0.0 {
                cumulative += a;
                fired = j as usize;
                if cumulative > target {
                    break;
                }
            }
        }
        for &(s, d) in &t.reactions[fired].changes {
            x[s as usize] = (x[s as usize] as i64 + d as i64) as u32;
        }
        run.fired[fired] += 1;
        run.event_times.push(ticks_to_time(next));
        now = next;
        event += 1;
    }
    run
}

/// Reactions sorted by decreasing firing count over one pilot trajectory of at most
/// `max_events` events (ties by index): the optimized direct method's search order.
pub fn frequency_order(t: &NetTables, seed: u64, max_events: u64) -> Vec<u32> {
    let run = direct_f32(t, seed, 0, &[1e9], max_events);
    let mut order: Vec<u32> = (0..t.reactions.len() as u32).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(run.fired[j as usize]));
    order
}
