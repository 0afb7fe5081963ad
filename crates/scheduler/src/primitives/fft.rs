//! Complex FFT of f32 data (`shaders/scheduler/fft.wgsl`), in place in the caller's buffer:
//! batched 1D transforms of the rows of a (batch, ny, nx) array, or 2D transforms of each of its
//! `batch` grids (rows, then columns). Elements are `vec2<f32>` (re, im), row-major, x fastest.
//!
//! Conventions (rustfft's): forward X[k] = sum_n x[n] e^(-2 pi i k n / N), inverse with
//! e^(+2 pi i ...), neither normalized, so inverse(forward(x)) = N x with N = nx (rows) or
//! nx * ny (2D). A solver dividing each mode by something folds the 1/N into that division.
//!
//! Stockham auto-sort in radix 4 (and one radix-2 stage for odd powers of two), twiddles from a
//! table made in f64 on the CPU. An axis of up to `workgroup_points` points (at most 4096,
//! fewer where the device's workgroup memory is smaller: 8 bytes a point) is one dispatch: each
//! workgroup transforms a block of lines in registers and workgroup memory, two radix-4 stages
//! per pass (16 points a thread), reading the block once and writing it back once (for
//! columns, a block is several adjacent columns, so loads are coalesced along x). Longer axes take one global pass per stage, ping-ponging with a scratch buffer,
//! in an even number of passes so that the result lands back in the caller's buffer.
//!
//! Limits (errors naming the value, not panics): nx and, for 2D, ny powers of two in
//! 1..=`MAX_AXIS`; every buffer within `max_storage_buffer_binding_size`; workgroups in a 2D
//! grid of at most `max_compute_workgroups_per_dimension` per axis. Binds 3 storage buffers.

use super::{check_buffer, invalid, uniform, Kernels, Result};
use crate::shaders::scheduler::fft;
use petri_engine::kernel::Access;
use petri_engine::{buffers, GpuContext};

/// Points of a workgroup's block of short lines at least.
const BLOCK_POINTS: u32 = 256;
/// Workgroups the blocks of an axis aim at (about two per SM of a large GPU).
const TARGET_BLOCKS: u64 = 256;
/// Adjacent columns a block takes at least where they fit (8 x 8 bytes = 64-byte reads).
const MIN_ACROSS: u32 = 8;

/// The longest axis (global passes above `workgroup_points`).
pub const MAX_AXIS: u32 = 1 << 16;
/// Points in workgroup memory at most: 4096 x 8 bytes = 32 KiB.
pub const MAX_WORKGROUP_POINTS: u32 = 4096;
/// Points per thread of the workgroup-memory kernel (its radix-16 groups).
const ITEMS: u32 = 16;
const WG: u32 = 256;
/// Workgroups along x of the 2D dispatch grid.
const GROUPS_X: u32 = 1 << 15;

const SHARED: usize = 0;
const GLOBAL: usize = 1;

/// Which axes to transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftAxes {
    /// 1D transforms of every row (length nx) of every grid.
    X,
    /// 2D transforms of every grid: rows, then columns.
    XY,
}

/// Sign of the exponent: forward e^(-i...), inverse e^(+i...) (unnormalized).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftDirection {
    Forward,
    Inverse,
}

/// `batch` grids of `ny` rows of `nx` complex points, row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FftShape {
    pub batch: u32,
    pub ny: u32,
    pub nx: u32,
}

impl FftShape {
    pub fn points(&self) -> u64 {
        self.batch as u64 * self.ny as u64 * self.nx as u64
    }

    /// The scale of inverse(forward(x)): the points of one transform.
    pub fn scale(&self, axes: FftAxes) -> f64 {
        match axes {
            FftAxes::X => self.nx as f64,
            FftAxes::XY => self.nx as f64 * self.ny as f64,
        }
    }

    /// Fails unless every transformed axis is a power of two in 1..=MAX_AXIS and the batch is
    /// at least 1.
    pub fn check(&self, axes: FftAxes) -> Result<()> {
        let allowed = format!("a power of two in 1..={MAX_AXIS}");
        let bad = |n: u32| !n.is_power_of_two() || n > MAX_AXIS;
        if bad(self.nx) {
            return Err(invalid("fft", "nx", self.nx, allowed));
        }
        if axes == FftAxes::XY && bad(self.ny) {
            return Err(invalid("fft", "ny", self.ny, allowed));
        }
        if self.ny == 0 {
            return Err(invalid("fft", "ny", 0, "at least 1"));
        }
        if self.batch == 0 {
            return Err(invalid("fft", "batch", 0, "at least 1"));
        }
        Ok(())
    }
}

