//! A simulation driven by a program, step by step, with no output folder: the same contract
//! seen through one object-safe trait, so a caller (the Python package) holds any model as a
//! `Box<dyn Driven>`. Observations follow the run loop's rules: at multiples of
//! `observe_every` and at the end of each advance, and a non-finite value stops the advance
//! naming the quantity and the steps.

use super::contract::{Observation, Schedule, Simulation, StateArray};
use super::run_loop::{run_seen, RunOptions, Timings};
use super::stop::StopCheck;
use crate::error::{ModelError, Result};
use std::path::Path;

/// One observation as numbers: the step and the row of [`Driven::columns`].
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub step: u64,
    pub values: Vec<f64>,
}

/// What an advance that may be stopped returns: the observations made, and whether it was
/// stopped before its end (the state is then whole at the end of a batch and may be advanced
/// again).
#[derive(Clone, Debug)]
pub struct Advanced {
    pub rows: Vec<Row>,
    pub stopped: bool,
}

/// What a run into a folder returns: its timings, its files and the lines on its end state
/// ([`Simulation::summary`]).
#[derive(Clone, Debug)]
pub struct FolderRun {
    pub first_step: u64,
    pub last_step: u64,
    pub timings: Timings,
    pub outputs: Vec<String>,
    pub summary: Vec<String>,
}

/// A simulation as a program drives it. Every [`Simulation`] is one.
pub trait Driven: Send {
    /// Steps done so far.
    fn step(&self) -> u64;
    /// The model's name and periods.
    fn schedule(&self) -> Schedule;
    /// The model's time now (`Simulation::time`).
    fn time(&mut self) -> Result<f64>;
    /// The names of an observation's values.
    fn columns(&self) -> Vec<String>;
    /// The observation of the current state.
    fn observe(&mut self) -> Result<Row>;
    /// Advances `steps` steps; returns the observations made on the way (at multiples of
    /// `observe_every`, and the last step's).
    fn advance(&mut self, steps: u64) -> Result<Vec<Row>>;
    /// Advances as [`advance`](Self::advance) does, a batch at a time
    /// ([`Simulation::batch_steps`], paced as the run loop paces it), asking `stop` after each;
    /// a stop ends the advance there, between observations or at one, with the observations
    /// made so far (none for the step it stopped at unless one was due there). A simulation
    /// may ask `stop` inside a batch too ([`Simulation::watch_stop`]).
    fn advance_until(&mut self, steps: u64, stop: &StopCheck) -> Result<Advanced>;
    /// The state at the current step as named arrays.
    fn state_arrays(&mut self) -> Result<Vec<StateArray>>;
    /// Writes a checkpoint of the current step to `path`.
    fn save_checkpoint(&mut self, path: &Path) -> Result<()>;
    /// Writes a snapshot of the current state into `dir`; returns the file names.
    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>>;
    /// What the run is, in a line ([`Simulation::describe`]).
    fn describe(&self) -> String;
    /// Runs through the runtime into a folder, as `petri run` does (`runtime::run`); each
    /// observation goes to `progress` as it comes, with the model's words on it
    /// ([`Simulation::progress`]), so a run that stops early has shown them.
    fn run_into(
        &mut self,
        opts: &RunOptions,
        progress: &mut dyn FnMut(&Row, &str),
    ) -> Result<FolderRun>;
}

fn row_of<O: Observation>(o: &O) -> Row {
    Row {
        step: o.step(),
        values: o.row(),
    }
}

impl<S: Simulation + Send> Driven for S {
    fn step(&self) -> u64 {
        Simulation::step(self)
    }
    fn schedule(&self) -> Schedule {
        Simulation::schedule(self)
    }
    fn time(&mut self) -> Result<f64> {
        Simulation::time(self)
    }
    fn columns(&self) -> Vec<String> {
        Simulation::columns(self)
    }
    fn observe(&mut self) -> Result<Row> {
        let o = Simulation::observe(self)?;
        if let Some(what) = o.non_finite() {
            return Err(ModelError::NonFinite {
                what: what.to_string(),
                after: o.step(),
                at: o.step(),
            });
        }
        Ok(row_of(&o))
    }

