//! A whole RDME run into an output folder: observables.csv, the kymograph (CSV, PNG) and its
//! oscillation analysis, VTK snapshots of the lattice, checkpoints and manifest.json (config,
//! seed, devices, timings, warnings, final counts). The model opens as an [`RdmeRun`]
//! ([`start`], from `model.rs`); an embedding program can drive one with `runtime::run`.

use super::analysis::{analyze, OscillationReport};
use super::checkpoint::Checkpoint;
use super::config::{RdmeConfig, RdmeModel};
use super::geometry::site_types;
use super::lattice::{initial_lattice, Lattice};
use super::options::SimOptions;
use super::output::{
    observables_columns, observables_row, read_kymograph, snapshot_file, write_kymograph_png,
    write_snapshot, Kymograph,
};
use super::sim::{Observables, RdmeSim};
use crate::error::{invalid, Result};
use crate::runtime::{
    self, run_loop::file_name, ArrayData, Observation, Schedule, Simulation, StateArray, Timings,
};
use petri_engine::{AdapterSummary, GpuContext};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The oscillation analysis discards this fraction of the run's simulated time as transient.
pub const ANALYSIS_SKIP_FRACTION: f64 = 0.2;

/// An rdme run's options (`resume`: a checkpoint written for the same config).
pub type RunOptions = runtime::ModelRunOptions<SimOptions>;

/// The model's part of manifest.json (the runtime adds version, steps, timings and files).
#[derive(Debug, Serialize)]
pub struct Details {
    pub config: RdmeConfig,
    pub seed: u64,
    pub tau_s: f64,
    /// One entry per device (z-slab), in slab order.
    pub devices: Vec<AdapterSummary>,
    /// Planes per device at the end, and the load balancer's boundary moves.
    pub final_split: Vec<u32>,
    pub rebalances: u64,
    pub resumed_from: Option<String>,
    pub simulated_s: f64,
    pub warnings: Vec<String>,
    pub reactions: Vec<String>,
    /// Particles of each species at the end, and by site type.
    pub final_totals: BTreeMap<String, u64>,
    pub final_by_type: BTreeMap<String, BTreeMap<String, u64>>,
    /// Particles moved to another site of their plane because their site was full.
    pub overflow_moved: u64,
}

/// An RDME simulation on its devices, for the runtime.
pub struct RdmeRun {
    pub model: RdmeModel,
    pub sim: RdmeSim,
    devices: Vec<AdapterSummary>,
    /// Overflow moves before a resumed run's first step (a new simulation counts from zero).
    moved_before: u64,
    resumed_from: Option<String>,
    kymograph: Option<Kymograph>,
    analysis: Option<OscillationReport>,
}

impl Observation for Observables {
    fn step(&self) -> u64 {
        self.step
    }
    fn row(&self) -> Vec<f64> {
        observables_row(self)
    }
}

impl Simulation for RdmeRun {
    type Observation = Observables;
    type Details = Details;

    fn step(&self) -> u64 {
        self.sim.step
    }
    /// `advance` waits for its steps (it checks them for overflow), so a stop lands at the end
    /// of the advance under way. Eight batches: each advance ends in a wait and starts its
    /// batches short again (`FIRST_BATCH`), which one batch per advance would pay often.
    fn batch_steps(&self) -> u64 {
        8 * self.sim.steps_per_batch()
    }
    fn describe(&self) -> String {
        let cfg = &self.model.config;
        let [nx, ny, nz] = cfg.lattice.shape;
        format!(
            "lattice {nx}x{ny}x{nz} at {:.3e} m, tau = {:.3e} s, on {} device(s)",
            cfg.lattice.spacing_m,
            cfg.tau_s,
            self.devices.len()
        )
    }
    fn progress(&self, o: &Observables) -> String {
        let cfg = &self.model.config;
        let mut msg = format!("t = {:.3} s", o.time_s);
        if let Some(name) = &cfg.output.kymograph_species {
            if let Ok(id) = cfg.species_id("output.kymograph_species", name) {
                msg += &format!(", {name} {}", o.species_total(id as usize));
            }
        }
        msg
    }
    fn summary(&self, last: &Observables) -> Vec<String> {
        let cfg = &self.model.config;
        let details = self.details(last.step, last);
        let totals: Vec<String> = cfg
            .species
            .iter()
            .map(|s| format!("{s} {}", details.final_totals[s]))
            .collect();
        let mut lines = vec![format!(
            "step {} (t = {:.4} s): {}; overflow moved {}",
            last.step,
            last.step as f64 * cfg.tau_s,
            totals.join(", "),
            details.overflow_moved
        )];
        if let (Some(a), Some(name)) = (&self.analysis, &cfg.output.kymograph_species) {
            lines.extend(a.lines(name));
        }
        lines
    }
    fn schedule(&self) -> Schedule {
        let cfg = &self.model.config;
        Schedule {
            model: "rdme",
            steps: cfg.steps,
            observe_every: cfg.output.observe_every,
            snapshot_every: cfg.output.snapshot_every,
            frame_every: 0,
            seconds_per_step: Some(cfg.tau_s),
            time_per_step: cfg.tau_s,
        }
    }
    fn columns(&self) -> Vec<String> {
        observables_columns(&self.model.config)
    }

