//! Angiogenesis as a [`Model`]: it opens from its config or from a checkpoint alone (which
//! holds the config), and `petri bench angiogenesis` times the field update and tip cells at
//! several grid sizes against the multithreaded CPU reference and prints Markdown tables.

use super::checkpoint::Checkpoint;
use super::run::AngioRun;
use super::{bench, AngioConfig, AngioSim, SimOptions};
use crate::command::{
    cell, check_json, command_of, grid_name, parse_grid, read_config, GpuArgs, Rows, TimedSteps,
};
use crate::error::{defaults_used, Result};
use crate::model::{Model, OpenRequest, Opened};
use anyhow::Context;
use clap::{Args, FromArgMatches};
use petri_scheduler::bench::{Meta, Table};
use std::path::{Path, PathBuf};

/// The model.
pub struct Angiogenesis;

impl Model for Angiogenesis {
    fn name(&self) -> &'static str {
        "angiogenesis"
    }
    fn about(&self) -> &'static str {
        "Field update and tip cells at several grid sizes, against the multithreaded CPU reference"
    }
    fn resumes_from_checkpoint_alone(&self) -> bool {
        true
    }

    fn open(&self, request: &OpenRequest) -> Result<Opened> {
        let options = sim_options(request.workgroup);
        // Read before the device opens.
        let start = match request.resume {
            Some(path) => Start::Resume(Box::new(Checkpoint::load(path)?)),
            None => {
                let (text, origin) = request.config(self.name())?.json()?;
                let config = AngioConfig::from_json(text, origin)?;
                if let Some(line) = defaults_used(text, &config) {
                    log::warn!("{origin}: {line}");
                }
                Start::New(Box::new(config))
            }
        };
        request.on_one_device(&Angiogenesis, |ctx| {
            let sim = match start {
                Start::Resume(ck) => ck.into_sim(ctx, &options)?,
                Start::New(config) => AngioSim::new(ctx, &config, &options)?,
            };
            let ctx = ctx.clone();
            Ok(Box::new(AngioRun { ctx, sim }))
        })
    }

    fn bench_command(&self) -> Option<clap::Command> {
        Some(command_of::<BenchArgs>(self.name(), self.about()))
    }
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        bench_tables(BenchArgs::from_arg_matches(args)?)
    }
}

/// What a run starts from, read before any device opens.
enum Start {
    Resume(Box<Checkpoint>),
    New(Box<AngioConfig>),
}

fn sim_options(workgroup: Option<[u32; 3]>) -> SimOptions {
    let mut o = SimOptions::default();
    if let Some(w) = workgroup {
        o.workgroup = w;
    }
    o
}

/// `petri bench angiogenesis`.
#[derive(Args)]
struct BenchArgs {
    /// Grid sizes: N for N^3, or NXxNYxNZ
    #[arg(long, value_delimiter = ',', default_values = ["128", "256", "400x400x140", "512"])]
    sizes: Vec<String>,
    #[command(flatten)]
    timed: TimedSteps,
    /// Benchmark the continuous model alone (no tip cells)
    #[arg(long)]
    no_tips: bool,
    /// Workgroup size of the field update, e.g. 64,4,1
    #[arg(long, value_parser = crate::command::parse_triple)]
    workgroup: Option<[u32; 3]>,
    /// Config to take parameters from
    #[arg(long, default_value = "assets/angiogenesis_3d.json")]
    config: PathBuf,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// Reads an angiogenesis config.
fn load_config(path: &Path) -> anyhow::Result<AngioConfig> {
    let text = read_config(path, "angiogenesis")?;
    let config = AngioConfig::from_json(&text, &path.display().to_string())?;
    if let Some(line) = defaults_used(&text, &config) {
        eprintln!("{}: {line}", path.display());
    }
    Ok(config)
}
fn bench_tables(args: BenchArgs) -> anyhow::Result<()> {
    check_json(args.json.as_deref())?;
    let base = load_config(&args.config)?;
    let sizes = args
        .sizes
        .iter()
        .map(|s| parse_grid(s).with_context(|| format!("size {s:?}: expected N or NXxNYxNZ")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let ctx = args.gpu.context()?;
    let opts = bench::BenchOptions {
        sizes: sizes.clone(),
        steps: args.timed.steps,
        cpu_max_cells: args.timed.cpu_max_cells,
        cpu_steps: args.timed.cpu_steps,
        sim: sim_options(args.workgroup),
        tips: !args.no_tips,
        warmup: args.timed.warmup,
        repeats: 1,
    };
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; GPU times are wall clock");
    }
    let cpu_column = format!("CPU ms/step ({} thr)", rayon_threads());
    let actual_column = format!("GB/s @{}B", bench::ACTUAL_BYTES_PER_CELL);
    let table = Table::print(&[
        "grid",
        "cells",
        "steps",
        "field update ms/step",
        "all passes ms/step",
        "GPU s total",
        "Gcell/s",
        "GB/s @8B",
        &actual_column,
        "tips",
        &cpu_column,
        "GPU/CPU speedup",
    ]);
    let mut rows = Rows::new(Meta::of(&ctx), "angiogenesis");
    let mut by_pass = Vec::new();
    for grid in sizes {
        let (timing, r) = bench::bench_size(&ctx, &base, grid, &opts)?;
        let name = grid_name(grid);
        table.row(&[
            name.clone(),
            r.cells.to_string(),
            r.steps.to_string(),
            format!("{:.4}", r.fields_ms),
            format!("{:.4}", r.step_ms),
            format!("{:.3}", r.total_gpu_s),
            format!("{:.1}", r.cell_updates_per_s * 1e-9),
            format!("{:.0}", r.bandwidth_counted_gbs),
            format!("{:.0}", r.bandwidth_actual_gbs),
            r.tips.to_string(),
            cell(r.cpu_ms, 2, ""),
            cell(r.speedup_vs_cpu, 0, "x"),
        ]);
        let passes: Vec<String> = r
            .pass_ms
            .iter()
            .map(|(k, ms)| format!("{k} {ms:.4}"))
            .collect();
        if !passes.is_empty() {
            by_pass.push(format!("{name} ms/step by pass: {}", passes.join(", ")));
        }
        rows.push(("field update", r.cells, "step"), &timing, &r)?;
    }
    for line in by_pass {
        println!("{line}");
    }
    println!();
    println!("Reference kernel (plain 7-point diffusion of one field, 8 B/cell; same as benches/reference/stencil7.cu):");
    let table = Table::print(&["grid", "workgroup", "ms/step", "Gcell/s", "GB/s @8B"]);
    for grid in &opts.sizes {
        let (timing, r) = bench::bench_reference_stencil(
            &ctx,
            *grid,
            args.workgroup.unwrap_or(bench::REFERENCE_WORKGROUP),
            args.timed.steps.min(500),
            args.timed.warmup,
        )?;
        table.row(&[
            grid_name(*grid),
            grid_name(r.workgroup),
            format!("{:.4}", r.ms_per_step),
            format!("{:.1}", r.cell_updates_per_s * 1e-9),
            format!("{:.0}", r.bandwidth_gbs),
        ]);
        let cells = grid.iter().map(|&n| n as u64).product();
        rows.push(("reference stencil", cells, "step"), &timing, &r)?;
    }
    rows.write(args.json.as_deref())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
