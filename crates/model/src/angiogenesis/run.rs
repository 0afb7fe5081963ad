//! An angiogenesis run as the runtime drives it (`crate::runtime`): observables every
//! `observe_every` steps through the GPU readback ring, field snapshots with a picture each,
//! pictures alone every `frame_every` steps, and at the end the fields, the vessel network and
//! its picture (the runtime names and schedules the pictures, `runtime::film`). The model opens
//! as an [`AngioRun`] (`model.rs`); an embedding program can build one and drive it with
//! `runtime::run` itself.

use super::checkpoint::Checkpoint;
use super::output::{fields_file, write_fields, write_picture, write_vessels};
use super::params::AngioConfig;
use super::sim::{AngioSim, Observables, SimOptions};
use crate::error::Result;
use crate::runtime::{
    self, run_loop::file_name, ArrayData, Observation, RunReport, Schedule, Simulation, StateArray,
};
use petri_engine::{AdapterSummary, GpuContext};
use serde::Serialize;
use std::path::Path;

/// An angiogenesis run's options (`resume`: the checkpoint the simulation was built from; it
/// holds the config).
pub type RunOptions = runtime::ModelRunOptions<SimOptions>;

impl Observation for Observables {
    fn step(&self) -> u64 {
        self.step
    }
    fn row(&self) -> Vec<f64> {
        self.csv_row()
    }
    fn non_finite(&self) -> Option<&'static str> {
        Observables::non_finite(self)
    }
}

/// A simulation on one device, for the runtime.
pub struct AngioRun {
    pub ctx: GpuContext,
    pub sim: AngioSim,
}

/// The model's part of manifest.json.
#[derive(Debug, Serialize)]
pub struct Details {
    pub config: AngioConfig,
    pub seed: u64,
    /// Time step.
    pub dt: f64,
    /// Grid spacing.
    pub h: f64,
    pub adapter: AdapterSummary,
    pub final_observables: Observables,
}

impl Simulation for AngioRun {
    type Observation = Observables;
    type Details = Details;

    fn step(&self) -> u64 {
        self.sim.step()
    }
    fn batch_steps(&self) -> u64 {
        self.sim.steps_per_batch()
    }
    fn pace(&mut self) -> Result<()> {
        self.sim.pace(&self.ctx)
    }
    fn describe(&self) -> String {
        format!(
            "grid {:?}, h = {:.4e}, dt = {:.4e}",
            self.sim.cfg.grid,
            self.sim.h(),
            self.sim.k
        )
    }
    fn progress(&self, o: &Observables) -> String {
        format!(
            "tips {} sprouts {} network {:.3}",
            o.tips, o.sprouts, o.vessel_length
        )
    }
    fn summary(&self, o: &Observables) -> Vec<String> {
        let mut lines = vec![format!(
            "step {}: total n {:.4}, tips {}, sprouts {}, branches {}, anastomoses {}, network \
             length {:.3} (occupied sites x h)",
            o.step, o.total_n, o.tips, o.sprouts, o.branches, o.anastomoses, o.vessel_length
        )];
        if o.tip_overflow > 0 || o.segment_overflow > 0 {
            lines.push(format!(
                "warning: {} branches and {} vessel segments did not fit (raise tips.max_tips / \
                 tips.max_segments)",
                o.tip_overflow, o.segment_overflow
            ));
        }
        lines
    }
    fn schedule(&self) -> Schedule {
        let cfg = &self.sim.cfg;
        Schedule {
            model: "angiogenesis",
            steps: cfg.steps,
            observe_every: cfg.observe_every as u64,
            snapshot_every: cfg.snapshot_every,
            frame_every: cfg.frame_every,
            seconds_per_step: None,
            time_per_step: self.sim.k,
        }
    }
    fn columns(&self) -> Vec<String> {
        Observables::CSV_COLUMNS.map(String::from).to_vec()
    }

    fn observe(&mut self) -> Result<Observables> {
        self.sim.observe(&self.ctx)
    }

    fn advance(
        &mut self,
        steps: u64,
        observe_at_end: bool,
        sink: &mut dyn FnMut(Observables) -> Result<()>,
    ) -> Result<()> {
        if !observe_at_end {
            self.sim.advance(&self.ctx, steps);
            return Ok(());
        }
        self.sim
            .advance_observed(&self.ctx, steps)?
            .into_iter()
            .try_for_each(sink)
    }

