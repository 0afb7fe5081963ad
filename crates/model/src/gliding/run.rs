//! A gliding assay run as the runtime drives it (`crate::runtime`): every `observe_every` steps
//! the fields and the clock are read back and observed (observables.csv: the time reached, the
//! last step's dt and its Courant number dt x rate, at most courant_safety x 0.25); a step since
//! the last observation that could not be taken (a non-finite Courant rate, or a dt under the
//! floor: `clock.rs`) stops the run there, naming that step, as does a Psi whose motors would
//! need more sub-steps than the GPU takes (`motors::check_substeps`); every `snapshot_every`
//! steps the fields (`gliding_NNNNNNN.vti`, `fluid_NNNNNNN.vtr`) and the picture
//! (`gliding_NNNNNNN.png`); every `frame_every` steps the picture alone; at the end the fields,
//! `gliding.png` and, with `--checkpoint-every`, the checkpoint (the runtime names and schedules
//! the pictures, `runtime::film`). The model opens as a [`GlidingRun`] (`model.rs`).

use super::checkpoint;
use super::fields::{GlidingFields, GlidingGrid};
use super::motors::check_substeps;
use super::output::{write_fields, write_frame, Observables};
use super::params::GlidingConfig;
use super::sim::{GlidingSim, SimOptions};
use crate::error::Result;
use crate::runtime::{self, ArrayData, Observation, Schedule, Simulation, StateArray};
use petri_engine::{AdapterSummary, GpuContext};
use serde::Serialize;
use std::path::Path;

/// A gliding run's options (`resume`: a checkpoint written by a run of the same config).
pub type RunOptions = runtime::ModelRunOptions<SimOptions>;

impl Observation for Observables {
    fn step(&self) -> u64 {
        self.step
    }
    fn row(&self) -> Vec<f64> {
        Observables::row(self)
    }
    fn non_finite(&self) -> Option<&'static str> {
        Observables::non_finite(self)
    }
}

/// A simulation on one device, for the runtime.
pub struct GlidingRun {
    pub ctx: GpuContext,
    pub sim: GlidingSim,
    pub cfg: GlidingConfig,
    grid: GlidingGrid,
    /// The fields read back at the current step, shared by its observation and its files.
    fields: Option<GlidingFields>,
}

/// The model's part of manifest.json.
#[derive(Debug, Serialize)]
pub struct Details {
    pub config: GlidingConfig,
    pub seed: u64,
    /// The largest outer step (the config's dt).
    pub dt: f64,
    /// The height of the filament level (the z level nearest to the config's z0).
    pub z0: f64,
    /// Offsets d = x - r0 at which a motor of r0 can hold a filament (the motors' stencil).
    pub motor_offsets: usize,
    pub adapter: AdapterSummary,
    /// The observables at the last step.
    pub final_observables: Observables,
}

impl GlidingRun {
    pub fn new(ctx: &GpuContext, sim: GlidingSim, cfg: &GlidingConfig) -> Self {
        Self {
            ctx: ctx.clone(),
            grid: sim.grid().clone(),
            sim,
            cfg: cfg.clone(),
            fields: None,
        }
    }

    /// The fields at the current step, read back once per step.
    fn fields(&mut self) -> Result<&GlidingFields> {
        let step = self.sim.step();
        if self.fields.as_ref().is_none_or(|f| f.step != step) {
            self.fields = Some(self.sim.read_fields(&self.ctx)?);
        }
        Ok(self.fields.as_ref().expect("just read"))
    }
}

impl Simulation for GlidingRun {
    type Observation = Observables;
    type Details = Details;

    fn describe(&self) -> String {
        let (cfg, g) = (&self.cfg, &self.cfg.grid);
        format!(
            "{} x {} cells over {} x {}, {} angles, {} arc cells, {} z levels (filaments at z = \
             {:.4}), {} motor offsets, dt at most {} (courant_safety {})",
            g.nx,
            g.ny,
            g.lx,
            g.ly,
            g.ntheta,
            g.ns,
            g.nz,
            self.grid.z[self.grid.z0_level],
            self.sim.tables().offsets.len(),
            cfg.dt,
            cfg.courant_safety
        )
    }
    fn progress(&self, o: &Observables) -> String {
        format!(
            "speed {:.3}, polar {:.3}, nematic {:.3}",
            o.mean_speed, o.polar_order, o.nematic_order
        )
    }
    fn summary(&self, o: &Observables) -> Vec<String> {
        vec![format!(
            "step {} (t = {:.3}, dt {:.4}): mean gliding speed {:.4}, polar order {:.3} (local \
             {:.3}), nematic order {:.3}; motors bound {:.4}, free {:.4} of {:.4}; fluid kinetic \
             energy {:.3e}",
            o.step,
            o.time,
            o.dt,
            o.mean_speed,
            o.polar_order,
            o.local_polar_order,
            o.nematic_order,
            o.bound_motors,
            o.free_motors,
            o.total_motors,
            o.fluid_kinetic_energy
        )]
    }

    fn step(&self) -> u64 {
        self.sim.step()
    }
    fn batch_steps(&self) -> u64 {
        self.sim.steps_per_batch()
    }
    fn pace(&mut self) -> Result<()> {
        self.sim.pace(&self.ctx)
    }

