//! Petri's models. Each module holds one model: its parameters (serde JSON, validated), their
//! mapping into uniform buffers, initial conditions, the GPU step plan, observables, output files
//! and a CPU reference used by the tests.

pub mod angiogenesis;
pub mod catalogue;
pub mod checkpoint;
pub mod epidermis;
pub mod error;
pub mod gliding;
pub mod rdme;
pub mod reactions;
pub mod runtime;
pub mod ssa;

pub use error::ModelError;
/// The output crate's error, which `ModelError::Output` carries.
pub use petri_output::OutputError;
