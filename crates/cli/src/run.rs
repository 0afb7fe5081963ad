//! `petri run CONFIG`: the model comes from the config (or, for `--resume` alone, from the
//! checkpoint); every flag given is checked against the flags that model takes before any file
//! is written or device opened, so none is silently ignored.

use crate::models::{rdme, Model};
use crate::{config, models, GpuArgs};
use anyhow::{bail, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory};
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
    /// Output folder
    #[arg(long, default_value = "out")]
    pub(crate) out: PathBuf,
    /// Write a checkpoint (OUT/checkpoint.petri) every N steps (N >= 1) and at the end, to
    /// resume from (ssa: output times, on either device)
    #[arg(long, value_name = "N", value_parser = parse_checkpoint_every)]
    pub(crate) checkpoint_every: Option<u64>,
    /// Continue from a checkpoint written by --checkpoint-every. angiogenesis: give no config
    /// (the checkpoint holds it); rdme and ssa: give the run's config (network) too (the
    /// checkpoint holds a hash)
    #[arg(long)]
    pub(crate) resume: Option<PathBuf>,
    /// Workgroup size of the field update (angiogenesis) or of the lattice passes (rdme: X,Y,1),
    /// e.g. 64,4,1 (results do not depend on it)
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
const ALWAYS: &[&str] = &["--out", "--backend", "--adapter"];

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
    match model {
        Model::Angiogenesis => models::angiogenesis::run(args),
        Model::Rdme => models::rdme::run(args),
        Model::Ssa => models::ssa::run(args),
    }
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
            if petri_output::checkpoint::model_of(ck).is_ok_and(|m| m == rdme::CHECKPOINT_MODEL) {
                bail!(
                    "{} is an rdme checkpoint: give the run's config too (petri run CONFIG --resume {})",
                    ck.display(),
                    ck.display()
                );
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
            format!("{f} is an option of {} runs only", owners.join(" and "))
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
