//! The gliding integration tests' configs.
#![allow(dead_code)]

use petri_model::gliding::params::GlidingConfig;

/// assets/gliding.json.
pub fn asset() -> GlidingConfig {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/gliding.json"
    ))
    .unwrap();
    GlidingConfig::from_json(&text, "assets/gliding.json").unwrap()
}

/// The asset on a tiny grid: 8 x 8 cells of 0.5, 6 angles, 4 arc cells, 8 levels, started
/// from a ring with the turning rate -0.3 (every term and initial kind the model has).
pub fn tiny() -> GlidingConfig {
    let mut c = asset();
    c.initial.kind = "rings".into();
    c.filaments.turn_rate = -0.3;
    c.grid.nx = 8;
    c.grid.ny = 8;
    c.grid.lx = 4.0;
    c.grid.ly = 4.0;
    c.grid.ntheta = 6;
    c.grid.ns = 4;
    c.grid.nz = 8;
    c.grid.z0 = 0.1;
    c.initial.ring_radius = 1.0;
    c.initial.ring_spacing = 4.0;
    c.initial.ring_width = 0.5;
    c.validate().unwrap();
    c
}

/// `tiny` with a largest step of 0.1: every step takes courant_safety x 0.25 / its Courant
/// rate instead, which changes from step to step.
pub fn adaptive() -> GlidingConfig {
    let mut c = tiny();
    c.dt = 0.1;
    c.validate().unwrap();
    c
}
