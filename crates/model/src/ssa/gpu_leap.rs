//! Tau-leaping of one large network on the GPU (`shaders/ssa/leap.wgsl`): one thread per
//! reaction and per species, fixed-order reductions, and the step decision, the negative-count
//! check and the reject/halve retry all on the GPU. A leap attempt is one step of a
//! `StepPlan` (seven passes), so `advance_leaps(n)` records `attempts_per_submit` attempts per
//! submission with no readback in between, and `advance_to(t)` runs the plan until the GPU
//! raises `LeapControl::stopped` (`StepPlan::run_until`, which keeps batches in flight).
//!
//! Same step selection as `tau.rs` (Cao, Gillespie & Petzold 2006: epsilon, critical reactions
//! L_j < n_c fired one at a time, exact steps when tau' < 10 / a0, Poisson counts with a normal
//! approximation from mean 30, rejected and halved when a count would go negative), with one
//! exact step (not 100) each time leaping is not worth it. Propensities and time are f32 (the
//! WebGPU baseline has no f64); time is 64-bit fixed point (`shaders/ssa/time.wgsl`).

use super::gpu_tables::{gpu_initial_counts, gpu_rate};
use super::gpu_time::{ticks_to_time, time_to_ticks, TIME_LIMIT};
use super::tau::check_leap_condition;
use crate::error::{invalid, ModelError, Result};
use crate::reactions::Network;
use crate::shaders::ssa::leap;
use petri_engine::{buffers, GpuContext, Profiler};
use petri_scheduler::{Binding, BufferAt, LoopEnd, PassDesc, StepPlan};
use std::mem::offset_of;

/// Counts must stay below 2^31 (the species update is i32).
pub const COUNT_LIMIT: u64 = 1 << 31;

const WG: u32 = 256;

#[derive(Clone, Debug, PartialEq)]
pub struct LeapOptions {
    pub epsilon: f64,
    pub n_critical: u32,
    /// Poisson means at or above this use the normal approximation.
    pub normal_above: f64,
    /// An exact step instead of a leap when tau' < ssa_factor / a0.
    pub ssa_factor: f64,
    /// Attempts (plan steps) recorded per submission; `advance_to` checks the time reached
    /// after each.
    pub attempts_per_submit: u32,
}

impl Default for LeapOptions {
    fn default() -> Self {
        Self {
            epsilon: 0.03,
            n_critical: 10,
            normal_above: 30.0,
            ssa_factor: 10.0,
            attempts_per_submit: 64,
        }
    }
}

impl LeapOptions {
    pub fn validate(&self) -> Result<()> {
        check_leap_condition(self.epsilon, self.n_critical, self.normal_above)?;
        if !(self.ssa_factor >= 0.0 && self.ssa_factor.is_finite()) {
            return Err(invalid(
                "ssa_factor",
                self.ssa_factor,
                "a finite number >= 0",
            ));
        }
        if self.attempts_per_submit == 0 {
            return Err(invalid("attempts_per_submit", 0, ">= 1"));
        }
        Ok(())
    }
}

/// `LeapParams` of `shaders/ssa/leap.wgsl` (checked by tests/layouts.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LeapParams {
    pub n_species: u32,
    pub n_reactions: u32,
    pub n_blocks_rx: u32,
    pub n_blocks_sp: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub n_critical: u32,
    pub _pad0: u32,
    pub epsilon: f32,
    pub normal_above: f32,
    pub ssa_factor: f32,
    pub _pad1: u32,
    pub off_cons: u32,
    pub off_rate: u32,
    pub off_sp_start: u32,
    pub off_sp_entries: u32,
    pub off_kinds: u32,
    pub off_xnew: u32,
    pub off_k: u32,
    pub off_ac: u32,
    pub off_blk_a: u32,
    pub off_blk_ac: u32,
    pub off_blk_tau: u32,
    pub _pad2: u32,
}

