//! The Stokes solver on the GPU (`shaders/gliding/stokes.wgsl`):
//! -grad p + mu (lap_2 + eps^-2 d_zz) u + f = 0, div u = 0 in the channel, u = 0 at both walls,
//! for a body force f on the channel's grid (eps the channel's aspect ratio, 1: isotropic).
//! Passes, in a `StepPlan`: the force into a complex spectrum buffer (scaled by 1 / (nx ny),
//! the inverse FFT's normalization), the forward 2D FFT of its 3 nz levels (the scheduler's
//! `Fft`), the z problem of every Fourier mode (one thread per mode), the inverse FFT, the
//! real part out as the velocity. CPU reference: `stokes_cpu.rs`; formulation:
//! docs/models/gliding.md.

use super::channel::Channel;
use crate::error::Result;
use crate::shaders::gliding::stokes;
use petri_engine::{buffers, GpuContext};
use petri_scheduler::primitives::{Fft, FftAxes, FftDirection, FftShape};
use petri_scheduler::{dispatch_args, Binding, Every, PassDesc, StepPlan};

/// Plan buffers `add_buffers` registers. FORCE and VELOCITY are f32 (3, nz, ny, nx), x fastest,
/// components (x, y, z): the caller writes the force, the passes write the velocity.
pub const FORCE: &str = "stokes_force";
pub const VELOCITY: &str = "stokes_velocity";
pub const PARAMS: &str = "stokes_params";
pub const COEF: &str = "stokes_coef";
pub const SPECTRUM: &str = "stokes_spectrum";
pub const SCRATCH: &str = "stokes_scratch";

/// Complex scratch slots per mode and level (the shader's PERP, PART, HOM_A, HOM_B, PIVOT_Z,
/// PIVOT_K).
const SLOTS: u64 = 6;

/// The shader's `StokesParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StokesUniforms {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub modes: u32,
    pub mu: f32,
    pub inv_n: f32,
    pub kx_unit: f32,
    pub ky_unit: f32,
    /// Wall slope weights (x, y, z; w unused), `ZOperators::bottom` and `top`.
    pub bottom: [f32; 4],
    pub top: [f32; 4],
    /// eps^2, eps the channel's aspect ratio.
    pub eps2: f32,
    pub _pad0: f32,
    pub _pad1: f32,
    pub _pad2: f32,
}

impl StokesUniforms {
    pub fn new(channel: &Channel) -> Self {
        let ops = channel.operators();
        let tau = 2.0 * std::f64::consts::PI;
        Self {
            nx: channel.nx as u32,
            ny: channel.ny as u32,
            nz: channel.nz() as u32,
            modes: channel.modes() as u32,
            mu: channel.mu as f32,
            inv_n: (1.0 / channel.modes() as f64) as f32,
            kx_unit: (tau / channel.lx) as f32,
            ky_unit: (tau / channel.ly) as f32,
            bottom: [ops.bottom[0], ops.bottom[1], ops.bottom[2], 0.0].map(|v| v as f32),
            top: [ops.top[0], ops.top[1], ops.top[2], 0.0].map(|v| v as f32),
            eps2: (channel.eps * channel.eps) as f32,
            _pad0: 0.0,
            _pad1: 0.0,
            _pad2: 0.0,
        }
    }
}

/// Registers the solver's buffers (FORCE, VELOCITY and its own) in `plan`.
pub fn add_buffers(ctx: &GpuContext, plan: &mut StepPlan, channel: &Channel) -> Result<()> {
    channel.check()?;
    let (nz, modes) = (channel.nz() as u64, channel.modes() as u64);
    let points = 3 * nz * modes;
    let ops = channel.operators();
    let coef: Vec<[f32; 4]> = (0..channel.nz())
        .flat_map(|j| {
            let d = ops.d1[j];
            [
                [ops.lower[j] as f32, ops.upper[j] as f32, 0.0, 0.0],
                [d[0] as f32, d[1] as f32, d[2] as f32, 0.0],
            ]
        })
        .collect();
    let uniforms = StokesUniforms::new(channel);
    plan.add_buffer(PARAMS, buffers::uniform_from(ctx, PARAMS, &uniforms));
    plan.add_buffer(COEF, buffers::storage_from(ctx, COEF, &coef)?);
    plan.add_buffer(FORCE, buffers::storage_zeroed(ctx, FORCE, points * 4)?);
    plan.add_buffer(
        VELOCITY,
        buffers::storage_zeroed(ctx, VELOCITY, points * 4)?,
    );
    plan.add_buffer(
        SCRATCH,
        buffers::storage_zeroed(ctx, SCRATCH, SLOTS * nz * modes * 8)?,
    );
    plan.add_buffer(
        SPECTRUM,
        buffers::storage_zeroed(ctx, SPECTRUM, points * 8)?,
    );
    Ok(())
}

