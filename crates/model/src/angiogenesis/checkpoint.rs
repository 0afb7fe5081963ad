//! Checkpoints of an angiogenesis run: everything needed to carry on from a step as if the run
//! had never stopped.
//!
//! A checkpoint holds the config, the time step k and the whole [`AngioState`]: the fields n, f
//! and c, the occupancy of every grid node, the tip table, the vessel segments (sorted as
//! [`AngioSim::read_state`] returns them), the GPU counters and the step number. Nothing else
//! carries over from one step to the next on the GPU: the random numbers are drawn from a
//! counter-based generator keyed by the seed (in the config) and the step, the ping-pong half of
//! the fields follows from the step's parity, and the branch flags are cleared within every step.
//! So resuming from a checkpoint gives bitwise the same run as not stopping, on the same adapter
//! (a different adapter may round the field update differently, as for any run).
//!
//! The file is little-endian binary:
//!
//! | bytes | content |
//! |-------|---------|
//! | 8 | magic `PETRICK1` |
//! | 8 | u64 length L of the header |
//! | L | JSON header: `model` ("angiogenesis"), `version` (1), `config`, `k`, `step`, `counters`, `lengths` of each array, and `exact_f64` |
//! | 8 + 4 cells | u64 element count, then n (f32) |
//! | 8 + 4 cells | f (f32), likewise |
//! | 8 + 4 cells | c (f32) |
//! | 8 + 4 cells | occ (u32) |
//! | 8 + 16 tips | tips ([`Tip`]: site u32, age f32, alive u32, parent u32) |
//! | 8 + 16 segments | segments ([u32; 4]: from, to, sprout, step) |
//!
//! `exact_f64` maps the JSON pointer of every floating-point number in the header (k, the
//! config's coefficients, ...) to its IEEE-754 bit pattern: serde_json's default parser may read
//! a printed double back one ulp off, which would break the bitwise resume. A hand edit of a
//! number in the header that disagrees with its exact bits is refused on load.
//!
//! [`Checkpoint::save`] writes a temporary file in the target's directory and renames it over
//! the target, so a crash mid-write never leaves a partial checkpoint under the final name.
//! [`Checkpoint::load`] checks the magic, the header, the model name, the version, every array
//! length against the grid and the counters, and the file size; a corrupt or truncated file is an
//! error naming the path, never a panic.

use super::params::AngioConfig;
use super::sim::{AngioSim, SimOptions};
use super::state::{AngioState, Counter, Segment, Tip, COUNTERS};
use crate::error::{ModelError, Result};
use petri_engine::GpuContext;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// First eight bytes of every checkpoint file.
pub const MAGIC: &[u8; 8] = b"PETRICK1";
/// Format version written, and the only one read.
pub const VERSION: u32 = 1;
/// Model name in the header.
pub const MODEL: &str = "angiogenesis";
/// Largest header accepted on load, so a corrupt length does not allocate gigabytes.
const MAX_HEADER_BYTES: u64 = 256 << 20;

/// A resumable snapshot of an angiogenesis run.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub config: AngioConfig,
    /// Time step k.
    pub k: f64,
    pub state: AngioState,
}

/// Element counts of the arrays that follow the header.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Lengths {
    n: u64,
    f: u64,
    c: u64,
    occ: u64,
    tips: u64,
    segments: u64,
}

/// The JSON header, less `exact_f64` (added and applied on the untyped value).
#[derive(Serialize, Deserialize)]
struct Header {
    model: String,
    version: u32,
    config: Value,
    k: f64,
    step: u64,
    counters: [u32; COUNTERS],
    lengths: Lengths,
}

impl Checkpoint {
    /// The state of a running simulation (reads it back from the GPU, waiting for queued work).
    pub fn from_sim(ctx: &GpuContext, sim: &AngioSim) -> Result<Checkpoint> {
        Ok(Checkpoint {
            config: sim.cfg.clone(),
            k: sim.k,
            state: sim.read_state(ctx)?,
        })
    }

