//! Gillespie's direct method for general networks (`reactions::general`): propensities from
//! any kinetic law, assignment rules applied after every change, and SBML events, all exact.
//!
//! Between two reaction events the state is constant, and so are the propensities (laws and
//! the rules they read may not read time; the reader refuses those). A trigger may read time
//! only by comparing it with values (`math::time_enters_by_comparison`), so it can turn true
//! only at one of those values: the next such time, or a delayed event's execution time, is
//! known exactly. When it comes before the next reaction event, the clock moves to it, the
//! events run, and the waiting time is drawn again (exact, as waiting times are memoryless).
//! State triggers are evaluated after every change; an event fires when its trigger turns from
//! false to true (SBML Level 3, section 4.12), and events due at the same time run by priority,
//! equal priorities in random order.

use super::ensemble::{check_times, trajectory_seed};
use super::stats::{Accumulator, EnsembleStats};
use super::stream::Stream;
use crate::error::{invalid, short, ModelError, Result};
use crate::reactions::general::{Assignment, GeneralNetwork, Target};
use crate::reactions::math::{comparison_times, State};
use crate::reactions::{binomial, COUNT_LIMIT};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A network and what depends on what in it, worked out once for all trajectories.
pub struct GeneralTables {
    net: GeneralNetwork,
    /// Per reaction: (species, change) pairs (fixed species left out).
    changes: Vec<Vec<(usize, f64)>>,
    /// Per species: the reactions whose propensity reads it (rules followed).
    species_readers: Vec<Vec<usize>>,
    /// Per value: the reactions whose propensity reads it.
    value_readers: Vec<Vec<usize>>,
}

impl GeneralTables {
    pub fn new(net: GeneralNetwork) -> Arc<Self> {
        let (ns, nv) = (net.network.species.len(), net.values.len());
        let (mut species_readers, mut value_readers) = (vec![vec![]; ns], vec![vec![]; nv]);
        for r in 0..net.laws.len() {
            let (species, values) = net.law_reads(r);
            species.into_iter().for_each(|s| species_readers[s].push(r));
            values.into_iter().for_each(|v| value_readers[v].push(r));
        }
        let changes = net
            .network
            .state_changes()
            .into_iter()
            .map(|list| list.into_iter().map(|(s, d)| (s, d as f64)).collect())
            .collect();
        Arc::new(Self {
            net,
            changes,
            species_readers,
            value_readers,
        })
    }

    pub fn network(&self) -> &GeneralNetwork {
        &self.net
    }
}

/// Executions at one time before a trajectory stops: events that keep triggering each other
/// would otherwise hold the clock for good.
pub const MAX_EXECUTIONS_AT_ONCE: u32 = 10_000;

/// An execution of an event waiting for its time.
#[derive(Clone, Debug)]
struct Pending {
    time: f64,
    event: usize,
    /// The assignments' values, when taken at the trigger time.
    values: Option<Vec<f64>>,
}

/// What a checkpoint keeps of a trajectory paused at an output time: everything but its
/// propensities, which follow from the state (they are worked out again, bitwise the same,
/// summed in reaction order).
#[derive(Clone, Debug, PartialEq)]
pub struct SavedTrajectory {
    pub counts: Vec<u64>,
    pub values: Vec<f64>,
    pub time: f64,
    /// Random numbers drawn (the stream's seed follows from the ensemble's and the index).
    pub draws: u64,
    pub triggers: Vec<bool>,
    /// Executions waiting for their time, in the order they were scheduled: (time, event,
    /// the assignments' values when taken at the trigger time).
    pub pending: Vec<(f64, usize, Option<Vec<f64>>)>,
}

/// One trajectory of a general network.
pub struct GeneralTrajectory {
    tables: Arc<GeneralTables>,
    counts: Vec<f64>,
    values: Vec<f64>,
    t: f64,
    stream: Stream,
    propensities: Vec<f64>,
    /// Reactions whose propensity must be worked out again.
    dirty: BTreeSet<usize>,
    triggers: Vec<bool>,
    pending: Vec<Pending>,
}

impl GeneralTrajectory {
    /// The state at time 0: initial values, initial assignments, rules, and the events that
    /// fire at the start.
    pub fn new(tables: &Arc<GeneralTables>, seed: u64) -> std::result::Result<Self, String> {
        let mut traj = Self::before_events(tables, seed)?;
        traj.settle_events()?;
        Ok(traj)
    }

