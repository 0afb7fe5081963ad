//! Angiogenesis parameters: the JSON config (defaults from Anderson & Chaplain 1998 as used by
//! Darbyshire 2015), validation with field-named errors, and the derived grid quantities.

use super::walk::MAX_WALK_EVENTS;
use crate::error::{invalid, ModelError, Result};
use serde::{Deserialize, Serialize};
use std::ops::{Add, Div, Mul};

/// Where the tumour angiogenic factor (TAF, c) comes from.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Tumour {
    /// c = exp(-(Lx - x)^2 / 0.45): a planar tumour face at x = Lx.
    Face,
    /// A spherical tumour centred at (Lx, Ly/2, Lz/2), radius 0.1.
    Sphere,
}

/// How the endothelial cells act on the fibronectin f and the TAF c.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum Coupling {
    /// Anderson & Chaplain 1998's discrete model as they ran it: the cells are the sprouts'
    /// trails (n = 1 at sites a sprout has occupied, 0 elsewhere), f and c change only there,
    /// and the n equation only supplies the coefficients of the tips' moves.
    Discrete,
    /// Darbyshire 2015's PDE system (eq. 1-4): the continuous density n evolves and drives f
    /// and c everywhere, with the tips alongside (n taken as 1 at the sites they occupied).
    Continuous,
}

impl TryFrom<String> for Coupling {
    type Error = ModelError;

    /// The config's `coupling`: an unknown value is an error naming the field and what is
    /// allowed (serde's own message would not name the field).
    fn try_from(value: String) -> Result<Self> {
        match value.as_str() {
            "discrete" => Ok(Coupling::Discrete),
            "continuous" => Ok(Coupling::Continuous),
            _ => Err(invalid(
                "coupling",
                format!("{value:?}"),
                "\"discrete\" (Anderson & Chaplain 1998: f and c change only where a sprout \
                 has been) or \"continuous\" (Darbyshire 2015: the density n drives them \
                 everywhere)",
            )),
        }
    }
}

/// Where a tip meets another sprout's trail (anastomosis).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum Capture {
    /// On the site it steps onto (A&C 1998, 2D: a walk on the square lattice cannot cross a
    /// trail without stepping on it).
    Site,
    /// Also on the six face neighbours of that site: cells one site apart touch. In 3D a walk
    /// passes a trail (a line of sites) without stepping on it, so meetings need a capture
    /// distance (docs/models/angiogenesis.md).
    Faces,
}

impl TryFrom<String> for Capture {
    type Error = ModelError;

    fn try_from(value: String) -> Result<Self> {
        match value.as_str() {
            "site" => Ok(Capture::Site),
            "faces" => Ok(Capture::Faces),
            _ => Err(invalid(
                "tips.capture",
                format!("{value:?}"),
                "\"site\" (a tip meets a trail it steps onto), \"faces\" (also one on a face \
                 neighbour of its site) or null (\"site\" in 2D, \"faces\" in 3D)",
            )),
        }
    }
}

/// Discrete tip-cell settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TipConfig {
    /// Tips move, branch and anastomose; false runs the continuous model alone.
    pub enabled: bool,
    /// Sprouts may branch (A&C section 4.1).
    pub branching: bool,
    /// A tip stepping onto another sprout's trail stops (A&C anastomosis).
    pub anastomosis: bool,
    /// psi: a tip has one branching trial each time its sprout age (time since it formed or
    /// last branched) passes a multiple of psi, with chance Pb(c), so results do not depend on
    /// dt. 0: a trial every step.
    pub branch_age: f64,
    /// Endothelial density threshold n_b of A&C's third branching condition: a tip branches
    /// only where c times the number of occupied sites in its 3x3x3 neighbourhood (3x3 in 2D,
    /// the tip's own site included) exceeds n_b. 0 turns the condition off.
    pub branch_density: f64,
    /// Where a tip meets another sprout's trail: `site` or `faces`; None: `site` in 2D,
    /// `faces` in 3D (`AngioConfig::capture`).
    pub capture: Option<Capture>,
    /// Capacity of the tip table; branches past it are counted as overflow.
    pub max_tips: u32,
    /// Capacity of the vessel segment list (one segment per tip move).
    pub max_segments: u32,
    /// Initial tips on the parent vessel at x = 0, at the maxima of the initial n clusters
    /// (y, z in {1/6, 1/2, 5/6} inside the domain).
    pub initial: InitialTips,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InitialTips {
    /// One tip at each cluster maximum of the initial n profile.
    Clusters,
    /// A single tip at the centre of the x = 0 face.
    Single,
}

