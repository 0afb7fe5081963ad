//! Bound motors on the GPU (`shaders/gliding/motors.wgsl`): one outer step of seed eqs. 4-6,
//!
//!   dM_b/dt + dM_b/ds = -k_off M_b + k_on M_f 1_D,   M_b,coarse = sum M_b Psi dV,
//!   M_f = M - M_b,coarse,
//!
//! for the density M_b(r0, x, theta, s) of motors anchored at r0 and bound at arc length s to a
//! filament of centre x and orientation theta, and the motor force F(x) of seed eq. 10. r0 and x
//! run over the filaments' periodic nx x ny grid; x only over the offsets d = x - r0 whose
//! filament can reach the capture disc (`MotorTables`), theta over the filaments' ntheta
//! angles, s over ns cells of [-L/2, L/2] (minus end to plus end). 1_D(d, theta, s) is 1 where
//! the motor head x + (l/L) s p(theta) lies within the capture radius rc of r0 (seed section 2:
//! configurations outside are not tracked: M_b is 0 there and a head walking out detaches).
//! CPU reference: `motors_cpu.rs`; formulation and measured errors: docs/models/gliding.md.
//!
//! Layout (as the seed's): M_b is (r0, d, theta, s), s innermost; r0 = j nx + i. The anchors are
//! split into contiguous chunks (`MotorChunks`) whose M_b and RK2 stage each fit one storage
//! binding; each chunk has buffers of its own (so no binding offset to align) and the passes
//! run once per chunk, in anchor order. Most sizes are one chunk: one pair of buffers and one
//! dispatch per pass, as without the split.
//!
//! Passes, in a `StepPlan`: `evolve`, one workgroup per r0 (the seed's local dt*): the Psi
//! weight W(r0) = sum 1_D Psi dV, n = ceil(dt (2 speed/ds + k_off + k_on W)) sub-steps of dt/n, each
//! SSP-RK2 (Heun) on the Superbee-limited walk along s plus binding and unbinding, M_f from the
//! coarse integral at every stage, then the rescaling when bound > total. Adjacent threads update
//! adjacent cells of a line (coalesced), each from its line's neighbours (the limiter and the RK2
//! stages only couple cells of one line); the coarse integrals are per-line sums in s order (one
//! thread per line of a workgroup tile), then a pairwise tree over a power of two of lines
//! whose additions do not depend on which thread does them, so the bits do not depend on the
//! workgroup size. `force`, one thread per x: a gather over the anchors r0 = x - e of the motor
//! heads that land on x (a table built on the host), a sum per head offset e added to the total
//! in table order; with M_b split, the chunks before the last leave their offsets' sums in
//! FORCE_PARTS and the last adds them in that order: the same additions in the same order
//! however the anchors are split. No atomics.

use super::clock::{self, Clock, CLOCK};
use super::filaments::MAX_NTHETA;
use super::ranges::{check_range, PERIODS, RATES};
use crate::error::{invalid, short, ModelError, Result};
use crate::shaders::gliding::motors;
use petri_engine::{buffers, GpuContext};
use petri_scheduler::{dispatch_args, Binding, PassDesc, StepPlan};
use std::f64::consts::TAU;
use std::ops::Range;

/// The most sub-steps one outer step may take. The sub-step bound is
/// dt* (2 speed/ds + k_off + k_on W) <= 1. The Superbee-limited upwind walk is
/// TVD under forward Euler (so under SSP-RK2) for a Courant number dt*/ds <= 1/2, and forward
/// Euler keeps M_b >= 0 and M_f >= 0 when dt* (k_off + k_on W) <= 1 on top of it.
pub const MAX_SUBSTEPS: f64 = 65536.0;

/// The most sub-steps a config may ask of one outer step at its largest dt and its initial
/// density (`GlidingConfig::validate`): a bound on the work per step that a user sees at once,
/// where MAX_SUBSTEPS is the GPU's guard against a Psi weight that grows in a run.
pub const SUBSTEP_BUDGET: f64 = 1024.0;

/// The most values of M_b per anchor (stencil offsets x ntheta x ns): the tables are built on
/// the host from them before the device is asked.
pub const MAX_BLOCK: usize = 1 << 24;

/// Grid and rates of the bound motors.
#[derive(Clone, Debug, PartialEq)]
pub struct MotorConfig {
    /// The anchor and filament grid (the filaments' nx, ny, ntheta) and its periods.
    pub nx: usize,
    pub ny: usize,
    pub ntheta: usize,
    pub lx: f64,
    pub ly: f64,
    /// Cells in s over [-arc/2, arc/2] (arc = the seed's L).
    pub ns: usize,
    pub arc: f64,
    /// The walking speed along s (1 in the seed's units; 0 switches walking off).
    pub speed: f64,
    /// Filament length l (the head sits at x + (l/L) s p) and capture radius r_c.
    pub length: f64,
    pub capture_radius: f64,
    pub k_on: f64,
    pub k_off: f64,
    /// The prefactor F of seed eq. 10.
    pub force: f64,
}

