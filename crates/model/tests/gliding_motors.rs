//! The gliding assay's bound motors (`petri_model::gliding::motors`): the CPU reference (f64)
//! and the GPU (f32) on conservation, binding/unbinding kinetics, the Superbee walk, the
//! rescaling, GPU against CPU, bitwise determinism, the motor force gather, bad input. Sizes
//! are small for lavapipe (CI also runs them on GL).
//!
//! Tolerances (measured values in docs/models/gliding.md):
//! - bound + free = total at every anchor: 1e-12 (CPU) and 1e-5 of the total (GPU, f32);
//! - kinetics without walking: the discrete RK2 factor to 1e-12 (CPU) and 1e-5 (GPU); the exact
//!   exponential to 1e-3 (RK2's O((h lambda)^2) per unit time, h lambda = 0.1 here); the
//!   equilibrium ratio coarse/free = k_on W / k_off to 1e-9 (CPU) and 1e-4 (GPU: free is M/31
//!   here, so f32 round-off of the coarse integral is amplified 30 times);
//! - walk: mass + walked off = initial to 1e-12 (CPU) and 1e-5 (GPU); 0 <= M_b <= initial max;
//!   total variation never grows; the centroid moves by t to one cell;
//! - GPU against CPU: 1e-4 of the largest value (M_b, coarse, free, force);
//! - force: the GPU gather against the CPU gather of the GPU's M_b to 1e-5, the table-driven
//!   gather against a direct scatter to 1e-12.

use petri_engine::testing::test_context;
use petri_model::gliding::motors::{self, MotorChunks};
use petri_model::gliding::motors_cpu::{self, MotorsCpu};
use petri_model::gliding::{BoundMotors, MotorConfig, MotorTables};

