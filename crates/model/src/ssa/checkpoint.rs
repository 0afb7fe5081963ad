//! Checkpoints of an ensemble run at an output time, on the CPU (`run::SsaRun`) or the GPU
//! (`gpu_run::GpuSsaRun`). The state of every trajectory is whole, so a resumed run continues
//! bitwise as if it had never stopped. On the CPU: its counts, its random stream as the number
//! of draws taken (the seed follows from the ensemble seed and its index), and what its method
//! keeps between events (the next event's time; for ODM also the running propensities, their
//! running total, the event count and the next reaction). On the GPU: the paused thread
//! (`gpu_ensemble::ThreadStates`: fixed-point time, Philox event counter, next output, the
//! method's words, counts and ODM's f32 propensities). The two devices draw different random
//! numbers, so a checkpoint resumes on the device that wrote it only. A general network's run
//! (`general_run::GeneralRun`, CPU direct method) adds each trajectory's model values, event
//! triggers and pending event executions (`general::SavedTrajectory`).
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
//! | metadata | [`Header`]: `step` (output times done), `method`, `seed`, `trajectories`, `t_end`, `points`, `keep_trajectories`, `species`, `reactions`, `network` (a list of [part, XXH64 of it]); a GPU run's also `gpu` ([`GpuHeader`]) |
//! | `counts` | u64, CPU: trajectories x species |
//! | `draws` | u64, CPU: random numbers drawn by each trajectory |
//! | `time` | f64, CPU, per trajectory: direct and ODM the next event's time, tau the current time |
//! | `fired`, `events`, `a0` | CPU ODM: next reaction (u64::MAX: none), events so far, running total (per trajectory) |
//! | `a` | CPU ODM: running propensities, trajectories x reactions |
//! | `gpu_thread` | u32, GPU: trajectories x `THREAD_WORDS`, the thread records |
//! | `gpu_counts` | u32, GPU: trajectories x species |
//! | `gpu_props` | u32, GPU ODM: running propensities as f32 bits, trajectories x reactions |
//! | `values` | f64, general: trajectories x values (parameters, compartment sizes, rules' values) |
//! | `triggers` | u64, general: trajectories x events, 1 where the trigger held |
//! | `pending` | u64, general: pending executions per trajectory |
//! | `pending_time`, `pending_event`, `pending_taken` | general, per pending execution in order: its time, its event, 1 where its values were taken at the trigger time |
//! | `pending_values` | f64, general: those values, the event's assignments' count each |
//! | `mean`, `sd` | f64, the rows of mean_sd.csv so far, (step + 1) x columns (species; a general network's also its rules' values) |
//! | `kept` | u64, with `keep_trajectories`: trajectories x (step + 1) x species, for trajectories.csv |

use super::direct::{DirectTables, DirectTrajectory};
use super::ensemble::{trajectory_seed, Method, Trajectory};
use super::general::{GeneralTables, GeneralTrajectory, SavedTrajectory};
use super::gpu_ensemble::{EnsembleOptions, ThreadStates, THREAD_WORDS};
use super::odm::OdmTrajectory;
use super::stream::Stream;
use super::tau::{TauCounters, TauTrajectory};
use crate::checkpoint::{self as container, model_error, take};
use crate::error::{short, ModelError, Result};
use crate::reactions::general::GeneralNetwork;
use crate::reactions::{Network, COUNT_LIMIT};
use petri_output::checkpoint::{CheckpointFile, CheckpointWriter};
use petri_output::checksum::xxh64;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

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
    /// A GPU run's adapter and method settings; None for a CPU run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuHeader>,
    /// A general network's sizes; None for mass action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub general: Option<GeneralHeader>,
}

/// The sizes of a general network's state (`general::SavedTrajectory`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneralHeader {
    pub values: usize,
    pub events: usize,
    /// Columns of mean_sd.csv: the species, then the rules' values.
    pub outputs: usize,
}

