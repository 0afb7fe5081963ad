//! Gillespie's direct method on the CPU: the exact reference the GPU simulators are checked
//! against. Propensities are recomputed in full at every event (O(reactions)); speed is the
//! GPU code's job, this one is kept obvious. A trajectory runs from one sample time to the next
//! (`DirectTrajectory`), so an ensemble can pause between output times.

use super::stop::{check_counts, check_resolvable, fire, next_event_time, Stop};
use super::stream::Stream;
use crate::error::Result;
use crate::reactions::Network;

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
    sample_direct(net, seed, t_end, sample_times).map_err(|stop| stop.error(net, None))
}

/// `simulate_direct`, stopping with the `Stop` (the ensemble names the trajectory).
pub(crate) fn sample_direct(
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
    let changes = net.state_changes();
    let mut trajectory = DirectTrajectory::new(net, Stream::new(seed));
    sample_times
        .iter()
        .map(|&t| {
            trajectory.advance_to(net, &changes, t)?;
            Ok(trajectory.counts.clone())
        })
        .collect()
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
}

impl DirectTrajectory {
    /// The trajectory at time 0 from the initial counts, its first event drawn. (A total
    /// propensity that is not finite leaves the next event at 0, where `advance_to` reports it.)
    pub fn new(net: &Network, stream: Stream) -> Self {
        let mut trajectory = Self::restore(net, net.initial_counts(), 0.0, stream);
        let total = trajectory.total();
        trajectory.t_next = trajectory.draw_time(0.0, total).unwrap_or(0.0);
        trajectory
    }

    /// A trajectory with `counts` whose next event is drawn at `t_next` (from a checkpoint).
    pub fn restore(net: &Network, counts: Vec<u64>, t_next: f64, stream: Stream) -> Self {
        let mut trajectory = Self {
            counts,
            t_next,
            stream,
            propensities: vec![0.0; net.reactions.len()],
        };
        trajectory.update_propensities(net);
        trajectory
    }

    fn update_propensities(&mut self, net: &Network) {
        for (a, r) in self.propensities.iter_mut().zip(&net.reactions) {
            *a = r.propensity(&self.counts);
        }
    }

    fn total(&self) -> f64 {
        self.propensities.iter().sum()
    }

    fn draw_time(&mut self, t: f64, total: f64) -> std::result::Result<f64, Stop> {
        next_event_time(t, total, || self.stream.uniform())
    }

    /// Fires every event at times <= `t` (`changes`: `net.state_changes()`).
    pub fn advance_to(
        &mut self,
        net: &Network,
        changes: &[Vec<(usize, i64)>],
        t: f64,
    ) -> std::result::Result<(), Stop> {
        check_counts(&self.counts, self.t_next.min(t))?;
        while self.t_next <= t {
            let now = self.t_next;
            let total = self.total();
            if total == 0.0 {
                // Only a restored state can have an event drawn with nothing to fire.
                self.t_next = f64::INFINITY;
                break;
            }
            if !total.is_finite() {
                return Err(Stop::InfinitePropensity { a0: total, t: now });
            }
            check_resolvable(total, now, t)?;
            // The first reaction whose cumulative propensity passes u * total; rounding at the
            // top falls back to the last reaction that can fire.
            let target = self.stream.uniform() * total;
            let mut cumulative = 0.0;
            let mut fired = None;
            for (j, &a) in self.propensities.iter().enumerate() {
                if a > 0.0 {
                    cumulative += a;
                    fired = Some(j);
                    if cumulative > target {
                        break;
                    }
                }
            }
            let Some(fired) = fired else {
                return Err(Stop::InfinitePropensity { a0: total, t: now });
            };
            // Mass action gives propensity 0 when a reactant has too few molecules, so counts
            // only meet the upper limit.
            fire(&mut self.counts, &changes[fired], now)?;
            self.update_propensities(net);
            let total = self.total();
            self.t_next = self.draw_time(now, total)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::dsmts::dsmts_case;
    use super::super::ensemble::{run_ensemble_cpu, Method};
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

    #[test]
    fn boundary_species_stay_fixed_and_seeds_repeat() {
        // S (fixed) -> X; 2X -> D (dimerisation consumes two).
        let net = Network {
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
        };
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
        };
        assert_eq!(
            simulate_direct(&net, 1, 3.0, &[0.0, 3.0]).unwrap(),
            vec![vec![1], vec![1]]
        );
    }
}
