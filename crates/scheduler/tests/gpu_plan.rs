//! GPU tests of the engine and scheduler on whatever adapter is present (lavapipe in CI).

mod test_shaders;

use petri_engine::{buffers, rng, testing::test_context, BatchTimer, GpuContext};
use petri_scheduler::{cpu_reduce, Binding, PassDesc, ReadbackRing, ReduceOp, Reduction, StepPlan};

fn rng_words(ctx: &GpuContext, threefry: bool, n: u32, seed: u64, steps: u32, wg: u32) -> Vec<u32> {
    let mut plan = StepPlan::new(ctx, seed, 16);
    plan.add_buffer(
        "words",
        buffers::storage_zeroed(ctx, "words", n as u64 * 16).unwrap(),
    );
    plan.add_pass(
        ctx,
        PassDesc {
            label: "rng",
            entry: test_shaders::test::rng_fill::MAIN,
            bindings: vec![Binding::read_write("words")],
            workgroups: [n.div_ceil(wg), 1, 1],
            constants: vec![("WG", wg as f64), ("THREEFRY", threefry as u8 as f64)],
        },
    )
    .unwrap();
    plan.run(ctx, steps as u64);
    buffers::read_vec(ctx, plan.buffer("words")).unwrap()
}

/// The GPU generator's words after `steps` steps equal its CPU twin's, whatever the workgroup.
fn assert_matches_twin(threefry: bool, twin: fn(u64, u32, u32, u32) -> [u32; 4]) {
    let ctx = test_context();
    let (n, seed, steps) = (1000u32, 0x1234_5678_9abc_def0u64, 3u32);
    let gpu = rng_words(&ctx, threefry, n, seed, steps, 64);
    // The last step written is steps - 1.
    for i in 0..n {
        let cpu = twin(seed, steps - 1, i, 7);
        assert_eq!(&gpu[4 * i as usize..4 * i as usize + 4], &cpu, "index {i}");
    }
    assert_eq!(gpu, rng_words(&ctx, threefry, n, seed, steps, 256));
}

#[test]
fn gpu_philox_matches_cpu_twin_bitwise() {
    assert_matches_twin(false, rng::u32x4);
}

#[test]
fn gpu_threefry_matches_cpu_twin_bitwise() {
    assert_matches_twin(true, rng::threefry_u32x4);
}

fn pingpong_cpu(init: &[f32], steps: u32) -> Vec<f32> {
    let mut cur = init.to_vec();
    let n = cur.len();
    for s in 0..steps {
        let next: Vec<f32> = (0..n)
            .map(|i| 0.5 * (cur[i.max(1) - 1] + cur[(i + 1).min(n - 1)]) + s as f32)
            .collect();
        cur = next;
    }
    cur
}

fn pingpong_gpu(ctx: &GpuContext, init: &[f32], steps: u32, batch: u32, wg: u32) -> Vec<f32> {
    let mut plan = pingpong_plan(ctx, init, batch, wg);
    plan.run(ctx, steps as u64);
    buffers::read_vec(ctx, plan.current("u")).unwrap()
}

/// A plan of one pass that writes the mean of the two neighbours plus the step number.
fn pingpong_plan(ctx: &GpuContext, init: &[f32], batch: u32, wg: u32) -> StepPlan {
    let mut plan = StepPlan::new(ctx, 1, batch);
    let a = buffers::storage_from(ctx, "a", init).unwrap();
    let b = buffers::storage_zeroed(ctx, "b", (init.len() * 4) as u64).unwrap();
    plan.add_pair("u", [a, b]);
    plan.add_pass(
        ctx,
        PassDesc {
            label: "pingpong",
            entry: test_shaders::test::pingpong::MAIN,
            bindings: vec![Binding::current("u"), Binding::next("u")],
            workgroups: [(init.len() as u32).div_ceil(wg), 1, 1],
            constants: vec![("WG", wg as f64)],
        },
    )
    .unwrap();
    plan
}

#[test]
fn ping_pong_pairs_swap_every_step_across_batches() {
    let ctx = test_context();
    let init: Vec<f32> = (0..300).map(|i| ((i * 37) % 11) as f32).collect();
    let cpu = pingpong_cpu(&init, 21);
    // 21 steps in batches of 4 (uneven last batch), odd count: result lives in the second buffer.
    let gpu = pingpong_gpu(&ctx, &init, 21, 4, 64);
    assert_eq!(gpu, cpu);
    assert_eq!(pingpong_gpu(&ctx, &init, 21, 32, 128), cpu);
}

