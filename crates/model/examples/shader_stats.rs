//! What the Vulkan driver made of the RDME step's passes and the angiogenesis field update:
//! registers and the other statistics of VK_KHR_pipeline_executable_properties, which wgpu does
//! not ask for. Each pass goes through
//! naga to SPIR-V as wgpu would send it (same pipeline constants; bounds checks on indices; the
//! loop counters unless the shader declares `//!bounded-loops`) and into a pipeline created
//! with statistics capture. Registers decide how many workgroups an SM holds at once, and so how
//! much a dispatch costs (examples/dispatch_cost.rs).
//! `cargo run --release -p petri-model --example shader_stats` (first Vulkan device, or
//! PETRI_VK_DEVICE=N).

use ash::vk;
use naga::back::spv;
use petri_engine::shaders::{EntryPoint, Shader};
use petri_model::shaders;
use std::ffi::CStr;

/// A pipeline to look at: label, shader, entry point, pipeline constants.
struct Pass {
    label: String,
    entry: EntryPoint,
    constants: Vec<(&'static str, f64)>,
}

/// The passes of the RDME step as crates/model/src/rdme/slab.rs makes them with the default 64x4
/// workgroup and 4 sites per thread, then the same with 1 site per thread (software adapters),
/// then the occupied sweeps.
/// The shapes are `slab::sweep_shape`'s, written out (it is private to the RDME model), so they
/// must follow it by hand.
fn passes() -> Vec<Pass> {
    let mut out = Vec::new();
    for sites in [4.0, 1.0] {
        let sweep = |label: &str, shape: [f64; 3], axis: f64, react: bool| Pass {
            label: format!("{label}, {sites} sites per thread"),
            entry: shaders::rdme::diffuse::DIFFUSE,
            constants: vec![
                ("WX", shape[0]),
                ("WY", shape[1]),
                ("WZ", shape[2]),
                ("AXIS", axis),
                ("REACT", react as u8 as f64),
                ("SITES", sites),
            ],
        };
        out.push(sweep("diffuse x", [64.0, 4.0, 1.0], 0.0, false));
        out.push(sweep("diffuse y", [32.0, 8.0, 1.0], 1.0, false));
        out.push(sweep("diffuse z + react", [8.0, 1.0, 32.0], 2.0, true));
    }
    out.push(Pass {
        label: "resolve overflow".into(),
        entry: shaders::rdme::resolve::RESOLVE,
        constants: vec![],
    });
    // The occupied sweeps as slab.rs makes them for the Min asset (128 threads: below 0.02
    // particles per site; the lattice's numbers are pipeline constants there), then the z sweep
    // of the lower slab of two (128 owned planes, 16 halo planes above).
    for (label, axis, react, halos) in [
        ("occupied x", 0.0, false, false),
        ("occupied y", 1.0, false, false),
        ("occupied z + react + overflow", 2.0, true, false),
        (
            "occupied z + react + overflow, slab with halos",
            2.0,
            true,
            true,
        ),
    ] {
        let planes = if halos { 144.0 } else { 256.0 };
        out.push(Pass {
            label: label.into(),
            entry: shaders::rdme::diffuse_occupied::DIFFUSE_OCCUPIED,
            constants: vec![
                ("AXIS", axis),
                ("REACT", react as u8 as f64),
                ("THREADS", 128.0),
                ("NX", 64.0),
                ("NY", 64.0),
                ("NZ", 256.0),
                ("PLANES", planes),
                ("Z_BASE", 0.0),
                ("OWN_BEGIN", 0.0),
                ("OWN_END", if halos { 128.0 } else { 256.0 }),
                ("HALO_DEPTH", if halos { 16.0 } else { 1.0 }),
                ("HALOS", halos as u8 as f64),
                ("N_TYPES", 3.0),
                ("N_SPECIES", 6.0),
                ("N_REACTIONS", 5.0),
                ("OVERFLOW_CAPACITY", 4096.0),
                ("ZEROTH_ORDER", 0.0),
            ],
        });
    }
    // The angiogenesis field update at the workgroups SimOptions::default() and the
    // determinism test use (crates/model/src/angiogenesis/sim.rs), with the chunks of
    // 400x400x140 (35 planes).
    for wg in [[32.0, 8.0, 1.0], [64.0, 4.0, 1.0]] {
        out.push(Pass {
            label: format!("angiogenesis fields {wg:?}"),
            entry: shaders::angiogenesis::fields::MAIN,
            constants: vec![
                ("WX", wg[0]),
                ("WY", wg[1]),
                ("WZ", wg[2]),
                ("ZCHUNK", 35.0),
            ],
        });
    }
    out
}

/// SPIR-V of one entry point, written as wgpu's Vulkan backend writes it.
fn spirv(entry: EntryPoint, constants: &[(&str, f64)]) -> Vec<u32> {
    let (module, info) = entry.shader().validate().expect("registry shader");
    let mut pc = naga::back::PipelineConstants::default();
    for (k, v) in constants {
        pc.insert(k.to_string(), *v);
    }
    let stage = naga::ShaderStage::Compute;
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((stage, entry.name())),
        &pc,
    )
    .expect("pipeline constants");
    let options = spv::Options {
        lang_version: (1, 3),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Polyfill,
        force_loop_bounding: !entry.bounded_loops(),
        ..Default::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: stage,
        entry_point: entry.name().to_string(),
    };
    spv::write_vec(&module, &info, &options, Some(&pipeline)).expect("SPIR-V")
}

