//! `gray-scott`: runs the model into a folder, or times it.
//!
//! ```text
//! gray-scott run CONFIG --out DIR [--steps N] [--checkpoint-every N] [--resume CK] [--overwrite]
//! gray-scott bench [--config CONFIG] [--sizes 64,128] [--steps N] [--cpu-steps N]
//! ```
//!
//! The GPU is chosen as Petri chooses it (`PETRI_BACKEND`, `PETRI_ADAPTER`: hardware first,
//! else the software adapter).

use clap::{Parser, Subcommand};
use gray_scott::bench::{bench, BenchOptions};
use gray_scott::{sim, GrayScottConfig, RunOptions};
use petri_engine::{DeviceRequest, GpuContext};
use petri_scheduler::bench::{Meta, Table};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "gray-scott",
    about = "Gray-Scott reaction-diffusion (Pearson 1993) on Petri"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a config; writes observables.csv, snapshots, the final fields, manifest.json and
    /// (with --checkpoint-every) checkpoint.petri into --out.
    Run {
        /// The config (JSON), e.g. assets/gray_scott.json.
        config: PathBuf,
        /// Output folder: missing or empty, or the folder of the run --resume continues.
        #[arg(long)]
        out: PathBuf,
        /// Steps to run (default: the config's `steps`), from the checkpoint's step on resume.
        #[arg(long)]
        steps: Option<u64>,
        /// Write checkpoint.petri every this many steps and at the end.
        #[arg(long)]
        checkpoint_every: Option<u64>,
        /// Continue the run that wrote this checkpoint (the config must be that run's).
        #[arg(long)]
        resume: Option<PathBuf>,
        /// Replace an earlier run in --out.
        #[arg(long)]
        overwrite: bool,
    },
    /// Time GPU and CPU steps at a few grid sizes (Pearson's spacing h on each).
    Bench {
        /// The config whose parameters are timed (default: Pearson's).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Grid sides, comma separated.
        #[arg(long, value_delimiter = ',', default_value = "64,128,256")]
        sizes: Vec<u32>,
        /// GPU steps per timed repeat.
        #[arg(long, default_value_t = 500)]
        steps: u32,
        /// CPU steps per timed repeat (0: no CPU figure).
        #[arg(long, default_value_t = 50)]
        cpu_steps: u32,
    },
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    // Opened once the config is read, so a bad config is reported without a GPU.
    let gpu = || GpuContext::new(&DeviceRequest::from_env());
    match cli.command {
        Command::Run {
            config,
            out,
            steps,
            checkpoint_every,
            resume,
            overwrite,
        } => {
            let cfg = GrayScottConfig::from_file(&config)?;
            let ctx = gpu()?;
            let opts = RunOptions {
                steps,
                out_dir: out,
                overwrite,
                sim: (),
                checkpoint_every,
                resume,
                stop: None,
            };
            eprintln!("{} ({})", ctx.adapter.name, ctx.adapter.backend);
            let report = sim::run(&ctx, &cfg, &opts, |o| {
                eprintln!(
                    "step {:>8}  mean u {:.5}  mean v {:.5}  std v {:.5}  max v {:.4}  pattern {:.3}",
                    o.step, o.mean_u, o.mean_v, o.std_v, o.max_v, o.pattern_fraction
                )
            })?;
            eprintln!(
                "steps {}..{} in {:.2} s ({:.0} steps/s); wrote {}",
                report.first_step,
                report.last_step,
                report.timings.run_s,
                report.timings.steps_per_s,
                report.outputs.join(", ")
            );
        }
        Command::Bench {
            config,
            sizes,
            steps,
            cpu_steps,
        } => {
            let base = match config {
                Some(path) => GrayScottConfig::from_file(&path)?,
                None => GrayScottConfig::default(),
            };
            let ctx = gpu()?;
            let opts = BenchOptions {
                sizes,
                steps,
                cpu_steps,
                ..BenchOptions::default()
            };
            let meta = Meta::of(&ctx);
            println!(
                "{} ({}), commit {}",
                meta.adapter,
                meta.backend,
                meta.commit.as_deref().unwrap_or("unknown")
            );
            let table = Table::print(&["grid", "GPU ms/step", "clock", "CPU ms/step", "speedup"]);
            bench(&ctx, &base, &opts, |r| {
                let or_dash = |x: Option<f64>, f: fn(f64) -> String| x.map_or("-".into(), f);
                table.row(&[
                    format!("{}x{}", r.grid[0], r.grid[1]),
                    format!("{:.4}", r.gpu_ms_per_step),
                    r.clock.label().to_string(),
                    or_dash(r.cpu_ms_per_step, |x| format!("{x:.4}")),
                    or_dash(r.speedup, |x| format!("{x:.1}x")),
                ]);
            })?;
        }
    }
    Ok(())
}
