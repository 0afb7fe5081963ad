//! An epidermis run as the runtime drives it (`crate::runtime`): every `observe_every` steps the
//! state is read back and observed (observables.csv, and one block of rows in cells.csv: every
//! cell at that step); every `snapshot_every` steps the elements (`elements_NNNNNNN.vtp`) and
//! the side view (`tissue_NNNNNNN.png`); every `frame_every` steps the side view alone; at the
//! end the elements, `tissue.png` and, with `--checkpoint-every`, the checkpoint. A division
//! that does not fit `capacity.max_cells` stops the run with an error naming it (the
//! simulation's `advance` reports it). The runtime names and schedules the pictures
//! (`runtime::film`); the model opens as an [`EpidermisRun`] (`model.rs`).

use super::checkpoint::{self, config_hashes, Checkpoint};
use super::output::{
    cell_columns, elements_file, top_file, write_elements, write_picture, write_top_picture,
    Geometry, Observables, Observed,
};
use super::params::EpidermisConfig;
use super::sim::{EpidermisSim, SimOptions};
use super::state::{ADHESIVE, GENE_NAMES, SPECIES};
use crate::error::Result;
use crate::runtime::{
    self, run_loop::file_name, ArrayData, Observation, RunReport, Schedule, Simulation, StateArray,
};
use petri_engine::{AdapterSummary, GpuContext};
use petri_output::TimeSeriesWriter;
use serde::Serialize;
use std::path::Path;

/// An epidermis run's options (`resume`: a checkpoint written by a run of the same config).
pub type RunOptions = runtime::ModelRunOptions<SimOptions>;

/// The series file of the cells, one block of rows per observation.
pub const CELLS_FILE: &str = "cells.csv";

impl Geometry {
    /// The geometry of `cfg`'s outputs. Elements are drawn as discs of half the range of the
    /// intracellular repulsion (`mechanics.intra.xi1`), so neighbouring elements of a cell
    /// stay apart in the picture.
    pub fn of(cfg: &EpidermisConfig) -> Geometry {
        Geometry {
            lx: cfg.domain.lx as f32,
            ly: cfg.domain.ly as f32,
            height: cfg.domain.height as f32,
            layer_thickness: cfg.output.layer_thickness as f32,
            dt: cfg.dt,
            element_radius: 0.5 * cfg.mechanics.intra.xi1 as f32,
        }
    }
}

impl Observation for Observed {
    fn step(&self) -> u64 {
        self.observables.step
    }
    fn row(&self) -> Vec<f64> {
        self.observables.row()
    }
    fn non_finite(&self) -> Option<&'static str> {
        self.observables.non_finite()
    }
}

/// A simulation on one device, for the runtime.
pub struct EpidermisRun {
    pub ctx: GpuContext,
    pub sim: EpidermisSim,
    pub cfg: EpidermisConfig,
    geometry: Geometry,
    cells: Option<TimeSeriesWriter>,
}

/// The model's part of manifest.json.
#[derive(Debug, Serialize)]
pub struct Details {
    pub config: EpidermisConfig,
    pub seed: u64,
    pub dt: f64,
    pub adapter: AdapterSummary,
    /// The observables at the last step.
    pub final_observables: Observables,
    /// Cells at the end against `capacity.max_cells`.
    pub capacity_used: f64,
}

impl EpidermisRun {
    pub fn new(ctx: &GpuContext, sim: EpidermisSim, cfg: &EpidermisConfig) -> Self {
        Self {
            ctx: ctx.clone(),
            sim,
            cfg: cfg.clone(),
            geometry: Geometry::of(cfg),
            cells: None,
        }
    }
}

impl Simulation for EpidermisRun {
    type Observation = Observed;
    type Details = Details;

    fn describe(&self) -> String {
        let cfg = &self.cfg;
        format!(
            "box {} x {} (height {}), {} x {} cells, capacity {} cells, dt = {}",
            cfg.domain.lx,
            cfg.domain.ly,
            cfg.domain.height,
            cfg.initial.cells_x,
            cfg.initial.cells_y,
            cfg.capacity.max_cells,
            cfg.dt
        )
    }
    fn progress(&self, o: &Observed) -> String {
        let o = &o.observables;
        format!(
            "cells {} (basal {}), divisions {}",
            o.cells, o.basal_cells, o.divisions
        )
    }
    fn summary(&self, last: &Observed) -> Vec<String> {
        let o = &last.observables;
        let layers = o.cells_per_layer.map(|n| n.to_string()).join(", ");
        vec![format!(
            "step {} (t = {:.3}): {} cells ({} basal, {} suprabasal; layers 1..4+: {layers}), {} \
             elements, {} divisions, {} elements added",
            o.step,
            o.time,
            o.cells,
            o.basal_cells,
            o.suprabasal_cells,
            o.elements,
            o.divisions,
            o.added
        )]
    }

    fn step(&self) -> u64 {
        self.sim.step()
    }
    fn batch_steps(&self) -> u64 {
        self.sim.steps_per_batch()
    }
    fn schedule(&self) -> Schedule {
        let cfg = &self.cfg;
        Schedule {
            model: "epidermis",
            steps: cfg.steps,
            observe_every: cfg.observe_every as u64,
            snapshot_every: cfg.snapshot_every,
            frame_every: cfg.frame_every,
            seconds_per_step: None,
            time_per_step: cfg.dt,
        }
    }
    fn columns(&self) -> Vec<String> {
        Observables::columns()
    }

