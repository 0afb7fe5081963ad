//! What every model's command-line face shares: the adapter flags, the benchmarks' timing
//! flags, their tables and JSON rows, and how a command reads a model's config file.

use crate::error::without_bom;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use petri_engine::{DeviceRequest, GpuContext};
use petri_scheduler::bench::{check_json_path, Meta, Row, Timing};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// The adapter to open; every command that uses the GPU takes these.
#[derive(Args, Clone, Debug, Default)]
pub struct GpuArgs {
    /// Backend: vulkan, metal, dx12, gl or all [env: PETRI_BACKEND]
    #[arg(long)]
    pub backend: Option<String>,
    /// Use the adapter whose name contains this text, e.g. "H200" or "llvmpipe", or the one at
    /// this index of `petri adapters`, e.g. 2 (GPUs of one name) [env: PETRI_ADAPTER]
    #[arg(long)]
    pub adapter: Option<String>,
}

impl GpuArgs {
    pub fn request(&self) -> DeviceRequest {
        DeviceRequest::from_env().with_overrides(self.backend.clone(), self.adapter.clone())
    }

    /// The adapter asked for, opened; its name printed.
    pub fn context(&self) -> Result<GpuContext> {
        let ctx = GpuContext::new(&self.request())?;
        eprintln!(
            "adapter: {} ({}, {}, {})",
            ctx.adapter.name, ctx.adapter.backend, ctx.adapter.device_type, ctx.adapter.driver_info
        );
        Ok(ctx)
    }

    /// `n` devices, adapters in turn (several per adapter when there are fewer).
    pub fn contexts(&self, n: usize) -> Result<Vec<GpuContext>> {
        Ok(GpuContext::new_many(&self.request(), n)?)
    }
}

/// How long the stepping models' benchmarks time the GPU and the CPU reference.
#[derive(Args, Clone, Debug)]
pub struct TimedSteps {
    /// Timed steps per case (1 or more)
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub steps: u32,
    /// Largest grid (cells, lattice sites) on which the multithreaded CPU reference is timed
    #[arg(long, default_value_t = 256 * 256 * 256)]
    pub cpu_max_cells: usize,
    /// CPU reference steps timed per case
    #[arg(long, default_value_t = 5)]
    pub cpu_steps: u32,
    /// Untimed warm-up batches per case (angiogenesis 50 steps each, rdme 64) [default: about
    /// half a second of an H200's work, by the case's size]
    #[arg(long)]
    pub warmup: Option<u32>,
}

/// Runs the CUDA reference program at `path` (given by `--cuda-reference`) with `args`; its
/// standard output. A program that cannot start or fails is an error naming it.
pub fn run_cuda_reference(path: &Path, args: &[String]) -> Result<String> {
    eprintln!("CUDA reference: {} {}", path.display(), args.join(" "));
    let out = std::process::Command::new(path)
        .args(args)
        .output()
        .with_context(|| format!("--cuda-reference {}", path.display()))?;
    if !out.status.success() {
        bail!(
            "--cuda-reference {}: exited with {}: {}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The command of the options struct `A` (a benchmark's, a model's own command).
pub fn command_of<A: Args>(name: &'static str, about: &'static str) -> clap::Command {
    A::augment_args(clap::Command::new(name).about(about))
}

/// Three positive integers `X,Y,Z` (a workgroup size).
pub fn parse_triple(s: &str) -> std::result::Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<std::result::Result<_, _>>()?;
    match v.as_slice() {
        [x, y, z] if x * y * z > 0 => Ok([*x, *y, *z]),
        _ => Err(format!(
            "expected three positive integers like 64,4,1, got {s:?}"
        )),
    }
}

/// The threads per workgroup `--workgroup N,1,1` gives a model whose passes are
/// one-dimensional (None without the flag); another shape is refused naming `model`.
pub fn one_dimensional_workgroup(
    model: &str,
    workgroup: Option<[u32; 3]>,
) -> crate::error::Result<Option<u32>> {
    match workgroup {
        None => Ok(None),
        Some([x, 1, 1]) => Ok(Some(x)),
        Some([x, y, z]) => Err(crate::error::invalid_flag(
            "--workgroup",
            format!("{x},{y},{z}"),
            format!("{model} passes are one-dimensional, give N,1,1"),
        )),
    }
}

/// "a" or "an" before a model's name as it is read out ("an rdme", "a gliding", "an ssa").
pub fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'r' | 's') => "an",
        _ => "a",
    }
}

/// The text of the config file at `path`, which must be for `model` (its "model" field).
pub fn read_config(path: &Path, model: &str) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value: Value = serde_json::from_str(without_bom(&text))
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    match value.get("model").and_then(Value::as_str) {
        Some(m) if m == model => Ok(text),
        other => bail!(
            "{} is for model {}; {} {model} config is needed here",
            path.display(),
            other.unwrap_or("(none)"),
            article(model),
        ),
    }
}

/// `v` with `decimals` decimals and `suffix` ("2.5", "120x"), or "-" where there is no figure.
pub fn cell(v: Option<f64>, decimals: usize, suffix: &str) -> String {
    v.map_or("-".into(), |x| format!("{x:.decimals$}{suffix}"))
}

/// Refuses a `--json` path that could not be written, before the benchmark runs.
pub fn check_json(path: Option<&Path>) -> Result<()> {
    match path {
        Some(p) => check_json_path(p).map_err(|e| anyhow!(e)),
        None => Ok(()),
    }
}

/// The rows of one benchmark, as JSON (rows of several kinds of case go in one list).
pub struct Rows {
    meta: Meta,
    model: &'static str,
    rows: Vec<Value>,
}

impl Rows {
    pub fn new(meta: Meta, model: &'static str) -> Rows {
        Rows {
            meta,
            model,
            rows: Vec::new(),
        }
    }

    /// Adds the row of `case` (`size` in its own unit, times `per` unit) with its own `fields`.
    pub fn push(
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
    pub fn write(&self, path: Option<&Path>) -> Result<()> {
        if let Some(path) = path {
            petri_output::write_json_pretty(path, &serde_json::json!({ "rows": self.rows }))?;
        }
        Ok(())
    }
}

/// Parses a bench size, "128" (a cube) or "400x400x140".
pub fn parse_grid(s: &str) -> Option<[u32; 3]> {
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
pub fn grid_name([x, y, z]: [u32; 3]) -> String {
    format!("{x}x{y}x{z}")
}

#[cfg(test)]
mod tests {
    /// "a gliding checkpoint", not "an gliding checkpoint".
    #[test]
    fn each_model_gets_its_article() {
        let read = |m: &str| format!("{} {m}", super::article(m));
        let models = ["gliding", "epidermis", "angiogenesis", "rdme", "ssa"];
        let got: Vec<String> = models.iter().map(|m| read(m)).collect();
        assert_eq!(
            got,
            [
                "a gliding",
                "an epidermis",
                "an angiogenesis",
                "an rdme",
                "an ssa"
            ]
        );
    }
}
