//! Parameter sweeps: one base config, overrides by field path (a grid, a list, or both) and
//! replicate seeds, run as ordinary run folders with a table of each task's parameters and
//! final observation.
//!
//! ```json
//! {
//!   "base": "angiogenesis.json",
//!   "grid": { "tips.branch_density": [2.5, 5], "D": [0.00035, 0.0007] },
//!   "list": [ { "tumour": "face" }, { "tumour": "sphere", "grid[0]": 151 } ],
//!   "seeds": [1, 2, 3],
//!   "options": ["--steps", "1000"]
//! }
//! ```
//!
//! - `base`: a config file (relative to the sweep file) or the config itself.
//! - Tasks: every `list` entry (or none) times every combination of `grid` (its last field
//!   varying fastest) times every seed (or none), numbered in that order. A path is the
//!   config's field path as errors print it: keys joined by `.`, array elements as `[i]`.
//! - A seed goes to the model's `--seed` flag if it has one (reaction networks), else to the
//!   config's `seed`. `options` are `petri run` flags of the base's model, given to every task.
//!
//! Task i runs into `OUT/task-NNNN/` (an ordinary run folder) and its record, with its status,
//! error or final observation, goes to `OUT/task-NNNN.json`; `OUT/summary.csv` tabulates the
//! records and `OUT/sweep.json` holds the spec and the task list. A failed task is recorded
//! and the sweep goes on; a second call with the same spec skips the tasks already complete
//! and runs the rest. Tasks go to workers as they free up, each worker on its own device.

use crate::error::{without_bom, ModelError, Result};
use crate::model::{Config, Requested};
use crate::registry::Registry;
use crate::runtime::{RunOptions, StopCheck};
use petri_engine::DeviceRequest;
use petri_output::write_atomically;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The spec and task list of the sweep in an output folder.
pub const SWEEP_FILE: &str = "sweep.json";
/// One row per task: parameters, status, final observation, error.
pub const SUMMARY_FILE: &str = "summary.csv";
/// Most tasks one sweep may hold (a spec past it is refused before anything is written).
pub const MAX_TASKS: usize = 100_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    base: Value,
    #[serde(default)]
    grid: Map<String, Value>,
    #[serde(default)]
    list: Vec<Map<String, Value>>,
    #[serde(default)]
    seeds: Vec<u64>,
    #[serde(default)]
    options: Vec<String>,
}

/// One run of a sweep: its overrides, in the sweep's column order, and its seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub index: usize,
    pub overrides: Vec<(String, Value)>,
    pub seed: Option<u64>,
}

/// A sweep read and expanded into its tasks.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The sweep file, for messages.
    pub origin: String,
    /// The spec as read (written to sweep.json).
    pub spec: Value,
    /// The base config and the folder its relative paths start from.
    base: Value,
    base_dir: PathBuf,
    base_origin: String,
    pub options: Vec<String>,
    /// The override paths, in column order.
    pub paths: Vec<String>,
    pub tasks: Vec<Task>,
}

/// The spec error at `field`: "config SWEEP: field = value: allowed".
fn refuse(origin: &str, field: &str, value: impl std::fmt::Display, allowed: &str) -> ModelError {
    ModelError::Parse {
        path: origin.into(),
        message: format!("{field} = {value} is not allowed: {allowed}"),
    }
}

