//! Stable radix sort of u32 keys with a u32 payload (`shaders/scheduler/radix_sort.wgsl`).
//!
//! Least significant digit first, only as many passes as `key_bits` needs, each pass: count
//! digits per block, scan the counts (`Scan`), sort the block by digit in workgroup memory and
//! scatter each item to its digit's slot plus its place within the block. Digits are of up to 4
//! or up to 8 bits, chosen at construction by `digit_bits` (fewer passes, but each one dearer:
//! two block splits instead of one, 256 counts per block instead of 16). The
//! sort orders by the low `key_bits` bits only; higher bits ride along unsorted, and items
//! whose low bits are equal keep their input order. The input buffers are left as they are;
//! the result is in `keys()` / `vals()` (the launcher's own buffers).

use super::dispatch::{DispatchTable, SlotDesc};
use super::scan::{Scan, BLOCK as SCAN_BLOCK};
use super::{check_buffer, invalid, u32_buffer, uniform, Kernels, Length, Primitive, Result};
use crate::shaders::scheduler::radix_sort;
use petri_engine::kernel::Access;
use petri_engine::GpuContext;

/// Bits per digit pass, at most (the wide digits; narrow ones are half as wide).
pub const RADIX_BITS: u32 = 8;
const NARROW_BITS: u32 = 4;
/// The widest key.
pub const MAX_KEY_BITS: u32 = 32;
const BINS: u32 = 1 << RADIX_BITS;

/// The digit width for a sort of `capacity` items by `key_bits` bits: the cheaper of
/// ceil(key_bits / 4) narrow passes and ceil(key_bits / 8) wide ones, by each pass's cost on an
/// H100 (docs/BENCHMARKS.md): about 45 us + 36 us per 10^6 items narrow, 80 us + 77 us per 10^6
/// wide (ties go wide). Wide digits win when they halve the passes up to a few 10^6 items.
pub fn digit_bits(capacity: u32, key_bits: u32) -> u32 {
    let m = capacity as f64 / 1e6;
    let narrow = key_bits.div_ceil(NARROW_BITS) as f64 * (45.0 + 36.0 * m);
    let wide = key_bits.div_ceil(RADIX_BITS) as f64 * (80.0 + 77.0 * m);
    if wide <= narrow {
        RADIX_BITS
    } else {
        NARROW_BITS
    }
}
/// Items per workgroup block (256 threads x 8).
const BLOCK: u32 = 2048;

const COUNT: usize = 0;
const SCATTER_NARROW: usize = 1;
const SCATTER_WIDE: usize = 2;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct PassCfg {
    shift: u32,
    mask: u32,
    /// Counts per block: 2^(the sort's digit width).
    bins: u32,
    _pad: u32,
}

/// Digit pass `p`'s shift and mask for keys of `key_bits` bits: the fewest passes of at most
/// `bits`, their widths as even as can be (20 bits in 8: 7, 7, 6), since a narrower digit has
/// longer runs per block and so scatters to fewer memory segments.
fn digit(key_bits: u32, bits: u32, p: u32) -> (u32, u32) {
    let passes = key_bits.div_ceil(bits);
    let (base, wider) = (key_bits / passes, key_bits % passes);
    let width = |q: u32| base + u32::from(q < wider);
    let shift = (0..p).map(width).sum();
    (shift, (1 << width(p)) - 1)
}

fn check_key_bits(key_bits: u32) -> Result<()> {
    if key_bits == 0 || key_bits > MAX_KEY_BITS {
        return Err(invalid(
            "radix sort",
            "key_bits",
            key_bits,
            format!("1..={MAX_KEY_BITS}"),
        ));
    }
    Ok(())
}