    /// The state at time 0 before its events: initial values, initial assignments and rules,
    /// the triggers at their `initialValue`.
    pub fn before_events(
        tables: &Arc<GeneralTables>,
        seed: u64,
    ) -> std::result::Result<Self, String> {
        let net = &tables.net;
        let mut traj = Self {
            tables: tables.clone(),
            counts: net
                .network
                .species
                .iter()
                .map(|s| s.initial_count as f64)
                .collect(),
            values: net.values.iter().map(|v| v.initial).collect(),
            t: 0.0,
            stream: Stream::new(seed),
            propensities: vec![0.0; net.laws.len()],
            dirty: (0..net.laws.len()).collect(),
            triggers: net.events.iter().map(|e| e.initial_value).collect(),
            pending: Vec::new(),
        };
        let tables = traj.tables.clone();
        for a in &tables.net.initial_assignments {
            let v = traj.eval(&a.expr);
            traj.assign(a, v)?;
        }
        traj.apply_rules()?;
        Ok(traj)
    }

    pub fn time(&self) -> f64 {
        self.t
    }

    /// The state a checkpoint keeps.
    pub fn saved(&self) -> SavedTrajectory {
        SavedTrajectory {
            counts: self.counts.iter().map(|&c| c as u64).collect(),
            values: self.values.clone(),
            time: self.t,
            draws: self.stream.draws(),
            triggers: self.triggers.clone(),
            pending: self
                .pending
                .iter()
                .map(|p| (p.time, p.event, p.values.clone()))
                .collect(),
        }
    }

    /// The trajectory of seed `seed` in the state `saved`, after checking it against the
    /// network: sizes, counts in range, values finite where the network's are, pending
    /// executions of real events, not before the trajectory's time, with a value for each of
    /// their assignments when taken at the trigger time.
    pub fn restore(
        tables: &Arc<GeneralTables>,
        seed: u64,
        saved: SavedTrajectory,
    ) -> std::result::Result<Self, String> {
        let net = &tables.net;
        let (s, v, e) = (
            net.network.species.len(),
            net.values.len(),
            net.events.len(),
        );
        if (saved.counts.len(), saved.values.len(), saved.triggers.len()) != (s, v, e) {
            return Err(format!(
                "{} counts, {} values and {} triggers where the network has {s} species, {v} \
                 values and {e} events",
                saved.counts.len(),
                saved.values.len(),
                saved.triggers.len()
            ));
        }
        if let Some(c) = saved.counts.iter().find(|&&c| c >= COUNT_LIMIT) {
            return Err(format!("a count of {c}: counts stay in 0..2^30"));
        }
        // A value the model never gives nor sets stays NaN; any other is finite.
        let unset = |i: usize| saved.values[i].is_nan() && net.values[i].initial.is_nan();
        if let Some(i) = (0..v).find(|&i| !(saved.values[i].is_finite() || unset(i))) {
            return Err(format!(
                "\"{}\" is {}: values are finite",
                net.values[i].id, saved.values[i]
            ));
        }
        if !(saved.time.is_finite() && saved.time >= 0.0) {
            return Err(format!("time {}: not a finite number >= 0", saved.time));
        }
        for (time, event, values) in &saved.pending {
            let Some(ev) = net.events.get(*event) else {
                return Err(format!("a pending execution of event {event} of {e}"));
            };
            let taken = values.as_ref().map(Vec::len);
            let wanted = ev
                .use_values_from_trigger_time
                .then_some(ev.assignments.len());
            if !(time.is_finite() && *time >= saved.time) || taken != wanted {
                return Err(format!(
                    "a pending execution of {} at t = {} with {taken:?} values (it needs a \
                     time from {} on and {wanted:?} values)",
                    ev.origin,
                    short(*time),
                    short(saved.time)
                ));
            }
        }
        Ok(Self {
            tables: tables.clone(),
            counts: saved.counts.iter().map(|&c| c as f64).collect(),
            values: saved.values,
            t: saved.time,
            stream: Stream::at(seed, saved.draws),
            propensities: vec![0.0; net.laws.len()],
            dirty: (0..net.laws.len()).collect(),
            triggers: saved.triggers,
            pending: saved
                .pending
                .into_iter()
                .map(|(time, event, values)| Pending {
                    time,
                    event,
                    values,
                })
                .collect(),
        })
    }

