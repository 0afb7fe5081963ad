//! Checkpoints: the state's two arrays in Petri's checkpoint container, written and checked by
//! `petri_model::checkpoint::{save_arrays, load_arrays}` (model "gray-scott", format
//! [`VERSION`]): the step, the config (for people) with a hash of each field, `u` and `v` as
//! (ny, nx) f32 arrays. A resumed run's config must match the checkpoint's in every field but
//! the run settings (steps, output periods, provenance); the arrays must have the grid's shape
//! and finite values.
//!
//! The state is the whole of a run (no random numbers are drawn after step 0, and the ping-pong
//! half follows from the step's parity), so a run resumed from a checkpoint continues bitwise
//! as the run that wrote it would have.

use crate::config::{GrayScottConfig, MODEL};
use crate::state::GrayScottState;
use petri_model::checkpoint::{load_arrays, save_arrays};
use petri_model::error::Result;
use petri_model::runtime::{ArrayData, StateArray};
use std::path::Path;

/// Format version of the metadata and arrays.
pub const VERSION: u32 = 2;

/// Writes `state` of a run of `cfg` to `path`, replacing any file there atomically.
pub fn save(path: &Path, cfg: &GrayScottConfig, state: &GrayScottState) -> Result<()> {
    let shape = shape(cfg);
    let arrays = [
        StateArray::new("u", &shape, ArrayData::F32(state.u.clone())),
        StateArray::new("v", &shape, ArrayData::F32(state.v.clone())),
    ];
    save_arrays(path, (MODEL, VERSION), cfg, state.step, &arrays)
}

/// The state in the checkpoint at `path`, refused (a `ModelError::Checkpoint` naming the file
/// and what is wrong) unless a run of `cfg` wrote it.
pub fn load_state(path: &Path, cfg: &GrayScottConfig) -> Result<GrayScottState> {
    let shape = shape(cfg);
    let (step, arrays) = load_arrays(path, (MODEL, VERSION), cfg, &[("u", &shape), ("v", &shape)])?;
    let mut fields = arrays.into_iter().map(|a| match a.data {
        ArrayData::F32(v) => Ok(v),
        _ => Err(petri_model::error::invalid(
            "checkpoint",
            path.display(),
            "u and v as f32",
        )),
    });
    let (u, v) = (fields.next().expect("u")?, fields.next().expect("v")?);
    Ok(GrayScottState { step, u, v })
}

/// (ny, nx): rows of x.
fn shape(cfg: &GrayScottConfig) -> [usize; 2] {
    [cfg.grid[1] as usize, cfg.grid[0] as usize]
}
