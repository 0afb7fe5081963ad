//! The driver of a slab decomposition: every device's part stepped in parallel, the halos
//! exchanged, the time measured and the balancer consulted.

use super::balance::{BalanceOptions, Balancer, Decision};
use super::halo::{FieldLayout, HaloExchange};
use super::part::SlabPart;
use super::split::{check_split, extents, halo_depth, SlabExtent};
use petri_engine::{BatchTimer, BatchTimes, EngineError, GpuContext};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Steps in the first batch of an `advance` on one device; each later batch is a quarter
/// longer, up to the plan's `max_steps_per_batch`. After a wait (an observation, a check) the
/// GPU idles until the first batch is recorded: a short first batch starts it at once, and while
/// recording a step is faster than running it, each later batch (a quarter longer) is recorded
/// while the GPU runs the ones before.
pub const FIRST_BATCH: u32 = 16;

/// Batches a device's timer holds per slab layout (wgpu allows 4096 queries in a set).
const MAX_TIMED_BATCHES: u32 = 2048;

/// Wall time of multi-device steps: stepping (submission until every device's boundary planes
/// are mapped: the slowest device's compute and the copy to host), halo exchange (writes into
/// the neighbours), and load balancing (decisions and rebuilds).
#[derive(Clone, Debug, Default)]
pub struct MultiDeviceTiming {
    pub stepping: Duration,
    pub exchanging: Duration,
    pub balancing: Duration,
}

/// How a decomposition exchanges and balances.
#[derive(Clone, Debug, PartialEq)]
pub struct DecompositionOptions {
    /// Halo planes on each side of a slab, and so the most steps between exchanges (capped by
    /// the smallest slab).
    pub halo_depth: u32,
    pub balance: BalanceOptions,
}

/// Builds the parts of a new split from the old parts (to read their state from) and the new
/// slabs, at the given step; part k runs on the old part k's device.
pub trait Rebuild<P: SlabPart>:
    FnMut(&[P], &[SlabExtent], u64) -> Result<Vec<P>, P::Error>
{
}
impl<P: SlabPart, F: FnMut(&[P], &[SlabExtent], u64) -> Result<Vec<P>, P::Error>> Rebuild<P> for F {}

/// A lattice of z planes split into slabs, one per device, each stepped by a model's part.
pub struct Decomposition<P: SlabPart> {
    parts: Vec<P>,
    /// Each part's side of the halo exchange (None without neighbours: one device).
    halos: Vec<Option<HaloExchange>>,
    extents: Vec<SlabExtent>,
    layout: FieldLayout,
    options: DecompositionOptions,
    balancer: Balancer,
    /// Steps left in the current `advance` call: the horizon over which a move must pay off.
    steps_left: u64,
    /// Boundary moves made so far (by the balancer or `rebalance`).
    pub rebalances: u64,
    /// Where the wall time of multi-device steps went.
    pub timing: MultiDeviceTiming,
    /// CPU time spent recording and submitting batches (one device): when it approaches the
    /// wall time, the host, not the GPU, sets the pace.
    pub recording: Duration,
    /// Batch times of parts since replaced, per device; empty unless batches are timed.
    batch_times_before: Vec<BatchTimes>,
}

impl<P: SlabPart> Decomposition<P> {
    /// Splits `split.iter().sum()` planes over `contexts` as `split` says and builds each
    /// device's part with `build`.
    pub fn new(
        contexts: &[GpuContext],
        split: &[u32],
        layout: FieldLayout,
        options: DecompositionOptions,
        mut build: impl FnMut(&GpuContext, &SlabExtent) -> Result<P, P::Error>,
    ) -> Result<Self, P::Error> {
        let planes = split.iter().sum();
        check_split(split, contexts.len(), planes).map_err(|allowed| plan_error(split, allowed))?;
        let t0 = Instant::now();
        let extents = extents(split, halo_depth(options.halo_depth, split));
        let parts = contexts
            .iter()
            .zip(&extents)
            .map(|(ctx, e)| build(ctx, e))
            .collect::<Result<Vec<P>, P::Error>>()?;
        let mut d = Self {
            halos: Vec::new(),
            extents: Vec::new(),
            layout,
            balancer: Balancer::new(options.balance.clone(), contexts.len()),
            options,
            parts: Vec::new(),
            steps_left: 0,
            rebalances: 0,
            timing: MultiDeviceTiming::default(),
            recording: Duration::ZERO,
            batch_times_before: Vec::new(),
        };
        d.install(parts, extents);
        // A move also reads the state back: about as long again as the upload.
        d.balancer.rebuild_cost = 2 * t0.elapsed();
        Ok(d)
    }

