//! The GPU context: which adapter Petri runs on, with which features and limits.
//!
//! Choice order: the user's backend and adapter filters (CLI flags or the environment
//! variables `PETRI_BACKEND`, `PETRI_ADAPTER`: a name, or an index into `petri adapters` for
//! machines whose GPUs share one name), then hardware before software (discrete, integrated,
//! virtual, CPU), then Vulkan, Metal, DX12, GL. When no hardware adapter exists this picks the
//! software one (lavapipe on Linux, WARP on Windows), so the same code runs in CI.

use crate::error::{EngineError, Result};
use serde::Serialize;

/// What the user asked for. Empty fields mean "no preference".
#[derive(Clone, Debug)]
pub struct DeviceRequest {
    /// One of vulkan, metal, dx12, gl, all.
    pub backend: Option<String>,
    /// Case-insensitive substring of the adapter name (e.g. "H200", "llvmpipe"), or a number:
    /// the adapter at that index of `list_adapters` (same backend filter), e.g. "2" for the
    /// third of four GPUs named alike.
    pub adapter: Option<String>,
    /// Ask for timestamp queries when the adapter has them (default). False runs as on an
    /// adapter without them: profiling falls back to wall clock. `PETRI_TIMESTAMPS=0`.
    pub timestamps: bool,
    /// Open the device with WebGPU's downlevel limits (a GLES 3.1 class device: 4 storage
    /// buffers per stage, 128 MiB bindings) instead of the adapter's own. `PETRI_DOWNLEVEL=1`.
    pub downlevel: bool,
}

impl Default for DeviceRequest {
    fn default() -> Self {
        Self {
            backend: None,
            adapter: None,
            timestamps: true,
            downlevel: false,
        }
    }
}

impl DeviceRequest {
    /// The request from `PETRI_BACKEND` and `PETRI_ADAPTER`.
    pub fn from_env() -> Self {
        let get = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let off = |k: &str| get(k).is_some_and(|v| v == "0" || v.eq_ignore_ascii_case("false"));
        let on = |k: &str| get(k).is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
        Self {
            backend: get("PETRI_BACKEND"),
            adapter: get("PETRI_ADAPTER"),
            timestamps: !off("PETRI_TIMESTAMPS"),
            downlevel: on("PETRI_DOWNLEVEL"),
        }
    }

    /// Flags given on a command line win over the environment.
    pub fn with_overrides(mut self, backend: Option<String>, adapter: Option<String>) -> Self {
        if backend.is_some() {
            self.backend = backend;
        }
        if adapter.is_some() {
            self.adapter = adapter;
        }
        self
    }

    fn backends(&self) -> Result<wgpu::Backends> {
        parse_backends(self.backend.as_deref())
    }

    /// The adapter filter as an index into `list_adapters`, when it is a number.
    fn adapter_index(&self) -> Option<usize> {
        self.adapter.as_deref()?.trim().parse().ok()
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(b) = &self.backend {
            parts.push(format!("backend {b:?}"));
        }
        match (&self.adapter, self.adapter_index()) {
            (_, Some(k)) => parts.push(format!("index {k} of `petri adapters`")),
            (Some(a), None) => parts.push(format!("name containing {a:?}")),
            (None, None) => {}
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" matching {}", parts.join(" and "))
        }
    }
}

/// Parses a backend name as the CLI and `PETRI_BACKEND` take it.
pub fn parse_backends(name: Option<&str>) -> Result<wgpu::Backends> {
    Ok(match name.map(|s| s.to_ascii_lowercase()) {
        None => wgpu::Backends::all(),
        Some(s) => match s.as_str() {
            "all" => wgpu::Backends::all(),
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "metal" => wgpu::Backends::METAL,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "gl" | "gles" | "opengl" => wgpu::Backends::GL,
            _ => return Err(EngineError::UnknownBackend(s)),
        },
    })
}

