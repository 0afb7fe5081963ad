//! The model crate's shader registry: every model's shaders (`shaders/MODEL/`), including the
//! engine's `common/` files.
fn main() {
    petri_shader_build::Registry::new("shaders")
        .include_from("petri_engine")
        .build();
}
