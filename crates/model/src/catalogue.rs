//! The models a program opens by config: which model a config is for, and its simulation, new
//! or resumed from a checkpoint, as a [`Driven`] that the program steps, observes, reads and
//! checkpoints. The Python package opens every model through here.
//!
//! This module lists every model; no model and no shared module refers to it.

use crate::angiogenesis::{self, AngioConfig};
use crate::epidermis::{self, EpidermisConfig};
use crate::error::{invalid, json_error, without_bom, ModelError, Result};
use crate::gliding::{self, params::GlidingConfig};
use crate::rdme::{self, RdmeConfig};
use crate::reactions::json::{parse_network_json, read_network};
use crate::reactions::Network;
use crate::runtime::{Driven, ModelRunOptions};
use crate::ssa::checkpoint::{Checkpoint as SsaCheckpoint, Header};
use crate::ssa::device::{choose_device, Device, DeviceChoice};
use crate::ssa::ensemble::Method;
use crate::ssa::gpu_ensemble::EnsembleOptions;
use crate::ssa::gpu_run::GpuSsaRun;
use crate::ssa::run::{RunOptions as SsaOptions, SsaRun};
use petri_engine::{AdapterSummary, GpuContext};
use std::path::{Path, PathBuf};

/// The models, by the name configs and checkpoints give them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    Angiogenesis,
    Rdme,
    /// A well-mixed reaction network, run as a stochastic ensemble (ssa).
    Network,
    Epidermis,
    Gliding,
}

const MODELS: &str =
    "angiogenesis, rdme, epidermis, gliding, network (a reaction network, run by ssa)";

