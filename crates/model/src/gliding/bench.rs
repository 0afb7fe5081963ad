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
//! M_b holds nx ny stencil ntheta ns values, at most 2^30 (`motors::MAX_BOUND_CELLS`).
//! A size whose stencil does not fit takes the 1 x 1 stencil (length and capture radius shrunk
//! to reach under half a cell) and its row says so; a size that does not fit even then is
//! refused with the config's error.

use super::motors::{MotorConfig, MotorTables};
use super::params::GlidingConfig;
use super::sim::{GlidingSim, SimOptions};
use crate::error::{invalid, Result};
use petri_engine::{GpuContext, PassTimes};
use petri_scheduler::bench::{measure, profiled_steps, Case, Runs, Sample, Timing};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// Steps of one warm-up iteration.
pub const WARM_UP_STEPS: u64 = 5;
/// The most bound-motor values M_b may hold (`MotorConfig::check`).
pub const MAX_MOTOR_CELLS: u64 = super::motors::MAX_BOUND_CELLS as u64;
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

/// The bytes of the largest motor buffer (the stage: per anchor M_b's block and the coarse
/// integral's tree slots), which must fit one storage binding.
pub fn largest_motor_buffer(m: &MotorConfig) -> Result<u64> {
    let t = MotorTables::new(m)?;
    let slots = 2 * t.lines(m).next_power_of_two();
    Ok(4 * m.anchors() as u64 * (t.block(m) + slots) as u64)
}

/// A size's config and its stencil.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeConfig {
    pub size: Size,
    pub cfg: GlidingConfig,
    /// The stencil box in cells, x by y.
    pub stencil: [usize; 2],
    /// Why the stencil is not the base's, when it is not.
    pub note: Option<String>,
}

/// The reaches (capture radius plus half a filament) a size tries, in cells, widest first:
/// the base's (the asset's 1.8: a 3 x 3 box), 1.2 (the anchor's cell and its 4 neighbours) and
/// 0.5 (only filaments centred on the anchor's cell).
const NARROWER_REACHES: [f64; 2] = [1.2, 0.5];