/// A stable sort of the first `len` (key, value) pairs by the low `key_bits` bits of the key.
pub struct RadixSort {
    table: DispatchTable,
    scan: Scan,
    kernels: Kernels,
    /// One bind group per digit pass.
    passes: Vec<wgpu::BindGroup>,
    /// The scatter kernel of the digit width.
    scatter: usize,
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
        check_key_bits(key_bits)?;
        let bits = digit_bits(capacity, key_bits);
        let (passes, bins) = (key_bits.div_ceil(bits), 1u32 << bits);
        check_buffer("radix sort", "keys", keys, capacity as u64, 4)?;
        check_buffer("radix sort", "vals", vals, capacity as u64, 4)?;
        let slots = [
            SlotDesc::length(BLOCK),
            // The scanned counts: `bins` per block.
            SlotDesc {
                from: Some(0),
                mul: bins,
                add: 0,
                per_group: SCAN_BLOCK,
                min_groups: 0,
            },
        ];
        let table = DispatchTable::new(ctx, "radix sort", &length, capacity, &slots)?;
        let counts_len = bins * capacity.div_ceil(BLOCK);
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
            &[
                radix_sort::RADIX_COUNT,
                radix_sort::RADIX_SCATTER_NARROW,
                radix_sort::RADIX_SCATTER_WIDE,
            ],
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
            let (shift, mask) = digit(key_bits, bits, p);
            let cfg = uniform(
                ctx,
                "radix pass",
                &PassCfg {
                    shift,
                    mask,
                    bins,
                    _pad: 0,
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
            scatter: if bits > NARROW_BITS {
                SCATTER_WIDE
            } else {
                SCATTER_NARROW
            },
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
            pass.set_pipeline(self.kernels.pipeline(self.scatter));
            pass.set_bind_group(0, group, &[]);
            self.table.dispatch(pass, 0);
        }
    }
}

/// The GPU sort's digit passes on the CPU: (keys, vals) sorted stably by the low `key_bits`
/// bits of the key. Fails on `key_bits` outside 1..=32 or slices of different lengths.
pub fn cpu_radix_sort(keys: &[u32], vals: &[u32], key_bits: u32) -> Result<(Vec<u32>, Vec<u32>)> {
    check_key_bits(key_bits)?;
    let passes = key_bits.div_ceil(RADIX_BITS);
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
        let (shift, mask) = digit(key_bits, RADIX_BITS, p);
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

#[cfg(test)]
mod tests {
    use super::{digit, digit_bits};

    #[test]
    fn digits_are_the_fewest_passes_of_even_widths() {
        let widths = |bits: u32| -> Vec<(u32, u32)> {
            (0..bits.div_ceil(8)).map(|p| digit(bits, 8, p)).collect()
        };
        assert_eq!(widths(8), [(0, 0xff)]);
        assert_eq!(widths(9), [(0, 0x1f), (5, 0xf)]);
        assert_eq!(widths(20), [(0, 0x7f), (7, 0x7f), (14, 0x3f)]);
        assert_eq!(widths(32), [(0, 0xff), (8, 0xff), (16, 0xff), (24, 0xff)]);
        assert_eq!(digit(20, 4, 4), (16, 0xf));
        // The digits tile the key: every bit in exactly one pass.
        for bits in 1..=32 {
            let mut covered = 0u64;
            for (shift, mask) in widths(bits) {
                assert_eq!(covered & ((mask as u64) << shift), 0, "{bits}");
                covered |= (mask as u64) << shift;
            }
            assert_eq!(covered, (1u64 << bits) - 1, "{bits}");
        }
    }

    #[test]
    fn wide_digits_for_small_sorts_and_many_saved_passes() {
        // As measured on an H100: 32-bit keys of 10^4..10^6 and 21-22-bit keys of 10^5..10^6
        // sort faster in wide digits; 20-bit keys of 10^5 and anything of 10^7 in narrow ones.
        assert_eq!(digit_bits(10_000, 32), 8);
        assert_eq!(digit_bits(1_000_000, 32), 8);
        assert_eq!(digit_bits(100_000, 21), 8);
        assert_eq!(digit_bits(1_000_000, 22), 8);
        assert_eq!(digit_bits(2_000_000, 22), 8);
        assert_eq!(digit_bits(100_000, 20), 4);
        assert_eq!(digit_bits(10_000_000, 26), 4);
        assert_eq!(digit_bits(16_000_000, 32), 4);
    }
}

/// `PassCfg` mirrors the shader's `RadixPass`: checked here, where its fields are visible.
#[cfg(test)]
mod layout {
    use crate::shaders;
    use petri_engine::{host_layout, layout};

    #[test]
    fn the_host_struct_mirrors_the_wgsl_struct() {
        let host = host_layout!(super::PassCfg: shift, mask, bins);
        layout::check(shaders::scheduler::radix_sort::SHADER, "RadixPass", &host)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
