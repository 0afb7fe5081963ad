//! A stochastic-kinetics run into an output folder: an ensemble of trajectories of one network
//! on the CPU or the GPU, then mean_sd.csv, trajectories.csv (on request), mean_sd.png and
//! manifest.json (method, seed, n, times, network source, device, timings). The CLI calls
//! this; an embedding program can too.

use super::ensemble::{run_ensemble_cpu_with, Method};
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble};
use super::output::{plot_mean_sd, write_mean_sd_csv, write_trajectories_csv, PLOT_COLOURS};
use super::stats::EnsembleStats;
use crate::error::{invalid, ModelError, Result};
use crate::reactions::Network;
use petri_engine::{AdapterSummary, GpuContext};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

/// The most trajectories written to trajectories.csv (every one is kept in memory until the
/// end, and a file of 10^5 x points rows is already more than a spreadsheet opens).
pub const MAX_TRAJECTORIES_CSV: u64 = 100_000;
/// The most output times.
pub const MAX_POINTS: usize = 1_000_000;

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
    /// Where the network came from (for the manifest).
    pub source: String,
}

/// The run manifest, written as manifest.json.
#[derive(Debug, Serialize)]
pub struct Manifest {
    pub petri_version: &'static str,
    pub model: &'static str,
    pub network_source: String,
    pub network_id: String,
    pub species: usize,
    pub reactions: usize,
    pub method: &'static str,
    pub seed: u64,
    /// Trajectory i uses the seed `ensemble::trajectory_seed(seed, i)` on the CPU.
    pub trajectories: u64,
    pub t_end: f64,
    pub points: usize,
    /// "cpu" or "gpu".
    pub device: &'static str,
    /// The GPU adapter, for a GPU run.
    pub adapter: Option<AdapterSummary>,
    /// Worker threads of a CPU run.
    pub cpu_threads: Option<usize>,
    pub run_s: f64,
    pub trajectories_per_s: f64,
    /// Plotted species and their colours in mean_sd.png.
    pub plot: Vec<(String, &'static str)>,
    pub outputs: Vec<String>,
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
    /// Checks the options against the network; returns the output times and the plotted
    /// species' indices.
    fn check(&self, net: &Network) -> Result<(Vec<f64>, Vec<usize>)> {
        net.validate()?;
        if self.trajectories == 0 {
            return Err(invalid("trajectories", 0, "at least 1"));
        }
        if self.keep_trajectories && self.trajectories > MAX_TRAJECTORIES_CSV {
            let allowed = format!("<= {MAX_TRAJECTORIES_CSV} when trajectories.csv is written");
            return Err(invalid("trajectories", self.trajectories, allowed));
        }
        let times = output_times(self.t_end, self.points)?;
        let plot = match self.plot_species.is_empty() {
            true => (0..net.species.len()).collect(),
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

/// Runs the ensemble on the CPU (all cores), calling `progress(done)` as trajectories finish.
pub fn run_cpu(
    net: &Network,
    opts: &RunOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Manifest> {
    let (times, plot) = opts.check(net)?;
    let kept = Mutex::new(Vec::new());
    let done = std::sync::atomic::AtomicU64::new(0);
    let start = Instant::now();
    let stats = run_ensemble_cpu_with(
        net,
        opts.method,
        opts.trajectories,
        opts.seed,
        &times,
        &|i, samples| {
            if opts.keep_trajectories {
                kept.lock()
                    .expect("no panics while held")
                    .push((i, samples.to_vec()));
            }
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
        },
    )?;
    let run_s = start.elapsed().as_secs_f64();
    let mut kept = kept.into_inner().expect("no panics while held");
    kept.sort_by_key(|(i, _)| *i);
    let kept: Vec<Vec<Vec<u64>>> = kept.into_iter().map(|(_, s)| s).collect();
    let trajectories = opts.keep_trajectories.then_some(kept.as_slice());
    let device = Device::Cpu(rayon::current_num_threads());
    write_outputs(net, opts, &stats, trajectories, &plot, device, run_s)
}

/// Runs the ensemble on the GPU of `ctx` (`GpuEnsemble`; statistics reduced on the device).
pub fn run_gpu(ctx: &GpuContext, net: &Network, opts: &RunOptions) -> Result<Manifest> {
    let (times, plot) = opts.check(net)?;
    let start = Instant::now();
    let mut ensemble = GpuEnsemble::new(ctx, net, opts.method, &EnsembleOptions::default())?;
    let (stats, kept) = match opts.keep_trajectories {
        false => (ensemble.run(opts.trajectories, opts.seed, &times)?, None),
        true => {
            let t = ensemble.run_trajectories(opts.trajectories, opts.seed, &times)?;
            let species = net.species.iter().map(|s| s.id.clone()).collect();
            let mut acc = super::stats::Accumulator::new(&times, species);
            for trajectory in &t.counts {
                acc.add(trajectory);
            }
            (acc.finish(), Some(t.counts))
        }
    };
    let run_s = start.elapsed().as_secs_f64();
    let device = Device::Gpu(ctx.adapter.clone());
    write_outputs(net, opts, &stats, kept.as_deref(), &plot, device, run_s)
}

enum Device {
    Cpu(usize),
    Gpu(AdapterSummary),
}

fn write_outputs(
    net: &Network,
    opts: &RunOptions,
    stats: &EnsembleStats,
    trajectories: Option<&[Vec<Vec<u64>>]>,
    plot: &[usize],
    device: Device,
    run_s: f64,
) -> Result<Manifest> {
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|source| ModelError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut outputs = vec!["mean_sd.csv".to_string()];
    write_mean_sd_csv(&dir.join("mean_sd.csv"), stats)?;
    if let Some(counts) = trajectories {
        write_trajectories_csv(
            &dir.join("trajectories.csv"),
            &stats.species,
            &stats.times,
            counts,
        )?;
        outputs.push("trajectories.csv".into());
    }
    plot_mean_sd(stats, plot)?.save_png(&dir.join("mean_sd.png"))?;
    outputs.push("mean_sd.png".into());
    outputs.push("manifest.json".into());
    let (device, adapter, cpu_threads) = match device {
        Device::Cpu(threads) => ("cpu", None, Some(threads)),
        Device::Gpu(a) => ("gpu", Some(a), None),
    };
    let manifest = Manifest {
        petri_version: env!("CARGO_PKG_VERSION"),
        model: "network",
        network_source: opts.source.clone(),
        network_id: net.id.clone(),
        species: net.species.len(),
        reactions: net.reactions.len(),
        method: opts.method.name(),
        seed: opts.seed,
        trajectories: opts.trajectories,
        t_end: opts.t_end,
        points: opts.points,
        device,
        adapter,
        cpu_threads,
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
        outputs,
    };
    petri_output::write_json_pretty(&dir.join("manifest.json"), &manifest)?;
    Ok(manifest)
}

#[cfg(test)]
mod tests {
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
            out_dir: dir.clone(),
            source: "t.json".into(),
        };
        let m = run_cpu(&net, &opts, &|_| {}).unwrap();
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
        let e = run_cpu(&net, &opts, &|_| {}).unwrap_err().to_string();
        assert!(e.contains("plot_species = Y") && e.contains("X"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
