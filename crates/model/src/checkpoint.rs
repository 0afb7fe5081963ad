//! What every model's checkpoint shares on top of the container of `petri_output::checkpoint`:
//! the steps a run may resume from, and the container's errors as model errors.

use crate::error::ModelError;
use petri_output::OutputError;

/// Largest step a checkpoint may hold. The shaders see the step as a 32-bit number (the random
/// numbers are keyed by it, angiogenesis stamps vessel segments with it), so a run past
/// 2^32 - 1 steps would draw the random numbers of step 0 again.
pub const MAX_STEP: u64 = u32::MAX as u64;

/// Refuses a step outside 0..=[`MAX_STEP`], saying why.
pub fn check_step(step: u64) -> Result<(), String> {
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
