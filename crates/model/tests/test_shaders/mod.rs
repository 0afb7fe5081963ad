//! The model crate's test shaders (`tests/shaders/`), registered by its build script apart from
//! the library's: `test_shaders::ssa::expr_eval::MAIN`, and so on.
#![allow(dead_code)]

include!(concat!(env!("OUT_DIR"), "/test_shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/test_shader_handles.rs"));