impl MotorConfig {
    /// Fails naming the config's field, its value and what is allowed. Bounds the stencil
    /// before anything is built from it: the tables take about 28 bytes per value of an
    /// anchor's block on the host (`MAX_BLOCK`).
    pub fn check(&self) -> Result<()> {
        for (field, n) in [("grid.nx", self.nx), ("grid.ny", self.ny)] {
            if n == 0 || n > 1 << 16 {
                return Err(invalid(field, n, "1..=65536"));
            }
        }
        if self.ntheta == 0 || self.ntheta > MAX_NTHETA {
            return Err(invalid(
                "grid.ntheta",
                self.ntheta,
                format!("1..={MAX_NTHETA}"),
            ));
        }
        // A line of ns cells and its outflow slot fill a row of the evolve pass's tile of
        // 2048 values (motors.wgsl TILE).
        if self.ns < 2 || self.ns > 2047 {
            return Err(invalid(
                "grid.ns",
                self.ns,
                "2..=2047 (cells in arc length)",
            ));
        }
        for (field, l) in [("grid.lx", self.lx), ("grid.ly", self.ly)] {
            check_range(field, l, PERIODS, "a period")?;
        }
        for (field, l) in [
            ("motors.arc", self.arc),
            ("motors.capture_radius", self.capture_radius),
        ] {
            check_range(field, l, PERIODS, "a length")?;
        }
        check_range("motors.length", self.length, [0.0, PERIODS[1]], "a length")?;
        for (field, v) in [
            ("motors.speed", self.speed),
            ("motors.k_on", self.k_on),
            ("motors.k_off", self.k_off),
        ] {
            check_range(field, v, RATES, "a rate")?;
        }
        check_range("motors.force", self.force, [-RATES[1], RATES[1]], "a force")?;
        // In f64 before any cast: a reach of 1e300 cells is not a usize.
        let r = self.capture_radius + 0.5 * self.length;
        let (sx, sy) = (r / self.dx(), r / self.dy());
        if 2.0 * sx.floor() >= self.nx as f64 || 2.0 * sy.floor() >= self.ny as f64 {
            return Err(invalid(
                "motors.capture_radius",
                self.capture_radius,
                format!(
                    "motors.capture_radius + motors.length/2 = {} under half a period: it spans {} x {} cells \
                     of the grid.nx x grid.ny = {} x {} grid over grid.lx x grid.ly = {} x {}",
                    short(r),
                    short(2.0 * sx.floor() + 1.0),
                    short(2.0 * sy.floor() + 1.0),
                    self.nx,
                    self.ny,
                    short(self.lx),
                    short(self.ly)
                ),
            ));
        }
        let (rx, ry) = self.reach();
        let block = self.box_block();
        if block > MAX_BLOCK {
            return Err(invalid(
                "grid.ntheta x grid.ns x the motor stencil",
                format!(
                    "{} x {} x {} x {} cells (motors.capture_radius + motors.length/2 = {}) = {block} values of M_b per anchor",
                    self.ntheta,
                    self.ns,
                    2 * rx + 1,
                    2 * ry + 1,
                    short(r)
                ),
                format!("at most {MAX_BLOCK}: fewer angles or arc cells, or a smaller capture radius"),
            ));
        }
        if !self.disc_holds_a_cell() {
            return Err(invalid(
                "motors.capture_radius",
                self.capture_radius,
                "a disc that holds at least one (x, theta, s) cell centre",
            ));
        }
        Ok(())
    }

    /// p(theta) = (cos theta, sin theta) per angle.
    pub fn directions(&self) -> Vec<[f64; 2]> {
        (0..self.ntheta)
            .map(|k| {
                let t = k as f64 * self.dtheta();
                [t.cos(), t.sin()]
            })
            .collect()
    }

    /// The head x + (l/L) s p of a motor bound at arc cell k to a filament of direction p
    /// centred `d` cells from its anchor, relative to the anchor.
    pub fn head(&self, d: [i32; 2], p: [f64; 2], k: usize) -> [f64; 2] {
        let reach = self.length / self.arc * self.s(k);
        [
            d[0] as f64 * self.dx() + reach * p[0],
            d[1] as f64 * self.dy() + reach * p[1],
        ]
    }

    /// Whether a head lies in the capture disc.
    pub fn in_disc(&self, h: [f64; 2]) -> bool {
        h[0] * h[0] + h[1] * h[1] <= self.capture_radius * self.capture_radius
    }

