//! What a model's per-device part of a slab decomposition provides to the driver.

use crate::plan::StepPlan;
use petri_engine::{EngineError, GpuContext};

/// One device's part of a z-decomposed model: its step plan over its slab (owned planes and
/// halos, `SlabExtent`) and a state buffer laid out as `FieldLayout` says. Between halo
/// exchanges the part steps its halo planes too, on a region that shrinks by one plane per step
/// on each side with a neighbour (their outer neighbours are not here), so its owned planes
/// stay exact for `halo_depth` steps.
pub trait SlabPart: Send + Sync {
    /// The model's error, which the driver's own errors convert into.
    type Error: From<EngineError> + Send;

    fn context(&self) -> &GpuContext;

    fn plan(&self) -> &StepPlan;

    fn plan_mut(&mut self) -> &mut StepPlan;

    /// Records the next `steps` steps (at most the plan's `max_steps_per_batch`) into a new
    /// encoder, which the driver submits (after recording the halo stage into it).
    fn record_steps(&mut self, steps: u32) -> wgpu::CommandEncoder;

    /// The buffer holding the state after the steps recorded so far.
    fn state(&self) -> &wgpu::Buffer;

    /// Where `record_field_count` writes the number of fields the boundary planes need (a
    /// u32, cleared before); None: every field is exchanged.
    fn field_counter(&self) -> Option<&wgpu::Buffer> {
        None
    }

    /// Records the pass that writes the field count (with a `field_counter`).
    fn record_field_count(&mut self, _encoder: &mut wgpu::CommandEncoder) {}

    /// Submits the passes of the next step that do not read the halos, to run while the host
    /// exchanges them (after the steps were submitted and before their stage is mapped).
    /// Until the next `record_steps` the part records nothing else.
    fn submit_head(&mut self) {}

    /// The neighbours' boundary planes were written into the halos after step `step`: the
    /// halo region starts over.
    fn halos_written(&mut self, step: u64);
}
