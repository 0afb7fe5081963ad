//! Petri's scheduler: step plans of compute passes over named buffers with ping-pong pairs,
//! many steps per submission, deterministic reductions, and readback that does not stall.

#[cfg(test)]
mod layouts;
pub mod plan;
pub mod readback;
pub mod reduce;

pub use plan::{Binding, PassDesc, PassRef, StepInfo, StepPlan};
pub use readback::{ReadbackRing, Readout};
pub use reduce::{cpu_reduce, ReduceOp, Reduction};
