//! The model's config: JSON read with unknown keys refused, every value checked against what the
//! scheme allows, errors naming the field, the value given and what is allowed (Petri's
//! `petri_model::error::invalid`, as the workspace's own models do).

use petri_model::checkpoint::MAX_STEP;
use petri_model::error::{invalid, parse_json, read_text, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The model's name in configs, manifests and checkpoints.
pub const MODEL: &str = "gray-scott";

/// Largest grid side: 8192^2 cells of f32 are 256 MiB per field, four fields on the GPU (and
/// cell indices stay far below the shader's u32).
pub const MAX_SIDE: u32 = 8192;

/// Gray-Scott reaction-diffusion on a periodic 2D grid (Pearson 1993):
///
/// u' = Du lap(u) - u v^2 + F (1 - u),  v' = Dv lap(v) + u v^2 - (F + k) v,
///
/// explicit Euler in time, the 5-point Laplacian in space. Defaults are Pearson's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GrayScottConfig {
    /// Must be "gray-scott" (a config names its model, as Petri's configs do).
    pub model: String,
    /// Grid cells along x and y.
    pub grid: [u32; 2],
    /// Length of the domain along x. The cells are square, of side h = length / grid[0], so the
    /// domain is length x (grid[1] h) and periodic both ways.
    pub length: f64,
    /// Diffusion coefficient of u.
    #[serde(rename = "Du")]
    pub du: f64,
    /// Diffusion coefficient of v.
    #[serde(rename = "Dv")]
    pub dv: f64,
    /// Feed rate F.
    #[serde(rename = "F")]
    pub feed: f64,
    /// Rate constant k of v's removal (v -> P).
    #[serde(rename = "k")]
    pub kill: f64,
    /// Time step; must be within the explicit scheme's stability limit ([`Self::max_dt`]).
    pub dt: f64,
    /// Steps a run does unless told otherwise.
    pub steps: u64,
    /// Steps between rows of observables.csv.
    pub observe_every: u64,
    /// Steps between snapshots (fields and a picture of v); 0: only the final state.
    pub snapshot_every: u64,
    /// Seed of the initial noise (a counter-based generator keyed by seed and cell).
    pub seed: u64,
    /// Side, in cells, of the centred square set to u = 1/2, v = 1/4 at the start; 0: none.
    pub square: u32,
    /// Relative amplitude of the initial noise: every value is multiplied by 1 + noise (2r - 1),
    /// r uniform in [0, 1).
    pub noise: f64,
    /// Where the values come from (free text, kept in the run's manifest).
    pub provenance: serde_json::Value,
}

impl Default for GrayScottConfig {
    /// Pearson 1993: 256 x 256 cells on a 2.5 x 2.5 domain, Du = 2e-5, Dv = 1e-5, dt = 1, a
    /// 20 x 20 square perturbed by 1% noise.
    fn default() -> Self {
        Self {
            model: MODEL.into(),
            grid: [256, 256],
            length: 2.5,
            du: 2e-5,
            dv: 1e-5,
            feed: 0.04,
            kill: 0.06,
            dt: 1.0,
            steps: 10_000,
            observe_every: 100,
            snapshot_every: 0,
            seed: 1993,
            square: 20,
            noise: 0.01,
            provenance: serde_json::Value::Null,
        }
    }
}

impl GrayScottConfig {
    /// A config from JSON text (`origin` names it in errors: a path, or
    /// `petri_model::error::DICT_ORIGIN`), checked.
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let cfg: Self = parse_json(text, origin)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// A config from a JSON file, checked.
    pub fn from_file(path: &Path) -> Result<Self> {
        Self::from_json(&read_text(path)?, &path.display().to_string())
    }

    /// Grid spacing h.
    pub fn h(&self) -> f64 {
        self.length / self.grid[0] as f64
    }

    pub fn cells(&self) -> usize {
        self.grid[0] as usize * self.grid[1] as usize
    }

    /// The largest stable time step. The scheme is linear about the homogeneous state u = 1,
    /// v = 0, where each field decays at rate `decay` (F for u, F + k for v) and diffuses: a
    /// Fourier mode is multiplied per step by 1 - dt (4 D/h^2 (sin^2 a + sin^2 b) + decay),
    /// which stays in [-1, 1] for every mode iff dt (8 D/h^2 + decay) <= 2. Without reaction
    /// this is the familiar 2D diffusion limit D dt/h^2 <= 1/4.
    pub fn max_dt(&self) -> f64 {
        let h2 = self.h() * self.h();
        let limit = |d: f64, decay: f64| 2.0 / (8.0 * d / h2 + decay);
        limit(self.du, self.feed).min(limit(self.dv, self.feed + self.kill))
    }