    /// Whether some (offset, theta, s) cell puts its head in the disc (the tables need one);
    /// stops at the first.
    fn disc_holds_a_cell(&self) -> bool {
        let (rx, ry) = self.reach();
        let (rx, ry) = (rx as i32, ry as i32);
        let p = self.directions();
        (-ry..=ry).any(|j| {
            (-rx..=rx).any(|i| {
                p.iter()
                    .any(|&pt| (0..self.ns).any(|k| self.in_disc(self.head([i, j], pt, k))))
            })
        })
    }

    /// The values of M_b per anchor at most (the stencil's whole box of offsets): ntheta x ns
    /// x the box; `reach` must be checked.
    pub fn box_block(&self) -> usize {
        let (rx, ry) = self.reach();
        (2 * rx + 1) * (2 * ry + 1) * self.ntheta * self.ns
    }

    pub fn anchors(&self) -> usize {
        self.nx * self.ny
    }

    pub fn dx(&self) -> f64 {
        self.lx / self.nx as f64
    }

    pub fn dy(&self) -> f64 {
        self.ly / self.ny as f64
    }

    pub fn dtheta(&self) -> f64 {
        TAU / self.ntheta as f64
    }

    pub fn ds(&self) -> f64 {
        self.arc / self.ns as f64
    }

    /// Cell k of s at its centre: -L/2 + (k + 1/2) ds.
    pub fn s(&self, k: usize) -> f64 {
        -0.5 * self.arc + (k as f64 + 0.5) * self.ds()
    }

    /// dx dy dtheta ds: the volume of one (x, theta, s) cell.
    pub fn volume(&self) -> f64 {
        self.dx() * self.dy() * self.dtheta() * self.ds()
    }

    /// Half-widths in cells of the box of filament centres that can reach the capture disc.
    pub fn reach(&self) -> (usize, usize) {
        let r = self.capture_radius + 0.5 * self.length;
        (
            (r / self.dx()).floor() as usize,
            (r / self.dy()).floor() as usize,
        )
    }

    /// The number of sub-steps of one outer step of dt at an anchor of Psi weight w.
    pub fn substeps(&self, dt: f64, w: f64) -> f64 {
        (dt * (2.0 * self.speed / self.ds() + self.k_off + self.k_on * w))
            .ceil()
            .max(1.0)
    }

