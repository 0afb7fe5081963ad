//! A stochastic-kinetics run into an output folder: an ensemble of trajectories of one network
//! on the CPU or the GPU, then mean_sd.csv, trajectories.csv (on request), mean_sd.png and
//! manifest.json (method, seed, n, times, network source, device, timings). The CLI calls
//! this; an embedding program can too.
//!
//! Both devices go through the runtime (`crate::runtime`): a step is one output time, each
//! observation is a row of mean_sd.csv, and checkpoints (`super::checkpoint`) hold the
//! ensemble at an output time. On the CPU the whole ensemble is held in memory and moved from
//! one output time to the next (`SsaRun`); the GPU ensemble runs in spans of output times
//! (`super::gpu_run`).

use super::checkpoint::{network_parts, Checkpoint, Header};
use super::ensemble::{CpuEnsemble, Method};
use super::output::{mean_sd_figure, write_trajectories_csv, PLOT_COLOURS};
use super::stats::EnsembleStats;
use crate::error::{invalid, Result};
use crate::reactions::Network;
use crate::runtime::{self, ArrayData, Observation, RunReport, Schedule, Simulation, StateArray};
use petri_engine::AdapterSummary;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The most trajectories written to trajectories.csv (every one is kept in memory until the
/// end, and a file of 10^5 x points rows is already more than a spreadsheet opens).
pub const MAX_TRAJECTORIES_CSV: u64 = 100_000;
/// The most output times.
pub const MAX_POINTS: usize = 1_000_000;
/// The most memory a CPU ensemble may hold (every trajectory's state, and the kept samples
/// of trajectories.csv): the whole ensemble stays in memory between output times.
pub const MAX_RESIDENT_BYTES: u64 = 16 << 30;

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub method: Method,
    pub trajectories: u64,
    /// Output times: `points` evenly spaced from 0 to `t_end`, both included.
    pub t_end: f64,
    pub points: usize,
    pub seed: u64,
    /// Also write every trajectory to trajectories.csv.
    pub keep_trajectories: bool,
    /// Species ids to plot; empty: all of them.
    pub plot_species: Vec<String>,
    pub out_dir: PathBuf,
    /// Replace the earlier run in `out_dir` (see `runtime::RunOptions::overwrite`).
    pub overwrite: bool,
    /// Where the network came from (for the manifest).
    pub source: String,
    /// Output times to run after the first (or the resumed) one; None: to `t_end`.
    pub steps: Option<u64>,
    /// Write `checkpoint.petri` into the output folder every this many output times and at
    /// the end.
    pub checkpoint_every: Option<u64>,
    /// Continue from this checkpoint (written for the same network and options, on the same
    /// device).
    pub resume: Option<PathBuf>,
    /// Why the run is on its device (for the manifest), e.g. "only a software adapter:
    /// llvmpipe"; empty when the caller does not say.
    pub device_reason: String,
    /// Asked after every output time on the CPU: true stops the run there (Ctrl-C).
    pub stop: Option<crate::runtime::StopCheck>,
}

/// `points` evenly spaced times from 0 to `t_end`, both included.
pub fn output_times(t_end: f64, points: usize) -> Result<Vec<f64>> {
    if !(t_end.is_finite() && t_end > 0.0) {
        return Err(invalid("t_end", t_end, "a finite time > 0"));
    }
    if !(2..=MAX_POINTS).contains(&points) {
        return Err(invalid("points", points, format!("2..={MAX_POINTS}")));
    }
    Ok((0..points)
        .map(|k| t_end * k as f64 / (points - 1) as f64)
        .collect())
}

impl RunOptions {
    /// Checks what needs no network (trajectories, end time, output times), so that a bad
    /// value is refused before a network is read or a device chosen; returns the output times.
    pub fn check_sizes(&self) -> Result<Vec<f64>> {
        if self.trajectories == 0 {
            return Err(invalid("trajectories", 0, "at least 1"));
        }
        if self.keep_trajectories && self.trajectories > MAX_TRAJECTORIES_CSV {
            let allowed = format!("<= {MAX_TRAJECTORIES_CSV} when trajectories.csv is written");
            return Err(invalid("trajectories", self.trajectories, allowed));
        }
        output_times(self.t_end, self.points)
    }

