//! Filament density transport on the GPU (`shaders/gliding/filaments.wgsl`): one outer step of
//!
//!   dPsi/dt + div_x(U Psi) + d_theta(Omega Psi) = D_t lap_x Psi + D_r d_theta^2 Psi
//!
//! for Psi(x, y, theta) on a periodic nx x ny x ntheta grid, with given velocities U (2
//! components) and Omega (seed eqs. 1-3; `filaments_cpu::gliding_velocities` builds them from a
//! 2D fluid velocity). Advection: conservative finite volumes, minmod-limited second-order
//! upwind face values, Adams-Bashforth 2 in time with variable steps (forward Euler on the
//! first step). Diffusion: Crank-Nicolson, spectral in x, y (the scheduler's `Fft`, where CN is
//! diagonal per mode) and second-order finite differences in theta (a periodic tridiagonal
//! solve per (kx, ky) mode, Sherman-Morrison). CPU reference: `filaments_cpu.rs`; formulation
//! and measured errors: docs/models/gliding.md.
//!
//! Layout: every field is (theta, y, x), x fastest. The x, y FFT is then the scheduler's batched
//! 2D transform (batch = ntheta planes) with no transpose, and the theta solve is one thread per
//! (kx, ky) mode walking the planes with stride nx ny, so neighbouring threads touch
//! neighbouring memory (as the Stokes z solve does). theta needs no power of two.
//!
//! The step's dt_n and dt_(n-1) come from the clock buffer (`clock.rs` CLOCK): in the coupled
//! model the clock pass sets them on the GPU every step; a transport on its own writes them.
//!
//! Passes, in a `StepPlan`: `advect` (per cell: the advective rate, the AB2 increment, both
//! Psi and the increment into a complex buffer of 2 ntheta planes), the forward 2D FFT of all
//! 2 ntheta planes, `diffuse` (per mode: the CN right-hand side and the cyclic solve, 1/(nx ny)
//! folded in), the inverse FFT of the first ntheta planes, `store` (the real part back into
//! Psi). Every pass is element-wise or one thread per mode, so the bits do not depend on the
//! workgroup size.

use super::channel::MAX_AXIS;
use super::clock::{self, Clock, CFL, CLOCK};
use super::ranges::{check_range, PERIODS, RATES};
use crate::error::{invalid, Result};
use crate::shaders::gliding::filaments;
use petri_engine::{buffers, GpuContext};
use petri_scheduler::primitives::{Fft, FftAxes, FftDirection, FftShape};
use petri_scheduler::{dispatch_args, Binding, Every, PassDesc, StepPlan};

/// The most angles, for the filaments and the motors alike.
pub const MAX_NTHETA: usize = 4096;

/// Grid and diffusivities of the filament density.
#[derive(Clone, Debug, PartialEq)]
pub struct FilamentConfig {
    pub nx: usize,
    pub ny: usize,
    pub ntheta: usize,
    /// Periods in x and y.
    pub lx: f64,
    pub ly: f64,
    /// Translational (D_t) and rotational (D_r) diffusivities.
    pub d_t: f64,
    pub d_r: f64,
}

impl FilamentConfig {
    pub fn new(
        nx: usize,
        ny: usize,
        ntheta: usize,
        lx: f64,
        ly: f64,
        d_t: f64,
        d_r: f64,
    ) -> Result<Self> {
        let c = Self {
            nx,
            ny,
            ntheta,
            lx,
            ly,
            d_t,
            d_r,
        };
        c.check()?;
        Ok(c)
    }