/// The config of `size`: `base` on that grid over the same periods, the filament length, the
/// capture radius and dt scaled with the cell; a narrower stencil (`NARROWER_REACHES`) where
/// the base's would put more than [`MAX_MOTOR_CELLS`] values in M_b or need a motor buffer of
/// more than `max_binding` bytes (the device's largest storage binding). Refused (naming the
/// field and the limit) where the config is then still invalid.
pub fn size_config(base: &GlidingConfig, size: Size, max_binding: u64) -> Result<SizeConfig> {
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
    let fits = |m: &MotorConfig| -> Result<bool> {
        m.check()?;
        Ok(motor_cells(m)? <= MAX_MOTOR_CELLS && largest_motor_buffer(m)? <= max_binding)
    };
    let wide = cfg.motor_config();
    let (rx, ry) = wide.reach();
    let mut note = None;
    // The box check of `MotorConfig::check` may refuse the widest: then try narrower ones.
    if !fits(&wide).unwrap_or(false) {
        let cell = wide.dx().min(wide.dy());
        let reach = wide.capture_radius + 0.5 * wide.length;
        for r in NARROWER_REACHES {
            let shrink = r * cell / reach;
            let mut m = cfg.motors.clone();
            m.length *= shrink;
            m.capture_radius *= shrink;
            let mut narrow = cfg.clone();
            narrow.motors = m;
            let last = r == NARROWER_REACHES[NARROWER_REACHES.len() - 1];
            if last || fits(&narrow.motor_config()).unwrap_or(false) {
                let (nx, ny) = narrow.motor_config().reach();
                note = Some(format!(
                    "the {}x{} stencil needs {} motor cells and {}, over the 2^30 values M_b \
                     may hold or the device's {} byte binding: the {}x{} stencil (length {}, \
                     capture_radius {})",
                    2 * rx + 1,
                    2 * ry + 1,
                    wide.anchors() as u64
                        * ((2 * rx + 1) * (2 * ry + 1) * wide.ntheta * wide.ns) as u64,
                    largest_motor_buffer(&wide)
                        .map_or("more than 4 GiB of motor buffers".into(), |b| {
                            format!("a {b} byte motor buffer")
                        }),
                    max_binding,
                    2 * nx + 1,
                    2 * ny + 1,
                    crate::error::short(narrow.motors.length),
                    crate::error::short(narrow.motors.capture_radius)
                ));
                cfg = narrow;
                break;
            }
        }
    }
    cfg.validate()?;
    let (rx, ry) = cfg.motor_config().reach();
    Ok(SizeConfig {
        size,
        cfg,
        stencil: [2 * rx + 1, 2 * ry + 1],
        note,
    })
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
    /// and why it is not the base's (see [`size_config`]).
    pub stencil: [usize; 2],
    pub offsets: usize,
    pub stencil_note: Option<String>,
    /// Values of M_b (anchors x offsets x ntheta x ns).
    pub motor_cells: u64,
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

/// Times the outer step at `size` ([`size_config`] of `base`).
pub fn bench_size(
    ctx: &GpuContext,
    base: &GlidingConfig,
    size: Size,
    opts: &BenchOptions,
) -> Result<(Timing, SizeRow)> {
    let limits = ctx.limits();
    let max_binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let sc = size_config(base, size, max_binding)?;
    let cfg = &sc.cfg;
    let before = allocated_bytes(ctx);
    let sim = GlidingSim::new(ctx, cfg, opts.sim)?;
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
    let pass_ms: BTreeMap<String, f64> = case
        .times
        .by_label
        .iter()
        .map(|(k, (_, ns))| (k.clone(), ns * 1e-6 / steps))
        .collect();
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
        stencil_note: sc.note,
        motor_cells: (m.anchors() * tables.block(&m)) as u64,
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

    /// The 3x3 stencil and the base's Courant number at every size that fits; a narrower
    /// stencil, said so, where 3x3 passes 2^30 values or the binding; refused where even 1x1
    /// passes 2^30.
    #[test]
    fn sizes_keep_the_stencil_in_cells_and_scale_dt() {
        let base = asset();
        let base_dx = base.grid.lx / base.grid.nx as f64;
        let unlimited = u64::MAX;
        for size in [
            Size::new(32, 8),
            Size::new(64, 16),
            Size::new(128, 32),
            Size::new(256, 32),
        ] {
            let sc = size_config(&base, size, unlimited).unwrap();
            let dx = sc.cfg.grid.lx / size.outer as f64;
            assert_eq!(sc.stencil, [3, 3], "{size:?}");
            assert_eq!(sc.note, None);
            assert!((sc.cfg.dt / dx - base.dt / base_dx).abs() < 1e-12);
            assert!((sc.cfg.motors.capture_radius / dx - 0.8).abs() < 1e-12);
            assert_eq!(sc.cfg.grid.lx, base.grid.lx);
            let m = sc.cfg.motor_config();
            assert_eq!(MotorTables::new(&m).unwrap().offsets.len(), 9);
        }
        // A 2 GiB binding (an H100's under wgpu): 256^2 x 32^2 takes the 5-offset stencil.
        let sc = size_config(&base, Size::new(256, 32), (1 << 31) - 4).unwrap();
        let m = sc.cfg.motor_config();
        assert_eq!(MotorTables::new(&m).unwrap().offsets.len(), 5);
        assert!(largest_motor_buffer(&m).unwrap() < 1 << 31);
        let note = sc.note.unwrap();
        assert!(
            note.contains("3x3 stencil") && note.contains("binding"),
            "{note}"
        );
        let sc = size_config(&base, Size::new(512, 32), unlimited).unwrap();
        assert_eq!(sc.stencil, [1, 1]);
        let note = sc.note.unwrap();
        assert!(note.contains("2^30"), "{note}");
        assert!(motor_cells(&sc.cfg.motor_config()).unwrap() <= MAX_MOTOR_CELLS);
        let e = size_config(&base, Size::new(2048, 32), unlimited)
            .unwrap_err()
            .to_string();
        assert!(e.contains("motors nx * ny * stencil * ntheta * ns"), "{e}");
        assert!(e.contains("2^30"), "{e}");
    }
}
