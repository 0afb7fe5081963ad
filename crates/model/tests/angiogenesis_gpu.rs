//! Angiogenesis on the GPU (lavapipe in CI) against its CPU reference and analytic properties.

use petri_engine::testing::test_context;
use petri_engine::GpuContext;
use petri_model::angiogenesis::params::{Capture, Coupling, InitialTips};
use petri_model::angiogenesis::sim::{check_fields_workgroup, occupied_bits};
use petri_model::angiogenesis::state::{Counter, FREE};
use petri_model::angiogenesis::walk::WalkTable;
use petri_model::angiogenesis::{
    cpu, run_observed, AngioConfig, AngioSim, AngioState, AngioUniforms, SimOptions,
};
use petri_model::ModelError;

mod common;
use common::config;

fn run_gpu(
    ctx: &GpuContext,
    cfg: &AngioConfig,
    k: f64,
    s: &AngioState,
    steps: u64,
    opt: &SimOptions,
) -> AngioState {
    let mut sim = AngioSim::from_state(ctx, cfg, k, s, opt).unwrap();
    sim.advance(ctx, steps);
    sim.read_state(ctx).unwrap()
}

fn assert_close(name: &str, gpu: &[f32], cpu: &[f32], rel: f32) {
    let scale = cpu.iter().fold(0f32, |m, v| m.max(v.abs()));
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let tol = rel * c.abs() + 1e-3 * rel * scale;
        assert!(
            (g - c).abs() <= tol,
            "{name}[{i}]: gpu {g} cpu {c} (tol {tol})"
        );
    }
}

/// The full model (fields, tips moving, branching, anastomosis, tip overflow) for 25 steps on a
/// 32^3 grid: fields within 1e-5 relative of the CPU reference, tips and vessels identical.
#[test]
fn gpu_step_matches_cpu_reference_on_32_cubed() {
    // Few slots: overflow early, all tips in one workgroup of the tip passes.
    compare_with_cpu(&[8, 16, 24], 48, 25, Coupling::Continuous, Capture::Site);
    // Many tips and slots: branch wishes ranked across many workgroups of 64, then overflow.
    let ys: Vec<u32> = (2..30).collect();
    compare_with_cpu(&ys, 700, 12, Coupling::Continuous, Capture::Site);
}

/// As `gpu_step_matches_cpu_reference_on_32_cubed`, with A&C's discrete coupling and tips that
/// meet trails on the face neighbours of their site too (the 3D default).
#[test]
fn discrete_coupling_matches_cpu_reference_on_32_cubed() {
    compare_with_cpu(&[8, 16, 24], 48, 25, Coupling::Discrete, Capture::Faces);
    let ys: Vec<u32> = (2..30).collect();
    compare_with_cpu(&ys, 700, 12, Coupling::Discrete, Capture::Faces);
}

/// A&C's discrete model: after 40 steps with branching tips on 24^3, n is 1 exactly at the
/// sites a sprout has occupied and 0 elsewhere, f and c are bitwise their initial values at every
/// unoccupied site, and changed (c down, f toward beta/gamma) at every occupied one. The same
/// start with the continuous coupling changes c at unoccupied sites too (the double counting
/// the discrete model avoids), so the check can fail.
#[test]
fn discrete_coupling_changes_f_and_c_only_on_occupied_sites() {
    let ctx = test_context();
    let run = |coupling| {
        let mut cfg = config(24);
        cfg.coupling = coupling;
        cfg.tips.branch_age = 0.05;
        cfg.tips.branch_density = 1.5;
        let u0 = AngioUniforms::new(&cfg, 0.0);
        let mut s = AngioState::initial(&cfg, &u0);
        for y in [6, 12, 18] {
            for z in [6, 12, 18] {
                s.add_tip(u0.index(16, y, z) as u32);
            }
        }
        if coupling == Coupling::Discrete {
            s.n = s.cell_density();
        }
        let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0)).unwrap();
        let out = run_gpu(&ctx, &cfg, k, &s, 40, &SimOptions::default());
        (s, out)
    };
    let (s0, out) = run(Coupling::Discrete);
    assert!(out.counter(Counter::Branches) > 0, "tips should branch");
    let mut occupied = 0;
    for i in 0..out.occ.len() {
        if out.occ[i] == FREE {
            assert_eq!(out.n[i], 0.0, "n at unoccupied site {i}");
            assert_eq!(
                out.f[i].to_bits(),
                s0.f[i].to_bits(),
                "f at unoccupied site {i}"
            );
            assert_eq!(
                out.c[i].to_bits(),
                s0.c[i].to_bits(),
                "c at unoccupied site {i}"
            );
        } else {
            occupied += 1;
            assert_eq!(out.n[i], 1.0, "n at occupied site {i}");
            assert!(
                out.c[i] < s0.c[i],
                "c at occupied site {i}: {} -> {}",
                s0.c[i],
                out.c[i]
            );
            let target = (0.05f32 / 0.1 - s0.f[i]).signum();
            assert!(
                (out.f[i] - s0.f[i]) * target > 0.0,
                "f at occupied site {i}: {} -> {}",
                s0.f[i],
                out.f[i]
            );
        }
    }
    assert!(occupied > 100, "{occupied} occupied sites");
    let (s0, cont) = run(Coupling::Continuous);
    let changed_free = (0..cont.occ.len())
        .filter(|&i| cont.occ[i] == FREE && cont.c[i] != s0.c[i])
        .count();
    assert!(
        changed_free > 500,
        "continuous: c changed at {changed_free} unoccupied sites"
    );
}

