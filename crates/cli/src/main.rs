//! `petri`: run a model from its config file, list adapters, benchmark. Model logic lives in
//! petri-model; this file parses arguments, opens the GPU, shows progress and prints results.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use petri_engine::{list_adapters, DeviceRequest, GpuContext};
use petri_model::angiogenesis::{
    self, bench, checkpoint::Checkpoint, run::RunOptions, AngioConfig, SimOptions,
};
use std::path::PathBuf;

mod rdme;
mod ssa;
mod ssa_bench;

#[derive(Parser)]
#[command(
    name = "petri",
    version,
    about = "Portable GPU engine for biological simulation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
pub(crate) struct GpuArgs {
    /// Backend: vulkan, metal, dx12, gl or all [env: PETRI_BACKEND]
    #[arg(long)]
    pub(crate) backend: Option<String>,
    /// Use the adapter whose name contains this text, e.g. "H200" or "llvmpipe", or the one at
    /// this index of `petri adapters`, e.g. 2 (GPUs of one name) [env: PETRI_ADAPTER]
    #[arg(long)]
    pub(crate) adapter: Option<String>,
}

impl GpuArgs {
    pub(crate) fn context(&self) -> Result<GpuContext> {
        let request =
            DeviceRequest::from_env().with_overrides(self.backend.clone(), self.adapter.clone());
        let ctx = GpuContext::new(&request)?;
        eprintln!(
            "adapter: {} ({}, {}, {})",
            ctx.adapter.name, ctx.adapter.backend, ctx.adapter.device_type, ctx.adapter.driver_info
        );
        Ok(ctx)
    }
}

#[derive(Subcommand)]
enum Command {
    /// List the GPU adapters wgpu can see, best first, with the limits the models need.
    Adapters {
        #[arg(long)]
        backend: Option<String>,
    },
    /// Run a model from its JSON config and write its outputs.
    Run(RunArgs),
    /// Benchmark a model (GPU time per step from timestamp queries, CPU reference ratio).
    Bench(BenchArgs),
    /// Check the stochastic simulators against a test suite: petri validate dsmts --method tau
    Validate(ssa::ValidateArgs),
    /// rdme: analyse a finished run's kymograph again, e.g. skipping more of its start
    Analyze(AnalyzeArgs),
}

#[derive(Args)]
struct AnalyzeArgs {
    /// The run's rdme config, e.g. assets/min-system.json
    config: PathBuf,
    /// The run's output folder (holding kymograph.csv)
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Fraction of the run's time span to discard as transient (the run's own analysis: 0.2)
    #[arg(long, default_value_t = petri_model::rdme::run::ANALYSIS_SKIP_FRACTION)]
    skip_fraction: f64,
    /// Also write the report as JSON to this file
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Args)]
struct RunArgs {
    /// Model config, e.g. assets/angiogenesis.json or assets/min-system.json, or a reaction
    /// network (JSON like assets/vilar.json, or SBML .xml)
    #[arg(required_unless_present = "resume")]
    config: Option<PathBuf>,
    /// Steps to run (default: the config's "steps")
    #[arg(long)]
    steps: Option<u64>,
    /// Output folder
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Write a checkpoint (OUT/checkpoint.petri) every N steps and at the end, to resume from
    #[arg(long, value_name = "N")]
    checkpoint_every: Option<u64>,
    /// Continue from a checkpoint written by --checkpoint-every. angiogenesis: give no config
    /// (the checkpoint holds it); rdme: give the run's config too (the checkpoint holds a hash)
    #[arg(long)]
    resume: Option<PathBuf>,
    /// rdme: devices to split the lattice over along z (adapters in turn, several per adapter
    /// when there are fewer)
    #[arg(long, default_value_t = 1)]
    devices: usize,
    /// Workgroup size of the field update, e.g. 64,4,1 (results do not depend on it)
    #[arg(long, value_parser = parse_triple)]
    workgroup: Option<[u32; 3]>,
    /// rdme: which sites the diffusion sweeps look at: auto (occupied on Vulkan unless a
    /// device's slab is small and crowded, every-site otherwise; docs/models/rdme.md), every-site
    /// or occupied (results do not depend on it)
    #[arg(long, default_value = "auto")]
    sweeps: petri_model::rdme::Sweeps,
    #[command(flatten)]
    network: ssa::NetworkArgs,
    #[command(flatten)]
    gpu: GpuArgs,
}

