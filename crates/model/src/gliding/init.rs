//! The initial filament density Psi (ntheta, ny, nx) of a config's `initial` section, in f64:
//! a density c(x) spread over theta, each cell's c times (1 + noise u) with u uniform in
//! [-1, 1) from the counter-based RNG keyed by (seed, cell), so a seed gives the same Psi on
//! every machine.
//!
//! - isotropic: c = density, uniform in theta.
//! - aligned: c = density, von Mises in theta about theta0 with concentration kappa.
//! - rings: rings of radius R on a square lattice of spacing a (the seed's Fig. 6 starts from
//!   a lattice of overlapping rings): c = density (background + sum over rings of
//!   exp(-(r - R)^2 / (2 w^2))), the orientation von Mises about the ring's tangent
//!   (counter-clockwise) weighted by each ring's share; a uniform share where no ring reaches.

use super::params::GlidingConfig;
use crate::error::{invalid, short, Result};
use petri_engine::rng::threefry_u32x4;
use std::f64::consts::TAU;

/// The initial Psi (ntheta, ny, nx).
pub fn initial_psi(cfg: &GlidingConfig) -> Vec<f64> {
    let g = &cfg.grid;
    let i = &cfg.initial;
    let (nx, ny, nt) = (g.nx, g.ny, g.ntheta);
    let cells = nx * ny;
    let dth = TAU / nt as f64;
    let (dx, dy) = (g.lx / nx as f64, g.ly / ny as f64);
    let mut psi = vec![0.0; nt * cells];
    // A von Mises profile over the grid's angles, normalised so sum * dtheta = 1.
    let von_mises = |mean: f64| -> Vec<f64> {
        let w: Vec<f64> = (0..nt)
            .map(|k| (i.kappa * ((k as f64 * dth - mean).cos() - 1.0)).exp())
            .collect();
        let sum: f64 = w.iter().sum::<f64>() * dth;
        w.into_iter().map(|v| v / sum).collect()
    };
    let uniform = vec![1.0 / TAU; nt];
    let aligned = von_mises(i.theta0);
    for cell in 0..cells {
        let (x, y) = ((cell % nx) as f64 * dx, (cell / nx) as f64 * dy);
        let mut profile = vec![0.0; nt];
        let mut c = i.density;
        match i.kind.as_str() {
            "isotropic" => profile.clone_from(&uniform),
            "aligned" => profile.clone_from(&aligned),
            _ => {
                let (weight, share) = rings_at(cfg, x, y, &von_mises);
                c = i.density * (i.background + weight);
                let total = i.background + weight;
                for k in 0..nt {
                    profile[k] =
                        (i.background * uniform[k] + share[k]) / total.max(f64::MIN_POSITIVE);
                }
            }
        }
        let u = threefry_u32x4(cfg.seed, 0, cell as u32, 0)[0] as f64 / 4294967296.0;
        let c = c * (1.0 + i.noise * (2.0 * u - 1.0));
        for k in 0..nt {
            psi[k * cells + cell] = c * profile[k];
        }
    }
    psi
}

/// A ring's weight exp(-(r - R)^2 / (2 w^2)) is under 1e-12 (and left out) beyond
/// R + CUTOFF w: sqrt(2 ln 1e12) = 7.43.
const CUTOFF: f64 = 7.5;

/// The most ring terms the initial condition may sum (cells x rings reaching a cell x
/// (ntheta + 1)): a few seconds' work.
pub const MAX_RING_TERMS: f64 = (1u64 << 30) as f64;

/// The ring lattice of a config: mx x my rings of spacing (ax, ay) over the periods.
struct Lattice {
    m: [usize; 2],
    a: [f64; 2],
    /// The distance from a ring's centre beyond which it is left out.
    reach: f64,
}

impl Lattice {
    fn of(cfg: &GlidingConfig) -> Lattice {
        let (g, i) = (&cfg.grid, &cfg.initial);
        let count = |l: f64| (l / i.ring_spacing).round().max(1.0) as usize;
        let m = [count(g.lx), count(g.ly)];
        Lattice {
            m,
            a: [g.lx / m[0] as f64, g.ly / m[1] as f64],
            reach: i.ring_radius + CUTOFF * i.ring_width,
        }
    }

