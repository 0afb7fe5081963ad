//! What a model is to the programs that run it: the [`Model`] trait. A model lives in one
//! folder; its `impl Model` says its name, which configs are its own, the `petri run` flags it
//! takes, how it opens (new or resumed from a checkpoint) as a [`Driven`] simulation, its
//! benchmark and any command of its own. `petri run`, `petri bench` and the Python package all
//! go through it (`crate::registry` lists the workspace's models); a model written in another
//! crate implements it the same way and joins the list it hands to `petri_cli::main_with`.

use crate::error::{invalid, json_error, without_bom, ModelError, Result};
use crate::runtime::{Driven, StopCheck};
use petri_engine::{AdapterSummary, DeviceRequest, GpuContext};
use std::path::{Path, PathBuf};

/// A model, as the registry holds it (a unit struct of the model's folder).
pub trait Model: Sync {
    /// The name in configs ("model": ...), manifests and checkpoints.
    fn name(&self) -> &'static str;
    /// The name in messages, where it differs ("ssa (reaction network)").
    fn label(&self) -> &'static str {
        self.name()
    }
    /// One line for `petri bench`'s and `petri run`'s help.
    fn about(&self) -> &'static str;
    /// Whether `config` is this model's; `json` is its parsed text (None for SBML). By
    /// default: the config's "model" field is [`name`](Self::name).
    fn claims(&self, config: &Config, json: Option<&serde_json::Value>) -> bool {
        let _ = config;
        model_field(json) == Some(self.name())
    }

    /// The `petri run` flags of this model alone, as a command whose arguments are the flags
    /// (e.g. `RdmeRunFlags::augment_args(Command::new("rdme"))`); none by default.
    fn run_flags(&self) -> clap::Command {
        clap::Command::new(self.name())
    }
    /// Which of the flags every stepping model may take it takes.
    fn shared_flags(&self) -> &'static [SharedFlag] {
        &[
            SharedFlag::Steps,
            SharedFlag::CheckpointEvery,
            SharedFlag::Resume,
            SharedFlag::Workgroup,
        ]
    }
    /// Whether a checkpoint alone, without the config, resumes the model (the checkpoint
    /// holds the config).
    fn resumes_from_checkpoint_alone(&self) -> bool {
        false
    }

    /// The simulation of the request, at its config's initial state or at the checkpoint's.
    /// Reads and validates the config before any device opens.
    fn open(&self, request: &OpenRequest) -> Result<Opened>;

    /// The simulation of the request as one rank of `team` (a run over MPI ranks): on rank 0,
    /// the simulation the runtime runs into the folder, which drives the other ranks; on every
    /// other rank, its share of the work, served until rank 0 is done (then None). A model
    /// whose runs do not split over ranks refuses.
    fn open_ranks(
        &self,
        request: &OpenRequest,
        team: std::sync::Arc<dyn crate::team::Team>,
    ) -> Result<Option<Opened>> {
        let _ = (request, team);
        Err(ModelError::Usage(format!(
            "--mpi: {} runs do not split over ranks; reaction-network ensembles do, and \
             `petri sweep --mpi` runs the tasks of any model over ranks",
            self.name()
        )))
    }

    /// `petri bench NAME`: its options, as a command named [`name`](Self::name) (None: the
    /// model has no benchmark).
    fn bench_command(&self) -> Option<clap::Command> {
        None
    }
    /// Runs the benchmark with the options parsed by [`bench_command`](Self::bench_command);
    /// prints Markdown tables.
    fn bench(&self, args: &clap::ArgMatches) -> anyhow::Result<()> {
        let _ = args;
        anyhow::bail!("{} has no benchmark", self.label())
    }
    /// Top-level commands of the model's own (e.g. `petri validate` of the stochastic
    /// simulators), each a clap command.
    fn commands(&self) -> Vec<clap::Command> {
        Vec::new()
    }
    /// Runs the command `name` (one of [`commands`](Self::commands)).
    fn command(&self, name: &str, args: &clap::ArgMatches) -> anyhow::Result<()> {
        let _ = args;
        anyhow::bail!("{} has no command {name}", self.label())
    }
}

/// A flag of `petri run` that several models share; each model says which it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedFlag {
    Steps,
    CheckpointEvery,
    Resume,
    Workgroup,
}

impl SharedFlag {
    /// The flag as typed.
    pub fn long(self) -> &'static str {
        match self {
            SharedFlag::Steps => "--steps",
            SharedFlag::CheckpointEvery => "--checkpoint-every",
            SharedFlag::Resume => "--resume",
            SharedFlag::Workgroup => "--workgroup",
        }
    }
}

/// The "model" field of a JSON config.
pub fn model_field(json: Option<&serde_json::Value>) -> Option<&str> {
    json?.get("model")?.as_str()
}

/// A config as a program hands it over.
#[derive(Clone, Debug)]
pub enum Config {
    /// JSON text. `origin` names it in messages and manifests (a path, or "<dict>" for one
    /// built in memory); `base` is the folder its relative paths start from.
    Json {
        text: String,
        origin: String,
        base: PathBuf,
    },
    /// An SBML reaction network.
    Sbml(PathBuf),
}

