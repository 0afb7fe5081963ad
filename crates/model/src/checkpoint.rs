//! What every model's checkpoint shares on top of the container of `petri_output::checkpoint`:
//! the steps a run may resume from, reading a container with its errors as model errors
//! (`load`, `header`, `take`, `refuse`), and hashes of a config's fields, for a checkpoint that
//! holds the hashes of its run's config rather than the config (`config_field_hashes`,
//! `combined_hash`, `differing_fields`).

use crate::error::{ModelError, Result};
use petri_output::checkpoint::{CheckpointFile, Element};
use petri_output::OutputError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;

/// Largest step a checkpoint may hold. The shaders see the step as a 32-bit number (the random
/// numbers are keyed by it, angiogenesis stamps vessel segments with it), so a run past
/// 2^32 - 1 steps would draw the random numbers of step 0 again.
pub const MAX_STEP: u64 = u32::MAX as u64;

/// Refuses a step outside 0..=[`MAX_STEP`], saying why.
pub fn check_step(step: u64) -> std::result::Result<(), String> {
    if step > MAX_STEP {
        return Err(format!(
            "step {step} is past {MAX_STEP}, the last step a run can reach (the GPU keys its \
             random numbers by the step as a 32-bit number)"
        ));
    }
    Ok(())
}

/// A container error as the model error callers match on: a format error as
/// [`ModelError::Checkpoint`], a failed read or write as [`ModelError::Io`].
pub fn model_error(e: OutputError) -> ModelError {
    match e {
        OutputError::Checkpoint { path, message } => ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        },
        OutputError::Io { path, source } => ModelError::Io {
            path: path.display().to_string(),
            source,
        },
        other => ModelError::Output(other),
    }
}

/// The checkpoint at `path`, refused unless it is a container of `model` in format `version`.
pub fn load(path: &Path, model: &str, version: u32) -> Result<CheckpointFile> {
    CheckpointFile::load(path, model, version).map_err(model_error)
}

/// The metadata of `file` as the model's header type.
pub fn header<H: DeserializeOwned>(file: &CheckpointFile) -> Result<H> {
    serde_json::from_value(file.meta().clone())
        .map_err(|e| refuse(file, format!("the metadata does not parse: {e}")))
}

/// The array `name` of `file`, taken out of it; refused if missing or of another element type.
pub fn take<T: Element>(file: &mut CheckpointFile, name: &str) -> Result<Vec<T>> {
    file.take(name).map_err(model_error)
}

/// A refusal of `file` that says `message` (a checkpoint error naming the file).
pub fn refuse(file: &CheckpointFile, message: String) -> ModelError {
    model_error(file.error(message))
}

/// FNV-1a 64: simple and stable across Rust versions (std's hasher is not).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The config fields of the run schedule and outputs: they do not change the trajectory, so
/// a checkpoint's config hashes leave them out.
pub const RUN_SETTINGS: [&str; 6] = [
    "steps",
    "observe_every",
    "snapshot_every",
    "frame_every",
    "output",
    "provenance",
];

/// The hash of each top-level field of `config` (of its JSON text), less the fields named in
/// `unhashed` (those that do not change the trajectory, such as the step count).
pub fn config_field_hashes(config: &impl Serialize, unhashed: &[&str]) -> Vec<(String, u64)> {
    let value = serde_json::to_value(config).expect("the config serializes");
    value
        .as_object()
        .expect("the config serializes as an object")
        .iter()
        .filter(|(k, _)| !unhashed.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), fnv1a(v.to_string().as_bytes())))
        .collect()
}

/// One hash of all the (field, hash) pairs.
pub fn combined_hash(fields: &[(String, u64)]) -> u64 {
    let mut bytes = Vec::new();
    for (name, h) in fields {
        bytes.extend(name.as_bytes());
        bytes.extend(h.to_le_bytes());
    }
    fnv1a(&bytes)
}

/// The fields in one list and not, with the same hash, in the other: what differs between the
/// config a checkpoint was written with (`then`) and the one given now.
pub fn differing_fields(now: &[(String, u64)], then: &[(String, u64)]) -> Vec<String> {
    let missing = |a: &[(String, u64)], b: &[(String, u64)]| -> Vec<String> {
        a.iter()
            .filter(|f| !b.contains(f))
            .map(|f| f.0.clone())
            .collect()
    };
    let mut differ = missing(now, then);
    for name in missing(then, now) {
        if !differ.contains(&name) {
            differ.push(name);
        }
    }
    differ
}

/// Test helpers for the models' checkpoint tests: files read from memory.
#[cfg(test)]
pub(crate) mod testing {
    use crate::error::{ModelError, Result};
    use petri_output::checkpoint::CheckpointFile;
    use std::path::Path;

    /// A checkpoint of `model`'s format `version` read from `bytes` (named `path` in errors)
    /// and handed to the model's `from_file`.
    pub fn decode<T>(
        bytes: &[u8],
        path: &str,
        (model, version): (&str, u32),
        from_file: impl FnOnce(CheckpointFile) -> Result<T>,
    ) -> Result<T> {
        CheckpointFile::read(bytes, bytes.len() as u64, Path::new(path), model, version)
            .map_err(super::model_error)
            .and_then(from_file)
    }

    /// The message of a checkpoint refused as it should be: a format error naming `path`.
    pub fn refused<T>(read: Result<T>, path: &str) -> String {
        let e = read.err().expect("a bad checkpoint was read");
        assert!(
            matches!(e, ModelError::Checkpoint { .. }),
            "expected a checkpoint error, got {e}"
        );
        let e = e.to_string();
        assert!(e.starts_with(&format!("checkpoint {path}: ")), "{e}");
        e
    }
}
