//! The GPU step: gray_scott.wgsl over two ping-pong pairs of storage buffers (u and v), driven by
//! a Petri step plan (`petri_scheduler::StepPlan`), which records many steps per submission and
//! can time them.
//!
//! The WGSL is the crate's own (`shaders/gray_scott.wgsl`), registered by its build script as
//! Petri's crates register theirs (`build.rs`: validated by naga when the crate is built, typed
//! handles in `crate::shaders`). The step builds its pipeline with explicit layouts and hands the
//! plan a `RecordPass`: one for even steps (reading pair half 0, writing half 1) and one for odd
//! steps, each added with an `Every { k: 2 }` schedule, as the plan's doc says for work that
//! depends on a pair's parity.

use crate::config::GrayScottConfig;
use crate::params::Params;
use crate::state::GrayScottState;
use petri_engine::kernel::{self, Access};
use petri_engine::{buffers, shaders, BatchTimer, BatchTimes, GpuContext};
use petri_model::error::{invalid, Result};
use petri_scheduler::{Every, RecordPass, StepPlan};

/// The step's compute entry point (the registry's handle: a misspelt name does not compile).
pub const ENTRY: shaders::EntryPoint = crate::shaders::gray_scott::GRAY_SCOTT_STEP;
/// Threads per workgroup along x and y (the shader's `WX`, `WY`).
pub const WORKGROUP: [u32; 2] = [16, 16];
/// Most steps recorded into one submission.
pub const MAX_STEPS_PER_BATCH: u32 = 256;
/// The label of the step's pass in profiles.
pub const PASS_LABEL: &str = "gray-scott";

/// One step of one parity: the pipeline, the bind group reading one half of each pair and
/// writing the other, and the dispatch size.
struct Sweep {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    workgroups: [u32; 2],
}

impl RecordPass for Sweep {
    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(self.workgroups[0], self.workgroups[1], 1);
    }
}

/// The fields on the GPU and the plan that steps them.
pub struct GrayScottGpu {
    plan: StepPlan,
    params: Params,
}

impl GrayScottGpu {
    /// Uploads `state` (its step's parity picks the half of each pair it goes into) and builds
    /// the pipeline. `cfg` must be valid; a state of another size is refused.
    pub fn new(ctx: &GpuContext, cfg: &GrayScottConfig, state: &GrayScottState) -> Result<Self> {
        let params = Params::new(cfg);
        if let Some((name, len)) = state.wrong_length(params.cells()) {
            return Err(invalid(
                &format!("state.{name}"),
                format!("{len} values"),
                format!(
                    "one value per cell of the {:?} grid: {}",
                    cfg.grid,
                    cfg.cells()
                ),
            ));
        }
        let cells = params.cells() as u64;
        let bytes = cells * 4;
        let grid = format!("a field of the {}x{} grid", params.nx, params.ny);
        ctx.check_storage_buffer(&grid, bytes)?;
        ctx.check_storage_buffers_per_stage("gray_scott.wgsl", 4)?;
        ctx.check_workgroup_size("gray_scott.wgsl", [WORKGROUP[0], WORKGROUP[1], 1])?;
        let workgroups = [
            params.nx.div_ceil(WORKGROUP[0]),
            params.ny.div_ceil(WORKGROUP[1]),
        ];
        ctx.check_workgroups("gray_scott.wgsl along x", workgroups[0])?;
        ctx.check_workgroups("gray_scott.wgsl along y", workgroups[1])?;

        // The state goes into the half that is current at its step.
        let pair = |name: &str, data: &[f32]| -> Result<[wgpu::Buffer; 2]> {
            let filled = buffers::storage_from(ctx, name, data)?;
            let empty = buffers::storage_zeroed(ctx, name, bytes)?;
            Ok(match state.step % 2 {
                0 => [filled, empty],
                _ => [empty, filled],
            })
        };
        let u = pair("u", &state.u)?;
        let v = pair("v", &state.v)?;
        let uniform = buffers::uniform_from(ctx, "gray-scott params", &params);

        let module = shaders::module(&ctx.device, ENTRY.shader());
        let layout = kernel::bind_group_layout(
            ctx,
            "gray-scott",
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
            ],
        );
        let constants = [("WX", WORKGROUP[0] as f64), ("WY", WORKGROUP[1] as f64)];
        let pipeline = kernel::pipeline_for_module(
            ctx,
            &module,
            "gray_scott.wgsl",
            ENTRY.name(),
            &[&layout],
            &constants,
        )?;
        let sweep = |from: usize| Sweep {
            pipeline: pipeline.clone(),
            group: kernel::bind_group(
                ctx,
                "gray-scott",
                &layout,
                &[&uniform, &u[from], &v[from], &u[1 - from], &v[1 - from]],
            ),
            workgroups,
        };

        // The plan's seed keys its step info, which this shader does not read.
        let mut plan = StepPlan::new(ctx, cfg.seed, MAX_STEPS_PER_BATCH);
        plan.step = state.step;
        plan.add_recorded(PASS_LABEL, sweep(0), Every { k: 2, phase: 0 })?;
        plan.add_recorded(PASS_LABEL, sweep(1), Every { k: 2, phase: 1 })?;
        plan.add_buffer("params", uniform);
        plan.add_pair("u", u);
        plan.add_pair("v", v);
        Ok(Self { plan, params })
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Steps done so far.
    pub fn step(&self) -> u64 {
        self.plan.step
    }

    /// Records and submits `steps` steps in batches; does not wait for the GPU.
    pub fn advance(&mut self, ctx: &GpuContext, steps: u64) {
        self.plan.run(ctx, steps);
    }

    /// `advance`, each batch timed on the GPU by two timestamps; waits for the GPU. None: the
    /// adapter has no timestamp queries (nothing was timed).
    pub fn advance_timed(&mut self, ctx: &GpuContext, steps: u64) -> Result<Option<BatchTimes>> {
        let batches = steps.div_ceil(MAX_STEPS_PER_BATCH as u64);
        let batches = batches.clamp(1, u32::MAX as u64) as u32;
        self.plan.time_batches(BatchTimer::new(ctx, batches));
        self.plan.run(ctx, steps);
        let times = self.plan.batch_times(ctx)?;
        self.plan.time_batches(None);
        Ok(times)
    }

    /// The state now, read back (waits for the GPU).
    pub fn read(&self, ctx: &GpuContext) -> Result<GrayScottState> {
        let cells = self.params.cells();
        let field = |name: &str| -> Result<Vec<f32>> {
            let mut f: Vec<f32> = buffers::read_vec(ctx, self.plan.current(name))?;
            f.truncate(cells);
            Ok(f)
        };
        Ok(GrayScottState {
            step: self.plan.step,
            u: field("u")?,
            v: field("v")?,
        })
    }
}
