//! Checkpoints of an angiogenesis run: everything needed to carry on from a step as if the run
//! had never stopped.
//!
//! A checkpoint holds the config, the time step k and the whole [`AngioState`]: the fields n, f
//! and c, the occupancy of every grid node, the tip table, the vessel segments (sorted as
//! [`AngioSim::read_state`] returns them), the GPU counters and the step number. Nothing else
//! carries over from one step to the next on the GPU: the random numbers are drawn from a
//! counter-based generator keyed by the seed (in the config) and the step, the ping-pong half of
//! the fields follows from the step's parity, the branch flags are cleared within every step, and
//! the field update's occupancy bits are rebuilt from `occ` when the run is made again.
//! So resuming from a checkpoint gives bitwise the same run as not stopping, on the same adapter
//! (a different adapter may round the field update differently, as for any run).
//!
//! The file is a `petri_output::checkpoint` container (its module doc has the byte layout, the
//! checksum and the atomic save) of model `angiogenesis`, format version [`VERSION`]:
//!
//! | part | content |
//! |------|---------|
//! | metadata | `config`, `k`, `step`, `counters` (the [`COUNTERS`] GPU counters), `exact_f64` |
//! | `n`, `f`, `c` | f32, one per grid node |
//! | `occ` | u32, one per grid node |
//! | `tips.site`, `tips.age`, `tips.alive`, `tips.parent` | u32, f32, u32, u32: the columns of the tip table ([`Tip`]) |
//! | `segments` | u32, four per vessel segment: from, to, sprout, step |
//!
//! `exact_f64` maps the JSON pointer of every floating-point number in the metadata (k, the
//! config's coefficients, ...) to its IEEE-754 bit pattern: serde_json's default parser may read
//! a printed double back one ulp off, which would break the bitwise resume. A hand edit of a
//! number in the metadata that disagrees with its exact bits is refused on load.
//!
//! On load (and before a save) the checkpoint is checked as a config is: the config validates,
//! k is within the stability bound the run started with ([`AngioConfig::stability_bound`] over
//! the config's initial fields, which is what [`AngioSim::new`] derives k from), the step is one
//! a run can reach ([`crate::checkpoint::MAX_STEP`]), every array has the length the grid and
//! the counters give, every tip sits on the grid, every segment joins grid nodes at a step up
//! to the checkpoint's, and the fields are finite. So an edited but well-formed file (a k of
//! 1000, a step of 2^64 - 1, a segment to node 99,999,999) is refused with a message, as is a
//! corrupt one.

use super::params::AngioConfig;
use super::sim::{AngioSim, SimOptions};
use super::state::{AngioState, Counter, Tip, COUNTERS};
use super::AngioUniforms;
use crate::checkpoint::{self as container, check_step, model_error, refuse, take};
use crate::error::{ModelError, Result};
use petri_engine::GpuContext;
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Format version of the angiogenesis part (metadata and arrays), written and read. Version 2:
/// the branching rule (per-psi hazard, density condition) and family anastomosis changed what a
/// state continues into, so version 1 checkpoints are refused rather than resumed under new rules.
/// Version 3: the config carries `coupling`, whose default is the discrete model; a version 2
/// file (a continuous run, without the field) would resume as a discrete one, so it is refused.
pub const VERSION: u32 = 3;
/// Model name in the container.
pub const MODEL: &str = "angiogenesis";

/// A resumable snapshot of an angiogenesis run.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub config: AngioConfig,
    /// Time step k.
    pub k: f64,
    pub state: AngioState,
}

/// The metadata, less `exact_f64` (added and applied on the untyped value).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    config: Value,
    k: f64,
    step: u64,
    counters: [u32; COUNTERS],
}

/// The tip table as one array per field, so each keeps its element type in the file.
#[derive(Default)]
struct TipColumns {
    site: Vec<u32>,
    age: Vec<f32>,
    alive: Vec<u32>,
    parent: Vec<u32>,
}

impl TipColumns {
    fn of(tips: &[Tip]) -> TipColumns {
        let mut columns = TipColumns::default();
        for t in tips {
            columns.site.push(t.site);
            columns.age.push(t.age);
            columns.alive.push(t.alive);
            columns.parent.push(t.parent);
        }
        columns
    }

