//! `petri run` of a reaction network (JSON or SBML) as an ensemble of stochastic trajectories,
//! `petri validate dsmts`, which runs the DSMTS cases and prints a Markdown table, and
//! `petri bench ssa` (in `bench`).

pub(crate) mod bench;

use crate::models::Model;
use crate::run::RunArgs;
use crate::{progress, GpuArgs};
use anyhow::{bail, Result};
use clap::Args;
use petri_model::catalogue::EnsembleRequest;
use petri_model::reactions::json::read_network;
use petri_model::ssa::checkpoint::Checkpoint;
use petri_model::ssa::device::Device;
use petri_model::ssa::dsmts::{
    dsmts_case, dsmts_case_names, run_dsmts_cpu, run_dsmts_with, DsmtsOutcome, DsmtsScore,
};
use petri_model::ssa::ensemble::Method;
use petri_model::ssa::gpu_ensemble::{EnsembleOptions, GpuEnsemble};
use petri_model::ssa::gpu_run::run_gpu;
use petri_model::ssa::run::run_cpu;
use std::time::Instant;

/// The shared `petri run` flags a network run takes: a step is one output time, on either
/// device.
pub(crate) const SHARED_RUN_FLAGS: &[&str] = &["--steps", "--checkpoint-every", "--resume"];

/// The `petri run` options of a reaction network (defaults applied in `run`).
#[derive(Args, Clone)]
#[command(next_help_heading = "ssa options (reaction networks)")]
pub(crate) struct SsaRunFlags {
    /// Simulation method, direct, odm (optimized direct) or tau (tau-leaping) [default: direct]
    #[arg(long)]
    method: Option<String>,
    /// Number of trajectories in the ensemble [default: 1000]
    #[arg(long)]
    trajectories: Option<u64>,
    /// End time (required for a network run)
    #[arg(long, allow_negative_numbers = true)]
    t_end: Option<f64>,
    /// Output times, evenly spaced from 0 to --t-end, both included [default: 101]
    #[arg(long)]
    points: Option<usize>,
    /// Seed of the ensemble (trajectory i uses a seed derived from it and i) [default: 1]
    #[arg(long)]
    seed: Option<u64>,
    /// auto, cpu (all cores) or gpu (one thread per trajectory, statistics on the GPU); auto
    /// takes the GPU when a hardware adapter exists, else the CPU [default: auto, or the device
    /// of the checkpoint resumed from]
    #[arg(long)]
    device: Option<String>,
    /// Also write every trajectory to trajectories.csv
    #[arg(long)]
    trajectories_csv: bool,
    /// Species to plot in mean_sd.png, e.g. A,R [default: all]
    #[arg(long, value_delimiter = ',')]
    plot_species: Vec<String>,
}

