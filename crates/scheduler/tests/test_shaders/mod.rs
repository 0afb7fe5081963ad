//! The scheduler tests' own shaders (`tests/shaders/test/`), registered by the scheduler's build
//! script apart from its library's: `test_shaders::test::pingpong::MAIN`, and so on.
#![allow(dead_code)]

include!(concat!(env!("OUT_DIR"), "/test_shader_files.rs"));
include!(concat!(env!("OUT_DIR"), "/test_shader_handles.rs"));