#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Model to benchmark: angiogenesis, rdme or ssa
    pub(crate) model: String,
    /// Grid sizes: N for N^3, or NXxNYxNZ [default: angiogenesis 128,256,400x400x140,512;
    /// rdme 64,128,256,256x256x1024]
    #[arg(long, value_delimiter = ',')]
    pub(crate) sizes: Vec<String>,
    /// rdme: devices for the multi-device comparison (adapters in turn, several per adapter
    /// when there are fewer)
    #[arg(long, default_value_t = 1)]
    pub(crate) devices: usize,
    /// rdme: only the multi-device comparison (skip the single-device tables)
    #[arg(long)]
    pub(crate) scaling_only: bool,
    /// rdme: halo planes per side, i.e. steps between halo exchanges, on several devices
    #[arg(long, default_value_t = 16)]
    pub(crate) halo_depth: u32,
    /// rdme: steps between load-balancing decisions on several devices (0: never)
    #[arg(long, default_value_t = 200)]
    pub(crate) balance_every: u64,
    /// rdme: on several devices, wait for each halo exchange before the next step's first x
    /// and y sweeps, instead of running them on the planes that do not need it meanwhile
    /// (docs/models/rdme.md)
    #[arg(long)]
    pub(crate) no_overlap_exchange: bool,
    /// rdme: lattice of the multi-device comparison
    #[arg(long, default_value = "256x256x1024")]
    pub(crate) large: String,
    /// rdme: mean particles per site of the uniform lattices, for the particle-count scaling
    #[arg(long, value_delimiter = ',', default_values_t = [0.1, 0.5, 1.0, 2.0, 4.0])]
    pub(crate) densities: Vec<f64>,
    /// Timed steps per size
    #[arg(long, default_value_t = 1000)]
    pub(crate) steps: u32,
    /// Largest grid (cells) on which the multithreaded CPU reference is timed
    #[arg(long, default_value_t = 256 * 256 * 256)]
    pub(crate) cpu_max_cells: usize,
    /// CPU reference steps timed per size
    #[arg(long, default_value_t = 5)]
    pub(crate) cpu_steps: u32,
    /// Benchmark the continuous model alone (no tip cells)
    #[arg(long)]
    pub(crate) no_tips: bool,
    /// Workgroup size of the field update (angiogenesis) or of the lattice passes (rdme: X,Y,1)
    #[arg(long, value_parser = parse_triple)]
    pub(crate) workgroup: Option<[u32; 3]>,
    /// rdme: which sites the diffusion sweeps look at: auto (occupied on Vulkan unless a
    /// device's slab is small and crowded, every-site otherwise; docs/models/rdme.md), every-site
    /// or occupied
    #[arg(long, default_value = "auto")]
    pub(crate) sweeps: petri_model::rdme::Sweeps,
    /// Config to take parameters from [default: assets/angiogenesis.json, assets/min-system.json]
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Also write the rows as JSON here
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// ssa: ensemble methods (direct, odm, tau); the ensemble sizes are --sizes
    /// [default sizes: 100,1000,10000,100000; network: --config, default assets/vilar.json]
    #[arg(long, value_delimiter = ',', default_values = ["direct"])]
    pub(crate) methods: Vec<String>,
    /// ssa: end time of the ensembles (0 skips them)
    #[arg(long, default_value_t = 200.0)]
    pub(crate) t_end: f64,
    /// ssa: output times of the ensembles, 0..t_end
    #[arg(long, default_value_t = 201)]
    pub(crate) points: usize,
    /// ssa: CPU reference trajectories timed (one core)
    #[arg(long, default_value_t = 3)]
    pub(crate) cpu_trajectories: u64,
    /// ssa: synthetic network sizes (reactions = species) for tau-leaping
    #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 10_000, 100_000, 1_000_000])]
    pub(crate) reactions: Vec<usize>,
    /// ssa: GPU leap attempts timed per synthetic network (0 skips tau-leaping)
    #[arg(long, default_value_t = 200)]
    pub(crate) leaps: u64,
    /// ssa: CPU reference leap attempts at 10^4 reactions (fewer above, as N grows)
    #[arg(long, default_value_t = 100)]
    pub(crate) cpu_leaps: u64,
    /// ssa: events (or leap attempts) per thread per dispatch of the ensembles
    #[arg(long, default_value_t = petri_model::ssa::gpu_ensemble::EnsembleOptions::default().event_budget)]
    pub(crate) event_budget: u32,
    /// ssa: run the direct method with the table-driven kernel instead of the network compiled
    /// into the shader
    #[arg(long)]
    pub(crate) table_kernel: bool,
    #[command(flatten)]
    pub(crate) gpu: GpuArgs,
}

pub(crate) fn parse_triple(s: &str) -> std::result::Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<std::result::Result<_, _>>()?;
    match v.as_slice() {
        [x, y, z] if x * y * z > 0 => Ok([*x, *y, *z]),
        _ => Err(format!(
            "expected three positive integers like 64,4,1, got {s:?}"
        )),
    }
}

