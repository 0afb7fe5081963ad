//! The run loop: drives a [`Simulation`] from its current step, writing observables.csv (or
//! the model's own name for it), snapshots, checkpoints, the final state and manifest.json into
//! one folder.

use super::contract::{Observation, Simulation};
use super::film;
pub use super::film::file_name;
use super::stop::StopCheck;
use crate::error::{ModelError, Result};
use petri_output::folder::{listed_outputs, prepare_output_folder, FolderUse, MANIFEST_FILE};
use petri_output::TimeSeriesWriter;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// File name of the checkpoint written into the output folder.
pub const CHECKPOINT_FILE: &str = petri_output::CHECKPOINT_FILE;

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Steps to run from the current step; None: the model's default (its config's `steps`).
    pub steps: Option<u64>,
    pub out_dir: PathBuf,
    /// Write `checkpoint.petri` every this many steps (at multiples of it) and at the end.
    pub checkpoint_every: Option<u64>,
    /// The run continues one resumed from a checkpoint: keep the rows of the time series that
    /// an earlier run wrote into the folder before the first step.
    pub resumed: bool,
    /// A new run replaces the earlier run in the folder (removes the files its manifest lists)
    /// instead of refusing a folder that is not empty.
    pub overwrite: bool,
    /// Seconds spent building the simulation (for the manifest's timings).
    pub setup_s: f64,
    /// Asked after every batch of steps (`Simulation::batch_steps`): true stops the run there
    /// (Ctrl-C, SIGTERM).
    pub stop: Option<StopCheck>,
}

/// What a model's run is asked for: the run loop's options, and `S`, the model's own options
/// (how the work is laid out on the GPU: they do not change results).
#[derive(Clone, Debug)]
pub struct ModelRunOptions<S> {
    /// Steps to run from the start (or the resumed step); None: the config's `steps`.
    pub steps: Option<u64>,
    pub out_dir: PathBuf,
    /// Replace the earlier run in `out_dir` (see [`RunOptions::overwrite`]).
    pub overwrite: bool,
    pub sim: S,
    /// Write `checkpoint.petri` into the output folder every this many steps and at the end.
    pub checkpoint_every: Option<u64>,
    /// Continue from this checkpoint.
    pub resume: Option<PathBuf>,
    /// Asked after every batch of steps (`Simulation::batch_steps`): true stops the run there
    /// (Ctrl-C, SIGTERM).
    pub stop: Option<StopCheck>,
}

