//! The RDME simulation on one or more devices: the lattice split into z-slabs, one per device,
//! stepped together with halos `halo_depth` planes deep exchanged through host memory every
//! `halo_depth` steps (each device steps its halo planes in between, see
//! `shaders/rdme/region.wgsl`: one host round trip per `halo_depth` steps instead of per step),
//! and dynamic load balancing that moves slab boundaries toward the faster device when that
//! saves more time than the move costs.
//!
//! Random numbers are keyed by global site, step and substep, and overflow is resolved within a
//! z plane, so the lattice after any number of steps is bitwise the same on 1 or N devices and
//! for any split.

use super::config::RdmeModel;
use super::lattice::Lattice;
use super::options::SimOptions;
use super::slab::Slab;
use crate::error::{ModelError, Result};
use petri_engine::{BatchTimer, BatchTimes, GpuContext, Profiler};
use std::time::{Duration, Instant};

/// Steps in the first batch of an `advance` on one device; each later batch is a quarter
/// longer, up to `SimOptions::max_steps_per_batch`. After a wait (an observation, a check) the
/// GPU idles until the first batch is recorded: a short first batch starts it at once, and while
/// recording a step is faster than running it, each later batch (a quarter longer) is recorded
/// while the GPU runs the ones before.
pub(crate) const FIRST_BATCH: u32 = 16;

/// Batches a device's timer holds per slab layout (wgpu allows 4096 queries in a set).
const MAX_TIMED_BATCHES: u32 = 2048;

/// Wall time of multi-device steps: stepping (submission until every device's boundary planes
/// are mapped: the slowest device's compute and the copy to host), halo exchange (writes into
/// the neighbours), and load balancing (decisions and slab rebuilds).
#[derive(Clone, Debug, Default)]
pub struct MultiDeviceTiming {
    pub stepping: Duration,
    pub exchanging: Duration,
    pub balancing: Duration,
}

/// Counts at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Observables {
    pub step: u64,
    pub time_s: f64,
    /// [type][species id] particle counts.
    pub by_type: Vec<Vec<u64>>,
    /// [z plane][species id] particle counts.
    pub by_plane: Vec<Vec<u64>>,
    /// Overflow particles moved to another site so far.
    pub overflow_moved: u64,
}

impl Observables {
    pub fn species_total(&self, id: usize) -> u64 {
        self.by_type.iter().map(|t| t[id]).sum()
    }
}

pub struct RdmeSim {
    pub model: RdmeModel,
    pub slabs: Vec<Slab>,
    pub step: u64,
    options: SimOptions,
    contexts: Vec<GpuContext>,
    /// Wall time per device since the last balancing decision (multi-device only).
    busy: Vec<Duration>,
    steps_since_balance: u64,
    /// Boundary moves made by the load balancer so far.
    pub rebalances: u64,
    /// Wall time of the last slab rebuild (the price of a boundary move).
    rebuild_cost: Duration,
    /// Steps left in the current `advance` call: the horizon over which a move must pay off.
    steps_left: u64,
    /// Where the wall time of multi-device steps went.
    pub timing: MultiDeviceTiming,
    /// CPU time spent recording and submitting command buffers (single device): when it
    /// approaches the wall time, the host, not the GPU, sets the pace.
    pub recording: Duration,
    /// Overflow moves counted by slabs since replaced (their counters start at zero).
    moved_before: u64,
    /// Site types of the whole lattice (fixed; kept to assemble read-backs).
    types: Vec<u8>,
    /// Batch times of slabs since replaced by load balancing, per device; empty unless batches
    /// are timed (`time_batches`).
    batch_times_before: Vec<BatchTimes>,
}

