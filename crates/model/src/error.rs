//! Model errors. Configuration errors name the field, the value given and what is allowed.

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("config: {field} = {value} is not allowed: {allowed}")]
    Invalid {
        field: String,
        value: String,
        allowed: String,
    },
    #[error("config {path}: {message}")]
    Parse { path: String, message: String },
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the run went non-finite (NaN or infinity) in {what} between step {after} and step {at}; stopped at step {at}")]
    NonFinite { what: String, after: u64, at: u64 },
    #[error("overflow: {message}")]
    Overflow { message: String },
    /// Buffers the run needs are more than the device holds (each within its per-buffer
    /// limits): `limit` says which bound refused them.
    #[error(
        "out of device memory: {what} needs {bytes} bytes, more than this device holds: {limit}"
    )]
    OutOfMemory {
        what: String,
        bytes: u64,
        limit: String,
    },
    /// A simulation whose clock cannot move: the next event is no later than the current time.
    #[error("the run cannot advance: {message}")]
    Stalled { message: String },
    #[error("checkpoint {path}: {message}")]
    Checkpoint { path: String, message: String },
    #[error(transparent)]
    Engine(#[from] petri_engine::EngineError),
    #[error(transparent)]
    Output(#[from] petri_output::OutputError),
}

pub type Result<T> = std::result::Result<T, ModelError>;

/// A scheduler primitive's error: a device limit, or a bad size the primitive names.
impl From<petri_scheduler::primitives::PrimitiveError> for ModelError {
    fn from(e: petri_scheduler::primitives::PrimitiveError) -> Self {
        use petri_scheduler::primitives::PrimitiveError;
        match e {
            PrimitiveError::Engine(e) => ModelError::Engine(e),
            PrimitiveError::Invalid {
                primitive,
                field,
                value,
                allowed,
            } => ModelError::Invalid {
                field: format!("{primitive} {field}"),
                value,
                allowed,
            },
        }
    }
}

/// Shorthand for a field error. A value that prints as a long number (an f64 such as 1e308
/// prints as 309 digits) is shown in short form.
pub fn invalid(
    field: &str,
    value: impl std::fmt::Display,
    allowed: impl Into<String>,
) -> ModelError {
    let value = value.to_string();
    let value = match value.len() > 24 {
        true => value.parse::<f64>().map_or(value, short),
        false => value,
    };
    ModelError::Invalid {
        field: field.to_string(),
        value,
        allowed: allowed.into(),
    }
}

/// A number as messages print it: plain when short, in exponent form when huge or tiny, so 1e308
/// reads `1e308` and not as 309 digits.
pub fn short(x: f64) -> String {
    let a = x.abs();
    match a.is_finite() && a != 0.0 && !(1e-6..1e16).contains(&a) {
        true => format!("{x:e}"),
        false => format!("{x}"),
    }
}

/// JSON text without a leading UTF-8 byte order mark (some editors write one; JSON parsers
/// would report it as "expected value at line 1 column 1").
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// A JSON config parsed into `T`: a byte-order mark is skipped; unknown keys and wrong types are
/// errors naming the key and `path`.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str, path: &str) -> Result<T> {
    serde_json::from_str(without_bom(text)).map_err(|e| ModelError::Parse {
        path: path.to_string(),
        message: e.to_string(),
    })
}

/// The text of a file, or an error naming it.
pub fn read_text(path: &std::path::Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| ModelError::Io {
        path: path.display().to_string(),
        source,
    })
}
