//! An ensemble over the ranks of an MPI launch (`crate::team`): rank r runs the trajectories
//! `team::share(n, r, size)`, each with the random stream of its index in the whole ensemble,
//! on the CPU or on its GPU. Rank 0 runs its share and drives the others through the runtime,
//! as `gpu_run::GpuSsaRun` runs a GPU ensemble: in spans of output times that end where the run
//! stops or writes a checkpoint. At the end of a span every rank sends rank 0 the exact sums
//! (u128) of its trajectories at the span's output times, which rank 0 adds in rank order; the
//! sums, and so every row, equal those of one process. Rank 0 writes every file: for a
//! checkpoint and for trajectories.csv it gathers the ranks' trajectories in index order, so
//! the checkpoint is the one a single process writes, and resumes on any number of ranks.
//!
//! The requests of rank 0 and the answers are messages of words (`crate::team::Team`); every
//! request gets an answer from every rank, which names its error if it failed. A rank that
//! fails takes the run down: rank 0 stops with an error naming the rank and its host, and the
//! folder's manifest says "stopped".

use super::checkpoint::{Checkpoint, GpuHeader};
use super::ensemble::{CpuEnsemble, Trajectory};
use super::gpu_ensemble::{EnsembleOptions, GpuEnsemble, ThreadStates, THREAD_WORDS};
use super::gpu_run::{check_paused_memory, span_steps};
use super::run::{
    checkpoint_header, ensemble_description, ensemble_summary, resident_bytes,
    write_ensemble_files, Details, MeanSdRow, Rows, RunOptions, MAX_RESIDENT_BYTES,
};
use super::stats::Accumulator;
use crate::error::{invalid, ModelError, Result};
use crate::model::Placement;
use crate::reactions::Network;
use crate::runtime::{Simulation, StateArray};
use crate::team::{share, text_words, words_text, RankRecord, Team};
use petri_engine::{AdapterSummary, GpuContext};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Requests (their first word): run the outputs up to `stop` (then `keep_states`); send the
/// share's checkpoint arrays at `step`; send the kept samples of the first `rows` outputs; end.
const ADVANCE: u64 = 1;
const STATE: u64 = 2;
const KEPT: u64 = 3;
const QUIT: u64 = 4;
/// An answer's first word.
const OK: u64 = 0;
const FAILED: u64 = 1;

/// Where a rank's share runs (one per run: its size is no cost).
#[allow(clippy::large_enum_variant)]
pub enum ShareDevice {
    Cpu,
    Gpu(GpuContext, EnsembleOptions),
}

/// What every rank builds its share from: the network, the run's options (those of a
/// one-process run), the device and why it was chosen.
pub struct ShareSpec {
    pub net: Network,
    pub opts: RunOptions,
    pub device: ShareDevice,
    pub reason: String,
}

/// The share's trajectories on their device (one per rank).
#[allow(clippy::large_enum_variant)]
enum Engine {
    Cpu(CpuEnsemble),
    Gpu {
        ensemble: GpuEnsemble,
        header: GpuHeader,
        adapter: AdapterSummary,
        /// The paused threads after the last span; None before the first.
        states: Option<ThreadStates>,
    },
}

/// One rank's trajectories of the ensemble, at an output time.
struct Share {
    net: Network,
    opts: RunOptions,
    times: Vec<f64>,
    species: Vec<String>,
    range: Range<u64>,
    engine: Engine,
    /// With `keep_trajectories`: `kept[trajectory][time][species]` of the share so far.
    kept: Option<Vec<Vec<Vec<u64>>>>,
    /// Outputs recorded: 0..next_out.
    next_out: usize,
}

