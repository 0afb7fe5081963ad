//! Gliding assay parameters: the JSON config (`assets/gliding.json`), validation with
//! field-named errors, and the configs of the three parts (fluid channel, filament transport,
//! bound motors) derived from it.

use super::channel::{Channel, ZGrid};
use super::clock::DtRule;
use super::fields::GlidingGrid;
use super::filaments::FilamentConfig;
use super::motors::{MotorConfig, SUBSTEP_BUDGET};
use super::ranges::{check_range, PERIODS};
use crate::checkpoint::MAX_STEP;
use crate::error::{invalid, short, Result};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// The periodic x-y grid, the angles, the arc-length cells and the channel's z levels.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GridParams {
    pub nx: usize,
    pub ny: usize,
    pub lx: f64,
    pub ly: f64,
    /// Orientations theta in [0, 2 pi).
    pub ntheta: usize,
    /// Cells in arc length s along a filament (the motors' inner grid).
    pub ns: usize,
    /// Levels in z from the bottom wall (0) to the top wall (1).
    pub nz: usize,
    /// "uniform", "chebyshev" or "bottom" (clustered at the bottom, where the motors act).
    pub z_grid: String,
    /// Height of the filament plane above the bottom wall: the level nearest to it carries the
    /// filaments, the motors and their forces.
    pub z0: f64,
}

/// Seed eqs. 1-3 and 7: the filaments' velocities and their stresses on the fluid.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FilamentParams {
    /// Gliding speed V_sp (filaments move along -p).
    pub v_sp: f64,
    /// Translational and rotational diffusivities.
    pub d_t: f64,
    pub d_r: f64,
    /// Steric translation U_t (x' += U_t grad(p.D.p)) and rotation U_r (theta' += U_r p_perp.D.p).
    pub u_t: f64,
    pub u_r: f64,
    /// Stress coefficients of seed eq. 7: sigma_f div D - sigma_t div (D.D).
    pub sigma_f: f64,
    pub sigma_t: f64,
    /// Intrinsic turning rate of a gliding filament (theta' += turn_rate): gliding microtubules
    /// follow curved paths of radius V_sp / |turn_rate| (Sumino et al. 2012, the seed's [19]);
    /// positive turns counter-clockwise. 0 (the default) is the seed's eq. 3; left out of the
    /// JSON at 0 so that configs without it keep their checkpoint hashes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub turn_rate: f64,
}

/// Seed eqs. 4-6 and 10.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MotorParams {
    /// Total motors per unit area M (uniform over the substrate).
    pub density: f64,
    /// Walking speed along s.
    pub speed: f64,
    /// Filament length l and the arc length range L (s in [-L/2, L/2]).
    pub length: f64,
    pub arc: f64,
    pub capture_radius: f64,
    pub k_on: f64,
    pub k_off: f64,
    /// The prefactor F of seed eq. 10.
    pub force: f64,
}

/// The fluid of seed eqs. 7-9: -grad q + mu (lap_2 + eps^-2 d_zz) u + f = 0.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FluidParams {
    pub mu: f64,
    /// The channel's aspect ratio eps (gap height over the horizontal unit), 1 if absent. Left
    /// out of the JSON at 1 so that configs without it keep their checkpoint hashes.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub eps: f64,
}

fn one() -> f64 {
    1.0
}