    fn open_series(&mut self, dir: &Path, continue_from: Option<u64>) -> Result<Vec<String>> {
        let cfg = &self.model.config;
        let Some(species) = &cfg.output.kymograph_species else {
            return Ok(Vec::new());
        };
        let path = dir.join("kymograph.csv");
        self.kymograph = Some(Kymograph::create(&path, cfg, species, continue_from)?);
        Ok(vec!["kymograph.csv".into()])
    }

    fn record(&mut self, o: &Observables) -> Result<()> {
        match self.kymograph.as_mut() {
            Some(k) => k.push(o),
            None => Ok(()),
        }
    }

    fn flush_series(&mut self, sync: bool) -> Result<()> {
        match self.kymograph.as_mut() {
            Some(k) if sync => k.sync(),
            Some(k) => k.flush(),
            None => Ok(()),
        }
    }

    fn observe(&mut self) -> Result<Observables> {
        let mut o = self.sim.observe()?;
        o.overflow_moved += self.moved_before;
        Ok(o)
    }

    fn advance(
        &mut self,
        steps: u64,
        observe_at_end: bool,
        sink: &mut dyn FnMut(Observables) -> Result<()>,
    ) -> Result<()> {
        self.sim.advance(steps)?;
        self.observe_into(observe_at_end, sink)
    }

    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
        let cfg = &self.model.config;
        let path = snapshot_file(dir, self.sim.step);
        let lattice = self.sim.read_lattice()?;
        write_snapshot(&path, cfg, &lattice, &cfg.output.snapshot_species)?;
        Ok(vec![file_name(&path)])
    }

    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        self.write_snapshot(dir)
    }

    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let moved = self.observe()?.overflow_moved;
        let lattice = self.sim.read_lattice()?;
        Checkpoint::new(&self.model, self.sim.step, &lattice, moved).save(path)
    }

    fn finish(&mut self, dir: &Path) -> Result<Vec<String>> {
        let Some(k) = self.kymograph.as_mut() else {
            return Ok(Vec::new());
        };
        k.flush()?;
        let cfg = &self.model.config;
        // Occupancy (per site of the type) in the picture and the analysis alike.
        let lattice = Lattice::empty(cfg.lattice.shape, site_types(cfg));
        let sites = kymograph_sites(cfg, &lattice)?;
        write_kymograph_png(&dir.join("kymograph.png"), cfg, &k.rows, sites.as_deref())?;
        let span = k.rows.last().map_or(0.0, |r| r.0) - k.rows[0].0;
        let report = analyze(&k.rows, ANALYSIS_SKIP_FRACTION * span, sites.as_deref());
        petri_output::write_json_pretty(&dir.join("analysis.json"), &report)?;
        self.analysis = Some(report);
        Ok(vec!["kymograph.png".into(), "analysis.json".into()])
    }

    /// `species`: the names; `counts`: particles of each species per site, (species, nz, ny, nx);
    /// `site_type`: each site's type (index into `site_types`), (nz, ny, nx).
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        let lattice = self.sim.read_lattice()?;
        let [nx, ny, nz] = lattice.shape.map(|n| n as usize);
        let (sites, species) = (lattice.sites(), self.model.config.species.len());
        let mut counts = vec![0u32; species * sites];
        for i in 0..sites {
            for id in lattice.particles(i) {
                counts[(id as usize - 1) * sites + i] += 1;
            }
        }
        let names = self.model.config.species.clone();
        Ok(vec![
            StateArray::new("species", &[species], ArrayData::Text(names)),
            StateArray::new("counts", &[species, nz, ny, nx], ArrayData::U32(counts)),
            StateArray::new("site_type", &[nz, ny, nx], ArrayData::U8(lattice.types)),
        ])
    }

    fn manifest_details(&self, first_step: u64, last: &Observables) -> Result<Details> {
        Ok(self.details(first_step, last))
    }
}

