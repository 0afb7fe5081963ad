//! The model crate's shader registry: every model's shaders (`shaders/MODEL/`), including the
//! engine's `common/` files; and its tests' own (`tests/shaders/`, written as `test_shader_*.rs`
//! for the integration tests to include, so they stay out of the library).
fn main() {
    petri_shader_build::Registry::new("shaders")
        .include_from("petri_engine")
        .build();
    petri_shader_build::Registry::new("tests/shaders")
        .include_from("petri_engine")
        .name("test_shader")
        .build();
}
