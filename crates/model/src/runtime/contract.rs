//! What a model is to the runtime.

use super::stop::StopCheck;
use crate::error::Result;
use std::path::Path;

/// A model's name and the periods the runtime keeps, as its config gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// The model's name, as in configs, manifests and checkpoints.
    pub model: &'static str,
    /// The steps a run does when the caller gives no count (the config's `steps`).
    pub steps: u64,
    /// Steps between observations (0 counts as 1).
    pub observe_every: u64,
    /// Steps between snapshots of the state; 0: only the final one.
    pub snapshot_every: u64,
    /// Steps between frames (pictures of the state, lighter than snapshots) besides those a
    /// snapshot writes; 0: none.
    pub frame_every: u64,
    /// Simulated seconds per step, for a model with a physical time unit.
    pub seconds_per_step: Option<f64>,
    /// The model's time per step in its own unit (seconds where `seconds_per_step` is given;
    /// angiogenesis and epidermis count in their nondimensional units), so a program can run
    /// a model to a time. A model whose step adapts (gliding) gives its largest step.
    pub time_per_step: f64,
}

/// One observation of a running simulation: a row of observables.csv (or the model's
/// [`Simulation::series_file`]). The row's first value grows with the step (the step itself,
/// or a time): a resumed run keeps the earlier rows before the first row's value.
pub trait Observation {
    /// The step the observation was made at.
    fn step(&self) -> u64;
    /// The row's values, in the order of [`Simulation::columns`].
    fn row(&self) -> Vec<f64>;
    /// The name of the first observed quantity that is not finite, if any: the run stops there.
    fn non_finite(&self) -> Option<&'static str> {
        None
    }
}

/// A simulation in progress, built by its model from a validated config (or a checkpoint).
///
/// The runtime calls, in this order: [`plan_run`](Self::plan_run),
/// [`open_series`](Self::open_series), `observe` at the first step, then repeatedly `advance`
/// (to the next observation, snapshot, frame or checkpoint) with `write_snapshot`, `draw` and
/// `save_checkpoint` where due, then `flush_observations`, `write_final_state` and `draw`,
/// `save_checkpoint` (when checkpoints were asked for), `finish` and `manifest_details`.
pub trait Simulation {
    type Observation: Observation;
    /// The model's part of manifest.json (its fields join the runtime's at the top level).
    type Details: serde::Serialize;

