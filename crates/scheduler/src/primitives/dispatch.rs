//! Workgroup counts computed on the GPU (`shaders/scheduler/dispatch.wgsl`), so that a length
//! that lives in a GPU buffer sizes the dispatches without a readback.
//!
//! A table has up to 8 slots. Slot k has a length (the input length, or an earlier slot's group
//! count, times `mul` plus `add`) and a group count (`ceil(len / per_group)`, at least
//! `min_groups`). The setup pass writes each slot's length into `lens` (which the kernels read)
//! and its `(groups, 1, 1)` into `args`; a dispatch then uses `dispatch(pass, k)`. With a host
//! length the launcher keeps the value in its own 4-byte buffer, so both sources take the same
//! path (one extra one-thread dispatch per launch).

use super::{invalid, u32_buffer, uniform, Kernels, Length, Result};
use crate::shaders::scheduler::dispatch;
use petri_engine::kernel::Access;
use petri_engine::GpuContext;

const MAX_SLOTS: usize = 8;
const FROM_LENGTH: u32 = u32::MAX;

/// One slot of a dispatch table (module doc).
#[derive(Clone, Copy, Debug)]
pub struct SlotDesc {
    /// None: the input length; Some(k): slot k's group count (k below this slot).
    pub from: Option<usize>,
    pub mul: u32,
    pub add: u32,
    pub per_group: u32,
    pub min_groups: u32,
}

impl SlotDesc {
    /// Groups of `per_group` items covering the input length.
    pub fn length(per_group: u32) -> Self {
        Self {
            from: None,
            mul: 1,
            add: 0,
            per_group,
            min_groups: 0,
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Cfg {
    slots: u32,
    capacity: u32,
    word: u32,
    _pad: u32,
    slot: [[u32; 4]; 2 * MAX_SLOTS],
}

/// The setup pass of a launcher and the buffers it fills.
pub struct DispatchTable {
    kernels: Kernels,
    group: wgpu::BindGroup,
    args: wgpu::Buffer,
    lens: wgpu::Buffer,
    /// The host length's buffer, for `Length::Host`.
    host: Option<wgpu::Buffer>,
    capacity: u32,
    primitive: &'static str,
}

impl DispatchTable {
    /// A table for lengths up to `capacity`; fails when a slot would need more workgroups than
    /// the device allows along one dimension, or a length above u32.
    pub fn new(
        ctx: &GpuContext,
        primitive: &'static str,
        length: &Length,
        capacity: u32,
        slots: &[SlotDesc],
    ) -> Result<Self> {
        if slots.is_empty() || slots.len() > MAX_SLOTS {
            return Err(invalid(
                primitive,
                "dispatch slots",
                slots.len(),
                format!("1..={MAX_SLOTS}"),
            ));
        }
        for (k, s) in slots.iter().enumerate() {
            if s.from.is_some_and(|f| f >= k) || s.per_group == 0 {
                return Err(invalid(
                    primitive,
                    "dispatch slot",
                    format!("{k}: {s:?}"),
                    "`from` an earlier slot and per_group > 0",
                ));
            }
        }
        let at_capacity = Self::cpu_eval(slots, capacity as u64);
        for (k, &(len, groups)) in at_capacity.iter().enumerate() {
            if len > u32::MAX as u64 {
                return Err(invalid(
                    primitive,
                    "capacity",
                    capacity,
                    format!("a capacity whose slot {k} length ({len}) fits in u32"),
                ));
            }
            ctx.check_workgroups(
                &format!("{primitive} at capacity {capacity}"),
                groups as u32,
            )?;
        }
        let mut cfg = Cfg {
            slots: slots.len() as u32,
            capacity,
            word: 0,
            _pad: 0,
            slot: [[0; 4]; 2 * MAX_SLOTS],
        };
        for (k, s) in slots.iter().enumerate() {
            let from = s.from.map_or(FROM_LENGTH, |f| f as u32);
            cfg.slot[2 * k] = [from, s.mul, s.add, s.per_group];
            cfg.slot[2 * k + 1] = [s.min_groups, 0, 0, 0];
        }
        let (source, host) = match length {
            Length::Host(n) => {
                check_host_len(primitive, *n, capacity)?;
                let b = petri_engine::buffers::storage_from(ctx, "host length", &[*n])?;
                (b.clone(), Some(b))
            }
            Length::Gpu { buffer, word } => {
                if (*word as u64 + 1) * 4 > buffer.size() {
                    return Err(invalid(
                        primitive,
                        "length word",
                        word,
                        format!("an index into the {}-byte length buffer", buffer.size()),
                    ));
                }
                cfg.word = *word;
                (buffer.clone(), None)
            }
        };
        let kernels = Kernels::new(
            ctx,
            &[dispatch::SETUP],
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
            ],
        )?;
        let args = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dispatch args"),
            size: (3 * slots.len() * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let lens = u32_buffer(ctx, "dispatch lengths", slots.len() as u64)?;
        let cfg = uniform(ctx, "dispatch cfg", &cfg);
        let group = kernels.bind(ctx, "dispatch", &[&cfg, &source, &args, &lens]);
        Ok(Self {
            kernels,
            group,
            args,
            lens,
            host,
            capacity,
            primitive,
        })
    }

    /// Each slot's (length, groups) for input length `n`, as the setup pass computes them.
    pub fn cpu_eval(slots: &[SlotDesc], n: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(slots.len());
        for s in slots {
            let base = s.from.map_or(n, |f| out[f].1);
            let len = base * s.mul as u64 + s.add as u64;
            let groups = len.div_ceil(s.per_group as u64).max(s.min_groups as u64);
            out.push((len, groups));
        }
        out
    }

    /// Sets a host length (`Length::Host` only); applies to work submitted after this call.
    pub fn set_len(&self, ctx: &GpuContext, n: u32) -> Result<()> {
        let Some(host) = &self.host else {
            return Err(invalid(
                self.primitive,
                "set_len",
                n,
                "only with Length::Host (this launcher reads its length from a GPU buffer)",
            ));
        };
        check_host_len(self.primitive, n, self.capacity)?;
        ctx.queue.write_buffer(host, 0, bytemuck::bytes_of(&n));
        Ok(())
    }

    /// Each slot's length as written by the setup pass (u32 per slot).
    pub fn lens(&self) -> &wgpu::Buffer {
        &self.lens
    }

    /// The indirect arguments (three u32 per slot).
    pub fn args(&self) -> &wgpu::Buffer {
        &self.args
    }

    /// Records the setup dispatch; later dispatches of the same pass see its results.
    pub fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(self.kernels.pipeline(0));
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Dispatches the bound pipeline with slot `k`'s group count.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, k: usize) {
        pass.dispatch_workgroups_indirect(&self.args, (3 * k * 4) as u64);
    }
}

fn check_host_len(primitive: &'static str, n: u32, capacity: u32) -> Result<()> {
    if n > capacity {
        return Err(invalid(
            primitive,
            "length",
            n,
            format!("at most the capacity {capacity} given at construction"),
        ));
    }
    Ok(())
}

/// `Cfg` mirrors the shader's `DispatchCfg`: checked here, where its fields are visible.
#[cfg(test)]
mod layout {
    use crate::shaders;
    use petri_engine::{host_layout, layout};

    #[test]
    fn the_host_struct_mirrors_the_wgsl_struct() {
        let host = host_layout!(super::Cfg: slots, capacity, word, slot);
        layout::check(shaders::scheduler::dispatch::SHADER, "DispatchCfg", &host)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
