//! JSON manifests: run parameters, file lists, summaries.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::error::OutputError;

/// Writes `value` as indented JSON (with a trailing newline) to `path`.
pub fn write_json_pretty<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), OutputError> {
    // Serialise first so a failing value leaves no half-written file behind.
    let text = serde_json::to_string_pretty(value).map_err(|source| OutputError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    crate::write_atomically(path, |out| {
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Run<'a> {
        name: &'a str,
        steps: u32,
        dt: f64,
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        let run = Run {
            name: "angiogenesis",
            steps: 100,
            dt: 0.1,
        };
        write_json_pretty(&path, &run).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\n  \"steps\": 100"), "not indented: {text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["name"], "angiogenesis");
        assert_eq!(back["dt"], 0.1);
    }

    #[test]
    fn unserialisable_value_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.json");
        // JSON object keys must be strings.
        let map: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        assert!(matches!(
            write_json_pretty(&path, &map),
            Err(OutputError::Json { .. })
        ));
        assert!(!path.exists());
    }
}
