//! `petri run` of an angiogenesis config or checkpoint (progress bar, summary), and
//! `petri bench angiogenesis`, which prints Markdown tables.

use crate::config::read_for;
use crate::models::{Model, TimedSteps};
use crate::run::RunArgs;
use crate::table::{cell, check_json, grid_name, parse_grid, Rows};
use crate::{progress, GpuArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use petri_model::angiogenesis::{
    self, bench, checkpoint::Checkpoint, run::RunOptions, AngioConfig, SimOptions,
};
use petri_scheduler::bench::{Meta, Table};
use std::path::{Path, PathBuf};

/// The shared `petri run` flags angiogenesis takes.
pub(crate) const SHARED_RUN_FLAGS: &[&str] =
    &["--steps", "--checkpoint-every", "--resume", "--workgroup"];

/// The `petri run` options of angiogenesis alone: none so far.
#[derive(Args, Clone)]
pub(crate) struct AngiogenesisRunFlags {}

/// `petri bench angiogenesis`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Grid sizes: N for N^3, or NXxNYxNZ
    #[arg(long, value_delimiter = ',', default_values = ["128", "256", "400x400x140", "512"])]
    sizes: Vec<String>,
    #[command(flatten)]
    timed: TimedSteps,
    /// Benchmark the continuous model alone (no tip cells)
    #[arg(long)]
    no_tips: bool,
    /// Workgroup size of the field update, e.g. 64,4,1
    #[arg(long, value_parser = crate::parse_triple)]
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

fn sim_options(workgroup: Option<[u32; 3]>) -> SimOptions {
    let mut o = SimOptions::default();
    if let Some(w) = workgroup {
        o.workgroup = w;
    }
    o
}

/// Reads an angiogenesis config.
fn load_config(path: &Path) -> Result<AngioConfig> {
    let text = read_for(path, Model::Angiogenesis)?;
    let config = AngioConfig::from_json(&text, &path.display().to_string())?;
    if let Some(line) = defaults_used(&text, &config) {
        eprintln!("{}: {line}", path.display());
    }
    Ok(config)
}

/// The top-level fields the config leaves out, with the default values the run takes for
/// them (a config without "grid" runs on 100^3: say so), or None when it gives them all.
fn defaults_used(text: &str, config: &AngioConfig) -> Option<String> {
    let given: serde_json::Value =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    let used = serde_json::to_value(config).ok()?;
    let missing: Vec<String> = used
        .as_object()?
        .iter()
        .filter(|(key, _)| given.get(key.as_str()).is_none() && key.as_str() != "provenance")
        .map(|(key, value)| format!("{key} = {value}"))
        .collect();
    (!missing.is_empty()).then(|| format!("defaults used for {}", missing.join(", ")))
}

pub(crate) fn run(args: RunArgs) -> Result<()> {
    if let (Some(config), Some(_)) = (&args.config, &args.resume) {
        bail!(
            "--resume continues an angiogenesis run from the checkpoint alone; leave out the \
             config {}",
            config.display()
        );
    }
    // What the run starts from, read before any device opens.
    enum Start {
        Resume(Box<Checkpoint>),
        New(Box<AngioConfig>),
    }
    let start = match (&args.resume, &args.config) {
        (Some(path), _) => Start::Resume(Box::new(Checkpoint::load(path)?)),
        (None, Some(path)) => Start::New(Box::new(load_config(path)?)),
        (None, None) => unreachable!("clap requires a config without --resume"),
    };
    crate::run::check_out(&args, Model::Angiogenesis)?;
    let ctx = args.gpu.context()?;
    let opts = RunOptions {
        steps: args.steps,
        out_dir: args.out.clone(),
        overwrite: args.overwrite,
        sim: sim_options(args.workgroup),
        checkpoint_every: args.checkpoint_every,
        resume: args.resume.clone(),
        stop: Some(crate::interrupt::stop_check()),
    };
    let t = std::time::Instant::now();
    let sim = match start {
        Start::Resume(ck) => {
            eprintln!("resuming at step {}", ck.state.step);
            ck.into_sim(&ctx, &opts.sim)?
        }
        Start::New(cfg) => angiogenesis::AngioSim::new(&ctx, &cfg, &opts.sim)?,
    };
    let setup = t.elapsed().as_secs_f64();
    let total = opts.steps.unwrap_or(sim.cfg.steps);
    eprintln!(
        "grid {:?}, h = {:.4e}, dt = {:.4e}, {} steps from step {}",
        sim.cfg.grid,
        sim.h(),
        sim.k,
        total,
        sim.step()
    );
    let first = sim.step();
    let bar = progress::bar(total, "steps");
    let (_, report) = angiogenesis::run::run_sim(&ctx, sim, &opts, setup, |o| {
        bar.set_position(o.step - first);
        bar.set_message(format!(
            "tips {} sprouts {} tip path {:.3}",
            o.tips, o.sprouts, o.vessel_length
        ));
    })?;
    bar.finish();
    let o = &report.last;
    println!(
        "step {}: total n {:.4}, tips {}, sprouts {}, branches {}, anastomoses {}, tip path length {:.3} (moves x h; vessels.png gives the network's)",
        o.step, o.total_n, o.tips, o.sprouts, o.branches, o.anastomoses, o.vessel_length
    );
    println!(
        "{:.1} steps/s over {:.2} s; outputs in {}: {}",
        report.timings.steps_per_s,
        report.timings.run_s,
        args.out.display(),
        report.outputs.join(", ")
    );
    if o.tip_overflow > 0 || o.segment_overflow > 0 {
        eprintln!(
            "warning: {} branches and {} vessel segments did not fit (raise tips.max_tips / tips.max_segments)",
            o.tip_overflow, o.segment_overflow
        );
    }
    Ok(())
}

pub(crate) fn bench(args: BenchArgs) -> Result<()> {
    check_json(args.json.as_deref())?;
    let base = load_config(&args.config)?;
    let sizes = args
        .sizes
        .iter()
        .map(|s| parse_grid(s).with_context(|| format!("size {s:?}: expected N or NXxNYxNZ")))
        .collect::<Result<Vec<_>>>()?;
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