pub(crate) fn run(args: RunArgs) -> Result<()> {
    let path = args.config.clone().expect("dispatched on the config");
    let n = &args.ssa;
    // A resumed run takes the options it is not given from its checkpoint.
    let resumed = match &args.resume {
        Some(ck) => Some(Checkpoint::load(ck)?.header),
        None => None,
    };
    if n.t_end.is_none() && resumed.is_none() {
        bail!("--t-end is required for a network run: the end time of the trajectories");
    }
    if let Some(m) = &n.method {
        Method::parse("--method", m)?;
    }
    let request = EnsembleRequest {
        method: n.method.clone(),
        trajectories: n.trajectories,
        t_end: n.t_end,
        points: n.points,
        seed: n.seed,
        keep_trajectories: n.trajectories_csv.then_some(true),
        device: Device::parse("--device", n.device.as_deref().unwrap_or("auto"))?,
    };
    let mut opts = request.options(resumed.as_ref(), &path.display().to_string())?;
    let net = match read_network(&path) {
        Ok(net) => net,
        // An SBML model beyond mass action runs as a general network, else the refusal stands.
        Err(refusal) => match petri_model::reactions::sbml::read_sbml_general(&path) {
            Ok(general) if path.extension().is_some_and(|e| e != "json") => {
                return run_general(&args, &general, opts);
            }
            _ => return Err(refusal.into()),
        },
    };
    crate::run::check_out(&args, Model::Ssa)?;
    let choice = request.device(resumed.as_ref(), || {
        Ok(petri_engine::request_adapters(&args.gpu.request())?)
    })?;
    eprintln!("device: {choice}");
    let device = choice.device;
    opts.device_reason = choice.reason;
    opts.plot_species = n.plot_species.clone();
    opts.out_dir = args.out.clone();
    opts.overwrite = args.overwrite;
    opts.steps = args.steps;
    opts.checkpoint_every = args.checkpoint_every;
    opts.resume = args.resume.clone();
    opts.stop = Some(crate::interrupt::stop_check());
    let (method, t_end, trajectories) = (opts.method, opts.t_end, opts.trajectories);
    eprintln!(
        "{}: {} species, {} reactions; {} trajectories by {method} on the {} to t = {t_end}",
        path.display(),
        net.species.len(),
        net.reactions.len(),
        trajectories,
        device
    );
    let bar = progress::bar(opts.points as u64 - 1, "output times");
    let (run_s, outputs) = match device {
        Device::Cpu => {
            let report = run_cpu(&net, &opts, |row| bar.set_position(row.step))?;
            (report.timings.run_s, report.outputs)
        }
        // Rows arrive span by span (all at once without checkpoints).
        Device::Gpu => {
            let ctx = args.gpu.context()?;
            let (report, run_s) = run_gpu(&ctx, &net, &opts, &EnsembleOptions::default(), |row| {
                bar.set_position(row.step)
            })?;
            (run_s, report.outputs)
        }
    };
    bar.finish();
    println!(
        "{trajectories} trajectories in {run_s:.3} s ({:.1} per s); outputs in {}: {}",
        trajectories as f64 / run_s.max(1e-9),
        args.out.display(),
        outputs.join(", ")
    );
    Ok(())
}

/// `petri run` of an SBML model with general laws, rules or events: the direct method on the
/// CPU (`ssa::general_run`).
fn run_general(
    args: &RunArgs,
    net: &petri_model::reactions::general::GeneralNetwork,
    mut opts: petri_model::ssa::run::RunOptions,
) -> Result<()> {
    let path = args.config.as_ref().expect("dispatched on the config");
    if args.ssa.device.as_deref() == Some("gpu") {
        bail!(
            "--device gpu: {} has general laws, rules or events, which run on the CPU only \
             (docs/models/sbml-subset.md); use --device cpu or auto",
            path.display()
        );
    }
    opts.plot_species = args.ssa.plot_species.clone();
    opts.out_dir = args.out.clone();
    opts.overwrite = args.overwrite;
    opts.steps = args.steps;
    opts.checkpoint_every = args.checkpoint_every;
    opts.resume = args.resume.clone();
    petri_model::ssa::general_run::check_options(net, &opts)?;
    crate::run::check_out(args, Model::Ssa)?;
    let reason = "general laws, rules or events run on the CPU (docs/models/sbml-subset.md)";
    eprintln!("device: the CPU: {reason}");
    opts.device_reason = reason.into();
    eprintln!(
        "{}: {} species, {} reactions, {} rules, {} events; {} trajectories by the direct \
         method on the CPU to t = {}",
        path.display(),
        net.network.species.len(),
        net.network.reactions.len(),
        net.rules.len(),
        net.events.len(),
        opts.trajectories,
        opts.t_end
    );
    let bar = progress::bar(opts.points as u64 - 1, "output times");
    let report =
        petri_model::ssa::general_run::run_general(net, &opts, |row| bar.set_position(row.step))?;
    bar.finish();
    let run_s = report.timings.run_s;
    println!(
        "{} trajectories in {run_s:.3} s ({:.1} per s); outputs in {}: {}",
        opts.trajectories,
        opts.trajectories as f64 / run_s.max(1e-9),
        args.out.display(),
        report.outputs.join(", ")
    );
    Ok(())
}

