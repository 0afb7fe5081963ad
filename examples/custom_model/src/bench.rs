//! The benchmark: milliseconds per step on the GPU and on the CPU twin at a few grid sizes,
//! through Petri's bench harness (`petri_scheduler::bench`: a fixed count of untimed warm-up
//! iterations, then timed repeats reduced to their median). The GPU figure comes from timestamp
//! queries around each batch of steps (`petri_engine::BatchTimer`) where the adapter has them,
//! from the wall clock (the GPU waited for) where it does not; the row says which.

use crate::config::GrayScottConfig;
use crate::cpu::CpuGrayScott;
use crate::gpu::GrayScottGpu;
use crate::init::initial_state;
use crate::params::Params;
use petri_engine::GpuContext;
use petri_model::error::{invalid, ModelError, Result};
use petri_scheduler::bench::{measure, Case, Clock, Runs, Sample};
use serde::Serialize;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Grid sides (square grids) to time.
    pub sizes: Vec<u32>,
    /// Steps of one timed repeat on the GPU.
    pub steps: u32,
    /// Steps of one timed repeat on the CPU (0: no CPU figure).
    pub cpu_steps: u32,
    /// Untimed iterations before the timed ones (each `steps` steps, `cpu_steps` on the CPU).
    pub warmup: u32,
    /// Timed repeats; the figures are their medians.
    pub repeats: u32,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            sizes: vec![64, 128, 256],
            steps: 500,
            cpu_steps: 50,
            warmup: 1,
            repeats: 3,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub grid: [u32; 2],
    pub cells: u64,
    /// Where the GPU figure comes from: timestamps ("gpu") or the wall clock ("wall").
    pub clock: Clock,
    pub gpu_ms_per_step: f64,
    /// The single-threaded CPU twin (None when not timed).
    pub cpu_ms_per_step: Option<f64>,
    /// CPU time over GPU time.
    pub speedup: Option<f64>,
}

/// `steps` GPU steps per iteration.
struct GpuCase<'a> {
    ctx: &'a GpuContext,
    gpu: GrayScottGpu,
    steps: u32,
}

impl Case for GpuCase<'_> {
    type Error = ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.gpu.advance(self.ctx, self.steps as u64);
        Ok(self.ctx.wait()?)
    }

    fn timed(&mut self) -> Result<Sample> {
        let steps = self.steps as u64;
        if !self.ctx.has_timestamps() {
            let start = Instant::now();
            self.gpu.advance(self.ctx, steps);
            self.ctx.wait()?;
            return Ok(Sample::wall_since(start, steps as f64));
        }
        let times = self.gpu.advance_timed(self.ctx, steps)?;
        let times = times.expect("an adapter with timestamps times its batches");
        Ok(Sample::gpu(times.busy_ns / steps as f64))
    }
}

/// `steps` CPU steps per iteration.
struct CpuCase {
    cpu: CpuGrayScott,
    steps: u32,
}

impl Case for CpuCase {
    type Error = ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.cpu.advance(self.steps as u64);
        Ok(())
    }

    fn timed(&mut self) -> Result<Sample> {
        let start = Instant::now();
        self.cpu.advance(self.steps as u64);
        Ok(Sample::wall_since(start, self.steps as f64))
    }
}

/// `base` on an n x n grid of the same spacing h (so the same stability margin), the square no
/// larger than the grid.
pub fn config_at(base: &GrayScottConfig, n: u32) -> Result<GrayScottConfig> {
    let cfg = GrayScottConfig {
        grid: [n, n],
        length: base.h() * n as f64,
        square: base.square.min(n),
        ..base.clone()
    };
    cfg.validate()?;
    Ok(cfg)
}

/// Times `base` at each of `opts.sizes`, from the initial state; one row per size, as each is
/// done (handed to `on_row` too).
pub fn bench(
    ctx: &GpuContext,
    base: &GrayScottConfig,
    opts: &BenchOptions,
    mut on_row: impl FnMut(&BenchRow),
) -> Result<Vec<BenchRow>> {
    if opts.steps == 0 {
        return Err(invalid("--steps", 0, "an integer >= 1"));
    }
    let runs = Runs {
        warmup: opts.warmup,
        repeats: opts.repeats.max(1),
    };
    let mut rows = Vec::new();
    for &n in &opts.sizes {
        let cfg = config_at(base, n)?;
        let state = initial_state(&cfg);
        let mut gpu = GpuCase {
            ctx,
            gpu: GrayScottGpu::new(ctx, &cfg, &state)?,
            steps: opts.steps,
        };
        let gpu_timing = measure(&mut gpu, runs)?;
        let gpu_ms = gpu_timing.stats().median * 1e-6;
        let cpu_ms = match opts.cpu_steps {
            0 => None,
            steps => {
                let mut case = CpuCase {
                    cpu: CpuGrayScott::new(Params::new(&cfg), state),
                    steps,
                };
                Some(measure(&mut case, runs)?.stats().median * 1e-6)
            }
        };
        let row = BenchRow {
            grid: cfg.grid,
            cells: cfg.cells() as u64,
            clock: gpu_timing.clock,
            gpu_ms_per_step: gpu_ms,
            cpu_ms_per_step: cpu_ms,
            speedup: cpu_ms.map(|c| c / gpu_ms),
        };
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}
