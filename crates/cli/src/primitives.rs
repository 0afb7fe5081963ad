//! `petri bench primitives`: GPU time of the scheduler's primitives (scan, radix sort of 32 and
//! 20 key bits, binning) at given sizes, as a Markdown table and optionally JSON rows.

use crate::table::{check_json, Rows};
use crate::GpuArgs;
use anyhow::Result;
use clap::Args;
use petri_scheduler::bench::{Meta, Table};
use petri_scheduler::primitives::bench as bench_primitives;
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
    rows.write(args.json.as_deref())
}

/// Millions of elements per second at the mean time (elements per microsecond).
fn elements_per_us(size: u32, mean_ns: f64) -> f64 {
    if mean_ns > 0.0 {
        size as f64 / (mean_ns * 1e-3)
    } else {
        0.0
    }
}
