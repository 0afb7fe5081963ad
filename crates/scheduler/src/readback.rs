//! Reading observables back without stalling the GPU.
//!
//! A ring of staging buffers: after a batch, the caller copies what it wants into a free slot in
//! the same encoder, submits, and calls `submitted`, which asks for the mapping. Later `poll`
//! hands back the slots whose mapping completed, oldest first, while the GPU keeps working on
//! newer batches. Only when every slot is still in flight does `begin` wait for the oldest.

use petri_engine::{buffers, EngineError, GpuContext, Result};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

type MapResult = Arc<Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>>;

struct Slot {
    buffer: wgpu::Buffer,
    done: MapResult,
}

/// A finished readback: the tag given to `begin` and the bytes copied.
pub struct Readout {
    pub tag: u64,
    pub bytes: Vec<u8>,
}

pub struct ReadbackRing {
    free: Vec<Slot>,
    in_flight: VecDeque<(u64, Slot)>,
    open: Option<(u64, Slot)>,
    ready: Vec<Readout>,
    pub bytes: u64,
}

impl ReadbackRing {
    pub fn new(ctx: &GpuContext, bytes: u64, slots: usize) -> Self {
        let free = (0..slots.max(1))
            .map(|_| Slot {
                buffer: buffers::staging(ctx, "observables", bytes),
                done: Arc::new(Mutex::new(None)),
            })
            .collect();
        Self {
            free,
            in_flight: VecDeque::new(),
            open: None,
            ready: Vec::new(),
            bytes,
        }
    }

    /// Takes a free slot for the readout tagged `tag` (e.g. the step number) and returns its
    /// buffer to copy into. Waits for the oldest readout only if no slot is free; what that wait
    /// completes is kept for the next `poll`.
    pub fn begin(&mut self, ctx: &GpuContext, tag: u64) -> Result<&wgpu::Buffer> {
        if self.free.is_empty() {
            ctx.wait()?;
            self.collect_finished()?;
        }
        let slot = self
            .free
            .pop()
            .ok_or_else(|| EngineError::Readback("no staging slot became free".into()))?;
        self.open = Some((tag, slot));
        Ok(&self.open.as_ref().unwrap().1.buffer)
    }

    /// Call after submitting the encoder that copies into the slot from `begin`.
    pub fn submitted(&mut self) {
        if let Some((tag, slot)) = self.open.take() {
            let done = slot.done.clone();
            *done.lock().unwrap() = None;
            slot.buffer.map_async(wgpu::MapMode::Read, .., move |r| {
                *done.lock().unwrap() = Some(r);
            });
            self.in_flight.push_back((tag, slot));
        }
    }

    /// Readouts that have arrived, oldest first; never blocks.
    pub fn poll(&mut self, ctx: &GpuContext) -> Result<Vec<Readout>> {
        ctx.device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| EngineError::Device(e.to_string()))?;
        self.collect_finished()?;
        Ok(std::mem::take(&mut self.ready))
    }

    /// Waits for every readout in flight and returns all that have not been polled yet.
    pub fn finish(&mut self, ctx: &GpuContext) -> Result<Vec<Readout>> {
        ctx.wait()?;
        self.collect_finished()?;
        Ok(std::mem::take(&mut self.ready))
    }

    fn collect_finished(&mut self) -> Result<()> {
        while let Some((_, slot)) = self.in_flight.front() {
            let state = slot.done.lock().unwrap().take();
            match state {
                None => break,
                Some(Err(e)) => return Err(EngineError::Readback(e.to_string())),
                Some(Ok(())) => {
                    let (tag, slot) = self.in_flight.pop_front().unwrap();
                    let bytes = slot
                        .buffer
                        .get_mapped_range(..)
                        .map_err(|e| EngineError::Readback(e.to_string()))?
                        .to_vec();
                    slot.buffer.unmap();
                    self.free.push(slot);
                    self.ready.push(Readout { tag, bytes });
                }
            }
        }
        Ok(())
    }
}