fn compare_with_cpu(
    tip_ys: &[u32],
    max_tips: u32,
    steps: u64,
    coupling: Coupling,
    capture: Capture,
) {
    let mut cfg = config(32);
    cfg.coupling = coupling;
    cfg.tips.capture = Some(capture);
    cfg.tips.branch_age = 0.0;
    // Low enough that tips branch within the test once their trail is beside them (c N > n_b
    // needs 2 occupied sites where c > 0.75), high enough to hold back fresh tips (N = 1).
    cfg.tips.branch_density = 1.5;
    cfg.tips.max_tips = max_tips;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::initial(&cfg, &u0);
    // Extra tips where c is high, so branching happens within the test.
    for &y in tip_ys {
        for z in [10, 16, 22] {
            s.add_tip(u0.index(20, y, z) as u32);
        }
    }
    if coupling == Coupling::Discrete {
        s.n = s.cell_density();
    }
    let gpu = gpu_against_cpu(&cfg, &s, steps, &SimOptions::default());
    assert!(
        gpu.counter(Counter::TipOverflow) > 0,
        "test should exercise tip overflow"
    );
    assert!(
        gpu.counter(Counter::Anastomoses) > 0,
        "test should exercise anastomosis"
    );
}

/// Runs `steps` steps from `s` on the GPU and on the CPU reference: fields within 1e-5
/// relative; tips, occupancy, vessels and counters identical; the field update's occupancy bits
/// equal to those of the CPU's occupancy. Returns the GPU state.
fn gpu_against_cpu(cfg: &AngioConfig, s: &AngioState, steps: u64, opt: &SimOptions) -> AngioState {
    let u0 = AngioUniforms::new(cfg, 0.0);
    let k = cfg.time_step(s.max_taxis_speed_sq(cfg, &u0)).unwrap();
    let gpu = gpu_against_cpu_at(cfg, s, k, steps, opt);
    assert!(
        gpu.counter(Counter::Branches) > 0,
        "test should exercise branching"
    );
    gpu
}

