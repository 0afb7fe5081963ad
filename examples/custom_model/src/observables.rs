//! What a run records every `observe_every` steps (a row of observables.csv): the fields' means,
//! v's spatial spread and largest value, and the fraction of the domain the pattern covers. They
//! are computed on the host from the read-back state, in f64, in cell order, so equal states give
//! equal rows, bit for bit.

use crate::state::GrayScottState;
use petri_model::runtime::Observation;
use serde::Serialize;

/// v above this counts as pattern: the homogeneous state has v = 0, the initial square v = 1/4.
pub const PATTERN_THRESHOLD: f32 = 0.1;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observables {
    pub step: u64,
    /// step x dt.
    pub time: f64,
    pub mean_u: f64,
    pub mean_v: f64,
    /// Standard deviation of v over the cells: 0 for a uniform field.
    pub std_v: f64,
    pub max_v: f64,
    /// Fraction of the cells with v > PATTERN_THRESHOLD.
    pub pattern_fraction: f64,
}

impl Observables {
    pub const COLUMNS: [&'static str; 7] = [
        "step",
        "time",
        "mean_u",
        "mean_v",
        "std_v",
        "max_v",
        "pattern_fraction",
    ];

    pub fn of(state: &GrayScottState, dt: f64) -> Self {
        let n = state.u.len() as f64;
        let mean = |f: &[f32]| f.iter().map(|&x| x as f64).sum::<f64>() / n;
        let mean_v = mean(&state.v);
        let var_v = state
            .v
            .iter()
            .map(|&x| (x as f64 - mean_v).powi(2))
            .sum::<f64>()
            / n;
        // NaN must show, not be skipped by a max: it stops the run (non_finite).
        let max_v =
            state
                .v
                .iter()
                .fold(f64::NEG_INFINITY, |m, &x| match m.is_nan() || x.is_nan() {
                    true => f64::NAN,
                    false => m.max(x as f64),
                });
        let patterned = state.v.iter().filter(|&&x| x > PATTERN_THRESHOLD).count();
        Self {
            step: state.step,
            time: state.step as f64 * dt,
            mean_u: mean(&state.u),
            mean_v,
            std_v: var_v.sqrt(),
            max_v,
            pattern_fraction: patterned as f64 / n,
        }
    }
}

impl Observation for Observables {
    fn step(&self) -> u64 {
        self.step
    }

    fn row(&self) -> Vec<f64> {
        vec![
            self.step as f64,
            self.time,
            self.mean_u,
            self.mean_v,
            self.std_v,
            self.max_v,
            self.pattern_fraction,
        ]
    }

    fn non_finite(&self) -> Option<&'static str> {
        [("u", self.mean_u), ("v", self.mean_v), ("v", self.max_v)]
            .into_iter()
            .find(|(_, x)| !x.is_finite())
            .map(|(name, _)| name)
    }
}
