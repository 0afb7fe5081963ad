//! Errors of the GPU context and shader registry. Each names what was asked and what is allowed.

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(
        "no GPU adapter found{filter}. Install a Vulkan driver: on Debian/Ubuntu without a GPU, \
         `apt-get install -y mesa-vulkan-drivers` gives the lavapipe software adapter; with a GPU, \
         install its vendor's driver. `petri adapters` lists what wgpu can see."
    )]
    NoAdapter { filter: String },
    /// Adapters exist, but none matches the backend or adapter asked for.
    #[error(
        "no GPU adapter{filter}; the adapters present: {present}. Pass --adapter (PETRI_ADAPTER) \
         a part of one of these names or its index, or --backend (PETRI_BACKEND) one of theirs; \
         `petri adapters` shows each with its limits"
    )]
    NoMatchingAdapter { filter: String, present: String },
    #[error("unknown backend {0:?}: allowed values are vulkan, metal, dx12, gl, all")]
    UnknownBackend(String),
    #[error("the adapter {adapter:?} cannot give {what}: asked for {asked}, its limit is {limit}")]
    LimitExceeded {
        adapter: String,
        what: String,
        asked: u64,
        limit: u64,
    },
    #[error(
        "the adapter {adapter:?} ({backend}) cannot run compute shaders ({detail}); Petri needs them: \
         choose another adapter or backend (`petri adapters` lists them; e.g. --backend vulkan)"
    )]
    NoCompute {
        adapter: String,
        backend: String,
        detail: String,
    },
    #[error("requesting a device from {adapter:?} failed: {source}{hint}")]
    RequestDevice {
        adapter: String,
        hint: String,
        #[source]
        source: wgpu::RequestDeviceError,
    },
    #[error("shader {shader}: {message}")]
    ShaderInvalid { shader: String, message: String },
    #[error("GPU readback failed: {0}")]
    Readback(String),
    #[error("GPU device error: {0}")]
    Device(String),
    #[error("step plan: {0}")]
    Plan(String),
}

pub type Result<T> = std::result::Result<T, EngineError>;
