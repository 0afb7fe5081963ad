//! Bounds on the time step from the config alone: the RK2 midpoint step of the mechanics and of
//! the gene network is stable only where `dt` times the fastest rate stays small, and does
//! nothing in f32 where it is too small. A config past a bound is refused, naming the field and
//! the largest (or smallest) value allowed, instead of running unstable or frozen (the gene
//! stages clamp at 0, which would hide an unstable step).
//!
//! - **Mechanics.** A Morse pair's curvature |V''(r)| is at most
//!   `kappa = max(u0 / xi1^2, w0 / xi2^2)` (the two exponentials' curvatures have opposite
//!   signs and fall with r). Two elements relax their separation at rate `2 kappa` under the
//!   overdamped motion, and RK2's factor `1 - x + x^2 / 2` has modulus at most 1 only for
//!   `x <= 2`: so `dt <= 1 / kappa` for the intracellular and intercellular potentials, and
//!   `dt <= 2 / kappa` for the membrane (one element against a fixed floor). A crowd of
//!   neighbours lowers the true bound; these are the bounds of one pair, below which no config
//!   may go.
//! - **Genes.** Each species `i` decays at `d_i` (bound Notch also dissociates at `kd`) and is
//!   driven by Hill terms whose slopes are at most `|b| c S(n)` times the largest value of the
//!   term they multiply (`S(n)`, the steepest slope of `1 / (1 + u^n)`). The Jacobian's
//!   eigenvalues lie in the discs of radius `R_i` (the sum of those slopes) around `-d_i`
//!   (Gershgorin), so `dt (d_i + R_i) <= 2` bounds every eigenvalue where RK2 is stable on the
//!   real axis. The association `ka N <D>` depends on the state and is not bounded here. A Hill
//!   exponent below 1 has an unbounded slope at 0 and adds nothing to `R_i`.
//! - **f32.** `dt` and `dt / 2` must be normal f32 numbers, and `dt` times the fastest rate at
//!   least f32's epsilon (below it no value changes); a pair's contact force (`u0 / xi1`) and a
//!   product of two Hill terms must stay far inside f32's range (at most 1e30), so that sums over
//!   thousands of pairs stay finite.

use super::genes::{GeneParams, Hill, HillTable};
use super::params::{EpidermisConfig, Morse};
use crate::error::{bound, invalid, Result};

/// Largest contact force of a pair and largest product of two Hill terms: sums of a few
/// thousand of them stay within f32 (3.4e38).
pub const MAX_F32_TERM: f64 = 1e30;

/// The largest curvature |V''(r)| of a Morse potential over r >= 0.
pub fn curvature(m: &Morse) -> f64 {
    (m.u0 / (m.xi1 * m.xi1)).max(m.w0 / (m.xi2 * m.xi2))
}

/// The steepest slope of `1 / (1 + u^n)` over u >= 0 (infinite for n < 1).
pub fn unit_hill_slope(n: f64) -> f64 {
    if n < 1.0 {
        return f64::INFINITY;
    }
    if n == 1.0 {
        return 1.0;
    }
    // At u^n = (n - 1) / (n + 1).
    (n + 1.0).powi(2) / (4.0 * n) * ((n - 1.0) / (n + 1.0)).powf((n - 1.0) / n)
}

/// The steepest slope of `h(x)` over x >= 0, or 0 where it is unbounded (n < 1).
fn slope(h: &Hill) -> f64 {
    match unit_hill_slope(h.n) {
        s if s.is_finite() => h.b.abs() * h.c * s,
        _ => 0.0,
    }
}

/// The largest value of `h(x)` over x >= 0: an end, a or a + b.
fn largest(h: &Hill) -> f64 {
    h.a.max(h.a + h.b)
}

/// A species' decay field, its linear loss rate and its driving terms (field, rate).
type GeneRow = (&'static str, f64, Vec<(&'static str, f64)>);

