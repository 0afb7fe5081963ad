//! One module per model: its `petri run` flags, its `petri bench` subcommand and the code that
//! calls its petri-model module. A model is listed here once; `petri run` checks every flag
//! given against [`Model::run_flags`].

use clap::{Args, Command};

pub(crate) mod angiogenesis;
pub(crate) mod epidermis;
pub(crate) mod gliding;
pub(crate) mod rdme;
pub(crate) mod ssa;

/// The models `petri run` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Model {
    Angiogenesis,
    Rdme,
    /// Reaction networks as stochastic ensembles (config "model": "network", or SBML).
    Ssa,
    Epidermis,
    Gliding,
}

impl Model {
    pub(crate) const ALL: [Model; 5] = [
        Model::Angiogenesis,
        Model::Rdme,
        Model::Ssa,
        Model::Epidermis,
        Model::Gliding,
    ];

    /// The name in messages.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Model::Angiogenesis => "angiogenesis",
            Model::Rdme => "rdme",
            Model::Ssa => "ssa (reaction network)",
            Model::Epidermis => "epidermis",
            Model::Gliding => "gliding",
        }
    }

    /// The model's name in manifests and checkpoints.
    pub(crate) fn manifest_name(self) -> &'static str {
        match self {
            Model::Angiogenesis => "angiogenesis",
            Model::Rdme => "rdme",
            Model::Ssa => "network",
            Model::Epidermis => "epidermis",
            Model::Gliding => "gliding",
        }
    }

    /// The `petri run` flags this model takes (besides those every model takes): the shared
    /// ones it lists and those of its own `*RunFlags` struct.
    pub(crate) fn run_flags(self) -> Vec<String> {
        let (shared, own) = match self {
            Model::Angiogenesis => (
                angiogenesis::SHARED_RUN_FLAGS,
                longs::<angiogenesis::AngiogenesisRunFlags>(),
            ),
            Model::Rdme => (rdme::SHARED_RUN_FLAGS, longs::<rdme::RdmeRunFlags>()),
            Model::Ssa => (ssa::SHARED_RUN_FLAGS, longs::<ssa::SsaRunFlags>()),
            Model::Epidermis => (
                epidermis::SHARED_RUN_FLAGS,
                longs::<epidermis::EpidermisRunFlags>(),
            ),
            Model::Gliding => (
                gliding::SHARED_RUN_FLAGS,
                longs::<gliding::GlidingRunFlags>(),
            ),
        };
        shared.iter().map(|f| f.to_string()).chain(own).collect()
    }
}

/// How long the stepping models' benchmarks time the GPU and the CPU reference.
#[derive(Args)]
pub(crate) struct TimedSteps {
    /// Timed steps per case (1 or more)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) steps: u32,
    /// Largest grid (cells, lattice sites) on which the multithreaded CPU reference is timed
    #[arg(long, default_value_t = 256 * 256 * 256)]
    pub(crate) cpu_max_cells: usize,
    /// CPU reference steps timed per case
    #[arg(long, default_value_t = 5)]
    pub(crate) cpu_steps: u32,
    /// Untimed warm-up batches per case (angiogenesis 50 steps each, rdme 64) [default: about
    /// half a second of an H200's work, by the case's size]
    #[arg(long)]
    pub(crate) warmup: Option<u32>,
}

/// The threads per workgroup `--workgroup N,1,1` gives a model whose passes are
/// one-dimensional (None without the flag); another shape is refused naming `model`.
pub(crate) fn one_dimensional_workgroup(
    model: &str,
    workgroup: Option<[u32; 3]>,
) -> anyhow::Result<Option<u32>> {
    match workgroup {
        None => Ok(None),
        Some([x, 1, 1]) => Ok(Some(x)),
        Some([x, y, z]) => {
            anyhow::bail!("--workgroup {x},{y},{z}: {model} passes are one-dimensional, give N,1,1")
        }
    }
}

/// The long flags of the options struct `A`, as typed ("--devices").
fn longs<A: Args>() -> Vec<String> {
    A::augment_args(Command::new("flags"))
        .get_arguments()
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect()
}

/// "a" or "an" before a model's name as it is read out ("an rdme", "a gliding", "an ssa").
pub(crate) fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'r' | 's') => "an",
        _ => "a",
    }
}