    /// Fails naming the field, its value and what is allowed.
    pub fn check(&self) -> Result<()> {
        for (field, n) in [("grid.nx", self.nx), ("grid.ny", self.ny)] {
            if !n.is_power_of_two() || n > MAX_AXIS {
                return Err(invalid(
                    field,
                    n,
                    format!("a power of two in 1..={MAX_AXIS} (the FFT's axes)"),
                ));
            }
        }
        if !(3..=MAX_NTHETA).contains(&self.ntheta) {
            return Err(invalid(
                "grid.ntheta",
                self.ntheta,
                format!("3..={MAX_NTHETA} (the periodic tridiagonal solve in theta needs 3)"),
            ));
        }
        if self.cells() > 1 << 28 {
            return Err(invalid(
                "grid.nx x grid.ny x grid.ntheta",
                self.cells(),
                "at most 2^28 cells (u32 indices over 2 ntheta planes and 3 components)",
            ));
        }
        for (field, l) in [("grid.lx", self.lx), ("grid.ly", self.ly)] {
            check_range(field, l, PERIODS, "a period")?;
        }
        for (field, d) in [("filaments.d_t", self.d_t), ("filaments.d_r", self.d_r)] {
            check_range(field, d, RATES, "a diffusivity")?;
        }
        Ok(())
    }

    pub fn modes(&self) -> usize {
        self.nx * self.ny
    }

    pub fn cells(&self) -> usize {
        self.nx * self.ny * self.ntheta
    }

    pub fn dx(&self) -> f64 {
        self.lx / self.nx as f64
    }

    pub fn dy(&self) -> f64 {
        self.ly / self.ny as f64
    }

    pub fn dtheta(&self) -> f64 {
        std::f64::consts::TAU / self.ntheta as f64
    }

