//! The scheduler's shader registry (its primitives, `shaders/scheduler/`) and its tests' own
//! (`tests/shaders/test/`, written as `test_shader_*.rs` for the integration tests to include,
//! so they stay out of the library); both include the engine's `common/`.
fn main() {
    petri_shader_build::Registry::new("shaders")
        .include_from("petri_engine")
        .build();
    petri_shader_build::Registry::new("tests/shaders")
        .include_from("petri_engine")
        .name("test_shader")
        .build();
}
