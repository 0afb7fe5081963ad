//! The scheduler's shader registry: its primitives' WGSL (`crates/scheduler/shaders/scheduler/`),
//! validated and given typed handles by its build script (`petri_engine::shaders` says how):
//! `shaders::scheduler::scan::SCAN_BLOCKS`, and so on.

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/shader_handles.rs"));
