//! Configs that are refused name the field, the value and what is allowed; the shipped asset is
//! accepted.

use gray_scott::GrayScottConfig;
use std::path::Path;

fn refused(text: &str) -> String {
    GrayScottConfig::from_json(text, "test.json")
        .err()
        .unwrap_or_else(|| panic!("{text} was accepted"))
        .to_string()
}

fn says(text: &str, parts: &[&str]) {
    let e = refused(text);
    for p in parts {
        assert!(e.contains(p), "{text}: {e:?} lacks {p:?}");
    }
}

#[test]
fn the_asset_is_pearsons_setting() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gray_scott.json");
    let cfg = GrayScottConfig::from_file(&path).unwrap();
    let pearson = GrayScottConfig::default();
    assert_eq!(
        (cfg.grid, cfg.length, cfg.du, cfg.dv, cfg.dt, cfg.square, cfg.noise),
        (
            pearson.grid,
            pearson.length,
            pearson.du,
            pearson.dv,
            pearson.dt,
            pearson.square,
            pearson.noise
        )
    );
    assert!(cfg.provenance.is_object());
}

#[test]
fn a_step_beyond_the_stability_limit_is_refused_with_the_limit() {
    // Pearson's grid allows dt up to 2 / (8 Du/h^2 + F) = 1.164.
    says(
        r#"{"dt": 1.2}"#,
        &["dt = 1.2", "at most 1.164", "D dt/h^2 <= 1/4"],
    );
    // Twice as fine a grid at dt = 1: Du dt/h^2 = 0.84.
    says(
        r#"{"grid": [512, 512]}"#,
        &["dt = 1 ", "at most 2.9", "Du dt/h^2 = 0.8389"],
    );
    assert!(GrayScottConfig::from_json(r#"{"dt": 1.16}"#, "t").is_ok());
}

#[test]
fn bad_values_name_the_field() {
    says(
        r#"{"Du": -2e-5}"#,
        &["Du = -0.00002", "a finite number > 0"],
    );
    says(r#"{"Dv": 0}"#, &["Dv = 0", "> 0"]);
    says(r#"{"F": -0.01}"#, &["F = -0.01", ">= 0"]);
    says(r#"{"k": 1e300}"#, &["k = 1e300", "3.4e38"]);
    says(r#"{"length": 0}"#, &["length = 0"]);
    says(r#"{"grid": [2, 64]}"#, &["grid[0] = 2", "3..=8192"]);
    says(r#"{"grid": [64, 9000]}"#, &["grid[1] = 9000"]);
    says(
        r#"{"grid": [64, 64], "square": 65}"#,
        &["square = 65", "at most 64"],
    );
    says(r#"{"noise": 1.5}"#, &["noise = 1.5", "[0, 1)"]);
    says(r#"{"observe_every": 0}"#, &["observe_every = 0", ">= 1"]);
    says(
        r#"{"model": "rdme"}"#,
        &["model = \"rdme\"", "\"gray-scott\""],
    );
}

#[test]
fn unknown_keys_and_wrong_types_are_refused() {
    says(
        r#"{"Dw": 1e-5}"#,
        &["test.json", "unknown field `Dw`", "did you mean"],
    );
    says(r#"{"feed": 0.04}"#, &["unknown field `feed`"]);
    says(r#"{"F": "high"}"#, &["invalid type"]);
}