impl RdmeSim {
    /// A simulation of `lattice` at `step` over the given devices (one slab each).
    pub fn new(
        contexts: Vec<GpuContext>,
        model: &RdmeModel,
        lattice: &Lattice,
        step: u64,
        options: &SimOptions,
    ) -> Result<Self> {
        let nz = lattice.shape[2];
        if contexts.is_empty() {
            return Err(ModelError::Invalid {
                field: "devices".into(),
                value: "0".into(),
                allowed: "at least one device".into(),
            });
        }
        if contexts.len() as u32 > nz {
            return Err(crate::error::invalid(
                "devices",
                contexts.len(),
                format!("at most lattice.shape.z = {nz} devices (one z plane each at least)"),
            ));
        }
        let split = match &options.split {
            Some(s) => {
                if s.len() != contexts.len() || s.iter().sum::<u32>() != nz || s.contains(&0) {
                    return Err(crate::error::invalid(
                        "split",
                        format!("{s:?}"),
                        format!("{} positive plane counts summing to {nz}", contexts.len()),
                    ));
                }
                s.clone()
            }
            None => equal_split(nz, contexts.len()),
        };
        let mut sim = Self {
            model: model.clone(),
            slabs: Vec::new(),
            step,
            options: options.clone(),
            busy: vec![Duration::ZERO; contexts.len()],
            contexts,
            steps_since_balance: 0,
            rebalances: 0,
            rebuild_cost: Duration::ZERO,
            steps_left: 0,
            timing: MultiDeviceTiming::default(),
            recording: Duration::ZERO,
            moved_before: 0,
            types: lattice.types.clone(),
            batch_times_before: Vec::new(),
        };
        let t0 = Instant::now();
        sim.build_slabs(lattice, &split)?;
        // A move also reads the lattice back: about as long again as the upload.
        sim.rebuild_cost = 2 * t0.elapsed();
        Ok(sim)
    }

    fn build_slabs(&mut self, lattice: &Lattice, split: &[u32]) -> Result<()> {
        // A neighbour's halo must come from one slab: no deeper than the smallest slab.
        let depth = match split.len() {
            1 => 1,
            _ => self
                .options
                .halo_depth
                .min(*split.iter().min().unwrap_or(&1))
                .max(1),
        };
        let mut slabs = Vec::new();
        let mut z = 0;
        for (ctx, &planes) in self.contexts.iter().zip(split) {
            let mut slab = Slab::new(
                ctx.clone(),
                &self.model,
                lattice,
                (z, z + planes),
                depth,
                self.step,
                &self.options,
            )?;
            if self.batch_timing() {
                slab.plan
                    .time_batches(BatchTimer::new(ctx, MAX_TIMED_BATCHES));
            }
            slabs.push(slab);
            z += planes;
        }
        self.slabs = slabs;
        Ok(())
    }

    /// Steps between halo exchanges (1 on a single device).
    pub fn halo_depth(&self) -> u32 {
        self.slabs[0].halo_depth()
    }

    pub fn split(&self) -> Vec<u32> {
        self.slabs.iter().map(|s| s.owned_planes()).collect()
    }

    pub fn time_s(&self) -> f64 {
        self.step as f64 * self.model.config.tau_s
    }

    /// Advances `steps` steps. Stops with an error if particles could not be placed.
    pub fn advance(&mut self, steps: u64) -> Result<()> {
        let start = self.step;
        if self.slabs.len() == 1 {
            let slab = &mut self.slabs[0];
            let mut left = steps;
            let mut batch = FIRST_BATCH;
            while left > 0 {
                let n = left.min(batch.min(slab.plan.max_steps_per_batch) as u64) as u32;
                let t0 = Instant::now();
                let enc = slab.encode(n, None, false);
                slab.ctx.queue.submit([enc.finish()]);
                self.recording += t0.elapsed();
                left -= n as u64;
                batch = (batch + batch / 4).min(slab.plan.max_steps_per_batch);
            }
            self.step += steps;
        } else {
            let mut left = steps;
            while left > 0 {
                let n = left.min(self.halo_depth() as u64) as u32;
                self.steps_left = left;
                self.step_devices(n, left > n as u64)?;
                left -= n as u64;
            }
        }
        self.check_overflow(start)
    }

