//! The list of models a program knows, and how a config or checkpoint finds its model. The
//! workspace's models are listed here, once; a program built on Petri adds its own with
//! [`Registry::with`]. No model and no shared module refers to this module.

use crate::error::{invalid, ModelError, Result};
use crate::model::{model_field, Config, Devices, Model, OpenRequest, Opened};
use crate::runtime::StopCheck;
use std::path::Path;

/// The models of the workspace, in the order `petri bench` and messages list them.
pub fn workspace_models() -> Vec<&'static dyn Model> {
    vec![
        &crate::angiogenesis::model::Angiogenesis,
        &crate::rdme::model::Rdme,
        &crate::epidermis::model::Epidermis,
        &crate::gliding::model::Gliding,
        &crate::ssa::model::Ssa,
    ]
}

/// Models by name.
#[derive(Clone)]
pub struct Registry {
    models: Vec<&'static dyn Model>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            models: workspace_models(),
        }
    }
}

impl Registry {
    /// An empty registry (see [`Default`] for the workspace's models).
    pub fn empty() -> Registry {
        Registry { models: Vec::new() }
    }

    /// The registry with `model` added; a name already taken is refused.
    pub fn with(mut self, model: &'static dyn Model) -> Result<Registry> {
        if self.find(model.name()).is_some() {
            return Err(invalid(
                "model name",
                model.name(),
                format!("a name no other model has ({})", self.names()),
            ));
        }
        self.models.push(model);
        Ok(self)
    }

    pub fn models(&self) -> &[&'static dyn Model] {
        &self.models
    }

    pub fn find(&self, name: &str) -> Option<&'static dyn Model> {
        self.models.iter().copied().find(|m| m.name() == name)
    }

    /// "angiogenesis, rdme, ..." for messages.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.models.iter().map(|m| m.name()).collect();
        names.join(", ")
    }

    /// The model `config` is for: the first that claims it; else an error naming the
    /// config's "model" field and the models there are.
    pub fn of_config(&self, config: &Config) -> Result<&'static dyn Model> {
        let json = config.json_value()?;
        if let Some(m) = self.models.iter().find(|m| m.claims(config, json.as_ref())) {
            return Ok(*m);
        }
        let given = match (
            json.as_ref().and_then(|j| j.get("model")),
            model_field(json.as_ref()),
        ) {
            (_, Some(name)) => format!("{name:?}"),
            (Some(other), None) => other.to_string(),
            (None, None) => "(missing)".to_string(),
        };
        Err(invalid("model", given, self.names()))
    }

    /// The model that wrote the checkpoint at `path`.
    pub fn of_checkpoint(&self, path: &Path) -> Result<&'static dyn Model> {
        let name = petri_output::checkpoint::model_of(path)?;
        self.find(&name)
            .ok_or_else(|| invalid("checkpoint model", format!("{name:?}"), self.names()))
    }

    /// The model of a run of `config` (or, without one, of the checkpoint `resume`); a
    /// checkpoint written by another model than the config's is refused.
    pub fn of_run(
        &self,
        config: Option<&Config>,
        resume: Option<&Path>,
    ) -> Result<&'static dyn Model> {
        let model = match (config, resume) {
            (Some(c), _) => self.of_config(c)?,
            (None, Some(path)) => self.of_checkpoint(path)?,
            (None, None) => return Err(invalid("config", "(missing)", "a config or a checkpoint")),
        };
        if let (Some(path), Some(_)) = (resume, config) {
            let name = petri_output::checkpoint::model_of(path)?;
            if name != model.name() {
                return Err(ModelError::Checkpoint {
                    path: path.display().to_string(),
                    message: format!(
                        "written by model {name}, the config is for {}",
                        model.name()
                    ),
                });
            }
        }
        Ok(model)
    }

    /// Opens the simulation of `config` at its initial state, or with `resume` at that
    /// checkpoint's, with the model's flags given as they would be typed (`["--devices",
    /// "2"]`); `stop` is asked where opening runs the simulation ([`OpenRequest::stop`]).
    pub fn open(
        &self,
        config: Option<&Config>,
        resume: Option<&Path>,
        flags: &[String],
        devices: &dyn Devices,
        stop: Option<StopCheck>,
    ) -> Result<Opened> {
        let model = self.of_run(config, resume)?;
        let flags = parse_flags(model, flags)?;
        model.open(&OpenRequest {
            config,
            resume,
            flags: &flags,
            workgroup: None,
            devices,
            stop,
        })
    }
}

/// The model's flags given as typed, parsed by its [`Model::run_flags`]; an unknown or
/// malformed flag is refused naming it.
pub fn parse_flags(model: &dyn Model, flags: &[String]) -> Result<clap::ArgMatches> {
    model
        .run_flags()
        .no_binary_name(true)
        .try_get_matches_from(flags)
        .map_err(|e| {
            let text = e.to_string();
            let first = text
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            invalid(
                "options",
                flags.join(" "),
                format!("the options of {} runs ({first})", model.label()),
            )
        })
}
