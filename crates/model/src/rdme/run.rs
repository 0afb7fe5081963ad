//! A whole RDME run into an output folder: observables.csv, the kymograph (CSV, PNG) and its
//! oscillation analysis, VTK snapshots of the lattice, checkpoints and manifest.json (config,
//! seed, devices, timings, warnings, final counts). The CLI calls this; an embedding program
//! can too.

use super::analysis::{analyze, OscillationReport};
use super::checkpoint::Checkpoint;
use super::config::{RdmeConfig, RdmeModel};
use super::geometry::site_types;
use super::lattice::{initial_lattice, Lattice};
use super::options::SimOptions;
use super::output::{
    read_kymograph, snapshot_file, write_kymograph_png, write_snapshot, Kymograph, ObservablesCsv,
};
use super::sim::{Observables, RdmeSim};
use crate::error::{invalid, ModelError, Result};
use petri_engine::{AdapterSummary, GpuContext};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The oscillation analysis discards this fraction of the run's simulated time as transient.
pub const ANALYSIS_SKIP_FRACTION: f64 = 0.2;

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Steps to run from the start (or the resumed step); None: the config's `steps`.
    pub steps: Option<u64>,
    pub out_dir: PathBuf,
    pub sim: SimOptions,
    /// Write `checkpoint.petri` into the output folder every this many steps and at the end.
    pub checkpoint_every: Option<u64>,
    /// Continue from this checkpoint (written for the same config).
    pub resume: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
pub struct Timings {
    /// Building the lattice (or reading the checkpoint) and the devices' buffers and pipelines.
    pub setup_s: f64,
    /// Wall time of the stepping and the observations, without writing snapshots/checkpoints.
    pub run_s: f64,
    pub steps_per_s: f64,
    pub simulated_s_per_wall_hour: f64,
    /// Snapshots, checkpoints, PNG, analysis.
    pub output_s: f64,
}

/// The run manifest, written as manifest.json.
#[derive(Debug, Serialize)]
pub struct Manifest {
    pub petri_version: &'static str,
    pub model: &'static str,
    pub config: super::RdmeConfig,
    pub seed: u64,
    pub tau_s: f64,
    /// One entry per device (z-slab), in slab order.
    pub devices: Vec<AdapterSummary>,
    /// Planes per device at the end, and the load balancer's boundary moves.
    pub final_split: Vec<u32>,
    pub rebalances: u64,
    pub resumed_from: Option<String>,
    pub first_step: u64,
    pub last_step: u64,
    pub simulated_s: f64,
    pub timings: Timings,
    pub warnings: Vec<String>,
    pub reactions: Vec<String>,
    /// Particles of each species at the end, and by site type.
    pub final_totals: BTreeMap<String, u64>,
    pub final_by_type: BTreeMap<String, BTreeMap<String, u64>>,
    /// Particles moved to another site of their plane because their site was full.
    pub overflow_moved: u64,
    pub outputs: Vec<String>,
    /// The analysis of the kymograph species (also in analysis.json).
    #[serde(skip)]
    pub analysis: Option<OscillationReport>,
}