    /// `steps` (at most the halo depth) steps on every device, then the halo exchange and, now
    /// and then, load balancing. With `more` steps to follow in this `advance` and no balancing
    /// now, a slab with `overlap_exchange` starts the next step's x and y sweeps during the
    /// exchange (`Slab::submit_head`).
    fn step_devices(&mut self, steps: u32, more: bool) -> Result<()> {
        use rayon::prelude::*;
        let t0 = Instant::now();
        // Balancing is due after these steps. A head (Slab::submit_head) only when the next
        // batch follows with nothing in between: the load balancer reads the lattice.
        let balancing = self.options.balance_every > 0
            && self.steps_since_balance + steps as u64 >= self.options.balance_every;
        let head = more && !balancing;
        let busy: Vec<Result<Duration>> = self
            .slabs
            .par_iter_mut()
            .map(|slab| {
                let t0 = Instant::now();
                let enc = slab.encode(steps, None, true);
                let batch = slab.ctx.queue.submit([enc.finish()]);
                if head {
                    slab.submit_head();
                }
                slab.map_halo_stage(batch)?;
                Ok(t0.elapsed())
            })
            .collect();
        for (k, r) in busy.into_iter().enumerate() {
            self.busy[k] += r?;
        }
        let t1 = Instant::now();
        // Slab k's boundary planes go to the halos of slabs k - 1 and k + 1.
        let slabs = &self.slabs;
        (0..slabs.len())
            .into_par_iter()
            .map(|k| slabs[k].send_halos(k.checked_sub(1).map(|b| &slabs[b]), slabs.get(k + 1)))
            .collect::<Result<()>>()?;
        self.step += steps as u64;
        for slab in &mut self.slabs {
            slab.set_halo_start(self.step);
        }
        self.timing.stepping += t1 - t0;
        self.timing.exchanging += t1.elapsed();
        self.steps_since_balance += steps as u64;
        if balancing {
            let t0 = Instant::now();
            self.balance()?;
            self.timing.balancing += t0.elapsed();
        }
        Ok(())
    }

    /// Moves slab boundaries so that each device gets planes in proportion to its measured
    /// speed (planes per second of step time), when the slowest and fastest differ by more than
    /// the threshold and the time the new split would save over the rest of the current
    /// `advance` call (at least one balancing interval) exceeds what the last rebuild cost.
    fn balance(&mut self) -> Result<()> {
        let window = self.steps_since_balance.max(1);
        let times: Vec<f64> = self.busy.iter().map(|d| d.as_secs_f64()).collect();
        self.busy.iter_mut().for_each(|d| *d = Duration::ZERO);
        self.steps_since_balance = 0;
        let (lo, hi) = times
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        if lo <= 0.0 || hi / lo - 1.0 < self.options.balance_threshold {
            return Ok(());
        }
        let split = self.split();
        let speed: Vec<f64> = split
            .iter()
            .zip(&times)
            .map(|(&p, &t)| p as f64 / t)
            .collect();
        let nz = self.model.config.lattice.shape[2];
        let new = proportional_split(nz, &speed);
        if new == split {
            return Ok(());
        }
        // Devices run in parallel: a step lasts as long as the slowest; balanced, all take
        // nz / (sum of speeds).
        let balanced = nz as f64 / speed.iter().sum::<f64>();
        let horizon = self.steps_left.max(self.options.balance_every) as f64 / window as f64;
        let saving = (hi - balanced) * horizon;
        let cost = self.options.move_cost.unwrap_or(self.rebuild_cost);
        if saving <= cost.as_secs_f64() {
            log::debug!(
                "rdme load balance at step {}: keeping {split:?}; {new:?} would save {saving:.3} s, \
                 a rebuild costs {:.3} s",
                self.step,
                cost.as_secs_f64()
            );
            return Ok(());
        }
        log::info!(
            "rdme load balance at step {}: planes {split:?} -> {new:?} (step times {times:?})",
            self.step
        );
        self.rebalance(&new)
    }

    /// Rebuilds the slabs with the given planes per device.
    pub fn rebalance(&mut self, split: &[u32]) -> Result<()> {
        let t0 = Instant::now();
        let lattice = self.read_lattice()?;
        for slab in &self.slabs {
            self.moved_before += slab.overflow_counts()?[2] as u64;
        }
        if self.batch_timing() {
            self.batch_times_before = self.batch_times()?;
        }
        self.build_slabs(&lattice, split)?;
        self.rebalances += 1;
        self.rebuild_cost = t0.elapsed();
        Ok(())
    }

    fn check_overflow(&self, start: u64) -> Result<()> {
        for (k, slab) in self.slabs.iter().enumerate() {
            let [lost, unresolved, _] = slab.overflow_counts()?;
            if lost > 0 || unresolved > 0 {
                return Err(ModelError::Overflow {
                    message: format!(
                        "between step {start} and step {}: device {k} lost {lost} particles past \
                         the overflow list capacity of {} and found no room for {unresolved} in \
                         their z plane; use a finer lattice or fewer particles",
                        self.step, self.options.overflow_capacity
                    ),
                });
            }
        }
        Ok(())
    }