/// Descriptor set layouts for the module's bindings: uniforms in group 0 take a dynamic offset
/// (the step info), other uniforms none, storage buffers are storage buffers.
fn set_layouts(device: &ash::Device, shader: Shader) -> Vec<vk::DescriptorSetLayout> {
    let (module, _) = shader.validate().expect("registry shader");
    let mut groups: Vec<Vec<vk::DescriptorSetLayoutBinding>> = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(b) = &var.binding else { continue };
        let ty = match var.space {
            naga::AddressSpace::Uniform if b.group == 0 => {
                vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC
            }
            naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
            _ => vk::DescriptorType::STORAGE_BUFFER,
        };
        let g = b.group as usize;
        if groups.len() <= g {
            groups.resize(g + 1, Vec::new());
        }
        groups[g].push(
            vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
        );
    }
    groups
        .iter()
        .map(|bindings| {
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
            unsafe { device.create_descriptor_set_layout(&info, None) }.expect("set layout")
        })
        .collect()
}

fn main() {
    let entry = unsafe { ash::Entry::load() }.expect("the Vulkan loader");
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
    let instance = unsafe {
        entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )
    }
    .expect("a Vulkan instance");
    let physical = unsafe { instance.enumerate_physical_devices() }.expect("devices");
    let index: usize = std::env::var("PETRI_VK_DEVICE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let pd = *physical
        .get(index)
        .expect("a Vulkan device at PETRI_VK_DEVICE");
    let props = unsafe { instance.get_physical_device_properties(pd) };
    let name = props
        .device_name_as_c_str()
        .unwrap_or(c"?")
        .to_string_lossy();
    println!("device: {name}");

    let extensions = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
    let mut executable_info = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let priorities = [1.0];
    let queue = vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities);
    let queues = [queue];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .push_next(&mut executable_info);
    let device = unsafe { instance.create_device(pd, &info, None) }
        .expect("a device with VK_KHR_pipeline_executable_properties");
    let stats = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);

    for Pass {
        label,
        entry,
        constants,
    } in passes()
    {
        let words = spirv(entry, &constants);
        let module = unsafe {
            device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
        }
        .expect("shader module");
        let layouts = set_layouts(&device, entry.shader());
        let layout = unsafe {
            device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                None,
            )
        }
        .expect("pipeline layout");
        let entry_name = std::ffi::CString::new(entry.name()).expect("entry name");
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(&entry_name);
        let create = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)
            .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
        let pipeline =
            unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &[create], None) }
                .map_err(|(_, e)| e)
                .expect("compute pipeline")[0];
        let pipeline_info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        let executables = unsafe { stats.get_pipeline_executable_properties(&pipeline_info) }
            .expect("executables");
        let mut line = Vec::new();
        for k in 0..executables.len() as u32 {
            let exe = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(k);
            let out =
                unsafe { stats.get_pipeline_executable_statistics(&exe) }.expect("statistics");
            for s in &out {
                let name = unsafe { CStr::from_ptr(s.name.as_ptr()) }.to_string_lossy();
                let value = unsafe {
                    match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => s.value.b32.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                        _ => format!("{:.3}", s.value.f64),
                    }
                };
                line.push(format!("{name} {value}"));
            }
        }
        println!("{label}: {}", line.join(", "));
        unsafe {
            device.destroy_pipeline(pipeline, None);
            device.destroy_pipeline_layout(layout, None);
            for l in layouts {
                device.destroy_descriptor_set_layout(l, None);
            }
            device.destroy_shader_module(module, None);
        }
    }
    unsafe {
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