/// What a GPU run's trajectories depend on besides the network and the run's options: the
/// adapter (its `log` may round differently) and the method settings of `EnsembleOptions`.
/// Workgroup size, chunk size and event budget change nothing and are not kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuHeader {
    /// Name, backend and driver of the adapter.
    pub adapter: String,
    pub epsilon: f64,
    pub n_critical: u32,
    pub normal_above: f64,
    pub odm_refresh: u32,
}

impl GpuHeader {
    pub fn new(adapter: &petri_engine::AdapterSummary, options: &EnsembleOptions) -> Self {
        Self {
            adapter: format!("{} ({}, {})", adapter.name, adapter.backend, adapter.driver),
            epsilon: options.epsilon,
            n_critical: options.n_critical,
            normal_above: options.normal_above,
            odm_refresh: options.odm_refresh,
        }
    }
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
    pub gpu_thread: Vec<u32>,
    pub gpu_counts: Vec<u32>,
    pub gpu_props: Vec<u32>,
    pub general: GeneralArrays,
}

/// A general network's arrays (empty for mass action).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeneralArrays {
    pub values: Vec<f64>,
    pub triggers: Vec<u64>,
    pub pending: Vec<u64>,
    pub pending_time: Vec<f64>,
    pub pending_event: Vec<u64>,
    pub pending_taken: Vec<u64>,
    pub pending_values: Vec<f64>,
}

