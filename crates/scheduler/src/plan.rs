//! A step plan: an ordered list of compute passes over named buffers, recorded many steps at a
//! time into one command encoder.
//!
//! Ping-pong pairs: a pass binds `current("n")` and `next("n")`; the plan builds one bind group
//! for even and one for odd steps, so the pair swaps every step without copies. Every pass sees
//! the per-step info (`shaders/common/step.wgsl`) at group 0 through a dynamic offset into a
//! buffer that holds one entry per step of the batch, so a whole batch is one submission.
//!
//! Beyond a fixed list of fixed-size passes (`add_pass`), `add_pass_with` takes a
//! `PassSchedule`:
//! - **Indirect dispatch**: the workgroup counts come from a registered buffer at a byte offset
//!   (made with `dispatch::args_buffer`), written by the host or by an earlier pass of the same
//!   step, e.g. `add_count_to_args`, which turns an item count (a particle count) into counts for
//!   a given workgroup size (`dispatch::dispatch_args` and its WGSL twin).
//! - **Every k steps**: the pass runs at the steps where `step % k == phase`. The host knows the
//!   step numbers when it records a batch, so it simply leaves the pass out of the other steps:
//!   results do not depend on the batch length.
//!
//! `add_generated_pass` builds a pass's pipeline from its shader with a generated section
//! replaced by code the caller writes for its input (`Shader::source_generated`, e.g. a reaction
//! network compiled into the kernel).
//!
//! `add_recorded` adds work that records itself into a compute pass (`RecordPass`: a scan, a
//! sort) as a pass of the step, in order with the plan's own, with an `Every` schedule. It
//! dispatches with its own sizes, so `run_until` cannot stop it and refuses a plan holding one.
//!
//! `add_on_demand` keeps a pass outside the steps, recorded only when the host asks
//! (`record_on_demand`) at the plan's current step and parity: an observation, or the count a
//! halo exchange needs after a batch. It sees the step info of that step (a slot of the step
//! buffer past the batch's entries), so it may follow a batch in the same encoder.
//! Passes that bind the same buffers the same way share their bind groups, and a batch binds a
//! group only when it changes (`Bound`).
//!
//! `run_until` runs the steps until a GPU flag rises or a bound is reached (`plan/until.rs`):
//! the host cannot branch on GPU data inside a batch, so every pass of such a loop is dispatched
//! from arguments a guard pass zeroes once the flag is up, and the GPU records the step count at
//! that moment, which the host reads back between batches.

mod until;

pub use until::LoopEnd;

use crate::dispatch::{BufferAt, DISPATCH_ARGS_BYTES};
use petri_engine::kernel::{self, Access};
use petri_engine::shaders::{self, EntryPoint};
use petri_engine::{BatchTimer, BatchTimes, EngineError, GpuContext, Profiler, Result};
use std::collections::HashMap;
use std::sync::Arc;

/// The per-step uniform the shaders see as `step_info` (group 0, binding 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StepInfo {
    pub step: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub parity: u32,
}

/// Which buffer a binding refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    Fixed(String),
    Current(String),
    Next(String),
}

/// One binding of a pass, numbered in order from 0 in the shader's `@group(1)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    slot: Slot,
    access: Access,
}

impl Binding {
    pub fn uniform(name: &str) -> Self {
        Self {
            slot: Slot::Fixed(name.into()),
            access: Access::Uniform,
        }
    }
    pub fn read(name: &str) -> Self {
        Self {
            slot: Slot::Fixed(name.into()),
            access: Access::ReadOnly,
        }
    }
    pub fn read_write(name: &str) -> Self {
        Self {
            slot: Slot::Fixed(name.into()),
            access: Access::ReadWrite,
        }
    }
    /// The half of pair `name` that holds this step's state (read only).
    pub fn current(name: &str) -> Self {
        Self {
            slot: Slot::Current(name.into()),
            access: Access::ReadOnly,
        }
    }
    /// The half of pair `name` that receives the next state.
    pub fn next(name: &str) -> Self {
        Self {
            slot: Slot::Next(name.into()),
            access: Access::ReadWrite,
        }
    }
    /// The same buffer with read-write access (for a pass that writes an intermediate result
    /// into the current half, e.g. the middle one of three sweeps).
    pub fn writable(self) -> Self {
        Self {
            access: Access::ReadWrite,
            ..self
        }
    }
    /// The same buffer with read-only access.
    pub fn read_only(self) -> Self {
        Self {
            access: Access::ReadOnly,
            ..self
        }
    }
}

