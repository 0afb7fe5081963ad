//! Petri's scheduler: step plans of compute passes over named buffers with ping-pong pairs,
//! many steps per submission, deterministic reductions, readback that does not stall, and the
//! GPU primitives of particle models (scan, radix sort, binning, segmented reduction).

pub mod plan;
pub mod primitives;
pub mod readback;
pub mod reduce;

pub use plan::{Binding, PassDesc, PassRef, StepInfo, StepPlan};
pub use primitives::{
    Binning, Grid, Length, Primitive, PrimitiveError, RadixSort, Scan, SegmentedReduction,
};
pub use readback::{ReadbackRing, Readout};
pub use reduce::{cpu_reduce, ReduceOp, Reduction};
