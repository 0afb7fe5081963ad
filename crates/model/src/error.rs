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
    #[error("checkpoint {path}: {message}")]
    Checkpoint { path: String, message: String },
    #[error(transparent)]
    Engine(#[from] petri_engine::EngineError),
    #[error(transparent)]
    Output(#[from] petri_output::OutputError),
}

pub type Result<T> = std::result::Result<T, ModelError>;

/// Shorthand for a field error.
pub fn invalid(
    field: &str,
    value: impl std::fmt::Display,
    allowed: impl Into<String>,
) -> ModelError {
    ModelError::Invalid {
        field: field.to_string(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}
