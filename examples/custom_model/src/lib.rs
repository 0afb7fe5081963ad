//! Gray-Scott reaction-diffusion (Pearson 1993, "Complex patterns in a simple system", Science
//! 261:189) written outside Petri's workspace, as a user of Petri-as-a-library writes a model:
//! its own WGSL kernel and CPU twin, Petri's GPU context, step plan, runtime (observables,
//! snapshots, checkpoints, manifest), output writers and bench harness.
//!
//! Entry points: [`model::GrayScott`], the model as Petri's registry holds it (`main.rs` adds
//! it to Petri's command line); or by hand [`GrayScottConfig::from_json`], then
//! [`GrayScottSim::new`] (from the initial condition) or [`GrayScottSim::resume`] (from a
//! checkpoint), driven by `petri_model::runtime::run` (or [`sim::run`]).

pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod cpu;
pub mod gpu;
pub mod init;
pub mod model;
pub mod observables;
pub mod output;
pub mod params;
pub mod shaders;
pub mod sim;
pub mod state;

pub use config::{GrayScottConfig, MODEL};
pub use cpu::CpuGrayScott;
pub use gpu::GrayScottGpu;
pub use observables::Observables;
pub use params::Params;
pub use sim::{GrayScottSim, RunOptions};
pub use state::GrayScottState;
