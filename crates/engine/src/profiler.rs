//! Per-pass GPU time from timestamp queries, when the adapter has them.
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
    /// By the pass's position in its batch (0 = the first pass recorded after a `collect`):
    /// (number of passes, total nanoseconds). Shows how the GPU's speed changes along a batch,
    /// e.g. while its clocks come back up after waiting for the host.
    pub by_position: Vec<(u64, f64)>,
}

impl PassTimes {
    /// Sum of the pass durations.
    pub fn busy_ns(&self) -> f64 {
        self.by_label.values().map(|(_, t)| t).sum()
    }

    pub fn add(&mut self, other: &PassTimes) {
        for (k, (n, t)) in &other.by_label {
            let e = self.by_label.entry(k.clone()).or_default();
            e.0 += n;
            e.1 += t;
        }
        self.span_ns += other.span_ns;
        if self.by_position.len() < other.by_position.len() {
            self.by_position.resize(other.by_position.len(), (0, 0.0));
        }
        for (e, (n, t)) in self.by_position.iter_mut().zip(&other.by_position) {
            e.0 += n;
            e.1 += t;
        }
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
            times.by_position.push((1, ns));
        }
        times.span_ns = last.saturating_sub(first) as f64 * self.period_ns;
        self.labels.clear();
        Ok(times)
    }
}