    /// The lattice indices along axis `k` whose rings' centres, (p + 1/2) a, lie within reach
    /// of `x` on the periodic axis (nearest images), ascending; all of them where the reach
    /// spans the period.
    fn near(&self, k: usize, x: f64) -> Vec<usize> {
        let (m, a) = (self.m[k], self.a[k]);
        if self.span(k) >= m {
            return (0..m).collect();
        }
        let lo = ((x - self.reach) / a - 0.5).floor() as i64;
        let mut p: Vec<usize> = (lo..lo + self.span(k) as i64)
            .map(|p| p.rem_euclid(m as i64) as usize)
            .collect();
        p.sort_unstable();
        p
    }

    /// The indices `near` visits along axis `k` where it does not visit them all.
    fn span(&self, k: usize) -> usize {
        // In f64: a reach of 1e6 over a spacing of 1e-6 is no usize to add to.
        let n = (2.0 * self.reach / self.a[k]).floor() + 3.0;
        n.min(self.m[k] as f64 + 1.0) as usize
    }
}

impl GlidingConfig {
    /// Refuses a ring start whose sum over the rings that reach each cell would take more than
    /// `MAX_RING_TERMS` terms, naming `initial.ring_spacing` and the least allowed (one of
    /// `validate`'s checks; a method here, so that params.rs, which this file reads, does not
    /// import it back).
    pub(super) fn check_init_work(&self) -> Result<()> {
        check_init_work(self)
    }
}

fn check_init_work(cfg: &GlidingConfig) -> Result<()> {
    let (g, i) = (&cfg.grid, &cfg.initial);
    if i.kind != "rings" {
        return Ok(());
    }
    let lattice = Lattice::of(cfg);
    let rings = |k: usize| lattice.span(k).min(lattice.m[k]) as f64;
    let per_term = (g.nx * g.ny) as f64 * (g.ntheta + 1) as f64;
    let terms = per_term * rings(0) * rings(1);
    if terms <= MAX_RING_TERMS {
        return Ok(());
    }
    // About (2 reach / spacing + 3)^2 rings reach a cell.
    let least = 2.0 * lattice.reach / ((MAX_RING_TERMS / per_term).sqrt() - 3.0).max(1.0);
    Err(invalid(
        "initial.ring_spacing",
        i.ring_spacing,
        format!(
            "at least about {}: each of the {} x {} cells sums the rings within ring_radius + \
             {CUTOFF} ring_width = {} of it over {} angles, {} ring terms in all, at most {}",
            short(least),
            g.nx,
            g.ny,
            short(lattice.reach),
            g.ntheta,
            short(terms),
            short(MAX_RING_TERMS)
        ),
    ))
}

/// The rings' summed weight at (x, y) and their orientation profiles weighted by it; the
/// lattice and the rings are periodic over the domain (nearest images). Only the rings within
/// reach of (x, y) are visited, in lattice order: the sum is that over all of them.
fn rings_at(
    cfg: &GlidingConfig,
    x: f64,
    y: f64,
    von_mises: &dyn Fn(f64) -> Vec<f64>,
) -> (f64, Vec<f64>) {
    let (g, i) = (&cfg.grid, &cfg.initial);
    let mut weight = 0.0;
    let mut share = vec![0.0; g.ntheta];
    let lattice = Lattice::of(cfg);
    let [ax, ay] = lattice.a;
    let wrap = |d: f64, l: f64| d - l * (d / l).round();
    let columns = lattice.near(0, x);
    for q in lattice.near(1, y) {
        for &p in &columns {
            let (cx, cy) = ((p as f64 + 0.5) * ax, (q as f64 + 0.5) * ay);
            let (rx, ry) = (wrap(x - cx, g.lx), wrap(y - cy, g.ly));
            let r = rx.hypot(ry);
            let w = (-(r - i.ring_radius).powi(2) / (2.0 * i.ring_width.powi(2))).exp();
            if w < 1e-12 {
                continue;
            }
            let tangent = ry.atan2(rx) + std::f64::consts::FRAC_PI_2;
            for (s, v) in share.iter_mut().zip(von_mises(tangent)) {
                *s += w * v;
            }
            weight += w;
        }
    }
    (weight, share)
}