/// As `gpu_against_cpu`, at time step k.
fn gpu_against_cpu_at(
    cfg: &AngioConfig,
    s: &AngioState,
    k: f64,
    steps: u64,
    opt: &SimOptions,
) -> AngioState {
    let ctx = test_context();
    let u = AngioUniforms::new(cfg, k);
    let mut sim = AngioSim::from_state(&ctx, cfg, k, s, opt).unwrap();
    sim.advance(&ctx, steps);
    let gpu = sim.read_state(&ctx).unwrap();
    let gpu_bits = sim.read_occupied_bits(&ctx).unwrap();
    let mut cpu_state = s.clone();
    let walk = WalkTable::new(u.walk_events).unwrap();
    for _ in 0..steps {
        cpu::step(&u, &walk, cfg.seed, true, &mut cpu_state);
    }
    assert_close("n", &gpu.n, &cpu_state.n, 1e-5);
    assert_close("f", &gpu.f, &cpu_state.f, 1e-5);
    assert_close("c", &gpu.c, &cpu_state.c, 1e-5);
    assert_eq!(gpu.tips, cpu_state.tips);
    assert_eq!(gpu.occ, cpu_state.occ);
    assert_eq!(gpu_bits, occupied_bits(&cpu_state.occ));
    let mut cpu_segments = cpu_state.segments.clone();
    cpu_segments.sort_by_key(|s| (s[3], s[2], s[0], s[1]));
    assert_eq!(gpu.segments, cpu_segments);
    assert_eq!(gpu.counters, cpu_state.counters);
    assert_eq!(
        gpu.counter(Counter::Occupied),
        gpu.occupied_sites(),
        "the occupied-site counter counts the occupied sites"
    );
    // The bits were built from the initial occupancy and the tips have marked more sites since.
    let visited = |occ: &[u32]| occ.iter().filter(|&&o| o != FREE).count();
    assert!(
        visited(&gpu.occ) > visited(&s.occ),
        "tips should occupy new sites"
    );
    gpu
}

/// Rough fields (c, f, n uniform random per site) at the diffusion bound's step, where a tip
/// makes many moves per step: the GPU walks the same paths and marks the same sites as the CPU
/// reference (the spawn pass walks each path again to mark it).
#[test]
fn many_moves_per_step_match_cpu_reference() {
    let mut cfg = config(16);
    cfg.tips.branch_age = 0.0;
    cfg.tips.max_tips = 512;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::rough(&u0, 7);
    for i in 0..64u32 {
        s.add_tip(petri_engine::rng::u32x4(7, 1, i, 0)[0] % u0.ncells);
    }
    let h = cfg.h();
    let k = 0.9 * h * h / (6.0 * cfg.d);
    let gpu = gpu_against_cpu_at(&cfg, &s, k, 4, &SimOptions::default());
    let mut per_step = std::collections::HashMap::new();
    for seg in &gpu.segments {
        *per_step.entry((seg[3], seg[2])).or_insert(0u32) += 1;
    }
    let most = per_step.values().copied().max().unwrap_or(0);
    assert!(
        most >= 5,
        "test should exercise many moves per step (most {most})"
    );
}

/// A grid whose cell count is not a multiple of 32 (13 x 11 x 37 = 5291 sites: the last
/// occupancy word is partly used), cut by the walls inside the tiles and into z chunks of
/// several lengths: the GPU matches the CPU reference (as above) for three workgroup sizes, one
/// site per slice among them (3x3: one inner thread), and gives the same state bit for bit with
/// each.
#[test]
fn odd_grid_matches_cpu_reference_for_any_workgroup() {
    let mut cfg = config(8);
    cfg.grid = [13, 11, 37];
    cfg.tips.branch_age = 0.0;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    assert_ne!(u0.ncells % 32, 0);
    let mut s = AngioState::initial(&cfg, &u0);
    for (y, z) in [(2, 3), (5, 17), (9, 30), (10, 36)] {
        s.add_tip(u0.index(8, y, z) as u32);
    }
    // A cluster where c is high: branching even under a local density condition.
    for y in 4..7 {
        s.add_tip(u0.index(9, y, 24) as u32);
    }
    let states: Vec<AngioState> = [[32, 8, 1], [4, 3, 2], [3, 3, 1]]
        .into_iter()
        .map(|workgroup| {
            let opt = SimOptions {
                workgroup,
                max_steps_per_batch: 256,
            };
            gpu_against_cpu(&cfg, &s, 20, &opt)
        })
        .collect();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for other in &states[1..] {
        assert_eq!(bits(&other.n), bits(&states[0].n));
        assert_eq!(bits(&other.f), bits(&states[0].f));
        assert_eq!(bits(&other.c), bits(&states[0].c));
        assert_eq!(other.tips, states[0].tips);
    }
}

