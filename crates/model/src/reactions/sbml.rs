//! SBML Level 3 core -> `Network`, for the mass-action subset listed in
//! docs/models/sbml-subset.md. Anything outside it is refused with its line, the element and its
//! id, and why: a model that cannot be represented exactly is never run approximately.
//!
//! Kinetic laws are expanded into polynomials in the species counts (constants evaluated
//! numerically), then matched against c * prod_i C(x_i, nu_i) over the reactants: that both
//! checks mass action and yields the stochastic constant c, whatever the law's arrangement
//! (`k*P*(P-1)/2`, `(k*X/2)/0.5`, `Cell*k*X`, ...).

use super::general::{Assignment, Event, GeneralNetwork, Target, Value};
use super::math::{Expr, Op};
use super::{Network, Reaction, Species, MAX_ORDER};
use crate::error::{short, ModelError, Result};
use roxmltree::{Document, Node};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

const CORE_NS: [&str; 2] = [
    "http://www.sbml.org/sbml/level3/version1/core",
    "http://www.sbml.org/sbml/level3/version2/core",
];
const MATHML_NS: &str = "http://www.w3.org/1998/Math/MathML";
/// Avogadro's number (`csymbol` avogadro), SI 2019.
const AVOGADRO: f64 = 6.022_140_76e23;
const SUBSET: &str = "supported subset: docs/models/sbml-subset.md";
const MATH_SUBSET: &str = "a kinetic law may use only ci, cn, apply with times, divide, minus, \
                           plus, power";

/// Deepest nesting of `<apply>` in a kinetic law. Mass-action laws need a handful of levels;
/// the reader evaluates laws recursively, so a cap keeps a hostile file from overflowing the
/// stack.
pub const MAX_MATH_DEPTH: usize = 64;
/// Largest expansion of a kinetic law while it is read: a term of higher degree in the species
/// counts than this, or more terms than `MAX_LAW_TERMS`, cannot end as mass action of order
/// <= 2 (short of cancelling itself), and would let a small file ask for an exponential
/// expansion.
const MAX_LAW_DEGREE: usize = 2 * MAX_ORDER as usize;
const MAX_LAW_TERMS: usize = 4096;
/// Most XML nodes in a document (roxmltree's own bound, unlimited by default): memory stays
/// bounded on any input. Large curated models have well under a million.
pub const MAX_XML_NODES: u32 = 10_000_000;

/// Reads and converts an SBML file of the mass-action subset.
pub fn read_sbml(path: &Path) -> Result<Network> {
    parse_sbml(&read_text(path)?, &path.display().to_string())
}

/// Reads an SBML file with general kinetic laws, assignment rules, initial assignments and
/// events (docs/models/sbml-subset.md, "General networks").
pub fn read_sbml_general(path: &Path) -> Result<GeneralNetwork> {
    parse_sbml_general(&read_text(path)?, &path.display().to_string())
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| ModelError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Converts SBML text of the mass-action subset; `path_for_errors` only labels the error
/// messages.
pub fn parse_sbml(text: &str, path_for_errors: &str) -> Result<Network> {
    let net = parse(text, path_for_errors, false)?.network;
    net.validate()?;
    Ok(net)
}

/// Converts SBML text with general laws, rules and events.
pub fn parse_sbml_general(text: &str, path_for_errors: &str) -> Result<GeneralNetwork> {
    let net = parse(text, path_for_errors, true)?;
    net.validate()?;
    Ok(net)
}

fn parse(text: &str, path_for_errors: &str, general: bool) -> Result<GeneralNetwork> {
    let options = roxmltree::ParsingOptions {
        nodes_limit: MAX_XML_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|e| ModelError::Parse {
        path: path_for_errors.to_string(),
        message: format!("not well-formed XML: {e}"),
    })?;
    let mut reader = Reader {
        doc: &doc,
        path: path_for_errors,
        general,
        units: HashMap::new(),
        symbols: HashMap::new(),
        species: Vec::new(),
        species_units: Vec::new(),
        values: Vec::new(),
        functions: HashMap::new(),
    };
    reader.network()
}

/// What an SBML id names, as far as kinetic laws are concerned.
enum Symbol {
    /// `scale` turns the count into what the id means in math: 1/u for an amount
    /// (hasOnlySubstanceUnits="true"), 1/(u size) for a concentration, u the items per
    /// substance unit (1 for items, Avogadro's number for moles); None for a concentration in a
    /// compartment without a size.
    Species {
        index: usize,
        scale: Option<f64>,
    },
    /// A compartment (its size) or a parameter (its value); None when the model gives none,
    /// or when a rule, an initial assignment or an event sets it (it is then no constant).
    /// `index` is its place in `GeneralNetwork::values`.
    Value {
        kind: &'static str,
        value: Option<f64>,
        index: usize,
    },
    Function,
}

/// One `<unit>` of a unitDefinition: (multiplier * 10^scale * kind)^exponent.
struct Unit {
    kind: String,
    exponent: f64,
    factor: f64,
}

struct Reader<'a, 'input> {
    doc: &'a Document<'input>,
    path: &'a str,
    /// Whether general laws, rules and events are read (else they are refused).
    general: bool,
    units: HashMap<String, Vec<Unit>>,
    symbols: HashMap<String, Symbol>,
    species: Vec<Species>,
    /// Items (molecules) per unit of each species' substance units: 1 for items, Avogadro's
    /// number for moles.
    species_units: Vec<f64>,
    values: Vec<Value>,
    /// Function definitions, expanded where they are called.
    functions: HashMap<String, Node<'a, 'input>>,
}

/// Element children in the SBML core namespace (or, inside math, MathML), without notes and
/// annotations, which carry no semantics.
fn items<'a, 'input>(node: Node<'a, 'input>) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children().filter(|n| {
        n.is_element()
            && !matches!(n.tag_name().name(), "notes" | "annotation")
            && n.tag_name()
                .namespace()
                .is_none_or(|ns| CORE_NS.contains(&ns) || ns == MATHML_NS)
    })
}

/// `<tag id="...">`, naming the element the way it is written in the file.
fn describe(node: Node) -> String {
    let tag = node.tag_name().name();
    for key in ["id", "variable", "symbol", "species"] {
        if let Some(v) = node.attribute(key) {
            return format!("<{tag} {key}=\"{v}\">");
        }
    }
    match node.text().map(str::trim) {
        Some(t) if !t.is_empty() && matches!(tag, "ci" | "cn") => format!("<{tag}> {t} </{tag}>"),
        _ => format!("<{tag}>"),
    }
}

impl<'a, 'input> Reader<'a, 'input> {
    /// The refusal of `element`, reported at the line of `at` (an element inside it, or itself).
    fn refuse_at(&self, element: Node, at: Node, why: impl std::fmt::Display) -> ModelError {
        let line = self.doc.text_pos_at(at.range().start).row;
        ModelError::Parse {
            path: self.path.to_string(),
            message: format!("line {line}: {}: {why} ({SUBSET})", describe(element)),
        }
    }

    fn refuse(&self, element: Node, why: impl std::fmt::Display) -> ModelError {
        self.refuse_at(element, element, why)
    }

    fn required<'n>(&self, node: Node<'n, '_>, attr: &str) -> Result<&'n str> {
        node.attribute(attr)
            .ok_or_else(|| self.refuse(node, format!("the required attribute {attr} is missing")))
    }

    fn flag(&self, node: Node, attr: &str) -> Result<bool> {
        match node.attribute(attr) {
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            other => Err(self.refuse(
                node,
                format!("{attr} = {other:?}: the attribute is required, \"true\" or \"false\""),
            )),
        }
    }

    fn expect(&self, node: Node, tag: &str) -> Result<()> {
        if node.tag_name().name() != tag {
            return Err(self.refuse(node, format!("expected <{tag}> in this list")));
        }
        Ok(())
    }