    /// A simulation that carries on from this checkpoint. `options` only lay out the work on the
    /// GPU; they do not change the results.
    pub fn into_sim(self, ctx: &GpuContext, options: &SimOptions) -> Result<AngioSim> {
        AngioSim::from_state(ctx, &self.config, self.k, &self.state, options)
    }

    /// Writes the checkpoint to `path` (replacing any file there) through a temporary file in the
    /// same directory, renamed into place once complete and synced.
    pub fn save(&self, path: &Path) -> Result<()> {
        let shown = path.display().to_string();
        let format_error = |message: String| ModelError::Checkpoint {
            path: shown.clone(),
            message,
        };
        self.check().map_err(&format_error)?;
        let header = self.header_bytes().map_err(&format_error)?;
        let name = path
            .file_name()
            .ok_or_else(|| format_error("the path does not name a file".into()))?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let tmp = dir.join(format!(
            ".{}.tmp-{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        let io_error = |p: &Path| {
            let p = p.display().to_string();
            move |source| ModelError::Io { path: p, source }
        };
        let written = self
            .write_file(&tmp, &header)
            .map_err(io_error(&tmp))
            .and_then(|()| std::fs::rename(&tmp, path).map_err(io_error(path)));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        // Make the rename itself durable where the platform allows syncing a directory.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Reads and checks a checkpoint written by [`Checkpoint::save`].
    pub fn load(path: &Path) -> Result<Checkpoint> {
        let shown = path.display().to_string();
        let io_error = |source| ModelError::Io {
            path: shown.clone(),
            source,
        };
        let file = File::open(path).map_err(io_error)?;
        let len = file.metadata().map_err(io_error)?.len();
        decode(BufReader::with_capacity(1 << 20, file), len, &shown)
    }

    /// Consistency of config, k and state; the message says what is wrong.
    fn check(&self) -> std::result::Result<(), String> {
        let (cfg, s) = (&self.config, &self.state);
        cfg.validate().map_err(|e| e.to_string())?;
        if !(self.k.is_finite() && self.k > 0.0) {
            return Err(format!("k = {} is not a finite number > 0", self.k));
        }
        let cells = cfg.cells();
        for (name, len) in [
            ("n", s.n.len()),
            ("f", s.f.len()),
            ("c", s.c.len()),
            ("occ", s.occ.len()),
        ] {
            if len != cells {
                return Err(format!(
                    "{name} has {len} values, the {:?} grid has {cells} nodes",
                    cfg.grid
                ));
            }
        }
        let tips = s.counter(Counter::Tips) as usize;
        if s.tips.len() != tips {
            return Err(format!(
                "{} tips, but the tip counter says {tips}",
                s.tips.len()
            ));
        }
        if tips > cfg.tips.max_tips as usize {
            return Err(format!(
                "{tips} tips do not fit tips.max_tips = {}",
                cfg.tips.max_tips
            ));
        }
        let segments = s.counter(Counter::Segments).min(cfg.tips.max_segments) as usize;
        if s.segments.len() != segments {
            return Err(format!(
                "{} segments, but the segment counter ({}) and tips.max_segments ({}) say {segments}",
                s.segments.len(),
                s.counter(Counter::Segments),
                cfg.tips.max_segments
            ));
        }
        if let Some((i, t)) = s
            .tips
            .iter()
            .enumerate()
            .find(|(_, t)| t.site as usize >= cells)
        {
            return Err(format!(
                "tip {i} sits at node {}, outside the grid of {cells} nodes",
                t.site
            ));
        }
        Ok(())
    }

    fn lengths(&self) -> Lengths {
        let s = &self.state;
        Lengths {
            n: s.n.len() as u64,
            f: s.f.len() as u64,
            c: s.c.len() as u64,
            occ: s.occ.len() as u64,
            tips: s.tips.len() as u64,
            segments: s.segments.len() as u64,
        }
    }

    /// The JSON header with the exact bits of its floating-point numbers.
    fn header_bytes(&self) -> std::result::Result<Vec<u8>, String> {
        let header = Header {
            model: MODEL.into(),
            version: VERSION,
            config: serde_json::to_value(&self.config).map_err(|e| e.to_string())?,
            k: self.k,
            step: self.state.step,
            counters: self.state.counters,
            lengths: self.lengths(),
        };
        let mut value = serde_json::to_value(&header).map_err(|e| e.to_string())?;
        let mut exact = BTreeMap::new();
        collect_floats(&value, &mut String::new(), &mut exact);
        let Value::Object(map) = &mut value else {
            unreachable!("the header serializes as an object")
        };
        map.insert(
            "exact_f64".into(),
            serde_json::to_value(exact).map_err(|e| e.to_string())?,
        );
        serde_json::to_vec_pretty(&value).map_err(|e| e.to_string())
    }

    fn write_file(&self, path: &Path, header: &[u8]) -> std::io::Result<()> {
        let file = File::create(path)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        w.write_all(MAGIC)?;
        w.write_all(&(header.len() as u64).to_le_bytes())?;
        w.write_all(header)?;
        let s = &self.state;
        write_array(&mut w, &s.n)?;
        write_array(&mut w, &s.f)?;
        write_array(&mut w, &s.c)?;
        write_array(&mut w, &s.occ)?;
        write_array(&mut w, &s.tips)?;
        write_array(&mut w, &s.segments)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    }
}

/// Escapes a key for a JSON pointer (RFC 6901).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The JSON pointer and bit pattern of every floating-point number under `v`.
fn collect_floats(v: &Value, at: &mut String, out: &mut BTreeMap<String, u64>) {
    let mut descend = |token: String, child: &Value, at: &mut String| {
        let len = at.len();
        at.push('/');
        at.push_str(&token);
        collect_floats(child, at, out);
        at.truncate(len);
    };
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(x) = n.as_f64() {
                out.insert(at.clone(), x.to_bits());
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                descend(i.to_string(), child, at);
            }
        }
        Value::Object(map) => {
            for (key, child) in map {
                descend(pointer_token(key), child, at);
            }
        }
        _ => {}
    }
}

