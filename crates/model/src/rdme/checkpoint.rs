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
//! The file is a `petri_output::checkpoint` container (its module doc has the byte layout, the
//! checksum and the atomic save) of model `rdme`, format version [`VERSION`]:
//!
//! | part | content |
//! |------|---------|
//! | metadata | `step`, `seed`, `shape` (the lattice's x, y, z), `overflow_moved` (overflow particles moved so far, carried on in the observables), `config_hash` (FNV-1a 64 over the field hashes), `types_hash` (FNV-1a 64 of the site types rebuilt from the config), `fields` (a list of [config field, FNV-1a 64 of its JSON]) |
//! | `lattice` | u32, the lattice words (`Lattice::words`, four per site) |
//!
//! Loading checks the container, then the step (at most [`crate::checkpoint::MAX_STEP`]) and
//! the word count against the shape; [`Checkpoint::restore`] checks it against the config
//! (shape, seed, field hashes, site types) and every site's particles, so a corrupt, edited or
//! foreign file is an error naming the path, never a panic.

use super::config::{RdmeModel, SITE_CAPACITY};
use super::geometry;
use super::lattice::{unpack, Lattice};
use crate::checkpoint::{
    self as container, check_step, combined_hash, config_field_hashes, differing_fields,
    model_error, refuse, take,
};
use crate::error::{ModelError, Result};
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format version of the rdme part (metadata and arrays), written and read.
pub const VERSION: u32 = 1;
/// Model name in the container.
pub const MODEL: &str = "rdme";
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

/// The metadata: everything but the lattice words.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    step: u64,
    seed: u64,
    shape: [u32; 3],
    overflow_moved: u64,
    config_hash: u64,
    types_hash: u64,
    fields: Vec<(String, u64)>,
}

pub use crate::checkpoint::fnv1a;

/// Hash of each config field that shapes the run, and of the resolved hop table and reactions
/// (which also cover an SBML file's contents).
pub fn field_hashes(model: &RdmeModel) -> Vec<(String, u64)> {
    let mut out = config_field_hashes(&model.config, &UNHASHED);
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

    /// Writes the checkpoint to `path`, replacing any file there atomically and durably.
    pub fn save(&self, path: &Path) -> Result<()> {
        self.writer().save(path).map_err(model_error)
    }

    /// Reads a checkpoint written by [`Checkpoint::save`] and checks its step and word count;
    /// [`Checkpoint::restore`] checks it against the config.
    pub fn load(path: &Path) -> Result<Self> {
        Self::from_file(container::load(path, MODEL, VERSION)?)
    }

    fn writer(&self) -> CheckpointWriter<'_> {
        let header = Header {
            step: self.step,
            seed: self.seed,
            shape: self.shape,
            overflow_moved: self.overflow_moved,
            config_hash: self.config_hash,
            types_hash: self.types_hash,
            fields: self.fields.clone(),
        };
        CheckpointWriter::new(MODEL, VERSION)
            .meta(serde_json::to_value(header).expect("the header serializes"))
            .array("lattice", &self.words)
    }

    fn from_file(mut file: CheckpointFile) -> Result<Self> {
        let h: Header = container::header(&file)?;
        check_step(h.step).map_err(|m| refuse(&file, m))?;
        let words = take::<u32>(&mut file, "lattice")?;
        let sites = h.shape.iter().map(|&n| n as u64).product::<u64>();
        if words.len() as u64 != 4 * sites {
            return Err(refuse(
                &file,
                format!(
                    "{} lattice words, but the {:?} lattice needs {}",
                    words.len(),
                    h.shape,
                    4 * sites
                ),
            ));
        }
        Ok(Self {
            step: h.step,
            seed: h.seed,
            shape: h.shape,
            overflow_moved: h.overflow_moved,
            config_hash: h.config_hash,
            types_hash: h.types_hash,
            fields: h.fields,
            words,
        })
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
            let differ = differing_fields(&now, &self.fields);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::testing;
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

    fn encode(ck: &Checkpoint) -> Vec<u8> {
        ck.writer().to_bytes().unwrap()
    }

    fn decode(b: &[u8]) -> Result<Checkpoint> {
        testing::decode(b, "mem", (MODEL, VERSION), Checkpoint::from_file)
    }

    fn refused(b: &[u8]) -> String {
        testing::refused(decode(b), "mem")
    }

    #[test]
    fn round_trips_and_restores_the_lattice() {
        let (m, ck) = sample();
        let back = decode(&encode(&ck)).unwrap();
        assert_eq!(back, ck);
        assert_eq!(
            back.restore(&m, Path::new("mem")).unwrap(),
            initial_lattice(&m).unwrap()
        );
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error() {
        let (_, ck) = sample();
        let bytes = encode(&ck);
        for len in 0..bytes.len() {
            refused(&bytes[..len]);
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            refused(&b);
        }
        // Issue 22: a flipped lattice word or last byte is caught by the checksum.
        for i in [bytes.len() - 8 - 4 * ck.words.len() / 2, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[i] ^= 1;
            assert!(refused(&b).contains("checksum does not match"), "{i}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(refused(&long).contains("1 trailing bytes"));
        let mut old = b"PETRIRD1".to_vec();
        old.extend([0u8; 64]);
        assert!(
            refused(&old).contains("rdme checkpoint in the format \"PETRIRD1\" of an older Petri")
        );
    }

    /// Issue 22: a well-formed file (checksum right) with an edited step or lattice size is
    /// refused; so is another model's checkpoint, with both models named.
    #[test]
    fn edited_and_foreign_checkpoints_are_refused() {
        let (_, ck) = sample();
        let mut huge = ck.clone();
        huge.step = u64::MAX;
        let e = refused(&encode(&huge));
        assert!(
            e.contains("step 18446744073709551615 is past 4294967295"),
            "{e}"
        );
        let mut short = ck.clone();
        short.words.pop();
        assert!(refused(&encode(&short)).contains("239 lattice words"));

        // Another model's file (a container written for "angiogenesis"; models do not import
        // each other, so the container stands in for its checkpoint).
        let other = petri_output::checkpoint::CheckpointWriter::new("angiogenesis", 1)
            .to_bytes()
            .unwrap();
        let e = refused(&other);
        assert!(e.contains("model \"angiogenesis\", not of \"rdme\""), "{e}");
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
