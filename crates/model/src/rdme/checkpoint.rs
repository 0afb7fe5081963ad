//! Checkpoints of an RDME run. The lattice words and the step are the whole state: random
//! numbers are keyed by (seed, site, step), and site types follow from the config. So a run
//! resumed from a checkpoint continues bitwise as if it had never stopped.
//!
//! The file does not hold the config; resuming needs the same config file again. The file
//! holds hashes of the config fields that shape the run, so a different config is refused
//! with the fields that differ named. `steps`, `output` and `provenance` are left out of the
//! hashes: they do not change the lattice trajectory, so a run may be extended or observed
//! differently after a resume.
//!
//! Layout, little-endian:
//!
//! | bytes | content |
//! |-------|---------|
//! | 8 | magic `PETRIRD1` |
//! | 4 | u32 format version (1) |
//! | 8 | u64 step |
//! | 8 | u64 seed |
//! | 12 | u32 x 3 lattice shape |
//! | 8 | u64 overflow particles moved so far (carried on in the observables) |
//! | 8 | u64 config hash (FNV-1a 64 over the field hashes) |
//! | 8 | u64 hash of the site types rebuilt from the config |
//! | 4 | u32 number of field hashes F |
//! | F x (4 + n + 8) | u32 name length n, the name (UTF-8), u64 hash |
//! | 8 | u64 word count W (4 x sites) |
//! | 4 W | the lattice words (`Lattice::words`) |
//! | 8 | u64 FNV-1a 64 of every byte before it |
//!
//! The file is read whole and checked (magic, version, lengths, checksum, then against the
//! config), so a corrupt or truncated file is an error naming the path, never a panic. Saving
//! goes through a temporary file renamed into place, so a crash never leaves half a checkpoint.

use super::config::{RdmeModel, SITE_CAPACITY};
use super::geometry;
use super::lattice::{unpack, Lattice};
use crate::error::{ModelError, Result};
use std::path::Path;

/// First eight bytes of every RDME checkpoint.
pub const MAGIC: &[u8; 8] = b"PETRIRD1";
/// Format version written, and the only one read.
pub const VERSION: u32 = 1;
/// Longest field name accepted on load.
const MAX_NAME: usize = 256;
/// Config fields left out of the hashes (they do not change the lattice trajectory).
const UNHASHED: [&str; 3] = ["steps", "output", "provenance"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub step: u64,
    pub seed: u64,
    pub shape: [u32; 3],
    pub overflow_moved: u64,
    pub config_hash: u64,
    pub types_hash: u64,
    /// (config field, hash) pairs, to name what differs.
    pub fields: Vec<(String, u64)>,
    pub words: Vec<u32>,
}

/// FNV-1a 64: simple and stable across Rust versions (std's hasher is not).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Hash of each config field that shapes the run, and of the resolved hop table and reactions
/// (which also cover an SBML file's contents).
pub fn field_hashes(model: &RdmeModel) -> Vec<(String, u64)> {
    let value = serde_json::to_value(&model.config).expect("the config serializes");
    let mut out: Vec<(String, u64)> = value
        .as_object()
        .expect("the config serializes as an object")
        .iter()
        .filter(|(k, _)| !UNHASHED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), fnv1a(v.to_string().as_bytes())))
        .collect();
    out.push((
        "resolved hop probabilities".into(),
        fnv1a(bytemuck::cast_slice(&model.hop)),
    ));
    out.push((
        "resolved reactions".into(),
        fnv1a(bytemuck::cast_slice(&model.reactions)),
    ));
    out
}

fn combined_hash(fields: &[(String, u64)]) -> u64 {
    let mut bytes = Vec::new();
    for (name, h) in fields {
        bytes.extend(name.as_bytes());
        bytes.extend(h.to_le_bytes());
    }
    fnv1a(&bytes)
}