fn sim_options(workgroup: Option<[u32; 3]>) -> SimOptions {
    let mut o = SimOptions::default();
    if let Some(w) = workgroup {
        o.workgroup = w;
    }
    o
}

fn analyze(args: AnalyzeArgs) -> Result<()> {
    match read_config(&args.config)?.1 {
        "rdme" => rdme::analyze(
            &args.config,
            &args.out,
            args.skip_fraction,
            args.json.as_deref(),
        ),
        model => bail!(
            "{} is for model {model}; only rdme runs have a kymograph to analyse",
            args.config.display()
        ),
    }
}

/// Reads a config file: its text and the model it is for.
fn read_config(path: &PathBuf) -> Result<(String, &'static str)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    let model = match value.get("model").and_then(|m| m.as_str()) {
        Some("angiogenesis") => "angiogenesis",
        Some("rdme") => "rdme",
        Some(other) => bail!(
            "{}: model {other:?} is not available; models: angiogenesis, rdme, network",
            path.display()
        ),
        None => bail!(
            "{}: the config needs a \"model\" field; models: angiogenesis, rdme, network",
            path.display()
        ),
    };
    Ok((text, model))
}

/// Reads an angiogenesis config.
fn load_config(path: &PathBuf) -> Result<AngioConfig> {
    match read_config(path)? {
        (text, "angiogenesis") => Ok(AngioConfig::from_json(&text, &path.display().to_string())?),
        (_, model) => bail!(
            "{} is for model {model}; an angiogenesis config is needed here",
            path.display()
        ),
    }
}

