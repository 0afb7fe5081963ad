//! `petri bench rdme`: lattice site updates per second and simulated seconds per wall hour, on
//! the Min system and on uniform benchmark lattices of growing size and particle count, the CPU
//! reference in the same run, and one device against several on a large lattice. Cases run
//! through the bench harness (`petri_scheduler::bench`): a fixed count of warm-up batches of
//! 64 steps, then the timed steps. One device: the GPU's busy time per step from timestamps
//! (wall time without them), wall-clock figures beside it (the target is simulated seconds per
//! wall hour); several devices: wall time per step (the devices' GPU times beside it).

use super::config::{RdmeConfig, RdmeModel};
use super::cpu::CpuReference;
use super::lattice::initial_lattice;
use super::lattice::Lattice;
use super::options::{SimOptions, Sweeps};
use super::sim::RdmeSim;
use crate::error::Result;
use petri_engine::{BatchTimes, GpuContext, PassTimes, Profiler};
use petri_scheduler::bench::{measure, warmup_iterations, Case, Runs, Sample, Timing};
use petri_scheduler::slabs::FIRST_BATCH;
use serde::Serialize;
use std::path::Path;
use std::time::{Duration, Instant};

/// Steps of one warm-up iteration.
const WARM_UP_BATCH: u64 = 64;

/// Warm-up batches of 64 steps for a lattice of `sites`: about 1e10 site updates (a fraction
/// of a second on an H200 for the Min system, the GPU's clocks up), 4 to 300 batches.
pub fn warmup_batches(sites: u64) -> u32 {
    warmup_iterations(1e10, sites as f64 * WARM_UP_BATCH as f64, 4, 300)
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub label: String,
    pub shape: [u32; 3],
    pub sites: u64,
    pub particles: u64,
    pub steps: u64,
    /// GPU time per step in the timed run itself, working and idle between its batches, from
    /// two timestamps per batch (`BatchTimer`; None without timestamp queries).
    pub gpu_us_per_step: Option<f64>,
    pub gpu_idle_us_per_step: Option<f64>,
    /// GPU time per step of each pass, from a second run with per-pass timestamps (a pass per
    /// dispatch, a wait per batch): they sum to more than the timed run's GPU time, by the
    /// gaps between passes on small lattices and by the profiling's own slowdown on very
    /// large ones (docs/models/rdme.md).
    pub pass_us: Vec<(String, f64)>,
    /// Wall-clock time per step with many steps per submission.
    pub wall_us_per_step: f64,
    /// CPU time per step spent recording and submitting those steps (overlaps the GPU's work).
    pub record_us_per_step: f64,
    pub site_updates_per_s: f64,
    pub simulated_s_per_wall_hour: f64,
    pub cpu_us_per_step: Option<f64>,
    pub speedup_vs_cpu: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DeviceRow {
    pub devices: usize,
    pub shape: [u32; 3],
    pub steps: u64,
    pub wall_ms_per_step: f64,
    /// Parts of the wall time (several devices): stepping until every device's boundary planes
    /// are on the host, writing the halos, load balancing.
    pub stepping_ms_per_step: f64,
    pub exchange_ms_per_step: f64,
    pub balancing_ms_per_step: f64,
    pub speedup: f64,
    pub parallel_efficiency: f64,
    pub final_split: Vec<u32>,
    /// Steps between halo exchanges.
    pub halo_depth: u32,
    /// Boundary moves the balancer made during the timed run.
    pub rebalances: u64,
    pub identical_to_one_device: bool,
    /// The devices' kind of sweep at the end: "occupied", "every-site" or "mixed".
    pub sweeps: &'static str,
    /// Each device's GPU time per step in the timed run itself, from two timestamps per batch
    /// (`BatchTimer`; empty without timestamp queries): working, and idle between its batches
    /// (waiting for the host's halo exchange).
    pub gpu_busy_ms_per_step: Vec<f64>,
    pub gpu_idle_ms_per_step: Vec<f64>,
    /// Each device's GPU time for the simulation's first batch (`first_batch_steps` steps, run
    /// before the clock starts; empty without timestamp queries), timed on its own: after the
    /// GPU idled while the host built the simulation, its first work runs slower
    /// (docs/models/rdme.md, Timing).
    pub first_batch_steps: u32,
    pub first_batch_ms: Vec<f64>,
}

/// A uniform box in the style of the Lattice Microbes benchmarks: one site type, A + B <-> C
/// with fast diffusion, `per_site` particles per site on average (A, B, C in equal thirds).
pub fn uniform_model(shape: [u32; 3], per_site: f64, seed: u64) -> Result<RdmeModel> {
    let sites: f64 = shape.iter().map(|&n| n as f64).product();
    let each = (sites * per_site / 3.0).round() as u64;
    let json = serde_json::json!({
        "model": "rdme",
        "lattice": { "shape": shape, "spacing_m": 3.2e-8 },
        "tau_s": 5e-5,
        "steps": 1000,
        "seed": seed,
        "site_types": ["cytoplasm"],
        "species": ["A", "B", "C"],
        "diffusion": [{ "species": ["A", "B", "C"], "from": ["cytoplasm"], "to": ["cytoplasm"], "d_m2_per_s": 2.5e-12 }],
        "reactions": [
            { "reactants": ["A", "B"], "products": ["C"], "rate": 1e7, "units": "1/(M s)" },
            { "reactants": ["C"], "products": ["A", "B"], "rate": 1.0, "units": "1/s" }
        ],
        "initial": [
            { "species": "A", "count": each }, { "species": "B", "count": each }, { "species": "C", "count": each }
        ]
    });
    let cfg: RdmeConfig = serde_json::from_value(json).expect("well-formed benchmark config");
    cfg.resolve(Path::new("."))
}

/// One device: warm-up batches, then `steps` steps with many steps per submission, timed by
/// the GPU from two timestamps per batch (the wall clock without timestamps; the row's
/// throughput figures are by the wall clock either way).
struct OneDevice {
    sim: RdmeSim,
    steps: u64,
    /// Wall seconds per step, CPU seconds recording and submitting, and the GPU's batch
    /// times, of the last repeat.
    wall_s: f64,
    record_s: f64,
    batches: Vec<BatchTimes>,
}

impl Case for OneDevice {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.sim.advance(WARM_UP_BATCH)?;
        self.sim.wait()
    }

    fn timed(&mut self) -> Result<Sample> {
        let sim = &mut self.sim;
        sim.time_batches();
        let t0 = Instant::now();
        sim.slabs.recording = Duration::ZERO;
        sim.advance(self.steps)?;
        sim.wait()?;
        let wall = Sample::wall_since(t0, self.steps as f64);
        self.wall_s = wall.ns * 1e-9;
        self.record_s = sim.slabs.recording.as_secs_f64();
        self.batches = sim.batch_times()?;
        Ok(match self.batches.first() {
            Some(t) => Sample::gpu(t.busy_ns / self.steps as f64),
            None => wall,
        })
    }
}