    /// Fails unless dt is finite, > 0 and needs at most MAX_SUBSTEPS sub-steps at Psi weight w.
    pub fn check_dt(&self, dt: f64, w: f64) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0 && self.substeps(dt, w) <= MAX_SUBSTEPS) {
            return Err(invalid(
                "dt",
                dt,
                format!(
                    "a finite step > 0 of at most {MAX_SUBSTEPS} sub-steps dt* = 1 / (2 speed/ds + k_off + k_on W), here W = {}",
                    crate::error::short(w)
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn check_len(&self, field: &str, len: usize, want: usize, what: &str) -> Result<()> {
        if len != want {
            return Err(invalid(
                field,
                format!("{len} values"),
                format!("{what} = {want}"),
            ));
        }
        Ok(())
    }
}

/// What the host precomputes in f64 for both the GPU and the CPU reference (so both see the
/// same capture disc and the same head cells).
#[derive(Clone, Debug, PartialEq)]
pub struct MotorTables {
    /// Filament-centre offsets d = x - r0 in cells, those with at least one (theta, s) in the
    /// disc, row by row.
    pub offsets: Vec<[i32; 2]>,
    /// 1_D per (d, theta, s), s innermost.
    pub mask: Vec<f64>,
    /// cos theta, sin theta per theta.
    pub p: Vec<[f64; 2]>,
    /// The gather of seed eq. 10: head offsets e = head cell - r0; for each, the (d, theta, s)
    /// items (indices into a per-anchor block) whose head lands in cell r0 + e (nearest cell):
    /// items of e are `items[start[e]..start[e + 1]]`. Heads are in (y, x) order; those of one
    /// row are `heads[rows[g]..rows[g + 1]]`.
    pub heads: Vec<[i32; 2]>,
    pub start: Vec<u32>,
    pub items: Vec<u32>,
    pub rows: Vec<u32>,
}

impl MotorTables {
    pub fn new(c: &MotorConfig) -> Result<Self> {
        c.check()?;
        let (rx, ry) = c.reach();
        let (dx, dy) = (c.dx(), c.dy());
        let p = c.directions();
        let mut offsets = Vec::new();
        let mut mask = Vec::new();
        // (head offset, item) for every cell in the disc.
        let mut landed: Vec<([i32; 2], u32)> = Vec::new();
        let per_line = c.ntheta * c.ns;
        for j in -(ry as i32)..=ry as i32 {
            for i in -(rx as i32)..=rx as i32 {
                let mut line = Vec::with_capacity(per_line);
                let mut heads = Vec::new();
                for (t, pt) in p.iter().enumerate() {
                    for k in 0..c.ns {
                        let [hx, hy] = c.head([i, j], *pt, k);
                        let inside = c.in_disc([hx, hy]);
                        line.push(if inside { 1.0 } else { 0.0 });
                        if inside {
                            let e = [(hx / dx).round() as i32, (hy / dy).round() as i32];
                            heads.push((e, (t * c.ns + k) as u32));
                        }
                    }
                }
                if !heads.is_empty() {
                    let base = (offsets.len() * per_line) as u32;
                    landed.extend(heads.into_iter().map(|(e, it)| (e, base + it)));
                    offsets.push([i, j]);
                    mask.extend(line);
                }
            }
        }
        // Stable sort: items of one head offset keep their (d, theta, s) order.
        landed.sort_by_key(|(e, _)| (e[1], e[0]));
        let mut heads = Vec::new();
        let mut start = Vec::new();
        let mut items = Vec::with_capacity(landed.len());
        let mut rows = Vec::new();
        for (e, it) in landed {
            if heads.last() != Some(&e) {
                if heads.last().map(|h: &[i32; 2]| h[1]) != Some(e[1]) {
                    rows.push(heads.len() as u32);
                }
                heads.push(e);
                start.push(items.len() as u32);
            }
            items.push(it);
        }
        start.push(items.len() as u32);
        rows.push(heads.len() as u32);
        let t = Self {
            offsets,
            mask,
            p,
            heads,
            start,
            items,
            rows,
        };
        Ok(t)
    }

    /// (d, theta) lines per anchor.
    pub fn lines(&self, c: &MotorConfig) -> usize {
        self.offsets.len() * c.ntheta
    }

    /// Values of M_b per anchor.
    pub fn block(&self, c: &MotorConfig) -> usize {
        self.lines(c) * c.ns
    }

    /// Values of the RK2 stage buffer per anchor: M_b's block, then 2 lines_pow2 slots of the
    /// coarse integral's tree.
    pub fn stage_block(&self, c: &MotorConfig) -> usize {
        self.block(c) + 2 * self.lines(c).next_power_of_two()
    }
}

/// The split of the anchors into contiguous chunks, in order, whose M_b and stage buffers each
/// fit one storage binding. Chunk k's buffers are `bound_buffer(k)` and `stage_buffer(k)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MotorChunks {
    pub ranges: Vec<Range<usize>>,
}

impl MotorChunks {
    /// As few chunks as `max_binding` bytes per buffer allow, all but the last of the same
    /// number of anchors. Refused, naming the limit, when one anchor's stage is larger.
    pub fn new(c: &MotorConfig, t: &MotorTables, max_binding: u64) -> Result<Self> {
        let per_anchor = 4 * t.stage_block(c) as u64;
        if per_anchor > max_binding {
            return Err(invalid(
                "grid.ntheta x grid.ns x the motor stencil",
                format!("{per_anchor} bytes of M_b and RK2 stage per anchor"),
                format!("at most the largest storage binding, {max_binding} bytes (the device's max_storage_buffer_binding_size and max_buffer_size, or the limit asked)"),
            ));
        }
        let per_chunk = (max_binding / per_anchor).min(c.anchors() as u64) as usize;
        let ranges = (0..c.anchors())
            .step_by(per_chunk)
            .map(|a| a..(a + per_chunk).min(c.anchors()))
            .collect();
        Ok(Self { ranges })
    }

    /// The chunks on this device: its largest storage binding, or `max_binding` bytes where
    /// that is smaller (a test's knob to force a split). Refused before anything is allocated
    /// where the whole RK2 stage (M_b's block and the tree slots per anchor) is over the
    /// device's `max_buffer_size`: wgpu does not say how much memory a device has, and the
    /// largest allocation it allows is the bound it states (wgpu caps it at 2 GiB on Linux
    /// for all but NVIDIA; a software adapter would otherwise take host memory until the
    /// system runs out).
    pub fn for_device(
        ctx: &GpuContext,
        c: &MotorConfig,
        t: &MotorTables,
        max_binding: Option<u64>,
    ) -> Result<Self> {
        let limits = ctx.limits();
        let stage = 4 * c.anchors() as u64 * t.stage_block(c) as u64;
        if stage > limits.max_buffer_size {
            return Err(ModelError::OutOfMemory {
                what: format!(
                    "the bound motors' RK2 stage (M_b: {} bytes)",
                    4 * c.anchors() as u64 * t.block(c) as u64
                ),
                bytes: stage,
                limit: format!(
                    "its max_buffer_size is {} bytes (the largest allocation it allows, the bound \
                     on the motors' memory)",
                    limits.max_buffer_size
                ),
            });
        }
        let device = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        Self::new(c, t, device.min(max_binding.unwrap_or(u64::MAX)))
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// Plan buffer names of chunk k: its M_b, its RK2 stage, its `MotorChunkUniforms`.
pub fn bound_buffer(k: usize) -> String {
    format!("{BOUND}_{k}")
}

pub fn stage_buffer(k: usize) -> String {
    format!("{STAGE}_{k}")
}

pub fn chunk_buffer(k: usize) -> String {
    format!("{CHUNK}_{k}")
}

/// Writes M_b (r0, d, theta, s), all anchors, into the chunks' buffers.
pub fn write_bound(
    ctx: &GpuContext,
    plan: &StepPlan,
    chunks: &MotorChunks,
    block: usize,
    bound: &[f32],
) {
    for (k, r) in chunks.ranges.iter().enumerate() {
        let part = &bound[r.start * block..r.end * block];
        ctx.queue
            .write_buffer(plan.buffer(&bound_buffer(k)), 0, bytemuck::cast_slice(part));
    }
}

/// M_b (r0, d, theta, s), all anchors, read back chunk by chunk (waits for the GPU).
pub fn read_bound(ctx: &GpuContext, plan: &StepPlan, chunks: &MotorChunks) -> Result<Vec<f32>> {
    let mut bound = Vec::new();
    for k in 0..chunks.len() {
        bound.extend(buffers::read_vec::<f32>(
            ctx,
            plan.buffer(&bound_buffer(k)),
        )?);
    }
    Ok(bound)
}

/// Psi's index at filament centre r0 + d (periodic), angle t.
pub fn psi_index(c: &MotorConfig, r0: usize, d: [i32; 2], t: usize) -> usize {
    let (nx, ny) = (c.nx as i64, c.ny as i64);
    let x = (((r0 % c.nx) as i64 + d[0] as i64) % nx + nx) % nx;
    let y = (((r0 / c.nx) as i64 + d[1] as i64) % ny + ny) % ny;
    (t * c.ny + y as usize) * c.nx + x as usize
}

/// M_b: the right length, finite, >= 0, and 0 outside the capture disc.
pub fn check_bound(c: &MotorConfig, t: &MotorTables, bound: &[f64]) -> Result<()> {
    let size = t.block(c);
    c.check_len(
        "bound",
        bound.len(),
        c.anchors() * size,
        "ny x nx anchors x stencil x ntheta x ns",
    )?;
    check_values("bound", bound)?;
    for (i, v) in bound.iter().enumerate() {
        if *v != 0.0 && t.mask[i % size] == 0.0 {
            return Err(invalid(
                "bound",
                format!("{v} at index {i}"),
                "0 outside the capture disc (|x + (l/L) s p - r0| > capture_radius)",
            ));
        }
    }
    Ok(())
}

pub(crate) fn check_values(field: &str, v: &[f64]) -> Result<()> {
    if let Some(x) = v.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(invalid(field, x, "finite values >= 0"));
    }
    Ok(())
}

/// Fails where an anchor of `psi` needs more than MAX_SUBSTEPS sub-steps for a step of `dt`:
/// the GPU caps them there, a step the model does not take, so the run stops at `step` saying
/// so (validation bounds the start; filaments that crowd into the capture discs raise W).
pub fn check_substeps(
    c: &MotorConfig,
    t: &MotorTables,
    psi: &[f32],
    dt: f64,
    step: u64,
) -> Result<()> {
    let w = max_weight(c, t, |i| f64::from(psi[i]));
    let n = c.substeps(dt, w);
    if n > MAX_SUBSTEPS {
        return Err(ModelError::Stalled {
            message: format!(
                "at step {step} the bound motors need {} sub-steps for a step of dt = {} (the \
                 Psi weight W reaches {} at an anchor: filaments crowd the capture discs), more \
                 than the {MAX_SUBSTEPS} the GPU takes; a smaller dt, motors.k_on or \
                 motors.speed",
                short(n),
                short(dt),
                short(w)
            ),
        });
    }
    Ok(())
}

/// The largest Psi weight W(r0) = sum 1_D Psi dV over the anchors (for the dt check).
pub fn max_weight(c: &MotorConfig, t: &MotorTables, psi: impl Fn(usize) -> f64) -> f64 {
    let mut most = 0.0f64;
    let counts: Vec<f64> = (0..t.lines(c))
        .map(|l| t.mask[l * c.ns..(l + 1) * c.ns].iter().sum())
        .collect();
    for r0 in 0..c.anchors() {
        let mut w = 0.0;
        for (l, m) in counts.iter().enumerate() {
            let d = t.offsets[l / c.ntheta];
            w += m * psi(psi_index(c, r0, d, l % c.ntheta));
        }
        most = most.max(w * c.volume());
    }
    most
}

/// Plan buffers `add_buffers` registers. PSI is f32 (ntheta, ny, nx); BOUND (per chunk:
/// `bound_buffer`) f32 (r0, d, theta, s) of the chunk's anchors, STAGE (`stage_buffer`) as
/// much again and the chunk's tree slots, CHUNK (`chunk_buffer`) its `MotorChunkUniforms`;
/// STATE vec4<f32> per anchor (total, coarse bound, free, walked off since the start); FORCE
/// vec2<f32> per cell (seed eq. 10, after the step).
pub const PARAMS: &str = "motors_params";
pub const TABLES: &str = "motors_tables";
pub const PSI: &str = "motors_psi";
pub const BOUND: &str = "motors_bound";
pub const STAGE: &str = "motors_stage";
pub const CHUNK: &str = "motors_chunk";
pub const STATE: &str = "motors_state";
pub const FORCE: &str = "motors_force";
/// vec2<f32> per head offset and cell: the force sums of the chunks before the last (8 bytes
/// when M_b is in one binding).
pub const FORCE_PARTS: &str = "motors_force_parts";

/// The shader's `MotorParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MotorUniforms {
    pub nx: u32,
    pub ny: u32,
    pub ntheta: u32,
    pub ns: u32,
    pub lines: u32,
    pub lines_pow2: u32,
    pub block: u32,
    pub anchors: u32,
    pub n_heads: u32,
    pub mask_at: u32,
    pub p_at: u32,
    pub heads_at: u32,
    pub start_at: u32,
    pub items_at: u32,
    pub _pad0: u32,
    pub _pad1: u32,
    pub _pad2: u32,
    /// speed / ds.
    pub walk: f32,
    pub k_on: f32,
    pub k_off: f32,
    pub rate_base: f32,
    pub volume: f32,
    /// dx dy dtheta speed: the walked-off mass per unit of the end cell's value and time.
    pub area: f32,
    pub force_scale: f32,
    /// Rows of head offsets and the word offset of their starts in the tables.
    pub n_rows: u32,
    pub rows_at: u32,
    pub _pad3: u32,
    pub _pad4: u32,
}

/// The shader's `MotorChunk`: the chunk's anchors `first..first + count`, and whether it is the
/// last (whose force pass scales the sum).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MotorChunkUniforms {
    pub first: u32,
    pub count: u32,
    pub last: u32,
    pub _pad: u32,
}

impl MotorUniforms {
    pub fn new(c: &MotorConfig, t: &MotorTables) -> Self {
        let mask_at = 2 * t.offsets.len();
        let p_at = mask_at + t.mask.len();
        let heads_at = p_at + 2 * t.p.len();
        let start_at = heads_at + 2 * t.heads.len();
        let items_at = start_at + t.start.len();
        let rows_at = items_at + t.items.len();
        Self {
            nx: c.nx as u32,
            ny: c.ny as u32,
            ntheta: c.ntheta as u32,
            ns: c.ns as u32,
            lines: t.lines(c) as u32,
            lines_pow2: t.lines(c).next_power_of_two() as u32,
            block: t.block(c) as u32,
            anchors: c.anchors() as u32,
            n_heads: t.heads.len() as u32,
            mask_at: mask_at as u32,
            p_at: p_at as u32,
            heads_at: heads_at as u32,
            start_at: start_at as u32,
            items_at: items_at as u32,
            _pad0: 0,
            _pad1: 0,
            _pad2: 0,
            walk: (c.speed / c.ds()) as f32,
            k_on: c.k_on as f32,
            k_off: c.k_off as f32,
            rate_base: (2.0 * c.speed / c.ds() + c.k_off) as f32,
            volume: c.volume() as f32,
            area: (c.dx() * c.dy() * c.dtheta() * c.speed) as f32,
            force_scale: (c.force * c.volume()) as f32,
            n_rows: (t.rows.len() - 1) as u32,
            rows_at: rows_at as u32,
            _pad3: 0,
            _pad4: 0,
        }
    }
}

/// The tables as the shader's one u32 array (sections in `MotorUniforms` order).
pub fn table_words(t: &MotorTables) -> Vec<u32> {
    let mut w = Vec::new();
    for d in &t.offsets {
        w.extend([d[0] as u32, d[1] as u32]);
    }
    w.extend(t.mask.iter().map(|&m| (m as f32).to_bits()));
    for p in &t.p {
        w.extend([(p[0] as f32).to_bits(), (p[1] as f32).to_bits()]);
    }
    for e in &t.heads {
        w.extend([e[0] as u32, e[1] as u32]);
    }
    w.extend(&t.start);
    w.extend(&t.items);
    w.extend(&t.rows);
    w
}

/// Registers the motors' buffers in `plan`, M_b and its stage per chunk of `chunks`; PSI is
/// `psi` when given (the filaments' Psi, shared in the coupled model), else a buffer of its own.
/// The passes read dt from CLOCK (`clock::add_buffer`), which the plan must hold too. Refused,
/// naming the bytes, when the device has no memory for the chunks.
pub fn add_buffers(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    config: &MotorConfig,
    tables: &MotorTables,
    chunks: &MotorChunks,
    psi: Option<wgpu::Buffer>,
) -> Result<()> {
    config.check()?;
    let anchors = config.anchors() as u64;
    let uniforms = MotorUniforms::new(config, tables);
    plan.add_buffer(PARAMS, buffers::uniform_from(ctx, PARAMS, &uniforms));
    plan.add_buffer(
        TABLES,
        buffers::storage_from(ctx, TABLES, &table_words(tables))?,
    );
    let psi = match psi {
        Some(psi) => psi,
        None => buffers::storage_zeroed(ctx, PSI, anchors * config.ntheta as u64 * 4)?,
    };
    plan.add_buffer(PSI, psi);
    // The chunks hold nearly all the motors' memory: a device without room for them reports
    // out of memory here, not as an uncaptured error later.
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let mut bytes = 0;
    for (k, r) in chunks.ranges.iter().enumerate() {
        let count = r.len() as u64;
        let (block, stage) = (
            4 * count * tables.block(config) as u64,
            4 * count * tables.stage_block(config) as u64,
        );
        bytes += block + stage;
        let bound = bound_buffer(k);
        plan.add_buffer(&bound, buffers::storage_zeroed(ctx, &bound, block)?);
        let stage_name = stage_buffer(k);
        plan.add_buffer(
            &stage_name,
            buffers::storage_zeroed(ctx, &stage_name, stage)?,
        );
        let chunk = MotorChunkUniforms {
            first: r.start as u32,
            count: count as u32,
            last: u32::from(r.end == config.anchors()),
            _pad: 0,
        };
        let name = chunk_buffer(k);
        plan.add_buffer(&name, buffers::uniform_from(ctx, &name, &chunk));
    }
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(ModelError::OutOfMemory {
            what: format!("M_b and its RK2 stage ({} chunks)", chunks.len()),
            bytes,
            limit: format!("the allocation failed ({e})"),
        });
    }
    plan.add_buffer(STATE, buffers::storage_zeroed(ctx, STATE, anchors * 16)?);
    plan.add_buffer(FORCE, buffers::storage_zeroed(ctx, FORCE, anchors * 8)?);
    let parts = if chunks.len() > 1 {
        anchors * tables.heads.len() as u64 * 8
    } else {
        8
    };
    plan.add_buffer(
        FORCE_PARTS,
        buffers::storage_zeroed(ctx, FORCE_PARTS, parts)?,
    );
    Ok(())
}

