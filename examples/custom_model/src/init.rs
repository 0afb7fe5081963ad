//! Pearson's initial condition: u = 1, v = 0 everywhere but a centred square at u = 1/2,
//! v = 1/4, every value then perturbed by relative noise to break the square's symmetry. The
//! noise comes from Petri's counter-based generator (Philox4x32-10, `petri_engine::rng`) keyed by
//! the seed and the cell, so a state is the same on every machine and in any order of cells.

use crate::config::GrayScottConfig;
use crate::state::GrayScottState;
use petri_engine::rng;

/// The state at step 0.
pub fn initial_state(cfg: &GrayScottConfig) -> GrayScottState {
    let [nx, ny] = cfg.grid.map(|n| n as usize);
    let side = cfg.square as usize;
    let (x0, y0) = ((nx - side) / 2, (ny - side) / 2);
    let inside = |x: usize, y: usize| (x0..x0 + side).contains(&x) && (y0..y0 + side).contains(&y);
    let mut u = Vec::with_capacity(nx * ny);
    let mut v = Vec::with_capacity(nx * ny);
    for y in 0..ny {
        for x in 0..nx {
            let (u0, v0) = if inside(x, y) {
                (0.5, 0.25)
            } else {
                (1.0, 0.0)
            };
            // Two draws of the cell's block: one for u, one for v (step 0, stream 0).
            let r = rng::u32x4(cfg.seed, 0, (x + nx * y) as u32, 0);
            let jitter = |draw: u32| 1.0 + cfg.noise * (2.0 * rng::unit(draw) as f64 - 1.0);
            u.push((u0 * jitter(r[0])) as f32);
            v.push((v0 * jitter(r[1])) as f32);
        }
    }
    GrayScottState { step: 0, u, v }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_square_is_centred_and_the_noise_bounded_and_seeded() {
        let cfg = GrayScottConfig {
            grid: [8, 6],
            square: 2,
            ..Default::default()
        };
        let s = initial_state(&cfg);
        let at = |f: &[f32], x: usize, y: usize| f[x + 8 * y] as f64;
        // The square is cells 3..5 along x and 2..4 along y.
        for y in 0..6 {
            for x in 0..8 {
                let inside = (3..5).contains(&x) && (2..4).contains(&y);
                let (u0, v0) = if inside { (0.5, 0.25) } else { (1.0, 0.0) };
                assert!(
                    (at(&s.u, x, y) / u0 - 1.0).abs() <= 0.01 + 1e-7,
                    "u({x}, {y})"
                );
                match inside {
                    true => assert!((at(&s.v, x, y) / v0 - 1.0).abs() <= 0.01 + 1e-7),
                    false => assert_eq!(at(&s.v, x, y), 0.0),
                }
            }
        }
        assert_eq!(initial_state(&cfg), s, "the same seed, the same state");
        let other = initial_state(&GrayScottConfig {
            seed: 7,
            ..cfg.clone()
        });
        assert_ne!(other.u, s.u);
        let flat = initial_state(&GrayScottConfig {
            noise: 0.0,
            square: 0,
            ..cfg
        });
        assert!(flat.u.iter().all(|&x| x == 1.0) && flat.v.iter().all(|&x| x == 0.0));
    }
}
