//! The native half of Petri's Python package: `petri._petri`. It opens a model through
//! `petri_model::registry` (as `petri run` does) and drives it through the runtime's `Driven` contract, so every model
//! is one `Simulation` class here; `python/petri/__init__.py` is the documented front.
//! Model errors become the package's exceptions with the CLI's messages; arrays leave as numpy
//! arrays of the type the model keeps them in.

use numpy::{IntoPyArray, PyArrayMethods};
use petri_engine::{AdapterSummary, DeviceRequest};
use petri_model::model::{Config, Model, Requested};
use petri_model::registry::Registry;
use petri_model::runtime::{ArrayData, Driven, Row, RunOptions, StateArray, StopCheck};
use petri_model::sweep::{self, Status, Sweep, SweepOptions, TaskRecord};
use petri_model::ModelError;
use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyList, PyTuple, PyType};
use pyo3::IntoPyObjectExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

create_exception!(
    petri,
    PetriError,
    PyException,
    "Base of Petri's errors; the message is the one the command line prints."
);
/// `petri.ConfigError`: a `PetriError` and a `ValueError` (a bad value is what Python code
/// catches as ValueError), made at import as `type(...)` with both bases, which
/// `create_exception!` cannot give.
static CONFIG_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

const CONFIG_ERROR_DOC: &str = "A config, option or argument that is not allowed: names the \
     field, the value and what is allowed. A PetriError and a ValueError.";

fn config_error_type(py: Python<'_>) -> PyResult<&Py<PyType>> {
    CONFIG_ERROR.get_or_try_init(py, || {
        let bases = PyTuple::new(
            py,
            [py.get_type::<PetriError>(), py.get_type::<PyValueError>()],
        )?;
        let namespace = PyDict::new(py);
        namespace.set_item("__doc__", CONFIG_ERROR_DOC)?;
        namespace.set_item("__module__", "petri")?;
        let ty = py
            .get_type::<PyType>()
            .call1(("ConfigError", bases, namespace))?;
        Ok(ty.cast_into::<PyType>()?.unbind())
    })
}

/// A `petri.ConfigError` with `message`.
fn config_error(message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| match config_error_type(py) {
        Ok(ty) => PyErr::from_type(ty.bind(py).clone(), message),
        Err(e) => e,
    })
}

/// The command line's words for its flags, as the Python arguments that do the same (messages
/// shared with the CLI name its flags).
const PYTHON_WORDING: [(&str, &str); 3] = [
    ("give --overwrite", "pass overwrite=True"),
    ("--overwrite", "overwrite=True"),
    ("--checkpoint-every", "checkpoint_every"),
];

fn python_wording(message: String) -> String {
    PYTHON_WORDING
        .iter()
        .fold(message, |m, (cli, python)| m.replace(cli, python))
}
create_exception!(
    petri,
    NonFiniteError,
    PetriError,
    "The simulation went NaN or infinite: names the quantity and the steps between which."
);
create_exception!(
    petri,
    CheckpointError,
    PetriError,
    "A checkpoint that cannot be read, is damaged or belongs to another run."
);
create_exception!(
    petri,
    DeviceError,
    PetriError,
    "No adapter, or a request beyond what the adapter offers."
);
create_exception!(
    petri,
    CapacityError,
    PetriError,
    "A capacity or number range outgrown: cells beyond capacity.max_cells, particles per lattice site, molecule counts or propensities beyond what an ensemble holds."
);

/// A model error as the package's exception (docs/python.md's table), with the command line's
/// message in Python's words.
fn to_py(e: ModelError) -> PyErr {
    use petri_model::OutputError;
    let message = python_wording(e.to_string());
    let io_error = |source: &std::io::Error| match source.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message.clone()),
        _ => PyOSError::new_err(message.clone()),
    };
    match &e {
        ModelError::Invalid { .. }
        | ModelError::Parse { .. }
        | ModelError::Flag { .. }
        | ModelError::Usage(_) => config_error(message),
        ModelError::NonFinite { .. } => NonFiniteError::new_err(message),
        ModelError::Checkpoint { .. } | ModelError::Output(OutputError::Checkpoint { .. }) => {
            CheckpointError::new_err(message)
        }
        ModelError::Overflow { .. } => CapacityError::new_err(message),
        ModelError::Io { source, .. } | ModelError::Output(OutputError::Io { source, .. }) => {
            io_error(source)
        }
        ModelError::Engine(_) | ModelError::OutOfMemory { .. } => DeviceError::new_err(message),
        ModelError::Stalled { .. } | ModelError::Rank { .. } | ModelError::Output(_) => {
            PetriError::new_err(message)
        }
        ModelError::Interrupted { .. } => PyKeyboardInterrupt::new_err(message),
    }
}

