//! The model as Petri's runtime drives it (`petri_model::runtime::Simulation`): the runtime
//! decides when to observe, snapshot and checkpoint, writes observables.csv and manifest.json,
//! and keeps a resumed run's earlier rows; the model steps, reads back and writes its files.

use crate::checkpoint;
use crate::config::{GrayScottConfig, MODEL};
use crate::gpu::GrayScottGpu;
use crate::init::initial_state;
use crate::observables::Observables;
use crate::output::{fields_file, write_fields, write_picture};
use crate::state::GrayScottState;
use petri_engine::{AdapterSummary, GpuContext};
use petri_model::error::Result;
use petri_model::runtime::run_loop::file_name;
use petri_model::runtime::{
    self, ArrayData, ModelRunOptions, RunReport, Schedule, Simulation, StateArray,
};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// A run of the model on one GPU.
pub struct GrayScottSim {
    ctx: GpuContext,
    cfg: GrayScottConfig,
    gpu: GrayScottGpu,
}

/// The model's part of manifest.json.
#[derive(Debug, Serialize)]
pub struct Details {
    pub config: GrayScottConfig,
    pub seed: u64,
    /// Grid spacing.
    pub h: f64,
    pub dt: f64,
    /// The stability limit dt was checked against (`GrayScottConfig::max_dt`).
    pub max_dt: f64,
    pub adapter: AdapterSummary,
    pub final_observables: Observables,
}

impl GrayScottSim {
    /// A run from Pearson's initial condition (`init::initial_state`) at step 0.
    pub fn new(ctx: &GpuContext, cfg: &GrayScottConfig) -> Result<Self> {
        cfg.validate()?;
        Self::from_state(ctx, cfg, &initial_state(cfg))
    }

    /// A run from any state of the config's grid (e.g. the homogeneous one, in the tests).
    pub fn from_state(
        ctx: &GpuContext,
        cfg: &GrayScottConfig,
        state: &GrayScottState,
    ) -> Result<Self> {
        cfg.validate()?;
        Ok(Self {
            ctx: ctx.clone(),
            cfg: cfg.clone(),
            gpu: GrayScottGpu::new(ctx, cfg, state)?,
        })
    }

    /// The run that wrote the checkpoint at `path`, carried on from its step. `cfg` must be
    /// the run's config (up to the fields in `checkpoint::UNHASHED`); anything else is refused.
    pub fn resume(ctx: &GpuContext, cfg: &GrayScottConfig, path: &Path) -> Result<Self> {
        cfg.validate()?;
        let state = checkpoint::load_state(path, cfg)?;
        Self::from_state(ctx, cfg, &state)
    }

    pub fn config(&self) -> &GrayScottConfig {
        &self.cfg
    }

    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Advances `steps` steps (submitted, not waited for).
    pub fn run_steps(&mut self, steps: u64) {
        self.gpu.advance(&self.ctx, steps);
    }

    /// The state now, read back (waits for the GPU).
    pub fn read_state(&self) -> Result<GrayScottState> {
        self.gpu.read(&self.ctx)
    }
}

impl Simulation for GrayScottSim {
    type Observation = Observables;
    type Details = Details;

    fn step(&self) -> u64 {
        self.gpu.step()
    }

    fn schedule(&self) -> Schedule {
        Schedule {
            model: MODEL,
            steps: self.cfg.steps,
            observe_every: self.cfg.observe_every,
            snapshot_every: self.cfg.snapshot_every,
            frame_every: 0,
            seconds_per_step: None,
            time_per_step: self.cfg.dt,
        }
    }

    fn columns(&self) -> Vec<String> {
        Observables::COLUMNS.map(String::from).to_vec()
    }

    fn describe(&self) -> String {
        let c = &self.cfg;
        format!(
            "grid {}x{} over {} x {}, Du = {:e}, Dv = {:e}, F = {}, k = {}, dt = {}",
            c.grid[0], c.grid[1], c.length, c.length, c.du, c.dv, c.feed, c.kill, c.dt
        )
    }

    fn progress(&self, o: &Observables) -> String {
        format!(
            "mean v {:.4}, max v {:.3}, pattern {:.3}",
            o.mean_v, o.max_v, o.pattern_fraction
        )
    }

    fn observe(&mut self) -> Result<Observables> {
        Ok(Observables::of(&self.read_state()?, self.cfg.dt))
    }

    /// Observations are read back at once (the fields are small next to a step's work at the
    /// periods a run observes at), so none is ever in flight.
    fn advance(
        &mut self,
        steps: u64,
        observe_at_end: bool,
        sink: &mut dyn FnMut(Observables) -> Result<()>,
    ) -> Result<()> {
        self.run_steps(steps);
        self.observe_into(observe_at_end, sink)
    }

    /// The fields; the runtime adds the picture of v (`draw`), `v_STEP.png` at snapshots and
    /// frames, `v.png` at the end.
    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
        let state = self.read_state()?;
        let fields = fields_file(dir, state.step);
        write_fields(&fields, &self.cfg, &state)?;
        Ok(vec![file_name(&fields)])
    }

    fn picture_name(&self) -> Option<&'static str> {
        Some("v")
    }

    fn draw(&mut self, paths: &[&Path]) -> Result<()> {
        let state = self.read_state()?;
        paths
            .iter()
            .try_for_each(|path| write_picture(path, &self.cfg, &state))
    }

    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        checkpoint::save(path, &self.cfg, &self.read_state()?)
    }

    fn manifest_details(&self, _first_step: u64, last: &Observables) -> Result<Details> {
        Ok(Details {
            config: self.cfg.clone(),
            seed: self.cfg.seed,
            h: self.cfg.h(),
            dt: self.cfg.dt,
            max_dt: self.cfg.max_dt(),
            adapter: self.ctx.adapter.clone(),
            final_observables: last.clone(),
        })
    }

    /// u and v as (ny, nx) arrays, x fastest.
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        let s = self.read_state()?;
        let shape = [self.cfg.grid[1] as usize, self.cfg.grid[0] as usize];
        Ok(vec![
            StateArray::new("u", &shape, ArrayData::F32(s.u)),
            StateArray::new("v", &shape, ArrayData::F32(s.v)),
        ])
    }
}

/// A run's options: steps, output folder, checkpoints, the checkpoint to resume from. The model
/// has no options of its own (`()`).
pub type RunOptions = ModelRunOptions<()>;

/// Builds the run from `cfg` (or from the checkpoint `opts.resume`, which must be of a run of
/// `cfg`) and runs it through the runtime into `opts.out_dir`. `progress` sees each observation.
pub fn run(
    ctx: &GpuContext,
    cfg: &GrayScottConfig,
    opts: &RunOptions,
    progress: impl FnMut(&Observables),
) -> Result<RunReport<Observables>> {
    let t = Instant::now();
    let mut sim = match &opts.resume {
        Some(path) => GrayScottSim::resume(ctx, cfg, path)?,
        None => GrayScottSim::new(ctx, cfg)?,
    };
    let setup_s = t.elapsed().as_secs_f64();
    runtime::run(&mut sim, &opts.run_options(setup_s), progress)
}
