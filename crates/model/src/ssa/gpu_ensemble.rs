//! Ensembles of a small network on the GPU: one thread per trajectory, statistics reduced on
//! the GPU (`shaders/ssa/ensemble.wgsl`). Methods: the direct method, the optimized direct
//! method (propensities kept per thread and updated through a dependency graph, reactions
//! searched in a fixed order of decreasing firing frequency measured on the host), and
//! Cao-Gillespie-Petzold tau-leaping.
//!
//! Trajectories run in chunks of at most `EnsembleOptions::chunk`; each chunk is many short
//! dispatches (at most `event_budget` events per thread each) until every thread has passed the
//! last output time. Only the chunk's exact integer sums of x and x^2 per (output, species) are
//! read back, and added to a `stats::Accumulator` in u128.
//!
//! The dispatches are the steps of a scheduler `StepPlan` (`EnsemblePlan`): `run`, then a
//! one-thread `done` pass whose flag ends the loop (`StepPlan::run_until`), so the host reads
//! nothing but the loop guard between batches.
//!
//! Trajectory `k` (0-based over the whole run) draws its random numbers from Philox keyed by
//! (seed, k, event, stream): the same seed gives the same trajectories whatever the chunk size,
//! workgroup size or event budget.
//!
//! A run may also go in spans of output times (`run_span`, for checkpoints): every chunk runs
//! until its threads have recorded the outputs before the span's end and pauses there; the
//! threads' states are read back ([`ThreadStates`]) and uploaded again for the next span, which
//! continues them bitwise, so the sums do not depend on where the spans end either.
//!
//! A stop check (`set_stop`) is asked between batches: once it says stop, the run or span under
//! way ends with `ModelError::Interrupted` and leaves nothing changed, so a long span need not
//! run to its end for Ctrl-C (spans cut short instead would each wait for every chunk's slowest
//! thread, which costs far more).

use super::ensemble::{check_times, Method};
use super::gpu_general::GeneralGpu;
use super::gpu_tables::{NetTables, COUNT_LIMIT};
use super::gpu_time::{ticks_to_time, time_to_ticks, TIME_LIMIT};
use super::stats::{Accumulator, EnsembleStats};
use crate::error::{invalid, ModelError, Result};
use crate::reactions::general::GeneralNetwork;
use crate::reactions::Network;
use crate::runtime::StopCheck;
use crate::shaders;
use petri_engine::{buffers, GpuContext, Profiler};
use petri_scheduler::plan::OnDemandPass;
use petri_scheduler::{Binding, BufferAt, LoopEnd, PassDesc, PassSchedule, StepPlan};
use std::time::Instant;

/// Loop iterations per thread per dispatch on software adapters: Mesa's llvmpipe ends every
/// loop of an invocation after 65535 iterations in all (`loop_work` in the shader). The margin
/// covers the largest single event (a leap attempt of 128 reactions, Poisson loops included).
/// On llvmpipe through OpenGL the limit bites at 30 000-40 000 counted iterations (naga's GLSL
/// output has loops the count does not see, e.g. around `switch`): 20 000 leaves a margin there.
const SOFTWARE_WORK_LIMIT: u32 = 20_000;

/// Most trajectories per chunk of a general network with rules' values (every sample is kept
/// on the device and read back).
pub(super) const RECORDED_CHUNK: u32 = 4096;

/// Every trajectory's species counts at every output time: `[trajectory][time][species]`.
pub type KeptSamples = Vec<Vec<Vec<u64>>>;
/// Words of one reaction record in the network table (mirrors `RX_WORDS` in the shader).
const RX_WORDS: usize = 16;
/// Words of one thread record (`TH_WORDS`).
const TH_WORDS: usize = 8;
/// Words per (output, species) accumulator (`SUM_WORDS`).
const SUM_WORDS: usize = 5;
const STATUS_WORDS: usize = 8;
/// Status word indices (`ST_*` in the shader; word 0, the running threads, only the GPU reads).
const ST_OVERFLOW: usize = 1;
const ST_LEAPS: usize = 2;
const ST_REJECTED: usize = 3;
const ST_SSA: usize = 4;
const ST_DONE: usize = 5;
/// The complement of the lowest stopped thread of a general network's chunk (`ST_FAIL`).
const ST_FAIL: usize = 6;

#[derive(Clone, Debug, PartialEq)]
pub struct EnsembleOptions {
    /// Threads per workgroup (results do not depend on it).
    pub workgroup_size: u32,
    /// Most trajectories per chunk (device memory and per-dispatch work scale with it).
    pub chunk: u32,
    /// Most events (or leap attempts) per thread per dispatch: bounds one dispatch's duration.
    /// On software adapters a dispatch also ends after `SOFTWARE_WORK_LIMIT` loop iterations
    /// (llvmpipe cuts loops short past 65535; an event budget of 4096 used to hit that on the
    /// Vilar network). Results do not depend on either; on lavapipe every dispatch costs tens
    /// of ms, so a small budget is slow there.
    pub event_budget: u32,
    /// Dispatches recorded per submission before the host checks whether all threads finished.
    pub dispatches_per_submit: u32,
    /// Tau-leaping: the leap condition's epsilon (CGP 2006: 0.03).
    pub epsilon: f64,
    /// Tau-leaping: a reaction with fewer than this many firings left is critical (SSA).
    pub n_critical: u32,
    /// Tau-leaping: Poisson counts with a mean at or above this use the normal approximation.
    pub normal_above: f64,
    /// ODM: events between full re-sums of the incrementally updated total propensity.
    pub odm_refresh: u32,
    /// Time every dispatch with timestamp queries (when the adapter has them).
    pub profile: bool,
    /// Direct method: run the network compiled into the shader (gpu_compiled.rs; same
    /// trajectories, no table reads) rather than the generic kernel, up to
    /// `gpu_compiled::MAX_COMPILED_REACTIONS` reactions.
    pub compiled: bool,
}

