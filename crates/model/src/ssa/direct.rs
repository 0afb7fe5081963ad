//! Gillespie's direct method on the CPU: the exact reference the GPU simulators are checked
//! against. Each event fires the first reaction whose running sum of propensities passes
//! u * a0, the reactions taken in a fixed order per network (`sum_order`: those whose
//! propensities change least often first); the waiting time is Exp(1) / a0, Exp(1) from a
//! ziggurat (`Stream::exponential`). What makes it fast without changing a single draw or sum:
//! `DirectTables` (built once per network) lists for each reaction the reactions whose
//! propensities its firing changes, so only those are recomputed; the running sums are kept as
//! prefix sums, recomputed only from the first changed reaction on (late in the order, so a
//! short chain of additions), so a0 is the last of them (the same left-to-right sum as summing
//! afresh, bit for bit) and the reaction is found by scanning them (`first_past`). Propensities
//! read a factor table kept beside the counts (`DirectTables`). Where Cranelift can, each
//! reaction's event (changes, dependents, sums) runs as machine code compiled for the network
//! (`event_code`): the same operations in the same order, so the same bits. A trajectory runs
//! from one sample time to the next (`DirectTrajectory`), so an ensemble can pause between
//! output times.

use super::event_code::{EventCode, EventEntry, EventSpec, Fired};
use super::stop::{check_counts, check_resolvable, fire_one, next_event_after, Stop};
use super::stream::Stream;
use crate::error::Result;
use crate::reactions::{Network, COUNT_LIMIT};