/// The shader's `FftPass`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct FftPass {
    pub n: u32,
    pub inner: u32,
    pub tw_off: u32,
    pub inverse: u32,
    pub block_outer: u32,
    pub block_inner: u32,
    pub radix: u32,
    pub ns: u32,
    pub items: u32,
    pub groups_x: u32,
    pub _p0: u32,
    pub _p1: u32,
}

/// One axis of the array as (outer, n, inner): point p of line (o, i) at o*n*inner + p*inner + i.
#[derive(Clone, Copy, Debug)]
struct Axis {
    n: u32,
    inner: u32,
    outer: u32,
    tw_off: u32,
}

/// The axes to transform, in order, with their twiddle tables side by side.
fn axes_of(shape: FftShape, axes: FftAxes) -> (Vec<Axis>, Vec<[f32; 2]>) {
    let FftShape { batch, ny, nx } = shape;
    let mut list = vec![Axis {
        n: nx,
        inner: 1,
        outer: batch * ny,
        tw_off: 0,
    }];
    if axes == FftAxes::XY {
        list.push(Axis {
            n: ny,
            inner: nx,
            outer: batch,
            tw_off: nx,
        });
    }
    let table = list.iter().flat_map(|a| twiddles(a.n)).collect();
    (list, table)
}

/// e^(-2 pi i t / n) for t < n, from f64.
fn twiddles(n: u32) -> impl Iterator<Item = [f32; 2]> {
    (0..n).map(move |t| {
        let a = -2.0 * std::f64::consts::PI * t as f64 / n as f64;
        [a.cos() as f32, a.sin() as f32]
    })
}

/// The radices of an axis of `n` points: radix 4, then one radix 2 for an odd power of two;
/// with `even`, split radix-4 stages until the count is even (global passes ping-pong).
fn radices(n: u32, even: bool) -> Vec<u32> {
    let bits = n.trailing_zeros();
    let (mut fours, mut twos) = (bits / 2, bits % 2);
    if even && (fours + twos) % 2 == 1 && fours > 0 {
        fours -= 1;
        twos += 2;
    }
    let mut r = vec![4; fours as usize];
    r.extend(std::iter::repeat_n(2, twos as usize));
    r
}

/// A workgroup's block of lines of an axis of at most `workgroup_points` points, as
/// [lines along outer, lines along inner]: about `total / TARGET_BLOCKS` points, so that small
/// arrays still keep many workgroups busy, between `BLOCK_POINTS` (or one line) and
/// `workgroup_points`. Columns take at least `MIN_ACROSS` adjacent lines where they fit, so
/// that a block's reads of a row are at least 64 bytes long.
fn block(a: &Axis, total: u64, workgroup_points: u32) -> [u32; 2] {
    let target = 1u32 << (total / TARGET_BLOCKS).clamp(1, 1 << 31).ilog2();
    let cap = workgroup_points.min(target.max(BLOCK_POINTS).max(a.n));
    let across = (cap / a.n).max(MIN_ACROSS.min(workgroup_points / a.n));
    let block_inner = a.inner.min(across);
    // Whole lines only: the power of two that divides `outer` (rows of 1D transforms may come
    // in any number).
    let block_outer = (1 << a.outer.trailing_zeros()).min((cap / (a.n * block_inner)).max(1));
    [block_outer, block_inner]
}

/// The workgroup grid for `count` workgroups (the kernels skip those past `count`).
fn grid(ctx: &GpuContext, count: u32) -> Result<[u32; 2]> {
    let x = count.min(GROUPS_X);
    ctx.check_workgroups("fft", x)?;
    ctx.check_workgroups("fft", count.div_ceil(x))?;
    Ok([x, count.div_ceil(x)])
}

struct Dispatch {
    kernel: usize,
    group: wgpu::BindGroup,
    groups: [u32; 2],
}

/// An FFT of a (batch, ny, nx) complex f32 array, in place: built once for a shape, axes and
/// direction, recorded into a compute pass (a step plan's, `StepPlan::add_recorded`) or a pass
/// of its own.
pub struct Fft {
    kernels: Kernels,
    dispatches: Vec<Dispatch>,
}

impl Fft {
    /// The FFT of `data` (STORAGE usage, at least `shape.points()` vec2<f32>), with as many
    /// points per workgroup as the device allows.
    pub fn new(
        ctx: &GpuContext,
        data: &wgpu::Buffer,
        shape: FftShape,
        axes: FftAxes,
        direction: FftDirection,
    ) -> Result<Self> {
        let points = Self::device_points(ctx);
        Self::with_workgroup_points(ctx, data, shape, axes, direction, points)
    }

