//! The model's shader registry, written by its build script (`build.rs`): `shaders/*.wgsl`
//! validated by naga and given typed handles, `gray_scott::GRAY_SCOTT_STEP` and the like.

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/shader_handles.rs"));
