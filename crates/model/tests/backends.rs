//! Portability on real backends: the same model on Vulkan (lavapipe in CI) and OpenGL (llvmpipe
//! through EGL) agrees, and where a device lacks a feature the engine falls back or refuses with
//! a message that names what is missing.

mod common;

use common::config;
use petri_engine::{DeviceRequest, GpuContext};
use petri_model::angiogenesis::bench::{bench_size, BenchOptions};
use petri_model::angiogenesis::{AngioSim, AngioState, AngioUniforms, SimOptions};
use petri_scheduler::bench::Clock;

fn context(backend: &str, tweak: impl FnOnce(&mut DeviceRequest)) -> GpuContext {
    let mut request = DeviceRequest {
        backend: Some(backend.to_string()),
        adapter: std::env::var("PETRI_ADAPTER").ok(),
        ..DeviceRequest::default()
    };
    tweak(&mut request);
    GpuContext::new(&request).unwrap_or_else(|e| {
        panic!(
            "the {backend} backend is needed by this test: {e}. On Debian without a GPU, \
             scripts/ensure-gpu-driver.sh installs Mesa's Vulkan (lavapipe) and EGL/GL (llvmpipe) drivers."
        )
    })
}

fn run(ctx: &GpuContext, steps: u64) -> AngioState {
    let mut cfg = config(24);
    cfg.tips.branch_age = 0.0;
    cfg.tips.max_tips = 200;
    let u0 = AngioUniforms::new(&cfg, 0.0);
    let mut s = AngioState::initial(&cfg, &u0);
    for y in [6, 12, 18] {
        s.add_tip(u0.index(16, y, 12) as u32);
    }
    let k = cfg.time_step(s.max_taxis_speed_sq(&cfg, &u0)).unwrap();
    let mut sim = AngioSim::from_state(ctx, &cfg, k, &s, &SimOptions::default()).unwrap();
    sim.advance(ctx, steps);
    sim.read_state(ctx).unwrap()
}

/// Vulkan and GL run different shader compilers, so fields agree to a tolerance (1e-5 relative,
/// as GPU vs CPU), not bitwise; the tips, whose moves follow the same random numbers, agree exactly.
#[test]
fn vulkan_and_gl_agree() {
    let vk = context("vulkan", |_| {});
    let gl = context("gl", |_| {});
    assert_eq!(vk.adapter.backend, "Vulkan");
    assert_eq!(gl.adapter.backend, "Gl");
    let (a, b) = (run(&vk, 20), run(&gl, 20));
    for (name, x, y) in [("n", &a.n, &b.n), ("f", &a.f, &b.f), ("c", &a.c, &b.c)] {
        let scale = x.iter().fold(0f32, |m, v| m.max(v.abs()));
        for (i, (p, q)) in x.iter().zip(y.iter()).enumerate() {
            let tol = 1e-5 * p.abs() + 1e-8 * scale;
            assert!((p - q).abs() <= tol, "{name}[{i}]: vulkan {p}, gl {q}");
        }
    }
    assert!(a.tips.len() > 3, "branching should have happened");
    assert_eq!(a.tips, b.tips);
    assert_eq!(a.segments, b.segments);
    assert_eq!(a.counters, b.counters);
}

fn tiny_bench(ctx: &GpuContext) -> petri_model::angiogenesis::bench::BenchRow {
    let opts = BenchOptions {
        sizes: vec![[16, 16, 16]],
        steps: 5,
        cpu_max_cells: 0,
        cpu_steps: 0,
        sim: SimOptions::default(),
        tips: true,
        warmup: Some(1),
        repeats: 1,
    };
    let (timing, row) = bench_size(ctx, &config(16), [16, 16, 16], &opts).unwrap();
    // The harness's clock is the row's: GPU timestamps where the device has them.
    let clock = match ctx.has_timestamps() {
        true => Clock::Gpu,
        false => Clock::Wall,
    };
    assert_eq!((timing.clock, timing.warmup), (clock, 1));
    row
}

/// Without timestamp queries the benchmark times with the wall clock and says so; with them it
/// reports GPU time per pass. Both backends here have timestamps, so the test also runs one
/// device opened without them.
#[test]
fn missing_timestamps_fall_back_to_wall_clock() {
    for backend in ["vulkan", "gl"] {
        let with = context(backend, |_| {});
        assert!(
            with.has_timestamps(),
            "{backend}: the software adapters here have timestamps"
        );
        let row = tiny_bench(&with);
        assert!(row.timestamps && row.pass_ms.contains_key("fields") && row.fields_ms > 0.0);

        let without = context(backend, |r| r.timestamps = false);
        assert!(!without.has_timestamps());
        let row = tiny_bench(&without);
        assert!(
            !row.timestamps && row.pass_ms.is_empty() && row.fields_ms > 0.0,
            "{backend}: {row:?}"
        );
    }
}

/// On a downlevel device (WebGPU's downlevel limits: 4 storage buffers per stage, as a GLES 3.1
/// class GPU) the angiogenesis model, whose passes bind 7 storage buffers, is refused with a
/// message naming the pass and the limit, before anything runs.
#[test]
fn downlevel_device_is_refused_with_the_limit_named() {
    for backend in ["vulkan", "gl"] {
        let ctx = context(backend, |r| r.downlevel = true);
        assert_eq!(ctx.limits().max_storage_buffers_per_shader_stage, 4);
        let err = match AngioSim::new(&ctx, &config(16), &SimOptions::default()) {
            Ok(_) => panic!("{backend}: the model should not fit a downlevel device"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("max_storage_buffers_per_shader_stage") && err.contains("pass tips_move"),
            "{backend}: {err}"
        );
    }
}
