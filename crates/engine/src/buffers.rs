//! Buffer helpers: storage and uniform buffers from plain data, and blocking readback.

use crate::error::{EngineError, Result};
use crate::GpuContext;
use wgpu::util::DeviceExt;

/// Usage for buffers the passes read and write and that may be copied in or out.
pub const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// A storage buffer holding `data` (at least 4 bytes, since empty bindings are invalid).
pub fn storage_from<T: bytemuck::Pod>(
    ctx: &GpuContext,
    label: &str,
    data: &[T],
) -> Result<wgpu::Buffer> {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    ctx.check_storage_buffer(label, bytes.len() as u64)?;
    if bytes.is_empty() {
        return storage_zeroed(ctx, label, 4);
    }
    Ok(ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytes,
            usage: STORAGE,
        }))
}

/// A zero-filled storage buffer of `bytes` bytes.
pub fn storage_zeroed(ctx: &GpuContext, label: &str, bytes: u64) -> Result<wgpu::Buffer> {
    ctx.check_storage_buffer(label, bytes)?;
    Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4).next_multiple_of(4),
        usage: STORAGE,
        mapped_at_creation: false,
    }))
}

/// A uniform buffer holding one value.
pub fn uniform_from<T: bytemuck::Pod>(ctx: &GpuContext, label: &str, value: &T) -> wgpu::Buffer {
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::bytes_of(value),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        })
}

/// A buffer the CPU maps to read results.
pub fn staging(ctx: &GpuContext, label: &str, bytes: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4).next_multiple_of(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Reads a whole buffer back, waiting for the GPU. For tests, snapshots and end-of-run output;
/// per-step observables go through the scheduler's non-blocking readback instead.
pub fn read_vec<T: bytemuck::Pod>(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<T>> {
    let size = buffer.size();
    let stage = staging(ctx, "readback", size);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &stage, 0, size);
    ctx.queue.submit([encoder.finish()]);
    map_and_read(ctx, &stage)
}

/// Maps a staging buffer for reading once the work queued so far has finished; the caller
/// reads it with `get_mapped_range` and unmaps it (for reading without a copy).
pub fn map_for_reading(ctx: &GpuContext, stage: &wgpu::Buffer) -> Result<()> {
    map_when(stage, || ctx.wait())
}

/// Maps a staging buffer (blocking) once submission `index` is done (later submissions may
/// still run).
pub fn map_for_reading_after(
    ctx: &GpuContext,
    stage: &wgpu::Buffer,
    index: wgpu::SubmissionIndex,
) -> Result<()> {
    map_when(stage, || ctx.wait_for(index))
}

/// Asks to map `stage` for reading, then `wait`s (the mapping completes once the GPU is done
/// with the buffer) and reports the mapping's outcome.
fn map_when(stage: &wgpu::Buffer, wait: impl FnOnce() -> Result<()>) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    stage.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait()?;
    rx.recv()
        .map_err(|e| EngineError::Readback(e.to_string()))?
        .map_err(|e| EngineError::Readback(e.to_string()))?;
    Ok(())
}

/// Maps a staging buffer (blocking) and copies its contents out.
pub fn map_and_read<T: bytemuck::Pod>(ctx: &GpuContext, stage: &wgpu::Buffer) -> Result<Vec<T>> {
    map_for_reading(ctx, stage)?;
    let out = {
        let view = stage
            .get_mapped_range(..)
            .map_err(|e| EngineError::Readback(e.to_string()))?;
        bytemuck::pod_collect_to_vec(&view)
    };
    stage.unmap();
    Ok(out)
}