/// `LeapControl` of `shaders/ssa/leap.wgsl` (checked by tests/layouts.rs): what the attempts
/// decide and count. The host writes `mode`, `stop` and `stopped` between runs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LeapControl {
    pub mode: u32,
    pub attempt: u32,
    pub leaps: u32,
    pub rejected: u32,
    pub ssa_steps: u32,
    pub pick: u32,
    /// Time reached and stop time in ticks, (hi, lo) (`gpu_time`).
    pub t: [u32; 2],
    pub stop: [u32; 2],
    pub tau: f32,
    pub scale: f32,
    pub a0: f32,
    pub a0c: f32,
    pub tau1: f32,
    pub extinct: u32,
    pub reached: u32,
    /// Raised by the attempt that reaches the stop time: the flag `advance_to` runs until.
    pub stopped: u32,
    pub _pad: [u32; 2],
}

impl LeapControl {
    /// `mode` values (`MODE_*` in the shader): leap (or decide anew), and idle once the stop
    /// time is reached.
    const LEAP: u32 = 0;
    const IDLE: u32 = 2;
}

/// What the leaper has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LeapStats {
    /// Simulated time reached.
    pub t: f64,
    pub attempts: u64,
    pub leaps: u64,
    pub rejected: u64,
    pub ssa_steps: u64,
    /// True once no reaction can fire.
    pub extinct: bool,
}

pub struct GpuLeaper {
    ctx: GpuContext,
    n_species: u32,
    n_reactions: u32,
    /// One step per leap attempt; buffers params, network, state, propensities, control and
    /// negative (the negative-count flag).
    plan: StepPlan,
}

