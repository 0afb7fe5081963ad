//! Checkpoints of an epidermis run: the whole [`EpidermisState`] (element slots, counts, gene
//! values, step, division and growth counters). Nothing else carries over from one step to the
//! next: the random numbers (initial state only) are keyed by the seed, the neighbour grids, the
//! centres, the neighbour sums and the active-slot list are rebuilt from the state every step (or
//! when the simulation is made again). So resuming gives bitwise the same run as not stopping,
//! on the same adapter.
//!
//! The file does not hold the config; resuming needs the same config file again. It holds
//! hashes of the config fields that shape the run, so a different config is refused with the
//! fields that differ named. `steps`, the output periods, `output` and `provenance` are left out:
//! they do not change the trajectory, so a run may be extended or observed differently.
//!
//! The file is a `petri_output::checkpoint` container of model `epidermis`, format version
//! [`VERSION`]:
//!
//! | part | content |
//! |------|---------|
//! | metadata | `step`, `max_cells`, `cells`, `divisions`, `added`, `config_hash` (FNV-1a 64 over the field hashes), `fields` (a list of [config field, FNV-1a 64 of its JSON]) |
//! | `counts` | u32, elements per cell, `max_cells` entries |
//! | `pos` | f32, four per element slot (x, y, z, type), `max_cells * MAX_ELEMENTS` slots |
//! | `genes` | f32, `SPECIES` per cell, `max_cells` cells |
//!
//! Loading checks the container, the step (at most [`crate::checkpoint::MAX_STEP`]), the array
//! lengths against `max_cells`, `cells <= max_cells`, every cell's count (1..=`MAX_ELEMENTS` in
//! use, 0 past `cells`), every element in use (finite, type adhesive or plain, z >= 0) and every
//! gene value in use (finite, >= 0). [`Checkpoint::restore`] checks it against the config's
//! hashes and [`check_meaning`] against the config's values (positions in the box, counters
//! against the initial tissue). So a corrupt, edited or foreign file is an error naming the
//! path, never a panic.

use super::init::initial_count;
use super::params::EpidermisConfig;
use super::state::{EpidermisState, ADHESIVE, MAX_ELEMENTS, PLAIN, SPECIES};
use crate::checkpoint::{
    self as container, check_step, combined_hash, config_field_hashes, differing_fields,
    model_error, refuse, take,
};
use crate::error::{short, ModelError, Result};
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format version of the epidermis part (metadata and arrays), written and read.
pub const VERSION: u32 = 1;
/// Model name in the container.
pub const MODEL: &str = "epidermis";
/// A resumable snapshot of an epidermis run.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// (config field, hash) pairs of the run's config, to name what differs.
    pub fields: Vec<(String, u64)>,
    pub state: EpidermisState,
}

/// The metadata: everything but the arrays.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    step: u64,
    max_cells: u32,
    cells: u32,
    divisions: u32,
    added: u32,
    config_hash: u64,
    fields: Vec<(String, u64)>,
}

/// The hashes of the config fields that shape a run (all but the run settings, `crate::checkpoint::RUN_SETTINGS`).
pub fn config_hashes(config: &impl Serialize) -> Vec<(String, u64)> {
    config_field_hashes(config, &crate::checkpoint::RUN_SETTINGS)
}

impl Checkpoint {
    /// The checkpoint of `state` in a run of the config whose hashes are `fields`
    /// ([`config_hashes`]).
    pub fn new(fields: Vec<(String, u64)>, state: EpidermisState) -> Self {
        Self { fields, state }
    }