/// What Petri reports about an adapter: in `petri adapters`, logs and run manifests.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub max_buffer_size: u64,
    pub max_storage_buffer_binding_size: u64,
    pub max_compute_workgroup_storage_size: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroups_per_dimension: u32,
    pub max_storage_buffers_per_shader_stage: u32,
    pub timestamp_query: bool,
    pub subgroups: bool,
    pub shader_f64: bool,
    pub shader_f16: bool,
    /// Compute shaders (missing on GL contexts older than 4.3 / GLES 3.1).
    pub compute_shaders: bool,
    /// Shading language / API version as the driver reports it (GL backend), else empty.
    pub shading_language: String,
}

impl AdapterSummary {
    fn new(
        info: &wgpu::AdapterInfo,
        limits: &wgpu::Limits,
        features: wgpu::Features,
        downlevel: &wgpu::DownlevelCapabilities,
    ) -> Self {
        Self {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            vendor_id: info.vendor,
            device_id: info.device,
            max_buffer_size: limits.max_buffer_size,
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
            max_compute_workgroup_storage_size: limits.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_compute_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            max_storage_buffers_per_shader_stage: limits.max_storage_buffers_per_shader_stage,
            timestamp_query: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            subgroups: features.contains(wgpu::Features::SUBGROUP),
            shader_f64: features.contains(wgpu::Features::SHADER_F64),
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            compute_shaders: downlevel
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS),
            shading_language: format!("{:?}", downlevel.shader_model),
        }
    }

    /// True for software rasterisers (lavapipe, llvmpipe, WARP, SwiftShader).
    pub fn is_software(&self) -> bool {
        self.device_type == "Cpu"
    }
}

/// An instance that initialises only the backends asked for (wgpu's WGPU_BACKEND variable can
/// narrow them further).
fn new_instance(backends: wgpu::Backends) -> wgpu::Instance {
    // Every driver this process loads is loaded through an instance made here, so the
    // variable is set before any driver reads the environment; the Once makes other threads
    // wait for it. (Test binaries and embedders have no `main` of ours to set it in.)
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(crate::headless::quiet_display_probes);
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends &= backends;
    wgpu::Instance::new(desc)
}

fn type_rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

fn backend_rank(b: wgpu::Backend) -> u8 {
    match b {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

/// The adapters a request may use, best first; never empty. Without a backend named, Vulkan,
/// Metal and DX12 are looked at first and GL only when they have nothing: probing GL through
/// EGL is slow and noisy on headless Linux.
fn candidate_adapters(request: &DeviceRequest) -> Result<Vec<wgpu::Adapter>> {
    let mut adapters = Vec::new();
    if let Some(k) = request.adapter_index() {
        // The list `petri adapters` shows (every backend asked for, GL included), by index.
        let all = matching_adapters(request, request.backends()?)?;
        return match all.into_iter().nth(k) {
            Some(adapter) => Ok(vec![adapter]),
            None => Err(no_match(request)),
        };
    }
    if request.backend.is_none() {
        adapters = matching_adapters(request, wgpu::Backends::PRIMARY)?;
    }
    if adapters.is_empty() {
        adapters = matching_adapters(request, request.backends()?)?;
    }
    if adapters.is_empty() {
        return Err(no_match(request));
    }
    Ok(adapters)
}

/// The error for a request no adapter meets: the adapters there are, when there are any (the
/// name or backend asked for is wrong), else how to install a driver.
fn no_match(request: &DeviceRequest) -> EngineError {
    let filter = request.describe();
    let present = list_adapters(None).unwrap_or_default();
    if present.is_empty() {
        return EngineError::NoAdapter { filter };
    }
    let present = present
        .iter()
        .enumerate()
        .map(|(i, a)| format!("[{i}] {} ({})", a.name, a.backend))
        .collect::<Vec<_>>()
        .join(", ");
    EngineError::NoMatchingAdapter { filter, present }
}

/// Adapters of `backends` that match the request's name filter, best first.
fn matching_adapters(
    request: &DeviceRequest,
    backends: wgpu::Backends,
) -> Result<Vec<wgpu::Adapter>> {
    let instance = new_instance(backends);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    if let (Some(name), None) = (&request.adapter, request.adapter_index()) {
        let name = name.to_lowercase();
        adapters.retain(|a| a.get_info().name.to_lowercase().contains(&name));
    }
    // Adapters that can run compute shaders first, then hardware before software, then backend.
    adapters.sort_by_key(|a| {
        let i = a.get_info();
        let compute = a
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS);
        (!compute, type_rank(i.device_type), backend_rank(i.backend))
    });
    Ok(adapters)
}

/// Every adapter wgpu can see (optionally of one backend), best first.
pub fn list_adapters(backend: Option<&str>) -> Result<Vec<AdapterSummary>> {
    let request = DeviceRequest {
        backend: backend.map(str::to_string),
        ..Default::default()
    };
    Ok(matching_adapters(&request, request.backends()?)?
        .iter()
        .map(summary)
        .collect())
}

/// The adapters `GpuContext::new(request)` chooses from, best first (the first is the one it
/// opens); empty when none matches. For deciding whether a GPU is worth opening at all.
pub fn request_adapters(request: &DeviceRequest) -> Result<Vec<AdapterSummary>> {
    match candidate_adapters(request) {
        Ok(adapters) => Ok(adapters.iter().map(summary).collect()),
        Err(EngineError::NoAdapter { .. } | EngineError::NoMatchingAdapter { .. }) => {
            Ok(Vec::new())
        }
        Err(e) => Err(e),
    }
}

fn summary(a: &wgpu::Adapter) -> AdapterSummary {
    AdapterSummary::new(
        &a.get_info(),
        &a.limits(),
        a.features(),
        &a.get_downlevel_capabilities(),
    )
}

/// A device and queue with what Petri knows about them.
#[derive(Clone)]
pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: AdapterSummary,
}

