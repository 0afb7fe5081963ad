//! The optimized direct method (Cao, Li & Petzold, J. Chem. Phys. 121, 4059 (2004)) on the CPU:
//! exact like the direct method, but cheaper per event on networks with many reactions.
//!
//! - Reactions are searched in decreasing order of how often they fired in a presimulation, so
//!   the linear search for the firing reaction stops early on average.
//! - A dependency graph lists, for each reaction, the reactions whose propensities it changes
//!   (those with a reactant whose count it changes); only those are recomputed after it fires,
//!   and the total a0 is updated by their differences.
//! - The running a0 drifts by rounding, so it is recomputed from scratch every
//!   `A0_REFRESH_EVENTS` events, and whenever the search runs past it.

use super::stop::{check_counts, check_resolvable, fire, next_event_time, Stop};
use super::stream::Stream;
use crate::error::Result;
use crate::reactions::Network;

/// a0 is summed afresh this often: the running sum's relative error then stays near 1e-13.
pub const A0_REFRESH_EVENTS: u64 = 1000;
/// Events of the presimulation that orders the reactions (it also stops at t_end).
pub const PRESIMULATION_EVENTS: u64 = 10_000;
/// Seed of the presimulation: the order, not the trajectories, depends on it.
const PRESIMULATION_SEED: u64 = 0x0d3_0de7;

/// The search order and dependency graph of one network, built once and shared by all the
/// trajectories of an ensemble.
#[derive(Clone, Debug)]
pub struct Odm {
    /// Reaction indices, most frequent first.
    pub order: Vec<usize>,
    /// `dependents[j]`: the reactions whose propensity changes when reaction j fires.
    pub dependents: Vec<Vec<usize>>,
    changes: Vec<Vec<(usize, i64)>>,
}

impl Odm {
    /// Builds the dependency graph and orders the reactions by their firings in one
    /// presimulation to `t_end` (at most `PRESIMULATION_EVENTS` events). `net` is expected to
    /// have passed `Network::validate`.
    pub fn new(net: &Network, t_end: f64) -> Self {
        let changes = net.state_changes();
        let dependents = net.dependents(&changes);
        let mut odm = Odm {
            order: (0..net.reactions.len()).collect(),
            dependents,
            changes,
        };
        let firings = odm.presimulate(net, t_end);
        // Stable sort: ties keep the network's order.
        odm.order.sort_by_key(|&j| std::cmp::Reverse(firings[j]));
        odm
    }

    /// The presimulation: how often each reaction fires in events up to t_end, at most
    /// PRESIMULATION_EVENTS of them. One that stops early (`Stop`) gives the events so far:
    /// the run reports the stop.
    fn presimulate(&self, net: &Network, t_end: f64) -> Vec<u64> {
        let mut firings = vec![0u64; net.reactions.len()];
        let mut pre = self.start(net, Stream::new(PRESIMULATION_SEED));
        while pre.events < PRESIMULATION_EVENTS && pre.t_next <= t_end {
            let Some(j) = pre.fired else { break };
            firings[j] += 1;
            if self.fire_next(net, &mut pre).is_err() {
                break;
            }
        }
        firings
    }

    /// How often each reaction of `net` fires in the presimulation (to t = infinity, so at
    /// most PRESIMULATION_EVENTS events, fewer when nothing can fire).
    pub(crate) fn firings(net: &Network) -> Vec<u64> {
        let changes = net.state_changes();
        let odm = Odm {
            order: (0..net.reactions.len()).collect(),
            dependents: net.dependents(&changes),
            changes,
        };
        odm.presimulate(net, f64::INFINITY)
    }

    /// One trajectory, like `ssa::simulate_direct`: the counts at each of `sample_times`
    /// (ascending within [0, t_end]), or why it stopped before.
    pub fn simulate(
        &self,
        net: &Network,
        seed: u64,
        t_end: f64,
        sample_times: &[f64],
    ) -> std::result::Result<Vec<Vec<u64>>, Stop> {
        assert!(
            sample_times.windows(2).all(|w| w[0] <= w[1])
                && sample_times.iter().all(|&t| (0.0..=t_end).contains(&t)),
            "sample times must be ascending within [0, t_end = {t_end}]"
        );
        let mut trajectory = self.start(net, Stream::new(seed));
        sample_times
            .iter()
            .map(|&t| {
                self.advance_to(net, &mut trajectory, t)?;
                Ok(trajectory.counts.clone())
            })
            .collect()
    }

    /// A trajectory at time 0 from the initial counts, its first event drawn. (A total
    /// propensity that is not finite leaves the next event at 0, where `advance_to` reports it.)
    pub fn start(&self, net: &Network, stream: Stream) -> OdmTrajectory {
        let counts = net.initial_counts();
        let a: Vec<f64> = net
            .reactions
            .iter()
            .map(|r| r.propensity(&counts))
            .collect();
        let a0 = a.iter().sum();
        let mut trajectory = OdmTrajectory {
            counts,
            a,
            a0,
            events: 0,
            t_next: 0.0,
            fired: None,
            stream,
        };
        if self.draw_next(&mut trajectory, 0.0).is_err() {
            trajectory.t_next = 0.0;
        }
        trajectory
    }

    /// Fires every event of `trajectory` at times <= `t`.
    pub fn advance_to(
        &self,
        net: &Network,
        trajectory: &mut OdmTrajectory,
        t: f64,
    ) -> std::result::Result<(), Stop> {
        check_counts(&trajectory.counts, trajectory.t_next.min(t))?;
        while trajectory.t_next <= t {
            check_resolvable(trajectory.a0, trajectory.t_next, t)?;
            self.fire_next(net, trajectory)?;
        }
        Ok(())
    }

