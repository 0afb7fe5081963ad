//! Petri's models. Each module holds one model: its parameters (serde JSON, validated), their
//! mapping into uniform buffers, initial conditions, the GPU step plan, observables, output files,
//! a CPU reference used by the tests, and its `impl Model` (`model.rs`: flags, opening,
//! benchmark). The shared modules: `model` (the trait), `runtime` (the run loop every model runs
//! on), `command` (what the models' command-line faces share), `checkpoint`, `budget` (the
//! memory a run may take), `error`, `reactions`, `team` (the ranks of a run over MPI);
//! `registry` lists the models.

pub mod angiogenesis;
pub mod budget;
pub mod checkpoint;
pub mod command;
pub mod epidermis;
pub mod error;
pub mod gliding;
pub mod model;
pub mod rdme;
pub mod reactions;
pub mod registry;
pub mod runtime;
pub mod shaders;
pub mod ssa;
pub mod sweep;
pub mod team;

pub use error::ModelError;
/// The output crate's error, which `ModelError::Output` carries.
pub use petri_output::OutputError;
