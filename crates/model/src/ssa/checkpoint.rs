//! Checkpoints of a CPU ensemble run (`run::SsaRun`) at an output time. The state of every
//! trajectory is whole: its counts, its random stream as the number of draws taken (the seed
//! follows from the ensemble seed and its index), and what its method keeps between events
//! (the next event's time; for ODM also the running propensities, their running total, the
//! event count and the next reaction). So a resumed run continues bitwise as if it had never
//! stopped.
//!
//! The file does not hold the network; resuming needs the same network file again. It holds
//! hashes of the network's parts, so another network is refused with the parts that differ
//! named, and the run's options (method, seed, trajectories, times), which must match.
//!
//! The file is a `petri_output::checkpoint` container of model `network`, format version
//! [`VERSION`]:
//!
//! | part | content |
//! |------|---------|
//! | metadata | [`Header`]: `step` (output times done), `method`, `seed`, `trajectories`, `t_end`, `points`, `keep_trajectories`, `species`, `reactions`, `network` (a list of [part, XXH64 of it]) |
//! | `counts` | u64, trajectories x species |
//! | `draws` | u64, random numbers drawn by each trajectory |
//! | `time` | f64, per trajectory: direct and ODM the next event's time, tau the current time |
//! | `fired`, `events`, `a0` | ODM: next reaction (u64::MAX: none), events so far, running total (per trajectory) |
//! | `a` | ODM: running propensities, trajectories x reactions |
//! | `mean`, `sd` | f64, the rows of mean_sd.csv so far, (step + 1) x species (for mean_sd.png) |
//! | `kept` | u64, with `keep_trajectories`: trajectories x (step + 1) x species, for trajectories.csv |

use super::direct::DirectTrajectory;
use super::ensemble::{trajectory_seed, Method, Trajectory};
use super::odm::OdmTrajectory;
use super::stream::Stream;
use super::tau::{TauCounters, TauTrajectory};
use crate::checkpoint::model_error;
use crate::error::{ModelError, Result};
use crate::reactions::Network;
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter};
use petri_output::checksum::xxh64;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format version of the network part (metadata and arrays), written and read.
pub const VERSION: u32 = 1;
/// Model name in the container (as in network configs and manifests).
pub const MODEL: &str = "network";
/// Marks an ODM trajectory with no next reaction in `fired`.
const NONE: u64 = u64::MAX;

/// The metadata: what the run is, and how far it got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Output times done after the first (the runtime's step).
    pub step: u64,
    pub method: String,
    pub seed: u64,
    pub trajectories: u64,
    pub t_end: f64,
    pub points: usize,
    pub keep_trajectories: bool,
    pub species: usize,
    pub reactions: usize,
    /// (part of the network, XXH64 of it), to name what differs.
    pub network: Vec<(String, u64)>,
}

/// A checkpoint as read or about to be written.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub header: Header,
    pub counts: Vec<u64>,
    pub draws: Vec<u64>,
    pub time: Vec<f64>,
    pub fired: Vec<u64>,
    pub events: Vec<u64>,
    pub a0: Vec<f64>,
    pub a: Vec<f64>,
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
    pub kept: Vec<u64>,
}

/// Hashes of the parts of a network that shape its trajectories.
pub fn network_parts(net: &Network) -> Vec<(String, u64)> {
    let mut parts: Vec<(&str, Vec<u8>)> = vec![
        ("species", Vec::new()),
        ("initial counts", Vec::new()),
        ("boundary species", Vec::new()),
        ("reactions", Vec::new()),
        ("rates", Vec::new()),
    ];
    for s in &net.species {
        parts[0].1.extend(s.id.as_bytes());
        parts[0].1.push(0);
        parts[1].1.extend(s.initial_count.to_le_bytes());
        parts[2].1.push(s.boundary as u8);
    }
    for r in &net.reactions {
        let side = |bytes: &mut Vec<u8>, side: &[(usize, u32)]| {
            bytes.extend((side.len() as u64).to_le_bytes());
            for &(s, n) in side {
                bytes.extend((s as u64).to_le_bytes());
                bytes.extend(n.to_le_bytes());
            }
        };
        side(&mut parts[3].1, &r.reactants);
        side(&mut parts[3].1, &r.products);
        parts[4].1.extend(r.rate.to_bits().to_le_bytes());
    }
    parts
        .into_iter()
        .map(|(name, bytes)| (name.to_string(), xxh64(&bytes)))
        .collect()
}

