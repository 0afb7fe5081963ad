//! The coupled gliding assay on the GPU: one `StepPlan` whose step is the seed's algorithm 1
//! with the fluid solve moved to the front (the same cycle; the step starts from the state it
//! ends with):
//!
//! 1. the moments of Psi; the force on the fluid (motor force of the last motor step, stress
//!    divergences) on the filament level; the Stokes solve; the filament velocities from the
//!    fluid at z0 and the moments (and the largest Courant rate); the step's dt from that rate
//!    (`clock.rs`: dt_n = min(dt_max, safety CFL / rate), and the time);
//! 2. Psi(t + dt_n): advection (variable-step AB2) and diffusion (Crank-Nicolson) with those
//!    velocities;
//! 3. the bound motors over dt_n in their own sub-steps on the new Psi, then the motor force.
//!
//! The filaments' Psi buffer is the motors' (no copy). Only observations and checkpoints read
//! back, the clock (time, dt, Courant rate and any step that could not be taken) with them.

use super::clock::{self, Clock};
use super::coupling::{self, CouplingPass};
use super::fields::{GlidingFields, GlidingGrid};
use super::filaments::{self, FilamentUniforms};
use super::init::initial_psi;
use super::motors::{self, MotorChunks, MotorTables, MotorUniforms};
use super::params::GlidingConfig;
use super::state;
pub use super::state::GlidingState;
use super::stokes;
use crate::error::{invalid, Result};
use petri_engine::{buffers, GpuContext, Profiler};
use petri_scheduler::StepPlan;

/// How the plan is built (not part of the model: the same bits for any of these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Threads per workgroup of the per-cell and per-mode passes.
    pub workgroup: u32,
    /// Most steps recorded into one submission.
    pub max_steps_per_batch: u32,
    /// The largest buffer of the bound motors' chunks in bytes, where below the device's
    /// largest storage binding (`None`: the device's): a test's way to split M_b on a small grid.
    pub max_motor_binding: Option<u64>,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            // 256: motors evolve (a workgroup per anchor, barriers between its passes) hides
            // its latency with more threads: 17.1 ms per outer step at 256^2 x 32^2 on an
            // H200 against 32.8 ms at 64; the per-cell passes are about as fast.
            workgroup: 256,
            max_steps_per_batch: 16,
            max_motor_binding: None,
        }
    }
}

pub struct GlidingSim {
    plan: StepPlan,
    cfg: GlidingConfig,
    grid: GlidingGrid,
    tables: MotorTables,
    chunks: MotorChunks,
    step: u64,
}

impl GlidingSim {
    /// A new simulation from the config's initial state: Psi and the motor totals; the rest
    /// (no motors bound, the fluid at rest, no velocities yet, AB2 not started) is the zeroed
    /// buffers'.
    pub fn new(ctx: &GpuContext, cfg: &GlidingConfig, options: SimOptions) -> Result<Self> {
        let sim = Self::build(ctx, cfg, options)?;
        let psi: Vec<f32> = initial_psi(cfg).iter().map(|&v| v as f32).collect();
        let total = cfg.motors.density as f32;
        let motors = vec![[total, 0.0, total, 0.0]; sim.grid.cells()];
        let write =
            |name: &str, bytes: &[u8]| ctx.queue.write_buffer(sim.plan.buffer(name), 0, bytes);
        write(filaments::PSI, bytemuck::cast_slice(&psi));
        write(motors::STATE, bytemuck::cast_slice(&motors));
        Ok(sim)
    }

    /// A simulation resumed from `state`, refused unless it is a state of a run of `cfg`
    /// (`state::check`).
    pub fn from_state(
        ctx: &GpuContext,
        cfg: &GlidingConfig,
        state: &GlidingState,
        options: SimOptions,
    ) -> Result<Self> {
        state::check(cfg, state)?;
        let mut sim = Self::build(ctx, cfg, options)?;
        sim.load(ctx, state);
        Ok(sim)
    }

    fn build(ctx: &GpuContext, cfg: &GlidingConfig, options: SimOptions) -> Result<Self> {
        cfg.validate()?;
        if options.max_steps_per_batch == 0 {
            return Err(invalid("max_steps_per_batch", 0, "an integer >= 1"));
        }
        let wg = options.workgroup;
        let grid = cfg.grid()?;
        let channel = cfg.channel()?;
        let fil = cfg.filament_config();
        let mot = cfg.motor_config();
        let tables = MotorTables::new(&mot)?;
        let chunks = MotorChunks::for_device(ctx, &mot, &tables, options.max_motor_binding)?;
        let mut plan = StepPlan::new(ctx, cfg.seed, options.max_steps_per_batch);
        filaments::add_buffers(ctx, &mut plan, &fil)?;
        let psi = plan.buffer(filaments::PSI).clone();
        motors::add_buffers(ctx, &mut plan, &mot, &tables, &chunks, Some(psi))?;
        stokes::add_buffers(ctx, &mut plan, &channel)?;
        coupling::add_buffers(ctx, &mut plan, &grid, &cfg.filaments)?;
        clock::add_buffer(ctx, &mut plan)?;

        coupling::add_pass(ctx, &mut plan, &grid, CouplingPass::Moments, wg)?;
        coupling::add_pass(ctx, &mut plan, &grid, CouplingPass::ForceOnFluid, wg)?;
        stokes::add_passes(ctx, &mut plan, &channel, wg)?;
        coupling::add_pass(ctx, &mut plan, &grid, CouplingPass::Velocities, wg)?;
        clock::add_pass(ctx, &mut plan, &cfg.dt_rule())?;
        filaments::add_passes(ctx, &mut plan, &fil, wg)?;
        motors::add_passes(ctx, &mut plan, &mot, &chunks, wg)?;

        ctx.queue.write_buffer(
            plan.buffer(filaments::PARAMS),
            0,
            bytemuck::bytes_of(&FilamentUniforms::new(&fil)),
        );
        ctx.queue.write_buffer(
            plan.buffer(motors::PARAMS),
            0,
            bytemuck::bytes_of(&MotorUniforms::new(&mot, &tables)),
        );
        Ok(Self {
            plan,
            cfg: cfg.clone(),
            grid,
            tables,
            chunks,
            step: 0,
        })
    }