impl Default for EnsembleOptions {
    fn default() -> Self {
        Self {
            workgroup_size: 64,
            chunk: 1 << 16,
            event_budget: 1000,
            dispatches_per_submit: 16,
            epsilon: 0.03,
            n_critical: 10,
            normal_above: 30.0,
            odm_refresh: 64,
            profile: false,
            compiled: true,
        }
    }
}

impl EnsembleOptions {
    pub fn validate(&self) -> Result<()> {
        if !(1..=1024).contains(&self.workgroup_size) {
            return Err(invalid("workgroup_size", self.workgroup_size, "1..=1024"));
        }
        if self.chunk == 0 {
            return Err(invalid("chunk", self.chunk, ">= 1 trajectories"));
        }
        if self.event_budget == 0 || self.dispatches_per_submit == 0 {
            let v = format!("{} / {}", self.event_budget, self.dispatches_per_submit);
            return Err(invalid(
                "event_budget / dispatches_per_submit",
                v,
                ">= 1 each",
            ));
        }
        super::tau::check_leap_condition(self.epsilon, self.n_critical, self.normal_above)?;
        if self.odm_refresh == 0 {
            return Err(invalid("odm_refresh", self.odm_refresh, ">= 1 events"));
        }
        Ok(())
    }
}

// Packing lives beside the kernel that reads the words; the tables are `gpu_tables`.
impl NetTables {
    /// Packs the tables and the output times into the shader's `net` words; returns the words
    /// and the offsets (changes, deps, species, order, times).
    fn pack(&self, times: &[f64]) -> (Vec<u32>, [u32; 5]) {
        let nr = self.reactions.len();
        let mut words = vec![0u32; nr * RX_WORDS];
        let (mut changes, mut deps): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        for (j, r) in self.reactions.iter().enumerate() {
            let w = &mut words[j * RX_WORDS..(j + 1) * RX_WORDS];
            w[0] = r.reactants[0].0;
            w[1] = r.reactants[0].1;
            w[2] = r.reactants[1].0;
            w[3] = r.reactants[1].1;
            w[4] = r.rate.to_bits();
            w[5] = (changes.len() / 2) as u32;
            for &(s, d) in &r.changes {
                changes.extend([s, d as u32]);
            }
            w[6] = (changes.len() / 2) as u32;
            w[7] = deps.len() as u32;
            deps.extend(&r.deps);
            w[8] = deps.len() as u32;
            w[9] = r.consumes[0].0;
            w[10] = r.consumes[0].1;
            w[11] = r.consumes[1].0;
            w[12] = r.consumes[1].1;
        }
        let off_changes = words.len() as u32;
        words.extend(changes);
        let off_deps = words.len() as u32;
        words.extend(deps);
        let off_species = words.len() as u32;
        words.extend(&self.kinds);
        words.extend(&self.initial);
        let off_order = words.len() as u32;
        words.extend(&self.order);
        let off_times = words.len() as u32;
        for &t in times {
            let ticks = time_to_ticks(t);
            words.extend([(ticks >> 32) as u32, ticks as u32]);
        }
        (
            words,
            [off_changes, off_deps, off_species, off_order, off_times],
        )
    }
}

/// `EnsembleParams` of `shaders/ssa/ensemble.wgsl` (checked by tests/layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct EnsembleParams {
    pub n_species: u32,
    pub n_reactions: u32,
    pub n_out: u32,
    pub chunk_len: u32,
    pub traj_offset: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub method: u32,
    pub event_budget: u32,
    pub record: u32,
    pub n_critical: u32,
    pub odm_refresh: u32,
    pub epsilon: f32,
    pub normal_above: f32,
    pub off_changes: u32,
    pub off_deps: u32,
    pub off_species: u32,
    pub off_order: u32,
    pub off_times: u32,
    pub off_counts: u32,
    pub off_props: u32,
    pub off_scratch: u32,
    pub work_limit: u32,
    /// Output index the threads stop before (`n_out`, or the end of a span).
    pub out_stop: u32,
}

/// Counters of one run, summed over chunks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnsembleCounters {
    pub chunks: u64,
    pub dispatches: u64,
    pub submissions: u64,
    /// Tau-leaping: accepted leaps, rejected (halved) leaps, exact SSA steps taken instead.
    pub leaps: u64,
    pub rejected: u64,
    pub ssa_steps: u64,
    /// GPU time of the `run` dispatches from timestamps (None without timestamp support or
    /// without `profile`).
    pub gpu_ns: Option<f64>,
    pub wall_s: f64,
}

/// Individual trajectories of a small run.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectories {
    pub times: Vec<f64>,
    /// `counts[trajectory][time][species]`.
    pub counts: Vec<Vec<Vec<u64>>>,
    /// `events[trajectory][time]`: events (or leap attempts) taken before each output.
    pub events: Vec<Vec<u32>>,
}