impl Default for TipConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            branching: true,
            anastomosis: true,
            branch_age: 0.5,
            branch_density: 2.5,
            capture: None,
            max_tips: 4096,
            max_segments: 1 << 20,
            initial: InitialTips::Clusters,
        }
    }
}

/// The model config, as read from `assets/angiogenesis.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AngioConfig {
    /// Must be "angiogenesis".
    pub model: String,
    /// Grid nodes along x, y, z. Spacing h = 1/(max(grid) - 1) on all axes, so the domain is
    /// [0,1] along the longest axis and (N-1) h along the others. A single z node (nz = 1) is
    /// the 2D model of A&C 1998 on the x-y plane.
    pub grid: [u32; 3],
    /// Time step k. None: `dt_safety` times the stability bound.
    pub dt: Option<f64>,
    pub dt_safety: f64,
    pub steps: u64,
    pub seed: u64,
    /// Endothelial cell random motility D.
    #[serde(rename = "D")]
    pub d: f64,
    pub chi0: f64,
    pub alpha: f64,
    pub rho: f64,
    pub beta: f64,
    pub gamma: f64,
    pub eta: f64,
    pub tumour: Tumour,
    /// Which model couples the cells to f and c: `discrete` (A&C 1998) or `continuous`
    /// (Darbyshire 2015).
    pub coupling: Coupling,
    pub tips: TipConfig,
    /// Observables are read back every this many steps.
    pub observe_every: u32,
    /// Field snapshots (.vti) are written every this many steps (0: only at the end).
    pub snapshot_every: u64,
    /// Pictures of the vessels (frames `vessels_NNNNNNN.png`) every this many steps, besides
    /// one per snapshot (0: none).
    pub frame_every: u64,
    /// Where values the paper lacks come from (free text, kept in the run manifest).
    pub provenance: serde_json::Value,
}

impl Default for AngioConfig {
    fn default() -> Self {
        Self {
            model: "angiogenesis".into(),
            grid: [100, 100, 100],
            dt: None,
            dt_safety: 0.9,
            steps: 1000,
            seed: 42,
            d: 0.00035,
            chi0: 0.38,
            alpha: 0.6,
            rho: 0.34,
            beta: 0.05,
            gamma: 0.1,
            eta: 0.1,
            tumour: Tumour::Face,
            coupling: Coupling::Discrete,
            tips: TipConfig::default(),
            observe_every: 50,
            snapshot_every: 0,
            frame_every: 0,
            provenance: serde_json::Value::Null,
        }
    }
}

/// Largest grid side accepted (2^11); larger grids also fail later on the adapter's buffer limit.
pub const MAX_SIDE: u32 = 2048;

impl AngioConfig {
    /// Parses JSON text; unknown keys and wrong types are errors naming the key.
    pub fn from_json(text: &str, path: &str) -> Result<Self> {
        crate::error::parse_config(text, path, Self::validate)
    }

    pub fn from_file(path: &std::path::Path) -> Result<Self> {
        crate::error::read_config(path, Self::from_json)
    }

