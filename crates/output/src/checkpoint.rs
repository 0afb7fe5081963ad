//! The checkpoint container every model saves its state in: which model and format wrote it, a
//! JSON metadata block (the model's own header: config, step, ...), named typed arrays, and a
//! checksum. The container knows no model; each model says what its metadata and arrays mean
//! and checks them once loaded.
//!
//! Layout, all integers little-endian:
//!
//! | bytes | content |
//! |-------|---------|
//! | 8 | magic `PETRI-CK` |
//! | 4 | u32 container version ([`CONTAINER_VERSION`]) |
//! | 4 + m | u32 length m of the model name, then the name (UTF-8, at most 256 bytes) |
//! | 4 | u32 the model's own format version |
//! | 8 + j | u64 length j of the metadata, then the metadata (JSON, UTF-8) |
//! | 4 | u32 number of arrays A |
//! | A x (4 + n + 1 + 8 + c s) | per array: u32 length n of its name, the name (UTF-8, at most 256 bytes), u8 element type (1 u8, 2 u32, 3 i32, 4 u64, 5 f32, 6 f64), u64 element count c, then c elements of s bytes each |
//! | 8 | u64 XXH64 ([`crate::checksum`]) of every byte before it |
//!
//! [`CheckpointFile::load`] reads the file once, front to back, and refuses it with a message
//! naming the path and what is wrong when: the magic is not the container's (files of the older
//! per-model formats `PETRICK1` and `PETRIRD1` are named as such), the container version, model
//! name or model version differ from what the caller reads, a length runs past the end of the
//! file (checked before anything is allocated, so a corrupt length never asks for gigabytes), an
//! element type is unknown, an array name repeats, the checksum differs, bytes follow the
//! checksum, or the metadata is not JSON. [`CheckpointWriter::save`] replaces the target through
//! [`crate::atomic::write_atomically`].

use crate::atomic::write_atomically;
use crate::checksum::Xxh64;
use crate::error::OutputError;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// First eight bytes of every checkpoint.
pub const MAGIC: &[u8; 8] = b"PETRI-CK";
/// Container layout written, and the only one read.
pub const CONTAINER_VERSION: u32 = 1;
/// Magics of the per-model formats Petri wrote before this container, and their models.
const OLD_FORMATS: [(&[u8; 8], &str); 2] = [(b"PETRICK1", "angiogenesis"), (b"PETRIRD1", "rdme")];
/// Longest model or array name.
const MAX_NAME: usize = 256;
/// Largest metadata block read, so a corrupt length cannot ask for the whole file's size.
const MAX_META: u64 = 64 << 20;

mod sealed {
    /// The arrays of a loaded file, each in the type it was written with.
    pub enum Data {
        U8(Vec<u8>),
        U32(Vec<u32>),
        I32(Vec<i32>),
        U64(Vec<u64>),
        F32(Vec<f32>),
        F64(Vec<f64>),
    }

    pub trait Sealed: Sized {
        fn unwrap(data: Data) -> Result<Vec<Self>, Data>;
    }
}
use sealed::Data;

/// Element type of an array, as stored in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    U8,
    U32,
    I32,
    U64,
    F32,
    F64,
}

/// A type an array may hold: u8, u32, i32, u64, f32, f64.
pub trait Element: bytemuck::Pod + sealed::Sealed {
    const TYPE: ElementType;
}

macro_rules! elements {
    ($($t:ty => $variant:ident, $code:literal;)*) => {
        impl ElementType {
            fn code(self) -> u8 {
                match self { $(Self::$variant => $code,)* }
            }
            fn from_code(code: u8) -> Option<Self> {
                match code { $($code => Some(Self::$variant),)* _ => None }
            }
            /// Bytes per element.
            pub fn size(self) -> usize {
                match self { $(Self::$variant => std::mem::size_of::<$t>(),)* }
            }
            /// The Rust name of the type ("u32", ...).
            pub fn name(self) -> &'static str {
                match self { $(Self::$variant => stringify!($t),)* }
            }
        }
        impl Data {
            fn ty(&self) -> ElementType {
                match self { $(Data::$variant(_) => ElementType::$variant,)* }
            }
            fn read<R: Read>(ty: ElementType, src: &mut Source<'_, R>, count: usize, what: &str) -> Result<Self, OutputError> {
                Ok(match ty { $(ElementType::$variant => Data::$variant(src.read_vec(count, what)?),)* })
            }
        }
        $(
            impl sealed::Sealed for $t {
                fn unwrap(data: Data) -> Result<Vec<Self>, Data> {
                    match data { Data::$variant(v) => Ok(v), other => Err(other) }
                }
            }
            impl Element for $t {
                const TYPE: ElementType = ElementType::$variant;
            }
        )*
    };
}