    /// Writes the checkpoint to `path`, replacing any file there atomically and durably.
    pub fn save(&self, path: &Path) -> Result<()> {
        check_state(&self.state).map_err(|message| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        })?;
        self.writer().save(path).map_err(model_error)
    }

    /// Reads a checkpoint written by [`Checkpoint::save`] and checks its state;
    /// [`Checkpoint::restore`] checks it against the config.
    pub fn load(path: &Path) -> Result<Self> {
        Self::from_file(container::load(path, MODEL, VERSION)?)
    }

    fn writer(&self) -> CheckpointWriter<'_> {
        let s = &self.state;
        let header = Header {
            step: s.step,
            max_cells: s.max_cells,
            cells: s.cells,
            divisions: s.divisions,
            added: s.added,
            config_hash: combined_hash(&self.fields),
            fields: self.fields.clone(),
        };
        CheckpointWriter::new(MODEL, VERSION)
            .meta(serde_json::to_value(header).expect("the header serializes"))
            .array("counts", &s.counts)
            .array::<f32>("pos", bytemuck::cast_slice(&s.pos))
            .array::<f32>("genes", bytemuck::cast_slice(&s.genes))
    }

    fn from_file(mut file: CheckpointFile) -> Result<Self> {
        let h: Header = container::header(&file)?;
        if combined_hash(&h.fields) != h.config_hash {
            return Err(refuse(
                &file,
                "config_hash does not match the field hashes".into(),
            ));
        }
        let counts = take::<u32>(&mut file, "counts")?;
        let pos = take::<f32>(&mut file, "pos")?;
        let genes = take::<f32>(&mut file, "genes")?;
        let m = h.max_cells as usize;
        for (name, len, per_cell) in [
            ("counts", counts.len(), 1),
            ("pos", pos.len(), 4 * MAX_ELEMENTS),
            ("genes", genes.len(), SPECIES),
        ] {
            if Some(len) != m.checked_mul(per_cell) {
                return Err(refuse(
                    &file,
                    format!(
                        "{name} holds {len} numbers, max_cells = {} needs {per_cell} per cell",
                        h.max_cells
                    ),
                ));
            }
        }
        let state = EpidermisState {
            step: h.step,
            max_cells: h.max_cells,
            cells: h.cells,
            counts,
            pos: pos
                .chunks_exact(4)
                .map(|p| [p[0], p[1], p[2], p[3]])
                .collect(),
            genes: genes
                .chunks_exact(SPECIES)
                .map(|g| g.try_into().expect("SPECIES values"))
                .collect(),
            divisions: h.divisions,
            added: h.added,
        };
        check_state(&state).map_err(|m| refuse(&file, m))?;
        Ok(Self {
            fields: h.fields,
            state,
        })
    }

    /// The state to resume from, after checking that the checkpoint belongs to a run of the
    /// config with hashes `fields` ([`config_hashes`]) and capacity `max_cells`. `path` names
    /// the checkpoint in errors.
    pub fn restore(
        self,
        fields: &[(String, u64)],
        max_cells: u32,
        path: &Path,
    ) -> Result<EpidermisState> {
        let error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        if combined_hash(fields) != combined_hash(&self.fields) {
            return Err(error(format!(
                "the config differs from the one the checkpoint was written with, in: {}",
                differing_fields(fields, &self.fields).join(", ")
            )));
        }
        if self.state.max_cells != max_cells {
            return Err(error(format!(
                "the checkpoint holds room for {} cells, the config's capacity.max_cells is \
                 {max_cells}",
                self.state.max_cells
            )));
        }
        Ok(self.state)
    }
}

/// A restored state checked for meaning against the config it resumes (after
/// [`Checkpoint::restore`]): every element in use inside the box (x in [0, box.lx), y in
/// [0, box.ly)) and below the tallest tissue the elements can make (`box.height` plus one
/// longest interaction range per element in use: a column of every element, each within reach
/// of the next), and the counters consistent with the initial tissue (cells = initial cells +
/// divisions, elements = initial elements + added: division conserves elements, nothing
/// removes cells). `path` names the checkpoint in errors.
pub fn check_meaning(cfg: &EpidermisConfig, s: &EpidermisState, path: &Path) -> Result<()> {
    let error = |message: String| ModelError::Checkpoint {
        path: path.display().to_string(),
        message,
    };
    let (lx, ly) = (cfg.domain.lx as f32, cfg.domain.ly as f32);
    let m = &cfg.mechanics;
    let reach = m.intra_cutoff.min(1e6).max(m.inter.cutoff);
    let top = cfg.domain.height + s.elements() as f64 * reach;
    for c in 0..s.cells as usize {
        for slot in s.slots(c) {
            let p = s.pos[slot];
            if !((0.0..lx).contains(&p[0]) && (0.0..ly).contains(&p[1]) && p[2] as f64 <= top) {
                return Err(error(format!(
                    "element slot {slot} of cell {c} is at ({}, {}, {}): outside the box \
                     [0, {lx}) x [0, {ly}) of box.lx, box.ly, or above z = {} (box.height + \
                     {} elements x the longest interaction range {reach})",
                    short(p[0] as f64),
                    short(p[1] as f64),
                    short(p[2] as f64),
                    short(top),
                    s.elements()
                )));
            }
        }
    }
    let initial_cells = cfg.initial_cells();
    if s.cells as u64 != initial_cells + s.divisions as u64 {
        return Err(error(format!(
            "{} cells after {} divisions, but the config starts with {initial_cells} \
             (initial.cells_x x initial.cells_y)",
            s.cells, s.divisions
        )));
    }
    let initial: u64 = (0..initial_cells as usize)
        .map(|c| initial_count(cfg, c) as u64)
        .sum();
    if s.elements() != initial + s.added as u64 {
        return Err(error(format!(
            "{} elements after {} added by growth, but the config starts with {initial}",
            s.elements(),
            s.added
        )));
    }
    Ok(())
}

