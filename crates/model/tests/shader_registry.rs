//! The model crate's shader registry (its build script over `crates/model/shaders/`, with the
//! engine's `common/` on its search path): handles, includes across crates, bounded loops,
//! generated sections, and every shader through naga's backend writers.

use petri_engine::shaders::{translation_failures, validate_source};
use petri_model::shaders::{angiogenesis, rdme, ssa, ALL};

#[test]
fn handles_name_files_and_entry_points() {
    assert_eq!(rdme::diffuse::DIFFUSE.shader().path(), "rdme/diffuse.wgsl");
    assert_eq!(rdme::diffuse::DIFFUSE.name(), "diffuse");
    assert!(
        !ALL.iter().any(|s| s.path() == "rdme/gather.wgsl"),
        "a fragment"
    );
    assert!(
        !ALL.iter().any(|s| s.path().starts_with("common/")),
        "the engine's files are on the search path, not the model crate's own"
    );
    // Every handle's entry point is in its composed source.
    for ep in [ssa::leap::LEAP_FINISH, ssa::ensemble_compiled::RUN_COMPILED] {
        assert!(ep.source().contains(&format!("fn {}(", ep.name())), "{ep}");
    }
}

#[test]
fn includes_resolve_once_before_the_includer_across_crates() {
    let src = rdme::diffuse::SHADER.source();
    let at = |name: &str| {
        let marker = format!("// ---- {name} ----");
        assert_eq!(src.matches(&marker).count(), 1, "{name}");
        src.find(&marker).unwrap()
    };
    // common/rng.wgsl is the engine's, the rest the model crate's.
    assert!(at("common/rng.wgsl") < at("rdme/gather.wgsl"));
    assert!(at("rdme/gather.wgsl") < at("rdme/diffuse.wgsl"));
}

#[test]
fn bounded_loops_are_declared_where_the_counters_cost_most() {
    // The RDME step's passes (petri_engine::shaders module doc).
    assert!(rdme::diffuse::SHADER.bounded_loops());
    assert!(rdme::resolve::RESOLVE.bounded_loops());
    assert!(angiogenesis::fields::MAIN.bounded_loops());
    assert!(!rdme::observe::SHADER.bounded_loops());
}

#[test]
fn every_shader_validates_at_run_time_too() {
    for shader in ALL {
        shader.validate().unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_shader_translates_to_every_backend_language() {
    let (translated, failures) = translation_failures(ALL);
    assert!(
        failures.is_empty(),
        "translation failures:\n{}",
        failures.join("\n")
    );
    assert!(
        translated >= 40,
        "only {translated} entry point/constant sets translated"
    );
}

#[test]
fn generated_sections_are_replaced_and_checked() {
    // ssa/ensemble_compiled.wgsl has a `network` section with a default body.
    let shader = ssa::ensemble_compiled::SHADER;
    let default = shader.source();
    let swapped = shader
        .source_generated("network", "// nothing here")
        .unwrap();
    assert!(default.contains("//!generated begin network"));
    assert!(swapped.contains("// nothing here") && swapped.len() < default.len());
    validate_source("swapped", &swapped).unwrap();
    // Bad generated code is refused by naga, with the label named.
    let bad = shader
        .source_generated("network", "fn f() -> u32 { return nowhere; }")
        .unwrap();
    let err = validate_source("bad", &bad).unwrap_err().to_string();
    assert!(err.contains("bad") && err.contains("nowhere"), "{err}");
    assert!(shader.source_generated("nope", "").is_err());
}