/// The parts of a general network that shape its trajectories: the mass-action parts, then
/// its laws, values, assignments and events (hashed from their full description).
pub fn general_parts(net: &GeneralNetwork) -> Vec<(String, u64)> {
    let mut parts = network_parts(&net.network);
    let described = [
        ("laws", format!("{:?}", net.laws)),
        ("values", format!("{:?}", net.values)),
        (
            "initial assignments",
            format!("{:?}", net.initial_assignments),
        ),
        ("rules", format!("{:?}", net.rules)),
        ("events", format!("{:?}", net.events)),
    ];
    for (name, text) in described {
        parts.push((name.to_string(), xxh64(text.as_bytes())));
    }
    parts
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
        let mut ck = Self::rows_only(header, mean, sd, kept);
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

    /// The checkpoint of a GPU run (`header.gpu` set) with its paused threads `states`.
    pub fn new_gpu(
        header: Header,
        states: ThreadStates,
        mean: Vec<f64>,
        sd: Vec<f64>,
        kept: Vec<u64>,
    ) -> Self {
        Self {
            gpu_thread: states.thread,
            gpu_counts: states.counts,
            gpu_props: states.props,
            ..Self::rows_only(header, mean, sd, kept)
        }
    }

    /// A checkpoint of the rows (and kept samples) with no trajectory state yet.
    fn rows_only(header: Header, mean: Vec<f64>, sd: Vec<f64>, kept: Vec<u64>) -> Self {
        Self {
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
            gpu_thread: Vec::new(),
            gpu_counts: Vec::new(),
            gpu_props: Vec::new(),
            general: GeneralArrays::default(),
        }
    }

    /// The checkpoint of a general network's run (`header.general` set) with its paused
    /// trajectories `saved`.
    pub fn new_general(
        header: Header,
        saved: &[SavedTrajectory],
        mean: Vec<f64>,
        sd: Vec<f64>,
        kept: Vec<u64>,
    ) -> Self {
        let mut ck = Self::rows_only(header, mean, sd, kept);
        let g = &mut ck.general;
        for t in saved {
            ck.counts.extend(&t.counts);
            ck.draws.push(t.draws);
            ck.time.push(t.time);
            g.values.extend(&t.values);
            g.triggers.extend(t.triggers.iter().map(|&b| b as u64));
            g.pending.push(t.pending.len() as u64);
            for (time, event, values) in &t.pending {
                g.pending_time.push(*time);
                g.pending_event.push(*event as u64);
                g.pending_taken.push(values.is_some() as u64);
                g.pending_values.extend(values.iter().flatten());
            }
        }
        ck
    }

    /// With `keep_trajectories`, the kept samples as `kept[trajectory][time][species]`.
    pub fn kept_samples(&self) -> Option<Vec<Vec<Vec<u64>>>> {
        let (s, rows) = (self.header.species, self.header.step as usize + 1);
        self.header.keep_trajectories.then(|| {
            (0..self.header.trajectories as usize)
                .map(|i| {
                    let t = &self.kept[i * rows * s..(i + 1) * rows * s];
                    (0..rows).map(|k| t[k * s..(k + 1) * s].to_vec()).collect()
                })
                .collect()
        })
    }

    /// Writes the checkpoint to `path`, replacing any file there atomically and durably.
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut writer = CheckpointWriter::new(MODEL, VERSION);
        if self.header.gpu.is_some() {
            writer = writer
                .array("gpu_thread", &self.gpu_thread)
                .array("gpu_counts", &self.gpu_counts)
                .array("gpu_props", &self.gpu_props);
        }
        if self.header.general.is_some() {
            let g = &self.general;
            writer = writer
                .array("values", &g.values)
                .array("triggers", &g.triggers)
                .array("pending", &g.pending)
                .array("pending_time", &g.pending_time)
                .array("pending_event", &g.pending_event)
                .array("pending_taken", &g.pending_taken)
                .array("pending_values", &g.pending_values);
        }
        writer
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
        Self::from_file(container::load(path, MODEL, VERSION)?)
    }

    fn from_file(mut file: CheckpointFile) -> Result<Self> {
        let error = |file: &CheckpointFile, m: String| container::refuse(file, m);
        let h: Header = container::header(&file)?;
        let method = Method::parse("method", &h.method).map_err(|e| error(&file, e.to_string()))?;
        if h.points < 2 || h.step >= h.points as u64 {
            let m = format!("step {} of {} output times", h.step, h.points);
            return Err(error(&file, m));
        }
        let mut ck = Self {
            counts: take(&mut file, "counts")?,
            draws: take(&mut file, "draws")?,
            time: take(&mut file, "time")?,
            fired: take(&mut file, "fired")?,
            events: take(&mut file, "events")?,
            a0: take(&mut file, "a0")?,
            a: take(&mut file, "a")?,
            mean: take(&mut file, "mean")?,
            sd: take(&mut file, "sd")?,
            kept: take(&mut file, "kept")?,
            gpu_thread: Vec::new(),
            gpu_counts: Vec::new(),
            gpu_props: Vec::new(),
            general: GeneralArrays::default(),
            header: h,
        };
        if ck.header.gpu.is_some() {
            ck.gpu_thread = take(&mut file, "gpu_thread")?;
            ck.gpu_counts = take(&mut file, "gpu_counts")?;
            ck.gpu_props = take(&mut file, "gpu_props")?;
        }
        if ck.header.general.is_some() {
            if ck.header.gpu.is_some() {
                let m = "a general network's checkpoint of a GPU run (only CPU runs write them)";
                return Err(error(&file, m.into()));
            }
            ck.general = GeneralArrays {
                values: take(&mut file, "values")?,
                triggers: take(&mut file, "triggers")?,
                pending: take(&mut file, "pending")?,
                pending_time: take(&mut file, "pending_time")?,
                pending_event: take(&mut file, "pending_event")?,
                pending_taken: take(&mut file, "pending_taken")?,
                pending_values: take(&mut file, "pending_values")?,
            };
        }
        let h = &ck.header;
        let (n, s, r, rows) = (
            h.trajectories as u128,
            h.species as u128,
            h.reactions as u128,
            h.step as u128 + 1,
        );
        let odm = (method == Method::Odm) as u128;
        let (cpu, gpu) = match h.gpu {
            None => (1, 0),
            Some(_) => (0, 1),
        };
        let g = &ck.general;
        let (values, events, columns) = match &h.general {
            Some(g) => (g.values as u128, g.events as u128, g.outputs as u128),
            None => (0, 0, s),
        };
        let pending: u128 = g.pending.iter().map(|&p| p as u128).sum();
        let expected = [
            ("values", g.values.len(), n * values),
            ("triggers", g.triggers.len(), n * events),
            (
                "pending",
                g.pending.len(),
                if h.general.is_some() { n } else { 0 },
            ),
            ("pending_time", g.pending_time.len(), pending),
            ("pending_event", g.pending_event.len(), pending),
            ("pending_taken", g.pending_taken.len(), pending),
            ("counts", ck.counts.len(), cpu * n * s),
            ("draws", ck.draws.len(), cpu * n),
            ("time", ck.time.len(), cpu * n),
            ("fired", ck.fired.len(), cpu * odm * n),
            ("events", ck.events.len(), cpu * odm * n),
            ("a0", ck.a0.len(), cpu * odm * n),
            ("a", ck.a.len(), cpu * odm * n * r),
            (
                "gpu_thread",
                ck.gpu_thread.len(),
                gpu * n * THREAD_WORDS as u128,
            ),
            ("gpu_counts", ck.gpu_counts.len(), gpu * n * s),
            ("gpu_props", ck.gpu_props.len(), gpu * odm * n * r),
            ("mean", ck.mean.len(), rows * columns),
            ("sd", ck.sd.len(), rows * columns),
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
        run: (Method, u64, u64),
        times: &[f64],
        keep_trajectories: bool,
        path: &Path,
    ) -> Result<Vec<Trajectory>> {
        let error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        let columns: Vec<String> = net.species.iter().map(|s| s.id.clone()).collect();
        let kind = Kind {
            parts: network_parts(net),
            columns: &columns,
            gpu: None,
            general: None,
        };
        self.check_run(net, &kind, run, times, keep_trajectories, path)?;
        let (method, seed) = (run.0, run.1);
        let h = &self.header;
        let (s, r) = (h.species, h.reactions);
        let at = times[h.step as usize];
        let mut out = Vec::with_capacity(h.trajectories as usize);
        let direct = (method == Method::Direct).then(|| DirectTables::new(net));
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
                Method::Direct => Trajectory::Direct(DirectTrajectory::restore(
                    direct.as_ref().expect("built for the direct method"),
                    counts,
                    time,
                    stream,
                )),
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

    /// The paused GPU threads to resume from, after the checks of [`Checkpoint::restore`] and
    /// that the checkpoint was written by a GPU run with the settings `gpu`.
    pub fn restore_gpu(
        &self,
        net: &Network,
        run: (Method, u64, u64),
        times: &[f64],
        keep_trajectories: bool,
        gpu: &GpuHeader,
        path: &Path,
    ) -> Result<ThreadStates> {
        let columns: Vec<String> = net.species.iter().map(|s| s.id.clone()).collect();
        let kind = Kind {
            parts: network_parts(net),
            columns: &columns,
            gpu: Some(gpu),
            general: None,
        };
        self.check_run(net, &kind, run, times, keep_trajectories, path)?;
        let next_out = self.header.step as usize + 1;
        let thread = &self.gpu_thread;
        if let Some(i) = (0..self.header.trajectories as usize)
            .find(|i| thread[i * THREAD_WORDS + 3] as usize != next_out)
        {
            return Err(ModelError::Checkpoint {
                path: path.display().to_string(),
                message: format!(
                    "trajectory {i} is not paused before output {next_out} (its thread stands \
                     before output {})",
                    thread[i * THREAD_WORDS + 3]
                ),
            });
        }
        Ok(ThreadStates {
            next_out,
            thread: self.gpu_thread.clone(),
            counts: self.gpu_counts.clone(),
            props: self.gpu_props.clone(),
        })
    }

    /// The paused trajectories of a general network's run to resume from, after the checks of
    /// [`Checkpoint::restore`] and each trajectory's against the network
    /// (`GeneralTrajectory::restore`).
    pub fn restore_general(
        &self,
        tables: &Arc<GeneralTables>,
        (seed, trajectories): (u64, u64),
        times: &[f64],
        keep_trajectories: bool,
        path: &Path,
    ) -> Result<Vec<GeneralTrajectory>> {
        let error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        let net = tables.network();
        let columns = net.outputs();
        let kind = Kind {
            parts: general_parts(net),
            columns: &columns,
            gpu: None,
            general: Some(general_header(net)),
        };
        let run = (Method::Direct, seed, trajectories);
        self.check_run(&net.network, &kind, run, times, keep_trajectories, path)?;
        let (h, g) = (&self.header, &self.general);
        let (s, v, e) = (h.species, net.values.len(), net.events.len());
        let at = times[h.step as usize];
        let (mut next, mut next_value) = (0, 0);
        let mut out = Vec::with_capacity(h.trajectories as usize);
        for i in 0..h.trajectories as usize {
            let mut pending = Vec::new();
            for k in next..next + g.pending[i] as usize {
                let event = g.pending_event[k] as usize;
                let values = match g.pending_taken[k] {
                    0 => None,
                    1 => {
                        let m = net.events.get(event).map_or(0, |ev| ev.assignments.len());
                        let Some(taken) = g.pending_values.get(next_value..next_value + m) else {
                            return Err(error("pending_values ends early".into()));
                        };
                        next_value += m;
                        Some(taken.to_vec())
                    }
                    other => return Err(error(format!("pending_taken {other}: 0 or 1"))),
                };
                pending.push((g.pending_time[k], event, values));
            }
            next += g.pending[i] as usize;
            let triggers = g.triggers[i * e..(i + 1) * e].iter().map(|&b| b == 1);
            if let Some(b) = g.triggers[i * e..(i + 1) * e].iter().find(|&&b| b > 1) {
                return Err(error(format!(
                    "trajectory {i} has a trigger of {b}: 0 or 1"
                )));
            }
            let saved = SavedTrajectory {
                counts: self.counts[i * s..(i + 1) * s].to_vec(),
                values: g.values[i * v..(i + 1) * v].to_vec(),
                time: self.time[i],
                draws: self.draws[i],
                triggers: triggers.collect(),
                pending,
            };
            if saved.time.to_bits() != at.to_bits() {
                return Err(error(format!(
                    "trajectory {i} is not paused at output time {at} (time {})",
                    short(saved.time)
                )));
            }
            let seed = trajectory_seed(seed, i as u64);
            let trajectory = GeneralTrajectory::restore(tables, seed, saved)
                .map_err(|why| error(format!("trajectory {i}: {why}")))?;
            out.push(trajectory);
        }
        if next_value != g.pending_values.len() {
            let m = format!(
                "pending_values has {} values, the pending executions take {next_value}",
                g.pending_values.len()
            );
            return Err(error(m));
        }
        Ok(out)
    }

    /// The state's own invariants, past its sizes: counts below the count limit (a run stops
    /// on reaching it), ODM's running propensities those of the counts (each is recomputed
    /// whole when it changes) and its running total finite and >= 0, the statistics finite
    /// (standard deviations >= 0), the GPU's propensities finite and >= 0.
    fn check_values(
        &self,
        net: &Network,
        columns: &[String],
        method: Method,
    ) -> std::result::Result<(), String> {
        let (s, r) = (self.header.species, self.header.reactions);
        let width = columns.len().max(1);
        let counts = self
            .counts
            .iter()
            .copied()
            .chain(self.gpu_counts.iter().map(|&c| c as u64))
            .chain(self.kept.iter().copied());
        if let Some((k, c)) = counts.enumerate().find(|(_, c)| *c > COUNT_LIMIT) {
            return Err(format!(
                "count {k} of the state is {c}: past the count limit {COUNT_LIMIT}"
            ));
        }
        if let Some(i) = (0..self.mean.len())
            .find(|&i| !(self.mean[i].is_finite() && self.sd[i].is_finite() && self.sd[i] >= 0.0))
        {
            return Err(format!(
                "row {} of mean_sd ({}): mean {}, sd {}: not finite, or a negative sd",
                i / width,
                columns[i % width],
                short(self.mean[i]),
                short(self.sd[i])
            ));
        }
        if method == Method::Odm && self.header.gpu.is_none() {
            for i in 0..self.header.trajectories as usize {
                let counts = &self.counts[i * s..(i + 1) * s];
                let a0 = self.a0[i];
                if !(a0.is_finite() && a0 >= 0.0) {
                    return Err(format!(
                        "trajectory {i} has a total propensity of {}: not a finite number >= 0",
                        short(a0)
                    ));
                }
                if let Some(j) =
                    (0..r).find(|&j| self.a[i * r + j] != net.reactions[j].propensity(counts))
                {
                    return Err(format!(
                        "trajectory {i} has propensity {} for reaction {j}, its counts give {}",
                        short(self.a[i * r + j]),
                        short(net.reactions[j].propensity(counts))
                    ));
                }
            }
        }
        if let Some(k) = self
            .gpu_props
            .iter()
            .position(|&b| !(f32::from_bits(b).is_finite() && f32::from_bits(b) >= 0.0))
        {
            return Err(format!(
                "GPU propensity {k} is {}: not a finite number >= 0",
                f32::from_bits(self.gpu_props[k])
            ));
        }
        Ok(())
    }

    /// Checks that the checkpoint belongs to a run of `net` (`kind`: its parts and columns, a
    /// general network's sizes) with these options, on the device (`kind.gpu`: a GPU run with
    /// these settings) it was written on.
    fn check_run(
        &self,
        net: &Network,
        kind: &Kind,
        (method, seed, trajectories): (Method, u64, u64),
        times: &[f64],
        keep_trajectories: bool,
        path: &Path,
    ) -> Result<()> {
        let error = |message: String| ModelError::Checkpoint {
            path: path.display().to_string(),
            message,
        };
        let h = &self.header;
        if h.general.is_some() != kind.general.is_some() {
            let (was, is) = match kind.general {
                Some(_) => ("a mass-action network", "a general network"),
                None => ("a general network", "a mass-action network"),
            };
            return Err(error(format!(
                "the checkpoint is of {was}'s run, this run is of {is}"
            )));
        }
        if h.general != kind.general {
            return Err(error(format!(
                "the checkpoint is of a general network with {:?}, this one has {:?}",
                h.general, kind.general
            )));
        }
        let gpu = kind.gpu;
        let now = &kind.parts;
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
        self.check_values(net, kind.columns, method)
            .map_err(error)?;
        let device = |g: Option<&GpuHeader>| match g {
            Some(_) => "gpu",
            None => "cpu",
        };
        if h.gpu.as_ref() != gpu {
            let m = match (&h.gpu, gpu) {
                (Some(was), Some(is)) => format!(
                    "the checkpoint was written on the GPU with {was:?}, this run has {is:?} \
                     (the trajectories depend on the adapter and the method settings)"
                ),
                (was, is) => format!(
                    "the checkpoint was written by a run with --device {}, this run has \
                     --device {} (the two draw different random numbers)",
                    device(was.as_ref()),
                    device(is)
                ),
            };
            return Err(error(m));
        }
        Ok(())
    }
}

/// What a checkpoint must belong to, besides the run's options.
struct Kind<'a> {
    parts: Vec<(String, u64)>,
    /// Columns of mean_sd.csv.
    columns: &'a [String],
    gpu: Option<&'a GpuHeader>,
    general: Option<GeneralHeader>,
}

/// The sizes a general network's checkpoint records.
pub fn general_header(net: &GeneralNetwork) -> GeneralHeader {
    GeneralHeader {
        values: net.values.len(),
        events: net.events.len(),
        outputs: net.outputs().len(),
    }
}
