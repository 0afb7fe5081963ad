//! `petri bench ssa`: GPU ensembles of the Vilar oscillator and GPU tau-leaping of synthetic
//! networks, each against the CPU reference timed in the same run (model side:
//! petri_model::ssa::bench). Prints markdown tables.

use crate::table::{cell, check_json, Rows};
use crate::GpuArgs;
use anyhow::{bail, Result};
use clap::Args;
use petri_model::reactions::json::read_network;
use petri_model::reactions::Network;
use petri_model::ssa::bench::{bench_cpu_vs_rebop, bench_ensemble, bench_leap};
use petri_model::ssa::ensemble::Method;
use petri_model::ssa::gpu_ensemble::EnsembleOptions;
use petri_model::ssa::synthetic::square_network;
use petri_scheduler::bench::{Meta, Table};
use std::path::PathBuf;

/// `petri bench ssa`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Ensemble sizes (trajectories)
    #[arg(long, value_delimiter = ',', default_values_t = [100u64, 1_000, 10_000, 100_000])]
    sizes: Vec<u64>,
    /// Ensemble methods: direct, odm, tau
    #[arg(long, value_delimiter = ',', default_values = ["direct"])]
    methods: Vec<String>,
    /// Reaction network of the ensembles
    #[arg(long, default_value = "assets/vilar.json")]
    config: PathBuf,
    /// End time of the ensembles (0 skips them)
    #[arg(long, default_value_t = 200.0)]
    t_end: f64,
    /// Output times of the ensembles, 0..t_end
    #[arg(long, default_value_t = 201)]
    points: usize,
    /// CPU reference trajectories timed (one core)
    #[arg(long, default_value_t = 3)]
    cpu_trajectories: u64,
    /// Synthetic network sizes (reactions = species) for tau-leaping
    #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 10_000, 100_000, 1_000_000])]
    reactions: Vec<usize>,
    /// GPU leap attempts timed per synthetic network (0 skips tau-leaping)
    #[arg(long, default_value_t = 200)]
    leaps: u64,
    /// CPU reference leap attempts at 10^4 reactions (fewer above, as N grows)
    #[arg(long, default_value_t = 100)]
    cpu_leaps: u64,
    /// Events (or leap attempts) per thread per dispatch of the ensembles
    #[arg(long, default_value_t = EnsembleOptions::default().event_budget)]
    event_budget: u32,
    /// Run the direct method with the table-driven kernel instead of the network compiled into
    /// the shader
    #[arg(long)]
    table_kernel: bool,
    /// Only time the CPU direct method against rebop's (an outside reference), one core each,
    /// --cpu-trajectories trajectories of --config to --t-end with --points outputs; no GPU
    #[arg(long)]
    cpu_vs_rebop: bool,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

