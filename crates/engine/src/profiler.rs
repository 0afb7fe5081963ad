//! GPU time from timestamp queries, when the adapter has them: per pass (`Profiler`) or per
//! whole batch (`BatchTimer`).
//!
//! Each profiled pass writes a timestamp at its start and end. After a batch, `resolve` copies the
//! raw ticks into a readable buffer and `collect` turns them into nanoseconds per pass label.
//! Without timestamp support `timestamp_writes` returns None and `collect` returns empty times, so
//! callers fall back to wall-clock timing and say so.

use crate::error::Result;
use crate::{buffers, GpuContext};
use std::collections::BTreeMap;

/// wgpu's limit on queries in one query set.
const MAX_QUERIES: u32 = 4096;

pub struct Profiler {
    query_set: Option<wgpu::QuerySet>,
    resolve: Option<wgpu::Buffer>,
    readback: Option<wgpu::Buffer>,
    capacity: u32,
    labels: Vec<String>,
    period_ns: f64,
}

/// GPU time per pass label, summed over the passes of one or more batches.
#[derive(Clone, Debug, Default)]
pub struct PassTimes {
    /// label -> (number of passes, total nanoseconds)
    pub by_label: BTreeMap<String, (u64, f64)>,
    /// From the first pass's start to the last pass's end, summed over batches (includes gaps).
    pub span_ns: f64,
}

impl PassTimes {
    /// Sum of the pass durations.
    pub fn busy_ns(&self) -> f64 {
        self.by_label.values().map(|(_, t)| t).sum()
    }

    /// Milliseconds per step of each label, the times covering `steps` steps.
    pub fn ms_per_step(&self, steps: f64) -> BTreeMap<String, f64> {
        self.by_label
            .iter()
            .map(|(k, (_, ns))| (k.clone(), ns * 1e-6 / steps))
            .collect()
    }

    pub fn add(&mut self, other: &PassTimes) {
        for (k, (n, t)) in &other.by_label {
            let e = self.by_label.entry(k.clone()).or_default();
            e.0 += n;
            e.1 += t;
        }
        self.span_ns += other.span_ns;
    }
}

impl Profiler {
    /// A profiler for up to `max_passes` passes between two `collect`s.
    pub fn new(ctx: &GpuContext, max_passes: u32) -> Self {
        let capacity = (2 * max_passes).clamp(2, MAX_QUERIES);
        if !ctx.has_timestamps() {
            return Self {
                query_set: None,
                resolve: None,
                readback: None,
                capacity: 0,
                labels: Vec::new(),
                period_ns: 1.0,
            };
        }
        let query_set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("petri timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: capacity,
        });
        let bytes = capacity as u64 * 8;
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp resolve"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Self {
            query_set: Some(query_set),
            resolve: Some(resolve),
            readback: Some(buffers::staging(ctx, "timestamp readback", bytes)),
            capacity,
            labels: Vec::new(),
            period_ns: ctx.queue.get_timestamp_period() as f64,
        }
    }

    pub fn enabled(&self) -> bool {
        self.query_set.is_some()
    }

    /// Passes that still fit before the next `collect`.
    pub fn room(&self) -> u32 {
        (self.capacity - 2 * self.labels.len() as u32) / 2
    }

    /// Timestamp writes for the next pass, or None when disabled or full.
    pub fn timestamp_writes(
        &mut self,
        label: &str,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let qs = self.query_set.as_ref()?;
        let i = 2 * self.labels.len() as u32;
        if i + 2 > self.capacity {
            return None;
        }
        self.labels.push(label.to_string());
        Some(wgpu::ComputePassTimestampWrites {
            query_set: qs,
            beginning_of_pass_write_index: Some(i),
            end_of_pass_write_index: Some(i + 1),
        })
    }

    /// Records the copy of this batch's timestamps into the readable buffer.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if let (Some(qs), Some(res), Some(rb)) = (&self.query_set, &self.resolve, &self.readback) {
            let n = 2 * self.labels.len() as u32;
            if n > 0 {
                encoder.resolve_query_set(qs, 0..n, res, 0);
                encoder.copy_buffer_to_buffer(res, 0, rb, 0, n as u64 * 8);
            }
        }
    }

    /// Waits for the resolved batch and returns its pass times; then the profiler is empty again.
    pub fn collect(&mut self, ctx: &GpuContext) -> Result<PassTimes> {
        let mut times = PassTimes::default();
        let Some(rb) = &self.readback else {
            return Ok(times);
        };
        if self.labels.is_empty() {
            return Ok(times);
        }
        let ticks: Vec<u64> = buffers::map_and_read(ctx, rb)?;
        let mut first = u64::MAX;
        let mut last = 0u64;
        for (i, label) in self.labels.iter().enumerate() {
            let (a, b) = (ticks[2 * i], ticks[2 * i + 1]);
            first = first.min(a);
            last = last.max(b);
            let ns = b.saturating_sub(a) as f64 * self.period_ns;
            let e = times.by_label.entry(label.clone()).or_default();
            e.0 += 1;
            e.1 += ns;
        }
        times.span_ns = last.saturating_sub(first) as f64 * self.period_ns;
        self.labels.clear();
        Ok(times)
    }
}

