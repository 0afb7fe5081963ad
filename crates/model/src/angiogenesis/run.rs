//! A whole run into an output folder: the observables CSV, field snapshots, the vessel network,
//! a picture and a JSON manifest (parameters, seed, adapter, version, timings). The CLI calls this;
//! an embedding program can too.

use super::checkpoint::Checkpoint;
use super::output::{fields_file, write_fields, write_picture, write_vessels, ObservablesCsv};
use super::params::AngioConfig;
use super::sim::{run_observed, AngioSim, Observables, SimOptions};
use crate::error::{ModelError, Result};
use petri_engine::{AdapterSummary, GpuContext};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Steps to run; None: the config's `steps`.
    pub steps: Option<u64>,
    pub out_dir: PathBuf,
    pub sim: SimOptions,
    /// Write `checkpoint.petri` into the output folder every this many steps and at the end.
    pub checkpoint_every: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct Timings {
    pub setup_s: f64,
    /// Wall time of the stepping, observables and snapshots included.
    pub run_s: f64,
    pub steps_per_s: f64,
    pub output_s: f64,
}

/// The run manifest, written as manifest.json.
#[derive(Debug, Serialize)]
pub struct Manifest {
    pub petri_version: &'static str,
    pub model: &'static str,
    pub config: AngioConfig,
    pub seed: u64,
    pub dt: f64,
    pub h: f64,
    pub first_step: u64,
    pub last_step: u64,
    pub adapter: AdapterSummary,
    pub timings: Timings,
    pub final_observables: Observables,
    pub outputs: Vec<String>,
}

/// Runs the model from `sim`'s current step and writes everything into `opts.out_dir`.
/// `progress` sees each observation as it arrives.
pub fn run_sim(
    ctx: &GpuContext,
    sim: &mut AngioSim,
    opts: &RunOptions,
    setup_s: f64,
    mut progress: impl FnMut(&Observables),
) -> Result<Manifest> {
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|source| ModelError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let cfg = sim.cfg.clone();
    let steps = opts.steps.unwrap_or(cfg.steps);
    let first_step = sim.step();
    let end = first_step + steps;
    let mut outputs = vec!["observables.csv".to_string()];
    let mut csv = ObservablesCsv::create(&dir.join("observables.csv"))?;
    let mut last = sim.observe(ctx)?;
    csv.write(&last)?;
    let t0 = Instant::now();
    let mut output_s = 0.0;
    let snapshot_every = if cfg.snapshot_every == 0 {
        steps.max(1)
    } else {
        cfg.snapshot_every
    };
    let checkpoint_every = opts.checkpoint_every.filter(|&n| n > 0).unwrap_or(u64::MAX);
    let checkpoint_path = dir.join("checkpoint.petri");
    let next_multiple = |s: u64, every: u64| (s / every).saturating_add(1).saturating_mul(every);
    while sim.step() < end {
        let next_stop = next_multiple(sim.step(), snapshot_every)
            .min(next_multiple(sim.step(), checkpoint_every));
        let chunk = next_stop.min(end) - sim.step();
        run_observed(ctx, sim, chunk, |o| {
            csv.write(o)?;
            progress(o);
            last = o.clone();
            Ok(())
        })?;
        if sim.step().is_multiple_of(snapshot_every) && sim.step() < end {
            let t = Instant::now();
            let path = fields_file(dir, sim.step());
            write_fields(&path, &cfg, &sim.read_state(ctx)?)?;
            outputs.push(file_name(&path));
            output_s += t.elapsed().as_secs_f64();
        }
        if sim.step().is_multiple_of(checkpoint_every) && sim.step() < end {
            let t = Instant::now();
            Checkpoint::from_sim(ctx, sim)?.save(&checkpoint_path)?;
            output_s += t.elapsed().as_secs_f64();
        }
    }
    csv.flush()?;
    let run_s = t0.elapsed().as_secs_f64() - output_s;
    let t = Instant::now();
    let state = sim.read_state(ctx)?;
    let path = fields_file(dir, sim.step());
    write_fields(&path, &cfg, &state)?;
    outputs.push(file_name(&path));
    write_vessels(&dir.join("vessels.vtp"), &cfg, &state)?;
    outputs.push("vessels.vtp".into());
    write_picture(&dir.join("vessels.png"), &cfg, &state)?;
    outputs.push("vessels.png".into());
    if opts.checkpoint_every.is_some() {
        Checkpoint::from_sim(ctx, sim)?.save(&checkpoint_path)?;
        outputs.push("checkpoint.petri".into());
    }
    outputs.push("manifest.json".into());
    let manifest = Manifest {
        petri_version: env!("CARGO_PKG_VERSION"),
        model: "angiogenesis",
        seed: cfg.seed,
        dt: sim.k,
        h: sim.h(),
        first_step,
        last_step: sim.step(),
        adapter: ctx.adapter.clone(),
        timings: Timings {
            setup_s,
            run_s,
            steps_per_s: steps as f64 / run_s.max(1e-9),
            output_s: output_s + t.elapsed().as_secs_f64(),
        },
        final_observables: last,
        outputs,
        config: cfg,
    };
    petri_output::write_json_pretty(&dir.join("manifest.json"), &manifest)?;
    Ok(manifest)
}

/// Builds the model from its config and runs it (see `run_sim`).
pub fn run(
    ctx: &GpuContext,
    cfg: &AngioConfig,
    opts: &RunOptions,
    progress: impl FnMut(&Observables),
) -> Result<Manifest> {
    let t = Instant::now();
    let mut sim = AngioSim::new(ctx, cfg, &opts.sim)?;
    let setup = t.elapsed().as_secs_f64();
    run_sim(ctx, &mut sim, opts, setup, progress)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
