//! What every model's checkpoint shares on top of the container of `petri_output::checkpoint`:
//! the steps a run may resume from, reading a container with its errors as model errors
//! (`load`, `header`, `take`, `refuse`), and hashes of a config's fields, for a checkpoint that
//! holds the hashes of its run's config rather than the config (`config_field_hashes`,
//! `combined_hash`, `differing_fields`). A model whose state is a few named arrays needs no
//! checkpoint code of its own: [`save_arrays`] and [`load_arrays`] write and check them.

use crate::error::{ModelError, Result};
use crate::runtime::{ArrayData, StateArray};
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter, Element};
use petri_output::OutputError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
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

/// The metadata of a checkpoint of state arrays.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArraysHeader {
    step: u64,
    /// The run's config, for people (resuming compares the hashes).
    config: serde_json::Value,
    config_hashes: Vec<(String, u64)>,
    /// Each array's name and shape, in order.
    shapes: Vec<(String, Vec<usize>)>,
}

/// Writes a checkpoint of `model` (format `version`) holding `arrays`, the whole state of a run
/// of `config` at `step`, atomically to `path`. The config is kept with the hashes of its
/// fields but the [`RUN_SETTINGS`], which [`load_arrays`] compares.
pub fn save_arrays(
    path: &Path,
    (model, version): (&str, u32),
    config: &impl Serialize,
    step: u64,
    arrays: &[StateArray],
) -> Result<()> {
    let header = ArraysHeader {
        step,
        config: serde_json::to_value(config).expect("the config serializes"),
        config_hashes: config_field_hashes(config, &RUN_SETTINGS),
        shapes: arrays
            .iter()
            .map(|a| (a.name.clone(), a.shape.clone()))
            .collect(),
    };
    let mut writer = CheckpointWriter::new(model, version)
        .meta(serde_json::to_value(header).expect("the header serializes"));
    for a in arrays {
        writer = match &a.data {
            ArrayData::F32(v) => writer.array(&a.name, v),
            ArrayData::F64(v) => writer.array(&a.name, v),
            ArrayData::U8(v) => writer.array(&a.name, v),
            ArrayData::U32(v) => writer.array(&a.name, v),
            ArrayData::U64(v) => writer.array(&a.name, v),
            // Names along an axis come from the config, not the state.
            ArrayData::Text(_) => writer,
        };
    }
    writer.save(path).map_err(model_error)
}

/// The step and state arrays of the checkpoint at `path`, in the order of `expected` (name,
/// shape), refused (naming the file and what is wrong) unless a run of `config` wrote it with
/// [`save_arrays`]: the same model and format, the same config fields but the run settings,
/// a step a run can reach, every expected array with its shape, and finite values.
pub fn load_arrays(
    path: &Path,
    (model, version): (&str, u32),
    config: &impl Serialize,
    expected: &[(&str, &[usize])],
) -> Result<(u64, Vec<StateArray>)> {
    let mut file = load(path, model, version)?;
    let h: ArraysHeader = header(&file)?;
    let differ = differing_fields(
        &config_field_hashes(config, &RUN_SETTINGS),
        &h.config_hashes,
    );
    if !differ.is_empty() {
        return Err(refuse(
            &file,
            format!(
                "written by a run with another config: {} differ{} (every field but {} must \
                 match the checkpoint's; its config is in its metadata)",
                differ.join(", "),
                if differ.len() == 1 { "s" } else { "" },
                RUN_SETTINGS.join(", ")
            ),
        ));
    }
    check_step(h.step).map_err(|m| refuse(&file, m))?;
    let mut arrays = Vec::new();
    for (name, shape) in expected {
        let stored = h.shapes.iter().find(|(n, _)| n == name).map(|(_, s)| s);
        if stored.map(Vec::as_slice) != Some(*shape) {
            return Err(refuse(
                &file,
                format!("array {name}: shape {stored:?}, the run needs {shape:?}"),
            ));
        }
        let data = take_any(&mut file, name)?;
        let finite = match &data {
            ArrayData::F32(v) => v.iter().all(|x| x.is_finite()),
            ArrayData::F64(v) => v.iter().all(|x| x.is_finite()),
            _ => true,
        };
        if data.len() != shape.iter().product::<usize>() || !finite {
            return Err(refuse(
                &file,
                format!("array {name} holds a value that is not finite, or not {shape:?} of them"),
            ));
        }
        arrays.push(StateArray::new(name, shape, data));
    }
    Ok((h.step, arrays))
}

/// The array `name` in whichever element type it was stored.
fn take_any(file: &mut CheckpointFile, name: &str) -> Result<ArrayData> {
    use petri_output::checkpoint::ElementType as T;
    let ty = file.element_type(name).map_err(model_error)?;
    Ok(match ty {
        T::F32 => ArrayData::F32(take(file, name)?),
        T::F64 => ArrayData::F64(take(file, name)?),
        T::U8 => ArrayData::U8(take(file, name)?),
        T::U32 => ArrayData::U32(take(file, name)?),
        T::U64 => ArrayData::U64(take(file, name)?),
        T::I32 => {
            return Err(refuse(
                file,
                format!("array {name}: i32 holds no state array"),
            ))
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arrays() -> Vec<StateArray> {
        vec![
            StateArray::new(
                "u",
                &[2, 3],
                ArrayData::F32(vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0]),
            ),
            StateArray::new("ids", &[3], ArrayData::U64(vec![7, 8, 9])),
        ]
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("petri-ck-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("a.petri")
    }

    #[test]
    fn state_arrays_round_trip_and_are_checked_against_the_config() {
        let path = scratch("arrays");
        let config = json!({"k": 0.06, "steps": 100});
        save_arrays(&path, ("m", 1), &config, 42, &arrays()).unwrap();
        let expected: [(&str, &[usize]); 2] = [("u", &[2, 3]), ("ids", &[3])];
        // The run settings may differ.
        let later = json!({"k": 0.06, "steps": 500});
        let (step, back) = load_arrays(&path, ("m", 1), &later, &expected).unwrap();
        assert_eq!((step, back), (42, arrays()));
        let other = json!({"k": 0.07, "steps": 100});
        let e = load_arrays(&path, ("m", 1), &other, &expected)
            .unwrap_err()
            .to_string();
        assert!(e.contains("k differs"), "{e}");
        let e = load_arrays(&path, ("m", 1), &config, &[("u", &[3, 2])]).unwrap_err();
        assert!(e.to_string().contains("array u: shape Some([2, 3])"), "{e}");
        let e = load_arrays(&path, ("m", 2), &config, &expected).unwrap_err();
        assert!(e.to_string().contains("a.petri"), "{e}");
        let mut bad = arrays();
        bad[0].data = ArrayData::F32(vec![0.0, f32::NAN, 0.0, 0.0, 0.0, 0.0]);
        save_arrays(&path, ("m", 1), &config, 42, &bad).unwrap();
        let e = load_arrays(&path, ("m", 1), &config, &expected).unwrap_err();
        assert!(e.to_string().contains("not finite"), "{e}");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
