//! A simulation driven by a program, step by step, with no output folder: the same contract
//! seen through one object-safe trait, so a caller (the Python package) holds any model as a
//! `Box<dyn Driven>`. Observations follow the run loop's rules: at multiples of
//! `observe_every` and at the end of each advance, and a non-finite value stops the advance
//! naming the quantity and the steps.

use super::contract::{Observation, Schedule, Simulation, StateArray};
use super::run_loop::{run, RunOptions, Timings};
use crate::error::{ModelError, Result};
use std::path::Path;

/// One observation as numbers: the step and the row of [`Driven::columns`].
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub step: u64,
    pub values: Vec<f64>,
}

/// What a run into a folder returns: the rows it observed, its timings and its files.
#[derive(Clone, Debug)]
pub struct FolderRun {
    pub rows: Vec<Row>,
    pub timings: Timings,
    pub outputs: Vec<String>,
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
    /// The state at the current step as named arrays.
    fn state_arrays(&mut self) -> Result<Vec<StateArray>>;
    /// Writes a checkpoint of the current step to `path`.
    fn save_checkpoint(&mut self, path: &Path) -> Result<()>;
    /// Writes a snapshot of the current state into `dir`; returns the file names.
    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>>;
    /// Runs through the runtime into a folder, as `petri run` does (`runtime::run`).
    fn run_into(&mut self, opts: &RunOptions) -> Result<FolderRun>;
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
        let first = Simulation::step(self);
        let end = first.saturating_add(steps);
        let every = Simulation::schedule(self).observe_every.max(1);
        let mut observed: Vec<S::Observation> = Vec::new();
        while Simulation::step(self) < end {
            let s = Simulation::step(self);
            let stop = (s / every).saturating_add(1).saturating_mul(every).min(end);
            let observe = stop.is_multiple_of(every) || stop == end;
            Simulation::advance(self, stop - s, observe, &mut |o| {
                observed.push(o);
                Ok(())
            })?;
        }
        self.flush_observations(&mut |o| {
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
        Ok(rows)
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
        Simulation::write_snapshot(self, dir)
    }

    fn run_into(&mut self, opts: &RunOptions) -> Result<FolderRun> {
        let mut rows = Vec::new();
        let report = run(self, opts, |o| rows.push(row_of(o)))?;
        Ok(FolderRun {
            rows,
            timings: report.timings,
            outputs: report.outputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::run_loop::tests::Counter;
    use crate::runtime::ArrayData;

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
}