/// The most trajectories `run_trajectories` returns (each keeps every sample on the device).
pub const MAX_RECORDED: u64 = 1 << 16;

/// Every trajectory's thread state between two spans of output times, trajectory by trajectory
/// (so it does not depend on the chunk size): what a paused thread goes on from.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadStates {
    /// Outputs recorded by every trajectory: 0..next_out.
    pub next_out: usize,
    /// `TH_WORDS` words per trajectory: time (2 words of ticks), Philox event counter, next
    /// output, tau's leap scale, a0 (f32 bits), exact steps left before the next leap check, -.
    pub thread: Vec<u32>,
    /// Counts, trajectories x species.
    pub counts: Vec<u32>,
    /// ODM: the running propensities (f32 bits), trajectories x reactions; else empty (the
    /// other methods recompute them at every event).
    pub props: Vec<u32>,
}

/// Words of one trajectory's thread record in [`ThreadStates::thread`].
pub const THREAD_WORDS: usize = TH_WORDS;

/// Where a chunk's thread states lie in the `traj` buffer: `[field][trajectory]` with the
/// chunk's length as stride, thread records first.
struct StateLayout {
    off_counts: usize,
    off_props: usize,
    n_species: usize,
    /// Propensities kept between dispatches (ODM), else 0.
    n_props: usize,
    /// Words from the start of `traj` that hold state (the scratch words after them do not).
    words: usize,
}

impl ThreadStates {
    /// The chunk `start..start + len` in the `traj` buffer's layout.
    fn chunk_words(&self, start: usize, len: usize, l: &StateLayout) -> Vec<u32> {
        let mut words = vec![0u32; l.words];
        words[..len * TH_WORDS]
            .copy_from_slice(&self.thread[start * TH_WORDS..(start + len) * TH_WORDS]);
        for i in 0..len {
            for s in 0..l.n_species {
                words[l.off_counts + s * len + i] = self.counts[(start + i) * l.n_species + s];
            }
            for j in 0..l.n_props {
                words[l.off_props + j * len + i] = self.props[(start + i) * l.n_props + j];
            }
        }
        words
    }

    /// Takes the chunk `start..start + len` from `words` in the `traj` buffer's layout.
    fn set_chunk(&mut self, start: usize, len: usize, words: &[u32], l: &StateLayout) {
        self.thread[start * TH_WORDS..(start + len) * TH_WORDS]
            .copy_from_slice(&words[..len * TH_WORDS]);
        for i in 0..len {
            for s in 0..l.n_species {
                self.counts[(start + i) * l.n_species + s] = words[l.off_counts + s * len + i];
            }
            for j in 0..l.n_props {
                self.props[(start + i) * l.n_props + j] = words[l.off_props + j * len + i];
            }
        }
    }
}

/// Where a run starts and stops: from time 0 or from paused threads, to an output index;
/// `keep_states`: read the threads' states back at the end.
struct Span<'a> {
    from: Option<&'a ThreadStates>,
    stop: usize,
    keep_states: bool,
}

/// What a run's plan is built for: its buffers' sizes and its dispatch size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PlanShape {
    chunk: u32,
    net_words: usize,
    traj_words: usize,
    sum_words: usize,
    sample_words: usize,
}

/// The step plan of one run shape. A step is a `run` dispatch (at most `event_budget` events
/// per thread) and a one-thread `done` pass that raises the done flag once no thread is
/// running; a batch is `dispatches_per_submit` steps. `init` starts a chunk from time 0.
struct EnsemblePlan {
    shape: PlanShape,
    plan: StepPlan,
    init: OnDemandPass,
}

pub struct GpuEnsemble {
    ctx: GpuContext,
    tables: NetTables,
    species: Vec<String>,
    method: Method,
    options: EnsembleOptions,
    /// Direct method compiled: the shader's generated `network` section for this network.
    compiled: Option<String>,
    /// A general network (`new_general`): its kernel is `compiled`, in ensemble_general.wgsl.
    general: Option<Box<GeneralGpu>>,
    /// The plan of the last run, kept for the next run of the same shape.
    plan: Option<EnsemblePlan>,
    /// Counters of the last `run` / `run_trajectories`.
    pub counters: EnsembleCounters,
    /// The index in a larger ensemble of this one's trajectory 0 (a rank's share): its
    /// trajectory k draws from Philox keyed as trajectory `first + k` (0 by default).
    pub first: u64,
    /// Asked between batches (`set_stop`).
    stop: Option<StopCheck>,
}

fn method_code(m: Method) -> u32 {
    match m {
        Method::Direct => 0,
        Method::Odm => 1,
        Method::Tau => 2,
    }
}

impl GpuEnsemble {
    pub fn new(
        ctx: &GpuContext,
        net: &Network,
        method: Method,
        options: &EnsembleOptions,
    ) -> Result<Self> {
        let mut tables = NetTables::new(net)?;
        if method == Method::Odm {
            tables.order = super::gpu_mirror::frequency_order(&tables, 0x0D_u64, 20_000);
        }
        let compiled = (method == Method::Direct
            && options.compiled
            && tables.reactions.len() <= super::gpu_compiled::MAX_COMPILED_REACTIONS)
            .then(|| super::gpu_compiled::network_section(&tables));
        let species = net.species.iter().map(|s| s.id.clone()).collect();
        Self::with_tables(ctx, tables, species, method, options, compiled)
    }

