//! Which device runs an ensemble when none is named (`--device auto`): the GPU when a hardware
//! adapter can run compute shaders, else the CPU. A software adapter (lavapipe, llvmpipe, WARP,
//! SwiftShader) runs the GPU code on the CPU's cores, slower than the CPU simulators on the same
//! cores, so it never wins. The decision is a pure function of the adapter list, so it can be
//! tested on made-up adapters and reused by any front end.

use crate::error::{invalid, Result};
use petri_engine::AdapterSummary;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Cpu,
    Gpu,
}

impl Device {
    pub fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
        }
    }

    /// The device `name`d by option `field`: Some for "cpu" or "gpu", None for "auto" (the
    /// choice of [`choose_device`]).
    pub fn parse(field: &str, name: &str) -> Result<Option<Device>> {
        match name {
            "auto" => Ok(None),
            "cpu" => Ok(Some(Device::Cpu)),
            "gpu" => Ok(Some(Device::Gpu)),
            other => Err(invalid(field, format!("{other:?}"), "auto, cpu or gpu")),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The device chosen and why, e.g. "gpu (NVIDIA H100, Vulkan)" or "cpu (only a software
/// adapter: llvmpipe)".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceChoice {
    pub device: Device,
    pub reason: String,
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.device, self.reason)
    }
}

/// True for a real GPU that can run the ensemble kernels: a discrete, integrated or virtual
/// GPU with compute shaders (wgpu's `Cpu` type is a software adapter; `Other` is unknown).
pub fn is_hardware(adapter: &AdapterSummary) -> bool {
    adapter.compute_shaders
        && matches!(
            adapter.device_type.as_str(),
            "DiscreteGpu" | "IntegratedGpu" | "VirtualGpu"
        )
}

/// The device for `adapters` (those the GPU context would choose from, best first): the first
/// hardware adapter's GPU, else the CPU, with the reason.
pub fn choose_device(adapters: &[AdapterSummary]) -> DeviceChoice {
    if let Some(a) = adapters.iter().find(|a| is_hardware(a)) {
        return DeviceChoice {
            device: Device::Gpu,
            reason: format!("{}, {}", a.name, a.backend),
        };
    }
    let reason = match adapters {
        [] => "no GPU adapter".to_string(),
        _ => {
            let names = adapters.iter().map(|a| a.name.as_str()).collect::<Vec<_>>();
            let names = names.join(", ");
            match (
                adapters.iter().all(AdapterSummary::is_software),
                adapters.len(),
            ) {
                (true, 1) => format!("only a software adapter: {names}"),
                (true, _) => format!("only software adapters: {names}"),
                (false, _) => format!("no hardware GPU with compute shaders: {names}"),
            }
        }
    };
    DeviceChoice {
        device: Device::Cpu,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(name: &str, device_type: &str, backend: &str) -> AdapterSummary {
        AdapterSummary {
            name: name.into(),
            backend: backend.into(),
            device_type: device_type.into(),
            driver: String::new(),
            driver_info: String::new(),
            vendor_id: 0,
            device_id: 0,
            max_buffer_size: 1 << 30,
            max_storage_buffer_binding_size: 1 << 27,
            max_compute_workgroup_storage_size: 16384,
            max_compute_invocations_per_workgroup: 256,
            max_compute_workgroups_per_dimension: 65535,
            max_storage_buffers_per_shader_stage: 8,
            timestamp_query: false,
            subgroups: false,
            shader_f64: false,
            shader_f16: false,
            compute_shaders: true,
            shading_language: String::new(),
        }
    }

    #[test]
    fn a_hardware_adapter_gets_the_gpu() {
        let adapters = [
            adapter("NVIDIA H100 80GB HBM3", "DiscreteGpu", "Vulkan"),
            adapter("llvmpipe (LLVM 15.0.7, 256 bits)", "Cpu", "Vulkan"),
        ];
        let choice = choose_device(&adapters);
        assert_eq!(choice.device, Device::Gpu);
        assert_eq!(choice.to_string(), "gpu (NVIDIA H100 80GB HBM3, Vulkan)");
        // Listed after a software one, it still wins.
        let reversed = [adapters[1].clone(), adapters[0].clone()];
        assert_eq!(choose_device(&reversed), choice);
    }

    #[test]
    fn only_software_adapters_get_the_cpu() {
        let choice = choose_device(&[adapter("llvmpipe (LLVM 15.0.7)", "Cpu", "Vulkan")]);
        assert_eq!(choice.device, Device::Cpu);
        assert_eq!(
            choice.to_string(),
            "cpu (only a software adapter: llvmpipe (LLVM 15.0.7))"
        );
        // An adapter of unknown type, or a GPU without compute shaders, is not used either.
        let mut old_gl = adapter("Mesa Intel HD 3000", "IntegratedGpu", "Gl");
        old_gl.compute_shaders = false;
        let unknown = adapter("mystery", "Other", "Gl");
        let choice = choose_device(&[old_gl, unknown]);
        assert_eq!(choice.device, Device::Cpu);
        assert_eq!(
            choice.reason,
            "no hardware GPU with compute shaders: Mesa Intel HD 3000, mystery"
        );
    }

    #[test]
    fn no_adapter_gets_the_cpu() {
        let choice = choose_device(&[]);
        assert_eq!(choice.device, Device::Cpu);
        assert_eq!(choice.to_string(), "cpu (no GPU adapter)");
    }
}