elements! {
    u8 => U8, 1;
    u32 => U32, 2;
    i32 => I32, 3;
    u64 => U64, 4;
    f32 => F32, 5;
    f64 => F64, 6;
}

fn error(path: &Path, message: impl Into<String>) -> OutputError {
    OutputError::Checkpoint {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Builds a checkpoint from a model's metadata and borrowed arrays, then writes it.
///
/// ```ignore
/// CheckpointWriter::new("angiogenesis", 1)
///     .meta(json!({"step": 6}))
///     .array("n", &state.n)
///     .save(&path)?;
/// ```
pub struct CheckpointWriter<'a> {
    model: String,
    version: u32,
    meta: Value,
    arrays: Vec<(String, ElementType, &'a [u8])>,
}

impl<'a> CheckpointWriter<'a> {
    /// A checkpoint of `model`'s format `version`, with empty metadata and no arrays.
    pub fn new(model: &str, version: u32) -> Self {
        Self {
            model: model.to_string(),
            version,
            meta: Value::Object(Default::default()),
            arrays: Vec::new(),
        }
    }

    /// The metadata block (the model's header).
    pub fn meta(mut self, meta: Value) -> Self {
        self.meta = meta;
        self
    }

    /// Adds an array under `name` (names are unique within a checkpoint).
    pub fn array<T: Element>(mut self, name: &str, data: &'a [T]) -> Self {
        self.arrays
            .push((name.to_string(), T::TYPE, bytemuck::cast_slice(data)));
        self
    }

    fn check(&self) -> Result<(), OutputError> {
        let bad = |m: String| Err(OutputError::InvalidArgument(m));
        if self.model.is_empty() || self.model.len() > MAX_NAME {
            return bad(format!(
                "checkpoint model name \"{}\" must have 1 to {MAX_NAME} bytes",
                self.model
            ));
        }
        for (i, (name, ..)) in self.arrays.iter().enumerate() {
            if name.is_empty() || name.len() > MAX_NAME {
                return bad(format!(
                    "checkpoint array name \"{name}\" must have 1 to {MAX_NAME} bytes"
                ));
            }
            if self.arrays[..i].iter().any(|(n, ..)| n == name) {
                return bad(format!("checkpoint array \"{name}\" is given twice"));
            }
        }
        Ok(())
    }

    /// Writes the checkpoint to `path`, atomically and durably (see [`write_atomically`]).
    pub fn save(&self, path: &Path) -> Result<(), OutputError> {
        self.check()?;
        write_atomically(path, |w| self.write_to(w))
    }

    /// The checkpoint's bytes, as [`CheckpointWriter::save`] writes them.
    pub fn to_bytes(&self) -> Result<Vec<u8>, OutputError> {
        self.check()?;
        let mut bytes = Vec::new();
        self.write_to(&mut bytes)
            .expect("writing to memory does not fail");
        Ok(bytes)
    }

    fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        let mut w = Hashing {
            inner: w,
            hash: Xxh64::new(),
        };
        let meta = serde_json::to_vec_pretty(&self.meta)?;
        w.write_all(MAGIC)?;
        w.write_all(&CONTAINER_VERSION.to_le_bytes())?;
        w.write_all(&(self.model.len() as u32).to_le_bytes())?;
        w.write_all(self.model.as_bytes())?;
        w.write_all(&self.version.to_le_bytes())?;
        w.write_all(&(meta.len() as u64).to_le_bytes())?;
        w.write_all(&meta)?;
        w.write_all(&(self.arrays.len() as u32).to_le_bytes())?;
        for (name, ty, bytes) in &self.arrays {
            w.write_all(&(name.len() as u32).to_le_bytes())?;
            w.write_all(name.as_bytes())?;
            w.write_all(&[ty.code()])?;
            w.write_all(&((bytes.len() / ty.size()) as u64).to_le_bytes())?;
            if cfg!(target_endian = "little") {
                w.write_all(bytes)?;
            } else {
                for chunk in bytes.chunks(ty.size() << 16) {
                    let mut le = chunk.to_vec();
                    le.chunks_exact_mut(ty.size()).for_each(|e| e.reverse());
                    w.write_all(&le)?;
                }
            }
        }
        let sum = w.hash.finish();
        w.inner.write_all(&sum.to_le_bytes())
    }
}

/// A writer that hashes what passes through it.
struct Hashing<W> {
    inner: W,
    hash: Xxh64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A checkpoint read back and checked (see the module doc): its metadata, and its arrays to take.
#[derive(Debug)]
pub struct CheckpointFile {
    path: PathBuf,
    meta: Value,
    arrays: BTreeMap<String, Data>,
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} array", self.ty().name())
    }
}

