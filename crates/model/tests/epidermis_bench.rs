//! `petri bench epidermis` at tiny sizes on the test adapter: the rows have their fields and
//! positive times, and the pass split covers the step.

use petri_engine::testing::test_context;
use petri_model::epidermis::bench::{bench_seed_run, bench_size, BenchOptions};
use petri_model::epidermis::{EpidermisConfig, SimOptions};
use petri_scheduler::bench::Clock;

fn options(cpu_max_elements: u64) -> BenchOptions {
    BenchOptions {
        sizes: vec![320],
        steps: 4,
        height: Some(2.0),
        cpu_max_elements,
        cpu_steps: 1,
        sim: SimOptions::default(),
        warmup: Some(1),
        repeats: 2,
    }
}

#[test]
fn a_tiny_step_bench_has_its_figures() {
    let ctx = test_context();
    let base = EpidermisConfig::default();
    let r = bench_size(&ctx, &base, 320, &options(1000)).unwrap();
    let (timing, row) = (r.timing, r.row);
    assert_eq!(timing.clock, Clock::of(&ctx));
    assert_eq!((timing.warmup, timing.samples_ns.len()), (1, 2));
    assert!(timing.samples_ns.iter().all(|&ns| ns > 0.0), "{timing:?}");
    assert_eq!((row.elements, row.cells, row.steps), (320, 16, 4));
    assert!(row.step_ms > 0.0, "{row:?}");
    if ctx.has_timestamps() {
        // Every pass of the model falls in a part of the step.
        assert!(!row.split_ms.contains_key("other"), "{row:?}");
        for part in ["binning", "forces", "genes"] {
            assert!(
                row.split_ms.get(part).is_some_and(|&ms| ms > 0.0),
                "{part}: {row:?}"
            );
        }
        // The parts are the passes, and the passes are the step.
        let parts: f64 = row.split_ms.values().sum();
        let passes: f64 = row.pass_ms.values().sum();
        assert!((parts - passes).abs() <= 1e-9 * passes.max(1.0), "{row:?}");
        assert!(
            (passes - row.step_ms).abs() <= 1e-6 * row.step_ms,
            "{row:?}"
        );
        assert!(row.force_eval_ms.unwrap() > 0.0);
    }
    assert!(
        row.cpu_ms.unwrap() > 0.0 && row.gpu_over_cpu.unwrap() > 0.0,
        "{row:?}"
    );
    // The WGSL and CPU forces of the state after the steps agree (as GPU vs CPU elsewhere).
    let (gpu, cpu) = (row.gpu_checksum, row.cpu_checksum.unwrap());
    assert!(cpu.sum_abs_f > 0.0 && cpu.sum_abs_f.is_finite(), "{cpu:?}");
    assert!(
        (gpu.sum_abs_f / cpu.sum_abs_f - 1.0).abs() < 1e-5,
        "{gpu:?} {cpu:?}"
    );
    assert!(
        (gpu.sum_f[2] - cpu.sum_f[2]).abs() <= 1e-4 * cpu.sum_abs_f,
        "{gpu:?} {cpu:?}"
    );
    assert_eq!((r.state.step, r.state.elements()), (50 + 2 * 4, 320));
    if let Some(b) = row.bytes_per_element {
        // At least the positions, twice, and the compact copy: 48 bytes per element.
        assert!(b >= 48.0, "{row:?}");
    }
    // Above --cpu-max-elements neither the CPU reference nor the checksum runs.
    let row = bench_size(&ctx, &base, 320, &options(100)).unwrap().row;
    assert!(row.cpu_ms.is_none() && row.cpu_checksum.is_none() && row.gpu_over_cpu.is_none());
}

#[test]
fn a_tiny_seed_run_has_its_figures() {
    let ctx = test_context();
    let base = EpidermisConfig::default();
    let (timing, row) = bench_seed_run(&ctx, &base, 9, 3, &options(0)).unwrap();
    assert_eq!((timing.warmup, timing.samples_ns.len()), (1, 2));
    assert_eq!((row.cells, row.elements, row.steps), (9, 180, 3));
    assert!(row.gpu_s > 0.0 && row.wall_s > 0.0, "{row:?}");
    assert_eq!((row.cells_end, row.elements_end), (9, 180));
}

#[test]
fn a_size_of_no_whole_cells_is_refused_with_its_value() {
    let ctx = test_context();
    let err = match bench_size(&ctx, &EpidermisConfig::default(), 321, &options(0)) {
        Ok(_) => panic!("321 elements are no whole number of 20-element cells"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("321") && err.contains("elements_per_cell"),
        "{err}"
    );
}