/// Python's signal handlers, run between the observation periods of a call that has let go
/// of the GIL (they run nowhere else until the call returns). The exception a handler raises
/// (KeyboardInterrupt for Ctrl-C) stops the run and is kept, to be raised once the
/// simulation is whole again.
#[derive(Default)]
struct Signals(Mutex<Option<PyErr>>);

impl Signals {
    /// Runs the pending handlers; true when one raised.
    fn raised(&self) -> bool {
        Python::attach(|py| match py.check_signals() {
            Ok(()) => false,
            Err(e) => {
                *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        })
    }

    /// A stop check that runs the handlers (`raised`).
    fn check(self: &Arc<Self>) -> StopCheck {
        let signals = self.clone();
        StopCheck::new(move || signals.raised())
    }

    /// The exception a handler raised, carrying the observations made before it as its
    /// `observations` attribute.
    fn raise(&self, py: Python<'_>, observations: Bound<'_, PyDict>) -> PyErr {
        let e = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"));
        // Best effort: an exception type without attributes still stops the run.
        let _ = e.value(py).setattr("observations", observations);
        e
    }
}

/// A JSON value as the Python object json.loads would give.
fn to_python<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_bound_py_any(py)?,
            (None, Some(i)) => i.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Array(items) => {
            let items = items
                .iter()
                .map(|x| to_python(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(map) => {
            let d = PyDict::new(py);
            for (k, x) in map {
                d.set_item(k, to_python(py, x)?)?;
            }
            d.into_any()
        }
    })
}

fn summary_dict<'py>(py: Python<'py>, a: &AdapterSummary) -> PyResult<Bound<'py, PyAny>> {
    let mut v = serde_json::to_value(a).map_err(|e| PetriError::new_err(e.to_string()))?;
    v["software"] = serde_json::Value::Bool(a.is_software());
    to_python(py, &v)
}

/// The adapters present (those `backend` allows), best first, as dicts: name, backend,
/// device_type, driver, limits, features and whether it is a software adapter.
#[pyfunction]
#[pyo3(signature = (backend=None))]
fn adapters<'py>(py: Python<'py>, backend: Option<String>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let list = petri_engine::list_adapters(backend.as_deref())
        .map_err(|e| to_py(ModelError::Engine(e)))?;
    list.iter().map(|a| summary_dict(py, a)).collect()
}

