//! The coupling passes on the GPU (`shaders/gliding/coupling.wgsl`): the moments of Psi, the
//! force on the fluid on the filament level, and the filament velocities from the fluid and the
//! moments with the largest Courant rate. Formulation and CPU reference: `coupling_cpu.rs`.
//! They bind the buffers the filament, motor and Stokes passes register in the same plan.

use super::coupling_cpu::sheet_width;
use super::fields::GlidingGrid;
use super::params::FilamentParams;
use super::{filaments, motors, stokes};
use crate::error::Result;
use crate::shaders::gliding::coupling;
use petri_engine::{buffers, GpuContext};
use petri_scheduler::{dispatch_args, Binding, PassDesc, StepPlan};

pub const PARAMS: &str = "coupling_params";
pub const MOMENTS: &str = "coupling_moments";
/// One u32: the bits of the largest Courant rate (f32) since the clock last cleared it.
pub use super::clock::STATS;

/// The shader's `CouplingParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CouplingUniforms {
    pub nx: u32,
    pub ny: u32,
    pub ntheta: u32,
    pub nz: u32,
    pub level: u32,
    pub turn_rate: f32,
    pub _pad: [u32; 2],
    pub dtheta: f32,
    pub inv_2dx: f32,
    pub inv_2dy: f32,
    pub inv_sheet: f32,
    pub v_sp: f32,
    pub u_t: f32,
    pub u_r: f32,
    pub sigma_f: f32,
    pub sigma_t: f32,
    pub inv_dx: f32,
    pub inv_dy: f32,
    pub inv_dtheta: f32,
}

impl CouplingUniforms {
    pub fn new(g: &GlidingGrid, f: &FilamentParams) -> Self {
        Self {
            nx: g.nx as u32,
            ny: g.ny as u32,
            ntheta: g.ntheta as u32,
            nz: g.nz() as u32,
            level: g.z0_level as u32,
            turn_rate: f.turn_rate as f32,
            _pad: [0; 2],
            dtheta: g.dtheta() as f32,
            inv_2dx: (0.5 / g.dx()) as f32,
            inv_2dy: (0.5 / g.dy()) as f32,
            inv_sheet: (1.0 / sheet_width(&g.z, g.z0_level)) as f32,
            v_sp: f.v_sp as f32,
            u_t: f.u_t as f32,
            u_r: f.u_r as f32,
            sigma_f: f.sigma_f as f32,
            sigma_t: f.sigma_t as f32,
            inv_dx: (1.0 / g.dx()) as f32,
            inv_dy: (1.0 / g.dy()) as f32,
            inv_dtheta: (1.0 / g.dtheta()) as f32,
        }
    }
}

/// Which coupling pass to append.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CouplingPass {
    /// The moments of Psi.
    Moments,
    /// The motor force and stress divergences into the Stokes force.
    ForceOnFluid,
    /// The filament velocities and the Courant rate.
    Velocities,
}

/// Registers the coupling's own buffers (PARAMS, MOMENTS, STATS) in `plan`.
pub fn add_buffers(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    g: &GlidingGrid,
    f: &FilamentParams,
) -> Result<()> {
    let uniforms = CouplingUniforms::new(g, f);
    plan.add_buffer(PARAMS, buffers::uniform_from(ctx, PARAMS, &uniforms));
    plan.add_buffer(
        MOMENTS,
        buffers::storage_zeroed(ctx, MOMENTS, g.cells() as u64 * 32)?,
    );
    plan.add_buffer(STATS, buffers::storage_zeroed(ctx, STATS, 16)?);
    Ok(())
}

/// Appends one coupling pass (workgroups of `workgroup` threads); the buffers of
/// `add_buffers` and of the filament, motor and Stokes passes must be in `plan`.
pub fn add_pass(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    g: &GlidingGrid,
    pass: CouplingPass,
    workgroup: u32,
) -> Result<()> {
    ctx.check_workgroup_size("the gliding coupling passes (workgroup)", [workgroup, 1, 1])?;
    let max = ctx.limits().max_compute_workgroups_per_dimension;
    let cells = g.cells() as u32;
    let (label, entry, items) = match pass {
        CouplingPass::Moments => ("coupling moments", coupling::MOMENTS_OF_PSI, cells),
        CouplingPass::ForceOnFluid => ("coupling force on fluid", coupling::FORCE_ON_FLUID, cells),
        CouplingPass::Velocities => (
            "coupling velocities",
            coupling::FILAMENT_VELOCITIES,
            cells * g.ntheta as u32,
        ),
    };
    plan.add_pass(
        ctx,
        PassDesc {
            label,
            entry,
            bindings: vec![
                Binding::uniform(PARAMS),
                Binding::read(filaments::PSI),
                Binding::read_write(MOMENTS),
                Binding::read(motors::FORCE),
                Binding::read_write(stokes::FORCE),
                Binding::read(stokes::VELOCITY),
                Binding::read_write(filaments::VELOCITY),
                Binding::read_write(STATS),
            ],
            workgroups: dispatch_args(items, workgroup, max),
            constants: vec![("WG", workgroup as f64)],
        },
    )?;
    Ok(())
}