/// Runs `model` on `contexts` (one z-slab each) and writes everything into `opts.out_dir`.
/// `progress` sees every observation, the one at the first step included.
pub fn run(
    contexts: Vec<GpuContext>,
    model: &RdmeModel,
    opts: &RunOptions,
    mut progress: impl FnMut(&Observables),
) -> Result<Manifest> {
    let t_setup = Instant::now();
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(|source| ModelError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let cfg = &model.config;
    let (lattice, first_step, moved_before) = match &opts.resume {
        Some(path) => {
            let ck = Checkpoint::load(path)?;
            (ck.restore(model, path)?, ck.step, ck.overflow_moved)
        }
        None => (initial_lattice(model)?, 0, 0),
    };
    let devices: Vec<AdapterSummary> = contexts.iter().map(|c| c.adapter.clone()).collect();
    let mut sim = RdmeSim::new(contexts, model, &lattice, first_step, &opts.sim)?;
    drop(lattice);
    // Overflow moves count from zero in a new simulation; a resumed run carries them on.
    let observe = |sim: &RdmeSim| -> Result<Observables> {
        let mut o = sim.observe()?;
        o.overflow_moved += moved_before;
        Ok(o)
    };
    let setup_s = t_setup.elapsed().as_secs_f64();

    let mut outputs = vec!["observables.csv".to_string()];
    // A run resumed into the folder of the run it continues carries its time series on.
    let continue_from = opts.resume.as_ref().map(|_| first_step);
    let mut csv = ObservablesCsv::create(&dir.join("observables.csv"), cfg, continue_from)?;
    let mut kymograph = match &cfg.output.kymograph_species {
        Some(species) => {
            outputs.push("kymograph.csv".into());
            Some(Kymograph::create(
                &dir.join("kymograph.csv"),
                cfg,
                species,
                continue_from,
            )?)
        }
        None => None,
    };
    let mut record = |o: &Observables| -> Result<()> {
        csv.write(o)?;
        if let Some(k) = kymograph.as_mut() {
            k.push(o)?;
        }
        progress(o);
        Ok(())
    };

    let steps = opts.steps.unwrap_or(cfg.steps);
    let end = first_step.saturating_add(steps);
    // Stops at absolute multiples, so a resumed run observes at the same steps as a straight one.
    let every = |n: u64| if n == 0 { u64::MAX } else { n };
    let observe_every = cfg.output.observe_every;
    let snapshot_every = every(cfg.output.snapshot_every);
    let checkpoint_every = every(opts.checkpoint_every.unwrap_or(0));
    let next_multiple = |s: u64, n: u64| (s / n).saturating_add(1).saturating_mul(n);
    let checkpoint_path = dir.join("checkpoint.petri");
    let mut last = observe(&sim)?;
    record(&last)?;
    let t_run = Instant::now();
    let mut output_s = 0.0;
    while sim.step < end {
        let s = sim.step;
        let stop = next_multiple(s, observe_every)
            .min(next_multiple(s, snapshot_every))
            .min(next_multiple(s, checkpoint_every))
            .min(end);
        sim.advance(stop - s)?;
        if stop.is_multiple_of(observe_every) || stop == end {
            last = observe(&sim)?;
            record(&last)?;
        }
        let t = Instant::now();
        if stop.is_multiple_of(snapshot_every) && stop < end {
            let path = snapshot_file(dir, stop);
            write_snapshot(
                &path,
                cfg,
                &sim.read_lattice()?,
                &cfg.output.snapshot_species,
            )?;
            outputs.push(file_name(&path));
        }
        if stop.is_multiple_of(checkpoint_every) && stop < end {
            let moved = observe(&sim)?.overflow_moved;
            Checkpoint::new(model, stop, &sim.read_lattice()?, moved).save(&checkpoint_path)?;
        }
        output_s += t.elapsed().as_secs_f64();
    }
    let run_s = (t_run.elapsed().as_secs_f64() - output_s).max(1e-9);
    csv.flush()?;

    let t = Instant::now();
    let lattice = sim.read_lattice()?;
    let path = snapshot_file(dir, sim.step);
    write_snapshot(&path, cfg, &lattice, &cfg.output.snapshot_species)?;
    outputs.push(file_name(&path));
    if opts.checkpoint_every.is_some() {
        Checkpoint::new(model, sim.step, &lattice, last.overflow_moved).save(&checkpoint_path)?;
        outputs.push("checkpoint.petri".into());
    }
    let mut analysis = None;
    if let Some(k) = kymograph.as_mut() {
        k.flush()?;
        // Occupancy (per site of the type) in the picture and the analysis alike.
        let sites = kymograph_sites(cfg, &lattice)?;
        write_kymograph_png(&dir.join("kymograph.png"), &k.rows, sites.as_deref())?;
        let span = k.rows.last().map_or(0.0, |r| r.0) - k.rows[0].0;
        let report = analyze(&k.rows, ANALYSIS_SKIP_FRACTION * span, sites.as_deref());
        petri_output::write_json_pretty(&dir.join("analysis.json"), &report)?;
        outputs.extend(["kymograph.png".to_string(), "analysis.json".to_string()]);
        analysis = Some(report);
    }
    outputs.push("manifest.json".into());

    let named = |counts: &[u64]| -> BTreeMap<String, u64> {
        cfg.species
            .iter()
            .cloned()
            .zip(counts[1..].iter().copied())
            .collect()
    };
    let totals: Vec<u64> = (0..model.n_species_ids())
        .map(|s| last.species_total(s))
        .collect();
    let simulated_s = steps as f64 * cfg.tau_s;
    let manifest = Manifest {
        petri_version: env!("CARGO_PKG_VERSION"),
        model: "rdme",
        config: cfg.clone(),
        seed: cfg.seed,
        tau_s: cfg.tau_s,
        devices,
        final_split: sim.split(),
        rebalances: sim.rebalances,
        resumed_from: opts.resume.as_ref().map(|p| p.display().to_string()),
        first_step,
        last_step: sim.step,
        simulated_s,
        timings: Timings {
            setup_s,
            run_s,
            steps_per_s: steps as f64 / run_s,
            simulated_s_per_wall_hour: simulated_s / run_s * 3600.0,
            output_s: output_s + t.elapsed().as_secs_f64(),
        },
        warnings: model.warnings.clone(),
        reactions: model.reaction_names.clone(),
        final_totals: named(&totals),
        final_by_type: cfg
            .site_types
            .iter()
            .cloned()
            .zip(last.by_type.iter().map(|c| named(c)))
            .collect(),
        overflow_moved: last.overflow_moved,
        outputs,
        analysis,
    };
    petri_output::write_json_pretty(&dir.join("manifest.json"), &manifest)?;
    Ok(manifest)
}

/// Sites of `output.kymograph_site_type` in each z plane (None without one), which turn the
/// kymograph's counts into occupancy.
fn kymograph_sites(cfg: &RdmeConfig, lattice: &Lattice) -> Result<Option<Vec<u64>>> {
    Ok(match &cfg.output.kymograph_site_type {
        Some(t) => {
            Some(lattice.sites_per_plane(cfg.type_id("output.kymograph_site_type", t)? as u8))
        }
        None => None,
    })
}

/// Analyses the kymograph.csv of a finished run of `model` in `dir` again, discarding
/// `skip_fraction` of its time span as transient instead of `ANALYSIS_SKIP_FRACTION`: a later
/// start looks at the settled oscillation alone. The same analysis as the run's own, with
/// the same occupancy (site types do not change during a run).
pub fn reanalyze(model: &RdmeModel, dir: &Path, skip_fraction: f64) -> Result<OscillationReport> {
    if !(0.0..1.0).contains(&skip_fraction) {
        return Err(invalid(
            "skip_fraction",
            skip_fraction,
            "0 <= skip_fraction < 1",
        ));
    }
    let cfg = &model.config;
    if cfg.output.kymograph_species.is_none() {
        return Err(invalid(
            "output.kymograph_species",
            "none",
            "a species: the run wrote no kymograph to analyse",
        ));
    }
    let rows = read_kymograph(&dir.join("kymograph.csv"), cfg)?;
    let lattice = Lattice::empty(cfg.lattice.shape, site_types(cfg));
    let sites = kymograph_sites(cfg, &lattice)?;
    let span = rows.last().map_or(0.0, |r| r.0) - rows.first().map_or(0.0, |r| r.0);
    Ok(analyze(&rows, skip_fraction * span, sites.as_deref()))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
