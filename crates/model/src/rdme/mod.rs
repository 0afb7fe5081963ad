//! MPD-RDME: the lattice reaction-diffusion master equation solved with multiparticle diffusion
//! and per-site reactions (Lattice Microbes; Roberts 2013, Hallock 2014), on one or more devices.
//! See docs/models/rdme.md.

pub mod analysis;
pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod cpu;
pub mod geometry;
pub mod lattice;
pub mod model;
pub mod options;
pub mod output;
pub mod run;
pub mod shape;
pub mod sim;
pub mod slab;

pub use config::{RdmeConfig, RdmeModel};
pub use lattice::Lattice;
pub use options::{SimOptions, Sweeps};
pub use sim::{Observables, RdmeSim};
