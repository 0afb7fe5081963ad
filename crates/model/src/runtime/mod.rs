//! The one runtime every model runs on: the run loop (observations, snapshots, checkpoints, the
//! stop on a non-finite value), observables.csv, the manifest and the timings. A model supplies
//! a [`Simulation`] (its GPU state and what it writes); the runtime decides when each thing
//! happens, so every model observes, snapshots and checkpoints on the same rules.
//!
//! The rules: everything happens at absolute multiples of its period (observations every
//! `observe_every` steps, snapshots every `snapshot_every`, frames (pictures) every
//! `frame_every`, checkpoints every `--checkpoint-every`), so a resumed run observes at the same steps as a straight one; the
//! first and the last step are always observed; a run resumed into its own folder keeps the
//! earlier rows of its time series.

pub mod contract;
pub mod driven;
pub mod film;
pub mod run_loop;
pub mod stop;

pub use contract::{ArrayData, Observation, Schedule, Simulation, StateArray};
pub use driven::{Advanced, Driven, FolderRun, Row};
pub use run_loop::{
    build_and_run, run, run_seen, ModelRunOptions, RunOptions, RunReport, Timings, CHECKPOINT_FILE,
};
pub use stop::StopCheck;