    /// Every model value (parameters, compartment sizes, rules' values) as it stands.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The species counts, then the values set by rules (`GeneralNetwork::outputs`).
    pub fn outputs(&self) -> (Vec<u64>, Vec<f64>) {
        let counts = self.counts.iter().map(|&c| c as u64).collect();
        let values = self
            .tables
            .net
            .rule_values()
            .map(|i| self.values[i])
            .collect();
        (counts, values)
    }

    fn state(&self) -> State<'_> {
        State {
            counts: &self.counts,
            values: &self.values,
            time: self.t,
        }
    }

    fn eval(&self, e: &crate::reactions::math::Expr) -> f64 {
        e.eval(&self.state())
    }

    /// Sets `a`'s target to `v`: a species must get a whole number of items >= 0.
    fn assign(&mut self, a: &Assignment, v: f64) -> std::result::Result<(), String> {
        match a.target {
            Target::Species(s) => {
                let count = v.round();
                if !(v.is_finite() && (v - count).abs() <= 1e-9 * count.abs().max(1.0))
                    || count < 0.0
                    || count >= COUNT_LIMIT as f64
                {
                    return Err(format!(
                        "{} sets species \"{}\" to {} at t = {}: a count must be a whole \
                         number in 0..2^30",
                        a.origin,
                        self.tables.net.network.species[s].id,
                        short(v),
                        short(self.t)
                    ));
                }
                if self.counts[s] != count {
                    self.counts[s] = count;
                    self.dirty.extend(&self.tables.species_readers[s]);
                }
            }
            Target::Value(i) => {
                if !v.is_finite() {
                    return Err(format!(
                        "{} sets \"{}\" to {} at t = {}: not a finite number",
                        a.origin,
                        self.tables.net.values[i].id,
                        short(v),
                        short(self.t)
                    ));
                }
                if self.values[i] != v {
                    self.values[i] = v;
                    self.dirty.extend(&self.tables.value_readers[i]);
                }
            }
        }
        Ok(())
    }

    fn apply_rules(&mut self) -> std::result::Result<(), String> {
        let tables = self.tables.clone();
        for rule in &tables.net.rules {
            let v = self.eval(&rule.expr);
            self.assign(rule, v)?;
        }
        Ok(())
    }

    /// Evaluates every trigger: those that turned true schedule their event (now, or after
    /// the delay), those that turned false cancel their non-persistent pending executions.
    fn update_triggers(&mut self) -> std::result::Result<(), String> {
        let tables = self.tables.clone();
        let net = &tables.net;
        for (e, event) in net.events.iter().enumerate() {
            let now = self.eval(&event.trigger) != 0.0;
            let before = std::mem::replace(&mut self.triggers[e], now);
            if now && !before {
                let delay = event.delay.as_ref().map_or(0.0, |d| self.eval(d));
                if !(delay.is_finite() && delay >= 0.0) {
                    return Err(format!(
                        "{}: delay {} at t = {}: a delay must be finite and >= 0",
                        event.origin,
                        short(delay),
                        short(self.t)
                    ));
                }
                let values = event.use_values_from_trigger_time.then(|| {
                    event
                        .assignments
                        .iter()
                        .map(|a| self.eval(&a.expr))
                        .collect()
                });
                self.pending.push(Pending {
                    time: self.t + delay,
                    event: e,
                    values,
                });
            } else if before && !now && !event.persistent {
                self.pending.retain(|p| p.event != e);
            }
        }
        Ok(())
    }

    /// Runs every event due now, highest priority first (ties in random order), each followed
    /// by the rules and the triggers, until none is due.
    fn settle_events(&mut self) -> std::result::Result<(), String> {
        let tables = self.tables.clone();
        let net = &tables.net;
        self.update_triggers()?;
        // Most reaction events leave nothing pending.
        let mut executions = 0;
        while !self.pending.is_empty() {
            let due: Vec<usize> = (0..self.pending.len())
                .filter(|&i| self.pending[i].time <= self.t)
                .collect();
            if due.is_empty() {
                return Ok(());
            }
            let priority = |i: usize| {
                let event = &net.events[self.pending[i].event];
                event
                    .priority
                    .as_ref()
                    .map_or(f64::NEG_INFINITY, |p| self.eval(p))
            };
            let top = due
                .iter()
                .map(|&i| priority(i))
                .fold(f64::NEG_INFINITY, f64::max);
            let first: Vec<usize> = due.into_iter().filter(|&i| priority(i) == top).collect();
            executions += 1;
            if first.is_empty() || executions > MAX_EXECUTIONS_AT_ONCE {
                return Err(format!(
                    "events keep firing at t = {}: more than {MAX_EXECUTIONS_AT_ONCE} \
                     executions at one time, or priorities that are NaN",
                    short(self.t)
                ));
            }
            let pick = match first.len() {
                1 => first[0],
                n => first[((self.stream.uniform() * n as f64) as usize).min(n - 1)],
            };
            let p = self.pending.remove(pick);
            let event = &net.events[p.event];
            let values = match p.values {
                Some(v) => v,
                None => event
                    .assignments
                    .iter()
                    .map(|a| self.eval(&a.expr))
                    .collect(),
            };
            for (a, v) in event.assignments.iter().zip(values) {
                self.assign(a, v)?;
            }
            self.apply_rules()?;
            self.update_triggers()?;
        }
        Ok(())
    }

    /// The first time in [t, horizon] at which a trigger may turn true or a pending execution
    /// is due: the values triggers compare time with, checked at and just after each.
    fn next_timed(&self, horizon: f64) -> Option<f64> {
        let net = &self.tables.net;
        if net.events.is_empty() {
            return None;
        }
        let mut next = self
            .pending
            .iter()
            .map(|p| p.time)
            .fold(f64::INFINITY, f64::min);
        let state = self.state();
        for (e, event) in net.events.iter().enumerate() {
            if self.triggers[e] {
                continue;
            }
            let mut times = Vec::new();
            comparison_times(&event.trigger, &state, &mut times);
            times.retain(|&c| c >= self.t && c <= horizon.min(next));
            times.sort_by(f64::total_cmp);
            for c in times {
                let at = |time: f64| {
                    let s = State {
                        time,
                        ..self.state()
                    };
                    event.trigger.eval(&s) != 0.0
                };
                // At c (>=, ==, <=), or just after it (>, <): then the first time it holds is
                // the next number after c.
                let fires = if at(c) && c > self.t {
                    Some(c)
                } else if at(c.next_up()) {
                    Some(c.next_up())
                } else {
                    None
                };
                if let Some(f) = fires {
                    next = next.min(f);
                    break;
                }
            }
        }
        (next <= horizon).then_some(next)
    }

    fn total_propensity(&mut self) -> std::result::Result<f64, String> {
        let tables = self.tables.clone();
        let net = &tables.net;
        for r in std::mem::take(&mut self.dirty) {
            let reaction = &net.network.reactions[r];
            let a = match &net.laws[r] {
                Some(law) => self.eval(law),
                None => reaction
                    .reactants
                    .iter()
                    .fold(reaction.rate, |a, &(s, nu)| {
                        a * binomial(self.counts[s] as u64, nu)
                    }),
            };
            if !(a.is_finite() && a >= 0.0) {
                return Err(format!(
                    "reaction \"{}\" has propensity {} at t = {}: a propensity must be finite \
                     and >= 0",
                    reaction.id,
                    short(a),
                    short(self.t)
                ));
            }
            self.propensities[r] = a;
        }
        // Summed in reaction order, so the sum does not depend on which were recomputed.
        Ok(self.propensities.iter().sum())
    }

    /// Moves the trajectory to time `t_end` (events due at `t_end` included).
    pub fn advance_to(&mut self, t_end: f64) -> std::result::Result<(), String> {
        loop {
            let a0 = self.total_propensity()?;
            let timed = self.next_timed(t_end);
            let t_reaction = match a0 > 0.0 {
                true => self.t + self.stream.exponential() / a0,
                false => f64::INFINITY,
            };
            if let Some(te) = timed.filter(|&te| te <= t_reaction) {
                self.t = te;
                self.settle_events()?;
                continue;
            }
            if t_reaction > t_end {
                self.t = t_end;
                return Ok(());
            }
            if t_reaction == self.t {
                return Err(format!(
                    "the clock cannot move at t = {} (total propensity {})",
                    short(self.t),
                    short(a0)
                ));
            }
            self.t = t_reaction;
            let target = self.stream.uniform() * a0;
            let r = self.pick(target);
            self.fire(r)?;
            self.apply_rules()?;
            self.settle_events()?;
        }
    }

    /// The reaction whose running sum first passes `target` (the last one with a positive
    /// propensity where rounding leaves the target at the total).
    fn pick(&self, target: f64) -> usize {
        let mut sum = 0.0;
        let mut last = 0;
        for (r, &a) in self.propensities.iter().enumerate() {
            if a > 0.0 {
                sum += a;
                last = r;
                if target < sum {
                    return r;
                }
            }
        }
        last
    }

    fn fire(&mut self, r: usize) -> std::result::Result<(), String> {
        let tables = self.tables.clone();
        for &(s, d) in &tables.changes[r] {
            let x = self.counts[s] + d;
            if x < 0.0 || x >= COUNT_LIMIT as f64 {
                return Err(format!(
                    "reaction \"{}\" at t = {} takes species \"{}\" to {}: counts stay in \
                     0..2^30 (a law that is positive where a reactant is used up?)",
                    tables.net.network.reactions[r].id,
                    short(self.t),
                    tables.net.network.species[s].id,
                    x
                ));
            }
            self.counts[s] = x;
            self.dirty.extend(&tables.species_readers[s]);
        }
        Ok(())
    }
}