impl Sweep {
    /// Reads the sweep file at `path` (its base config relative to its folder).
    pub fn read(path: &Path) -> Result<Sweep> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Sweep::parse(&text, &path.display().to_string(), &dir)
    }

    /// Parses a sweep spec; `dir` is the folder a base given as a path starts from.
    pub fn parse(text: &str, origin: &str, dir: &Path) -> Result<Sweep> {
        let spec: Value = serde_json::from_str(without_bom(text))
            .map_err(|e| crate::error::json_error(&e, origin))?;
        let file: SpecFile =
            serde_json::from_value(spec.clone()).map_err(|e| ModelError::Parse {
                path: origin.into(),
                message: e.to_string(),
            })?;
        let (base, base_dir, base_origin) = match &file.base {
            Value::String(p) => {
                let path = dir.join(p);
                let config = Config::read(&path)?;
                let Some(value) = config.json_value()? else {
                    return Err(refuse(
                        origin,
                        "base",
                        p,
                        "a JSON config (an SBML network has no fields to override)",
                    ));
                };
                (value, config.base(), config.origin())
            }
            Value::Object(_) => (
                file.base.clone(),
                dir.to_path_buf(),
                format!("{origin} base"),
            ),
            other => {
                return Err(refuse(
                    origin,
                    "base",
                    other,
                    "a config file's path or a config object",
                ))
            }
        };
        let mut paths: Vec<String> = Vec::new();
        for entry in &file.list {
            for key in entry.keys() {
                if !paths.contains(key) {
                    paths.push(key.clone());
                }
            }
        }
        let mut axes: Vec<(&String, &Vec<Value>)> = Vec::new();
        for (path, values) in &file.grid {
            match values {
                Value::Array(v) if !v.is_empty() => axes.push((path, v)),
                other => {
                    return Err(refuse(
                        origin,
                        &format!("grid.{path}"),
                        other,
                        "a non-empty list of values",
                    ))
                }
            }
            if paths.contains(path) {
                return Err(refuse(
                    origin,
                    &format!("grid.{path}"),
                    "(also in list)",
                    "a field set by the grid or by the list, not both",
                ));
            }
            paths.push(path.clone());
        }
        let count = [file.list.len().max(1), file.seeds.len().max(1)]
            .into_iter()
            .chain(axes.iter().map(|(_, v)| v.len()))
            .try_fold(1usize, |n, m| n.checked_mul(m))
            .filter(|&n| n <= MAX_TASKS);
        let Some(count) = count else {
            return Err(refuse(
                origin,
                "grid",
                "(its combinations)",
                &format!("at most {MAX_TASKS} tasks in one sweep"),
            ));
        };
        let empty = Map::new();
        let entries: Vec<&Map<String, Value>> = match file.list.is_empty() {
            true => vec![&empty],
            false => file.list.iter().collect(),
        };
        let seeds: Vec<Option<u64>> = match file.seeds.is_empty() {
            true => vec![None],
            false => file.seeds.iter().copied().map(Some).collect(),
        };
        let combinations: usize = axes.iter().map(|(_, v)| v.len()).product();
        let mut tasks = Vec::with_capacity(count);
        for entry in entries {
            for c in 0..combinations {
                // Mixed radix, the last axis fastest.
                let mut rest = c;
                let mut picks = vec![Value::Null; axes.len()];
                for (a, (_, values)) in axes.iter().enumerate().rev() {
                    picks[a] = values[rest % values.len()].clone();
                    rest /= values.len();
                }
                for &seed in &seeds {
                    let mut overrides: Vec<(String, Value)> = Vec::new();
                    for path in &paths {
                        let from_list = entry.get(path).cloned();
                        let from_grid = axes.iter().position(|(p, _)| *p == path);
                        if let Some(v) = from_list.or_else(|| from_grid.map(|a| picks[a].clone())) {
                            overrides.push((path.clone(), v));
                        }
                    }
                    tasks.push(Task {
                        index: tasks.len(),
                        overrides,
                        seed,
                    });
                }
            }
        }
        let sweep = Sweep {
            origin: origin.into(),
            spec,
            base,
            base_dir,
            base_origin,
            options: file.options,
            paths,
            tasks,
        };
        // Every task's config is built once here, so a bad path fails before any run.
        for task in &sweep.tasks {
            sweep.config_of(task, false)?;
        }
        Ok(sweep)
    }

    /// Whether a seed goes to the model's `--seed` flag (reaction networks) rather than to the
    /// config's `seed`.
    pub fn seed_flag(&self, registry: &Registry) -> Result<bool> {
        let model = registry.of_config(&Config::Json {
            text: self.base.to_string(),
            origin: self.base_origin.clone(),
            base: self.base_dir.clone(),
        })?;
        Ok(model
            .run_flags()
            .get_arguments()
            .any(|a| a.get_long() == Some("seed")))
    }

    /// Task `task`'s config: the base with its overrides, and its seed in the config's `seed`
    /// when `seed_in_config`.
    pub fn config_of(&self, task: &Task, seed_in_config: bool) -> Result<Value> {
        let mut config = self.base.clone();
        for (path, value) in &task.overrides {
            set_path(&mut config, path, value.clone())
                .map_err(|allowed| refuse(&self.origin, path, value, &allowed))?;
        }
        if let (Some(seed), true) = (task.seed, seed_in_config) {
            set_path(&mut config, "seed", seed.into())
                .map_err(|allowed| refuse(&self.origin, "seeds", seed, &allowed))?;
        }
        Ok(config)
    }
}