/// Opens a simulation; `petri.open` is the documented front of this.
#[pyfunction]
#[pyo3(signature = (
    config_text=None, origin=None, base=None, sbml=None, resume=None, backend=None,
    adapter=None, device=None, method=None, trajectories=None, t_end=None, points=None,
    seed=None, keep_trajectories=None, options=None
))]
#[allow(clippy::too_many_arguments)]
fn open_simulation(
    py: Python<'_>,
    config_text: Option<String>,
    origin: Option<String>,
    base: Option<PathBuf>,
    sbml: Option<PathBuf>,
    resume: Option<PathBuf>,
    backend: Option<String>,
    adapter: Option<String>,
    device: Option<String>,
    method: Option<String>,
    trajectories: Option<u64>,
    t_end: Option<f64>,
    points: Option<usize>,
    seed: Option<u64>,
    keep_trajectories: Option<bool>,
    options: Option<Vec<String>>,
) -> PyResult<Simulation> {
    let config = match (config_text, sbml) {
        (Some(text), _) => Some(Config::Json {
            text,
            origin: origin.unwrap_or_else(|| petri_model::error::DICT_ORIGIN.into()),
            base: base.unwrap_or_default(),
        }),
        (None, Some(path)) => Some(Config::Sbml(path)),
        (None, None) => None,
    };
    // The network options as `petri run` takes them, parsed by the model's own flags.
    let mut flags = Vec::new();
    let mut flag = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            flags.push(format!("--{name}={v}"));
        }
    };
    // "auto" is the flag left out (auto, or the device of the checkpoint resumed from).
    flag("device", device.filter(|d| d != "auto"));
    flag("method", method);
    flag("trajectories", trajectories.map(|n| n.to_string()));
    flag("t-end", t_end.map(|t| t.to_string()));
    flag("points", points.map(|n| n.to_string()));
    flag("seed", seed.map(|n| n.to_string()));
    if keep_trajectories == Some(true) {
        flags.push("--trajectories-csv".into());
    }
    // Any model's own flags, as typed (`petri.open(options=...)`).
    flags.extend(options.unwrap_or_default());
    let devices = Requested(DeviceRequest::from_env().with_overrides(backend, adapter));
    // Ctrl-C stops an open that runs the simulation (a GPU ensemble of a general network).
    let signals = Arc::new(Signals::default());
    let stop = Some(signals.check());
    let opened = py
        .detach(|| {
            let registry = Registry::default();
            registry.open(config.as_ref(), resume.as_deref(), &flags, &devices, stop)
        })
        .map_err(|e| match e {
            ModelError::Interrupted { .. } => signals.raise(py, PyDict::new(py)),
            e => to_py(e),
        })?;
    Ok(Simulation {
        model: opened.model,
        device: opened.placement.device,
        device_reason: opened.placement.reason,
        sim: Mutex::new(opened.sim),
    })
}

/// The sweep whose JSON text is `text` (`origin` names it in messages; a base given as a path
/// starts from the folder `base`).
fn read_sweep(text: &str, origin: &str, base: &Path) -> PyResult<Sweep> {
    Sweep::parse(text, origin, base).map_err(to_py)
}

/// A task record as JSON text, with whether it was complete before this call and its final
/// observation as numbers.
fn record_json(r: &TaskRecord) -> String {
    let mut v = serde_json::to_value(r).expect("a record serializes");
    v["skipped"] = r.skipped.into();
    // As numbers (the file keeps them as exact text): Python reads the shortest round-trip
    // digits back to the same float.
    v["last"] = r.last.clone().into();
    v.to_string()
}

/// Prepares the folder `out` for the sweep (`petri.sweep` with a Dask client); returns its
/// number of tasks.
#[pyfunction]
fn sweep_prepare(
    py: Python<'_>,
    text: String,
    origin: String,
    base: PathBuf,
    out: PathBuf,
) -> PyResult<usize> {
    let sweep = read_sweep(&text, &origin, &base)?;
    py.detach(|| sweep::prepare(&sweep, &out)).map_err(to_py)?;
    Ok(sweep.tasks.len())
}

/// Runs task `index` of the sweep into the prepared folder `out` (one Dask task); returns its
/// record as JSON text. A failed task is in its record, not raised.
#[pyfunction]
#[pyo3(signature = (text, origin, base, out, index, backend=None, adapter=None))]
#[allow(clippy::too_many_arguments)]
fn sweep_task(
    py: Python<'_>,
    text: String,
    origin: String,
    base: PathBuf,
    out: PathBuf,
    index: usize,
    backend: Option<String>,
    adapter: Option<String>,
) -> PyResult<String> {
    let sweep = read_sweep(&text, &origin, &base)?;
    let task = sweep.tasks.get(index).cloned().ok_or_else(|| {
        config_error(format!(
            "config: index = {index} is not allowed: a task of the sweep, 0..{}",
            sweep.tasks.len()
        ))
    })?;
    let registry = Registry::default();
    let seed_flag = sweep.seed_flag(&registry).map_err(to_py)?;
    let request = DeviceRequest::from_env().with_overrides(backend, adapter);
    let opts = SweepOptions {
        out,
        workers: vec![request.clone()],
        stop: None,
    };
    let record =
        py.detach(|| sweep::run_task(&registry, &sweep, &task, seed_flag, &request, &opts));
    Ok(record_json(&record))
}

/// Writes the sweep's summary.csv from the records in `out`; returns them as JSON text.
#[pyfunction]
fn sweep_finish(
    py: Python<'_>,
    text: String,
    origin: String,
    base: PathBuf,
    out: PathBuf,
) -> PyResult<Vec<String>> {
    let sweep = read_sweep(&text, &origin, &base)?;
    let records = py.detach(|| sweep::finish(&sweep, &out)).map_err(to_py)?;
    Ok(records.iter().map(record_json).collect())
}

