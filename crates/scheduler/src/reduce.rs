//! Sum, min and max of an f32 buffer on the GPU (`shaders/common/reduce.wgsl`): a tree in
//! workgroup memory, then the same pass over the per-workgroup partials until one value is left.
//! `cpu_reduce` performs the same operations in the same order, so GPU and CPU agree bitwise.

use petri_engine::kernel::{self, Access};
use petri_engine::shaders::{common::reduce, EntryPoint};
use petri_engine::{buffers, GpuContext, Result};

const WG: u32 = 256;
const ITEMS: u32 = 16;
const BLOCK: u32 = WG * ITEMS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Min,
    Max,
}

impl ReduceOp {
    fn entry(self) -> EntryPoint {
        match self {
            ReduceOp::Sum => reduce::REDUCE_SUM,
            ReduceOp::Min => reduce::REDUCE_MIN,
            ReduceOp::Max => reduce::REDUCE_MAX,
        }
    }
    pub(crate) fn identity(self) -> f32 {
        match self {
            ReduceOp::Sum => 0.0,
            ReduceOp::Min => f32::MAX,
            ReduceOp::Max => -f32::MAX,
        }
    }
    pub(crate) fn combine(self, a: f32, b: f32) -> f32 {
        match self {
            ReduceOp::Sum => a + b,
            ReduceOp::Min => a.min(b),
            ReduceOp::Max => a.max(b),
        }
    }
}

/// `ReduceParams` of the shader.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct ReduceParams {
    pub(crate) len: u32,
    pub(crate) groups_x: u32,
}

struct Level {
    group: wgpu::BindGroup,
    groups: [u32; 2],
}

/// A reduction of the first `len` floats of one buffer, recorded into any encoder.
pub struct Reduction {
    pipeline: wgpu::ComputePipeline,
    levels: Vec<Level>,
    /// Holds the result in its first 4 bytes after `record` has run.
    pub output: wgpu::Buffer,
}

fn dispatch_shape(ctx: &GpuContext, groups: u32) -> [u32; 2] {
    let max = ctx.limits().max_compute_workgroups_per_dimension;
    if groups <= max {
        [groups, 1]
    } else {
        [max, groups.div_ceil(max)]
    }
}

impl Reduction {
    pub fn new(ctx: &GpuContext, op: ReduceOp, input: &wgpu::Buffer, len: u32) -> Result<Self> {
        let layout = kernel::bind_group_layout(
            ctx,
            "reduce",
            &[Access::Uniform, Access::ReadOnly, Access::ReadWrite],
        );
        let pipeline = kernel::compute_pipeline(ctx, op.entry(), &[&layout], &[])?;
        let mut levels = Vec::new();
        let mut n = len.max(1);
        let mut src = input.clone();
        loop {
            let groups = n.div_ceil(BLOCK);
            let shape = dispatch_shape(ctx, groups);
            let out = buffers::storage_zeroed(ctx, "reduce partials", groups as u64 * 4)?;
            let params = buffers::uniform_from(
                ctx,
                "reduce params",
                &ReduceParams {
                    len: n,
                    groups_x: shape[0],
                },
            );
            let group = kernel::bind_group(ctx, "reduce", &layout, &[&params, &src, &out]);
            levels.push(Level {
                group,
                groups: shape,
            });
            src = out;
            n = groups;
            if n == 1 {
                break;
            }
        }
        Ok(Self {
            pipeline,
            levels,
            output: src,
        })
    }

    /// Records the passes; afterwards `output` holds the result.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        for level in &self.levels {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("reduce"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &level.group, &[]);
            pass.dispatch_workgroups(level.groups[0], level.groups[1], 1);
        }
    }

    /// Runs the reduction now and waits for its value.
    pub fn compute(&self, ctx: &GpuContext) -> Result<f32> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        self.record(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        Ok(buffers::read_vec::<f32>(ctx, &self.output)?[0])
    }
}

/// The GPU reduction's exact order of operations, on the CPU.
pub fn cpu_reduce(op: ReduceOp, data: &[f32]) -> f32 {
    let mut level: Vec<f32> = data.to_vec();
    if level.is_empty() {
        level.push(op.identity());
    }
    loop {
        let groups = level.len().div_ceil(BLOCK as usize);
        let mut out = Vec::with_capacity(groups);
        for g in 0..groups {
            let base = g * BLOCK as usize;
            let mut scratch = [op.identity(); WG as usize];
            for (lid, s) in scratch.iter_mut().enumerate() {
                for k in 0..ITEMS as usize {
                    let i = base + k * WG as usize + lid;
                    if i < level.len() {
                        *s = op.combine(*s, level[i]);
                    }
                }
            }
            let mut stride = WG as usize / 2;
            while stride > 0 {
                for lid in 0..stride {
                    scratch[lid] = op.combine(scratch[lid], scratch[lid + stride]);
                }
                stride /= 2;
            }
            out.push(scratch[0]);
        }
        level = out;
        if level.len() == 1 {
            return level[0];
        }
    }
}