    fn number(&self, node: Node, attr: &str) -> Result<Option<f64>> {
        let Some(text) = node.attribute(attr) else {
            return Ok(None);
        };
        match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.refuse(node, format!("{attr} = \"{text}\" is not a finite number"))),
        }
    }

    fn define(&mut self, node: Node, id: &str, symbol: Symbol) -> Result<()> {
        if self.symbols.insert(id.to_string(), symbol).is_some() {
            return Err(self.refuse(node, format!("the id \"{id}\" is defined twice")));
        }
        Ok(())
    }

    fn network(&mut self) -> Result<GeneralNetwork> {
        let root = self.doc.root_element();
        if root.tag_name().name() != "sbml" {
            return Err(self.refuse(root, "not an SBML document"));
        }
        let level = root.attribute("level").unwrap_or("?");
        let ns = root.tag_name().namespace().unwrap_or("");
        if level != "3" || !CORE_NS.contains(&ns) {
            return Err(self.refuse(
                root,
                format!("level {level}, namespace \"{ns}\": only SBML Level 3 core is read"),
            ));
        }
        // Packages the model declares required change core semantics; optional ones cannot.
        for a in root.attributes() {
            if a.name() == "required" && a.namespace().is_some() && a.value() == "true" {
                let why = format!("requires the package {}", a.namespace().unwrap_or(""));
                return Err(self.refuse(root, why));
            }
        }
        let mut models = items(root);
        let Some(model) = models.next().filter(|m| m.tag_name().name() == "model") else {
            return Err(self.refuse(root, "expected exactly one <model>"));
        };
        if let Some(extra) = models.next() {
            return Err(self.refuse(extra, "expected exactly one <model>"));
        }
        if model.attribute("conversionFactor").is_some() {
            let why = "conversionFactor scales how reactions change species; not supported";
            return Err(self.refuse(model, why));
        }

        let mut lists = HashMap::new();
        for list in items(model) {
            let name = list.tag_name().name();
            let refused = match name {
                "listOfFunctionDefinitions"
                | "listOfUnitDefinitions"
                | "listOfCompartments"
                | "listOfSpecies"
                | "listOfParameters"
                | "listOfReactions" => {
                    if lists.insert(name, list).is_some() {
                        return Err(self.refuse(list, "a second list of the same kind"));
                    }
                    continue;
                }
                "listOfInitialAssignments" | "listOfRules" | "listOfEvents" if self.general => {
                    if lists.insert(name, list).is_some() {
                        return Err(self.refuse(list, "a second list of the same kind"));
                    }
                    continue;
                }
                "listOfInitialAssignments" => {
                    "initial assignments compute initial values from expressions; give values, \
                     initialAmount or initialConcentration instead"
                }
                "listOfRules" => {
                    "rules (assignment, rate, algebraic) tie a variable to an expression at all \
                     times, which a reaction network cannot honour"
                }
                "listOfConstraints" => "constraints are run-time checks the simulators do not make",
                "listOfEvents" => {
                    "events change the state at discrete times; the simulators have none"
                }
                _ => return Err(self.refuse(list, "not an SBML Level 3 core model component")),
            };
            // An empty list (allowed in Level 3 Version 2) asks for nothing.
            if let Some(first) = items(list).next() {
                return Err(self.refuse(first, refused));
            }
        }
        let list = |name: &str| lists.get(name).into_iter().flat_map(|l| items(*l));

        for node in list("listOfUnitDefinitions") {
            self.expect(node, "unitDefinition")?;
            let id = self.required(node, "id")?;
            let mut units = Vec::new();
            for u in items(node).flat_map(items) {
                self.expect(u, "unit")?;
                let scale = self.number(u, "scale")?.unwrap_or(0.0) as i32;
                let multiplier = self.number(u, "multiplier")?.unwrap_or(1.0);
                units.push(Unit {
                    kind: self.required(u, "kind")?.to_string(),
                    exponent: self.number(u, "exponent")?.unwrap_or(1.0),
                    factor: multiplier * 10f64.powi(scale),
                });
            }
            self.units.insert(id.to_string(), units);
        }
        let mut extent = None;
        for unit in ["substanceUnits", "extentUnits"] {
            let u = self.items_per(model, model.attribute(unit))?;
            if model.attribute(unit).is_some() {
                extent = Some(u);
            }
        }

        // Compartments by id: their size and element. The mass-action subset is one volume
        // (RDME scales its rates by it); a general network may have several, each well mixed.
        let mut compartments: Vec<(&str, Option<f64>, Node)> = Vec::new();
        for node in list("listOfCompartments") {
            self.expect(node, "compartment")?;
            let id = self.required(node, "id")?;
            if !compartments.is_empty() && !self.general {
                let why = "a second compartment: a network is one well-mixed compartment";
                return Err(self.refuse(node, why));
            }
            let size = self.number(node, "size")?;
            if let Some(s) = size {
                if s <= 0.0 {
                    return Err(self.refuse(node, format!("size = {s}: a size must be > 0")));
                }
                if let Some(d) = self.number(node, "spatialDimensions")? {
                    if d != 3.0 {
                        let why =
                            format!("spatialDimensions = {d}: a sized compartment is a volume (3)");
                        return Err(self.refuse(node, why));
                    }
                }
            }
            let kind = "compartment";
            let index = self.values.len();
            self.values.push(Value {
                id: id.to_string(),
                initial: size.unwrap_or(f64::NAN),
            });
            self.define(
                node,
                id,
                Symbol::Value {
                    kind,
                    value: size,
                    index,
                },
            )?;
            compartments.push((id, size, node));
        }
        let mut volumes = Vec::new();
        for &(_, size, node) in &compartments {
            if let Some(size) = size {
                let units = node.attribute("units").or(model.attribute("volumeUnits"));
                volumes.push(size * self.litres_per(node, units)?);
            }
        }
        // The one volume that RDME scales rates by; several compartments have none.
        let compartment_volume = match (compartments.len(), volumes.as_slice()) {
            (1, &[v]) => Some(v),
            _ => None,
        };

        for node in list("listOfSpecies") {
            self.expect(node, "species")?;
            let sizes: Vec<(&str, Option<f64>)> = compartments.iter().map(|c| (c.0, c.1)).collect();
            let s = self.one_species(model, node, &sizes)?;
            self.species.push(s);
        }
        // Ids that rules, initial assignments and events set: not constants in a law.
        let set: BTreeSet<&str> = ["listOfInitialAssignments", "listOfRules", "listOfEvents"]
            .into_iter()
            .flat_map(&list)
            .flat_map(|n| {
                let own = n.attribute("symbol").or(n.attribute("variable"));
                let assigned = n
                    .descendants()
                    .filter(|d| d.tag_name().name() == "eventAssignment")
                    .filter_map(|d| d.attribute("variable"));
                own.into_iter().chain(assigned)
            })
            .collect();
        for node in list("listOfParameters") {
            self.expect(node, "parameter")?;
            let id = self.required(node, "id")?;
            let value = self.number(node, "value")?;
            let index = self.values.len();
            self.values.push(Value {
                id: id.to_string(),
                initial: value.unwrap_or(f64::NAN),
            });
            let value = value.filter(|_| !set.contains(id));
            let kind = "parameter";
            self.define(node, id, Symbol::Value { kind, value, index })?;
        }
        for node in list("listOfFunctionDefinitions") {
            self.expect(node, "functionDefinition")?;
            let id = self.required(node, "id")?;
            self.define(node, id, Symbol::Function)?;
            self.functions.insert(id.to_string(), node);
        }
        let (mut reactions, mut laws) = (Vec::new(), Vec::new());
        for node in list("listOfReactions") {
            self.expect(node, "reaction")?;
            let (reaction, law) = self.reaction(node)?;
            reactions.push(reaction);
            laws.push(law);
        }
        let mut initial_assignments = Vec::new();
        for node in list("listOfInitialAssignments") {
            self.expect(node, "initialAssignment")?;
            let target = self.target(node, node, self.required(node, "symbol")?)?;
            initial_assignments.push(self.assignment(node, node, target, "initial assignment")?);
        }
        let mut rules = Vec::new();
        for node in list("listOfRules") {
            if node.tag_name().name() != "assignmentRule" {
                let why = "only assignment rules are read: rate and algebraic rules make \
                           continuous variables, which the stochastic simulators do not have";
                return Err(self.refuse(node, why));
            }
            let target = self.target(node, node, self.required(node, "variable")?)?;
            let rule = self.assignment(node, node, target, "rule")?;
            if rule.expr.reads_time() {
                let why = "a rule that reads time changes between events: the exact direct \
                           method needs propensities constant between events";
                return Err(self.refuse(node, why));
            }
            rules.push(rule);
        }
        let rules = self.rule_order(rules)?;
        let reaction_nodes: Vec<Node> = list("listOfReactions").collect();
        self.in_extent_units(&reaction_nodes, extent, &mut reactions, &mut laws)?;
        let mut events = Vec::new();
        for node in list("listOfEvents") {
            self.expect(node, "event")?;
            events.push(self.event(node)?);
        }
        for (node, law) in list("listOfReactions").zip(&laws) {
            if law.as_ref().is_some_and(Expr::reads_time) {
                let why = "a kinetic law that reads time changes between events: the exact \
                           direct method needs propensities constant between events";
                return Err(self.refuse(node, why));
            }
        }
        Ok(GeneralNetwork {
            network: Network {
                id: model.attribute("id").unwrap_or("model").to_string(),
                species: std::mem::take(&mut self.species),
                reactions,
                compartment_volume,
                plot: Vec::new(),
            },
            laws,
            values: std::mem::take(&mut self.values),
            initial_assignments,
            rules,
            events,
        })
    }

    /// What `id` names as the target of an assignment in `element`.
    fn target(&self, element: Node, at: Node, id: &str) -> Result<Target> {
        let refuse = |why: String| Err(self.refuse_at(element, at, why));
        match self.symbols.get(id) {
            Some(&Symbol::Species { index, .. }) => Ok(Target::Species(index)),
            Some(&Symbol::Value {
                kind: "parameter",
                index,
                ..
            }) => Ok(Target::Value(index)),
            Some(Symbol::Value { kind, .. }) => refuse(format!(
                "{kind} \"{id}\" is assigned: a compartment's size is fixed in the simulators \
                 (concentrations would change under the species)"
            )),
            _ => refuse(format!("\"{id}\" is not a species or a parameter")),
        }
    }

    /// An assignment of `node`'s math (a rule, an initial or event assignment) to `target`. A
    /// species is assigned in its own terms (an amount or a concentration, in its substance
    /// units): the count is the value over its scale, rounded to the nearest whole number where
    /// the units are not items (a number of moles is rarely a whole number of molecules).
    fn assignment(
        &self,
        element: Node,
        node: Node,
        target: Target,
        what: &str,
    ) -> Result<Assignment> {
        let expr = self.math_of(element, node, what, &HashMap::new())?;
        let expr = match target {
            Target::Species(s) => match self.species_scale(s) {
                Some(1.0) => expr,
                Some(k) if self.species_units[s] == 1.0 => {
                    Expr::Apply(Op::Divide, vec![expr, Expr::Num(k)])
                }
                Some(k) => {
                    let count = Expr::Apply(Op::Divide, vec![expr, Expr::Num(k)]);
                    let half_up = Expr::Apply(Op::Plus, vec![count, Expr::Num(0.5)]);
                    Expr::Apply(Op::Floor, vec![half_up])
                }
                None => {
                    let why = "a concentration in a compartment without a size";
                    return Err(self.refuse_at(element, node, why));
                }
            },
            Target::Value(_) => expr,
        };
        let line = self.doc.text_pos_at(node.range().start).row;
        Ok(Assignment {
            target,
            expr,
            origin: format!("line {line}: {}", describe(element)),
        })
    }

    fn species_scale(&self, s: usize) -> Option<f64> {
        self.symbols.values().find_map(|sym| match sym {
            Symbol::Species { index, scale } if *index == s => *scale,
            _ => None,
        })
    }

    /// Rules in an order in which each reads only rules before it; a cycle is refused.
    fn rule_order(&self, mut rules: Vec<Assignment>) -> Result<Vec<Assignment>> {
        let mut ordered: Vec<Assignment> = Vec::new();
        while !rules.is_empty() {
            let pending: Vec<Target> = rules.iter().map(|r| r.target).collect();
            let ready = rules.iter().position(|r| {
                let (mut species, mut values) = (BTreeSet::new(), BTreeSet::new());
                r.expr.reads(&mut species, &mut values);
                !pending.iter().any(|t| match *t {
                    Target::Species(s) => species.contains(&s),
                    Target::Value(v) => values.contains(&v),
                })
            });
            match ready {
                Some(i) => ordered.push(rules.remove(i)),
                None => {
                    return Err(ModelError::Parse {
                        path: self.path.to_string(),
                        message: format!(
                            "{}: the assignment rules read each other in a cycle ({SUBSET})",
                            rules[0].origin
                        ),
                    })
                }
            }
        }
        Ok(ordered)
    }

    fn event(&self, node: Node) -> Result<Event> {
        let id = node.attribute("id").unwrap_or("").to_string();
        let use_values_from_trigger_time = match node.attribute("useValuesFromTriggerTime") {
            None => true,
            Some(_) => self.flag(node, "useValuesFromTriggerTime")?,
        };
        let (mut trigger, mut delay, mut priority, mut assignments) = (None, None, None, vec![]);
        let none = HashMap::new();
        for child in items(node) {
            match child.tag_name().name() {
                "trigger" => {
                    let expr = self.math_of(node, child, "trigger", &none)?;
                    if !super::math::time_enters_by_comparison(&expr) {
                        let why = "the trigger reads time other than by comparing it with a \
                                   value that does not (time >= 25, and(time > 10, X > 5)): \
                                   the simulators find when such a trigger turns true exactly";
                        return Err(self.refuse_at(node, child, why));
                    }
                    let initial = self.flag(child, "initialValue")?;
                    let persistent = self.flag(child, "persistent")?;
                    trigger = Some((expr, initial, persistent));
                }
                "delay" => delay = Some(self.math_of(node, child, "delay", &none)?),
                "priority" => priority = Some(self.math_of(node, child, "priority", &none)?),
                "listOfEventAssignments" => {
                    for a in items(child) {
                        if a.tag_name().name() != "eventAssignment" {
                            return Err(self.refuse(a, "expected <eventAssignment> in this list"));
                        }
                        let target = self.target(node, a, self.required(a, "variable")?)?;
                        assignments.push(self.assignment(node, a, target, "event assignment")?);
                    }
                }
                _ => return Err(self.refuse(child, "not part of an SBML Level 3 core event")),
            }
        }
        let Some((trigger, initial_value, persistent)) = trigger else {
            return Err(self.refuse(node, "an event without a trigger"));
        };
        let line = self.doc.text_pos_at(node.range().start).row;
        Ok(Event {
            id,
            trigger,
            initial_value,
            persistent,
            delay,
            priority,
            use_values_from_trigger_time,
            assignments,
            origin: format!("line {line}: {}", describe(node)),
        })
    }

    /// The one expression inside `node`'s `<math>`.
    fn math_of(
        &self,
        element: Node,
        node: Node,
        what: &str,
        locals: &HashMap<&str, f64>,
    ) -> Result<Expr> {
        let math = if node.tag_name().name() == "math" {
            Some(node)
        } else {
            items(node).find(|c| c.tag_name().name() == "math")
        };
        let Some(math) = math else {
            return Err(self.refuse_at(element, node, format!("the {what} has no math")));
        };
        let mut body = items(math);
        match (body.next(), body.next()) {
            (Some(e), None) => self.math(element, e, what, locals, &HashMap::new(), 1),
            _ => Err(self.refuse_at(element, math, "the math must hold one expression")),
        }
    }

    /// A MathML element as an expression. `args` binds the arguments of a function whose body
    /// is being expanded; `depth` counts nesting and expansion, capped at `MAX_MATH_DEPTH`.
    fn math(
        &self,
        element: Node,
        node: Node,
        what: &str,
        locals: &HashMap<&str, f64>,
        args: &HashMap<String, Expr>,
        depth: usize,
    ) -> Result<Expr> {
        let refuse = |why: String| self.refuse_at(element, node, format!("{what}: {why}"));
        if depth > MAX_MATH_DEPTH {
            return Err(refuse(format!(
                "nested or expanded more than {MAX_MATH_DEPTH} deep (the reader's depth cap)"
            )));
        }
        let sub = |n: Node| self.math(element, n, what, locals, args, depth + 1);
        match node.tag_name().name() {
            "cn" => self.cn(node).map(Expr::Num).map_err(refuse),
            "ci" => {
                let id = node.text().unwrap_or("").trim();
                if let Some(e) = args.get(id) {
                    return Ok(e.clone());
                }
                if let Some(&v) = locals.get(id) {
                    return Ok(Expr::Num(v));
                }
                match self.symbols.get(id) {
                    Some(&Symbol::Species {
                        index,
                        scale: Some(scale),
                    }) => Ok(Expr::Species { index, scale }),
                    Some(Symbol::Species { scale: None, .. }) => Err(refuse(format!(
                        "\"{id}\" is a concentration (hasOnlySubstanceUnits=\"false\") in a \
                         compartment without a size"
                    ))),
                    Some(&Symbol::Value { index, .. }) => Ok(Expr::Value(index)),
                    Some(Symbol::Function) => Err(refuse(format!(
                        "the function \"{id}\" used without arguments"
                    ))),
                    None => Err(refuse(format!("\"{id}\" is not defined"))),
                }
            }
            "csymbol" => {
                let url = node.attribute("definitionURL").unwrap_or("");
                match url.rsplit('/').next() {
                    Some("time") => Ok(Expr::Time),
                    Some("avogadro") => Ok(Expr::Num(AVOGADRO)),
                    _ => Err(refuse(format!(
                        "the csymbol {url} (delay, rateOf) is not supported"
                    ))),
                }
            }
            "true" => Ok(Expr::Num(1.0)),
            "false" => Ok(Expr::Num(0.0)),
            "pi" => Ok(Expr::Num(std::f64::consts::PI)),
            "exponentiale" => Ok(Expr::Num(std::f64::consts::E)),
            "infinity" => Ok(Expr::Num(f64::INFINITY)),
            "notanumber" => Ok(Expr::Num(f64::NAN)),
            "piecewise" => {
                let (mut pieces, mut otherwise) = (Vec::new(), None);
                for part in items(node) {
                    let inner: Vec<Node> = items(part).collect();
                    match (part.tag_name().name(), inner.as_slice()) {
                        ("piece", [value, condition]) => pieces.push((sub(*value)?, sub(*condition)?)),
                        ("otherwise", [value]) => otherwise = Some(Box::new(sub(*value)?)),
                        _ => return Err(refuse("a <piecewise> holds <piece> (value, condition) and at most one <otherwise> (value)".into())),
                    }
                }
                Ok(Expr::Piecewise(pieces, otherwise))
            }
            "apply" => {
                let mut parts = items(node);
                let op = parts
                    .next()
                    .ok_or_else(|| refuse("an empty <apply>".into()))?;
                let mut operands = Vec::new();
                for p in parts {
                    // `root`'s degree and `log`'s base come first, as qualifiers.
                    match p.tag_name().name() {
                        "degree" | "logbase" => match items(p).next() {
                            Some(q) => operands.insert(0, sub(q)?),
                            None => {
                                return Err(refuse(format!("an empty <{}>", p.tag_name().name())))
                            }
                        },
                        _ => operands.push(sub(p)?),
                    }
                }
                match op.tag_name().name() {
                    "ci" => self.call(element, op, what, operands, depth),
                    name => {
                        let Some(o) = Op::from_tag(name) else {
                            return Err(refuse(format!(
                                "MathML <{name}> is not an operator of the SBML core"
                            )));
                        };
                        let (least, most) = o.arity();
                        if operands.len() < least || operands.len() > most {
                            return Err(refuse(format!(
                                "<{name}> with {} arguments",
                                operands.len()
                            )));
                        }
                        Ok(Expr::Apply(o, operands))
                    }
                }
            }
            other => Err(refuse(format!(
                "MathML <{other}> is not part of SBML's MathML"
            ))),
        }
    }

    /// A call of a function definition, its body expanded with the arguments bound.
    fn call(
        &self,
        element: Node,
        op: Node,
        what: &str,
        operands: Vec<Expr>,
        depth: usize,
    ) -> Result<Expr> {
        let id = op.text().unwrap_or("").trim();
        let refuse = |why: String| self.refuse_at(element, op, format!("{what}: {why}"));
        let Some(&function) = self.functions.get(id) else {
            return Err(refuse(format!(
                "\"{id}\" is called but is not a functionDefinition"
            )));
        };
        let lambda = items(function)
            .find(|c| c.tag_name().name() == "math")
            .and_then(|m| items(m).find(|c| c.tag_name().name() == "lambda"));
        let Some(lambda) = lambda else {
            return Err(refuse(format!(
                "the functionDefinition \"{id}\" has no <lambda>"
            )));
        };
        let parts: Vec<Node> = items(lambda).collect();
        let Some((body, bvars)) = parts.split_last() else {
            return Err(refuse(format!(
                "the functionDefinition \"{id}\" has an empty <lambda>"
            )));
        };
        if bvars.len() != operands.len() {
            return Err(refuse(format!(
                "\"{id}\" takes {} arguments, called with {}",
                bvars.len(),
                operands.len()
            )));
        }
        let mut bound = HashMap::new();
        for (b, value) in bvars.iter().zip(operands) {
            let name = items(*b).next().and_then(|c| c.text()).unwrap_or("").trim();
            bound.insert(name.to_string(), value);
        }
        self.math(element, *body, what, &HashMap::new(), &bound, depth + 1)
    }

    /// Litres per `units` (a compartment's, else the model's volumeUnits). A size with no
    /// declared unit is taken as litres.
    fn litres_per(&self, node: Node, units: Option<&str>) -> Result<f64> {
        let id = match units {
            None | Some("litre") => return Ok(1.0),
            Some(id) => id,
        };
        match self.units.get(id).map(Vec::as_slice) {
            Some([u]) if u.kind == "litre" && u.exponent == 1.0 => Ok(u.factor),
            Some([u]) if u.kind == "metre" && u.exponent == 3.0 => Ok(1000.0 * u.factor.powi(3)),
            _ => Err(self.refuse(
                node,
                format!("volume units \"{id}\" are not a litre or cubic metre multiple"),
            )),
        }
    }

    /// Items (molecules) per substance unit: the simulators count molecules. The mass-action
    /// subset takes items only; a general network also moles (times Avogadro's number) and
    /// multiples of either through a unitDefinition.
    fn items_per(&self, node: Node, units: Option<&str>) -> Result<f64> {
        let per = match units {
            None | Some("item" | "dimensionless") => Some(1.0),
            Some("mole") => Some(AVOGADRO),
            Some(id) => match self.units.get(id).map(Vec::as_slice) {
                Some([u]) if u.exponent == 1.0 => match u.kind.as_str() {
                    "item" | "dimensionless" => Some(u.factor),
                    "mole" => Some(u.factor * AVOGADRO),
                    _ => None,
                },
                _ => None,
            },
        };
        let units = units.unwrap_or("");
        match per {
            Some(1.0) => Ok(1.0),
            Some(per) if self.general && per.is_finite() && per > 0.0 => Ok(per),
            Some(_) if !self.general => Err(self.refuse(
                node,
                format!(
                    "substance units \"{units}\" are not items: amounts must be molecule \
                     counts (a general network converts moles: `petri run` reads it so)"
                ),
            )),
            _ => Err(self.refuse(
                node,
                format!("substance units \"{units}\" are not items or moles (or a multiple)"),
            )),
        }
    }

    /// Reaction rates in events per unit time. A law gives the extent's rate in the model's
    /// extentUnits (else its substanceUnits, else the units of the species that reactions
    /// change): times items per extent unit it is a propensity. Each reaction event changes a
    /// species by its stoichiometry in items, so every changed species must count in the
    /// extent's units (SBML's conversionFactor, which would scale them, is refused).
    fn in_extent_units(
        &self,
        nodes: &[Node],
        extent: Option<f64>,
        reactions: &mut [Reaction],
        laws: &mut [Option<Expr>],
    ) -> Result<()> {
        let changed = |r: &Reaction| {
            let parts = r.reactants.iter().chain(&r.products);
            parts
                .map(|&(s, _)| s)
                .filter(|&s| !self.species[s].boundary)
                .collect::<Vec<_>>()
        };
        let extent = extent.unwrap_or_else(|| {
            let first = reactions.iter().flat_map(changed).next();
            first.map_or(1.0, |s| self.species_units[s])
        });
        for ((reaction, law), node) in reactions.iter_mut().zip(laws.iter_mut()).zip(nodes) {
            if let Some(s) = changed(reaction)
                .into_iter()
                .find(|&s| (self.species_units[s] / extent - 1.0).abs() > 1e-12)
            {
                let why = format!(
                    "species \"{}\" counts in other substance units ({} items each) than \
                     the reaction's extent ({} items each): one reaction event would change it \
                     by another number of molecules than its stoichiometry",
                    self.species[s].id,
                    short(self.species_units[s]),
                    short(extent)
                );
                return Err(self.refuse(*node, why));
            }
            if extent == 1.0 {
                continue;
            }
            match law.take() {
                Some(expr) => *law = Some(Expr::Apply(Op::Times, vec![Expr::Num(extent), expr])),
                None => {
                    reaction.rate *= extent;
                    if !reaction.rate.is_finite() {
                        let why = format!("rate constant {} events per unit time", reaction.rate);
                        return Err(self.refuse(*node, why));
                    }
                }
            }
        }
        Ok(())
    }

    fn one_species(
        &mut self,
        model: Node,
        node: Node,
        compartments: &[(&str, Option<f64>)],
    ) -> Result<Species> {
        let id = self.required(node, "id")?;
        let in_compartment = self.required(node, "compartment")?;
        let Some(&(_, size)) = compartments.iter().find(|c| c.0 == in_compartment) else {
            let why = format!("compartment \"{in_compartment}\" is not defined");
            return Err(self.refuse(node, why));
        };
        let only_substance = self.flag(node, "hasOnlySubstanceUnits")?;
        let boundary = self.flag(node, "boundaryCondition")? | self.flag(node, "constant")?;
        if node.attribute("conversionFactor").is_some() {
            let why = "conversionFactor scales how reactions change the species; not supported";
            return Err(self.refuse(node, why));
        }
        let units = node
            .attribute("substanceUnits")
            .or(model.attribute("substanceUnits"));
        let per = self.items_per(node, units)?;
        let amount = match (
            self.number(node, "initialAmount")?,
            self.number(node, "initialConcentration")?,
        ) {
            (Some(a), None) => a,
            (None, Some(c)) => match size {
                Some(v) => c * v,
                None => {
                    let why = "initialConcentration in a compartment without a size";
                    return Err(self.refuse(node, why));
                }
            },
            (None, None) => {
                let why = "no initialAmount or initialConcentration";
                return Err(self.refuse(node, why));
            }
            (Some(_), Some(_)) => {
                let why = "both initialAmount and initialConcentration";
                return Err(self.refuse(node, why));
            }
        };
        let amount = amount * per;
        // Whole up to rounding in concentration * size; beyond 2^53 f64 no longer counts by one.
        // An amount in moles is rounded to the nearest molecule.
        let count = amount.round();
        if !(0.0..=9.007_199_254_740_992e15).contains(&count)
            || (per == 1.0 && (amount - count).abs() > 1e-9 * count.max(1.0))
        {
            let why = format!(
                "initial amount {} is not a whole number of items >= 0",
                short(amount)
            );
            return Err(self.refuse(node, why));
        }
        let index = self.species.len();
        let scale = if only_substance {
            Some(1.0 / per)
        } else {
            size.map(|v| 1.0 / (per * v))
        };
        self.define(node, id, Symbol::Species { index, scale })?;
        self.species_units.push(per);
        Ok(Species {
            id: id.to_string(),
            name: node.attribute("name").map(str::to_string),
            initial_count: count as u64,
            boundary,
        })
    }

    /// A reaction, and its law as an expression where it is not mass action (read as general
    /// networks only; else refused).
    fn reaction(&self, node: Node) -> Result<(Reaction, Option<Expr>)> {
        let id = self.required(node, "id")?;
        if self.flag(node, "reversible")? {
            let why = "reversible=\"true\" with one kinetic law: write the forward and the \
                       backward reaction separately, each with its own mass-action law";
            return Err(self.refuse(node, why));
        }
        if node
            .attribute("fast")
            .is_some_and(|f| f == "true" || f == "1")
        {
            let why = "fast=\"true\" (quasi-equilibrium) is not stochastic kinetics";
            return Err(self.refuse(node, why));
        }
        let (mut reactants, mut products, mut modifiers) = (Vec::new(), Vec::new(), Vec::new());
        let mut law = None;
        for child in items(node) {
            match child.tag_name().name() {
                "listOfReactants" => self.references(node, child, &mut reactants)?,
                "listOfProducts" => self.references(node, child, &mut products)?,
                "listOfModifiers" => {
                    for m in items(child) {
                        modifiers.push(self.species_ref(node, m, "modifierSpeciesReference")?);
                    }
                }
                "kineticLaw" => law = Some(child),
                _ => return Err(self.refuse(child, "not part of an SBML Level 3 core reaction")),
            }
        }
        let Some(law) = law else {
            return Err(self.refuse(node, "no kineticLaw"));
        };
        match self.mass_action(node, law, reactants.clone(), products.clone(), &modifiers) {
            Ok(reaction) => Ok((reaction, None)),
            Err(e) if !self.general => Err(e),
            Err(_) => {
                let (locals, math) = self.law_parts(node, law)?;
                let expr = self.math(node, math, "kinetic law", &locals, &HashMap::new(), 1)?;
                let reaction = Reaction {
                    id: id.to_string(),
                    reactants,
                    products,
                    rate: 0.0,
                };
                Ok((reaction, Some(expr)))
            }
        }
    }

    /// The reaction if its law is mass action: the checks and the constant c.
    fn mass_action(
        &self,
        node: Node,
        law: Node,
        mut reactants: Vec<(usize, u32)>,
        products: Vec<(usize, u32)>,
        modifiers: &[usize],
    ) -> Result<Reaction> {
        let id = self.required(node, "id")?;
        let poly = self.kinetic_law(node, law)?;

        // A boundary reactant the law does not use (DSMTS's Source in `Source -> X`, law
        // `Alpha`) is never consumed and does not set the rate: the reaction is `0 -> X`.
        let in_law = poly.species();
        reactants.retain(|&(s, _)| in_law.contains(&s) || !self.species[s].boundary);
        for &s in &in_law {
            if !reactants.iter().any(|&(r, _)| r == s) {
                let hint = if modifiers.contains(&s) {
                    " (a modifier: write a catalyst as both reactant and product)"
                } else {
                    ""
                };
                let why = format!(
                    "species \"{}\" is in the kinetic law but not a reactant{hint}: not mass action",
                    self.species[s].id
                );
                return Err(self.refuse_at(node, law, why));
            }
        }
        if let Some(&(s, _)) = reactants.iter().find(|(s, _)| !in_law.contains(s)) {
            let why = format!(
                "reactant \"{}\" is not in the kinetic law: not mass action",
                self.species[s].id
            );
            return Err(self.refuse_at(node, law, why));
        }
        let order: u32 = reactants.iter().map(|&(_, nu)| nu).sum();
        if order > MAX_ORDER {
            let why = format!(
                "order {order} (sum of reactant stoichiometries): only elementary reactions of \
                 order 0, 1, 2 are supported"
            );
            return Err(self.refuse(node, why));
        }
        let names: Vec<&str> = self.species.iter().map(|s| s.id.as_str()).collect();
        let Some(rate) = mass_action_constant(&poly, &reactants) else {
            let why = format!(
                "kinetic law {} is not c * {} for a constant c (mass action for counts)",
                poly.show(&names),
                mass_action_form(&reactants, &names)
            );
            return Err(self.refuse_at(node, law, why));
        };
        if !(rate.is_finite() && rate >= 0.0) {
            let why = format!("rate constant {}: it must be finite and >= 0", short(rate));
            return Err(self.refuse_at(node, law, why));
        }
        Ok(Reaction {
            id: id.to_string(),
            reactants,
            products,
            rate,
        })
    }

    /// A refusal of `part` (a species reference) named through its reaction.
    fn refuse_part(&self, reaction: Node, part: Node, why: impl std::fmt::Display) -> ModelError {
        self.refuse_at(reaction, part, format!("{}: {why}", describe(part)))
    }

    /// Appends (species, stoichiometry) pairs, adding the stoichiometries of a repeated species.
    fn references(&self, reaction: Node, list: Node, out: &mut Vec<(usize, u32)>) -> Result<()> {
        for r in items(list) {
            let s = self.species_ref(reaction, r, "speciesReference")?;
            let Some(nu) = self.number(r, "stoichiometry")? else {
                let why = "no stoichiometry (Level 3 has no default)";
                return Err(self.refuse_part(reaction, r, why));
            };
            if nu < 1.0 || nu.fract() != 0.0 || nu > u32::MAX as f64 {
                let why =
                    format!("stoichiometry {nu}: reactions change counts by whole numbers >= 1");
                return Err(self.refuse_part(reaction, r, why));
            }
            match out.iter_mut().find(|(t, _)| *t == s) {
                // Saturating: a total past the limits is refused as an order or a stoichiometry.
                Some((_, total)) => *total = total.saturating_add(nu as u32),
                None => out.push((s, nu as u32)),
            }
        }
        Ok(())
    }

    fn species_ref(&self, reaction: Node, node: Node, tag: &str) -> Result<usize> {
        if node.tag_name().name() != tag {
            let why = format!("expected <{tag}> in this list");
            return Err(self.refuse_part(reaction, node, why));
        }
        let id = self.required(node, "species")?;
        match self.symbols.get(id) {
            Some(Symbol::Species { index, .. }) => Ok(*index),
            _ => Err(self.refuse_part(reaction, node, format!("\"{id}\" is not a species"))),
        }
    }

    fn kinetic_law(&self, reaction: Node, law: Node) -> Result<Poly> {
        let (locals, math) = self.law_parts(reaction, law)?;
        self.expr(reaction, math, &locals, 1)
    }

    /// A kinetic law's local parameters and its one expression.
    fn law_parts<'n>(
        &self,
        reaction: Node,
        law: Node<'n, 'input>,
    ) -> Result<(HashMap<&'n str, f64>, Node<'n, 'input>)> {
        let mut locals = HashMap::new();
        let mut math = None;
        for child in items(law) {
            match child.tag_name().name() {
                "math" => math = Some(child),
                "listOfLocalParameters" => {
                    for p in items(child) {
                        if p.tag_name().name() != "localParameter" {
                            return Err(self.refuse(p, "expected <localParameter> in this list"));
                        }
                        let Some(value) = self.number(p, "value")? else {
                            return Err(self.refuse(p, "a local parameter without a value"));
                        };
                        locals.insert(self.required(p, "id")?, value);
                    }
                }
                _ => return Err(self.refuse(child, "not part of an SBML Level 3 core kineticLaw")),
            }
        }
        let Some(math) = math else {
            return Err(self.refuse_at(reaction, law, "the kineticLaw has no math"));
        };
        let mut body = items(math);
        match (body.next(), body.next()) {
            (Some(e), None) => Ok((locals, e)),
            _ => Err(self.refuse_at(reaction, math, "the math must hold one expression")),
        }
    }

    /// A MathML expression at nesting `depth` (1 at the top) as a polynomial in species
    /// counts. `reaction` labels refusals.
    fn expr(
        &self,
        reaction: Node,
        node: Node,
        locals: &HashMap<&str, f64>,
        depth: usize,
    ) -> Result<Poly> {
        let refuse = |why: String| self.refuse_at(reaction, node, format!("kinetic law: {why}"));
        match node.tag_name().name() {
            "cn" => self.cn(node).map(Poly::constant).map_err(refuse),
            "ci" => {
                let id = node.text().unwrap_or("").trim();
                if let Some(&v) = locals.get(id) {
                    return Ok(Poly::constant(v));
                }
                match self.symbols.get(id) {
                    Some(&Symbol::Species {
                        index,
                        scale: Some(k),
                    }) => Ok(Poly::count(index, k)),
                    Some(Symbol::Species { scale: None, .. }) => Err(refuse(format!(
                        "\"{id}\" is a concentration (hasOnlySubstanceUnits=\"false\") in a \
                         compartment without a size"
                    ))),
                    Some(&Symbol::Value { value: Some(v), .. }) => Ok(Poly::constant(v)),
                    Some(Symbol::Value {
                        kind, value: None, ..
                    }) => Err(refuse(format!("{kind} \"{id}\" has no value (size)"))),
                    Some(Symbol::Function) => Err(refuse(format!(
                        "uses the functionDefinition \"{id}\"; write the law out"
                    ))),
                    None => Err(refuse(format!("\"{id}\" is not defined"))),
                }
            }
            "apply" if depth > MAX_MATH_DEPTH => Err(refuse(format!(
                "<apply> nested more than {MAX_MATH_DEPTH} deep (the reader's depth cap); a \
                 mass-action law needs a few levels"
            ))),
            "apply" => {
                let mut parts = items(node);
                let op = parts
                    .next()
                    .ok_or_else(|| refuse("an empty <apply>".into()))?;
                let args = parts
                    .map(|a| self.expr(reaction, a, locals, depth + 1))
                    .collect::<Result<Vec<Poly>>>();
                self.apply(op, args?, &refuse)
            }
            other => Err(refuse(format!(
                "MathML <{other}> is outside the subset; {MATH_SUBSET}"
            ))),
        }
    }

    fn apply(
        &self,
        op: Node,
        mut args: Vec<Poly>,
        refuse: &dyn Fn(String) -> ModelError,
    ) -> Result<Poly> {
        let name = op.tag_name().name();
        let arity = |n: usize| -> Result<()> {
            match args.len() == n {
                true => Ok(()),
                false => Err(refuse(format!("<{name}> with {} arguments", args.len()))),
            }
        };
        let names: Vec<&str> = self.species.iter().map(|s| s.id.as_str()).collect();
        let product = |a: &Poly, b: &Poly| {
            a.checked_mul(b).ok_or_else(|| {
                refuse(format!(
                    "expands past degree {MAX_LAW_DEGREE} or {MAX_LAW_TERMS} terms in the \
                     species counts: not mass action of order <= {MAX_ORDER}"
                ))
            })
        };
        match name {
            "times" => args
                .iter()
                .try_fold(Poly::constant(1.0), |p, a| product(&p, a)),
            "plus" => Ok(args.iter().fold(Poly::default(), |p, a| p.add(a, 1.0))),
            "minus" if args.len() == 1 => Ok(Poly::default().add(&args[0], -1.0)),
            "minus" => {
                arity(2)?;
                Ok(args[0].add(&args[1], -1.0))
            }
            "divide" => {
                arity(2)?;
                match args[1].as_constant() {
                    Some(d) if d != 0.0 => Ok(args.swap_remove(0).scale(1.0 / d)),
                    Some(_) => Err(refuse("division by zero".into())),
                    None => Err(refuse(format!(
                        "{} in a denominator: not mass action",
                        args[1].show(&names)
                    ))),
                }
            }
            "power" => {
                arity(2)?;
                let Some(e) = args[1].as_constant() else {
                    return Err(refuse("a species in an exponent: not mass action".into()));
                };
                if let Some(b) = args[0].as_constant() {
                    return Ok(Poly::constant(b.powf(e)));
                }
                // A higher power of a count cannot be mass action of order <= 2 anyway.
                match e {
                    0.0 => Ok(Poly::constant(1.0)),
                    1.0 => Ok(args.swap_remove(0)),
                    2.0 => product(&args[0], &args[0]),
                    _ => Err(refuse(format!(
                        "a species to the power {}: not mass action",
                        short(e)
                    ))),
                }
            }
            "ci" => Err(refuse(format!(
                "calls \"{}\"; function calls (functionDefinition) are not expanded, write the law out",
                op.text().unwrap_or("").trim()
            ))),
            other => Err(refuse(format!("MathML <{other}> is outside the subset; {MATH_SUBSET}"))),
        }
    }

    /// A `<cn>`: real, integer, e-notation (`m<sep/>e`) or rational (`n<sep/>d`).
    fn cn(&self, node: Node) -> std::result::Result<f64, String> {
        let texts: Vec<&str> = node
            .children()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text().map(str::trim))
            .filter(|t| !t.is_empty())
            .collect();
        let kind = node.attribute("type").unwrap_or("real");
        let value = match (kind, texts.as_slice()) {
            ("real" | "integer", [t]) => t.parse::<f64>().ok(),
            ("e-notation", [m, e]) => format!("{m}e{e}").parse::<f64>().ok(),
            ("rational", [n, d]) => match (n.parse::<f64>(), d.parse::<f64>()) {
                (Ok(n), Ok(d)) if d != 0.0 => Some(n / d),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some(v) if v.is_finite() && node.attribute("base").is_none_or(|b| b == "10") => Ok(v),
            _ => Err(format!(
                "<cn type=\"{kind}\"> {} is not a finite number",
                texts.join(" ")
            )),
        }
    }
}

