//! Reaction networks as a [`Model`]: a config with "model": "network", or with "reactions" and
//! no "model", or an SBML file, runs as an ensemble of stochastic trajectories (on the CPU or
//! the GPU); an SBML model beyond mass action runs as a general network on the CPU. Also
//! `petri validate dsmts` (the DSMTS cases against their analytic mean and sd) and `petri
//! bench ssa`.

use super::bench::{bench_cpu_vs_rebop, bench_ensemble, bench_laws, bench_leap};
use super::checkpoint::{Checkpoint, Header};
use super::device::{choose_device, Device, DeviceChoice};
use super::dsmts::{
    dsmts_case, dsmts_case_names, run_dsmts_cpu, run_dsmts_general, run_dsmts_with, DsmtsOutcome,
    DsmtsScore,
};
use super::ensemble::Method;
use super::general_run::{check_options, GeneralRun};
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble};
use super::gpu_general::check_gpu;
use super::gpu_run::GpuSsaRun;
use super::run::{RunOptions as SsaOptions, SsaRun};
use super::synthetic::square_network;
use super::team_run::{self, ShareDevice, ShareSpec};
use crate::command::{cell, check_json, command_of, GpuArgs, Rows};
use crate::error::{invalid, ModelError, Result};
use crate::model::{model_field, Config, Model, OpenRequest, Opened, Placement, SharedFlag};
use crate::reactions::json::{parse_network_json, read_network};
use crate::reactions::sbml::read_sbml_general;
use crate::reactions::Network;
use crate::team::Team;
use anyhow::bail;
use clap::{Args, FromArgMatches};
use petri_engine::AdapterSummary;
use petri_scheduler::bench::{Meta, Table};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The model.
pub struct Ssa;

impl Model for Ssa {
    fn name(&self) -> &'static str {
        "network"
    }
    fn label(&self) -> &'static str {
        "ssa (reaction network)"
    }
    fn about(&self) -> &'static str {
        "GPU ensembles of a reaction network and GPU tau-leaping of synthetic networks"
    }
    /// SBML, "model": "network", or "reactions" without "model".
    fn claims(&self, config: &Config, json: Option<&serde_json::Value>) -> bool {
        match (config, json) {
            (Config::Sbml(_), _) => true,
            (_, Some(v)) => match v.get("model") {
                Some(_) => model_field(json) == Some("network"),
                None => v.get("reactions").is_some(),
            },
            (_, None) => false,
        }
    }
    fn run_flags(&self) -> clap::Command {
        SsaRunFlags::augment_args(clap::Command::new(self.name()))
    }
    /// A step is one output time, on either device.
    fn shared_flags(&self) -> &'static [SharedFlag] {
        &[
            SharedFlag::Steps,
            SharedFlag::CheckpointEvery,
            SharedFlag::Resume,
        ]
    }

    fn open(&self, request: &OpenRequest) -> Result<Opened> {
        let (net, opts, choice) = match network_run(request)? {
            NetworkRun::General(opened) => return Ok(opened),
            NetworkRun::MassAction(net, opts, choice) => (net, opts, choice),
        };
        let (sim, placement): (Box<dyn crate::runtime::Driven>, Placement) = match choice.device {
            Device::Cpu => {
                let sim = match request.resume {
                    Some(path) => SsaRun::resume(&net, &opts, path)?,
                    None => SsaRun::new(&net, &opts)?,
                };
                let placement = Placement {
                    device: "cpu".into(),
                    reason: choice.reason,
                };
                (Box::new(sim), placement)
            }
            Device::Gpu => {
                let ctx = request.devices.context()?;
                let options = EnsembleOptions::default();
                let sim = match request.resume {
                    Some(path) => GpuSsaRun::resume(&ctx, &net, &opts, &options, path)?,
                    None => GpuSsaRun::new(&ctx, &net, &opts, &options)?,
                };
                let placement = Placement {
                    reason: choice.reason,
                    ..request.placement(&ctx)
                };
                (Box::new(sim), placement)
            }
        };
        Ok(Opened {
            model: &Ssa,
            sim,
            placement,
        })
    }

    /// A mass-action network's ensemble split over the ranks (`team_run`); each rank opens
    /// its own device.
    fn open_ranks(&self, request: &OpenRequest, team: Arc<dyn Team>) -> Result<Option<Opened>> {
        let spec = || {
            let (net, opts, choice) = match network_run(request)? {
                NetworkRun::General(_) => {
                    return Err(ModelError::Usage(
                        "--mpi: a network with general laws, rules or events runs in one \
                         process (docs/models/sbml-subset.md)"
                            .into(),
                    ))
                }
                NetworkRun::MassAction(net, opts, choice) => (net, opts, choice),
            };
            let device = match choice.device {
                Device::Cpu => ShareDevice::Cpu,
                Device::Gpu => {
                    ShareDevice::Gpu(request.devices.context()?, EnsembleOptions::default())
                }
            };
            Ok(ShareSpec {
                net,
                opts,
                device,
                reason: choice.reason,
            })
        };
        Ok(
            team_run::open_ranks(team, spec)?.map(|(sim, placement)| Opened {
                model: &Ssa,
                sim: Box::new(sim),
                placement,
            }),
        )
    }

    fn bench_command(&self) -> Option<clap::Command> {
        Some(command_of::<BenchArgs>("ssa", self.about()))
    }
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        bench_tables(BenchArgs::from_arg_matches(args)?)
    }
    fn commands(&self) -> Vec<clap::Command> {
        vec![command_of::<ValidateArgs>(
            "validate",
            "Check the stochastic simulators against a test suite: petri validate dsmts --method tau",
        )]
    }
    fn command(&self, name: &str, args: &clap::ArgMatches) -> anyhow::Result<()> {
        match name {
            "validate" => validate(ValidateArgs::from_arg_matches(args)?),
            other => bail!("ssa has no command {other}"),
        }
    }
}