/// Runs the sweep with `workers` workers on this machine's adapter; returns the records as JSON
/// text. Ctrl-C stops the tasks under way after the batch under way and raises
/// KeyboardInterrupt once the records are written.
#[pyfunction]
#[pyo3(signature = (text, origin, base, out, workers=1, backend=None, adapter=None))]
#[allow(clippy::too_many_arguments)]
fn sweep_run(
    py: Python<'_>,
    text: String,
    origin: String,
    base: PathBuf,
    out: PathBuf,
    workers: usize,
    backend: Option<String>,
    adapter: Option<String>,
) -> PyResult<Vec<String>> {
    let sweep = read_sweep(&text, &origin, &base)?;
    if !(1..=64).contains(&workers) {
        return Err(config_error(format!(
            "config: workers = {workers} is not allowed: 1 to 64 tasks at once"
        )));
    }
    let signals = Arc::new(Signals::default());
    let request = DeviceRequest::from_env().with_overrides(backend, adapter);
    let opts = SweepOptions {
        out,
        workers: vec![request; workers],
        stop: Some(signals.check()),
    };
    let records = py
        .detach(|| sweep::run_sweep(&Registry::default(), &sweep, &opts, &|_| {}))
        .map_err(to_py)?;
    if records.iter().any(|r| r.status == Status::Stopped) {
        return Err(signals.raise(py, PyDict::new(py)));
    }
    Ok(records.iter().map(record_json).collect())
}

/// The repository's model configs (`assets/`), built into the module so that an installed
/// package has them (`petri.assets`): file name and text. The Python tests check that the list
/// is the folder's.
const ASSETS: [(&str, &str); 7] = [
    (
        "angiogenesis.json",
        include_str!("../../../assets/angiogenesis.json"),
    ),
    (
        "angiogenesis_3d.json",
        include_str!("../../../assets/angiogenesis_3d.json"),
    ),
    (
        "birth-death.json",
        include_str!("../../../assets/birth-death.json"),
    ),
    (
        "epidermis.json",
        include_str!("../../../assets/epidermis.json"),
    ),
    ("gliding.json", include_str!("../../../assets/gliding.json")),
    (
        "min-system.json",
        include_str!("../../../assets/min-system.json"),
    ),
    ("vilar.json", include_str!("../../../assets/vilar.json")),
];

/// The names of the configs the package holds, in order.
#[pyfunction]
fn asset_names() -> Vec<&'static str> {
    ASSETS.iter().map(|(name, _)| *name).collect()
}

/// The text of the packaged config `name`.
#[pyfunction]
fn asset_text(name: &str) -> PyResult<&'static str> {
    ASSETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .ok_or_else(|| {
            config_error(format!(
                "config: asset = {name:?} is not allowed: one of {}",
                asset_names().join(", ")
            ))
        })
}

/// What `run(progress=...)` reports to: a callable given (steps done, steps asked) after each
/// stretch of the run, and whether Petri made it (a bar from `petri._progress`, closed when the
/// run ends).
struct Progress<'py> {
    report: Bound<'py, PyAny>,
    bar: bool,
}

impl<'py> Progress<'py> {
    /// `progress` as given: None or False (no report), True (a bar), or a callable.
    fn of(
        py: Python<'py>,
        progress: Option<Bound<'py, PyAny>>,
        total: u64,
        what: &str,
    ) -> PyResult<Option<Self>> {
        let Some(p) = progress.filter(|p| !p.is_none()) else {
            return Ok(None);
        };
        if p.is_instance_of::<PyBool>() {
            if !p.is_truthy()? {
                return Ok(None);
            }
            let bar = py
                .import("petri._progress")?
                .call_method1("bar", (total, what))?;
            return Ok(Some(Progress {
                report: bar,
                bar: true,
            }));
        }
        if !p.is_callable() {
            return Err(config_error(format!(
                "config: progress = {} is not allowed: True (a bar), False, None or a callable \
                 given (steps done, steps asked)",
                p.repr()?
            )));
        }
        Ok(Some(Progress {
            report: p,
            bar: false,
        }))
    }

