//! Reaction networks: species with whole-number counts and mass-action reactions of order 0, 1
//! or 2. One type shared by the spatial RDME model (`crate::rdme`) and the well-mixed stochastic
//! kinetics (`crate::ssa`); `json` and `sbml` read them, `rates` converts rate constants between
//! macroscopic and stochastic forms and between volumes. Models import this module, never each
//! other.
//!
//! # Rate convention
//!
//! `Reaction::rate` is the stochastic mass-action constant c: the propensity of a reaction whose
//! reactant i has count x_i and stoichiometry nu_i is
//!
//! ```text
//! a = c * prod_i C(x_i, nu_i)        (C = binomial coefficient)
//! ```
//!
//! so `0 -> X` has a = c, `A -> ...` has a = c A, `A + B -> ...` has a = c A B and
//! `2A -> ...` has a = c A (A - 1) / 2, the number of distinct reactant pairs times c. A law
//! written `k*A*(A-1)/2` therefore gives c = k, and `k*A*(A-1)` gives c = 2k. The law `k*A*A`
//! is not mass action for counts (it lets a single molecule react with itself) and is refused.
//! The order (sum of nu_i) is 0, 1 or 2: higher orders are not elementary reactions.
//!
//! Boundary species (SBML `boundaryCondition="true"` or `constant="true"`) are held fixed: they
//! enter propensities with their count but no reaction changes them.

pub mod general;
pub mod json;
pub mod math;
pub mod rates;
pub mod sbml;

use crate::error::{invalid, short, Result};
use std::path::PathBuf;

