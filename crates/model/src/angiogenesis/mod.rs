//! Tumour-induced angiogenesis in 3D (Anderson & Chaplain 1998; Darbyshire 2015): continuous
//! endothelial density n, fibronectin f and TAF c on a grid, plus discrete tip cells whose moves
//! use the coefficients of the explicit scheme. See docs/models/angiogenesis.md.

pub mod bench;
pub mod checkpoint;
pub mod cpu;
pub mod model;
pub mod output;
pub mod params;
pub mod run;
pub mod sim;
pub mod state;
pub mod uniforms;
pub mod walk;

pub use params::AngioConfig;
pub use sim::{run_observed, AngioSim, Observables, SimOptions};
pub use state::AngioState;
pub use uniforms::AngioUniforms;