    /// Checks the options against the network; returns the output times and the plotted
    /// species' indices.
    pub(super) fn check(&self, net: &Network) -> Result<(Vec<f64>, Vec<usize>)> {
        net.validate()?;
        let times = self.check_sizes()?;
        let plot = match self.plot_species.is_empty() {
            true if net.plot.is_empty() => (0..net.species.len()).collect(),
            true => net.plot.clone(),
            false => self
                .plot_species
                .iter()
                .map(|id| {
                    net.species_index(id).ok_or_else(|| {
                        let ids: Vec<&str> = net.species.iter().map(|s| s.id.as_str()).collect();
                        invalid(
                            "plot_species",
                            id,
                            format!("species of the network: {}", ids.join(", ")),
                        )
                    })
                })
                .collect::<Result<_>>()?,
        };
        Ok((times, plot))
    }
}

/// Runs the ensemble on the CPU (all cores) through the runtime, calling `progress` with the
/// row of every output time. With `opts.resume`, continues the run of that checkpoint.
pub fn run_cpu(
    net: &Network,
    opts: &RunOptions,
    progress: impl FnMut(&MeanSdRow),
) -> Result<RunReport<MeanSdRow>> {
    let start = Instant::now();
    let mut sim = match &opts.resume {
        Some(path) => SsaRun::resume(net, opts, path)?,
        None => SsaRun::new(net, opts)?,
    };
    let options = runtime_options(opts, start);
    runtime::run(&mut sim, &options, progress)
}

/// The runtime's options of a run built since `start`.
pub(super) fn runtime_options(opts: &RunOptions, start: Instant) -> runtime::RunOptions {
    runtime::RunOptions {
        steps: opts.steps,
        out_dir: opts.out_dir.clone(),
        checkpoint_every: opts.checkpoint_every,
        resumed: opts.resume.is_some(),
        overwrite: opts.overwrite,
        setup_s: start.elapsed().as_secs_f64(),
        stop: opts.stop.clone(),
    }
}

/// Refuses `steps` more steps where only `left` output times are left after `step`.
pub(super) fn check_steps_left(left: u64, step: u64, steps: u64) -> Result<()> {
    if steps > left {
        let allowed = format!("at most {left}, the output times left after step {step}");
        return Err(invalid("steps", steps, allowed));
    }
    Ok(())
}

/// The line on an ensemble's end: how many trajectories, in how long.
pub(super) fn ensemble_summary(trajectories: u64, run_s: f64) -> Vec<String> {
    vec![format!(
        "{trajectories} trajectories in {run_s:.3} s ({:.1} per s)",
        trajectories as f64 / run_s.max(1e-9)
    )]
}

/// The line on what an ensemble run is.
pub(super) fn ensemble_description(
    net: &Network,
    opts: &RunOptions,
    device: &str,
    extra: &str,
) -> String {
    format!(
        "{}: {} species, {} reactions{extra}; {} trajectories by {} on the {device} to t = {}",
        opts.source,
        net.species.len(),
        net.reactions.len(),
        opts.trajectories,
        opts.method,
        opts.t_end
    )
}

/// The columns of mean_sd.csv: `time, <species>-mean, <species>-sd, ...`.
pub(super) fn mean_sd_columns(species: &[String]) -> Vec<String> {
    let mut columns = vec!["time".to_string()];
    for s in species {
        columns.push(format!("{s}-mean"));
        columns.push(format!("{s}-sd"));
    }
    columns
}

/// trajectories.csv (with `kept`, `kept[trajectory][time][species]`) and mean_sd.png of the
/// rows in `stats` (titled with the network's `name`); returns the file names.
pub(super) fn write_ensemble_files(
    dir: &Path,
    stats: &EnsembleStats,
    kept: Option<&[Vec<Vec<u64>>]>,
    plot: &[usize],
    name: &str,
) -> Result<Vec<String>> {
    let mut outputs = Vec::new();
    if let Some(kept) = kept {
        write_trajectories_csv(
            &dir.join("trajectories.csv"),
            &stats.species,
            &stats.times,
            kept,
        )?;
        outputs.push("trajectories.csv".into());
    }
    mean_sd_figure(stats, plot, name)?.save_png(&dir.join("mean_sd.png"))?;
    outputs.push("mean_sd.png".into());
    Ok(outputs)
}