    /// Fires the drawn event and draws the next one.
    fn fire_next(&self, net: &Network, tr: &mut OdmTrajectory) -> std::result::Result<(), Stop> {
        let now = tr.t_next;
        let Some(j) = tr.fired.filter(|_| tr.a0.is_finite()) else {
            return match tr.a0.is_finite() {
                // Only a restored state can have an event time without a reaction.
                true => {
                    tr.t_next = f64::INFINITY;
                    Ok(())
                }
                false => Err(Stop::InfinitePropensity { a0: tr.a0, t: now }),
            };
        };
        fire(&mut tr.counts, &self.changes[j], now)?;
        for &k in &self.dependents[j] {
            let new = net.reactions[k].propensity(&tr.counts);
            tr.a0 += new - tr.a[k];
            tr.a[k] = new;
        }
        tr.events += 1;
        if tr.events.is_multiple_of(A0_REFRESH_EVENTS) || tr.a0 <= 0.0 {
            tr.a0 = tr.a.iter().sum();
        }
        self.draw_next(tr, now)
    }

    /// Draws the time and reaction of the event after time `t`.
    fn draw_next(&self, tr: &mut OdmTrajectory, t: f64) -> std::result::Result<(), Stop> {
        loop {
            let u_time = tr.stream.uniform();
            let target = tr.stream.uniform() * tr.a0;
            // The first reaction in search order whose cumulative propensity passes target.
            let mut cumulative = 0.0;
            let mut fired = None;
            for &j in &self.order {
                if tr.a[j] > 0.0 {
                    cumulative += tr.a[j];
                    fired = Some(j);
                    if cumulative > target {
                        break;
                    }
                }
            }
            if cumulative <= target && tr.a0 > 0.0 {
                // The running a0 is above the true sum (drift, or a last reaction switched
                // off): sum afresh and draw again, before time moves.
                let exact: f64 = tr.a.iter().sum();
                if exact != tr.a0 {
                    tr.a0 = exact;
                    continue;
                }
            }
            tr.t_next = match fired {
                Some(_) => next_event_time(t, tr.a0, || u_time)?,
                None => f64::INFINITY,
            };
            tr.fired = fired;
            return Ok(());
        }
    }
}

/// An ODM trajectory paused between events: counts, the running propensities and their running
/// total (kept bitwise: the search depends on their rounding), events so far (the total is
/// summed afresh every `A0_REFRESH_EVENTS`), the next event (already drawn) and the random
/// stream. A copy continues bitwise.
#[derive(Clone, Debug)]
pub struct OdmTrajectory {
    pub counts: Vec<u64>,
    pub a: Vec<f64>,
    pub a0: f64,
    pub events: u64,
    /// Time of the next event (infinite when none can fire).
    pub t_next: f64,
    /// Reaction of the next event.
    pub fired: Option<usize>,
    pub stream: Stream,
}

/// One ODM trajectory (builds the plan; for many trajectories build `Odm` once). A count that
/// reaches the count limit, or a run that cannot advance, is an error (`super::stop`).
pub fn simulate_odm(
    net: &Network,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> Result<Vec<Vec<u64>>> {
    Odm::new(net, t_end)
        .simulate(net, seed, t_end, sample_times)
        .map_err(|stop| stop.error(net, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reactions::{Reaction, Species};

    fn species(id: &str, count: u64) -> Species {
        Species {
            id: id.into(),
            name: None,
            initial_count: count,
            boundary: false,
        }
    }

    fn reaction(
        id: &str,
        reactants: Vec<(usize, u32)>,
        products: Vec<(usize, u32)>,
        rate: f64,
    ) -> Reaction {
        Reaction {
            id: id.into(),
            reactants,
            products,
            rate,
        }
    }

    /// A -> B (fast), B -> A (slow), B -> 0.
    fn net() -> Network {
        Network {
            id: "t".into(),
            species: vec![species("A", 50), species("B", 0)],
            reactions: vec![
                reaction("back", vec![(1, 1)], vec![(0, 1)], 0.1),
                reaction("fwd", vec![(0, 1)], vec![(1, 1)], 5.0),
                reaction("decay", vec![(1, 1)], vec![], 0.01),
            ],
            compartment_volume: None,
            plot: Vec::new(),
        }
    }

    #[test]
    fn dependency_graph_and_order() {
        let n = net();
        let odm = Odm::new(&n, 10.0);
        // fwd changes A and B: every reaction reads one of them. decay changes B only.
        assert_eq!(odm.dependents[1], vec![0, 1, 2]);
        assert_eq!(odm.dependents[2], vec![0, 2]);
        // fwd fires most, decay least.
        assert_eq!(odm.order, vec![1, 0, 2]);
    }

    #[test]
    fn seeds_repeat_and_molecules_are_conserved_until_decay() {
        let n = net();
        let odm = Odm::new(&n, 10.0);
        let times = [0.0, 1.0, 10.0];
        let a = odm.simulate(&n, 3, 10.0, &times).unwrap();
        assert_eq!(a, odm.simulate(&n, 3, 10.0, &times).unwrap());
        assert_ne!(a, odm.simulate(&n, 4, 10.0, &times).unwrap());
        assert_eq!(a[0], vec![50, 0]);
        assert!(a.iter().all(|c| c[0] + c[1] <= 50));
        assert_eq!(a, simulate_odm(&n, 3, 10.0, &times).unwrap());
    }
}
