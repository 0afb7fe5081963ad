//! The GPU FFT against rustfft in f64 (an independent implementation) and its CPU twin, on
//! lavapipe in CI (and GL). Inputs are fixed-seed uniform values in [-1, 1)^2. Tolerance: the
//! relative L2 error ||got - want|| / ||want|| below 1e-5 (f32 with exact twiddles: about
//! 1e-7 * log2 N; a wrong twiddle or index shows as order 1).

use petri_engine::{buffers, testing::test_context, GpuContext};
use petri_scheduler::primitives::bench::{bench_fft, fft_flops, random_words};
use petri_scheduler::primitives::{cpu_fft, Fft, FftAxes, FftDirection, FftShape};
use rustfft::{num_complex::Complex64, FftPlanner};

const TOL: f64 = 1e-5;

use FftAxes::{X, XY};
use FftDirection::{Forward, Inverse};

fn shape(batch: u32, ny: u32, nx: u32) -> FftShape {
    FftShape { batch, ny, nx }
}

fn random_points(n: usize, seed: u64) -> Vec<[f32; 2]> {
    let unit = |w: u32| (w >> 8) as f32 / (1 << 23) as f32 - 1.0;
    random_words(2 * n, seed)
        .chunks(2)
        .map(|w| [unit(w[0]), unit(w[1])])
        .collect()
}

