//! The one error type of this crate.

use std::path::{Path, PathBuf};

/// Everything that can go wrong while writing an output file.
///
/// Bad arguments (wrong lengths, out-of-range indices, ...) are reported as
/// errors rather than panics, so a long simulation never dies in its writer.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Creating, writing or flushing a file failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A data array does not have the number of values its shape requires.
    #[error("field `{field}` has {actual} values, expected {expected}")]
    LengthMismatch {
        field: String,
        expected: usize,
        actual: usize,
    },
    /// Any other argument that cannot be written (bad index, empty name, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The PNG encoder rejected the image.
    #[error("PNG error on {}: {source}", path.display())]
    Png {
        path: PathBuf,
        #[source]
        source: png::EncodingError,
    },
    /// A checkpoint file that cannot be read back: not one, corrupt, truncated, of another
    /// model or version, or without an array asked for.
    #[error("checkpoint {}: {message}", path.display())]
    Checkpoint { path: PathBuf, message: String },
    /// Drawing a figure failed (see `plot`).
    #[error("plot error: {0}")]
    Plot(String),
    /// An output folder a run may not use as it is (see `folder`).
    #[error("output folder {}: {message}", path.display())]
    Folder { path: PathBuf, message: String },
    /// Serialising a value to JSON failed.
    #[error("JSON error on {}: {source}", path.display())]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

impl OutputError {
    /// Closure for `map_err` that attaches `path` to an I/O error.
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
        move |source| OutputError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Errors unless `actual == expected`.
pub(crate) fn check_len(field: &str, expected: usize, actual: usize) -> Result<(), OutputError> {
    if actual == expected {
        Ok(())
    } else {
        Err(OutputError::LengthMismatch {
            field: field.to_string(),
            expected,
            actual,
        })
    }
}
