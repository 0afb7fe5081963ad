//! How `sim::RdmeSim` runs the lattice (workgroup sizes, sweeps, batching, halos, the device
//! split and load balancing), as opposed to what it runs (`config::RdmeModel`).

use crate::error::{invalid, ModelError, Result};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Workgroup size (x, y) of the lattice passes.
    pub workgroup: [u32; 2],
    /// Sites (a run of consecutive sites) each thread of a sweep looks at: 1, 2, 4 or 8; None:
    /// 4 on a GPU, 1 on a software adapter (lavapipe's memory grows without bound at 4, see
    /// `slab::sites_per_thread`). Results do not depend on it.
    pub sites_per_thread: Option<u32>,
    /// Which sites the sweeps look at (results do not depend on it).
    pub sweeps: Sweeps,
    /// Steps recorded in one submission on a single device.
    pub max_steps_per_batch: u32,
    /// Overflow list entries per device per step.
    pub overflow_capacity: u32,
    /// Halo planes on each side of a slab, and so the most steps between halo exchanges, on
    /// several devices (capped by the smallest slab).
    pub halo_depth: u32,
    /// Steps between load-balancing decisions on several devices; 0: never rebalance.
    pub balance_every: u64,
    /// Smallest relative imbalance of step times that moves a boundary.
    pub balance_threshold: f64,
    /// Time a boundary move must save to be made; None: what the last rebuild cost (measured).
    pub move_cost: Option<Duration>,
    /// Initial planes per device (None: equal split).
    pub split: Option<Vec<u32>>,
    /// On several devices with the occupied sweeps: the first x and y sweeps after each halo
    /// exchange run on the planes that do not wait for it while the host exchanges, then on the
    /// others, so the GPU is not left waiting (results do not depend on it). On by default: it
    /// shortens each GPU's wait for the exchange.
    pub overlap_exchange: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            workgroup: [64, 4],
            sites_per_thread: None,
            sweeps: Sweeps::Auto,
            max_steps_per_batch: 256,
            overflow_capacity: 4096,
            halo_depth: 16,
            balance_every: 200,
            balance_threshold: 0.05,
            move_cost: None,
            split: None,
            overlap_exchange: true,
        }
    }
}

/// Which sites a diffusion sweep looks at. Both give the same lattice, bit for bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sweeps {
    /// Occupied sites on Vulkan, every site on small crowded slabs and on other backends
    /// (`slab::occupied_sweeps`).
    #[default]
    Auto,
    /// Every site of the slab (rdme/diffuse.wgsl): the cost follows the lattice's size.
    EverySite,
    /// Only the sites with particles in reach, found in occupancy bitmaps
    /// (rdme/diffuse_occupied.wgsl): the cost follows the particles.
    Occupied,
}

impl std::str::FromStr for Sweeps {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "every-site" => Ok(Self::EverySite),
            "occupied" => Ok(Self::Occupied),
            other => Err(invalid("sweeps", other, "auto, every-site or occupied")),
        }
    }
}