impl<S> ModelRunOptions<S> {
    /// The options a model's `start` reads: its own options and the checkpoint to resume
    /// (the folder fields are the run loop's, not used there).
    pub fn resuming(sim: S, resume: Option<&Path>) -> Self {
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

    /// The run loop's options, the simulation having taken `setup_s` seconds to build.
    pub fn run_options(&self, setup_s: f64) -> RunOptions {
        RunOptions {
            steps: self.steps,
            out_dir: self.out_dir.clone(),
            checkpoint_every: self.checkpoint_every,
            resumed: self.resume.is_some(),
            overwrite: self.overwrite,
            setup_s,
            stop: self.stop.clone(),
        }
    }
}

/// Builds a simulation with `build` (timed as the run's setup) and runs it into the folder of
/// `opts` ([`run`]): a model's run as `petri run` does it, typed, for a program or a test.
/// Returns the simulation and the report.
pub fn build_and_run<S: Simulation, O>(
    opts: &ModelRunOptions<O>,
    build: impl FnOnce() -> Result<S>,
    progress: impl FnMut(&S::Observation),
) -> Result<(S, RunReport<S::Observation>)> {
    let t = Instant::now();
    let mut sim = build()?;
    let report = run(
        &mut sim,
        &opts.run_options(t.elapsed().as_secs_f64()),
        progress,
    )?;
    Ok((sim, report))
}

#[derive(Clone, Debug, Serialize)]
pub struct Timings {
    /// Building the simulation (or reading the checkpoint): buffers, pipelines, initial state.
    pub setup_s: f64,
    /// Wall time of the stepping and the observations, without snapshots and checkpoints.
    pub run_s: f64,
    pub steps_per_s: f64,
    /// For a model with a physical time unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_s_per_wall_hour: Option<f64>,
    /// Snapshots, checkpoints, final state, pictures, analysis.
    pub output_s: f64,
}

/// What a finished run returns (manifest.json holds the same).
#[derive(Debug)]
pub struct RunReport<O> {
    pub first_step: u64,
    pub last_step: u64,
    /// The last observation (at the last step).
    pub last: O,
    pub timings: Timings,
    /// Files written, relative to the output folder.
    pub outputs: Vec<String>,
}

/// Runs `sim` from its current step for `opts.steps` steps and writes everything into
/// `opts.out_dir`, which must be missing or empty, or hold the run a resumed one continues
/// (`petri_output::folder`). `progress` sees every observation, the one at the first step
/// included. Stops with [`ModelError::NonFinite`] at the first observation with a value that is
/// not finite, naming the quantity and the steps between which it went so.
///
/// manifest.json says how far the run got while it runs (status "running", rewritten at every
/// snapshot and checkpoint), where it stopped on an error or `opts.stop` (status "stopped", the
/// error, the files kept: each whole, the series up to the last good observation) and, once
/// complete, everything (status "complete", timings, the model's details).
///
/// The folder is locked for the whole run (`petri_output::folder`). The series are flushed
/// after every observation period and synced before every checkpoint, so a run killed any
/// way keeps every row up to its last checkpoint, and a run resumed from that checkpoint
/// continues them: its first step gets a row only where a straight run observes (or the
/// earlier run did), so the series equal a straight run's. With `opts.stop`, a run advances
/// one batch at a time ([`Simulation::batch_steps`]) and asks after each: stopped, it finishes
/// the batch under way and, with checkpoints asked for, writes one at the step it stopped at,
/// then returns [`ModelError::Interrupted`].
pub fn run<S: Simulation>(
    sim: &mut S,
    opts: &RunOptions,
    mut progress: impl FnMut(&S::Observation),
) -> Result<RunReport<S::Observation>> {
    run_seen(sim, opts, |_, o| progress(o))
}

/// [`run`], `progress` seeing the simulation with each observation (for its
/// [`Simulation::progress`] words).
pub fn run_seen<S: Simulation>(
    sim: &mut S,
    opts: &RunOptions,
    progress: impl FnMut(&S, &S::Observation),
) -> Result<RunReport<S::Observation>> {
    let dir = &opts.out_dir;
    let model = sim.schedule().model;
    sim.plan_run(
        opts.steps.unwrap_or(sim.schedule().steps),
        opts.checkpoint_every,
    )?;
    let how = match (opts.resumed, opts.overwrite) {
        (true, _) => FolderUse::Continue,
        (false, true) => FolderUse::Overwrite,
        (false, false) => FolderUse::Fresh,
    };
    let (_lock, _) = prepare_output_folder(dir, how, model)?;
    // A resumed run continues the folder's run: that run's files stay listed.
    let earlier = match opts.resumed {
        true => listed_outputs(dir),
        false => Vec::new(),
    };
    let record = RunRecord::new(model, sim.step(), earlier);
    record.write(dir, "running", None)?;
    sim.watch_stop(opts.stop.clone());
    let result = run_steps(sim, opts, &record, progress);
    sim.watch_stop(None);
    if let Err(e) = &result {
        // Best effort: the error itself is what the caller must see.
        let _ = sim.flush_series(true);
        let _ = record.write(dir, "stopped", Some(&e.to_string()));
    }
    result
}

/// The body of [`run`]; `record` follows the files written and the last good step.
fn run_steps<S: Simulation>(
    sim: &mut S,
    opts: &RunOptions,
    record: &RunRecord,
    mut progress: impl FnMut(&S, &S::Observation),
) -> Result<RunReport<S::Observation>> {
    let dir = &opts.out_dir;
    let first_step = sim.step();
    let schedule = sim.schedule();
    let steps = opts.steps.unwrap_or(schedule.steps);
    let end = first_step.saturating_add(steps);
    let continue_from = opts.resumed.then_some(first_step);

    let series = sim.series_file();
    let mut outputs = vec![series.to_string()];
    outputs.extend(sim.open_series(dir, continue_from)?);
    record.add(&outputs);
    // Listed before the first row, so a run killed from here on can be replaced.
    record.write(dir, "running", None)?;
    let first = sim.observe()?;
    let columns = sim.columns();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let csv_path = dir.join(series);
    // Whether the earlier run has a row at this run's first step.
    let earlier_at_first = std::cell::Cell::new(false);
    let csv = match continue_from {
        // The rows an earlier run wrote before the first step (rows grow in their first value).
        Some(_) => {
            let before = first.row()[0];
            let keep = |row: &[f64]| {
                earlier_at_first.set(earlier_at_first.get() || row[0] == before);
                row[0] < before
            };
            TimeSeriesWriter::create_continued(&csv_path, &columns, keep)?.0
        }
        None => TimeSeriesWriter::create(&csv_path, &columns)?,
    };
    // Written by every observation, synced before every checkpoint.
    let csv = std::cell::RefCell::new(csv);

    let observe_every = schedule.observe_every.max(1);
    // A resumed run's first step is where the earlier run was cut (a checkpoint, a kill, a
    // stop): it gets a row where a straight run observes (a multiple of observe_every) or
    // where the earlier run did (e.g. its last step, or a model whose rows come every step).
    let mut write_next =
        !opts.resumed || first_step.is_multiple_of(observe_every) || earlier_at_first.get();

    // Every observation goes through here: checked, written, shown.
    let mut last: Option<S::Observation> = None;
    let mut accept = |sim: &mut S, o: S::Observation| -> Result<()> {
        if let Some(what) = o.non_finite() {
            return Err(ModelError::NonFinite {
                what: what.to_string(),
                after: record.last_step.get(),
                at: o.step(),
            });
        }
        record.last_step.set(o.step());
        if write_next {
            let mut csv = csv.borrow_mut();
            csv.write_row(&o.row())?;
            csv.flush()?;
            sim.record(&o)?;
        }
        write_next = true;
        progress(&*sim, &o);
        last = Some(o);
        Ok(())
    };
    // The model's own series, recorded through a second borrow of the simulation would
    // alias it: collect the observations first, then record them. The rows go to the files
    // at once, so a killed run keeps them.
    let mut pending = vec![first];
    let mut drain = |sim: &mut S, pending: &mut Vec<S::Observation>| -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        for o in pending.drain(..) {
            accept(sim, o)?;
        }
        sim.flush_series(false)
    };
    drain(sim, &mut pending)?;

