//! Petri's engine: the GPU context (adapter choice, features, limits), the registry of the WGSL
//! shaders under `shaders/`, buffer helpers and readback, timestamp profiling, and the CPU twin of
//! the WGSL random number generator.

pub mod buffers;
pub mod context;
pub mod error;
pub mod headless;
pub mod kernel;
pub mod layout;
pub mod profiler;
pub mod rng;
pub mod shaders;
pub mod testing;

pub use context::{list_adapters, request_adapters, AdapterSummary, DeviceRequest, GpuContext};
pub use error::{EngineError, Result};
pub use kernel::Access;
pub use profiler::{BatchTimer, BatchTimes, PassTimes, Profiler};
pub use wgpu;
