//! The outer step's adaptive dt on the GPU (`shaders/gliding/clock.wgsl`, the seed's algorithm
//! 1, line 3: dt restricted by the advective fluxes of eq. 1). Every step, after the velocity
//! pass has taken the step's largest Courant rate ([`STATS`], written by `coupling.rs`), one thread sets
//!
//!   dt_n = min(dt_max, safety CFL / rate)      (dt_max when the rate is 0)
//!
//! rounded down to a whole number of ticks, moves dt_(n-1) and adds dt_n to the time, all in
//! the small storage buffer [`CLOCK`] that the filament and motor passes read dt from. The
//! tick is a power of two with dt_max / tick in [2^23, 2^24): every dt is then exact in f32 and
//! the time is a 64-bit integer count of ticks, exact, with no drift and nothing a compiler
//! may reorder (a compensated f32 sum is not safe: Mesa's shader compiler folded Kahan's
//! correction (t - t_old) - y to 0). Nothing is read back per step: observations read the
//! clock ([`Clock`]), and a step that could not be taken (a non-finite rate, or a dt under the
//! floor of [`MIN_TICKS`]) is recorded there with its step, for the observation to stop the
//! run ([`Clock::check`]). The CPU reference applies the same rule in f64 ([`DtRule::next_dt`]).

use crate::error::{short, ModelError, Result};
use crate::shaders::gliding::clock;
use petri_engine::{buffers, GpuContext};
use petri_scheduler::{Binding, PassDesc, StepPlan};

/// The floor of dt in ticks, 2^-12 to 2^-11 of dt_max: a Courant rate that needs less stops the
/// run (the velocities have blown up). dt keeps 12 significant bits at the floor.
pub const MIN_TICKS: u32 = 4096;

/// The advective Courant number the outer dt keeps to: dt (max|Ux|/dx + max|Uy|/dy +
/// max|Omega|/dtheta) <= CFL. 1/4: AB2 with the unlimited second-order upwind operator is
/// linearly stable up to a Courant number of 0.25 (its amplification roots computed over all
/// wavenumbers; 0.5 for first-order upwind), and a forward Euler step of the minmod-limited
/// scheme keeps Psi >= 0 up to 1/2. At 0.5 the limited AB2 scheme stays bounded but amplifies
/// round-off (the f32 and f64 runs parted by 5e-3 in 38 steps).
pub const CFL: f64 = 0.25;

/// One u32: the bits of the step's largest Courant rate (f32), an atomic max of the velocity
/// pass (`coupling.rs`), read and cleared by the clock pass.
pub const STATS: &str = "coupling_stats";

/// The clock buffer: one [`Clock`].
pub const CLOCK: &str = "gliding_clock";
pub const PARAMS: &str = "clock_params";

/// The shader's `Clock` (shaders/gliding/clock_state.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Clock {
    /// dt_n: the last step's (the one under way while a step runs); 0 before the first step.
    pub dt: f32,
    /// dt_(n-1): the step before the last (AB2's ratio r = dt / dt_prev).
    pub dt_prev: f32,
    /// The last step's largest Courant rate.
    pub rate: f32,
    /// 0, or why a step could not be taken: [`NON_FINITE`] or [`BELOW_FLOOR`].
    pub failure: u32,
    /// The time after the last step in ticks ([`DtRule::tick`]), low and high words.
    pub ticks_lo: u32,
    pub ticks_hi: u32,
    /// The first step that could not be taken (the step from `failed_step` to
    /// `failed_step + 1`) and its rate.
    pub failed_step: u32,
    pub failed_rate: f32,
}

/// `Clock::failure`: the step's Courant rate was NaN or infinite.
pub const NON_FINITE: u32 = 1;
/// `Clock::failure`: the step's Courant rate needed a dt under the floor.
pub const BELOW_FLOOR: u32 = 2;

impl Clock {
    /// A clock that gives the passes `dt` with `dt_prev` before it (a part stepped on its own).
    pub fn fixed(dt: f64, dt_prev: f64) -> Self {
        Self {
            dt: dt as f32,
            dt_prev: dt_prev as f32,
            ..Self::default()
        }
    }

    /// The time in ticks.
    pub fn ticks(&self) -> u64 {
        u64::from(self.ticks_hi) << 32 | u64::from(self.ticks_lo)
    }

    /// The time reached, for ticks of `rule`.
    pub fn time(&self, rule: &DtRule) -> f64 {
        self.ticks() as f64 * rule.tick()
    }

    /// The last step's Courant number dt rate (at most safety x CFL).
    pub fn courant(&self) -> f64 {
        f64::from(self.dt) * f64::from(self.rate)
    }

