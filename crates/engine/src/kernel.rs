//! Compute pipelines from registry entry points (`shaders`), or from a module a crate built
//! itself, with explicit bind group layouts.
//!
//! Layouts are explicit (not derived from the shader) so that several pipelines can share bind
//! groups, and so the step uniform can use a dynamic offset.

use crate::shaders::{self, EntryPoint};
use crate::{GpuContext, Result};

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

/// A compute pipeline for registry entry point `entry` (e.g. `shaders::rdme::diffuse::DIFFUSE`),
/// with pipeline-overridable constants (e.g. the workgroup size) set from `constants`.
pub fn compute_pipeline(
    ctx: &GpuContext,
    entry: EntryPoint,
    layouts: &[&wgpu::BindGroupLayout],
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    let module = shaders::module(&ctx.device, entry.shader());
    let label = entry.to_string();
    pipeline_for_module(ctx, &module, &label, entry.name(), layouts, constants)
}

/// A compute pipeline for `entry` with its shader's generated section `section` replaced by
/// `code` (`Shader::source_generated`); naga validates the result first.
pub fn compute_pipeline_generated(
    ctx: &GpuContext,
    entry: EntryPoint,
    (section, code): (&str, &str),
    layouts: &[&wgpu::BindGroupLayout],
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    let src = entry.shader().source_generated(section, code)?;
    let label = format!("{entry} (generated {section})");
    let module = shaders::module_from_source(&ctx.device, &label, src)?;
    pipeline_for_module(ctx, &module, &label, entry.name(), layouts, constants)
}

/// A compute pipeline for entry point `entry` of `module`: a shader the caller built, e.g. a
/// crate's own WGSL through `shaders::module_from_source` (a model outside the workspace).
pub fn pipeline_for_module(
    ctx: &GpuContext,
    module: &wgpu::ShaderModule,
    label: &str,
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
            label: Some(label),
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
