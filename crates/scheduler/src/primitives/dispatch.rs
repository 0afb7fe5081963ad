//! Workgroup counts computed on the GPU (`shaders/scheduler/dispatch.wgsl`), so that a length
//! that lives in a GPU buffer sizes the dispatches without a readback.
//!
//! A table has up to 8 slots. Slot k has a length (the input length, or an earlier slot's group
//! count, times `mul` plus `add`) and a group count (`ceil(len / per_group)`, at least
//! `min_groups`). Each slot's length goes into `lens` (which the kernels read) and its
//! `(groups, 1, 1)` into `args`; a dispatch then uses `dispatch(pass, k)`. With a length on the
//! GPU a one-thread setup pass writes them as the work runs; with a host length the host writes
//! them (`cpu_eval`, the setup pass's twin) when the length is set, and no setup pass runs.

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

/// The dispatch sizes of a launcher: the buffers its dispatches read, and what fills them.
pub struct DispatchTable {
    args: wgpu::Buffer,
    lens: wgpu::Buffer,
    /// The setup pass (for `Length::Gpu`), or None where the host writes the table.
    setup: Option<(Kernels, wgpu::BindGroup)>,
    slots: Vec<SlotDesc>,
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
        let args = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dispatch args"),
            size: (3 * slots.len() * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let lens = u32_buffer(ctx, "dispatch lengths", slots.len() as u64)?;
        let mut table = Self {
            args,
            lens,
            setup: None,
            slots: slots.to_vec(),
            capacity,
            primitive,
        };
        match length {
            Length::Host(n) => table.set_len(ctx, *n)?,
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
                let cfg = uniform(ctx, "dispatch cfg", &cfg);
                let group =
                    kernels.bind(ctx, "dispatch", &[&cfg, buffer, &table.args, &table.lens]);
                table.setup = Some((kernels, group));
            }
        }
        Ok(table)
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

    /// Sets a host length (`Length::Host` only): writes the table as the setup pass would
    /// (queue writes, so it applies to work submitted after this call).
    pub fn set_len(&self, ctx: &GpuContext, n: u32) -> Result<()> {
        if self.setup.is_some() {
            return Err(invalid(
                self.primitive,
                "set_len",
                n,
                "only with Length::Host (this launcher reads its length from a GPU buffer)",
            ));
        }
        check_host_len(self.primitive, n, self.capacity)?;
        // At most the capacity, so every value fits in u32 (checked at construction).
        let table = Self::cpu_eval(&self.slots, n as u64);
        let lens: Vec<u32> = table.iter().map(|&(len, _)| len as u32).collect();
        let args: Vec<u32> = table
            .iter()
            .flat_map(|&(_, groups)| [groups as u32, 1, 1])
            .collect();
        ctx.queue
            .write_buffer(&self.lens, 0, bytemuck::cast_slice(&lens));
        ctx.queue
            .write_buffer(&self.args, 0, bytemuck::cast_slice(&args));
        Ok(())
    }

    /// Each slot's length (u32 per slot).
    pub fn lens(&self) -> &wgpu::Buffer {
        &self.lens
    }

    /// The indirect arguments (three u32 per slot).
    pub fn args(&self) -> &wgpu::Buffer {
        &self.args
    }

    /// Records the setup dispatch of a length on the GPU (nothing for a host length); later
    /// dispatches of the same pass see its results.
    pub fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        if let Some((kernels, group)) = &self.setup {
            pass.set_pipeline(kernels.pipeline(0));
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
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
