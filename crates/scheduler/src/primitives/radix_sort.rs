//! Stable radix sort of u32 keys with a u32 payload (`shaders/scheduler/radix_sort.wgsl`).
//!
//! Least significant digit first, 4 bits per pass, only as many passes as `key_bits` needs (a
//! grid of 2^20 cells: 5 passes; full keys: 8). Each pass: count digits per block, scan the
//! counts (`Scan`), scatter each item to its digit's slot plus its rank within the block. The
//! sort orders by the low `key_bits` bits only; higher bits ride along unsorted, and items
//! whose low bits are equal keep their input order. The input buffers are left as they are;
//! the result is in `keys()` / `vals()` (the launcher's own buffers).

use super::dispatch::{DispatchTable, SlotDesc};
use super::scan::{Scan, BLOCK as SCAN_BLOCK};
use super::{check_buffer, invalid, u32_buffer, uniform, Kernels, Length, Primitive, Result};
use petri_engine::kernel::Access;
use petri_engine::shaders::scheduler::radix_sort;
use petri_engine::GpuContext;

/// Bits per digit pass.
pub const RADIX_BITS: u32 = 4;
/// The widest key.
pub const MAX_KEY_BITS: u32 = 32;
const BINS: u32 = 1 << RADIX_BITS;
/// Items per workgroup block (256 threads x 8).
const BLOCK: u32 = 2048;

const COUNT: usize = 0;
const SCATTER: usize = 1;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct PassCfg {
    shift: u32,
    mask: u32,
    _pad: [u32; 2],
}

/// Digit pass `p`'s shift and mask for keys of `key_bits` bits.
fn digit(key_bits: u32, p: u32) -> (u32, u32) {
    let shift = p * RADIX_BITS;
    let width = (key_bits - shift).min(RADIX_BITS);
    (shift, (1 << width) - 1)
}

fn check_key_bits(key_bits: u32) -> Result<u32> {
    if key_bits == 0 || key_bits > MAX_KEY_BITS {
        return Err(invalid(
            "radix sort",
            "key_bits",
            key_bits,
            format!("1..={MAX_KEY_BITS}"),
        ));
    }
    Ok(key_bits.div_ceil(RADIX_BITS))
}

/// A stable sort of the first `len` (key, value) pairs by the low `key_bits` bits of the key.
pub struct RadixSort {
    table: DispatchTable,
    scan: Scan,
    kernels: Kernels,
    /// One bind group per digit pass.
    passes: Vec<wgpu::BindGroup>,
    keys: wgpu::Buffer,
    vals: wgpu::Buffer,
}