/// What a pass runs: shader entry point, bindings, dispatch size.
pub struct PassDesc<'a> {
    pub label: &'a str,
    /// A registry entry point, e.g. `shaders::rdme::diffuse::DIFFUSE`.
    pub entry: EntryPoint,
    pub bindings: Vec<Binding>,
    pub workgroups: [u32; 3],
    pub constants: Vec<(&'a str, f64)>,
}

/// On which steps a pass runs: those with `step % k == phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Every {
    pub k: u32,
    pub phase: u32,
}

impl Every {
    /// Every step.
    pub const STEP: Every = Every { k: 1, phase: 0 };

    pub fn runs_at(&self, step: u64) -> bool {
        step % self.k as u64 == self.phase as u64
    }

    fn check(&self, label: &str) -> Result<()> {
        if self.k == 0 || self.phase >= self.k {
            return Err(EngineError::Plan(format!(
                "pass {label}: every k = {}, phase = {} is not allowed: k must be at least 1 and phase below k",
                self.k, self.phase
            )));
        }
        Ok(())
    }
}

impl Default for Every {
    fn default() -> Self {
        Self::STEP
    }
}

/// How and when a pass is dispatched (`StepPlan::add_pass_with`); the default is what
/// `add_pass` does: `PassDesc::workgroups`, every step.
#[derive(Clone, Debug, Default)]
pub struct PassSchedule {
    /// Read the workgroup counts from this place on the GPU (three u32) instead of
    /// `PassDesc::workgroups`, which is then not used.
    pub indirect: Option<BufferAt>,
    pub every: Every,
}

impl PassSchedule {
    /// Workgroup counts from buffer `name` at byte `offset`.
    pub fn indirect(self, name: &str, offset: u64) -> Self {
        Self {
            indirect: Some(BufferAt::new(name, offset)),
            ..self
        }
    }

    /// Only at the steps where `step % k == phase`.
    pub fn every(self, k: u32, phase: u32) -> Self {
        Self {
            every: Every { k, phase },
            ..self
        }
    }
}

/// Work that records itself into a compute pass: a GPU primitive (scan, sort, binning) with its
/// own pipelines and bind groups, added to a step with `StepPlan::add_recorded`. It does not see
/// the step info; a recorder that depends on the parity of a ping-pong pair is added twice, with
/// `Every { k: 2, phase: 0 }` and `{ k: 2, phase: 1 }`.
pub trait RecordPass: Send + Sync {
    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>);
}

/// So that the caller can keep a handle on a recorder it gives the plan.
impl<T: RecordPass + ?Sized> RecordPass for Arc<T> {
    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        (**self).record_pass(pass)
    }
}

/// Where a kernel pass finds its workgroup counts.
enum Dispatch {
    Fixed([u32; 3]),
    Indirect { buffer: wgpu::Buffer, offset: u64 },
}

enum Work {
    Kernel {
        pipeline: wgpu::ComputePipeline,
        groups: [wgpu::BindGroup; 2],
        dispatch: Dispatch,
    },
    Recorded(Box<dyn RecordPass>),
}

struct Pass {
    label: String,
    every: Every,
    work: Work,
}

/// A pass kept outside the steps (`StepPlan::add_on_demand`), recorded by `record_on_demand`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnDemandPass(usize);
/// What a compute pass has bound so far at group 0 (the step info's offset) and group 1. A
/// group stays bound across pipelines whose layouts agree there, so a run of passes with the
/// same bindings binds them once per step: on the host, binding costs about what a dispatch
/// does, which counts when a step is many small dispatches.
#[derive(Default)]
struct Bound<'a> {
    step_offset: Option<u32>,
    group: Option<&'a wgpu::BindGroup>,
}

/// A pass of a step: one of the plan's own (`add_pass`, by order) or a variant kept aside
/// (`add_variant`) to stand in for one in a step recorded on its own terms (`encode_head`,
/// `encode_with_first_step`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassRef {
    Step(usize),
    Variant(usize),
}