/// Times `steps` steps of `model` on one device with the given lattice-pass workgroup size and
/// kind of sweep, and `cpu_steps` of the CPU reference; `warmup` batches of 64 steps first
/// (None: [`warmup_batches`] of the lattice).
#[allow(clippy::too_many_arguments)]
pub fn bench_model(
    ctx: &GpuContext,
    label: &str,
    model: &RdmeModel,
    workgroup: [u32; 2],
    sweeps: Sweeps,
    steps: u64,
    cpu_steps: u64,
    warmup: Option<u32>,
) -> Result<(Timing, BenchRow)> {
    let lattice = initial_lattice(model)?;
    let particles = lattice.species_totals(model.n_species_ids()).iter().sum();
    let options = SimOptions {
        max_steps_per_batch: 1024,
        workgroup,
        sweeps,
        ..SimOptions::default()
    };
    let sim = RdmeSim::new(vec![ctx.clone()], model, &lattice, 0, &options)?;
    let label = format!("{label}, {} sweeps", sim.slabs[0].sweep_kind());
    let sites = model.config.sites();
    let mut case = OneDevice {
        sim,
        steps,
        wall_s: 0.0,
        record_s: 0.0,
        batches: Vec::new(),
    };
    let runs = Runs {
        warmup: warmup.unwrap_or_else(|| warmup_batches(sites)),
        repeats: 1,
    };
    // Wall clock over many steps per submission, and the GPU's share from whole batches.
    let timing = measure(&mut case, runs)?;
    let wall = case.wall_s;
    let record = case.record_s / steps as f64;
    let per_step_us = |ns: f64| ns / 1e3 / steps as f64;
    let gpu = case.batches.first().map(|t| per_step_us(t.busy_ns));
    let gpu_idle = case.batches.first().map(|t| per_step_us(t.idle_ns()));
    let sim = &mut case.sim;

    // Time by pass from per-pass timestamps, in batches that fit the query set.
    let mut pass_us = Vec::new();
    if ctx.has_timestamps() {
        let passes = sim.slabs[0].plan.pass_count() as u32;
        let batch = (2000 / passes)
            .min(options.max_steps_per_batch)
            .min(steps as u32)
            .max(1);
        let by_pass = profile_one_device(sim, steps, batch)?;
        pass_us = by_pass
            .by_label
            .iter()
            .map(|(k, (_, ns))| (k.clone(), ns / 1e3 / steps as f64))
            .collect();
    }

    let mut cpu_us = None;
    if cpu_steps > 0 {
        let mut cpu = CpuReference::new(model, lattice);
        let t0 = Instant::now();
        cpu.run(cpu_steps);
        cpu_us = Some(t0.elapsed().as_secs_f64() * 1e6 / cpu_steps as f64);
    }
    let per_step_s = wall;
    let row = BenchRow {
        label,
        shape: model.config.lattice.shape,
        sites,
        particles,
        steps,
        gpu_us_per_step: gpu,
        gpu_idle_us_per_step: gpu_idle,
        pass_us,
        wall_us_per_step: wall * 1e6,
        record_us_per_step: record * 1e6,
        site_updates_per_s: sites as f64 / per_step_s,
        simulated_s_per_wall_hour: model.config.tau_s / per_step_s * 3600.0,
        speedup_vs_cpu: cpu_us.map(|c| c / (wall * 1e6)),
        cpu_us_per_step: cpu_us,
    };
    Ok((timing, row))
}

