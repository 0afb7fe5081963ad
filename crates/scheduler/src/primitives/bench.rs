//! GPU time of the primitives at given sizes: scan, radix sort (32 and 20 key bits) and
//! binning, each run in a compute pass of its own with GPU timestamps (wall clock around
//! submit and wait when the adapter has none), through the bench harness (`crate::bench`).
//! Inputs are fixed-seed pseudo-random; binning places points uniformly in a box of about 4
//! points per cell, periodic in x and y.

use super::{Binning, Grid, Length, Primitive, RadixSort, Result, Scan};
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
fn time(
    ctx: &GpuContext,
    primitive: &'static str,
    size: u32,
    key_bits: u32,
    record: &dyn Fn(&mut wgpu::ComputePass<'_>),
) -> Result<PrimitiveTiming> {
    let mut case = PassCase {
        ctx,
        label: primitive,
        profiler: Profiler::new(ctx, 1),
        record,
    };
    Ok(PrimitiveTiming {
        primitive,
        size,
        key_bits,
        timing: measure(&mut case, RUNS)?,
    })
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