    fn report(&self, done: u64, total: u64) -> PyResult<()> {
        self.report.call1((done, total)).map(drop)
    }

    /// Ends a bar Petri made (a callable of the caller's is left as it is).
    fn close(&self) -> PyResult<()> {
        if self.bar {
            self.report.call_method0("close")?;
        }
        Ok(())
    }
}

/// Wall time a stretch of a reported run aims at: a report a few times a second, and stretches
/// long enough that the wait for the device at the end of each costs little.
const STRETCH: Duration = Duration::from_millis(250);

/// A simulation of one model, opened by `petri.open`.
#[pyclass(module = "petri", name = "Simulation")]
struct Simulation {
    model: &'static dyn Model,
    device: String,
    device_reason: String,
    sim: Mutex<Box<dyn Driven>>,
}

impl Simulation {
    fn sim(&self) -> MutexGuard<'_, Box<dyn Driven>> {
        // A panic inside a model poisons nothing the next call relies on.
        self.sim.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The whole steps from now that end at or before `until` at `time_per_step` (gliding's
    /// steps adapt and are at most `time_per_step`, so its run ends at or before `until` too).
    /// A step that would end within a millionth of a step past `until` counts as ending on it.
    fn steps_until(&self, until: f64) -> PyResult<u64> {
        let mut sim = self.sim();
        let dt = sim.schedule().time_per_step;
        let now = sim.time().map_err(to_py)?;
        if !until.is_finite() || until < now {
            return Err(config_error(format!(
                "config: until = {until} is not allowed: a time at or after the current time {now}"
            )));
        }
        Ok(((until - now) / dt + 1e-6).floor().max(0.0) as u64)
    }

    /// Runs `steps` steps, into the folder `out` when given (`run`'s arguments); the
    /// observations made on the way.
    fn run_steps<'py>(
        &self,
        py: Python<'py>,
        steps: u64,
        out: Option<PathBuf>,
        checkpoint_every: Option<u64>,
        overwrite: bool,
        progress: Option<&Progress<'py>>,
    ) -> PyResult<Vec<Row>> {
        // Ctrl-C stops the run after the batch under way (`Driven::advance_until`), the
        // simulation whole and usable; the KeyboardInterrupt carries the observations so far.
        let signals = Arc::new(Signals::default());
        let Some(dir) = out else {
            if let Some(progress) = progress {
                return self.advance_reported(py, steps, &signals, progress);
            }
            let stop = signals.check();
            let advanced = py
                .detach(|| self.sim().advance_until(steps, &stop))
                .map_err(to_py)?;
            if advanced.stopped {
                return Err(signals.raise(py, self.rows(py, &advanced.rows)?));
            }
            return Ok(advanced.rows);
        };
        let asked = signals.clone();
        // An exception from the progress callable stops the run as Ctrl-C does, and is raised.
        let failed: Arc<Mutex<Option<PyErr>>> = Arc::default();
        let failure = failed.clone();
        let opts = RunOptions {
            steps: Some(steps),
            out_dir: dir,
            checkpoint_every,
            resumed: false,
            overwrite,
            setup_s: 0.0,
            stop: Some(StopCheck::new(move || {
                asked.raised() || failure.lock().map_or(true, |f| f.is_some())
            })),
        };
        let start = self.sim().step();
        if let Some(p) = progress {
            p.report(0, steps)?;
        }
        let report = progress.map(|p| p.report.clone().unbind());
        let mut rows = Vec::new();
        let run = py.detach(|| {
            self.sim().run_into(&opts, &mut |row, _| {
                rows.push(row.clone());
                if let Some(report) = &report {
                    let done = row.step.saturating_sub(start).min(steps);
                    let told = Python::attach(|py| report.call1(py, (done, steps)).map(drop));
                    if let Err(e) = told {
                        let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
                        f.get_or_insert(e);
                    }
                }
            })
        });
        let callback_error = failed.lock().unwrap_or_else(|p| p.into_inner()).take();
        match (run, callback_error) {
            (Err(ModelError::Interrupted { .. }), Some(e)) => Err(e),
            (Ok(_), _) => Ok(rows),
            (Err(ModelError::Interrupted { .. }), None) => {
                Err(signals.raise(py, self.rows(py, &rows)?))
            }
            (Err(e), _) => Err(to_py(e)),
        }
    }