impl CheckpointFile {
    /// Reads the checkpoint at `path`, which must be one of `model`'s format `version`.
    pub fn load(path: &Path, model: &str, version: u32) -> Result<Self, OutputError> {
        let file = File::open(path).map_err(OutputError::io(path))?;
        let len = file.metadata().map_err(OutputError::io(path))?.len();
        Self::read(
            BufReader::with_capacity(1 << 20, file),
            len,
            path,
            model,
            version,
        )
    }

    /// Reads a checkpoint of `len` bytes from `r`; `path` names it in errors.
    pub fn read(
        r: impl Read,
        len: u64,
        path: &Path,
        model: &str,
        version: u32,
    ) -> Result<Self, OutputError> {
        let mut src = Source {
            inner: r,
            remaining: len,
            hash: Xxh64::new(),
            path,
        };
        let found = read_model(&mut src)?;
        if found != model {
            return Err(src.error(format!(
                "a checkpoint of model \"{found}\", not of \"{model}\""
            )));
        }
        let v = src.u32("the model's format version")?;
        if v != version {
            return Err(src.error(format!(
                "{model} checkpoint format version {v}; this Petri reads version {version}"
            )));
        }
        let meta_len = src.u64("the metadata length")?;
        if meta_len > src.remaining {
            return Err(src.truncated("the metadata", meta_len));
        }
        if meta_len > MAX_META {
            return Err(src.error(format!(
                "the metadata is {meta_len} bytes long, over the {MAX_META} allowed"
            )));
        }
        let meta_bytes: Vec<u8> = src.read_vec(meta_len as usize, "the metadata")?;
        let count = src.u32("the number of arrays")?;
        let mut arrays = BTreeMap::new();
        for i in 0..count {
            let name = src.name(&format!("the name of array {i}"))?;
            let code = src.bytes::<1>(&format!("the element type of array \"{name}\""))?[0];
            let ty = ElementType::from_code(code).ok_or_else(|| {
                src.error(format!(
                    "array \"{name}\" has element type {code}, not one of 1 to 6"
                ))
            })?;
            let elements = src.u64(&format!("the element count of array \"{name}\""))?;
            let what = format!("array \"{name}\" ({elements} x {})", ty.name());
            let need = elements.saturating_mul(ty.size() as u64);
            if need > src.remaining {
                return Err(src.truncated(&what, need));
            }
            let data = Data::read(ty, &mut src, elements as usize, &what)?;
            if arrays.insert(name.clone(), data).is_some() {
                return Err(src.error(format!("array \"{name}\" appears twice")));
            }
        }
        let computed = src.hash.finish();
        let stored = u64::from_le_bytes(src.bytes::<8>("the checksum")?);
        if src.remaining > 0 {
            return Err(src.error(format!(
                "{} trailing bytes after the checksum",
                src.remaining
            )));
        }
        if stored != computed {
            return Err(src.error(format!(
                "the checksum does not match (stored {stored:#018x}, computed {computed:#018x}): \
                 the file is corrupt"
            )));
        }
        let meta = serde_json::from_slice(&meta_bytes)
            .map_err(|e| src.error(format!("the metadata is not valid JSON: {e}")))?;
        Ok(Self {
            path: path.to_path_buf(),
            meta,
            arrays,
        })
    }