/// Appends the motors' passes to `plan` (its buffers registered by `add_buffers` with the same
/// `chunks`), with workgroups of `workgroup` threads: evolve per chunk, then the force per
/// chunk, in anchor order.
pub fn add_passes(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    config: &MotorConfig,
    chunks: &MotorChunks,
    workgroup: u32,
) -> Result<()> {
    ctx.check_workgroup_size("the gliding motor passes (workgroup)", [workgroup, 1, 1])?;
    let max = ctx.limits().max_compute_workgroups_per_dimension;
    let pass = |label, entry, k: usize, workgroups| PassDesc {
        label,
        entry,
        bindings: vec![
            Binding::uniform(PARAMS),
            Binding::read(TABLES),
            Binding::read(PSI),
            Binding::read_write(&bound_buffer(k)),
            Binding::read_write(&stage_buffer(k)),
            Binding::read_write(STATE),
            Binding::read_write(FORCE),
            Binding::read(CLOCK),
            Binding::uniform(&chunk_buffer(k)),
            Binding::read_write(FORCE_PARTS),
        ],
        workgroups,
        constants: vec![("WG", workgroup as f64)],
    };
    // One workgroup per anchor of the chunk.
    for (k, r) in chunks.ranges.iter().enumerate() {
        let evolve = dispatch_args(r.len() as u32, 1, max);
        plan.add_pass(ctx, pass("motors evolve", motors::EVOLVE, k, evolve))?;
    }
    // One thread per cell, each chunk adding its anchors' heads.
    let force = dispatch_args(config.anchors() as u32, workgroup, max);
    for k in 0..chunks.len() {
        plan.add_pass(ctx, pass("motors force", motors::FORCE, k, force))?;
    }
    Ok(())
}