    /// Advances `steps` steps in stretches of whole observation periods (a stretch ends on a
    /// multiple of `observe_every` or at the end, so the observations are those of one
    /// advance, and so is the state: results do not depend on batch lengths), reporting the
    /// steps done after each. Stretches double while they take under [`STRETCH`] and halve
    /// while they take over four times that. Ctrl-C stops it as it stops an advance.
    fn advance_reported<'py>(
        &self,
        py: Python<'py>,
        steps: u64,
        signals: &Arc<Signals>,
        progress: &Progress<'py>,
    ) -> PyResult<Vec<Row>> {
        let start = self.sim().step();
        let every = self.sim().schedule().observe_every.max(1);
        let end = start.saturating_add(steps);
        let mut rows = Vec::new();
        let mut periods = 1u64;
        progress.report(0, steps)?;
        let stop = signals.check();
        let mut now = start;
        while now < end {
            let next = (now / every)
                .saturating_add(periods)
                .saturating_mul(every)
                .min(end);
            let began = Instant::now();
            let advanced = py
                .detach(|| self.sim().advance_until(next - now, &stop))
                .map_err(to_py)?;
            rows.extend(advanced.rows);
            if advanced.stopped {
                return Err(signals.raise(py, self.rows(py, &rows)?));
            }
            now = self.sim().step();
            progress.report(now - start, steps)?;
            let took = began.elapsed();
            if took < STRETCH {
                periods = periods.saturating_mul(2);
            } else if took > 4 * STRETCH {
                periods = (periods / 2).max(1);
            }
        }
        Ok(rows)
    }

    /// Observations as a dict of columns (numpy float64 arrays), with "step" (uint64).
    fn rows<'py>(&self, py: Python<'py>, rows: &[Row]) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let steps: Vec<u64> = rows.iter().map(|r| r.step).collect();
        d.set_item("step", steps.into_pyarray(py))?;
        for (k, name) in self.sim().columns().iter().enumerate() {
            if name == "step" {
                continue;
            }
            let column: Vec<f64> = rows.iter().map(|r| r.values[k]).collect();
            d.set_item(name, column.into_pyarray(py))?;
        }
        Ok(d)
    }
}