impl GpuContext {
    /// Picks an adapter as the module doc says and opens a device with the adapter's own limits
    /// (so that large grids fit) and timestamp queries when the adapter has them.
    pub fn new(request: &DeviceRequest) -> Result<Self> {
        let adapters = candidate_adapters(request)?;
        Self::open(request, &adapters[0])
    }

    /// `count` devices for a multi-device run: every adapter matching the request on the best
    /// adapter's backend and device type, in enumeration order; with fewer adapters than
    /// `count`, further devices are opened on the same adapters in turn (several devices on one
    /// GPU, which is how multi-device runs are tested on one software adapter).
    pub fn new_many(request: &DeviceRequest, count: usize) -> Result<Vec<Self>> {
        let mut adapters = candidate_adapters(request)?;
        let best = adapters[0].get_info();
        let (backend, kind) = (best.backend, best.device_type);
        adapters.retain(|a| a.get_info().backend == backend && a.get_info().device_type == kind);
        if adapters.len() < count {
            log::info!(
                "{count} devices asked for, {} adapters match: opening several devices per adapter",
                adapters.len()
            );
        }
        (0..count)
            .map(|k| Self::open(request, &adapters[k % adapters.len()]))
            .collect()
    }

    fn open(request: &DeviceRequest, adapter: &wgpu::Adapter) -> Result<Self> {
        let info = adapter.get_info();
        let downlevel = adapter.get_downlevel_capabilities();
        if !downlevel
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        {
            return Err(EngineError::NoCompute {
                adapter: info.name.clone(),
                backend: format!("{:?}", info.backend),
                detail: format!(
                    "driver {} {}, shader model {:?}",
                    info.driver, info.driver_info, downlevel.shader_model
                ),
            });
        }
        let wanted = if request.timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let features = adapter.features() & wanted;
        let limits = if request.downlevel {
            wgpu::Limits::downlevel_defaults()
        } else {
            adapter.limits()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("petri"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|source| EngineError::RequestDevice {
            adapter: info.name.clone(),
            // Seen on NVIDIA through EGL: wgpu 30 asks for a desktop OpenGL 3.3 context, which
            // has no compute shaders, and device creation fails (docs/PORTABILITY.md).
            hint: if info.backend == wgpu::Backend::Gl {
                format!(
                    ". The GL context is {:?}; compute needs OpenGL 4.3 or GLES 3.1: use --backend vulkan",
                    info.driver_info.trim()
                )
            } else {
                String::new()
            },
            source,
        })?;
        let summary = AdapterSummary::new(&info, &limits, features, &downlevel);
        log::info!(
            "adapter: {} ({}, {}, driver {} {})",
            summary.name,
            summary.backend,
            summary.device_type,
            summary.driver,
            summary.driver_info
        );
        Ok(Self {
            device,
            queue,
            adapter: summary,
        })
    }

    /// Wraps a device and queue that the embedding program created itself. Petri uses whatever
    /// features and limits that device was opened with.
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, info: &wgpu::AdapterInfo) -> Self {
        // An embedding program's device: it chose it, so its compute support is taken as given.
        let downlevel = wgpu::DownlevelCapabilities::default();
        let summary = AdapterSummary::new(info, &device.limits(), device.features(), &downlevel);
        Self {
            device,
            queue,
            adapter: summary,
        }
    }

    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// Whether passes can carry GPU timestamps.
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Fails with a message naming the buffer and both sizes when one storage buffer of `bytes`
    /// is more than this device allows.
    pub fn check_storage_buffer(&self, what: &str, bytes: u64) -> Result<()> {
        let limits = self.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes > limit {
            return Err(EngineError::LimitExceeded {
                adapter: self.adapter.name.clone(),
                what: format!("a storage buffer of {bytes} bytes for {what} (max_storage_buffer_binding_size)"),
                asked: bytes,
                limit,
            });
        }
        Ok(())
    }