    /// Checks every value against its allowed range.
    pub fn validate(&self) -> Result<()> {
        if self.model != "angiogenesis" {
            return Err(invalid("model", &self.model, "\"angiogenesis\""));
        }
        for (axis, &n) in ["grid[0]", "grid[1]"].iter().zip(&self.grid) {
            if !(4..=MAX_SIDE).contains(&n) {
                return Err(invalid(axis, n, format!("an integer in 4..={MAX_SIDE}")));
            }
        }
        if !(self.grid[2] == 1 || (4..=MAX_SIDE).contains(&self.grid[2])) {
            return Err(invalid(
                "grid[2]",
                self.grid[2],
                format!("1 (the 2D model) or an integer in 4..={MAX_SIDE}"),
            ));
        }
        // The shaders compute in f32: a larger value would be infinite there.
        let nonneg = |field: &str, v: f64| -> Result<()> {
            if !v.is_finite() || !(0.0..=f32::MAX as f64).contains(&v) {
                return Err(invalid(
                    field,
                    v,
                    "a finite number >= 0 and at most 3.4e38 (the shaders' f32)",
                ));
            }
            Ok(())
        };
        nonneg("D", self.d)?;
        nonneg("chi0", self.chi0)?;
        nonneg("alpha", self.alpha)?;
        nonneg("rho", self.rho)?;
        nonneg("beta", self.beta)?;
        nonneg("gamma", self.gamma)?;
        nonneg("eta", self.eta)?;
        nonneg("tips.branch_age", self.tips.branch_age)?;
        nonneg("tips.branch_density", self.tips.branch_density)?;
        if self.d == 0.0 {
            return Err(invalid("D", self.d, "a finite number > 0"));
        }
        if let Some(k) = self.dt {
            if !k.is_finite() || k <= 0.0 {
                return Err(invalid(
                    "dt",
                    k,
                    "a finite number > 0, or null for the automatic step",
                ));
            }
        }
        if !(self.dt_safety > 0.0 && self.dt_safety <= 1.0) {
            return Err(invalid("dt_safety", self.dt_safety, "a number in (0, 1]"));
        }
        if self.cells() >= 1usize << 31 {
            return Err(invalid(
                "grid",
                format!("{:?} ({} nodes)", self.grid, self.cells()),
                "fewer than 2^31 nodes in all",
            ));
        }
        if self.observe_every == 0 {
            return Err(invalid("observe_every", 0, "an integer >= 1"));
        }
        if !(1..=1 << 20).contains(&self.tips.max_tips) {
            return Err(invalid(
                "tips.max_tips",
                self.tips.max_tips,
                "an integer in 1..=1048576",
            ));
        }
        if !(1..=1 << 26).contains(&self.tips.max_segments) {
            return Err(invalid(
                "tips.max_segments",
                self.tips.max_segments,
                "an integer in 1..=67108864",
            ));
        }
        Ok(())
    }

    /// Grid spacing h (equal on all axes).
    pub fn h(&self) -> f64 {
        1.0 / (*self.grid.iter().max().unwrap() as f64 - 1.0)
    }

    /// Domain lengths (N-1) h.
    pub fn lengths(&self) -> [f64; 3] {
        let h = self.h();
        self.grid.map(|n| (n as f64 - 1.0) * h)
    }

    /// Where tips meet trails: the config's `tips.capture`, or by default `site` in 2D and
    /// `faces` in 3D.
    pub fn capture(&self) -> Capture {
        self.tips.capture.unwrap_or(if self.grid[2] == 1 {
            Capture::Site
        } else {
            Capture::Faces
        })
    }

    pub fn cells(&self) -> usize {
        self.grid.iter().map(|&n| n as usize).product()
    }

    /// Space dimensions: 2 for a single z node (the 2D model), else 3.
    pub fn dims(&self) -> u32 {
        if self.grid[2] == 1 {
            2
        } else {
            3
        }
    }

    /// The explicit scheme's stability bound for fields c, f. The forward-time centred-space
    /// advection-diffusion update is von Neumann stable for k <= h^2/(2 d D) in d dimensions
    /// (diffusion) and k <= 2D/|v|^2 (taxis velocity v = chi(c) grad c + rho grad f, at its
    /// largest over the grid). The coefficients here vary in space and time (c is consumed, f
    /// produced), and runs at 0.9 x 2D/|v|^2 blow up (the 100^3 demo within 65 steps), so the
    /// taxis limit is halved: k <= min(h^2/(2 d D), D/|v|^2).
    pub fn stability_bound(&self, max_speed_sq: f64) -> f64 {
        let h = self.h();
        let diffusion = h * h / (2.0 * self.dims() as f64 * self.d);
        if max_speed_sq > 0.0 {
            diffusion.min(self.d / max_speed_sq)
        } else {
            diffusion
        }
    }