/// The bound motors on a plan of their own: write the totals, Psi and (optionally) M_b, step,
/// read M_b, the per-anchor state and the force back.
pub struct BoundMotors {
    plan: StepPlan,
    config: MotorConfig,
    tables: MotorTables,
    chunks: MotorChunks,
    last_dt: Option<f64>,
    /// The largest Psi weight of the current Psi.
    weight: f64,
}

impl BoundMotors {
    /// Motors with workgroups of `workgroup` threads, M_b split over bindings of at most
    /// `max_binding` bytes where given (else the device's largest).
    pub fn new(
        ctx: &GpuContext,
        config: &MotorConfig,
        workgroup: u32,
        max_binding: Option<u64>,
    ) -> Result<Self> {
        let tables = MotorTables::new(config)?;
        let chunks = MotorChunks::for_device(ctx, config, &tables, max_binding)?;
        let mut plan = StepPlan::new(ctx, 0, 1);
        add_buffers(ctx, &mut plan, config, &tables, &chunks, None)?;
        clock::add_buffer(ctx, &mut plan)?;
        add_passes(ctx, &mut plan, config, &chunks, workgroup)?;
        Ok(Self {
            plan,
            config: config.clone(),
            tables,
            chunks,
            last_dt: None,
            weight: 0.0,
        })
    }