impl RdmeRun {
    fn details(&self, first_step: u64, last: &Observables) -> Details {
        let (model, cfg) = (&self.model, &self.model.config);
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
        Details {
            config: cfg.clone(),
            seed: cfg.seed,
            tau_s: cfg.tau_s,
            devices: self.devices.clone(),
            final_split: self.sim.split(),
            rebalances: self.sim.slabs.rebalances,
            resumed_from: self.resumed_from.clone(),
            simulated_s: (self.sim.step - first_step) as f64 * cfg.tau_s,
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
        }
    }
}

/// Refuses, before the lattice is built (seconds to minutes for a large one), a lattice whose
/// slab would not fit a device's particle buffer: 16 bytes per site of the slab the initial split
/// gives each device, halos included.
fn check_device_memory(
    contexts: &[GpuContext],
    model: &RdmeModel,
    options: &SimOptions,
) -> Result<()> {
    use petri_scheduler::slabs::{equal_split, extents, halo_depth};
    let [nx, ny, nz] = model.config.lattice.shape;
    let split = match &options.split {
        Some(s) if s.len() == contexts.len() => s.clone(),
        _ => equal_split(nz, contexts.len().max(1)),
    };
    let slabs = extents(&split, halo_depth(options.halo_depth, &split));
    for (ctx, slab) in contexts.iter().zip(&slabs) {
        let sites = nx as u64 * ny as u64 * slab.planes() as u64;
        ctx.check_storage_buffer("rdme particles", 16 * sites)?;
    }
    Ok(())
}

/// What a run returns: manifest.json's contents, and the kymograph's analysis.
#[derive(Debug)]
pub struct Manifest {
    pub first_step: u64,
    pub last_step: u64,
    pub timings: Timings,
    pub outputs: Vec<String>,
    pub details: Details,
    /// The analysis of the kymograph species (also in analysis.json).
    pub analysis: Option<OscillationReport>,
}

/// Runs `model` on `contexts` (one z-slab each) into `opts.out_dir`
/// (`runtime::build_and_run`). `progress` sees every observation, the first included.
pub fn run(
    contexts: Vec<GpuContext>,
    model: &RdmeModel,
    opts: &RunOptions,
    progress: impl FnMut(&Observables),
) -> Result<Manifest> {
    let build = || start(contexts, model, &opts.sim, opts.resume.as_deref());
    let (run, report) = runtime::build_and_run(opts, build, progress)?;
    Ok(Manifest {
        first_step: report.first_step,
        last_step: report.last_step,
        details: run.details(report.first_step, &report.last),
        timings: report.timings,
        outputs: report.outputs,
        analysis: run.analysis,
    })
}

/// The simulation of `model` on `contexts` (one z-slab each) at its initial state, or at the
/// state of the checkpoint `resume` (refused unless written by a run of the same model).
pub fn start(
    contexts: Vec<GpuContext>,
    model: &RdmeModel,
    options: &SimOptions,
    resume: Option<&Path>,
) -> Result<RdmeRun> {
    check_device_memory(&contexts, model, options)?;
    let (lattice, first_step, moved_before) = match resume {
        Some(path) => {
            let ck = Checkpoint::load(path)?;
            (ck.restore(model, path)?, ck.step, ck.overflow_moved)
        }
        None => (initial_lattice(model)?, 0, 0),
    };
    let devices: Vec<AdapterSummary> = contexts.iter().map(|c| c.adapter.clone()).collect();
    let sim = RdmeSim::new(contexts, model, &lattice, first_step, options)?;
    Ok(RdmeRun {
        model: model.clone(),
        sim,
        devices,
        moved_before,
        resumed_from: resume.map(|p| p.display().to_string()),
        kymograph: None,
        analysis: None,
    })
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