    /// `writer` with the columns added as `tips.site`, `tips.age`, ...
    fn write<'a>(&'a self, writer: CheckpointWriter<'a>) -> CheckpointWriter<'a> {
        writer
            .array("tips.site", &self.site)
            .array("tips.age", &self.age)
            .array("tips.alive", &self.alive)
            .array("tips.parent", &self.parent)
    }

    /// The columns taken out of `file`, refused unless they have one length.
    fn take(file: &mut CheckpointFile) -> Result<Vec<Tip>> {
        let (site, age) = (
            take::<u32>(file, "tips.site")?,
            take::<f32>(file, "tips.age")?,
        );
        let (alive, parent) = (take::<u32>(file, "tips.alive")?, take(file, "tips.parent")?);
        if [age.len(), alive.len(), parent.len()] != [site.len(); 3] {
            return Err(refuse(
                file,
                format!(
                    "the tip columns differ in length: {} sites, {} ages, {} alive flags, {} parents",
                    site.len(),
                    age.len(),
                    alive.len(),
                    parent.len()
                ),
            ));
        }
        Ok((0..site.len())
            .map(|i| Tip {
                site: site[i],
                age: age[i],
                alive: alive[i],
                parent: parent[i],
            })
            .collect())
    }
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

    /// Writes the checkpoint to `path`, replacing any file there atomically and durably.
    pub fn save(&self, path: &Path) -> Result<()> {
        let format_error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        self.check().map_err(format_error)?;
        self.encode(|w| w.save(path))
            .map_err(format_error)?
            .map_err(model_error)
    }

    /// Reads and checks a checkpoint written by [`Checkpoint::save`].
    pub fn load(path: &Path) -> Result<Checkpoint> {
        Self::from_file(container::load(path, MODEL, VERSION)?)
    }