/// Device counts of a scaling run on `n` devices: 1, 2, 4, ... and `n` itself.
pub fn device_counts(n: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = (0..).map(|p| 1 << p).take_while(|&k| k < n).collect();
    counts.push(n.max(1));
    counts
}

/// `k` devices: warm-up batches on a copy of the simulation (clocks ramp up, pipelines
/// compile), then the timed run on a new one from the initial lattice and an equal split.
struct Devices<'a> {
    contexts: &'a [GpuContext],
    model: &'a RdmeModel,
    lattice: &'a Lattice,
    options: &'a SimOptions,
    steps: u64,
    warm: Option<RdmeSim>,
    /// The simulation after the last timed run, its GPU times and its first batch's.
    done: Option<(RdmeSim, Vec<BatchTimes>, Vec<BatchTimes>)>,
}

impl Case for Devices<'_> {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        let sim = match &mut self.warm {
            Some(sim) => sim,
            None => self.warm.insert(RdmeSim::new(
                self.contexts.to_vec(),
                self.model,
                self.lattice,
                0,
                self.options,
            )?),
        };
        sim.advance(WARM_UP_BATCH)?;
        sim.wait()
    }

    fn timed(&mut self) -> Result<Sample> {
        self.warm = None;
        self.done = None;
        let mut sim = RdmeSim::new(
            self.contexts.to_vec(),
            self.model,
            self.lattice,
            0,
            self.options,
        )?;
        // The lattice's upload (queued buffer writes, 1 GB at 256x256x1024) goes with the
        // first submission, and a new simulation's first batch runs slow after the GPU idled
        // during the build (once, not per step): finish both before the clock starts, so that
        // the rows time steps, and time that first batch on its own. Every device count runs
        // the same steps.
        sim.wait()?;
        sim.time_batches();
        // One batch: a one-device advance starts with FIRST_BATCH steps, several devices
        // with the halo depth.
        sim.advance(first_batch_steps(self.options) as u64)?;
        sim.wait()?;
        let first = sim.batch_times()?;
        sim.time_batches();
        sim.slabs.timing = Default::default();
        let t0 = Instant::now();
        sim.advance(self.steps)?;
        sim.wait()?;
        let wall = Sample::wall_since(t0, self.steps as f64);
        let gpu = sim.batch_times()?;
        self.done = Some((sim, gpu, first));
        Ok(wall)
    }
}

