//! `petri bench primitives`: GPU time of the scheduler's primitives (scan, radix sort of 32 and
//! 20 key bits, binning) at given sizes, then of a forward 2D FFT at given shapes (with
//! `--cuda-reference`, cuFFT's time of the same shapes beside it), as Markdown tables and
//! optionally JSON rows.

use anyhow::{bail, Context, Result};
use clap::Args;
use petri_model::command::{check_json, run_cuda_reference, GpuArgs, Rows};
use petri_scheduler::bench::{Meta, Table};
use petri_scheduler::primitives::bench::fft_flops;
use petri_scheduler::primitives::{bench as bench_primitives, bench_fft, FftShape};
use std::path::{Path, PathBuf};

/// `petri bench primitives`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Element counts (scan, sort) and point counts (binning)
    #[arg(long, value_delimiter = ',', default_values_t = [1_000_000u32, 4_000_000])]
    sizes: Vec<u32>,
    /// Shapes of the forward 2D FFT: NYxNX or BATCHxNYxNX (powers of two)
    #[arg(long, value_delimiter = ',', value_parser = parse_shape,
          default_values = ["256x256", "512x512", "1024x1024", "32x256x256"])]
    fft: Vec<FftShape>,
    /// The built cuFFT reference (nvcc -O3 -arch=sm_90 benches/reference/fft2d.cu -lcufft -o
    /// fft2d): its time of the same FFT shapes
    #[arg(long)]
    cuda_reference: Option<PathBuf>,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

pub(crate) fn bench(args: BenchArgs) -> Result<()> {
    check_json(args.json.as_deref())?;
    let ctx = args.gpu.context()?;
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; times are wall clock");
    }
    let timings = bench_primitives(&ctx, &args.sizes)?;
    let table = Table::print(&[
        "primitive",
        "key bits",
        "size",
        "runs",
        "mean us",
        "min us",
        "Melements/s",
        "timing",
        "median us",
        "spread",
    ]);
    let mut rows = Rows::new(Meta::of(&ctx), "primitives");
    for t in &timings {
        let s = t.timing.stats();
        table.row(&[
            t.primitive.to_string(),
            match t.key_bits {
                0 => "-".to_string(),
                bits => bits.to_string(),
            },
            t.size.to_string(),
            t.timing.samples_ns.len().to_string(),
            format!("{:.1}", s.mean * 1e-3),
            format!("{:.1}", s.min * 1e-3),
            format!("{:.1}", elements_per_us(t.size, s.mean)),
            t.timing.clock.label().to_string(),
            format!("{:.1}", s.median * 1e-3),
            format!("{:.0}%", s.spread * 100.0),
        ]);
        let key_bits = serde_json::json!({ "key_bits": t.key_bits });
        rows.push((t.primitive, t.size as u64, "run"), &t.timing, key_bits)?;
    }
    fft_table(&ctx, &args, &mut rows)?;
    rows.write(args.json.as_deref())
}

/// "256x256" or "32x256x256".
fn parse_shape(s: &str) -> Result<FftShape> {
    let parts: Vec<u32> = s
        .split('x')
        .map(|p| p.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .with_context(|| format!("--fft {s:?}: expected NYxNX or BATCHxNYxNX"))?;
    match parts[..] {
        [ny, nx] => Ok(FftShape { batch: 1, ny, nx }),
        [batch, ny, nx] => Ok(FftShape { batch, ny, nx }),
        _ => bail!("--fft {s:?}: expected NYxNX or BATCHxNYxNX"),
    }
}

fn shape_label(s: FftShape) -> String {
    match s.batch {
        1 => format!("{}x{}", s.ny, s.nx),
        b => format!("{b} x {}x{}", s.ny, s.nx),
    }
}

/// One line of fft2d.cu's output.
#[derive(serde::Deserialize)]
struct CudaFft {
    batch: u32,
    ny: u32,
    nx: u32,
    ms: f64,
}

/// Runs the cuFFT reference on `shapes`; its time in ms per shape.
fn run_cuda(path: &Path, shapes: &[FftShape]) -> Result<Vec<Option<f64>>> {
    let args: Vec<String> = shapes
        .iter()
        .map(|s| format!("{}x{}x{}", s.batch, s.ny, s.nx))
        .collect();
    let text = run_cuda_reference(path, &args)?;
    let lines: Vec<CudaFft> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l.trim()).ok())
        .collect();
    Ok(shapes
        .iter()
        .map(|s| {
            let same = |c: &&CudaFft| (c.batch, c.ny, c.nx) == (s.batch, s.ny, s.nx);
            lines.iter().find(same).map(|c| c.ms)
        })
        .collect())
}

/// The FFT table: GPU time of a forward 2D transform per shape, GFLOP/s at 5 N log2 N.
fn fft_table(ctx: &petri_engine::GpuContext, args: &BenchArgs, rows: &mut Rows) -> Result<()> {
    let timings = bench_fft(ctx, &args.fft)?;
    let cuda = match &args.cuda_reference {
        Some(path) => run_cuda(path, &args.fft)?,
        None => vec![None; args.fft.len()],
    };
    println!();
    let table = Table::print(&[
        "fft 2D forward",
        "points",
        "runs",
        "mean us",
        "min us",
        "GFLOP/s",
        "timing",
        "median us",
        "spread",
        "cuFFT us",
        "cuFFT GFLOP/s",
    ]);
    for (t, cuda_ms) in timings.iter().zip(cuda) {
        let s = t.timing.stats();
        let gflops = |ns: f64| t.flops() / ns;
        let cuda_us = cuda_ms.map(|ms| ms * 1e3);
        let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        table.row(&[
            shape_label(t.shape),
            t.shape.points().to_string(),
            t.timing.samples_ns.len().to_string(),
            format!("{:.1}", s.mean * 1e-3),
            format!("{:.1}", s.min * 1e-3),
            format!("{:.1}", gflops(s.mean)),
            t.timing.clock.label().to_string(),
            format!("{:.1}", s.median * 1e-3),
            format!("{:.0}%", s.spread * 100.0),
            opt(cuda_us),
            opt(cuda_us.map(|us| fft_flops(t.shape) / (us * 1e3))),
        ]);
        let fields = serde_json::json!({
            "batch": t.shape.batch,
            "ny": t.shape.ny,
            "nx": t.shape.nx,
            "gflops": gflops(s.mean),
            "cufft_ms": cuda_ms,
        });
        rows.push(("fft2d", t.shape.points(), "transform"), &t.timing, fields)?;
    }
    Ok(())
}

/// Millions of elements per second at the mean time (elements per microsecond).
fn elements_per_us(size: u32, mean_ns: f64) -> f64 {
    if mean_ns > 0.0 {
        size as f64 / (mean_ns * 1e-3)
    } else {
        0.0
    }
}