/// One trajectory from the initial counts, seeded by `seed`. Returns the counts of every species
/// (indexed like `net.species`) at each of `sample_times`: the state after all events at times
/// <= the sample time. Boundary species never change. A count that reaches the count limit, or
/// a run that cannot advance, is an error (`super::stop`).
///
/// # Panics
/// If `sample_times` is not ascending within [0, t_end] (a caller's mistake, not bad input).
/// `net` is expected to have passed `Network::validate`.
pub fn simulate_direct(
    net: &Network,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> Result<Vec<Vec<u64>>> {
    sample_direct(&DirectTables::new(net), seed, t_end, sample_times)
        .map_err(|stop| stop.error(net, None))
}

/// `simulate_direct` with the network's tables built once by the caller, stopping with the
/// `Stop` (the ensemble names the trajectory).
pub(crate) fn sample_direct(
    tables: &DirectTables,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> std::result::Result<Vec<Vec<u64>>, Stop> {
    assert!(
        sample_times.windows(2).all(|w| w[0] <= w[1])
            && sample_times.iter().all(|&t| (0.0..=t_end).contains(&t)),
        "sample times must be ascending within [0, t_end = {t_end}]"
    );
    let mut trajectory = DirectTrajectory::new(tables, Stream::new(seed));
    sample_times
        .iter()
        .map(|&t| {
            trajectory.advance_to(tables, t)?;
            Ok(trajectory.counts.clone())
        })
        .collect()
}

/// What the direct method builds once per network and shares between its trajectories.
///
/// A propensity is c * f1 * f2, each factor read from a trajectory's factor table: x_s (a
/// first-order reactant), C(x_s, 2) (2A), or 1 (no further reactant). Those are the products of
/// `Reaction::propensity` in its order, so the same bits, without a branch or a loop. The
/// counts themselves live in the table during a run (x_s, exact in f64 below 2^30).
#[derive(Clone, Debug)]
pub struct DirectTables {
    /// The initial counts of a new trajectory.
    initial: Vec<u64>,
    /// Per reaction (in the order of `sum_order`: "reaction i" below is reaction
    /// `sum_order(..)[i]` of the network), c and the indices of its two factors in the factor table.
    propensities: Vec<Propensity>,
    /// Per reaction j, `changes[events[j].changes]` is its net change of the species counts
    /// (`Network::state_changes`), and `dependents[events[j].dependents]` the propensities it
    /// can change: the reactions with a reactant whose count it changes, in ascending order.
    events: Vec<Event>,
    changes: Vec<Change>,
    /// A dependent reaction with its propensity's terms, read together (no second lookup).
    dependents: Vec<Dependent>,
    /// The events compiled for this network, where the processor allows (`event_code`).
    code: Option<std::sync::Arc<EventCode>>,
}

/// c, and the indices of the two factors (`DirectTables`).
#[derive(Clone, Copy, Debug)]
struct Propensity {
    rate: f64,
    factors: [u32; 2],
}

impl Propensity {
    #[inline]
    fn of(&self, f: &[f64]) -> f64 {
        self.rate * f[self.factors[0] as usize] * f[self.factors[1] as usize]
    }
}

/// One species' net change by a reaction: the species (its count x at `factors[s]`, its
/// C(x, 2) at `factors[pair]`) and the change as i64 and as f64.
#[derive(Clone, Copy, Debug)]
struct Change {
    s: u32,
    pair: u32,
    d: i64,
    d_f64: f64,
}

/// A reaction whose propensity an event can change, and that propensity's terms.
#[derive(Clone, Copy, Debug)]
struct Dependent {
    reaction: u32,
    propensity: Propensity,
}

/// The ranges of one reaction's changes and dependents (`DirectTables`), and the first of the
/// dependents (where the running sums start to change; `u32::MAX` when there are none).
#[derive(Clone, Copy, Debug)]
struct Event {
    changes: [u32; 2],
    dependents: [u32; 2],
    first: u32,
}

impl DirectTables {
    /// `net` is expected to be valid (reactions of order at most 2).
    pub fn new(net: &Network) -> Self {
        let mut tables = Self::interpreted(net);
        tables.code = tables.compile().map(std::sync::Arc::new);
        tables
    }

    /// The tables without compiled events: every event runs the table loop.
    pub fn interpreted(net: &Network) -> Self {
        let n = net.species.len();
        let index = |i: usize| u32::try_from(i).expect("a network of fewer than 2^31 species");
        let one = index(2 * n);
        let propensities: Vec<Propensity> = net
            .reactions
            .iter()
            .map(|r| {
                let mut factors = [one; 2];
                for (slot, &(s, nu)) in r.reactants.iter().enumerate() {
                    factors[slot] = match nu {
                        0 => one,
                        1 => index(s),
                        2 => index(n + s),
                        _ => panic!("a validated network is at most bimolecular"),
                    };
                }
                Propensity {
                    rate: r.rate,
                    factors,
                }
            })
            .collect();
        let deltas = net.state_changes();
        let depends = net.dependents(&deltas);
        let order = sum_order(net, &depends);
        let mut place = vec![0; order.len()];
        for (i, &k) in order.iter().enumerate() {
            place[k] = i;
        }
        let (mut events, mut changes, mut dependents) = (Vec::new(), Vec::new(), Vec::new());
        for &j in &order {
            let (c0, d0) = (index(changes.len()), index(dependents.len()));
            let mut depends: Vec<usize> = depends[j].iter().map(|&k| place[k]).collect();
            depends.sort_unstable();
            let first = depends.first().map_or(u32::MAX, |&i| index(i));
            dependents.extend(depends.into_iter().map(|i| Dependent {
                reaction: index(i),
                propensity: propensities[order[i]],
            }));
            changes.extend(deltas[j].iter().map(|&(s, d)| Change {
                s: index(s),
                pair: index(n + s),
                d,
                d_f64: d as f64,
            }));
            events.push(Event {
                changes: [c0, index(changes.len())],
                dependents: [d0, index(dependents.len())],
                first,
            });
        }
        let propensities = order.iter().map(|&k| propensities[k]).collect();
        Self {
            initial: net.initial_counts(),
            propensities,
            events,
            changes,
            dependents,
            code: None,
        }
    }

    /// The events as machine code (`event_code`).
    fn compile(&self) -> Option<EventCode> {
        let specs: Vec<EventSpec> = self
            .events
            .iter()
            .map(|e| EventSpec {
                changes: self.changes[e.changes[0] as usize..e.changes[1] as usize]
                    .iter()
                    .map(|c| (c.s, c.pair, c.d_f64))
                    .collect(),
                dependents: self.dependents[e.dependents[0] as usize..e.dependents[1] as usize]
                    .iter()
                    .map(|d| (d.reaction, d.propensity.rate, d.propensity.factors))
                    .collect(),
                first: (e.first != u32::MAX).then_some(e.first),
            })
            .collect();
        let n = self.initial.len();
        EventCode::compile(&specs, 2 * n + 1, (2 * n) as u32, LIMIT_BITS)
    }

    /// Whether the events run as compiled code.
    pub fn is_compiled(&self) -> bool {
        self.code.is_some()
    }
}

/// The network's reactions in the order of the running sums: those whose propensity changes
/// least often first (ties in network order), so an event's sums change from late in the order
/// on and the chain of additions it recomputes is short. How often: the firings, in the ODM's
/// presimulation (fixed seed), of the reactions that change it (`depends`, per reaction the
/// reactions whose propensities it changes), plus one each (for reactions it never fires).
fn sum_order(net: &Network, depends: &[Vec<usize>]) -> Vec<usize> {
    let firings = super::odm::Odm::firings(net);
    let mut changed = vec![0u64; net.reactions.len()];
    for (j, depends) in depends.iter().enumerate() {
        for &k in depends {
            changed[k] += firings[j] + 1;
        }
    }
    let mut order: Vec<usize> = (0..net.reactions.len()).collect();
    order.sort_by_key(|&k| (changed[k], k));
    order
}

/// Sets the factors of species `s` (`DirectTables`) from its count `x` (as f64, exact: counts
/// stay below 2^30); `n` species. C(x, 2) = x (x - 1) / 2, 0 for x < 2: the bits of `binomial`.
#[inline]
fn set_factors(f: &mut [f64], n: usize, s: usize, x: f64) {
    f[s] = x;
    f[n + s] = pair_factor(x);
}

/// C(x, 2) of a count x (`set_factors`).
#[inline]
fn pair_factor(x: f64) -> f64 {
    x * (x - 1.0).max(0.0) * 0.5
}

/// The bits of `COUNT_LIMIT` as f64: a count x >= 0 is below the limit when its bits are below
/// these, and a negative one (sign bit set) compares above them.
const LIMIT_BITS: u64 = (COUNT_LIMIT as f64).to_bits();

/// The number of running sums <= `target` (they ascend): the index of the first one past it.
/// Small networks count them all, without a branch: a scan's exit, at a random reaction each
/// event, is a mispredicted branch, and the compares vectorise.
#[inline]
fn first_past(sums: &[f64], target: f64) -> usize {
    match sums.len() {
        0..=32 => sums.iter().map(|&sum| (sum <= target) as usize).sum(),
        _ => sums.partition_point(|&sum| sum <= target),
    }
}

/// A direct-method trajectory paused between events: its counts, the time of its next event
/// (already drawn) and its random stream. That is its whole state: a copy continues bitwise.
#[derive(Clone, Debug)]
pub struct DirectTrajectory {
    pub counts: Vec<u64>,
    /// Time of the next event (infinite when no reaction can fire).
    pub t_next: f64,
    pub stream: Stream,
    /// The propensities at `counts` (kept to pick the next event's reaction without
    /// computing them again).
    propensities: Vec<f64>,
    /// The factor table of `counts` (`DirectTables`): x_s, then C(x_s, 2), then 1.
    factors: Vec<f64>,
    /// Their running sums in the tables' order (`sum_order`): `sums[j]` = a_0 + ... + a_j, the
    /// last one a0.
    sums: Vec<f64>,
}

impl DirectTrajectory {
    /// The trajectory at time 0 from the initial counts, its first event drawn. (A total
    /// propensity that is not finite leaves the next event at 0, where `advance_to` reports it.)
    pub fn new(tables: &DirectTables, stream: Stream) -> Self {
        let mut trajectory = Self::restore(tables, tables.initial.clone(), 0.0, stream);
        let total = trajectory.total();
        trajectory.t_next = trajectory.draw_time(0.0, total).unwrap_or(0.0);
        trajectory
    }

    /// A trajectory with `counts` whose next event is drawn at `t_next` (from a checkpoint).
    pub fn restore(tables: &DirectTables, counts: Vec<u64>, t_next: f64, stream: Stream) -> Self {
        let n = counts.len();
        let mut factors = vec![1.0; 2 * n + 1];
        for (s, &x) in counts.iter().enumerate() {
            set_factors(&mut factors, n, s, x as f64);
        }
        let propensities = tables.propensities.iter().map(|p| p.of(&factors)).collect();
        let mut trajectory = Self {
            counts,
            t_next,
            stream,
            propensities,
            factors,
            sums: vec![0.0; tables.propensities.len()],
        };
        sum_from(&trajectory.propensities, &mut trajectory.sums, 0);
        trajectory
    }

    fn total(&self) -> f64 {
        self.sums.last().copied().unwrap_or(0.0)
    }

    fn draw_time(&mut self, t: f64, total: f64) -> std::result::Result<f64, Stop> {
        next_event_after(t, total, || self.stream.exponential())
    }

    /// Fires every event at times <= `t`.
    pub fn advance_to(&mut self, tables: &DirectTables, t: f64) -> std::result::Result<(), Stop> {
        check_counts(&self.counts, self.t_next.min(t))?;
        // The stream is drawn from a local copy (kept in registers), put back however the
        // run ends; the counts are read back from the factor table.
        let mut stream = self.stream.clone();
        let result = match &tables.code {
            Some(code) => self.events_to(tables, &code.entry(), t, &mut stream),
            None => self.events_to(tables, tables, t, &mut stream),
        };
        self.stream = stream;
        for (count, &x) in self.counts.iter_mut().zip(&self.factors) {
            *count = x as u64;
        }
        result
    }

    /// `advance_to`'s event loop, each event picked and fired by `events`.
    fn events_to(
        &mut self,
        tables: &DirectTables,
        events: &impl Events,
        t: f64,
        stream: &mut Stream,
    ) -> std::result::Result<(), Stop> {
        // The loop takes the fields as separate borrows.
        let Self {
            counts,
            t_next,
            propensities,
            factors,
            sums,
            ..
        } = self;
        let Some(last) = sums.len().checked_sub(1) else {
            *t_next = f64::INFINITY; // no reactions
            return Ok(());
        };
        let mut total = sums[last];
        // An event's draws (its uniform, then the Exp(1) of the next event's time) come from
        // the stream in that order, but the next event's uniform and this event's Exp(1) are
        // drawn before this event fires: the draws then stay off the path from one event's
        // pick to the next (the processor works them out while the event is being fired).
        // `stream` is moved on only past the draws an event has used.
        let mut after_u = stream.clone();
        let mut u = after_u.uniform();
        while *t_next <= t {
            let now = *t_next;
            if total == 0.0 {
                // Only a restored state can have an event drawn with nothing to fire.
                *t_next = f64::INFINITY;
                break;
            }
            if !total.is_finite() {
                return Err(Stop::InfinitePropensity { a0: total, t: now });
            }
            check_resolvable(total, now, t)?;
            // The first reaction whose running sum passes u * total (it has a propensity > 0,
            // the sums being ascending); rounding at the top falls back to the last reaction
            // that can fire.
            let target = u * total;
            let fired = match first_past(sums, target) {
                j if j <= last => j,
                _ => match propensities.iter().rposition(|&a| a > 0.0) {
                    Some(j) => j,
                    None => {
                        *stream = after_u;
                        return Err(Stop::InfinitePropensity { a0: total, t: now });
                    }
                },
            };
            let mut ahead = after_u.clone();
            let exp1 = ahead.exponential();
            let after_exp1 = ahead.clone();
            let u_next = ahead.uniform();
            match events.fire(fired, factors, propensities, sums) {
                Fired::Total(a0) => total = a0,
                Fired::Limit(k) => {
                    *stream = after_u;
                    let [c0, _] = tables.events[fired].changes;
                    let change = tables.changes[c0 as usize + k];
                    // The counts so far, and the stop `fire_one` gives for this change.
                    for (count, &x) in counts.iter_mut().zip(factors.iter()) {
                        *count = x as u64;
                    }
                    return fire_one(counts, change.s as usize, change.d, now).map(|_| ());
                }
            }
            // The stream as the event leaves it: past Exp(1) where the next time needs it.
            let mut used_exp1 = false;
            let next = next_event_after(now, total, || {
                used_exp1 = true;
                exp1
            });
            *stream = match used_exp1 {
                true => after_exp1,
                false => after_u,
            };
            *t_next = next?;
            (after_u, u) = (ahead, u_next);
        }
        Ok(())
    }
}

/// Fires reaction `fired` (an index in the sum order) on a trajectory's factor table,
/// propensities and running sums: makes its changes, recomputes its dependents' propensities
/// and the running sums from the first of them on. The tables' loop below, or the network's
/// compiled code (`event_code`): the same operations in the same order.
trait Events {
    fn fire(
        &self,
        fired: usize,
        factors: &mut [f64],
        propensities: &mut [f64],
        sums: &mut [f64],
    ) -> Fired;
}

impl Events for DirectTables {
    #[inline]
    fn fire(
        &self,
        fired: usize,
        factors: &mut [f64],
        propensities: &mut [f64],
        sums: &mut [f64],
    ) -> Fired {
        // Mass action gives propensity 0 when a reactant has too few molecules, so counts
        // only meet the upper limit (a negative count would be a bug, caught alike).
        let event = self.events[fired];
        let [c0, c1] = event.changes;
        for (k, change) in self.changes[c0 as usize..c1 as usize].iter().enumerate() {
            let s = change.s as usize;
            let x = factors[s] + change.d_f64;
            if x.to_bits() >= LIMIT_BITS {
                return Fired::Limit(k);
            }
            factors[s] = x;
            factors[change.pair as usize] = pair_factor(x);
        }
        let [d0, d1] = event.dependents;
        for dependent in &self.dependents[d0 as usize..d1 as usize] {
            propensities[dependent.reaction as usize] = dependent.propensity.of(factors);
        }
        if event.first != u32::MAX {
            sum_from(propensities, sums, event.first as usize);
        }
        Fired::Total(sums[sums.len() - 1])
    }
}

impl Events for EventEntry<'_> {
    #[inline]
    fn fire(
        &self,
        fired: usize,
        factors: &mut [f64],
        propensities: &mut [f64],
        sums: &mut [f64],
    ) -> Fired {
        EventEntry::fire(*self, fired, factors, propensities, sums)
    }
}

/// Recomputes the running sums `sums` of `propensities` from reaction `first` on.
#[inline]
fn sum_from(propensities: &[f64], sums: &mut [f64], first: usize) {
    let mut sum = match first {
        0 => 0.0,
        _ => sums[first - 1],
    };
    for (s, &a) in sums[first..].iter_mut().zip(&propensities[first..]) {
        sum += a;
        *s = sum;
    }
}

#[cfg(test)]
mod tests {
    use super::super::dsmts::dsmts_case;
    use super::super::ensemble::{run_ensemble_cpu, Method};
    use super::super::stop::fire;
    use super::*;
    use crate::reactions::{Reaction, Species};

    /// A DSMTS case run `n` times by the direct method against its analytic mean and sd; the
    /// misses of the pass rule (`dsmts::DsmtsCase::misses`), one line each.
    fn dsmts_misses(case: &str, n: u64, seed: u64) -> Vec<String> {
        let c = dsmts_case(case).unwrap();
        let net = c.network().unwrap();
        let stats = run_ensemble_cpu(&net, Method::Direct, n, seed, &c.times).unwrap();
        c.misses(&stats)
    }

    /// DSMTS 00001: birth-death, X0 = 100, lambda = 0.1, mu = 0.11; every output time passes.
    #[test]
    fn direct_method_matches_dsmts_00001_birth_death() {
        let misses = dsmts_misses("00001", 10_000, 0x5eed_0001);
        assert!(misses.is_empty(), "{misses:#?}");
    }

    fn species(id: &str, count: u64, boundary: bool) -> Species {
        Species {
            id: id.into(),
            name: None,
            initial_count: count,
            boundary,
        }
    }

    /// S (fixed) -> X; 2X -> D (dimerisation consumes two).
    fn dimerisation() -> Network {
        Network {
            id: "t".into(),
            species: vec![
                species("S", 5, true),
                species("X", 0, false),
                species("D", 0, false),
            ],
            reactions: vec![
                Reaction {
                    id: "make".into(),
                    reactants: vec![(0, 1)],
                    products: vec![(1, 1)],
                    rate: 2.0,
                },
                Reaction {
                    id: "pair".into(),
                    reactants: vec![(1, 2)],
                    products: vec![(2, 1)],
                    rate: 0.5,
                },
            ],
            compartment_volume: None,
            plot: Vec::new(),
        }
    }

    #[test]
    fn boundary_species_stay_fixed_and_seeds_repeat() {
        let net = dimerisation();
        net.validate().unwrap();
        let times = [0.0, 1.0, 5.0, 10.0];
        let a = simulate_direct(&net, 7, 10.0, &times).unwrap();
        assert_eq!(
            a,
            simulate_direct(&net, 7, 10.0, &times).unwrap(),
            "same seed, same run"
        );
        assert_ne!(a, simulate_direct(&net, 8, 10.0, &times).unwrap());
        assert_eq!(a[0], vec![5, 0, 0]);
        for counts in &a {
            assert_eq!(counts[0], 5, "the boundary species is never consumed");
        }
        assert!(
            a[3][1] + 2 * a[3][2] > 50,
            "about 100 molecules made by t = 10: {a:?}"
        );
    }

    /// The direct method written plainly: every propensity recomputed and summed afresh per
    /// event (in `sum_order`), a linear search. The tables must give the same trajectories bit
    /// for bit.
    fn reference_direct(net: &Network, seed: u64, times: &[f64]) -> Vec<Vec<u64>> {
        let changes = net.state_changes();
        let order = sum_order(net, &net.dependents(&changes));
        let mut counts = net.initial_counts();
        let mut stream = Stream::new(seed);
        let propensities = |counts: &[u64]| -> Vec<f64> {
            order
                .iter()
                .map(|&k| net.reactions[k].propensity(counts))
                .collect()
        };
        let mut a = propensities(&counts);
        let mut t_next = next_event_after(0.0, a.iter().sum(), || stream.exponential()).unwrap();
        let mut out = Vec::new();
        for &t in times {
            while t_next <= t {
                let total: f64 = a.iter().sum();
                let target = stream.uniform() * total;
                let (mut cumulative, mut fired) = (0.0, None);
                for (j, &aj) in a.iter().enumerate() {
                    if aj > 0.0 {
                        cumulative += aj;
                        fired = Some(j);
                        if cumulative > target {
                            break;
                        }
                    }
                }
                fire(&mut counts, &changes[order[fired.unwrap()]], t_next).unwrap();
                a = propensities(&counts);
                t_next = next_event_after(t_next, a.iter().sum(), || stream.exponential()).unwrap();
            }
            out.push(counts.clone());
        }
        out
    }

    #[test]
    fn the_dependency_tables_give_the_plain_methods_trajectories_bit_for_bit() {
        let vilar = vilar();
        let times: Vec<f64> = (0..=40).map(|k| k as f64).collect();
        for seed in [1, 2, 3] {
            assert_eq!(
                simulate_direct(&vilar, seed, 40.0, &times).unwrap(),
                reference_direct(&vilar, seed, &times),
                "seed {seed}"
            );
        }
        let dimers = dimerisation();
        let times = [0.0, 1.0, 5.0, 10.0];
        assert_eq!(
            simulate_direct(&dimers, 7, 10.0, &times).unwrap(),
            reference_direct(&dimers, 7, &times)
        );
    }

    fn vilar() -> Network {
        crate::reactions::json::read_network(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/vilar.json"),
        )
        .unwrap()
    }

    /// Both ways of firing events over `net`: the compiled code (which this processor has) and
    /// the table loop.
    fn compiled_and_table_tables(net: &Network) -> (DirectTables, DirectTables) {
        let compiled = DirectTables::new(net);
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        assert!(
            compiled.is_compiled(),
            "Cranelift compiles for this processor"
        );
        let tables = DirectTables::interpreted(net);
        assert!(!tables.is_compiled());
        (compiled, tables)
    }

    /// Vilar's oscillator, the dimerisation with its reverse (2X read as a pair factor, changes
    /// of 2) and seeded square networks (unimolecular and catalysed): the compiled events give
    /// the table loop's trajectories, next event times and stream positions bit for bit.
    #[test]
    fn compiled_events_give_the_table_loops_trajectories_bit_for_bit() {
        let mut dimers = dimerisation();
        dimers.reactions.push(Reaction {
            id: "split".into(),
            reactants: vec![(2, 1)],
            products: vec![(1, 2)],
            rate: 0.3,
        });
        let mut nets = vec![(vilar(), 40.0), (dimers, 20.0)];
        for (n, seed) in [(2, 1), (7, 2), (40, 3)] {
            nets.push((
                super::super::synthetic::square_network(n, seed).unwrap(),
                2.0,
            ));
        }
        for (net, t_end) in &nets {
            net.validate().unwrap();
            let (compiled, tables) = compiled_and_table_tables(net);
            for seed in [1, 2] {
                let mut a = DirectTrajectory::new(&compiled, Stream::new(seed));
                let mut b = DirectTrajectory::new(&tables, Stream::new(seed));
                for k in 1..=10 {
                    let t = t_end * k as f64 / 10.0;
                    a.advance_to(&compiled, t).unwrap();
                    b.advance_to(&tables, t).unwrap();
                    let what = format!("{}, seed {seed}, t = {t}", net.id);
                    assert_eq!(a.counts, b.counts, "{what}");
                    assert_eq!(a.t_next.to_bits(), b.t_next.to_bits(), "{what}");
                    assert_eq!(a.stream.draws(), b.stream.draws(), "{what}");
                }
                assert!(a.stream.draws() > 200, "{}: events fired", net.id);
            }
        }
    }

    /// A trajectory rebuilt at every output time from what a checkpoint keeps (counts, next
    /// event time, seed and draws) continues as the one left running, and both end as one run
    /// to the end without a pause, bit for bit, compiled or not: the draws made ahead of an
    /// event are counted only once the event has used them.
    #[test]
    fn a_trajectory_rebuilt_from_its_checkpoint_state_continues_bit_for_bit() {
        let (compiled, tables) = compiled_and_table_tables(&vilar());
        for tables in [&compiled, &tables] {
            let seed = 5;
            let mut running = DirectTrajectory::new(tables, Stream::new(seed));
            let mut rebuilt = running.clone();
            for k in 1..=20 {
                let t = 2.0 * k as f64;
                running.advance_to(tables, t).unwrap();
                rebuilt.advance_to(tables, t).unwrap();
                let draws = rebuilt.stream.draws();
                rebuilt = DirectTrajectory::restore(
                    tables,
                    rebuilt.counts.clone(),
                    rebuilt.t_next,
                    Stream::at(seed, draws),
                );
                assert_eq!(rebuilt.counts, running.counts, "t = {t}");
                assert_eq!(
                    rebuilt.t_next.to_bits(),
                    running.t_next.to_bits(),
                    "t = {t}"
                );
                assert_eq!(rebuilt.stream.draws(), running.stream.draws(), "t = {t}");
            }
            let mut straight = DirectTrajectory::new(tables, Stream::new(seed));
            straight.advance_to(tables, 40.0).unwrap();
            assert_eq!(straight.counts, running.counts);
            assert_eq!(straight.t_next.to_bits(), running.t_next.to_bits());
            assert_eq!(straight.stream.draws(), running.stream.draws());
            assert!(running.stream.draws() > 10_000, "events fired");
        }
    }

    /// A network too large to compile runs the table loop (`event_code`), and a smaller one of
    /// the same kind compiles.
    #[test]
    fn a_network_past_the_compile_bound_runs_the_table_loop() {
        let smaller = super::super::synthetic::square_network(100, 1).unwrap();
        compiled_and_table_tables(&smaller);
        let net = super::super::synthetic::square_network(2000, 1).unwrap();
        let tables = DirectTables::new(&net);
        assert!(!tables.is_compiled());
        let counts = simulate_direct(&net, 1, 0.01, &[0.01]).unwrap();
        let total = |c: &[u64]| c.iter().sum::<u64>();
        assert_eq!(total(&counts[0]), total(&net.initial_counts()), "conserved");
    }

    /// 0 -> 2A from just under the count limit: both ways stop at the same event with the
    /// same error, the counts before it kept.
    #[test]
    fn compiled_events_stop_at_the_count_limit_like_the_table_loop() {
        let net = Network {
            id: "t".into(),
            species: vec![species("A", COUNT_LIMIT - 7, false)],
            reactions: vec![Reaction {
                id: "make".into(),
                reactants: vec![],
                products: vec![(0, 2)],
                rate: 5.0,
            }],
            compartment_volume: None,
            plot: Vec::new(),
        };
        let (compiled, tables) = compiled_and_table_tables(&net);
        let stop = |tables: &DirectTables| {
            let mut trajectory = DirectTrajectory::new(tables, Stream::new(3));
            let stop = trajectory.advance_to(tables, 100.0).unwrap_err();
            (format!("{}", stop.error(&net, None)), trajectory.counts)
        };
        let (message, counts) = stop(&compiled);
        assert_eq!((message.clone(), counts.clone()), stop(&tables));
        assert_eq!(counts, vec![COUNT_LIMIT - 1], "{message}");
        assert!(message.contains("A"), "{message}");
    }

    #[test]
    fn a_network_that_cannot_fire_keeps_its_state() {
        let net = Network {
            id: "t".into(),
            species: vec![species("A", 1, false)],
            reactions: vec![Reaction {
                id: "pair".into(),
                reactants: vec![(0, 2)],
                products: vec![],
                rate: 1.0,
            }],
            compartment_volume: None,
            plot: Vec::new(),
        };
        assert_eq!(
            simulate_direct(&net, 1, 3.0, &[0.0, 3.0]).unwrap(),
            vec![vec![1], vec![1]]
        );
    }
}