/// Consistency of a state; the message says what is wrong.
fn check_state(s: &EpidermisState) -> std::result::Result<(), String> {
    check_step(s.step)?;
    if s.cells > s.max_cells {
        return Err(format!(
            "{} cells do not fit max_cells = {}",
            s.cells, s.max_cells
        ));
    }
    for (c, &n) in s.counts.iter().enumerate() {
        let used = c < s.cells as usize;
        if (used && !(1..=MAX_ELEMENTS as u32).contains(&n)) || (!used && n != 0) {
            return Err(format!(
                "cell {c} has {n} elements; a cell in use ({} cells) has 1 to {MAX_ELEMENTS}, \
                 one past them none",
                s.cells
            ));
        }
    }
    for c in 0..s.cells as usize {
        for slot in s.slots(c) {
            let p = s.pos[slot];
            if !p.iter().all(|v| v.is_finite()) || p[2] < 0.0 || (p[3] != ADHESIVE && p[3] != PLAIN)
            {
                return Err(format!(
                    "element slot {slot} of cell {c} is {p:?}: not a finite position with z >= 0 \
                     and type {ADHESIVE} (adhesive) or {PLAIN} (plain)"
                ));
            }
        }
        if let Some(k) = s.genes[c]
            .iter()
            .position(|g| !(g.is_finite() && *g >= 0.0))
        {
            return Err(format!(
                "gene value {k} of cell {c} is {}: not a finite number >= 0",
                s.genes[c][k]
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::testing;

    fn sample() -> Checkpoint {
        let mut s = EpidermisState::empty(3);
        s.cells = 2;
        s.step = 4001;
        s.divisions = 1;
        s.added = 20;
        for c in 0..2 {
            s.counts[c] = 20 + c as u32;
            for k in s.slots(c) {
                let t = if k % MAX_ELEMENTS < 3 {
                    ADHESIVE
                } else {
                    PLAIN
                };
                s.pos[k] = [k as f32 * 0.1, 0.3, 0.01 * (k % 7) as f32, t];
            }
            s.genes[c] = [0.5, 0.25, f32::from_bits(1), 1.0, 2.0, 3.0, 0.125, 0.0];
        }
        let fields = vec![("box".to_string(), 7), ("seed".to_string(), 9)];
        Checkpoint::new(fields, s)
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
    fn round_trips_bitwise() {
        let ck = sample();
        let back = decode(&encode(&ck)).unwrap();
        assert_eq!(back, ck);
        let bits = |s: &EpidermisState| -> Vec<u32> {
            s.pos
                .iter()
                .flatten()
                .chain(s.genes.iter().flatten())
                .map(|v| v.to_bits())
                .collect()
        };
        assert_eq!(bits(&back.state), bits(&ck.state));
        let fields = ck.fields.clone();
        assert_eq!(
            back.restore(&fields, 3, Path::new("mem")).unwrap(),
            ck.state
        );
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error() {
        let bytes = encode(&sample());
        for len in (0..bytes.len()).step_by(7) {
            refused(&bytes[..len]);
        }
        for i in (0..bytes.len()).step_by(5) {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            refused(&b);
        }
    }

    /// A well-formed file (checksum right) with an impossible state is refused, saying what.
    #[test]
    fn edited_states_are_refused_with_the_reason() {
        let edit = |f: &dyn Fn(&mut EpidermisState)| {
            let mut ck = sample();
            f(&mut ck.state);
            refused(&encode(&ck))
        };
        assert!(edit(&|s| s.cells = 4).contains("4 cells do not fit max_cells = 3"));
        assert!(edit(&|s| s.counts[1] = 41).contains("cell 1 has 41 elements"));
        assert!(edit(&|s| s.counts[2] = 1).contains("cell 2 has 1 elements"));
        assert!(edit(&|s| s.pos[3][0] = f32::NAN).contains("element slot 3 of cell 0"));
        assert!(edit(&|s| s.pos[41][3] = 2.0).contains("element slot 41 of cell 1"));
        assert!(edit(&|s| s.genes[1][4] = -1.0).contains("gene value 4 of cell 1"));
        assert!(edit(&|s| s.step = u64::MAX).contains("is past 4294967295"));
        let mut short = sample();
        short.state.genes.pop();
        assert!(refused(&encode(&short)).contains("genes holds 16 numbers"));
        let other = CheckpointWriter::new("rdme", 1).to_bytes().unwrap();
        assert!(refused(&other).contains("model \"rdme\", not of \"epidermis\""));
    }

    #[test]
    fn another_config_is_refused_with_the_fields_named() {
        let ck = sample();
        let fields = vec![("box".to_string(), 8), ("seed".to_string(), 9)];
        let e = ck
            .clone()
            .restore(&fields, 3, Path::new("mem"))
            .unwrap_err();
        assert!(e.to_string().ends_with("in: box"), "{e}");
        let e = ck
            .clone()
            .restore(&ck.fields, 4, Path::new("mem"))
            .unwrap_err();
        assert!(e.to_string().contains("capacity.max_cells is 4"), "{e}");
        // Fields left out of the hashes do not change them.
        let a = config_hashes(&serde_json::json!({"seed": 1, "steps": 10, "output": {"x": 1}}));
        let b = config_hashes(&serde_json::json!({"seed": 1, "steps": 99, "output": {"x": 2}}));
        assert_eq!(a, b);
        assert_eq!(a.len(), 1);
    }
}