/// The checkpoint's header of a run of `net` with `opts` at `step` (`gpu`: a GPU run's).
pub(super) fn checkpoint_header(
    net: &Network,
    opts: &RunOptions,
    step: u64,
    gpu: Option<super::checkpoint::GpuHeader>,
) -> Header {
    Header {
        step,
        method: opts.method.name().into(),
        seed: opts.seed,
        trajectories: opts.trajectories,
        t_end: opts.t_end,
        points: opts.points,
        keep_trajectories: opts.keep_trajectories,
        species: net.species.len(),
        reactions: net.reactions.len(),
        network: network_parts(net),
        gpu,
        general: None,
    }
}

/// Memory a CPU ensemble holds, estimated generously (vectors' headers included).
pub(super) fn resident_bytes(net: &Network, opts: &RunOptions) -> u128 {
    let (s, r) = (net.species.len() as u128, net.reactions.len() as u128);
    // Counts, propensities (direct and ODM keep them), stream, times and vector headers.
    let mut per_trajectory = 8 * s + 128;
    if opts.method != Method::Tau {
        per_trajectory += 8 * r;
    }
    if opts.keep_trajectories {
        per_trajectory += opts.points as u128 * (8 * s + 24);
    }
    opts.trajectories as u128 * per_trajectory
}

/// A row of mean_sd.csv: the mean and sd of every species over the ensemble at one output time.
#[derive(Clone, Debug, PartialEq)]
pub struct MeanSdRow {
    /// Output times done after the first.
    pub step: u64,
    pub time: f64,
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
}

/// The rows of mean_sd.csv so far (output times 0..len()), for observations, the plot and
/// checkpoints.
pub(super) struct Rows {
    /// Every output time of the run.
    pub times: Vec<f64>,
    pub species: Vec<String>,
    /// Trajectories.
    pub n: u64,
    mean: Vec<Vec<f64>>,
    sd: Vec<Vec<f64>>,
}

