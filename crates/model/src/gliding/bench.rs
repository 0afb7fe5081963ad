//! The gliding benchmark (`petri bench gliding`): GPU time per outer step (timestamp queries
//! where the adapter has them, else the wall clock) at outer x inner resolutions nx^2 x n^2
//! (nx = ny, ntheta = ns = n), split by stage (coupling, stokes, filaments, motors evolve,
//! motors force), with the bound-motor cells each size holds.
//!
//! A size's config is the base config (the asset's) on the size's grid over the same periods:
//! the cell shrinks as the grid grows, and the filament length, the capture radius and dt
//! shrink with it. So the stencil (the filament-centre offsets whose filament can reach the
//! capture disc) has the base's width in cells, and dt keeps the base's Courant number, at
//! every size; the work per anchor grows only with the inner resolution, as in the seed.
//!
//! M_b holds nx ny stencil ntheta ns values, split over as many storage bindings as it needs
//! (`motors::MotorChunks`), so the only bound on a size is the device's memory: a size whose
//! motor buffers (M_b and its RK2 stage) the device cannot allocate takes a narrower stencil
//! (length and capture radius shrunk), and its row says so; a size that does not fit even on
//! the 1 x 1 stencil is refused with the allocation's error.

use super::motors::{MotorConfig, MotorTables};
use super::params::GlidingConfig;
use super::sim::{GlidingSim, SimOptions};
use crate::error::ModelError;
use crate::error::{invalid, Result};
use petri_engine::{GpuContext, PassTimes};
use petri_scheduler::bench::{measure, profiled_steps, Case, Runs, Sample, Timing};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// Steps of one warm-up iteration.
pub const WARM_UP_STEPS: u64 = 5;
/// The stages of an outer step: every pass label starts with one of these.
pub const STAGES: [&str; 5] = [
    "coupling",
    "stokes",
    "filaments",
    "motors evolve",
    "motors force",
];

/// An outer x inner resolution: an `outer` x `outer` grid of anchors and filament centres, and
/// `inner` angles by `inner` arc-length cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Size {
    pub outer: usize,
    pub inner: usize,
}

impl Size {
    pub const fn new(outer: usize, inner: usize) -> Size {
        Size { outer, inner }
    }

    /// "64x16": outer 64, inner 16.
    pub fn parse(s: &str) -> Result<Size> {
        let parts: Vec<&str> = s.trim().split('x').collect();
        let n = |p: &str| p.trim().parse::<usize>().ok().filter(|&n| n > 0);
        match parts.as_slice() {
            [o, i] => match (n(o), n(i)) {
                (Some(outer), Some(inner)) => Ok(Size { outer, inner }),
                _ => Err(Self::refused(s)),
            },
            _ => Err(Self::refused(s)),
        }
    }

    fn refused(s: &str) -> crate::error::ModelError {
        invalid(
            "bench size",
            format!("{s:?}"),
            "OUTERxINNER with whole numbers > 0, e.g. 256x32 (256^2 x 32^2)",
        )
    }

    /// "256^2 x 32^2".
    pub fn label(self) -> String {
        format!("{}^2 x {}^2", self.outer, self.inner)
    }
}

/// Which stage of the outer step a pass belongs to, by the start of its label; "other" for
/// none.
pub fn stage(label: &str) -> &'static str {
    STAGES
        .iter()
        .find(|s| label.starts_with(*s))
        .copied()
        .unwrap_or("other")
}

/// The bound-motor values of a config: anchors x stencil offsets x ntheta x ns (M_b's length).
pub fn motor_cells(m: &MotorConfig) -> Result<u64> {
    let offsets = MotorTables::new(m)?.offsets.len() as u64;
    Ok(m.anchors() as u64 * offsets * (m.ntheta * m.ns) as u64)
}

/// The bytes of the motors' chunked buffers, M_b and its RK2 stage (per anchor M_b's block
/// again and the coarse integral's tree slots): nearly all the motors' memory.
pub fn motor_bytes(m: &MotorConfig) -> Result<u64> {
    let t = MotorTables::new(m)?;
    Ok(4 * m.anchors() as u64 * (t.block(m) + t.stage_block(m)) as u64)
}

/// A size's config and its stencil.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeConfig {
    pub size: Size,
    pub cfg: GlidingConfig,
    /// The stencil box in cells, x by y.
    pub stencil: [usize; 2],
    /// Why a wider stencil is not in the ladder, on the first config when one is not.
    pub note: Option<String>,
}