impl GpuLeaper {
    pub fn new(ctx: &GpuContext, net: &Network, seed: u64, options: &LeapOptions) -> Result<Self> {
        options.validate()?;
        net.validate()?;
        let (ns, nr) = (net.species.len(), net.reactions.len());
        let max_threads = ctx.limits().max_compute_workgroups_per_dimension as u64 * WG as u64;
        if ns == 0 || ns as u64 > max_threads || nr as u64 > max_threads {
            let allowed = format!(
                "1..={max_threads} species and reactions on this adapter (one thread each)"
            );
            return Err(invalid(
                "network size",
                format!("{ns} species, {nr} reactions"),
                allowed,
            ));
        }
        let mut state_words = gpu_initial_counts(net, COUNT_LIMIT)?;
        let changes = net.state_changes();

        // Network words: (s0, nu0, s1, nu1) per reaction, then consumed (s, v) pairs, rates,
        // the species -> (reaction, delta) CSR and the species kinds (as in gpu_ensemble).
        let mut words: Vec<u32> = Vec::with_capacity(nr * 14 + ns * 2);
        for r in &net.reactions {
            let mut w = [0u32; 4];
            for (k, &(s, nu)) in r.reactants.iter().enumerate() {
                w[2 * k] = s as u32;
                w[2 * k + 1] = nu;
            }
            words.extend(w);
        }
        let off_cons = words.len() as u32;
        for ch in &changes {
            let mut w = [0u32; 4];
            for (k, &(s, d)) in ch.iter().filter(|(_, d)| *d < 0).take(2).enumerate() {
                w[2 * k] = s as u32;
                w[2 * k + 1] = (-d) as u32;
            }
            words.extend(w);
        }
        let off_rate = words.len() as u32;
        for r in &net.reactions {
            words.push(gpu_rate(r)?.to_bits());
        }
        let mut per_species: Vec<Vec<(u32, i32)>> = vec![Vec::new(); ns];
        for (j, ch) in changes.iter().enumerate() {
            for &(s, d) in ch {
                per_species[s].push((j as u32, d as i32));
            }
        }
        let off_sp_start = words.len() as u32;
        let mut start = 0u32;
        for list in &per_species {
            words.push(start);
            start += list.len() as u32;
        }
        words.push(start);
        let off_sp_entries = words.len() as u32;
        for list in &per_species {
            for &(j, d) in list {
                words.extend([j, d as u32]);
            }
        }
        let off_kinds = words.len() as u32;
        words.extend(net.reactant_kinds());

        let blocks_rx = (nr as u32).div_ceil(WG).max(1);
        let blocks_sp = (ns as u32).div_ceil(WG);
        // state: x, x_new, k; fl: a, a_crit, block sums, block minima.
        let (off_xnew, off_k) = (ns as u32, 2 * ns as u32);
        state_words.resize(2 * ns + nr.max(1), 0);
        let off_ac = nr.max(1) as u32;
        let off_blk_a = 2 * off_ac;
        let off_blk_ac = off_blk_a + blocks_rx;
        let off_blk_tau = off_blk_ac + blocks_rx;
        let fl_words = off_blk_tau + blocks_sp;
        let control = LeapControl {
            mode: LeapControl::IDLE,
            scale: 1.0,
            ..LeapControl::default()
        };
        let params = LeapParams {
            n_species: ns as u32,
            n_reactions: nr as u32,
            n_blocks_rx: blocks_rx,
            n_blocks_sp: blocks_sp,
            seed_lo: seed as u32,
            seed_hi: (seed >> 32) as u32,
            n_critical: options.n_critical,
            epsilon: options.epsilon as f32,
            normal_above: options.normal_above as f32,
            ssa_factor: options.ssa_factor as f32,
            off_cons,
            off_rate,
            off_sp_start,
            off_sp_entries,
            off_kinds,
            off_xnew,
            off_k,
            off_ac,
            off_blk_a,
            off_blk_ac,
            off_blk_tau,
            ..LeapParams::default()
        };
        let mut plan = StepPlan::new(ctx, seed, options.attempts_per_submit);
        plan.add_buffer("params", buffers::uniform_from(ctx, "leap params", &params));
        plan.add_buffer(
            "network",
            buffers::storage_from(ctx, "leap network", &words)?,
        );
        plan.add_buffer(
            "state",
            buffers::storage_from(ctx, "leap state", &state_words)?,
        );
        let fl = buffers::storage_zeroed(ctx, "leap propensities", 4 * fl_words as u64)?;
        plan.add_buffer("propensities", fl);
        let control = buffers::storage_from(ctx, "leap control", &[control])?;
        plan.add_buffer("control", control);
        plan.add_buffer(
            "negative",
            buffers::storage_zeroed(ctx, "leap negative", 4)?,
        );
        // Every pass binds the same buffers: the shader declares them once for all entry points.
        let written = ["state", "propensities", "control", "negative"];
        for (entry, groups) in [
            (leap::LEAP_PROPS, blocks_rx),
            (leap::LEAP_SPECIES, blocks_sp),
            (leap::LEAP_DECIDE, 1),
            (leap::LEAP_FIRE, blocks_rx),
            (leap::LEAP_APPLY, blocks_sp),
            (leap::LEAP_COMMIT, blocks_sp),
            (leap::LEAP_FINISH, 1),
        ] {
            let constants = match entry == leap::LEAP_FINISH {
                true => vec![],
                false => vec![("WG", WG as f64)],
            };
            let desc = PassDesc {
                label: entry.name(),
                entry,
                bindings: [Binding::uniform("params"), Binding::read("network")]
                    .into_iter()
                    .chain(written.map(Binding::read_write))
                    .collect(),
                workgroups: [groups, 1, 1],
                constants,
            };
            plan.add_pass(ctx, desc)?;
        }
        Ok(Self {
            ctx: ctx.clone(),
            n_species: ns as u32,
            n_reactions: nr as u32,
            plan,
        })
    }

    pub fn n_reactions(&self) -> u32 {
        self.n_reactions
    }

