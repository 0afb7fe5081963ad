//! The coefficients of one step, in f32, as the shader and the CPU twin both use them: the
//! uniform `Params` of gray_scott.wgsl, mirrored field for field (checked against naga's
//! reflection of the shader in the tests).

use crate::config::GrayScottConfig;

/// `struct Params` of gray_scott.wgsl. The products and sums of the config's values are taken in
/// f64 and rounded once, so both twins start from the same f32 numbers.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Params {
    pub nx: u32,
    pub ny: u32,
    /// Du / h^2.
    pub du_h2: f32,
    /// Dv / h^2.
    pub dv_h2: f32,
    /// F.
    pub feed: f32,
    /// F + k, the rate at which v is removed.
    pub decay_v: f32,
    pub dt: f32,
    /// Uniform structs are padded to 16 bytes in WGSL.
    pub _pad: u32,
}

impl Params {
    pub fn new(cfg: &GrayScottConfig) -> Self {
        let h2 = cfg.h() * cfg.h();
        Self {
            nx: cfg.grid[0],
            ny: cfg.grid[1],
            du_h2: (cfg.du / h2) as f32,
            dv_h2: (cfg.dv / h2) as f32,
            feed: cfg.feed as f32,
            decay_v: (cfg.feed + cfg.kill) as f32,
            dt: cfg.dt as f32,
            _pad: 0,
        }
    }

    pub fn cells(&self) -> usize {
        self.nx as usize * self.ny as usize
    }
}