    /// The ensemble of `tables` after the checks of the device's limits.
    fn with_tables(
        ctx: &GpuContext,
        tables: NetTables,
        species: Vec<String>,
        method: Method,
        options: &EnsembleOptions,
        compiled: Option<String>,
    ) -> Result<Self> {
        options.validate()?;
        ctx.check_workgroup_size("ssa ensemble", [options.workgroup_size, 1, 1])?;
        ctx.check_workgroups(
            "ssa ensemble",
            options.chunk.div_ceil(options.workgroup_size),
        )?;
        // Each thread's counts sit in workgroup memory during a dispatch.
        let shared = 4 * tables.n_species as u64 * options.workgroup_size as u64;
        let limit = ctx.limits().max_compute_workgroup_storage_size as u64;
        if shared > limit {
            let allowed = format!(
                "4 bytes x species x workgroup_size <= {limit} (max_compute_workgroup_storage_size): a smaller workgroup_size"
            );
            return Err(invalid("workgroup_size", options.workgroup_size, allowed));
        }
        Ok(Self {
            ctx: ctx.clone(),
            species,
            tables,
            method,
            options: options.clone(),
            compiled,
            general: None,
            plan: None,
            counters: EnsembleCounters::default(),
            first: 0,
            stop: None,
        })
    }

    /// Asks `stop` between batches from now on: once it says stop, the run or span under way
    /// ends with [`ModelError::Interrupted`] (its `step` 0: the caller knows its own steps) and
    /// changes nothing the caller holds.
    pub fn set_stop(&mut self, stop: Option<StopCheck>) {
        self.stop = stop;
    }

    /// An ensemble of a general network (any kinetic law, assignment rules; `gpu_general`)
    /// and events (`gpu_events`: without delays, assigning species) with the direct or the
    /// optimized direct method; tau-leaping is refused.
    /// `run_general` gives the species' and the rules' statistics.
    pub fn new_general(
        ctx: &GpuContext,
        net: &GeneralNetwork,
        method: Method,
        options: &EnsembleOptions,
    ) -> Result<Self> {
        let general = GeneralGpu::new(net, method)?;
        let mut options = options.clone();
        if general.has_rule_outputs() {
            // Rules' values come from every sample, kept per chunk on the device.
            options.chunk = options.chunk.min(RECORDED_CHUNK);
        }
        let species = general
            .net
            .network
            .species
            .iter()
            .map(|s| s.id.clone())
            .collect();
        let code = general.network_section();
        let tables = general.tables.clone();
        let mut ens = Self::with_tables(ctx, tables, species, method, &options, Some(code))?;
        ens.general = Some(Box::new(general));
        Ok(ens)
    }

    /// Propensities kept per thread between dispatches (the generic ODM kernel).
    fn kept_props(&self) -> usize {
        match (self.method, &self.general) {
            (Method::Odm, None) => self.tables.reactions.len(),
            _ => 0,
        }
    }

    /// Mean and sd of a general network's species and rules' values
    /// (`GeneralNetwork::outputs`) at `times`: the species' sums exact, the rules' values
    /// worked out in f64 from every recorded sample and summed in trajectory order, as the CPU
    /// does (`general::run_general_cpu`).
    pub fn run_general(
        &mut self,
        n_trajectories: u64,
        seed: u64,
        times: &[f64],
    ) -> Result<EnsembleStats> {
        Ok(self
            .run_general_keeping(n_trajectories, seed, times, false)?
            .0)
    }

    /// [`run_general`](Self::run_general), and with `keep` every trajectory's species counts
    /// at every output time (`kept[trajectory][time][species]`, for trajectories.csv).
    pub fn run_general_keeping(
        &mut self,
        n_trajectories: u64,
        seed: u64,
        times: &[f64],
        keep: bool,
    ) -> Result<(EnsembleStats, Option<KeptSamples>)> {
        let general = match &self.general {
            Some(g) => g.clone(),
            None if keep => {
                let allowed = "an ensemble of a general network (run_trajectories keeps a \
                               mass-action one's)";
                return Err(invalid("trajectories_csv", true, allowed));
            }
            None => return Ok((self.run(n_trajectories, seed, times)?, None)),
        };
        let (nt, ns) = (times.len(), self.tables.n_species);
        let names: Vec<String> = general
            .net
            .rule_values()
            .map(|i| general.net.values[i].id.clone())
            .collect();
        let mut acc = Accumulator::new(times, self.species.clone());
        let mut sums = vec![vec![[0.0f64; 2]; names.len()]; nt];
        let rules = general.has_rule_outputs();
        let mut kept = keep.then(|| Vec::with_capacity(n_trajectories as usize));
        let whole = Span {
            from: None,
            stop: nt,
            keep_states: false,
        };
        self.execute(n_trajectories, seed, times, rules || keep, whole, |chunk| {
            chunk.add_sums(0..nt, &mut acc);
            acc.n += chunk.len as u64;
            let len = chunk.len as usize;
            let at = |k: usize, s: usize, i: usize| chunk.samples[(k * (ns + 1) + s) * len + i];
            if let Some(kept) = kept.as_mut() {
                // Chunks come in trajectory order.
                kept.extend((0..len).map(|i| -> Vec<Vec<u64>> {
                    (0..nt)
                        .map(|k| (0..ns).map(|s| at(k, s, i) as u64).collect())
                        .collect()
                }));
            }
            if !rules {
                return;
            }
            for i in 0..len {
                for (k, row) in sums.iter_mut().enumerate() {
                    let counts: Vec<u32> = (0..ns).map(|s| at(k, s, i)).collect();
                    for (sum, v) in row.iter_mut().zip(general.rule_outputs(&counts)) {
                        sum[0] += v;
                        sum[1] += v * v;
                    }
                }
            }
        })?;
        let mut stats = acc.finish();
        super::general::add_value_stats(&mut stats, &names, &sums, n_trajectories);
        Ok((stats, kept))
    }