impl Rows {
    pub(super) fn new(times: Vec<f64>, species: Vec<String>, n: u64) -> Self {
        Self {
            times,
            species,
            n,
            mean: Vec::new(),
            sd: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.mean.len()
    }

    /// The runtime's schedule of a run at output time `step` that goes by default to the last
    /// one, observing every `observe_every` output times.
    pub(super) fn schedule(&self, step: u64, observe_every: u64) -> Schedule {
        Schedule {
            model: super::checkpoint::MODEL,
            steps: self.times.len() as u64 - 1 - step,
            observe_every,
            snapshot_every: 0,
            frame_every: 0,
            seconds_per_step: None,
            // Output times are evenly spaced.
            time_per_step: self.times[1] - self.times[0],
        }
    }

    /// Hands the last row to `sink` when asked to observe at the end of an advance.
    pub(super) fn observe_into(
        &self,
        observe: bool,
        sink: &mut dyn FnMut(MeanSdRow) -> Result<()>,
    ) -> Result<()> {
        match observe {
            true => sink(self.row(self.len() - 1)),
            false => Ok(()),
        }
    }

    /// Adds the row of the next output time.
    pub(super) fn push(&mut self, (mean, sd): (Vec<f64>, Vec<f64>)) {
        self.mean.push(mean);
        self.sd.push(sd);
    }

    pub(super) fn row(&self, k: usize) -> MeanSdRow {
        MeanSdRow {
            step: k as u64,
            time: self.times[k],
            mean: self.mean[k].clone(),
            sd: self.sd[k].clone(),
        }
    }

    /// The statistics of the first `rows` output times.
    pub(super) fn stats(&self, rows: usize) -> EnsembleStats {
        EnsembleStats {
            times: self.times[..rows].to_vec(),
            species: self.species.clone(),
            n: self.n,
            mean: self.mean[..rows].to_vec(),
            sd: self.sd[..rows].to_vec(),
        }
    }

    /// The first `rows` rows as a checkpoint holds them: mean and sd, rows x species each.
    pub(super) fn flat(&self, rows: usize) -> (Vec<f64>, Vec<f64>) {
        (self.mean[..rows].concat(), self.sd[..rows].concat())
    }

    /// The state arrays of an ensemble at output time `step`: `times`, `mean` and `sd`
    /// ((times, species)) up to it; with `kept`, `trajectories` (trajectory, time, species)
    /// and `counts`, each trajectory's counts now (trajectory, species), unless `counts`
    /// gives them.
    pub(super) fn arrays(
        &self,
        step: u64,
        kept: Option<&[Vec<Vec<u64>>]>,
        counts: Option<Vec<u64>>,
    ) -> Vec<StateArray> {
        let (rows, s) = (step as usize + 1, self.species.len());
        let (mean, sd) = self.flat(rows);
        let mut arrays = vec![
            StateArray::new("species", &[s], ArrayData::Text(self.species.clone())),
            StateArray::new(
                "times",
                &[rows],
                ArrayData::F64(self.times[..rows].to_vec()),
            ),
            StateArray::new("mean", &[rows, s], ArrayData::F64(mean)),
            StateArray::new("sd", &[rows, s], ArrayData::F64(sd)),
        ];
        let n = self.n as usize;
        let counts = counts.or_else(|| {
            kept.map(|kept| kept.iter().flat_map(|t| t[step as usize].clone()).collect())
        });
        if let Some(counts) = counts {
            arrays.push(StateArray::new("counts", &[n, s], ArrayData::U64(counts)));
        }
        if let Some(kept) = kept {
            let samples = kept.iter().flat_map(|t| t[..rows].concat()).collect();
            arrays.push(StateArray::new(
                "trajectories",
                &[n, rows, s],
                ArrayData::U64(samples),
            ));
        }
        arrays
    }

    /// The rows of a checkpoint at `step`.
    pub(super) fn restore(&mut self, ck: &Checkpoint) {
        let s = self.species.len();
        for k in 0..=ck.header.step as usize {
            let row = |v: &[f64]| v[k * s..(k + 1) * s].to_vec();
            self.push((row(&ck.mean), row(&ck.sd)));
        }
    }
}

impl Observation for MeanSdRow {
    fn step(&self) -> u64 {
        self.step
    }
    /// `time, <species>-mean, <species>-sd, ...`, as `output::write_mean_sd_csv`.
    fn row(&self) -> Vec<f64> {
        let mut row = vec![self.time];
        for (m, sd) in self.mean.iter().zip(&self.sd) {
            row.extend([*m, *sd]);
        }
        row
    }
}

/// What manifest.json says about the run besides version, model and files (on the CPU the
/// runtime adds steps and timings).
#[derive(Debug, Serialize)]
pub struct Details {
    pub network_source: String,
    pub network_id: String,
    pub species: usize,
    pub reactions: usize,
    pub method: &'static str,
    pub seed: u64,
    /// Trajectory i uses the seed `ensemble::trajectory_seed(seed, i)` on the CPU, Philox
    /// keyed by (seed, i) on the GPU.
    pub trajectories: u64,
    pub t_end: f64,
    pub points: usize,
    /// "cpu" or "gpu".
    pub device: &'static str,
    /// Why that device (`--device auto` says which adapters it saw).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub device_reason: String,
    /// The GPU adapter, for a GPU run.
    pub adapter: Option<AdapterSummary>,
    /// Worker threads of a CPU run.
    pub cpu_threads: Option<usize>,
    /// Seconds of stepping and statistics (this run's part when resumed).
    pub run_s: f64,
    pub trajectories_per_s: f64,
    /// Plotted species and their colours in mean_sd.png.
    pub plot: Vec<(String, &'static str)>,
    /// The checkpoint the run resumed from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<String>,
    /// A run over MPI ranks (`team_run`): every rank's host, device and trajectories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<crate::team::RankRecord>,
}

impl Details {
    pub(super) fn new(net: &Network, opts: &RunOptions, plot: &[usize], run_s: f64) -> Self {
        Self {
            network_source: opts.source.clone(),
            network_id: net.id.clone(),
            species: net.species.len(),
            reactions: net.reactions.len(),
            method: opts.method.name(),
            seed: opts.seed,
            trajectories: opts.trajectories,
            t_end: opts.t_end,
            points: opts.points,
            device: "cpu",
            device_reason: opts.device_reason.clone(),
            adapter: None,
            cpu_threads: Some(rayon::current_num_threads()),
            run_s,
            trajectories_per_s: opts.trajectories as f64 / run_s.max(1e-9),
            plot: plot
                .iter()
                .enumerate()
                .map(|(i, &s)| {
                    (
                        net.species[s].id.clone(),
                        PLOT_COLOURS[i % PLOT_COLOURS.len()].0,
                    )
                })
                .collect(),
            resumed_from: None,
            ranks: Vec::new(),
        }
    }
}

/// A CPU ensemble at an output time, for the runtime: step k is output time k.
pub struct SsaRun {
    net: Network,
    opts: RunOptions,
    plot: Vec<usize>,
    ensemble: CpuEnsemble,
    /// Rows so far: output times 0..=step.
    rows: Rows,
    /// With `keep_trajectories`: `kept[trajectory][time][species]` so far.
    kept: Option<Vec<Vec<Vec<u64>>>>,
    run_s: f64,
    resumed_from: Option<String>,
}

impl SsaRun {
    /// The ensemble of `opts` at the first output time.
    pub fn new(net: &Network, opts: &RunOptions) -> Result<Self> {
        let (times, plot) = Self::check(net, opts)?;
        let start = Instant::now();
        let ensemble = CpuEnsemble::new(
            net,
            opts.method,
            opts.trajectories,
            opts.seed,
            *times.last().expect("at least two output times"),
        );
        let kept = opts
            .keep_trajectories
            .then(|| vec![Vec::with_capacity(times.len()); opts.trajectories as usize]);
        let mut sim = Self::with(net, opts, times, plot, ensemble, kept, None);
        sim.move_to_next_time()?;
        sim.run_s = start.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// The ensemble of the checkpoint at `path`, written by a run of `net` with these options.
    pub fn resume(net: &Network, opts: &RunOptions, path: &Path) -> Result<Self> {
        let (times, plot) = Self::check(net, opts)?;
        let ck = Checkpoint::load(path)?;
        let trajectories = ck.restore(
            net,
            (opts.method, opts.seed, opts.trajectories),
            &times,
            opts.keep_trajectories,
            path,
        )?;
        let ensemble = CpuEnsemble::with_trajectories(
            net,
            opts.method,
            *times.last().expect("at least two output times"),
            trajectories,
        );
        let kept = ck.kept_samples();
        let mut sim = Self::with(net, opts, times, plot, ensemble, kept, Some(path));
        sim.rows.restore(&ck);
        Ok(sim)
    }

    fn with(
        net: &Network,
        opts: &RunOptions,
        times: Vec<f64>,
        plot: Vec<usize>,
        ensemble: CpuEnsemble,
        kept: Option<Vec<Vec<Vec<u64>>>>,
        resumed_from: Option<&Path>,
    ) -> Self {
        let species = net.species.iter().map(|s| s.id.clone()).collect();
        Self {
            net: net.clone(),
            opts: opts.clone(),
            plot,
            ensemble,
            rows: Rows::new(times, species, opts.trajectories),
            kept,
            run_s: 0.0,
            resumed_from: resumed_from.map(|p| p.display().to_string()),
        }
    }

    /// Checks the options and that the ensemble fits in memory.
    fn check(net: &Network, opts: &RunOptions) -> Result<(Vec<f64>, Vec<usize>)> {
        let checked = opts.check(net)?;
        let bytes = resident_bytes(net, opts);
        if bytes > MAX_RESIDENT_BYTES as u128 {
            let allowed = format!(
                "an ensemble that fits in {} GiB (this one needs about {} GiB{}): fewer                  trajectories, or several runs with different seeds",
                MAX_RESIDENT_BYTES >> 30,
                bytes >> 30,
                if opts.keep_trajectories { " with trajectories.csv" } else { "" }
            );
            return Err(invalid("trajectories", opts.trajectories, allowed));
        }
        Ok(checked)
    }

    /// Moves every trajectory to the next output time and records its row (and samples).
    fn move_to_next_time(&mut self) -> Result<()> {
        let k = self.rows.len();
        let Some(&t) = self.rows.times.get(k) else {
            return Err(invalid(
                "steps",
                k,
                format!(
                    "at most {} output times after the first",
                    self.rows.times.len() - 1
                ),
            ));
        };
        let stats = self.ensemble.advance_to(t, &self.rows.species)?.finish();
        self.rows.push((stats.mean[0].clone(), stats.sd[0].clone()));
        if let Some(kept) = &mut self.kept {
            for (samples, trajectory) in kept.iter_mut().zip(&self.ensemble.trajectories) {
                samples.push(trajectory.counts().to_vec());
            }
        }
        Ok(())
    }
}

/// The `Simulation` methods of a CPU ensemble stepped one output time at a time (`SsaRun`,
/// `general_run::GeneralRun`): `self.rows` holds the rows so far, `self.move_to_next_time()`
/// adds the next one, `self.run_s` counts the seconds spent.
macro_rules! output_time_steps {
    () => {
        fn step(&self) -> u64 {
            self.rows.len() as u64 - 1
        }
        /// Every output time is observed; a run goes by default to the last one.
        fn schedule(&self) -> $crate::runtime::Schedule {
            self.rows.schedule(self.step(), 1)
        }
        fn series_file(&self) -> &'static str {
            "mean_sd.csv"
        }
        fn summary(&self, _last: &$crate::ssa::run::MeanSdRow) -> Vec<String> {
            $crate::ssa::run::ensemble_summary(self.opts.trajectories, self.run_s)
        }
        fn columns(&self) -> Vec<String> {
            $crate::ssa::run::mean_sd_columns(&self.rows.species)
        }
        fn observe(&mut self) -> $crate::error::Result<$crate::ssa::run::MeanSdRow> {
            Ok(self.rows.row(self.rows.len() - 1))
        }
        fn advance(
            &mut self,
            steps: u64,
            observe_at_end: bool,
            sink: &mut dyn FnMut($crate::ssa::run::MeanSdRow) -> $crate::error::Result<()>,
        ) -> $crate::error::Result<()> {
            let start = std::time::Instant::now();
            (0..steps).try_for_each(|_| self.move_to_next_time())?;
            self.run_s += start.elapsed().as_secs_f64();
            self.rows.observe_into(observe_at_end, sink)
        }
        fn write_snapshot(&mut self, _dir: &std::path::Path) -> $crate::error::Result<Vec<String>> {
            Ok(Vec::new())
        }
    };
}
pub(super) use output_time_steps;

impl Simulation for SsaRun {
    type Observation = MeanSdRow;
    type Details = Details;