impl ModelKind {
    /// The name in configs, manifests and checkpoints.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Angiogenesis => "angiogenesis",
            ModelKind::Rdme => "rdme",
            ModelKind::Network => "network",
            ModelKind::Epidermis => "epidermis",
            ModelKind::Gliding => "gliding",
        }
    }

    fn from_name(field: &str, name: &str) -> Result<ModelKind> {
        Ok(match name {
            "angiogenesis" => ModelKind::Angiogenesis,
            "rdme" => ModelKind::Rdme,
            "network" => ModelKind::Network,
            "epidermis" => ModelKind::Epidermis,
            "gliding" => ModelKind::Gliding,
            other => return Err(invalid(field, format!("{other:?}"), MODELS)),
        })
    }

    /// The model a JSON config is for: its "model" field, or a reaction network when it has
    /// "reactions" and no "model".
    pub fn of_json(value: &serde_json::Value) -> Result<ModelKind> {
        match value.get("model") {
            Some(serde_json::Value::String(m)) => ModelKind::from_name("model", m),
            Some(other) => Err(invalid("model", other, MODELS)),
            None if value.get("reactions").is_some() => Ok(ModelKind::Network),
            None => Err(invalid("model", "(missing)", MODELS)),
        }
    }
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

    /// The model the config is for.
    pub fn kind(&self) -> Result<ModelKind> {
        match self {
            Config::Sbml(_) => Ok(ModelKind::Network),
            Config::Json { text, origin, .. } => {
                let value: serde_json::Value =
                    serde_json::from_str(without_bom(text)).map_err(|e| json_error(&e, origin))?;
                ModelKind::of_json(&value)
            }
        }
    }

    fn origin(&self) -> String {
        match self {
            Config::Json { origin, .. } => origin.clone(),
            Config::Sbml(path) => path.display().to_string(),
        }
    }

    fn network(&self) -> Result<Network> {
        match self {
            Config::Json { text, origin, .. } => parse_network_json(text, origin),
            Config::Sbml(path) => read_network(path),
        }
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

/// Where a simulation runs, and why there.
#[derive(Clone, Debug)]
pub struct Placement {
    /// "cpu", or the adapter's name and backend.
    pub device: String,
    pub reason: String,
}

/// An opened simulation.
pub struct Opened {
    pub kind: ModelKind,
    pub sim: Box<dyn Driven>,
    pub placement: Placement,
}

/// What [`open`] needs from the program besides the config: its GPU (opened only when the
/// model runs on one) and the adapters the automatic device choice looks at.
pub trait Devices {
    fn context(&self) -> Result<GpuContext>;
    fn adapters(&self) -> Result<Vec<AdapterSummary>>;
    /// Why [`context`](Self::context) opens the adapter it does, e.g. "adapter = H100 was
    /// asked for" or "the best adapter present".
    fn why(&self) -> String;
}

/// Opens the simulation of `config` at its initial state, or with `resume` at the state of
/// that checkpoint. An angiogenesis checkpoint holds its config, so `config` may be None then;
/// the other models' checkpoints are checked against the config they were written by.
pub fn open(
    config: Option<&Config>,
    resume: Option<&Path>,
    ensemble: &EnsembleRequest,
    devices: &dyn Devices,
) -> Result<Opened> {
    let kind = match (config, resume) {
        (Some(c), _) => c.kind()?,
        (None, Some(path)) => {
            let name = petri_output::checkpoint::model_of(path)?;
            ModelKind::from_name("checkpoint model", &name)?
        }
        (None, None) => return Err(invalid("config", "(missing)", "a config or a checkpoint")),
    };
    if let (Some(path), Some(_)) = (resume, config) {
        let name = petri_output::checkpoint::model_of(path)?;
        if name != kind.name() {
            return Err(ModelError::Checkpoint {
                path: path.display().to_string(),
                message: format!("written by model {name}, the config is for {}", kind.name()),
            });
        }
    }
    let config_of = |kind: ModelKind| {
        config.ok_or_else(|| {
            invalid(
                "config",
                "(missing)",
                format!("the config the {} run was started from", kind.name()),
            )
        })
    };
    let gpu = |ctx: &GpuContext| Placement {
        device: format!("{} ({})", ctx.adapter.name, ctx.adapter.backend),
        reason: devices.why(),
    };
    let (sim, placement): (Box<dyn Driven>, Placement) = match kind {
        ModelKind::Angiogenesis => {
            let ctx = devices.context()?;
            let options = angiogenesis::SimOptions::default();
            let sim = match resume {
                Some(path) => {
                    angiogenesis::checkpoint::Checkpoint::load(path)?.into_sim(&ctx, &options)?
                }
                None => {
                    let (text, origin) = json(config_of(kind)?)?;
                    angiogenesis::AngioSim::new(
                        &ctx,
                        &AngioConfig::from_json(text, origin)?,
                        &options,
                    )?
                }
            };
            let placement = gpu(&ctx);
            (
                Box::new(angiogenesis::run::AngioRun { ctx, sim }),
                placement,
            )
        }
        ModelKind::Epidermis => {
            let (text, origin) = json(config_of(kind)?)?;
            let cfg = EpidermisConfig::from_json(text, origin)?;
            let ctx = devices.context()?;
            let opts = run_options(epidermis::SimOptions::default(), resume);
            let sim = epidermis::run::start(&ctx, &cfg, &opts)?;
            let placement = gpu(&ctx);
            let run = epidermis::run::EpidermisRun::new(&ctx, sim, &cfg);
            (Box::new(run), placement)
        }
        ModelKind::Gliding => {
            let (text, origin) = json(config_of(kind)?)?;
            let cfg = GlidingConfig::from_json(text, origin)?;
            let ctx = devices.context()?;
            let opts = run_options(gliding::sim::SimOptions::default(), resume);
            let sim = gliding::run::start(&ctx, &cfg, &opts)?;
            let placement = gpu(&ctx);
            let run = gliding::run::GlidingRun::new(&ctx, sim, &cfg);
            (Box::new(run), placement)
        }
        ModelKind::Rdme => {
            let c = config_of(kind)?;
            let (text, origin) = json(c)?;
            let base = match c {
                Config::Json { base, .. } => base.clone(),
                Config::Sbml(_) => PathBuf::new(),
            };
            let model = RdmeConfig::from_json(text, origin)?.resolve(&base)?;
            for w in &model.warnings {
                log::warn!("{w}");
            }
            let ctx = devices.context()?;
            let placement = gpu(&ctx);
            let options = rdme::SimOptions::default();
            (
                Box::new(rdme::run::start(vec![ctx], &model, &options, resume)?),
                placement,
            )
        }
        ModelKind::Network => {
            let c = config_of(kind)?;
            let net = c.network()?;
            let header = match resume {
                Some(path) => Some(SsaCheckpoint::load(path)?.header),
                None => None,
            };
            let mut opts = ensemble.options(header.as_ref(), &c.origin())?;
            opts.resume = resume.map(Path::to_path_buf);
            let choice = ensemble.device(header.as_ref(), || devices.adapters())?;
            opts.device_reason = choice.reason.clone();
            match choice.device {
                Device::Cpu => {
                    let sim = match resume {
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
                    let ctx = devices.context()?;
                    let options = EnsembleOptions::default();
                    let sim = match resume {
                        Some(path) => GpuSsaRun::resume(&ctx, &net, &opts, &options, path)?,
                        None => GpuSsaRun::new(&ctx, &net, &opts, &options)?,
                    };
                    let placement = Placement {
                        reason: choice.reason,
                        ..gpu(&ctx)
                    };
                    (Box::new(sim), placement)
                }
            }
        }
    };
    Ok(Opened {
        kind,
        sim,
        placement,
    })
}

/// The JSON text of a config and its origin (a model other than a network has no SBML form).
fn json(config: &Config) -> Result<(&str, &str)> {
    match config {
        Config::Json { text, origin, .. } => Ok((text, origin)),
        Config::Sbml(path) => Err(invalid(
            "config",
            path.display(),
            "a JSON config (only reaction networks come as SBML)",
        )),
    }
}

/// A model's run options as `start` functions read them: the model's own options and the
/// checkpoint to resume; the folder fields are not used.
fn run_options<S>(sim: S, resume: Option<&Path>) -> ModelRunOptions<S> {
    ModelRunOptions {
        steps: None,
        out_dir: PathBuf::new(),
        overwrite: false,
        sim,
        checkpoint_every: None,
        resume: resume.map(Path::to_path_buf),
        stop: None,
    }
}
