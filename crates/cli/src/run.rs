//! `petri run CONFIG`: the model comes from the config (or, for `--resume` alone, from the
//! checkpoint); every flag given is checked against the flags that model takes before any file
//! is written or device opened, so none is silently ignored. The model opens its simulation
//! (`Model::open`, as the Python package does) and the runtime runs it into the folder.

use crate::{interrupt, progress};
use anyhow::{bail, Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use petri_engine::DeviceRequest;
use petri_model::command::{article, GpuArgs};
use petri_model::model::{Config, Devices, Model, OpenRequest};
use petri_model::registry::Registry;
use petri_model::runtime::RunOptions;
use petri_model::ModelError;
use petri_output::{check_output_folder, FolderUse, MANIFEST_FILE};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The options of `petri run` every model shares; each model adds its own
/// (`Model::run_flags`) and says which of `--steps`, `--checkpoint-every`, `--resume` and
/// `--workgroup` it takes (`Model::shared_flags`).
#[derive(Args)]
struct RunArgs {
    /// Model config, e.g. assets/angiogenesis.json or assets/min-system.json, or a reaction
    /// network (JSON like assets/vilar.json, or SBML .xml)
    #[arg(required_unless_present = "resume")]
    config: Option<PathBuf>,
    /// Steps to run (default: the config's "steps"; ssa: output times, default to --t-end)
    #[arg(long)]
    steps: Option<u64>,
    /// Output folder: missing or empty for a new run (see --overwrite); a resumed run continues
    /// the run of its own model in it
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Replace the earlier run in --out: remove the files its manifest.json lists first (a folder
    /// that also holds other files is refused, nothing removed)
    #[arg(long, conflicts_with = "resume")]
    overwrite: bool,
    /// Write a checkpoint (OUT/checkpoint.petri) every N steps (N >= 1) and at the end, to
    /// resume from (ssa: output times, on either device)
    #[arg(long, value_name = "N", value_parser = parse_checkpoint_every)]
    checkpoint_every: Option<u64>,
    /// Continue from a checkpoint written by --checkpoint-every. angiogenesis: give no config
    /// (the checkpoint holds it); the other models: give the run's config too (the checkpoint
    /// holds a hash)
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Workgroup size of the field update (angiogenesis), of the lattice passes (rdme: X,Y,1)
    /// or of the element and cell passes (epidermis, gliding: N,1,1), e.g. 64,4,1 (results do
    /// not depend on it)
    #[arg(long, value_parser = petri_model::command::parse_triple)]
    workgroup: Option<[u32; 3]>,
    /// Split the run over the ranks of an MPI launch (mpirun -np N petri run ... --mpi): a
    /// reaction-network ensemble's trajectories, each rank on the GPU of its node-local rank
    /// (unless --adapter says), rank 0 writing the outputs; needs a petri built with
    /// `--features mpi` (docs/SCALING.md)
    #[arg(long)]
    mpi: bool,
    #[command(flatten)]
    gpu: GpuArgs,
}

/// Flags every model takes (`--mpi`: a model that does not split over ranks refuses it).
const ALWAYS: &[&str] = &["--out", "--overwrite", "--backend", "--adapter", "--mpi"];

/// `petri run` with every model's flags.
pub(crate) fn command(registry: &Registry) -> Command {
    let mut run = RunArgs::augment_args(Command::new("run").about(
        "Run a model from its config (the model is the config's \"model\"; a reaction network \
         runs as an ssa ensemble) and write its outputs.",
    ));
    for model in registry.models() {
        for arg in model.run_flags().get_arguments() {
            run = run.arg(arg.clone());
        }
    }
    run
}

/// `--checkpoint-every N`: N >= 1 (0 would checkpoint never, or at every step).
fn parse_checkpoint_every(s: &str) -> std::result::Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("0 steps between checkpoints: N must be 1 or more".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}; N must be a whole number, 1 or more")),
    }
}

/// The long flags given on the command line of `petri run` (defaults not included).
fn given_flags(registry: &Registry, matches: &ArgMatches) -> Vec<String> {
    command(registry)
        .get_arguments()
        .filter(|a| matches.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine))
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect()
}

/// The flags `model` takes besides [`ALWAYS`].
fn flags_of(model: &dyn Model) -> Vec<String> {
    let shared = model.shared_flags().iter().map(|f| f.long().to_string());
    let own = model
        .run_flags()
        .get_arguments()
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect::<Vec<_>>();
    shared.chain(own).collect()
}

