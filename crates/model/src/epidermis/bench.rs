//! The epidermis benchmark (`petri bench epidermis`): the seed's run (5000 cells x 20 elements x
//! 3000 steps, the full model) as whole-run GPU time; the time per RK2 step at several element
//! counts, split by pass (binning, forces, genes, ...) from timestamps, with the memory per
//! element; and the multithreaded CPU reference's time per step where it fits.
//!
//! The per-step sizes run on the bench tissue (`bench_tissue`): the config's lattice and cell
//! shape repeated to the size, built by an integer hash so that the hand-written CUDA force pass
//! (benches/reference/sem_forces.cu) builds the very same tissue (tests pin that); the bench
//! hands the CUDA reference the state after its timed steps (`write_tissue`), so both time and
//! checksum the forces of the same relaxed tissue.

use super::cpu::{self, Pairs};
use super::params::EpidermisConfig;
use super::sim::{EpidermisSim, SimOptions};
use super::state::{EpidermisState, ADHESIVE, MAX_ELEMENTS, PLAIN};
use super::uniforms::EpiUniforms;
use crate::error::{invalid, ModelError, Result};
use petri_engine::{GpuContext, PassTimes};
use petri_scheduler::bench::{
    measure, profiled_steps, warmup_iterations, Case, Runs, Sample, Timing,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Steps of one warm-up iteration of the per-step case.
const WARM_UP_BATCH: u32 = 50;
/// Cells and steps of the seed's run (Christley et al. 2010, Table 3).
pub const SEED_CELLS: u64 = 5000;
pub const SEED_STEPS: u32 = 3000;

/// Warm-up batches of `WARM_UP_BATCH` steps for `elements`: about 1e9 element updates (a
/// fraction of a second of an H100's work at 10^6 elements), 2 to 100 batches.
pub fn warmup_batches(elements: u64) -> u32 {
    warmup_iterations(1e9, elements as f64 * WARM_UP_BATCH as f64, 2, 100)
}

#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Element counts of the per-step case (multiples of `initial.elements_per_cell`).
    pub sizes: Vec<u64>,
    /// Timed steps per size (after warm-up).
    pub steps: u32,
    /// Box height of the per-step sizes (None: the config's); the neighbour grid spans it.
    pub height: Option<f64>,
    /// The CPU reference (its time per step and force checksum) runs only up to this many
    /// elements.
    pub cpu_max_elements: u64,
    /// CPU steps timed per size.
    pub cpu_steps: u32,
    pub sim: SimOptions,
    /// Warm-up batches of 50 steps (None: [`warmup_batches`] of the size).
    pub warmup: Option<u32>,
    /// Timed repeats (the row's pass split is of the last one).
    pub repeats: u32,
}

/// `cells_x x cells_y` cells of `per_cell` elements making `elements`, as square as divides
/// exactly (sem_forces.cu `lattice`), or None when `elements` is no whole number of cells.
pub fn lattice(elements: u64, per_cell: u32) -> Option<(u32, u32)> {
    let per = per_cell as u64;
    if per == 0
        || elements == 0
        || !elements.is_multiple_of(per)
        || elements / per > u32::MAX as u64
    {
        return None;
    }
    let cells = elements / per;
    let mut y = (cells as f64).sqrt().floor() as u64;
    while y > 1 && !cells.is_multiple_of(y) {
        y -= 1;
    }
    let y = y.max(1);
    Some(((cells / y) as u32, y as u32))
}

/// Lattice spacing of the config's cells: the period in x over the cells along x.
pub fn spacing(cfg: &EpidermisConfig) -> f64 {
    cfg.domain.lx / cfg.initial.cells_x as f64
}

/// The config of `elements` elements: the config's lattice spacing, cell shape and parameters,
/// `cells_x x cells_y` cells (see [`lattice`]) over a box of that many spacings, room for
/// `room` times the cells.
pub fn size_config(
    base: &EpidermisConfig,
    elements: u64,
    height: Option<f64>,
    room: u32,
) -> Result<EpidermisConfig> {
    let per = base.initial.elements_per_cell;
    let (cx, cy) = lattice(elements, per).ok_or_else(|| {
        invalid(
            "bench size",
            elements,
            format!("a whole number of cells of initial.elements_per_cell = {per} elements"),
        )
    })?;
    let mut cfg = base.clone();
    // A bench size counts elements: every cell starts at elements_per_cell (no growth phases).
    cfg.initial.extra_elements = 0;
    let s = spacing(base);
    cfg.initial.cells_x = cx;
    cfg.initial.cells_y = cy;
    cfg.domain.lx = cx as f64 * s;
    cfg.domain.ly = cy as f64 * s;
    if let Some(h) = height {
        cfg.domain.height = h;
    }
    let cells = cx as u64 * cy as u64 * room.max(1) as u64;
    cfg.capacity.max_cells = cells.min(u32::MAX as u64) as u32;
    cfg.validate()?;
    Ok(cfg)
}