impl Share {
    /// The share `range` of the ensemble of `spec`, at time 0 or at the checkpoint resumed
    /// from (`spec.opts.resume`).
    fn new(spec: ShareSpec, range: Range<u64>) -> Result<Self> {
        let (net, opts) = (spec.net, spec.opts);
        let (times, _) = opts.check(&net)?;
        let t_end = *times.last().expect("at least two output times");
        let run = (opts.method, opts.seed, opts.trajectories);
        let ck = match &opts.resume {
            Some(path) => Some((Checkpoint::load(path)?, path.clone())),
            None => None,
        };
        let slice = |i: Range<u64>| i.start as usize..i.end as usize;
        let (lo, hi) = (range.start as usize, range.end as usize);
        if let ShareDevice::Cpu = spec.device {
            // The share is held in memory as a one-process CPU ensemble is.
            let n = (range.end - range.start) as u128;
            let bytes = resident_bytes(&net, &opts) * n / opts.trajectories.max(1) as u128;
            if bytes > MAX_RESIDENT_BYTES as u128 {
                let allowed = format!(
                    "a share per rank that fits in {} GiB (this one needs about {} GiB on a \
                     rank): more ranks or fewer trajectories",
                    MAX_RESIDENT_BYTES >> 30,
                    bytes >> 30
                );
                return Err(invalid("trajectories", opts.trajectories, allowed));
            }
        }
        let engine = match spec.device {
            ShareDevice::Cpu => Engine::Cpu(match &ck {
                Some((ck, path)) => {
                    let all = ck.restore(&net, run, &times, opts.keep_trajectories, path)?;
                    let mut e = CpuEnsemble::with_trajectories(
                        &net,
                        opts.method,
                        t_end,
                        all[slice(range.clone())].to_vec(),
                    );
                    e.first = range.start;
                    e
                }
                None => CpuEnsemble::share(&net, opts.method, range.clone(), opts.seed, t_end),
            }),
            ShareDevice::Gpu(ctx, options) => {
                let n = range.end - range.start;
                let spans = opts.checkpoint_every.is_some() || opts.steps.is_some() || ck.is_some();
                check_paused_memory(&net, n, spans)?;
                let mut ensemble = GpuEnsemble::new(&ctx, &net, opts.method, &options)?;
                ensemble.first = range.start;
                ensemble.prepare(n, &times, opts.keep_trajectories)?;
                let header = GpuHeader::new(&ctx.adapter, &options);
                let states = match &ck {
                    Some((ck, path)) => {
                        let all = ck.restore_gpu(
                            &net,
                            run,
                            &times,
                            opts.keep_trajectories,
                            &header,
                            path,
                        )?;
                        // Per trajectory: its thread record, counts and (ODM) propensities.
                        let ns = net.species.len();
                        let np = all.props.len() / opts.trajectories as usize;
                        Some(ThreadStates {
                            next_out: all.next_out,
                            thread: all.thread[lo * THREAD_WORDS..hi * THREAD_WORDS].to_vec(),
                            counts: all.counts[lo * ns..hi * ns].to_vec(),
                            props: all.props[lo * np..hi * np].to_vec(),
                        })
                    }
                    None => None,
                };
                Engine::Gpu {
                    ensemble,
                    header,
                    adapter: ctx.adapter.clone(),
                    states,
                }
            }
        };
        let kept = match &ck {
            Some((ck, _)) => ck.kept_samples().map(|k| k[lo..hi].to_vec()),
            None => opts
                .keep_trajectories
                .then(|| vec![Vec::with_capacity(times.len()); hi - lo]),
        };
        let next_out = ck.as_ref().map_or(0, |(ck, _)| ck.header.step as usize + 1);
        let species = net.species.iter().map(|s| s.id.clone()).collect();
        Ok(Self {
            net,
            opts,
            times,
            species,
            range,
            engine,
            kept,
            next_out,
        })
    }

    /// The device, as the manifest names it.
    fn device(&self) -> String {
        match &self.engine {
            Engine::Cpu(_) => format!("cpu ({} threads)", rayon::current_num_threads()),
            Engine::Gpu { header, .. } => header.adapter.clone(),
        }
    }

    /// Runs the share through the outputs `next_out..stop` (on the GPU keeping the paused
    /// threads' states with `keep_states`); returns the sums at those outputs, four words per
    /// (output, species): sum x and sum x^2, low word first.
    fn run_to(&mut self, stop: usize, keep_states: bool) -> Result<Vec<u64>> {
        let first = self.next_out;
        if !(first < stop && stop <= self.times.len()) {
            let allowed = format!("{}..={}", first + 1, self.times.len());
            return Err(invalid("stop", stop, allowed));
        }
        let mut acc = Accumulator::new(&self.times, self.species.clone());
        match &mut self.engine {
            Engine::Cpu(ensemble) => {
                for k in first..stop {
                    let at = ensemble.advance_to(self.times[k], &self.species)?;
                    acc.sum[k] = at.sum[0].clone();
                    acc.sum_sq[k] = at.sum_sq[0].clone();
                    if let Some(kept) = &mut self.kept {
                        for (samples, t) in kept.iter_mut().zip(&ensemble.trajectories) {
                            samples.push(t.counts().to_vec());
                        }
                    }
                }
            }
            Engine::Gpu {
                ensemble, states, ..
            } => {
                *states = ensemble.run_span(
                    self.range.end - self.range.start,
                    self.opts.seed,
                    &self.times,
                    states.as_ref(),
                    stop,
                    &mut acc,
                    self.kept.as_deref_mut(),
                    keep_states,
                )?;
            }
        }
        self.next_out = stop;
        let mut words = Vec::with_capacity((stop - first) * self.species.len() * 4);
        for k in first..stop {
            for (&x, &xx) in acc.sum[k].iter().zip(&acc.sum_sq[k]) {
                words.extend([x as u64, (x >> 64) as u64, xx as u64, (xx >> 64) as u64]);
            }
        }
        Ok(words)
    }

