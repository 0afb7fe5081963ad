//! The model's shader registry: `shaders/gray_scott.wgsl`, validated by naga when the crate is
//! built and given typed handles (`crate::shaders::gray_scott::GRAY_SCOTT_STEP`), with the
//! engine's `common/` library on the search path, as the workspace's own models have.
fn main() {
    petri_shader_build::Registry::new("shaders")
        .include_from("petri_engine")
        .build();
}
