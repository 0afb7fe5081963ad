//! GPU time of the primitives at given sizes: scan, radix sort (32 and 20 key bits) and
//! binning, each run in a compute pass of its own with GPU timestamps (wall clock around
//! submit and wait when the adapter has none). Inputs are fixed-seed pseudo-random; binning
//! places points uniformly in a box of about 4 points per cell, periodic in x and y.

use super::{Binning, Grid, Length, RadixSort, Result, Scan};
use petri_engine::{buffers, GpuContext, Profiler};
use std::time::Instant;

const WARMUP: u32 = 2;
const RUNS: u32 = 10;

/// One primitive at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveTiming {
    /// "scan", "sort", or "binning".
    pub primitive: &'static str,
    pub size: u32,
    /// The sort's key bits (binning: those of its grid); 0 for the scan.
    pub key_bits: u32,
    pub runs: u32,
    pub mean_ns: f64,
    pub min_ns: f64,
    /// True: GPU timestamps around the pass; false: wall clock around submit and wait.
    pub gpu_timestamps: bool,
}

/// splitmix64: fixed-seed inputs without a dependency.
fn words(n: u32, seed: u64) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

/// Times `record` over `RUNS` runs after `WARMUP`.
fn time(
    ctx: &GpuContext,
    primitive: &'static str,
    size: u32,
    key_bits: u32,
    record: &dyn Fn(&mut wgpu::ComputePass<'_>),
) -> Result<PrimitiveTiming> {
    let mut profiler = Profiler::new(ctx, 1);
    let mut times = Vec::new();
    for run in 0..WARMUP + RUNS {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(primitive),
                timestamp_writes: profiler.timestamp_writes(primitive),
            });
            record(&mut pass);
        }
        profiler.resolve(&mut encoder);
        let start = Instant::now();
        ctx.queue.submit([encoder.finish()]);
        ctx.wait()?;
        let wall = start.elapsed().as_secs_f64() * 1e9;
        let gpu = profiler.collect(ctx)?.busy_ns();
        if run >= WARMUP {
            times.push(if profiler.enabled() { gpu } else { wall });
        }
    }
    Ok(PrimitiveTiming {
        primitive,
        size,
        key_bits,
        runs: RUNS,
        mean_ns: times.iter().sum::<f64>() / times.len() as f64,
        min_ns: times.iter().copied().fold(f64::INFINITY, f64::min),
        gpu_timestamps: profiler.enabled(),
    })
}

/// Scan, sort (32 and 20 key bits) and binning at each size.
pub fn bench(ctx: &GpuContext, sizes: &[u32]) -> Result<Vec<PrimitiveTiming>> {
    let mut rows = Vec::new();
    for &n in sizes {
        let input = buffers::storage_from(ctx, "bench input", &words(n, 1))?;
        let output = buffers::storage_zeroed(ctx, "bench output", n as u64 * 4)?;
        let scan = Scan::new(ctx, &input, &output, n, Length::Host(n))?;
        rows.push(time(ctx, "scan", n, 0, &|p| scan.record_pass(p))?);

        let vals = buffers::storage_from(ctx, "bench vals", &words(n, 2))?;
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
        let r = words(3 * n, 3);
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