/// A polynomial in species counts: monomial (species indices, sorted, repeated for powers) ->
/// coefficient.
#[derive(Clone, Debug, Default)]
struct Poly(BTreeMap<Vec<usize>, f64>);

impl Poly {
    fn constant(c: f64) -> Poly {
        Poly(BTreeMap::from([(vec![], c)]))
    }

    /// `scale` times the count of species `s`.
    fn count(s: usize, scale: f64) -> Poly {
        Poly(BTreeMap::from([(vec![s], scale)]))
    }

    fn add(&self, other: &Poly, sign: f64) -> Poly {
        let mut sum = self.0.clone();
        for (m, c) in &other.0 {
            *sum.entry(m.clone()).or_insert(0.0) += sign * c;
        }
        Poly(sum)
    }

    fn scale(self, k: f64) -> Poly {
        Poly(self.0.into_iter().map(|(m, c)| (m, c * k)).collect())
    }

    fn mul(&self, other: &Poly) -> Poly {
        let mut product = BTreeMap::new();
        for (m1, c1) in &self.0 {
            for (m2, c2) in &other.0 {
                let mut m: Vec<usize> = m1.iter().chain(m2).copied().collect();
                m.sort_unstable();
                *product.entry(m).or_insert(0.0) += c1 * c2;
            }
        }
        Poly(product)
    }

