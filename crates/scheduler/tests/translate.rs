//! The scheduler's shaders, its library's and its tests', through naga's backend writers
//! (`petri_engine::shaders::translation_failures`: MSL, HLSL, SPIR-V, GLSL).

mod test_shaders;

use petri_engine::shaders::translation_failures;

#[test]
fn every_shader_translates_to_every_backend_language() {
    for (registry, all, least) in [
        ("library", petri_scheduler::shaders::ALL, 13),
        ("tests", test_shaders::ALL, 12),
    ] {
        let (translated, failures) = translation_failures(all);
        assert!(
            failures.is_empty(),
            "{registry}: translation failures:\n{}",
            failures.join("\n")
        );
        assert!(
            translated >= least,
            "{registry}: only {translated} entry point/constant sets translated"
        );
    }
}