/// Per integrated species (N, D, B, O1, O2, M): its decay field and rate, and the Hill terms
/// that drive it from another integrated species as (field, slope times the largest value of
/// the term it multiplies).
fn gene_rows(g: &GeneParams) -> [GeneRow; 6] {
    let HillTable {
        bn,
        on,
        nd,
        vo,
        go,
        ov,
        av,
        om,
    } = &g.hill;
    let d = &g.decay;
    let at_g = go.a + go.b / (1.0 + (go.c * g.tgf_beta).powf(go.n));
    [
        (
            "genes.decay.notch",
            d.notch,
            vec![
                ("genes.hill.bn", slope(bn) * largest(on)),
                ("genes.hill.on", slope(on) * largest(bn)),
            ],
        ),
        (
            "genes.decay.delta",
            d.delta,
            vec![("genes.hill.nd", slope(nd))],
        ),
        ("genes.decay.bound", d.bound + g.kd, Vec::new()),
        (
            "genes.decay.ovol1",
            d.ovol1,
            vec![("genes.hill.ov", slope(ov) * largest(av))],
        ),
        (
            "genes.decay.ovol2",
            d.ovol2,
            vec![("genes.hill.vo", slope(vo) * at_g)],
        ),
        ("genes.decay.myc", d.myc, vec![("genes.hill.om", slope(om))]),
    ]
}

