//! Reusable GPU primitives for particle models, each a launcher built once for a capacity that
//! records its dispatches into work the caller submits, with a CPU twin that returns the same
//! arrays:
//!
//! - [`Scan`]: exclusive prefix sum of u32 with its total (slots for new elements);
//! - [`RadixSort`]: stable LSD radix sort of u32 keys with a u32 payload;
//! - [`Binning`]: points into a uniform grid, sorted by cell, with per-cell offsets (neighbour
//!   search), built from the sort (which is built from the scan);
//! - [`SegmentedReduction`]: sum, min or max of f32 values per CSR segment, bitwise equal to
//!   its twin;
//! - [`Fft`]: complex f32 FFT, batched 1D along rows or 2D per grid, in place (its own module
//!   doc: conventions and limits; a fixed shape, so it takes no [`Length`]).
//!
//! Lengths: a particle model's element count changes on the GPU, so every launcher takes its
//! length as a [`Length`]: from the host (`set_len`) or from a u32 in a GPU buffer, read when
//! the work runs, without readback. Either way the first dispatch of `record_pass` is a
//! one-thread pass ([`DispatchTable`]) that turns the length into the workgroup counts of every
//! later dispatch (an indirect-args buffer, used with `dispatch_workgroups_indirect`) and into
//! the lengths the kernels read. One code path serves both sources, and a length that another
//! kernel computes (e.g. the total of a scan) can feed the next primitive in the same pass.
//!
//! Limits, checked at construction (errors, not panics): dispatches are one-dimensional, so a
//! capacity needs at most `max_compute_workgroups_per_dimension` blocks (65535 on most devices:
//! scan, sort and binning up to 134,215,680 items in 2048-item blocks; segmented reduction up to
//! 16,776,960 segments, one thread each), and every buffer must fit
//! `max_storage_buffer_binding_size`. Sort keys: 1 to 32 bits, 4 per pass. The sort binds 7
//! storage buffers in one stage, binning 6 and the scan 5, so a device opened with WebGPU's
//! downlevel limits (4) is refused.
//!
//! Only WebGPU-baseline WGSL (`shaders/scheduler/`): no subgroups and no float atomics; counts
//! are integers and every rank is fixed by the input order, so results never depend on thread
//! timing.

pub mod bench;
mod binning;
mod dispatch;
mod fft;
mod radix_sort;
mod scan;
mod segmented;

pub use bench::{bench, bench_fft, FftTiming, PrimitiveTiming};
pub use binning::{cpu_binning, Binning, BinningResult, Grid};
pub use dispatch::{DispatchTable, SlotDesc};
#[cfg(test)]
pub(crate) use fft::FftPass;
pub use fft::{
    cpu_fft, Fft, FftAxes, FftDirection, FftShape, MAX_AXIS as FFT_MAX_AXIS,
    MAX_WORKGROUP_POINTS as FFT_MAX_WORKGROUP_POINTS,
};
pub use radix_sort::{cpu_radix_sort, RadixSort, MAX_KEY_BITS, RADIX_BITS};
pub use scan::{cpu_exclusive_scan, Scan};
pub use segmented::{cpu_segmented_reduce, SegmentedReduction};

use petri_engine::kernel::{self, Access};
use petri_engine::shaders::EntryPoint;
use petri_engine::{EngineError, GpuContext};

/// Errors of the primitives: a device limit, or a bad argument named with its value.
#[derive(Debug, thiserror::Error)]
pub enum PrimitiveError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("{primitive}: {field} = {value} is not allowed: {allowed}")]
    Invalid {
        primitive: &'static str,
        field: &'static str,
        value: String,
        allowed: String,
    },
}

pub type Result<T> = std::result::Result<T, PrimitiveError>;

pub(crate) fn invalid(
    primitive: &'static str,
    field: &'static str,
    value: impl ToString,
    allowed: impl ToString,
) -> PrimitiveError {
    PrimitiveError::Invalid {
        primitive,
        field,
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// A launcher: records its dispatches into a compute pass the caller owns (a step plan's), or
/// into a pass of its own; its length comes from its [`DispatchTable`].
pub trait Primitive {
    /// The label of the pass `record` opens.
    fn label(&self) -> &'static str;

    /// The table that sizes the launcher's dispatches.
    fn dispatch_table(&self) -> &DispatchTable;

    /// Records the whole primitive (its setup dispatch first) into `pass`.
    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>);

    /// Records the primitive in a compute pass of its own.
    fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.label()),
            timestamp_writes: None,
        });
        self.record_pass(&mut pass);
    }

    /// Sets a host length (`Length::Host` only); applies to work submitted after this call.
    fn set_len(&self, ctx: &GpuContext, n: u32) -> Result<()> {
        self.dispatch_table().set_len(ctx, n)
    }
}

