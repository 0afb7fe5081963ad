//! Epidermis: the subcellular element method (Newman 2005) with a per-cell gene network, growth
//! and division, after Christley et al. 2010. Cells are sets of 20..40 elements moved by Morse
//! potentials; the tissue sits on a basement membrane at z = 0, periodic in x and y.
//! See docs/models/epidermis.md.

pub mod bench;
mod budget;
pub mod checkpoint;
pub mod cpu;
pub mod genes;
pub mod genes_gpu;
pub mod growth;
pub mod growth_gpu;
mod init;
pub mod model;
pub mod output;
pub mod params;
pub mod run;
pub mod sim;
mod stability;
pub mod state;
pub mod uniforms;

pub use params::EpidermisConfig;
pub use sim::{EpidermisSim, SimOptions};
pub use state::EpidermisState;