    /// A bound on |T| = |chi(c) dc + rho df| (undivided central differences) at any site at any
    /// time: c starts in [0, 1] and only decays, and f stays in [0, f_max] with f_max the larger
    /// of its initial peak and beta/gamma, the value its feedback approaches. Infinite where f
    /// grows without bound (beta > 0, gamma = 0) and haptotaxis reads it.
    pub fn taxis_bound(&self) -> f64 {
        let f_max = if self.rho == 0.0 || self.beta == 0.0 {
            FIBRONECTIN_PEAK
        } else if self.gamma > 0.0 {
            FIBRONECTIN_PEAK.max(self.beta / self.gamma)
        } else {
            f64::INFINITY
        };
        let f_term = if self.rho == 0.0 {
            0.0
        } else {
            self.rho * f_max
        };
        self.chi0 + f_term
    }

    /// L, the mean number of events per tip per step of the tips' walk (walk.rs): k times a rate
    /// at least the total move rate at any site. Along an axis the two rates are
    /// (D -+ T/4)/h^2 clipped at 0, which sum to at most max(2D, D + |T|/4)/h^2.
    pub fn walk_events(&self, k: f64) -> f64 {
        let h = self.h();
        let axis = (2.0 * self.d).max(self.d + 0.25 * self.taxis_bound());
        self.dims() as f64 * k / (h * h) * axis
    }

    /// The time step to use: the user's (error if it breaks the bound) or the automatic one.
    pub fn time_step(&self, max_speed_sq: f64) -> Result<f64> {
        let k = self.field_time_step(max_speed_sq)?;
        if self.tips.enabled {
            self.check_walk(k)?;
        }
        Ok(k)
    }

    /// Whether the tips' walk can run at step k: its rate bound is finite and it needs at most
    /// MAX_WALK_EVENTS events per step.
    fn check_walk(&self, k: f64) -> Result<()> {
        if !self.taxis_bound().is_finite() {
            return Err(invalid(
                "gamma",
                self.gamma,
                "a number > 0 when beta > 0 and rho > 0 with tips on: with gamma = 0 the \
                 fibronectin grows without bound, and so does the tips' fastest move rate",
            ));
        }
        let events = self.walk_events(k);
        if events > MAX_WALK_EVENTS {
            return Err(invalid(
                "dt",
                k,
                format!(
                    "at most {:.6e} on this grid: the tips' walk takes {events:.0} events per tip \
                     per step at this dt, at most {MAX_WALK_EVENTS} (docs/models/angiogenesis.md, \
                     tip cells)",
                    k * MAX_WALK_EVENTS / events
                ),
            ));
        }
        Ok(())
    }

    /// The fields' time step: the user's (error if it breaks the stability bound) or the
    /// automatic one.
    fn field_time_step(&self, max_speed_sq: f64) -> Result<f64> {
        let bound = self.stability_bound(max_speed_sq);
        match self.dt {
            Some(k) if k > bound => Err(invalid(
                "dt",
                k,
                format!(
                    "at most {bound:.6e} on this grid (explicit stability: min(h^2/({}D), D/max|v|^2) \
                     with h = {:.6e}); use a smaller dt or null for the automatic step",
                    2 * self.dims(),
                    self.h()
                ),
            )),
            Some(k) => Ok(k),
            // A step below f32's normal range would run without moving the shaders' clock.
            None if !((self.dt_safety * bound) as f32).is_normal() => {
                Err(invalid(
                    "D, chi0, rho",
                    format!("{:e}, {:e}, {:e}", self.d, self.chi0, self.rho),
                    format!(
                        "values whose stability bound min(h^2/(2 d D), D/max|v|^2) gives a time step \
                         in f32's normal range (>= 1.2e-38); here it is {bound:e} (h = {:e}, max|v|^2 = \
                         {max_speed_sq:e})",
                        self.h()
                    ),
                ))
            }
            None => Ok(self.dt_safety * bound),
        }
    }
}

/// Peak of the initial fibronectin profile f = 0.75 exp(-x^2/0.45) (A&C 1998).
pub const FIBRONECTIN_PEAK: f64 = 0.75;