/// Replaces each number named in `exact` by its exact value; refuses numbers that are missing or
/// differ by more than parsing could explain.
fn apply_exact_floats(
    value: &mut Value,
    exact: &BTreeMap<String, u64>,
) -> std::result::Result<(), String> {
    for (pointer, &bits) in exact {
        let x = f64::from_bits(bits);
        let slot = value
            .pointer_mut(pointer)
            .ok_or_else(|| format!("exact_f64 names {pointer}, which the header lacks"))?;
        let printed = slot
            .as_f64()
            .ok_or_else(|| format!("header value at {pointer} is not a number"))?;
        let close = (printed - x).abs() <= 1e-12 * x.abs() + f64::MIN_POSITIVE;
        if !close {
            return Err(format!(
                "header value at {pointer} is {printed}, but its exact bits in exact_f64 say {x}; \
                 edit both or neither"
            ));
        }
        *slot = Value::Number(
            serde_json::Number::from_f64(x)
                .ok_or_else(|| format!("exact_f64 at {pointer} is not finite"))?,
        );
    }
    Ok(())
}

/// Writes the element count and the elements (all made of 4-byte words) in little-endian order.
fn write_array<T: bytemuck::Pod>(w: &mut impl Write, v: &[T]) -> std::io::Result<()> {
    debug_assert_eq!(std::mem::size_of::<T>() % 4, 0);
    w.write_all(&(v.len() as u64).to_le_bytes())?;
    let bytes: &[u8] = bytemuck::cast_slice(v);
    if cfg!(target_endian = "little") {
        w.write_all(bytes)
    } else {
        for chunk in bytes.chunks(1 << 16) {
            let mut le = chunk.to_vec();
            le.chunks_exact_mut(4).for_each(|word| word.reverse());
            w.write_all(&le)?;
        }
        Ok(())
    }
}