/// What a network run is before its simulation is built (once per run: its size is no cost).
#[allow(clippy::large_enum_variant)]
enum NetworkRun {
    /// An SBML model beyond mass action, opened as a general network on the CPU.
    General(Opened),
    /// A mass-action network, the run's options and its device.
    MassAction(Network, SsaOptions, DeviceChoice),
}

/// Reads the request's network and options and chooses the device.
fn network_run(request: &OpenRequest) -> Result<NetworkRun> {
    let config = request.config(Ssa.name())?;
    let flags: SsaRunFlags = request.flags()?;
    if flags.t_end.is_none() && request.resume.is_none() {
        return Err(ModelError::Usage(
            "--t-end is required for a network run: the end time of the trajectories (t_end)"
                .into(),
        ));
    }
    let ensemble = flags.request()?;
    let header = match request.resume {
        Some(path) => Some(Checkpoint::load(path)?.header),
        None => None,
    };
    let mut opts = ensemble.options(header.as_ref(), &config.origin())?;
    opts.resume = request.resume.map(Path::to_path_buf);
    opts.plot_species = flags.plot_species.clone();
    let net = match network(config) {
        Ok(net) => net,
        // An SBML model beyond mass action runs as a general network, else the refusal
        // stands. One that is mass action once its units and compartments are converted
        // (moles, several compartments) runs as mass action, with every method.
        Err(refusal) => match config {
            Config::Sbml(path) => match read_sbml_general(path) {
                Ok(general) if general.is_mass_action() => general.network,
                Ok(general) => {
                    return open_general(&general, opts, &ensemble, header.as_ref(), request)
                        .map(NetworkRun::General)
                }
                Err(_) => return Err(refusal),
            },
            Config::Json { .. } => return Err(refusal),
        },
    };
    let choice = ensemble.device(header.as_ref(), || request.devices.adapters())?;
    opts.device_reason = choice.reason.clone();
    Ok(NetworkRun::MassAction(net, opts, choice))
}

/// The mass-action network of a config (JSON or SBML).
fn network(config: &Config) -> Result<Network> {
    match config {
        Config::Json { text, origin, .. } => parse_network_json(text, origin),
        Config::Sbml(path) => read_network(path),
    }
}