/// Where a launcher reads its length (number of elements, points or segments).
#[derive(Clone, Debug)]
pub enum Length {
    /// Given by the host: this value at first, then whatever `set_len` writes (a queue write,
    /// so it applies to work submitted after the call).
    Host(u32),
    /// The u32 at index `word` of `buffer` (which needs STORAGE usage), read on the GPU when
    /// the work runs. A value above the launcher's capacity is clamped to the capacity.
    Gpu { buffer: wgpu::Buffer, word: u32 },
}

/// Fails unless `buffer` holds at least `count` elements of `elem_bytes` bytes.
pub(crate) fn check_buffer(
    primitive: &'static str,
    field: &'static str,
    buffer: &wgpu::Buffer,
    count: u64,
    elem_bytes: u64,
) -> Result<()> {
    let need = count * elem_bytes;
    if buffer.size() < need {
        return Err(invalid(
            primitive,
            field,
            format!("a buffer of {} bytes", buffer.size()),
            format!("at least {need} bytes ({count} elements of {elem_bytes} bytes)"),
        ));
    }
    Ok(())
}

/// Fails when `output` is one of `inputs`: a pass cannot bind one buffer read-only and
/// read-write at once.
pub(crate) fn check_distinct(
    primitive: &'static str,
    output: &wgpu::Buffer,
    inputs: &[&wgpu::Buffer],
) -> Result<()> {
    if inputs.contains(&output) {
        return Err(invalid(
            primitive,
            "output",
            "one of its input buffers",
            "a buffer of its own (the primitives do not work in place)",
        ));
    }
    Ok(())
}

/// One shader file's entry points sharing one bind group layout (group 0).
pub(crate) struct Kernels {
    layout: wgpu::BindGroupLayout,
    pipelines: Vec<wgpu::ComputePipeline>,
}

impl Kernels {
    pub(crate) fn new(
        ctx: &GpuContext,
        entries: &[EntryPoint],
        accesses: &[Access],
    ) -> Result<Self> {
        Self::with_constants(ctx, entries, accesses, &[])
    }

    /// As `new`, with pipeline-overridable constants (workgroup sizes) set.
    pub(crate) fn with_constants(
        ctx: &GpuContext,
        entries: &[EntryPoint],
        accesses: &[Access],
        constants: &[(&str, f64)],
    ) -> Result<Self> {
        let shader = entries.first().map_or("", |e| e.shader().path());
        let storage = accesses.iter().filter(|a| **a != Access::Uniform).count();
        ctx.check_storage_buffers_per_stage(shader, storage as u32)?;
        let layout = kernel::bind_group_layout(ctx, shader, accesses);
        let pipelines = entries
            .iter()
            .map(|&e| kernel::compute_pipeline(ctx, e, &[&layout], constants))
            .collect::<std::result::Result<_, _>>()?;
        Ok(Self { layout, pipelines })
    }

    pub(crate) fn bind(
        &self,
        ctx: &GpuContext,
        label: &str,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        kernel::bind_group(ctx, label, &self.layout, buffers)
    }

    pub(crate) fn pipeline(&self, k: usize) -> &wgpu::ComputePipeline {
        &self.pipelines[k]
    }
}

/// A storage buffer of `count` u32 (at least one), checked against the device limits.
pub(crate) fn u32_buffer(ctx: &GpuContext, label: &str, count: u64) -> Result<wgpu::Buffer> {
    Ok(petri_engine::buffers::storage_zeroed(
        ctx,
        label,
        count.max(1) * 4,
    )?)
}

/// A uniform buffer holding `value`.
pub(crate) fn uniform<T: bytemuck::Pod>(ctx: &GpuContext, label: &str, value: &T) -> wgpu::Buffer {
    petri_engine::buffers::uniform_from(ctx, label, value)
}

/// Every primitive can run as a pass of a step plan (`StepPlan::add_recorded`).
macro_rules! record_in_plans {
    ($($primitive:ty),*) => {$(
        impl crate::plan::RecordPass for $primitive {
            fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
                Primitive::record_pass(self, pass)
            }
        }
    )*};
}
record_in_plans!(Scan, RadixSort, Binning, SegmentedReduction);