impl Checkpoint {
    /// The checkpoint of `lattice` at `step` of a run of `model`.
    pub fn new(model: &RdmeModel, step: u64, lattice: &Lattice, overflow_moved: u64) -> Self {
        let fields = field_hashes(model);
        Self {
            step,
            seed: model.config.seed,
            shape: lattice.shape,
            overflow_moved,
            config_hash: combined_hash(&fields),
            types_hash: fnv1a(&lattice.types),
            fields,
            words: lattice.words.clone(),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(128 + 4 * self.words.len());
        b.extend(MAGIC);
        b.extend(VERSION.to_le_bytes());
        b.extend(self.step.to_le_bytes());
        b.extend(self.seed.to_le_bytes());
        for n in self.shape {
            b.extend(n.to_le_bytes());
        }
        b.extend(self.overflow_moved.to_le_bytes());
        b.extend(self.config_hash.to_le_bytes());
        b.extend(self.types_hash.to_le_bytes());
        b.extend((self.fields.len() as u32).to_le_bytes());
        for (name, h) in &self.fields {
            b.extend((name.len() as u32).to_le_bytes());
            b.extend(name.as_bytes());
            b.extend(h.to_le_bytes());
        }
        b.extend((self.words.len() as u64).to_le_bytes());
        for w in &self.words {
            b.extend(w.to_le_bytes());
        }
        let sum = fnv1a(&b);
        b.extend(sum.to_le_bytes());
        b
    }

    /// Parses a checkpoint; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: &str) -> Result<Self> {
        let mut r = Reader { bytes, at: 0, path };
        if bytes.len() < MAGIC.len() {
            return Err(r.error(format!(
                "not an RDME checkpoint: {} bytes, too short for the magic {}",
                bytes.len(),
                MAGIC.escape_ascii()
            )));
        }
        let magic = r.take(8, "the magic")?;
        if magic == b"PETRICK1" {
            return Err(r.error("an angiogenesis checkpoint, not an RDME one".into()));
        }
        if magic != MAGIC {
            return Err(r.error(format!(
                "not an RDME checkpoint: starts with \"{}\", expected \"{}\"",
                magic.escape_ascii(),
                MAGIC.escape_ascii()
            )));
        }
        let version = r.u32("the version")?;
        if version != VERSION {
            return Err(r.error(format!(
                "format version {version} is not supported (this build reads version {VERSION})"
            )));
        }
        let step = r.u64("the step")?;
        let seed = r.u64("the seed")?;
        let shape = [
            r.u32("the shape")?,
            r.u32("the shape")?,
            r.u32("the shape")?,
        ];
        let overflow_moved = r.u64("the overflow count")?;
        let config_hash = r.u64("the config hash")?;
        let types_hash = r.u64("the site type hash")?;
        let n_fields = r.u32("the number of field hashes")?;
        let mut fields = Vec::new();
        for i in 0..n_fields {
            let len = r.u32("a field name length")? as usize;
            if len > MAX_NAME {
                return Err(r.error(format!(
                    "field name {i} is {len} bytes long, over {MAX_NAME}"
                )));
            }
            let name = std::str::from_utf8(r.take(len, "a field name")?)
                .map_err(|_| r.error(format!("field name {i} is not UTF-8")))?
                .to_string();
            fields.push((name, r.u64("a field hash")?));
        }
        let n_words = r.u64("the word count")?;
        // Checked before allocating, so a corrupt count cannot ask for terabytes.
        let need = n_words.saturating_mul(4).saturating_add(8);
        if need > r.left() as u64 {
            return Err(r.truncated("the lattice words and the checksum", need));
        }
        let words: Vec<u32> = r
            .take(4 * n_words as usize, "the lattice words")?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let body = r.at;
        let sum = r.u64("the checksum")?;
        if r.left() > 0 {
            return Err(r.error(format!("{} trailing bytes after the checksum", r.left())));
        }
        if sum != fnv1a(&bytes[..body]) {
            return Err(r.error("the checksum does not match: the file is corrupt".into()));
        }
        let sites = shape.iter().map(|&n| n as u64).product::<u64>();
        if n_words != 4 * sites {
            return Err(r.error(format!(
                "{n_words} lattice words, but the {shape:?} lattice needs {}",
                4 * sites
            )));
        }
        Ok(Self {
            step,
            seed,
            shape,
            overflow_moved,
            config_hash,
            types_hash,
            fields,
            words,
        })
    }

