//! Exclusive prefix sum of u32 (`shaders/scheduler/scan.wgsl`): `output[i] = input[0] + ... +
//! input[i-1]` (wrapping), and the total in its own buffer, which can be the `Length::Gpu` of
//! the next primitive (e.g. the element count after division: flags -> slots -> new count).
//!
//! Levels of 2048-item blocks, reduce-then-scan (the shader's header); the number of levels is
//! fixed by the capacity (2 up to 4.2M items, 3 up to 8.6G), and a shorter length runs the
//! same levels on fewer blocks.

use super::dispatch::{DispatchTable, SlotDesc};
use super::{
    check_buffer, check_distinct, u32_buffer, uniform, Kernels, Length, Primitive, Result,
};
use crate::shaders::scheduler::scan;
use petri_engine::kernel::Access;
use petri_engine::GpuContext;

/// Items per workgroup block (256 threads x 8).
pub(crate) const BLOCK: u32 = 2048;

const REDUCE: usize = 0;
const DOWN: usize = 1;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct LevelCfg {
    level: u32,
    len_slot: u32,
    data_off: u32,
    sums_off: u32,
    top: u32,
    _pad: [u32; 3],
}

/// An exclusive scan of the first `len` u32 of `input` into `output`.
pub struct Scan {
    table: DispatchTable,
    kernels: Kernels,
    /// One bind group per level, bottom first.
    levels: Vec<wgpu::BindGroup>,
    total: wgpu::Buffer,
}

/// Dispatch slots: slot l is level l (its length is the group count of the level below).
fn slots(levels: usize) -> Vec<SlotDesc> {
    (0..levels)
        .map(|l| SlotDesc {
            from: l.checked_sub(1),
            mul: 1,
            add: 0,
            per_group: BLOCK,
            min_groups: if l + 1 == levels { 1 } else { 0 },
        })
        .collect()
}

impl Scan {
    /// A scan of up to `capacity` items. `input` (read only) and `output` (written) must be
    /// different buffers of at least `capacity` u32 with STORAGE usage.
    pub fn new(
        ctx: &GpuContext,
        input: &wgpu::Buffer,
        output: &wgpu::Buffer,
        capacity: u32,
        length: Length,
    ) -> Result<Self> {
        check_buffer("scan", "input", input, capacity as u64, 4)?;
        check_buffer("scan", "output", output, capacity as u64, 4)?;
        check_distinct("scan", output, &[input])?;
        // Level sizes at capacity: each level above holds the block sums of the one below.
        let mut sizes = vec![capacity as u64];
        while *sizes.last().unwrap() > BLOCK as u64 {
            sizes.push(sizes.last().unwrap().div_ceil(BLOCK as u64));
        }
        let table = DispatchTable::new(ctx, "scan", &length, capacity, &slots(sizes.len()))?;
        let kernels = Kernels::new(
            ctx,
            &[scan::SCAN_REDUCE, scan::SCAN_DOWN],
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadWrite,
            ],
        )?;
        // Levels above 0 side by side in one scratch buffer.
        let mut offsets = vec![0u64; sizes.len()];
        for l in 2..sizes.len() {
            offsets[l] = offsets[l - 1] + sizes[l - 1];
        }
        let scratch = u32_buffer(ctx, "scan scratch", sizes[1..].iter().sum())?;
        let total = u32_buffer(ctx, "scan total", 1)?;
        let levels = (0..sizes.len())
            .map(|l| {
                let cfg = LevelCfg {
                    level: l as u32,
                    len_slot: l as u32,
                    data_off: offsets[l] as u32,
                    sums_off: offsets.get(l + 1).copied().unwrap_or(0) as u32,
                    top: (l + 1 == sizes.len()) as u32,
                    _pad: [0; 3],
                };
                let cfg = uniform(ctx, "scan level", &cfg);
                kernels.bind(
                    ctx,
                    "scan level",
                    &[&cfg, table.lens(), input, output, &scratch, &total],
                )
            })
            .collect();
        Ok(Self {
            table,
            kernels,
            levels,
            total,
        })
    }

    /// The scan's total (one u32), written by every run.
    pub fn total(&self) -> &wgpu::Buffer {
        &self.total
    }

    /// The scan without its setup dispatch (for a launcher that runs it several times on one
    /// length, as the radix sort does per digit).
    pub(crate) fn record_setup(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.table.record_pass(pass);
    }

    pub(crate) fn record_levels(&self, pass: &mut wgpu::ComputePass<'_>) {
        let top = self.levels.len() - 1;
        pass.set_pipeline(self.kernels.pipeline(REDUCE));
        for l in 0..top {
            pass.set_bind_group(0, &self.levels[l], &[]);
            self.table.dispatch(pass, l);
        }
        pass.set_pipeline(self.kernels.pipeline(DOWN));
        for l in (0..=top).rev() {
            pass.set_bind_group(0, &self.levels[l], &[]);
            self.table.dispatch(pass, l);
        }
    }
}

impl Primitive for Scan {
    fn label(&self) -> &'static str {
        "scan"
    }

    fn dispatch_table(&self) -> &DispatchTable {
        &self.table
    }

    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.table.record_pass(pass);
        self.record_levels(pass);
    }
}

/// The exclusive prefix sum of `input` (wrapping) and its total.
pub fn cpu_exclusive_scan(input: &[u32]) -> (Vec<u32>, u32) {
    let mut out = Vec::with_capacity(input.len());
    let mut run = 0u32;
    for &v in input {
        out.push(run);
        run = run.wrapping_add(v);
    }
    (out, run)
}

/// `LevelCfg` mirrors the shader's `ScanLevel`: checked here, where its fields are visible.
#[cfg(test)]
mod layout {
    use crate::shaders;
    use petri_engine::{host_layout, layout};

    #[test]
    fn the_host_struct_mirrors_the_wgsl_struct() {
        let host = host_layout!(super::LevelCfg: level, len_slot, data_off, sums_off, top);
        layout::check(shaders::scheduler::scan::SHADER, "ScanLevel", &host)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