    /// Checks every value against what is allowed.
    pub fn validate(&self) -> Result<()> {
        if self.model != MODEL {
            return Err(invalid(
                "model",
                format!("{:?}", self.model),
                "\"gray-scott\"",
            ));
        }
        for (field, n) in [("grid[0]", self.grid[0]), ("grid[1]", self.grid[1])] {
            // Fewer than 3 cells would make a cell its own neighbour across the periodic edge.
            if !(3..=MAX_SIDE).contains(&n) {
                return Err(invalid(field, n, format!("an integer in 3..={MAX_SIDE}")));
            }
        }
        // The shaders compute in f32: larger values would be infinite there.
        let positive = |field: &str, v: f64| -> Result<()> {
            if v.is_finite() && v > 0.0 && v <= f32::MAX as f64 {
                return Ok(());
            }
            let allowed = "a finite number > 0 (at most 3.4e38, the shaders' f32)";
            Err(invalid(field, v, allowed))
        };
        let non_negative = |field: &str, v: f64| -> Result<()> {
            if v.is_finite() && (0.0..=f32::MAX as f64).contains(&v) {
                return Ok(());
            }
            let allowed = "a finite number >= 0 (at most 3.4e38, the shaders' f32)";
            Err(invalid(field, v, allowed))
        };
        positive("length", self.length)?;
        positive("Du", self.du)?;
        positive("Dv", self.dv)?;
        non_negative("F", self.feed)?;
        non_negative("k", self.kill)?;
        positive("dt", self.dt)?;
        // D/h^2 is what the shader multiplies by: it must be a normal f32 too.
        for (field, d) in [("Du", self.du), ("Dv", self.dv)] {
            let c = d / (self.h() * self.h());
            if !((c as f32).is_normal() && c <= f32::MAX as f64) {
                return Err(invalid(
                    field,
                    d,
                    format!(
                        "a value whose {field}/h^2 is a normal f32 (h = {:e}; here {c:e})",
                        self.h()
                    ),
                ));
            }
        }
        let max_dt = self.max_dt();
        if self.dt > max_dt {
            let h = self.h();
            return Err(invalid(
                "dt",
                self.dt,
                format!(
                    "at most {max_dt:.6e} on this grid: explicit Euler with the 5-point Laplacian \
                     is stable for dt (8 D/h^2 + decay) <= 2 for u (D = Du = {:e}, decay F) and v \
                     (D = Dv = {:e}, decay F + k), i.e. D dt/h^2 <= 1/4 without reaction; h = \
                     length/grid[0] = {h:e}, here Du dt/h^2 = {:.4}, Dv dt/h^2 = {:.4}",
                    self.du,
                    self.dv,
                    self.du * self.dt / (h * h),
                    self.dv * self.dt / (h * h),
                ),
            ));
        }
        if self.steps > MAX_STEP {
            return Err(invalid("steps", self.steps, format!("at most {MAX_STEP}")));
        }
        if self.observe_every == 0 {
            return Err(invalid("observe_every", 0, "an integer >= 1"));
        }
        let side = self.grid[0].min(self.grid[1]);
        if self.square > side {
            return Err(invalid(
                "square",
                self.square,
                format!("at most {side}, the grid's shorter side (0: no square)"),
            ));
        }
        if !(self.noise.is_finite() && (0.0..1.0).contains(&self.noise)) {
            return Err(invalid("noise", self.noise, "a number in [0, 1)"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_pearsons_and_within_the_limit() {
        let c = GrayScottConfig::default();
        c.validate().unwrap();
        assert_eq!(c.h(), 2.5 / 256.0);
        // Pearson's dt = 1 uses 84% of u's limit: Du dt/h^2 = 0.2097, 8 x 0.2097 + F = 1.718.
        assert!((c.du * c.dt / (c.h() * c.h()) - 0.2097152).abs() < 1e-7);
        assert!((c.max_dt() - 2.0 / 1.7177216).abs() < 1e-6);
    }

    #[test]
    fn without_reaction_the_limit_is_the_diffusion_one() {
        let c = GrayScottConfig {
            feed: 0.0,
            kill: 0.0,
            ..Default::default()
        };
        let h2 = c.h() * c.h();
        assert!((c.max_dt() - h2 / (4.0 * c.du)).abs() < 1e-12);
    }
}