    /// Cell (i, j, k) at x = i dx, y = j dy, theta = k dtheta, index (k ny + j) nx + i.
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.ny + j) * self.nx + i
    }

    /// The largest stable outer dt for these speeds |Ux|, |Uy|, |Omega| of one cell (infinite
    /// when all are 0): CFL / (ux/dx + uy/dy + omega/dtheta).
    pub fn max_stable_dt(&self, ux: f64, uy: f64, omega: f64) -> f64 {
        let rate = ux.abs() / self.dx() + uy.abs() / self.dy() + omega.abs() / self.dtheta();
        if rate > 0.0 {
            CFL / rate
        } else {
            f64::INFINITY
        }
    }

    /// `max_stable_dt` of a velocity array (3, ntheta, ny, nx): Ux, Uy, Omega, at the cell of
    /// the largest Courant rate (as the coupled model's clock takes it).
    pub fn max_stable_dt_of(&self, velocity: &[f64]) -> f64 {
        let n = self.cells();
        (0..n)
            .map(|i| self.max_stable_dt(velocity[i], velocity[n + i], velocity[2 * n + i]))
            .fold(f64::INFINITY, f64::min)
    }

    /// Fails unless dt is finite, > 0 and at most `bound` (the velocities' `max_stable_dt`).
    pub fn check_dt(&self, dt: f64, bound: f64) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0 && dt <= bound) {
            return Err(invalid(
                "dt",
                dt,
                format!(
                    "a finite step > 0 and <= {} (the advective CFL bound {CFL} / (max|Ux|/dx + max|Uy|/dy + max|Omega|/dtheta))",
                    crate::error::short(bound)
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn check_len(&self, field: &str, len: usize, per_cell: usize) -> Result<()> {
        if len != per_cell * self.cells() {
            return Err(invalid(
                field,
                format!("{len} values"),
                format!(
                    "{per_cell} x ntheta x ny x nx = {}",
                    per_cell * self.cells()
                ),
            ));
        }
        Ok(())
    }
}

/// Plan buffers `add_buffers` registers. PSI is f32 (ntheta, ny, nx); VELOCITY f32 (3, ntheta,
/// ny, nx): Ux, Uy, Omega. RATE holds the last advective rate (AB2's history), then one more
/// value: 1 once a step has run (AB2 has its history), 0 to make the next step forward Euler.
pub const PSI: &str = "filaments_psi";
pub const VELOCITY: &str = "filaments_velocity";
pub const RATE: &str = "filaments_rate";
pub const PARAMS: &str = "filaments_params";
pub const SPECTRUM: &str = "filaments_spectrum";
pub const SCRATCH: &str = "filaments_scratch";

/// The shader's `FilamentParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FilamentUniforms {
    pub nx: u32,
    pub ny: u32,
    pub ntheta: u32,
    pub modes: u32,
    pub _pad3: u32,
    pub inv_dx: f32,
    pub inv_dy: f32,
    pub inv_dtheta: f32,
    /// D_t / 2 and D_r / (2 dtheta^2): the CN weights per unit dt (the clock's).
    pub cn_x: f32,
    pub cn_theta: f32,
    pub kx_unit: f32,
    pub ky_unit: f32,
    pub inv_n: f32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

impl FilamentUniforms {
    pub fn new(c: &FilamentConfig) -> Self {
        let tau = std::f64::consts::TAU;
        Self {
            nx: c.nx as u32,
            ny: c.ny as u32,
            ntheta: c.ntheta as u32,
            modes: c.modes() as u32,
            _pad3: 0,
            inv_dx: (1.0 / c.dx()) as f32,
            inv_dy: (1.0 / c.dy()) as f32,
            inv_dtheta: (1.0 / c.dtheta()) as f32,
            cn_x: (0.5 * c.d_t) as f32,
            cn_theta: (0.5 * c.d_r / (c.dtheta() * c.dtheta())) as f32,
            kx_unit: (tau / c.lx) as f32,
            ky_unit: (tau / c.ly) as f32,
            inv_n: (1.0 / c.modes() as f64) as f32,
            _pad0: 0,
            _pad1: 0,
            _pad2: 0,
        }
    }
}

/// Registers the transport's buffers in `plan` (not CLOCK, which the passes read dt from:
/// `clock::add_buffer`). Write 0 into RATE's last value to restart AB2 (a new Psi).
pub fn add_buffers(ctx: &GpuContext, plan: &mut StepPlan, config: &FilamentConfig) -> Result<()> {
    config.check()?;
    let cells = config.cells() as u64;
    let uniforms = FilamentUniforms::new(config);
    plan.add_buffer(PARAMS, buffers::uniform_from(ctx, PARAMS, &uniforms));
    plan.add_buffer(
        VELOCITY,
        buffers::storage_zeroed(ctx, VELOCITY, 3 * cells * 4)?,
    );
    plan.add_buffer(PSI, buffers::storage_zeroed(ctx, PSI, cells * 4)?);
    plan.add_buffer(RATE, buffers::storage_zeroed(ctx, RATE, (cells + 1) * 4)?);
    plan.add_buffer(SCRATCH, buffers::storage_zeroed(ctx, SCRATCH, cells * 8)?);
    plan.add_buffer(
        SPECTRUM,
        buffers::storage_zeroed(ctx, SPECTRUM, 2 * cells * 8)?,
    );
    Ok(())
}

/// Appends the transport's passes to `plan` (its buffers registered by `add_buffers`), with
/// workgroups of `workgroup` threads.
pub fn add_passes(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    config: &FilamentConfig,
    workgroup: u32,
) -> Result<()> {
    ctx.check_workgroup_size("the gliding filament passes (workgroup)", [workgroup, 1, 1])?;
    let cells = config.cells() as u64;
    let modes = config.modes() as u64;
    let spectrum = plan.buffer(SPECTRUM).clone();
    let shape = |planes: usize| FftShape {
        batch: planes as u32,
        ny: config.ny as u32,
        nx: config.nx as u32,
    };
    let forward = Fft::new(
        ctx,
        &spectrum,
        shape(2 * config.ntheta),
        FftAxes::XY,
        FftDirection::Forward,
    )?;
    let inverse = Fft::new(
        ctx,
        &spectrum,
        shape(config.ntheta),
        FftAxes::XY,
        FftDirection::Inverse,
    )?;
    let max = ctx.limits().max_compute_workgroups_per_dimension;
    let pass = |label, entry, items: u64| PassDesc {
        label,
        entry,
        bindings: vec![
            Binding::uniform(PARAMS),
            Binding::read(VELOCITY),
            Binding::read_write(PSI),
            Binding::read_write(RATE),
            Binding::read_write(SPECTRUM),
            Binding::read_write(SCRATCH),
            Binding::read(CLOCK),
        ],
        workgroups: dispatch_args(items as u32, workgroup, max),
        constants: vec![("WG", workgroup as f64)],
    };
    plan.add_pass(ctx, pass("filaments advect", filaments::ADVECT, cells))?;
    plan.add_recorded("filaments forward fft", forward, Every::STEP)?;
    plan.add_pass(ctx, pass("filaments diffuse", filaments::DIFFUSE, modes))?;
    plan.add_recorded("filaments inverse fft", inverse, Every::STEP)?;
    plan.add_pass(ctx, pass("filaments store", filaments::STORE, cells))?;
    Ok(())
}

/// The transport on a plan of its own: write Psi and the velocities, step, read Psi back.
pub struct FilamentTransport {
    plan: StepPlan,
    config: FilamentConfig,
    /// dt of the last step (AB2's history is valid for it), if any since the last reset.
    last_dt: Option<f64>,
    /// `max_stable_dt` of the current velocities.
    bound: f64,
}

impl FilamentTransport {
    pub fn new(ctx: &GpuContext, config: &FilamentConfig, workgroup: u32) -> Result<Self> {
        let mut plan = StepPlan::new(ctx, 0, 1);
        add_buffers(ctx, &mut plan, config)?;
        clock::add_buffer(ctx, &mut plan)?;
        add_passes(ctx, &mut plan, config, workgroup)?;
        Ok(Self {
            plan,
            config: config.clone(),
            last_dt: None,
            bound: f64::INFINITY,
        })
    }

    pub fn config(&self) -> &FilamentConfig {
        &self.config
    }

    /// Sets Psi (ntheta, ny, nx) and restarts AB2 (the next step is forward Euler).
    pub fn set_psi(&mut self, ctx: &GpuContext, psi: &[f32]) -> Result<()> {
        self.config.check_len("psi", psi.len(), 1)?;
        ctx.queue
            .write_buffer(self.plan.buffer(PSI), 0, bytemuck::cast_slice(psi));
        self.reset_history(ctx);
        Ok(())
    }

    /// Sets the velocities (3, ntheta, ny, nx): Ux, Uy, Omega (finite values), and the dt bound.
    /// AB2's history is kept: in the model the velocities change every step.
    pub fn set_velocities(&mut self, ctx: &GpuContext, velocity: &[f32]) -> Result<()> {
        self.config.check_len("velocity", velocity.len(), 3)?;
        if let Some(v) = velocity.iter().find(|v| !v.is_finite()) {
            return Err(invalid("velocity", v, "finite values"));
        }
        ctx.queue.write_buffer(
            self.plan.buffer(VELOCITY),
            0,
            bytemuck::cast_slice(velocity),
        );
        let wide: Vec<f64> = velocity.iter().map(|&v| f64::from(v)).collect();
        self.bound = self.config.max_stable_dt_of(&wide);
        Ok(())
    }

    /// The largest dt `step` accepts with the current velocities.
    pub fn max_dt(&self) -> f64 {
        self.bound
    }

    /// `steps` outer steps of `dt` (refused above `max_dt`). After a step of another dt the
    /// first is variable-step AB2 (r = dt / the last dt).
    pub fn step(&mut self, ctx: &GpuContext, dt: f64, mut steps: u64) -> Result<()> {
        self.config.check_dt(dt, self.bound)?;
        if steps == 0 {
            return Ok(());
        }
        let last = self.last_dt.unwrap_or(dt);
        if last != dt {
            clock::write(ctx, &self.plan, &Clock::fixed(dt, last));
            self.plan.run(ctx, 1);
            steps -= 1;
        }
        clock::write(ctx, &self.plan, &Clock::fixed(dt, dt));
        self.plan.run(ctx, steps);
        self.last_dt = Some(dt);
        Ok(())
    }

    /// Psi (ntheta, ny, nx), waiting for the GPU.
    pub fn psi(&self, ctx: &GpuContext) -> Result<Vec<f32>> {
        Ok(buffers::read_vec(ctx, self.plan.buffer(PSI))?)
    }

    /// The plan, e.g. to bind its buffers elsewhere.
    pub fn plan(&self) -> &StepPlan {
        &self.plan
    }

    fn reset_history(&mut self, ctx: &GpuContext) {
        let offset = self.config.cells() as u64 * 4;
        ctx.queue
            .write_buffer(self.plan.buffer(RATE), offset, bytemuck::bytes_of(&0.0f32));
        self.last_dt = None;
    }
}