/// `n` trajectories of `net` sampled at `times` (ascending, >= 0), trajectory i seeded with
/// `trajectory_seed(seed, i)` as in every CPU ensemble. The species' sums are exact; the rule
/// values' sums are taken in trajectory order, so the result does not depend on threads.
pub fn run_general_cpu(
    net: &GeneralNetwork,
    n: u64,
    seed: u64,
    times: &[f64],
) -> Result<EnsembleStats> {
    use rayon::prelude::*;
    net.validate()?;
    check_times(times)?;
    if n == 0 {
        return Err(invalid("trajectories", 0, "at least 1"));
    }
    let tables = GeneralTables::new(net.clone());
    let species: Vec<String> = net.network.species.iter().map(|s| s.id.clone()).collect();
    let n_values = net.rule_values().count();
    const CHUNK: u64 = 256;
    let chunks: Vec<(Accumulator, Vec<Vec<[f64; 2]>>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut acc = Accumulator::new(times, species.clone());
            let mut sums = vec![vec![[0.0; 2]; n_values]; times.len()];
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let fail = |why: String| ModelError::Stalled {
                    message: format!("trajectory {i}: {why}"),
                };
                let mut traj =
                    GeneralTrajectory::new(&tables, trajectory_seed(seed, i)).map_err(fail)?;
                let mut samples = Vec::with_capacity(times.len());
                for (k, &t) in times.iter().enumerate() {
                    traj.advance_to(t).map_err(fail)?;
                    let (counts, values) = traj.outputs();
                    samples.push(counts);
                    for (v, x) in values.into_iter().enumerate() {
                        sums[k][v][0] += x;
                        sums[k][v][1] += x * x;
                    }
                }
                acc.add(&samples);
            }
            Ok((acc, sums))
        })
        .collect::<Result<_>>()?;
    let mut total = Accumulator::new(times, species);
    let mut sums = vec![vec![[0.0; 2]; n_values]; times.len()];
    for (acc, chunk_sums) in &chunks {
        total = total.merge(acc);
        for (row, chunk_row) in sums.iter_mut().zip(chunk_sums) {
            for (s, c) in row.iter_mut().zip(chunk_row) {
                s[0] += c[0];
                s[1] += c[1];
            }
        }
    }
    let mut stats = total.finish();
    let names: Vec<String> = net
        .rule_values()
        .map(|i| net.values[i].id.clone())
        .collect();
    add_value_stats(&mut stats, &names, &sums, n);
    Ok(stats)
}

/// Appends the mean and sd of values over `n` trajectories from their sums
/// (`sums[time][value]` = [sum x, sum x^2]) to `stats`, named `names`.
pub fn add_value_stats(
    stats: &mut EnsembleStats,
    names: &[String],
    sums: &[Vec<[f64; 2]>],
    n: u64,
) {
    let m = n as f64;
    stats.species.extend(names.iter().cloned());
    for (k, row) in sums.iter().enumerate() {
        for &[sx, sxx] in row {
            let mean = sx / m;
            let var = match n {
                1 => 0.0,
                _ => ((sxx - sx * sx / m) / (m - 1.0)).max(0.0),
            };
            stats.mean[k].push(mean);
            stats.sd[k].push(var.sqrt());
        }
    }
}