    fn advance(&mut self, steps: u64) -> Result<Vec<Row>> {
        Ok(drive(self, steps, None)?.rows)
    }
    fn advance_until(&mut self, steps: u64, stop: &StopCheck) -> Result<Advanced> {
        self.watch_stop(Some(stop.clone()));
        let advanced = drive(self, steps, Some(stop));
        self.watch_stop(None);
        advanced
    }

    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        Simulation::state_arrays(self)
    }
    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        Simulation::save_checkpoint(self, path)
    }
    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
        std::fs::create_dir_all(dir).map_err(|source| ModelError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        super::film::snapshot(self, dir)
    }

    fn describe(&self) -> String {
        Simulation::describe(self)
    }

    fn run_into(
        &mut self,
        opts: &RunOptions,
        progress: &mut dyn FnMut(&Row, &str),
    ) -> Result<FolderRun> {
        let report = run_seen(self, opts, |sim, o| progress(&row_of(o), &sim.progress(o)))?;
        Ok(FolderRun {
            first_step: report.first_step,
            last_step: report.last_step,
            summary: Simulation::summary(self, &report.last),
            timings: report.timings,
            outputs: report.outputs,
        })
    }
}

/// [`Driven::advance`] (no `stop`: one advance per observation period) and
/// [`Driven::advance_until`] (a batch at a time, paced, `stop` asked after each; a batch the
/// simulation itself ended on a stop ends the advance there too).
fn drive<S: Simulation>(sim: &mut S, steps: u64, stop: Option<&StopCheck>) -> Result<Advanced> {
    let first = sim.step();
    let end = first.saturating_add(steps);
    let every = sim.schedule().observe_every.max(1);
    let batch = match stop {
        Some(_) => sim.batch_steps().max(1),
        None => u64::MAX,
    };
    let next_multiple = |s: u64, n: u64| (s / n).saturating_add(1).saturating_mul(n);
    let mut observed: Vec<S::Observation> = Vec::new();
    let mut stopped = false;
    while sim.step() < end {
        let s = sim.step();
        let next = next_multiple(s, every)
            .min(next_multiple(s, batch))
            .min(end);
        let observe = next.is_multiple_of(every) || next == end;
        let advanced = sim.advance(next - s, observe, &mut |o| {
            observed.push(o);
            Ok(())
        });
        match advanced {
            Err(ModelError::Interrupted { .. }) if stop.is_some() => {
                stopped = true;
                break;
            }
            other => other?,
        }
        if let Some(stop) = stop {
            sim.pace()?;
            if next < end && stop.requested() {
                stopped = true;
                break;
            }
        }
    }
    sim.flush_observations(&mut |o| {
        observed.push(o);
        Ok(())
    })?;
    let mut last_good = first;
    let mut rows = Vec::with_capacity(observed.len());
    for o in observed {
        if let Some(what) = o.non_finite() {
            return Err(ModelError::NonFinite {
                what: what.to_string(),
                after: last_good,
                at: o.step(),
            });
        }
        last_good = o.step();
        rows.push(row_of(&o));
    }
    Ok(Advanced { rows, stopped })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::run_loop::tests::Counter;
    use crate::runtime::ArrayData;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn advance_observes_at_multiples_and_at_the_end_through_the_trait_object() {
        // Counter observes every 4 steps; its observations arrive one call late.
        let mut sim: Box<dyn Driven> = Box::new(Counter::new(2));
        let rows = sim.advance(9).unwrap();
        let steps: Vec<u64> = rows.iter().map(|r| r.step).collect();
        assert_eq!(steps, vec![4, 8, 11]);
        assert_eq!(rows[2].values, vec![11.0, 11.0]);
        assert_eq!(sim.step(), 11);
        assert_eq!(sim.observe().unwrap().values, vec![11.0, 11.0]);
        assert!(sim.advance(0).unwrap().is_empty());
        let x = &sim.state_arrays().unwrap()[0];
        assert_eq!(
            (x.name.as_str(), &x.data),
            ("x", &ArrayData::F64(vec![11.0]))
        );
    }

    #[test]
    fn a_non_finite_observation_stops_the_advance_naming_the_steps() {
        let mut counter = Counter::new(0);
        counter.nan_at = 7;
        let mut sim: Box<dyn Driven> = Box::new(counter);
        let e = sim.advance(10).unwrap_err();
        match e {
            ModelError::NonFinite { what, after, at } => {
                assert_eq!((what.as_str(), after, at), ("x", 4, 8));
            }
            other => panic!("expected NonFinite, got {other}"),
        }
    }

    /// With batches shorter than the period, a stop ends the advance after the batch under
    /// way, between observations; every batch is paced; the simulation goes on from there and
    /// observes as one never stopped. Without a stop there are no batches and no pacing.
    #[test]
    fn a_stop_ends_the_advance_after_the_batch_under_way() {
        let mut counter = Counter::new(2);
        counter.batch = 3;
        let a = counter
            .advance_until(100, &StopCheck::new(|| true))
            .unwrap();
        assert!(a.stopped && a.rows.is_empty());
        assert_eq!((counter.step, &counter.paced), (3, &vec![3]));
        let rest = Driven::advance(&mut counter, 5).unwrap();
        let steps: Vec<u64> = rest.iter().map(|r| r.step).collect();
        let mut straight = Counter::new(2);
        let whole = Driven::advance(&mut straight, 6).unwrap();
        assert_eq!(steps, whole.iter().map(|r| r.step).collect::<Vec<_>>());
        assert_eq!(steps, [4, 8]);
        assert_eq!(counter.paced, [3], "advance without a stop is not paced");
    }

    /// A stop a simulation sees inside a step ends the advance where that step began, with the
    /// observations before it; the simulation is as it was there and goes on as one never
    /// stopped; the check is the advance's only.
    #[test]
    fn a_stop_inside_a_step_ends_the_advance_before_that_step() {
        let mut counter = Counter::new(2);
        counter.stops_inside_after = 9;
        let asked = AtomicUsize::new(0);
        // Asked after the period to 4 and 8, then inside the one from 8.
        let stop = StopCheck::new(move || asked.fetch_add(1, Ordering::Relaxed) >= 2);
        let a = counter.advance_until(100, &stop).unwrap();
        assert!(a.stopped);
        assert_eq!(a.rows.iter().map(|r| r.step).collect::<Vec<_>>(), [4, 8]);
        assert_eq!(counter.step, 8);
        assert!(counter.watching.is_none());
        let rest = Driven::advance(&mut counter, 5).unwrap();
        assert_eq!(rest.iter().map(|r| r.step).collect::<Vec<_>>(), [12, 13]);
    }

    /// A stop asked for ends the advance at the end of the period under way, observed, when a
    /// batch is the whole period; the simulation goes on from there as one never stopped.
    #[test]
    fn a_stop_ends_the_advance_after_the_period_under_way_when_a_batch_is_a_period() {
        let mut sim: Box<dyn Driven> = Box::new(Counter::new(2));
        let asked = AtomicUsize::new(0);
        let stop = StopCheck::new(move || asked.fetch_add(1, Ordering::Relaxed) == 1);
        let a = sim.advance_until(100, &stop).unwrap();
        assert!(a.stopped);
        let steps: Vec<u64> = a.rows.iter().map(|r| r.step).collect();
        assert_eq!((steps, sim.step()), (vec![4, 8], 8));
        let rest = sim.advance(5).unwrap();
        assert_eq!(rest.iter().map(|r| r.step).collect::<Vec<_>>(), [12, 13]);
        let a = Counter::new(2)
            .advance_until(6, &StopCheck::new(|| false))
            .unwrap();
        assert!(!a.stopped);
    }
}
