//! GPU time of the primitives at given sizes: scan, radix sort (32 and 20 key bits) and
//! binning, each run in a compute pass of its own with GPU timestamps (wall clock around
//! submit and wait when the adapter has none), through the bench harness (`crate::bench`).
//! Inputs are fixed-seed pseudo-random; binning places points uniformly in a box of about 4
//! points per cell, periodic in x and y. The FFT (`bench_fft`) times a forward 2D transform of
//! each shape in place on zeros (its time does not depend on the values; random data would
//! overflow after a few unnormalized runs).

use super::{
    Binning, Fft, FftAxes, FftDirection, FftShape, Grid, Length, Primitive, RadixSort, Result, Scan,
};
use crate::bench::{measure, Case, Runs, Sample, Timing};
use petri_engine::{buffers, rng, GpuContext, Profiler};
use std::time::Instant;

/// Warm-up and timed runs of each primitive.
pub const RUNS: Runs = Runs {
    warmup: 2,
    repeats: 10,
};

/// One primitive at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveTiming {
    /// "scan", "sort", or "binning".
    pub primitive: &'static str,
    pub size: u32,
    /// The sort's key bits (binning: those of its grid); 0 for the scan.
    pub key_bits: u32,
    /// Nanoseconds per run: GPU timestamps around the pass, or the wall clock around submit
    /// and wait.
    pub timing: Timing,
}

/// `n` pseudo-random words for `seed` (Philox, the engine's generator): the inputs of the bench
/// and of the primitives' tests.
pub fn random_words(n: usize, seed: u64) -> Vec<u32> {
    (0..n as u32)
        .map(|i| rng::u32x4(seed, 0, i, 0)[0])
        .collect()
}

/// One primitive's pass, recorded in a compute pass of its own with timestamps around it.
struct PassCase<'a> {
    ctx: &'a GpuContext,
    label: &'static str,
    profiler: Profiler,
    record: &'a dyn Fn(&mut wgpu::ComputePass<'_>),
}

impl Case for PassCase<'_> {
    type Error = super::PrimitiveError;

    fn warm_up(&mut self) -> Result<()> {
        self.timed().map(|_| ())
    }

    fn timed(&mut self) -> Result<Sample> {
        let ctx = self.ctx;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(self.label),
                timestamp_writes: self.profiler.timestamp_writes(self.label),
            });
            (self.record)(&mut pass);
        }
        self.profiler.resolve(&mut encoder);
        let start = Instant::now();
        ctx.queue.submit([encoder.finish()]);
        ctx.wait()?;
        let wall = Sample::wall_since(start, 1.0);
        let gpu = self.profiler.collect(ctx)?.busy_ns();
        Ok(match self.profiler.enabled() {
            true => Sample::gpu(gpu),
            false => wall,
        })
    }
}

/// Times `record` over `RUNS`.
fn measure_pass(
    ctx: &GpuContext,
    label: &'static str,
    record: &dyn Fn(&mut wgpu::ComputePass<'_>),
) -> Result<Timing> {
    let mut case = PassCase {
        ctx,
        label,
        profiler: Profiler::new(ctx, 1),
        record,
    };
    measure(&mut case, RUNS)
}

fn time(
    ctx: &GpuContext,
    primitive: &'static str,
    size: u32,
    key_bits: u32,
    record: &dyn Fn(&mut wgpu::ComputePass<'_>),
) -> Result<PrimitiveTiming> {
    Ok(PrimitiveTiming {
        primitive,
        size,
        key_bits,
        timing: measure_pass(ctx, primitive, record)?,
    })
}

/// A forward 2D FFT of one shape.
#[derive(Clone, Debug, PartialEq)]
pub struct FftTiming {
    pub shape: FftShape,
    pub timing: Timing,
}

impl FftTiming {
    /// The conventional operation count of the batch: 5 N log2 N per transform of N points.
    pub fn flops(&self) -> f64 {
        fft_flops(self.shape)
    }
}

/// 5 N log2 N per 2D transform of N = ny * nx points, times the batch.
pub fn fft_flops(s: FftShape) -> f64 {
    let n = s.ny as f64 * s.nx as f64;
    5.0 * n * n.log2() * s.batch as f64
}

/// A forward 2D FFT of each shape, in place.
pub fn bench_fft(ctx: &GpuContext, shapes: &[FftShape]) -> Result<Vec<FftTiming>> {
    let mut rows = Vec::new();
    for &shape in shapes {
        shape.check(FftAxes::XY)?;
        let data = buffers::storage_zeroed(ctx, "bench fft", shape.points() * 8)?;
        let fft = Fft::new(ctx, &data, shape, FftAxes::XY, FftDirection::Forward)?;
        let timing = measure_pass(ctx, "fft", &|p| fft.record_pass(p))?;
        rows.push(FftTiming { shape, timing });
    }
    Ok(rows)
}

/// Scan, sort (32 and 20 key bits) and binning at each size.
pub fn bench(ctx: &GpuContext, sizes: &[u32]) -> Result<Vec<PrimitiveTiming>> {
    let mut rows = Vec::new();
    for &n in sizes {
        let input = buffers::storage_from(ctx, "bench input", &random_words(n as usize, 1))?;
        let output = buffers::storage_zeroed(ctx, "bench output", n as u64 * 4)?;
        let scan = Scan::new(ctx, &input, &output, n, Length::Host(n))?;
        rows.push(time(ctx, "scan", n, 0, &|p| scan.record_pass(p))?);

        let vals = buffers::storage_from(ctx, "bench vals", &random_words(n as usize, 2))?;
        for key_bits in [32, 20] {
            let sort = RadixSort::new(ctx, &input, &vals, n, key_bits, Length::Host(n))?;
            rows.push(time(ctx, "sort", n, key_bits, &|p| sort.record_pass(p))?);
        }

        let side = ((n as f64 / 4.0).cbrt().ceil() as u32).max(1);
        let grid = Grid {
            origin: [0.0; 3],
            cell_size: [1.0; 3],
            dims: [side; 3],
            periodic: [true, true, false],
        };
        let unit = |w: u32| (w >> 8) as f32 / (1u32 << 24) as f32 * side as f32;
        let r = random_words(3 * n as usize, 3);
        let positions: Vec<[f32; 4]> = (0..n as usize)
            .map(|i| [unit(r[3 * i]), unit(r[3 * i + 1]), unit(r[3 * i + 2]), 0.0])
            .collect();
        let positions = buffers::storage_from(ctx, "bench positions", &positions)?;
        let binning = Binning::new(ctx, &positions, n, grid, Length::Host(n))?;
        rows.push(time(ctx, "binning", n, grid.key_bits(), &|p| {
            binning.record_pass(p)
        })?);
    }
    Ok(rows)
}
