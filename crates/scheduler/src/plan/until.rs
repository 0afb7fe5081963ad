//! Loops that run until a GPU flag says stop (`StepPlan::run_until`).
//!
//! The host records whole batches and cannot look at GPU data inside one, so the loop is guarded
//! on the GPU (`shaders/common/loop_guard.wgsl`). Each step starts with a guard pass: it latches
//! a raised flag (with the step count at that moment, so the host learns the exact step whatever
//! the batch length) and writes every pass's workgroup counts into the guard buffer, or zeros
//! once stopped. Every pass of the loop is dispatched indirectly from there; a pass that is
//! already indirect gets a gate pass just before it, which copies its counts or zeros. A batch
//! ends with a latch of a flag its last step raised. After each batch the host copies the guard's
//! two words into a readback ring and polls the ring without blocking, so a few batches stay in
//! flight; the ones recorded after the stop cost the GPU only the guard's tiny passes.

use super::{Bound, BufferAt, Dispatch, StepPlan, Work};
use crate::ReadbackRing;
use petri_engine::kernel::{self, Access};
use petri_engine::shaders::{common::loop_guard, EntryPoint};
use petri_engine::{buffers, EngineError, GpuContext, Result};

/// Words of the guard buffer ahead of the dispatch arguments (`Guard::args` in the shader).
const ARGS_BASE: u64 = 4;
/// Bytes of the guard's state the host reads: stopped, stop step.
const STATE_BYTES: u64 = 8;
/// Batches in flight while the host waits for the guard's state.
const READBACK_SLOTS: usize = 3;

/// How a `run_until` loop ended. `plan.step` is then the step count the loop reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopEnd {
    /// The flag rose during step `step - 1` (or was already up when the loop began at `step`);
    /// no pass ran after it.
    Flagged { step: u64 },
    /// The bound: `max_steps` steps ran and the flag did not rise.
    Bound,
}

/// The guard's buffers and pipelines for one flag and one list of passes.
pub(super) struct Guard {
    flag: BufferAt,
    passes: usize,
    buffer: wgpu::Buffer,
    guard_step: wgpu::ComputePipeline,
    latch: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// Per pass: the gate pipeline and bind group of an indirect pass.
    gates: Vec<Option<(wgpu::ComputePipeline, wgpu::BindGroup)>>,
}

impl Guard {
    fn new(plan: &StepPlan, ctx: &GpuContext, flag: &BufferAt) -> Result<Self> {
        let what = "run_until flag";
        let flag_buffer = plan.named(what, &flag.name)?;
        flag.check(what, flag_buffer, 4)?;
        if !flag_buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(EngineError::Plan(format!(
                "{what}: buffer {:?} lacks STORAGE usage, so the guard cannot read it",
                flag.name
            )));
        }
        let mut fixed = Vec::with_capacity(3 * plan.passes.len());
        for pass in &plan.passes {
            match &pass.work {
                Work::Kernel {
                    dispatch: Dispatch::Fixed(w),
                    ..
                } => fixed.extend_from_slice(w),
                Work::Kernel { .. } => fixed.extend_from_slice(&[0; 3]),
                Work::Recorded(_) => {
                    return Err(EngineError::Plan(format!(
                        "run_until: pass {} records itself (add_recorded), so the guard cannot \
                         stop it once the flag is up; a loop holds only the plan's own passes",
                        pass.label
                    )))
                }
            }
        }
        let fixed_buffer = buffers::storage_from(ctx, "loop guard fixed counts", &fixed)?;
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("loop guard"),
            size: 4 * (ARGS_BASE + fixed.len().max(1) as u64),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = kernel::bind_group_layout(
            ctx,
            "loop guard",
            &[Access::ReadOnly, Access::ReadOnly, Access::ReadWrite],
        );
        let layouts = [&plan.step_layout, &layout];
        let pipeline = |entry: EntryPoint, constants: &[(&str, f64)]| {
            kernel::compute_pipeline(ctx, entry, &layouts, constants)
        };
        let flag_word = [("FLAG_WORD", (flag.offset / 4) as f64)];
        let group_on = |source: &wgpu::Buffer| {
            kernel::bind_group(
                ctx,
                "loop guard",
                &layout,
                &[source, &fixed_buffer, &buffer],
            )
        };
        let mut gates = Vec::with_capacity(plan.passes.len());
        for (i, pass) in plan.passes.iter().enumerate() {
            gates.push(match &pass.work {
                Work::Kernel {
                    dispatch: Dispatch::Indirect { buffer, offset },
                    ..
                } => {
                    let constants = [
                        ("SOURCE_WORD", (offset / 4) as f64),
                        ("SLOT_WORD", (3 * i) as f64),
                    ];
                    Some((pipeline(loop_guard::GATE, &constants)?, group_on(buffer)))
                }
                _ => None,
            });
        }
        Ok(Self {
            flag: flag.clone(),
            passes: plan.passes.len(),
            guard_step: pipeline(loop_guard::GUARD_STEP, &flag_word)?,
            latch: pipeline(loop_guard::LATCH_AFTER_STEP, &flag_word)?,
            group: group_on(flag_buffer),
            gates,
            buffer,
        })
    }

    /// Byte offset of pass `i`'s dispatch arguments in the guard buffer.
    fn slot(i: usize) -> u64 {
        4 * (ARGS_BASE + 3 * i as u64)
    }
}