pub struct StepPlan {
    buffers: HashMap<String, wgpu::Buffer>,
    pairs: HashMap<String, [wgpu::Buffer; 2]>,
    passes: Vec<Pass>,
    variants: Vec<Pass>,
    on_demand: Vec<Pass>,
    /// The bind groups made so far, by binding list: passes that bind the same buffers the same
    /// way share them, so that a run of such passes binds its group once (`Bound`).
    groups: Vec<(Vec<Binding>, [wgpu::BindGroup; 2])>,
    step_layout: wgpu::BindGroupLayout,
    step_group: wgpu::BindGroup,
    step_buffer: wgpu::Buffer,
    stride: u64,
    /// Most steps one `encode` may record.
    pub max_steps_per_batch: u32,
    /// Steps recorded so far; the next recorded step has this index.
    pub step: u64,
    pub seed: u64,
    /// Times each unprofiled batch (and head) as a whole, when set (`time_batches`).
    batch_timer: Option<BatchTimer>,
    /// The guard of `run_until`, kept for the next call with the same flag and passes.
    guard: Option<until::Guard>,
    /// The last two batches submitted (`submit`), the latest second, for `pace`.
    submitted: [Option<wgpu::SubmissionIndex>; 2],
}

impl StepPlan {
    pub fn new(ctx: &GpuContext, seed: u64, max_steps_per_batch: u32) -> Self {
        let stride = (ctx.limits().min_uniform_buffer_offset_alignment as u64)
            .max(std::mem::size_of::<StepInfo>() as u64);
        let max_steps_per_batch = max_steps_per_batch.max(1);
        // One entry per step of a batch, then the on-demand passes' slot.
        let step_buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("step info"),
            size: stride * (max_steps_per_batch as u64 + 1),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let step_layout = kernel::bind_group_layout(ctx, "step info", &[Access::UniformDynamic]);
        let step_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("step info"),
            layout: &step_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &step_buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(std::mem::size_of::<StepInfo>() as u64),
                }),
            }],
        });
        Self {
            buffers: HashMap::new(),
            pairs: HashMap::new(),
            passes: Vec::new(),
            variants: Vec::new(),
            on_demand: Vec::new(),
            groups: Vec::new(),
            step_layout,
            step_group,
            step_buffer,
            stride,
            max_steps_per_batch,
            step: 0,
            seed,
            batch_timer: None,
            guard: None,
            submitted: [None, None],
        }
    }

    /// From now on, times every batch recorded without a profiler (and every head) with two
    /// timestamps (`BatchTimer`); None stops. No effect without timestamp queries.
    pub fn time_batches(&mut self, timer: Option<BatchTimer>) {
        self.batch_timer = timer;
    }

    /// The GPU time of the batches timed since `time_batches` (waits for them), or None when
    /// no timer is set.
    pub fn batch_times(&self, ctx: &GpuContext) -> Result<Option<BatchTimes>> {
        self.batch_timer.as_ref().map(|t| t.read(ctx)).transpose()
    }

    pub fn add_buffer(&mut self, name: &str, buffer: wgpu::Buffer) {
        self.buffers.insert(name.to_string(), buffer);
    }

    /// Registers a ping-pong pair; `pair[0]` holds the state at even steps.
    pub fn add_pair(&mut self, name: &str, pair: [wgpu::Buffer; 2]) {
        self.pairs.insert(name.to_string(), pair);
    }

    pub fn buffer(&self, name: &str) -> &wgpu::Buffer {
        self.buffers
            .get(name)
            .unwrap_or_else(|| panic!("step plan has no buffer {name:?}"))
    }

    /// Which half of every pair holds the state after the steps recorded so far (0 or 1).
    pub fn parity(&self) -> usize {
        (self.step % 2) as usize
    }

    /// The half of a pair holding the state after the steps recorded so far.
    pub fn current(&self, name: &str) -> &wgpu::Buffer {
        &self.pair(name)[self.parity()]
    }

    pub fn pair(&self, name: &str) -> &[wgpu::Buffer; 2] {
        self.pairs
            .get(name)
            .unwrap_or_else(|| panic!("step plan has no ping-pong pair {name:?}"))
    }

    fn resolve(&self, slot: &Slot, parity: usize) -> Result<&wgpu::Buffer> {
        let missing = |n: &str| EngineError::Device(format!("pass binds unknown buffer {n:?}"));
        Ok(match slot {
            Slot::Fixed(n) => self.buffers.get(n).ok_or_else(|| missing(n))?,
            Slot::Current(n) => &self.pairs.get(n).ok_or_else(|| missing(n))?[parity],
            Slot::Next(n) => &self.pairs.get(n).ok_or_else(|| missing(n))?[1 - parity],
        })
    }

    /// Appends a pass to the step. Passes run in the order they were added.
    pub fn add_pass(&mut self, ctx: &GpuContext, desc: PassDesc) -> Result<()> {
        self.add_pass_with(ctx, desc, PassSchedule::default())
    }

    /// Appends a pass dispatched and scheduled as `schedule` says (see the module doc).
    pub fn add_pass_with(
        &mut self,
        ctx: &GpuContext,
        desc: PassDesc,
        schedule: PassSchedule,
    ) -> Result<()> {
        let pass = self.build_pass(ctx, desc, None, schedule)?;
        self.passes.push(pass);
        Ok(())
    }

    /// `add_pass_with` for a shader with a generated section: `generated` is (section, code),
    /// the code standing in for the section's default (validated by naga when the pipeline is
    /// built, errors naming the section).
    pub fn add_generated_pass(
        &mut self,
        ctx: &GpuContext,
        desc: PassDesc,
        generated: (&str, &str),
        schedule: PassSchedule,
    ) -> Result<()> {
        let pass = self.build_pass(ctx, desc, Some(generated), schedule)?;
        self.passes.push(pass);
        Ok(())
    }

    /// Keeps a pass aside, not part of every step, for `PassRef::Variant` (its index returned).
    pub fn add_variant(&mut self, ctx: &GpuContext, desc: PassDesc) -> Result<usize> {
        let pass = self.build_pass(ctx, desc, None, PassSchedule::default())?;
        self.variants.push(pass);
        Ok(self.variants.len() - 1)
    }

    /// Keeps a pass outside the steps, recorded only by `record_on_demand`.
    pub fn add_on_demand(&mut self, ctx: &GpuContext, desc: PassDesc) -> Result<OnDemandPass> {
        let pass = self.build_pass(ctx, desc, None, PassSchedule::default())?;
        self.on_demand.push(pass);
        Ok(OnDemandPass(self.on_demand.len() - 1))
    }

    /// Records `pass` into `encoder` as its own compute pass, at the step the plan is at (the
    /// next to be recorded; a pair's `current` half is the state after the steps recorded so
    /// far). It sees that step's info, written into the step buffer's slot for on-demand passes:
    /// every on-demand pass of one submission sees the info of the last one recorded. It is
    /// never timed by the batch timer and does not count as a step.
    pub fn record_on_demand(
        &self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        pass: OnDemandPass,
    ) {
        let slot = self.stride * self.max_steps_per_batch as u64;
        ctx.queue
            .write_buffer(&self.step_buffer, slot, &self.step_infos(self.step, 1));
        let pass = &self.on_demand[pass.0];
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&pass.label),
            timestamp_writes: None,
        });
        self.record_work(
            &mut cpass,
            pass,
            self.parity(),
            slot as u32,
            &mut Bound::default(),
        );
    }

    /// Appends work that records itself (`RecordPass`) as a pass of the steps `every` picks, in
    /// order with the plan's own passes.
    pub fn add_recorded(
        &mut self,
        label: &str,
        recorder: impl RecordPass + 'static,
        every: Every,
    ) -> Result<()> {
        every.check(label)?;
        self.passes.push(Pass {
            label: label.to_string(),
            every,
            work: Work::Recorded(Box::new(recorder)),
        });
        Ok(())
    }

    /// Appends a pass that reads the item count (a u32) at `count` and writes at `args` the
    /// workgroup counts of a later pass of `group_size` x 1 x 1 invocations that handles one item
    /// per invocation (`dispatch::dispatch_args`, capped at the device's
    /// max_compute_workgroups_per_dimension). Add that pass with `PassSchedule::indirect` at
    /// `args`; its kernel finds its item with `dispatch_index` (`shaders/common/dispatch.wgsl`).
    pub fn add_count_to_args(
        &mut self,
        ctx: &GpuContext,
        label: &str,
        count: BufferAt,
        args: BufferAt,
        group_size: u32,
    ) -> Result<()> {
        if count.name == args.name {
            return Err(EngineError::Plan(format!(
                "pass {label}: the count and the arguments share buffer {:?}; use two buffers \
                 (a pass cannot bind one buffer both read-only and read-write)",
                count.name
            )));
        }
        count.check(label, self.named(label, &count.name)?, 4)?;
        args.check(label, self.named(label, &args.name)?, DISPATCH_ARGS_BYTES)?;
        ctx.check_workgroup_size(label, [group_size, 1, 1])?;
        let max_groups = ctx.limits().max_compute_workgroups_per_dimension;
        self.add_pass(
            ctx,
            PassDesc {
                label,
                entry: shaders::common::count_to_args::MAIN,
                bindings: vec![Binding::read(&count.name), Binding::read_write(&args.name)],
                workgroups: [1, 1, 1],
                constants: vec![
                    ("GROUP_SIZE", group_size as f64),
                    ("MAX_GROUPS", max_groups as f64),
                    ("COUNT_WORD", (count.offset / 4) as f64),
                    ("ARGS_WORD", (args.offset / 4) as f64),
                ],
            },
        )
    }

    /// The registered (not ping-pong) buffer `name`, or an error naming the pass that asked.
    fn named(&self, label: &str, name: &str) -> Result<&wgpu::Buffer> {
        self.buffers.get(name).ok_or_else(|| {
            EngineError::Plan(format!(
                "pass {label} names buffer {name:?}, which is not registered with add_buffer"
            ))
        })
    }

    fn build_pass(
        &mut self,
        ctx: &GpuContext,
        desc: PassDesc,
        generated: Option<(&str, &str)>,
        schedule: PassSchedule,
    ) -> Result<Pass> {
        schedule.every.check(desc.label)?;
        let dispatch = match &schedule.indirect {
            None => {
                for (axis, &n) in desc.workgroups.iter().enumerate() {
                    ctx.check_workgroups(&format!("pass {} axis {axis}", desc.label), n)?;
                }
                Dispatch::Fixed(desc.workgroups)
            }
            Some(at) => {
                let buffer = self.named(desc.label, &at.name)?;
                if !buffer.usage().contains(wgpu::BufferUsages::INDIRECT) {
                    return Err(EngineError::Plan(format!(
                        "pass {}: buffer {:?} lacks INDIRECT usage, so it cannot hold dispatch \
                         arguments; make it with petri_scheduler::dispatch::args_buffer",
                        desc.label, at.name
                    )));
                }
                at.check(desc.label, buffer, DISPATCH_ARGS_BYTES)?;
                Dispatch::Indirect {
                    buffer: buffer.clone(),
                    offset: at.offset,
                }
            }
        };
        let accesses: Vec<Access> = desc.bindings.iter().map(|b| b.access).collect();
        let storage = accesses
            .iter()
            .filter(|a| matches!(a, Access::ReadOnly | Access::ReadWrite))
            .count() as u32;
        ctx.check_storage_buffers_per_stage(&format!("pass {}", desc.label), storage)?;
        let layout = kernel::bind_group_layout(ctx, desc.label, &accesses);
        let layouts = [&self.step_layout, &layout];
        let pipeline = match generated {
            None => kernel::compute_pipeline(ctx, desc.entry, &layouts, &desc.constants)?,
            Some(code) => kernel::compute_pipeline_generated(
                ctx,
                desc.entry,
                code,
                &layouts,
                &desc.constants,
            )?,
        };
        let groups = self.bind_groups(ctx, desc.label, &layout, &desc.bindings)?;
        Ok(Pass {
            label: desc.label.to_string(),
            every: schedule.every,
            work: Work::Kernel {
                pipeline,
                groups,
                dispatch,
            },
        })
    }

    /// The bind groups of even and odd steps for `bindings`: those of an earlier pass with the
    /// same bindings (layouts with equal entries are interchangeable in WebGPU), or new ones;
    /// one group for both parities when no binding is half of a pair.
    fn bind_groups(
        &mut self,
        ctx: &GpuContext,
        label: &str,
        layout: &wgpu::BindGroupLayout,
        bindings: &[Binding],
    ) -> Result<[wgpu::BindGroup; 2]> {
        if let Some((_, groups)) = self.groups.iter().find(|(b, _)| b == bindings) {
            return Ok(groups.clone());
        }
        let group = |parity: usize| -> Result<wgpu::BindGroup> {
            let bufs = bindings
                .iter()
                .map(|b| self.resolve(&b.slot, parity))
                .collect::<Result<Vec<_>>>()?;
            Ok(kernel::bind_group(ctx, label, layout, &bufs))
        };
        let even = group(0)?;
        let paired = bindings.iter().any(|b| !matches!(b.slot, Slot::Fixed(_)));
        let odd = if paired { group(1)? } else { even.clone() };
        self.groups.push((bindings.to_vec(), [even, odd]));
        Ok(self.groups.last().expect("just pushed").1.clone())
    }

    fn pass(&self, r: PassRef) -> &Pass {
        match r {
            PassRef::Step(i) => &self.passes[i],
            PassRef::Variant(i) => &self.variants[i],
        }
    }

    /// Records pass `r` of step `step`, whose info sits at `offset` in the step buffer, if the
    /// pass runs at that step.
    fn dispatch<'a>(
        &'a self,
        cpass: &mut wgpu::ComputePass,
        r: PassRef,
        step: u64,
        offset: u32,
        bound: &mut Bound<'a>,
    ) {
        let pass = self.pass(r);
        if pass.every.runs_at(step) {
            self.record_work(cpass, pass, (step % 2) as usize, offset, bound);
        }
    }

    /// Records `pass` with the bind groups of `parity` and the step info at `offset`.
    fn record_work<'a>(
        &'a self,
        cpass: &mut wgpu::ComputePass,
        pass: &'a Pass,
        parity: usize,
        offset: u32,
        bound: &mut Bound<'a>,
    ) {
        match &pass.work {
            Work::Recorded(recorder) => {
                recorder.record_pass(cpass);
                // It binds its own groups.
                *bound = Bound::default();
            }
            Work::Kernel {
                pipeline,
                groups,
                dispatch,
            } => {
                self.bind(cpass, pipeline, &groups[parity], offset, bound);
                match dispatch {
                    Dispatch::Fixed([x, y, z]) => cpass.dispatch_workgroups(*x, *y, *z),
                    Dispatch::Indirect { buffer, offset } => {
                        cpass.dispatch_workgroups_indirect(buffer, *offset)
                    }
                }
            }
        }
    }

    /// Sets a kernel's pipeline, the step info at `offset` and the kernel's own bind group,
    /// each group unless `bound` says the compute pass has it already.
    fn bind<'a>(
        &'a self,
        cpass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        group: &'a wgpu::BindGroup,
        offset: u32,
        bound: &mut Bound<'a>,
    ) {
        cpass.set_pipeline(pipeline);
        if bound.step_offset != Some(offset) {
            cpass.set_bind_group(0, &self.step_group, &[offset]);
            bound.step_offset = Some(offset);
        }
        if bound.group != Some(group) {
            cpass.set_bind_group(1, group, &[]);
            bound.group = Some(group);
        }
    }

    /// The step info of steps `first..first + steps`, one entry per stride.
    fn step_infos(&self, first: u64, steps: u32) -> Vec<u8> {
        (0..steps as u64)
            .flat_map(|i| {
                let s = first + i;
                let info = StepInfo {
                    step: s as u32,
                    seed_lo: self.seed as u32,
                    seed_hi: (self.seed >> 32) as u32,
                    parity: (s % 2) as u32,
                };
                let mut entry = bytemuck::bytes_of(&info).to_vec();
                entry.resize(self.stride as usize, 0);
                entry
            })
            .collect()
    }

    /// Records `passes` of the next step (the one the next `encode` records first) into a new
    /// encoder, ahead of the rest of that step: e.g. the part of a pass that does not wait for
    /// a halo exchange, submitted before it. Does not count the step.
    pub fn encode_head(&mut self, ctx: &GpuContext, passes: &[PassRef]) -> wgpu::CommandEncoder {
        ctx.queue
            .write_buffer(&self.step_buffer, 0, &self.step_infos(self.step, 1));
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("step head"),
            });
        self.timed_pass(&mut encoder, "step head", |plan, cpass| {
            let mut bound = Bound::default();
            for &r in passes {
                plan.dispatch(cpass, r, plan.step, 0, &mut bound);
            }
        });
        encoder
    }

    /// Records one compute pass with `record`, timed as a whole when a batch timer is set.
    fn timed_pass(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        label: &str,
        record: impl FnOnce(&Self, &mut wgpu::ComputePass),
    ) {
        let mut timer = self.batch_timer.take();
        {
            let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: timer.as_mut().and_then(BatchTimer::timestamp_writes),
            });
            record(self, &mut cpass);
        }
        if let Some(t) = timer.as_mut() {
            t.resolve(encoder);
        }
        self.batch_timer = timer;
    }

    /// Records `steps` steps into a new encoder (at most `max_steps_per_batch`), with timestamps
    /// for each pass when a profiler with room is given. Submit the encoder before the next call:
    /// the per-step info of this batch is written into the shared step buffer.
    pub fn encode(
        &mut self,
        ctx: &GpuContext,
        steps: u32,
        profiler: Option<&mut Profiler>,
    ) -> wgpu::CommandEncoder {
        self.encode_with_first_step(ctx, steps, profiler, None)
    }

    /// `encode`, with the first step's passes given by `first_step` (None: the plan's own), e.g.
    /// the rest of a step whose head `encode_head` recorded.
    pub fn encode_with_first_step(
        &mut self,
        ctx: &GpuContext,
        steps: u32,
        mut profiler: Option<&mut Profiler>,
        first_step: Option<&[PassRef]>,
    ) -> wgpu::CommandEncoder {
        assert!(
            steps <= self.max_steps_per_batch,
            "batch of {steps} steps exceeds the plan's {} per batch",
            self.max_steps_per_batch
        );
        let own: Vec<PassRef> = (0..self.passes.len()).map(PassRef::Step).collect();
        let step_passes = |i: u64| match (i, first_step) {
            (0, Some(first)) => first,
            _ => own.as_slice(),
        };
        let infos = self.step_infos(self.step, steps);
        if !infos.is_empty() {
            ctx.queue.write_buffer(&self.step_buffer, 0, &infos);
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("steps"),
            });
        if profiler.is_none() {
            // One compute pass for the whole batch: wgpu still orders the dispatches (each is
            // its own usage scope, with barriers between), and recording costs far less than a
            // pass per dispatch, which matters when a step takes microseconds.
            self.timed_pass(&mut encoder, "steps", |plan, cpass| {
                let mut bound = Bound::default();
                for i in 0..steps as u64 {
                    let offset = (i * plan.stride) as u32;
                    for &r in step_passes(i) {
                        plan.dispatch(cpass, r, plan.step + i, offset, &mut bound);
                    }
                }
            });
            self.step += steps as u64;
            return encoder;
        }
        for i in 0..steps as u64 {
            let step = self.step + i;
            let offset = (i * self.stride) as u32;
            for &r in step_passes(i) {
                if !self.pass(r).every.runs_at(step) {
                    continue;
                }
                let label = &self.pass(r).label;
                let timestamp_writes = profiler
                    .as_deref_mut()
                    .and_then(|p| p.timestamp_writes(label));
                let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(label),
                    timestamp_writes,
                });
                self.dispatch(&mut cpass, r, step, offset, &mut Bound::default());
            }
        }
        self.step += steps as u64;
        encoder
    }

    /// Records and submits `steps` steps in batches, without waiting for the GPU.
    pub fn run(&mut self, ctx: &GpuContext, mut steps: u64) {
        while steps > 0 {
            let n = steps.min(self.max_steps_per_batch as u64) as u32;
            let encoder = self.encode(ctx, n, None);
            self.submit(ctx, encoder);
            steps -= n as u64;
        }
    }

    /// Submits a batch `encode` recorded (with whatever the caller added), for `pace`.
    pub fn submit(&mut self, ctx: &GpuContext, encoder: wgpu::CommandEncoder) {
        let index = ctx.queue.submit([encoder.finish()]);
        self.submitted = [self.submitted[1].take(), Some(index)];
    }

    /// Waits until the GPU has done every batch submitted but the latest: a caller that asks
    /// between batches whether to stop then stops within about two batches, however many
    /// steps it queues, and the GPU still has the latest batch to run while the next is
    /// recorded.
    pub fn pace(&mut self, ctx: &GpuContext) -> Result<()> {
        match self.submitted[0].take() {
            Some(index) => ctx.wait_for(index),
            None => Ok(()),
        }
    }

    pub fn pass_count(&self) -> usize {
        self.passes.len()
    }
}
