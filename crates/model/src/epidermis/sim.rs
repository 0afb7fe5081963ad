//! The epidermis on the GPU: buffers (named as docs/models/epidermis.md and the shaders say) and
//! the step plan. Each force evaluation gathers the active elements' positions into a compact
//! array (`gather`), bins them with the scheduler's `Binning`, copies them into bin order
//! (`reorder`) and computes the forces and the RK2 stage (`forces`); every kernel is dispatched
//! indirectly from the element count on the GPU (`counters[Elements]`), so growth can change it
//! without the host. The mechanics never reads the host's idea of the counts.

use super::cpu::Pairs;
use super::genes::GeneUniforms;
use super::growth::GrowthUniforms;
use super::params::EpidermisConfig;
use super::state::{Counter, EpidermisState, MAX_ELEMENTS, SPECIES};
use super::uniforms::EpiUniforms;
use super::{genes_gpu, growth_gpu};
use crate::error::{invalid, ModelError, Result};
use crate::shaders;
use petri_engine::{buffers, GpuContext, Profiler};
use petri_scheduler::primitives::{Binning, Length};
use petri_scheduler::{args_buffer, Binding, BufferAt, Every, PassDesc, PassSchedule, StepPlan};
use std::sync::Arc;

/// How the plan is laid out on the GPU; results do not depend on it (bitwise).
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Threads per workgroup of the per-element kernels.
    pub workgroup: u32,
    /// Most steps recorded into one submission.
    pub max_steps_per_batch: u32,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            workgroup: 64,
            max_steps_per_batch: 256,
        }
    }
}

/// What a force kernel does with the force (the `MODE` of forces.wgsl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// pos_mid = pos + dt/2 F(pos).
    Midpoint = 0,
    /// pos = pos + dt F(pos_mid).
    Full = 1,
    /// pos_mid = (F(pos), 0): the force alone, for tests and benches.
    Force = 2,
}

/// The buffers a mechanics plan binds; a force-only plan shares them with the stepping plan.
const MECHANICS_BUFFERS: [&str; 12] = [
    "params",
    "counters",
    "counts",
    "active",
    "pos",
    "pos_mid",
    "cpos",
    "spos",
    "sorted_index",
    "bin_of",
    "bin_offsets",
    "mech_args",
];

pub struct EpidermisSim {
    pub cfg: EpidermisConfig,
    pub uniforms: EpiUniforms,
    plan: StepPlan,
    binning: Arc<Binning>,
    options: SimOptions,
}

impl EpidermisSim {
    /// The model from its config, starting from `EpidermisState::initial`.
    pub fn new(ctx: &GpuContext, cfg: &EpidermisConfig, options: &SimOptions) -> Result<Self> {
        cfg.validate()?;
        // The largest buffer against the device's limit before the host allocates the state.
        let slots = cfg.capacity.max_cells as u64 * MAX_ELEMENTS as u64;
        ctx.check_storage_buffer(
            &format!(
                "the element positions ({} cells of capacity.max_cells x {MAX_ELEMENTS} slots x 16 \
                 bytes)",
                cfg.capacity.max_cells
            ),
            slots * 16,
        )?;
        Self::from_state(ctx, cfg, &EpidermisState::initial(cfg), options)
    }