impl SizeConfig {
    fn of(size: Size, cfg: GlidingConfig) -> Self {
        let (rx, ry) = cfg.motor_config().reach();
        Self {
            size,
            cfg,
            stencil: [2 * rx + 1, 2 * ry + 1],
            note: None,
        }
    }

    /// "3x3 (9 offsets)": the box and the offsets in it whose filament reaches the disc.
    pub fn stencil_label(&self) -> String {
        let offsets = MotorTables::new(&self.cfg.motor_config()).map_or(0, |t| t.offsets.len());
        format!(
            "{}x{} ({offsets} offsets)",
            self.stencil[0], self.stencil[1]
        )
    }
}

/// The reaches (capture radius plus half a filament) a size tries, in cells, widest first:
/// the base's (the asset's 1.8: a 3 x 3 box), 1.2 (the anchor's cell and its 4 neighbours) and
/// 0.5 (only filaments centred on the anchor's cell).
const NARROWER_REACHES: [f64; 2] = [1.2, 0.5];

/// The configs of `size`, widest stencil first: `base` on that grid over the same periods, the
/// filament length, the capture radius and dt scaled with the cell; then the narrower stencils
/// of `NARROWER_REACHES`, which the bench takes only where the device cannot allocate a wider
/// one's motor buffers. A stencil the config refuses (one that spans half the grid) is left
/// out; refused (naming the field and the limit) where none is left.
pub fn size_configs(base: &GlidingConfig, size: Size) -> Result<Vec<SizeConfig>> {
    base.validate()?;
    let mut cfg = base.clone();
    let g = &mut cfg.grid;
    // The cell's size over the base's; the smaller of x and y keeps the Courant number of dt.
    let scale =
        (base.grid.nx as f64 / size.outer as f64).min(base.grid.ny as f64 / size.outer as f64);
    (g.nx, g.ny, g.ntheta, g.ns) = (size.outer, size.outer, size.inner, size.inner);
    cfg.motors.length *= scale;
    cfg.motors.capture_radius *= scale;
    cfg.dt *= scale;
    let wide = cfg.motor_config();
    let cell = wide.dx().min(wide.dy());
    let reach = wide.capture_radius + 0.5 * wide.length;
    let mut ladder = vec![cfg.clone()];
    for r in NARROWER_REACHES.into_iter().filter(|&r| r * cell < reach) {
        let shrink = r * cell / reach;
        let mut narrow = cfg.clone();
        narrow.motors.length *= shrink;
        narrow.motors.capture_radius *= shrink;
        ladder.push(narrow);
    }
    let first_error = cfg.validate().err();
    let mut fits: Vec<SizeConfig> = ladder
        .into_iter()
        .filter(|c| c.validate().is_ok())
        .map(|c| SizeConfig::of(size, c))
        .collect();
    match (fits.first_mut(), first_error) {
        (None, Some(e)) => Err(e),
        (Some(first), Some(e)) => {
            let (rx, ry) = wide.reach();
            first.note = Some(format!(
                "the {}x{} stencil is refused ({e}): the {} stencil",
                2 * rx + 1,
                2 * ry + 1,
                first.stencil_label()
            ));
            Ok(fits)
        }
        _ => Ok(fits),
    }
}

#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Timed outer steps per repeat (after warm-up).
    pub steps: u32,
    /// Warm-up iterations of [`WARM_UP_STEPS`] steps.
    pub warmup: u32,
    /// Timed repeats; the figure is their median, the split by stage the last one's.
    pub repeats: u32,
    pub sim: SimOptions,
}

/// The case's figures besides the harness's.
#[derive(Clone, Debug, Serialize)]
pub struct SizeRow {
    /// nx = ny and ntheta = ns.
    pub outer: usize,
    pub inner: usize,
    pub nz: usize,
    /// The stencil box in cells, the offsets in it whose filament reaches the capture disc,
    /// and why it is not the base's (see [`size_configs`], [`bench_size`]).
    pub stencil: [usize; 2],
    pub offsets: usize,
    pub stencil_note: Option<String>,
    /// Values of M_b (anchors x offsets x ntheta x ns), and the chunks (storage bindings) it
    /// is split over.
    pub motor_cells: u64,
    pub motor_chunks: usize,
    /// The scaled parameters: the largest outer dt, filament length, capture radius.
    pub dt: f64,
    pub length: f64,
    pub capture_radius: f64,
    pub steps: u32,
    /// Whether the GPU times come from timestamp queries (else wall clock).
    pub timestamps: bool,
    /// Median ms per outer step over the repeats.
    pub step_ms: f64,
    /// GPU ms per outer step by stage ([`stage`]) and by pass label, of the last repeat (empty
    /// without timestamps).
    pub split_ms: BTreeMap<String, f64>,
    pub pass_ms: BTreeMap<String, f64>,
    /// The last timed step's Courant number, dt x its largest Courant rate (at most
    /// courant_safety x `filaments::CFL`).
    pub courant: f64,
    /// GPU memory the simulation allocated, where the backend reports it.
    pub gpu_bytes: Option<u64>,
}