    /// The share's part of the checkpoint at `step` (the arrays a one-process checkpoint holds
    /// per trajectory), as words: each array's length, then its values.
    fn state_words(&self, step: u64) -> Result<Vec<u64>> {
        let rows = step as usize + 1;
        let kept = self.kept_flat(rows);
        let ck = match &self.engine {
            Engine::Cpu(ensemble) => {
                let header = checkpoint_header(&self.net, &self.opts, step, None);
                Checkpoint::new(header, &ensemble.trajectories, vec![], vec![], kept)
            }
            Engine::Gpu { header, states, .. } => {
                let states = match states {
                    Some(s) if s.next_out == rows => s.clone(),
                    _ => {
                        return Err(invalid(
                            "step",
                            step,
                            "the output time the GPU share is paused at",
                        ))
                    }
                };
                let h = checkpoint_header(&self.net, &self.opts, step, Some(header.clone()));
                Checkpoint::new_gpu(h, states, vec![], vec![], kept)
            }
        };
        let mut words = Vec::new();
        let mut put = |values: &mut dyn Iterator<Item = u64>| {
            let at = words.len();
            words.push(0);
            words.extend(values);
            words[at] = (words.len() - at - 1) as u64;
        };
        put(&mut ck.counts.iter().copied());
        put(&mut ck.draws.iter().copied());
        put(&mut ck.time.iter().map(|t| t.to_bits()));
        put(&mut ck.fired.iter().copied());
        put(&mut ck.events.iter().copied());
        put(&mut ck.a0.iter().map(|t| t.to_bits()));
        put(&mut ck.a.iter().map(|t| t.to_bits()));
        put(&mut ck.kept.iter().copied());
        put(&mut ck.gpu_thread.iter().map(|&w| w as u64));
        put(&mut ck.gpu_counts.iter().map(|&w| w as u64));
        put(&mut ck.gpu_props.iter().map(|&w| w as u64));
        Ok(words)
    }

    /// The kept samples of the first `rows` outputs, trajectory by trajectory.
    fn kept_flat(&self, rows: usize) -> Vec<u64> {
        match &self.kept {
            Some(kept) => kept.iter().flat_map(|t| t[..rows].concat()).collect(),
            None => Vec::new(),
        }
    }

    /// Answers one request of rank 0; None for the last one.
    fn answer(&mut self, request: &[u64]) -> Option<Result<Vec<u64>>> {
        let word = |i: usize| request.get(i).copied().unwrap_or(0);
        Some(match word(0) {
            ADVANCE => self.run_to(word(1) as usize, word(2) != 0),
            STATE => self.state_words(word(1)),
            KEPT => Ok(self.kept_flat(word(1) as usize)),
            QUIT => return None,
            other => Err(invalid("request", other, "a request of rank 0")),
        })
    }
}

/// Adds the words of one state array to `into` (its length first), returning the rest.
fn take_array<'a, T>(
    words: &'a [u64],
    into: &mut Vec<T>,
    from: impl Fn(u64) -> T,
) -> Result<&'a [u64]> {
    let bad = || invalid("checkpoint part", words.len(), "the arrays a rank sends");
    let (&len, rest) = words.split_first().ok_or_else(bad)?;
    if rest.len() < len as usize {
        return Err(bad());
    }
    into.extend(rest[..len as usize].iter().map(|&w| from(w)));
    Ok(&rest[len as usize..])
}

