//! The memory an epidermis run takes, from its config alone, before anything is allocated
//! (`crate::budget` holds the limits): the element slots (`MAX_ELEMENTS` per cell of
//! `capacity.max_cells`), the per-cell arrays, and the bins of the two neighbour grids. Each
//! an upper bound of the buffers `sim.rs` makes and of the host's copies (the initial state,
//! its active-slot list, one state read back for a snapshot or a checkpoint).

use super::genes::centre_grid;
use super::params::EpidermisConfig;
use super::state::{MAX_ELEMENTS, SPECIES};
use crate::budget::{Footprint, Part};
use crate::error::Result;

/// Device bytes per element slot: the positions, the midpoint, the gathered and the sorted
/// copies (16 each), the active list, and the binning's keys, indices and sort scratch.
const DEVICE_PER_SLOT: f64 = 4.0 * 16.0 + 4.0 + 32.0;
/// Device bytes per cell: counts, genes and their midpoint, centres, neighbour sums, growth's
/// flags, ranks and offsets, the centre binning's keys, indices and scratch.
const DEVICE_PER_CELL: f64 = 4.0 + 2.0 * 4.0 * SPECIES as f64 + 2.0 * 16.0 + 3.0 * 4.0 + 32.0;
/// Host bytes per cell of one state: counts, the slots' positions, the genes.
const STATE_PER_CELL: f64 = 4.0 + 16.0 * MAX_ELEMENTS as f64 + 4.0 * SPECIES as f64;

/// The footprint of a config whose ranges are checked.
pub fn footprint(cfg: &EpidermisConfig) -> Footprint {
    let cells = cfg.capacity.max_cells as f64;
    let slots = cells * MAX_ELEMENTS as f64;
    let d = &cfg.domain;
    let (centre_bins, _) = centre_grid(
        d.lx as f32,
        d.ly as f32,
        d.height as f32,
        cfg.genes.neighbour_distance as f32,
    );
    let bins = cfg
        .mechanics_grid()
        .dims
        .iter()
        .map(|&n| n as f64)
        .product::<f64>()
        + centre_bins.iter().map(|&n| n as f64).product::<f64>();
    let cells_part = Part {
        what: "the cells and their element slots",
        sized_by: format!(
            "capacity.max_cells = {} (x {MAX_ELEMENTS} element slots)",
            cfg.capacity.max_cells
        ),
        device: slots * DEVICE_PER_SLOT + cells * DEVICE_PER_CELL,
        host: 2.0 * cells * STATE_PER_CELL + 4.0 * slots,
    };
    let bins_part = Part {
        what: "the neighbour grids",
        sized_by: format!(
            "box / mechanics.inter.cutoff and box / genes.neighbour_distance = {} bins",
            bins
        ),
        // Offsets and counts per bin.
        device: 8.0 * bins,
        host: 0.0,
    };
    Footprint {
        parts: vec![cells_part, bins_part],
    }
}

impl EpidermisConfig {
    /// Refuses the config where its footprint is past the limits of `crate::budget` (the last
    /// of `validate`'s checks).
    pub(super) fn check_budget(&self) -> Result<()> {
        crate::budget::check(&footprint(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_footprint_is_linear_in_the_capacity_and_the_largest_capacity_fits() {
        let c = EpidermisConfig::default();
        let f = footprint(&c);
        // 1024 cells of 40 slots: about 4 MB on the device, 1.5 MB on the host.
        assert!((3e6..6e6).contains(&f.device()), "{}", f.device());
        assert!((1e6..2e6).contains(&f.host()), "{}", f.host());
        let mut big = c.clone();
        big.capacity.max_cells = 1 << 24;
        // 2^24 cells (MAX_CELLS): about 70 GB on the device, 25 GB on the host, within the
        // limits; a device with smaller buffers refuses it before the host allocates
        // (`EpidermisSim::new`).
        big.validate().unwrap();
        let ratio = footprint(&big).host() / f.host();
        assert!((ratio - 16384.0).abs() < 1.0, "{ratio}");
        assert!((6e10..8e10).contains(&footprint(&big).device()));
        // A box of 2^26 bins of the cutoff: half a GB of bins.
        let mut wide = c.clone();
        wide.domain.lx = 3600.0;
        wide.domain.ly = 3600.0;
        wide.domain.height = 0.45 * 1.001 * 5.0;
        assert!(footprint(&wide).parts[1].device > 3e8);
    }
}
