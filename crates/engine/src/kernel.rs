//! Compute pipelines from registry shaders with explicit bind group layouts.
//!
//! Layouts are explicit (not derived from the shader) so that several pipelines can share bind
//! groups, and so the step uniform can use a dynamic offset.

use crate::{shaders, GpuContext, Result};

/// How a shader binding is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Uniform,
    /// A uniform bound with a dynamic offset (the per-step info).
    UniformDynamic,
    ReadOnly,
    ReadWrite,
}

/// A bind group layout with one compute-visible buffer binding per entry, numbered from 0.
pub fn bind_group_layout(
    ctx: &GpuContext,
    label: &str,
    accesses: &[Access],
) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = accesses
        .iter()
        .enumerate()
        .map(|(i, a)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match a {
                    Access::Uniform | Access::UniformDynamic => wgpu::BufferBindingType::Uniform,
                    Access::ReadOnly => wgpu::BufferBindingType::Storage { read_only: true },
                    Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: *a == Access::UniformDynamic,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    ctx.device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &entries,
        })
}

/// A bind group binding whole buffers in order.
pub fn bind_group(
    ctx: &GpuContext,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let entries: Vec<_> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// A compute pipeline for `entry` in registry shader `shader`, with pipeline-overridable constants
/// (e.g. the workgroup size) set from `constants`.
pub fn compute_pipeline(
    ctx: &GpuContext,
    shader: &str,
    entry: &str,
    layouts: &[&wgpu::BindGroupLayout],
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    let module = shaders::module(&ctx.device, shader)?;
    pipeline_for_module(ctx, &module, shader, entry, layouts, constants)
}

/// A compute pipeline from a registry shader whose generated section `section` is replaced by
/// `code` (`shaders::source_generated`).
pub fn compute_pipeline_generated(
    ctx: &GpuContext,
    shader: &str,
    (section, code): (&str, &str),
    entry: &str,
    layouts: &[&wgpu::BindGroupLayout],
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    let src = shaders::source_generated(shader, section, code)?;
    let label = format!("{shader} (generated {section})");
    let module = shaders::module_from_source(&ctx.device, &label, src)?;
    pipeline_for_module(ctx, &module, &label, entry, layouts, constants)
}

fn pipeline_for_module(
    ctx: &GpuContext,
    module: &wgpu::ShaderModule,
    shader: &str,
    entry: &str,
    layouts: &[&wgpu::BindGroupLayout],
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(|l| Some(*l)).collect();
    let layout = ctx
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(entry),
            bind_group_layouts: &layouts,
            immediate_size: 0,
        });
    Ok(ctx
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&format!("{shader}:{entry}")),
            layout: Some(&layout),
            module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        }))
}