    /// Sets the stop time and wakes the leaper (the words the GPU does not own at this point).
    fn set_stop(&self, t_stop: f64) {
        let ticks = time_to_ticks(t_stop);
        let control = self.plan.buffer("control");
        let write = |offset: usize, words: &[u32]| {
            let bytes = bytemuck::cast_slice(words);
            self.ctx.queue.write_buffer(control, offset as u64, bytes);
        };
        write(
            offset_of!(LeapControl, stop),
            &[(ticks >> 32) as u32, ticks as u32],
        );
        write(offset_of!(LeapControl, stopped), &[0]);
        write(offset_of!(LeapControl, mode), &[LeapControl::LEAP]);
    }

    /// Records `n` leap attempts (accepted, rejected or exact steps) with no time limit, in
    /// submissions of `attempts_per_submit`, and waits for them.
    pub fn advance_leaps(&mut self, n: u64) -> Result<LeapStats> {
        self.set_stop(TIME_LIMIT - 1.0);
        self.plan.run(&self.ctx, n);
        self.stats()
    }

    /// As `advance_leaps`, with GPU time per pass from timestamps (the profiler must have room
    /// for 7 n passes).
    pub fn advance_leaps_profiled(&mut self, n: u32, profiler: &mut Profiler) -> Result<LeapStats> {
        self.set_stop(TIME_LIMIT - 1.0);
        let mut left = n;
        while left > 0 {
            let k = left.min(self.plan.max_steps_per_batch);
            let mut encoder = self.plan.encode(&self.ctx, k, Some(&mut *profiler));
            left -= k;
            if left == 0 {
                profiler.resolve(&mut encoder);
            }
            self.ctx.queue.submit([encoder.finish()]);
        }
        self.stats()
    }

    /// Runs until time `t` (leaps end exactly there), keeping a few submissions of
    /// `attempts_per_submit` in flight; fails after `max_attempts` attempts rather than running
    /// on unbounded.
    pub fn advance_to(&mut self, t: f64, max_attempts: u64) -> Result<LeapStats> {
        if !(0.0..TIME_LIMIT - 1.0).contains(&t) {
            return Err(invalid("t", t, "0 <= t < 2^31 - 1 time units"));
        }
        self.set_stop(t);
        let stopped = BufferAt::new("control", offset_of!(LeapControl, stopped) as u64);
        match self.plan.run_until(&self.ctx, &stopped, max_attempts)? {
            LoopEnd::Flagged { .. } => self.stats(),
            LoopEnd::Bound => {
                let stats = self.stats()?;
                Err(ModelError::Overflow {
                    message: format!(
                        "tau-leaping did not reach t = {t} within {max_attempts} attempts (at t = {})",
                        stats.t
                    ),
                })
            }
        }
    }

    /// The control words now (waits for the GPU).
    pub fn control(&self) -> Result<LeapControl> {
        let words: Vec<LeapControl> = buffers::read_vec(&self.ctx, self.plan.buffer("control"))?;
        Ok(words[0])
    }

    /// Counters and time (waits for the GPU).
    pub fn stats(&self) -> Result<LeapStats> {
        let c = self.control()?;
        let t = ticks_to_time(((c.t[0] as u64) << 32) | c.t[1] as u64);
        Ok(LeapStats {
            t,
            attempts: c.attempt as u64,
            leaps: c.leaps as u64,
            rejected: c.rejected as u64,
            ssa_steps: c.ssa_steps as u64,
            extinct: c.extinct != 0,
        })
    }

    /// The species counts now (waits for the GPU).
    pub fn counts(&self) -> Result<Vec<u64>> {
        let words: Vec<u32> = buffers::read_vec(&self.ctx, self.plan.buffer("state"))?;
        Ok(words[..self.n_species as usize]
            .iter()
            .map(|&x| x as u64)
            .collect())
    }

    /// Passes per attempt (for profiler sizing).
    pub fn passes_per_attempt(&self) -> u32 {
        self.plan.pass_count() as u32
    }
}
