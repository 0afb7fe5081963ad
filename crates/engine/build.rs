//! The engine's shader registry: the library files every model includes (`shaders/common/`),
//! exported to the crates that depend on the engine (`links = "petri_engine"`).
fn main() {
    petri_shader_build::Registry::new("shaders")
        .engine_path("crate::shaders")
        .export()
        .build();
}