/// `data` transformed on the GPU; `points` per workgroup, or the device's most.
fn gpu(
    ctx: &GpuContext,
    data: &[[f32; 2]],
    s: FftShape,
    axes: FftAxes,
    dir: FftDirection,
    points: Option<u32>,
) -> Vec<[f32; 2]> {
    let buf = buffers::storage_from(ctx, "fft data", data).unwrap();
    let points = points.unwrap_or_else(|| Fft::device_points(ctx));
    let fft = Fft::with_workgroup_points(ctx, &buf, s, axes, dir, points).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    fft.record(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    buffers::read_vec::<[f32; 2]>(ctx, &buf).unwrap()
}

/// rustfft in f64: rows, then (2D) columns of every grid.
fn reference(data: &[[f32; 2]], s: FftShape, axes: FftAxes, dir: FftDirection) -> Vec<Complex64> {
    let mut planner = FftPlanner::<f64>::new();
    let plan = |n: usize, p: &mut FftPlanner<f64>| match dir {
        Forward => p.plan_fft_forward(n),
        Inverse => p.plan_fft_inverse(n),
    };
    let (nx, ny) = (s.nx as usize, s.ny as usize);
    let mut v: Vec<Complex64> = data
        .iter()
        .map(|c| Complex64::new(c[0] as f64, c[1] as f64))
        .collect();
    plan(nx, &mut planner).process(&mut v);
    if axes == XY {
        let cols = plan(ny, &mut planner);
        let mut col = vec![Complex64::default(); ny];
        for grid in v.chunks_mut(nx * ny) {
            for x in 0..nx {
                for y in 0..ny {
                    col[y] = grid[y * nx + x];
                }
                cols.process(&mut col);
                for y in 0..ny {
                    grid[y * nx + x] = col[y];
                }
            }
        }
    }
    v
}

fn rel_l2(got: &[[f32; 2]], want: &[Complex64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let (mut err, mut norm) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        err += (g[0] as f64 - w.re).powi(2) + (g[1] as f64 - w.im).powi(2);
        norm += w.norm_sqr();
    }
    (err / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// Forward and inverse of every shape against rustfft; the largest error.
fn check(ctx: &GpuContext, shapes: &[FftShape], axes: FftAxes, points: Option<u32>) -> f64 {
    let mut worst: f64 = 0.0;
    for (k, &s) in shapes.iter().enumerate() {
        let data = random_points(s.points() as usize, k as u64 + 1);
        for dir in [Forward, Inverse] {
            let got = gpu(ctx, &data, s, axes, dir, points);
            let err = rel_l2(&got, &reference(&data, s, axes, dir));
            assert!(
                err < TOL,
                "{s:?} {axes:?} {dir:?} points {points:?}: error {err:e}"
            );
            worst = worst.max(err);
        }
    }
    worst
}

#[test]
fn batched_1d_transforms_match_rustfft() {
    let ctx = test_context();
    // About 8192 points per size: many rows when short, one row of 4096.
    let shapes: Vec<_> = (0..=12)
        .map(|b| shape((8192 >> b).min(64), 2, 1 << b))
        .chain([shape(1, 1, 4096), shape(3, 5, 8), shape(3, 5, 1024)])
        .collect();
    let worst = check(&ctx, &shapes, X, None);
    let (a, points) = (&ctx.adapter, Fft::device_points(&ctx));
    eprintln!(
        "1D on {} ({}, {points} points per workgroup): worst relative L2 error {worst:.2e}",
        a.name, a.backend
    );
}

#[test]
fn transforms_2d_match_rustfft_square_and_not() {
    let ctx = test_context();
    let shapes = [
        shape(1, 1, 64),
        shape(1, 64, 1),
        shape(1, 2, 2),
        shape(1, 64, 16),
        shape(1, 16, 64),
        shape(1, 8, 128),
        shape(1, 1024, 8),
        shape(1, 256, 256),
        shape(3, 32, 16),
        shape(1, 1, 1),
    ];
    let worst = check(&ctx, &shapes, XY, None);
    eprintln!("2D: worst relative L2 error {worst:.2e}");
}

#[test]
fn global_passes_match_rustfft() {
    let ctx = test_context();
    // Axes longer than the workgroup's points take one global pass per stage: forced here
    // with small workgroups (both parities of the pass count), and a row of 8192 > 4096.
    check(&ctx, &[shape(2, 64, 16), shape(1, 8, 256)], XY, Some(16));
    check(&ctx, &[shape(1, 128, 32)], XY, Some(8));
    check(&ctx, &[shape(1, 1, 4096)], X, Some(64));
    check(&ctx, &[shape(1, 1, 8192)], X, None);
}

#[test]
fn inverse_of_forward_is_n_times_the_input_and_parseval_holds() {
    let ctx = test_context();
    for (s, axes) in [(shape(2, 64, 32), XY), (shape(4, 1, 1024), X)] {
        let x = random_points(s.points() as usize, 9);
        let fx = gpu(&ctx, &x, s, axes, Forward, None);
        let back = gpu(&ctx, &fx, s, axes, Inverse, None);
        let n = s.scale(axes);
        let scaled: Vec<Complex64> = x
            .iter()
            .map(|c| Complex64::new(c[0] as f64 * n, c[1] as f64 * n))
            .collect();
        let err = rel_l2(&back, &scaled);
        assert!(err < TOL, "{s:?}: round trip error {err:e}");
        // Parseval per transform: sum |X|^2 = N sum |x|^2.
        let energy = |v: &[[f32; 2]]| -> f64 {
            v.iter()
                .map(|c| (c[0] as f64).powi(2) + (c[1] as f64).powi(2))
                .sum()
        };
        let ratio = energy(&fx) / (n * energy(&x));
        assert!((ratio - 1.0).abs() < TOL, "{s:?}: Parseval ratio {ratio}");
    }
}

#[test]
fn a_single_fourier_mode_lands_in_one_bin() {
    let ctx = test_context();
    let (ny, nx, ky, kx) = (16u32, 64u32, 3u32, 61u32);
    let s = shape(1, ny, nx);
    let mode: Vec<[f32; 2]> = (0..ny * nx)
        .map(|i| {
            let (y, x) = ((i / nx) as f64, (i % nx) as f64);
            let a = 2.0
                * std::f64::consts::PI
                * (kx as f64 * x / nx as f64 + ky as f64 * y / ny as f64);
            [a.cos() as f32, a.sin() as f32]
        })
        .collect();
    let got = gpu(&ctx, &mode, s, XY, Forward, None);
    let n = (nx * ny) as f64;
    for (i, c) in got.iter().enumerate() {
        let want = if i as u32 == ky * nx + kx { n } else { 0.0 };
        let err = ((c[0] as f64 - want).powi(2) + (c[1] as f64).powi(2)).sqrt();
        assert!(err < 1e-4 * n, "bin {i}: {c:?}, want {want}");
    }
}

#[test]
fn runs_are_bitwise_identical() {
    let ctx = test_context();
    let s = shape(2, 128, 64);
    let x = random_points(s.points() as usize, 5);
    let a = gpu(&ctx, &x, s, XY, Forward, None);
    let b = gpu(&ctx, &x, s, XY, Forward, None);
    assert!(bytemuck::cast_slice::<_, u32>(&a) == bytemuck::cast_slice::<_, u32>(&b));
}

#[test]
fn cpu_twin_matches_rustfft_and_the_gpu() {
    let ctx = test_context();
    for (s, axes) in [(shape(1, 32, 64), XY), (shape(3, 4, 512), X)] {
        let x = random_points(s.points() as usize, 7);
        for dir in [Forward, Inverse] {
            let twin = cpu_fft(&x, s, axes, dir).unwrap();
            let want = reference(&x, s, axes, dir);
            let err = rel_l2(&twin, &want);
            assert!(err < TOL, "twin {s:?} {dir:?}: {err:e}");
            let g = gpu(&ctx, &x, s, axes, dir, None);
            let to64: Vec<Complex64> = twin
                .iter()
                .map(|c| Complex64::new(c[0] as f64, c[1] as f64))
                .collect();
            // Same stages and twiddles; only fused multiply-adds differ.
            let err = rel_l2(&g, &to64);
            assert!(err < 1e-6, "gpu vs twin {s:?} {dir:?}: {err:e}");
        }
    }
}

#[test]
fn bad_sizes_are_refused_with_the_field_value_and_allowed_range() {
    let ctx = test_context();
    let buf = buffers::storage_zeroed(&ctx, "data", 1 << 16).unwrap();
    let err = |s: FftShape, axes: FftAxes| {
        Fft::new(&ctx, &buf, s, axes, Forward)
            .err()
            .unwrap_or_else(|| panic!("{s:?} accepted"))
            .to_string()
    };
    let e = err(shape(1, 1, 0), X);
    assert!(e.contains("nx = 0") && e.contains("power of two"), "{e}");
    let e = err(shape(1, 1, 48), X);
    assert!(e.contains("nx = 48") && e.contains("1..=65536"), "{e}");
    let e = err(shape(1, 1, 1 << 17), X);
    assert!(e.contains("nx = 131072"), "{e}");
    let e = err(shape(1, 12, 16), XY);
    assert!(e.contains("ny = 12") && e.contains("power of two"), "{e}");
    let e = err(shape(0, 4, 4), XY);
    assert!(e.contains("batch = 0"), "{e}");
    // 12 rows are fine for 1D transforms along x; a too-small buffer is not.
    assert!(Fft::new(&ctx, &buf, shape(1, 12, 16), X, Forward).is_ok());
    let e = err(shape(4, 64, 64), XY);
    assert!(e.contains("data") && e.contains("131072 bytes"), "{e}");
    let e = Fft::with_workgroup_points(&ctx, &buf, shape(1, 4, 4), XY, Forward, 24)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("workgroup_points = 24"), "{e}");
    let e = cpu_fft(&[[0.0; 2]; 3], shape(1, 1, 4), X, Forward)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("3 points"), "{e}");
}

#[test]
fn bench_times_a_small_2d_transform() {
    let ctx = test_context();
    let rows = bench_fft(&ctx, &[shape(2, 16, 32)]).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].timing.samples_ns.len(), 10);
    assert!(rows[0].timing.stats().min > 0.0);
    // 5 N log2 N per 16 x 32 grid, two grids.
    assert_eq!(fft_flops(rows[0].shape), 2.0 * 5.0 * 512.0 * 9.0);
}