/// Sets the field at `path` (keys joined by `.`, array elements as `[i]`) of `config` to
/// `value`. The last key may be new (the model's own checks refuse a key it does not know); a
/// missing key before it, or an index past an array's end, is an error saying what is there.
pub fn set_path(config: &mut Value, path: &str, value: Value) -> std::result::Result<(), String> {
    let mut steps: Vec<Step> = Vec::new();
    for part in path.split('.') {
        let (key, mut indices) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if key.is_empty() {
            return Err("a field path: keys joined by '.', array elements as [i]".into());
        }
        steps.push(Step::Key(key.to_string()));
        while !indices.is_empty() {
            let close = indices.find(']').ok_or("a closed [i]")?;
            let i: usize = indices[1..close]
                .parse()
                .map_err(|_| format!("a whole number in {}", &indices[..=close]))?;
            steps.push(Step::Index(i));
            indices = &indices[close + 1..];
            if !indices.is_empty() && !indices.starts_with('[') {
                return Err("a field path: keys joined by '.', array elements as [i]".into());
            }
        }
    }
    let last = steps.len() - 1;
    let mut here = config;
    for (n, step) in steps.into_iter().enumerate() {
        here = match (step, here) {
            (Step::Key(k), Value::Object(map)) => {
                if n == last {
                    map.insert(k, value);
                    return Ok(());
                }
                map.get_mut(&k)
                    .ok_or_else(|| format!("a path into the base config, which has no {k:?}"))?
            }
            (Step::Index(i), Value::Array(items)) => {
                let len = items.len();
                let item = items
                    .get_mut(i)
                    .ok_or_else(|| format!("an index below the array's length {len}"))?;
                if n == last {
                    *item = value;
                    return Ok(());
                }
                item
            }
            (Step::Key(k), _) => return Err(format!("a path into objects ({k:?} is not in one)")),
            (Step::Index(i), _) => return Err(format!("[{i}] into an array")),
        };
    }
    unreachable!("the loop returns at the last step")
}

enum Step {
    Key(String),
    Index(usize),
}

/// How a task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Complete,
    Failed,
    /// Asked to stop (Ctrl-C): run again to finish it.
    Stopped,
}

/// What a task left: its parameters, how it ended, and its final observation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    pub task: Task,
    pub status: Status,
    #[serde(default)]
    pub error: Option<String>,
    /// The final observation's column names and values (complete tasks).
    #[serde(default)]
    pub columns: Vec<String>,
    #[serde(default, with = "exact_floats")]
    pub last: Vec<f64>,
    #[serde(default)]
    pub last_step: u64,
    /// Complete before this call: not run again.
    #[serde(skip)]
    pub skipped: bool,
}