/// A well-mixed reaction network.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub id: String,
    pub species: Vec<Species>,
    pub reactions: Vec<Reaction>,
    /// Litres, if the SBML gives the compartment a size.
    pub compartment_volume: Option<f64>,
    /// The species mean_sd.png draws unless the run names others (indices into `species`;
    /// empty: all). A JSON network's `plot`.
    pub plot: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Species {
    pub id: String,
    pub name: Option<String>,
    pub initial_count: u64,
    /// Held fixed: no reaction changes its count.
    pub boundary: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reaction {
    pub id: String,
    /// (species index, stoichiometry), each species at most once.
    pub reactants: Vec<(usize, u32)>,
    /// (species index, stoichiometry), each species at most once.
    pub products: Vec<(usize, u32)>,
    /// Stochastic mass-action constant c (see the module doc), per unit time.
    pub rate: f64,
}

/// The highest reaction order accepted: bimolecular.
pub const MAX_ORDER: u32 = 2;

/// Every species count stays below 2^30 in every simulator, the GPU ensemble's limit (f32
/// propensities), so the CPU and the GPU stop a network at the same count. Exact methods fire
/// one event per change: growth to 2^30 is already 10^9 events per trajectory. Initial counts
/// at or above it are refused at load; a run in which a count reaches it stops with an error
/// naming the species.
pub const COUNT_LIMIT: u64 = 1 << 30;

/// The largest stochastic rate constant c accepted (per unit time). A propensity near it means
/// an event every 1e-30 time units: no event-by-event simulation reaches any time of interest,
/// and such a constant is nearly always a unit error. It also keeps every propensity finite:
/// c * C(x, 2) < 1e30 * 2^59 for counts below `COUNT_LIMIT`.
pub const MAX_RATE: f64 = 1e30;

/// The largest stoichiometry of a product (a reactant's is bounded by `MAX_ORDER`): one firing
/// then changes a count by less than `COUNT_LIMIT`, so no count can overflow before the limit
/// check sees it.
pub const MAX_STOICHIOMETRY: u32 = 1 << 30;

impl Reaction {
    /// Sum of the reactant stoichiometries (saturating: a sum past u32 is refused as an order
    /// anyway).
    pub fn order(&self) -> u32 {
        self.reactants
            .iter()
            .fold(0u32, |sum, &(_, nu)| sum.saturating_add(nu))
    }

    /// a = c * prod_i C(x_i, nu_i) for species counts `counts` (indexed like `Network::species`).
    pub fn propensity(&self, counts: &[u64]) -> f64 {
        self.reactants
            .iter()
            .fold(self.rate, |a, &(s, nu)| a * binomial(counts[s], nu))
    }
}

/// C(x, nu) as f64; 0 when x < nu.
#[inline]
pub(crate) fn binomial(x: u64, nu: u32) -> f64 {
    if x < nu as u64 {
        return 0.0;
    }
    (0..nu as u64).fold(1.0, |c, k| c * (x - k) as f64 / (k + 1) as f64)
}

impl Network {
    pub fn species_index(&self, id: &str) -> Option<usize> {
        self.species.iter().position(|s| s.id == id)
    }

    pub fn initial_counts(&self) -> Vec<u64> {
        self.species.iter().map(|s| s.initial_count).collect()
    }

    /// Per species, the kind of the highest-order reaction that has it as a reactant (the
    /// cases of the CGP 2006 g_i): 0 none (or a boundary species), 1 first order, 2 second
    /// order with another species, 3 second order with itself (2A).
    pub fn reactant_kinds(&self) -> Vec<u32> {
        let mut kinds = vec![0u32; self.species.len()];
        for r in &self.reactions {
            for &(s, nu) in r
                .reactants
                .iter()
                .filter(|(s, _)| !self.species[*s].boundary)
            {
                let kind = match (r.order(), nu) {
                    (1, _) => 1,
                    (_, 2) => 3,
                    _ => 2,
                };
                kinds[s] = kinds[s].max(kind);
            }
        }
        kinds
    }

    /// Net change of the counts per reaction, `[reaction] -> [(species, change)]`: products
    /// minus reactants, zero changes and boundary species left out (no reaction changes those).
    pub fn state_changes(&self) -> Vec<Vec<(usize, i64)>> {
        self.reactions
            .iter()
            .map(|r| {
                let mut delta: Vec<(usize, i64)> = Vec::new();
                for (list, sign) in [(&r.reactants, -1i64), (&r.products, 1i64)] {
                    for &(s, nu) in list.iter().filter(|(s, _)| !self.species[*s].boundary) {
                        match delta.iter_mut().find(|(t, _)| *t == s) {
                            Some((_, d)) => *d += sign * nu as i64,
                            None => delta.push((s, sign * nu as i64)),
                        }
                    }
                }
                delta.retain(|&(_, d)| d != 0);
                delta
            })
            .collect()
    }

    /// The reactions whose propensity changes when each reaction fires, given the
    /// `state_changes`: `[reaction] -> [reactions with a reactant it changes, ascending]`.
    pub fn dependents(&self, changes: &[Vec<(usize, i64)>]) -> Vec<Vec<usize>> {
        changes
            .iter()
            .map(|delta| {
                (0..self.reactions.len())
                    .filter(|&k| {
                        self.reactions[k]
                            .reactants
                            .iter()
                            .any(|&(s, _)| delta.iter().any(|&(t, _)| t == s))
                    })
                    .collect()
            })
            .collect()
    }

    /// Checks what the simulators rely on: at least one species, unique non-empty ids, initial
    /// counts below `COUNT_LIMIT`, indices in range, each species at most once per side,
    /// stoichiometries in 1..=`MAX_STOICHIOMETRY`, order <= 2, rates in [0, `MAX_RATE`], a
    /// positive volume.
    pub fn validate(&self) -> Result<()> {
        self.validate_where(&|_| true)
    }

    /// `validate`, with the order and rate bounds checked only for the reactions `mass_action`
    /// selects (a reaction with a general law, `general::GeneralNetwork`, has neither).
    pub fn validate_where(&self, mass_action: &dyn Fn(usize) -> bool) -> Result<()> {
        if self.species.is_empty() {
            return Err(invalid(
                "species",
                "[] (none)",
                "at least one species (a network simulates species counts)",
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, s) in self.species.iter().enumerate() {
            if s.id.is_empty() || !seen.insert(s.id.as_str()) {
                return Err(invalid(
                    &format!("species[{i}].id"),
                    format!("{:?}", s.id),
                    "a non-empty id used by no other species",
                ));
            }
            if s.initial_count >= COUNT_LIMIT {
                return Err(invalid(
                    &format!("species.{}.initial_count", s.id),
                    s.initial_count,
                    format!("a count < 2^30 = {COUNT_LIMIT}, the count limit of every simulator"),
                ));
            }
        }
        if let Some(v) = self.compartment_volume {
            if !(v.is_finite() && v > 0.0) {
                return Err(invalid(
                    "compartment_volume",
                    short(v),
                    "a finite number > 0 (litres)",
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (j, r) in self.reactions.iter().enumerate() {
            if r.id.is_empty() || !seen.insert(r.id.as_str()) {
                return Err(invalid(
                    &format!("reactions[{j}].id"),
                    format!("{:?}", r.id),
                    "a non-empty id used by no other reaction",
                ));
            }
            for (side, list) in [("reactants", &r.reactants), ("products", &r.products)] {
                for (k, &(s, nu)) in list.iter().enumerate() {
                    let field = format!("reactions.{}.{side}[{k}]", r.id);
                    if s >= self.species.len() {
                        let allowed = format!("a species index < {}", self.species.len());
                        return Err(invalid(&field, s, allowed));
                    }
                    if !(1..=MAX_STOICHIOMETRY).contains(&nu) {
                        let allowed = format!("a stoichiometry in 1..={MAX_STOICHIOMETRY} (2^30)");
                        return Err(invalid(&field, nu, allowed));
                    }
                    if list[..k].iter().any(|&(t, _)| t == s) {
                        let allowed = "each species once per side (add the stoichiometries)";
                        return Err(invalid(&field, &self.species[s].id, allowed));
                    }
                }
            }
            if !mass_action(j) {
                continue;
            }
            if r.order() > MAX_ORDER {
                return Err(invalid(
                    &format!("reactions.{}.order", r.id),
                    r.order(),
                    format!("0..={MAX_ORDER} (mass action of order 0, 1 or 2)"),
                ));
            }
            if !(0.0..=MAX_RATE).contains(&r.rate) {
                let field = format!("reactions.{}.rate", r.id);
                let allowed = format!(
                    "a rate constant in [0, {}] per unit time (larger ones cannot be simulated \
                     event by event)",
                    short(MAX_RATE)
                );
                return Err(invalid(&field, short(r.rate), allowed));
            }
        }
        Ok(())
    }
}

/// The DSMTS corpus (SBML models with analytic means and sds; the SBML reader's tests read its
/// models, `ssa::dsmts` runs its cases): `PETRI_DSMTS` if set, else the copy the repository
/// holds in `data/dsmts` (with its LGPL notice).
pub fn dsmts_dir() -> PathBuf {
    let dir = match std::env::var_os("PETRI_DSMTS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/dsmts")),
    };
    // Messages then name the files plainly; a missing folder is reported by whoever reads it.
    dir.canonicalize().unwrap_or(dir)
}

/// The DSMTS corpus (`dsmts_dir`), asserted present: a missing corpus fails the test that asked
/// for it, the checks must not pass by skipping.
#[cfg(test)]
pub(crate) fn dsmts_corpus() -> PathBuf {
    let dir = dsmts_dir();
    assert!(
        dir.join("00001").is_dir(),
        "the DSMTS corpus is missing: expected {} (the repository's data/dsmts, or PETRI_DSMTS)",
        dir.display()
    );
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reaction(reactants: Vec<(usize, u32)>, rate: f64) -> Reaction {
        Reaction {
            id: "r".into(),
            reactants,
            products: vec![],
            rate,
        }
    }

    #[test]
    fn propensity_is_rate_times_binomials() {
        let counts = [10, 7];
        assert_eq!(reaction(vec![], 2.5).propensity(&counts), 2.5);
        assert_eq!(reaction(vec![(0, 1)], 0.5).propensity(&counts), 5.0);
        assert_eq!(
            reaction(vec![(0, 1), (1, 1)], 0.5).propensity(&counts),
            35.0
        );
        // 2A: c * A (A - 1) / 2 pairs.
        assert_eq!(reaction(vec![(0, 2)], 0.5).propensity(&counts), 22.5);
        assert_eq!(reaction(vec![(0, 2)], 1.0).propensity(&[1, 0]), 0.0);
        assert_eq!(reaction(vec![(0, 2)], 1.0).order(), 2);
    }

    fn two_species() -> Network {
        let sp = |id: &str| Species {
            id: id.into(),
            name: None,
            initial_count: 1,
            boundary: false,
        };
        Network {
            id: "n".into(),
            species: vec![sp("A"), sp("B")],
            reactions: vec![reaction(vec![(0, 1)], 1.0)],
            compartment_volume: Some(1e-15),
            plot: Vec::new(),
        }
    }

    #[test]
    fn validate_names_the_bad_field() {
        let ok = two_species();
        ok.validate().unwrap();
        assert_eq!(ok.species_index("B"), Some(1));
        assert_eq!(ok.species_index("C"), None);

        let mut n = two_species();
        n.reactions[0].reactants = vec![(0, 2), (1, 1)];
        let e = n.validate().unwrap_err().to_string();
        assert!(e.contains("reactions.r.order") && e.contains("= 3"), "{e}");

        let mut n = two_species();
        n.reactions[0].rate = -1.0;
        let e = n.validate().unwrap_err().to_string();
        assert!(e.contains("reactions.r.rate"), "{e}");

        let mut n = two_species();
        n.reactions[0].products = vec![(1, 1), (1, 1)];
        let e = n.validate().unwrap_err().to_string();
        assert!(
            e.contains("reactions.r.products[1]") && e.contains("B"),
            "{e}"
        );

        let mut n = two_species();
        n.species[1].id = "A".into();
        let e = n.validate().unwrap_err().to_string();
        assert!(e.contains("species[1].id"), "{e}");

        let mut n = two_species();
        n.reactions[0].reactants = vec![(2, 1)];
        assert!(n.validate().is_err());
    }
}