    fn schedule(&self) -> Schedule {
        let cfg = &self.cfg;
        Schedule {
            model: "gliding",
            steps: cfg.steps,
            observe_every: cfg.observe_every,
            snapshot_every: cfg.snapshot_every,
            frame_every: cfg.frame_every,
            seconds_per_step: None,
            time_per_step: cfg.dt,
        }
    }

    /// The clock's time (the steps' dts adapt).
    fn time(&mut self) -> Result<f64> {
        Ok(self.sim.clock(&self.ctx)?.time(&self.cfg.dt_rule()))
    }

    fn columns(&self) -> Vec<String> {
        Observables::columns()
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// The observation, refused where a step could not be taken or the motors now need more
    /// sub-steps than the GPU takes (`motors::check_substeps`).
    fn observe(&mut self) -> Result<Observables> {
        let clock = self.sim.checked_clock(&self.ctx)?;
        self.fields()?;
        let fields = self.fields.as_ref().expect("just read");
        let (motors, dt) = (self.cfg.motor_config(), f64::from(clock.dt));
        check_substeps(&motors, self.sim.tables(), &fields.psi, dt, fields.step)?;
        Ok(Observables::of(&self.grid, fields, clock.courant()))
    }

    fn advance(
        &mut self,
        steps: u64,
        observe_at_end: bool,
        sink: &mut dyn FnMut(Observables) -> Result<()>,
    ) -> Result<()> {
        self.sim.advance(&self.ctx, steps);
        self.observe_into(observe_at_end, sink)
    }

    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
        let grid = self.grid.clone();
        write_fields(dir, &grid, self.fields()?)
    }

    fn picture_name(&self) -> Option<&'static str> {
        Some("gliding")
    }

    fn draw(&mut self, paths: &[&Path]) -> Result<()> {
        let (every, grid) = (self.cfg.output.arrow_every, self.grid.clone());
        write_frame(paths, &grid, self.fields()?, every)
    }

    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let state = self.sim.read_state(&self.ctx)?;
        checkpoint::save(path, &self.cfg, &state)
    }

    /// Psi (theta, y, x); the filament velocities (Ux, Uy, Omega; theta, y, x) and the fluid
    /// velocity (u, v, w; z, y, x) of the last step; the z levels; per anchor the total, bound
    /// and free motors; the motor force (y, x, 2); the bound motors M_b (y, x, offset, theta,
    /// s) with their offsets (offset, 2: dx, dy in cells).
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        let g = &self.grid;
        let (nx, ny, nt, nz) = (g.nx, g.ny, g.ntheta, g.nz());
        let s = self.sim.read_state(&self.ctx)?;
        let motor = |i: usize| s.motors.iter().map(|m| m[i]).collect::<Vec<f32>>();
        let tables = self.sim.tables();
        let offsets: Vec<i32> = tables.offsets.iter().flatten().copied().collect();
        Ok(vec![
            StateArray::new("psi", &[nt, ny, nx], ArrayData::F32(s.psi)),
            StateArray::new("velocity", &[3, nt, ny, nx], ArrayData::F32(s.velocity)),
            StateArray::new("fluid", &[3, nz, ny, nx], ArrayData::F32(s.fluid)),
            StateArray::new("z", &[nz], ArrayData::F64(g.z.clone())),
            StateArray::new("motors_total", &[ny, nx], ArrayData::F32(motor(0))),
            StateArray::new("motors_bound", &[ny, nx], ArrayData::F32(motor(1))),
            StateArray::new("motors_free", &[ny, nx], ArrayData::F32(motor(2))),
            StateArray::new(
                "motor_force",
                &[ny, nx, 2],
                ArrayData::F32(s.motor_force.concat()),
            ),
            StateArray::new(
                "bound_density",
                &[ny, nx, tables.offsets.len(), nt, self.cfg.grid.ns],
                ArrayData::F32(s.bound),
            ),
            StateArray::new(
                "bound_offsets",
                &[tables.offsets.len(), 2],
                ArrayData::F64(offsets.into_iter().map(f64::from).collect()),
            ),
        ])
    }

    fn manifest_details(&self, _first_step: u64, last: &Observables) -> Result<Details> {
        Ok(Details {
            config: self.cfg.clone(),
            seed: self.cfg.seed,
            dt: self.cfg.dt,
            z0: self.grid.z[self.grid.z0_level],
            motor_offsets: self.sim.tables().offsets.len(),
            adapter: self.ctx.adapter.clone(),
            final_observables: last.clone(),
        })
    }
}

/// The simulation a run starts from: `cfg`'s initial state, or with `opts.resume` the state of
/// that checkpoint, refused unless it was written by a run of the same config.
pub fn start(ctx: &GpuContext, cfg: &GlidingConfig, opts: &RunOptions) -> Result<GlidingSim> {
    match &opts.resume {
        Some(path) => {
            let state = checkpoint::load(path, cfg)?;
            GlidingSim::from_state(ctx, cfg, &state, opts.sim)
        }
        None => GlidingSim::new(ctx, cfg, opts.sim),
    }
}
