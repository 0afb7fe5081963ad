//! The angiogenesis benchmark: GPU time per step from timestamp queries, effective memory
//! bandwidth of the field update, and the multithreaded CPU reference at the sizes it can do.
//! Cases run through the bench harness (`petri_scheduler::bench`): a fixed count of warm-up
//! batches of 50 steps, then the timed steps.

use super::cpu;
use super::params::{AngioConfig, Coupling};
use super::sim::{AngioSim, SimOptions};
use super::state::AngioState;
use super::uniforms::AngioUniforms;
use crate::error::Result;
use crate::shaders;
use petri_engine::{GpuContext, PassTimes, Profiler};
use petri_scheduler::bench::{measure, warmup_iterations, Case, Runs, Sample, Timing};
use serde::Serialize;
use std::time::Instant;

/// Steps of one warm-up iteration.
const WARM_UP_BATCH: u32 = 50;

/// Warm-up batches of `WARM_UP_BATCH` steps for a grid of `cells`: about 2e10 cell updates
/// (half a second of an H200's work, the GPU's clocks up), 2 to 200 batches.
pub fn warmup_batches(cells: u64) -> u32 {
    warmup_iterations(2e10, cells as f64 * WARM_UP_BATCH as f64, 2, 200)
}

/// Bytes per cell as the reference CUDA 7-point kernel is counted (read n, write n).
pub const COUNTED_BYTES_PER_CELL: f64 = 8.0;
/// Bytes the field update moves per cell to and from device memory, ideally: it reads n, f, c
/// and one occupancy bit and writes n, f, c (the sites it reads twice, around each tile and
/// chunk, are meant to come from the cache).
pub const ACTUAL_BYTES_PER_CELL: f64 = 24.125;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub sizes: Vec<[u32; 3]>,
    /// Timed steps per size (after warm-up).
    pub steps: u32,
    /// The CPU reference runs only up to this many cells.
    pub cpu_max_cells: usize,
    /// CPU steps timed per size.
    pub cpu_steps: u32,
    pub sim: SimOptions,
    pub tips: bool,
    /// Warm-up batches of 50 steps (None: [`warmup_batches`] of the grid).
    pub warmup: Option<u32>,
    /// Timed repeats of `steps` steps (the row's figures are of the last one).
    pub repeats: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub grid: [u32; 3],
    pub cells: u64,
    pub steps: u32,
    /// Whether the GPU times come from timestamp queries (else wall clock).
    pub timestamps: bool,
    /// Field update (the "fields" pass), GPU time per step (ms).
    pub fields_ms: f64,
    /// All passes of a step (field update + tip passes), GPU time per step (ms).
    pub step_ms: f64,
    /// Total GPU time of the timed steps, all passes (s).
    pub total_gpu_s: f64,
    /// Cells per second of the field update.
    pub cell_updates_per_s: f64,
    /// Bandwidth of the field update counted at 8 bytes per cell (GB/s).
    pub bandwidth_counted_gbs: f64,
    /// Bandwidth of the field update at the bytes it really moves (GB/s).
    pub bandwidth_actual_gbs: f64,
    /// Live tips and sprouts at the end.
    pub tips: u32,
    pub sprouts: u32,
    /// Multithreaded CPU reference: ms per field update, and the CPU/GPU ratio.
    pub cpu_ms: Option<f64>,
    pub cpu_threads: usize,
    pub speedup_vs_cpu: Option<f64>,
    /// GPU ms per step of each pass (empty without timestamps).
    pub pass_ms: std::collections::BTreeMap<String, f64>,
}

/// The model's steps: warm-up batches, then `steps` timed steps, profiled by pass where the
/// adapter has timestamps. The figure is the field update's GPU time per step (wall time of
/// all passes without timestamps).
struct StepCase<'a> {
    ctx: &'a GpuContext,
    sim: AngioSim,
    steps: u32,
    max_steps_per_batch: u32,
    /// Pass times and wall seconds of the last timed repeat.
    times: PassTimes,
    wall_s: f64,
}

impl Case for StepCase<'_> {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.sim.advance(self.ctx, WARM_UP_BATCH as u64);
        Ok(self.ctx.wait()?)
    }

    fn timed(&mut self) -> Result<Sample> {
        let (ctx, steps) = (self.ctx, self.steps);
        let passes = self.sim.passes_per_step() as u32;
        let mut times = PassTimes::default();
        let wall = Instant::now();
        if ctx.has_timestamps() {
            let mut profiler = Profiler::new(ctx, 4096 / 2);
            let per_batch = (profiler.room() / passes)
                .min(self.max_steps_per_batch)
                .max(1);
            let mut left = steps;
            while left > 0 {
                let n = left.min(per_batch);
                self.sim.advance_profiled(ctx, n, &mut profiler);
                times.add(&profiler.collect(ctx)?);
                left -= n;
            }
        } else {
            self.sim.advance(ctx, steps as u64);
            ctx.wait()?;
        }
        self.wall_s = wall.elapsed().as_secs_f64();
        self.times = times;
        Ok(match ctx.has_timestamps() {
            true => Sample::gpu(self.fields_s() * 1e9 / steps as f64),
            false => Sample::wall(self.wall_s * 1e9 / steps as f64),
        })
    }
}

