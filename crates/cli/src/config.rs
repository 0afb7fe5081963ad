//! Which model a config file is for: its "model" field, or a reaction network (SBML by
//! extension, or JSON with "reactions" and no "model").

use crate::models::Model;
use anyhow::{bail, Context, Result};
use petri_model::catalogue::ModelKind;
use std::path::Path;

/// The model `path` is a config for.
pub(crate) fn model_of(path: &Path) -> Result<Model> {
    Ok(sniff(path)?.1)
}

/// The text of a config for `model`; an error naming the file's own model otherwise.
pub(crate) fn read_for(path: &Path, model: Model) -> Result<String> {
    match sniff(path)? {
        (Some(text), m) if m == model => Ok(text),
        (_, m) => bail!(
            "{} is for model {}; {} {} config is needed here",
            path.display(),
            m.label(),
            crate::models::article(model.label()),
            model.label()
        ),
    }
}

/// The file's text (none for SBML) and its model.
fn sniff(path: &Path) -> Result<(Option<String>, Model)> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if matches!(ext.to_ascii_lowercase().as_str(), "xml" | "sbml") {
        return Ok((None, Model::Ssa));
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    // A UTF-8 byte order mark (some editors write one) is skipped here and by the readers.
    let value: serde_json::Value = serde_json::from_str(petri_model::error::without_bom(&text))
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    let model = match ModelKind::of_json(&value) {
        Ok(ModelKind::Angiogenesis) => Model::Angiogenesis,
        Ok(ModelKind::Rdme) => Model::Rdme,
        Ok(ModelKind::Network) => Model::Ssa,
        Ok(ModelKind::Epidermis) => Model::Epidermis,
        Ok(ModelKind::Gliding) => Model::Gliding,
        Err(e) => bail!("{}: {e}", path.display()),
    };
    Ok((Some(text), model))
}
