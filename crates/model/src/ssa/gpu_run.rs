//! A GPU ensemble run into an output folder through the runtime (`crate::runtime`), as
//! `run::SsaRun` is on the CPU: a step is one output time, each row of mean_sd.csv an
//! observation, and `--checkpoint-every`, `--steps` and `--resume` work the same way.
//!
//! The ensemble runs in spans of output times (`GpuEnsemble::run_span`): every chunk of
//! trajectories runs until it has recorded the span's output times and pauses; a span's rows
//! are complete once every chunk has passed them, and reach the runtime together. A span ends
//! where the run stops or writes a checkpoint, so a run without checkpoints is one span, every
//! chunk through every output time with only its sums read back, as the ensemble alone does.
//! Where a span ends, the paused threads' states are read back: the next span uploads them
//! again, and a checkpoint holds them, so a resumed run continues bitwise. A stop (Ctrl-C) is
//! asked between a span's batches: a span cut short is dropped whole, and the run stops where
//! it began, with its rows and its checkpoint there.

use super::checkpoint::{Checkpoint, GpuHeader};
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble, ThreadStates};
use super::run::{
    checkpoint_header, runtime_options, write_ensemble_files, Details, MeanSdRow, Rows, RunOptions,
    MAX_RESIDENT_BYTES,
};
use super::stats::Accumulator;
use crate::error::{invalid, ModelError, Result};
use crate::reactions::Network;
use crate::runtime::{self, RunReport, Simulation, StateArray, StopCheck};
use petri_engine::GpuContext;
use std::path::Path;
use std::time::Instant;

/// Runs the ensemble on the GPU of `ctx` with `options` through the runtime, calling
/// `progress` with the row of every output time (rows arrive span by span). With
/// `opts.resume`, continues the GPU run of that checkpoint. Returns the report and the seconds
/// the GPU ensemble ran (the runtime's `run_s` leaves out the first span, which runs when the
/// first row is observed).
pub fn run_gpu(
    ctx: &GpuContext,
    net: &Network,
    opts: &RunOptions,
    options: &EnsembleOptions,
    progress: impl FnMut(&MeanSdRow),
) -> Result<(RunReport<MeanSdRow>, f64)> {
    let start = Instant::now();
    let mut sim = match &opts.resume {
        Some(path) => GpuSsaRun::resume(ctx, net, opts, options, path)?,
        None => GpuSsaRun::new(ctx, net, opts, options)?,
    };
    let run_options = runtime_options(opts, start);
    let report = runtime::run(&mut sim, &run_options, progress)?;
    Ok((report, sim.run_s))
}

/// The `Simulation` methods of an ensemble run in spans of output times (`GpuSsaRun`,
/// `team_run::TeamRun`): `self.step`, `self.end`, `self.rows` (the rows so far, maybe ahead of
/// the step), `self.checkpoint_every()` and `self.run_to(step)`, which runs the span to `step`.
macro_rules! span_steps {
    () => {
        fn step(&self) -> u64 {
            self.step
        }
        /// Rows arrive with the span that completes them, so the runtime asks for none in
        /// between (`observe_every` never comes).
        fn schedule(&self) -> $crate::runtime::Schedule {
            self.rows.schedule(self.step, u64::MAX)
        }
        /// The row of the current output time; the first one runs the first span.
        fn observe(&mut self) -> $crate::error::Result<$crate::ssa::run::MeanSdRow> {
            if self.rows.len() as u64 <= self.step {
                let to =
                    $crate::ssa::gpu_run::span_end(self.checkpoint_every(), self.step, self.end);
                self.run_to(to.max(self.step))?;
            }
            Ok(self.rows.row(self.step as usize))
        }
        /// Runs the span to step + `steps` (unless the first span already did) and hands every
        /// row of it to `sink`.
        fn advance(
            &mut self,
            steps: u64,
            _observe_at_end: bool,
            sink: &mut dyn FnMut($crate::ssa::run::MeanSdRow) -> $crate::error::Result<()>,
        ) -> $crate::error::Result<()> {
            let to = self.step + steps;
            if to as usize >= self.rows.times.len() {
                let allowed = format!(
                    "at most {} output times after the first",
                    self.rows.times.len() - 1
                );
                return Err($crate::error::invalid("steps", to, allowed));
            }
            if self.rows.len() as u64 <= to {
                self.run_to(to)?;
            }
            while self.step < to {
                self.step += 1;
                sink(self.rows.row(self.step as usize))?;
            }
            Ok(())
        }
        fn series_file(&self) -> &'static str {
            "mean_sd.csv"
        }
        fn columns(&self) -> Vec<String> {
            $crate::ssa::run::mean_sd_columns(&self.rows.species)
        }
        fn write_snapshot(&mut self, _dir: &std::path::Path) -> $crate::error::Result<Vec<String>> {
            Ok(Vec::new())
        }
    };
}
pub(super) use span_steps;