/// `petri validate dsmts`: the DSMTS cases against their analytic mean and sd.
#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// Suite to validate against: dsmts (the repository's data/dsmts, or the folder in PETRI_DSMTS)
    pub(crate) suite: String,
    /// direct, odm or tau
    #[arg(long, default_value = "direct")]
    pub(crate) method: String,
    /// Trajectories per case
    #[arg(long, default_value_t = 10_000)]
    pub(crate) n: u64,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Cases to run, e.g. 00001,00023 [default: all 39]
    #[arg(long, value_delimiter = ',')]
    pub(crate) cases: Vec<String>,
    /// auto, cpu (all cores) or gpu (the GPU ensemble); auto takes the GPU when a hardware
    /// adapter exists, else the CPU
    #[arg(long, default_value = "auto")]
    pub(crate) device: String,
    #[command(flatten)]
    pub(crate) gpu: GpuArgs,
}

pub(crate) fn validate(args: ValidateArgs) -> Result<()> {
    if args.suite != "dsmts" {
        bail!("no validation suite {:?}; suites: dsmts", args.suite);
    }
    let method = Method::parse("--method", &args.method)?;
    let device = Device::parse("--device", &args.device)?;
    let request = EnsembleRequest {
        device,
        ..EnsembleRequest::default()
    };
    let choice = request.device(None, || {
        Ok(petri_engine::request_adapters(&args.gpu.request())?)
    })?;
    eprintln!("device: {choice}");
    let ctx = match choice.device {
        Device::Cpu => None,
        Device::Gpu => Some(args.gpu.context()?),
    };
    let cases = match args.cases.is_empty() {
        true => dsmts_case_names(),
        false => args.cases.clone(),
    };
    println!(
        "DSMTS, {method} on the {}, n = {}, seed {}: pass = Z in (-3, 3) and Y in (-5, 5) at every output time\n",
        choice.device, args.n, args.seed
    );
    println!("| case | result | checks | misses | max abs Z | max abs Y | time (s) |");
    println!("|---|---|---|---|---|---|---|");
    let (mut ran, mut checks, mut misses, mut refused) = (0, 0, Vec::new(), 0);
    for case in &cases {
        // A bad case name or a missing corpus stops here, naming the file.
        dsmts_case(case)?;
        let start = Instant::now();
        let outcome = match &ctx {
            None => run_dsmts_cpu(case, method, args.n, args.seed)?,
            Some(ctx) => run_dsmts_with(case, |net, times| {
                GpuEnsemble::new(ctx, net, method, &EnsembleOptions::default())?
                    .run(args.n, args.seed, times)
            })?,
        };
        match outcome {
            DsmtsOutcome::Refused(why) => {
                refused += 1;
                println!(
                    "| {case} | refused: {} | | | | | |",
                    why.replace('|', "\\|")
                );
            }
            DsmtsOutcome::Ran { scores, misses: m } => {
                let max = |f: fn(&DsmtsScore) -> f64| {
                    scores
                        .iter()
                        .map(f)
                        .filter(|v| v.is_finite())
                        .fold(0.0f64, f64::max)
                };
                println!(
                    "| {case} | {} | {} | {} | {:.2} | {:.2} | {:.1} |",
                    if m.is_empty() { "pass" } else { "miss" },
                    scores.len(),
                    m.len(),
                    max(|s| s.z.abs()),
                    max(|s| s.y.abs()),
                    start.elapsed().as_secs_f64()
                );
                ran += 1;
                checks += scores.len();
                misses.extend(m);
            }
        }
    }
    println!(
        "\n{ran} cases run ({checks} checks), {refused} refused; {} misses",
        misses.len()
    );
    for m in &misses {
        println!("  {m}");
    }
    Ok(())
}