    /// The model from an explicit state (tests, resumed checkpoints).
    pub fn from_state(
        ctx: &GpuContext,
        cfg: &EpidermisConfig,
        state: &EpidermisState,
        options: &SimOptions,
    ) -> Result<Self> {
        cfg.validate()?;
        check_state(cfg, state)?;
        let wg = options.workgroup;
        ctx.check_workgroup_size("the mechanics (--workgroup)", [wg, 1, 1])?;
        if options.max_steps_per_batch == 0 {
            return Err(invalid(
                "max_steps_per_batch",
                0,
                "an integer >= 1 (steps per submission)",
            ));
        }
        let u = EpiUniforms::new(cfg);
        let slots = state.pos.len() as u64;
        let mut plan = StepPlan::new(ctx, cfg.seed, options.max_steps_per_batch);
        plan.step = state.step;
        plan.add_buffer("params", buffers::uniform_from(ctx, "epidermis params", &u));
        plan.add_buffer(
            "counters",
            buffers::storage_from(ctx, "counters", &state.counter_words())?,
        );
        plan.add_buffer(
            "counts",
            buffers::storage_from(ctx, "counts", &state.counts)?,
        );
        let mut active = state.active_slots();
        active.resize(slots as usize, 0);
        plan.add_buffer("active", buffers::storage_from(ctx, "active", &active)?);
        plan.add_buffer("pos", buffers::storage_from(ctx, "pos", &state.pos)?);
        for name in ["pos_mid", "cpos", "spos"] {
            plan.add_buffer(name, buffers::storage_zeroed(ctx, name, slots * 16)?);
        }
        // The gene network's buffers (genes.rs): per cell two vec4 (N, D, B, O1), (O2, M, A, 0),
        // which is the state's `genes` row as it is.
        plan.add_buffer("genes", buffers::storage_from(ctx, "genes", &state.genes)?);
        let cells = state.max_cells as u64;
        plan.add_buffer(
            "genes_mid",
            buffers::storage_zeroed(ctx, "genes_mid", cells * 4 * SPECIES as u64)?,
        );
        for name in ["centres", "neighbours"] {
            plan.add_buffer(name, buffers::storage_zeroed(ctx, name, cells * 16)?);
        }
        plan.add_buffer("mech_args", args_buffer(ctx, "mechanics dispatch", 1));
        let binning = Arc::new(Binning::new(
            ctx,
            plan.buffer("cpos"),
            slots as u32,
            cfg.mechanics_grid(),
            Length::Gpu {
                buffer: plan.buffer("counters").clone(),
                word: Counter::Elements as u32,
            },
        )?);
        plan.add_buffer("sorted_index", binning.sorted_indices().clone());
        plan.add_buffer("bin_of", binning.sorted_cells().clone());
        plan.add_buffer("bin_offsets", binning.cell_offsets().clone());
        // The order of a step: gene network (centres and A, centre binning, neighbour sums, two
        // RK2 stages), mechanics (two RK2 stages), then on growth steps grow, divide, active list.
        let d = &cfg.domain;
        let genes = GeneUniforms::new(
            &cfg.genes,
            cfg.dt,
            d.lx,
            d.ly,
            d.height,
            cfg.capacity.max_cells,
        );
        genes_gpu::add_passes(ctx, &mut plan, &genes, wg)?;
        add_mechanics(
            ctx,
            &mut plan,
            &binning,
            wg,
            &[Mode::Midpoint, Mode::Full],
            Pairs::Binned,
        )?;
        let growth = GrowthUniforms::new(&cfg.growth, cfg.seed, d.lx, d.ly, cfg.capacity.max_cells);
        growth_gpu::add_passes(ctx, &mut plan, &growth, cfg.growth.interval, wg)?;
        Ok(Self {
            cfg: cfg.clone(),
            uniforms: u,
            plan,
            binning,
            options: options.clone(),
        })
    }

    /// Steps done so far.
    pub fn step(&self) -> u64 {
        self.plan.step
    }

    /// Most steps recorded into one submission (`SimOptions::max_steps_per_batch`).
    pub fn steps_per_batch(&self) -> u64 {
        self.plan.max_steps_per_batch as u64
    }

    pub fn plan(&self) -> &StepPlan {
        &self.plan
    }

    pub fn passes_per_step(&self) -> usize {
        self.plan.pass_count()
    }

    /// Records and submits `steps` steps, then reads the counters: a division refused for
    /// capacity is an error naming `capacity.max_cells`.
    pub fn advance(&mut self, ctx: &GpuContext, steps: u64) -> Result<()> {
        self.plan.run(ctx, steps);
        self.check_overflow(ctx)
    }