    /// `mul`, or None if the product would pass `MAX_LAW_DEGREE` or `MAX_LAW_TERMS`.
    fn checked_mul(&self, other: &Poly) -> Option<Poly> {
        let degree = |p: &Poly| p.0.keys().map(Vec::len).max().unwrap_or(0);
        let fits = degree(self) + degree(other) <= MAX_LAW_DEGREE
            && self.0.len().saturating_mul(other.0.len()) <= MAX_LAW_TERMS;
        fits.then(|| self.mul(other))
    }

    fn coefficient(&self, monomial: &[usize]) -> f64 {
        self.0.get(monomial).copied().unwrap_or(0.0)
    }

    fn largest(&self) -> f64 {
        self.0.values().fold(0.0, |m, c| m.max(c.abs()))
    }

    /// Terms whose coefficient is not a rounding residue of a cancellation.
    fn terms(&self) -> impl Iterator<Item = (&Vec<usize>, &f64)> {
        let floor = 1e-12 * self.largest();
        self.0.iter().filter(move |(_, c)| c.abs() > floor)
    }

    fn as_constant(&self) -> Option<f64> {
        match self.terms().all(|(m, _)| m.is_empty()) {
            true => Some(self.coefficient(&[])),
            false => None,
        }
    }

    fn species(&self) -> BTreeSet<usize> {
        self.terms().flat_map(|(m, _)| m.iter().copied()).collect()
    }

