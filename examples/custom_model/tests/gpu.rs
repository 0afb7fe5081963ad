//! The GPU step against its CPU twin, the shader's uniform against the host struct, the
//! homogeneous state, and a pattern forming.

mod common;

use gray_scott::cpu::CpuGrayScott;
use gray_scott::init::initial_state;
use gray_scott::{gpu, GrayScottConfig, GrayScottSim, GrayScottState, Observables, Params};
use petri_engine::layout;

/// The host `Params` has the size and field offsets naga reflects for the shader's struct.
#[test]
fn the_uniform_matches_the_shader() {
    let host = petri_engine::host_layout!(Params: nx, ny, du_h2, dv_h2, feed, decay_v, dt);
    layout::check(gpu::ENTRY.shader(), "Params", &host).unwrap_or_else(|e| panic!("{e}"));
}

/// 200 steps on 64 x 64 from Pearson's initial condition: the GPU and the CPU twin agree value
/// for value (the same f32 operations in the same order; a GPU compiler free to fuse a*b + c into
/// one rounding could differ by an ulp per step, so the test allows 1e-6 absolute, far below
/// the fields' O(0.1) values, and reports how many values are not bitwise equal).
#[test]
fn gpu_and_cpu_twin_agree_after_200_steps() {
    let ctx = common::ctx();
    let cfg = common::small(64);
    let mut sim = GrayScottSim::new(&ctx, &cfg).unwrap();
    sim.run_steps(200);
    let gpu = sim.read_state().unwrap();
    let mut cpu = CpuGrayScott::new(Params::new(&cfg), initial_state(&cfg));
    cpu.advance(200);
    assert_eq!(gpu.step, 200);
    assert_eq!(cpu.state.step, 200);
    let mut worst = 0.0f32;
    let mut unequal = 0;
    for (field, g, c) in [("u", &gpu.u, &cpu.state.u), ("v", &gpu.v, &cpu.state.v)] {
        for (i, (a, b)) in g.iter().zip(c.iter()).enumerate() {
            let d = (a - b).abs();
            assert!(d <= 1e-6, "{field}[{i}]: GPU {a}, CPU {b}");
            worst = worst.max(d);
            unequal += (a.to_bits() != b.to_bits()) as usize;
        }
    }
    eprintln!("GPU vs CPU after 200 steps: {unequal} of 8192 values differ, by at most {worst:e}");
    // The state moved: the comparison is not of two untouched copies.
    assert_ne!(gpu.v, initial_state(&cfg).v);
}

/// u = 1, v = 0 is a fixed point of the scheme, exactly: the Laplacian of a constant is 0, and
/// every reaction term is a product with v or with 1 - u.
#[test]
fn the_homogeneous_state_stays_exactly_fixed() {
    let ctx = common::ctx();
    let cfg = GrayScottConfig {
        square: 0,
        noise: 0.0,
        ..common::small(48)
    };
    let start = initial_state(&cfg);
    assert!(start.u.iter().all(|&x| x == 1.0) && start.v.iter().all(|&x| x == 0.0));
    let mut sim = GrayScottSim::from_state(&ctx, &cfg, &start).unwrap();
    sim.run_steps(300);
    let gpu = sim.read_state().unwrap();
    let mut cpu = CpuGrayScott::new(Params::new(&cfg), start.clone());
    cpu.advance(300);
    for s in [&gpu, &cpu.state] {
        assert_eq!(
            GrayScottState {
                step: 0,
                ..s.clone()
            },
            start,
            "step {}",
            s.step
        );
    }
    // A state of another size than the grid is refused by name.
    let short = GrayScottState {
        u: vec![1.0; 10],
        ..start
    };
    let e = GrayScottSim::from_state(&ctx, &cfg, &short)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("state.u = 10 values"), "{e}");
}

/// A pattern forms: 3000 steps (t = 3000) on 64 x 64 at Pearson's spacing, F = 0.04, k = 0.06.
/// The square (400 of 4096 cells, 10%) neither decays nor stays put: v ends far from uniform
/// (std 0.10 on lavapipe; 0 for a uniform field) and over more than twice as many cells (73%).
#[test]
fn a_pattern_forms_from_the_square() {
    let ctx = common::ctx();
    let cfg = common::small(64);
    let start = Observables::of(&initial_state(&cfg), cfg.dt);
    let mut sim = GrayScottSim::new(&ctx, &cfg).unwrap();
    sim.run_steps(3000);
    let end = Observables::of(&sim.read_state().unwrap(), cfg.dt);
    eprintln!("start {start:?}\nend   {end:?}");
    assert!(end.std_v > 0.05, "v is nearly uniform: {end:?}");
    assert!(
        end.pattern_fraction > 2.0 * start.pattern_fraction,
        "the pattern did not spread: {start:?} -> {end:?}"
    );
}