/// Chris Wellons' lowbias32 integer hash (sem_forces.cu `hash32`).
fn hash32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Uniform in [0, 1) with 24 bits, exact in f32 (sem_forces.cu `uniform01`).
fn uniform01(seed: u32, slot: u32, draw: u32) -> f32 {
    let h = hash32(hash32(hash32(slot) ^ seed).wrapping_add(draw));
    (h >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// The bench tissue of `cfg`: its `cells_x x cells_y` lattice of spacing [`spacing`], each cell
/// with `elements_per_cell` points uniform in a ball of `initial.radius` around (centre x,
/// centre y, radius) by rejection sampling on [`uniform01`], its `adhesive_per_cell` lowest
/// points (ties by slot) ADHESIVE; genes zero. Bit for bit the tissue of sem_forces.cu with
/// `--seed seed`.
pub fn bench_tissue(cfg: &EpidermisConfig, seed: u32) -> EpidermisState {
    let init = &cfg.initial;
    let cells = init.cells_x * init.cells_y;
    let mut state = EpidermisState::empty(cfg.capacity.max_cells);
    state.cells = cells;
    let (s, radius) = (spacing(cfg) as f32, init.radius as f32);
    let per = init.elements_per_cell as usize;
    for c in 0..cells {
        let centre = [
            ((c % init.cells_x) as f32 + 0.5) * s,
            ((c / init.cells_x) as f32 + 0.5) * s,
            radius,
        ];
        let first = c as usize * MAX_ELEMENTS;
        for k in 0..per {
            let slot = (first + k) as u32;
            let mut draw = 0;
            let u = loop {
                let u = [0, 1, 2].map(|a| 2.0 * uniform01(seed, slot, draw + a) - 1.0);
                if u[0] * u[0] + u[1] * u[1] + u[2] * u[2] <= 1.0 {
                    break u;
                }
                draw += 3;
            };
            let p = [0, 1, 2].map(|a| centre[a] + radius * u[a]);
            state.pos[first + k] = [p[0], p[1], p[2], PLAIN];
        }
        let mut order: Vec<usize> = (0..per).collect();
        order.sort_by(|&a, &b| state.pos[first + a][2].total_cmp(&state.pos[first + b][2]));
        for &k in order.iter().take(init.adhesive_per_cell as usize) {
            state.pos[first + k][3] = ADHESIVE;
        }
        state.counts[c as usize] = per as u32;
    }
    state
}

/// Sums of the forces of one evaluation, over elements in slot order, in f64: sum |F| and
/// sum F (x and y near 0: the pair forces cancel; z is the membrane's pull).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checksum {
    pub sum_abs_f: f64,
    pub sum_f: [f64; 3],
}

/// The checksum of the forces `f` (indexed by slot) of `state`'s elements.
pub fn checksum(state: &EpidermisState, f: &[[f32; 3]]) -> Checksum {
    let mut sum = Checksum {
        sum_abs_f: 0.0,
        sum_f: [0.0; 3],
    };
    for c in 0..state.cells as usize {
        for s in state.slots(c) {
            let v = f[s].map(|x| x as f64);
            sum.sum_abs_f += (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            for (total, x) in sum.sum_f.iter_mut().zip(v) {
                *total += x;
            }
        }
    }
    sum
}

/// The checksum of the CPU reference's binned forces on `state` (sem_forces.cu prints the same
/// sums of the CUDA kernel's forces).
pub fn force_checksum(cfg: &EpidermisConfig, state: &EpidermisState) -> Checksum {
    let u = EpiUniforms::new(cfg);
    let grid = cfg.mechanics_grid();
    checksum(
        state,
        &cpu::forces(&u, &grid, &state.pos, &state.counts, Pairs::Binned),
    )
}

/// Writes `state` for `sem_forces --tissue` (its `read_tissue`), little-endian: u32 magic
/// "EPIT", u32 version 1, u32 cells, u32 0, f64 lx, f64 ly, u32 counts[cells], f32 x 4
/// pos[cells * 40].
pub fn write_tissue(
    path: &std::path::Path,
    cfg: &EpidermisConfig,
    state: &EpidermisState,
) -> Result<()> {
    let cells = state.cells as usize;
    let mut bytes = Vec::with_capacity(32 + cells * (4 + MAX_ELEMENTS * 16));
    for word in [0x5449_5045u32, 1, state.cells, 0] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    for l in [cfg.domain.lx, cfg.domain.ly] {
        bytes.extend_from_slice(&l.to_le_bytes());
    }
    for n in &state.counts[..cells] {
        bytes.extend_from_slice(&n.to_le_bytes());
    }
    for p in &state.pos[..cells * MAX_ELEMENTS] {
        for x in p {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(path, bytes).map_err(|source| ModelError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// The sem_forces.cu arguments of `cfg`'s force law and tissue shape (add `--sizes` for its
/// own tissue, or `--tissue FILE` for a state from [`write_tissue`]).
pub fn cuda_reference_args(cfg: &EpidermisConfig, seed: u32) -> Vec<String> {
    let m = &cfg.mechanics;
    let four = |u0: f64, xi1: f64, w0: f64, xi2: f64| format!("{u0},{xi1},{w0},{xi2}");
    [
        (
            "--intra",
            four(m.intra.u0, m.intra.xi1, m.intra.w0, m.intra.xi2),
        ),
        (
            "--inter",
            four(m.inter.u0, m.inter.xi1, m.inter.w0, m.inter.xi2),
        ),
        ("--cutoff", m.inter.cutoff.to_string()),
        (
            "--membrane",
            four(m.membrane.u0, m.membrane.xi1, m.membrane.w0, m.membrane.xi2),
        ),
        ("--dt", cfg.dt.to_string()),
        ("--spacing", spacing(cfg).to_string()),
        ("--radius", cfg.initial.radius.to_string()),
        ("--height", cfg.domain.height.to_string()),
        ("--elements", cfg.initial.elements_per_cell.to_string()),
        ("--adhesive", cfg.initial.adhesive_per_cell.to_string()),
        ("--seed", seed.to_string()),
    ]
    .into_iter()
    .flat_map(|(k, v)| [k.to_string(), v])
    .collect()
}

/// One size's line of sem_forces.cu output (lines with "skipped" or the parameter line have
/// no "ms").
#[derive(Clone, Debug, Deserialize)]
pub struct CudaRow {
    pub elements: u64,
    pub ms: f64,
    pub block: u32,
    pub checksum: Checksum,
    pub max_rel_err: f64,
}

/// The size rows of sem_forces.cu's output (other lines are left out).
pub fn parse_cuda_output(text: &str) -> Vec<CudaRow> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<CudaRow>(l.trim()).ok())
        .collect()
}

/// Which part of a step a pass belongs to, by its label: "growth" (grow, division ranks,
/// divide, count offsets, the active list), "genes" (cell centres and their binning, neighbour sums, the gene stages), "forces",
/// "binning" (the mechanics' neighbour search: gather, binning, reorder into bin order, the
/// dispatch sizes), else "other".
pub fn pass_group(label: &str) -> &'static str {
    let has = |words: &[&str]| words.iter().any(|w| label.contains(w));
    if has(&["grow", "divi", "active", "count offsets"]) {
        "growth"
    } else if has(&["gene", "centre", "neighbour"]) {
        "genes"
    } else if has(&["force"]) {
        "forces"
    } else if has(&["gather", "binning", "reorder", "dispatch"]) {
        "binning"
    } else {
        "other"
    }
}

/// The case's figures besides the harness's (per-step case).
#[derive(Clone, Debug, Serialize)]
pub struct StepRow {
    pub elements: u64,
    pub cells: u32,
    pub bins: [u32; 3],
    pub steps: u32,
    /// Whether the GPU times come from timestamp queries (else wall clock).
    pub timestamps: bool,
    /// All passes of a step (ms).
    pub step_ms: f64,
    /// By part of the step ([`pass_group`]): binning (two neighbour searches), forces (two
    /// evaluations), genes, growth, other (ms per step; empty without timestamps).
    pub split_ms: BTreeMap<String, f64>,
    /// One force evaluation (half the "forces" part), for the CUDA comparison (ms).
    pub force_eval_ms: Option<f64>,
    /// GPU ms per step of each pass label.
    pub pass_ms: BTreeMap<String, f64>,
    /// GPU memory the simulation allocated (all buffers, the primitives' included), where the
    /// backend reports it, and per element.
    pub gpu_bytes: Option<u64>,
    pub bytes_per_element: Option<f64>,
    /// Multithreaded CPU reference (binned RK2 step, mechanics only): ms per step, and the
    /// CPU / GPU ratio of the mechanics' time (binning + forces).
    pub cpu_ms: Option<f64>,
    pub cpu_threads: usize,
    pub gpu_over_cpu: Option<f64>,
    /// Force checksums of the state after the timed steps (the one `write_tissue` hands to
    /// sem_forces.cu): the WGSL kernel's, and the CPU reference's up to `cpu_max_elements`.
    pub gpu_checksum: Checksum,
    pub cpu_checksum: Option<Checksum>,
}

/// The per-step case: warm-up batches, then `steps` timed steps, profiled by pass where the
/// adapter has timestamps; the figure is the GPU time of all passes per step.
struct StepCase<'a> {
    ctx: &'a GpuContext,
    sim: EpidermisSim,
    steps: u32,
    max_steps_per_batch: u32,
    times: PassTimes,
    wall_s: f64,
}

impl<'a> StepCase<'a> {
    fn new(ctx: &'a GpuContext, sim: EpidermisSim, steps: u32, opts: &SimOptions) -> Self {
        Self {
            ctx,
            sim,
            steps,
            max_steps_per_batch: opts.max_steps_per_batch,
            times: PassTimes::default(),
            wall_s: 0.0,
        }
    }

    /// `steps` steps with per-pass timestamps (wall clock without them); the pass times.
    fn run(&mut self, steps: u32) -> Result<PassTimes> {
        let ctx = self.ctx;
        if !ctx.has_timestamps() {
            self.sim.advance(ctx, steps as u64)?;
            ctx.wait()?;
            return Ok(PassTimes::default());
        }
        let passes = self.sim.passes_per_step() as u32;
        let sim = &mut self.sim;
        profiled_steps(ctx, steps, passes, self.max_steps_per_batch, |n, p| {
            sim.advance_profiled(ctx, n, p);
            Ok(())
        })
    }
}

impl Case for StepCase<'_> {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.sim.advance(self.ctx, WARM_UP_BATCH as u64)?;
        Ok(self.ctx.wait()?)
    }

    fn timed(&mut self) -> Result<Sample> {
        let wall = Instant::now();
        self.times = self.run(self.steps)?;
        self.wall_s = wall.elapsed().as_secs_f64();
        let steps = self.steps as f64;
        Ok(match self.ctx.has_timestamps() {
            true => Sample::gpu(self.times.busy_ns() / steps),
            false => Sample::wall(self.wall_s * 1e9 / steps),
        })
    }
}