/// Walkers with chi = rho = 0: each axis step has probability kD/h^2, so MSD = 6 D t.
#[test]
fn pure_random_walk_has_msd_6dt() {
    let ctx = test_context();
    let mut cfg = config(41);
    let (u0, s, centre) = common::walkers(&mut cfg);
    (cfg.chi0, cfg.rho) = (0.0, 0.0);
    let k = cfg.time_step(0.0).unwrap();
    let steps = 40;
    let out = run_gpu(&ctx, &cfg, k, &s, steps, &SimOptions::default());
    let h = cfg.h();
    let c = centre as f64;
    let d2: Vec<f64> = out
        .tips
        .iter()
        .map(|t| {
            let [x, y, z] = u0.coords(t.site).map(|v| v as f64 - c);
            (x * x + y * y + z * z) * h * h
        })
        .collect();
    let (mean, se) = common::mean_and_se(&d2);
    let expected = 6.0 * cfg.d * k * steps as f64;
    // 4 standard errors: fails by chance with probability < 1e-4 (fixed seed: deterministic).
    assert!(
        (mean - expected).abs() < 4.0 * se,
        "MSD {mean:e}, 6Dt {expected:e}, se {se:e}"
    );
}

/// In c = g x with alpha = rho = 0, the mean velocity of a tip is chi0 g.
#[test]
fn drift_in_uniform_gradient_is_chi0_dcdx() {
    let ctx = test_context();
    let mut cfg = config(41);
    let (u0, mut s, centre) = common::walkers(&mut cfg);
    (cfg.alpha, cfg.rho) = (0.0, 0.0);
    let h = cfg.h();
    // g such that the taxis part of each move probability is half the diffusive part (no clipping).
    let g = 0.5 * 4.0 * cfg.d / (cfg.chi0 * 2.0 * h);
    for i in 0..u0.ncells {
        s.c[i as usize] = (g * u0.coords(i)[0] as f64 * h) as f32;
    }
    let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0)).unwrap();
    let steps = 40;
    let out = run_gpu(&ctx, &cfg, k, &s, steps, &SimOptions::default());
    let dx: Vec<f64> = out
        .tips
        .iter()
        .map(|t| (u0.coords(t.site)[0] as f64 - centre as f64) * h)
        .collect();
    let (mean, se) = common::mean_and_se(&dx);
    let expected = cfg.chi0 * g * k * steps as f64;
    assert!(expected > 8.0 * se, "drift must be resolvable");
    assert!(
        (mean - expected).abs() < 4.0 * se,
        "drift {mean:e}, expected {expected:e}"
    );
}

/// Where a sprout has been, c decays as c0 (1 - k eta)^q and f relaxes to beta/gamma.
#[test]
fn occupied_site_kinetics() {
    let ctx = test_context();
    let mut cfg = config(16);
    cfg.tips.branching = false;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let (c0, f0) = (0.8f64, 0.1f64);
    let mut s = AngioState::uniform(&u0, 0.0, f0 as f32, c0 as f32);
    let site = u0.index(8, 8, 8);
    s.add_tip(site as u32);
    let k = cfg.time_step(0.0).unwrap();
    let q = 60;
    let out = run_gpu(&ctx, &cfg, k, &s, q, &SimOptions::default());
    let c_exact = c0 * (1.0 - k * cfg.eta).powi(q as i32);
    let fs = cfg.beta / cfg.gamma;
    let f_exact = fs + (f0 - fs) * (1.0 - k * cfg.gamma).powi(q as i32);
    assert!(
        ((out.c[site] as f64 - c_exact) / c_exact).abs() < 1e-5,
        "c {} vs {c_exact}",
        out.c[site]
    );
    assert!(
        ((out.f[site] as f64 - f_exact) / f_exact).abs() < 1e-5,
        "f {} vs {f_exact}",
        out.f[site]
    );
    // Unvisited sites keep their values exactly.
    let far = out.occ.iter().position(|&o| o == FREE).unwrap();
    assert_eq!(out.c[far], c0 as f32);
}

/// The walk's rate bound concerns tips only: with tips off, f may grow without bound (beta > 0,
/// gamma = 0) and the continuous model still builds and runs.
#[test]
fn without_tips_the_walk_bound_does_not_apply() {
    let ctx = test_context();
    let mut cfg = config(12);
    cfg.gamma = 0.0;
    cfg.tips.enabled = false;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let s = AngioState::initial(&cfg, &u0);
    let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0)).unwrap();
    assert!(!cfg.walk_events(k).is_finite());
    let after = run_gpu(&ctx, &cfg, k, &s, 3, &SimOptions::default());
    assert_eq!(after.step, 3);
}

