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

/// The rings' summed weight at (x, y) and their orientation profiles weighted by it; the
/// lattice and the rings are periodic over the domain (nearest images).
fn rings_at(
    cfg: &GlidingConfig,
    x: f64,
    y: f64,
    von_mises: &dyn Fn(f64) -> Vec<f64>,
) -> (f64, Vec<f64>) {
    let (g, i) = (&cfg.grid, &cfg.initial);
    let mut weight = 0.0;
    let mut share = vec![0.0; g.ntheta];
    let (mx, my) = (
        (g.lx / i.ring_spacing).round().max(1.0) as usize,
        (g.ly / i.ring_spacing).round().max(1.0) as usize,
    );
    let (ax, ay) = (g.lx / mx as f64, g.ly / my as f64);
    let wrap = |d: f64, l: f64| d - l * (d / l).round();
    for q in 0..my {
        for p in 0..mx {
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
