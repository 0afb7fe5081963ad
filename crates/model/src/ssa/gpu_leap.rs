//! Tau-leaping of one large network on the GPU (`shaders/ssa/leap.wgsl`): one thread per
//! reaction and per species, fixed-order reductions, and the step decision, the negative-count
//! check and the reject/halve retry all on the GPU, so `advance_leaps(n)` records n attempts
//! (seven dispatches each) per submission with no readback in between.
//!
//! Same step selection as `tau.rs` (Cao, Gillespie & Petzold 2006: epsilon, critical reactions
//! L_j < n_c fired one at a time, exact steps when tau' < 10 / a0, Poisson counts with a normal
//! approximation from mean 30, rejected and halved when a count would go negative), with one
//! exact step (not 100) each time leaping is not worth it. Propensities and time are f32 (the
//! WebGPU baseline has no f64); time is 64-bit fixed point (`shaders/ssa/time.wgsl`).

use super::gpu_tables::gpu_rate;
use super::gpu_time::{ticks_to_time, time_to_ticks, TIME_LIMIT};
use crate::error::{invalid, ModelError, Result};
use crate::reactions::Network;
use petri_engine::kernel::{self, Access};
use petri_engine::shaders::ssa::leap;
use petri_engine::{buffers, GpuContext, Profiler};

/// Counts must stay below 2^31 (the species update is i32).
pub const COUNT_LIMIT: u64 = 1 << 31;