/// Floats as Rust's shortest round-trip text, read back with Rust's exact parser (serde_json's
/// default parser may miss the last bit), so a record read again holds the same values.
mod exact_floats {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(values: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(values.iter().map(|v| v.to_string()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|t| t.parse().map_err(serde::de::Error::custom))
            .collect()
    }
}

impl TaskRecord {
    /// The task and how it ended, in words: "task 3 (D = 0.0007, seed 2): complete, step 1000",
    /// "... complete before" (skipped) or "... failed: why".
    pub fn describe(&self) -> String {
        let mut what: Vec<String> = self
            .task
            .overrides
            .iter()
            .map(|(p, v)| format!("{p} = {v}"))
            .collect();
        if let Some(seed) = self.task.seed {
            what.push(format!("seed {seed}"));
        }
        let head = format!("task {} ({})", self.task.index + 1, what.join(", "));
        match (self.status, &self.error) {
            (Status::Complete, _) if self.skipped => format!("{head}: complete before"),
            (Status::Complete, _) => format!("{head}: complete, step {}", self.last_step),
            (s, Some(e)) => format!("{head}: {}: {e}", status_name(s)),
            (s, None) => format!("{head}: {}", status_name(s)),
        }
    }
}

/// Where and on what a sweep runs.
pub struct SweepOptions {
    pub out: PathBuf,
    /// One worker per entry, each on the device it asks for.
    pub workers: Vec<DeviceRequest>,
    pub stop: Option<StopCheck>,
}

/// The folder of task `i`.
pub fn task_dir(out: &Path, i: usize) -> PathBuf {
    out.join(format!("task-{:04}", i + 1))
}

/// The record file of task `i`.
pub fn record_path(out: &Path, i: usize) -> PathBuf {
    out.join(format!("task-{:04}.json", i + 1))
}

/// Runs the tasks of `sweep` not yet complete in `opts.out`, with the models of `registry`;
/// `report` hears of each task as it ends. Returns every task's record, in task order (a task
/// not reached because the sweep was stopped has none). A task's failure is in its record;
/// an error here is the sweep's own (its folder or spec).
pub fn run_sweep(
    registry: &Registry,
    sweep: &Sweep,
    opts: &SweepOptions,
    report: &(dyn Fn(&TaskRecord) + Sync),
) -> Result<Vec<TaskRecord>> {
    prepare(sweep, &opts.out)?;
    let seed_flag = sweep.seed_flag(registry)?;
    let next = AtomicUsize::new(0);
    let records: Mutex<Vec<Option<TaskRecord>>> = Mutex::new(vec![None; sweep.tasks.len()]);
    let stopped = std::sync::atomic::AtomicBool::new(false);
    let (next, records_ref, stopped_ref) = (&next, &records, &stopped);
    std::thread::scope(|scope| {
        for request in &opts.workers {
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= sweep.tasks.len() || stopped_ref.load(Ordering::Relaxed) {
                    return;
                }
                let record = run_task(registry, sweep, &sweep.tasks[i], seed_flag, request, opts);
                if record.status == Status::Stopped {
                    stopped_ref.store(true, Ordering::Relaxed);
                }
                report(&record);
                records_ref.lock().expect("no worker panics holding it")[i] = Some(record);
            });
        }
    });
    let records: Vec<TaskRecord> = records
        .into_inner()
        .expect("no worker panics holding it")
        .into_iter()
        .flatten()
        .collect();
    write_summary(sweep, &opts.out, &records)?;
    Ok(records)
}

/// The records of the tasks in `out` (those with one, in task order), and summary.csv of
/// them: what a sweep whose tasks ran elsewhere (`run_task` on other workers) ends with.
pub fn finish(sweep: &Sweep, out: &Path) -> Result<Vec<TaskRecord>> {
    let records: Vec<TaskRecord> = sweep
        .tasks
        .iter()
        .filter_map(|t| read_record(out, t))
        .collect();
    write_summary(sweep, out, &records)?;
    Ok(records)
}

/// Task `task`'s record in `out`, if there is one for this task.
pub fn read_record(out: &Path, task: &Task) -> Option<TaskRecord> {
    std::fs::read_to_string(record_path(out, task.index))
        .ok()
        .and_then(|t| serde_json::from_str::<TaskRecord>(&t).ok())
        .filter(|r| r.task == *task)
}

/// Makes `out` a sweep folder for `sweep`: new or empty, or holding this same sweep.
pub fn prepare(sweep: &Sweep, out: &Path) -> Result<()> {
    let io = |source| ModelError::Io {
        path: out.display().to_string(),
        source,
    };
    std::fs::create_dir_all(out).map_err(io)?;
    let file = out.join(SWEEP_FILE);
    let written = serde_json::json!({
        "spec": sweep.spec,
        "origin": sweep.origin,
        "tasks": sweep.tasks,
    });
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            let earlier: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if earlier["tasks"] != written["tasks"] || earlier["spec"] != written["spec"] {
                return Err(ModelError::Usage(format!(
                    "{} holds another sweep (its {SWEEP_FILE} differs from {}): give a new \
                     --out, or the same spec to finish that sweep",
                    out.display(),
                    sweep.origin
                )));
            }
            Ok(())
        }
        Err(_) => {
            if std::fs::read_dir(out).map_err(io)?.next().is_some() {
                return Err(ModelError::Usage(format!(
                    "{} is not empty and holds no sweep: give a new or empty --out",
                    out.display()
                )));
            }
            write_atomically(&file, |w| {
                serde_json::to_writer_pretty(&mut *w, &written)?;
                writeln!(w)
            })?;
            Ok(())
        }
    }
}

