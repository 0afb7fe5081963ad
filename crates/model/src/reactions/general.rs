//! A reaction network beyond mass action, as SBML Level 3 core writes one: kinetic laws that are
//! any expression of the state (Michaelis-Menten, Hill, piecewise, ...), assignment rules,
//! initial assignments and events. `sbml::read_sbml_general` reads it; `ssa::general` simulates
//! it exactly with the direct method on the CPU.
//!
//! A law's value is the reaction's propensity in events per unit time (the substance units are
//! items), as for mass-action laws (`super` module doc): the law `k*P*(P-1)/2` and the mass-action
//! constant c = k give the same propensity.

use super::math::Expr;
use super::Network;
use crate::error::{invalid, Result};
use std::collections::BTreeSet;

/// A network whose reactions may have general laws, with rules and events.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralNetwork {
    /// Species, stoichiometries, and the mass-action constants of the reactions whose law is
    /// mass action (`laws[r]` None).
    pub network: Network,
    /// Per reaction: the propensity as an expression, or None for mass action.
    pub laws: Vec<Option<Expr>>,
    /// Parameters and compartment sizes: what `Expr::Value(i)` reads.
    pub values: Vec<Value>,
    /// Applied once at the start, in this order (each reads only values set before it).
    pub initial_assignments: Vec<Assignment>,
    /// Assignment rules, in an order in which each reads only rules before it: applied at the
    /// start and after every change of the state.
    pub rules: Vec<Assignment>,
    pub events: Vec<Event>,
}

/// A parameter or a compartment size.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub id: String,
    /// NaN where the model gives no value (an initial assignment or a rule must then set it).
    pub initial: f64,
}

/// What an assignment sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Species(usize),
    Value(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub target: Target,
    pub expr: Expr,
    /// Where it is written, for messages: `line 16: <assignmentRule variable="y">`.
    pub origin: String,
}

/// An SBML event: when `trigger` turns from false to true, `assignments` are made, after
/// `delay` if given.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub trigger: Expr,
    /// The trigger's value taken before the start (`initialValue`): false lets an event whose
    /// trigger holds at the start fire then.
    pub initial_value: bool,
    /// Whether a delayed execution survives its trigger turning false again.
    pub persistent: bool,
    pub delay: Option<Expr>,
    /// Higher first among events executed at the same time; equal ones in random order.
    pub priority: Option<Expr>,
    /// Assignments evaluated when triggered (true) or when executed (false).
    pub use_values_from_trigger_time: bool,
    pub assignments: Vec<Assignment>,
    pub origin: String,
}

impl GeneralNetwork {
    /// The names of what an ensemble reports: the species, then the values set by rules.
    pub fn outputs(&self) -> Vec<String> {
        let species = self.network.species.iter().map(|s| s.id.clone());
        species
            .chain(self.rule_values().map(|i| self.values[i].id.clone()))
            .collect()
    }

    /// Values set by assignment rules, in rule order.
    pub fn rule_values(&self) -> impl Iterator<Item = usize> + '_ {
        self.rules.iter().filter_map(|r| match r.target {
            Target::Value(i) => Some(i),
            Target::Species(_) => None,
        })
    }

    /// Whether every reaction is mass action and there are no rules or events: the mass-action
    /// simulators (all methods, CPU and GPU) then run `network` as it is.
    pub fn is_mass_action(&self) -> bool {
        self.laws.iter().all(Option::is_none)
            && self.rules.is_empty()
            && self.initial_assignments.is_empty()
            && self.events.is_empty()
    }

    /// Species and values each reaction's propensity reads, rules expanded: reaction r must be
    /// recomputed when one of them changes.
    pub fn law_reads(&self, r: usize) -> (BTreeSet<usize>, BTreeSet<usize>) {
        let (mut species, mut values) = (BTreeSet::new(), BTreeSet::new());
        match &self.laws[r] {
            Some(law) => law.reads(&mut species, &mut values),
            None => species.extend(self.network.reactions[r].reactants.iter().map(|&(s, _)| s)),
        }
        // A rule's value depends on what the rule reads: follow rules backwards.
        for rule in self.rules.iter().rev() {
            if let Target::Value(v) = rule.target {
                if values.contains(&v) {
                    rule.expr.reads(&mut species, &mut values);
                }
            }
        }
        (species, values)
    }

    /// The checks of `Network::validate` for the species and the reactions' stoichiometries,
    /// with the order and rate bounds only for mass-action reactions.
    pub fn validate(&self) -> Result<()> {
        if self.laws.len() != self.network.reactions.len() {
            let allowed = format!("one law per reaction ({})", self.network.reactions.len());
            return Err(invalid("laws", self.laws.len(), allowed));
        }
        self.network.validate_where(&|r| self.laws[r].is_none())
    }
}