    let every = |n: u64| if n == 0 { u64::MAX } else { n };
    let snapshot_every = every(schedule.snapshot_every);
    let frame_every = every(schedule.frame_every);
    let checkpoint_every = every(opts.checkpoint_every.unwrap_or(0));
    // A run that may be asked to stop advances one batch at a time, asking after each.
    let batch = match opts.stop {
        Some(_) => sim.batch_steps().max(1),
        None => u64::MAX,
    };
    let next_multiple = |s: u64, n: u64| (s / n).saturating_add(1).saturating_mul(n);
    // Into `into` (the folder, or its staging folder).
    let save_checkpoint_into = |sim: &mut S, into: &Path| -> Result<()> {
        // Every row up to this step is on disk before the checkpoint says the run got here.
        csv.borrow_mut().sync()?;
        sim.flush_series(true)?;
        sim.save_checkpoint(&into.join(CHECKPOINT_FILE))?;
        record.add(&[CHECKPOINT_FILE.to_string()]);
        record.checkpoint_step.set(Some(sim.step()));
        Ok(())
    };
    let save_checkpoint = |sim: &mut S| save_checkpoint_into(sim, dir);

    let t_run = Instant::now();
    let mut output_s = 0.0;
    while sim.step() < end {
        let s = sim.step();
        let stop = next_multiple(s, observe_every)
            .min(next_multiple(s, snapshot_every))
            .min(next_multiple(s, frame_every))
            .min(next_multiple(s, checkpoint_every))
            .min(next_multiple(s, batch))
            .min(end);
        let observe = stop.is_multiple_of(observe_every) || stop == end;
        let advanced = sim.advance(stop - s, observe, &mut |o| {
            pending.push(o);
            Ok(())
        });
        // A simulation may end a long step itself on a stop (`watch_stop`), as it was before
        // the step: the run stops there, its checkpoint (if any) already written.
        if let Err(ModelError::Interrupted { .. }) = advanced {
            sim.flush_observations(&mut |o| {
                pending.push(o);
                Ok(())
            })?;
            drain(sim, &mut pending)?;
            csv.borrow_mut().sync()?;
            return Err(ModelError::Interrupted { step: sim.step() });
        }
        advanced?;
        drain(sim, &mut pending)?;
        let snapshot = stop.is_multiple_of(snapshot_every) && stop < end;
        let checkpoint = stop.is_multiple_of(checkpoint_every) && stop < end;
        // A snapshot holds the state's picture too.
        let frame = stop.is_multiple_of(frame_every) && stop < end && !snapshot;
        if snapshot || checkpoint || frame {
            // The state is read back here: observations in flight arrive first, so a
            // non-finite value stops the run before it reaches a file.
            sim.flush_observations(&mut |o| {
                pending.push(o);
                Ok(())
            })?;
            drain(sim, &mut pending)?;
            let t = Instant::now();
            // Written aside, listed in the manifest, then moved in: a kill leaves no file the
            // manifest does not list.
            let staging = petri_output::staging_folder(dir)?;
            let mut staged = Vec::new();
            if snapshot {
                staged.extend(film::snapshot(sim, &staging)?);
            }
            if frame {
                staged.extend(film::frame(sim, &staging)?);
            }
            record.add(&staged);
            if checkpoint {
                save_checkpoint_into(sim, &staging)?;
                staged.push(CHECKPOINT_FILE.to_string());
            }
            record.write(dir, "running", None)?;
            petri_output::publish_staged(dir, &staged)?;
            staged.retain(|f| f != CHECKPOINT_FILE);
            outputs.extend(staged);
            output_s += t.elapsed().as_secs_f64();
        }
        if opts.stop.is_some() {
            sim.pace()?;
        }
        if sim.step() < end && opts.stop.as_ref().is_some_and(StopCheck::requested) {
            sim.flush_observations(&mut |o| {
                pending.push(o);
                Ok(())
            })?;
            drain(sim, &mut pending)?;
            match opts.checkpoint_every.is_some() && !checkpoint {
                true => save_checkpoint(sim)?,
                false => csv.borrow_mut().sync()?,
            }
            return Err(ModelError::Interrupted { step: sim.step() });
        }
    }
    sim.flush_observations(&mut |o| {
        pending.push(o);
        Ok(())
    })?;
    drain(sim, &mut pending)?;
    csv.borrow_mut().finish()?;
    let run_s = (t_run.elapsed().as_secs_f64() - output_s).max(1e-9);