    output_time_steps!();
    fn describe(&self) -> String {
        ensemble_description(&self.net, &self.opts, "cpu", "")
    }
    fn plan_run(&mut self, steps: u64, _checkpoint_every: Option<u64>) -> Result<()> {
        check_steps_left(self.schedule().steps, self.step(), steps)
    }
    /// trajectories.csv (when kept) and mean_sd.png.
    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        let stats = self.rows.stats(self.rows.len());
        write_ensemble_files(dir, &stats, self.kept.as_deref(), &self.plot, &self.net.id)
    }
    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let (mean, sd) = self.rows.flat(self.rows.len());
        let kept = match &self.kept {
            Some(kept) => kept.iter().flatten().flatten().copied().collect(),
            None => Vec::new(),
        };
        let trajectories = &self.ensemble.trajectories;
        let ck = Checkpoint::new(
            checkpoint_header(&self.net, &self.opts, self.step(), None),
            trajectories,
            mean,
            sd,
            kept,
        );
        ck.save(path)
    }
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        let counts = self.ensemble.trajectories.iter();
        let counts = counts.flat_map(|t| t.counts().to_vec()).collect();
        Ok(self
            .rows
            .arrays(self.step(), self.kept.as_deref(), Some(counts)))
    }

    fn manifest_details(&self, _first_step: u64, _last: &MeanSdRow) -> Result<Details> {
        let mut d = Details::new(&self.net, &self.opts, &self.plot, self.run_s);
        d.resumed_from = self.resumed_from.clone();
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::super::output::write_mean_sd_csv;
    use super::*;

    #[test]
    fn output_times_and_option_checks() {
        assert_eq!(output_times(2.0, 3).unwrap(), vec![0.0, 1.0, 2.0]);
        assert!(output_times(0.0, 3)
            .unwrap_err()
            .to_string()
            .contains("t_end = 0"));
        assert!(output_times(1.0, 1)
            .unwrap_err()
            .to_string()
            .contains("points = 1"));
        let net = crate::reactions::json::parse_network_json(
            r#"{"species": [{"id": "X", "initial_count": 5}],
                "reactions": [{"id": "d", "reactants": ["X"], "rate": 1}]}"#,
            "t.json",
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("petri-ssa-run-{}", std::process::id()));
        let mut opts = RunOptions {
            method: Method::Odm,
            trajectories: 20,
            t_end: 1.0,
            points: 5,
            seed: 3,
            keep_trajectories: true,
            plot_species: vec!["X".into()],
            device_reason: String::new(),
            stop: None,
            out_dir: dir.clone(),
            overwrite: false,
            source: "t.json".into(),
            steps: None,
            checkpoint_every: None,
            resume: None,
        };
        let m = run_cpu(&net, &opts, |_| {}).unwrap();
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["model"], "network");
        assert_eq!(manifest["trajectories"], 20);
        assert_eq!(
            m.outputs,
            [
                "mean_sd.csv",
                "trajectories.csv",
                "mean_sd.png",
                "manifest.json"
            ]
        );
        let rows = std::fs::read_to_string(dir.join("trajectories.csv")).unwrap();
        assert_eq!(rows.lines().count(), 1 + 20 * 5);
        assert!(rows.lines().nth(1).unwrap().starts_with("0,0,5"));
        opts.plot_species = vec!["Y".into()];
        let e = run_cpu(&net, &opts, |_| {}).unwrap_err().to_string();
        assert!(e.contains("plot_species = Y") && e.contains("X"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("petri-ssa-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// A birth-death-dimerisation network small enough for every method in a test.
    fn network() -> Network {
        crate::reactions::json::parse_network_json(
            r#"{"species": [{"id": "A", "initial_count": 40}, {"id": "B", "initial_count": 0}],
                "reactions": [{"id": "make", "products": ["A"], "rate": 20},
                              {"id": "pair", "reactants": ["A", "A"], "products": ["B"], "rate": 0.02},
                              {"id": "decay", "reactants": ["A"], "rate": 0.5},
                              {"id": "split", "reactants": ["B"], "products": ["A", "A"], "rate": 0.3}]}"#,
            "bd.json",
        )
        .unwrap()
    }

    fn options(method: Method, dir: &Path) -> RunOptions {
        RunOptions {
            method,
            trajectories: 37,
            t_end: 4.0,
            points: 9,
            seed: 11,
            keep_trajectories: true,
            plot_species: Vec::new(),
            device_reason: String::new(),
            stop: None,
            out_dir: dir.to_path_buf(),
            overwrite: false,
            source: "bd.json".into(),
            steps: None,
            checkpoint_every: None,
            resume: None,
        }
    }

    /// mean_sd.png draws the network's `plot` species unless the run names others, and all
    /// species when neither does.
    #[test]
    fn the_plot_takes_the_networks_species_unless_the_run_names_others() {
        let mut net = network();
        let mut opts = options(Method::Direct, Path::new("unused"));
        assert_eq!(opts.check(&net).unwrap().1, [0, 1]);
        net.plot = vec![1];
        assert_eq!(opts.check(&net).unwrap().1, [1]);
        opts.plot_species = vec!["A".into()];
        assert_eq!(opts.check(&net).unwrap().1, [0]);
    }

    fn read(dir: &Path, file: &str) -> Vec<u8> {
        std::fs::read(dir.join(file)).unwrap()
    }

    /// The resident ensemble gives the statistics of the streaming one (`run_ensemble_cpu`),
    /// and a run stopped at an output time, checkpointed and resumed writes the same
    /// mean_sd.csv, trajectories.csv and mean_sd.png as a straight run, for every method.
    #[test]
    fn a_resumed_ensemble_continues_bitwise() {
        let net = network();
        for method in Method::ALL {
            let straight = scratch(&format!("straight-{method}"));
            let opts = options(method, &straight);
            run_cpu(&net, &opts, |_| {}).unwrap();
            let times = output_times(opts.t_end, opts.points).unwrap();
            let streamed = super::super::ensemble::run_ensemble_cpu(
                &net,
                method,
                opts.trajectories,
                opts.seed,
                &times,
            )
            .unwrap();
            write_mean_sd_csv(&straight.join("expected.csv"), &streamed).unwrap();
            let expected = read(&straight, "expected.csv");
            assert_eq!(read(&straight, "mean_sd.csv"), expected, "{method}");

            // Half the output times with a checkpoint every 2, then the rest from it.
            let dir = scratch(&format!("resumed-{method}"));
            let mut half = options(method, &dir);
            half.checkpoint_every = Some(2);
            half.steps = Some(4);
            run_cpu(&net, &half, |_| {}).unwrap();
            let mut rest = half.clone();
            rest.steps = None;
            rest.resume = Some(dir.join(runtime::CHECKPOINT_FILE));
            let mut seen = Vec::new();
            let report = run_cpu(&net, &rest, |o| seen.push(o.step)).unwrap();
            assert_eq!(seen, vec![4, 5, 6, 7, 8], "{method}");
            assert_eq!(report.first_step, 4);
            for file in ["mean_sd.csv", "trajectories.csv", "mean_sd.png"] {
                assert!(
                    read(&straight, file) == read(&dir, file),
                    "{method}: {file}"
                );
            }
            std::fs::remove_dir_all(&straight).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[test]
    fn a_checkpoint_of_another_network_or_other_options_is_refused() {
        let net = network();
        let dir = scratch("refused");
        let mut opts = options(Method::Odm, &dir);
        opts.checkpoint_every = Some(3);
        run_cpu(&net, &opts, |_| {}).unwrap();
        let path = dir.join(runtime::CHECKPOINT_FILE);
        let ck = Checkpoint::load(&path).unwrap();
        assert_eq!(ck.header.step, 8);
        let resume = |net: &Network, opts: &RunOptions| match SsaRun::resume(net, opts, &path) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        assert_eq!(resume(&net, &opts), "");

        let mut other = net.clone();
        other.reactions[2].rate = 0.6;
        other.species[0].initial_count = 41;
        let e = resume(&other, &opts);
        assert!(
            e.contains("differs") && e.contains("initial counts, rates"),
            "{e}"
        );
        other.reactions.pop();
        assert!(resume(&other, &opts).contains("4 reactions"));
        let mut o = opts.clone();
        o.seed = 12;
        let e = resume(&net, &o);
        assert!(e.contains("seed = 11, this run has 12"), "{e}");
        o = opts.clone();
        o.method = Method::Tau;
        assert!(resume(&net, &o).contains("method = odm"));

        // A file cut short is refused by the container, naming the file.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
        let e = resume(&net, &opts);
        assert!(e.contains(&path.display().to_string()), "{e}");

        // More output times than are left.
        o = opts.clone();
        o.steps = Some(9);
        o.resume = None;
        let e = run_cpu(&net, &o, |_| {}).unwrap_err().to_string();
        assert!(e.contains("steps = 9") && e.contains("at most 8"), "{e}");

        // Too large an ensemble is refused before anything is allocated.
        o = opts.clone();
        o.trajectories = 1 << 40;
        o.keep_trajectories = false;
        let e = SsaRun::new(&net, &o).err().unwrap().to_string();
        assert!(
            e.contains("trajectories = 1099511627776") && e.contains("GiB"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