pub(crate) fn bench(args: BenchArgs) -> Result<()> {
    check_json(args.json.as_deref())?;
    let trajectories = &args.sizes;
    let methods: Vec<Method> = args
        .methods
        .iter()
        .map(|m| Method::parse("--methods", m))
        .collect::<std::result::Result<_, _>>()?;
    let config = &args.config;
    let net = read_network(config)?;
    if args.cpu_vs_rebop {
        return cpu_vs_rebop(&args, &net);
    }
    let ctx = args.gpu.context()?;
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; only wall-clock times are shown");
    }
    let mut rows = Rows::new(Meta::of(&ctx), "ssa");
    if !trajectories.is_empty() && args.t_end > 0.0 {
        println!(
            "\n### Ensembles: {} ({} species, {} reactions), t = 0..{}, {} outputs\n",
            config.display(),
            net.species.len(),
            net.reactions.len(),
            args.t_end,
            args.points
        );
        let table = Table::print(&[
            "method",
            "trajectories",
            "wall s",
            "GPU s",
            "trajectories/s",
            "CPU ms/trajectory (1 core)",
            "GPU vs 1 core",
        ]);
        for &method in &methods {
            let timed = bench_ensemble(
                &ctx,
                &net,
                method,
                trajectories,
                args.t_end,
                args.points,
                args.cpu_trajectories,
                &EnsembleOptions {
                    event_budget: args.event_budget,
                    compiled: !args.table_kernel,
                    ..EnsembleOptions::default()
                },
            )?;
            for (timing, r) in &timed {
                table.row(&[
                    r.method.clone(),
                    r.trajectories.to_string(),
                    format!("{:.3}", r.wall_s),
                    cell(r.gpu_s, 3, ""),
                    format!("{:.0}", r.trajectories_per_s),
                    format!("{:.2}", r.cpu_ms_per_trajectory),
                    ratio(r.speedup_vs_one_core),
                ]);
                let case = format!("ensemble, {method}");
                rows.push((&case, r.trajectories, "run"), timing, r)?;
            }
        }
    }

    if !args.reactions.is_empty() && args.leaps > 0 {
        println!(
            "\n### Tau-leaping of one synthetic square network (N reactions = N species), {} GPU attempts\n",
            args.leaps
        );
        let table = Table::print(&[
            "reactions",
            "GPU attempts",
            "accepted leaps",
            "GPU wall s",
            "GPU us/attempt",
            "GPU attempts/s",
            "CPU attempts",
            "CPU attempts/s",
            "GPU/CPU",
        ]);
        for &n in &args.reactions {
            let net = square_network(n, 2012)?;
            // The CPU reference on fewer leaps at large sizes (it takes O(N) per leap).
            let cpu = (args.cpu_leaps as f64 * (1e4 / n as f64).min(1.0)).max(3.0) as u64;
            let (timing, r) = bench_leap(&ctx, &net, args.leaps, cpu)?;
            table.row(&[
                r.reactions.to_string(),
                r.gpu_attempts.to_string(),
                r.gpu_leaps.to_string(),
                format!("{:.3}", r.gpu_wall_s),
                cell(r.gpu_us_per_attempt, 1, ""),
                format!("{:.0}", r.gpu_attempts_per_s),
                r.cpu_attempts.to_string(),
                format!("{:.0}", r.cpu_attempts_per_s),
                ratio(r.speedup),
            ]);
            let size = r.reactions as u64;
            rows.push(("tau-leaping, one network", size, "run"), &timing, &r)?;
        }
    }
    rows.write(args.json.as_deref())
}

/// `--cpu-vs-rebop`: one table row.
fn cpu_vs_rebop(args: &BenchArgs, net: &Network) -> Result<()> {
    if args.json.is_some() {
        bail!("--json is not written with --cpu-vs-rebop (one table row; no GPU rows)");
    }
    println!(
        "\n### CPU direct method, ours against rebop 0.10 (one core each): {} ({} species, {} reactions), t = 0..{}, {} outputs\n",
        args.config.display(),
        net.species.len(),
        net.reactions.len(),
        args.t_end,
        args.points
    );
    let r = bench_cpu_vs_rebop(net, args.cpu_trajectories, args.t_end, args.points)?;
    let table = Table::print(&[
        "trajectories",
        "ours ms/trajectory",
        "rebop ms/trajectory",
        "ours/rebop",
        "rebop define_system! ms/trajectory",
        "ours/define_system!",
        "mean final count sum, ours",
        "rebop",
    ]);
    table.row(&[
        r.trajectories.to_string(),
        format!("{:.2}", r.ours_ms_per_trajectory),
        format!("{:.2}", r.rebop_ms_per_trajectory),
        format!("{:.2}", r.ratio),
        cell(r.rebop_compiled_ms_per_trajectory, 2, ""),
        cell(r.ratio_compiled, 2, ""),
        format!("{:.1}", r.ours_mean_final),
        format!("{:.1}", r.rebop_mean_final),
    ]);
    Ok(())
}

/// A speed ratio with two significant digits ("0.31x", "4.2x", "120x").
fn ratio(x: f64) -> String {
    match x {
        x if x >= 10.0 => format!("{x:.0}x"),
        x if x >= 1.0 => format!("{x:.1}x"),
        x => format!("{x:.2}x"),
    }
}