    /// The plan and buffers for runs of `shape` (kept between runs of the same shape, so its
    /// pipelines are built once).
    fn build_plan(&self, shape: PlanShape) -> Result<EnsemblePlan> {
        let ctx = &self.ctx;
        let o = &self.options;
        let mut plan = StepPlan::new(ctx, 0, o.dispatches_per_submit);
        let storage =
            |label: &str, words: usize| buffers::storage_zeroed(ctx, label, 4 * words as u64);
        plan.add_buffer(
            "params",
            buffers::uniform_from(ctx, "ssa params", &EnsembleParams::default()),
        );
        plan.add_buffer("net", storage("ssa net", shape.net_words)?);
        plan.add_buffer("traj", storage("ssa trajectories", shape.traj_words)?);
        plan.add_buffer("sums", storage("ssa sums", shape.sum_words)?);
        plan.add_buffer("samples", storage("ssa samples", shape.sample_words)?);
        plan.add_buffer("status", storage("ssa status", STATUS_WORDS)?);
        // The shader's bindings, in order.
        let mut bindings = vec![Binding::uniform("params"), Binding::read("net")];
        bindings.extend(["traj", "sums", "samples", "status"].map(Binding::read_write));
        let desc = |label, entry, workgroups| PassDesc {
            label,
            entry,
            bindings: bindings.clone(),
            workgroups: [workgroups, 1, 1],
            constants: vec![
                ("WG", o.workgroup_size as f64),
                ("NS", self.tables.n_species as f64),
            ],
        };
        let groups = shape.chunk.div_ceil(o.workgroup_size);
        let init =
            plan.add_on_demand(ctx, desc("ssa init", shaders::ssa::ensemble::INIT, groups))?;
        match (&self.compiled, &self.general) {
            (Some(code), Some(_)) => plan.add_generated_pass(
                ctx,
                desc(
                    "ssa run",
                    shaders::ssa::ensemble_general::RUN_GENERAL,
                    groups,
                ),
                ("network", code),
                PassSchedule::default(),
            )?,
            (Some(code), None) => plan.add_generated_pass(
                ctx,
                desc(
                    "ssa run",
                    shaders::ssa::ensemble_compiled::RUN_COMPILED,
                    groups,
                ),
                ("network", code),
                PassSchedule::default(),
            )?,
            (None, _) => {
                plan.add_pass(ctx, desc("ssa run", shaders::ssa::ensemble::RUN, groups))?
            }
        }
        plan.add_pass(ctx, desc("ssa done", shaders::ssa::ensemble::DONE, 1))?;
        Ok(EnsemblePlan { shape, plan, init })
    }

    pub fn tables(&self) -> &NetTables {
        &self.tables
    }

    /// Mean and sd of every species at `times` over `n_trajectories` trajectories.
    pub fn run(&mut self, n_trajectories: u64, seed: u64, times: &[f64]) -> Result<EnsembleStats> {
        Ok(self.run_sums(n_trajectories, seed, times)?.finish())
    }

    /// The exact sums behind `run`.
    pub fn run_sums(
        &mut self,
        n_trajectories: u64,
        seed: u64,
        times: &[f64],
    ) -> Result<Accumulator> {
        let mut acc = Accumulator::new(times, self.species.clone());
        let whole = Span {
            from: None,
            stop: times.len(),
            keep_states: false,
        };
        self.execute(n_trajectories, seed, times, false, whole, |chunk| {
            chunk.add_sums(0..times.len(), &mut acc);
            acc.n += chunk.len as u64;
        })?;
        Ok(acc)
    }

