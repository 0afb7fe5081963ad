//! The model crate's shader registry: every model's WGSL (`crates/model/shaders/MODEL/`),
//! validated and given typed handles by its build script, with the engine's `common/` files on
//! its search path (`petri_engine::shaders` says how): `shaders::rdme::diffuse::DIFFUSE`, and so
//! on. A model's shaders live in its folder here, beside no other model's.

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/shader_handles.rs"));
