//! A network in the form the GPU ensemble and its CPU mirror use (`shaders/ssa/ensemble.wgsl`):
//! f32 rates, per-reaction reactants, net changes, dependencies and consumed species, and the
//! limits of one thread per trajectory. `gpu_ensemble` packs them into the shader's words,
//! `gpu_compiled` writes them as WGSL, `gpu_mirror` runs them on the CPU.

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
        let mut initial = Vec::with_capacity(ns);
        for s in &net.species {
            if s.initial_count >= COUNT_LIMIT {
                let field = format!("species.{}.initial_count", s.id);
                return Err(invalid(
                    &field,
                    s.initial_count,
                    format!("< 2^30 = {COUNT_LIMIT} on the GPU"),
                ));
            }
            initial.push(s.initial_count as u32);
        }
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