/// Reads from a source of known length; running out of bytes is a format error.
struct Source<'a, R> {
    inner: R,
    remaining: u64,
    path: &'a str,
}

impl<R: Read> Source<'_, R> {
    fn error(&self, message: String) -> ModelError {
        ModelError::Checkpoint {
            path: self.path.to_string(),
            message,
        }
    }

    fn truncated(&self, what: &str, need: u64) -> ModelError {
        self.error(format!(
            "truncated: {what} needs {need} bytes, only {} are left",
            self.remaining
        ))
    }

    fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        if buf.len() as u64 > self.remaining {
            return Err(self.truncated(what, buf.len() as u64));
        }
        match self.inner.read_exact(buf) {
            Ok(()) => {
                self.remaining -= buf.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(self.truncated(what, buf.len() as u64))
            }
            Err(source) => Err(ModelError::Io {
                path: self.path.to_string(),
                source,
            }),
        }
    }

    fn read_u64(&mut self, what: &str) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read_exact(&mut b, what)?;
        Ok(u64::from_le_bytes(b))
    }

    /// An array preceded by its element count, which must be `expected`.
    fn read_array<T: bytemuck::Pod>(&mut self, what: &str, expected: u64) -> Result<Vec<T>> {
        let count = self.read_u64(&format!("the element count of {what}"))?;
        if count != expected {
            return Err(self.error(format!(
                "{what} has {count} elements, the header says {expected}"
            )));
        }
        let size = std::mem::size_of::<T>() as u64;
        let need = count.saturating_mul(size);
        if need > self.remaining {
            return Err(self.truncated(what, need));
        }
        let mut v = vec![T::zeroed(); count as usize];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
        self.read_exact(bytes, what)?;
        if cfg!(target_endian = "big") {
            bytes.chunks_exact_mut(4).for_each(|word| word.reverse());
        }
        Ok(v)
    }
}