/// Bytes the device's allocator holds, where the backend reports it.
fn allocated_bytes(ctx: &GpuContext) -> Option<u64> {
    ctx.device
        .generate_allocator_report()
        .map(|r| r.total_allocated_bytes)
}

/// One size's figures, and what the CUDA reference needs to time the same forces.
pub struct SizeResult {
    pub timing: Timing,
    pub row: StepRow,
    /// The size's config and its state after the timed steps.
    pub cfg: EpidermisConfig,
    pub state: EpidermisState,
}

/// Times one RK2 step at `elements` elements of the bench tissue.
pub fn bench_size(
    ctx: &GpuContext,
    base: &EpidermisConfig,
    elements: u64,
    opts: &BenchOptions,
) -> Result<SizeResult> {
    let cfg = size_config(base, elements, opts.height, 1)?;
    let seed = base.seed as u32;
    let state = bench_tissue(&cfg, seed);
    let before = allocated_bytes(ctx);
    let sim = EpidermisSim::from_state(ctx, &cfg, &state, &opts.sim)?;
    let gpu_bytes = match (before, allocated_bytes(ctx)) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let mut case = StepCase::new(ctx, sim, opts.steps, &opts.sim);
    let warmup = opts.warmup.unwrap_or_else(|| warmup_batches(elements));
    let timing = measure(
        &mut case,
        Runs {
            warmup,
            repeats: opts.repeats,
        },
    )?;
    let steps = opts.steps as f64;
    let pass_ms: BTreeMap<String, f64> = case.times.ms_per_step(steps);
    let mut split_ms = BTreeMap::new();
    for (label, ms) in &pass_ms {
        *split_ms.entry(pass_group(label).to_string()).or_insert(0.0) += ms;
    }
    let step_ms = timing.samples_ns.last().copied().unwrap_or(0.0) * 1e-6;
    let cpu = elements <= opts.cpu_max_elements;
    let cpu_ms = (cpu && opts.cpu_steps > 0).then(|| cpu_step_ms(&cfg, &state, opts.cpu_steps));
    let mechanics_ms = match ctx.has_timestamps() {
        true => split_ms.get("binning").unwrap_or(&0.0) + split_ms.get("forces").unwrap_or(&0.0),
        false => step_ms,
    };
    let grid = cfg.mechanics_grid();
    let end = case.sim.read_state(ctx)?;
    let gpu_checksum = checksum(&end, &case.sim.forces(ctx, Pairs::Binned)?);
    let row = StepRow {
        elements,
        cells: state.cells,
        bins: grid.dims,
        steps: opts.steps,
        timestamps: ctx.has_timestamps(),
        step_ms,
        force_eval_ms: split_ms.get("forces").map(|ms| ms / 2.0),
        split_ms,
        pass_ms,
        gpu_bytes,
        bytes_per_element: gpu_bytes.map(|b| b as f64 / elements as f64),
        cpu_ms,
        cpu_threads: rayon::current_num_threads(),
        gpu_over_cpu: cpu_ms
            .filter(|_| mechanics_ms > 0.0)
            .map(|c| c / mechanics_ms),
        gpu_checksum,
        cpu_checksum: cpu.then(|| force_checksum(&cfg, &end)),
    };
    Ok(SizeResult {
        timing,
        row,
        cfg,
        state: end,
    })
}