/// Appends a rank's part of the checkpoint ([`Share::state_words`]) to `ck`.
fn append_part(ck: &mut Checkpoint, words: &[u64]) -> Result<()> {
    let w = take_array(words, &mut ck.counts, |w| w)?;
    let w = take_array(w, &mut ck.draws, |w| w)?;
    let w = take_array(w, &mut ck.time, f64::from_bits)?;
    let w = take_array(w, &mut ck.fired, |w| w)?;
    let w = take_array(w, &mut ck.events, |w| w)?;
    let w = take_array(w, &mut ck.a0, f64::from_bits)?;
    let w = take_array(w, &mut ck.a, f64::from_bits)?;
    let w = take_array(w, &mut ck.kept, |w| w)?;
    let w = take_array(w, &mut ck.gpu_thread, |w| w as u32)?;
    let w = take_array(w, &mut ck.gpu_counts, |w| w as u32)?;
    take_array(w, &mut ck.gpu_props, |w| w as u32)?;
    Ok(())
}

/// An answer as words: `OK` and the values, or `FAILED` and the error's text.
fn answer_words(answer: Result<Vec<u64>>) -> Vec<u64> {
    match answer {
        Ok(values) => [vec![OK], values].concat(),
        Err(e) => [vec![FAILED], text_words(&e.to_string())].concat(),
    }
}

/// `f`, its panic (a bug) turned into an error so that the rank still answers.
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(ModelError::Usage(format!("panicked: {what}")))
    })
}

/// Rank 0's hold on the others: asks them, and tells them to end once (when dropped).
struct Lead {
    team: Arc<dyn Team>,
}

impl Lead {
    fn rank_error(&self, rank: usize, message: String) -> ModelError {
        ModelError::Rank {
            rank,
            size: self.team.size(),
            host: self.team.host(rank),
            message,
        }
    }