    /// Writes the checkpoint through a temporary file in the same folder, renamed into place.
    pub fn save(&self, path: &Path) -> Result<()> {
        let io = |p: &Path| {
            let p = p.display().to_string();
            move |source| ModelError::Io { path: p, source }
        };
        let name = path.file_name().ok_or_else(|| ModelError::Checkpoint {
            path: path.display().to_string(),
            message: "the path does not name a file".into(),
        })?;
        let tmp = path.with_file_name(format!(
            ".{}.tmp-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let written = std::fs::write(&tmp, self.to_bytes())
            .map_err(io(&tmp))
            .and_then(|()| std::fs::rename(&tmp, path).map_err(io(path)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_bytes(&bytes, &path.display().to_string())
    }

    /// The lattice to resume `model` from, after checking that the checkpoint belongs to a
    /// run of this config. `path` names the checkpoint in errors.
    pub fn restore(&self, model: &RdmeModel, path: &Path) -> Result<Lattice> {
        let error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        let cfg = &model.config;
        if self.shape != cfg.lattice.shape {
            return Err(error(format!(
                "the checkpoint's lattice is {:?}, the config's lattice.shape is {:?}",
                self.shape, cfg.lattice.shape
            )));
        }
        if self.seed != cfg.seed {
            return Err(error(format!(
                "the checkpoint has seed {}, the config seed {}",
                self.seed, cfg.seed
            )));
        }
        let now = field_hashes(model);
        if combined_hash(&now) != self.config_hash {
            // Fields in one list and not (with the same hash) in the other.
            let missing = |a: &[(String, u64)], b: &[(String, u64)]| -> Vec<String> {
                a.iter()
                    .filter(|f| !b.contains(f))
                    .map(|f| f.0.clone())
                    .collect()
            };
            let mut differ = missing(&now, &self.fields);
            for name in missing(&self.fields, &now) {
                if !differ.contains(&name) {
                    differ.push(name);
                }
            }
            return Err(error(format!(
                "the config differs from the one the checkpoint was written with, in: {}",
                differ.join(", ")
            )));
        }
        let types = geometry::site_types(cfg);
        if fnv1a(&types) != self.types_hash {
            return Err(error(
                "the site types built from the config's geometry differ from the checkpoint's \
                 (written by another Petri version?)"
                    .into(),
            ));
        }
        let mut lattice = Lattice::empty(self.shape, types);
        lattice.words = self.words.clone();
        let n_species = cfg.species.len() as u8;
        for i in 0..lattice.sites() {
            let site = lattice.site(i);
            let particles = unpack(site);
            // Particles sit packed from slot 0 with known ids; anything else is corruption.
            let bad_id = particles.iter().find(|&&s| s > n_species);
            let gap = super::lattice::pack(&particles) != site;
            if bad_id.is_some() || gap {
                return Err(error(format!(
                    "site {i} holds {site:?}: not {SITE_CAPACITY} slots of species ids 1..={n_species} \
                     packed from the first"
                )));
            }
        }
        Ok(lattice)
    }
}

/// Reads from a byte slice; running out of bytes is a format error, never a panic.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a str,
}

impl<'a> Reader<'a> {
    fn error(&self, message: String) -> ModelError {
        ModelError::Checkpoint {
            path: self.path.to_string(),
            message,
        }
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn truncated(&self, what: &str, need: u64) -> ModelError {
        self.error(format!(
            "truncated: {what} needs {need} bytes at byte {}, only {} are left",
            self.at,
            self.left()
        ))
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.left() {
            return Err(self.truncated(what, n as u64));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdme::lattice::initial_lattice;
    use crate::rdme::RdmeConfig;

    fn model(seed: u64) -> RdmeModel {
        let cfg: RdmeConfig = serde_json::from_value(serde_json::json!({
            "model": "rdme",
            "lattice": { "shape": [4, 3, 5], "spacing_m": 1e-8 },
            "tau_s": 1e-5, "steps": 10, "seed": seed,
            "site_types": ["out", "in"],
            "geometry": [{ "box": { "min_m": [1e-8, 0.0, 0.0], "max_m": [3e-8, 3e-8, 5e-8], "site_type": "in" } }],
            "species": ["A", "B"],
            "diffusion": [{ "species": ["A"], "from": ["in"], "to": ["in"], "d_m2_per_s": 1e-12 }],
            "reactions": [{ "reactants": ["A"], "products": ["B"], "rate": 1.0, "units": "1/s" }],
            "initial": [{ "species": "A", "count": 30, "site_types": ["in"] }]
        }))
        .unwrap();
        cfg.resolve(Path::new(".")).unwrap()
    }

    fn sample() -> (RdmeModel, Checkpoint) {
        let m = model(3);
        let lat = initial_lattice(&m).unwrap();
        let ck = Checkpoint::new(&m, 77, &lat, 5);
        (m, ck)
    }

    #[test]
    fn round_trips_and_restores_the_lattice() {
        let (m, ck) = sample();
        let back = Checkpoint::from_bytes(&ck.to_bytes(), "mem").unwrap();
        assert_eq!(back, ck);
        assert_eq!(
            back.restore(&m, Path::new("mem")).unwrap(),
            initial_lattice(&m).unwrap()
        );
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error() {
        let (_, ck) = sample();
        let bytes = ck.to_bytes();
        for len in 0..bytes.len() {
            let e = Checkpoint::from_bytes(&bytes[..len], "mem").unwrap_err();
            assert!(matches!(e, ModelError::Checkpoint { .. }), "{len}: {e}");
        }
        for i in (0..bytes.len()).step_by(7) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            let e = Checkpoint::from_bytes(&b, "mem").unwrap_err().to_string();
            assert!(e.starts_with("checkpoint mem: "), "{i}: {e}");
        }
        let mut long = bytes.clone();
        long.push(0);
        let e = Checkpoint::from_bytes(&long, "mem")
            .unwrap_err()
            .to_string();
        assert!(e.contains("1 trailing bytes"), "{e}");
        let mut huge = bytes.clone();
        let at = bytes.len() - 8 - 4 * ck.words.len() - 8;
        huge[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = Checkpoint::from_bytes(&huge, "mem")
            .unwrap_err()
            .to_string();
        assert!(e.contains("truncated"), "{e}");
        let e = Checkpoint::from_bytes(b"PETRICK1 and more", "mem")
            .unwrap_err()
            .to_string();
        assert!(e.contains("angiogenesis checkpoint"), "{e}");
    }

    #[test]
    fn a_different_config_is_refused_with_the_field_named() {
        let (_, ck) = sample();
        let e = ck
            .restore(&model(4), Path::new("mem"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("seed 3") && e.contains("seed 4"), "{e}");
        let mut cfg = model(3).config;
        cfg.reactions[0].rate = 2.0;
        cfg.steps = 99; // not hashed: a run may be extended
        cfg.output.observe_every = 7;
        let e = ck
            .restore(&cfg.resolve(Path::new(".")).unwrap(), Path::new("mem"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("in: reactions, resolved reactions"), "{e}");
        let mut bad = ck.clone();
        bad.words[0] = 0x0300_0001; // ids 1 and 3: 3 is no species, and slot 1 is empty
        let e = bad
            .restore(&model(3), Path::new("mem"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("site 0 holds"), "{e}");
    }
}