pub(crate) fn run(registry: &Registry, matches: &ArgMatches) -> Result<()> {
    let args = RunArgs::from_arg_matches(matches)?;
    let config = args.config.as_deref().map(Config::read).transpose()?;
    let resume = args.resume.as_deref();
    let (model, why) = model_of(registry, config.as_ref(), &args)?;
    refuse_other_models_flags(registry, model, &why, &given_flags(registry, matches))?;
    match (&args.config, resume) {
        (Some(c), Some(_)) if model.resumes_from_checkpoint_alone() => bail!(
            "--resume continues {} {} run from the checkpoint alone; leave out the config {}",
            article(model.name()),
            model.name(),
            c.display()
        ),
        (None, Some(ck)) if !model.resumes_from_checkpoint_alone() => bail!(
            "{} is {} {} checkpoint: give the run's config too (petri run CONFIG --resume {})",
            ck.display(),
            article(model.name()),
            model.name(),
            ck.display()
        ),
        _ => {}
    }
    if args.mpi {
        return over_ranks(model, &args, config.as_ref(), matches);
    }
    let devices = RunDevices {
        args: &args,
        model: model.name(),
        request: args.gpu.request(),
        lead: true,
    };
    let t = Instant::now();
    let opened = model.open(&open_request(&args, config.as_ref(), matches, &devices))?;
    run_opened(&args, opened, t)
}

fn open_request<'a>(
    args: &'a RunArgs,
    config: Option<&'a Config>,
    matches: &'a ArgMatches,
    devices: &'a dyn Devices,
) -> OpenRequest<'a> {
    OpenRequest {
        config,
        resume: args.resume.as_deref(),
        flags: matches,
        workgroup: args.workgroup,
        devices,
        // Installed before the model opens: an open that runs the simulation stops too.
        stop: Some(interrupt::stop_check()),
    }
}

/// The run as one rank of an MPI launch: rank 0 runs the simulation (which drives the other
/// ranks) into the folder; the others serve it.
#[cfg(feature = "mpi")]
fn over_ranks(
    model: &dyn Model,
    args: &RunArgs,
    config: Option<&Config>,
    matches: &ArgMatches,
) -> Result<()> {
    let launch = crate::team::Launch::start()?;
    let devices = RunDevices {
        args,
        model: model.name(),
        request: launch
            .device(args.gpu.request(), &[])
            .unwrap_or_else(|e| launch.abort(&e)),
        lead: launch.is_lead(),
    };
    let t = Instant::now();
    let team = launch.team.clone();
    let opened = model
        .open_ranks(&open_request(args, config, matches, &devices), team)
        .map_err(|e| match launch.is_lead() {
            // Rank 0's errors name the rank that failed.
            true => anyhow::Error::from(e),
            false => anyhow::anyhow!("{}: {e}", launch.describe()),
        })?;
    match opened {
        Some(opened) => run_opened(args, opened, t),
        None => Ok(()),
    }
}

#[cfg(not(feature = "mpi"))]
fn over_ranks(_: &dyn Model, _: &RunArgs, _: Option<&Config>, _: &ArgMatches) -> Result<()> {
    bail!(
        "--mpi: this petri was built without MPI; build it with `cargo build --release -p \
         petri-cli --features mpi` (Debian: openmpi-bin, libopenmpi-dev, libclang-dev)"
    )
}

/// Runs an opened simulation into the folder, showing progress, and prints its end.
fn run_opened(args: &RunArgs, opened: petri_model::model::Opened, t: Instant) -> Result<()> {
    let resume = args.resume.as_deref();
    let setup_s = t.elapsed().as_secs_f64();
    let p = &opened.placement;
    eprintln!("device: {} ({})", p.device, p.reason);
    let mut sim = opened.sim;
    let first = sim.step();
    let total = args.steps.unwrap_or(sim.schedule().steps);
    if let Some(path) = resume {
        eprintln!("resuming from {} at step {first}", path.display());
    }
    eprintln!("{}; {total} steps from step {first}", sim.describe());
    let opts = RunOptions {
        steps: args.steps,
        out_dir: args.out.clone(),
        checkpoint_every: args.checkpoint_every,
        resumed: resume.is_some(),
        overwrite: args.overwrite,
        setup_s,
        stop: Some(interrupt::stop_check()),
    };
    let bar = progress::bar(total, "steps");
    let result = sim.run_into(&opts, &mut |row, words| {
        bar.set_position(row.step - first);
        bar.set_message(words.to_string());
    });
    bar.finish();
    let done = match result {
        Ok(done) => done,
        Err(e) => {
            report_kept(&args.out);
            return Err(e.into());
        }
    };
    for line in &done.summary {
        println!("{line}");
    }
    let t = &done.timings;
    let simulated = t.simulated_s_per_wall_hour.map_or(String::new(), |s| {
        format!(", {s:.3e} simulated s per wall hour")
    });
    println!(
        "{:.1} steps/s{simulated} over {:.2} s; outputs in {}: {}",
        t.steps_per_s,
        t.run_s,
        args.out.display(),
        done.outputs.join(", ")
    );
    Ok(())
}

