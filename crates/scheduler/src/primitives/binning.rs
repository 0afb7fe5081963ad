//! Points binned into a uniform grid for neighbour search (`shaders/scheduler/binning.wgsl`):
//! a counting sort. Cell and count per point -> scan of the counts (`Scan`) into CSR cell
//! offsets (cell c holds sorted positions `offsets[c]..offsets[c+1]`; empty cells have equal
//! ends) -> scatter -> each point ranked by index among its cell's points, so the order is the
//! stable sort's whatever the thread timing. Three kernels and the scan's levels, where a radix
//! sort by cell takes a count, a scan and a scatter per digit: below about 10^6 points the
//! dispatches, not the memory traffic, set a binning's time. The rank costs k reads per point
//! of a cell of k points (the shader's header). The offsets are also the segments of a
//! `SegmentedReduction` over cells.
//!
//! Positions are `vec4<f32>` per point (xyz; w is free for the model, e.g. a radius).
//! Per axis the cell coordinate is `floor((x - origin) * (1 / cell_size))`, with
//! `1 / cell_size` rounded to f32 on the host (a multiplication, not a division, because GPU
//! division need not be correctly rounded, so the CPU twin could not match it); a point on a
//! cell face goes to the cell above whenever that product is exact (e.g. power-of-two cell
//! sizes). Periodic axes wrap the coordinate into 0..dims, others clamp it. Positions must be
//! finite: a NaN lands in some cell of the grid, never outside it.

use super::dispatch::{DispatchTable, SlotDesc};
use super::scan::Scan;
use super::{check_buffer, invalid, u32_buffer, uniform, Kernels, Length, Primitive, Result};
use crate::shaders::scheduler::binning;
use petri_engine::kernel::Access;
use petri_engine::GpuContext;

const BLOCK: u32 = 2048;
const COORD_LIMIT: f32 = 1_073_741_824.0;

const CELLS: usize = 0;
const SCATTER: usize = 1;
const RANK: usize = 2;

/// A uniform grid of `dims` cells of `cell_size` from `origin`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub origin: [f32; 3],
    pub cell_size: [f32; 3],
    pub dims: [u32; 3],
    /// Axes that wrap around (a periodic box of `dims * cell_size`); others clamp.
    pub periodic: [bool; 3],
}

impl Grid {
    /// Number of cells.
    pub fn cells(&self) -> u64 {
        self.dims.iter().map(|&d| d as u64).product()
    }

    fn validate(&self) -> Result<u32> {
        for a in 0..3 {
            if self.dims[a] == 0 || self.dims[a] > i32::MAX as u32 {
                return Err(invalid(
                    "binning",
                    "grid dims",
                    format!("{:?}", self.dims),
                    "1..=2^31-1 per axis",
                ));
            }
            let h = self.cell_size[a];
            let finite = h.is_finite() && (1.0 / h).is_finite() && self.origin[a].is_finite();
            if !(finite && h > 0.0) {
                return Err(invalid(
                    "binning",
                    "grid cell_size / origin",
                    format!("{:?} / {:?}", self.cell_size, self.origin),
                    "finite, cell sizes > 0 with a finite inverse",
                ));
            }
        }
        // Offsets has cells + 1 entries, indexed by u32.
        if self.cells() >= u32::MAX as u64 {
            return Err(invalid(
                "binning",
                "grid dims",
                format!("{:?} ({} cells)", self.dims, self.cells()),
                "fewer than 2^32 - 1 cells",
            ));
        }
        Ok(self.cells() as u32)
    }

    /// Bits of the largest cell index (at least 1): the sort's key_bits.
    pub fn key_bits(&self) -> u32 {
        let max = self.cells().saturating_sub(1);
        (64 - max.leading_zeros()).max(1)
    }

    fn inv_cell(&self) -> [f32; 3] {
        self.cell_size.map(|h| 1.0 / h)
    }