/// Whole-batch GPU time: one timestamp at the start and one at the end of each batch's compute
/// pass, resolved with the batch and read once at the end. Unlike `Profiler` it adds no pass
/// boundaries and no waits, so it can time the very run whose wall clock is reported
/// (per-pass timestamps slow the start of each profiled batch of a large lattice:
/// docs/models/rdme.md, Timing).
pub struct BatchTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    capacity: u32,
    /// Batches timed so far.
    timed: u32,
    /// Batches recorded after the query set was full (not timed).
    untimed: u32,
    /// Whether the pass being recorded got the next pair of queries.
    pending: bool,
    period_ns: f64,
}

/// GPU time of the batches a `BatchTimer` timed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchTimes {
    pub batches: u32,
    /// Batches recorded after the timer was full: when nonzero, the times cover only part of
    /// the run.
    pub untimed: u32,
    /// Sum of the batches' durations.
    pub busy_ns: f64,
    /// From the first batch's start to the last batch's end: busy time plus the idle gaps
    /// between batches (on one queue, batches do not overlap).
    pub span_ns: f64,
    /// The first timed batch's duration (0 when none was timed): a new simulation's first
    /// batch can run longer than the next ones.
    pub first_ns: f64,
}

impl BatchTimes {
    /// Adds the times of other batches (e.g. of the same device before a rebuild).
    pub fn add(&mut self, other: &BatchTimes) {
        if self.batches == 0 {
            self.first_ns = other.first_ns;
        }
        self.batches += other.batches;
        self.untimed += other.untimed;
        self.busy_ns += other.busy_ns;
        self.span_ns += other.span_ns;
    }

    /// Time the GPU sat idle between the first and the last timed batch.
    pub fn idle_ns(&self) -> f64 {
        (self.span_ns - self.busy_ns).max(0.0)
    }
}

/// wgpu's alignment of a query resolve's destination offset (QUERY_RESOLVE_BUFFER_ALIGNMENT).
const RESOLVE_ALIGN: u64 = 256;

impl BatchTimer {
    /// A timer for up to `max_batches` batches (at most 2048, wgpu's 4096 queries), or None
    /// when the adapter has no timestamp queries.
    pub fn new(ctx: &GpuContext, max_batches: u32) -> Option<Self> {
        if !ctx.has_timestamps() {
            return None;
        }
        let capacity = max_batches.clamp(1, MAX_QUERIES / 2);
        let query_set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("petri batch timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * capacity,
        });
        // Each batch resolves its own pair, at an aligned offset.
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("batch timestamp resolve"),
            size: capacity as u64 * RESOLVE_ALIGN,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Some(Self {
            query_set,
            resolve,
            capacity,
            timed: 0,
            untimed: 0,
            pending: false,
            period_ns: ctx.queue.get_timestamp_period() as f64,
        })
    }

    /// Timestamp writes for the next batch's compute pass (None once full). Call `resolve`
    /// after the pass ends, in the same encoder.
    pub fn timestamp_writes(&mut self) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        if self.timed >= self.capacity {
            self.untimed += 1;
            self.pending = false;
            return None;
        }
        self.pending = true;
        let i = 2 * self.timed;
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(i),
            end_of_pass_write_index: Some(i + 1),
        })
    }

    /// Records the copy of the batch's two timestamps into the timer's buffer.
    pub fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        let i = 2 * self.timed;
        let offset = self.timed as u64 * RESOLVE_ALIGN;
        encoder.resolve_query_set(&self.query_set, i..i + 2, &self.resolve, offset);
        self.timed += 1;
    }

    /// Waits for the timed batches and sums them.
    pub fn read(&self, ctx: &GpuContext) -> Result<BatchTimes> {
        let mut times = BatchTimes {
            batches: self.timed,
            untimed: self.untimed,
            ..BatchTimes::default()
        };
        if self.timed == 0 {
            return Ok(times);
        }
        let bytes = self.timed as u64 * RESOLVE_ALIGN;
        let stage = buffers::staging(ctx, "batch timestamp readback", bytes);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &stage, 0, bytes);
        ctx.queue.submit([encoder.finish()]);
        let ticks: Vec<u64> = buffers::map_and_read(ctx, &stage)?;
        let pairs: Vec<(u64, u64)> = ticks
            .chunks(RESOLVE_ALIGN as usize / 8)
            .map(|c| (c[0], c[1]))
            .collect();
        let ns = |t: u64| t as f64 * self.period_ns;
        times.busy_ns = pairs.iter().map(|&(a, b)| ns(b.saturating_sub(a))).sum();
        let first = pairs.iter().map(|p| p.0).min().unwrap_or(0);
        let last = pairs.iter().map(|p| p.1).max().unwrap_or(0);
        times.span_ns = ns(last.saturating_sub(first));
        times.first_ns = ns(pairs[0].1.saturating_sub(pairs[0].0));
        Ok(times)
    }
}

#[cfg(test)]
mod tests {
    use super::BatchTimes;

    #[test]
    fn adding_batch_times_sums_them_and_keeps_the_earliest_first_batch() {
        let before = BatchTimes {
            batches: 2,
            untimed: 0,
            busy_ns: 30.0,
            span_ns: 35.0,
            first_ns: 20.0,
        };
        let after = BatchTimes {
            batches: 3,
            untimed: 1,
            busy_ns: 12.0,
            span_ns: 15.0,
            first_ns: 4.0,
        };
        // An empty start takes the first batch of what is added.
        let mut total = BatchTimes::default();
        total.add(&before);
        total.add(&after);
        assert_eq!(
            total,
            BatchTimes {
                batches: 5,
                untimed: 1,
                busy_ns: 42.0,
                span_ns: 50.0,
                first_ns: 20.0,
            }
        );
        assert_eq!(total.idle_ns(), 8.0);
    }
}
