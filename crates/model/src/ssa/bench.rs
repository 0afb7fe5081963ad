//! `petri bench ssa`: (a) ensembles of a small network (the Vilar oscillator) on the GPU,
//! trajectories per second against the CPU reference timed in the same run; (b) tau-leaping of
//! one large (synthetic) network on the GPU, leaps per second against the CPU tau-leaping
//! reference in the same run. Both run through the bench harness (`petri_scheduler::bench`):
//! one warm-up run, then the timed one.

use super::ensemble::Method;
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble};
use super::gpu_leap::{GpuLeaper, LeapOptions, LeapStats};
use super::{direct, odm, tau};
use crate::error::Result;
use crate::reactions::Network;
use petri_engine::{GpuContext, Profiler};
use petri_scheduler::bench::{measure, Case, Runs, Sample, Timing};
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
) -> Result<Vec<(Timing, EnsembleRow)>> {
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
    let mut case = EnsembleCase {
        ens: GpuEnsemble::new(ctx, net, method, &options)?,
        trajectories: 0,
        times,
        wall_s: 0.0,
    };
    let mut rows = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        case.trajectories = n;
        // Warm-up once, before the first size: pipelines compiled, buffers of this shape
        // allocated once before timing.
        let runs = Runs {
            warmup: (i == 0) as u32,
            repeats: 1,
        };
        let timing = measure(&mut case, runs)?;
        let wall = case.wall_s;
        let row = EnsembleRow {
            method: method.to_string(),
            trajectories: n,
            wall_s: wall,
            gpu_s: case.ens.counters.gpu_ns.map(|ns| ns * 1e-9),
            trajectories_per_s: n as f64 / wall,
            cpu_ms_per_trajectory: cpu_ms,
            speedup_vs_one_core: cpu_ms * 1e-3 * n as f64 / wall,
        };
        rows.push((timing, row));
    }
    Ok(rows)
}

/// One ensemble run of `trajectories`: its GPU time from timestamps (the simulation
/// dispatches), the wall clock without them.
struct EnsembleCase {
    ens: GpuEnsemble,
    trajectories: u64,
    times: Vec<f64>,
    /// Wall seconds of the last timed run.
    wall_s: f64,
}

impl Case for EnsembleCase {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.ens.run(64, 7, &self.times).map(|_| ())
    }

    fn timed(&mut self) -> Result<Sample> {
        // Pipelines and buffers for this size built before the clock starts.
        self.ens.prepare(self.trajectories, &self.times, false)?;
        let t0 = Instant::now();
        self.ens.run(self.trajectories, 42, &self.times)?;
        let wall = Sample::wall_since(t0, 1.0);
        self.wall_s = wall.ns * 1e-9;
        Ok(match self.ens.counters.gpu_ns {
            Some(ns) => Sample::gpu(ns),
            None => wall,
        })
    }
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
) -> Result<(Timing, LeapRow)> {
    let mut case = LeapCase {
        leaper: GpuLeaper::new(ctx, net, 11, &LeapOptions::default())?,
        attempts,
        before: None,
        after: None,
    };
    let timing = measure(
        &mut case,
        Runs {
            warmup: 1,
            repeats: 1,
        },
    )?;
    let (before, after) = (case.before.unwrap(), case.after.unwrap());
    let mut leaper = case.leaper;
    let wall = timing.samples_ns[0] * 1e-9;
    let done = after.attempts - before.attempts;

    // GPU time per attempt: one profiled run (the query set holds 2048 passes).
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
    let row = LeapRow {
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
    };
    Ok((timing, row))
}

/// GPU leap attempts timed by the wall clock, after a warm-up of 8 attempts. (The GPU time per
/// attempt comes from a separate profiled run: timestamps around every pass would slow the
/// timed one.)
struct LeapCase {
    leaper: GpuLeaper,
    attempts: u64,
    /// Counters before and after the last timed run.
    before: Option<LeapStats>,
    after: Option<LeapStats>,
}

impl Case for LeapCase {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.leaper.advance_leaps(8).map(|_| ())
    }

    fn timed(&mut self) -> Result<Sample> {
        let before = self.leaper.stats()?;
        let t0 = Instant::now();
        let after = self.leaper.advance_leaps(self.attempts)?;
        let wall = Sample::wall_since(t0, 1.0);
        (self.before, self.after) = (Some(before), Some(after));
        Ok(wall)
    }
}