    /// The container of this checkpoint, handed to `use_it` (the tip columns live only as long
    /// as the call). Does not check the checkpoint.
    fn encode<R>(
        &self,
        use_it: impl FnOnce(CheckpointWriter<'_>) -> R,
    ) -> std::result::Result<R, String> {
        let s = &self.state;
        let tips = TipColumns::of(&s.tips);
        let writer = CheckpointWriter::new(MODEL, VERSION)
            .meta(self.header()?)
            .array("n", &s.n)
            .array("f", &s.f)
            .array("c", &s.c)
            .array("occ", &s.occ);
        let writer = tips
            .write(writer)
            .array::<u32>("segments", bytemuck::cast_slice(&s.segments));
        Ok(use_it(writer))
    }

    /// The checkpoint in a container read back; checked as a config is (see the module doc).
    fn from_file(mut file: CheckpointFile) -> Result<Checkpoint> {
        let mut value = file.meta().clone();
        let exact: BTreeMap<String, u64> =
            match value.as_object_mut().and_then(|m| m.remove("exact_f64")) {
                Some(v) => serde_json::from_value(v)
                    .map_err(|e| refuse(&file, format!("metadata field exact_f64: {e}")))?,
                None => BTreeMap::new(),
            };
        apply_exact_floats(&mut value, &exact).map_err(|m| refuse(&file, m))?;
        let header: Header = serde_json::from_value(value)
            .map_err(|e| refuse(&file, format!("the metadata does not parse: {e}")))?;
        let config: AngioConfig = serde_json::from_value(header.config)
            .map_err(|e| refuse(&file, format!("the metadata's config does not parse: {e}")))?;
        let (occ, segments) = (take::<u32>(&mut file, "occ")?, take(&mut file, "segments")?);
        let tips = TipColumns::take(&mut file)?;
        let (n, f, c) = (
            take::<f32>(&mut file, "n")?,
            take(&mut file, "f")?,
            take(&mut file, "c")?,
        );
        if segments.len() % 4 != 0 {
            return Err(refuse(
                &file,
                format!(
                    "segments holds {} numbers, not four per segment",
                    segments.len()
                ),
            ));
        }
        let mut checkpoint = Checkpoint {
            config,
            k: header.k,
            state: AngioState {
                n,
                f,
                c,
                occ,
                tips,
                segments: segments
                    .chunks_exact(4)
                    .map(|s| [s[0], s[1], s[2], s[3]])
                    .collect(),
                counters: header.counters,
                step: header.step,
            },
        };
        checkpoint.check().map_err(|m| refuse(&file, m))?;
        // The occupied-site count follows from the occupancy (files before the counter hold 0).
        checkpoint.state.counters[Counter::Occupied as usize] = checkpoint.state.occupied_sites();
        Ok(checkpoint)
    }

    /// Consistency of config, k and state; the message says what is wrong.
    fn check(&self) -> std::result::Result<(), String> {
        let (cfg, s) = (&self.config, &self.state);
        cfg.validate().map_err(|e| format!("the config: {e}"))?;
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
        if !(self.k.is_finite() && self.k > 0.0) {
            return Err(format!("k = {} is not a finite number > 0", self.k));
        }
        let u0 = AngioUniforms::new(cfg, 0.0);
        let bound = cfg.stability_bound(AngioState::initial(cfg, &u0).max_taxis_speed_sq(cfg, &u0));
        if self.k > bound {
            return Err(format!(
                "k = {:e} is over the stability bound {bound:e} of this config (min(h^2/(6D), \
                 D/max|v|^2) over its initial fields): the run would blow up",
                self.k
            ));
        }
        check_step(s.step)?;
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
        // Segments are drawn from node to node (vessels.vtp) and sorted by their step.
        if let Some((i, g)) =
            s.segments.iter().enumerate().find(|(_, g)| {
                g[0] as usize >= cells || g[1] as usize >= cells || g[3] as u64 > s.step
            })
        {
            return Err(format!(
                "segment {i} runs from node {} to node {} at step {}: a segment joins nodes of \
                 the grid of {cells} nodes at a step up to the checkpoint's {}",
                g[0], g[1], g[3], s.step
            ));
        }
        for (name, field) in [("n", &s.n), ("f", &s.f), ("c", &s.c)] {
            if let Some(i) = field.iter().position(|v| !v.is_finite()) {
                return Err(format!("{name} at node {i} is {}: not finite", field[i]));
            }
        }
        Ok(())
    }

    /// The metadata with the exact bits of its floating-point numbers.
    fn header(&self) -> std::result::Result<Value, String> {
        let header = Header {
            config: serde_json::to_value(&self.config).map_err(|e| e.to_string())?,
            k: self.k,
            step: self.state.step,
            counters: self.state.counters,
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
        Ok(value)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::angiogenesis::params::InitialTips;
    use crate::angiogenesis::state::FREE;
    use crate::checkpoint::testing;

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

    /// The file's bytes, whether or not the checkpoint would pass its checks (so tests can
    /// write edited but well-formed files, checksum and all).
    fn encode(ck: &Checkpoint) -> Vec<u8> {
        ck.encode(|w| w.to_bytes()).unwrap().unwrap()
    }

    fn load_bytes(b: &[u8]) -> Result<Checkpoint> {
        testing::decode(b, "mem.ck", (MODEL, VERSION), Checkpoint::from_file)
    }

    fn refused(b: &[u8]) -> String {
        testing::refused(load_bytes(b), "mem.ck")
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

    /// The occupied-site counter follows from the occupancy on load: a file written before the
    /// counter (0 there) resumes with the sites counted.
    #[test]
    fn the_occupied_site_count_is_taken_from_the_occupancy() {
        let mut ck = small();
        let sites = ck.state.occupied_sites();
        assert_eq!(ck.state.counter(Counter::Occupied), sites);
        assert_eq!(sites, 2);
        ck.state.counters[Counter::Occupied as usize] = 0;
        let back = load_bytes(&encode(&ck)).unwrap();
        assert_eq!(back.state.counter(Counter::Occupied), sites);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode(&small());
        for len in 0..bytes.len() {
            refused(&bytes[..len]);
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(refused(&long).contains("1 trailing bytes"));
    }

    /// Issue 22: flipped bytes in the f field, or in the last byte, used to resume silently.
    #[test]
    fn flipped_bytes_are_caught_by_the_checksum() {
        let ck = small();
        let bytes = encode(&ck);
        // The f array's entry: name length 1, "f", element type 5 (f32), element count.
        let mut entry = 1u32.to_le_bytes().to_vec();
        entry.extend(b"f\x05");
        entry.extend((ck.state.f.len() as u64).to_le_bytes());
        let at = bytes
            .windows(entry.len())
            .position(|w| w == entry)
            .expect("the f array is in the file")
            + entry.len();
        let mut flipped = bytes.clone();
        flipped[at..at + 64].iter_mut().for_each(|b| *b ^= 0x5a);
        assert!(refused(&flipped).contains("checksum does not match"));
        let mut last = bytes.clone();
        *last.last_mut().unwrap() ^= 1;
        assert!(refused(&last).contains("checksum does not match"));
    }

    /// Issue 22: well-formed files (checksum and exact bits right) with an edited k or step are
    /// refused by the checks a config gets.
    #[test]
    fn edited_k_and_step_are_refused() {
        let mut ck = small();
        ck.k = 1000.0;
        let e = refused(&encode(&ck));
        assert!(e.contains("k = 1e3 is over the stability bound"), "{e}");
        let mut ck = small();
        ck.state.step = u64::MAX;
        let e = refused(&encode(&ck));
        assert!(
            e.contains("step 18446744073709551615 is past 4294967295"),
            "{e}"
        );
        let mut ck = small();
        ck.state.step = crate::checkpoint::MAX_STEP;
        assert_eq!(
            load_bytes(&encode(&ck)).unwrap().state.step,
            u32::MAX as u64
        );
    }

    /// Issue 43: a well-formed file whose segment points past the grid (it would be written
    /// into vessels.vtp), or whose field is not finite, is refused.
    #[test]
    fn edited_segments_and_fields_are_refused() {
        let mut ck = small();
        ck.state.segments[1][1] = 99_999_999;
        let e = refused(&encode(&ck));
        assert!(
            e.contains("segment 1 runs from node 7 to node 99999999 at step 4"),
            "{e}"
        );
        let mut ck = small();
        ck.state.segments[2][3] = 7;
        let e = refused(&encode(&ck));
        assert!(e.contains("at step 7: a segment"), "{e}");
        let mut ck = small();
        ck.state.c[3] = f32::INFINITY;
        let e = refused(&encode(&ck));
        assert!(e.contains("c at node 3 is inf: not finite"), "{e}");
    }

    #[test]
    fn edited_metadata_is_refused() {
        let ck = small();
        let meta = ck.header().unwrap();
        // (JSON pointer, new value, what the message says); "/extra" is a field added.
        let cases = [
            ("/config/D", serde_json::json!(0.5), "exact bits"),
            ("/step", "six".into(), "does not parse"),
            ("/counters/0", 1.into(), "tip counter"),
            ("/config/grid/0", 7.into(), "n has 120 values"),
            ("/config/dt_safety", 2.into(), "dt_safety"),
            ("/extra", 1.into(), "unknown field"),
        ];
        for (pointer, value, want) in cases {
            let mut m = meta.clone();
            match m.pointer_mut(pointer) {
                Some(slot) => *slot = value,
                None => m[&pointer[1..]] = value,
            }
            let e = refused(&ck.encode(|w| w.meta(m).to_bytes()).unwrap().unwrap());
            assert!(e.contains(want), "{want}: {e}");
        }
    }

    #[test]
    fn other_models_and_old_formats_are_refused() {
        let rdme = CheckpointWriter::new("rdme", 1).to_bytes().unwrap();
        let e = refused(&rdme);
        assert!(e.contains("model \"rdme\", not of \"angiogenesis\""), "{e}");
        let mut old = b"PETRICK1".to_vec();
        old.extend([0u8; 64]);
        let e = refused(&old);
        assert!(e.contains("older Petri"), "{e}");
        let mut future = encode(&small());
        future[8..12].copy_from_slice(&2u32.to_le_bytes()); // the container version
        assert!(refused(&future).contains("container version 2"));
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
        let mut ck = small();
        ck.k = 1.0;
        let e = ck
            .save(&dir.join("never-written.ck"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("stability bound"), "{e}");
        assert!(!dir.join("never-written.ck").exists());
    }
}
