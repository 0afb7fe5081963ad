//! Gillespie's direct method on the CPU: the exact reference the GPU simulators are checked
//! against. Propensities are recomputed in full at every event (O(reactions)); speed is the
//! GPU code's job, this one is kept obvious.

use crate::reactions::Network;
use rand_pcg::rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64;

/// One trajectory from the initial counts, seeded by `seed`. Returns the counts of every species
/// (indexed like `net.species`) at each of `sample_times`: the state after all events at times
/// <= the sample time. Boundary species never change.
///
/// # Panics
/// If `sample_times` is not ascending within [0, t_end] (a caller's mistake, not bad input).
/// `net` is expected to have passed `Network::validate`.
pub fn simulate_direct(
    net: &Network,
    seed: u64,
    t_end: f64,
    sample_times: &[f64],
) -> Vec<Vec<u64>> {
    assert!(
        sample_times.windows(2).all(|w| w[0] <= w[1])
            && sample_times.iter().all(|&t| (0.0..=t_end).contains(&t)),
        "sample times must be ascending within [0, t_end = {t_end}]"
    );
    let changes = net.state_changes();

    let mut rng = Pcg64::seed_from_u64(seed);
    // Uniform in [0, 1) from the top 53 bits.
    let mut uniform = move || (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let mut counts = net.initial_counts();
    let mut propensities = vec![0.0; net.reactions.len()];
    let mut samples = Vec::with_capacity(sample_times.len());
    let mut t = 0.0;
    loop {
        for (a, r) in propensities.iter_mut().zip(&net.reactions) {
            *a = r.propensity(&counts);
        }
        let total: f64 = propensities.iter().sum();
        let t_next = match total > 0.0 {
            true => t - (1.0 - uniform()).ln() / total,
            false => f64::INFINITY,
        };
        while samples.len() < sample_times.len() && sample_times[samples.len()] < t_next {
            samples.push(counts.clone());
        }
        if t_next > t_end {
            break;
        }
        // The first reaction whose cumulative propensity passes u * total; rounding at the top
        // falls back to the last reaction that can fire.
        let target = uniform() * total;
        let mut cumulative = 0.0;
        let mut fired = None;
        for (j, &a) in propensities.iter().enumerate() {
            if a > 0.0 {
                cumulative += a;
                fired = Some(j);
                if cumulative > target {
                    break;
                }
            }
        }
        let fired = fired.expect("a positive total propensity has a reaction that can fire");
        for &(s, d) in &changes[fired] {
            // Mass action gives propensity 0 when a reactant has too few molecules.
            counts[s] = counts[s]
                .checked_add_signed(d)
                .expect("counts stay within 0..=u64::MAX");
        }
        t = t_next;
    }
    samples
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
        let a = simulate_direct(&net, 7, 10.0, &times);
        assert_eq!(
            a,
            simulate_direct(&net, 7, 10.0, &times),
            "same seed, same run"
        );
        assert_ne!(a, simulate_direct(&net, 8, 10.0, &times));
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
            simulate_direct(&net, 1, 3.0, &[0.0, 3.0]),
            vec![vec![1], vec![1]]
        );
    }
}