    /// The cell of a point, as `bin_cells` computes it.
    pub fn cell_of(&self, p: [f32; 3]) -> u32 {
        let inv = self.inv_cell();
        let mut c = [0u32; 3];
        for a in 0..3 {
            let f = ((p[a] - self.origin[a]) * inv[a])
                .floor()
                .clamp(-COORD_LIMIT, COORD_LIMIT);
            let i = f as i32;
            let d = self.dims[a] as i32;
            c[a] = if self.periodic[a] {
                i.rem_euclid(d) as u32
            } else {
                i.clamp(0, d - 1) as u32
            };
        }
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GridCfg {
    origin: [f32; 3],
    periodic: u32,
    inv_cell: [f32; 3],
    cells: u32,
    dims: [u32; 3],
    capacity: u32,
}

/// Binning of the first `len` points of a positions buffer.
pub struct Binning {
    table: DispatchTable,
    scan: Scan,
    kernels: Kernels,
    group: wgpu::BindGroup,
    cell_of: wgpu::Buffer,
    offsets: wgpu::Buffer,
    sorted_cells: wgpu::Buffer,
    sorted_index: wgpu::Buffer,
    grid: Grid,
}

impl Binning {
    /// Binning of up to `capacity` points of `positions` (`vec4<f32>` per point, at least
    /// `capacity` of them, STORAGE usage) into `grid`.
    pub fn new(
        ctx: &GpuContext,
        positions: &wgpu::Buffer,
        capacity: u32,
        grid: Grid,
        length: Length,
    ) -> Result<Self> {
        let cells = grid.validate()?;
        check_buffer("binning", "positions", positions, capacity as u64, 16)?;
        // The scratch buffer holds 2 * capacity u32, indexed by u32.
        if capacity > i32::MAX as u32 {
            return Err(invalid(
                "binning",
                "capacity",
                capacity,
                "at most 2^31 - 1 points",
            ));
        }
        let table = DispatchTable::new(
            ctx,
            "binning",
            &length,
            capacity,
            &[SlotDesc::length(BLOCK)],
        )?;
        let offsets = u32_buffer(ctx, "cell offsets", cells as u64 + 1)?;
        // Zeroed here; each binning's last pass zeroes them again.
        let counts = u32_buffer(ctx, "cell counts", cells as u64 + 1)?;
        let cell_of = u32_buffer(ctx, "cell of point", capacity as u64)?;
        let scratch = u32_buffer(ctx, "binning scratch", 2 * capacity as u64)?;
        let sorted_cells = u32_buffer(ctx, "sorted cells", capacity as u64)?;
        let sorted_index = u32_buffer(ctx, "sorted point index", capacity as u64)?;
        let scan = Scan::new(ctx, &counts, &offsets, cells + 1, Length::Host(cells + 1))?;
        let kernels = Kernels::new(
            ctx,
            &[binning::BIN_CELLS, binning::BIN_SCATTER, binning::BIN_RANK],
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
            ],
        )?;
        let cfg = GridCfg {
            origin: grid.origin,
            periodic: (0..3).map(|a| (grid.periodic[a] as u32) << a).sum(),
            inv_cell: grid.inv_cell(),
            cells,
            dims: grid.dims,
            capacity,
        };
        let cfg = uniform(ctx, "grid", &cfg);
        let group = kernels.bind(
            ctx,
            "binning",
            &[
                &cfg,
                table.lens(),
                positions,
                &cell_of,
                &scratch,
                &counts,
                &offsets,
                &sorted_cells,
                &sorted_index,
            ],
        );
        Ok(Self {
            table,
            scan,
            kernels,
            group,
            cell_of,
            offsets,
            sorted_cells,
            sorted_index,
            grid,
        })
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Point indices in cell order (first `len` u32).
    pub fn sorted_indices(&self) -> &wgpu::Buffer {
        &self.sorted_index
    }

    /// The cell of each sorted point (first `len` u32, non-decreasing).
    pub fn sorted_cells(&self) -> &wgpu::Buffer {
        &self.sorted_cells
    }

    /// The cell of each point in input order (first `len` u32).
    pub fn cell_of(&self) -> &wgpu::Buffer {
        &self.cell_of
    }

    /// CSR offsets, `cells + 1` u32: cell c holds sorted positions `[c]..[c+1]`.
    pub fn cell_offsets(&self) -> &wgpu::Buffer {
        &self.offsets
    }
}

impl Primitive for Binning {
    fn label(&self) -> &'static str {
        "binning"
    }

    fn dispatch_table(&self) -> &DispatchTable {
        &self.table
    }

    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.table.record_pass(pass);
        pass.set_pipeline(self.kernels.pipeline(CELLS));
        pass.set_bind_group(0, &self.group, &[]);
        self.table.dispatch(pass, 0);
        self.scan.record_pass(pass);
        pass.set_pipeline(self.kernels.pipeline(SCATTER));
        pass.set_bind_group(0, &self.group, &[]);
        self.table.dispatch(pass, 0);
        pass.set_pipeline(self.kernels.pipeline(RANK));
        self.table.dispatch(pass, 0);
    }
}

/// What a binning computes (the CPU twin's result; the GPU's is read from `Binning`'s buffers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinningResult {
    pub cell_of: Vec<u32>,
    pub sorted_cells: Vec<u32>,
    pub sorted_indices: Vec<u32>,
    /// `cells + 1` entries.
    pub cell_offsets: Vec<u32>,
}

/// The binning on the CPU: the same cells, the same stable order, the same offsets.
pub fn cpu_binning(grid: &Grid, positions: &[[f32; 4]]) -> Result<BinningResult> {
    let cells = grid.validate()?;
    let cell_of: Vec<u32> = positions
        .iter()
        .map(|p| grid.cell_of([p[0], p[1], p[2]]))
        .collect();
    let mut order: Vec<u32> = (0..positions.len() as u32).collect();
    order.sort_by_key(|&i| cell_of[i as usize]);
    let sorted_cells: Vec<u32> = order.iter().map(|&i| cell_of[i as usize]).collect();
    let cell_offsets = (0..=cells)
        .map(|c| sorted_cells.partition_point(|&s| s < c) as u32)
        .collect();
    Ok(BinningResult {
        cell_of,
        sorted_cells,
        sorted_indices: order,
        cell_offsets,
    })
}

/// `GridCfg` mirrors the shader's `GridCfg`: checked here, where its fields are visible.
#[cfg(test)]
mod layout {
    use crate::shaders;
    use petri_engine::{host_layout, layout};

    #[test]
    fn the_host_struct_mirrors_the_wgsl_struct() {
        let host = host_layout!(super::GridCfg: origin, periodic, inv_cell, cells, dims, capacity);
        layout::check(shaders::scheduler::binning::SHADER, "GridCfg", &host)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