    /// The file the checkpoint was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The metadata block (the model's header).
    pub fn meta(&self) -> &Value {
        &self.meta
    }

    /// The element type of the array `name`; an error naming the arrays there if it is missing.
    pub fn element_type(&self, name: &str) -> Result<ElementType, OutputError> {
        match self.arrays.get(name) {
            Some(data) => Ok(data.ty()),
            None => {
                let names: Vec<&str> = self.arrays.keys().map(String::as_str).collect();
                Err(self.error(format!(
                    "no array \"{name}\" (arrays: {})",
                    names.join(", ")
                )))
            }
        }
    }

    /// Moves the array `name` out of the checkpoint (a second take of it is an error), which must
    /// hold elements of type `T`.
    pub fn take<T: Element>(&mut self, name: &str) -> Result<Vec<T>, OutputError> {
        let Some(data) = self.arrays.remove(name) else {
            let names: Vec<&str> = self.arrays.keys().map(String::as_str).collect();
            return Err(self.error(format!(
                "no array \"{name}\" (arrays left: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        T::unwrap(data).map_err(|data| {
            let message = format!(
                "array \"{name}\" holds {}, not {}",
                data.ty().name(),
                T::TYPE.name()
            );
            self.arrays.insert(name.to_string(), data);
            self.error(message)
        })
    }

    /// An error about this checkpoint (for the model's own checks), naming its path.
    pub fn error(&self, message: impl Into<String>) -> OutputError {
        error(&self.path, message)
    }
}

/// The model that wrote the checkpoint at `path`, read from the start of the file only (the rest
/// is not checked).
pub fn model_of(path: &Path) -> Result<String, OutputError> {
    let file = File::open(path).map_err(OutputError::io(path))?;
    let len = file.metadata().map_err(OutputError::io(path))?.len();
    read_model(&mut Source {
        inner: BufReader::new(file),
        remaining: len,
        hash: Xxh64::new(),
        path,
    })
}

/// The metadata of the checkpoint at `path` (e.g. its step), read from the start of the file
/// only (the arrays and the checksum are not checked).
pub fn meta_of(path: &Path) -> Result<Value, OutputError> {
    let file = File::open(path).map_err(OutputError::io(path))?;
    let len = file.metadata().map_err(OutputError::io(path))?.len();
    let mut src = Source {
        inner: BufReader::new(file),
        remaining: len,
        hash: Xxh64::new(),
        path,
    };
    read_model(&mut src)?;
    src.u32("the model's format version")?;
    let meta_len = src.u64("the metadata length")?;
    if meta_len > src.remaining.min(MAX_META) {
        return Err(src.truncated("the metadata", meta_len));
    }
    let meta_bytes: Vec<u8> = src.read_vec(meta_len as usize, "the metadata")?;
    serde_json::from_slice(&meta_bytes)
        .map_err(|e| src.error(format!("the metadata is not valid JSON: {e}")))
}

/// Reads the magic, the container version and the model name.
fn read_model<R: Read>(src: &mut Source<'_, R>) -> Result<String, OutputError> {
    if src.remaining < MAGIC.len() as u64 {
        return Err(src.error(format!(
            "not a Petri checkpoint: {} bytes, too short for the magic \"{}\"",
            src.remaining,
            MAGIC.escape_ascii()
        )));
    }
    let magic = src.bytes::<8>("the magic")?;
    if let Some((_, model)) = OLD_FORMATS.iter().find(|(m, _)| **m == magic) {
        return Err(src.error(format!(
            "an {model} checkpoint in the format \"{}\" of an older Petri, which this version \
             cannot read; resume it with the Petri that wrote it, or start the run again",
            magic.escape_ascii()
        )));
    }
    if &magic != MAGIC {
        return Err(src.error(format!(
            "not a Petri checkpoint: starts with \"{}\", expected \"{}\"",
            magic.escape_ascii(),
            MAGIC.escape_ascii()
        )));
    }
    let v = src.u32("the container version")?;
    if v != CONTAINER_VERSION {
        return Err(src.error(format!(
            "checkpoint container version {v}; this Petri reads version {CONTAINER_VERSION}"
        )));
    }
    src.name("the model name")
}

/// Reads from a source of known length, hashing what it reads; running out of bytes is a format
/// error naming what was being read.
struct Source<'a, R> {
    inner: R,
    remaining: u64,
    hash: Xxh64,
    path: &'a Path,
}

impl<R: Read> Source<'_, R> {
    fn error(&self, message: String) -> OutputError {
        error(self.path, message)
    }