/// A GPU ensemble between spans, for the runtime: step k is output time k.
pub struct GpuSsaRun {
    ctx: GpuContext,
    net: Network,
    opts: RunOptions,
    gpu: GpuHeader,
    plot: Vec<usize>,
    ensemble: GpuEnsemble,
    step: u64,
    /// The step the run stops at (for planning the first span).
    end: u64,
    /// Exact sums of the output times run so far (`n`: every trajectory).
    acc: Accumulator,
    /// Rows of the output times run so far (may be ahead of `step`).
    rows: Rows,
    /// The paused threads after the last span; None before the first.
    states: Option<ThreadStates>,
    /// With `keep_trajectories`: `kept[trajectory][time][species]` so far.
    kept: Option<Vec<Vec<Vec<u64>>>>,
    run_s: f64,
    resumed_from: Option<String>,
}

impl GpuSsaRun {
    /// The ensemble of `opts` before its first output time (the first span runs when the
    /// first row is observed).
    pub fn new(
        ctx: &GpuContext,
        net: &Network,
        opts: &RunOptions,
        options: &EnsembleOptions,
    ) -> Result<Self> {
        let mut sim = Self::build(ctx, net, opts, options)?;
        sim.kept = opts
            .keep_trajectories
            .then(|| vec![Vec::with_capacity(opts.points); opts.trajectories as usize]);
        Ok(sim)
    }

    /// The ensemble of the GPU checkpoint at `path`, written by a run of `net` with these
    /// options on the same adapter.
    pub fn resume(
        ctx: &GpuContext,
        net: &Network,
        opts: &RunOptions,
        options: &EnsembleOptions,
        path: &Path,
    ) -> Result<Self> {
        let mut sim = Self::build(ctx, net, opts, options)?;
        let ck = Checkpoint::load(path)?;
        let states = ck.restore_gpu(
            net,
            (opts.method, opts.seed, opts.trajectories),
            &sim.rows.times,
            opts.keep_trajectories,
            &sim.gpu,
            path,
        )?;
        sim.rows.restore(&ck);
        sim.kept = ck.kept_samples();
        sim.step = ck.header.step;
        sim.end = opts.steps.map_or(sim.end, |n| sim.step.saturating_add(n));
        sim.states = Some(states);
        sim.resumed_from = Some(path.display().to_string());
        Ok(sim)
    }

    fn build(
        ctx: &GpuContext,
        net: &Network,
        opts: &RunOptions,
        options: &EnsembleOptions,
    ) -> Result<Self> {
        let (times, plot) = opts.check(net)?;
        let spans =
            opts.checkpoint_every.is_some() || opts.steps.is_some() || opts.resume.is_some();
        check_paused_memory(net, opts.trajectories, spans)?;
        let mut ensemble = GpuEnsemble::new(ctx, net, opts.method, options)?;
        // Pipelines built at setup, not in the first span.
        ensemble.prepare(opts.trajectories, &times, opts.keep_trajectories)?;
        let species: Vec<String> = net.species.iter().map(|s| s.id.clone()).collect();
        let mut acc = Accumulator::new(&times, species.clone());
        acc.n = opts.trajectories;
        let last = times.len() as u64 - 1;
        Ok(Self {
            ctx: ctx.clone(),
            net: net.clone(),
            opts: opts.clone(),
            gpu: GpuHeader::new(&ctx.adapter, options),
            end: opts.steps.map_or(last, |n| n.min(last)),
            rows: Rows::new(times, species, opts.trajectories),
            plot,
            ensemble,
            step: 0,
            acc,
            states: None,
            kept: None,
            run_s: 0.0,
            resumed_from: None,
        })
    }

    fn checkpoint_every(&self) -> Option<u64> {
        self.opts.checkpoint_every
    }

    /// Runs the span that ends at output time `stop_step` (included) and adds its rows.
    fn run_to(&mut self, stop_step: u64) -> Result<()> {
        let start = Instant::now();
        let stop = stop_step as usize + 1;
        // States are needed where another span or a checkpoint follows.
        let keep_states = stop < self.rows.times.len() || self.opts.checkpoint_every.is_some();
        let states = self.ensemble.run_span(
            self.opts.trajectories,
            self.opts.seed,
            &self.rows.times,
            self.states.as_ref(),
            stop,
            &mut self.acc,
            self.kept.as_deref_mut(),
            keep_states,
        );
        // A span asked to stop changed nothing: the run is where the span began.
        let states = match states {
            Err(ModelError::Interrupted { .. }) => {
                return Err(ModelError::Interrupted { step: self.step })
            }
            other => other?,
        };
        for k in self.rows.len()..stop {
            self.rows.push(self.acc.row(k));
        }
        self.states = states;
        self.run_s += start.elapsed().as_secs_f64();
        Ok(())
    }
}