    fn flush_observations(
        &mut self,
        sink: &mut dyn FnMut(Observables) -> Result<()>,
    ) -> Result<()> {
        self.sim.finish(&self.ctx)?.into_iter().try_for_each(sink)
    }

    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
        let state = self.sim.read_state(&self.ctx)?;
        let fields = fields_file(dir, state.step);
        write_fields(&fields, &self.sim.cfg, &state)?;
        Ok(vec![file_name(&fields)])
    }

    /// The fields and the vessel network.
    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        let state = self.sim.read_state(&self.ctx)?;
        let fields = fields_file(dir, state.step);
        write_fields(&fields, &self.sim.cfg, &state)?;
        write_vessels(&dir.join("vessels.vtp"), &self.sim.cfg, &state)?;
        Ok(vec![file_name(&fields), "vessels.vtp".into()])
    }

    fn picture_name(&self) -> Option<&'static str> {
        Some("vessels")
    }

    fn draw(&mut self, paths: &[&Path]) -> Result<()> {
        let state = self.sim.read_state(&self.ctx)?;
        write_picture(paths, &self.sim.cfg, self.sim.k, &state)
    }

    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        Checkpoint::from_sim(&self.ctx, &self.sim)?.save(path)
    }

    /// Fields n, f, c and `sprout` (the smallest sprout id that visited a site, 2^32 - 1 where
    /// none did) as (nz, ny, nx); the tips (site, age, alive, parent; position as x, y, z
    /// grid indices); the vessel segments (from site, to site, sprout id, step).
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        let s = self.sim.read_state(&self.ctx)?;
        let [nx, ny, nz] = self.sim.cfg.grid.map(|n| n as usize);
        let grid = [nz, ny, nx];
        let tips = s.tips.len();
        let xyz = |site: u32| {
            let site = site as usize;
            [site % nx, site / nx % ny, site / (nx * ny)].map(|v| v as u32)
        };
        let position = s.tips.iter().flat_map(|t| xyz(t.site)).collect();
        Ok(vec![
            StateArray::new("n", &grid, ArrayData::F32(s.n)),
            StateArray::new("f", &grid, ArrayData::F32(s.f)),
            StateArray::new("c", &grid, ArrayData::F32(s.c)),
            StateArray::new("sprout", &grid, ArrayData::U32(s.occ)),
            StateArray::new("tip_position", &[tips, 3], ArrayData::U32(position)),
            StateArray::new(
                "tip_age",
                &[tips],
                ArrayData::F32(s.tips.iter().map(|t| t.age).collect()),
            ),
            StateArray::new(
                "tip_alive",
                &[tips],
                ArrayData::U8(s.tips.iter().map(|t| (t.alive != 0) as u8).collect()),
            ),
            StateArray::new(
                "tip_parent",
                &[tips],
                ArrayData::U32(s.tips.iter().map(|t| t.parent).collect()),
            ),
            StateArray::new(
                "segments",
                &[s.segments.len(), 4],
                ArrayData::U32(s.segments.concat()),
            ),
        ])
    }

    fn manifest_details(&self, _first_step: u64, last: &Observables) -> Result<Details> {
        Ok(Details {
            config: self.sim.cfg.clone(),
            seed: self.sim.cfg.seed,
            dt: self.sim.k,
            h: self.sim.h(),
            adapter: self.ctx.adapter.clone(),
            final_observables: last.clone(),
        })
    }
}

/// Builds the model from its config, or from the checkpoint `opts.resume` (which holds the
/// config; `cfg` is then not read), and runs it into `opts.out_dir` (`runtime::build_and_run`).
pub fn run(
    ctx: &GpuContext,
    cfg: &AngioConfig,
    opts: &RunOptions,
    progress: impl FnMut(&Observables),
) -> Result<RunReport<Observables>> {
    let build = || {
        let sim = match &opts.resume {
            Some(path) => Checkpoint::load(path)?.into_sim(ctx, &opts.sim)?,
            None => AngioSim::new(ctx, cfg, &opts.sim)?,
        };
        Ok(AngioRun {
            ctx: ctx.clone(),
            sim,
        })
    };
    Ok(runtime::build_and_run(opts, build, progress)?.1)
}