#[allow(clippy::too_many_arguments)]
fn config(
    n: usize,
    ntheta: usize,
    ns: usize,
    rc: f64,
    speed: f64,
    k_on: f64,
    k_off: f64,
) -> MotorConfig {
    let c = MotorConfig {
        nx: n,
        ny: n,
        ntheta,
        lx: n as f64,
        ly: n as f64,
        ns,
        arc: 1.0,
        speed,
        length: 1.0,
        capture_radius: rc,
        k_on,
        k_off,
        force: 1.5,
    };
    c.check().unwrap();
    c
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

fn rounded(v: Vec<f64>) -> Vec<f64> {
    v.into_iter().map(|x| f64::from(x as f32)).collect()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// A random M_b inside the capture disc.
fn random_bound(c: &MotorConfig, seed: u64, hi: f64) -> Vec<f64> {
    let t = MotorTables::new(c).unwrap();
    let size = t.block(c);
    let v = rounded(random(c.anchors() * size, seed, 0.0, hi));
    v.iter()
        .enumerate()
        .map(|(i, x)| x * t.mask[i % size])
        .collect()
}

struct Gpu {
    bound: Vec<f64>,
    state: Vec<[f64; 4]>,
    force: Vec<[f64; 2]>,
    raw: (Vec<f32>, Vec<[f32; 4]>, Vec<[f32; 2]>),
}

fn gpu(
    c: &MotorConfig,
    total: &[f64],
    psi: &[f64],
    bound: Option<&[f64]>,
    dt: f64,
    steps: u64,
    wg: u32,
) -> Gpu {
    gpu_split(c, total, psi, bound, dt, steps, wg, None)
}

/// `gpu` with M_b split over bindings of at most `max_binding` bytes.
#[allow(clippy::too_many_arguments)]
fn gpu_split(
    c: &MotorConfig,
    total: &[f64],
    psi: &[f64],
    bound: Option<&[f64]>,
    dt: f64,
    steps: u64,
    wg: u32,
    max_binding: Option<u64>,
) -> Gpu {
    let ctx = test_context();
    let mut m = BoundMotors::new(&ctx, c, wg, max_binding).unwrap();
    if let Some(b) = max_binding {
        assert!(m.chunks().len() > 1, "{b} bytes split M_b");
    }
    m.set_total(&ctx, &f32s(total)).unwrap();
    m.set_psi(&ctx, &f32s(psi)).unwrap();
    if let Some(b) = bound {
        m.set_bound(&ctx, &f32s(b)).unwrap();
    }
    m.step(&ctx, dt, steps).unwrap();
    let (b, s, f) = (
        m.bound(&ctx).unwrap(),
        m.state(&ctx).unwrap(),
        m.force(&ctx).unwrap(),
    );
    Gpu {
        bound: f64s(&b),
        state: s.iter().map(|v| v.map(f64::from)).collect(),
        force: f.iter().map(|v| v.map(f64::from)).collect(),
        raw: (b, s, f),
    }
}

fn cpu(c: &MotorConfig, total: &[f64], psi: &[f64], bound: Option<&[f64]>) -> MotorsCpu {
    let mut m = MotorsCpu::new(c, total.to_vec(), psi.to_vec()).unwrap();
    if let Some(b) = bound {
        m.set_bound(b.to_vec()).unwrap();
    }
    m
}

#[test]
fn bound_plus_free_is_the_total() {
    let c = config(8, 4, 8, 1.0, 1.0, 2.0, 0.5);
    let total = rounded(random(c.anchors(), 1, 0.5, 2.0));
    let psi = rounded(random(c.anchors() * c.ntheta, 2, 0.0, 1.0));
    let dt = 0.1;
    let steps = 40;
    let mut s = cpu(&c, &total, &psi, None);
    let mut worst = 0.0f64;
    for _ in 0..steps {
        s.step(dt).unwrap();
        let now = s.coarse_now();
        for r0 in 0..c.anchors() {
            worst = worst.max((now[r0] + s.free[r0] - total[r0]).abs() / total[r0]);
            assert!(s.free[r0] >= 0.0);
        }
    }
    let g = gpu(&c, &total, &psi, None, dt, steps, 64);
    let mut check = cpu(&c, &total, &psi, None);
    check.bound = g.bound.clone();
    let now = check.coarse_now();
    let mut worst_gpu = 0.0f64;
    for r0 in 0..c.anchors() {
        worst_gpu = worst_gpu.max((now[r0] + g.state[r0][2] - total[r0]).abs() / total[r0]);
        assert!(g.state[r0][2] >= 0.0);
    }
    let bound_frac = s.coarse.iter().sum::<f64>() / total.iter().sum::<f64>();
    eprintln!(
        "bound + free - total over {steps} steps, relative: CPU {worst:.2e}, GPU {worst_gpu:.2e} \
         (bound fraction {bound_frac:.3})"
    );
    assert!(worst < 1e-12, "{worst:e}");
    assert!(worst_gpu < 1e-5, "{worst_gpu:e}");
    assert!(bound_frac > 0.1);
}

#[test]
fn kinetics_without_walking_reach_the_analytic_equilibrium() {
    let (k_on, k_off, psi0, m0) = (3.0, 1.0, 0.8, 2.0);
    let c = config(8, 4, 4, 1.0, 0.0, k_on, k_off);
    let total = vec![m0; c.anchors()];
    let psi = vec![psi0; c.anchors() * c.ntheta];
    let mut s = cpu(&c, &total, &psi, None);
    let w = s.weight(0);
    let lambda = k_off + k_on * w;
    let b_eq = k_on * m0 / lambda;
    let dt = 0.1 / lambda;
    let h = dt / c.substeps(dt, w);
    assert_eq!(c.substeps(dt, w), 1.0);
    let g_rk2 = 1.0 - h * lambda + 0.5 * (h * lambda).powi(2);
    let t = MotorTables::new(&c).unwrap();
    let first = t.mask.iter().position(|&m| m == 1.0).unwrap();
    let (mut e_disc, mut e_exact) = (0.0f64, 0.0f64);
    let steps = 300;
    for n in 1..=steps {
        s.step(dt).unwrap();
        let b = s.bound[first];
        e_disc = e_disc.max((b - b_eq * (1.0 - g_rk2.powi(n))).abs() / b_eq);
        e_exact = e_exact.max((b - b_eq * (1.0 - (-lambda * n as f64 * dt).exp())).abs() / b_eq);
    }
    let ratio = s.coarse[0] / s.free[0];
    let e_ratio = (ratio - k_on * w / k_off).abs() / (k_on * w / k_off);
    let g = gpu(&c, &total, &psi, None, dt, steps as u64, 64);
    let gb = g.bound[first];
    let e_disc_gpu = (gb - b_eq * (1.0 - g_rk2.powi(steps))).abs() / b_eq;
    let e_ratio_gpu = (g.state[0][1] / g.state[0][2] - k_on * w / k_off).abs() / (k_on * w / k_off);
    eprintln!(
        "kinetics: W {w:.4}, lambda {lambda:.3}, h lambda {:.2}: CPU vs discrete RK2 {e_disc:.2e}, \
         vs exp {e_exact:.2e}, ratio {e_ratio:.2e}; GPU vs discrete {e_disc_gpu:.2e}, ratio \
         {e_ratio_gpu:.2e}",
        h * lambda
    );
    assert!(e_disc < 1e-12, "{e_disc:e}");
    assert!(e_exact < 1e-3, "{e_exact:e}");
    assert!(e_ratio < 1e-9, "{e_ratio:e}");
    assert!(e_disc_gpu < 1e-5, "{e_disc_gpu:e}");
    assert!(e_ratio_gpu < 1e-4, "{e_ratio_gpu:e}");
}

fn total_variation(line: &[f64]) -> f64 {
    line.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>()
        + line[0].abs()
        + line[line.len() - 1].abs()
}

#[test]
fn superbee_walk_advects_at_unit_speed_and_leaves_at_the_end() {
    // rc 0.6 >= l/2: the d = 0 lines are inside the disc for every s.
    let c = config(8, 4, 32, 0.6, 1.0, 0.0, 0.0);
    let t = MotorTables::new(&c).unwrap();
    let zero = t.offsets.iter().position(|d| *d == [0, 0]).unwrap();
    let ns = c.ns;
    let size = t.block(&c);
    let mut bound = vec![0.0; c.anchors() * size];
    for r0 in 0..c.anchors() {
        for th in 0..c.ntheta {
            let a = r0 * size + (zero * c.ntheta + th) * ns;
            assert!(t.mask[a - r0 * size..a - r0 * size + ns]
                .iter()
                .all(|&m| m == 1.0));
            for k in 4..10 {
                bound[a + k] = 1.0;
            }
        }
    }
    let total = vec![1e9; c.anchors()];
    let psi = vec![1.0; c.anchors() * c.ntheta];
    let mut s = cpu(&c, &total, &psi, Some(&bound));
    let line = |b: &[f64]| b[(zero * c.ntheta) * ns..(zero * c.ntheta + 1) * ns].to_vec();
    let centroid = |l: &[f64]| {
        let m: f64 = l.iter().sum();
        l.iter().enumerate().map(|(k, v)| c.s(k) * v).sum::<f64>() / m
    };
    let m0 = s.coarse_now()[0];
    let x0 = centroid(&line(&s.bound));
    let dt = 0.05;
    let mut tv = total_variation(&line(&s.bound));
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    let mut e_mass = 0.0f64;
    for n in 1..=40 {
        s.step(dt).unwrap();
        let l = line(&s.bound);
        let tv_now = total_variation(&l);
        assert!(
            tv_now <= tv + 1e-12,
            "TV grew at step {n}: {tv} -> {tv_now}"
        );
        tv = tv_now;
        lo = lo.min(l.iter().cloned().fold(f64::INFINITY, f64::min));
        hi = hi.max(max_abs(&l));
        e_mass = e_mass.max((s.coarse_now()[0] + s.walked[0] - m0).abs() / m0);
        if n == 6 {
            let moved = centroid(&l) - x0;
            assert!(
                (moved - 0.3).abs() < c.ds(),
                "centroid moved {moved}, want 0.3"
            );
        }
    }
    let left = s.coarse_now()[0] / m0;
    let g = gpu(&c, &total, &psi, Some(&bound), dt, 40, 64);
    let mut check = cpu(&c, &total, &psi, None);
    check.bound = g.bound.clone();
    let e_mass_gpu = (check.coarse_now()[0] + g.state[0][3] - m0).abs() / m0;
    let lo_gpu = g.bound.iter().cloned().fold(f64::INFINITY, f64::min);
    eprintln!(
        "walk: min {lo:.2e}, max {hi:.6}, mass + walked - initial {e_mass:.2e} (GPU \
         {e_mass_gpu:.2e}, min {lo_gpu:.2e}), left on the filament after t = 2: {left:.2e}"
    );
    assert!(lo >= 0.0 && hi <= 1.0 + 1e-12);
    assert!(lo_gpu >= 0.0);
    assert!(e_mass < 1e-12, "{e_mass:e}");
    assert!(e_mass_gpu < 1e-5, "{e_mass_gpu:e}");
    assert!(left < 1e-6, "{left:e}");
}

#[test]
fn bound_above_total_is_rescaled() {
    let c = config(8, 4, 4, 1.0, 0.0, 0.0, 0.0);
    let t = MotorTables::new(&c).unwrap();
    let total = vec![1.0; c.anchors()];
    let psi = vec![1.0; c.anchors() * c.ntheta];
    let size = t.block(&c);
    let mut bound: Vec<f64> = (0..c.anchors() * size).map(|i| t.mask[i % size]).collect();
    let s0 = cpu(&c, &total, &psi, Some(&bound));
    let scale = 3.0 / s0.coarse_now()[0];
    bound.iter_mut().for_each(|b| *b *= scale);
    let mut s = cpu(&c, &total, &psi, Some(&bound));
    s.step(0.1).unwrap();
    let e = max_diff(&s.coarse_now(), &total);
    let ratio = s.bound[t.mask.iter().position(|&m| m == 1.0).unwrap()] / scale;
    let g = gpu(&c, &total, &psi, Some(&bound), 0.1, 1, 64);
    let mut check = cpu(&c, &total, &psi, None);
    check.bound = g.bound.clone();
    let e_gpu = max_diff(&check.coarse_now(), &total);
    eprintln!("rescale 3x: coarse - total CPU {e:.2e}, GPU {e_gpu:.2e}, factor {ratio:.6}");
    assert!(e < 1e-12 && e_gpu < 1e-5, "{e:e} {e_gpu:e}");
    assert!((ratio - 1.0 / 3.0).abs() < 1e-12);
    assert!(s.free.iter().all(|&f| f.abs() < 1e-12));
    assert!(g
        .state
        .iter()
        .all(|v| (v[1] - v[0]).abs() < 1e-6 && v[2].abs() < 1e-6));
}

fn random_case() -> (MotorConfig, Vec<f64>, Vec<f64>, Vec<f64>) {
    let c = config(8, 4, 8, 1.2, 1.0, 1.0, 0.3);
    let total = rounded(random(c.anchors(), 3, 0.5, 2.0));
    let psi = rounded(random(c.anchors() * c.ntheta, 4, 0.0, 1.0));
    let bound = random_bound(&c, 5, 0.05);
    (c, total, psi, bound)
}

#[test]
fn gpu_matches_cpu_on_a_random_case() {
    let (c, total, psi, bound) = random_case();
    let (dt, steps) = (0.1, 5);
    let mut s = cpu(&c, &total, &psi, Some(&bound));
    for _ in 0..steps {
        s.step(dt).unwrap();
    }
    let g = gpu(&c, &total, &psi, Some(&bound), dt, steps, 64);
    let eb = max_diff(&s.bound, &g.bound) / max_abs(&s.bound);
    let col = |i: usize| g.state.iter().map(|v| v[i]).collect::<Vec<_>>();
    let ec = max_diff(&s.coarse, &col(1)) / max_abs(&s.coarse);
    let ef = max_diff(&s.free, &col(2)) / max_abs(&s.free);
    let fc: Vec<f64> = s.force().iter().flatten().copied().collect();
    let fg: Vec<f64> = g.force.iter().flatten().copied().collect();
    let eforce = max_diff(&fc, &fg) / max_abs(&fc);
    eprintln!(
        "GPU vs CPU after {steps} steps: M_b {eb:.2e}, coarse {ec:.2e}, free {ef:.2e}, force \
         {eforce:.2e} (relative to the largest)"
    );
    for e in [eb, ec, ef, eforce] {
        assert!(e < 1e-4, "{e:e}");
    }
}

/// Bindings of `anchors` anchors' RK2 stage (and M_b) at most.
fn binding_of(c: &MotorConfig, anchors: u64) -> u64 {
    let t = MotorTables::new(c).unwrap();
    anchors * 4 * t.stage_block(c) as u64
}

#[test]
fn gpu_is_bitwise_deterministic() {
    let (c, total, psi, bound) = random_case();
    let mut runs: Vec<Gpu> = [1, 7, 32, 64, 64]
        .iter()
        .map(|&wg| gpu(&c, &total, &psi, Some(&bound), 0.1, 3, wg))
        .collect();
    // M_b split in 3 (27, 27 and 10 of the 64 anchors) and 2 (40, 24): the same bits.
    let limits = MotorChunks::new(&c, &MotorTables::new(&c).unwrap(), binding_of(&c, 27) + 3);
    let ranges = limits.unwrap().ranges;
    assert_eq!(ranges, [0..27, 27..54, 54..64]);
    for (anchors, wg) in [(27, 64), (40, 7)] {
        let b = Some(binding_of(&c, anchors));
        runs.push(gpu_split(&c, &total, &psi, Some(&bound), 0.1, 3, wg, b));
    }
    for r in &runs[1..] {
        let same_b = r
            .raw
            .0
            .iter()
            .zip(&runs[0].raw.0)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        let same_s = r
            .raw
            .1
            .iter()
            .flatten()
            .zip(runs[0].raw.1.iter().flatten())
            .all(|(a, b)| a.to_bits() == b.to_bits());
        let same_f = r
            .raw
            .2
            .iter()
            .flatten()
            .zip(runs[0].raw.2.iter().flatten())
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same_b && same_s && same_f, "{same_b} {same_s} {same_f}");
    }
}

/// Seed eq. 10 as a direct scatter: every (r0, d, theta, s) cell adds F p Psi M_b dV to the
/// cell nearest its head x + (l/L) s p.
fn scatter_force(c: &MotorConfig, t: &MotorTables, bound: &[f64], psi: &[f64]) -> Vec<[f64; 2]> {
    let size = t.block(c);
    let mut f = vec![[0.0; 2]; c.anchors()];
    let wrap = |a: i64, n: usize| (a.rem_euclid(n as i64)) as usize;
    for r0 in 0..c.anchors() {
        let (i0, j0) = ((r0 % c.nx) as i64, (r0 / c.nx) as i64);
        for (o, d) in t.offsets.iter().enumerate() {
            for th in 0..c.ntheta {
                let ps = psi[motors::psi_index(c, r0, *d, th)];
                for k in 0..c.ns {
                    let item = (o * c.ntheta + th) * c.ns + k;
                    if t.mask[item] == 0.0 {
                        continue;
                    }
                    let p = t.p[th];
                    let hx = d[0] as f64 * c.dx() + c.length / c.arc * c.s(k) * p[0];
                    let hy = d[1] as f64 * c.dy() + c.length / c.arc * c.s(k) * p[1];
                    let x = wrap(i0 + (hx / c.dx()).round() as i64, c.nx);
                    let y = wrap(j0 + (hy / c.dy()).round() as i64, c.ny);
                    let v = c.force * c.volume() * ps * bound[r0 * size + item];
                    f[y * c.nx + x][0] += p[0] * v;
                    f[y * c.nx + x][1] += p[1] * v;
                }
            }
        }
    }
    f
}

#[test]
fn motor_force_gather_matches_the_reference_and_vanishes_without_motors() {
    let (c, total, psi, bound) = random_case();
    let t = MotorTables::new(&c).unwrap();
    let g = gpu(&c, &total, &psi, Some(&bound), 0.1, 2, 64);
    let gather = motors_cpu::motor_force(&c, &t, &g.bound, &psi);
    let scatter = scatter_force(&c, &t, &g.bound, &psi);
    let fa: Vec<f64> = gather.iter().flatten().copied().collect();
    let fb: Vec<f64> = scatter.iter().flatten().copied().collect();
    let fg: Vec<f64> = g.force.iter().flatten().copied().collect();
    let e_table = max_diff(&fa, &fb) / max_abs(&fb);
    let e_gpu = max_diff(&fa, &fg) / max_abs(&fa);
    // Nothing bound and nothing binding: F = 0 exactly.
    let idle = MotorConfig {
        k_on: 0.0,
        ..c.clone()
    };
    let g0 = gpu(&idle, &total, &psi, None, 0.1, 2, 64);
    let s0 = cpu(&idle, &total, &psi, None);
    eprintln!(
        "force: gather vs scatter {e_table:.2e}, GPU vs CPU gather {e_gpu:.2e}, max |F| {:.3}",
        max_abs(&fa)
    );
    assert!(e_table < 1e-12, "{e_table:e}");
    assert!(e_gpu < 1e-5, "{e_gpu:e}");
    assert!(max_abs(&fa) > 0.0);
    assert!(g0.force.iter().flatten().all(|&v| v == 0.0));
    assert!(s0.force().iter().flatten().all(|&v| v == 0.0));
}

/// The gather on a non-square grid whose heads reach 2 cells, so that the cells near the
/// periodic edges walk anchors that wrap (rows and heads rotated to ascending anchors): every
/// cell against the CPU's gather.
#[test]
fn motor_force_gather_near_the_periodic_edges() {
    let c = MotorConfig {
        nx: 12,
        ny: 7,
        lx: 12.0,
        ly: 7.0,
        capture_radius: 1.7,
        ..random_case().0
    };
    c.check().unwrap();
    let t = MotorTables::new(&c).unwrap();
    let reach = |k: usize| t.heads.iter().map(|e| e[k].abs()).max().unwrap();
    assert_eq!((reach(0), reach(1)), (2, 2), "heads reach 2 cells");
    let total = rounded(random(c.anchors(), 6, 0.5, 2.0));
    let psi = rounded(random(c.anchors() * c.ntheta, 7, 0.0, 1.0));
    let bound = random_bound(&c, 8, 0.05);
    let g = gpu(&c, &total, &psi, Some(&bound), 0.1, 2, 64);
    let want: Vec<f64> = motors_cpu::motor_force(&c, &t, &g.bound, &psi)
        .into_iter()
        .flatten()
        .collect();
    let got: Vec<f64> = g.force.iter().flatten().copied().collect();
    let e = max_diff(&want, &got) / max_abs(&want);
    eprintln!("12 x 7, heads reaching 2: GPU vs CPU gather {e:.2e}");
    assert!(e < 1e-5, "{e:e}");
}

fn message<T>(r: petri_model::error::Result<T>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_input_is_refused() {
    let c = config(8, 4, 8, 1.0, 1.0, 1.0, 1.0);
    let with = |f: &dyn Fn(&mut MotorConfig)| {
        let mut d = c.clone();
        f(&mut d);
        message(d.check())
    };
    assert!(with(&|d| d.ns = 1).contains("grid.ns"));
    assert!(with(&|d| d.nx = 0).contains("grid.nx"));
    assert!(with(&|d| d.k_on = -1.0).contains("motors.k_on"));
    assert!(with(&|d| d.k_off = f64::NAN).contains("motors.k_off"));
    assert!(with(&|d| d.speed = -1.0).contains("motors.speed"));
    assert!(with(&|d| d.force = f64::INFINITY).contains("motors.force"));
    assert!(with(&|d| d.arc = 0.0).contains("motors.arc"));
    let m = with(&|d| d.capture_radius = 4.0);
    assert!(
        m.contains("motors.capture_radius") && m.contains("half a period"),
        "{m}"
    );
    let m = message(MotorTables::new(&MotorConfig {
        capture_radius: 1e-3,
        ..c.clone()
    }));
    assert!(m.contains("motors.capture_radius"), "{m}");

    let total = vec![1.0; c.anchors()];
    let psi = vec![1.0; c.anchors() * c.ntheta];
    assert!(message(MotorsCpu::new(&c, vec![1.0; 3], psi.clone())).contains("motors total"));
    let m = message(MotorsCpu::new(&c, total.clone(), vec![-1.0; psi.len()]));
    assert!(m.contains("config: psi") && m.contains(">= 0"), "{m}");
    let mut s = cpu(&c, &total, &psi, None);
    let m = message(s.step(f64::NAN));
    assert!(m.contains("config: dt = NaN"), "{m}");
    assert!(message(s.step(1e6)).contains("config: dt = 1000000"));
    let t = MotorTables::new(&c).unwrap();
    let mut b = vec![0.0; c.anchors() * t.block(&c)];
    b[t.mask.iter().position(|&m| m == 0.0).unwrap()] = 1.0;
    let m = message(s.set_bound(b.clone()));
    assert!(
        m.contains("config: bound") && m.contains("capture disc"),
        "{m}"
    );

    let ctx = test_context();
    let mut g = BoundMotors::new(&ctx, &c, 64, None).unwrap();
    assert!(message(g.set_total(&ctx, &[1.0; 3])).contains("motors total"));
    assert!(message(g.set_psi(&ctx, &[f32::NAN; 8 * 8 * 4])).contains("config: psi"));
    assert!(message(g.set_bound(&ctx, &f32s(&b))).contains("config: bound"));
    assert!(message(g.step(&ctx, -1.0, 1)).contains("config: dt = -1"));
    assert!(message(BoundMotors::new(&ctx, &c, 0, None)).contains("workgroup"));
    // A binding under one anchor's M_b and stage: no split can help.
    let m = message(BoundMotors::new(&ctx, &c, 64, Some(64)));
    assert!(
        m.contains("grid.ntheta x grid.ns x the motor stencil")
            && m.contains("largest storage binding, 64 bytes"),
        "{m}"
    );
}