impl StepCase<'_> {
    /// Seconds of the field update (the "fields" pass) in the last repeat.
    fn fields_s(&self) -> f64 {
        match self.ctx.has_timestamps() {
            true => {
                self.times
                    .by_label
                    .get("fields")
                    .map(|x| x.1)
                    .unwrap_or(0.0)
                    * 1e-9
            }
            false => self.wall_s,
        }
    }

    /// Seconds of all passes in the last repeat.
    fn total_s(&self) -> f64 {
        match self.ctx.has_timestamps() {
            true => self.times.busy_ns() * 1e-9,
            false => self.wall_s,
        }
    }
}

/// Times the model at `grid`: the harness's timing (field update per step) and the row's own
/// figures.
pub fn bench_size(
    ctx: &GpuContext,
    base: &AngioConfig,
    grid: [u32; 3],
    opts: &BenchOptions,
) -> Result<(Timing, BenchRow)> {
    let mut cfg = base.clone();
    cfg.grid = grid;
    cfg.tips.enabled = opts.tips;
    // Without tips the discrete coupling has no cells and nothing changes: the fields alone are
    // the continuous model's (Darbyshire 2015's benchmark).
    if !opts.tips {
        cfg.coupling = Coupling::Continuous;
    }
    cfg.validate()?;
    let cells = cfg.cells() as u64;
    let mut case = StepCase {
        ctx,
        sim: AngioSim::new(ctx, &cfg, &opts.sim)?,
        steps: opts.steps,
        max_steps_per_batch: opts.sim.max_steps_per_batch,
        times: PassTimes::default(),
        wall_s: 0.0,
    };
    let runs = Runs {
        warmup: opts.warmup.unwrap_or_else(|| warmup_batches(cells)),
        repeats: opts.repeats,
    };
    let timing = measure(&mut case, runs)?;
    let timestamps = ctx.has_timestamps();
    let steps = opts.steps as f64;
    let (fields_s, total_s) = (case.fields_s(), case.total_s());
    let sim = &mut case.sim;
    let obs = sim.observe(ctx)?;
    let per_s = cells as f64 * steps / fields_s;
    // The CPU reference times the same state; read it back only when it runs.
    let cpu_ms = if cfg.cells() <= opts.cpu_max_cells && opts.cpu_steps > 0 {
        Some(cpu_field_ms(
            &cfg,
            sim.k,
            &sim.read_state(ctx)?,
            opts.cpu_steps,
        ))
    } else {
        None
    };
    let cpu_threads = rayon::current_num_threads();
    let fields_ms = fields_s * 1e3 / steps;
    let row = BenchRow {
        grid,
        cells,
        steps: opts.steps,
        timestamps,
        fields_ms,
        step_ms: total_s * 1e3 / steps,
        total_gpu_s: total_s,
        cell_updates_per_s: per_s,
        bandwidth_counted_gbs: per_s * COUNTED_BYTES_PER_CELL * 1e-9,
        bandwidth_actual_gbs: per_s * ACTUAL_BYTES_PER_CELL * 1e-9,
        tips: obs.tips,
        sprouts: obs.sprouts,
        cpu_ms,
        cpu_threads,
        speedup_vs_cpu: cpu_ms.map(|c| c / fields_ms),
        pass_ms: case.times.ms_per_step(steps),
    };
    Ok((timing, row))
}

/// Milliseconds per field update of the multithreaded CPU reference, on the given state.
fn cpu_field_ms(cfg: &AngioConfig, k: f64, state: &AngioState, steps: u32) -> f64 {
    let u = AngioUniforms::new(cfg, k);
    let cells = u.ncells as usize;
    let (mut n, mut f, mut c) = (state.n.clone(), state.f.clone(), state.c.clone());
    let (mut n1, mut f1, mut c1) = (vec![0f32; cells], vec![0f32; cells], vec![0f32; cells]);
    let mut w = vec![0f32; cells];
    let t = Instant::now();
    for _ in 0..steps {
        cpu::fields_step_parallel(
            &u,
            (&n, &f, &c, &state.occ),
            &mut w,
            (&mut n1, &mut f1, &mut c1),
        );
        std::mem::swap(&mut n, &mut n1);
        std::mem::swap(&mut f, &mut f1);
        std::mem::swap(&mut c, &mut c1);
    }
    t.elapsed().as_secs_f64() * 1e3 / steps as f64
}

