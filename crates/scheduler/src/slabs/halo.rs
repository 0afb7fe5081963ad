//! Halo exchange between neighbouring slabs through host memory.
//!
//! The state buffer of a slab is laid out as `fields` field planes of `sites` words (one word
//! per site and field; `sites` = local planes x `plane_words`), each field plane a run of z
//! planes of `plane_words` words. After a batch of steps, the first and the last `halo_depth`
//! owned planes of fields [0, n) are copied to a stage buffer, mapped, and written from there
//! straight into the halo planes of the neighbours below and above.
//!
//! A model whose boundary planes often use fewer fields than it has (a variable number of words
//! per site) can count the fields needed on the GPU after each batch (`SlabPart::field_counter`):
//! the stage then takes the count and as many fields as the last exchange needed; when that is
//! too few (rare) the rest follow in a second round trip (`refetches`). Fields past the count
//! are left stale in the neighbours' halos: the model must not read them.

use super::split::SlabExtent;
use petri_engine::{buffers, EngineError, GpuContext, Result};

/// How a slab's state buffer is laid out (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// Words of one z plane of one field (nx * ny).
    pub plane_words: u32,
    /// Field planes in the state.
    pub fields: u32,
    /// With a field counter: the fields staged at the first exchange (later: what the last
    /// exchange needed).
    pub first_fields: u32,
}

/// Bytes before the field blocks in the stage: the field count.
const STAGE_HEADER: u64 = 16;

/// One slab's side of the exchange: its stage and what it holds.
pub struct HaloExchange {
    ctx: GpuContext,
    extent: SlabExtent,
    layout: FieldLayout,
    /// The count (a u32, with a counter), then for the planes below and above in turn one
    /// block of `halo_depth` planes per field.
    stage: wgpu::Buffer,
    /// Where the model's pass writes the number of fields the boundary planes need.
    counter: Option<wgpu::Buffer>,
    /// Fields staged at the next exchange (what the last one needed).
    to_stage: u32,
    /// Fields in the stage this exchange.
    staged: u32,
    /// Exchanges that needed a second round trip for more fields.
    pub refetches: u64,
}

impl HaloExchange {
    /// The exchange of a slab of `extent` on `ctx`; None when it has no neighbour.
    pub fn new(
        ctx: &GpuContext,
        extent: SlabExtent,
        layout: FieldLayout,
        counter: Option<wgpu::Buffer>,
    ) -> Option<Self> {
        if !extent.has_halos() {
            return None;
        }
        let block = extent.halo_depth as u64 * layout.plane_words as u64 * 4;
        let stage = buffers::staging(
            ctx,
            "halo stage",
            STAGE_HEADER + 2 * layout.fields as u64 * block,
        );
        let to_stage = match counter {
            Some(_) => layout.first_fields.clamp(1, layout.fields),
            None => layout.fields,
        };
        Some(Self {
            ctx: ctx.clone(),
            extent,
            layout,
            stage,
            counter,
            to_stage,
            staged: 0,
            refetches: 0,
        })
    }

    /// Bytes of one field's `halo_depth` planes.
    fn block_bytes(&self) -> u64 {
        self.extent.halo_depth as u64 * self.layout.plane_words as u64 * 4
    }

    /// Byte offset in the state of field `field` at global plane `global_plane`.
    fn offset(&self, field: u32, global_plane: u32) -> u64 {
        let plane_words = self.layout.plane_words as u64;
        let sites = self.extent.planes() as u64 * plane_words;
        let local = (global_plane - self.extent.base) as u64;
        (field as u64 * sites + local * plane_words) * 4
    }

    /// Records into `encoder` (after the steps) the staging of the boundary planes of `state`:
    /// with a counter, clears it, lets `count` record the pass that writes it, and stages it.
    pub fn stage(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        state: &wgpu::Buffer,
        count: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        if let Some(counter) = &self.counter {
            encoder.clear_buffer(counter, 0, None);
            count(encoder);
            encoder.copy_buffer_to_buffer(counter, 0, &self.stage, 0, 4);
        }
        self.copy_fields(encoder, state, 0, self.to_stage);
        self.staged = self.to_stage;
    }

    /// Copies fields [from, to) of the first and the last `halo_depth` owned planes to the stage.
    fn copy_fields(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        state: &wgpu::Buffer,
        from: u32,
        to: u32,
    ) {
        let block = self.block_bytes();
        let (own, depth) = (self.extent.own, self.extent.halo_depth);
        for (side, plane) in [own.0, own.1 - depth].into_iter().enumerate() {
            for field in from..to {
                let dst =
                    STAGE_HEADER + (side as u64 * self.layout.fields as u64 + field as u64) * block;
                encoder.copy_buffer_to_buffer(
                    state,
                    self.offset(field, plane),
                    &self.stage,
                    dst,
                    block,
                );
            }
        }
    }

    /// Waits for submission `batch` (the one `stage` was recorded in) and maps the stage for
    /// `send`. When the counter asks for more fields than were staged, copies the rest from
    /// `state` first, in a second round trip.
    pub fn map(&mut self, batch: wgpu::SubmissionIndex, state: &wgpu::Buffer) -> Result<()> {
        buffers::map_for_reading_after(&self.ctx, &self.stage, batch)?;
        if self.counter.is_none() {
            return Ok(());
        }
        let needed = {
            let view = self
                .stage
                .get_mapped_range(0..4)
                .map_err(|e| EngineError::Readback(e.to_string()))?;
            bytemuck::cast_slice::<u8, u32>(&view)[0].clamp(1, self.layout.fields)
        };
        if needed > self.staged {
            self.stage.unmap();
            let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
            self.copy_fields(&mut encoder, state, self.staged, needed);
            self.ctx.queue.submit([encoder.finish()]);
            buffers::map_for_reading(&self.ctx, &self.stage)?;
            self.staged = needed;
            self.refetches += 1;
        }
        self.to_stage = needed;
        Ok(())
    }

    /// Writes the mapped stage's boundary planes straight into the halos of the neighbours
    /// below and above (each given with its state buffer), then unmaps the stage.
    pub fn send(
        &self,
        below: Option<(&HaloExchange, &wgpu::Buffer)>,
        above: Option<(&HaloExchange, &wgpu::Buffer)>,
    ) -> Result<()> {
        {
            let view = self
                .stage
                .get_mapped_range(..)
                .map_err(|e| EngineError::Readback(e.to_string()))?;
            let words: &[u32] = bytemuck::cast_slice(&view[STAGE_HEADER as usize..]);
            let (first, last) = words.split_at(words.len() / 2);
            let (own, depth) = (self.extent.own, self.extent.halo_depth);
            if let Some((b, state)) = below {
                b.write_halo(state, own.0, first, self.staged);
            }
            if let Some((a, state)) = above {
                a.write_halo(state, own.1 - depth, last, self.staged);
            }
        }
        self.stage.unmap();
        Ok(())
    }

    /// Writes fields [0, n) of `halo_depth` planes of a neighbour (blocks as its stage holds
    /// them) into this slab's `state` from `global_plane` on.
    fn write_halo(&self, state: &wgpu::Buffer, global_plane: u32, words: &[u32], n: u32) {
        let block = (self.block_bytes() / 4) as usize;
        for field in 0..n as usize {
            self.ctx.queue.write_buffer(
                state,
                self.offset(field as u32, global_plane),
                bytemuck::cast_slice(&words[field * block..(field + 1) * block]),
            );
        }
    }
}
