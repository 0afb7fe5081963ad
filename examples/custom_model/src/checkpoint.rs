//! Checkpoints: Petri's checkpoint container (`petri_output::checkpoint`: named typed arrays, a
//! JSON header, a checksum, atomic saves) of model "gray-scott", format [`VERSION`].
//!
//! | part | content |
//! |------|---------|
//! | metadata | `step`, `grid`, `config` (for people), `config_hashes` (one per config field) |
//! | `u`, `v` | f32, one per cell, x fastest |
//!
//! The state is the whole of a run (no random numbers are drawn after step 0, and the ping-pong
//! half follows from the step's parity), so a run resumed from a checkpoint continues bitwise
//! as the run that wrote it would have.
//!
//! Resuming takes the config from the caller and checks it against the checkpoint's: each field
//! is compared by the hash of its JSON text (`petri_model::checkpoint::config_field_hashes`),
//! which is exact for floats (the text of an f64 is the same whenever the f64 is), unlike a
//! float read back from JSON text. Fields that do not change the trajectory (steps, the output
//! periods, provenance) may differ.

use crate::config::{GrayScottConfig, MODEL};
use crate::state::GrayScottState;
use petri_model::checkpoint::{
    check_step, config_field_hashes, differing_fields, header, load, model_error, refuse, take,
};
use petri_model::error::Result;
use petri_output::checkpoint::CheckpointWriter;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format version of the metadata and arrays.
pub const VERSION: u32 = 1;

/// Config fields that do not change the trajectory: a run may resume with other values.
pub const UNHASHED: [&str; 4] = ["steps", "observe_every", "snapshot_every", "provenance"];

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    step: u64,
    grid: [u32; 2],
    config: serde_json::Value,
    config_hashes: Vec<(String, u64)>,
}

/// Writes `state` of a run of `cfg` to `path`, replacing any file there atomically.
pub fn save(path: &Path, cfg: &GrayScottConfig, state: &GrayScottState) -> Result<()> {
    let header = Header {
        step: state.step,
        grid: cfg.grid,
        config: serde_json::to_value(cfg).expect("the config serializes"),
        config_hashes: config_field_hashes(cfg, &UNHASHED),
    };
    CheckpointWriter::new(MODEL, VERSION)
        .meta(serde_json::to_value(header).expect("the header serializes"))
        .array("u", &state.u)
        .array("v", &state.v)
        .save(path)
        .map_err(model_error)
}

/// The state in the checkpoint at `path`, refused (a `ModelError::Checkpoint` naming the file
/// and what is wrong) unless a run of `cfg` wrote it: same trajectory-changing config fields,
/// arrays of the grid's size, finite values, a step a run can reach.
pub fn load_state(path: &Path, cfg: &GrayScottConfig) -> Result<GrayScottState> {
    let mut file = load(path, MODEL, VERSION)?;
    let h: Header = header(&file)?;
    let differ = differing_fields(&config_field_hashes(cfg, &UNHASHED), &h.config_hashes);
    if !differ.is_empty() {
        return Err(refuse(
            &file,
            format!(
                "written by a run with another config: {} differ{} (every field but {} must \
                 match the checkpoint's; its config is in its metadata)",
                differ.join(", "),
                if differ.len() == 1 { "s" } else { "" },
                UNHASHED.join(", ")
            ),
        ));
    }
    check_step(h.step).map_err(|m| refuse(&file, m))?;
    let state = GrayScottState {
        step: h.step,
        u: take(&mut file, "u")?,
        v: take(&mut file, "v")?,
    };
    if let Some((name, len)) = state.wrong_length(cfg.cells()) {
        return Err(refuse(
            &file,
            format!(
                "{name} has {len} values, the {}x{} grid has {} cells",
                cfg.grid[0],
                cfg.grid[1],
                cfg.cells()
            ),
        ));
    }
    if let Some(name) = state.non_finite() {
        return Err(refuse(
            &file,
            format!("{name} holds a value that is not finite"),
        ));
    }
    Ok(state)
}