impl RadixSort {
    /// A sort of up to `capacity` pairs read from `keys` and `vals` (at least `capacity` u32
    /// each, STORAGE usage); `key_bits` in 1..=32.
    pub fn new(
        ctx: &GpuContext,
        keys: &wgpu::Buffer,
        vals: &wgpu::Buffer,
        capacity: u32,
        key_bits: u32,
        length: Length,
    ) -> Result<Self> {
        let passes = check_key_bits(key_bits)?;
        check_buffer("radix sort", "keys", keys, capacity as u64, 4)?;
        check_buffer("radix sort", "vals", vals, capacity as u64, 4)?;
        let slots = [
            SlotDesc::length(BLOCK),
            // The scanned counts: BINS per block.
            SlotDesc {
                from: Some(0),
                mul: BINS,
                add: 0,
                per_group: SCAN_BLOCK,
                min_groups: 0,
            },
        ];
        let table = DispatchTable::new(ctx, "radix sort", &length, capacity, &slots)?;
        let counts_len = BINS * capacity.div_ceil(BLOCK);
        let counts = u32_buffer(ctx, "radix counts", counts_len as u64)?;
        let offsets = u32_buffer(ctx, "radix offsets", counts_len as u64)?;
        let scan = Scan::new(
            ctx,
            &counts,
            &offsets,
            counts_len,
            Length::Gpu {
                buffer: table.lens().clone(),
                word: 1,
            },
        )?;
        let kernels = Kernels::new(
            ctx,
            &[radix_sort::RADIX_COUNT, radix_sort::RADIX_SCATTER],
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadOnly,
            ],
        )?;
        // Ping-pong: pass 0 reads the input, then A and B alternate as destination.
        let ping = |name: &str, n: u32| u32_buffer(ctx, name, n as u64);
        let bufs = [
            [
                ping("radix keys a", capacity)?,
                ping("radix vals a", capacity)?,
            ],
            [
                ping("radix keys b", if passes > 1 { capacity } else { 0 })?,
                ping("radix vals b", if passes > 1 { capacity } else { 0 })?,
            ],
        ];
        let mut groups = Vec::new();
        for p in 0..passes {
            let (shift, mask) = digit(key_bits, p);
            let cfg = uniform(
                ctx,
                "radix pass",
                &PassCfg {
                    shift,
                    mask,
                    _pad: [0; 2],
                },
            );
            let (src_k, src_v) = if p == 0 {
                (keys, vals)
            } else {
                let s = &bufs[(p as usize + 1) % 2];
                (&s[0], &s[1])
            };
            let dst = &bufs[p as usize % 2];
            groups.push(kernels.bind(
                ctx,
                "radix pass",
                &[
                    &cfg,
                    table.lens(),
                    src_k,
                    src_v,
                    &dst[0],
                    &dst[1],
                    &counts,
                    &offsets,
                ],
            ));
        }
        let [keys_out, vals_out] = bufs[(passes as usize - 1) % 2].clone();
        Ok(Self {
            table,
            scan,
            kernels,
            passes: groups,
            keys: keys_out,
            vals: vals_out,
        })
    }

    /// The sorted keys (first `len` u32), after the sort has run.
    pub fn keys(&self) -> &wgpu::Buffer {
        &self.keys
    }

    /// The payload in sorted order (first `len` u32), after the sort has run.
    pub fn vals(&self) -> &wgpu::Buffer {
        &self.vals
    }
}

impl Primitive for RadixSort {
    fn label(&self) -> &'static str {
        "radix sort"
    }

    fn dispatch_table(&self) -> &DispatchTable {
        &self.table
    }

    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.table.record_pass(pass);
        self.scan.record_setup(pass);
        for group in &self.passes {
            pass.set_pipeline(self.kernels.pipeline(COUNT));
            pass.set_bind_group(0, group, &[]);
            self.table.dispatch(pass, 0);
            self.scan.record_levels(pass);
            pass.set_pipeline(self.kernels.pipeline(SCATTER));
            pass.set_bind_group(0, group, &[]);
            self.table.dispatch(pass, 0);
        }
    }
}

/// The GPU sort's digit passes on the CPU: (keys, vals) sorted stably by the low `key_bits`
/// bits of the key. Fails on `key_bits` outside 1..=32 or slices of different lengths.
pub fn cpu_radix_sort(keys: &[u32], vals: &[u32], key_bits: u32) -> Result<(Vec<u32>, Vec<u32>)> {
    let passes = check_key_bits(key_bits)?;
    if keys.len() != vals.len() {
        return Err(invalid(
            "radix sort",
            "vals",
            format!("{} values", vals.len()),
            format!("one per key ({})", keys.len()),
        ));
    }
    let (mut k, mut v) = (keys.to_vec(), vals.to_vec());
    for p in 0..passes {
        let (shift, mask) = digit(key_bits, p);
        let d = |key: u32| ((key >> shift) & mask) as usize;
        let mut start = [0usize; BINS as usize + 1];
        for &key in &k {
            start[d(key) + 1] += 1;
        }
        for b in 0..BINS as usize {
            start[b + 1] += start[b];
        }
        let (mut k2, mut v2) = (vec![0; k.len()], vec![0; v.len()]);
        for (&key, &val) in k.iter().zip(&v) {
            let slot = &mut start[d(key)];
            k2[*slot] = key;
            v2[*slot] = val;
            *slot += 1;
        }
        (k, v) = (k2, v2);
    }
    Ok((k, v))
}
