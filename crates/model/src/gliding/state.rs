//! The state of a gliding run between two outer steps (what a checkpoint holds) and its check
//! against a config.

use super::clock::{Clock, DtRule, MIN_TICKS};
use super::motors::{MotorConfig, MotorTables};
use super::params::GlidingConfig;
use crate::checkpoint::check_step;
use crate::error::{ModelError, Result};

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
        .map_err(|m| ModelError::Usage(format!("not a state of a run of this config: {m}")))
}

/// How far below 0 Psi may be, relative to its largest value: AB2 and the spectral diffusion
/// keep it >= 0 only up to round-off where it is near 0.
pub const PSI_ROUNDOFF: f32 = 1e-3;

/// What a state of a config must look like: its array lengths and the capture disc's mask.
pub(crate) struct Shape {
    pub motors: MotorConfig,
    pub tables: MotorTables,
    pub cells: usize,
    pub ntheta: usize,
    pub nz: usize,
    /// The adaptive dt's rule (dt_max, the tick).
    pub rule: DtRule,
    /// The motors per anchor, as the GPU holds them (motors.density in f32).
    pub density: f32,
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
            rule: cfg.dt_rule(),
            density: cfg.motors.density as f32,
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
        Some(i) => Err(format!("{name} value {i} is {}: not finite", show(v[i]))),
        None => Ok(()),
    };
    finite("psi", &s.psi)?;
    finite("rate", &s.rate)?;
    finite("motors", bytemuck::cast_slice(&s.motors))?;
    finite("motor_force", bytemuck::cast_slice(&s.motor_force))?;
    finite("fluid", &s.fluid)?;
    finite("velocity", &s.velocity)?;
    check_psi(&s.psi)?;
    check_motors(shape, &s.motors)?;
    check_clock(shape, s)?;
    let flag = s.rate[nt * cells];
    if flag != f32::from(u8::from(s.step > 0)) {
        return Err(format!(
            "rate's last value (AB2's flag) is {} at step {}: 1 once a step has run, 0 before",
            show(flag),
            s.step
        ));
    }
    for (i, &v) in s.bound.iter().enumerate() {
        let inside = shape.tables.mask[i % block] != 0.0;
        if !(v.is_finite() && v >= 0.0 && (inside || v == 0.0)) {
            return Err(format!(
                "bound value {i} is {}: M_b is finite, >= 0, and 0 outside the capture disc",
                show(v)
            ));
        }
    }
    Ok(())
}

/// An f32 as a message prints it: in exponent form where plain would be long (1e-38 has 45
/// digits).
fn show(v: f32) -> String {
    let plain = v.to_string();
    match plain.len() > 12 {
        true => format!("{v:e}"),
        false => plain,
    }
}

/// Psi >= 0 up to round-off (`PSI_ROUNDOFF`).
fn check_psi(psi: &[f32]) -> std::result::Result<(), String> {
    let largest = psi.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    match psi.iter().position(|&v| v < -PSI_ROUNDOFF * largest) {
        Some(i) => Err(format!(
            "psi value {i} is {}: a filament density >= 0 (round-off down to -{PSI_ROUNDOFF} x its largest value, {})",
            show(psi[i]),
            show(largest)
        )),
        None => Ok(()),
    }
}

/// Per anchor: the total is motors.density, 0 <= bound <= total, free = total - bound
/// exactly (as the motor pass writes them), the walked-off tally >= 0.
fn check_motors(shape: &Shape, motors: &[[f32; 4]]) -> std::result::Result<(), String> {
    let total = shape.density;
    for (r, &[t, bound, free, walked]) in motors.iter().enumerate() {
        if t != total || !(0.0..=t).contains(&bound) || free != t - bound || walked < 0.0 {
            return Err(format!(
                "motors of anchor {r} are total {}, bound {}, free {}, walked off {}: the total is \
                 motors.density = {}, 0 <= bound <= total, free = total - bound, walked off >= 0",
                show(t),
                show(bound),
                show(free),
                show(walked),
                show(total)
            ));
        }
    }
    Ok(())
}

/// The clock of a state: no failed step; before the first step all 0; after it dt (and from
/// the second step dt_prev) a step the rule can take, in [the floor, dt], and the time in
/// ticks what `step` steps of those reach; the rate finite and >= 0. A dt of 0 after a step
/// would make AB2's ratio infinite.
fn check_clock(shape: &Shape, s: &GlidingState) -> std::result::Result<(), String> {
    let (c, rule) = (&s.clock, &shape.rule);
    if c.failure != 0 || c.failed_step != 0 || c.failed_rate != 0.0 {
        return Err(format!(
            "the clock records a step that could not be taken (failure {}, step {}, rate {}): not a state to go on from",
            c.failure, c.failed_step, show(c.failed_rate)
        ));
    }
    let (dt_min, dt_max) = (
        rule.dt_min() as f32,
        (f64::from(rule.max_ticks()) * rule.tick()) as f32,
    );
    for (name, v, steps) in [("dt", c.dt, 1), ("dt_prev", c.dt_prev, 2)] {
        let ok = match s.step >= steps {
            true => (dt_min..=dt_max).contains(&v),
            false => v == 0.0,
        };
        if !ok {
            return Err(format!(
                "the clock's {name} is {} at step {}: 0 before step {steps}, then a step in [{}, dt = {}]",
                show(v),
                s.step,
                show(dt_min),
                show(dt_max)
            ));
        }
    }
    let (least, most) = (
        u128::from(s.step) * u128::from(MIN_TICKS),
        u128::from(s.step) * u128::from(rule.max_ticks()),
    );
    if !(least..=most).contains(&u128::from(c.ticks())) {
        return Err(format!(
            "the clock's time is {} ticks at step {}: {} steps take {least} to {most} ticks",
            c.ticks(),
            s.step,
            s.step
        ));
    }
    if !(c.rate.is_finite() && c.rate >= 0.0) {
        return Err(format!(
            "the clock's rate is {}: a finite value >= 0",
            show(c.rate)
        ));
    }
    Ok(())
}
