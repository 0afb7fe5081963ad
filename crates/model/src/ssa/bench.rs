//! `petri bench ssa`: (a) ensembles of a small network (the Vilar oscillator) on the GPU,
//! trajectories per second against the CPU reference timed in the same run; (b) tau-leaping of
//! one large (synthetic) network on the GPU, leaps per second against the CPU tau-leaping
//! reference in the same run.

use super::ensemble::Method;
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble};
use super::gpu_leap::{GpuLeaper, LeapOptions};
use super::{direct, odm, tau};
use crate::error::Result;
use crate::reactions::Network;
use petri_engine::{GpuContext, Profiler};
use std::time::Instant;

/// One ensemble size.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EnsembleRow {
    pub method: String,
    pub trajectories: u64,
    pub wall_s: f64,
    /// Sum of the GPU time of the simulation dispatches (timestamps), when available.
    pub gpu_s: Option<f64>,
    pub trajectories_per_s: f64,
    /// Single-threaded CPU reference, same method, ms per trajectory.
    pub cpu_ms_per_trajectory: f64,
    /// CPU time for the same number of trajectories (one core) over the GPU wall time.
    pub speedup_vs_one_core: f64,
}

/// The CPU reference of `method`, one trajectory, single-threaded.
fn cpu_trajectory(net: &Network, method: Method, seed: u64, t_end: f64, times: &[f64]) {
    let samples = match method {
        Method::Direct => direct::simulate_direct(net, seed, t_end, times),
        Method::Odm => odm::simulate_odm(net, seed, t_end, times),
        Method::Tau => tau::simulate_tau(net, seed, t_end, times),
    };
    // Timing only: a trajectory that stops early is timed as far as it ran.
    let _ = std::hint::black_box(samples);
}

/// Times `points` outputs over [0, t_end] for each ensemble size in `sizes` with `options`
/// (timestamps switched on), and `cpu_trajectories` trajectories of the CPU reference (at
/// least one).
#[allow(clippy::too_many_arguments)]
pub fn bench_ensemble(
    ctx: &GpuContext,
    net: &Network,
    method: Method,
    sizes: &[u64],
    t_end: f64,
    points: usize,
    cpu_trajectories: u64,
    options: &EnsembleOptions,
) -> Result<Vec<EnsembleRow>> {
    let times: Vec<f64> = (0..points)
        .map(|k| t_end * k as f64 / (points.max(2) - 1) as f64)
        .collect();
    let t0 = Instant::now();
    let cpu_n = cpu_trajectories.max(1);
    for k in 0..cpu_n {
        cpu_trajectory(net, method, 1000 + k, t_end, &times);
    }
    let cpu_ms = t0.elapsed().as_secs_f64() * 1e3 / cpu_n as f64;

    let options = EnsembleOptions {
        profile: true,
        ..options.clone()
    };
    let mut ens = GpuEnsemble::new(ctx, net, method, &options)?;
    // Warm-up: pipelines compiled, buffers of this shape allocated once before timing.
    ens.run(64, 7, &times)?;
    let mut rows = Vec::new();
    for &n in sizes {
        let t0 = Instant::now();
        ens.run(n, 42, &times)?;
        let wall = t0.elapsed().as_secs_f64();
        rows.push(EnsembleRow {
            method: method.to_string(),
            trajectories: n,
            wall_s: wall,
            gpu_s: ens.counters.gpu_ns.map(|ns| ns * 1e-9),
            trajectories_per_s: n as f64 / wall,
            cpu_ms_per_trajectory: cpu_ms,
            speedup_vs_one_core: cpu_ms * 1e-3 * n as f64 / wall,
        });
    }
    Ok(rows)
}

/// Tau-leaping of one network.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LeapRow {
    pub reactions: usize,
    pub species: usize,
    /// Leap attempts timed on the GPU (accepted, rejected or exact steps).
    pub gpu_attempts: u64,
    pub gpu_leaps: u64,
    pub gpu_wall_s: f64,
    /// GPU time per attempt from timestamps (sum of the seven passes), when available.
    pub gpu_us_per_attempt: Option<f64>,
    pub gpu_attempts_per_s: f64,
    /// CPU tau-leaping reference (`tau.rs`, one core) over a similar stretch of time.
    pub cpu_attempts: u64,
    pub cpu_attempts_per_s: f64,
    pub speedup: f64,
}

/// Times `attempts` GPU leap attempts and about `cpu_attempts` CPU ones on `net`.
pub fn bench_leap(
    ctx: &GpuContext,
    net: &Network,
    attempts: u64,
    cpu_attempts: u64,
) -> Result<LeapRow> {
    let mut leaper = GpuLeaper::new(ctx, net, 11, &LeapOptions::default())?;
    leaper.advance_leaps(8)?;
    let before = leaper.stats()?;
    let t0 = Instant::now();
    let after = leaper.advance_leaps(attempts)?;
    let wall = t0.elapsed().as_secs_f64();
    let done = after.attempts - before.attempts;

    // GPU time per attempt: one profiled submission (the query set holds 2048 passes).
    let mut gpu_us = None;
    if ctx.has_timestamps() {
        let n = (2048 / leaper.passes_per_attempt()).min(attempts.max(1) as u32);
        let mut profiler = Profiler::new(ctx, n * leaper.passes_per_attempt());
        leaper.advance_leaps_profiled(n, &mut profiler)?;
        gpu_us = Some(profiler.collect(ctx)?.busy_ns() / 1e3 / n as f64);
    }

    // The CPU runs for the simulated time the GPU covered per attempt, scaled to cpu_attempts.
    let dt_per_attempt = (after.t - before.t) / done.max(1) as f64;
    let t_end = (dt_per_attempt * cpu_attempts as f64).max(f64::MIN_POSITIVE);
    let t0 = Instant::now();
    let (_, counters) = tau::simulate_tau_counted(net, 5, t_end, &[t_end])?;
    let cpu_wall = t0.elapsed().as_secs_f64();
    let cpu_done = counters.leaps + counters.rejected + counters.ssa_steps;
    let gpu_rate = done as f64 / wall;
    let cpu_rate = cpu_done as f64 / cpu_wall;
    Ok(LeapRow {
        reactions: net.reactions.len(),
        species: net.species.len(),
        gpu_attempts: done,
        gpu_leaps: after.leaps - before.leaps,
        gpu_wall_s: wall,
        gpu_us_per_attempt: gpu_us,
        gpu_attempts_per_s: gpu_rate,
        cpu_attempts: cpu_done,
        cpu_attempts_per_s: cpu_rate,
        speedup: gpu_rate / cpu_rate,
    })
}
