//! What the benchmarks read and print and write: grid sizes, Markdown table cells of optional
//! figures, and the rows
//! (`petri_scheduler::bench::Row`) as JSON for `--json`, whose path is checked before the
//! benchmark runs.

use anyhow::{anyhow, Result};
use petri_scheduler::bench::{check_json_path, Meta, Row, Timing};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// `v` with `decimals` decimals and `suffix` ("2.5", "120x"), or "-" where there is no figure.
pub(crate) fn cell(v: Option<f64>, decimals: usize, suffix: &str) -> String {
    v.map_or("-".into(), |x| format!("{x:.decimals$}{suffix}"))
}

/// Refuses a `--json` path that could not be written, before the benchmark runs.
pub(crate) fn check_json(path: Option<&Path>) -> Result<()> {
    match path {
        Some(p) => check_json_path(p).map_err(|e| anyhow!(e)),
        None => Ok(()),
    }
}

/// The rows of one benchmark, as JSON (rows of several kinds of case go in one list).
pub(crate) struct Rows {
    meta: Meta,
    model: &'static str,
    rows: Vec<Value>,
}

impl Rows {
    pub(crate) fn new(meta: Meta, model: &'static str) -> Rows {
        Rows {
            meta,
            model,
            rows: Vec::new(),
        }
    }

    /// Adds the row of `case` (`size` in its own unit, times `per` unit) with its own `fields`.
    pub(crate) fn push(
        &mut self,
        (case, size, per): (&str, u64, &str),
        timing: &Timing,
        fields: impl Serialize,
    ) -> Result<()> {
        let row = Row::new(&self.meta, self.model, case, size, per, timing).with(fields);
        self.rows.push(serde_json::to_value(row)?);
        Ok(())
    }

    /// Writes `{"rows": [...]}` to `path` when `--json` gave one.
    pub(crate) fn write(&self, path: Option<&Path>) -> Result<()> {
        if let Some(path) = path {
            petri_output::write_json_pretty(path, &serde_json::json!({ "rows": self.rows }))?;
        }
        Ok(())
    }
}

/// Parses a bench size, "128" (a cube) or "400x400x140".
pub(crate) fn parse_grid(s: &str) -> Option<[u32; 3]> {
    let parts: Vec<u32> = s
        .split('x')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [n] => Some([*n; 3]),
        [x, y, z] => Some([*x, *y, *z]),
        _ => None,
    }
}

/// "400x400x140".
pub(crate) fn grid_name([x, y, z]: [u32; 3]) -> String {
    format!("{x}x{y}x{z}")
}
