//! Petri's scheduler: step plans of compute passes over named buffers with ping-pong pairs,
//! many steps per submission, indirect and every-k passes, loops until a GPU flag, deterministic
//! reductions, readback that does not stall, and the GPU primitives of particle models (scan,
//! radix sort, binning, segmented reduction), the multi-device z-slab decomposition of lattice
//! models (slabs, halo exchange, load balancing) and the bench harness every model and the
//! primitives are timed with.

pub mod bench;
pub mod dispatch;
#[cfg(test)]
mod layouts;
pub mod plan;
pub mod primitives;
pub mod readback;
pub mod reduce;
pub mod shaders;
pub mod slabs;

pub use dispatch::{args_buffer, dispatch_args, BufferAt};
pub use plan::{
    Binding, Every, LoopEnd, OnDemandPass, PassDesc, PassRef, PassSchedule, RecordPass, StepInfo,
    StepPlan,
};
pub use primitives::{
    Binning, Grid, Length, Primitive, PrimitiveError, RadixSort, Scan, SegmentedReduction,
};
pub use readback::{ReadbackRing, Readout};
pub use reduce::{cpu_reduce, ReduceOp, Reduction};
