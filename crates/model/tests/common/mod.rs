//! Helpers shared by the angiogenesis integration tests.
#![allow(dead_code)]

use petri_model::angiogenesis::params::Coupling;
use petri_model::angiogenesis::{AngioConfig, AngioState, AngioUniforms};

/// The paper's parameters on an n^3 grid with small tip capacities, with the continuous
/// coupling (Darbyshire 2015), whose field pass has the stencils, workgroups and chunks these
/// tests exercise; tests of the discrete coupling set it themselves.
pub fn config(grid: u32) -> AngioConfig {
    let mut cfg = AngioConfig {
        grid: [grid; 3],
        coupling: Coupling::Continuous,
        ..AngioConfig::default()
    };
    cfg.tips.max_tips = 256;
    cfg.tips.max_segments = 1 << 16;
    cfg
}

/// 4096 independent walkers (no branching, no anastomosis) on a 41^3 grid, all at the centre
/// (20, 20, 20), in uniform fields; the caller zeroes the parameters its check needs.
pub fn walkers(cfg: &mut AngioConfig) -> (AngioUniforms, AngioState, u32) {
    *cfg = config(41);
    cfg.tips.branching = false;
    cfg.tips.anastomosis = false;
    cfg.tips.max_tips = 4096;
    cfg.tips.max_segments = 1 << 18;
    (cfg.eta, cfg.beta, cfg.gamma) = (0.0, 0.0, 0.0);
    let u0 = AngioUniforms::new(cfg, 0.0);
    let mut s = AngioState::uniform(&u0, 0.0, 0.0, 0.5);
    let centre = u0.index(20, 20, 20) as u32;
    for _ in 0..4096 {
        s.add_tip(centre);
    }
    (u0, s, 20)
}

/// Mean and standard error of a sample.
pub fn mean_and_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    (mean, sd / n.sqrt())
}