    pub fn config(&self) -> &MotorConfig {
        &self.config
    }

    pub fn tables(&self) -> &MotorTables {
        &self.tables
    }

    pub fn chunks(&self) -> &MotorChunks {
        &self.chunks
    }

    /// Sets the total motor density M(r0) (ny, nx), finite and >= 0; the walked-off tally
    /// restarts at 0 and the free density reads M until the next step.
    pub fn set_total(&mut self, ctx: &GpuContext, total: &[f32]) -> Result<()> {
        let c = &self.config;
        c.check_len("motors total", total.len(), c.anchors(), "ny x nx")?;
        check_f32("motors total", total)?;
        let state: Vec<[f32; 4]> = total.iter().map(|&m| [m, 0.0, m, 0.0]).collect();
        ctx.queue
            .write_buffer(self.plan.buffer(STATE), 0, bytemuck::cast_slice(&state));
        Ok(())
    }

    /// Sets Psi (ntheta, ny, nx), finite and >= 0.
    pub fn set_psi(&mut self, ctx: &GpuContext, psi: &[f32]) -> Result<()> {
        let c = &self.config;
        c.check_len("psi", psi.len(), c.anchors() * c.ntheta, "ntheta x ny x nx")?;
        check_f32("psi", psi)?;
        self.weight = max_weight(c, &self.tables, |i| f64::from(psi[i]));
        ctx.queue
            .write_buffer(self.plan.buffer(PSI), 0, bytemuck::cast_slice(psi));
        Ok(())
    }