/// Pure diffusion with no-flux walls conserves the total of n (to f32 rounding), and the GPU
/// reduction observable agrees with the CPU sum.
#[test]
fn no_flux_diffusion_conserves_n() {
    let ctx = test_context();
    let mut cfg = config(24);
    cfg.grid = [24, 20, 16];
    (cfg.chi0, cfg.rho) = (0.0, 0.0);
    cfg.tips.enabled = false;
    cfg.observe_every = 50;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::uniform(&u0, 0.0, 0.3, 0.5);
    for i in 0..u0.ncells as usize {
        s.n[i] = ((i * 2_654_435_761) % 1000) as f32 / 1000.0;
    }
    let total0: f64 = s.n.iter().map(|&v| v as f64).sum();
    let k = cfg.time_step(0.0).unwrap();
    let mut sim = AngioSim::from_state(&ctx, &cfg, k, &s, &SimOptions::default()).unwrap();
    let mut seen = Vec::new();
    run_observed(&ctx, &mut sim, 200, |o| {
        seen.push(o.clone());
        Ok(())
    })
    .unwrap();
    assert_eq!(
        seen.iter().map(|o| o.step).collect::<Vec<_>>(),
        vec![50, 100, 150, 200]
    );
    let out = sim.read_state(&ctx).unwrap();
    let total: f64 = out.n.iter().map(|&v| v as f64).sum();
    assert!(
        ((total - total0) / total0).abs() < 1e-5,
        "sum n {total0} -> {total}"
    );
    let last = seen.last().unwrap();
    assert!(((last.total_n as f64 - total) / total).abs() < 1e-5);
    // Diffusion did smooth the field.
    let var = |v: &[f32]| {
        let m = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>()
    };
    assert!(var(&out.n) < 0.5 * var(&s.n));
}

/// Same seed, same adapter: bitwise identical state whatever the workgroup size and batch size.
#[test]
fn determinism_across_workgroup_sizes_and_batches() {
    let ctx = test_context();
    let mut cfg = config(24);
    cfg.tips.initial = InitialTips::Clusters;
    cfg.tips.branch_age = 0.01;
    cfg.tips.branch_density = 1.5;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::initial(&cfg, &u0);
    s.add_tip(u0.index(16, 12, 12) as u32);
    let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0)).unwrap();
    let a = run_gpu(
        &ctx,
        &cfg,
        k,
        &s,
        30,
        &SimOptions {
            workgroup: [64, 4, 1],
            max_steps_per_batch: 256,
        },
    );
    let b = run_gpu(
        &ctx,
        &cfg,
        k,
        &s,
        30,
        &SimOptions {
            workgroup: [8, 8, 4],
            max_steps_per_batch: 7,
        },
    );
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.n), bits(&b.n));
    assert_eq!(bits(&a.c), bits(&b.c));
    assert_eq!(bits(&a.f), bits(&b.f));
    assert_eq!(a.tips, b.tips);
    assert_eq!(a.segments, b.segments);
    assert_eq!(a.occ, b.occ);
    // A different seed gives different tips.
    cfg.seed += 1;
    let c = run_gpu(&ctx, &cfg, k, &s, 30, &SimOptions::default());
    assert_ne!(a.tips, c.tips);
}

/// A NaN stops the run with the step at which it was seen.
#[test]
fn non_finite_stops_with_step_number() {
    let ctx = test_context();
    let mut cfg = config(16);
    cfg.tips.enabled = false;
    cfg.observe_every = 10;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::uniform(&u0, 0.0, 0.0, 0.5);
    s.n[100] = f32::NAN;
    let k = cfg.time_step(0.0).unwrap();
    let mut sim = AngioSim::from_state(&ctx, &cfg, k, &s, &SimOptions::default()).unwrap();
    let err = run_observed(&ctx, &mut sim, 100, |_| Ok(())).unwrap_err();
    match &err {
        ModelError::NonFinite { what, after, at } => {
            assert_eq!((what.as_str(), *after, *at), ("n", 0, 10))
        }
        e => panic!("unexpected error {e}"),
    }
    assert!(err.to_string().contains("step 10"), "{err}");
}