    let t = Instant::now();
    // The final files are staged as the snapshots are: a kill leaves no file the manifest
    // does not list, and no final file half written.
    let staging = petri_output::staging_folder(dir)?;
    let mut staged = film::final_state(sim, &staging)?;
    if opts.checkpoint_every.is_some() {
        save_checkpoint_into(sim, &staging)?;
        staged.push(CHECKPOINT_FILE.into());
    }
    staged.extend(sim.finish(&staging)?);
    record.add(&staged);
    record.write(dir, "running", None)?;
    petri_output::publish_staged(dir, &staged)?;
    outputs.extend(staged);
    outputs.push(MANIFEST_FILE.into());
    let last = last.expect("the first step is always observed");
    let done = sim.step() - first_step;
    let timings = Timings {
        setup_s: opts.setup_s,
        run_s,
        steps_per_s: done as f64 / run_s,
        simulated_s_per_wall_hour: schedule
            .seconds_per_step
            .map(|tau| done as f64 * tau / run_s * 3600.0),
        output_s: output_s + t.elapsed().as_secs_f64(),
    };
    let details = sim.manifest_details(first_step, &last)?;
    let listed = record.listed(&outputs);
    let manifest = Manifest {
        petri_version: env!("CARGO_PKG_VERSION"),
        model: schedule.model,
        status: "complete",
        first_step,
        last_step: sim.step(),
        timings: &timings,
        outputs: &listed,
        details,
    };
    petri_output::write_json_pretty(&dir.join(MANIFEST_FILE), &manifest)?;
    Ok(RunReport {
        first_step,
        last_step: sim.step(),
        last,
        timings,
        outputs,
    })
}

/// manifest.json: what every run has (version, model, steps, timings, files), then the
/// model's own details at the same level. Serialized directly (not through `serde_json::Value`),
/// so an f32 prints as the shortest text that reads back to it.
#[derive(Serialize)]
struct Manifest<'a, D> {
    petri_version: &'static str,
    model: &'static str,
    status: &'static str,
    first_step: u64,
    last_step: u64,
    timings: &'a Timings,
    outputs: &'a [String],
    #[serde(flatten)]
    details: D,
}

/// The manifest of a run that is not complete: how far it got and the files it has written.
#[derive(Serialize)]
struct PartialManifest<'a> {
    petri_version: &'static str,
    model: &'static str,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    first_step: u64,
    /// The last step observed with finite values.
    last_step: u64,
    /// The step of the folder's checkpoint, the step a resumed run starts from.
    #[serde(skip_serializing_if = "Option::is_none")]
    checkpoint_step: Option<u64>,
    outputs: &'a [String],
}

/// What a run has written so far and the last step it observed with finite values, for the
/// manifest of a run that is not complete.
struct RunRecord {
    model: &'static str,
    first_step: u64,
    last_step: std::cell::Cell<u64>,
    checkpoint_step: std::cell::Cell<Option<u64>>,
    /// Files of the folder's earlier run (a resumed run continues it), then this run's.
    outputs: std::cell::RefCell<Vec<String>>,
}

impl RunRecord {
    fn new(model: &'static str, step: u64, earlier: Vec<String>) -> Self {
        Self {
            model,
            first_step: step,
            last_step: std::cell::Cell::new(step),
            checkpoint_step: std::cell::Cell::new(None),
            outputs: std::cell::RefCell::new(earlier),
        }
    }

    fn add(&self, files: &[String]) {
        let mut outputs = self.outputs.borrow_mut();
        for f in files {
            if !outputs.contains(f) {
                outputs.push(f.clone());
            }
        }
    }

    /// `outputs` (this run's files), after those of the earlier run it continues.
    fn listed(&self, outputs: &[String]) -> Vec<String> {
        let mut all: Vec<String> = self
            .outputs
            .borrow()
            .iter()
            .filter(|f| !outputs.contains(f))
            .cloned()
            .collect();
        all.extend(outputs.iter().cloned());
        all
    }