    /// The most points a workgroup holds on this device: 4096, or fewer where workgroup memory
    /// or invocations are fewer.
    pub fn device_points(ctx: &GpuContext) -> u32 {
        let l = ctx.limits();
        let memory = l.max_compute_workgroup_storage_size / 8;
        let threads = l
            .max_compute_invocations_per_workgroup
            .min(l.max_compute_workgroup_size_x)
            .min(WG);
        let most = memory.min(threads * ITEMS).min(MAX_WORKGROUP_POINTS);
        1 << most.max(1).ilog2()
    }

    /// As `new`, with axes of up to `workgroup_points` points (a power of two from 2 to
    /// `device_points`) in workgroup memory and longer ones in global passes.
    pub fn with_workgroup_points(
        ctx: &GpuContext,
        data: &wgpu::Buffer,
        shape: FftShape,
        axes: FftAxes,
        direction: FftDirection,
        workgroup_points: u32,
    ) -> Result<Self> {
        shape.check(axes)?;
        let most = Self::device_points(ctx);
        if !workgroup_points.is_power_of_two() || workgroup_points < 2 || workgroup_points > most {
            return Err(invalid(
                "fft",
                "workgroup_points",
                workgroup_points,
                format!(
                    "a power of two in 2..={most} (this device's workgroup memory and invocations)"
                ),
            ));
        }
        let total = shape.points();
        if total > (1 << 31) {
            return Err(invalid(
                "fft",
                "batch * ny * nx",
                total,
                "at most 2^31 points (u32 indices)",
            ));
        }
        ctx.check_storage_buffer("fft data", total * 8)?;
        check_buffer("fft", "data", data, total, 8)?;
        let (list, table) = axes_of(shape, axes);
        let blocks: Vec<Option<[u32; 2]>> = list
            .iter()
            .map(|a| (a.n <= workgroup_points).then(|| block(a, total, workgroup_points)))
            .collect();
        // Workgroup memory for the largest block, and a thread per 16 of its points (the
        // kernel's radix-16 groups); at least 64 threads for the global passes.
        let most_points = list
            .iter()
            .zip(&blocks)
            .filter_map(|(a, b)| b.filter(|_| a.n > 1).map(|[o, i]| o * a.n * i))
            .max()
            .unwrap_or(workgroup_points);
        let wg = WG.min(most_points.div_ceil(ITEMS).next_power_of_two().max(64));
        ctx.check_workgroup_size("fft", [wg, 1, 1])?;
        let kernels = Kernels::with_constants(
            ctx,
            &[fft::FFT_SHARED, fft::FFT_GLOBAL],
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
            ],
            &[("FFT_WG", wg as f64), ("FFT_POINTS", most_points as f64)],
        )?;
        let twiddles = buffers::storage_from(ctx, "fft twiddles", &table)?;
        let long = list.iter().any(|a| a.n > workgroup_points);
        // Global passes' other buffer; a 4-byte placeholder when every axis fits a workgroup.
        let scratch =
            buffers::storage_zeroed(ctx, "fft scratch", if long { total * 8 } else { 4 })?;
        let inverse = (direction == FftDirection::Inverse) as u32;
        let mut dispatches = Vec::new();
        for (a, block) in list.iter().zip(&blocks).filter(|(a, _)| a.n > 1) {
            let base = FftPass {
                n: a.n,
                inner: a.inner,
                tw_off: a.tw_off,
                inverse,
                block_outer: 1,
                block_inner: 1,
                radix: 0,
                ns: 0,
                items: 0,
                groups_x: 0,
                _p0: 0,
                _p1: 0,
            };
            let mut add =
                |kernel: usize, cfg: FftPass, groups: [u32; 2], pair: [&wgpu::Buffer; 2]| {
                    let cfg = uniform(
                        ctx,
                        "fft pass",
                        &FftPass {
                            groups_x: groups[0],
                            ..cfg
                        },
                    );
                    let group = kernels.bind(ctx, "fft pass", &[&cfg, &twiddles, pair[0], pair[1]]);
                    dispatches.push(Dispatch {
                        kernel,
                        group,
                        groups,
                    });
                };
            if let Some([block_outer, block_inner]) = *block {
                let blocks = (a.outer / block_outer) * (a.inner / block_inner);
                let cfg = FftPass {
                    block_outer,
                    block_inner,
                    items: blocks,
                    ..base
                };
                add(SHARED, cfg, grid(ctx, blocks)?, [data, &scratch]);
            } else {
                let mut ns = 1;
                for (k, radix) in radices(a.n, true).into_iter().enumerate() {
                    let butterflies = (total / radix as u64) as u32;
                    let cfg = FftPass {
                        radix,
                        ns,
                        items: butterflies,
                        ..base
                    };
                    let pair = match k % 2 {
                        0 => [data, &scratch],
                        _ => [&scratch, data],
                    };
                    add(GLOBAL, cfg, grid(ctx, butterflies.div_ceil(wg))?, pair);
                    ns *= radix;
                }
            }
        }
        Ok(Self {
            kernels,
            dispatches,
        })
    }

    /// Records the transform into `pass`.
    pub fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        for d in &self.dispatches {
            pass.set_pipeline(self.kernels.pipeline(d.kernel));
            pass.set_bind_group(0, &d.group, &[]);
            pass.dispatch_workgroups(d.groups[0], d.groups[1], 1);
        }
    }

    /// Records the transform in a compute pass of its own.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("fft"),
            timestamp_writes: None,
        });
        self.record_pass(&mut pass);
    }
}