    fn show(&self, names: &[&str]) -> String {
        let terms: Vec<String> = self
            .terms()
            .map(|(m, c)| {
                let factors = m.iter().map(|&s| names[s]);
                std::iter::once(short(*c))
                    .chain(factors.map(str::to_string))
                    .collect::<Vec<_>>()
                    .join("*")
            })
            .collect();
        match terms.is_empty() {
            true => "0".into(),
            false => terms.join(" + "),
        }
    }
}

/// c such that `law` = c * prod_i C(x_i, nu_i) over `reactants`, if the law has that form (up to
/// rounding in the constants).
fn mass_action_constant(law: &Poly, reactants: &[(usize, u32)]) -> Option<f64> {
    let mut form = Poly::constant(1.0);
    let mut leading = Vec::new();
    for &(s, nu) in reactants {
        for k in 0..nu {
            // (x - k) / (k + 1): the falling factorial over nu!.
            let factor = Poly::count(s, 1.0).add(&Poly::constant(k as f64), -1.0);
            form = form.mul(&factor.scale(1.0 / (k + 1) as f64));
            leading.push(s);
        }
    }
    leading.sort_unstable();
    let c = law.coefficient(&leading) / form.coefficient(&leading);
    let residue = law.add(&form.scale(c), -1.0);
    (residue.largest() <= 1e-9 * law.largest()).then_some(c)
}