/// Outer steps: warm-up iterations, then `steps` timed steps per repeat, profiled by pass where
/// the adapter has timestamps.
struct StepCase<'a> {
    ctx: &'a GpuContext,
    sim: GlidingSim,
    steps: u32,
    max_steps_per_batch: u32,
    times: PassTimes,
}

impl Case for StepCase<'_> {
    type Error = crate::error::ModelError;

    fn warm_up(&mut self) -> Result<()> {
        self.sim.advance(self.ctx, WARM_UP_STEPS);
        Ok(self.ctx.wait()?)
    }

    fn timed(&mut self) -> Result<Sample> {
        let (ctx, steps) = (self.ctx, self.steps);
        if !ctx.has_timestamps() {
            let wall = Instant::now();
            self.sim.advance(ctx, steps as u64);
            ctx.wait()?;
            return Ok(Sample::wall_since(wall, steps as f64));
        }
        let passes = self.sim.passes_per_step() as u32;
        let sim = &mut self.sim;
        self.times = profiled_steps(ctx, steps, passes, self.max_steps_per_batch, |n, p| {
            sim.advance_profiled(ctx, n, p);
            Ok::<(), crate::error::ModelError>(())
        })?;
        Ok(Sample::gpu(self.times.busy_ns() / steps as f64))
    }
}

/// Bytes the device's allocator holds, where the backend reports it.
fn allocated_bytes(ctx: &GpuContext) -> Option<u64> {
    ctx.device
        .generate_allocator_report()
        .map(|r| r.total_allocated_bytes)
}

/// The simulation of the widest of `size`'s configs ([`size_configs`] of `base`) whose motor
/// buffers the device can allocate, and why it is not the widest where it is not. Refused with
/// the last allocation's error where none fits.
fn widest_that_fits(
    ctx: &GpuContext,
    base: &GlidingConfig,
    size: Size,
    sim: SimOptions,
) -> Result<(SizeConfig, GlidingSim, Option<String>)> {
    let ladder = size_configs(base, size)?;
    let widest = ladder[0].stencil_label();
    let mut note = ladder[0].note.clone();
    let mut refused = Vec::new();
    for sc in ladder {
        match GlidingSim::new(ctx, &sc.cfg, sim) {
            Ok(s) => {
                if let Some(e) = refused.first() {
                    note = Some(format!(
                        "the {widest} stencil does not fit ({e}): the {} stencil (length {}, capture_radius {})",
                        sc.stencil_label(),
                        crate::error::short(sc.cfg.motors.length),
                        crate::error::short(sc.cfg.motors.capture_radius)
                    ));
                }
                return Ok((sc, s, note));
            }
            Err(e @ ModelError::OutOfMemory { .. }) => refused.push(e),
            Err(e) => return Err(e),
        }
    }
    Err(refused
        .pop()
        .expect("size_configs gives at least one config"))
}

