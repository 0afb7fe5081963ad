//! Sum, min or max of f32 values per CSR segment (`shaders/scheduler/segmented_reduce.wgsl`):
//! `out[s]` reduces `values[offsets[s]..offsets[s+1]]` in index order from the identity, one
//! thread per segment. `cpu_segmented_reduce` does the same operations in the same order, so
//! GPU and CPU agree bitwise (f32 add, min and max are exact-rounded; min and max of NaN or of
//! zeros of both signs are left to the hardware). Offsets must be non-decreasing and within
//! the values; the GPU does not check them (reads out of range are clamped by wgpu).

use super::dispatch::{DispatchTable, SlotDesc};
use super::{check_buffer, check_distinct, invalid, Kernels, Length, Primitive, Result};
use crate::reduce::ReduceOp;
use crate::shaders::scheduler::segmented_reduce;
use petri_engine::kernel::Access;
use petri_engine::shaders::EntryPoint;
use petri_engine::GpuContext;

const WG: u32 = 256;

fn entry(op: ReduceOp) -> EntryPoint {
    match op {
        ReduceOp::Sum => segmented_reduce::SEG_SUM,
        ReduceOp::Min => segmented_reduce::SEG_MIN,
        ReduceOp::Max => segmented_reduce::SEG_MAX,
    }
}

/// A reduction of each of the first `len` segments.
pub struct SegmentedReduction {
    table: DispatchTable,
    kernels: Kernels,
    group: wgpu::BindGroup,
}

impl SegmentedReduction {
    /// Up to `capacity` segments: `offsets` holds at least `capacity + 1` u32, `output` at
    /// least `capacity` f32 (written), `values` the f32 the offsets point into.
    pub fn new(
        ctx: &GpuContext,
        op: ReduceOp,
        offsets: &wgpu::Buffer,
        values: &wgpu::Buffer,
        output: &wgpu::Buffer,
        capacity: u32,
        length: Length,
    ) -> Result<Self> {
        check_buffer(
            "segmented reduction",
            "offsets",
            offsets,
            capacity as u64 + 1,
            4,
        )?;
        check_buffer("segmented reduction", "output", output, capacity as u64, 4)?;
        check_distinct("segmented reduction", output, &[offsets, values])?;
        let table = DispatchTable::new(
            ctx,
            "segmented reduction",
            &length,
            capacity,
            &[SlotDesc::length(WG)],
        )?;
        let kernels = Kernels::new(
            ctx,
            &[entry(op)],
            &[
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadWrite,
            ],
        )?;
        let group = kernels.bind(
            ctx,
            "segmented reduction",
            &[table.lens(), offsets, values, output],
        );
        Ok(Self {
            table,
            kernels,
            group,
        })
    }
}

impl Primitive for SegmentedReduction {
    fn label(&self) -> &'static str {
        "segmented reduction"
    }

    fn dispatch_table(&self) -> &DispatchTable {
        &self.table
    }

    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.table.record_pass(pass);
        pass.set_pipeline(self.kernels.pipeline(0));
        pass.set_bind_group(0, &self.group, &[]);
        self.table.dispatch(pass, 0);
    }
}

/// Each segment's reduction in the GPU's order. Fails on offsets that decrease or point past
/// the values.
pub fn cpu_segmented_reduce(op: ReduceOp, offsets: &[u32], values: &[f32]) -> Result<Vec<f32>> {
    offsets
        .windows(2)
        .enumerate()
        .map(|(s, w)| {
            let (a, b) = (w[0] as usize, w[1] as usize);
            if a > b || b > values.len() {
                return Err(invalid(
                    "segmented reduction",
                    "offsets",
                    format!("segment {s}: {a}..{b}"),
                    format!("non-decreasing offsets within the {} values", values.len()),
                ));
            }
            Ok(values[a..b]
                .iter()
                .fold(op.identity(), |acc, &v| op.combine(acc, v)))
        })
        .collect()
}
