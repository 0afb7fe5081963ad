//! The parameters as the shaders see them (`shaders/angiogenesis/common.wgsl`, AngioParams).

use super::params::AngioConfig;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AngioUniforms {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub ncells: u32,
    pub k: f32,
    pub d: f32,
    pub inv_h2: f32,
    pub chi0: f32,
    pub alpha: f32,
    pub rho: f32,
    pub beta: f32,
    pub gamma: f32,
    pub eta: f32,
    pub branch_age: f32,
    pub max_tips: u32,
    pub max_segments: u32,
    pub branching: u32,
    pub anastomosis: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

impl AngioUniforms {
    /// Maps a validated config and its time step `k` into the uniform block.
    pub fn new(cfg: &AngioConfig, k: f64) -> Self {
        let h = cfg.h();
        Self {
            nx: cfg.grid[0],
            ny: cfg.grid[1],
            nz: cfg.grid[2],
            ncells: cfg.cells() as u32,
            k: k as f32,
            d: cfg.d as f32,
            inv_h2: (1.0 / (h * h)) as f32,
            chi0: cfg.chi0 as f32,
            alpha: cfg.alpha as f32,
            rho: cfg.rho as f32,
            beta: cfg.beta as f32,
            gamma: cfg.gamma as f32,
            eta: cfg.eta as f32,
            branch_age: cfg.tips.branch_age as f32,
            max_tips: cfg.tips.max_tips,
            max_segments: cfg.tips.max_segments,
            branching: cfg.tips.branching as u32,
            anastomosis: cfg.tips.anastomosis as u32,
            _pad1: 0,
            _pad2: 0,
        }
    }

    pub fn index(&self, x: u32, y: u32, z: u32) -> usize {
        (x + self.nx * (y + self.ny * z)) as usize
    }

    pub fn coords(&self, i: u32) -> [u32; 3] {
        let x = i % self.nx;
        let yz = i / self.nx;
        [x, yz % self.ny, yz / self.ny]
    }
}