/// An SBML model with general laws, rules or events: the direct method on the CPU, the direct
/// or optimized direct method on the GPU (events without delays, assigning species);
/// `--device auto` takes the GPU as for a mass-action network unless the model has events the
/// GPU refuses, or resumes on the CPU that wrote `header`'s checkpoint.
fn open_general(
    net: &crate::reactions::general::GeneralNetwork,
    mut opts: SsaOptions,
    ensemble: &EnsembleRequest,
    header: Option<&Header>,
    request: &OpenRequest,
) -> Result<Opened> {
    let on_gpu = check_gpu(net, opts.method);
    let choice = match (ensemble.device, &on_gpu) {
        (None, _) if header.is_some() => ensemble.device(header, || request.devices.adapters())?,
        (None, Err(why)) if !net.events.is_empty() => DeviceChoice {
            device: Device::Cpu,
            reason: format!("the events run on the CPU: {why}"),
        },
        _ => ensemble.device(None, || request.devices.adapters())?,
    };
    opts.device_reason = choice.reason.clone();
    match choice.device {
        Device::Cpu => Ok(Opened {
            model: &Ssa,
            sim: Box::new(GeneralRun::new(net, &opts)?),
            placement: Placement {
                device: "cpu".into(),
                reason: choice.reason,
            },
        }),
        Device::Gpu => {
            // Refused before a device is opened.
            check_options(net, &opts, true)?;
            on_gpu?;
            let ctx = request.devices.context()?;
            opts.stop = request.stop.clone();
            let sim = GeneralRun::new_gpu(&ctx, net, &opts, &EnsembleOptions::default())?;
            Ok(Opened {
                model: &Ssa,
                sim: Box::new(sim),
                placement: Placement {
                    reason: choice.reason,
                    ..request.placement(&ctx)
                },
            })
        }
    }
}

/// The `petri run` options of a reaction network (defaults applied in `run`).
#[derive(Args, Clone)]
#[command(next_help_heading = "ssa options (reaction networks)")]
struct SsaRunFlags {
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
    /// Species to plot in mean_sd.png, e.g. A,R [default: the network's `plot`, else all]
    #[arg(long, value_delimiter = ',')]
    plot_species: Vec<String>,
}

impl SsaRunFlags {
    /// The ensemble the flags ask for.
    fn request(&self) -> Result<EnsembleRequest> {
        if let Some(m) = &self.method {
            Method::parse("--method", m)?;
        }
        Ok(EnsembleRequest {
            method: self.method.clone(),
            trajectories: self.trajectories,
            t_end: self.t_end,
            points: self.points,
            seed: self.seed,
            keep_trajectories: self.trajectories_csv.then_some(true),
            device: Device::parse("--device", self.device.as_deref().unwrap_or("auto"))?,
        })
    }
}

/// How a reaction network's ensemble runs. A field left out takes the checkpoint's value when
/// resuming, else the default (direct method, 1000 trajectories, 101 output times, seed 1, the
/// device by [`choose_device`]); `t_end` has no default.
#[derive(Clone, Debug, Default)]
pub struct EnsembleRequest {
    pub method: Option<String>,
    pub trajectories: Option<u64>,
    pub t_end: Option<f64>,
    pub points: Option<usize>,
    pub seed: Option<u64>,
    /// Keep every trajectory's counts at every output time (the `trajectories` array).
    pub keep_trajectories: Option<bool>,
    pub device: Option<Device>,
}

impl EnsembleRequest {
    /// The run's options, filled from the checkpoint's `header` where the request is silent;
    /// the sizes checked (trajectories, end time, output times) before any device is chosen.
    pub fn options(&self, header: Option<&Header>, source: &str) -> Result<SsaOptions> {
        let t_end = match self.t_end.or(header.map(|h| h.t_end)) {
            Some(t) => t,
            None => {
                return Err(invalid(
                    "t_end",
                    "(missing)",
                    "the end time of the trajectories",
                ))
            }
        };
        let method = match (&self.method, header) {
            (Some(m), _) => m.clone(),
            (None, Some(h)) => h.method.clone(),
            (None, None) => "direct".into(),
        };
        let options = SsaOptions {
            method: Method::parse("method", &method)?,
            trajectories: self
                .trajectories
                .or(header.map(|h| h.trajectories))
                .unwrap_or(1000),
            t_end,
            points: self.points.or(header.map(|h| h.points)).unwrap_or(101),
            seed: self.seed.or(header.map(|h| h.seed)).unwrap_or(1),
            keep_trajectories: self
                .keep_trajectories
                .or(header.map(|h| h.keep_trajectories))
                .unwrap_or(false),
            plot_species: Vec::new(),
            device_reason: String::new(),
            stop: None,
            out_dir: PathBuf::new(),
            overwrite: false,
            source: source.to_string(),
            steps: None,
            checkpoint_every: None,
            resume: None,
        };
        options.check_sizes()?;
        Ok(options)
    }

