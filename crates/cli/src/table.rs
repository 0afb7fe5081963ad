//! What the benchmarks print and write: Markdown table cells of optional figures, and the rows
//! as JSON for `--json`.

use anyhow::Result;
use std::path::Path;

/// `v` with `decimals` decimals and `suffix` ("2.5", "120x"), or "-" where there is no figure.
pub(crate) fn cell(v: Option<f64>, decimals: usize, suffix: &str) -> String {
    v.map_or("-".into(), |x| format!("{x:.decimals$}{suffix}"))
}

/// Writes `doc` (the rows) to `path` when `--json` gave one.
pub(crate) fn write_json(path: Option<&Path>, doc: &serde_json::Value) -> Result<()> {
    if let Some(path) = path {
        petri_output::write_json_pretty(path, doc)?;
    }
    Ok(())
}
