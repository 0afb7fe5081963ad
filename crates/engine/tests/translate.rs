//! The engine's own shaders (`common/`) through naga's backend writers
//! (`shaders::translation_failures`); the scheduler and model crates test theirs likewise.

use petri_engine::shaders;

#[test]
fn every_shader_translates_to_every_backend_language() {
    let (translated, failures) = shaders::translation_failures(shaders::ALL);
    assert!(
        failures.is_empty(),
        "translation failures:\n{}",
        failures.join("\n")
    );
    assert!(
        translated >= 7,
        "only {translated} entry point/constant combinations translated"
    );
}