    /// Counts by type and plane, summed over devices.
    pub fn observe(&self) -> Result<Observables> {
        let nt = self.model.n_types();
        let ns = self.model.n_species_ids();
        let nz = self.model.config.lattice.shape[2] as usize;
        let mut by_type = vec![vec![0u64; ns]; nt];
        let mut by_plane = vec![vec![0u64; ns]; nz];
        let mut moved = self.moved_before;
        for slab in &self.slabs {
            let c = slab.counts()?;
            for t in 0..nt {
                for s in 0..ns {
                    by_type[t][s] += c[t * ns + s] as u64;
                }
            }
            for z in 0..nz {
                for s in 0..ns {
                    by_plane[z][s] += c[nt * ns + z * ns + s] as u64;
                }
            }
            moved += slab.overflow_counts()?[2] as u64;
        }
        Ok(Observables {
            step: self.step,
            time_s: self.time_s(),
            by_type,
            by_plane,
            overflow_moved: moved,
        })
    }

    /// The whole lattice, assembled from the owned planes of every device.
    pub fn read_lattice(&self) -> Result<Lattice> {
        let mut lat = Lattice::empty(self.model.config.lattice.shape, self.types.clone());
        for slab in &self.slabs {
            lat.put_slab_words(slab.own.0, &slab.read_owned()?);
        }
        lat.clear_unused_words();
        Ok(lat)
    }

    /// From now on, times every batch of steps on each device with two timestamps
    /// (`BatchTimer`: no waits, no extra passes, so the timed run itself is measured); the
    /// counts start over. Up to 2048 batches per device and slab layout; later ones count as
    /// untimed. Without timestamp queries `batch_times` stays empty.
    pub fn time_batches(&mut self) {
        self.batch_times_before = vec![BatchTimes::default(); self.slabs.len()];
        for slab in &mut self.slabs {
            let timer = BatchTimer::new(&slab.ctx, MAX_TIMED_BATCHES);
            slab.plan.time_batches(timer);
        }
    }

    fn batch_timing(&self) -> bool {
        !self.batch_times_before.is_empty()
    }

    /// Each device's GPU time since `time_batches` (waits for the GPU); empty when batches are
    /// not timed or the devices have no timestamp queries. Over a load-balancing move the
    /// spans of the old and the new slabs add up, leaving out the rebuild between them.
    pub fn batch_times(&self) -> Result<Vec<BatchTimes>> {
        let mut times = self.batch_times_before.clone();
        for (k, slab) in self.slabs.iter().enumerate() {
            match slab.plan.batch_times(&slab.ctx)? {
                Some(t) => times[k].add(&t),
                None => return Ok(Vec::new()),
            }
        }
        Ok(times)
    }

    /// Records `steps` steps (single device) with per-pass timestamps.
    pub fn advance_profiled(&mut self, steps: u32, profiler: &mut Profiler) -> Result<()> {
        let start = self.step;
        let slab = &mut self.slabs[0];
        let mut enc = slab.encode(steps, Some(profiler), false);
        profiler.resolve(&mut enc);
        slab.ctx.queue.submit([enc.finish()]);
        self.step += steps as u64;
        self.check_overflow(start)
    }

    /// Waits until every device has finished its work.
    pub fn wait(&self) -> Result<()> {
        for s in &self.slabs {
            s.ctx.wait()?;
        }
        Ok(())
    }
}

/// `n` planes over `k` devices as evenly as possible (the first ones get the remainder).
pub fn equal_split(n: u32, k: usize) -> Vec<u32> {
    let k = k as u32;
    (0..k).map(|i| n / k + u32::from(i < n % k)).collect()
}

/// Planes in proportion to `speed`, at least one each, summing to `n`.
pub fn proportional_split(n: u32, speed: &[f64]) -> Vec<u32> {
    let total: f64 = speed.iter().sum();
    let mut out: Vec<u32> = speed
        .iter()
        .map(|s| ((s / total) * n as f64).floor().max(1.0) as u32)
        .collect();
    // Hand out (or take back) the rounding remainder, fastest first.
    let mut order: Vec<usize> = (0..speed.len()).collect();
    order.sort_by(|&a, &b| speed[b].total_cmp(&speed[a]));
    let mut sum: i64 = out.iter().map(|&p| p as i64).sum();
    let mut k = 0;
    while sum != n as i64 {
        let i = order[k % order.len()];
        if sum < n as i64 {
            out[i] += 1;
            sum += 1;
        } else if out[i] > 1 {
            out[i] -= 1;
            sum -= 1;
        }
        k += 1;
    }
    out
}