/// Steps of the first batch, timed on its own before the clock starts.
fn first_batch_steps(options: &SimOptions) -> u32 {
    options.halo_depth.clamp(1, FIRST_BATCH)
}

/// Runs `steps` steps of `model` on 1, 2, 4, ... and all of `contexts` with load balancing on,
/// comparing wall time per step and the final lattices. Each count first runs a warm-up on a
/// copy (clocks ramp up, pipelines compile), then the timed run from the initial lattice and an
/// equal split, the balancer deciding as in any run.
pub fn bench_devices(
    contexts: &[GpuContext],
    model: &RdmeModel,
    steps: u64,
    options: &SimOptions,
    warmup: Option<u32>,
) -> Result<Vec<(Timing, DeviceRow)>> {
    let lattice = initial_lattice(model)?;
    let mut rows = Vec::new();
    let mut reference = None;
    let mut one_device_ms = 0.0;
    let runs = Runs {
        warmup: warmup.unwrap_or_else(|| warmup_batches(model.config.sites())),
        repeats: 1,
    };
    for k in device_counts(contexts.len()) {
        let mut case = Devices {
            contexts: &contexts[..k],
            model,
            lattice: &lattice,
            options,
            steps,
            warm: None,
            done: None,
        };
        let timing = measure(&mut case, runs)?;
        let (sim, gpu, first) = case.done.expect("a timed run");
        let ms = timing.samples_ns[0] * 1e-6;
        let lat = sim.read_lattice()?;
        let timing_parts = sim.slabs.timing.clone();
        let rebalances = sim.slabs.rebalances;
        let final_split = sim.split();
        let halo_depth = sim.halo_depth();
        let sweeps = match sim
            .slabs
            .iter()
            .all(|s| s.sweep_kind() == sim.slabs[0].sweep_kind())
        {
            true => sim.slabs[0].sweep_kind(),
            false => "mixed",
        };
        drop(sim);
        if k == 1 {
            one_device_ms = ms;
            reference = Some(lat.clone());
        }
        let row = DeviceRow {
            devices: k,
            shape: model.config.lattice.shape,
            steps,
            wall_ms_per_step: ms,
            stepping_ms_per_step: timing_parts.stepping.as_secs_f64() * 1e3 / steps as f64,
            exchange_ms_per_step: timing_parts.exchanging.as_secs_f64() * 1e3 / steps as f64,
            balancing_ms_per_step: timing_parts.balancing.as_secs_f64() * 1e3 / steps as f64,
            speedup: one_device_ms / ms,
            parallel_efficiency: one_device_ms / ms / k as f64,
            final_split,
            halo_depth,
            rebalances,
            identical_to_one_device: reference.as_ref() == Some(&lat),
            sweeps,
            gpu_busy_ms_per_step: gpu.iter().map(|t| t.busy_ns / 1e6 / steps as f64).collect(),
            gpu_idle_ms_per_step: gpu
                .iter()
                .map(|t| t.idle_ns() / 1e6 / steps as f64)
                .collect(),
            first_batch_steps: first_batch_steps(options),
            first_batch_ms: first.iter().map(|t| t.first_ns / 1e6).collect(),
        };
        rows.push((timing, row));
    }
    Ok(rows)
}

/// Pass times of `steps` steps of a one-device `sim`, recorded `batch` steps per submission
/// with a wait for the timestamps after each.
fn profile_one_device(sim: &mut RdmeSim, steps: u64, batch: u32) -> Result<PassTimes> {
    let ctx = sim.slabs[0].ctx.clone();
    let mut profiler = Profiler::new(&ctx, batch * sim.slabs[0].plan.pass_count() as u32);
    let mut total = PassTimes::default();
    let mut done = 0;
    while done < steps {
        let n = (steps - done).min(batch as u64) as u32;
        sim.advance_profiled(n, &mut profiler)?;
        total.add(&profiler.collect(&ctx)?);
        done += n as u64;
    }
    Ok(total)
}