    fn open_series(&mut self, dir: &Path, continue_from: Option<u64>) -> Result<Vec<String>> {
        let columns = cell_columns();
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        let path = dir.join(CELLS_FILE);
        self.cells = Some(match continue_from {
            // The blocks an earlier run wrote before the resumed step (rows grow in the step).
            Some(step) => {
                TimeSeriesWriter::create_continued(&path, &columns, |r| r[0] < step as f64)?.0
            }
            None => TimeSeriesWriter::create(&path, &columns)?,
        });
        Ok(vec![CELLS_FILE.into()])
    }

    fn record(&mut self, o: &Observed) -> Result<()> {
        if let Some(cells) = self.cells.as_mut() {
            for row in o.cell_rows() {
                cells.write_row(&row)?;
            }
        }
        Ok(())
    }

    fn flush_series(&mut self, sync: bool) -> Result<()> {
        match self.cells.as_mut() {
            Some(cells) if sync => Ok(cells.sync()?),
            Some(cells) => Ok(cells.flush()?),
            None => Ok(()),
        }
    }

    fn observe(&mut self) -> Result<Observed> {
        let state = self.sim.read_state(&self.ctx)?;
        Ok(Observed::of(&state, &self.geometry))
    }

    fn advance(
        &mut self,
        steps: u64,
        observe_at_end: bool,
        sink: &mut dyn FnMut(Observed) -> Result<()>,
    ) -> Result<()> {
        self.sim.advance(&self.ctx, steps)?;
        self.observe_into(observe_at_end, sink)
    }

    fn write_snapshot(&mut self, dir: &Path) -> Result<Vec<String>> {
        let state = self.sim.read_state(&self.ctx)?;
        let path = elements_file(dir, state.step);
        write_elements(&path, &state, &self.geometry)?;
        let top = top_file(dir, state.step);
        write_top_picture(&top, &state, &self.geometry)?;
        Ok(vec![file_name(&path), file_name(&top)])
    }

    fn picture_name(&self) -> Option<&'static str> {
        Some("tissue")
    }

    fn draw(&mut self, paths: &[&Path]) -> Result<()> {
        let state = self.sim.read_state(&self.ctx)?;
        write_picture(paths, &state, &self.geometry)
    }

    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let state = self.sim.read_state(&self.ctx)?;
        Checkpoint::new(config_hashes(&self.cfg), state).save(path)
    }

    fn finish(&mut self, _dir: &Path) -> Result<Vec<String>> {
        if let Some(cells) = self.cells.as_mut() {
            cells.finish()?;
        }
        Ok(Vec::new())
    }

    /// The elements in use, cell by cell (position x, y, z; cell id; adhesive or not) and the
    /// cells (element count, basal or not, the gene-network values in the order of `genes`).
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        let s = self.sim.read_state(&self.ctx)?;
        let cells = s.cells as usize;
        let slots: Vec<usize> = (0..cells).flat_map(|c| s.slots(c)).collect();
        let elements = slots.len();
        let position = slots
            .iter()
            .flat_map(|&k| [s.pos[k][0], s.pos[k][1], s.pos[k][2]]);
        let cell_of = (0..cells).flat_map(|c| std::iter::repeat_n(c as u32, s.counts[c] as usize));
        let adhesive = slots.iter().map(|&k| (s.pos[k][3] == ADHESIVE) as u8);
        let genes = GENE_NAMES.map(String::from).to_vec();
        Ok(vec![
            StateArray::new("genes", &[SPECIES], ArrayData::Text(genes)),
            StateArray::new(
                "element_position",
                &[elements, 3],
                ArrayData::F32(position.collect()),
            ),
            StateArray::new(
                "element_cell",
                &[elements],
                ArrayData::U32(cell_of.collect()),
            ),
            StateArray::new(
                "element_adhesive",
                &[elements],
                ArrayData::U8(adhesive.collect()),
            ),
            StateArray::new(
                "cell_elements",
                &[cells],
                ArrayData::U32(s.counts[..cells].to_vec()),
            ),
            StateArray::new(
                "cell_basal",
                &[cells],
                ArrayData::U8((0..cells).map(|c| s.is_basal(c) as u8).collect()),
            ),
            StateArray::new(
                "cell_genes",
                &[cells, SPECIES],
                ArrayData::F32(s.genes[..cells].concat()),
            ),
        ])
    }

    fn manifest_details(&self, _first_step: u64, last: &Observed) -> Result<Details> {
        Ok(Details {
            config: self.cfg.clone(),
            seed: self.cfg.seed,
            dt: self.cfg.dt,
            adapter: self.ctx.adapter.clone(),
            final_observables: last.observables.clone(),
            capacity_used: last.observables.cells as f64 / self.cfg.capacity.max_cells as f64,
        })
    }
}

/// The simulation a run starts from: `cfg`'s initial state, or with `opts.resume` the state of
/// that checkpoint, refused unless it was written by a run of the same config (the fields that
/// differ are named).
pub fn start(ctx: &GpuContext, cfg: &EpidermisConfig, opts: &RunOptions) -> Result<EpidermisSim> {
    match &opts.resume {
        Some(path) => {
            let state = Checkpoint::load(path)?.restore(
                &config_hashes(cfg),
                cfg.capacity.max_cells,
                path,
            )?;
            checkpoint::check_meaning(cfg, &state, path)?;
            EpidermisSim::from_state(ctx, cfg, &state, &opts.sim)
        }
        None => EpidermisSim::new(ctx, cfg, &opts.sim),
    }
}

/// Builds the simulation ([`start`]) and runs it into `opts.out_dir`
/// (`runtime::build_and_run`).
pub fn run(
    ctx: &GpuContext,
    cfg: &EpidermisConfig,
    opts: &RunOptions,
    progress: impl FnMut(&Observed),
) -> Result<RunReport<Observed>> {
    let build = || Ok(EpidermisRun::new(ctx, start(ctx, cfg, opts)?, cfg));
    Ok(runtime::build_and_run(opts, build, progress)?.1)
}