fn array<'py>(py: Python<'py>, a: StateArray) -> PyResult<Bound<'py, PyAny>> {
    let shape = a.shape;
    Ok(match a.data {
        ArrayData::F32(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
        ArrayData::F64(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
        ArrayData::U8(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
        ArrayData::U32(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
        ArrayData::U64(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
        ArrayData::Text(v) => PyList::new(py, v)?.into_any(),
    })
}

#[pymethods]
impl Simulation {
    /// The model's name: angiogenesis, rdme, epidermis, gliding or network.
    #[getter]
    fn model(&self) -> &'static str {
        self.model.name()
    }
    /// Steps done so far (for a network: output times after the first).
    #[getter]
    fn step(&self) -> u64 {
        self.sim().step()
    }
    /// The model's time per step, in its own unit (gliding: the largest, its steps adapt).
    #[getter]
    fn time_per_step(&self) -> f64 {
        self.sim().schedule().time_per_step
    }
    /// The simulated time now: step * time_per_step (gliding: the sum of its adaptive steps).
    #[getter]
    fn time(&self, py: Python<'_>) -> PyResult<f64> {
        py.detach(|| self.sim().time()).map_err(to_py)
    }
    /// Steps between observations (the config's observe_every).
    #[getter]
    fn observe_every(&self) -> u64 {
        self.sim().schedule().observe_every
    }
    /// The steps `run()` does when given neither steps nor until (the config's; for a
    /// network, the output times left).
    #[getter]
    fn default_steps(&self) -> u64 {
        self.sim().schedule().steps
    }
    /// The names of an observation's values (observables.csv's columns).
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.sim().columns()
    }
    /// Where it runs: "cpu", or the adapter's name and backend.
    #[getter]
    fn device(&self) -> &str {
        &self.device
    }
    /// Why it runs there (for a network, the automatic choice's reason).
    #[getter]
    fn device_reason(&self) -> &str {
        &self.device_reason
    }

    /// The observation of the current state: {column: value}.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let row = py.detach(|| self.sim().observe()).map_err(to_py)?;
        let d = PyDict::new(py);
        for (name, v) in self.sim().columns().iter().zip(&row.values) {
            d.set_item(name, v)?;
        }
        if !d.contains("step")? {
            d.set_item("step", row.step)?;
        }
        Ok(d)
    }

    /// Runs `steps` steps (or on to the time `until`; neither: the config's steps) and returns
    /// the observations made on the way. With `out`, writes the run into that folder as
    /// `petri run` does (observables, snapshots, final state, manifest.json; a checkpoint
    /// every `checkpoint_every` steps and at the end when given). `progress`: True for a bar
    /// (tqdm's when installed), or a callable given (steps done, steps asked) as the run goes.
    #[pyo3(signature = (steps=None, *, until=None, out=None, checkpoint_every=None, overwrite=false, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        steps: Option<i64>,
        until: Option<f64>,
        out: Option<PathBuf>,
        checkpoint_every: Option<u64>,
        overwrite: bool,
        progress: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let steps = match (steps, until) {
            (Some(_), Some(_)) => {
                return Err(config_error("config: give steps or until, not both"))
            }
            (Some(n), None) => u64::try_from(n).map_err(|_| {
                config_error(format!(
                    "config: steps = {n} is not allowed: a whole number of steps, 0 or more"
                ))
            })?,
            (None, Some(t)) => self.steps_until(t)?,
            (None, None) => self.sim().schedule().steps,
        };
        if checkpoint_every.is_some() && out.is_none() {
            return Err(config_error(
                "config: checkpoint_every needs out, the folder the checkpoint goes into; \
                 save_checkpoint(path) writes one now",
            ));
        }
        let progress = Progress::of(py, progress, steps, self.model.name())?;
        let rows = self.run_steps(
            py,
            steps,
            out,
            checkpoint_every,
            overwrite,
            progress.as_ref(),
        );
        if let Some(p) = &progress {
            p.close()?;
        }
        self.rows(py, &rows?)
    }

    /// The state now as numpy arrays, by name (fields, lattices, particle sets, ensemble
    /// statistics; see the model's page); names along an axis (species, genes) as lists.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let arrays = py.detach(|| self.sim().state_arrays()).map_err(to_py)?;
        let d = PyDict::new(py);
        for a in arrays {
            let name = a.name.clone();
            d.set_item(name, array(py, a)?)?;
        }
        Ok(d)
    }

    /// Writes a checkpoint of the current step to `path` (`petri.open(config,
    /// resume=path)` continues from it, bitwise as a straight run).
    fn save_checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.sim().save_checkpoint(&path))
            .map_err(to_py)
    }

    /// Writes the model's snapshot of the current state (fields, elements, pictures) into
    /// the folder `dir`; returns the file names.
    fn write_snapshot(&self, py: Python<'_>, dir: PathBuf) -> PyResult<Vec<String>> {
        py.detach(|| self.sim().write_snapshot(&dir)).map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<petri.Simulation {} at step {} on {}>",
            self.model.name(),
            self.step(),
            self.device
        )
    }
}

#[pymodule]
fn _petri(m: &Bound<'_, PyModule>) -> PyResult<()> {
    petri_engine::headless::quiet_display_probes();
    let py = m.py();
    // numpy's C API is fetched now, not at the first array: fetched while a Ctrl-C is
    // pending, its import fails and rust-numpy panics.
    drop(Vec::<f64>::new().into_pyarray(py));
    m.add_function(wrap_pyfunction!(adapters, m)?)?;
    m.add_function(wrap_pyfunction!(open_simulation, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_task, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_finish, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run, m)?)?;
    m.add_function(wrap_pyfunction!(asset_names, m)?)?;
    m.add_function(wrap_pyfunction!(asset_text, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("PetriError", py.get_type::<PetriError>())?;
    m.add("ConfigError", config_error_type(py)?.bind(py))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("NonFiniteError", py.get_type::<NonFiniteError>())?;
    m.add("CheckpointError", py.get_type::<CheckpointError>())?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    m.add("CapacityError", py.get_type::<CapacityError>())?;
    Ok(())
}
