//! RDME as a [`Model`]: its run flags (devices, sweeps), `petri analyze` of a finished run's
//! kymograph, and `petri bench rdme` (the Min system and uniform lattices, particle-count and
//! multi-device scaling; Markdown tables).

use super::analysis::OscillationReport;
use super::bench::{bench_devices, bench_model, uniform_model, BenchRow, DeviceRow};
use super::run::{reanalyze, start, ANALYSIS_SKIP_FRACTION};
use super::{RdmeConfig, RdmeModel, SimOptions, Sweeps};
use crate::command::{
    cell, check_json, command_of, grid_name, parse_grid, GpuArgs, Rows, TimedSteps,
};
use crate::error::{invalid_flag, Result};
use crate::model::{Model, OpenRequest, Opened};
use anyhow::{bail, Context};
use clap::{Args, FromArgMatches};
use petri_scheduler::bench::{Meta, Table};
use std::path::{Path, PathBuf};

/// The model.
pub struct Rdme;

impl Model for Rdme {
    fn name(&self) -> &'static str {
        "rdme"
    }
    fn about(&self) -> &'static str {
        "The Min system and uniform lattices, particle-count and multi-device scaling"
    }
    fn run_flags(&self) -> clap::Command {
        RdmeRunFlags::augment_args(clap::Command::new(self.name()))
    }

    fn open(&self, request: &OpenRequest) -> Result<Opened> {
        let config = request.config(self.name())?;
        let (text, origin) = config.json()?;
        let cfg = RdmeConfig::from_json(text, origin)?;
        let model = cfg.resolve(&config.base())?;
        for w in &model.warnings {
            log::warn!("{w}");
        }
        let flags: RdmeRunFlags = request.flags()?;
        // Before any device opens: each device owns one z plane at least.
        let nz = cfg.lattice.shape[2];
        if flags.devices == 0 || flags.devices > nz as usize {
            return Err(invalid_flag(
                "--devices",
                flags.devices,
                format!("1 to lattice.shape.z = {nz} devices (one z plane each at least)"),
            ));
        }
        let options = SimOptions {
            workgroup: workgroup(request.workgroup)?,
            sweeps: flags.sweeps,
            ..SimOptions::default()
        };
        let contexts = request.devices.contexts(flags.devices)?;
        let placement = request.placement(&contexts[0]);
        let sim = start(contexts, &model, &options, request.resume)?;
        Ok(Opened {
            model: &Rdme,
            sim: Box::new(sim),
            placement,
        })
    }

    fn bench_command(&self) -> Option<clap::Command> {
        Some(command_of::<BenchArgs>(self.name(), self.about()))
    }
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        bench_tables(BenchArgs::from_arg_matches(args)?)
    }
    fn commands(&self) -> Vec<clap::Command> {
        vec![command_of::<AnalyzeArgs>(
            "analyze",
            "rdme: analyse a finished run's kymograph again, e.g. skipping more of its start",
        )]
    }
    fn command(&self, name: &str, args: &clap::ArgMatches) -> anyhow::Result<()> {
        match name {
            "analyze" => analyze(AnalyzeArgs::from_arg_matches(args)?),
            other => bail!("rdme has no command {other}"),
        }
    }
}

/// The `petri run` options of rdme alone.
#[derive(Args, Clone)]
#[command(next_help_heading = "rdme options")]
struct RdmeRunFlags {
    /// Devices to split the lattice over along z (adapters in turn, several per adapter when
    /// there are fewer)
    #[arg(long, default_value_t = 1)]
    devices: usize,
    /// Which sites the diffusion sweeps look at: auto (occupied on Vulkan unless a device's
    /// slab is small and crowded, every-site otherwise; docs/models/rdme.md), every-site or
    /// occupied (results do not depend on it)
    #[arg(long, default_value = "auto")]
    sweeps: Sweeps,
}
/// `petri analyze`: an rdme run's kymograph analysed again.
#[derive(Args)]
struct AnalyzeArgs {
    /// The run's rdme config, e.g. assets/min-system.json
    config: PathBuf,
    /// The run's output folder (holding kymograph.csv)
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Fraction of the run's time span to discard as transient (the run's own analysis: 0.2)
    #[arg(long, default_value_t = ANALYSIS_SKIP_FRACTION)]
    skip_fraction: f64,
    /// Also write the report as JSON to this file
    #[arg(long)]
    json: Option<PathBuf>,
}

