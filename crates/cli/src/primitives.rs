//! `petri bench primitives`: GPU time of the scheduler's primitives (scan, radix sort of 32 and
//! 20 key bits, binning) at given sizes, as a Markdown table and optionally JSON.

use crate::table::write_json;
use crate::GpuArgs;
use anyhow::Result;
use clap::Args;
use petri_scheduler::primitives::{bench as bench_primitives, PrimitiveTiming};
use std::path::PathBuf;

/// `petri bench primitives`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Element counts (scan, sort) and point counts (binning)
    #[arg(long, value_delimiter = ',', default_values_t = [1_000_000u32, 4_000_000])]
    sizes: Vec<u32>,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

pub(crate) fn bench(args: BenchArgs) -> Result<()> {
    let ctx = args.gpu.context()?;
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; times are wall clock");
    }
    let rows = bench_primitives(&ctx, &args.sizes)?;
    println!("| primitive | key bits | size | runs | mean us | min us | Melements/s | timing |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {} |",
            r.primitive,
            match r.key_bits {
                0 => "-".to_string(),
                bits => bits.to_string(),
            },
            r.size,
            r.runs,
            r.mean_ns * 1e-3,
            r.min_ns * 1e-3,
            elements_per_us(r),
            timing(r)
        );
    }
    let rows: Vec<_> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "primitive": r.primitive,
                "key_bits": r.key_bits,
                "size": r.size,
                "runs": r.runs,
                "mean_ns": r.mean_ns,
                "min_ns": r.min_ns,
                "gpu_timestamps": r.gpu_timestamps,
            })
        })
        .collect();
    write_json(
        args.json.as_deref(),
        &serde_json::json!({ "adapter": ctx.adapter.name, "rows": rows }),
    )
}

/// Millions of elements per second at the mean time (elements per microsecond).
fn elements_per_us(r: &PrimitiveTiming) -> f64 {
    if r.mean_ns > 0.0 {
        r.size as f64 / (r.mean_ns * 1e-3)
    } else {
        0.0
    }
}

fn timing(r: &PrimitiveTiming) -> &'static str {
    if r.gpu_timestamps {
        "GPU timestamps"
    } else {
        "wall clock"
    }
}