    fn truncated(&self, what: &str, need: u64) -> OutputError {
        self.error(format!(
            "truncated: {what} needs {need} bytes, only {} are left",
            self.remaining
        ))
    }

    fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<(), OutputError> {
        if buf.len() as u64 > self.remaining {
            return Err(self.truncated(what, buf.len() as u64));
        }
        match self.inner.read_exact(buf) {
            Ok(()) => {
                self.remaining -= buf.len() as u64;
                self.hash.update(buf);
                Ok(())
            }
            // The file shrank while being read.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(self.truncated(what, buf.len() as u64))
            }
            Err(e) => Err(OutputError::io(self.path)(e)),
        }
    }

    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], OutputError> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    fn u32(&mut self, what: &str) -> Result<u32, OutputError> {
        self.bytes(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64, OutputError> {
        self.bytes(what).map(u64::from_le_bytes)
    }

    /// A u32 length, then that many bytes of UTF-8.
    fn name(&mut self, what: &str) -> Result<String, OutputError> {
        let len = self.u32(&format!("the length of {what}"))? as usize;
        if len > MAX_NAME {
            return Err(self.error(format!("{what} is {len} bytes long, over {MAX_NAME}")));
        }
        let bytes: Vec<u8> = self.read_vec(len, what)?;
        String::from_utf8(bytes).map_err(|_| self.error(format!("{what} is not UTF-8")))
    }

    /// `count` little-endian elements; the caller has checked that they fit in the file.
    fn read_vec<T: bytemuck::Pod>(
        &mut self,
        count: usize,
        what: &str,
    ) -> Result<Vec<T>, OutputError> {
        let size = std::mem::size_of::<T>();
        if (count as u64).saturating_mul(size as u64) > self.remaining {
            return Err(self.truncated(what, (count as u64).saturating_mul(size as u64)));
        }
        let mut v = vec![T::zeroed(); count];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
        self.fill(bytes, what)?;
        if cfg!(target_endian = "big") {
            bytes.chunks_exact_mut(size).for_each(|e| e.reverse());
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const U8: [u8; 3] = [0, 7, 255];
    const U32: [u32; 3] = [0, 1, u32::MAX];
    const I32: [i32; 3] = [i32::MIN, -1, i32::MAX];
    const U64: [u64; 2] = [u64::MAX, 1 << 40];
    const F32: [f32; 4] = [-0.0, f32::MIN_POSITIVE / 8.0, f32::NAN, f32::INFINITY];
    const F64: [f64; 3] = [0.1 + 0.2, -f64::MAX, f64::NEG_INFINITY];

    fn sample() -> CheckpointWriter<'static> {
        CheckpointWriter::new("toy", 3)
            .meta(json!({"step": 6, "k": 0.5, "name": "x"}))
            .array("u8", &U8)
            .array("u32", &U32)
            .array("i32", &I32)
            .array("u64", &U64)
            .array("f32", &F32)
            .array("f64", &F64)
            .array::<u32>("empty", &[])
    }

    fn read(bytes: &[u8]) -> Result<CheckpointFile, OutputError> {
        CheckpointFile::read(bytes, bytes.len() as u64, Path::new("mem.ck"), "toy", 3)
    }

    fn message(bytes: &[u8]) -> String {
        match read(bytes) {
            Err(e @ OutputError::Checkpoint { .. }) => e.to_string(),
            Err(e) => panic!("not a checkpoint error: {e}"),
            Ok(_) => panic!("read a bad checkpoint"),
        }
    }

    fn bits32(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn every_element_type_round_trips_exactly() {
        let mut f = read(&sample().to_bytes().unwrap()).unwrap();
        assert_eq!(f.meta(), &json!({"step": 6, "k": 0.5, "name": "x"}));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.petri");
        sample().save(&path).unwrap();
        assert_eq!(
            meta_of(&path).unwrap(),
            json!({"step": 6, "k": 0.5, "name": "x"})
        );
        assert_eq!(f.take::<u8>("u8").unwrap(), U8);
        assert_eq!(f.take::<u32>("u32").unwrap(), U32);
        assert_eq!(f.take::<i32>("i32").unwrap(), I32);
        assert_eq!(f.take::<u64>("u64").unwrap(), U64);
        assert_eq!(bits32(&f.take::<f32>("f32").unwrap()), bits32(&F32));
        let f64_bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(f64_bits(&f.take::<f64>("f64").unwrap()), f64_bits(&F64));
        assert_eq!(f.take::<u32>("empty").unwrap(), Vec::<u32>::new());
    }

    #[test]
    fn an_empty_checkpoint_round_trips() {
        let bytes = CheckpointWriter::new("toy", 3).to_bytes().unwrap();
        let mut f = read(&bytes).unwrap();
        assert_eq!(f.meta(), &json!({}));
        let e = f.take::<u8>("x").unwrap_err().to_string();
        assert!(e.contains("no array \"x\" (arrays left: none)"), "{e}");
    }

    #[test]
    fn the_layout_is_the_documented_one() {
        let bytes = CheckpointWriter::new("ab", 9)
            .meta(json!(1))
            .array("v", &[5u32])
            .to_bytes()
            .unwrap();
        let mut want = b"PETRI-CK".to_vec();
        want.extend(1u32.to_le_bytes());
        want.extend(2u32.to_le_bytes());
        want.extend(b"ab");
        want.extend(9u32.to_le_bytes());
        want.extend(1u64.to_le_bytes());
        want.extend(b"1");
        want.extend(1u32.to_le_bytes());
        want.extend(1u32.to_le_bytes());
        want.extend(b"v");
        want.push(2);
        want.extend(1u64.to_le_bytes());
        want.extend(5u32.to_le_bytes());
        let sum = crate::checksum::xxh64(&want);
        want.extend(sum.to_le_bytes());
        assert_eq!(bytes, want);
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = sample().to_bytes().unwrap();
        for len in 0..bytes.len() {
            let e = message(&bytes[..len]);
            assert!(e.starts_with("checkpoint mem.ck: "), "{len}: {e}");
        }
        assert!(message(&bytes[..bytes.len() - 1]).contains("truncated: the checksum"));
        assert!(message(&bytes[..3]).contains("too short for the magic"));
    }

    #[test]
    fn every_flipped_byte_is_refused() {
        let bytes = sample().to_bytes().unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            let e = message(&b);
            assert!(e.starts_with("checkpoint mem.ck: "), "{i}: {e}");
        }
        // In the data or the checksum itself, the checksum is what catches it.
        for i in [bytes.len() - 30, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[i] ^= 1;
            assert!(message(&b).contains("checksum does not match"), "{i}");
        }
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut bytes = sample().to_bytes().unwrap();
        bytes.extend([0, 0]);
        assert!(message(&bytes).contains("2 trailing bytes after the checksum"));
    }

    #[test]
    fn another_model_version_or_format_is_refused() {
        let other = CheckpointWriter::new("rdme", 3).to_bytes().unwrap();
        let e = message(&other);
        assert!(e.contains("model \"rdme\", not of \"toy\""), "{e}");
        let newer = CheckpointWriter::new("toy", 4).to_bytes().unwrap();
        assert!(message(&newer).contains("format version 4; this Petri reads version 3"));
        let mut future = sample().to_bytes().unwrap();
        future[8] = 2;
        assert!(message(&future).contains("container version 2; this Petri reads version 1"));
        for (magic, model) in [(b"PETRICK1", "angiogenesis"), (b"PETRIRD1", "rdme")] {
            let mut old = magic.to_vec();
            old.extend([0u8; 40]);
            let e = message(&old);
            assert!(
                e.contains(&format!("an {model} checkpoint")) && e.contains("older Petri"),
                "{e}"
            );
        }
        let e = message(b"{\"model\": \"toy\"}");
        assert!(e.contains("not a Petri checkpoint"), "{e}");
    }

    #[test]
    fn corrupt_lengths_and_types_are_refused_without_allocating() {
        let bytes = CheckpointWriter::new("toy", 3)
            .meta(json!({}))
            .array("v", &[1u32, 2])
            .to_bytes()
            .unwrap();
        // The header up to the metadata: 8 + 4 + (4 + 3) + 4 = 23 bytes; then u64 length, "{}".
        let meta_at = 23;
        let mut huge_meta = bytes.clone();
        huge_meta[meta_at..meta_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(message(&huge_meta).contains("truncated: the metadata needs"));
        let count_at = meta_at + 8 + 2 + 4 + 4 + 1 + 1;
        let mut huge_count = bytes.clone();
        huge_count[count_at..count_at + 8].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
        let e = message(&huge_count);
        assert!(e.contains("truncated: array \"v\""), "{e}");
        let mut bad_type = bytes.clone();
        bad_type[count_at - 1] = 9;
        assert!(message(&bad_type).contains("element type 9"));
        let name_at = meta_at + 8 + 2 + 4;
        let mut long_name = bytes.clone();
        long_name[name_at..name_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(message(&long_name).contains("over 256"));
    }

    #[test]
    fn bad_metadata_and_repeated_arrays_are_refused() {
        let mut bytes = CheckpointWriter::new("toy", 3)
            .meta(json!("ab"))
            .to_bytes()
            .unwrap();
        let at = bytes.len() - 8 - 4 - 4; // the opening quote of "ab"
        bytes[at] = b'{';
        let body = bytes.len() - 8;
        let sum = crate::checksum::xxh64(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        assert!(message(&bytes).contains("not valid JSON"));

        let e = CheckpointWriter::new("toy", 3)
            .array("a", &[1u8])
            .array("a", &[2u8])
            .to_bytes()
            .unwrap_err();
        assert!(e.to_string().contains("\"a\" is given twice"), "{e}");
        let e = CheckpointWriter::new("", 3).to_bytes().unwrap_err();
        assert!(matches!(e, OutputError::InvalidArgument(_)), "{e}");
    }

    #[test]
    fn an_unknown_name_or_another_type_is_an_error() {
        let mut f = read(&sample().to_bytes().unwrap()).unwrap();
        let e = f.take::<f32>("u32").unwrap_err().to_string();
        assert!(e.contains("array \"u32\" holds u32, not f32"), "{e}");
        // A wrong type leaves the array there for the right one.
        assert_eq!(f.take::<u32>("u32").unwrap(), U32);
        let e = f.take::<u32>("u32").unwrap_err().to_string();
        assert!(
            e.contains("no array \"u32\"") && e.contains("f32, f64"),
            "{e}"
        );
    }

    #[test]
    fn save_and_load_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ck");
        std::fs::write(&path, b"old contents").unwrap();
        sample().save(&path).unwrap();
        assert_eq!(model_of(&path).unwrap(), "toy");
        let mut f = CheckpointFile::load(&path, "toy", 3).unwrap();
        assert_eq!(f.path(), path);
        assert_eq!(f.take::<i32>("i32").unwrap(), I32);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");

        // A save that cannot happen leaves the old checkpoint as it was.
        let bad = CheckpointWriter::new("toy", 3)
            .array("a", &[1u8])
            .array("a", &[2u8]);
        assert!(bad.save(&path).is_err());
        assert!(CheckpointFile::load(&path, "toy", 3).is_ok());

        let e = CheckpointFile::load(&dir.path().join("missing.ck"), "toy", 3).unwrap_err();
        assert!(matches!(e, OutputError::Io { .. }), "{e}");
        assert!(e.to_string().contains("missing.ck"), "{e}");
    }
}