/// Milliseconds per binned RK2 step of the multithreaded CPU reference, from `state`.
fn cpu_step_ms(cfg: &EpidermisConfig, state: &EpidermisState, steps: u32) -> f64 {
    let u = EpiUniforms::new(cfg);
    let grid = cfg.mechanics_grid();
    let mut pos = state.pos.clone();
    let t = Instant::now();
    for _ in 0..steps {
        cpu::rk2_step(&u, &grid, &mut pos, &state.counts, Pairs::Binned);
    }
    t.elapsed().as_secs_f64() * 1e3 / steps as f64
}

/// The seed's run: figures besides the harness's.
#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    pub cells: u64,
    pub elements: u64,
    pub steps: u32,
    pub timestamps: bool,
    /// GPU time of the whole run, all passes (s); wall time of the run, submission to the end
    /// (s, per-pass timestamps included).
    pub gpu_s: f64,
    pub wall_s: f64,
    /// GPU ms per step by part (binning, forces, genes, growth).
    pub split_ms: BTreeMap<String, f64>,
    /// Cells and elements at the end.
    pub cells_end: u32,
    pub elements_end: u64,
}

/// The seed's run from the model's own initial state: each timed iteration builds a fresh
/// simulation (untimed) and runs all its steps.
struct RunCase<'a> {
    ctx: &'a GpuContext,
    cfg: EpidermisConfig,
    opts: SimOptions,
    steps: u32,
    last: Option<StepCase<'a>>,
}