/// A grid larger than the adapter's buffers fails with a message naming the limit, before any
/// memory is allocated.
#[test]
fn oversized_grid_names_the_limit() {
    let ctx = test_context();
    let mut cfg = config(16);
    let limit = ctx.limits().max_storage_buffer_binding_size as u64;
    let side = ((limit / 4) as f64).cbrt().ceil() as u32 + 1;
    cfg.grid = [side.min(2048), side.min(2048), 2048];
    let err = match AngioSim::new(&ctx, &cfg, &SimOptions::default()) {
        Ok(_) => panic!("grid {:?} should exceed the adapter's limit", cfg.grid),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("max_storage_buffer_binding_size"), "{err}");
}

/// A workgroup with no site inside its ring of threads, or whose field update needs more
/// workgroup memory than the adapter has, is refused before any pipeline is made, naming the
/// flag, the value and what is allowed (or the limit).
#[test]
fn field_workgroup_without_inner_sites_or_beyond_workgroup_memory_is_refused() {
    let ctx = test_context();
    let cfg = config(8);
    for workgroup in [[2, 8, 1], [32, 2, 1]] {
        let opt = SimOptions {
            workgroup,
            ..SimOptions::default()
        };
        let err = match AngioSim::new(&ctx, &cfg, &opt) {
            Ok(_) => panic!("workgroup {workgroup:?} has no site inside its ring"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("--workgroup")
                && err.contains(&format!("{workgroup:?}"))
                && err.contains("at least 3"),
            "{err}"
        );
    }
    // The adapters the tests run on hold every workgroup they allow (32 bytes a thread), so the
    // limit is given here.
    let mut limits = ctx.limits();
    limits.max_compute_workgroup_storage_size = 4096;
    assert!(check_fields_workgroup("test", &limits, [16, 8, 1]).is_ok());
    let err = check_fields_workgroup("test", &limits, [16, 16, 1])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("max_compute_workgroup_storage_size")
            && err.contains("--workgroup")
            && err.contains("8192"),
        "{err}"
    );
}

/// With taxis, tip feedback and the paper's initial fields, the density update keeps sum(n)
/// (it is the forward equation of the tips' walk) and n >= 0, where the seed's gather form
/// diverges next to the sprouts' trails.
#[test]
fn taxis_with_tips_conserves_n_and_keeps_it_non_negative() {
    let ctx = test_context();
    let mut cfg = config(24);
    cfg.tips.branch_age = 0.05;
    cfg.tips.max_tips = 1024;
    cfg.observe_every = 100;
    let mut sim = AngioSim::new(&ctx, &cfg, &SimOptions::default()).unwrap();
    let s0 = sim.read_state(&ctx).unwrap();
    let total0: f64 = s0.n.iter().map(|&v| v as f64).sum();
    run_observed(&ctx, &mut sim, 400, |_| Ok(())).unwrap();
    let s = sim.read_state(&ctx).unwrap();
    assert!(
        s.counter(Counter::Segments) > 50,
        "tips should have laid trails"
    );
    let total: f64 = s.n.iter().map(|&v| v as f64).sum();
    // Exact in real arithmetic; f32 rounding (a few ulp per site and step) is allowed as 1e-7
    // relative per step. A leak through a wall or a wrong weight is O(1e-3) per step.
    assert!(
        ((total - total0) / total0).abs() < 1e-7 * 400.0,
        "sum n {total0} -> {total}"
    );
    assert!(s.n.iter().all(|&v| v >= 0.0 && v.is_finite()));
}

/// The 2D model (nz = 1) takes the CPU reference's steps (`gpu_against_cpu`), over as many steps
/// as the 3D comparison: f32 rounding (fused multiply-adds on some GPUs) grows with the steps.
#[test]
fn two_d_grid_matches_cpu_reference() {
    for coupling in [Coupling::Continuous, Coupling::Discrete] {
        two_d_against_cpu(coupling);
    }
}

fn two_d_against_cpu(coupling: Coupling) {
    let mut cfg = AngioConfig {
        grid: [48, 40, 1],
        coupling,
        ..AngioConfig::default()
    };
    cfg.tips.branch_age = 0.05;
    cfg.tips.branch_density = 1.5;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::initial(&cfg, &u0);
    for y in [8, 20, 32] {
        s.add_tip(u0.index(30, y, 0) as u32);
    }
    if coupling == Coupling::Discrete {
        s.n = s.cell_density();
    }
    gpu_against_cpu(&cfg, &s, 25, &SimOptions::default());
}