/// Runs one task of a prepared folder (`prepare`) into its folder, unless its record says it
/// is complete, and records it; `seed_flag` is [`Sweep::seed_flag`].
pub fn run_task(
    registry: &Registry,
    sweep: &Sweep,
    task: &Task,
    seed_flag: bool,
    request: &DeviceRequest,
    opts: &SweepOptions,
) -> TaskRecord {
    let record_file = record_path(&opts.out, task.index);
    if let Some(mut done) = read_record(&opts.out, task).filter(|r| r.status == Status::Complete) {
        done.skipped = true;
        return done;
    }
    let mut record = TaskRecord {
        task: task.clone(),
        status: Status::Complete,
        error: None,
        columns: Vec::new(),
        last: Vec::new(),
        last_step: 0,
        skipped: false,
    };
    match run_one(registry, sweep, task, seed_flag, request, opts) {
        Ok((columns, last, step)) => {
            (record.columns, record.last, record.last_step) = (columns, last, step)
        }
        Err(e) => {
            record.status = match e {
                ModelError::Interrupted { .. } => Status::Stopped,
                _ => Status::Failed,
            };
            record.error = Some(e.to_string());
        }
    }
    let written = write_atomically(&record_file, |w| {
        serde_json::to_writer_pretty(&mut *w, &record)?;
        writeln!(w)
    });
    if let Err(e) = written {
        record.status = Status::Failed;
        record.error = Some(format!("its record: {e}"));
    }
    record
}

/// Opens and runs one task; returns the final observation's columns, values and step.
fn run_one(
    registry: &Registry,
    sweep: &Sweep,
    task: &Task,
    seed_flag: bool,
    request: &DeviceRequest,
    opts: &SweepOptions,
) -> Result<(Vec<String>, Vec<f64>, u64)> {
    let t = Instant::now();
    let config = sweep.config_of(task, !seed_flag)?;
    let config = Config::Json {
        text: serde_json::to_string_pretty(&config).expect("a JSON value serializes"),
        origin: format!("{} task {}", sweep.origin, task.index + 1),
        base: sweep.base_dir.clone(),
    };
    let mut flags = sweep.options.clone();
    if let (Some(seed), true) = (task.seed, seed_flag) {
        flags.extend(["--seed".to_string(), seed.to_string()]);
    }
    let dir = task_dir(&opts.out, task.index);
    let mut sim = registry
        .open(
            Some(&config),
            None,
            &flags,
            &Requested(request.clone()),
            opts.stop.clone(),
        )?
        .sim;
    let mut last: Option<crate::runtime::Row> = None;
    let run = RunOptions {
        steps: None,
        out_dir: dir.clone(),
        checkpoint_every: None,
        resumed: false,
        // A task run before and not complete: its folder holds that run.
        overwrite: dir.join(petri_output::MANIFEST_FILE).exists(),
        setup_s: t.elapsed().as_secs_f64(),
        stop: opts.stop.clone(),
    };
    let done = sim.run_into(&run, &mut |row, _| last = Some(row.clone()))?;
    let last = match last {
        Some(row) => row,
        None => sim.observe()?,
    };
    Ok((sim.columns(), last.values, done.last_step))
}