    /// Sets M_b (r0, d, theta, s): finite, >= 0 and 0 outside the capture disc.
    pub fn set_bound(&mut self, ctx: &GpuContext, bound: &[f32]) -> Result<()> {
        let wide: Vec<f64> = bound.iter().map(|&v| f64::from(v)).collect();
        check_bound(&self.config, &self.tables, &wide)?;
        let block = self.tables.block(&self.config);
        write_bound(ctx, &self.plan, &self.chunks, block, bound);
        Ok(())
    }

    /// `steps` outer steps of dt (each anchor in its own sub-steps), then the force.
    pub fn step(&mut self, ctx: &GpuContext, dt: f64, steps: u64) -> Result<()> {
        self.config.check_dt(dt, self.weight)?;
        if self.last_dt != Some(dt) {
            clock::write(ctx, &self.plan, &Clock::fixed(dt, dt));
            self.last_dt = Some(dt);
        }
        self.plan.run(ctx, steps);
        Ok(())
    }

    /// M_b (r0, d, theta, s), waiting for the GPU.
    pub fn bound(&self, ctx: &GpuContext) -> Result<Vec<f32>> {
        read_bound(ctx, &self.plan, &self.chunks)
    }

    /// Per anchor: total, coarse bound, free, walked off.
    pub fn state(&self, ctx: &GpuContext) -> Result<Vec<[f32; 4]>> {
        Ok(buffers::read_vec(ctx, self.plan.buffer(STATE))?)
    }

    /// The motor force (ny, nx) after the last step.
    pub fn force(&self, ctx: &GpuContext) -> Result<Vec<[f32; 2]>> {
        Ok(buffers::read_vec(ctx, self.plan.buffer(FORCE))?)
    }

    pub fn plan(&self) -> &StepPlan {
        &self.plan
    }
}

fn check_f32(field: &str, v: &[f32]) -> Result<()> {
    if let Some(x) = v.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(invalid(field, x, "finite values >= 0"));
    }
    Ok(())
}
