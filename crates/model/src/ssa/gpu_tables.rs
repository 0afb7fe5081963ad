//! A network in the form the GPU ensemble and its CPU mirror use (`shaders/ssa/ensemble.wgsl`):
//! f32 rates, per-reaction reactants, net changes, dependencies and consumed species, and the
//! limits of one thread per trajectory. `gpu_ensemble` packs them into the shader's words,
//! `gpu_compiled` writes them as WGSL, `gpu_mirror` runs them on the CPU. The checks of rates
//! and counts against what the GPU holds serve the large-network leaper (`gpu_leap`) too.

use crate::error::{invalid, Result};
use crate::reactions::{Network, Reaction};

/// Largest network one thread simulates (thread state lives in device memory, but each event
/// walks all reactions: bigger networks belong to the large-network leaper, `gpu_leap`).
pub const MAX_SPECIES: usize = 64;
pub const MAX_REACTIONS: usize = 128;
/// Counts must stay below 2^30 (f32 propensities; x^2 sums in 64 bits per trajectory).
pub const COUNT_LIMIT: u64 = 1 << 30;

/// One reaction as the GPU sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RxRecord {
    /// Up to two (species, stoichiometry) reactants; stoichiometry 0 marks an empty slot.
    pub reactants: [(u32, u32); 2],
    pub rate: f32,
    /// Net changes of non-boundary species, (species, delta).
    pub changes: Vec<(u32, i32)>,
    /// Reactions whose propensity changes when this one fires (ODM).
    pub deps: Vec<u32>,
    /// Species this reaction consumes with the amount per firing (for L_j), up to two.
    pub consumes: [(u32, u32); 2],
}

/// The network in the form the shader and its CPU mirror use.
#[derive(Clone, Debug, PartialEq)]
pub struct NetTables {
    pub n_species: usize,
    pub reactions: Vec<RxRecord>,
    /// Per species: 0 not a reactant (or fixed), 1 first order, 2 second order with another
    /// species, 3 second order with itself (the CGP g_i cases).
    pub kinds: Vec<u32>,
    pub initial: Vec<u32>,
    /// Search order of the reactions (ODM: most frequent first).
    pub order: Vec<u32>,
}

/// A reaction's rate as the f32 the GPU kernels use; refused if f32 cannot hold it.
pub(crate) fn gpu_rate(r: &Reaction) -> Result<f32> {
    let rate = r.rate as f32;
    if !rate.is_finite() || (r.rate > 0.0 && rate == 0.0) {
        let field = format!("reactions.{}.rate", r.id);
        let allowed = "a rate representable in f32 (1e-38..3e38) on the GPU";
        return Err(invalid(&field, r.rate, allowed));
    }
    Ok(rate)
}

/// The species' initial counts as the u32 the GPU kernels hold; refused at or above `limit`
/// (a power of two: each kernel's headroom), with the species named.
pub(crate) fn gpu_initial_counts(net: &Network, limit: u64) -> Result<Vec<u32>> {
    net.species
        .iter()
        .map(|s| match s.initial_count < limit {
            true => Ok(s.initial_count as u32),
            false => {
                let field = format!("species.{}.initial_count", s.id);
                let allowed = format!("< 2^{} = {limit} on the GPU", limit.trailing_zeros());
                Err(invalid(&field, s.initial_count, allowed))
            }
        })
        .collect()
}

impl NetTables {
    /// Refuses networks beyond the limits with the limit named.
    pub fn new(net: &Network) -> Result<Self> {
        net.validate()?;
        let (ns, nr) = (net.species.len(), net.reactions.len());
        if ns == 0 || ns > MAX_SPECIES {
            let allowed = format!("1..={MAX_SPECIES} species for the GPU ensemble (one thread per trajectory); use gpu_leap for large networks");
            return Err(invalid("network.species", ns, allowed));
        }
        if nr > MAX_REACTIONS {
            let allowed = format!("at most {MAX_REACTIONS} reactions for the GPU ensemble (one thread per trajectory); use gpu_leap for large networks");
            return Err(invalid("network.reactions", nr, allowed));
        }
        let initial = gpu_initial_counts(net, COUNT_LIMIT)?;
        let kinds = net.reactant_kinds();
        let state_changes = net.state_changes();
        let mut reactions = Vec::with_capacity(nr);
        for (j, r) in net.reactions.iter().enumerate() {
            let rate = gpu_rate(r)?;
            let mut reactants = [(0u32, 0u32); 2];
            for (k, &(s, nu)) in r.reactants.iter().enumerate() {
                reactants[k] = (s as u32, nu);
            }
            let changes: Vec<(u32, i32)> = state_changes[j]
                .iter()
                .map(|&(s, d)| (s as u32, d as i32))
                .collect();
            let mut consumes = [(0u32, 0u32); 2];
            for (k, &(s, d)) in changes.iter().filter(|(_, d)| *d < 0).enumerate() {
                consumes[k] = (s, (-d) as u32);
            }
            reactions.push(RxRecord {
                reactants,
                rate,
                changes,
                deps: Vec::new(),
                consumes,
            });
        }
        // Dependency graph: k depends on j when j changes a reactant of k.
        for j in 0..nr {
            let changed: Vec<u32> = reactions[j].changes.iter().map(|c| c.0).collect();
            reactions[j].deps = (0..nr as u32)
                .filter(|&k| {
                    reactions[k as usize]
                        .reactants
                        .iter()
                        .any(|&(s, nu)| nu > 0 && changed.contains(&s))
                })
                .collect();
        }
        Ok(Self {
            n_species: ns,
            reactions,
            kinds,
            initial,
            order: (0..nr as u32).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reactions::Species;

    #[test]
    fn counts_at_the_gpu_limit_are_refused_with_the_species_named() {
        let species = |id: &str, initial_count| Species {
            id: id.into(),
            name: None,
            initial_count,
            boundary: false,
        };
        let net = Network {
            id: "n".into(),
            species: vec![species("A", (1 << 30) - 1), species("B", 1 << 30)],
            reactions: Vec::new(),
            compartment_volume: None,
            plot: Vec::new(),
        };
        assert_eq!(
            gpu_initial_counts(&net, 1 << 31).unwrap(),
            [(1 << 30) - 1, 1 << 30]
        );
        let e = gpu_initial_counts(&net, 1 << 30).unwrap_err().to_string();
        assert!(
            e.contains("species.B.initial_count") && e.contains("< 2^30 = 1073741824"),
            "{e}"
        );
    }
}