/// `summary.csv`: task, status, seed, each override, the final step and observation, error.
fn write_summary(sweep: &Sweep, out: &Path, records: &[TaskRecord]) -> Result<()> {
    let columns = records
        .iter()
        .find(|r| !r.columns.is_empty())
        .map(|r| r.columns.clone())
        .unwrap_or_default();
    let mut header = vec!["task".to_string(), "status".to_string()];
    let seeds = sweep.tasks.iter().any(|t| t.seed.is_some());
    if seeds {
        header.push("seed".into());
    }
    header.extend(sweep.paths.iter().cloned());
    header.push("last_step".into());
    header.extend(columns.iter().map(|c| format!("final_{c}")));
    header.push("error".into());
    let mut rows = vec![header
        .iter()
        .map(|h| csv_field(h))
        .collect::<Vec<_>>()
        .join(",")];
    for r in records {
        let mut row = vec![(r.task.index + 1).to_string(), status_name(r.status).into()];
        if seeds {
            row.push(r.task.seed.map_or(String::new(), |s| s.to_string()));
        }
        for path in &sweep.paths {
            let v = r.task.overrides.iter().find(|(p, _)| p == path);
            row.push(v.map_or(String::new(), |(_, v)| match v {
                Value::String(s) => csv_field(s),
                other => csv_field(&other.to_string()),
            }));
        }
        row.push(match r.status {
            Status::Complete => r.last_step.to_string(),
            _ => String::new(),
        });
        for i in 0..columns.len() {
            row.push(match (r.columns == columns, r.last.get(i)) {
                (true, Some(v)) => format!("{v}"),
                _ => String::new(),
            });
        }
        row.push(csv_field(r.error.as_deref().unwrap_or("")));
        rows.push(row.join(","));
    }
    write_atomically(&out.join(SUMMARY_FILE), |w| {
        for row in &rows {
            writeln!(w, "{row}")?;
        }
        Ok(())
    })?;
    Ok(())
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Complete => "complete",
        Status::Failed => "failed",
        Status::Stopped => "stopped",
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    match s.contains([',', '"', '\n', '\r']) {
        true => format!("\"{}\"", s.replace('"', "\"\"")),
        false => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(spec: Value) -> Result<Sweep> {
        Sweep::parse(&spec.to_string(), "s.json", Path::new("."))
    }

    fn base() -> Value {
        json!({"model": "angiogenesis", "grid": [21, 21, 1], "tips": {"branch_density": 2.5}})
    }

    #[test]
    fn tasks_are_list_entries_times_grid_combinations_times_seeds() {
        let s = parse(json!({
            "base": base(),
            "list": [{"D": 0.001}, {"D": 0.002, "tumour": "sphere"}],
            "grid": {"grid[0]": [21, 31], "tips.branch_density": [1, 2, 3]},
            "seeds": [7, 8],
        }))
        .unwrap();
        assert_eq!(s.tasks.len(), 2 * 6 * 2);
        assert_eq!(s.paths, ["D", "tumour", "grid[0]", "tips.branch_density"]);
        let t = &s.tasks[3];
        assert_eq!(t.seed, Some(8));
        assert_eq!(
            t.overrides,
            [
                ("D".to_string(), json!(0.001)),
                ("grid[0]".to_string(), json!(21)),
                ("tips.branch_density".to_string(), json!(2)),
            ]
        );
        let config = s.config_of(&s.tasks[23], true).unwrap();
        assert_eq!(config["grid"], json!([31, 21, 1]));
        assert_eq!(config["tips"]["branch_density"], json!(3));
        assert_eq!(config["tumour"], json!("sphere"));
        assert_eq!(config["seed"], json!(8));
        // Without list, grid or seeds: the base once.
        assert_eq!(parse(json!({"base": base()})).unwrap().tasks.len(), 1);
    }

    #[test]
    fn bad_specs_name_the_field() {
        let cases = [
            (json!({"base": base(), "grid": {"D": 1}}), "grid.D"),
            (json!({"base": base(), "grid": {"D": []}}), "grid.D"),
            (json!({"base": base(), "grid": {"nope.x": [1]}}), "nope.x"),
            (json!({"base": base(), "grid": {"grid[3]": [1]}}), "grid[3]"),
            (json!({"base": base(), "grid": {"grid[x]": [1]}}), "grid[x]"),
            (
                json!({"base": base(), "list": [{"D": 1}], "grid": {"D": [2]}}),
                "grid.D",
            ),
            (json!({"base": 5}), "base"),
            (json!({"base": base(), "repeats": 3}), "repeats"),
            (
                json!({"base": base(), "grid": {"a": (0..400).collect::<Vec<_>>(), "b": (0..400).collect::<Vec<_>>()}}),
                "at most 100000 tasks",
            ),
        ];
        for (spec, field) in cases {
            let e = parse(spec).unwrap_err().to_string();
            assert!(e.contains(field) && e.contains("s.json"), "{field}: {e}");
        }
    }

    #[test]
    fn set_path_reaches_nested_fields_and_array_elements() {
        let mut v = json!({"a": {"b": [1, [2, 3]]}});
        set_path(&mut v, "a.b[1][0]", json!(9)).unwrap();
        set_path(&mut v, "a.c", json!("new")).unwrap();
        assert_eq!(v, json!({"a": {"b": [1, [9, 3]], "c": "new"}}));
        assert!(set_path(&mut v, "a.b[5]", json!(0))
            .unwrap_err()
            .contains("length 2"));
        assert!(set_path(&mut v, "x.y", json!(0))
            .unwrap_err()
            .contains("\"x\""));
        assert!(set_path(&mut v, "a..b", json!(0)).is_err());
    }

    #[test]
    fn csv_fields_are_quoted_when_they_must_be() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a, \"b\""), "\"a, \"\"b\"\"\"");
    }
}