impl crate::plan::RecordPass for Fft {
    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        Fft::record_pass(self, pass)
    }
}

/// The GPU's stages on the CPU in f32 (same twiddle table, radices and order of operations
/// up to fused multiply-adds): `data` transformed, as `Fft` leaves it.
pub fn cpu_fft(
    data: &[[f32; 2]],
    shape: FftShape,
    axes: FftAxes,
    direction: FftDirection,
) -> Result<Vec<[f32; 2]>> {
    shape.check(axes)?;
    if data.len() as u64 != shape.points() {
        return Err(invalid(
            "fft",
            "data",
            format!("{} points", data.len()),
            format!("batch * ny * nx = {}", shape.points()),
        ));
    }
    let inverse = direction == FftDirection::Inverse;
    let (list, table) = axes_of(shape, axes);
    let mut out = data.to_vec();
    let mul = |a: [f32; 2], b: [f32; 2]| [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
    let add = |a: [f32; 2], b: [f32; 2]| [a[0] + b[0], a[1] + b[1]];
    let sub = |a: [f32; 2], b: [f32; 2]| [a[0] - b[0], a[1] - b[1]];
    let rot = |v: [f32; 2]| {
        if inverse {
            [-v[1], v[0]]
        } else {
            [v[1], -v[0]]
        }
    };
    for a in list {
        let n = a.n as usize;
        let (mut line, mut next) = (vec![[0f32; 2]; n], vec![[0f32; 2]; n]);
        for o in 0..a.outer as usize {
            for i in 0..a.inner as usize {
                let at = |p: usize| (o * n + p) * a.inner as usize + i;
                for (p, v) in line.iter_mut().enumerate() {
                    *v = out[at(p)];
                }
                let mut ns = 1;
                for radix in radices(a.n, false).into_iter().map(|r| r as usize) {
                    let part = n / radix;
                    for j in 0..part {
                        let x: Vec<[f32; 2]> = (0..radix)
                            .map(|r| {
                                let v = line[j + r * part];
                                if r == 0 {
                                    return v;
                                }
                                let t = r * (j % ns) * (n / (ns * radix));
                                let w = table[a.tw_off as usize + t];
                                mul(v, if inverse { [w[0], -w[1]] } else { w })
                            })
                            .collect();
                        let y = match radix {
                            4 => {
                                let (a0, a1) = (add(x[0], x[2]), sub(x[0], x[2]));
                                let (a2, a3) = (add(x[1], x[3]), rot(sub(x[1], x[3])));
                                vec![add(a0, a2), add(a1, a3), sub(a0, a2), sub(a1, a3)]
                            }
                            _ => vec![add(x[0], x[1]), sub(x[0], x[1])],
                        };
                        let d = (j / ns) * ns * radix + j % ns;
                        for (r, v) in y.into_iter().enumerate() {
                            next[d + r * ns] = v;
                        }
                    }
                    std::mem::swap(&mut line, &mut next);
                    ns *= radix;
                }
                for (p, v) in line.iter().enumerate() {
                    out[at(p)] = *v;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::radices;

    #[test]
    fn radices_cover_the_length_and_global_passes_are_even() {
        assert_eq!(radices(1, false), Vec::<u32>::new());
        assert_eq!(radices(2, false), [2]);
        assert_eq!(radices(32, false), [4, 4, 2]);
        assert_eq!(radices(8192, true), [4, 4, 4, 4, 4, 2, 2, 2]);
        assert_eq!(radices(16384, true), [4, 4, 4, 4, 4, 4, 2, 2]);
        for bits in 1..=16u32 {
            for even in [false, true] {
                let r = radices(1 << bits, even);
                assert_eq!(r.iter().product::<u32>(), 1 << bits);
                if even && bits > 1 {
                    assert_eq!(r.len() % 2, 0, "{bits}");
                }
            }
        }
    }
}