    fn install(&mut self, parts: Vec<P>, extents: Vec<SlabExtent>) {
        self.halos = parts
            .iter()
            .zip(&extents)
            .map(|(p, e)| {
                HaloExchange::new(p.context(), *e, self.layout, p.field_counter().cloned())
            })
            .collect();
        self.parts = parts;
        self.extents = extents;
        if self.batch_timing() {
            for p in &mut self.parts {
                let timer = BatchTimer::new(p.context(), MAX_TIMED_BATCHES);
                p.plan_mut().time_batches(timer);
            }
        }
    }

    pub fn parts(&self) -> &[P] {
        &self.parts
    }

    pub fn iter(&self) -> std::slice::Iter<'_, P> {
        self.parts.iter()
    }

    /// The parts, for what the model does besides stepping (observing, reading the state).
    pub fn parts_mut(&mut self) -> &mut [P] {
        &mut self.parts
    }

    pub fn extents(&self) -> &[SlabExtent] {
        &self.extents
    }

    /// Planes per device.
    pub fn split(&self) -> Vec<u32> {
        self.extents.iter().map(SlabExtent::owned_planes).collect()
    }

    /// Steps between halo exchanges (1 on a single device).
    pub fn halo_depth(&self) -> u32 {
        self.extents[0].halo_depth
    }

    /// Steps recorded so far.
    pub fn step(&self) -> u64 {
        self.parts[0].plan().step
    }

    /// Exchanges so far that needed a second round trip for more fields, over all devices.
    pub fn halo_refetches(&self) -> u64 {
        self.halos.iter().flatten().map(|h| h.refetches).sum()
    }

    pub fn options(&self) -> &DecompositionOptions {
        &self.options
    }

    /// Records and submits `steps` steps on every device. One device: in batches growing from
    /// `FIRST_BATCH`. Several: `halo_depth` steps at a time, each followed by the halo exchange
    /// and, when due, a balancing decision, which may rebuild the parts with `rebuild`.
    pub fn advance(&mut self, steps: u64, mut rebuild: impl Rebuild<P>) -> Result<(), P::Error> {
        if self.parts.len() == 1 {
            let part = &mut self.parts[0];
            let max = part.plan().max_steps_per_batch;
            let mut left = steps;
            let mut batch = FIRST_BATCH;
            while left > 0 {
                let n = left.min(batch.min(max) as u64) as u32;
                let t0 = Instant::now();
                let encoder = part.record_steps(n);
                part.context().queue.submit([encoder.finish()]);
                self.recording += t0.elapsed();
                left -= n as u64;
                batch = (batch + batch / 4).min(max);
            }
            return Ok(());
        }
        let mut left = steps;
        while left > 0 {
            let n = left.min(self.halo_depth() as u64) as u32;
            self.steps_left = left;
            self.exchange_round(n, left > n as u64, &mut rebuild)?;
            left -= n as u64;
        }
        Ok(())
    }

    /// `steps` (at most the halo depth) steps on every device, then the halo exchange and,
    /// when due, balancing. With `more` steps to follow in this `advance` and no balancing now,
    /// each part submits the next step's head before its stage is mapped (`submit_head`).
    fn exchange_round(
        &mut self,
        steps: u32,
        more: bool,
        rebuild: &mut impl Rebuild<P>,
    ) -> Result<(), P::Error> {
        let t0 = Instant::now();
        // A head only when the next batch follows with nothing in between: a rebuild reads the
        // state.
        let balancing = self.balancer.due_after(steps);
        let head = more && !balancing;
        let busy = self
            .parts
            .par_iter_mut()
            .zip(self.halos.par_iter_mut())
            .map(|(part, halo)| {
                let t0 = Instant::now();
                let mut encoder = part.record_steps(steps);
                let state = part.state().clone();
                if let Some(h) = halo.as_mut() {
                    h.stage(&mut encoder, &state, |e| part.record_field_count(e));
                }
                let batch = part.context().queue.submit([encoder.finish()]);
                if head {
                    part.submit_head();
                }
                if let Some(h) = halo.as_mut() {
                    h.map(batch, &state)?;
                }
                Ok(t0.elapsed())
            })
            .collect::<Result<Vec<Duration>, EngineError>>()?;
        let t1 = Instant::now();
        // Part k's boundary planes go to the halos of parts k - 1 and k + 1.
        let (parts, halos) = (&self.parts, &self.halos);
        let neighbour = |j: usize| Some((halos.get(j)?.as_ref()?, parts[j].state()));
        (0..parts.len())
            .into_par_iter()
            .map(|k| match &halos[k] {
                Some(h) => h.send(k.checked_sub(1).and_then(neighbour), neighbour(k + 1)),
                None => Ok(()),
            })
            .collect::<Result<(), EngineError>>()?;
        let step = self.step();
        for part in &mut self.parts {
            part.halos_written(step);
        }
        self.timing.stepping += t1 - t0;
        self.timing.exchanging += t1.elapsed();
        self.balancer.record(&busy, steps);
        if balancing {
            let t0 = Instant::now();
            self.balance(rebuild)?;
            self.timing.balancing += t0.elapsed();
        }
        Ok(())
    }

    /// Asks the balancer and makes the move it decides on.
    fn balance(&mut self, rebuild: &mut impl Rebuild<P>) -> Result<(), P::Error> {
        let split = self.split();
        let step = self.step();
        match self.balancer.decide(&split, self.steps_left) {
            Decision::Balanced | Decision::Unchanged => Ok(()),
            Decision::NotWorthIt {
                split: new,
                saving,
                cost,
            } => {
                log::debug!(
                    "slab load balance at step {step}: keeping {split:?}; {new:?} would save \
                     {:.3} s, a move costs {:.3} s",
                    saving.as_secs_f64(),
                    cost.as_secs_f64()
                );
                Ok(())
            }
            Decision::Move(new) => {
                log::info!("slab load balance at step {step}: planes {split:?} -> {new:?}");
                self.rebalance(&new, rebuild)
            }
        }
    }

    /// Rebuilds the parts with the given planes per device (`rebuild` reads the old parts).
    pub fn rebalance(
        &mut self,
        split: &[u32],
        mut rebuild: impl Rebuild<P>,
    ) -> Result<(), P::Error> {
        let planes = self.split().iter().sum();
        check_split(split, self.parts.len(), planes)
            .map_err(|allowed| plan_error(split, allowed))?;
        let t0 = Instant::now();
        if self.batch_timing() {
            self.batch_times_before = self.batch_times()?;
        }
        let extents = extents(split, halo_depth(self.options.halo_depth, split));
        let parts = rebuild(&self.parts, &extents, self.step())?;
        self.install(parts, extents);
        self.rebalances += 1;
        self.balancer.rebuild_cost = t0.elapsed();
        Ok(())
    }

    /// From now on, times every batch of steps on each device with two timestamps
    /// (`BatchTimer`: no waits, no extra passes); the counts start over. Up to 2048 batches per
    /// device and split; later ones count as untimed. Without timestamp queries `batch_times`
    /// stays empty.
    pub fn time_batches(&mut self) {
        self.batch_times_before = vec![BatchTimes::default(); self.parts.len()];
        for p in &mut self.parts {
            let timer = BatchTimer::new(p.context(), MAX_TIMED_BATCHES);
            p.plan_mut().time_batches(timer);
        }
    }

    fn batch_timing(&self) -> bool {
        !self.batch_times_before.is_empty()
    }

    /// Each device's GPU time since `time_batches` (waits for the GPU); empty when batches are
    /// not timed or the devices have no timestamp queries. Over a move the spans of the old and
    /// the new parts add up, leaving out the rebuild between them.
    pub fn batch_times(&self) -> Result<Vec<BatchTimes>, EngineError> {
        let mut times = self.batch_times_before.clone();
        for (k, p) in self.parts.iter().enumerate() {
            match p.plan().batch_times(p.context())? {
                Some(t) => times[k].add(&t),
                None => return Ok(Vec::new()),
            }
        }
        Ok(times)
    }

    /// Waits until every device has finished its work.
    pub fn wait(&self) -> Result<(), EngineError> {
        for p in &self.parts {
            p.context().wait()?;
        }
        Ok(())
    }
}

impl<P: SlabPart> std::ops::Index<usize> for Decomposition<P> {
    type Output = P;
    fn index(&self, k: usize) -> &P {
        &self.parts[k]
    }
}

fn plan_error(split: &[u32], allowed: String) -> EngineError {
    EngineError::Plan(format!(
        "slab split {split:?} is not allowed: give {allowed}"
    ))
}