/// Chemotactic sensitivity chi(c) = chi0 / (1 + alpha c) (`chi` of
/// shaders/angiogenesis/common.wgsl): in f32 as the shaders compute it (the CPU reference), in
/// f64 for the stability bound.
pub fn chi<T>(chi0: T, alpha: T, c: T) -> T
where
    T: Copy + From<f32> + Add<Output = T> + Mul<Output = T> + Div<Output = T>,
{
    chi0 / (T::from(1.0) + alpha * c)
}

/// A&C's branching probability Pb(c) of one trial (one per psi of sprout age), a step function
/// of the local TAF concentration (A&C 1998 section 4.1): the levels and the c at which each
/// starts (`branch_probability` of tips_move.wgsl).
pub const BRANCH_LEVELS: [(f32, f32); 4] = [(0.25, 0.2), (0.45, 0.3), (0.6, 0.4), (0.68, 1.0)];

/// Pb(c): 0 below c = 0.25, then 0.2, 0.3, 0.4 and 1 (BRANCH_LEVELS).
pub fn branch_probability(c: f32) -> f32 {
    BRANCH_LEVELS
        .iter()
        .rev()
        .find(|&&(from, _)| c >= from)
        .map_or(0.0, |&(_, pb)| pb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AngioConfig> {
        AngioConfig::from_json(text, "test.json")
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = parse(r#"{"model": "angiogenesis"}"#).unwrap();
        assert_eq!((c.d, c.chi0, c.alpha, c.rho), (0.00035, 0.38, 0.6, 0.34));
        assert_eq!((c.beta, c.gamma, c.eta), (0.05, 0.1, 0.1));
        assert_eq!(c.tips.branch_age, 0.5);
    }

    #[test]
    fn bad_values_name_the_field_and_range() {
        let e = parse(r#"{"chi0": -1}"#).unwrap_err().to_string();
        assert!(e.contains("chi0") && e.contains(">= 0"), "{e}");
        let e = parse(r#"{"grid": [100, 2, 100]}"#).unwrap_err().to_string();
        assert!(e.contains("grid[1]") && e.contains("4..=2048"), "{e}");
        let e = parse(r#"{"tips": {"max_tips": 0}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tips.max_tips"), "{e}");
        let e = parse(r#"{"colour": 1}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field") && e.contains("colour"), "{e}");
        let e = parse(r#"{"D": "fast"}"#).unwrap_err().to_string();
        assert!(e.contains("invalid type"), "{e}");
        let e = parse(r#"{"model": "rdme"}"#).unwrap_err().to_string();
        assert!(e.contains("model"), "{e}");
    }

    /// The tips' walk needs a bound on its rates: a dt within the stability bound but with more
    /// than MAX_WALK_EVENTS events per step is refused naming dt (with the largest dt allowed),
    /// and f without bound (beta > 0, gamma = 0, rho > 0) naming gamma; neither matters without
    /// tips.
    #[test]
    fn the_walk_bound_refuses_dt_and_gamma_by_name() {
        // h = 1/32: stability allows dt <= h^2/(6D) = 0.465 here; chi0 = 100 makes L ~ 7,700.
        let c = parse(r#"{"grid": [33, 33, 33], "dt": 0.1, "chi0": 100}"#).unwrap();
        assert!(c.walk_events(0.1) > MAX_WALK_EVENTS);
        let e = c.time_step(0.0).unwrap_err().to_string();
        assert!(e.contains("dt") && e.contains("events per tip"), "{e}");
        let c = parse(r#"{"grid": [33, 33, 33], "dt": 0.01, "chi0": 100}"#).unwrap();
        assert_eq!(c.time_step(0.0).unwrap(), 0.01);
        let c = parse(r#"{"grid": [33, 33, 33], "gamma": 0}"#).unwrap();
        let e = c.time_step(0.0).unwrap_err().to_string();
        assert!(e.contains("gamma") && e.contains("without bound"), "{e}");
        let c = parse(r#"{"grid": [33, 33, 33], "gamma": 0, "tips": {"enabled": false}}"#).unwrap();
        assert!(c.time_step(0.0).is_ok());
    }

    #[test]
    fn time_step_respects_stability_bound() {
        let c = parse(r#"{"grid": [33, 33, 33], "dt": 1.0}"#).unwrap();
        let e = c.time_step(0.0).unwrap_err().to_string();
        assert!(e.contains("dt") && e.contains("at most"), "{e}");
        let c = parse(r#"{"grid": [33, 33, 33]}"#).unwrap();
        let h = 1.0 / 32.0;
        assert!((c.time_step(0.0).unwrap() - 0.9 * h * h / (6.0 * 0.00035)).abs() < 1e-12);
        // A strong taxis velocity tightens the bound.
        assert!(c.time_step(1.0).unwrap() < c.time_step(0.0).unwrap());
        // A bound that is zero in f32 leaves no step (the run would not move its clock).
        let c = parse(r#"{"grid": [33, 33, 33], "D": 3e38}"#).unwrap();
        let e = c.time_step(0.0).unwrap_err().to_string();
        assert!(
            e.contains("D, chi0, rho") && e.contains("normal range"),
            "{e}"
        );
        let c = parse(r#"{"grid": [33, 33, 33], "chi0": 1e30}"#).unwrap();
        assert!(c.time_step(1e60).is_err());
    }

    /// Values beyond f32 are refused at load: the shaders would see infinity.
    #[test]
    fn values_beyond_f32_are_refused() {
        for field in ["D", "chi0", "rho"] {
            let e = parse(&format!(r#"{{"{field}": 1e308}}"#))
                .unwrap_err()
                .to_string();
            assert!(e.contains(field) && e.contains("at most 3.4e38"), "{e}");
        }
    }

    #[test]
    fn branching_probability_steps() {
        assert_eq!(branch_probability(0.1), 0.0);
        assert_eq!(branch_probability(0.2499), 0.0);
        assert_eq!(branch_probability(0.25), 0.2);
        assert_eq!(branch_probability(0.3), 0.2);
        assert_eq!(branch_probability(0.5), 0.3);
        assert_eq!(branch_probability(0.65), 0.4);
        assert_eq!(branch_probability(0.9), 1.0);
    }

    #[test]
    fn coupling_is_discrete_unless_asked_and_names_itself_when_wrong() {
        assert_eq!(parse("{}").unwrap().coupling, Coupling::Discrete);
        let c = parse(r#"{"coupling": "continuous"}"#).unwrap();
        assert_eq!(c.coupling, Coupling::Continuous);
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains(r#""coupling":"continuous""#), "{text}");
        for bad in [r#""hybrid""#, r#""Discrete""#] {
            let e = parse(&format!(r#"{{"coupling": {bad}}}"#))
                .unwrap_err()
                .to_string();
            assert!(e.contains("coupling"), "{e}");
        }
        let e = parse(r#"{"coupling": "hybrid"}"#).unwrap_err().to_string();
        assert!(
            e.contains("\"hybrid\"") && e.contains("\"discrete\"") && e.contains("\"continuous\""),
            "{e}"
        );
    }

    #[test]
    fn capture_is_read_and_names_itself_when_wrong() {
        let c = parse(r#"{"tips": {"capture": "site"}}"#).unwrap();
        assert_eq!(c.capture(), Capture::Site);
        let c = parse(r#"{"grid": [33, 33, 1], "tips": {"capture": "faces"}}"#).unwrap();
        assert_eq!(c.capture(), Capture::Faces);
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains(r#""capture":"faces""#), "{text}");
        let e = parse(r#"{"tips": {"capture": "edges"}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tips.capture") && e.contains("\"edges\"") && e.contains("\"faces\""),
            "{e}"
        );
    }

    #[test]
    fn two_d_grids_are_accepted_and_bounded_as_2d() {
        let c = parse(r#"{"grid": [33, 33, 1]}"#).unwrap();
        assert_eq!(c.dims(), 2);
        let h = 1.0 / 32.0;
        assert!((c.stability_bound(0.0) - h * h / (4.0 * 0.00035)).abs() < 1e-12);
        let e = parse(r#"{"grid": [33, 33, 2]}"#).unwrap_err().to_string();
        assert!(
            e.contains("grid[2]") && e.contains("1 (the 2D model)"),
            "{e}"
        );
        let e = parse(r#"{"tips": {"branch_density": -1}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tips.branch_density"), "{e}");
    }
}