    /// Runs every trajectory from `from` (None: time 0) until it has recorded the outputs
    /// before index `stop`, and pauses it there. Adds the sums of the outputs of the span to
    /// `acc` (whose `n` is the caller's), and with `kept` (`kept[trajectory][time][species]`)
    /// appends every trajectory's samples of the span. Returns the paused threads' states when
    /// `keep_states` (to go on from, or to checkpoint). The sums of the outputs of a span do
    /// not depend on the spans before it.
    #[allow(clippy::too_many_arguments)]
    pub fn run_span(
        &mut self,
        n_trajectories: u64,
        seed: u64,
        times: &[f64],
        from: Option<&ThreadStates>,
        stop: usize,
        acc: &mut Accumulator,
        kept: Option<&mut [Vec<Vec<u64>>]>,
        keep_states: bool,
    ) -> Result<Option<ThreadStates>> {
        let first = from.map_or(0, |s| s.next_out);
        if !(first < stop && stop <= times.len()) {
            let allowed = format!(
                "{}..={} (outputs left after {first})",
                first + 1,
                times.len()
            );
            return Err(invalid("stop", stop, allowed));
        }
        if let Some(s) = from {
            let (n, ns) = (n_trajectories as usize, self.tables.n_species);
            let props = self.kept_props();
            if s.thread.len() != n * TH_WORDS
                || s.counts.len() != n * ns
                || s.props.len() != n * props
            {
                let allowed = format!("the states of {n} trajectories of {ns} species");
                return Err(invalid("thread states", s.counts.len(), allowed));
            }
        }
        let span = Span {
            from,
            stop,
            keep_states,
        };
        let ns = self.tables.n_species;
        // Taken aside and added once the span is whole: a span stopped halfway changes nothing.
        let mut span_acc = acc.clone();
        let mut span_kept: Vec<(usize, Vec<Vec<u64>>)> = Vec::new();
        let record = kept.is_some();
        let states = self.execute(n_trajectories, seed, times, record, span, |chunk| {
            chunk.add_sums(first..stop, &mut span_acc);
            if record {
                let len = chunk.len as usize;
                let at = |k: usize, s: usize, i: usize| chunk.samples[(k * (ns + 1) + s) * len + i];
                for i in 0..len {
                    let samples = (first..stop)
                        .map(|k| (0..ns).map(|s| at(k, s, i) as u64).collect())
                        .collect();
                    span_kept.push((chunk.start as usize + i, samples));
                }
            }
        })?;
        *acc = span_acc;
        if let Some(kept) = kept {
            for (i, samples) in span_kept {
                kept[i].extend(samples);
            }
        }
        Ok(states)
    }

    /// Every trajectory's counts at every output time (at most `MAX_RECORDED` trajectories).
    pub fn run_trajectories(
        &mut self,
        n_trajectories: u64,
        seed: u64,
        times: &[f64],
    ) -> Result<Trajectories> {
        if n_trajectories > MAX_RECORDED {
            let allowed = format!("1..={MAX_RECORDED} when individual trajectories are kept");
            return Err(invalid("trajectories", n_trajectories, allowed));
        }
        let (nt, ns) = (times.len(), self.tables.n_species);
        let mut counts = Vec::new();
        let mut events = Vec::new();
        let whole = Span {
            from: None,
            stop: nt,
            keep_states: false,
        };
        self.execute(n_trajectories, seed, times, true, whole, |chunk| {
            let len = chunk.len as usize;
            let at = |k: usize, s: usize, i: usize| chunk.samples[(k * (ns + 1) + s) * len + i];
            for i in 0..len {
                counts.push(
                    (0..nt)
                        .map(|k| (0..ns).map(|s| at(k, s, i) as u64).collect())
                        .collect(),
                );
                events.push((0..nt).map(|k| at(k, ns, i)).collect());
            }
        })?;
        Ok(Trajectories {
            times: times.to_vec(),
            counts,
            events,
        })
    }

    /// Builds the plan for runs of `n_trajectories` at `times` (`record`: keeping individual
    /// trajectories) ahead of the first such run, e.g. at setup or outside a timed region: a run
    /// builds its plan (its pipelines and buffers) when the last run had another shape.
    pub fn prepare(&mut self, n_trajectories: u64, times: &[f64], record: bool) -> Result<()> {
        check_run(n_trajectories, times)?;
        let net_words = self.tables.pack(times).0.len();
        let (_, shape) = self.layout(n_trajectories, times.len(), net_words, record)?;
        let plan = self.plan_for(shape)?;
        self.plan = Some(plan);
        Ok(())
    }

    /// The plan of the last run when it has `shape`, else a new one.
    fn plan_for(&mut self, shape: PlanShape) -> Result<EnsemblePlan> {
        match self.plan.take() {
            Some(p) if p.shape == shape => Ok(p),
            _ => self.build_plan(shape),
        }
    }

    /// Where a run of `n_trajectories` over `n_out` outputs keeps its thread states, and the
    /// shape of its plan (`net_words`: the packed tables and times); refuses buffers larger than
    /// the device allows.
    fn layout(
        &self,
        n_trajectories: u64,
        n_out: usize,
        net_words: usize,
        record: bool,
    ) -> Result<(StateLayout, PlanShape)> {
        let (ns, nr) = (self.tables.n_species, self.tables.reactions.len());
        let chunk = (self.options.chunk as u64).min(n_trajectories) as u32;
        // Thread records, counts, propensities and three scratch words per species.
        let c = chunk as usize;
        let off_counts = TH_WORDS * c;
        let off_props = off_counts + ns * c;
        let off_scratch = off_props + nr.max(1) * c;
        let layout = StateLayout {
            off_counts,
            off_props,
            n_species: ns,
            n_props: self.kept_props(),
            words: off_scratch,
        };
        let shape = PlanShape {
            chunk,
            net_words,
            traj_words: off_scratch + 3 * ns * c,
            sum_words: n_out * ns * SUM_WORDS,
            sample_words: if record { n_out * (ns + 1) * c } else { 1 },
        };
        for (what, w) in [
            ("trajectory state", shape.traj_words),
            ("ensemble sums", shape.sum_words),
            ("recorded samples", shape.sample_words),
        ] {
            self.ctx.check_storage_buffer(what, 4 * w as u64)?;
        }
        Ok((layout, shape))
    }