    fn write(&self, dir: &Path, status: &str, error: Option<&str>) -> Result<()> {
        let mut outputs = self.outputs.borrow().clone();
        outputs.push(MANIFEST_FILE.into());
        let manifest = PartialManifest {
            petri_version: env!("CARGO_PKG_VERSION"),
            model: self.model,
            status,
            error,
            first_step: self.first_step,
            last_step: self.last_step.get(),
            checkpoint_step: self.checkpoint_step.get(),
            outputs: &outputs,
        };
        Ok(petri_output::write_json_pretty(
            &dir.join(MANIFEST_FILE),
            &manifest,
        )?)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::runtime::{ArrayData, Schedule, StateArray};

    /// A CPU stand-in for a model: x grows by one each step and turns NaN at `nan_at`;
    /// observations arrive one call late, as through a readback ring.
    pub(in crate::runtime) struct Counter {
        pub(in crate::runtime) step: u64,
        pub(in crate::runtime) nan_at: u64,
        /// The series file's name and its rows' first value per step (a time).
        series: Option<(&'static str, f64)>,
        in_flight: Vec<Obs>,
        events: Vec<String>,
        frame_every: u64,
        /// The steps of the series' rows on disk when each checkpoint was saved.
        rows_at_checkpoints: Vec<Vec<u64>>,
        /// Steps per batch (`Simulation::batch_steps`).
        pub(in crate::runtime) batch: u64,
        /// The steps at which the loop called `pace`.
        pub(in crate::runtime) paced: Vec<u64>,
        /// The stop check it was given (`watch_stop`).
        pub(in crate::runtime) watching: Option<StopCheck>,
        /// Asks `watching` inside a step: a step over this step ends there, interrupted,
        /// nothing done (as a GPU ensemble's span does).
        pub(in crate::runtime) stops_inside_after: u64,
    }

    /// (step, x, the row's first value).
    #[derive(Clone, Debug, PartialEq)]
    pub(in crate::runtime) struct Obs(u64, f64, f64);

    impl Observation for Obs {
        fn step(&self) -> u64 {
            self.0
        }
        fn row(&self) -> Vec<f64> {
            vec![self.2, self.1]
        }
        fn non_finite(&self) -> Option<&'static str> {
            (!self.1.is_finite()).then_some("x")
        }
    }

    impl Counter {
        pub(in crate::runtime) fn new(step: u64) -> Self {
            Self {
                step,
                nan_at: u64::MAX,
                series: None,
                in_flight: Vec::new(),
                events: Vec::new(),
                frame_every: 0,
                rows_at_checkpoints: Vec::new(),
                batch: u64::MAX,
                paced: Vec::new(),
                watching: None,
                stops_inside_after: u64::MAX,
            }
        }
        fn now(&self) -> Obs {
            let x = if self.step >= self.nan_at {
                f64::NAN
            } else {
                self.step as f64
            };
            let first = match self.series {
                Some((_, per_step)) => self.step as f64 * per_step,
                None => self.step as f64,
            };
            Obs(self.step, x, first)
        }
    }

    impl Simulation for Counter {
        type Observation = Obs;
        type Details = serde_json::Value;
        fn step(&self) -> u64 {
            self.step
        }
        fn batch_steps(&self) -> u64 {
            self.batch
        }
        fn pace(&mut self) -> Result<()> {
            self.paced.push(self.step);
            Ok(())
        }
        fn watch_stop(&mut self, stop: Option<StopCheck>) {
            self.watching = stop;
        }
        fn schedule(&self) -> Schedule {
            Schedule {
                model: "counter",
                steps: 10,
                observe_every: 4,
                snapshot_every: 6,
                frame_every: self.frame_every,
                seconds_per_step: None,
                time_per_step: 0.5,
            }
        }
        fn series_file(&self) -> &'static str {
            self.series.map_or("observables.csv", |s| s.0)
        }
        fn columns(&self) -> Vec<String> {
            vec!["step".into(), "x".into()]
        }
        fn observe(&mut self) -> Result<Obs> {
            Ok(self.now())
        }
        fn advance(
            &mut self,
            steps: u64,
            observe_at_end: bool,
            sink: &mut dyn FnMut(Obs) -> Result<()>,
        ) -> Result<()> {
            let inside = self.step + steps > self.stops_inside_after;
            if inside && self.watching.as_ref().is_some_and(StopCheck::requested) {
                return Err(ModelError::Interrupted { step: self.step });
            }
            for o in self.in_flight.drain(..) {
                sink(o)?;
            }
            self.step += steps;
            if observe_at_end {
                self.in_flight.push(self.now());
            }
            Ok(())
        }
        fn flush_observations(&mut self, sink: &mut dyn FnMut(Obs) -> Result<()>) -> Result<()> {
            self.in_flight.drain(..).try_for_each(sink)
        }
        fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
            let name = format!("snap_{}", self.step);
            std::fs::write(dir.join(&name), b"s").unwrap();
            self.events.push(name.clone());
            Ok(vec![name])
        }
        /// Pictures where frames are asked for.
        fn picture_name(&self) -> Option<&'static str> {
            (self.frame_every > 0).then_some("frame")
        }
        fn draw(&mut self, paths: &[&Path]) -> Result<()> {
            for path in paths {
                std::fs::write(path, b"f").unwrap();
                self.events.push(file_name(path));
            }
            Ok(())
        }
        fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
            // A checkpoint due with a snapshot is written in the staging folder.
            let dir = path.parent().unwrap();
            let dir = match dir.ends_with(petri_output::STAGING_DIR) {
                true => dir.parent().unwrap(),
                false => dir,
            };
            if let Ok(rows) = std::fs::read_to_string(dir.join("observables.csv")) {
                let steps = rows.lines().skip(1).map(|l| l.split(',').next().unwrap());
                let steps = steps.map(|s| s.parse().unwrap()).collect();
                self.rows_at_checkpoints.push(steps);
            }
            std::fs::write(path, self.step.to_string()).unwrap();
            self.events.push(format!("checkpoint_{}", self.step));
            Ok(())
        }
        fn manifest_details(&self, first: u64, last: &Obs) -> Result<serde_json::Value> {
            Ok(serde_json::json!({ "first": first, "last_x": last.1 }))
        }
        fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
            let x = self.now().1;
            Ok(vec![StateArray::new("x", &[1], ArrayData::F64(vec![x]))])
        }
    }

    fn options(dir: &Path, steps: u64, checkpoint_every: Option<u64>, resumed: bool) -> RunOptions {
        RunOptions {
            steps: Some(steps),
            out_dir: dir.to_path_buf(),
            checkpoint_every,
            resumed,
            overwrite: false,
            setup_s: 0.0,
            stop: None,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("petri-runtime-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn csv_steps(dir: &Path) -> Vec<u64> {
        std::fs::read_to_string(dir.join("observables.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn everything_happens_at_absolute_multiples_and_at_the_ends() {
        let dir = scratch("multiples");
        let mut sim = Counter::new(0);
        let mut seen = Vec::new();
        let report = run(&mut sim, &options(&dir, 14, Some(5), false), |o| {
            seen.push(o.0)
        })
        .unwrap();
        // Observations every 4 and at both ends; snapshots every 6 before the end; checkpoints
        // every 5 before the end and at the end; all in step order.
        assert_eq!(seen, vec![0, 4, 8, 12, 14]);
        assert_eq!(csv_steps(&dir), seen);
        assert_eq!(
            sim.events,
            [
                "checkpoint_5",
                "snap_6",
                "checkpoint_10",
                "snap_12",
                "snap_14",
                "checkpoint_14"
            ]
        );
        assert_eq!(
            report.outputs,
            [
                "observables.csv",
                "snap_6",
                "snap_12",
                "snap_14",
                "checkpoint.petri",
                "manifest.json"
            ]
        );
        assert_eq!(
            (report.first_step, report.last_step, report.last.0),
            (0, 14, 14)
        );
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["model"], "counter");
        assert_eq!(
            (m["first_step"].as_u64(), m["last_step"].as_u64()),
            (Some(0), Some(14))
        );
        assert_eq!(
            (m["first"].as_u64(), m["last_x"].as_f64()),
            (Some(0), Some(14.0))
        );
        assert_eq!(m["outputs"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn frames_come_between_snapshots_and_are_listed() {
        let dir = scratch("frames");
        let mut sim = Counter::new(0);
        sim.frame_every = 4;
        let report = run(&mut sim, &options(&dir, 14, None, false), |_| {}).unwrap();
        // Frames every 4 before the end; a snapshot holds the picture of its step, and the
        // end the last frame and the final picture.
        let drawn = [
            "frame_0000004.png",
            "snap_6",
            "frame_0000006.png",
            "frame_0000008.png",
            "snap_12",
            "frame_0000012.png",
            "snap_14",
            "frame_0000014.png",
            "frame.png",
        ];
        assert_eq!(sim.events, drawn);
        let mut listed = vec!["observables.csv"];
        listed.extend(drawn);
        listed.push("manifest.json");
        assert_eq!(report.outputs, listed);
        // The manifest lists them all.
        assert_eq!(listed_outputs(&dir), report.outputs[..drawn.len() + 1]);
    }

    #[test]
    fn a_resumed_run_observes_the_same_steps_and_keeps_the_earlier_rows() {
        let straight = scratch("straight");
        run(
            &mut Counter::new(0),
            &options(&straight, 14, None, false),
            |_| {},
        )
        .unwrap();
        let dir = scratch("resumed");
        run(
            &mut Counter::new(0),
            &options(&dir, 14, None, false),
            |_| {},
        )
        .unwrap();
        // A later run resumed at step 6 from the first run's folder: rows before 6 are kept,
        // later ones come again from the resumed run, and 6 (no multiple of observe_every)
        // has no row, as in the straight run.
        run(&mut Counter::new(6), &options(&dir, 8, None, true), |_| {}).unwrap();
        assert_eq!(csv_steps(&straight), vec![0, 4, 8, 12, 14]);
        assert_eq!(
            std::fs::read(dir.join("observables.csv")).unwrap(),
            std::fs::read(straight.join("observables.csv")).unwrap()
        );
        // Without `resumed`, a run does not start in a folder that holds another run.
        let err = run(&mut Counter::new(6), &options(&dir, 8, None, false), |_| {}).unwrap_err();
        assert!(
            matches!(
                &err,
                ModelError::Output(petri_output::OutputError::Folder { .. })
            ),
            "{err}"
        );
        assert_eq!(csv_steps(&dir), vec![0, 4, 8, 12, 14]);
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["status"], "complete");
    }

    #[test]
    fn a_non_finite_observation_stops_the_run_before_any_file_shows_it() {
        let dir = scratch("nan");
        let mut sim = Counter::new(0);
        sim.nan_at = 9;
        let err = run(&mut sim, &options(&dir, 20, None, false), |_| {}).unwrap_err();
        match err {
            ModelError::NonFinite { what, after, at } => {
                assert_eq!((what.as_str(), after, at), ("x", 8, 12))
            }
            other => panic!("{other}"),
        }
        // The snapshot at 12 was not written: the observation at 12 arrived first.
        assert_eq!(sim.events, ["snap_6"]);
        assert_eq!(csv_steps(&dir), vec![0, 4, 8]);
        // The manifest says where the run stopped and lists the files it kept.
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["status"], "stopped");
        assert_eq!(manifest["last_step"], 8);
        assert!(manifest["error"].as_str().unwrap().contains("non-finite"));
        let listed: Vec<&str> = manifest["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(sorted, files, "the manifest lists every file in the folder");
    }

    #[test]
    fn a_model_names_its_series_file_and_a_resume_keeps_rows_by_their_first_value() {
        let dir = scratch("series");
        let timed = |step| {
            let mut c = Counter::new(step);
            c.series = Some(("mean.csv", 0.25));
            c
        };
        let report = run(&mut timed(0), &options(&dir, 14, None, false), |_| {}).unwrap();
        assert_eq!(report.outputs[0], "mean.csv");
        assert!(!dir.join("observables.csv").exists());
        run(&mut timed(6), &options(&dir, 8, None, true), |_| {}).unwrap();
        let firsts: Vec<String> = std::fs::read_to_string(dir.join("mean.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect();
        // Resumed at 6, no multiple of observe_every: no row there, as in a straight run.
        assert_eq!(firsts, ["0", "1", "2", "3", "3.5"]);
    }

    /// Every checkpoint finds the series on disk up to its step; a stop asked for finishes
    /// the period under way, checkpoints there and says "stopped"; the run resumed from that
    /// checkpoint leaves the series a straight run writes, byte for byte.
    #[test]
    fn a_stopped_run_keeps_its_rows_and_resumes_to_the_straight_series() {
        let straight = scratch("stop-straight");
        let mut sim = Counter::new(0);
        run(&mut sim, &options(&straight, 22, Some(5), false), |_| {}).unwrap();
        assert_eq!(
            sim.rows_at_checkpoints,
            [
                vec![0, 4],
                vec![0, 4, 8],
                vec![0, 4, 8, 12],
                vec![0, 4, 8, 12, 16, 20],
                vec![0, 4, 8, 12, 16, 20, 22]
            ]
        );

        let dir = scratch("stop");
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let mut opts = options(&dir, 22, Some(5), false);
        let count = asked.clone();
        // Periods end at 4, 5, 6, 8, 10, 12, ...: the sixth answer stops the run at step 12,
        // where no checkpoint is due, so one is written there.
        opts.stop = Some(StopCheck::new(move || {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 5
        }));
        let mut sim = Counter::new(0);
        let err = run(&mut sim, &opts, |_| {}).unwrap_err();
        assert!(matches!(err, ModelError::Interrupted { step: 12 }), "{err}");
        assert_eq!(sim.events.last().unwrap(), "checkpoint_12");
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["status"], "stopped");
        assert_eq!(m["error"], "interrupted at step 12");
        assert_eq!(
            (m["last_step"].as_u64(), m["checkpoint_step"].as_u64()),
            (Some(12), Some(12))
        );
        assert_eq!(csv_steps(&dir), [0, 4, 8, 12]);

        run(
            &mut Counter::new(12),
            &options(&dir, 10, Some(5), true),
            |_| {},
        )
        .unwrap();
        assert_eq!(
            std::fs::read(dir.join("observables.csv")).unwrap(),
            std::fs::read(straight.join("observables.csv")).unwrap()
        );
    }

    /// With batches of 3 steps (periods of 4), a stop asked for after the first batch ends the
    /// run at step 3, between observations, with a checkpoint there; the run resumed from it
    /// gives step 3 no row and leaves the straight run's series, byte for byte. Without a stop
    /// check the loop does not split periods into batches.
    #[test]
    fn a_stop_comes_after_the_batch_under_way() {
        let straight = scratch("batch-straight");
        let mut sim = Counter::new(0);
        sim.batch = 3;
        run(&mut sim, &options(&straight, 22, Some(100), false), |_| {}).unwrap();
        // No stop check: periods and snapshots only (0 -> 4 -> 6 -> 8 -> 12 ...).
        assert_eq!(sim.rows_at_checkpoints.len(), 1);

        let dir = scratch("batch-stop");
        let mut opts = options(&dir, 22, Some(100), false);
        opts.stop = Some(StopCheck::new(|| true));
        let mut sim = Counter::new(0);
        sim.batch = 3;
        let err = run(&mut sim, &opts, |_| {}).unwrap_err();
        assert!(matches!(err, ModelError::Interrupted { step: 3 }), "{err}");
        assert_eq!(sim.events, ["checkpoint_3"]);
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["status"], "stopped");
        assert_eq!(
            (m["last_step"].as_u64(), m["checkpoint_step"].as_u64()),
            (Some(0), Some(3))
        );
        assert_eq!(csv_steps(&dir), [0]);

        let mut sim = Counter::new(3);
        sim.batch = 3;
        run(&mut sim, &options(&dir, 19, Some(100), true), |_| {}).unwrap();
        assert_eq!(
            std::fs::read(dir.join("observables.csv")).unwrap(),
            std::fs::read(straight.join("observables.csv")).unwrap()
        );
    }

    /// A simulation that ends a step itself on a stop (as a GPU ensemble's span does) ends the
    /// run where that step began: "stopped" there, every row up to it kept, no checkpoint
    /// written for it; the stop check is handed over for the run only. Without a stop check
    /// it gets none.
    #[test]
    fn a_stop_inside_a_step_ends_the_run_at_the_step_before_it() {
        let dir = scratch("stop-inside");
        let mut opts = options(&dir, 22, Some(100), false);
        // Asked after the periods to 4, 6 and 8 (go on), then inside the step from 8 (stop).
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let count = asked.clone();
        opts.stop = Some(StopCheck::new(move || {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 3
        }));
        let mut sim = Counter::new(0);
        sim.stops_inside_after = 9;
        let err = run(&mut sim, &opts, |_| {}).unwrap_err();
        assert!(matches!(err, ModelError::Interrupted { step: 8 }), "{err}");
        assert_eq!(asked.load(std::sync::atomic::Ordering::Relaxed), 4);
        assert!(
            sim.events.iter().all(|e| !e.starts_with("checkpoint")),
            "{:?}",
            sim.events
        );
        assert!(sim.watching.is_none(), "the check is the run's only");
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["status"], "stopped");
        assert_eq!(m["error"], "interrupted at step 8");
        assert_eq!(csv_steps(&dir), [0, 4, 8]);

        let mut sim = Counter::new(0);
        sim.stops_inside_after = 0;
        run(
            &mut sim,
            &options(&scratch("no-stop"), 10, None, false),
            |_| {},
        )
        .unwrap();
        assert_eq!(sim.step, 10);
    }

    /// A run that may be asked to stop is paced after every batch, before it asks (a model
    /// that queues batches without waiting is then at most about one batch behind, so the stop
    /// lands there); a run that may not is never paced.
    #[test]
    fn a_run_that_may_stop_is_paced_after_every_batch() {
        let dir = scratch("paced");
        let mut opts = options(&dir, 10, None, false);
        opts.stop = Some(StopCheck::new(|| false));
        let mut sim = Counter::new(0);
        sim.batch = 3;
        run(&mut sim, &opts, |_| {}).unwrap();
        // Batches end at multiples of 3, periods at multiples of 4, snapshots of 6.
        assert_eq!(sim.paced, [3, 4, 6, 8, 9, 10]);

        let dir = scratch("not-paced");
        let mut sim = Counter::new(0);
        sim.batch = 3;
        run(&mut sim, &options(&dir, 10, None, false), |_| {}).unwrap();
        assert!(sim.paced.is_empty());
    }

    /// A killed run leaves rows after its checkpoint (and maybe a row cut short): a run
    /// resumed from the checkpoint drops them and writes them again, once.
    #[test]
    fn a_resume_after_a_kill_continues_the_series_without_a_gap_or_a_duplicate() {
        let straight = scratch("kill-straight");
        run(
            &mut Counter::new(0),
            &options(&straight, 22, Some(5), false),
            |_| {},
        )
        .unwrap();
        let dir = scratch("kill");
        run(
            &mut Counter::new(0),
            &options(&dir, 22, Some(5), false),
            |_| {},
        )
        .unwrap();
        // As a kill after step 16 with the checkpoint at 15 leaves it: rows to 16, half of 20.
        let text = std::fs::read_to_string(dir.join("observables.csv")).unwrap();
        let cut = text.find("\n20,").unwrap() + 3;
        std::fs::write(dir.join("observables.csv"), &text[..cut]).unwrap();
        run(
            &mut Counter::new(15),
            &options(&dir, 7, Some(5), true),
            |_| {},
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("observables.csv")).unwrap(),
            std::fs::read_to_string(straight.join("observables.csv")).unwrap()
        );
    }

    /// The folder is locked while the run runs (naming this process) and free after it.
    #[test]
    fn the_folder_is_locked_for_the_life_of_the_run() {
        let dir = scratch("lock");
        let mut holders = Vec::new();
        run(&mut Counter::new(0), &options(&dir, 8, None, false), |_| {
            holders.push(petri_output::lock_holder(&dir))
        })
        .unwrap();
        let me = format!("pid {} on ", std::process::id());
        assert!(holders
            .iter()
            .all(|h| h.as_ref().is_some_and(|h| h.starts_with(&me))));
        assert_eq!(petri_output::lock_holder(&dir), None);
    }
}