#[test]
fn on_demand_passes_run_at_the_current_step_and_parity_outside_the_steps() {
    // The pingpong pass, also kept aside on demand: recorded after a batch in the same
    // encoder, it reads the state after the batch and sees the step the plan is at (the
    // batch's first step sits in the step buffer too), and writes the other half without
    // counting a step.
    let ctx = test_context();
    let init: Vec<f32> = (0..100).map(|i| ((i * 13) % 7) as f32).collect();
    // The pingpong pass kept aside on demand (100 values: 2 workgroups of 64).
    let add_on_demand = |plan: &mut StepPlan| {
        let desc = PassDesc {
            label: "pingpong on demand",
            entry: test_shaders::test::pingpong::MAIN,
            bindings: vec![Binding::current("u"), Binding::next("u")],
            workgroups: [2, 1, 1],
            constants: vec![("WG", 64.0)],
        };
        plan.add_on_demand(&ctx, desc).unwrap()
    };
    let mut plan = pingpong_plan(&ctx, &init, 8, 64);
    let on_demand = add_on_demand(&mut plan);
    for (batch, parity) in [(3u32, 1usize), (4, 1), (1, 0)] {
        let before = plan.step;
        let mut encoder = plan.encode(&ctx, batch, None);
        plan.record_on_demand(&ctx, &mut encoder, on_demand);
        ctx.queue.submit([encoder.finish()]);
        let step = before + batch as u64;
        assert_eq!((plan.step, plan.parity()), (step, parity));
        let state: Vec<f32> = buffers::read_vec(&ctx, plan.current("u")).unwrap();
        assert_eq!(state, pingpong_cpu(&init, step as u32), "after step {step}");
        // The other half: one more step, numbered `step`.
        let other: Vec<f32> = buffers::read_vec(&ctx, &plan.pair("u")[1 - parity]).unwrap();
        assert_eq!(
            other,
            pingpong_cpu(&init, step as u32 + 1),
            "on demand at step {step}"
        );
    }
    // Alone in an encoder, before any batch of a new plan: step 0, the first half.
    let mut fresh = pingpong_plan(&ctx, &init, 8, 64);
    let pass = add_on_demand(&mut fresh);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    fresh.record_on_demand(&ctx, &mut encoder, pass);
    ctx.queue.submit([encoder.finish()]);
    let other: Vec<f32> = buffers::read_vec(&ctx, &fresh.pair("u")[1]).unwrap();
    assert_eq!(other, pingpong_cpu(&init, 1));
    assert_eq!(fresh.step, 0);
}

#[test]
fn batch_timer_times_each_batch_until_full_without_changing_results() {
    // Three batches of 4 steps with room for two: two timed, one counted as untimed.
    let ctx = test_context();
    let init: Vec<f32> = (0..300).map(|i| (i % 17) as f32).collect();
    let mut plan = pingpong_plan(&ctx, &init, 4, 64);
    plan.time_batches(BatchTimer::new(&ctx, 2));
    plan.run(&ctx, 12);
    assert_eq!(
        buffers::read_vec::<f32>(&ctx, plan.current("u")).unwrap(),
        pingpong_cpu(&init, 12)
    );
    let times = plan.batch_times(&ctx).unwrap();
    if !ctx.has_timestamps() {
        assert_eq!(times, None);
        return;
    }
    let t = times.expect("a timer with timestamp queries");
    assert_eq!((t.batches, t.untimed), (2, 1));
    assert!(t.busy_ns > 0.0, "{t:?}");
    assert!(t.span_ns >= t.busy_ns, "{t:?}");
    // The first batch alone: part of the two batches' busy time.
    assert!(t.first_ns > 0.0 && t.first_ns < t.busy_ns, "{t:?}");
    assert!(
        (t.idle_ns() - (t.span_ns - t.busy_ns)).abs() < 1e-6,
        "{t:?}"
    );
}

#[test]
fn reductions_match_cpu_twin_bitwise_and_f64_sum() {
    let ctx = test_context();
    // Sizes: below one block, several blocks, and a multi-level tree.
    for &n in &[1usize, 1000, 4096, 70_001, 300_000] {
        let data: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 * 0.001 - 0.3)
            .collect();
        let buf = buffers::storage_from(&ctx, "data", &data).unwrap();
        for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
            let gpu = Reduction::new(&ctx, op, &buf, n as u32)
                .unwrap()
                .compute(&ctx)
                .unwrap();
            assert_eq!(
                gpu.to_bits(),
                cpu_reduce(op, &data).to_bits(),
                "{op:?} n={n}"
            );
        }
        let exact: f64 = data.iter().map(|&x| x as f64).sum();
        let gpu = cpu_reduce(ReduceOp::Sum, &data) as f64;
        assert!((gpu - exact).abs() <= 1e-5 * data.iter().map(|x| x.abs() as f64).sum::<f64>());
        let min = data.iter().cloned().fold(f32::MAX, f32::min);
        assert_eq!(cpu_reduce(ReduceOp::Min, &data), min);
    }
}

#[test]
fn readback_ring_returns_every_batch_in_order() {
    let ctx = test_context();
    let init: Vec<f32> = vec![1.0; 64];
    let mut plan = StepPlan::new(&ctx, 1, 8);
    plan.add_pair(
        "u",
        [
            buffers::storage_from(&ctx, "a", &init).unwrap(),
            buffers::storage_zeroed(&ctx, "b", 256).unwrap(),
        ],
    );
    plan.add_pass(
        &ctx,
        PassDesc {
            label: "pingpong",
            entry: test_shaders::test::pingpong::MAIN,
            bindings: vec![Binding::current("u"), Binding::next("u")],
            workgroups: [1, 1, 1],
            constants: vec![],
        },
    )
    .unwrap();
    // Two slots for ten readouts: begin() must recycle slots without losing any.
    let mut ring = ReadbackRing::new(&ctx, 4, 2);
    let mut got = Vec::new();
    for batch in 0..10u64 {
        let mut enc = plan.encode(&ctx, 3, None);
        let slot = ring.begin(&ctx, plan.step).unwrap();
        enc.copy_buffer_to_buffer(plan.current("u"), 0, slot, 0, 4);
        ctx.queue.submit([enc.finish()]);
        ring.submitted();
        got.extend(ring.poll(&ctx).unwrap());
        assert!(batch < 10);
    }
    got.extend(ring.finish(&ctx).unwrap());
    let tags: Vec<u64> = got.iter().map(|r| r.tag).collect();
    assert_eq!(tags, (1..=10).map(|b| 3 * b).collect::<Vec<_>>());
    for r in &got {
        let v: f32 = bytemuck::pod_read_unaligned(&r.bytes[0..4]);
        assert_eq!(v, pingpong_cpu(&init, r.tag as u32)[0], "step {}", r.tag);
    }
}