    fn execute(
        &mut self,
        n_trajectories: u64,
        seed: u64,
        times: &[f64],
        record: bool,
        span: Span,
        mut take: impl FnMut(&ChunkResult),
    ) -> Result<Option<ThreadStates>> {
        check_run(n_trajectories, times)?;
        let t0 = Instant::now();
        let ctx = &self.ctx.clone();
        let o = &self.options.clone();
        let (ns, nr, nt) = (
            self.tables.n_species,
            self.tables.reactions.len(),
            times.len(),
        );
        let (words, offs) = self.tables.pack(times);
        let (layout, shape) = self.layout(n_trajectories, nt, words.len(), record)?;
        let chunk = shape.chunk;
        let (off_counts, off_props, off_scratch) =
            (layout.off_counts, layout.off_props, layout.words);
        let sum_words = shape.sum_words;
        let sample_words = shape.sample_words;
        let mut states = span.keep_states.then(|| ThreadStates {
            next_out: span.stop,
            thread: vec![0; n_trajectories as usize * TH_WORDS],
            counts: vec![0; n_trajectories as usize * ns],
            props: vec![0; n_trajectories as usize * layout.n_props],
        });
        let mut params = EnsembleParams {
            n_species: ns as u32,
            n_reactions: nr as u32,
            n_out: nt as u32,
            chunk_len: chunk,
            seed_lo: seed as u32,
            seed_hi: (seed >> 32) as u32,
            // A general network's kernel keeps its propensities in registers: `init` has none
            // to set up.
            method: match self.general {
                Some(_) => 0,
                None => method_code(self.method),
            },
            event_budget: o.event_budget,
            record: record as u32,
            n_critical: o.n_critical,
            odm_refresh: o.odm_refresh,
            epsilon: o.epsilon as f32,
            normal_above: o.normal_above as f32,
            off_changes: offs[0],
            off_deps: offs[1],
            off_species: offs[2],
            off_order: offs[3],
            off_times: offs[4],
            off_counts: off_counts as u32,
            off_props: off_props as u32,
            off_scratch: off_scratch as u32,
            work_limit: match ctx.adapter.is_software() {
                true => SOFTWARE_WORK_LIMIT,
                false => u32::MAX,
            },
            out_stop: span.stop as u32,
            ..EnsembleParams::default()
        };
        let mut ep = self.plan_for(shape)?;
        let plan = &mut ep.plan;
        ctx.queue
            .write_buffer(plan.buffer("net"), 0, bytemuck::cast_slice(&words));
        let status_stage = buffers::staging(ctx, "ssa status", 4 * STATUS_WORDS as u64);
        let sums_stage = buffers::staging(ctx, "ssa sums", 4 * sum_words as u64);
        let samples_stage = buffers::staging(ctx, "ssa samples", 4 * sample_words as u64);
        let state_bytes = 4 * layout.words as u64;
        let state_stage = states
            .as_ref()
            .map(|_| buffers::staging(ctx, "ssa thread states", state_bytes));
        // Each batch profiled: a `run` and a `done` pass per step.
        let mut profiler = (o.profile && ctx.has_timestamps())
            .then(|| Profiler::new(ctx, 2 * o.dispatches_per_submit));
        let mut counters = EnsembleCounters {
            gpu_ns: profiler.as_ref().map(|_| 0.0),
            ..Default::default()
        };
        // Raised by `done` once no thread is running (or on overflow).
        let done_flag = BufferAt::new("status", 4 * ST_DONE as u64);

        let stop = self.stop.clone();
        let stop_asked = || stop.as_ref().is_some_and(StopCheck::requested);
        let mut start = 0u64;
        // Whether a stop cut the run short.
        let interrupted = 'chunks: loop {
            if start >= n_trajectories {
                break false;
            }
            // The last chunk may be shorter: the plan dispatches a whole chunk's workgroups and
            // the threads past `chunk_len` return at once.
            let len = (n_trajectories - start).min(chunk as u64) as u32;
            params.traj_offset = (self.first + start) as u32;
            params.chunk_len = len;
            ctx.queue
                .write_buffer(plan.buffer("params"), 0, bytemuck::bytes_of(&params));
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(plan.buffer("sums"), 0, None);
            enc.clear_buffer(plan.buffer("status"), 0, None);
            match span.from {
                Some(from) => {
                    let words = from.chunk_words(start as usize, len as usize, &layout);
                    ctx.queue
                        .write_buffer(plan.buffer("traj"), 0, bytemuck::cast_slice(&words));
                }
                None => plan.record_on_demand(ctx, &mut enc, ep.init),
            }
            ctx.queue.submit([enc.finish()]);
            let first_step = plan.step;
            match profiler.as_mut() {
                // Batches kept in flight; the host reads only the guard's two words per batch.
                None => {
                    match plan.run_until_or(ctx, &done_flag, u64::MAX - plan.step, &stop_asked)? {
                        Some(LoopEnd::Flagged { step }) => {
                            let steps = step - first_step;
                            counters.dispatches += steps;
                            counters.submissions += steps.div_ceil(o.dispatches_per_submit as u64);
                        }
                        Some(LoopEnd::Bound) => unreachable!("a loop bounded by u64::MAX steps"),
                        None => break 'chunks true,
                    }
                }
                // Timestamps per pass: one batch at a time, its status read back after it.
                Some(p) => loop {
                    let mut enc = plan.encode(ctx, o.dispatches_per_submit, Some(&mut *p));
                    p.resolve(&mut enc);
                    enc.copy_buffer_to_buffer(
                        plan.buffer("status"),
                        0,
                        &status_stage,
                        0,
                        4 * STATUS_WORDS as u64,
                    );
                    ctx.queue.submit([enc.finish()]);
                    counters.dispatches += o.dispatches_per_submit as u64;
                    counters.submissions += 1;
                    let status = buffers::map_and_read::<u32>(ctx, &status_stage)?;
                    let times = p.collect(ctx)?;
                    if let (Some(ns), Some((_, run_ns))) =
                        (counters.gpu_ns.as_mut(), times.by_label.get("ssa run"))
                    {
                        *ns += run_ns;
                    }
                    if status[ST_DONE] != 0 {
                        break;
                    }
                    if stop_asked() {
                        break 'chunks true;
                    }
                },
            }
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(
                plan.buffer("status"),
                0,
                &status_stage,
                0,
                4 * STATUS_WORDS as u64,
            );
            enc.copy_buffer_to_buffer(plan.buffer("sums"), 0, &sums_stage, 0, 4 * sum_words as u64);
            if record {
                enc.copy_buffer_to_buffer(
                    plan.buffer("samples"),
                    0,
                    &samples_stage,
                    0,
                    4 * sample_words as u64,
                );
            }
            if let Some(stage) = &state_stage {
                enc.copy_buffer_to_buffer(plan.buffer("traj"), 0, stage, 0, state_bytes);
            }
            ctx.queue.submit([enc.finish()]);
            let status = buffers::map_and_read::<u32>(ctx, &status_stage)?;
            if status[ST_OVERFLOW] != 0 {
                return Err(ModelError::Overflow {
                    message: format!(
                        "a species count reached 2^30 = {COUNT_LIMIT} in trajectories {}..{} (the GPU ensemble's limit)",
                        self.first + start,
                        self.first + start + len as u64
                    ),
                });
            }
            if status[ST_FAIL] != 0 {
                let i = !status[ST_FAIL] as u64;
                return Err(self.stopped(plan.buffer("traj"), start, i));
            }
            counters.leaps += status[ST_LEAPS] as u64;
            counters.rejected += status[ST_REJECTED] as u64;
            counters.ssa_steps += status[ST_SSA] as u64;
            let sums = buffers::map_and_read::<u32>(ctx, &sums_stage)?;
            let samples = match record {
                true => buffers::map_and_read::<u32>(ctx, &samples_stage)?,
                false => Vec::new(),
            };
            if let (Some(states), Some(stage)) = (states.as_mut(), &state_stage) {
                let words = buffers::map_and_read::<u32>(ctx, stage)?;
                states.set_chunk(start as usize, len as usize, &words, &layout);
            }
            take(&ChunkResult {
                n_species: ns,
                start,
                len,
                sums,
                samples,
            });
            counters.chunks += 1;
            start += len as u64;
        };
        self.plan = Some(ep);
        if interrupted {
            return Err(ModelError::Interrupted { step: 0 });
        }
        counters.wall_s = t0.elapsed().as_secs_f64();
        self.counters = counters;
        Ok(states)
    }
}

