//! Seeded synthetic "square" networks for scaling runs: N species and N reactions, half of them
//! unimolecular and half bimolecular (docs/models/ssa.md lists the ranges).
//!
//! Reaction j always consumes species j and always produces species (j + 1) mod N:
//!
//! - unimolecular (probability 1/2): `S_j -> S_(j+1)`;
//! - bimolecular: `S_j + S_k -> S_(j+1) + S_k`, k != j drawn uniformly: S_k is a catalyst.
//!
//! Every reaction turns one or two molecules into as many, so the total count is conserved:
//! a network can neither explode nor die out. Every species is consumed only by its own
//! reaction and produced only by its predecessor's, so molecules circulate around the ring and
//! none can collect in a dead end. (A version whose bimolecular reactions consumed their
//! partner and fed a random species lost two thirds of its total propensity by t = 5: partners
//! were drained by reactions that did not feed them, and the other reactant piled up.)
//!
//! Rates are set so that a typical reaction fires at a similar rate whatever its order, at the
//! initial counts: unimolecular c in [`UNI_RATE`], bimolecular c in [`UNI_RATE`] divided by
//! `TYPICAL_COUNT`. Initial counts are uniform in [`INITIAL_COUNT`].

use crate::error::{invalid, Result};
use crate::reactions::{Network, Reaction, Species};
use rand_pcg::rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64;

/// Initial counts, uniform over this range (inclusive).
pub const INITIAL_COUNT: (u64, u64) = (100, 1000);
/// The mean initial count.
pub const TYPICAL_COUNT: f64 = 550.0;
/// Unimolecular stochastic constants, uniform over this range (per unit time).
pub const UNI_RATE: (f64, f64) = (0.5, 1.0);
/// Species (= reactions) allowed.
pub const MIN_SIZE: usize = 2;
pub const MAX_SIZE: usize = 1 << 24;

/// A square network of `n` species and `n` reactions, the same for the same `(n, seed)`.
pub fn square_network(n: usize, seed: u64) -> Result<Network> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
        let allowed = format!("{MIN_SIZE}..={MAX_SIZE} reactions (= species)");
        return Err(invalid("synthetic.reactions", n, allowed));
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut uniform = move || (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let below = |m: usize, u: f64| ((u * m as f64) as usize).min(m - 1);

    let (lo, hi) = INITIAL_COUNT;
    let species = (0..n)
        .map(|i| Species {
            id: format!("S{i}"),
            name: None,
            initial_count: lo + below((hi - lo + 1) as usize, uniform()) as u64,
            boundary: false,
        })
        .collect();
    let reactions = (0..n)
        .map(|j| {
            let next = (j + 1) % n;
            let c = UNI_RATE.0 + (UNI_RATE.1 - UNI_RATE.0) * uniform();
            if uniform() < 0.5 {
                return Reaction {
                    id: format!("R{j}"),
                    reactants: vec![(j, 1)],
                    products: vec![(next, 1)],
                    rate: c,
                };
            }
            // A partner other than j that the reaction does not consume (a catalyst): a
            // consumed partner could be drained by a reaction it does not feed, leaving S_j
            // to pile up with nothing to convert it.
            let k = (j + 1 + below(n - 1, uniform())) % n;
            let products = match k == next {
                true => vec![(next, 2)],
                false => vec![(next, 1), (k, 1)],
            };
            Reaction {
                id: format!("R{j}"),
                reactants: vec![(j, 1), (k, 1)],
                products,
                rate: c / TYPICAL_COUNT,
            }
        })
        .collect();
    let net = Network {
        id: format!("square-{n}-seed-{seed}"),
        species,
        reactions,
        compartment_volume: None,
        plot: Vec::new(),
    };
    net.validate()?;
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::tau::simulate_tau_counted;

    #[test]
    fn square_networks_are_seeded_and_in_range() {
        let net = square_network(1000, 7).unwrap();
        assert_eq!((net.species.len(), net.reactions.len()), (1000, 1000));
        assert_eq!(net, square_network(1000, 7).unwrap());
        assert_ne!(net, square_network(1000, 8).unwrap());
        let bi = net.reactions.iter().filter(|r| r.order() == 2).count();
        assert!((400..600).contains(&bi), "{bi} bimolecular");
        for (j, r) in net.reactions.iter().enumerate() {
            assert!(r.reactants.iter().any(|&(s, _)| s == j));
            assert!(r.products.iter().any(|&(s, _)| s == (j + 1) % 1000));
            let (lo, hi) = match r.order() {
                1 => UNI_RATE,
                _ => (UNI_RATE.0 / TYPICAL_COUNT, UNI_RATE.1 / TYPICAL_COUNT),
            };
            assert!((lo..=hi).contains(&r.rate), "{r:?}");
        }
        let counts = net.initial_counts();
        assert!(counts.iter().all(|c| (100..=1000).contains(c)));
        for bad in [0, 1, MAX_SIZE + 1] {
            let e = square_network(bad, 1).unwrap_err().to_string();
            assert!(e.contains("synthetic.reactions"), "{e}");
        }
    }

    /// Over t = 0..10 (about 10 reaction lifetimes) the count is conserved and the total
    /// propensity stays within a factor 2 of where it started.
    #[test]
    fn square_networks_neither_die_out_nor_explode() {
        let net = square_network(500, 3).unwrap();
        let a0 =
            |counts: &[u64]| -> f64 { net.reactions.iter().map(|r| r.propensity(counts)).sum() };
        let (samples, counters) = simulate_tau_counted(&net, 11, 10.0, &[0.0, 5.0, 10.0]).unwrap();
        let total: Vec<u64> = samples.iter().map(|c| c.iter().sum()).collect();
        assert!(total.iter().all(|&t| t == total[0]), "{total:?}");
        let start = a0(&samples[0]);
        for s in &samples {
            let r = a0(s) / start;
            eprintln!("a0 ratio {r}");
            assert!((0.5..2.0).contains(&r), "a0 ratio {r}");
        }
        assert!(counters.leaps > 10, "{counters:?}");
    }
}
