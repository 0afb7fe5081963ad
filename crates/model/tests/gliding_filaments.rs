//! The gliding assay's filament density transport (`petri_model::gliding::filaments`): the CPU
//! reference (f64) and the GPU (f32) on conservation, Crank-Nicolson decay of single modes,
//! uniform translation, isotropy, GPU against CPU, bitwise determinism, bad input. Sizes are
//! small for lavapipe (CI also runs them on GL).
//!
//! Tolerances (measured values in docs/models/gliding.md):
//! - integral of Psi: relative drift <= 1e-12 (CPU) and 1e-5 (GPU) over 100 steps at the CFL
//!   bound with random positive Psi and random velocities (the GPU's f32 drift grows about
//!   linearly, 6e-8 a step: 1.3e-5 after 200 steps);
//! - single mode: the amplitude after n steps equals CN's factor^n to 1e-12 (CPU) and 2e-5
//!   (GPU), and the exact exp(-(D_t k^2 + D_r q^2) t) to 5e-3 (the theta second difference's
//!   O(dtheta^2) error, 1.3e-3 here, and CN's O(dt^2));
//! - translation of sin profiles in x and theta by U t, 64 cells a period in x, 32 in theta:
//!   max error <= 2.5e-2 (amplitude 0.8; the limiter clips smooth extrema to first order and
//!   theta has 32 cells), and the GPU against the CPU <= 1e-5;
//! - GPU against CPU: max |gpu - cpu| <= 1e-5 of max |cpu| after 10 steps.

use petri_engine::testing::test_context;
use petri_model::gliding::filaments_cpu::{self, FilamentsCpu};
use petri_model::gliding::{FilamentConfig, FilamentTransport};
use std::f64::consts::TAU;

fn config(nx: usize, ny: usize, nt: usize, lx: f64, ly: f64, d_t: f64, d_r: f64) -> FilamentConfig {
    FilamentConfig::new(nx, ny, nt, lx, ly, d_t, d_r).unwrap()
}

/// Fixed-seed values in [lo, hi) (xorshift64*).
fn random(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let r = (s.wrapping_mul(0x2545F4914F6CDD1D) >> 11) as f64 / (1u64 << 53) as f64;
            lo + (hi - lo) * r
        })
        .collect()
}

/// A field (ntheta, ny, nx) from f(x, y, theta).
fn field(c: &FilamentConfig, f: impl Fn(f64, f64, f64) -> f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(c.cells());
    for k in 0..c.ntheta {
        for j in 0..c.ny {
            for i in 0..c.nx {
                out.push(f(
                    i as f64 * c.dx(),
                    j as f64 * c.dy(),
                    k as f64 * c.dtheta(),
                ));
            }
        }
    }
    out
}