    /// Steps done so far.
    fn step(&self) -> u64;
    /// The model's name and when things happen, from its config.
    fn schedule(&self) -> Schedule;
    /// The model's time now: `step * time_per_step`, or the model's own clock where its step
    /// adapts (may wait for the device).
    fn time(&mut self) -> Result<f64> {
        Ok(self.step() as f64 * self.schedule().time_per_step)
    }
    /// The file the runtime writes the observations into, one row each.
    fn series_file(&self) -> &'static str {
        "observables.csv"
    }
    /// Columns of the observations' file ([`series_file`](Self::series_file)).
    fn columns(&self) -> Vec<String>;
    /// What the run is, in a line printed as it starts (sizes, time step, steps left).
    fn describe(&self) -> String {
        String::new()
    }
    /// A few observed quantities in words, for a progress bar.
    fn progress(&self, _observation: &Self::Observation) -> String {
        String::new()
    }
    /// Lines on the state at the run's end, printed when it ends; by default the last
    /// observation's columns and values.
    fn summary(&self, last: &Self::Observation) -> Vec<String> {
        let values = last.row();
        let pairs: Vec<String> = self
            .columns()
            .iter()
            .zip(&values)
            .skip(1)
            .map(|(c, v)| format!("{c} {v}"))
            .collect();
        vec![format!("step {}: {}", last.step(), pairs.join(", "))]
    }
    /// Steps the simulation records into one GPU submission: a run asked to stop (Ctrl-C,
    /// SIGTERM) stops after the batch under way rather than at the end of the observation
    /// period. By default the whole period is one batch.
    fn batch_steps(&self) -> u64 {
        u64::MAX
    }
    /// Asked between batches of a run that may be asked to stop: returns once the GPU is at
    /// most about one batch behind what was queued, so that the stop lands after the batch
    /// under way rather than after all the queued ones. A simulation whose `advance` waits for
    /// the GPU needs nothing here.
    fn pace(&mut self) -> Result<()> {
        Ok(())
    }
    /// Given the stop check of a run or advance that may be asked to stop before it starts (and
    /// None after it). A simulation whose one step can take long (a GPU ensemble's span) may
    /// ask it inside the step too, and end that step with `ModelError::Interrupted` at its
    /// present step, its state as before the step. By default only the runtime asks, between
    /// batches.
    fn watch_stop(&mut self, _stop: Option<StopCheck>) {}
    /// Told what a run will do before it starts (`steps` more steps, checkpoints every
    /// `checkpoint_every`): refuses what the simulation cannot do (more steps than it has,
    /// checkpoints it cannot write) and plans for the rest (where a GPU ensemble pauses).
    fn plan_run(&mut self, _steps: u64, _checkpoint_every: Option<u64>) -> Result<()> {
        Ok(())
    }

    /// Creates the model's own time series in `dir` besides observables.csv (e.g. a
    /// kymograph); with `continue_from`, keeping an earlier run's rows before that step.
    /// Returns the file names.
    fn open_series(&mut self, _dir: &Path, _continue_from: Option<u64>) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
    /// Adds an observation to the model's own time series.
    fn record(&mut self, _observation: &Self::Observation) -> Result<()> {
        Ok(())
    }
    /// Writes the rows of the model's own series out (`sync`: durably, before a checkpoint),
    /// so a killed run keeps them.
    fn flush_series(&mut self, _sync: bool) -> Result<()> {
        Ok(())
    }

    /// The observation of the current state, now (waits for the GPU).
    fn observe(&mut self) -> Result<Self::Observation>;
    /// Advances `steps` steps. With `observe_at_end`, observes the state after them; the
    /// observation may arrive later (a model may read back without waiting): each
    /// observation that has arrived is handed to `sink`, in step order.
    fn advance(
        &mut self,
        steps: u64,
        observe_at_end: bool,
        sink: &mut dyn FnMut(Self::Observation) -> Result<()>,
    ) -> Result<()>;
    /// Hands `sink` the observation of the current state where `observe` asks for one: how
    /// `advance` ends for a model that reads back at once.
    fn observe_into(
        &mut self,
        observe: bool,
        sink: &mut dyn FnMut(Self::Observation) -> Result<()>,
    ) -> Result<()> {
        match observe {
            true => sink(self.observe()?),
            false => Ok(()),
        }
    }
    /// Waits for the observations still on their way and hands them to `sink`.
    fn flush_observations(
        &mut self,
        _sink: &mut dyn FnMut(Self::Observation) -> Result<()>,
    ) -> Result<()> {
        Ok(())
    }

    /// Writes the state's data files at the current step into `dir` (a snapshot; the runtime
    /// adds the picture, [`draw`](Self::draw)); returns the file names.
    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>>;
    /// Writes the final state's data files into `dir` (the last snapshot, and what only the
    /// end has); by default the snapshot's.
    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        self.write_snapshot(dir)
    }
    /// The name of the model's pictures, for a model that draws its state: frames are
    /// `NAME_STEP.png`, the final picture `NAME.png` (`runtime::film`).
    fn picture_name(&self) -> Option<&'static str> {
        None
    }
    /// Draws the state at the current step into each of `paths` (PNG).
    fn draw(&mut self, _paths: &[&Path]) -> Result<()> {
        Ok(())
    }
    /// Writes a checkpoint of the current step to `path`.
    fn save_checkpoint(&mut self, path: &Path) -> Result<()>;
    /// Writes what is made from the whole run (e.g. an analysis of its time series).
    fn finish(&mut self, _dir: &Path) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
    /// The model's part of manifest.json (config, seed, devices, final state, ...), given the
    /// run's first step and its last observation.
    fn manifest_details(&self, first_step: u64, last: &Self::Observation) -> Result<Self::Details>;

    /// The state at the current step as named arrays (fields, lattices, particle sets,
    /// ensemble statistics), for a program that embeds the engine: the Python package hands
    /// them out as numpy arrays.
    fn state_arrays(&mut self) -> Result<Vec<StateArray>>;
}

/// One named array of a simulation's state: its shape (row-major, the last index fastest)
/// and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct StateArray {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: ArrayData,
}

/// The values of a [`StateArray`], in the type the model keeps them in.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    U8(Vec<u8>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    /// Names along an axis of other arrays (species, genes).
    Text(Vec<String>),
}

impl ArrayData {
    pub fn len(&self) -> usize {
        match self {
            ArrayData::F32(v) => v.len(),
            ArrayData::F64(v) => v.len(),
            ArrayData::U8(v) => v.len(),
            ArrayData::U32(v) => v.len(),
            ArrayData::U64(v) => v.len(),
            ArrayData::Text(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl StateArray {
    /// An array of `shape`; the values must fill it.
    pub fn new(name: &str, shape: &[usize], data: ArrayData) -> Self {
        debug_assert_eq!(shape.iter().product::<usize>(), data.len(), "{name}: shape");
        Self {
            name: name.to_string(),
            shape: shape.to_vec(),
            data,
        }
    }
}
