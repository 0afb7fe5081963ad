//! `petri run CONFIG`: the model comes from the config (or, for `--resume` alone, from the
//! checkpoint); every flag given is checked against the flags that model takes before any file
//! is written or device opened, so none is silently ignored.

use crate::models::{epidermis, gliding, rdme, Model};
use crate::{config, models, GpuArgs};
use anyhow::{bail, Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory};
use petri_output::{check_output_folder, FolderUse, MANIFEST_FILE};
use std::path::PathBuf;

/// The options of `petri run`: the shared ones here, each model's own in its module. A model
/// takes the shared flags it lists in its `SHARED_RUN_FLAGS`, those of its own `*RunFlags`, and [`ALWAYS`].
#[derive(Args)]
pub(crate) struct RunArgs {
    /// Model config, e.g. assets/angiogenesis.json or assets/min-system.json, or a reaction
    /// network (JSON like assets/vilar.json, or SBML .xml)
    #[arg(required_unless_present = "resume")]
    pub(crate) config: Option<PathBuf>,
    /// Steps to run (default: the config's "steps"; ssa: output times, default to --t-end)
    #[arg(long)]
    pub(crate) steps: Option<u64>,
    /// Output folder: missing or empty for a new run (see --overwrite); a resumed run continues
    /// the run of its own model in it
    #[arg(long, default_value = "out")]
    pub(crate) out: PathBuf,
    /// Replace the earlier run in --out: remove the files its manifest.json lists first (a folder
    /// that also holds other files is refused, nothing removed)
    #[arg(long, conflicts_with = "resume")]
    pub(crate) overwrite: bool,
    /// Write a checkpoint (OUT/checkpoint.petri) every N steps (N >= 1) and at the end, to
    /// resume from (ssa: output times, on either device)
    #[arg(long, value_name = "N", value_parser = parse_checkpoint_every)]
    pub(crate) checkpoint_every: Option<u64>,
    /// Continue from a checkpoint written by --checkpoint-every. angiogenesis: give no config
    /// (the checkpoint holds it); rdme, epidermis and ssa: give the run's config (network) too
    /// (the checkpoint holds a hash)
    #[arg(long)]
    pub(crate) resume: Option<PathBuf>,
    /// Workgroup size of the field update (angiogenesis), of the lattice passes (rdme: X,Y,1)
    /// or of the element and cell passes (epidermis: N,1,1), e.g. 64,4,1 (results do not
    /// depend on it)
    #[arg(long, value_parser = crate::parse_triple)]
    pub(crate) workgroup: Option<[u32; 3]>,
    #[command(flatten)]
    pub(crate) gpu: GpuArgs,
    #[command(flatten)]
    pub(crate) angiogenesis: models::angiogenesis::AngiogenesisRunFlags,
    #[command(flatten)]
    pub(crate) rdme: models::rdme::RdmeRunFlags,
    #[command(flatten)]
    pub(crate) ssa: models::ssa::SsaRunFlags,
}

/// Flags every model takes.
const ALWAYS: &[&str] = &["--out", "--overwrite", "--backend", "--adapter"];

/// `--checkpoint-every N`: N >= 1 (0 would checkpoint never, or at every step).
fn parse_checkpoint_every(s: &str) -> std::result::Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("0 steps between checkpoints: N must be 1 or more".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}; N must be a whole number, 1 or more")),
    }
}

/// The long flags given on the command line of `petri run` (defaults not included).
pub(crate) fn given_flags(matches: &ArgMatches) -> Vec<String> {
    let cli = crate::Cli::command();
    let run = cli
        .find_subcommand("run")
        .expect("petri has a run subcommand");
    run.get_arguments()
        .filter(|a| matches.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine))
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect()
}

pub(crate) fn run(args: RunArgs, given: &[String]) -> Result<()> {
    let (model, why) = model_of(&args)?;
    refuse_other_models_flags(model, &why, given)?;
    let out = args.out.clone();
    let result = match model {
        Model::Angiogenesis => models::angiogenesis::run(args),
        Model::Rdme => models::rdme::run(args),
        Model::Ssa => models::ssa::run(args),
        Model::Epidermis => models::epidermis::run(args),
        Model::Gliding => models::gliding::run(args),
    };
    if result.is_err() {
        report_kept(&out);
    }
    result
}

/// Refuses an output folder the run may not use; each model calls it once its config reads
/// well, before any device is opened (the runtime prepares the folder, with --overwrite
/// removing the earlier run's files, once the run is built).
pub(crate) fn check_out(args: &RunArgs, model: Model) -> Result<()> {
    let how = match (&args.resume, args.overwrite) {
        (Some(_), _) => FolderUse::Continue,
        (None, true) => FolderUse::Overwrite,
        (None, false) => FolderUse::Fresh,
    };
    let removed = check_output_folder(&args.out, how, model.manifest_name())
        .with_context(|| "--out".to_string())?;
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
fn report_kept(out: &std::path::Path) {
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
fn model_of(args: &RunArgs) -> Result<(Model, String)> {
    match (&args.config, &args.resume) {
        (Some(config), _) => {
            let model = config::model_of(config)?;
            let why = format!("{} is for model {}", config.display(), model.label());
            Ok((model, why))
        }
        (None, Some(ck)) => {
            // Only an angiogenesis checkpoint holds its config; a file that is no checkpoint
            // is refused by the angiogenesis loader, which names what is wrong.
            let model = petri_output::checkpoint::model_of(ck);
            for name in [
                rdme::CHECKPOINT_MODEL,
                epidermis::CHECKPOINT_MODEL,
                gliding::CHECKPOINT_MODEL,
            ] {
                if model.as_ref().is_ok_and(|m| m == name) {
                    bail!(
                        "{} is {} {name} checkpoint: give the run's config too (petri run CONFIG \
                         --resume {})",
                        ck.display(),
                        crate::models::article(name),
                        ck.display()
                    );
                }
            }
            let why = "--resume without a config continues an angiogenesis run".to_string();
            Ok((Model::Angiogenesis, why))
        }
        (None, None) => unreachable!("clap requires a config without --resume"),
    }
}

/// Errors naming each given flag that `model` does not take, and the models that do.
fn refuse_other_models_flags(model: Model, why: &str, given: &[String]) -> Result<()> {
    let takes = model.run_flags();
    let refused: Vec<String> = given
        .iter()
        .filter(|f| !ALWAYS.contains(&f.as_str()) && !takes.contains(f))
        .map(|f| {
            let owners: Vec<&str> = Model::ALL
                .iter()
                .filter(|m| m.run_flags().contains(f))
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

    fn run_flags() -> Vec<String> {
        let cli = crate::Cli::command();
        let run = cli.find_subcommand("run").unwrap();
        run.get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect()
    }

    #[test]
    fn the_command_line_is_well_formed() {
        crate::Cli::command().debug_assert();
    }

    /// Every flag of `petri run` is taken by some model, and every flag a model lists exists:
    /// a new flag or model cannot be left out of the check.
    #[test]
    fn every_run_flag_belongs_to_a_model() {
        let all = run_flags();
        for f in &all {
            assert!(
                ALWAYS.contains(&f.as_str())
                    || Model::ALL.iter().any(|m| m.run_flags().contains(f)),
                "{f} is taken by no model"
            );
        }
        for m in Model::ALL {
            for f in m.run_flags() {
                assert!(
                    all.contains(&f),
                    "{} lists {f}, which petri run lacks",
                    m.label()
                );
            }
        }
    }
}