fn is_one(v: &f64) -> bool {
    *v == 1.0
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The initial filament density.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InitialParams {
    /// "isotropic", "aligned" or "rings".
    pub kind: String,
    /// Mean filaments per unit area (integral of Psi over theta).
    pub density: f64,
    /// Relative amplitude of the seeded cell-to-cell noise, in [0, 1).
    pub noise: f64,
    /// "aligned": the mean orientation and the von Mises concentration of the spread.
    pub theta0: f64,
    pub kappa: f64,
    /// "rings": rings of this radius on a square lattice of this spacing, this wide
    /// (Gaussian), filaments tangent to them (concentration kappa), on a background of
    /// `background` times the density.
    pub ring_radius: f64,
    pub ring_spacing: f64,
    pub ring_width: f64,
    pub background: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutputParams {
    /// Orientation marks and velocity arrows every this many cells in the pictures.
    pub arrow_every: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GlidingConfig {
    pub model: String,
    pub seed: u64,
    pub steps: u64,
    /// The largest outer step dt_max: each step takes min(dt, courant_safety CFL / its Courant
    /// rate) (`clock.rs`); `steps` counts steps, the time reached is the clock's.
    pub dt: f64,
    /// The fraction of the AB2 advective stability bound (filaments.rs CFL) a step keeps to,
    /// in (0, 1].
    pub courant_safety: f64,
    pub observe_every: u64,
    pub snapshot_every: u64,
    pub frame_every: u64,
    pub grid: GridParams,
    pub filaments: FilamentParams,
    pub motors: MotorParams,
    pub fluid: FluidParams,
    pub initial: InitialParams,
    pub output: OutputParams,
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub provenance: serde_json::Value,
}

impl GlidingConfig {
    /// Parses JSON text; unknown keys and wrong types are errors naming the key.
    pub fn from_json(text: &str, path: &str) -> Result<Self> {
        crate::error::parse_config(text, path, Self::validate)
    }

    pub fn from_file(path: &std::path::Path) -> Result<Self> {
        crate::error::read_config(path, Self::from_json)
    }

    /// The adaptive outer step's rule.
    pub fn dt_rule(&self) -> DtRule {
        DtRule {
            dt_max: self.dt,
            safety: self.courant_safety,
        }
    }

    pub fn z_grid(&self) -> Result<ZGrid> {
        let nz = self.grid.nz;
        Ok(match self.grid.z_grid.as_str() {
            "uniform" => ZGrid::Uniform(nz),
            "chebyshev" => ZGrid::Chebyshev(nz),
            "bottom" => ZGrid::Bottom(nz),
            other => {
                return Err(invalid(
                    "grid.z_grid",
                    format!("{other:?}"),
                    "\"uniform\", \"chebyshev\" or \"bottom\"",
                ))
            }
        })
    }

    /// The fluid's channel (checked by `Channel`).
    pub fn channel(&self) -> Result<Channel> {
        let g = &self.grid;
        Channel::new(g.nx, g.ny, g.lx, g.ly, self.z_grid()?, self.fluid.mu)?
            .with_eps(self.fluid.eps)
    }

    pub fn filament_config(&self) -> FilamentConfig {
        let g = &self.grid;
        FilamentConfig {
            nx: g.nx,
            ny: g.ny,
            ntheta: g.ntheta,
            lx: g.lx,
            ly: g.ly,
            d_t: self.filaments.d_t,
            d_r: self.filaments.d_r,
        }
    }

    pub fn motor_config(&self) -> MotorConfig {
        let (g, m) = (&self.grid, &self.motors);
        MotorConfig {
            nx: g.nx,
            ny: g.ny,
            ntheta: g.ntheta,
            lx: g.lx,
            ly: g.ly,
            ns: g.ns,
            arc: m.arc,
            speed: m.speed,
            length: m.length,
            capture_radius: m.capture_radius,
            k_on: m.k_on,
            k_off: m.k_off,
            force: m.force,
        }
    }

    /// The grid the outputs see, with the filament level: the z level nearest to z0.
    pub fn grid(&self) -> Result<GlidingGrid> {
        let z = self.channel()?.z;
        let z0_level = z0_level(&z, self.grid.z0);
        let g = &self.grid;
        Ok(GlidingGrid {
            nx: g.nx,
            ny: g.ny,
            ntheta: g.ntheta,
            lx: g.lx,
            ly: g.ly,
            z,
            z0_level,
        })
    }

    /// Checks every value against its allowed range (the parts check their own), then what a
    /// run of it takes before anything is allocated: the motors' sub-steps per outer step, the
    /// initial condition's work and the memory on the device and the host (`budget`).
    pub fn validate(&self) -> Result<()> {
        if self.model != "gliding" {
            return Err(invalid("model", &self.model, "\"gliding\""));
        }
        if !(self.dt.is_finite() && (1e-12..=1e3).contains(&self.dt)) {
            return Err(invalid(
                "dt",
                self.dt,
                "a number in [1e-12, 1e3] (the largest outer step)",
            ));
        }
        let safety = self.courant_safety;
        if !(safety.is_finite() && safety > 0.0 && safety <= 1.0) {
            return Err(invalid(
                "courant_safety",
                safety,
                "a fraction in (0, 1] of the AB2 advective stability bound",
            ));
        }
        if self.observe_every == 0 {
            return Err(invalid("observe_every", 0, "an integer >= 1"));
        }
        if self.steps > MAX_STEP {
            return Err(invalid(
                "steps",
                self.steps,
                format!("at most {MAX_STEP} (the GPU counts steps in 32 bits)"),
            ));
        }
        // The sizes first: the channel builds nz levels, the motors their stencil's tables.
        self.filament_config().check()?;
        let g = &self.grid;
        let z = self.channel()?.z;
        if !(g.z0.is_finite() && g.z0 > 0.0 && g.z0 < 1.0) {
            return Err(invalid("grid.z0", g.z0, "a height in (0, 1)"));
        }
        let level = z0_level(&z, g.z0);
        if level == 0 || level + 1 == z.len() {
            return Err(invalid(
                "grid.z0",
                g.z0,
                format!(
                    "a height nearer an interior level than a wall (levels {:?}...)",
                    &z[..z.len().min(4)]
                ),
            ));
        }
        self.motor_config().check()?;
        let f = &self.filaments;
        for (field, v) in [
            ("filaments.v_sp", f.v_sp),
            ("filaments.u_t", f.u_t),
            ("filaments.u_r", f.u_r),
            ("filaments.sigma_f", f.sigma_f),
            ("filaments.sigma_t", f.sigma_t),
            ("filaments.turn_rate", f.turn_rate),
        ] {
            if !(v.is_finite() && v.abs() <= 1e6) {
                return Err(invalid(field, v, "a finite number in [-1e6, 1e6]"));
            }
        }
        let m = &self.motors;
        if !(m.density.is_finite() && (0.0..=1e6).contains(&m.density)) {
            return Err(invalid(
                "motors.density",
                m.density,
                "a finite number in [0, 1e6]",
            ));
        }
        self.check_initial()?;
        if self.output.arrow_every == 0 {
            return Err(invalid("output.arrow_every", 0, "an integer >= 1"));
        }
        self.check_substeps()?;
        self.check_init_work()?;
        self.check_budget()
    }

    fn check_initial(&self) -> Result<()> {
        let i = &self.initial;
        if !["isotropic", "aligned", "rings"].contains(&i.kind.as_str()) {
            return Err(invalid(
                "initial.kind",
                format!("{:?}", i.kind),
                "\"isotropic\", \"aligned\" or \"rings\"",
            ));
        }
        if !(i.density.is_finite() && i.density > 0.0 && i.density <= 1e6) {
            return Err(invalid(
                "initial.density",
                i.density,
                "a finite number in (0, 1e6]",
            ));
        }
        if !(i.noise.is_finite() && (0.0..1.0).contains(&i.noise)) {
            return Err(invalid("initial.noise", i.noise, "a number in [0, 1)"));
        }
        if !(i.background.is_finite() && (0.0..=1e3).contains(&i.background)) {
            return Err(invalid(
                "initial.background",
                i.background,
                "a number in [0, 1e3]",
            ));
        }
        for (field, v) in [("initial.theta0", i.theta0), ("initial.kappa", i.kappa)] {
            if !(v.is_finite() && v.abs() <= 1e3) {
                return Err(invalid(field, v, "a finite number in [-1e3, 1e3]"));
            }
        }
        if i.kappa < 0.0 {
            return Err(invalid("initial.kappa", i.kappa, "a concentration >= 0"));
        }
        if i.kind == "rings" {
            for (field, v) in [
                ("initial.ring_radius", i.ring_radius),
                ("initial.ring_spacing", i.ring_spacing),
                ("initial.ring_width", i.ring_width),
            ] {
                check_range(field, v, PERIODS, "a length")?;
            }
        }
        Ok(())
    }

    /// Refuses an outer step whose motors would take more than `SUBSTEP_BUDGET` sub-steps at
    /// dt and the initial density, naming the rate's largest term and its largest allowed
    /// value (a NaN or a stalled GPU later is no way to learn it).
    fn check_substeps(&self) -> Result<()> {
        let (m, mc) = (&self.motors, self.motor_config());
        // W = sum 1_D Psi dV over an anchor's stencil: for a uniform Psi of c filaments per
        // unit area, c L pi rc^2 (each (theta, s) holds a disc of centres).
        let weight = self.initial.density * m.arc * PI * m.capture_radius.powi(2);
        let terms = [
            ("motors.speed", m.speed, 2.0 / mc.ds()),
            ("motors.k_off", m.k_off, 1.0),
            ("motors.k_on", m.k_on, weight),
        ];
        let rate: f64 = terms.iter().map(|(_, v, per)| v * per).sum();
        if self.dt * rate <= SUBSTEP_BUDGET {
            return Ok(());
        }
        let why = format!(
            "an outer step takes dt (2 speed/ds + k_off + k_on W) motor sub-steps, at most \
             {SUBSTEP_BUDGET} (dt = {}, ds = motors.arc / grid.ns = {}, W = initial.density x \
             motors.arc x pi motors.capture_radius^2 = {})",
            short(self.dt),
            short(mc.ds()),
            short(weight)
        );
        let (field, v, per) = terms
            .into_iter()
            .max_by(|a, b| (a.1 * a.2).total_cmp(&(b.1 * b.2)))
            .expect("three terms");
        let room = SUBSTEP_BUDGET / self.dt - (rate - v * per);
        match room > 0.0 {
            true => Err(invalid(
                field,
                v,
                format!("at most {}: {why}", below(room / per)),
            )),
            false => Err(invalid(
                "dt",
                self.dt,
                format!("at most {}: {why}", below(SUBSTEP_BUDGET / rate)),
            )),
        }
    }
}

/// `x` > 0 rounded down to 3 significant digits: a largest allowed value that is allowed.
fn below(x: f64) -> String {
    let unit = 10f64.powi(x.log10().floor() as i32 - 2);
    short((x / unit).floor() * unit)
}

/// The level of `z` nearest to `z0` (the lower one on a tie).
pub fn z0_level(z: &[f64], z0: f64) -> usize {
    let mut best = 0;
    for (j, &zj) in z.iter().enumerate() {
        if (zj - z0).abs() < (z[best] - z0).abs() {
            best = j;
        }
    }
    best
}