impl GpuEnsemble {
    /// The error of thread `i` of the chunk from `start`, which stopped: its record read back.
    fn stopped(&self, traj: &wgpu::Buffer, start: u64, i: u64) -> ModelError {
        let ctx = &self.ctx;
        let bytes = 4 * TH_WORDS as u64;
        let stage = buffers::staging(ctx, "ssa stopped thread", bytes);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(traj, i * bytes, &stage, 0, bytes);
        ctx.queue.submit([enc.finish()]);
        let message = match (buffers::map_and_read::<u32>(ctx, &stage), &self.general) {
            (Ok(w), Some(g)) => {
                let t = ticks_to_time((w[0] as u64) << 32 | w[1] as u64);
                g.failure(start + i, w[6], w[7], t)
            }
            (Err(e), _) => format!("trajectory {} stopped ({e})", start + i),
            (_, None) => format!("trajectory {} stopped", start + i),
        };
        ModelError::Stalled { message }
    }
}

/// Refuses output times the GPU cannot hold and trajectory counts outside u32.
fn check_run(n_trajectories: u64, times: &[f64]) -> Result<()> {
    check_times(times)?;
    if let Some(&t) = times.iter().find(|&&t| t >= TIME_LIMIT) {
        return Err(invalid(
            "times",
            t,
            format!("< 2^31 = {TIME_LIMIT} time units on the GPU"),
        ));
    }
    if n_trajectories == 0 || n_trajectories > u32::MAX as u64 {
        return Err(invalid("trajectories", n_trajectories, "1..=4294967295"));
    }
    Ok(())
}

struct ChunkResult {
    n_species: usize,
    /// The chunk's first trajectory.
    start: u64,
    len: u32,
    sums: Vec<u32>,
    /// `[time][species + 1][trajectory]` when recording (the extra row: events so far).
    samples: Vec<u32>,
}

impl ChunkResult {
    /// Adds the chunk's sums of the outputs `outputs` to `acc`.
    fn add_sums(&self, outputs: std::ops::Range<usize>, acc: &mut Accumulator) {
        let ns = self.n_species;
        for k in outputs {
            for s in 0..ns {
                let w = &self.sums[(k * ns + s) * SUM_WORDS..][..SUM_WORDS];
                acc.sum[k][s] += w[0] as u128 | (w[1] as u128) << 32;
                acc.sum_sq[k][s] += w[2] as u128 | (w[3] as u128) << 32 | (w[4] as u128) << 64;
            }
        }
    }
}