fn run(args: RunArgs) -> Result<()> {
    if let Some(config) = &args.config {
        if ssa::is_network(config)? {
            return ssa::run(args);
        }
    }
    args.network.refuse_for_other_models()?;
    match (&args.config, &args.resume) {
        (Some(config), _) if read_config(config)?.1 == "rdme" => return rdme::run(args),
        (Some(config), Some(_)) => bail!(
            "--resume continues an angiogenesis run from the checkpoint alone; leave out the \
             config {}",
            config.display()
        ),
        (None, Some(ck)) if rdme::is_checkpoint(ck) => bail!(
            "{} is an rdme checkpoint: give the run's config too (petri run CONFIG --resume {})",
            ck.display(),
            ck.display()
        ),
        _ => {}
    }
    if args.devices != 1 {
        bail!("angiogenesis runs on one device; --devices is for rdme");
    }
    let ctx = args.gpu.context()?;
    let opts = RunOptions {
        steps: args.steps,
        out_dir: args.out.clone(),
        sim: sim_options(args.workgroup),
        checkpoint_every: args.checkpoint_every,
    };
    let t = std::time::Instant::now();
    let sim = match &args.resume {
        Some(path) => {
            let ck = Checkpoint::load(path)?;
            eprintln!("resuming from {} at step {}", path.display(), ck.state.step);
            ck.into_sim(&ctx, &opts.sim)?
        }
        None => {
            let path = args
                .config
                .as_ref()
                .expect("clap requires a config without --resume");
            angiogenesis::AngioSim::new(&ctx, &load_config(path)?, &opts.sim)?
        }
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
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps  {per_sec}  eta {eta}  {msg}")
            .expect("valid template"),
    );
    let resumed = args.resume.is_some();
    let (_, report) = angiogenesis::run::run_sim(&ctx, sim, &opts, resumed, setup, |o| {
        bar.set_position(o.step - first);
        bar.set_message(format!(
            "tips {} sprouts {} length {:.3}",
            o.tips, o.sprouts, o.vessel_length
        ));
    })?;
    bar.finish();
    let o = &report.last;
    println!(
        "step {}: total n {:.4}, tips {}, sprouts {}, branches {}, anastomoses {}, vessel length {:.3}",
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

fn bench_cmd(mut args: BenchArgs) -> Result<()> {
    match args.model.as_str() {
        "angiogenesis" => {}
        "rdme" => return rdme::bench(args),
        "ssa" => return ssa_bench::bench(args),
        other => bail!("no benchmark for model {other:?}; models: angiogenesis, rdme, ssa"),
    }
    if args.sizes.is_empty() {
        args.sizes = ["128", "256", "400x400x140", "512"]
            .map(String::from)
            .to_vec();
    }
    let ctx = args.gpu.context()?;
    let config = args
        .config
        .clone()
        .unwrap_or_else(|| "assets/angiogenesis.json".into());
    let base = load_config(&config)?;
    let sizes = args
        .sizes
        .iter()
        .map(|s| {
            bench::parse_size(s).with_context(|| format!("size {s:?}: expected N or NXxNYxNZ"))
        })
        .collect::<Result<Vec<_>>>()?;
    let opts = bench::BenchOptions {
        sizes: sizes.clone(),
        steps: args.steps,
        cpu_max_cells: args.cpu_max_cells,
        cpu_steps: args.cpu_steps,
        sim: sim_options(args.workgroup),
        tips: !args.no_tips,
    };
    if !ctx.has_timestamps() {
        eprintln!("note: this adapter has no timestamp queries; GPU times are wall clock");
    }
    println!(
        "| grid | cells | steps | field update ms/step | all passes ms/step | GPU s total | Gcell/s | GB/s @8B | GB/s @44B | tips | CPU ms/step ({} thr) | GPU/CPU speedup |",
        rayon_threads()
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for grid in sizes {
        let r = bench::bench_size(&ctx, &base, grid, &opts)?;
        println!(
            "| {}x{}x{} | {} | {} | {:.4} | {:.4} | {:.3} | {:.1} | {:.0} | {:.0} | {} | {} | {} |",
            grid[0],
            grid[1],
            grid[2],
            r.cells,
            r.steps,
            r.fields_ms,
            r.step_ms,
            r.total_gpu_s,
            r.cell_updates_per_s * 1e-9,
            r.bandwidth_counted_gbs,
            r.bandwidth_actual_gbs,
            r.tips,
            r.cpu_ms.map(|c| format!("{c:.2}")).unwrap_or("-".into()),
            r.speedup_vs_cpu
                .map(|s| format!("{s:.0}x"))
                .unwrap_or("-".into()),
        );
        rows.push(r);
    }
    for r in &rows {
        let passes: Vec<String> = r
            .pass_ms
            .iter()
            .map(|(k, ms)| format!("{k} {ms:.4}"))
            .collect();
        if !passes.is_empty() {
            println!(
                "{}x{}x{} ms/step by pass: {}",
                r.grid[0],
                r.grid[1],
                r.grid[2],
                passes.join(", ")
            );
        }
    }
    println!();
    println!("Reference kernel (plain 7-point diffusion of one field, 8 B/cell; same as benches/reference/stencil7.cu):");
    println!("| grid | workgroup | ms/step | Gcell/s | GB/s @8B |");
    println!("|---|---|---|---|---|");
    let mut refs = Vec::new();
    for grid in &opts.sizes {
        let r =
            bench::bench_reference_stencil(&ctx, *grid, opts.sim.workgroup, args.steps.min(500))?;
        println!(
            "| {}x{}x{} | {}x{}x{} | {:.4} | {:.1} | {:.0} |",
            grid[0],
            grid[1],
            grid[2],
            r.workgroup[0],
            r.workgroup[1],
            r.workgroup[2],
            r.ms_per_step,
            r.cell_updates_per_s * 1e-9,
            r.bandwidth_gbs
        );
        refs.push(r);
    }
    if let Some(path) = args.json {
        petri_output::write_json_pretty(
            &path,
            &serde_json::json!({ "model": rows, "reference_stencil": refs }),
        )?;
    }
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

fn adapters(backend: Option<String>) -> Result<()> {
    let list = list_adapters(backend.as_deref())?;
    if list.is_empty() {
        bail!(petri_engine::EngineError::NoAdapter {
            filter: String::new()
        });
    }
    for (i, a) in list.iter().enumerate() {
        println!("[{i}] {} ({}, {})", a.name, a.backend, a.device_type);
        println!("    driver: {} {}", a.driver, a.driver_info);
        println!(
            "    max buffer {} MiB, max storage binding {} MiB, {} storage buffers/stage, workgroup storage {} KiB, {} invocations/workgroup",
            a.max_buffer_size >> 20,
            a.max_storage_buffer_binding_size >> 20,
            a.max_storage_buffers_per_shader_stage,
            a.max_compute_workgroup_storage_size >> 10,
            a.max_compute_invocations_per_workgroup
        );
        println!(
            "    compute shaders {} ({}), timestamps {}, subgroups {}, f64 {}, f16 {}",
            yes(a.compute_shaders),
            a.shading_language,
            yes(a.timestamp_query),
            yes(a.subgroups),
            yes(a.shader_f64),
            yes(a.shader_f16)
        );
    }
    Ok(())
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Adapters { backend } => adapters(backend),
        Command::Run(a) => run(a),
        Command::Bench(a) => bench_cmd(a),
        Command::Validate(a) => ssa::validate(a),
        Command::Analyze(a) => analyze(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