impl Checkpoint {
    /// The checkpoint of `trajectories` with the rows so far (`mean`, `sd`: (step + 1) x
    /// species) and, with `header.keep_trajectories`, the kept samples.
    pub fn new(
        header: Header,
        trajectories: &[Trajectory],
        mean: Vec<f64>,
        sd: Vec<f64>,
        kept: Vec<u64>,
    ) -> Self {
        let mut ck = Self {
            header,
            counts: Vec::new(),
            draws: Vec::new(),
            time: Vec::new(),
            fired: Vec::new(),
            events: Vec::new(),
            a0: Vec::new(),
            a: Vec::new(),
            mean,
            sd,
            kept,
        };
        for trajectory in trajectories {
            ck.counts.extend(trajectory.counts());
            match trajectory {
                Trajectory::Direct(t) => {
                    ck.draws.push(t.stream.draws());
                    ck.time.push(t.t_next);
                }
                Trajectory::Odm(t) => {
                    ck.draws.push(t.stream.draws());
                    ck.time.push(t.t_next);
                    ck.fired.push(t.fired.map_or(NONE, |j| j as u64));
                    ck.events.push(t.events);
                    ck.a0.push(t.a0);
                    ck.a.extend(&t.a);
                }
                Trajectory::Tau(t) => {
                    ck.draws.push(t.stream.draws());
                    ck.time.push(t.t);
                }
            }
        }
        ck
    }

    /// Writes the checkpoint to `path`, replacing any file there atomically and durably.
    pub fn save(&self, path: &Path) -> Result<()> {
        CheckpointWriter::new(MODEL, VERSION)
            .meta(serde_json::to_value(&self.header).expect("the header serializes"))
            .array("counts", &self.counts)
            .array("draws", &self.draws)
            .array("time", &self.time)
            .array("fired", &self.fired)
            .array("events", &self.events)
            .array("a0", &self.a0)
            .array("a", &self.a)
            .array("mean", &self.mean)
            .array("sd", &self.sd)
            .array("kept", &self.kept)
            .save(path)
            .map_err(model_error)
    }

    /// Reads a checkpoint written by [`Checkpoint::save`] and checks its sizes;
    /// [`Checkpoint::restore`] checks it against the network and the run's options.
    pub fn load(path: &Path) -> Result<Self> {
        let file = CheckpointFile::load(path, MODEL, VERSION).map_err(model_error)?;
        Self::from_file(file)
    }

    fn from_file(mut file: CheckpointFile) -> Result<Self> {
        let error = |file: &CheckpointFile, m: String| model_error(file.error(m));
        let h: Header = serde_json::from_value(file.meta().clone())
            .map_err(|e| error(&file, format!("the metadata does not parse: {e}")))?;
        let method = Method::parse("method", &h.method).map_err(|e| error(&file, e.to_string()))?;
        if h.points < 2 || h.step >= h.points as u64 {
            let m = format!("step {} of {} output times", h.step, h.points);
            return Err(error(&file, m));
        }
        let mut ck = Self {
            counts: file.take("counts").map_err(model_error)?,
            draws: file.take("draws").map_err(model_error)?,
            time: file.take("time").map_err(model_error)?,
            fired: file.take("fired").map_err(model_error)?,
            events: file.take("events").map_err(model_error)?,
            a0: file.take("a0").map_err(model_error)?,
            a: file.take("a").map_err(model_error)?,
            mean: file.take("mean").map_err(model_error)?,
            sd: file.take("sd").map_err(model_error)?,
            kept: file.take("kept").map_err(model_error)?,
            header: h,
        };
        let h = &ck.header;
        let (n, s, r, rows) = (
            h.trajectories as u128,
            h.species as u128,
            h.reactions as u128,
            h.step as u128 + 1,
        );
        let odm = method == Method::Odm;
        let expected = [
            ("counts", ck.counts.len(), n * s),
            ("draws", ck.draws.len(), n),
            ("time", ck.time.len(), n),
            ("fired", ck.fired.len(), if odm { n } else { 0 }),
            ("events", ck.events.len(), if odm { n } else { 0 }),
            ("a0", ck.a0.len(), if odm { n } else { 0 }),
            ("a", ck.a.len(), if odm { n * r } else { 0 }),
            ("mean", ck.mean.len(), rows * s),
            ("sd", ck.sd.len(), rows * s),
            (
                "kept",
                ck.kept.len(),
                if h.keep_trajectories { n * rows * s } else { 0 },
            ),
        ];
        for (name, len, want) in expected {
            if len as u128 != want {
                let m = format!(
                    "array {name} has {len} values; {} trajectories of {} species and {} \
                     reactions by {} at step {} need {want}",
                    h.trajectories, h.species, h.reactions, h.method, h.step
                );
                return Err(error(&file, m));
            }
        }
        ck.header.method = method.name().into();
        Ok(ck)
    }

