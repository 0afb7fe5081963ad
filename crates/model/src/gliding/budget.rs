//! The memory a gliding run takes, from its config alone, before anything is allocated: the
//! device's buffers (the filaments, the fluid, the bound motors) and the host's largest arrays
//! (the motors' tables, the initial Psi, a state read back for a checkpoint), each an upper
//! bound (the motors' stencil counted as its whole box). A config past the limits is refused,
//! naming the fields that size its largest part (`crate::budget`, whose limits are those of the
//! largest machines); the device's own per-buffer limits are checked again when the run starts
//! (`MotorChunks::for_device`, `buffers::storage_zeroed`).

use super::params::GlidingConfig;
pub use crate::budget::{Footprint, Part, MAX_DEVICE_BYTES, MAX_HOST_BYTES};
use crate::error::Result;

impl Footprint {
    /// The footprint of `cfg`, whose sizes and motor stencil are checked (`validate` calls it
    /// last).
    pub fn of(cfg: &GlidingConfig) -> Footprint {
        let g = &cfg.grid;
        let n = (g.nx * g.ny) as f64;
        let cells = n * g.ntheta as f64;
        let nz = g.nz as f64;
        let motors = cfg.motor_config();
        let block = motors.box_block() as f64;
        let lines = (block / g.ns as f64).log2().ceil().exp2();
        let (rx, ry) = motors.reach();
        // Psi, its velocities, AB2's rates, the scratch, the spectrum of 2 ntheta planes and
        // the FFTs' scratch; the moments and motor state per cell.
        let filaments = Part {
            what: "the filaments",
            sized_by: format!(
                "grid.nx x grid.ny x grid.ntheta = {} x {} x {}",
                g.nx, g.ny, g.ntheta
            ),
            device: 76.0 * cells + 56.0 * n,
            // The initial Psi in f64 and f32, and a state's Psi, rates and velocities.
            host: 32.0 * cells + 56.0 * n,
        };
        // Force, velocity, scratch of 6 complex slots, the spectrum and the FFTs' scratch.
        let fluid = Part {
            what: "the fluid",
            sized_by: format!(
                "grid.nx x grid.ny x grid.nz = {} x {} x {}",
                g.nx, g.ny, g.nz
            ),
            device: 144.0 * nz * n,
            host: 12.0 * nz * n,
        };
        // M_b and its RK2 stage (M_b again and the tree's slots) per anchor; on the host the
        // tables (about 28 bytes per value of a block) and M_b read back.
        let bound = Part {
            what: "the bound motors",
            sized_by: format!(
                "grid.nx x grid.ny x grid.ntheta x grid.ns x a stencil of {} x {} cells \
                 (motors.capture_radius + motors.length / 2) = {} x {} x {} x {} x {}",
                2 * rx + 1,
                2 * ry + 1,
                g.nx,
                g.ny,
                g.ntheta,
                g.ns,
                (2 * rx + 1) * (2 * ry + 1)
            ),
            device: 4.0 * n * (2.0 * block + 2.0 * lines),
            host: 4.0 * n * block + 28.0 * block,
        };
        Footprint {
            parts: vec![filaments, fluid, bound],
        }
    }
}

impl GlidingConfig {
    /// Refuses the config where its footprint is past `MAX_DEVICE_BYTES` (as out of device
    /// memory, which the bench answers with a narrower stencil) or `MAX_HOST_BYTES`, naming the
    /// fields that size the largest part (the last of `validate`'s checks; a method here, so
    /// that params.rs, which this file reads, does not import it back).
    pub(super) fn check_budget(&self) -> Result<()> {
        crate::budget::check(&Footprint::of(self))
    }
}