/// Parses a checkpoint of `len` bytes from `r`; `path` names it in errors.
fn decode(r: impl Read, len: u64, path: &str) -> Result<Checkpoint> {
    let mut src = Source {
        inner: r,
        remaining: len,
        path,
    };
    if len < MAGIC.len() as u64 {
        return Err(src.error(format!(
            "not a Petri checkpoint: {len} bytes, too short for the magic {}",
            MAGIC.escape_ascii()
        )));
    }
    let mut magic = [0u8; 8];
    src.read_exact(&mut magic, "the magic bytes")?;
    if &magic != MAGIC {
        return Err(src.error(format!(
            "not a Petri checkpoint: starts with \"{}\", expected \"{}\"",
            magic.escape_ascii(),
            MAGIC.escape_ascii()
        )));
    }
    let header_len = src.read_u64("the header length")?;
    if header_len > src.remaining {
        return Err(src.truncated("the header", header_len));
    }
    if header_len > MAX_HEADER_BYTES {
        return Err(src.error(format!(
            "header length {header_len} is over the {MAX_HEADER_BYTES} bytes allowed"
        )));
    }
    let mut text = vec![0u8; header_len as usize];
    src.read_exact(&mut text, "the header")?;
    let mut value: Value = serde_json::from_slice(&text)
        .map_err(|e| src.error(format!("the header is not valid JSON: {e}")))?;
    match value.get("model") {
        Some(Value::String(m)) if m == MODEL => {}
        Some(m) => {
            return Err(src.error(format!("the checkpoint is of model {m}, not \"{MODEL}\"")))
        }
        None => return Err(src.error("the header names no model".into())),
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if v == VERSION as u64 => {}
        Some(v) => {
            return Err(src.error(format!(
                "format version {v} is not supported (this build reads version {VERSION})"
            )))
        }
        None => return Err(src.error("the header has no version".into())),
    }
    let exact: BTreeMap<String, u64> =
        match value.as_object_mut().and_then(|m| m.remove("exact_f64")) {
            Some(v) => serde_json::from_value(v)
                .map_err(|e| src.error(format!("header field exact_f64: {e}")))?,
            None => BTreeMap::new(),
        };
    apply_exact_floats(&mut value, &exact).map_err(|m| src.error(m))?;
    let header: Header = serde_json::from_value(value)
        .map_err(|e| src.error(format!("the header does not parse: {e}")))?;
    let config: AngioConfig = serde_json::from_value(header.config)
        .map_err(|e| src.error(format!("the header's config does not parse: {e}")))?;
    config
        .validate()
        .map_err(|e| src.error(format!("the header's config: {e}")))?;

    let cells = config.cells() as u64;
    let l = header.lengths;
    for (name, len) in [("n", l.n), ("f", l.f), ("c", l.c), ("occ", l.occ)] {
        if len != cells {
            return Err(src.error(format!(
                "the header gives {name} {len} values, the {:?} grid has {cells} nodes",
                config.grid
            )));
        }
    }
    let tips = header.counters[Counter::Tips as usize] as u64;
    if l.tips != tips {
        return Err(src.error(format!(
            "the header gives {} tips, but the tip counter says {tips}",
            l.tips
        )));
    }
    let payload = [
        (l.n + l.f + l.c) * 4,
        l.occ * 4,
        l.tips * std::mem::size_of::<Tip>() as u64,
        l.segments
            .saturating_mul(std::mem::size_of::<Segment>() as u64),
        6 * 8,
    ]
    .iter()
    .fold(0u64, |a, &b| a.saturating_add(b));
    if payload > src.remaining {
        return Err(src.truncated("the arrays", payload));
    }
    if payload < src.remaining {
        return Err(src.error(format!(
            "{} trailing bytes after the arrays",
            src.remaining - payload
        )));
    }

    let state = AngioState {
        n: src.read_array("n", l.n)?,
        f: src.read_array("f", l.f)?,
        c: src.read_array("c", l.c)?,
        occ: src.read_array("occ", l.occ)?,
        tips: src.read_array("tips", l.tips)?,
        segments: src.read_array("segments", l.segments)?,
        counters: header.counters,
        step: header.step,
    };
    if src.remaining != 0 {
        return Err(src.error(format!("{} trailing bytes after the arrays", src.remaining)));
    }
    let checkpoint = Checkpoint {
        config,
        k: header.k,
        state,
    };
    checkpoint.check().map_err(|m| src.error(m))?;
    Ok(checkpoint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::angiogenesis::params::InitialTips;
    use crate::angiogenesis::state::FREE;
    use crate::angiogenesis::AngioUniforms;

    fn small() -> Checkpoint {
        let mut config = AngioConfig {
            grid: [6, 5, 4],
            dt: Some(0.1 + 0.2),
            ..AngioConfig::default()
        };
        config.tips.initial = InitialTips::Single;
        config.tips.max_tips = 8;
        config.tips.max_segments = 3;
        config.provenance = serde_json::json!({"a/b~c": [1.0 / 3.0, 2, "x"], "e": 1e-300});
        let u = AngioUniforms::new(&config, 0.0);
        let mut state = AngioState::initial(&config, &u);
        state.add_tip(7);
        state.n[0] = -0.0;
        state.f[1] = f32::from_bits(1); // subnormal
        state.segments = vec![[0, 1, 0, 3], [7, 8, 1, 4], [2, 3, 0, 5]];
        state.counters[Counter::Segments as usize] = 5; // two were lost to overflow
        state.counters[Counter::SegmentOverflow as usize] = 2;
        state.step = 6;
        Checkpoint {
            config,
            k: std::f64::consts::PI * 1e-5,
            state,
        }
    }

    fn encode(ck: &Checkpoint) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("petri-ck-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!(
            "{}.ck",
            SERIAL_TEST.fetch_add(1, Ordering::Relaxed)
        ));
        ck.save(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    }
    static SERIAL_TEST: AtomicU64 = AtomicU64::new(0);

    fn load_bytes(b: &[u8]) -> Result<Checkpoint> {
        decode(b, b.len() as u64, "mem.ck")
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn checkpoint_round_trips_exactly_in_memory() {
        let ck = small();
        let back = load_bytes(&encode(&ck)).unwrap();
        assert_eq!(back.k.to_bits(), ck.k.to_bits());
        assert_eq!(back.config.dt.unwrap().to_bits(), (0.1f64 + 0.2).to_bits());
        assert_eq!(
            serde_json::to_string(&back.config).unwrap(),
            serde_json::to_string(&ck.config).unwrap()
        );
        assert_eq!(bits(&back.state.n), bits(&ck.state.n));
        assert_eq!(bits(&back.state.f), bits(&ck.state.f));
        assert_eq!(bits(&back.state.c), bits(&ck.state.c));
        assert_eq!(back.state.occ, ck.state.occ);
        assert_eq!(back.state.tips, ck.state.tips);
        assert_eq!(back.state.segments, ck.state.segments);
        assert_eq!(back.state.counters, ck.state.counters);
        assert_eq!(back.state.step, 6);
        assert!(back.state.occ.contains(&FREE));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode(&small());
        for len in 0..bytes.len() {
            let e = load_bytes(&bytes[..len]).unwrap_err();
            assert!(
                matches!(e, ModelError::Checkpoint { ref path, .. } if path == "mem.ck"),
                "{len}: {e}"
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        let e = load_bytes(&long).unwrap_err().to_string();
        assert!(e.contains("1 trailing bytes"), "{e}");
    }

    #[test]
    fn corrupt_headers_are_errors() {
        let bytes = encode(&small());
        let header_len = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
        let header = std::str::from_utf8(&bytes[16..16 + header_len]).unwrap();
        let with_header = |h: &str| {
            let mut b = MAGIC.to_vec();
            b.extend((h.len() as u64).to_le_bytes());
            b.extend(h.as_bytes());
            b.extend(&bytes[16 + header_len..]);
            b
        };
        let cases = [
            (
                header.replacen(
                    "\n  \"model\": \"angiogenesis\"",
                    "\n  \"model\": \"rdme\"",
                    1,
                ),
                "checkpoint is of model \"rdme\"",
            ),
            (
                header.replacen("\"version\": 1", "\"version\": 2", 1),
                "version 2",
            ),
            (
                header.replacen("\"n\": 120", "\"n\": 121", 1),
                "n 121 values",
            ),
            (
                header.replacen("\"tips\": 2", "\"tips\": 1", 1),
                "tip counter",
            ),
            (
                header.replacen("\"step\": 6", "\"step\": \"six\"", 1),
                "does not parse",
            ),
            (header.replacen('{', "[", 1), "not valid JSON"),
            (
                header.replacen("\"D\": 0.00035", "\"D\": 0.5", 1),
                "exact bits",
            ),
        ];
        for (h, want) in cases {
            assert_ne!(h, header, "case {want} did not edit the header");
            let e = load_bytes(&with_header(&h)).unwrap_err().to_string();
            assert!(e.contains("mem.ck") && e.contains(want), "{want}: {e}");
        }
        let mut huge = bytes.clone();
        huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = load_bytes(&huge).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }

    #[test]
    fn inconsistent_states_are_not_saved() {
        let mut ck = small();
        ck.state.tips.pop();
        let dir = std::env::temp_dir();
        let e = ck
            .save(&dir.join("never-written.ck"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("never-written.ck") && e.contains("tip counter"),
            "{e}"
        );
        let mut ck = small();
        ck.state.c.push(0.0);
        let e = ck
            .save(&dir.join("never-written.ck"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("c has 121 values"), "{e}");
        assert!(!dir.join("never-written.ck").exists());
    }
}
