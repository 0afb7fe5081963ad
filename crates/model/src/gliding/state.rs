//! The state of a gliding run between two outer steps (what a checkpoint holds) and its check
//! against a config.

use super::clock::Clock;
use super::motors::{MotorConfig, MotorTables};
use super::params::GlidingConfig;
use crate::checkpoint::check_step;
use crate::error::{invalid, Result};

/// Everything a step reads that an earlier step wrote: a checkpoint's content.
#[derive(Clone, Debug, PartialEq)]
pub struct GlidingState {
    pub step: u64,
    /// Psi (ntheta, ny, nx).
    pub psi: Vec<f32>,
    /// The last advective rate per cell and AB2's flag (filaments.rs RATE).
    pub rate: Vec<f32>,
    /// M_b (r0, d, theta, s).
    pub bound: Vec<f32>,
    /// Per anchor: total, coarse, free, walked off.
    pub motors: Vec<[f32; 4]>,
    pub motor_force: Vec<[f32; 2]>,
    /// The fluid velocity (3, nz, ny, nx) and the filament velocities (3, ntheta, ny, nx) of the
    /// last step.
    pub fluid: Vec<f32>,
    pub velocity: Vec<f32>,
    /// The clock: the last two steps' dt (variable-step AB2 reads both), the time in ticks, the
    /// last step's Courant rate; no step failed (`Clock::check`).
    pub clock: Clock,
}

/// Fails unless `state` is a state of a run of `cfg` (the message says what is wrong): what a
/// resumed simulation checks, whether the state came from a file or not.
pub fn check(cfg: &GlidingConfig, state: &GlidingState) -> Result<()> {
    let shape = Shape::of(cfg)?;
    check_state(&shape, state)
        .map_err(|m| invalid("gliding state", m, "a state of this config's run"))
}

/// What a state of a config must look like: its array lengths and the capture disc's mask.
pub(crate) struct Shape {
    pub motors: MotorConfig,
    pub tables: MotorTables,
    pub cells: usize,
    pub ntheta: usize,
    pub nz: usize,
    /// The largest outer step, as the GPU holds it (f32).
    pub dt_max: f32,
}

impl Shape {
    pub fn of(cfg: &GlidingConfig) -> Result<Shape> {
        cfg.validate()?;
        let motors = cfg.motor_config();
        let tables = MotorTables::new(&motors)?;
        let g = &cfg.grid;
        Ok(Shape {
            motors,
            tables,
            cells: g.nx * g.ny,
            ntheta: g.ntheta,
            nz: g.nz,
            dt_max: cfg.dt as f32,
        })
    }
}

/// Consistency of a state with its config; the message says what is wrong.
pub(crate) fn check_state(shape: &Shape, s: &GlidingState) -> std::result::Result<(), String> {
    check_step(s.step)?;
    let (cells, nt) = (shape.cells, shape.ntheta);
    let block = shape.tables.block(&shape.motors);
    let lengths = [
        ("psi", s.psi.len(), nt * cells, "ntheta x ny x nx"),
        ("rate", s.rate.len(), nt * cells + 1, "ntheta x ny x nx + 1"),
        (
            "bound",
            s.bound.len(),
            cells * block,
            "anchors x stencil x ntheta x ns",
        ),
        ("motors", 4 * s.motors.len(), 4 * cells, "4 x ny x nx"),
        (
            "motor_force",
            2 * s.motor_force.len(),
            2 * cells,
            "2 x ny x nx",
        ),
        (
            "fluid",
            s.fluid.len(),
            3 * shape.nz * cells,
            "3 x nz x ny x nx",
        ),
        (
            "velocity",
            s.velocity.len(),
            3 * nt * cells,
            "3 x ntheta x ny x nx",
        ),
    ];
    for (name, len, want, what) in lengths {
        if len != want {
            return Err(format!(
                "{name} holds {len} numbers, the config's grid needs {what} = {want}"
            ));
        }
    }
    let finite = |name: &str, v: &[f32]| match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(format!("{name} value {i} is {}: not finite", v[i])),
        None => Ok(()),
    };
    finite("psi", &s.psi)?;
    finite("rate", &s.rate)?;
    finite("motors", bytemuck::cast_slice(&s.motors))?;
    finite("motor_force", bytemuck::cast_slice(&s.motor_force))?;
    finite("fluid", &s.fluid)?;
    finite("velocity", &s.velocity)?;
    check_clock(shape, &s.clock)?;
    let flag = s.rate[nt * cells];
    if flag != 0.0 && flag != 1.0 {
        return Err(format!(
            "rate's last value (AB2's flag) is {flag}: not 0 or 1"
        ));
    }
    for (i, &v) in s.bound.iter().enumerate() {
        let inside = shape.tables.mask[i % block] != 0.0;
        if !(v.is_finite() && v >= 0.0 && (inside || v == 0.0)) {
            return Err(format!(
                "bound value {i} is {v}: M_b is finite, >= 0, and 0 outside the capture disc"
            ));
        }
    }
    Ok(())
}

/// The clock of a state: no failed step; dt and dt_prev in [0, dt_max]; the rate finite and
/// >= 0.
fn check_clock(shape: &Shape, c: &Clock) -> std::result::Result<(), String> {
    if c.failure != 0 || c.failed_step != 0 || c.failed_rate != 0.0 {
        return Err(format!(
            "the clock records a step that could not be taken (failure {}, step {}, rate {}): not a state to go on from",
            c.failure, c.failed_step, c.failed_rate
        ));
    }
    for (name, v) in [("dt", c.dt), ("dt_prev", c.dt_prev)] {
        if !(0.0..=shape.dt_max).contains(&v) {
            return Err(format!(
                "the clock's {name} is {v}: a step in [0, dt = {}]",
                shape.dt_max
            ));
        }
    }
    if !(c.rate.is_finite() && c.rate >= 0.0) {
        return Err(format!(
            "the clock's rate is {}: a finite value >= 0",
            c.rate
        ));
    }
    Ok(())
}