/// `petri bench rdme`.
#[derive(Args)]
struct BenchArgs {
    /// Lattices of the uniform cases: N for N^3, or NXxNYxNZ
    #[arg(long, value_delimiter = ',', default_values = ["64", "128", "256", "256x256x1024"])]
    sizes: Vec<String>,
    /// Devices for the multi-device comparison (adapters in turn, several per adapter when
    /// there are fewer)
    #[arg(long, default_value_t = 1)]
    devices: usize,
    /// Only the multi-device comparison (skip the single-device tables)
    #[arg(long)]
    scaling_only: bool,
    /// Halo planes per side, i.e. steps between halo exchanges, on several devices
    #[arg(long, default_value_t = 16)]
    halo_depth: u32,
    /// Steps between load-balancing decisions on several devices (0: never)
    #[arg(long, default_value_t = 200)]
    balance_every: u64,
    /// On several devices, wait for each halo exchange before the next step's first x and y
    /// sweeps, instead of running them on the planes that do not need it meanwhile
    /// (docs/models/rdme.md)
    #[arg(long)]
    no_overlap_exchange: bool,
    /// Lattice of the multi-device comparison
    #[arg(long, default_value = "256x256x1024")]
    large: String,
    /// Mean particles per site of the uniform lattices, for the particle-count scaling
    #[arg(long, value_delimiter = ',', default_values_t = [0.1, 0.5, 1.0, 2.0, 4.0])]
    densities: Vec<f64>,
    #[command(flatten)]
    timed: TimedSteps,
    /// Workgroup size of the lattice passes, X,Y,1
    #[arg(long, value_parser = crate::command::parse_triple)]
    workgroup: Option<[u32; 3]>,
    /// Which sites the diffusion sweeps look at: auto (occupied on Vulkan unless a device's
    /// slab is small and crowded, every-site otherwise; docs/models/rdme.md), every-site or
    /// occupied
    #[arg(long, default_value = "auto")]
    sweeps: Sweeps,
    /// Config of the Min system case
    #[arg(long, default_value = "assets/min-system.json")]
    config: PathBuf,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// The lattice passes' workgroup from `--workgroup X,Y,1` (the default without it).
fn workgroup(arg: Option<[u32; 3]>) -> Result<[u32; 2]> {
    match arg {
        None => Ok(SimOptions::default().workgroup),
        Some([x, y, 1]) => Ok([x, y]),
        Some([x, y, z]) => Err(invalid_flag(
            "--workgroup",
            format!("{x},{y},{z}"),
            "rdme workgroups are two-dimensional, give X,Y,1",
        )),
    }
}

/// `petri analyze` of an rdme run: its kymograph analysed again with `--skip-fraction`.
fn analyze(args: AnalyzeArgs) -> anyhow::Result<()> {
    let (config, out) = (&args.config, &args.out);
    let text = crate::command::read_config(config, "rdme")
        .context("only rdme runs have a kymograph to analyse")?;
    let cfg = RdmeConfig::from_json(&text, &config.display().to_string())?;
    let base = config.parent().map(Path::to_path_buf).unwrap_or_default();
    let model = cfg.resolve(&base)?;
    let report = reanalyze(&model, out, args.skip_fraction)?;
    let name = cfg.output.kymograph_species.as_deref().unwrap_or_default();
    println!(
        "{}: {} rows, {} used from {:.4} s",
        out.join("kymograph.csv").display(),
        report.samples,
        report.samples_used,
        report.skip_s
    );
    print_analysis(name, &report);
    if let Some(path) = &args.json {
        petri_output::write_json_pretty(path, &report)?;
    }
    Ok(())
}

fn print_analysis(name: &str, a: &OscillationReport) {
    for line in a.lines(name) {
        println!("{line}");
    }
}

fn bench_tables(args: BenchArgs) -> anyhow::Result<()> {
    check_json(args.json.as_deref())?;
    let cfg = RdmeConfig::load(&args.config)?;
    let base = args
        .config
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default();
    let min = cfg.resolve(&base)?;
    let sizes: Vec<[u32; 3]> = args
        .sizes
        .iter()
        .map(|s| parse_grid(s).with_context(|| format!("size {s:?}: expected N or NXxNYxNZ")))
        .collect::<anyhow::Result<_>>()?;
    let large = parse_grid(&args.large).context("--large: expected N or NXxNYxNZ")?;
    let steps = args.timed.steps as u64;
    let cpu_steps = args.timed.cpu_steps as u64;
    let warmup = args.timed.warmup;
    let workgroup = workgroup(args.workgroup)?;
    let ctx = args.gpu.context()?;
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; only wall-clock times are shown");
    }
    let cpu_max = args.timed.cpu_max_cells as u64;
    let mut rows = Rows::new(Meta::of(&ctx), "rdme");
    if !args.scaling_only {
        let table = Table::print(&[
            "case",
            "lattice",
            "sites",
            "particles",
            "steps",
            "GPU busy / idle us/step",
            "wall us/step",
            "site updates/s",
            "simulated s per wall hour",
            "CPU us/step",
            "GPU/CPU",
        ]);
        let mut one = |label: &str, model: &RdmeModel, cpu| -> anyhow::Result<BenchRow> {
            let (timing, r) = bench_model(
                &ctx,
                label,
                model,
                workgroup,
                args.sweeps,
                steps,
                cpu,
                warmup,
            )?;
            table.row(&[
                r.label.clone(),
                grid_name(r.shape),
                r.sites.to_string(),
                r.particles.to_string(),
                r.steps.to_string(),
                match (r.gpu_us_per_step, r.gpu_idle_us_per_step) {
                    (Some(busy), Some(idle)) => format!("{busy:.1} / {idle:.1}"),
                    _ => "-".into(),
                },
                format!("{:.1}", r.wall_us_per_step),
                format!("{:.3e}", r.site_updates_per_s),
                format!("{:.0}", r.simulated_s_per_wall_hour),
                cell(r.cpu_us_per_step, 0, ""),
                cell(r.speedup_vs_cpu, 0, "x"),
            ]);
            rows.push((&r.label, r.sites, "step"), &timing, &r)?;
            Ok(r)
        };
        let r = one("Min system", &min, cpu_steps)?;
        let passes: Vec<String> = r
            .pass_us
            .iter()
            .map(|(k, us)| format!("{k} {us:.1}"))
            .collect();
        eprintln!(
            "Min system, GPU us/step by pass (per-pass timestamps, a second run): {}",
            passes.join(", ")
        );
        eprintln!(
            "Min system, CPU us/step recording and submitting: {:.1}",
            r.record_us_per_step
        );
        for &shape in &sizes {
            let sites: u64 = shape.iter().map(|&n| n as u64).product();
            let model = uniform_model(shape, 0.5, 1)?;
            let cpu = if sites <= cpu_max { cpu_steps } else { 0 };
            one("uniform, 0.5 per site", &model, cpu)?;
        }
        let shape = sizes[sizes.len().min(2) - 1];
        for &d in &args.densities {
            let model = uniform_model(shape, d, 1)?;
            one(&format!("uniform, {d} per site"), &model, 0)?;
        }
    }
    if args.devices > 1 {
        let contexts = args.gpu.contexts(args.devices)?;
        for (k, c) in contexts.iter().enumerate() {
            eprintln!("device {k}: {} ({})", c.adapter.name, c.adapter.backend);
        }
        let options = SimOptions {
            sweeps: args.sweeps,
            halo_depth: args.halo_depth,
            balance_every: args.balance_every,
            overlap_exchange: !args.no_overlap_exchange,
            ..SimOptions::default()
        };
        let large_model = uniform_model(large, 0.5, 1)?;
        println!();
        let table = Table::print(&[
            "case",
            "devices",
            "lattice",
            "steps",
            "wall ms/step",
            "of which stepping / halo writes / balancing",
            "speedup",
            "parallel efficiency",
            "planes per device",
            "halo depth",
            "rebalances",
            "sweeps",
            "identical to 1 device",
            "GPU busy / idle ms/step per device",
            "first batch (steps): GPU ms per device",
        ]);
        for (label, model, n) in [
            ("uniform, 0.5 per site", &large_model, steps.min(500)),
            ("Min system", &min, steps),
        ] {
            for (timing, r) in bench_devices(&contexts, model, n, &options, warmup)? {
                table.row(&[
                    label.to_string(),
                    r.devices.to_string(),
                    grid_name(r.shape),
                    r.steps.to_string(),
                    format!("{:.3}", r.wall_ms_per_step),
                    format!(
                        "{:.3} / {:.3} / {:.3}",
                        r.stepping_ms_per_step, r.exchange_ms_per_step, r.balancing_ms_per_step
                    ),
                    format!("{:.2}x", r.speedup),
                    format!("{:.0}%", 100.0 * r.parallel_efficiency),
                    format!("{:?}", r.final_split),
                    r.halo_depth.to_string(),
                    r.rebalances.to_string(),
                    r.sweeps.to_string(),
                    match r.identical_to_one_device {
                        true => "yes",
                        false => "NO",
                    }
                    .to_string(),
                    gpu_columns(&r),
                    first_batch_column(&r),
                ]);
                let case = format!("{label}, {} devices", r.devices);
                let sites = model.config.sites();
                rows.push((&case, sites, "step"), &timing, &r)?;
            }
        }
    }
    rows.write(args.json.as_deref())
}

/// "(16) a, b": each device's GPU time for the simulation's first batch of 16 steps, to set
/// against its busy time per step; "-" without timestamps.
fn first_batch_column(r: &DeviceRow) -> String {
    if r.first_batch_ms.is_empty() {
        return "-".into();
    }
    let ms: Vec<String> = r.first_batch_ms.iter().map(|t| format!("{t:.1}")).collect();
    format!("({}) {}", r.first_batch_steps, ms.join(", "))
}

/// "a / b, c / d": each device's GPU busy / idle ms per step in the timed run (two timestamps
/// per batch); "-" without timestamps.
fn gpu_columns(r: &DeviceRow) -> String {
    if r.gpu_busy_ms_per_step.is_empty() {
        return "-".into();
    }
    r.gpu_busy_ms_per_step
        .iter()
        .zip(&r.gpu_idle_ms_per_step)
        .map(|(busy, idle)| format!("{busy:.3} / {idle:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}