/// Where a span from step `from` ends: at the next checkpoint or at `end`, the end of the run,
/// as the runtime goes.
pub(super) fn span_end(checkpoint_every: Option<u64>, from: u64, end: u64) -> u64 {
    let checkpoint = checkpoint_every
        .filter(|&k| k > 0)
        .map_or(u64::MAX, |k| (from / k).saturating_add(1).saturating_mul(k));
    checkpoint.min(end)
}

impl Simulation for GpuSsaRun {
    type Observation = MeanSdRow;
    type Details = Details;

    fn describe(&self) -> String {
        super::run::ensemble_description(&self.net, &self.opts, "gpu", "")
    }
    /// The spans end at the run's end and at its checkpoints, where the paused threads are
    /// held on the host.
    fn plan_run(&mut self, steps: u64, checkpoint_every: Option<u64>) -> Result<()> {
        super::run::check_steps_left(self.schedule().steps, self.step, steps)?;
        self.end = self.step.saturating_add(steps);
        self.opts.checkpoint_every = checkpoint_every;
        let last = self.rows.times.len() as u64 - 1;
        let spans = checkpoint_every.is_some() || self.end < last || self.states.is_some();
        check_paused_memory(&self.net, self.opts.trajectories, spans)
    }
    fn summary(&self, _last: &MeanSdRow) -> Vec<String> {
        super::run::ensemble_summary(self.opts.trajectories, self.run_s)
    }
    /// A span is asked between its batches, so a stop need not wait for the span's end.
    fn watch_stop(&mut self, stop: Option<StopCheck>) {
        self.ensemble.set_stop(stop);
    }
    span_steps!();
    /// trajectories.csv (when kept) and mean_sd.png.
    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        let rows = self.step as usize + 1;
        write_ensemble_files(
            dir,
            &self.rows.stats(rows),
            self.kept.as_deref(),
            &self.plot,
            &self.net.id,
        )
    }
    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let states = match &self.states {
            Some(states) if states.next_out as u64 == self.step + 1 => states.clone(),
            _ => {
                return Err(ModelError::Checkpoint {
                    path: path.display().to_string(),
                    message: format!(
                        "the GPU ensemble is not paused at step {} (its spans end at \
                         checkpoints)",
                        self.step
                    ),
                })
            }
        };
        let rows = self.step as usize + 1;
        let kept = match &self.kept {
            Some(kept) => kept.iter().flat_map(|t| t[..rows].concat()).collect(),
            None => Vec::new(),
        };
        let header = checkpoint_header(&self.net, &self.opts, self.step, Some(self.gpu.clone()));
        let (mean, sd) = self.rows.flat(rows);
        let ck = Checkpoint::new_gpu(header, states, mean, sd, kept);
        ck.save(path)
    }
    /// Without `keep_trajectories` the trajectories' counts stay on the GPU: statistics only.
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        if self.rows.len() as u64 <= self.step {
            self.observe()?;
        }
        Ok(self.rows.arrays(self.step, self.kept.as_deref(), None))
    }

    fn manifest_details(&self, _first_step: u64, _last: &MeanSdRow) -> Result<Details> {
        let mut d = Details::new(&self.net, &self.opts, &self.plot, self.run_s);
        d.device = "gpu";
        d.adapter = Some(self.ctx.adapter.clone());
        d.cpu_threads = None;
        d.resumed_from = self.resumed_from.clone();
        Ok(d)
    }
}

/// With `spans` (checkpoints, a run that stops before the end, a resumed run), the paused
/// threads are held on the host between spans: refuses an ensemble whose threads would not fit.
pub(super) fn check_paused_memory(net: &Network, trajectories: u64, spans: bool) -> Result<()> {
    let words = 8 + net.species.len() as u128 + net.reactions.len() as u128;
    let bytes = trajectories as u128 * 4 * words;
    if spans && bytes > MAX_RESIDENT_BYTES as u128 {
        let allowed = format!(
            "an ensemble whose paused threads fit in {} GiB with checkpoints or --steps \
             (this one needs about {} GiB): fewer trajectories, or no checkpoints",
            MAX_RESIDENT_BYTES >> 30,
            bytes >> 30
        );
        return Err(invalid("trajectories", trajectories, allowed));
    }
    Ok(())
}
