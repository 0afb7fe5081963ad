//! The mechanics parameters as the shaders see them (`shaders/epidermis/common.wgsl`,
//! EpiParams). The CPU reference (cpu.rs) computes from the same f32 values, so the two differ
//! only by the rounding of `exp` and the summation order.

use super::params::{EpidermisConfig, Morse};

/// A Morse force magnitude f(r) = a e^(-r inv_xi1) - b e^(-r inv_xi2), as stored: a = u0/xi1,
/// b = w0/xi2 (the force, -V'(r), of V = u0 e^(-r/xi1) - w0 e^(-r/xi2)).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MorseForce {
    pub a: f32,
    pub inv_xi1: f32,
    pub b: f32,
    pub inv_xi2: f32,
}

impl MorseForce {
    pub fn new(m: &Morse) -> Self {
        Self {
            a: (m.u0 / m.xi1) as f32,
            inv_xi1: (1.0 / m.xi1) as f32,
            b: (m.w0 / m.xi2) as f32,
            inv_xi2: (1.0 / m.xi2) as f32,
        }
    }

    /// f(r) in f32, as `morse_force` in common.wgsl.
    pub fn at(&self, r: f32) -> f32 {
        self.a * (-r * self.inv_xi1).exp() - self.b * (-r * self.inv_xi2).exp()
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct EpiUniforms {
    /// Periods in x and y, and their inverses (minimum image and wrapping multiply).
    pub lx: f32,
    pub ly: f32,
    pub inv_lx: f32,
    pub inv_ly: f32,
    pub dt: f32,
    pub half_dt: f32,
    /// Square of the intercellular range (its cutoff).
    pub inter_range2: f32,
    pub max_cells: u32,
    pub intra: MorseForce,
    pub inter: MorseForce,
    pub membrane: MorseForce,
    /// Bins of the neighbour grid per axis (`EpidermisConfig::mechanics_grid`).
    pub bins_x: u32,
    pub bins_y: u32,
    pub bins_z: u32,
    /// Square of the intracellular range (`mechanics.intra_cutoff`).
    pub intra_range2: f32,
}

impl EpiUniforms {
    /// Maps a validated config into the uniform block.
    pub fn new(cfg: &EpidermisConfig) -> Self {
        let m = &cfg.mechanics;
        let range = m.inter.range();
        let grid = cfg.mechanics_grid();
        Self {
            lx: cfg.domain.lx as f32,
            ly: cfg.domain.ly as f32,
            inv_lx: (1.0 / cfg.domain.lx) as f32,
            inv_ly: (1.0 / cfg.domain.ly) as f32,
            dt: cfg.dt as f32,
            half_dt: (0.5 * cfg.dt) as f32,
            inter_range2: (range * range) as f32,
            max_cells: cfg.capacity.max_cells,
            intra: MorseForce::new(&m.intra),
            inter: MorseForce::new(&m.inter.morse()),
            membrane: MorseForce::new(&m.membrane),
            bins_x: grid.dims[0],
            bins_y: grid.dims[1],
            bins_z: grid.dims[2],
            intra_range2: (m.intra_cutoff * m.intra_cutoff).min(f32::MAX as f64) as f32,
        }
    }
}