impl Case for RunCase<'_> {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        let mut sim = EpidermisSim::new(self.ctx, &self.cfg, &self.opts)?;
        sim.advance(self.ctx, WARM_UP_BATCH as u64)?;
        Ok(self.ctx.wait()?)
    }

    fn timed(&mut self) -> Result<Sample> {
        let sim = EpidermisSim::new(self.ctx, &self.cfg, &self.opts)?;
        let mut case = StepCase::new(self.ctx, sim, self.steps, &self.opts);
        let sample = case.timed()?;
        let steps = self.steps as f64;
        self.last = Some(case);
        Ok(Sample {
            ns: sample.ns * steps,
            ..sample
        })
    }
}

/// Times the seed's run: `cells` cells (the seed: `SEED_CELLS`) of the config's shape and
/// spacing from the model's initial state, `steps` steps of the full model (genes, mechanics,
/// growth), room for twice the cells.
pub fn bench_seed_run(
    ctx: &GpuContext,
    base: &EpidermisConfig,
    cells: u64,
    steps: u32,
    opts: &BenchOptions,
) -> Result<(Timing, RunRow)> {
    let elements = cells * base.initial.elements_per_cell as u64;
    let cfg = size_config(base, elements, None, 2)?;
    let mut case = RunCase {
        ctx,
        cfg,
        opts: opts.sim.clone(),
        steps,
        last: None,
    };
    let runs = Runs {
        warmup: opts.warmup.unwrap_or(2),
        repeats: opts.repeats,
    };
    let timing = measure(&mut case, runs)?;
    let last = case.last.expect("at least one timed run");
    let state = last.sim.read_state(ctx)?;
    let mut split_ms = BTreeMap::new();
    for (label, (_, ns)) in &last.times.by_label {
        *split_ms.entry(pass_group(label).to_string()).or_insert(0.0) += ns * 1e-6 / steps as f64;
    }
    let row = RunRow {
        cells,
        elements,
        steps,
        timestamps: ctx.has_timestamps(),
        gpu_s: timing.samples_ns.last().copied().unwrap_or(0.0) * 1e-9,
        wall_s: last.wall_s,
        split_ms,
        cells_end: state.cells,
        elements_end: state.elements(),
    };
    Ok((timing, row))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::epidermis::params::{InterMorse, Morse};

    /// sem_forces.cu's defaults (the values of assets/epidermis.json when it was written):
    /// lattice spacing 1, radius 0.5, 20 elements, 5 adhesive, box height 8.
    fn reference_config() -> EpidermisConfig {
        let mut c = EpidermisConfig::default();
        let m = Morse {
            u0: 0.25,
            xi1: 0.12,
            w0: 0.1,
            xi2: 0.36,
        };
        c.mechanics.intra = m;
        c.mechanics.intra_cutoff = 1e6;
        c.mechanics.membrane = m;
        c.mechanics.inter = InterMorse {
            u0: 0.5,
            xi1: 0.12,
            w0: 0.1,
            xi2: 0.36,
            cutoff: 0.2897,
        };
        c.dt = 0.005;
        (c.initial.cells_x, c.initial.cells_y) = (10, 10);
        (c.domain.lx, c.domain.ly, c.domain.height) = (10.0, 10.0, 8.0);
        c.initial.radius = 0.5;
        c.initial.elements_per_cell = 20;
        c.initial.adhesive_per_cell = 5;
        c
    }

    #[test]
    fn passes_are_grouped_by_part_of_the_step() {
        for (label, part) in [
            ("gather", "binning"),
            ("binning", "binning"),
            ("reorder", "binning"),
            ("elements to dispatch", "binning"),
            ("forces", "forces"),
            ("forces (all pairs)", "forces"),
            ("epidermis centres", "genes"),
            ("epidermis centre binning", "genes"),
            ("epidermis neighbour sums", "genes"),
            ("epidermis genes stage 1", "genes"),
            ("epidermis grow", "growth"),
            ("epidermis divide commit", "growth"),
            ("epidermis division ranks", "growth"),
            ("epidermis count offsets", "growth"),
            ("epidermis active list", "growth"),
            ("something new", "other"),
        ] {
            assert_eq!(pass_group(label), part, "{label}");
        }
    }

    #[test]
    fn lattices_divide_the_cells_exactly() {
        assert_eq!(lattice(10_000, 20), Some((25, 20)));
        assert_eq!(lattice(100_000, 20), Some((100, 50)));
        assert_eq!(lattice(1_000_000, 20), Some((250, 200)));
        assert_eq!(lattice(10_000_000, 20), Some((800, 625)));
        assert_eq!(lattice(20 * 7, 20), Some((7, 1)));
        assert_eq!(lattice(10_001, 20), None);
        assert_eq!(lattice(0, 20), None);
    }

    #[test]
    fn the_tissue_is_the_cuda_references_bit_for_bit() {
        // Printed by sem_forces.cu's host code (make_tissue, 25 x 20 cells, seed 1).
        assert_eq!((hash32(1), hash32(12345)), (0x6889_90c0, 0x912e_fcf7));
        let cfg = size_config(&reference_config(), 10_000, None, 1).unwrap();
        let t = bench_tissue(&cfg, 1);
        let want: [(usize, [u32; 3], f32); 5] = [
            (0, [0x3eb1_ea92, 0x3f52_5b73, 0x3f4a_ffe3], PLAIN),
            (1, [0x3f59_ca5d, 0x3f0f_cc30, 0x3e8e_2ae8], ADHESIVE),
            (19, [0x3f4f_c9bb, 0x3eb6_bd6a, 0x3e59_9124], ADHESIVE),
            (683, [0x4189_2e70, 0x3f30_1912, 0x3f10_d8fd], PLAIN),
            (19979, [0x41c6_e204, 0x419d_fff2, 0x3f05_841d], PLAIN),
        ];
        for (slot, bits, kind) in want {
            let p = t.pos[slot];
            assert_eq!([p[0], p[1], p[2]].map(f32::to_bits), bits, "slot {slot}");
            assert_eq!(p[3], kind, "slot {slot}");
        }
        let mut sum = 0.0;
        let mut adhesive = 0;
        for c in 0..t.cells as usize {
            for s in t.slots(c) {
                let p = t.pos[s].map(|x| x as f64);
                sum += p[0] + p[1] * 3.0 + p[2] * 7.0;
                adhesive += (t.pos[s][3] == ADHESIVE) as u32;
            }
        }
        assert_eq!((t.elements(), adhesive), (10_000, 2500));
        assert!((sum - 460_281.149_018_585_7).abs() < 1e-6, "{sum}");
    }

    #[test]
    fn the_cpu_forces_have_the_cuda_references_checksum() {
        // sem_forces.cu's kernel (run on the host) on the same tissue and values:
        // sum |F| = 5935.30811, sum F = (~0, ~0, 690.665339).
        let cfg = size_config(&reference_config(), 10_000, None, 1).unwrap();
        let sum = force_checksum(&cfg, &bench_tissue(&cfg, 1));
        assert!((sum.sum_abs_f / 5935.30811 - 1.0).abs() < 1e-5, "{sum:?}");
        assert!((sum.sum_f[2] / 690.665339 - 1.0).abs() < 1e-4, "{sum:?}");
        // Pair forces cancel: what is left in x and y is rounding.
        assert!(
            sum.sum_f[0].abs() < 1e-3 && sum.sum_f[1].abs() < 1e-3,
            "{sum:?}"
        );
    }

    #[test]
    fn a_written_tissue_has_the_layout_sem_forces_reads() {
        let cfg = size_config(&reference_config(), 60, None, 2).unwrap();
        let t = bench_tissue(&cfg, 3);
        let path = std::env::temp_dir().join(format!("epit-{}.bin", std::process::id()));
        write_tissue(&path, &cfg, &t).unwrap();
        let b = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        // Three cells of room six: only the three in use are written.
        assert_eq!(b.len(), 32 + 3 * 4 + 3 * MAX_ELEMENTS * 16);
        let word = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(
            (&b[..4], word(1), word(2), word(3)),
            (&b"EPIT"[..], 1, 3, 0)
        );
        let lx = f64::from_le_bytes(b[16..24].try_into().unwrap());
        assert_eq!(lx, cfg.domain.lx);
        assert_eq!((word(8), word(10)), (20, 20));
        let at = 44 + (MAX_ELEMENTS + 1) * 16;
        let y = f32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap());
        assert_eq!(y, t.pos[MAX_ELEMENTS + 1][1]);
    }

    #[test]
    fn the_cuda_arguments_name_every_value() {
        let cfg = reference_config();
        let args = cuda_reference_args(&cfg, 7).join(" ");
        assert_eq!(
            args,
            "--intra 0.25,0.12,0.1,0.36 --inter 0.5,0.12,0.1,0.36 \
             --cutoff 0.2897 --membrane 0.25,0.12,0.1,0.36 --dt 0.005 --spacing 1 --radius 0.5 \
             --height 8 --elements 20 --adhesive 5 --seed 7"
        );
        let out = "{\"reference\":\"sem_forces\"}\n{\"elements\":10000,\"skipped\":\"x\"}\n\
                   {\"elements\":100000,\"ms\":0.5,\"block\":128,\"checksum\":{\"sum_abs_f\":2.0,\
                   \"sum_f\":[0,0,1]},\"max_rel_err\":1e-6,\"bins\":[1,2,3]}\n";
        let rows = parse_cuda_output(out);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].elements, rows[0].ms, rows[0].block),
            (100_000, 0.5, 128)
        );
        assert_eq!(rows[0].checksum.sum_abs_f, 2.0);
    }
}