const WG: u32 = 256;
const CONTROL_WORDS: usize = 20;
const C_MODE: usize = 0;
const C_ATTEMPT: usize = 1;
const C_LEAPS: usize = 2;
const C_REJECTED: usize = 3;
const C_SSA: usize = 4;
const C_T_HI: usize = 6;
const C_T_LO: usize = 7;
const C_STOP_HI: usize = 8;
const C_SCALE: usize = 11;
const C_EXTINCT: usize = 15;
const MODE_LEAP: u32 = 0;
const MODE_IDLE: u32 = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct LeapOptions {
    pub epsilon: f64,
    pub n_critical: u32,
    /// Poisson means at or above this use the normal approximation.
    pub normal_above: f64,
    /// An exact step instead of a leap when tau' < ssa_factor / a0.
    pub ssa_factor: f64,
    /// Attempts recorded per submission by `advance_to` between checks of the time reached.
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
        if !(self.epsilon > 0.0 && self.epsilon < 1.0) {
            return Err(invalid(
                "epsilon",
                self.epsilon,
                "0 < epsilon < 1 (CGP: 0.03)",
            ));
        }
        if self.n_critical == 0 {
            return Err(invalid("n_critical", self.n_critical, ">= 1 (CGP: 10)"));
        }
        if !(self.normal_above >= 1.0 && self.normal_above <= 1000.0) {
            return Err(invalid("normal_above", self.normal_above, "1..=1000"));
        }
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
    options: LeapOptions,
    group: wgpu::BindGroup,
    /// props, species, decide, fire, apply, commit, finish
    pipelines: Vec<(&'static str, wgpu::ComputePipeline, u32)>,
    state: wgpu::Buffer,
    control: wgpu::Buffer,
    control_stage: wgpu::Buffer,
    /// Attempts recorded so far (the control buffer has the GPU's own count).
    recorded: u64,
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
        for s in &net.species {
            if s.initial_count >= COUNT_LIMIT {
                let field = format!("species.{}.initial_count", s.id);
                return Err(invalid(
                    &field,
                    s.initial_count,
                    format!("< 2^31 = {COUNT_LIMIT} on the GPU"),
                ));
            }
        }
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
        let mut state_words: Vec<u32> = net.initial_counts().iter().map(|&c| c as u32).collect();
        state_words.resize(2 * ns + nr.max(1), 0);
        let off_ac = nr.max(1) as u32;
        let off_blk_a = 2 * off_ac;
        let off_blk_ac = off_blk_a + blocks_rx;
        let off_blk_tau = off_blk_ac + blocks_rx;
        let fl_words = off_blk_tau + blocks_sp;
        let mut control = vec![0u32; CONTROL_WORDS];
        control[C_MODE] = MODE_IDLE;
        control[C_SCALE] = 1.0f32.to_bits();
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
        let params_buf = buffers::uniform_from(ctx, "leap params", &params);
        let net_buf = buffers::storage_from(ctx, "leap network", &words)?;
        let state = buffers::storage_from(ctx, "leap state", &state_words)?;
        let fl = buffers::storage_zeroed(ctx, "leap propensities", 4 * fl_words as u64)?;
        let control_buf = buffers::storage_from(ctx, "leap control", &control)?;
        let flag = buffers::storage_zeroed(ctx, "leap flag", 4)?;
        let layout = kernel::bind_group_layout(
            ctx,
            "leap",
            &[
                Access::Uniform,
                Access::ReadOnly,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadWrite,
                Access::ReadWrite,
            ],
        );
        let group = kernel::bind_group(
            ctx,
            "leap",
            &layout,
            &[&params_buf, &net_buf, &state, &fl, &control_buf, &flag],
        );
        let wg = [("WG", WG as f64)];
        let mut pipelines = Vec::new();
        for (entry, groups) in [
            (leap::LEAP_PROPS, blocks_rx),
            (leap::LEAP_SPECIES, blocks_sp),
            (leap::LEAP_DECIDE, 1),
            (leap::LEAP_FIRE, blocks_rx),
            (leap::LEAP_APPLY, blocks_sp),
            (leap::LEAP_COMMIT, blocks_sp),
            (leap::LEAP_FINISH, 1),
        ] {
            ctx.check_workgroups(entry.name(), groups)?;
            let constants: &[(&str, f64)] = if entry == leap::LEAP_FINISH { &[] } else { &wg };
            let pipeline = kernel::compute_pipeline(ctx, entry, &[&layout], constants)?;
            let entry = entry.name();
            pipelines.push((entry, pipeline, groups));
        }
        Ok(Self {
            ctx: ctx.clone(),
            n_species: ns as u32,
            n_reactions: nr as u32,
            options: options.clone(),
            group,
            pipelines,
            state,
            control_stage: buffers::staging(ctx, "leap control", 4 * CONTROL_WORDS as u64),
            control: control_buf,
            recorded: 0,
        })
    }

    pub fn n_reactions(&self) -> u32 {
        self.n_reactions
    }

    /// Sets the stop time and wakes the leaper (the words the GPU does not own at this point).
    fn set_stop(&self, t_stop: f64) {
        let ticks = time_to_ticks(t_stop);
        let words = [(ticks >> 32) as u32, ticks as u32];
        let q = &self.ctx.queue;
        q.write_buffer(
            &self.control,
            4 * C_STOP_HI as u64,
            bytemuck::cast_slice(&words),
        );
        q.write_buffer(
            &self.control,
            4 * C_MODE as u64,
            bytemuck::bytes_of(&MODE_LEAP),
        );
    }

    /// Records `attempts` leap attempts into one submission (timestamps per pass if `profiler`).
    fn submit(&mut self, attempts: u32, mut profiler: Option<&mut Profiler>) {
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let single = profiler.as_ref().is_none_or(|p| !p.enabled());
        if single {
            // One pass: wgpu orders the dispatches inside it.
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.group, &[]);
            for _ in 0..attempts {
                for (_, pipeline, groups) in &self.pipelines {
                    pass.set_pipeline(pipeline);
                    pass.dispatch_workgroups(*groups, 1, 1);
                }
            }
        } else {
            let p = profiler.as_mut().expect("profiled");
            for _ in 0..attempts {
                for (entry, pipeline, groups) in &self.pipelines {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(entry),
                        timestamp_writes: p.timestamp_writes(entry),
                    });
                    pass.set_bind_group(0, &self.group, &[]);
                    pass.set_pipeline(pipeline);
                    pass.dispatch_workgroups(*groups, 1, 1);
                }
            }
            p.resolve(&mut enc);
        }
        self.ctx.queue.submit([enc.finish()]);
        self.recorded += attempts as u64;
    }

    /// Records `n` leap attempts (accepted, rejected or exact steps) with no time limit, in
    /// submissions of `attempts_per_submit`, and waits for them.
    pub fn advance_leaps(&mut self, n: u64) -> Result<LeapStats> {
        self.set_stop(TIME_LIMIT - 1.0);
        let mut left = n;
        while left > 0 {
            let k = left.min(self.options.attempts_per_submit as u64) as u32;
            self.submit(k, None);
            left -= k as u64;
        }
        self.stats()
    }

    /// As `advance_leaps`, with GPU time per pass from timestamps (the profiler must have room
    /// for 7 n passes).
    pub fn advance_leaps_profiled(&mut self, n: u32, profiler: &mut Profiler) -> Result<LeapStats> {
        self.set_stop(TIME_LIMIT - 1.0);
        self.submit(n, Some(profiler));
        self.stats()
    }

    /// Runs until time `t` (leaps end exactly there), checking after every submission; fails
    /// after `max_attempts` attempts rather than running on unbounded.
    pub fn advance_to(&mut self, t: f64, max_attempts: u64) -> Result<LeapStats> {
        if !(0.0..TIME_LIMIT - 1.0).contains(&t) {
            return Err(invalid("t", t, "0 <= t < 2^31 - 1 time units"));
        }
        self.set_stop(t);
        let start = self.recorded;
        loop {
            self.submit(self.options.attempts_per_submit, None);
            let stats = self.stats()?;
            if self.read_control()?[C_MODE] == MODE_IDLE {
                return Ok(stats);
            }
            if self.recorded - start >= max_attempts {
                return Err(ModelError::Overflow {
                    message: format!(
                        "tau-leaping did not reach t = {t} within {max_attempts} attempts (at t = {})",
                        stats.t
                    ),
                });
            }
        }
    }

    fn read_control(&self) -> Result<Vec<u32>> {
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let bytes = 4 * CONTROL_WORDS as u64;
        enc.copy_buffer_to_buffer(&self.control, 0, &self.control_stage, 0, bytes);
        self.ctx.queue.submit([enc.finish()]);
        Ok(buffers::map_and_read(&self.ctx, &self.control_stage)?)
    }

    /// Counters and time (waits for the GPU).
    pub fn stats(&self) -> Result<LeapStats> {
        let c = self.read_control()?;
        let t = ticks_to_time(((c[C_T_HI] as u64) << 32) | c[C_T_LO] as u64);
        Ok(LeapStats {
            t,
            attempts: c[C_ATTEMPT] as u64,
            leaps: c[C_LEAPS] as u64,
            rejected: c[C_REJECTED] as u64,
            ssa_steps: c[C_SSA] as u64,
            extinct: c[C_EXTINCT] != 0,
        })
    }

    /// The species counts now (waits for the GPU).
    pub fn counts(&self) -> Result<Vec<u64>> {
        let words: Vec<u32> = buffers::read_vec(&self.ctx, &self.state)?;
        Ok(words[..self.n_species as usize]
            .iter()
            .map(|&x| x as u64)
            .collect())
    }

    /// Dispatches per attempt (for profiler sizing).
    pub fn passes_per_attempt(&self) -> u32 {
        self.pipelines.len() as u32
    }
}
