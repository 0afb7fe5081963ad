//! Stochastic chemical kinetics of a well-mixed reaction network (`crate::reactions::Network`):
//! trajectories simulated exactly (Gillespie's direct method, the optimized direct method) or
//! approximately (tau-leaping), one or ensembles of many, on the CPU (`direct`, `odm`, `tau`,
//! `ensemble`) and on the GPU (`gpu_ensemble`, one thread per trajectory; `gpu_leap`, one large
//! network). `dsmts` checks them against the SBML stochastic test suite. See docs/models/ssa.md.

pub mod bench;
pub mod checkpoint;
pub mod device;
pub mod direct;
pub mod dsmts;
pub mod ensemble;
mod event_code;
pub mod general;
pub mod general_run;
pub mod gpu_compiled;
pub mod gpu_ensemble;
mod gpu_events;
pub mod gpu_expr;
pub mod gpu_general;
pub mod gpu_leap;
pub mod gpu_mirror;
pub mod gpu_run;
pub mod gpu_tables;
pub mod gpu_time;
pub mod model;
pub mod odm;
pub mod output;
pub mod run;
pub mod stats;
pub mod stop;
pub mod stream;
pub mod synthetic;
pub mod tau;
pub mod team_run;