/// Values as f32 gives them back (velocities the GPU and the CPU then share exactly).
fn rounded(v: Vec<f64>) -> Vec<f64> {
    v.into_iter().map(|x| f64::from(x as f32)).collect()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// Psi after `steps` GPU steps of dt.
fn gpu(c: &FilamentConfig, psi: &[f64], vel: &[f64], dt: f64, steps: u64, wg: u32) -> Vec<f64> {
    let ctx = test_context();
    let mut t = FilamentTransport::new(&ctx, c, wg).unwrap();
    t.set_psi(&ctx, &f32s(psi)).unwrap();
    t.set_velocities(&ctx, &f32s(vel)).unwrap();
    t.step(&ctx, dt, steps).unwrap();
    t.psi(&ctx).unwrap().into_iter().map(f64::from).collect()
}

fn cpu(c: &FilamentConfig, psi: &[f64], vel: &[f64], dt: f64, steps: usize) -> FilamentsCpu {
    let mut s = FilamentsCpu::new(c, psi.to_vec()).unwrap();
    s.set_velocities(vel).unwrap();
    for _ in 0..steps {
        s.step(dt).unwrap();
    }
    s
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

fn min(v: &[f64]) -> f64 {
    v.iter().fold(f64::INFINITY, |m, &x| m.min(x))
}

#[test]
fn integral_is_conserved_with_random_velocities() {
    let c = config(8, 8, 8, 1.0, 2.0, 0.01, 0.1);
    let psi = random(c.cells(), 1, 0.5, 1.5);
    let vel = rounded(random(3 * c.cells(), 2, -1.0, 1.0));
    let steps = 100;
    let dt = c.max_stable_dt_of(&vel);
    let total = filaments_cpu::integral(&c, psi.iter().copied());
    let s = cpu(&c, &psi, &vel, dt, steps);
    let ec = (s.integral() - total).abs() / total;
    let g = gpu(&c, &psi, &vel, dt, steps as u64, 64);
    let eg = (filaments_cpu::integral(&c, g.iter().copied()) - total).abs() / total;
    eprintln!(
        "integral over {steps} steps at the CFL bound: relative drift CPU {ec:.2e}, GPU {eg:.2e}; \
         min Psi CPU {:.3e}, GPU {:.3e}; max Psi CPU {:.3}",
        min(&s.psi),
        min(&g),
        max_abs(&s.psi)
    );
    assert!(ec < 1e-12, "{ec:e}");
    assert!(eg < 1e-5, "{eg:e}");
    // Stable at the bound: no growth beyond the initial range.
    assert!(max_abs(&s.psi) < 10.0 && max_abs(&g) < 10.0);
}

/// The projection of Psi on cos(2 pi m x / lx) cos(q theta), normalized so that Psi = A cos cos
/// gives A.
fn amplitude(c: &FilamentConfig, psi: &[f64], m: f64, q: f64) -> f64 {
    let basis = field(c, |x, _, th| (TAU * m * x / c.lx).cos() * (q * th).cos());
    let dot: f64 = psi.iter().zip(&basis).map(|(a, b)| a * b).sum();
    let norm: f64 = basis.iter().map(|b| b * b).sum();
    dot / norm
}

#[test]
fn single_mode_decays_at_the_crank_nicolson_rate() {
    let (d_t, d_r, m, q) = (0.01, 0.1, 1.0, 1.0);
    let c = config(8, 2, 16, 1.0, 1.0, d_t, d_r);
    let psi = field(&c, |x, _, th| {
        1.0 + 0.5 * (TAU * m * x).cos() * (q * th).cos()
    });
    let vel = vec![0.0; 3 * c.cells()];
    let (dt, steps) = (0.05, 20);
    let t = dt * steps as f64;
    let k2 = (TAU * m / c.lx).powi(2);
    let h = c.dtheta();
    let lambda = -d_t * k2 - d_r * 4.0 / (h * h) * (q * h / 2.0).sin().powi(2);
    let factor = (1.0 + 0.5 * dt * lambda) / (1.0 - 0.5 * dt * lambda);
    let want_cn = 0.5 * factor.powi(steps as i32);
    let want_exact = 0.5 * (-(d_t * k2 + d_r * q * q) * t).exp();
    let s = cpu(&c, &psi, &vel, dt, steps);
    let g = gpu(&c, &psi, &vel, dt, steps as u64, 64);
    let (ac, ag) = (amplitude(&c, &s.psi, m, q), amplitude(&c, &g, m, q));
    let ec = (ac - want_cn).abs() / want_cn;
    let eg = (ag - want_cn).abs() / want_cn;
    let ex = (ac - want_exact).abs() / want_exact;
    eprintln!(
        "mode (m, q) = (1, 1), t = {t}: vs CN factor^n CPU {ec:.2e}, GPU {eg:.2e}; \
         CPU vs exact exponential {ex:.2e}"
    );
    assert!(ec < 1e-12, "{ec:e}");
    assert!(eg < 2e-5, "{eg:e}");
    assert!(ex < 5e-3, "{ex:e}");
    // The mean is untouched.
    let mean = s.psi.iter().sum::<f64>() / c.cells() as f64;
    assert!((mean - 1.0).abs() < 1e-13, "{mean}");
}

#[test]
fn constant_velocity_translates_the_profile() {
    let c = config(64, 2, 32, 1.0, 1.0, 0.0, 0.0);
    let (ux, om) = (1.0, 2.0);
    let f = |x: f64, th: f64| 1.0 + 0.5 * (TAU * x).sin() + 0.3 * th.cos();
    let psi = field(&c, |x, _, th| f(x, th));
    let vel: Vec<f64> = (0..3 * c.cells())
        .map(|i| match i / c.cells() {
            0 => ux,
            1 => 0.0,
            _ => om,
        })
        .collect();
    let t = 0.25;
    let steps = (t / c.max_stable_dt(ux, 0.0, om)).ceil() as usize;
    let dt = t / steps as f64;
    let want = field(&c, |x, _, th| f(x - ux * t, th - om * t));
    let s = cpu(&c, &psi, &vel, dt, steps);
    let g = gpu(&c, &psi, &vel, dt, steps as u64, 64);
    let (ec, eg) = (max_diff(&s.psi, &want), max_diff(&g, &want));
    let egc = max_diff(&g, &s.psi);
    eprintln!(
        "translation by U t = ({}, 0, {}) in {steps} steps: max error CPU {ec:.2e}, GPU {eg:.2e} \
         (amplitude 0.8); GPU vs CPU {egc:.2e}",
        ux * t,
        om * t
    );
    assert!(ec < 2.5e-2 && eg < 2.5e-2, "{ec:e} {eg:e}");
    assert!(egc < 1e-5, "{egc:e}");
}

#[test]
fn isotropic_density_without_motors_only_diffuses() {
    let c = config(8, 4, 8, 1.0, 1.0, 0.02, 0.3);
    let vel = vec![0.0; 3 * c.cells()];
    // Uniform: stays so.
    let uniform = vec![1.3; c.cells()];
    let s = cpu(&c, &uniform, &vel, 0.1, 20);
    let g = gpu(&c, &uniform, &vel, 0.1, 20, 64);
    let (ec, eg) = (
        max_diff(&s.psi, &uniform) / 1.3,
        max_diff(&g, &uniform) / 1.3,
    );
    // Isotropic but varying in x: stays isotropic, its x mode decays at CN's rate.
    let psi = field(&c, |x, _, _| 1.0 + 0.4 * (TAU * x).cos());
    let s2 = cpu(&c, &psi, &vel, 0.1, 20);
    let g2 = gpu(&c, &psi, &vel, 0.1, 20, 64);
    let spread = |p: &[f64]| -> f64 {
        (0..c.modes())
            .map(|m| {
                let col: Vec<f64> = (0..c.ntheta).map(|k| p[k * c.modes() + m]).collect();
                col.iter().fold(f64::MIN, |a, &b| a.max(b)) - min(&col)
            })
            .fold(0.0, f64::max)
    };
    let lambda = -0.02 * TAU * TAU;
    let factor: f64 = (1.0 + 0.05 * lambda) / (1.0 - 0.05 * lambda);
    let want = field(&c, |x, _, _| 1.0 + 0.4 * factor.powi(20) * (TAU * x).cos());
    let (dc, dg) = (max_diff(&s2.psi, &want), max_diff(&g2, &want));
    eprintln!(
        "uniform Psi: relative change CPU {ec:.2e}, GPU {eg:.2e}; isotropic x mode: theta spread \
         CPU {:.2e}, GPU {:.2e}, vs CN decay CPU {dc:.2e}, GPU {dg:.2e}",
        spread(&s2.psi),
        spread(&g2)
    );
    assert!(ec < 1e-14 && eg < 1e-6, "{ec:e} {eg:e}");
    assert!(spread(&s2.psi) < 1e-14 && spread(&g2) < 5e-6);
    assert!(dc < 1e-13 && dg < 1e-5, "{dc:e} {dg:e}");
}

/// A smooth fluid velocity u(x, y) (2, ny, nx) and the gliding velocities it gives.
fn gliding(c: &FilamentConfig) -> Vec<f64> {
    let mut fluid = Vec::new();
    for comp in 0..2 {
        for j in 0..c.ny {
            for i in 0..c.nx {
                let (x, y) = (i as f64 * c.dx(), j as f64 * c.dy());
                fluid.push(match comp {
                    0 => 0.3 * (TAU * y / c.ly).sin(),
                    _ => 0.2 * (TAU * x / c.lx).cos(),
                });
            }
        }
    }
    filaments_cpu::gliding_velocities(c, 1.0, &fluid).unwrap()
}

#[test]
fn gliding_velocities_follow_the_fluid_and_the_orientation() {
    let c = config(16, 16, 8, 1.0, 1.0, 0.0, 0.0);
    let vel = gliding(&c);
    let n = c.cells();
    let mut worst: f64 = 0.0;
    for k in 0..c.ntheta {
        let th = k as f64 * c.dtheta();
        let (s, co) = th.sin_cos();
        for j in 0..c.ny {
            for i in 0..c.nx {
                let (x, y) = (i as f64 * c.dx(), j as f64 * c.dy());
                let idx = c.index(i, j, k);
                // Central differences of sin and cos: factor sin(2 pi h) / (2 pi h).
                let g = (TAU * c.dy()).sin() / (TAU * c.dy());
                let dux_dy = 0.3 * TAU * (TAU * y).cos() * g;
                let duy_dx = -0.2 * TAU * (TAU * x).sin() * g;
                let want = [
                    -co + 0.3 * (TAU * y).sin(),
                    -s + 0.2 * (TAU * x).cos(),
                    -s * s * dux_dy + co * co * duy_dx,
                ];
                for (comp, w) in want.iter().enumerate() {
                    worst = worst.max((vel[comp * n + idx] - w).abs());
                }
            }
        }
    }
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn gpu_matches_the_cpu_reference() {
    let c = config(8, 4, 6, 1.0, 0.5, 0.02, 0.2);
    let psi = random(c.cells(), 7, 0.2, 1.0);
    for (name, vel) in [
        ("random", rounded(random(3 * c.cells(), 8, -1.0, 1.0))),
        ("gliding", rounded(gliding(&c))),
    ] {
        let dt = 0.9 * c.max_stable_dt_of(&vel);
        let s = cpu(&c, &psi, &vel, dt, 10);
        let g = gpu(&c, &psi, &vel, dt, 10, 64);
        let e = max_diff(&g, &s.psi) / max_abs(&s.psi);
        eprintln!("GPU vs CPU, {name} velocities, 10 steps: max relative {e:.2e}");
        assert!(e < 1e-5, "{name}: {e:e}");
    }
}

#[test]
fn gpu_is_bitwise_deterministic() {
    let c = config(16, 8, 6, 1.0, 1.0, 0.01, 0.1);
    let psi = random(c.cells(), 11, 0.0, 1.0);
    let vel = rounded(random(3 * c.cells(), 12, -1.0, 1.0));
    let dt = c.max_stable_dt_of(&vel);
    let a = gpu(&c, &psi, &vel, dt, 20, 64);
    let b = gpu(&c, &psi, &vel, dt, 20, 64);
    let w = gpu(&c, &psi, &vel, dt, 20, 32);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b), "two runs differ");
    assert_eq!(bits(&a), bits(&w), "workgroup 64 and 32 differ");
}

fn message<T>(r: petri_model::error::Result<T>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_input_is_refused() {
    let m = message(FilamentConfig::new(6, 8, 8, 1.0, 1.0, 0.1, 0.1));
    assert!(m.contains("grid.nx") && m.contains("power of two"), "{m}");
    let m = message(FilamentConfig::new(8, 12, 8, 1.0, 1.0, 0.1, 0.1));
    assert!(m.contains("grid.ny"), "{m}");
    let m = message(FilamentConfig::new(8, 8, 2, 1.0, 1.0, 0.1, 0.1));
    assert!(
        m.contains("grid.ntheta = 2") && m.contains("3..=4096"),
        "{m}"
    );
    let m = message(FilamentConfig::new(8, 8, 8, 1.0, 1.0, -0.1, 0.1));
    assert!(
        m.contains("filaments.d_t = -0.1") && m.contains("a diffusivity in [0, 1e6]"),
        "{m}"
    );
    let m = message(FilamentConfig::new(8, 8, 8, 1.0, 1.0, 0.1, f64::NAN));
    assert!(m.contains("filaments.d_r = NaN"), "{m}");
    let m = message(FilamentConfig::new(8, 8, 8, 0.0, 1.0, 0.1, 0.1));
    assert!(m.contains("grid.lx = 0"), "{m}");

    let c = config(8, 4, 4, 1.0, 1.0, 0.1, 0.1);
    let vel = vec![1.0; 3 * c.cells()];
    let bound = c.max_stable_dt_of(&vel);
    let mut s = FilamentsCpu::new(&c, vec![1.0; c.cells()]).unwrap();
    s.set_velocities(&vel).unwrap();
    let m = message(s.step(1.01 * bound));
    assert!(m.contains("config: dt") && m.contains("CFL"), "{m}");
    assert!(s.step(bound).is_ok());
    let m = message(s.set_velocities(&vel[1..]));
    assert!(m.contains("config: velocity"), "{m}");
    let m = message(FilamentsCpu::new(&c, vec![1.0; 3]));
    assert!(m.contains("config: psi"), "{m}");

    let ctx = test_context();
    let mut t = FilamentTransport::new(&ctx, &c, 64).unwrap();
    t.set_velocities(&ctx, &f32s(&vel)).unwrap();
    let m = message(t.step(&ctx, 2.0 * t.max_dt(), 1));
    assert!(m.contains("config: dt"), "{m}");
    let m = message(t.step(&ctx, -1.0, 1));
    assert!(m.contains("config: dt"), "{m}");
    let m = message(t.set_psi(&ctx, &[1.0; 5]));
    assert!(m.contains("config: psi"), "{m}");
    let m = message(t.set_velocities(&ctx, &[f32::NAN; 3 * 8 * 4 * 4]));
    assert!(
        m.contains("config: velocity") && m.contains("finite"),
        "{m}"
    );
}

/// Psi after steps of the given dts: on the CPU, and on the GPU (one `step` call per dt, so
/// each change of dt is a variable-step AB2 step there too).
fn cpu_steps(c: &FilamentConfig, psi: &[f64], vel: &[f64], dts: &[f64]) -> Vec<f64> {
    let mut s = FilamentsCpu::new(c, psi.to_vec()).unwrap();
    s.set_velocities(vel).unwrap();
    for &dt in dts {
        s.step(dt).unwrap();
    }
    s.psi
}

fn gpu_steps(c: &FilamentConfig, psi: &[f64], vel: &[f64], dts: &[f64]) -> Vec<f64> {
    let ctx = test_context();
    let mut t = FilamentTransport::new(&ctx, c, 64).unwrap();
    t.set_psi(&ctx, &f32s(psi)).unwrap();
    t.set_velocities(&ctx, &f32s(vel)).unwrap();
    for &dt in dts {
        t.step(&ctx, dt, 1).unwrap();
    }
    t.psi(&ctx).unwrap().into_iter().map(f64::from).collect()
}

/// AB2 with variable steps, (1 + r/2) A^n - (r/2) A^(n-1) with r = dt_n / dt_(n-1), is second
/// order in time: pure advection of 1 + 0.5 sin(2 pi x) + 0.3 cos(theta) at (U, Omega) = (1, 2)
/// to t = 0.5 with steps cycling through (1, 0.6, 1.3, 0.8) h (dt changes at every step), at
/// h, h/2 and h/4: the error against the same grid's solution at h/64 falls by 4 (3.6 to 4.4)
/// per halving (AB2's constant coefficients 3/2, -1/2 on these steps fall by 2: first order).
/// The GPU takes the same varying steps as the CPU (1e-5).
#[test]
fn variable_step_ab2_is_second_order_in_time() {
    let c = config(32, 1, 16, 1.0, 1.0, 0.0, 0.0);
    let psi = field(&c, |x, _, th| 1.0 + 0.5 * (TAU * x).sin() + 0.3 * th.cos());
    let vel: Vec<f64> = (0..3 * c.cells())
        .map(|i| [1.0, 0.0, 2.0][i / c.cells()])
        .collect();
    let (t, cycles) = (0.5, 30);
    let pattern = [1.0, 0.6, 1.3, 0.8];
    let h = t / (cycles as f64 * pattern.iter().sum::<f64>());
    assert!(1.3 * h <= c.max_stable_dt_of(&vel));
    let dts = |split: usize| -> Vec<f64> {
        (0..cycles * split)
            .flat_map(|_| pattern)
            .map(|p| p * h / split as f64)
            .collect()
    };
    let reference = cpu_steps(&c, &psi, &vel, &dts(64));
    let errors: Vec<f64> = [1, 2, 4]
        .iter()
        .map(|&s| max_diff(&cpu_steps(&c, &psi, &vel, &dts(s)), &reference))
        .collect();
    let ratios = [errors[0] / errors[1], errors[1] / errors[2]];
    let g = gpu_steps(&c, &psi, &vel, &dts(1));
    let egc = max_diff(&g, &cpu_steps(&c, &psi, &vel, &dts(1)));
    eprintln!(
        "variable-step AB2, max error vs h/64 at h, h/2, h/4: {:.3e}, {:.3e}, {:.3e}; ratios {:.3}, {:.3}; GPU vs CPU {egc:.2e}",
        errors[0], errors[1], errors[2], ratios[0], ratios[1]
    );
    for r in ratios {
        assert!((3.6..=4.4).contains(&r), "ratio {r}");
    }
    assert!(egc < 1e-5, "{egc:e}");
}
