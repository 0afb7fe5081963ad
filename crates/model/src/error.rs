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
    /// A program option (a command-line flag, a keyword argument) with a value not allowed.
    #[error("{flag} {value}: {allowed}")]
    Flag {
        flag: String,
        value: String,
        allowed: String,
    },
    /// A way of calling that cannot work, in words (a required option missing, a folder that
    /// cannot take the run).
    #[error("{0}")]
    Usage(String),
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
    /// Asked to stop (Ctrl-C, SIGTERM, KeyboardInterrupt): the run stopped whole at `step`.
    #[error("interrupted at step {step}")]
    Interrupted { step: u64 },
    /// Another rank of a run over several ranks (`crate::team`) failed: the run is down.
    #[error("rank {rank} of {size} on {host}: {message}")]
    Rank {
        rank: usize,
        size: usize,
        host: String,
        message: String,
    },
    #[error(transparent)]
    Engine(#[from] petri_engine::EngineError),
    #[error(transparent)]
    Output(#[from] petri_output::OutputError),
}

pub type Result<T> = std::result::Result<T, ModelError>;

/// The error of a program option `flag` given `value`: `allowed` says what it may be.
pub fn invalid_flag(
    flag: &str,
    value: impl std::fmt::Display,
    allowed: impl Into<String>,
) -> ModelError {
    ModelError::Flag {
        flag: flag.to_string(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

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

/// A bound in three significant digits, rounded inwards (`down` for a largest allowed value),
/// so that the printed value is itself allowed.
pub fn bound(x: f64, down: bool) -> String {
    if !(x.is_finite() && x > 0.0) {
        return short(x);
    }
    let e = x.log10().floor() as i32;
    let scale = 10f64.powi(2 - e);
    let v = match down {
        true => (x * scale).floor() / scale,
        false => (x * scale).ceil() / scale,
    };
    match (-4..6).contains(&e) {
        true => format!("{v:.*}", (2 - e).max(0) as usize),
        false => format!("{v:.2e}"),
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
    let text = without_bom(text);
    serde_json::from_str(text).map_err(|e| {
        let mut error = json_error(&e, path);
        // A value of the wrong type or range: serde says where, not which field.
        if let (serde_json::error::Category::Data, ModelError::Parse { message, .. }) =
            (e.classify(), &mut error)
        {
            if let Some(field) = field_at(text, e.line(), e.column()) {
                message.push_str(&format!(" (field `{field}`)"));
            }
        }
        error
    })
}

/// The path (`grid.nx`, `species[2].id`) of the JSON value that ends at `line` and `column`
/// (1-based, as serde_json reports them) of `text`, read up to there; None at the top level.
pub fn field_at(text: &str, line: usize, column: usize) -> Option<String> {
    let start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let end = (start + column).min(text.len());
    // The open objects (their current key) and arrays (their current index).
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut last_string = None;
    let mut chars = text[..end].char_indices();
    while let Some((_, c)) = chars.next() {
        match c {
            '"' => {
                let mut s = String::new();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => s.extend(chars.next().map(|(_, c)| c)),
                        '"' => break,
                        c => s.push(c),
                    }
                }
                last_string = Some(s);
            }
            ':' => {
                if let Some(Frame::Object(key)) = frames.last_mut() {
                    *key = last_string.take();
                }
            }
            '{' => frames.push(Frame::Object(None)),
            '[' => frames.push(Frame::Array(0)),
            '}' | ']' => {
                frames.pop();
            }
            ',' => match frames.last_mut() {
                Some(Frame::Array(i)) => *i += 1,
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            _ => {}
        }
    }
    let mut path = String::new();
    for f in &frames {
        match f {
            Frame::Object(Some(key)) if path.is_empty() => path.push_str(key),
            Frame::Object(Some(key)) => path.push_str(&format!(".{key}")),
            Frame::Array(i) => path.push_str(&format!("[{i}]")),
            Frame::Object(None) => {}
        }
    }
    (!path.is_empty()).then_some(path)
}

/// The origin of config text the user did not write as text (the Python package's dicts, which
/// it serialises): its messages leave out the line and column.
pub const DICT_ORIGIN: &str = "<dict>";

/// A JSON reader's error on the config from `path`: an unknown key gets the closest allowed key
/// ("did you mean"), and text from [`DICT_ORIGIN`] no line and column.
pub fn json_error(e: &serde_json::Error, path: &str) -> ModelError {
    let full = e.to_string();
    let location = format!(" at line {} column {}", e.line(), e.column());
    let bare = full.strip_suffix(&location).unwrap_or(&full);
    let mut message = bare.to_string();
    if path != DICT_ORIGIN && e.line() > 0 {
        message.push_str(&location);
    }
    if let Some(key) = closest_key(bare) {
        message.push_str(&format!("; did you mean `{key}`?"));
    }
    ModelError::Parse {
        path: path.to_string(),
        message,
    }
}

/// For serde's "unknown field `k`, expected one of `a`, `b`" (or "expected `a`"): the allowed
/// key nearest to `k` in edit distance, when it is near enough to be a typo.
fn closest_key(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    let (key, expected) = rest.split_once('`')?;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (edit_distance(key, k), k))
        .filter(|&(d, k)| d <= 2.max(k.len() / 3) && d < key.len().min(k.len()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// Levenshtein distance between `a` and `b`, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The top-level fields a config's JSON `text` leaves out, with the values the run takes for
/// them (`config` as read, defaults filled in): "defaults used for steps = 130000, box (its
/// defaults)", or None when it gives them all. A run says so, rather than filling in a whole
/// section without a word.
pub fn defaults_used(text: &str, config: &impl serde::Serialize) -> Option<String> {
    let given: serde_json::Value = serde_json::from_str(without_bom(text)).ok()?;
    let used = serde_json::to_value(config).ok()?;
    let missing: Vec<String> = used
        .as_object()?
        .iter()
        .filter(|(key, _)| given.get(key.as_str()).is_none() && key.as_str() != "provenance")
        .map(|(key, value)| match value {
            serde_json::Value::Object(_) => format!("{key} (its defaults)"),
            v => format!("{key} = {v}"),
        })
        .collect();
    (!missing.is_empty()).then(|| format!("defaults used for {}", missing.join(", ")))
}

/// A model's config from JSON text: parsed (`parse_json`), then checked by `validate`.
pub fn parse_config<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &str,
    validate: impl FnOnce(&T) -> Result<()>,
) -> Result<T> {
    let cfg: T = parse_json(text, path)?;
    validate(&cfg)?;
    Ok(cfg)
}

/// A model's config from the file at `path`, read by its `from_json`.
pub fn read_config<T>(
    path: &std::path::Path,
    from_json: impl FnOnce(&str, &str) -> Result<T>,
) -> Result<T> {
    from_json(&read_text(path)?, &path.display().to_string())
}

/// The text of a file, or an error naming it.
pub fn read_text(path: &std::path::Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| ModelError::Io {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Cfg {
        grid: Option<u32>,
        observe_every: Option<u32>,
        seed: Option<u32>,
    }

    fn message(text: &str, path: &str) -> String {
        parse_json::<Cfg>(text, path).unwrap_err().to_string()
    }

    /// The fields a config leaves out are named with the values the run takes; a whole
    /// section by name; none for a config that gives them all (provenance aside).
    #[test]
    fn defaults_used_names_what_the_config_leaves_out() {
        let config = serde_json::json!({
            "steps": 130000, "seed": 42, "box": {"lx": 10}, "provenance": "x"
        });
        let line = defaults_used(r#"{"seed": 1}"#, &config).unwrap();
        assert_eq!(line, "defaults used for box (its defaults), steps = 130000");
        let all = r#"{"steps": 5, "seed": 1, "box": {}}"#;
        assert_eq!(defaults_used(all, &config), None);
    }

    #[test]
    fn an_unknown_key_gets_the_nearest_allowed_one() {
        let m = message("{\n  \"grdi\": 3}", "cfg.json");
        assert!(m.contains("unknown field `grdi`"), "{m}");
        assert!(
            m.ends_with("at line 2 column 8; did you mean `grid`?"),
            "{m}"
        );
        let m = message(r#"{"observe_evry": 3}"#, "cfg.json");
        assert!(m.contains("did you mean `observe_every`?"), "{m}");
        // Nothing near: no guess.
        let m = message(r#"{"colour": 3}"#, "cfg.json");
        assert!(
            m.contains("unknown field `colour`") && !m.contains("did you mean"),
            "{m}"
        );
    }

    /// A value of the wrong type or range is reported with its field's path.
    #[test]
    fn a_wrong_value_names_its_field() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Grid {
            nx: u32,
            lx: f64,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Outer {
            name: String,
            grid: Grid,
            list: Vec<Grid>,
        }
        let m = |text: &str| parse_json::<Outer>(text, "c.json").unwrap_err().to_string();
        let e = m("{\"name\": \"a,{b\\\"\",\n \"grid\": {\"lx\": 1.5, \"nx\": -1}}");
        assert!(
            e.contains("integer `-1`") && e.ends_with("(field `grid.nx`)"),
            "{e}"
        );
        let e = m(
            r#"{"name": "a", "grid": {"nx": 1, "lx": 2}, "list": [{"nx": 1, "lx": 1}, {"nx": "x"}]}"#,
        );
        assert!(e.ends_with("(field `list[1].nx`)"), "{e}");
        // A syntax error or an unknown key: no field added.
        let e = m(r#"{"name": "a", "grid": {"nx": 1,, }}"#);
        assert!(!e.contains("(field"), "{e}");
    }

    #[test]
    fn text_the_user_did_not_write_gets_no_line_and_column() {
        let m = message(r#"{"seed": 1, "grdi": 3}"#, DICT_ORIGIN);
        assert!(m.contains("did you mean `grid`?"), "{m}");
        assert!(!m.contains("line") && !m.contains("column"), "{m}");
    }
}