/// Appends the solver's passes to `plan` (its buffers registered by `add_buffers`), with
/// workgroups of `workgroup` threads. Same bits whatever `workgroup`: each mode is one thread's
/// sequential solve and every other pass is element-wise.
pub fn add_passes(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    channel: &Channel,
    workgroup: u32,
) -> Result<()> {
    ctx.check_workgroup_size("the gliding Stokes passes (workgroup)", [workgroup, 1, 1])?;
    let (nz, modes) = (channel.nz() as u64, channel.modes() as u64);
    let points = 3 * nz * modes;
    let shape = FftShape {
        batch: 3 * nz as u32,
        ny: channel.ny as u32,
        nx: channel.nx as u32,
    };
    let spectrum = plan.buffer(SPECTRUM).clone();
    let forward = Fft::new(ctx, &spectrum, shape, FftAxes::XY, FftDirection::Forward)?;
    let inverse = Fft::new(ctx, &spectrum, shape, FftAxes::XY, FftDirection::Inverse)?;
    let max = ctx.limits().max_compute_workgroups_per_dimension;
    let pass = |label, entry, items: u64| PassDesc {
        label,
        entry,
        bindings: vec![
            Binding::uniform(PARAMS),
            Binding::read(COEF),
            Binding::read(FORCE),
            Binding::read_write(SPECTRUM),
            Binding::read_write(SCRATCH),
            Binding::read_write(VELOCITY),
        ],
        workgroups: dispatch_args(items as u32, workgroup, max),
        constants: vec![("WG", workgroup as f64)],
    };
    plan.add_pass(ctx, pass("stokes load force", stokes::LOAD_FORCE, points))?;
    plan.add_recorded("stokes forward fft", forward, Every::STEP)?;
    plan.add_pass(ctx, pass("stokes solve", stokes::SOLVE, modes))?;
    plan.add_recorded("stokes inverse fft", inverse, Every::STEP)?;
    plan.add_pass(
        ctx,
        pass("stokes store velocity", stokes::STORE_VELOCITY, points),
    )?;
    Ok(())
}

/// The solver on a plan of its own: write a force, read the velocity back.
pub struct StokesSolver {
    plan: StepPlan,
    points: usize,
}

impl StokesSolver {
    pub fn new(ctx: &GpuContext, channel: &Channel, workgroup: u32) -> Result<Self> {
        let mut plan = StepPlan::new(ctx, 0, 1);
        add_buffers(ctx, &mut plan, channel)?;
        add_passes(ctx, &mut plan, channel, workgroup)?;
        Ok(Self {
            plan,
            points: 3 * channel.nz() * channel.modes(),
        })
    }

    /// The velocity (3, nz, ny, nx) of `force` (same shape), waiting for the GPU.
    pub fn solve(&mut self, ctx: &GpuContext, force: &[f32]) -> Result<Vec<f32>> {
        if force.len() != self.points {
            return Err(crate::error::invalid(
                "force",
                format!("{} values", force.len()),
                format!("3 x nz x ny x nx = {}", self.points),
            ));
        }
        ctx.queue
            .write_buffer(self.plan.buffer(FORCE), 0, bytemuck::cast_slice(force));
        self.plan.run(ctx, 1);
        Ok(buffers::read_vec(ctx, self.plan.buffer(VELOCITY))?)
    }

    /// The plan, e.g. to bind its buffers elsewhere.
    pub fn plan(&self) -> &StepPlan {
        &self.plan
    }
}