    /// The device: the one asked for, else the checkpoint's, else the automatic choice among
    /// `adapters`.
    pub fn device(
        &self,
        header: Option<&Header>,
        adapters: impl FnOnce() -> Result<Vec<AdapterSummary>>,
    ) -> Result<DeviceChoice> {
        Ok(match (self.device, header) {
            (Some(device), _) => DeviceChoice {
                device,
                reason: "asked for".into(),
            },
            (None, Some(h)) => DeviceChoice {
                device: if h.gpu.is_some() {
                    Device::Gpu
                } else {
                    Device::Cpu
                },
                reason: "the device of the checkpoint resumed from".into(),
            },
            (None, None) => choose_device(&adapters()?),
        })
    }
}

/// `petri validate dsmts`: the DSMTS cases against their analytic mean and sd.
#[derive(Args)]
struct ValidateArgs {
    /// Suite to validate against: dsmts (the repository's data/dsmts, or the folder in PETRI_DSMTS)
    suite: String,
    /// direct, odm or tau
    #[arg(long, default_value = "direct")]
    method: String,
    /// Trajectories per case
    #[arg(long, default_value_t = 10_000)]
    n: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cases to run, e.g. 00001,00023 [default: all 39]
    #[arg(long, value_delimiter = ',')]
    cases: Vec<String>,
    /// auto, cpu (all cores) or gpu (the GPU ensemble); auto takes the GPU when a hardware
    /// adapter exists, else the CPU
    #[arg(long, default_value = "auto")]
    device: String,
    #[command(flatten)]
    gpu: GpuArgs,
}

fn validate(args: ValidateArgs) -> anyhow::Result<()> {
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
            Some(ctx) => {
                let refuse = |net: &_| check_gpu(net, method).err().map(|e| e.to_string());
                let general = run_dsmts_general(case, refuse, |net, times| {
                    GpuEnsemble::new_general(ctx, net, method, &EnsembleOptions::default())?
                        .run_general(args.n, args.seed, times)
                })?;
                match general {
                    Some(outcome) => outcome,
                    None => run_dsmts_with(case, |net, times| {
                        GpuEnsemble::new(ctx, net, method, &EnsembleOptions::default())?
                            .run(args.n, args.seed, times)
                    })?,
                }
            }
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

/// `petri bench ssa`.
#[derive(Args)]
struct BenchArgs {
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
    /// Also time a Michaelis-Menten birth-death network (a general law) against its
    /// mass-action twin on the GPU ensemble, per event, at --sizes
    #[arg(long)]
    laws: bool,
    /// Also write the rows as JSON here
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
}

fn bench_tables(args: BenchArgs) -> anyhow::Result<()> {
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

    if args.laws && !trajectories.is_empty() {
        let t_end = 50.0;
        println!(
            "\n### Kinetic laws on the GPU ensemble: birth-death with Michaelis-Menten or mass-action death, t = 0..{t_end}, 51 outputs\n"
        );
        let table = Table::print(&[
            "law",
            "trajectories",
            "wall s",
            "GPU s",
            "events/trajectory",
            "ns/event",
        ]);
        let options = EnsembleOptions {
            event_budget: args.event_budget,
            ..EnsembleOptions::default()
        };
        for (timing, r) in &bench_laws(&ctx, trajectories, t_end, 51, &options)? {
            table.row(&[
                r.law.clone(),
                r.trajectories.to_string(),
                format!("{:.3}", r.wall_s),
                cell(r.gpu_s, 3, ""),
                format!("{:.0}", r.events_per_trajectory),
                format!("{:.2}", r.ns_per_event),
            ]);
            let case = format!("kinetic law, {}", r.law);
            rows.push((&case, r.trajectories, "run"), timing, r)?;
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
fn cpu_vs_rebop(args: &BenchArgs, net: &Network) -> anyhow::Result<()> {
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