    /// Writes `state` (checked) into the buffers.
    fn load(&mut self, ctx: &GpuContext, s: &GlidingState) {
        let write =
            |name: &str, bytes: &[u8]| ctx.queue.write_buffer(self.plan.buffer(name), 0, bytes);
        write(filaments::PSI, bytemuck::cast_slice(&s.psi));
        write(filaments::RATE, bytemuck::cast_slice(&s.rate));
        let block = self.tables.block(&self.cfg.motor_config());
        motors::write_bound(ctx, &self.plan, &self.chunks, block, &s.bound);
        write(motors::STATE, bytemuck::cast_slice(&s.motors));
        write(motors::FORCE, bytemuck::cast_slice(&s.motor_force));
        write(stokes::VELOCITY, bytemuck::cast_slice(&s.fluid));
        write(filaments::VELOCITY, bytemuck::cast_slice(&s.velocity));
        write(clock::CLOCK, bytemuck::bytes_of(&s.clock));
        self.step = s.step;
        self.plan.step = s.step;
    }

    pub fn config(&self) -> &GlidingConfig {
        &self.cfg
    }

    pub fn grid(&self) -> &GlidingGrid {
        &self.grid
    }

    /// The motors' tables (offsets, capture mask, head gather).
    pub fn tables(&self) -> &MotorTables {
        &self.tables
    }

    /// How M_b is split over storage bindings.
    pub fn motor_chunks(&self) -> &MotorChunks {
        &self.chunks
    }

    pub fn step(&self) -> u64 {
        self.step
    }

    /// Most steps recorded into one submission (`SimOptions::max_steps_per_batch`).
    pub fn steps_per_batch(&self) -> u64 {
        self.plan.max_steps_per_batch as u64
    }

    /// Records and submits `steps` outer steps (does not wait for them).
    pub fn advance(&mut self, ctx: &GpuContext, steps: u64) {
        self.plan.run(ctx, steps);
        self.step += steps;
    }

    /// Waits until the GPU has done every batch but the latest (`StepPlan::pace`).
    pub fn pace(&mut self, ctx: &GpuContext) -> Result<()> {
        Ok(self.plan.pace(ctx)?)
    }

    /// Records `steps` outer steps (at most `SimOptions::max_steps_per_batch`) with a
    /// timestamp per pass into `profiler`, and submits them (does not wait for them).
    pub fn advance_profiled(&mut self, ctx: &GpuContext, steps: u32, profiler: &mut Profiler) {
        let mut encoder = self.plan.encode(ctx, steps, Some(profiler));
        profiler.resolve(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        self.step += u64::from(steps);
    }

    /// Passes of one outer step (each takes two timestamps when profiled).
    pub fn passes_per_step(&self) -> usize {
        self.plan.pass_count()
    }

    /// The clock after the last step (waits for the GPU): the time, the last step's dt and
    /// Courant rate, and any step that could not be taken (`Clock::check`).
    pub fn clock(&self, ctx: &GpuContext) -> Result<Clock> {
        clock::read(ctx, &self.plan)
    }

    /// The clock (`clock`), refused with the error that stops the run when a step since the
    /// start could not be taken (a non-finite Courant rate, or a dt under the floor), naming
    /// that step and its rate.
    pub fn checked_clock(&self, ctx: &GpuContext) -> Result<Clock> {
        let c = self.clock(ctx)?;
        c.check(&self.cfg.dt_rule(), self.step)?;
        Ok(c)
    }

    /// The fields at the current step (waits for the GPU); the time and dt from the clock.
    pub fn read_fields(&self, ctx: &GpuContext) -> Result<GlidingFields> {
        let read = |name: &str| -> Result<Vec<f32>> {
            Ok(buffers::read_vec(ctx, self.plan.buffer(name))?)
        };
        let clock = self.clock(ctx)?;
        Ok(GlidingFields {
            step: self.step,
            time: clock.time(&self.cfg.dt_rule()),
            dt: f64::from(clock.dt),
            psi: read(filaments::PSI)?,
            velocity: read(filaments::VELOCITY)?,
            fluid: read(stokes::VELOCITY)?,
            motors: buffers::read_vec(ctx, self.plan.buffer(motors::STATE))?,
            motor_force: buffers::read_vec(ctx, self.plan.buffer(motors::FORCE))?,
        })
    }

    /// Everything a checkpoint holds (waits for the GPU); refused as `checked_clock` is.
    pub fn read_state(&self, ctx: &GpuContext) -> Result<GlidingState> {
        let clock = self.checked_clock(ctx)?;
        let f = self.read_fields(ctx)?;
        Ok(GlidingState {
            step: self.step,
            psi: f.psi,
            rate: buffers::read_vec(ctx, self.plan.buffer(filaments::RATE))?,
            bound: motors::read_bound(ctx, &self.plan, &self.chunks)?,
            motors: f.motors,
            motor_force: f.motor_force,
            fluid: f.fluid,
            velocity: f.velocity,
            clock,
        })
    }
}