/// The devices of `petri run --backend --adapter`; before a model looks at them (its config
/// read well), the output folder is checked.
struct RunDevices<'a> {
    args: &'a RunArgs,
    model: &'static str,
    request: DeviceRequest,
    /// The process that writes the folder (every process but ranks 1.. of an MPI launch).
    lead: bool,
}

impl Devices for RunDevices<'_> {
    fn request(&self) -> DeviceRequest {
        self.request.clone()
    }
    fn before_devices(&self) -> petri_model::error::Result<()> {
        if !self.lead {
            return Ok(());
        }
        check_out(self.args, self.model).map_err(|e| ModelError::Usage(format!("--out: {e}")))
    }
}

/// Refuses an output folder the run may not use, before any device is opened (the runtime
/// prepares the folder, with --overwrite removing the earlier run's files, once the run is
/// built; a run on no device meets the same check there).
fn check_out(args: &RunArgs, model: &str) -> std::result::Result<(), petri_output::OutputError> {
    let how = match (&args.resume, args.overwrite) {
        (Some(_), _) => FolderUse::Continue,
        (None, true) => FolderUse::Overwrite,
        (None, false) => FolderUse::Fresh,
    };
    let removed = check_output_folder(&args.out, how, model)?;
    if how == FolderUse::Overwrite && !removed.is_empty() {
        eprintln!(
            "--overwrite: the earlier run's {} files in {} go once the run starts",
            removed.len(),
            args.out.display()
        );
    }
    Ok(())
}

/// After a run stopped on an error, says what its folder kept (its manifest lists it).
fn report_kept(out: &Path) {
    let Ok(text) = std::fs::read_to_string(out.join(MANIFEST_FILE)) else {
        return;
    };
    let Ok(m) = serde_json::from_str::<serde_json::Value>(&text) else {
        return;
    };
    if m["status"] != "stopped" {
        return;
    }
    let files: Vec<&str> = m["outputs"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    eprintln!(
        "{} keeps the run up to step {} ({}); its manifest.json says status \"stopped\" and why",
        out.display(),
        m["last_step"],
        files.join(", ")
    );
}

/// The model of the run and why (for messages).
fn model_of(
    registry: &Registry,
    config: Option<&Config>,
    args: &RunArgs,
) -> Result<(&'static dyn Model, String)> {
    match (config, &args.resume) {
        (Some(c), _) => {
            let model = registry.of_config(c).with_context(|| c.origin())?;
            Ok((
                model,
                format!("{} is for model {}", c.origin(), model.label()),
            ))
        }
        (None, Some(ck)) => {
            let model = registry.of_checkpoint(ck)?;
            let why = format!(
                "{} is {} {} checkpoint",
                ck.display(),
                article(model.name()),
                model.name()
            );
            Ok((model, why))
        }
        (None, None) => unreachable!("clap requires a config without --resume"),
    }
}

/// Errors naming each given flag that `model` does not take, and the models that do.
fn refuse_other_models_flags(
    registry: &Registry,
    model: &dyn Model,
    why: &str,
    given: &[String],
) -> Result<()> {
    let takes = flags_of(model);
    let refused: Vec<String> = given
        .iter()
        .filter(|f| !ALWAYS.contains(&f.as_str()) && !takes.contains(f))
        .map(|f| {
            let owners: Vec<&str> = registry
                .models()
                .iter()
                .filter(|m| flags_of(**m).contains(f))
                .map(|m| m.label())
                .collect();
            // "a", "a and b", "a, b and c".
            let owners = match owners.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => owners.join(""),
            };
            format!("{f} is an option of {owners} runs only")
        })
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    bail!("{why}: {}", refused.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use petri_model::model::SharedFlag;

    /// Every flag of `petri run` is taken by some model, and every flag a model lists exists:
    /// a new flag or model cannot be left out of the check.
    #[test]
    fn every_run_flag_belongs_to_a_model() {
        let registry = Registry::default();
        let all: Vec<String> = command(&registry)
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        for f in &all {
            assert!(
                ALWAYS.contains(&f.as_str())
                    || registry.models().iter().any(|m| flags_of(*m).contains(f)),
                "{f} is taken by no model"
            );
        }
        for m in registry.models() {
            for f in flags_of(*m) {
                assert!(
                    all.contains(&f),
                    "{} lists {f}, which petri run lacks",
                    m.label()
                );
            }
        }
        let shared = [
            SharedFlag::Steps,
            SharedFlag::CheckpointEvery,
            SharedFlag::Resume,
            SharedFlag::Workgroup,
        ];
        for f in shared {
            assert!(all.contains(&f.long().to_string()), "{}", f.long());
        }
    }
}