/// Times the outer step at `size`: the widest stencil whose motors fit the device.
pub fn bench_size(
    ctx: &GpuContext,
    base: &GlidingConfig,
    size: Size,
    opts: &BenchOptions,
) -> Result<(Timing, SizeRow)> {
    let before = allocated_bytes(ctx);
    let (sc, sim, note) = widest_that_fits(ctx, base, size, opts.sim)?;
    let cfg = &sc.cfg;
    let motor_chunks = sim.motor_chunks().len();
    let gpu_bytes = match (before, allocated_bytes(ctx)) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let mut case = StepCase {
        ctx,
        sim,
        steps: opts.steps,
        max_steps_per_batch: opts.sim.max_steps_per_batch,
        times: PassTimes::default(),
    };
    let runs = Runs {
        warmup: opts.warmup,
        repeats: opts.repeats,
    };
    let timing = measure(&mut case, runs)?;
    // A step that could not be taken (a non-finite rate, a dt under the floor) fails here.
    let clock = case.sim.checked_clock(ctx)?;
    let steps = opts.steps as f64;
    let pass_ms: BTreeMap<String, f64> = case.times.ms_per_step(steps);
    let mut split_ms = BTreeMap::new();
    for (label, ms) in &pass_ms {
        *split_ms.entry(stage(label).to_string()).or_insert(0.0) += ms;
    }
    let m = cfg.motor_config();
    let tables = MotorTables::new(&m)?;
    let row = SizeRow {
        outer: size.outer,
        inner: size.inner,
        nz: cfg.grid.nz,
        stencil: sc.stencil,
        offsets: tables.offsets.len(),
        stencil_note: note,
        motor_cells: (m.anchors() * tables.block(&m)) as u64,
        motor_chunks,
        dt: cfg.dt,
        length: cfg.motors.length,
        capture_radius: cfg.motors.capture_radius,
        steps: opts.steps,
        timestamps: ctx.has_timestamps(),
        step_ms: timing.stats().median * 1e-6,
        split_ms,
        pass_ms,
        courant: clock.courant(),
        gpu_bytes,
    };
    Ok((timing, row))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asset() -> GlidingConfig {
        let text = include_str!("../../../../assets/gliding.json");
        GlidingConfig::from_json(text, "assets/gliding.json").unwrap()
    }

    #[test]
    fn sizes_parse_and_bad_ones_are_refused() {
        assert_eq!(Size::parse("256x32").unwrap(), Size::new(256, 32));
        assert_eq!(Size::parse(" 64 x 16 ").unwrap(), Size::new(64, 16));
        assert_eq!(Size::new(256, 32).label(), "256^2 x 32^2");
        for bad in ["256", "0x16", "64x", "64x16x2", "ax16", "-4x8"] {
            let e = Size::parse(bad).unwrap_err().to_string();
            assert!(e.contains("bench size") && e.contains("OUTERxINNER"), "{e}");
        }
    }

    #[test]
    fn passes_are_grouped_by_stage() {
        for (label, want) in [
            ("coupling moments", "coupling"),
            ("coupling velocities", "coupling"),
            ("stokes forward fft", "stokes"),
            ("filaments diffuse", "filaments"),
            ("motors evolve", "motors evolve"),
            ("motors force", "motors force"),
            ("something new", "other"),
        ] {
            assert_eq!(stage(label), want, "{label}");
        }
    }

    /// The 3x3 stencil and the base's Courant number at every size, the narrower stencils
    /// after it (the bench's fallbacks where the device's memory is short); a stencil that spans
    /// half the grid left out, said so.
    #[test]
    fn sizes_keep_the_stencil_in_cells_and_scale_dt() {
        let base = asset();
        let base_dx = base.grid.lx / base.grid.nx as f64;
        for size in [
            Size::new(32, 8),
            Size::new(64, 16),
            Size::new(128, 32),
            Size::new(256, 32),
            Size::new(512, 32),
        ] {
            let ladder = size_configs(&base, size).unwrap();
            let sc = &ladder[0];
            let dx = sc.cfg.grid.lx / size.outer as f64;
            assert_eq!(sc.stencil, [3, 3], "{size:?}");
            assert_eq!(sc.note, None);
            assert!((sc.cfg.dt / dx - base.dt / base_dx).abs() < 1e-12);
            assert!((sc.cfg.motors.capture_radius / dx - 0.8).abs() < 1e-12);
            assert_eq!(sc.cfg.grid.lx, base.grid.lx);
            let offsets = |sc: &SizeConfig| {
                let m = sc.cfg.motor_config();
                MotorTables::new(&m).unwrap().offsets.len()
            };
            let got: Vec<usize> = ladder.iter().map(offsets).collect();
            assert_eq!(got, [9, 5, 1], "{size:?}");
            assert!(ladder.iter().all(|n| n.cfg.dt == sc.cfg.dt));
        }
        // 256^2 x 32^2 on the asset's 9 offsets: 2.4 GB of M_b, 5.1 GB with its stage (over
        // one 2 GiB binding: split).
        let m = size_configs(&base, Size::new(256, 32)).unwrap()[0]
            .cfg
            .motor_config();
        assert_eq!(motor_cells(&m).unwrap(), 256 * 256 * 9 * 32 * 32);
        let bytes = motor_bytes(&m).unwrap();
        assert!(bytes > 5_000_000_000 && bytes < 5_200_000_000, "{bytes}");
        // A 2 x 2 grid: the 3x3 stencil spans more than half of it.
        let ladder = size_configs(&base, Size::new(2, 4)).unwrap();
        assert_eq!(ladder[0].stencil, [1, 1]);
        let note = ladder[0].note.as_deref().unwrap();
        assert!(
            note.contains("3x3 stencil is refused") && note.contains("capture_radius"),
            "{note}"
        );
    }
}