/// The required form, for messages: `1`, `X`, `A*B`, `P*(P-1)/2`.
fn mass_action_form(reactants: &[(usize, u32)], names: &[&str]) -> String {
    let factors: Vec<String> = reactants
        .iter()
        .map(|&(s, nu)| match nu {
            1 => names[s].to_string(),
            2 => format!("{0}*({0}-1)/2", names[s]),
            _ => format!("C({}, {nu})", names[s]),
        })
        .collect();
    match factors.is_empty() {
        true => "1".into(),
        false => factors.join("*"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reactions::dsmts_corpus;

    /// `V=- | X=100 | Sink=0 fixed | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11`.
    fn summary(net: &Network) -> String {
        let name = |s: usize| net.species[s].id.as_str();
        let side = |list: &[(usize, u32)]| match list.is_empty() {
            true => "0".to_string(),
            false => list
                .iter()
                .map(|&(s, nu)| match nu {
                    1 => name(s).to_string(),
                    _ => format!("{nu}{}", name(s)),
                })
                .collect::<Vec<_>>()
                .join(" + "),
        };
        // 12 significant digits: the rates come out of arithmetic on the law's constants.
        let round = |x: f64| format!("{x:.11e}").parse::<f64>().unwrap();
        let mut parts = vec![match net.compartment_volume {
            Some(v) => format!("V={}", round(v)),
            None => "V=-".into(),
        }];
        for s in &net.species {
            let fixed = if s.boundary { " fixed" } else { "" };
            parts.push(format!("{}={}{fixed}", s.id, s.initial_count));
        }
        for r in &net.reactions {
            let (lhs, rhs) = (side(&r.reactants), side(&r.products));
            parts.push(format!("{}: {lhs} -> {rhs} @{}", r.id, round(r.rate)));
        }
        parts.join(" | ")
    }

    /// DSMTS cases refused: (case, the element the message names, why). 00019 has a rule;
    /// 00028, 00029, 00032, 00033 have events; 00034-00036 eliminate P by conservation, so the
    /// law of `0 -> P2` is a polynomial in its own product P2, not mass action.
    const REFUSED: &[(&str, &str, &str)] = &[
        ("00019", "line 16: <assignmentRule variable=\"y\">", "rules"),
        ("00028", "line 41: <event id=\"reset\">", "events"),
        ("00029", "line 41: <event id=\"reset\">", "events"),
        ("00032", "line 61: <event id=\"reset\">", "events"),
        ("00033", "line 61: <event id=\"reset\">", "events"),
        (
            "00034",
            "<reaction id=\"Dimerisation\">",
            "\"P2\" is in the kinetic law but not a reactant",
        ),
        (
            "00035",
            "<reaction id=\"Dimerisation\">",
            "\"P2\" is in the kinetic law but not a reactant",
        ),
        (
            "00036",
            "<reaction id=\"Dimerisation\">",
            "\"P2\" is in the kinetic law but not a reactant",
        ),
    ];

    /// Every other case, as read (checked by hand against the XML and the analytic results:
    /// 00011 and 00018 halve the rates, the first through concentrations in a compartment of
    /// size 2, the second through a factor Cell = 0.5; 00022 and 00027 use local parameters that
    /// shadow global ones; in 00024-00026 the fixed reactant Source is not in the law `Alpha`).
    const ACCEPTED: &[(&str, &str)] = &[
        ("00001", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00002", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00003", "V=- | X=100 | Birth: X -> 2X @1 | Death: X -> 0 @1.1"),
        ("00004", "V=- | X=10 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00005", "V=- | X=10000 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00006", "V=- | X=100 | Sink=0 fixed | Birth: X -> 2X @0.1 | Death: X -> Sink @0.11"),
        ("00007", "V=- | X=100 | Sink=0 | Birth: X -> 2X @0.1 | Death: X -> Sink @0.11"),
        ("00008", "V=1 | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00009", "V=2 | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00010", "V=1 | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00011", "V=2 | X=100 | Birth: X -> 2X @0.05 | Death: X -> 0 @0.055"),
        ("00012", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00013", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00014", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00015", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00016", "V=- | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00017", "V=1 | X=100 | Birth: X -> 2X @0.1 | Death: X -> 0 @0.11"),
        ("00018", "V=0.5 | X=100 | Birth: X -> 2X @0.05 | Death: X -> 0 @0.055"),
        ("00020", "V=- | X=0 | Immigration: 0 -> X @1 | Death: X -> 0 @0.1"),
        ("00021", "V=- | X=0 | Immigration: 0 -> X @10 | Death: X -> 0 @0.1"),
        ("00022", "V=- | X=0 | Immigration: 0 -> X @5 | Death: X -> 0 @0.1"),
        ("00023", "V=- | X=0 | Immigration: 0 -> X @1000 | Death: X -> 0 @0.1"),
        ("00024", "V=- | X=0 | Source=0 fixed | Sink=0 fixed | Immigration: 0 -> X @10 | Death: X -> Sink @0.1"),
        ("00025", "V=- | X=0 | Source=0 fixed | Sink=0 | Immigration: 0 -> X @10 | Death: X -> Sink @0.1"),
        ("00026", "V=- | X=0 | Source=0 fixed | Sink=0 fixed | Immigration: 0 -> X @10 | Death: X -> Sink @0.1"),
        ("00027", "V=- | X=0 | Immigration: 0 -> X @1 | Death: X -> 0 @0.1"),
        ("00030", "V=- | P=100 | P2=0 | Dimerisation: 2P -> P2 @0.001 | Disassociation: P2 -> 2P @0.01"),
        ("00031", "V=- | P=1000 | P2=0 | Dimerisation: 2P -> P2 @0.0002 | Disassociation: P2 -> 2P @0.004"),
        ("00037", "V=- | X=0 | Immigration: 0 -> 5X @1 | Death: X -> 0 @0.2"),
        ("00038", "V=- | X=0 | Immigration: 0 -> 10X @1 | Death: X -> 0 @0.4"),
        ("00039", "V=- | X=0 | Immigration: 0 -> 100X @1 | Death: X -> 0 @4"),
    ];

    #[test]
    fn dsmts_cases_are_read_or_refused_as_listed() {
        assert_eq!(REFUSED.len() + ACCEPTED.len(), 39);
        for n in 1..=39 {
            let case = format!("{n:05}");
            let path = dsmts_corpus()
                .join(&case)
                .join(format!("{case}-sbml-l3v1.xml"));
            let result = read_sbml(&path);
            if let Some((_, element, why)) = REFUSED.iter().find(|(c, ..)| *c == case) {
                let e = result
                    .expect_err(&format!("{case} should be refused"))
                    .to_string();
                assert!(e.contains(element) && e.contains(why), "{case}: {e}");
                assert!(e.contains(&format!("{case}-sbml-l3v1.xml")), "{e}");
            } else {
                let (_, expected) = ACCEPTED.iter().find(|(c, _)| *c == case).unwrap();
                let net = result.unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(summary(&net), *expected, "{case}");
            }
        }
        // The birth-death case in full, by hand.
        let net = read_sbml(&dsmts_corpus().join("00001/00001-sbml-l3v1.xml")).unwrap();
        assert_eq!(net.id, "BirthDeath01");
        let x = net.species_index("X").unwrap();
        assert_eq!(
            (net.species[x].initial_count, net.species[x].boundary),
            (100, false)
        );
        let birth = &net.reactions[0];
        assert_eq!((birth.id.as_str(), birth.rate), ("Birth", 0.1));
        assert_eq!(
            (&birth.reactants, &birth.products),
            (&vec![(x, 1)], &vec![(x, 2)])
        );
        assert_eq!(birth.propensity(&[100]), 10.0);
        let death = &net.reactions[1];
        assert_eq!(
            (death.id.as_str(), death.rate, death.order()),
            ("Death", 0.11, 1)
        );
        assert!(death.products.is_empty());
        // The dimerisation propensity: k1 P (P - 1) / 2.
        let net = read_sbml(&dsmts_corpus().join("00030/00030-sbml-l3v1.xml")).unwrap();
        assert_eq!(net.reactions[0].propensity(&[100, 0]), 0.001 * 4950.0);
    }

    fn ci(id: &str) -> String {
        format!("<ci> {id} </ci>")
    }

    fn cn(v: &str) -> String {
        format!("<cn> {v} </cn>")
    }

    /// `<apply><op/>args</apply>`.
    fn ap(op: &str, args: &[&str]) -> String {
        format!("<apply><{op}/>{}</apply>", args.concat())
    }

    /// A reaction "R" with (species, stoichiometry) reactants and products and a MathML law.
    fn reaction(reactants: &[(&str, &str)], products: &[(&str, &str)], math: &str) -> String {
        let refs = |tag: &str, list: &[(&str, &str)]| {
            let items: Vec<String> = list
                .iter()
                .map(|(s, nu)| format!(r#"<speciesReference species="{s}" stoichiometry="{nu}"/>"#))
                .collect();
            format!("<{tag}>{}</{tag}>", items.concat())
        };
        format!(
            r#"<reaction id="R" reversible="false">{}{}<kineticLaw>
               <math xmlns="http://www.w3.org/1998/Math/MathML">{math}</math></kineticLaw></reaction>"#,
            refs("listOfReactants", reactants),
            refs("listOfProducts", products)
        )
    }

    /// Species A = 10, B = 5, E = 1 (amounts) and D = 4 (a concentration of 2) in compartment
    /// C of size 2; parameters k = 0.5, Km = 3; then `extra` model lists and `reactions`.
    fn model_text(extra: &str, reactions: &str) -> String {
        let amount = |id: &str, n: u32| {
            format!(
                r#"<species id="{id}" compartment="C" initialAmount="{n}"
                   hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>"#
            )
        };
        let species = [amount("A", 10), amount("B", 5), amount("E", 1)].concat();
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1">
  <model id="m" substanceUnits="item">
    <listOfCompartments><compartment id="C" size="2" spatialDimensions="3" constant="true"/></listOfCompartments>
    <listOfSpecies>{species}
      <species id="D" compartment="C" initialConcentration="2" hasOnlySubstanceUnits="false"
               boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters>
      <parameter id="k" value="0.5" constant="true"/><parameter id="Km" value="3" constant="true"/>
    </listOfParameters>
    {extra}
    <listOfReactions>{reactions}</listOfReactions>
  </model>
</sbml>"#
        )
    }

    fn model(extra: &str, reactions: &str) -> Result<Network> {
        parse_sbml(&model_text(extra, reactions), "test.xml")
    }

    /// The rate of `reactants -> B` under `math`.
    fn rate_of(reactants: &[(&str, &str)], math: &str) -> Result<f64> {
        let net = model("", &reaction(reactants, &[("B", "1")], math))?;
        Ok(net.reactions[0].rate)
    }

    fn refusal<T: std::fmt::Debug>(result: Result<T>) -> String {
        result.expect_err("should be refused").to_string()
    }

    #[test]
    fn mass_action_laws_give_the_stochastic_constant() {
        let one_a = [("A", "1")];
        let two_a = [("A", "2")];
        assert_eq!(rate_of(&[], &ci("k")).unwrap(), 0.5);
        assert_eq!(
            rate_of(&one_a, &ap("times", &[&ci("k"), &ci("A")])).unwrap(),
            0.5
        );
        // 2A: k A (A-1) / 2 is c = k; k A (A-1) counts each pair twice, c = 2k.
        let a_a_1 = ap(
            "times",
            &[&ci("k"), &ci("A"), &ap("minus", &[&ci("A"), &cn("1")])],
        );
        assert_eq!(
            rate_of(&two_a, &ap("divide", &[&a_a_1, &cn("2")])).unwrap(),
            0.5
        );
        assert_eq!(rate_of(&two_a, &a_a_1).unwrap(), 1.0);
        // Expanded: 0.25 A^2 - 0.25 A = 0.5 C(A, 2).
        let square = ap("times", &[&cn("0.25"), &ap("power", &[&ci("A"), &cn("2")])]);
        let expanded = ap("minus", &[&square, &ap("times", &[&cn("0.25"), &ci("A")])]);
        assert_eq!(rate_of(&two_a, &expanded).unwrap(), 0.5);
        // A + B in any order, the compartment size as a constant factor.
        let law = ap("times", &[&ci("C"), &ci("B"), &ci("k"), &ci("A")]);
        assert_eq!(rate_of(&[("A", "1"), ("B", "1")], &law).unwrap(), 1.0);
        // Constants: a power, e-notation, a rational.
        let milli = ap("times", &[&ap("power", &[&cn("10"), &cn("-3")]), &ci("A")]);
        assert!((rate_of(&one_a, &milli).unwrap() - 1e-3).abs() < 1e-18);
        let e = r#"<cn type="e-notation"> 2 <sep/> -3 </cn>"#;
        assert_eq!(rate_of(&one_a, &ap("times", &[e, &ci("A")])).unwrap(), 2e-3);
        let q = r#"<cn type="rational"> 1 <sep/> 4 </cn>"#;
        assert_eq!(rate_of(&one_a, &ap("times", &[q, &ci("A")])).unwrap(), 0.25);
        // A local parameter shadows the global one.
        let local = reaction(&one_a, &[], &ap("times", &[&ci("k"), &ci("A")])).replace(
            "</math>",
            r#"</math><listOfLocalParameters><localParameter id="k" value="7"/></listOfLocalParameters>"#,
        );
        assert_eq!(model("", &local).unwrap().reactions[0].rate, 7.0);
        // A concentration (hasOnlySubstanceUnits="false") is count / size: k [D] = (k/2) D.
        let net = model(
            "",
            &reaction(&[("D", "1")], &[], &ap("times", &[&ci("k"), &ci("D")])),
        );
        let net = net.unwrap();
        assert_eq!(net.species[3].initial_count, 4);
        assert_eq!(net.reactions[0].rate, 0.25);
        assert_eq!(net.compartment_volume, Some(2.0));
    }

    #[test]
    fn laws_outside_mass_action_are_refused_with_the_reason() {
        let (one_a, two_a) = ([("A", "1")], [("A", "2")]);
        let (k, a) = (ci("k"), ci("A"));
        let time = r#"<csymbol encoding="text"
                      definitionURL="http://www.sbml.org/sbml/symbols/time"> t </csymbol>"#;
        let michaelis_menten = ap(
            "divide",
            &[&ap("times", &[&k, &a]), &ap("plus", &[&ci("Km"), &a])],
        );
        let cases = [
            // k A^2 for 2A lets a molecule pair with itself.
            (
                &two_a[..],
                ap("times", &[&k, &a, &a]),
                "is not c * A*(A-1)/2",
            ),
            (
                &two_a,
                ap("times", &[&k, &ap("power", &[&a, &cn("2")])]),
                "not c * A*(A-1)/2",
            ),
            (&one_a, michaelis_menten, "in a denominator"),
            (
                &one_a,
                ap("times", &[&k, &a, &ci("E")]),
                "\"E\" is in the kinetic law but not a reactant",
            ),
            (
                &one_a,
                k.clone(),
                "reactant \"A\" is not in the kinetic law",
            ),
            (&one_a, ap("minus", &[&a, &cn("1")]), "is not c * A"),
            (
                &one_a,
                ap("times", &[&cn("-1"), &k, &a]),
                "rate constant -0.5",
            ),
            (
                &[("A", "1"), ("B", "2")],
                ap("times", &[&k, &a, &ci("B"), &ci("B")]),
                "order 3",
            ),
            (
                &one_a,
                ap("times", &[&ap("exp", &[&k]), &a]),
                "MathML <exp>",
            ),
            (&one_a, ap("power", &[&a, &k]), "to the power 0.5"),
            (&one_a, ap("power", &[&k, &a]), "in an exponent"),
            (
                &one_a,
                ap("times", &[&ci("nope"), &a]),
                "\"nope\" is not defined",
            ),
            (&one_a, ap("times", &[time, &a]), "MathML <csymbol>"),
            (&one_a, ap("divide", &[&a, &cn("0")]), "division by zero"),
            (&[("A", "1.5")], ap("times", &[&k, &a]), "stoichiometry 1.5"),
        ];
        for (reactants, math, why) in cases {
            let e = refusal(rate_of(reactants, &math));
            assert!(
                e.contains("<reaction id=\"R\">") && e.contains(why),
                "{why}: {e}"
            );
            assert!(
                e.contains("test.xml") && e.contains("sbml-subset.md"),
                "{e}"
            );
        }
        let law = ap("times", &[&k, &a]);
        let reversible = reaction(&one_a, &[], &law).replace("\"false\"", "\"true\"");
        let e = refusal(model("", &reversible));
        assert!(
            e.contains("<reaction id=\"R\">: reversible=\"true\""),
            "{e}"
        );

        // Defining a function is harmless; calling one is refused.
        let f = r#"<listOfFunctionDefinitions><functionDefinition id="f">
                   <math xmlns="http://www.w3.org/1998/Math/MathML">
                   <lambda><bvar><ci> x </ci></bvar><ci> x </ci></lambda></math>
                   </functionDefinition></listOfFunctionDefinitions>"#;
        model(f, &reaction(&one_a, &[], &law)).unwrap();
        let call = format!("<apply>{}{law}</apply>", ci("f"));
        let e = refusal(model(f, &reaction(&one_a, &[], &call)));
        assert!(e.contains("calls \"f\""), "{e}");
    }

    #[test]
    fn model_features_outside_the_subset_are_refused() {
        let r = reaction(&[("A", "1")], &[], &ap("times", &[&ci("k"), &ci("A")]));
        let math = r#"<math xmlns="http://www.w3.org/1998/Math/MathML"><cn> 3 </cn></math>"#;
        let lists = [
            (
                format!(
                    "<listOfInitialAssignments><initialAssignment symbol=\"A\">{math}\
                     </initialAssignment></listOfInitialAssignments>"
                ),
                "<initialAssignment symbol=\"A\">: initial assignments",
            ),
            (
                format!("<listOfRules><rateRule variable=\"k\">{math}</rateRule></listOfRules>"),
                "<rateRule variable=\"k\">: rules",
            ),
            (
                format!("<listOfRules><algebraicRule>{math}</algebraicRule></listOfRules>"),
                "<algebraicRule>: rules",
            ),
            (
                format!(
                    "<listOfEvents><event id=\"ev\" useValuesFromTriggerTime=\"true\">\
                     <trigger>{math}</trigger></event></listOfEvents>"
                ),
                "<event id=\"ev\">: events",
            ),
            (
                format!("<listOfConstraints><constraint>{math}</constraint></listOfConstraints>"),
                "<constraint>: constraints",
            ),
            (
                "<listOfCompartments/>".into(),
                "<listOfCompartments>: a second list",
            ),
            (
                "<listOfThings/>".into(),
                "<listOfThings>: not an SBML Level 3 core",
            ),
        ];
        for (extra, names) in lists {
            let e = refusal(model(&extra, &r));
            assert!(e.contains(names), "{names}: {e}");
        }
        // Empty lists ask for nothing.
        model("<listOfRules/><listOfEvents/>", &r).unwrap();

        // Edits of the base model: (from, to, what the refusal says).
        let edits = [
            (r#"level="3""#, r#"level="2""#, "only SBML Level 3 core"),
            ("</model>", "</modl>", "not well-formed XML"),
            (
                r#"substanceUnits="item""#,
                r#"substanceUnits="mole""#,
                "units \"mole\" are not items",
            ),
            (
                r#"initialConcentration="2""#,
                r#"initialConcentration="2.25""#,
                "<species id=\"D\">: initial amount 4.5 is not a whole number",
            ),
            (
                r#"size="2""#,
                "",
                "<species id=\"D\">: initialConcentration in a compartment without a size",
            ),
            (
                r#"initialAmount="10""#,
                "",
                "<species id=\"A\">: no initialAmount",
            ),
            (
                r#"initialAmount="10""#,
                r#"initialAmount="-1""#,
                "whole number of items >= 0",
            ),
            (
                r#"hasOnlySubstanceUnits="true""#,
                "",
                "hasOnlySubstanceUnits = None",
            ),
            (
                r#"reversible="false""#,
                "",
                "<reaction id=\"R\">: reversible = None",
            ),
            (
                r#"<parameter id="Km""#,
                r#"<parameter id="A""#,
                "the id \"A\" is defined twice",
            ),
            (
                "</listOfCompartments>",
                r#"<compartment id="C2" size="1" constant="true"/></listOfCompartments>"#,
                "<compartment id=\"C2\">: a second compartment",
            ),
            (
                "<sbml ",
                r#"<sbml xmlns:x="urn:x" x:required="true" "#,
                "requires the package urn:x",
            ),
        ];
        let base = model_text("", &r);
        for (from, to, why) in edits {
            assert!(base.contains(from), "{from}");
            let e = refusal(parse_sbml(&base.replacen(from, to, 1), "test.xml"));
            assert!(e.contains(why) && e.contains("test.xml"), "{why}: {e}");
        }
    }

    #[test]
    fn volume_units_and_fixed_reactants() {
        // 2 femtolitres through a unitDefinition.
        let femtolitre = r#"<listOfUnitDefinitions><unitDefinition id="fl"><listOfUnits>
                            <unit kind="litre" exponent="1" scale="-15" multiplier="1"/>
                            </listOfUnits></unitDefinition></listOfUnitDefinitions>"#;
        let r = reaction(&[("A", "1")], &[], &ap("times", &[&ci("k"), &ci("A")]));
        let text = model_text(femtolitre, &r).replace(r#"size="2""#, r#"size="2" units="fl""#);
        assert_eq!(
            parse_sbml(&text, "t").unwrap().compartment_volume,
            Some(2e-15)
        );

        // A fixed species the law uses stays a reactant (a catalyst held constant); one the law
        // does not use is dropped (it only labels the reaction, like DSMTS's Source).
        let fixed = |text: String| {
            text.replace(
                r#"boundaryCondition="false""#,
                r#"boundaryCondition="true""#,
            )
        };
        let law = ap("times", &[&ci("k"), &ci("E"), &ci("A")]);
        let text = fixed(model_text(
            "",
            &reaction(&[("E", "1"), ("A", "1")], &[("B", "1")], &law),
        ));
        let net = parse_sbml(&text, "t").unwrap();
        assert!(net.species.iter().all(|s| s.boundary));
        assert_eq!(net.reactions[0].reactants, vec![(2, 1), (0, 1)]);
        let text = fixed(model_text(
            "",
            &reaction(&[("E", "1")], &[("B", "1")], &ci("k")),
        ));
        let net = parse_sbml(&text, "t").unwrap();
        assert_eq!(
            (net.reactions[0].reactants.len(), net.reactions[0].rate),
            (0, 0.5)
        );
    }

    /// A model in moles over two compartments (cytoplasm 1 fL, nucleus 0.25 fL): A and B in
    /// concentration (mol/L), E an amount (mol). `units` replaces the model's units, `laws`
    /// the reactions.
    fn molar_model(units: &str, reactions: &str) -> String {
        let species = |id: &str, c: &str, value: &str| {
            format!(
                r#"<species id="{id}" compartment="{c}" {value} boundaryCondition="false"
                   constant="false"/>"#
            )
        };
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="m" {units}>
    <listOfUnitDefinitions><unitDefinition id="nmol"><listOfUnits>
      <unit kind="mole" exponent="1" scale="-9" multiplier="1"/>
    </listOfUnits></unitDefinition></listOfUnitDefinitions>
    <listOfCompartments>
      <compartment id="cyt" size="1e-15" spatialDimensions="3" constant="true"/>
      <compartment id="nuc" size="2.5e-16" spatialDimensions="3" constant="true"/>
    </listOfCompartments>
    <listOfSpecies>{}{}{}</listOfSpecies>
    <listOfParameters><parameter id="k" value="0.1" constant="true"/>
      <parameter id="Km" value="1e-21" constant="true"/></listOfParameters>
    <listOfReactions>{reactions}</listOfReactions>
  </model>
</sbml>"#,
            species(
                "A",
                "cyt",
                r#"initialConcentration="1e-6" hasOnlySubstanceUnits="false""#
            ),
            species(
                "B",
                "nuc",
                r#"initialConcentration="0" hasOnlySubstanceUnits="false""#
            ),
            species(
                "E",
                "cyt",
                r#"initialAmount="3e-22" hasOnlySubstanceUnits="true""#
            ),
        )
    }

    #[test]
    fn moles_and_compartments_convert_to_counts() {
        let moles = r#"substanceUnits="mole" extentUnits="mole""#;
        // A -> B at k A cyt mol/s is k per molecule and second: mass action, c = k.
        let transport = reaction(
            &[("A", "1")],
            &[("B", "1")],
            &ap("times", &[&ci("k"), &ci("A"), &ci("cyt")]),
        );
        let net = parse_sbml_general(&molar_model(moles, &transport), "t").unwrap();
        assert!(net.is_mass_action());
        // 1 uM in 1 fL is 602.2 molecules; 3e-22 mol is 180.7: both rounded.
        let counts: Vec<u64> = net
            .network
            .species
            .iter()
            .map(|s| s.initial_count)
            .collect();
        assert_eq!(counts, [602, 0, 181]);
        let rate = net.network.reactions[0].rate;
        assert!((rate / 0.1 - 1.0).abs() < 1e-12, "{rate}");
        // Two compartments: no one volume for RDME.
        assert_eq!(net.network.compartment_volume, None);

        // Michaelis-Menten on an amount: the propensity is N_A Vmax E / (Km + E), E in moles.
        let mm = reaction(
            &[("E", "1")],
            &[],
            &ap(
                "divide",
                &[
                    &ap("times", &[&ci("k"), &ci("E")]),
                    &ap("plus", &[&ci("Km"), &ci("E")]),
                ],
            ),
        );
        let net = parse_sbml_general(&molar_model(moles, &mm), "t").unwrap();
        let values: Vec<f64> = net.values.iter().map(|v| v.initial).collect();
        let state = crate::reactions::math::State {
            counts: &[602.0, 0.0, 181.0],
            values: &values,
            time: 0.0,
        };
        let e = 181.0 / AVOGADRO;
        let exact = AVOGADRO * 0.1 * e / (1e-21 + e);
        let law = net.laws[0].as_ref().unwrap().eval(&state);
        assert!((law / exact - 1.0).abs() < 1e-12, "{law} against {exact}");

        // In nanomoles: 1000 nmol/L is 1 uM again, and a law of k A cyt nmol/s is
        // 1e-9 N_A k A cyt molecules a second.
        let nano = r#"substanceUnits="nmol" extentUnits="nmol""#;
        let text = molar_model(nano, &transport).replace(
            r#"initialConcentration="1e-6""#,
            r#"initialConcentration="1000""#,
        );
        let net = parse_sbml_general(&text, "t").unwrap();
        assert_eq!(net.network.species[0].initial_count, 602);
        assert!((net.network.reactions[0].rate / 0.1 - 1.0).abs() < 1e-12);

        // A species in moles changed by reactions whose extent is in items is refused; so are
        // the moles in the mass-action reader, which names the general one.
        let e = refusal(parse_sbml_general(
            &molar_model(r#"substanceUnits="mole" extentUnits="item""#, &transport),
            "t",
        ));
        assert!(
            e.contains(r#"<reaction id="R">"#) && e.contains("species \"A\""),
            "{e}"
        );
        let e = refusal(parse_sbml(&molar_model(moles, &transport), "t"));
        assert!(
            e.contains("units \"mole\" are not items") && e.contains("general"),
            "{e}"
        );
        let e = refusal(parse_sbml_general(
            &molar_model(r#"substanceUnits="gram""#, &transport),
            "t",
        ));
        assert!(e.contains("\"gram\" are not items or moles"), "{e}");
    }
}