impl Config {
    /// The config in the file at `path`: SBML by extension (.xml, .sbml), else JSON.
    pub fn read(path: &Path) -> Result<Config> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext.to_ascii_lowercase().as_str(), "xml" | "sbml") {
            return Ok(Config::Sbml(path.to_path_buf()));
        }
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(Config::Json {
            text,
            origin: path.display().to_string(),
            base: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        })
    }

    /// The config's name in messages: its path, or "<dict>".
    pub fn origin(&self) -> String {
        match self {
            Config::Json { origin, .. } => origin.clone(),
            Config::Sbml(path) => path.display().to_string(),
        }
    }

    /// The parsed JSON (None for SBML); an error naming the origin where it is no JSON.
    pub fn json_value(&self) -> Result<Option<serde_json::Value>> {
        match self {
            Config::Sbml(_) => Ok(None),
            Config::Json { text, origin, .. } => serde_json::from_str(without_bom(text))
                .map(Some)
                .map_err(|e| json_error(&e, origin)),
        }
    }

    /// The JSON text and its origin; an SBML file is refused (only reaction networks come as
    /// SBML).
    pub fn json(&self) -> Result<(&str, &str)> {
        match self {
            Config::Json { text, origin, .. } => Ok((text, origin)),
            Config::Sbml(path) => Err(invalid(
                "config",
                path.display(),
                "a JSON config (only reaction networks come as SBML)",
            )),
        }
    }

    /// The folder the config's relative paths start from.
    pub fn base(&self) -> PathBuf {
        match self {
            Config::Json { base, .. } => base.clone(),
            Config::Sbml(path) => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        }
    }
}

/// What a program asks a model to open.
pub struct OpenRequest<'a> {
    /// The config; None only where the model resumes from a checkpoint alone.
    pub config: Option<&'a Config>,
    /// The checkpoint to resume from.
    pub resume: Option<&'a Path>,
    /// The model's own flags, parsed by its [`Model::run_flags`] (defaults where none given).
    pub flags: &'a clap::ArgMatches,
    /// `--workgroup X,Y,Z` where given (results do not depend on it).
    pub workgroup: Option<[u32; 3]>,
    /// The program's GPU (opened only when the model runs on one).
    pub devices: &'a dyn Devices,
    /// Ctrl-C while the model opens, where opening runs the simulation (a GPU ensemble of a
    /// general network runs whole when it opens): true ends the open, interrupted.
    pub stop: Option<StopCheck>,
}

impl OpenRequest<'_> {
    /// The config, or an error naming what the model needs it for.
    pub fn config(&self, model: &str) -> Result<&Config> {
        self.config.ok_or_else(|| {
            invalid(
                "config",
                "(missing)",
                format!("the config the {model} run was started from"),
            )
        })
    }

    /// The model's flags as their typed struct.
    pub fn flags<A: clap::FromArgMatches>(&self) -> Result<A> {
        A::from_arg_matches(self.flags).map_err(|e| invalid("flags", e, "the model's run flags"))
    }

    /// The simulation `build` makes on the one device the program opens (call it once the
    /// config reads well), placed there.
    pub fn on_one_device(
        &self,
        model: &'static dyn Model,
        build: impl FnOnce(&GpuContext) -> Result<Box<dyn Driven>>,
    ) -> Result<Opened> {
        let ctx = self.devices.context()?;
        let sim = build(&ctx)?;
        Ok(Opened {
            model,
            sim,
            placement: self.placement(&ctx),
        })
    }

    /// Where a GPU simulation runs, on `ctx`.
    pub fn placement(&self, ctx: &GpuContext) -> Placement {
        Placement {
            device: format!("{} ({})", ctx.adapter.name, ctx.adapter.backend),
            reason: self.devices.why(),
        }
    }
}

/// Where a simulation runs, and why there.
#[derive(Clone, Debug)]
pub struct Placement {
    /// "cpu", or the adapter's name and backend.
    pub device: String,
    pub reason: String,
}

/// An opened simulation.
pub struct Opened {
    pub model: &'static dyn Model,
    pub sim: Box<dyn Driven>,
    pub placement: Placement,
}

/// What a model needs from the program besides the config: its GPU (opened only when the
/// model runs on one) and the adapters an automatic device choice looks at.
pub trait Devices {
    /// The adapter asked for (backend, name or index).
    fn request(&self) -> DeviceRequest;
    /// Why [`context`](Self::context) opens the adapter it does, e.g. "adapter = H100 was
    /// asked for" or "the best adapter present".
    fn why(&self) -> String {
        let r = self.request();
        let asked = [("backend", &r.backend), ("adapter", &r.adapter)]
            .into_iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} = {v:?}")))
            .collect::<Vec<_>>();
        match asked.is_empty() {
            true => "the best adapter present (hardware before software)".into(),
            false => format!("{} was asked for", asked.join(", ")),
        }
    }
    /// The program's last word before a model looks at devices, once its config reads well
    /// (`petri run` refuses an output folder the run may not use here).
    fn before_devices(&self) -> Result<()> {
        Ok(())
    }
    fn context(&self) -> Result<GpuContext> {
        self.before_devices()?;
        Ok(GpuContext::new(&self.request())?)
    }
    /// `n` devices, adapters in turn (several per adapter when there are fewer).
    fn contexts(&self, n: usize) -> Result<Vec<GpuContext>> {
        match n {
            1 => Ok(vec![self.context()?]),
            _ => {
                self.before_devices()?;
                Ok(GpuContext::new_many(&self.request(), n)?)
            }
        }
    }
    fn adapters(&self) -> Result<Vec<AdapterSummary>> {
        self.before_devices()?;
        Ok(petri_engine::request_adapters(&self.request())?)
    }
}

/// The program's devices as the environment (PETRI_BACKEND, PETRI_ADAPTER) and its own
/// choice (`with_overrides`) ask for them.
pub struct Requested(pub DeviceRequest);

impl Devices for Requested {
    fn request(&self) -> DeviceRequest {
        self.0.clone()
    }
}