    /// Fails when a pass binds more storage buffers than the device allows per shader stage.
    pub fn check_storage_buffers_per_stage(&self, what: &str, count: u32) -> Result<()> {
        let limit = self.limits().max_storage_buffers_per_shader_stage;
        if count > limit {
            return Err(EngineError::LimitExceeded {
                adapter: self.adapter.name.clone(),
                what: format!(
                    "{count} storage buffers in {what} (max_storage_buffers_per_shader_stage)"
                ),
                asked: count as u64,
                limit: limit as u64,
            });
        }
        Ok(())
    }

    /// Fails when a workgroup size exceeds the device's per-axis or total invocation limits.
    pub fn check_workgroup_size(&self, what: &str, size: [u32; 3]) -> Result<()> {
        let l = self.limits();
        let axes = [
            (
                size[0],
                l.max_compute_workgroup_size_x,
                "max_compute_workgroup_size_x",
            ),
            (
                size[1],
                l.max_compute_workgroup_size_y,
                "max_compute_workgroup_size_y",
            ),
            (
                size[2],
                l.max_compute_workgroup_size_z,
                "max_compute_workgroup_size_z",
            ),
        ];
        for (n, limit, name) in axes {
            if n == 0 || n > limit {
                return Err(EngineError::LimitExceeded {
                    adapter: self.adapter.name.clone(),
                    what: format!("workgroup size {size:?} for {what} ({name}; each axis must be 1..={limit})"),
                    asked: n as u64,
                    limit: limit as u64,
                });
            }
        }
        let total = size.iter().map(|&n| n as u64).product::<u64>();
        let limit = l.max_compute_invocations_per_workgroup as u64;
        if total > limit {
            return Err(EngineError::LimitExceeded {
                adapter: self.adapter.name.clone(),
                what: format!("workgroup size {size:?} = {total} invocations for {what} (max_compute_invocations_per_workgroup)"),
                asked: total,
                limit,
            });
        }
        Ok(())
    }

    /// Fails when `count` workgroups along one dimension exceed the device limit.
    pub fn check_workgroups(&self, what: &str, count: u32) -> Result<()> {
        let limit = self.limits().max_compute_workgroups_per_dimension;
        if count > limit {
            return Err(EngineError::LimitExceeded {
                adapter: self.adapter.name.clone(),
                what: format!("{count} workgroups along one dimension for {what} (max_compute_workgroups_per_dimension)"),
                asked: count as u64,
                limit: limit as u64,
            });
        }
        Ok(())
    }

    /// Blocks until all submitted work is done, and the buffer writes queued since the last
    /// submission too (wgpu sends those with the next submission, so an empty one is made),
    /// reporting device loss as an error.
    pub fn wait(&self) -> Result<()> {
        self.queue.submit(std::iter::empty());
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| EngineError::Device(e.to_string()))
    }

    /// Blocks until the GPU has done the submission `index` (and so every earlier one).
    pub fn wait_for(&self, index: wgpu::SubmissionIndex) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map(|_| ())
            .map_err(|e| EngineError::Device(e.to_string()))
    }
}