    /// Records `steps` (at most the batch size) with per-pass timestamps into `profiler`.
    pub fn advance_profiled(&mut self, ctx: &GpuContext, steps: u32, profiler: &mut Profiler) {
        let mut encoder = self.plan.encode(ctx, steps, Some(profiler));
        profiler.resolve(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
    }

    /// The counters (`Counter` order), read now.
    pub fn counters(&self, ctx: &GpuContext) -> Result<Vec<u32>> {
        Ok(buffers::read_vec(ctx, self.plan.buffer("counters"))?)
    }

    fn check_overflow(&self, ctx: &GpuContext) -> Result<()> {
        let c = self.counters(ctx)?;
        let refused = c[Counter::Overflow as usize];
        if refused > 0 {
            return Err(ModelError::Overflow {
                message: format!(
                    "capacity.max_cells = {} is too small: {refused} divisions were refused by \
                     step {} (raise capacity.max_cells)",
                    self.cfg.capacity.max_cells, self.plan.step
                ),
            });
        }
        Ok(())
    }

    /// The whole state, read back now.
    pub fn read_state(&self, ctx: &GpuContext) -> Result<EpidermisState> {
        let c = self.counters(ctx)?;
        let max_cells = self.cfg.capacity.max_cells;
        let mut counts: Vec<u32> = buffers::read_vec(ctx, self.plan.buffer("counts"))?;
        counts.truncate(max_cells as usize);
        let pos: Vec<[f32; 4]> = buffers::read_vec(ctx, self.plan.buffer("pos"))?;
        let genes: Vec<[f32; SPECIES]> = buffers::read_vec(ctx, self.plan.buffer("genes"))?;
        Ok(EpidermisState {
            step: self.plan.step,
            max_cells,
            cells: c[Counter::Cells as usize],
            counts,
            pos,
            genes,
            divisions: c[Counter::Divisions as usize],
            added: c[Counter::Added as usize],
        })
    }

    /// The force on every element at the current positions (indexed by slot, zero at unused
    /// slots), found with the grid or by all pairs: the GPU twin of `cpu::forces`. Overwrites the
    /// scratch positions `pos_mid` only.
    pub fn forces(&self, ctx: &GpuContext, pairs: Pairs) -> Result<Vec<[f32; 3]>> {
        let mut plan = StepPlan::new(ctx, self.cfg.seed, 1);
        for name in MECHANICS_BUFFERS {
            plan.add_buffer(name, self.plan.buffer(name).clone());
        }
        add_mechanics(
            ctx,
            &mut plan,
            &self.binning,
            self.options.workgroup,
            &[Mode::Force],
            pairs,
        )?;
        plan.run(ctx, 1);
        let f: Vec<[f32; 4]> = buffers::read_vec(ctx, plan.buffer("pos_mid"))?;
        let counts: Vec<u32> = buffers::read_vec(ctx, plan.buffer("counts"))?;
        Ok(f.iter()
            .enumerate()
            .map(
                |(s, f)| match (s % MAX_ELEMENTS) < counts[s / MAX_ELEMENTS] as usize {
                    true => [f[0], f[1], f[2]],
                    false => [0.0; 3],
                },
            )
            .collect())
    }
}

/// Appends to `plan` one force evaluation per mode: the element count into dispatch arguments,
/// then per evaluation gather -> binning -> reorder -> forces (binned), or the all-pairs kernel.
fn add_mechanics(
    ctx: &GpuContext,
    plan: &mut StepPlan,
    binning: &Arc<Binning>,
    wg: u32,
    modes: &[Mode],
    pairs: Pairs,
) -> Result<()> {
    let elements = 4 * Counter::Elements as u64;
    plan.add_count_to_args(
        ctx,
        "elements to dispatch",
        BufferAt::new("counters", elements),
        BufferAt::new("mech_args", 0),
        wg,
    )?;
    let indirect = || PassSchedule::default().indirect("mech_args", 0);
    for &mode in modes {
        let stage = if mode == Mode::Full { 2.0 } else { 1.0 };
        let force_bindings = vec![
            Binding::uniform("params"),
            Binding::read("counters"),
            Binding::read("counts"),
            Binding::read("active"),
            Binding::read("spos"),
            Binding::read("bin_of"),
            Binding::read("bin_offsets"),
            Binding::read_write("pos"),
            Binding::read_write("pos_mid"),
        ];
        let constants = vec![("WG", wg as f64), ("MODE", mode as u32 as f64)];
        if pairs == Pairs::All {
            plan.add_pass_with(
                ctx,
                PassDesc {
                    label: "forces (all pairs)",
                    entry: shaders::epidermis::forces::ALL_PAIRS,
                    bindings: force_bindings,
                    workgroups: [1, 1, 1],
                    constants,
                },
                indirect(),
            )?;
            continue;
        }
        plan.add_pass_with(
            ctx,
            PassDesc {
                label: "gather",
                entry: shaders::epidermis::gather::GATHER,
                bindings: vec![
                    Binding::uniform("params"),
                    Binding::read("counters"),
                    Binding::read("active"),
                    Binding::read("pos"),
                    Binding::read("pos_mid"),
                    Binding::read_write("cpos"),
                ],
                workgroups: [1, 1, 1],
                constants: vec![("WG", wg as f64), ("STAGE", stage)],
            },
            indirect(),
        )?;
        plan.add_recorded("binning", binning.clone(), Every::STEP)?;
        plan.add_pass_with(
            ctx,
            PassDesc {
                label: "reorder",
                entry: shaders::epidermis::reorder::REORDER,
                bindings: vec![
                    Binding::read("counters"),
                    Binding::read("sorted_index"),
                    Binding::read("cpos"),
                    Binding::read_write("spos"),
                ],
                workgroups: [1, 1, 1],
                constants: vec![("WG", wg as f64)],
            },
            indirect(),
        )?;
        plan.add_pass_with(
            ctx,
            PassDesc {
                label: "forces",
                entry: shaders::epidermis::forces::FORCES,
                bindings: force_bindings,
                workgroups: [1, 1, 1],
                constants,
            },
            indirect(),
        )?;
    }
    Ok(())
}

/// A state fits the config: its capacity, cell count and element counts.
fn check_state(cfg: &EpidermisConfig, s: &EpidermisState) -> Result<()> {
    let cap = cfg.capacity.max_cells;
    if s.max_cells != cap
        || s.counts.len() != cap as usize
        || s.genes.len() != cap as usize
        || s.pos.len() != cap as usize * MAX_ELEMENTS
    {
        return Err(invalid(
            "state.max_cells",
            s.max_cells,
            format!("capacity.max_cells = {cap}, with arrays of that many cells"),
        ));
    }
    if s.cells > cap {
        return Err(invalid(
            "state.cells",
            s.cells,
            format!("at most capacity.max_cells = {cap}"),
        ));
    }
    if let Some(c) = s.counts.iter().position(|&n| n as usize > MAX_ELEMENTS) {
        return Err(invalid(
            &format!("state.counts[{c}]"),
            s.counts[c],
            format!("at most {MAX_ELEMENTS} elements per cell"),
        ));
    }
    if let Some(c) = (s.cells as usize..cap as usize).find(|&c| s.counts[c] != 0) {
        return Err(invalid(
            &format!("state.counts[{c}]"),
            s.counts[c],
            format!("0 for cells past state.cells = {}", s.cells),
        ));
    }
    Ok(())
}