/// Workgroup of the reference stencil unless `--workgroup` names one: its fastest shape on an
/// H100 (1.87 TB/s at 400x400x140, against 1.20 TB/s at 32x4x1).
pub const REFERENCE_WORKGROUP: [u32; 3] = [64, 4, 1];

/// Timing of the plain 7-point diffusion kernel (crates/model/shaders/angiogenesis/bench_diffusion7.wgsl), the same work
/// as the CUDA reference benches/reference/stencil7.cu.
#[derive(Clone, Debug, Serialize)]
pub struct ReferenceRow {
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    pub ms_per_step: f64,
    pub cell_updates_per_s: f64,
    pub bandwidth_gbs: f64,
}

/// `Grid` of `crates/model/shaders/angiogenesis/bench_diffusion7.wgsl` (checked by tests/layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Grid {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub r: f32,
}

/// GPU time per step of the plain 7-point stencil at `grid` (timestamps, else wall clock),
/// after `warmup` batches of 50 steps (None: [`warmup_batches`] of the grid).
pub fn bench_reference_stencil(
    ctx: &GpuContext,
    grid: [u32; 3],
    workgroup: [u32; 3],
    steps: u32,
    warmup: Option<u32>,
) -> Result<(Timing, ReferenceRow)> {
    use petri_engine::buffers;
    use petri_scheduler::{Binding, PassDesc, StepPlan};
    ctx.check_workgroup_size("the reference stencil (--workgroup)", workgroup)?;
    let cells = grid.iter().map(|&n| n as u64).product::<u64>();
    ctx.check_storage_buffer("the reference stencil field", cells * 4)?;
    let mut plan = StepPlan::new(ctx, 0, 256);
    plan.add_pair(
        "u",
        [
            buffers::storage_zeroed(ctx, "u", cells * 4)?,
            buffers::storage_zeroed(ctx, "u", cells * 4)?,
        ],
    );
    let g = Grid {
        nx: grid[0],
        ny: grid[1],
        nz: grid[2],
        r: 0.1,
    };
    plan.add_buffer("grid", buffers::uniform_from(ctx, "grid", &g));
    let [wx, wy, wz] = workgroup;
    plan.add_pass(
        ctx,
        petri_scheduler::PassDesc {
            label: "diffusion7",
            entry: shaders::angiogenesis::bench_diffusion7::MAIN,
            bindings: vec![
                Binding::uniform("grid"),
                Binding::current("u"),
                Binding::next("u"),
            ],
            workgroups: [
                grid[0].div_ceil(wx),
                grid[1].div_ceil(wy),
                grid[2].div_ceil(wz),
            ],
            constants: vec![("WX", wx as f64), ("WY", wy as f64), ("WZ", wz as f64)],
        } as PassDesc,
    )?;
    let mut case = StencilCase { ctx, plan, steps };
    let runs = Runs {
        warmup: warmup.unwrap_or_else(|| warmup_batches(cells)),
        repeats: 1,
    };
    let timing = measure(&mut case, runs)?;
    let s = timing.samples_ns[0] * 1e-9;
    let per_s = cells as f64 / s;
    let row = ReferenceRow {
        grid,
        workgroup,
        ms_per_step: s * 1e3,
        cell_updates_per_s: per_s,
        bandwidth_gbs: per_s * COUNTED_BYTES_PER_CELL * 1e-9,
    };
    Ok((timing, row))
}

/// The plain stencil's steps: warm-up batches of 50 steps, then `steps` timed steps in
/// batches of 256, GPU time summed over the passes (wall time without timestamps).
struct StencilCase<'a> {
    ctx: &'a GpuContext,
    plan: petri_scheduler::StepPlan,
    steps: u32,
}

impl StencilCase<'_> {
    /// GPU nanoseconds of `steps` steps, summed over the passes.
    fn profiled_ns(&mut self) -> Result<f64> {
        let ctx = self.ctx;
        let mut busy_ns = 0.0;
        let mut profiler = Profiler::new(ctx, 256);
        let mut left = self.steps;
        while left > 0 {
            let n = left.min(256);
            let mut enc = self.plan.encode(ctx, n, Some(&mut profiler));
            profiler.resolve(&mut enc);
            ctx.queue.submit([enc.finish()]);
            busy_ns += profiler.collect(ctx)?.busy_ns();
            left -= n;
        }
        Ok(busy_ns)
    }
}

impl Case for StencilCase<'_> {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.plan.run(self.ctx, WARM_UP_BATCH as u64);
        Ok(self.ctx.wait()?)
    }

    fn timed(&mut self) -> Result<Sample> {
        let steps = self.steps as f64;
        if self.ctx.has_timestamps() {
            return Ok(Sample::gpu(self.profiled_ns()? / steps));
        }
        let t = Instant::now();
        self.plan.run(self.ctx, self.steps as u64);
        self.ctx.wait()?;
        Ok(Sample::wall_since(t, steps))
    }
}