/// The mechanics' potentials: field, curvature and the RK2 bound's factor (1 for a pair, 2 for
/// the membrane).
fn potentials(cfg: &EpidermisConfig) -> [(&'static str, Morse, f64); 3] {
    let m = &cfg.mechanics;
    [
        ("mechanics.intra", m.intra, 1.0),
        ("mechanics.inter", m.inter.morse(), 1.0),
        ("mechanics.membrane", m.membrane, 2.0),
    ]
}

/// The fastest rate of the config's dynamics (per time unit), for the lower bound on dt.
fn fastest_rate(cfg: &EpidermisConfig) -> f64 {
    let mechanics = potentials(cfg).map(|(_, m, factor)| 2.0 * curvature(&m) / factor);
    let genes =
        gene_rows(&cfg.genes).map(|(_, d, terms)| d + terms.iter().map(|t| t.1).sum::<f64>());
    mechanics.into_iter().chain(genes).fold(0.0, f64::max)
}

fn sci(x: f64) -> String {
    crate::error::short(x)
}

impl EpidermisConfig {
    /// Refuses a dt outside the bounds of the module doc and terms past f32's headroom (after
    /// the ranges of `validate`; a method here, so that params.rs does not import this file).
    pub(super) fn check_stability(&self) -> Result<()> {
        let dt = self.dt;
        for (field, m, _) in potentials(self) {
            for (name, force) in [("u0", m.u0 / m.xi1), ("w0", m.w0 / m.xi2)] {
                if force > MAX_F32_TERM {
                    let xi = if name == "u0" { "xi1" } else { "xi2" };
                    return Err(invalid(
                        &format!("{field}.{name}"),
                        if name == "u0" { m.u0 } else { m.w0 },
                        format!(
                            "a contact force {name} / {xi} of at most {} (here {}: sums of f32 \
                             forces must stay finite)",
                            sci(MAX_F32_TERM),
                            sci(force)
                        ),
                    ));
                }
            }
        }
        for (a, b) in [("bn", "on"), ("vo", "go"), ("ov", "av")] {
            let h = |k: &str| {
                self.genes
                    .hill
                    .all()
                    .into_iter()
                    .find(|(n, _)| *n == k)
                    .expect("a Hill term of the table")
                    .1
            };
            let product = largest(&h(a)) * largest(&h(b));
            if product > MAX_F32_TERM {
                return Err(invalid(
                    &format!("genes.hill.{a}"),
                    format!("{:?}", <[f64; 4]>::from(h(a))),
                    format!(
                        "terms whose largest value (a or a + b) times that of genes.hill.{b} is \
                         at most {} (here {}: f32 headroom)",
                        sci(MAX_F32_TERM),
                        sci(product)
                    ),
                ));
            }
        }
        let smallest = (2.0 * f32::MIN_POSITIVE as f64)
            .max(f32::EPSILON as f64 / fastest_rate(self).max(f64::MIN_POSITIVE));
        if dt < smallest {
            return Err(invalid(
                "dt",
                dt,
                format!(
                    "at least {} (below it the fastest rate of the config changes no value in \
                     the GPU's f32, or dt / 2 is not a normal f32)",
                    bound(smallest, false)
                ),
            ));
        }
        for (field, m, factor) in potentials(self) {
            let kappa = curvature(&m);
            if dt * kappa > factor {
                return Err(invalid(
                    "dt",
                    dt,
                    format!(
                        "at most {} for {field} (RK2 stability of one pair: {factor} / \
                         max(u0 / xi1^2, w0 / xi2^2) = {factor} / {})",
                        bound(factor / kappa, true),
                        bound(kappa, false)
                    ),
                ));
            }
        }
        for (decay_field, decay, terms) in gene_rows(&self.genes) {
            let what = match decay_field {
                "genes.decay.bound" => "genes.decay.bound + genes.kd".to_string(),
                f => f.to_string(),
            };
            if dt * decay > 2.0 {
                let field = match decay_field {
                    "genes.decay.bound" => "genes.kd",
                    f => f,
                };
                return Err(invalid(
                    field,
                    match field {
                        "genes.kd" => self.genes.kd,
                        _ => decay,
                    },
                    format!(
                        "{what} of at most 2 / dt = {} (RK2 stability of the decay with dt = {}), \
                         or a smaller dt",
                        bound(2.0 / dt, true),
                        sci(dt)
                    ),
                ));
            }
            let radius: f64 = terms.iter().map(|t| t.1).sum();
            if dt * (decay + radius) > 2.0 {
                let names: Vec<&str> = terms.iter().map(|t| t.0).collect();
                return Err(invalid(
                    "dt",
                    dt,
                    format!(
                        "at most {} for the gene network: 2 / ({what} + the steepest slopes of \
                         {} = {}) (RK2 stability, Gershgorin bound)",
                        bound(2.0 / (decay + radius), true),
                        names.join(", "),
                        bound(radius, false)
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(edit: impl Fn(&mut EpidermisConfig)) -> String {
        let mut c = EpidermisConfig::default();
        edit(&mut c);
        c.validate().unwrap_err().to_string()
    }

    #[test]
    fn the_steepest_hill_slope_is_found() {
        for n in [1.0, 1.5, 2.0, 4.0, 16.0] {
            let f = |u: f64| n * u.powf(n - 1.0) / (1.0 + u.powf(n)).powi(2);
            let scan = (0..200_000).map(|k| f(k as f64 * 1e-5)).fold(0.0, f64::max);
            let s = unit_hill_slope(n);
            assert!(
                s >= scan && s - scan < 1e-6 * s,
                "n = {n}: {s} against {scan}"
            );
        }
        assert!(unit_hill_slope(0.5).is_infinite());
    }

    #[test]
    fn the_asset_is_well_inside_every_bound() {
        let c = EpidermisConfig::default();
        c.validate().unwrap();
        // The intercellular pair sets the mechanics' bound: 1 / (0.5 / 0.12^2) = 0.0288.
        let mut wider = c.clone();
        wider.dt = 0.028;
        wider.validate().unwrap();
        wider.dt = 0.029;
        let e = wider.validate().unwrap_err().to_string();
        assert!(
            e.contains("dt = 0.029")
                && e.contains("at most 0.028")
                && e.contains("mechanics.inter"),
            "{e}"
        );
    }

    #[test]
    fn unstable_or_frozen_steps_are_refused_naming_the_field_and_the_bound() {
        let e = refused(|c| c.dt = 1000.0);
        assert!(e.contains("dt = 1000") && e.contains("at most"), "{e}");
        let e = refused(|c| c.dt = 1e-300);
        assert!(e.contains("dt = 1e-300") && e.contains("at least"), "{e}");
        let e = refused(|c| c.mechanics.inter.u0 = 1e30);
        assert!(
            e.contains("mechanics.inter.u0") && e.contains("contact force"),
            "{e}"
        );
        let e = refused(|c| c.mechanics.inter.u0 = 1e4);
        assert!(
            e.contains("dt = 0.005") && e.contains("mechanics.inter"),
            "{e}"
        );
        let e = refused(|c| c.genes.decay.notch = 1e6);
        assert!(
            e.contains("genes.decay.notch = 1000000") && e.contains("at most 2 / dt = 400"),
            "{e}"
        );
        let e = refused(|c| c.genes.kd = 500.0);
        assert!(
            e.contains("genes.kd = 500") && e.contains("genes.decay.bound + genes.kd"),
            "{e}"
        );
        let e = refused(|c| c.genes.hill.bn.c = 1e4);
        assert!(
            e.contains("dt = 0.005") && e.contains("genes.hill.bn"),
            "{e}"
        );
        let e = refused(|c| c.genes.hill.ov.b = 1e20);
        assert!(
            e.contains("dt = 0.005") && e.contains("genes.hill.ov"),
            "{e}"
        );
        let e = refused(|c| {
            c.genes.hill.bn.b = 1e16;
            c.genes.hill.on.b = 1e16;
        });
        assert!(
            e.contains("genes.hill.bn") && e.contains("f32 headroom"),
            "{e}"
        );
    }
}