    /// Fails when a step could not be taken, naming the step, its Courant rate and `now` (the
    /// step the run stopped at).
    pub fn check(&self, rule: &DtRule, now: u64) -> Result<()> {
        let (step, rate) = (u64::from(self.failed_step), f64::from(self.failed_rate));
        match self.failure {
            0 => Ok(()),
            NON_FINITE => Err(non_finite(step, now)),
            _ => Err(rule.below_floor(step, rate, now)),
        }
    }
}

fn non_finite(step: u64, now: u64) -> ModelError {
    ModelError::NonFinite {
        what: "the filament velocities (the Courant rate of the outer step)".into(),
        after: step,
        at: now,
    }
}

/// The adaptive dt's rule: dt_max and the safety factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DtRule {
    pub dt_max: f64,
    pub safety: f64,
}

impl DtRule {
    /// The Courant number dt is kept to: safety x CFL.
    pub fn courant(&self) -> f64 {
        self.safety * CFL
    }

    /// The unit of dt and of the time: 2^(e - 23) for dt_max in [2^e, 2^(e+1)), so dt_max is
    /// 2^23 to 2^24 ticks (dt_max a normal f64 > 0, as the config's is).
    pub fn tick(&self) -> f64 {
        let e = ((self.dt_max.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        2f64.powi(e - 23)
    }

    /// dt_max in whole ticks (the largest step taken: dt_max rounded down).
    pub fn max_ticks(&self) -> u32 {
        (self.dt_max / self.tick()).floor() as u32
    }

    /// The floor of dt.
    pub fn dt_min(&self) -> f64 {
        f64::from(MIN_TICKS) * self.tick()
    }

    /// dt for a step of Courant rate `rate` (the shader's rule in f64), or the error that stops
    /// the run at `step`: a non-finite rate, or a dt under the floor.
    pub fn next_dt(&self, rate: f64, step: u64) -> Result<f64> {
        if !rate.is_finite() {
            return Err(non_finite(step, step + 1));
        }
        let mut ticks = f64::from(self.max_ticks());
        if rate > 0.0 {
            let want = self.courant() / self.tick() / rate;
            if want < ticks {
                ticks = want.floor();
                if ticks < f64::from(MIN_TICKS) {
                    return Err(self.below_floor(step, rate, step + 1));
                }
            }
        }
        Ok(ticks * self.tick())
    }

    fn below_floor(&self, step: u64, rate: f64, now: u64) -> ModelError {
        ModelError::Stalled {
            message: format!(
                "the Courant rate {} of the step from step {step} needs dt = {} (courant_safety {} x the AB2 bound {CFL} / the rate), under the floor {:.4e} ({MIN_TICKS} ticks, dt / {:.0}); stopped at step {now}",
                short(rate),
                short(self.courant() / rate),
                short(self.safety),
                self.dt_min(),
                self.dt_max / self.dt_min(),
            ),
        }
    }
}

/// The shader's `ClockParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClockParams {
    /// dt_max and the floor in ticks.
    pub max_ticks: u32,
    pub min_ticks: u32,
    pub tick: f32,
    /// safety x CFL in ticks.
    pub courant_ticks: f32,
}

/// Registers CLOCK (zeroed: time 0, no step yet) in `plan`.
pub fn add_buffer(ctx: &GpuContext, plan: &mut StepPlan) -> Result<()> {
    let size = std::mem::size_of::<Clock>() as u64;
    plan.add_buffer(CLOCK, buffers::storage_zeroed(ctx, CLOCK, size)?);
    Ok(())
}

/// Registers the clock pass's parameters and appends the pass (one thread); CLOCK and the
/// coupling's STATS must be in `plan`, and the pass must come after the velocity pass.
pub fn add_pass(ctx: &GpuContext, plan: &mut StepPlan, rule: &DtRule) -> Result<()> {
    let params = ClockParams {
        max_ticks: rule.max_ticks(),
        min_ticks: MIN_TICKS,
        tick: rule.tick() as f32,
        courant_ticks: (rule.courant() / rule.tick()) as f32,
    };
    plan.add_buffer(PARAMS, buffers::uniform_from(ctx, PARAMS, &params));
    plan.add_pass(
        ctx,
        PassDesc {
            label: "coupling clock",
            entry: clock::ADVANCE_CLOCK,
            bindings: vec![
                Binding::uniform(PARAMS),
                Binding::read_write(STATS),
                Binding::read_write(CLOCK),
            ],
            workgroups: [1, 1, 1],
            constants: vec![],
        },
    )?;
    Ok(())
}

/// The clock (waits for the GPU).
pub fn read(ctx: &GpuContext, plan: &StepPlan) -> Result<Clock> {
    let v: Vec<Clock> = buffers::read_vec(ctx, plan.buffer(CLOCK))?;
    Ok(v[0])
}

/// Writes `clock` into CLOCK.
pub fn write(ctx: &GpuContext, plan: &StepPlan, clock: &Clock) {
    ctx.queue
        .write_buffer(plan.buffer(CLOCK), 0, bytemuck::bytes_of(clock));
}
