//! A step plan: an ordered list of compute passes over named buffers, recorded many steps at a
//! time into one command encoder.
//!
//! Ping-pong pairs: a pass binds `current("n")` and `next("n")`; the plan builds one bind group
//! for even and one for odd steps, so the pair swaps every step without copies. Every pass sees
//! the per-step info (`shaders/common/step.wgsl`) at group 0 through a dynamic offset into a
//! buffer that holds one entry per step of the batch, so a whole batch is one submission.

use petri_engine::kernel::{self, Access};
use petri_engine::shaders::EntryPoint;
use petri_engine::{BatchTimer, BatchTimes, EngineError, GpuContext, Profiler, Result};
use std::collections::HashMap;

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
#[derive(Clone, Debug)]
enum Slot {
    Fixed(String),
    Current(String),
    Next(String),
}

/// One binding of a pass, numbered in order from 0 in the shader's `@group(1)`.
#[derive(Clone, Debug)]
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

struct Pass {
    label: String,
    pipeline: wgpu::ComputePipeline,
    groups: [wgpu::BindGroup; 2],
    workgroups: [u32; 3],
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
}

impl StepPlan {
    pub fn new(ctx: &GpuContext, seed: u64, max_steps_per_batch: u32) -> Self {
        let stride = (ctx.limits().min_uniform_buffer_offset_alignment as u64)
            .max(std::mem::size_of::<StepInfo>() as u64);
        let max_steps_per_batch = max_steps_per_batch.max(1);
        let step_buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("step info"),
            size: stride * max_steps_per_batch as u64,
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
            step_layout,
            step_group,
            step_buffer,
            stride,
            max_steps_per_batch,
            step: 0,
            seed,
            batch_timer: None,
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
        let pass = self.build_pass(ctx, desc)?;
        self.passes.push(pass);
        Ok(())
    }

    /// Keeps a pass aside, not part of every step, for `PassRef::Variant` (its index returned).
    pub fn add_variant(&mut self, ctx: &GpuContext, desc: PassDesc) -> Result<usize> {
        let pass = self.build_pass(ctx, desc)?;
        self.variants.push(pass);
        Ok(self.variants.len() - 1)
    }

    fn build_pass(&self, ctx: &GpuContext, desc: PassDesc) -> Result<Pass> {
        let accesses: Vec<Access> = desc.bindings.iter().map(|b| b.access).collect();
        let storage = accesses
            .iter()
            .filter(|a| matches!(a, Access::ReadOnly | Access::ReadWrite))
            .count() as u32;
        ctx.check_storage_buffers_per_stage(&format!("pass {}", desc.label), storage)?;
        let layout = kernel::bind_group_layout(ctx, desc.label, &accesses);
        let pipeline = kernel::compute_pipeline(
            ctx,
            desc.entry,
            &[&self.step_layout, &layout],
            &desc.constants,
        )?;
        for (axis, &n) in desc.workgroups.iter().enumerate() {
            ctx.check_workgroups(&format!("pass {} axis {axis}", desc.label), n)?;
        }
        let group = |parity: usize| -> Result<wgpu::BindGroup> {
            let bufs = desc
                .bindings
                .iter()
                .map(|b| self.resolve(&b.slot, parity))
                .collect::<Result<Vec<_>>>()?;
            Ok(kernel::bind_group(ctx, desc.label, &layout, &bufs))
        };
        let groups = [group(0)?, group(1)?];
        Ok(Pass {
            label: desc.label.to_string(),
            pipeline,
            groups,
            workgroups: desc.workgroups,
        })
    }

    fn pass(&self, r: PassRef) -> &Pass {
        match r {
            PassRef::Step(i) => &self.passes[i],
            PassRef::Variant(i) => &self.variants[i],
        }
    }

    /// Records pass `r` of the step whose info sits at `offset` in the step buffer.
    fn dispatch(&self, cpass: &mut wgpu::ComputePass, r: PassRef, parity: usize, offset: u32) {
        let pass = self.pass(r);
        cpass.set_pipeline(&pass.pipeline);
        cpass.set_bind_group(0, &self.step_group, &[offset]);
        cpass.set_bind_group(1, &pass.groups[parity], &[]);
        let [x, y, z] = pass.workgroups;
        cpass.dispatch_workgroups(x, y, z);
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
            let parity = (plan.step % 2) as usize;
            for &r in passes {
                plan.dispatch(cpass, r, parity, 0);
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
                for i in 0..steps as u64 {
                    let parity = ((plan.step + i) % 2) as usize;
                    let offset = (i * plan.stride) as u32;
                    for &r in step_passes(i) {
                        plan.dispatch(cpass, r, parity, offset);
                    }
                }
            });
            self.step += steps as u64;
            return encoder;
        }
        for i in 0..steps as u64 {
            let parity = ((self.step + i) % 2) as usize;
            let offset = (i * self.stride) as u32;
            for &r in step_passes(i) {
                let label = &self.pass(r).label;
                let timestamp_writes = profiler
                    .as_deref_mut()
                    .and_then(|p| p.timestamp_writes(label));
                let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(label),
                    timestamp_writes,
                });
                self.dispatch(&mut cpass, r, parity, offset);
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
            ctx.queue.submit([encoder.finish()]);
            steps -= n as u64;
        }
    }

    pub fn pass_count(&self) -> usize {
        self.passes.len()
    }
}