impl StepPlan {
    /// Runs steps until the u32 at `flag` (a registered storage buffer) is nonzero after a step,
    /// or `max_steps` steps ran, and says which (`LoopEnd`). Every pass of the plan takes part,
    /// with its schedule; passes added with `add_recorded` cannot, since the guard cannot stop
    /// them. A flag already up stops the loop before its first step: clear it to run again.
    /// Afterwards `self.step` is the step count reached, and the ping-pong pairs hold the state
    /// after it, whatever the batch length. Each step costs one more tiny pass, and one per
    /// indirect pass.
    pub fn run_until(
        &mut self,
        ctx: &GpuContext,
        flag: &BufferAt,
        max_steps: u64,
    ) -> Result<LoopEnd> {
        let end = self.run_until_or(ctx, flag, max_steps, &|| false)?;
        Ok(end.expect("a loop that is never cancelled ends flagged or at its bound"))
    }

    /// [`run_until`](Self::run_until) that also asks `cancel` on the host after submitting
    /// each batch: once it says true, the batches in flight finish and the loop ends there,
    /// `None` unless the flag rose in them. `self.step` is then the step count reached; the
    /// caller decides what a loop cut short is worth.
    pub fn run_until_or(
        &mut self,
        ctx: &GpuContext,
        flag: &BufferAt,
        max_steps: u64,
        cancel: &dyn Fn() -> bool,
    ) -> Result<Option<LoopEnd>> {
        let guard = match self.guard.take() {
            Some(g) if g.flag == *flag && g.passes == self.passes.len() => g,
            _ => Guard::new(self, ctx, flag)?,
        };
        let end = self.run_guarded(ctx, &guard, max_steps, cancel);
        self.guard = Some(guard);
        end
    }

    fn run_guarded(
        &mut self,
        ctx: &GpuContext,
        guard: &Guard,
        max_steps: u64,
        cancel: &dyn Fn() -> bool,
    ) -> Result<Option<LoopEnd>> {
        ctx.queue
            .write_buffer(&guard.buffer, 0, &[0; STATE_BYTES as usize]);
        let start = self.step;
        let end = start + max_steps;
        let mut ring = ReadbackRing::new(ctx, STATE_BYTES, READBACK_SLOTS);
        let mut stop = None;
        let mut cancelled = false;
        while self.step < end && stop.is_none() && !cancelled {
            let steps = (end - self.step).min(self.max_steps_per_batch as u64) as u32;
            let mut encoder = self.encode_guarded(ctx, guard, steps);
            let slot = ring.begin(ctx, self.step)?;
            encoder.copy_buffer_to_buffer(&guard.buffer, 0, slot, 0, STATE_BYTES);
            ctx.queue.submit([encoder.finish()]);
            ring.submitted();
            stop = stop_step(&ring.poll(ctx)?, start);
            cancelled = cancel();
        }
        if stop.is_none() {
            stop = stop_step(&ring.finish(ctx)?, start);
        }
        Ok(match stop {
            Some(step) => {
                // The batches recorded past the stop did nothing: the state is that of `step`.
                self.step = step;
                Some(LoopEnd::Flagged { step })
            }
            None if cancelled => None,
            None => Some(LoopEnd::Bound),
        })
    }

    /// `encode` for a guarded loop: the guard pass first in every step, every pass dispatched
    /// from the guard buffer, and the latch after the last step.
    fn encode_guarded(
        &mut self,
        ctx: &GpuContext,
        guard: &Guard,
        steps: u32,
    ) -> wgpu::CommandEncoder {
        ctx.queue
            .write_buffer(&self.step_buffer, 0, &self.step_infos(self.step, steps));
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("guarded steps"),
            });
        self.timed_pass(&mut encoder, "guarded steps", |plan, cpass| {
            let mut bound = Bound::default();
            for i in 0..steps as u64 {
                let step = plan.step + i;
                let offset = (i * plan.stride) as u32;
                plan.bind(cpass, &guard.guard_step, &guard.group, offset, &mut bound);
                cpass.dispatch_workgroups(1, 1, 1);
                for (p, pass) in plan.passes.iter().enumerate() {
                    let Work::Kernel {
                        pipeline, groups, ..
                    } = &pass.work
                    else {
                        unreachable!("Guard::new refuses recorded passes");
                    };
                    if !pass.every.runs_at(step) {
                        continue;
                    }
                    if let Some((gate, group)) = &guard.gates[p] {
                        plan.bind(cpass, gate, group, offset, &mut bound);
                        cpass.dispatch_workgroups(1, 1, 1);
                    }
                    let group = &groups[(step % 2) as usize];
                    plan.bind(cpass, pipeline, group, offset, &mut bound);
                    cpass.dispatch_workgroups_indirect(&guard.buffer, Guard::slot(p));
                }
            }
            let last = (steps.saturating_sub(1) as u64 * plan.stride) as u32;
            plan.bind(cpass, &guard.latch, &guard.group, last, &mut bound);
            cpass.dispatch_workgroups(1, 1, 1);
        });
        self.step += steps as u64;
        encoder
    }
}

/// The step count at which the guard stopped, from the first readout that says it did; the
/// GPU counts steps in u32, which the loop's first step `start` widens back.
fn stop_step(readouts: &[crate::Readout], start: u64) -> Option<u64> {
    readouts.iter().find_map(|r| {
        let words: [u32; 2] = bytemuck::pod_read_unaligned(&r.bytes[..STATE_BYTES as usize]);
        (words[0] != 0).then(|| start + words[1].wrapping_sub(start as u32) as u64)
    })
}