    /// The answer of every rank but 0, in rank order; the first failure as an error naming
    /// its rank. Every answer is read, so that no rank is left sending.
    fn answers(&self) -> Result<Vec<Vec<u64>>> {
        let mut failed = None;
        let mut out = Vec::new();
        for rank in 1..self.team.size() {
            let words = self.team.receive(rank);
            match words.first() {
                Some(&OK) => out.push(words[1..].to_vec()),
                _ => {
                    let text = words_text(words.get(1..).unwrap_or_default());
                    failed.get_or_insert_with(|| self.rank_error(rank, text));
                }
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Sends `request` to every other rank, runs rank 0's part `own`, and returns every
    /// rank's answer in rank order (rank 0's first); rank 0's error comes before the others'.
    fn ask(
        &self,
        request: &[u64],
        own: impl FnOnce() -> Result<Vec<u64>>,
    ) -> Result<Vec<Vec<u64>>> {
        for rank in 1..self.team.size() {
            self.team.send(rank, request);
        }
        let own = guarded(own);
        let others = self.answers();
        let mut all = vec![own?];
        all.extend(others?);
        Ok(all)
    }
}

impl Drop for Lead {
    fn drop(&mut self) {
        for rank in 1..self.team.size() {
            self.team.send(rank, &[QUIT]);
        }
    }
}

/// Opens the ensemble of `spec` as one rank of `team`: on rank 0, the simulation that drives
/// the others, and where it runs; on the others, serves rank 0 until it ends the run (None).
/// `spec` is built on every rank (each opens its own device); a rank that cannot build its
/// share takes the run down before the folder is touched.
pub fn open_ranks(
    team: Arc<dyn Team>,
    spec: impl FnOnce() -> Result<ShareSpec>,
) -> Result<Option<(TeamRun, Placement)>> {
    let (rank, size) = (team.rank(), team.size());
    let build = || {
        let spec = spec()?;
        let n = spec.opts.trajectories;
        if n < size as u64 {
            let allowed = format!("at least one trajectory per rank ({size} ranks)");
            return Err(invalid("trajectories", n, allowed));
        }
        let reason = spec.reason.clone();
        Ok((Share::new(spec, share(n, rank, size))?, reason))
    };
    if rank > 0 {
        return serve(team.as_ref(), guarded(build).map(|b| b.0)).map(|_| None);
    }
    let lead = Lead { team };
    let (share, reason) = guarded(build)?;
    // Each rank's device, from its first answer.
    let devices = lead.answers()?;
    let mut records = vec![share.device()];
    records.extend(devices.iter().map(|w| words_text(w)));
    if let Engine::Gpu { header, .. } = &share.engine {
        if let Some(r) = records.iter().position(|d| *d != header.adapter) {
            let message = format!(
                "runs on {}, rank 0 on {}: a GPU ensemble over ranks needs one kind of adapter \
                 on every rank (its trajectories depend on the adapter's arithmetic)",
                records[r], header.adapter
            );
            return Err(lead.rank_error(r, message));
        }
    }
    let n = share.opts.trajectories;
    let ranks = records
        .into_iter()
        .enumerate()
        .map(|(r, device)| {
            let range = crate::team::share(n, r, size);
            RankRecord {
                rank: r,
                host: lead.team.host(r),
                device,
                share: [range.start, range.end],
            }
        })
        .collect();
    let placement = Placement {
        device: match &share.engine {
            Engine::Cpu(_) => "cpu".into(),
            Engine::Gpu { header, .. } => header.adapter.clone(),
        },
        reason: format!("{reason}; {size} ranks"),
    };
    Ok(Some((TeamRun::new(lead, share, ranks)?, placement)))
}

/// A rank's part of the run: says whether its share was built (and on which device), then
/// answers rank 0 until it ends the run. A rank that could not build its share waits for the
/// end and returns its error.
fn serve(team: &dyn Team, share: Result<Share>) -> Result<()> {
    let mut share = match share {
        Ok(share) => {
            team.send(0, &answer_words(Ok(text_words(&share.device()))));
            share
        }
        Err(e) => {
            team.send(0, &answer_words(Err(ModelError::Usage(e.to_string()))));
            while team.receive(0).first() != Some(&QUIT) {}
            return Err(e);
        }
    };
    loop {
        let request = team.receive(0);
        match guarded(|| Ok(share.answer(&request))) {
            Ok(None) => return Ok(()),
            Ok(Some(answer)) => team.send(0, &answer_words(answer)),
            Err(e) => team.send(0, &answer_words(Err(e))),
        }
    }
}

/// Rank 0's simulation of an ensemble over ranks, for the runtime: step k is output time k.
pub struct TeamRun {
    lead: Lead,
    share: Share,
    ranks: Vec<RankRecord>,
    plot: Vec<usize>,
    step: u64,
    /// The step the run stops at (for planning the first span).
    end: u64,
    /// Exact sums of the output times run so far over every rank (`n`: every trajectory).
    acc: Accumulator,
    /// Rows of the output times run so far (may be ahead of `step`).
    rows: Rows,
    run_s: f64,
}

impl TeamRun {
    fn new(lead: Lead, share: Share, ranks: Vec<RankRecord>) -> Result<Self> {
        let opts = &share.opts;
        let (times, plot) = opts.check(&share.net)?;
        let last = times.len() as u64 - 1;
        let mut acc = Accumulator::new(&times, share.species.clone());
        acc.n = opts.trajectories;
        let mut rows = Rows::new(times, share.species.clone(), opts.trajectories);
        let mut step = 0;
        if let Some(path) = &opts.resume {
            let ck = Checkpoint::load(path)?;
            rows.restore(&ck);
            step = ck.header.step;
        }
        let end = opts
            .steps
            .map_or(last, |n| step.saturating_add(n).min(last));
        Ok(Self {
            lead,
            ranks,
            plot,
            step,
            end,
            acc,
            rows,
            run_s: 0.0,
            share,
        })
    }

    fn opts(&self) -> &RunOptions {
        &self.share.opts
    }

    fn checkpoint_every(&self) -> Option<u64> {
        self.share.opts.checkpoint_every
    }

    /// Every rank runs the span that ends at output time `stop_step` (included); their sums
    /// are added in rank order and the span's rows recorded.
    fn run_to(&mut self, stop_step: u64) -> Result<()> {
        let start = Instant::now();
        let stop = stop_step as usize + 1;
        // States are needed where another span or a checkpoint follows.
        let keep_states = stop < self.rows.times.len() || self.opts().checkpoint_every.is_some();
        let share = &mut self.share;
        let request = [ADVANCE, stop as u64, keep_states as u64];
        let answers = self
            .lead
            .ask(&request, || share.run_to(stop, keep_states))?;
        let first = self.rows.len();
        let ns = self.rows.species.len();
        for (rank, words) in answers.iter().enumerate() {
            if words.len() != (stop - first) * ns * 4 {
                let message = format!(
                    "sent {} words of sums for outputs {first}..{stop}",
                    words.len()
                );
                return Err(self.lead.rank_error(rank, message));
            }
            for (i, w) in words.chunks(4).enumerate() {
                let (k, s) = (first + i / ns, i % ns);
                self.acc.sum[k][s] += w[0] as u128 | (w[1] as u128) << 64;
                self.acc.sum_sq[k][s] += w[2] as u128 | (w[3] as u128) << 64;
            }
        }
        for k in first..stop {
            self.rows.push(self.acc.row(k));
        }
        self.run_s += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// Every trajectory's kept samples of the first `rows` outputs, in index order
    /// (`kept[trajectory][time][species]`); None without `keep_trajectories`.
    fn gather_kept(&mut self, rows: usize) -> Result<Option<Vec<Vec<Vec<u64>>>>> {
        if !self.opts().keep_trajectories {
            return Ok(None);
        }
        let share = &self.share;
        let parts = self
            .lead
            .ask(&[KEPT, rows as u64], || Ok(share.kept_flat(rows)))?;
        let ns = self.rows.species.len();
        let all = parts.concat();
        Ok(Some(
            all.chunks(rows * ns)
                .map(|t| t.chunks(ns).map(<[u64]>::to_vec).collect())
                .collect(),
        ))
    }
}

impl Simulation for TeamRun {
    type Observation = MeanSdRow;
    type Details = Details;

    fn describe(&self) -> String {
        let ranks = format!(" over {} ranks", self.lead.team.size());
        let device = match &self.share.engine {
            Engine::Cpu(_) => "cpu",
            Engine::Gpu { .. } => "gpu",
        };
        ensemble_description(&self.share.net, self.opts(), device, &ranks)
    }
    fn plan_run(&mut self, steps: u64, checkpoint_every: Option<u64>) -> Result<()> {
        super::run::check_steps_left(self.schedule().steps, self.step, steps)?;
        self.end = self.step.saturating_add(steps);
        self.share.opts.checkpoint_every = checkpoint_every;
        Ok(())
    }
    fn summary(&self, _last: &MeanSdRow) -> Vec<String> {
        ensemble_summary(self.opts().trajectories, self.run_s)
    }
    span_steps!();
    /// trajectories.csv (when kept, gathered from every rank) and mean_sd.png.
    fn write_final_state(&mut self, dir: &Path) -> Result<Vec<String>> {
        let rows = self.step as usize + 1;
        let kept = self.gather_kept(rows)?;
        let stats = self.rows.stats(rows);
        let name = &self.share.net.id;
        write_ensemble_files(dir, &stats, kept.as_deref(), &self.plot, name)
    }
    /// The checkpoint one process writes: every rank's trajectories in index order.
    fn save_checkpoint(&mut self, path: &Path) -> Result<()> {
        let step = self.step;
        let share = &self.share;
        let parts = self.lead.ask(&[STATE, step], || share.state_words(step))?;
        let gpu = match &self.share.engine {
            Engine::Cpu(_) => None,
            Engine::Gpu { header, .. } => Some(header.clone()),
        };
        let header = checkpoint_header(&self.share.net, self.opts(), step, gpu);
        let (mean, sd) = self.rows.flat(step as usize + 1);
        let none: &[Trajectory] = &[];
        let mut ck = Checkpoint::new(header, none, mean, sd, Vec::new());
        for part in &parts {
            append_part(&mut ck, part).map_err(|e| ModelError::Checkpoint {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
        }
        ck.save(path)
    }
    /// Statistics, and with `keep_trajectories` every trajectory's samples (gathered).
    fn state_arrays(&mut self) -> Result<Vec<StateArray>> {
        if self.rows.len() as u64 <= self.step {
            self.observe()?;
        }
        let kept = self.gather_kept(self.step as usize + 1)?;
        Ok(self.rows.arrays(self.step, kept.as_deref(), None))
    }
    fn manifest_details(&self, _first_step: u64, _last: &MeanSdRow) -> Result<Details> {
        let share = &self.share;
        let mut d = Details::new(&share.net, self.opts(), &self.plot, self.run_s);
        if let Engine::Gpu { adapter, .. } = &share.engine {
            d.device = "gpu";
            d.adapter = Some(adapter.clone());
            d.cpu_threads = None;
        }
        d.resumed_from = self.opts().resume.as_ref().map(|p| p.display().to_string());
        d.ranks = self.ranks.clone();
        Ok(d)
    }
}