    /// The trajectories to resume from, after checking that the checkpoint belongs to a run
    /// of `net` with this `method`, `seed`, `trajectories`, output `times` and
    /// `keep_trajectories`. `path` names the checkpoint in errors.
    pub fn restore(
        &self,
        net: &Network,
        (method, seed, trajectories): (Method, u64, u64),
        times: &[f64],
        keep_trajectories: bool,
        path: &Path,
    ) -> Result<Vec<Trajectory>> {
        let error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        let h = &self.header;
        let now = network_parts(net);
        let differ: Vec<&str> = now
            .iter()
            .zip(&h.network)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.0.as_str())
            .collect();
        if h.species != net.species.len() || h.reactions != net.reactions.len() {
            return Err(error(format!(
                "the checkpoint is of a network of {} species and {} reactions, this one has {} \
                 and {}",
                h.species,
                h.reactions,
                net.species.len(),
                net.reactions.len()
            )));
        }
        if !differ.is_empty() || now.len() != h.network.len() {
            return Err(error(format!(
                "the network differs from the one the checkpoint was written with, in: {}",
                differ.join(", ")
            )));
        }
        let t_end = *times.last().expect("output times are checked");
        let options = [
            ("method", h.method.clone(), method.name().to_string()),
            ("seed", h.seed.to_string(), seed.to_string()),
            (
                "trajectories",
                h.trajectories.to_string(),
                trajectories.to_string(),
            ),
            ("t_end", h.t_end.to_string(), t_end.to_string()),
            ("points", h.points.to_string(), times.len().to_string()),
            (
                "keep_trajectories (trajectories.csv)",
                h.keep_trajectories.to_string(),
                keep_trajectories.to_string(),
            ),
        ];
        if let Some((name, was, is)) = options.iter().find(|(_, was, is)| was != is) {
            return Err(error(format!(
                "the checkpoint was written with {name} = {was}, this run has {is}"
            )));
        }
        let (s, r) = (h.species, h.reactions);
        let at = times[h.step as usize];
        let mut out = Vec::with_capacity(h.trajectories as usize);
        for i in 0..h.trajectories as usize {
            let counts = self.counts[i * s..(i + 1) * s].to_vec();
            let stream = Stream::at(trajectory_seed(seed, i as u64), self.draws[i]);
            let time = self.time[i];
            // A trajectory paused at output time `at`: its next event lies after it (tau: it
            // stands exactly there).
            let paused = match method {
                Method::Tau => time.to_bits() == at.to_bits(),
                _ => time > at,
            };
            let fired = self.fired.get(i).copied();
            let fired_ok =
                fired.is_none_or(|j| (j as usize) < r || (j == NONE && time.is_infinite()));
            if !paused || !fired_ok {
                return Err(error(format!(
                    "trajectory {i} is not paused at output time {at} (time {}, next \
                     reaction {fired:?})",
                    crate::error::short(time)
                )));
            }
            out.push(match method {
                Method::Direct => {
                    Trajectory::Direct(DirectTrajectory::restore(net, counts, time, stream))
                }
                Method::Odm => Trajectory::Odm(OdmTrajectory {
                    counts,
                    a: self.a[i * r..(i + 1) * r].to_vec(),
                    a0: self.a0[i],
                    events: self.events[i],
                    t_next: time,
                    fired: fired.filter(|&j| j != NONE).map(|j| j as usize),
                    stream,
                }),
                Method::Tau => Trajectory::Tau(TauTrajectory {
                    counts,
                    t: time,
                    stream,
                    counters: TauCounters::default(),
                }),
            });
        }
        Ok(out)
    }
}
