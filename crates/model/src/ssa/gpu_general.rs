//! A general network (`reactions::general`: any kinetic law, assignment rules) compiled into
//! WGSL for the GPU ensemble: the `network` section of `shaders/ssa/ensemble_general.wgsl`,
//! written for one network as the mass-action network is by `gpu_compiled`. Laws and rules
//! become f32 expressions (`gpu_expr`) over the counts (scalar locals) and the model's
//! constants (exact f32 bit patterns).
//!
//! An event loop iteration applies the rules in order (as SBML does after every change: a rule's
//! variable is changed by nothing else, so applying them before each use is the same), works out
//! the propensities, draws the waiting time and the reaction, and fires it, as the direct method
//! on the CPU (`ssa::general`). With the optimized direct method the propensities are kept
//! between events and only those whose law reads a changed species (rules followed) are worked
//! out again, from the dependency graph of the expressions.
//!
//! A propensity that is negative, NaN or infinite, a reaction that takes a count below zero and
//! a rule that gives a species a count that is not a whole number in 0..2^30 stop the
//! trajectory: it writes what and where in its thread record (words 6 and 7) and raises
//! `ST_FAIL` with its index; the other trajectories run on, and the launcher names the lowest
//! stopped trajectory, the reaction or rule and the time.
//!
//! Events run in the same kernel (`gpu_events`): without delays, assigning species, their
//! triggers comparing time with constants in the clock's fixed point. Rules and laws may not
//! read time (the reader refuses that for every device).

use super::ensemble::Method;
use super::general::{GeneralTables, GeneralTrajectory, MAX_EXECUTIONS_AT_ONCE};
use super::gpu_compiled::write_selection;
use super::gpu_events::{
    check_events, EventCode, FAIL_EVENT_AGAIN, FAIL_EVENT_COUNT, FAIL_EVENT_LOOP,
};
use super::gpu_expr::{f32_literal, wgsl, Leaves};
use super::gpu_tables::MAX_SPECIES;
use super::gpu_tables::{gpu_initial_counts, NetTables, RxRecord, COUNT_LIMIT, MAX_REACTIONS};
use crate::error::{invalid, short, Result};
use crate::reactions::general::{GeneralNetwork, Target};
use crate::reactions::math::{Expr, State};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Why a trajectory stopped (the high byte of thread word 6; the low bytes hold the index).
pub const FAIL_PROPENSITY: u32 = 1;
pub const FAIL_COUNT: u32 = 2;
pub const FAIL_RULE: u32 = 3;
pub const FAIL_TOTAL: u32 = 4;

/// A general network ready for the GPU: the tables the ensemble packs (changes, initial
/// counts), the generated kernel, and what the host needs to read the results.
#[derive(Clone, Debug)]
pub struct GeneralGpu {
    pub net: GeneralNetwork,
    pub tables: NetTables,
    /// Model values after the initial assignments (constants on the GPU).
    pub values: Vec<f64>,
    pub method: Method,
}

/// Refuses what the GPU ensemble cannot run of `net`, naming the element and why.
pub fn check_gpu(net: &GeneralNetwork, method: Method) -> Result<()> {
    if method == Method::Tau {
        let allowed = "direct or odm for a network with general laws or rules on the GPU \
                       (tau-leaping's step selection is written for mass-action laws; \
                       docs/models/sbml-subset.md)";
        return Err(invalid("method", method.name(), allowed));
    }
    let laws = net
        .laws
        .iter()
        .flatten()
        .map(|l| (l, "a kinetic law".to_string()));
    let rules = net.rules.iter().map(|r| (&r.expr, r.origin.clone()));
    if let Some((_, origin)) = laws.chain(rules).find(|(e, _)| e.reads_time()) {
        let allowed = "laws and rules that do not read time (propensities are constant between \
                       reaction events)";
        return Err(invalid(&origin, "csymbol time", allowed));
    }
    for (r, law) in net.network.reactions.iter().zip(&net.laws) {
        if law.is_none() {
            super::gpu_tables::gpu_rate(r)?;
        }
    }
    let tables = GeneralTables::new(net.clone());
    // A start that fails (a bad initial assignment) is reported by the run itself.
    let start = GeneralTrajectory::before_events(&tables, 0).ok();
    check_events(net, start.as_ref().map_or(&[], |s| s.values()))?;
    if let Some(start) = &start {
        check_f32_range(net, start)?;
    }
    let (ns, nr) = (net.network.species.len(), net.network.reactions.len());
    if ns == 0 || ns > MAX_SPECIES {
        let allowed = format!("1..={MAX_SPECIES} species for the GPU ensemble");
        return Err(invalid("network.species", ns, allowed));
    }
    if nr > MAX_REACTIONS {
        let allowed = format!("at most {MAX_REACTIONS} reactions for the GPU ensemble");
        return Err(invalid("network.reactions", nr, allowed));
    }
    Ok(())
}

/// Refuses a network whose laws or rules, at its start and with its counts 10 and 1000 times
/// larger, compute a value f32 cannot hold (`Expr::outside_f32`): in molar units a Hill law's
/// numerator V K^h cell is near 1e-45, which the kernel would compute as 0. The CPU's f64
/// holds it. A check at these states, not a proof for every state.
fn check_f32_range(net: &GeneralNetwork, start: &GeneralTrajectory) -> Result<()> {
    let counts: Vec<f64> = start.outputs().0.iter().map(|&c| c as f64).collect();
    let laws = net.network.reactions.iter().zip(&net.laws);
    let exprs: Vec<(&Expr, String)> = laws
        .filter_map(|(r, law)| Some((law.as_ref()?, format!("reaction \"{}\"", r.id))))
        .chain(net.rules.iter().map(|r| (&r.expr, r.origin.clone())))
        .collect();
    for factor in [1.0, 10.0, 1000.0] {
        let scaled: Vec<f64> = counts.iter().map(|&c| c.max(1.0) * factor).collect();
        let state = State {
            counts: if factor == 1.0 { &counts } else { &scaled },
            values: start.values(),
            time: 0.0,
        };
        if let Some((v, what)) = exprs
            .iter()
            .find_map(|(e, what)| e.outside_f32(&state).map(|v| (v, what)))
        {
            let at = match factor {
                1.0 => "at the start".to_string(),
                f => format!("with the start's counts (at least 1) times {f}"),
            };
            let allowed = format!(
                "values within f32's range (1.2e-38 to 3.4e38) on the GPU: part of it is {} \
                 {at}, which f32 cannot hold (molar units give such values); use --device \
                 cpu, which computes in f64",
                short(v)
            );
            return Err(invalid(what, "its value", allowed));
        }
    }
    Ok(())
}

impl GeneralGpu {
    pub fn new(net: &GeneralNetwork, method: Method) -> Result<Self> {
        net.validate()?;
        check_gpu(net, method)?;
        // The state at time 0: initial assignments and rules, in f64 as on the CPU (the start's
        // events run in the kernel).
        let tables = GeneralTables::new(net.clone());
        let start = GeneralTrajectory::before_events(&tables, 0).map_err(|why| {
            invalid(
                "initial state",
                why,
                "initial assignments and rules that hold",
            )
        })?;
        let mut network = net.network.clone();
        for (s, &c) in network.species.iter_mut().zip(&start.outputs().0) {
            s.initial_count = c;
        }
        let initial = gpu_initial_counts(&network, COUNT_LIMIT)?;
        let changes = network.state_changes();
        let reactions = changes
            .iter()
            .map(|c| RxRecord {
                reactants: [(0, 0); 2],
                rate: 0.0,
                changes: c.iter().map(|&(s, d)| (s as u32, d as i32)).collect(),
                deps: Vec::new(),
                consumes: [(0, 0); 2],
            })
            .collect::<Vec<_>>();
        let mut gpu = Self {
            net: net.clone(),
            tables: NetTables {
                n_species: network.species.len(),
                order: (0..reactions.len() as u32).collect(),
                reactions,
                kinds: vec![0; network.species.len()],
                initial,
            },
            values: start.values().to_vec(),
            method,
        };
        for j in 0..gpu.tables.reactions.len() {
            gpu.tables.reactions[j].deps = gpu.dependents(j);
        }
        Ok(gpu)
    }

    /// Species that change when reaction `j` fires: its net changes and the species set by the
    /// rules that read them (in rule order, so a rule reading another's species follows it).
    fn changed_by(&self, j: usize) -> BTreeSet<usize> {
        let mut changed: BTreeSet<usize> = self.tables.reactions[j]
            .changes
            .iter()
            .map(|c| c.0 as usize)
            .collect();
        let mut values = BTreeSet::new();
        for rule in &self.net.rules {
            let (mut s, mut v) = (BTreeSet::new(), BTreeSet::new());
            rule.expr.reads(&mut s, &mut v);
            if s.iter().any(|x| changed.contains(x)) || v.iter().any(|x| values.contains(x)) {
                match rule.target {
                    Target::Species(t) => changed.insert(t),
                    Target::Value(t) => values.insert(t),
                };
            }
        }
        changed
    }

    /// The reactions whose propensity must be worked out again after reaction `j` fires.
    fn dependents(&self, j: usize) -> Vec<u32> {
        let changed = self.changed_by(j);
        (0..self.net.laws.len())
            .filter(|&k| self.net.law_reads(k).0.iter().any(|s| changed.contains(s)))
            .map(|k| k as u32)
            .collect()
    }

    /// The rules' values at recorded counts (f64, as the CPU reports them): the outputs after
    /// the species (`GeneralNetwork::outputs`).
    pub fn rule_outputs(&self, counts: &[u32]) -> Vec<f64> {
        let counts: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
        let mut values = self.values.clone();
        for rule in &self.net.rules {
            if let Target::Value(i) = rule.target {
                values[i] = rule.expr.eval(&State {
                    counts: &counts,
                    values: &values,
                    time: 0.0,
                });
            }
        }
        self.net.rule_values().map(|i| values[i]).collect()
    }

    /// Whether the results need every sample (rules' values are worked out on the host).
    pub fn has_rule_outputs(&self) -> bool {
        self.net.rule_values().next().is_some()
    }

    /// Why trajectory `trajectory` stopped, from its thread record's words 6 and 7 and time.
    pub fn failure(&self, trajectory: u64, word6: u32, word7: u32, t: f64) -> String {
        let (what, index) = (word6 >> 24, (word6 & 0xFF_FFFF) as usize);
        let value = f32::from_bits(word7);
        let net = &self.net.network;
        let why = match what {
            FAIL_PROPENSITY => format!(
                "reaction \"{}\" has propensity {value} at t = {t}: a propensity must be \
                 finite and >= 0",
                net.reactions[index].id
            ),
            FAIL_TOTAL => format!(
                "the total propensity is {value} at t = {t}: it must be finite (f32 on the GPU)"
            ),
            FAIL_COUNT => format!(
                "reaction \"{}\" at t = {t} takes a species below zero (a law that is \
                 positive where a reactant is used up?)",
                net.reactions[index].id
            ),
            FAIL_EVENT_COUNT => format!(
                "{} sets a species to {value} at t = {t}: a count must be a whole number in \
                 0..2^30",
                self.net.events[index].origin
            ),
            FAIL_EVENT_LOOP => format!(
                "events keep firing at t = {t}: more than {MAX_EXECUTIONS_AT_ONCE} executions \
                 at one time, or priorities that are NaN"
            ),
            FAIL_EVENT_AGAIN => format!(
                "{} is triggered again at t = {t} before its execution (the GPU keeps one due \
                 execution per event; --device cpu keeps them all)",
                self.net.events[index].origin
            ),
            _ => format!(
                "{} sets a species to {value} at t = {t}: a count must be a whole number in \
                 0..2^30",
                self.net.rules[index].origin
            ),
        };
        format!("trajectory {trajectory}: {why}")
    }

    /// The `network` section of `ssa/ensemble_general.wgsl` for this network.
    pub fn network_section(&self) -> String {
        let ns = self.tables.n_species;
        let nr = self.tables.reactions.len();
        let odm = self.method == Method::Odm;
        let rule_values: BTreeSet<usize> = self.net.rule_values().collect();
        let leaves = Names {
            values: &self.values,
            rule_values: &rule_values,
        };
        let spill: Vec<String> = (0..ns)
            .map(|sp| format!("count_set({sp}u, x{sp});"))
            .collect();
        let spill = spill.join(" ");
        let mut s = String::new();
        let w = &mut s;
        // writeln! into a String cannot fail.
        let _ = writeln!(w, "// Generated by crates/model/src/ssa/gpu_general.rs.");
        let _ = writeln!(
            w,
            "@compute @workgroup_size(WG)
fn run_general(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = gid.x;
    me = lid;
    if i >= p.chunk_len {{
        return;
    }}
    let th = i * TH_WORDS;
    var t = vec2<u32>(traj[th], traj[th + 1u]);
    var event = traj[th + 2u];
    var next_out = traj[th + 3u];
    if next_out >= p.out_stop {{
        return;
    }}
    load_counts(i);
    loop_work = 0u;
    var fail = 0u;
    var fail_value = 0.0;
    var a0 = 0.0;"
        );
        for sp in 0..ns {
            let _ = writeln!(w, "    var x{sp} = count_at({sp}u, 0u);");
        }
        for &v in &rule_values {
            let _ = writeln!(w, "    var v{v} = 0.0;");
        }
        for j in 0..nr {
            let _ = writeln!(w, "    var a_{j} = 0.0;");
        }
        let all: Vec<usize> = (0..nr).collect();
        let rules =
            |w: &mut String, pad: &str| self.write_rules(w, &leaves, &BTreeSet::new(), true, pad);
        let propensities =
            |w: &mut String, pad: &str| self.write_propensities(w, &leaves, &all, pad);
        let events = (!self.net.events.is_empty())
            .then(|| EventCode::new(&self.net, &leaves, &self.values, &rules, &propensities));
        if let Some(events) = &events {
            events.write_start(w, odm);
        }
        if odm {
            // Every propensity once per dispatch (the values the last dispatch left: they are
            // functions of the counts).
            self.write_rules(w, &leaves, &BTreeSet::new(), true, "    ");
            self.write_propensities(w, &leaves, &all, "    ");
        }
        let _ = writeln!(
            w,
            "    for (var b = 0u; b < p.event_budget && fail == 0u; b++) {{
        loop_work++;
        if loop_work >= p.work_limit {{
            break;
        }}"
        );
        if !odm {
            self.write_rules(w, &leaves, &BTreeSet::new(), true, "        ");
            self.write_propensities(w, &leaves, &all, "        ");
        }
        let _ = writeln!(w, "        a0 = 0.0;");
        for &j in &self.tables.order {
            let _ = writeln!(w, "        a0 = a0 + a_{j};");
        }
        let _ = writeln!(
            w,
            "        if fail != 0u {{
            break;
        }}
        if propensity_bad(a0) {{
            fail = ({FAIL_TOTAL}u << 24u);
            fail_value = a0;
            break;
        }}"
        );
        match &events {
            None => {
                let _ = writeln!(
                    w,
                    "        if !(a0 > 0.0) {{
            {spill}
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }}
        let r = event_draw(i, event);
        let t_next = ticks_add(t, ticks_from(-log(1.0 - rng_unit(r.x)) / a0));"
                );
            }
            Some(events) => {
                let _ = writeln!(
                    w,
                    "        var t_next = TIME_NEVER;
        var r = vec2<u32>(0u, 0u);
        if a0 > 0.0 {{
            r = event_draw(i, event);
            t_next = ticks_add(t, ticks_from(-log(1.0 - rng_unit(r.x)) / a0));
        }}"
                );
                events.write_timed(w, odm, &spill);
                let _ = writeln!(
                    w,
                    "        if !(a0 > 0.0) {{
            {spill}
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }}"
                );
            }
        }
        let _ = writeln!(
            w,
            "        if ticks_less(out_time(next_out), t_next) {{
            {spill}
            next_out = record_until(t_next, next_out, i, event);
            if next_out >= p.out_stop {{
                break;
            }}
        }}"
        );
        write_selection(w, &self.tables.order);
        let _ = writeln!(
            w,
            "        if fired == 0xFFFFFFFFu {{
            {spill}
            next_out = record_until(TIME_NEVER, next_out, i, event);
            break;
        }}
        t = t_next;
        event++;
        switch fired {{"
        );
        for (j, r) in self.tables.reactions.iter().enumerate() {
            let _ = writeln!(w, "            case {j}u: {{");
            for &(sp, d) in &r.changes {
                let _ = writeln!(
                    w,
                    "                if i32(x{sp}) + ({d}) < 0 {{
                    fail = ({FAIL_COUNT}u << 24u) | {j}u;
                }}
                x{sp} = u32(max(i32(x{sp}) + ({d}), 0));
                net_check(x{sp});"
                );
            }
            if odm {
                let changed = self.changed_by(j);
                let deps: Vec<usize> = r.deps.iter().map(|&k| k as usize).collect();
                self.write_rules(w, &leaves, &changed, false, "                ");
                self.write_propensities(w, &leaves, &deps, "                ");
            }
            let _ = writeln!(w, "            }}");
        }
        let _ = writeln!(w, "            default: {{}}\n        }}");
        if let Some(events) = &events {
            events.write_after_reaction(w, odm);
        }
        let trig = match events {
            Some(_) => "\n    traj[th + 4u] = trig;",
            None => "",
        };
        let _ = writeln!(
            w,
            "    }}
    {spill}
    if fail != 0u {{
        // Stopped: the record says why, and no later dispatch takes the thread up again.
        traj[th + 6u] = fail;
        traj[th + 7u] = bitcast<u32>(fail_value);
        next_out = 0xFFFFFFFFu;
        atomicMax(&status[ST_FAIL], ~i);
    }}
    traj[th] = t.x;
    traj[th + 1u] = t.y;
    traj[th + 2u] = event;
    traj[th + 3u] = next_out;{trig}
    traj[th + 5u] = bitcast<u32>(a0);
    store_counts(i);
    if next_out < p.out_stop {{
        atomicAdd(&status[ST_ACTIVE], 1u);
    }}
}}"
        );
        s
    }

    /// The rules in order: all of them (`all`), or those that read a species in `changed`
    /// or a value set by a rule written before. A species rule whose value is not a whole
    /// count stops the trajectory (inside a `switch` case the loop's condition ends it).
    pub(super) fn write_rules(
        &self,
        w: &mut String,
        leaves: &Names,
        changed: &BTreeSet<usize>,
        all: bool,
        pad: &str,
    ) {
        let mut values = BTreeSet::new();
        let mut changed = changed.clone();
        for (k, rule) in self.net.rules.iter().enumerate() {
            let (mut s, mut v) = (BTreeSet::new(), BTreeSet::new());
            rule.expr.reads(&mut s, &mut v);
            let reads_change =
                s.iter().any(|x| changed.contains(x)) || v.iter().any(|x| values.contains(x));
            if !(all || reads_change) {
                continue;
            }
            let code = wgsl(&rule.expr, leaves);
            match rule.target {
                Target::Value(i) => {
                    values.insert(i);
                    let _ = writeln!(w, "{pad}v{i} = {code};");
                }
                Target::Species(sp) => {
                    changed.insert(sp);
                    let _ = writeln!(
                        w,
                        "{pad}{{
{pad}    let y = {code};
{pad}    if count_whole(y) {{
{pad}        x{sp} = u32(round(y));
{pad}    }} else if fail == 0u {{
{pad}        fail = ({FAIL_RULE}u << 24u) | {k}u;
{pad}        fail_value = y;
{pad}    }}
{pad}}}"
                    );
                }
            }
        }
    }

    /// Propensities `which` from their laws (mass action where a reaction has none), each
    /// checked: a bad one stops the trajectory with its reaction named.
    pub(super) fn write_propensities(
        &self,
        w: &mut String,
        leaves: &Names,
        which: &[usize],
        pad: &str,
    ) {
        for &j in which {
            let code = match &self.net.laws[j] {
                Some(law) => wgsl(law, leaves),
                None => mass_action(&self.net.network.reactions[j]),
            };
            let _ = writeln!(
                w,
                "{pad}a_{j} = {code};
{pad}if propensity_bad(a_{j}) && fail == 0u {{
{pad}    fail = ({FAIL_PROPENSITY}u << 24u) | {j}u;
{pad}    fail_value = a_{j};
{pad}}}"
            );
        }
    }
}

/// c times the product of C(x, nu) over the reactants, as the CPU's `binomial`, and for nu = 1
/// and 2 in the f32 operations of the mass-action kernels (`binom` in common/kinetics.wgsl), so
/// a mass-action reaction gives the same propensity in either kernel.
fn mass_action(r: &crate::reactions::Reaction) -> String {
    let mut code = f32_literal(r.rate);
    for &(sp, nu) in &r.reactants {
        let factor = match nu {
            1 => format!("f32(x{sp})"),
            2 => format!("(f32(x{sp}) * max(f32(x{sp}) - 1.0, 0.0) * 0.5)"),
            _ => {
                // x (x - 1) ... (x - nu + 1) / nu!, zero when x < nu.
                let falling: Vec<String> = (0..nu)
                    .map(|k| format!("max(f32(x{sp}) - {k}.0, 0.0)"))
                    .collect();
                let fact: f64 = (1..=nu).map(f64::from).product();
                format!("({} / {})", falling.join(" * "), f32_literal(fact))
            }
        };
        code = format!("({code} * {factor})");
    }
    code
}

/// The leaves of a general network's expressions on the GPU.
pub(super) struct Names<'a> {
    pub(super) values: &'a [f64],
    pub(super) rule_values: &'a BTreeSet<usize>,
}

impl Leaves for Names<'_> {
    fn species(&self, index: usize) -> String {
        format!("f32(x{index})")
    }
    fn value(&self, i: usize) -> String {
        match self.rule_values.contains(&i) {
            true => format!("v{i}"),
            false => f32_literal(self.values[i]),
        }
    }
    /// `check_gpu` refuses laws and rules that read time.
    fn time(&self) -> String {
        "m_nan()".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reactions::general::{Assignment, Event, Value};
    use crate::reactions::math::{Expr, Op};
    use crate::reactions::{Network, Reaction, Species};

    fn x(index: usize) -> Expr {
        Expr::Species { index, scale: 1.0 }
    }

    fn species(id: &str, n: u64) -> Species {
        Species {
            id: id.into(),
            name: None,
            initial_count: n,
            boundary: false,
        }
    }

    fn reaction(id: &str, reactants: &[usize], products: &[usize]) -> Reaction {
        Reaction {
            id: id.into(),
            reactants: reactants.iter().map(|&s| (s, 1)).collect(),
            products: products.iter().map(|&s| (s, 1)).collect(),
            rate: 0.5,
        }
    }

    fn general(
        network: Network,
        laws: Vec<Option<Expr>>,
        values: &[(&str, f64)],
    ) -> GeneralNetwork {
        GeneralNetwork {
            network,
            laws,
            values: values
                .iter()
                .map(|&(id, initial)| Value {
                    id: id.into(),
                    initial,
                })
                .collect(),
            initial_assignments: Vec::new(),
            rules: Vec::new(),
            events: Vec::new(),
        }
    }

    /// X -> 0 with the law 1 * X: what ssa/ensemble_general.wgsl carries.
    fn decay() -> GeneralNetwork {
        let network = Network {
            id: "decay".into(),
            species: vec![species("X", 1)],
            reactions: vec![reaction("decay", &[0], &[])],
            compartment_volume: None,
            plot: Vec::new(),
        };
        let law = Expr::Apply(Op::Times, vec![Expr::Num(1.0), x(0)]);
        general(network, vec![Some(law)], &[])
    }

    /// E + S -> E + P by Michaelis-Menten (rule `sat` = S / (Km + S)), S made by mass action,
    /// a rule that sets the species T = 2 P, and P -> 0 at rate k T / 2 reading it.
    fn enzyme() -> GeneralNetwork {
        let network = Network {
            id: "enzyme".into(),
            species: vec![species("S", 10), species("P", 0), species("T", 0)],
            reactions: vec![
                reaction("make", &[], &[0]),
                reaction("convert", &[0], &[1]),
                reaction("clear", &[1], &[]),
            ],
            compartment_volume: None,
            plot: Vec::new(),
        };
        let sat = Expr::Apply(
            Op::Divide,
            vec![x(0), Expr::Apply(Op::Plus, vec![Expr::Value(0), x(0)])],
        );
        let mut net = general(
            network,
            vec![
                None,
                Some(Expr::Apply(Op::Times, vec![Expr::Value(1), Expr::Value(2)])),
                Some(Expr::Apply(Op::Times, vec![Expr::Num(0.05), x(2)])),
            ],
            &[("Km", 5.0), ("Vmax", 3.0), ("sat", f64::NAN)],
        );
        let rule = |target, expr| Assignment {
            target,
            expr,
            origin: "rule".into(),
        };
        net.rules = vec![
            rule(Target::Value(2), sat),
            rule(
                Target::Species(2),
                Expr::Apply(Op::Times, vec![Expr::Num(2.0), x(1)]),
            ),
        ];
        net
    }

    #[test]
    fn the_shader_file_holds_the_code_generated_for_its_default_network() {
        let code = GeneralGpu::new(&decay(), Method::Direct)
            .unwrap()
            .network_section();
        let file = crate::shaders::ssa::ensemble_general::SHADER.raw();
        assert!(
            file.contains(&format!(
                "//!generated begin network\n{code}//!generated end network"
            )),
            "regenerate the default section of ssa/ensemble_general.wgsl:\n{code}"
        );
    }

    #[test]
    fn the_dependency_graph_follows_laws_and_rules() {
        let gpu = GeneralGpu::new(&enzyme(), Method::Odm).unwrap();
        let deps: Vec<&[u32]> = gpu.tables.reactions.iter().map(|r| &r.deps[..]).collect();
        // make and convert change S, which `convert` reads through `sat`; convert and clear
        // change P, hence T (a rule), which `clear` reads; `make` reads nothing.
        assert_eq!(deps, [&[1][..], &[1, 2], &[2]]);
        assert_eq!(gpu.rule_outputs(&[5, 1, 2]), [0.5]);
        for method in [Method::Direct, Method::Odm] {
            let code = GeneralGpu::new(&enzyme(), method)
                .unwrap()
                .network_section();
            assert!(
                code.contains("v2 = ") && code.contains("count_whole(y)"),
                "{code}"
            );
            let src = crate::shaders::ssa::ensemble_general::SHADER
                .source_generated("network", &code)
                .unwrap();
            petri_engine::shaders::validate_source("generated", &src).unwrap();
        }
    }

    fn reset(trigger: Expr, target: Target) -> Event {
        Event {
            id: "reset".into(),
            trigger,
            initial_value: true,
            persistent: true,
            delay: None,
            priority: None,
            use_values_from_trigger_time: true,
            assignments: vec![Assignment {
                target,
                expr: Expr::Num(3.0),
                origin: "its assignment".into(),
            }],
            origin: "line 9: <event id=\"reset\">".into(),
        }
    }

    #[test]
    fn tau_time_and_events_the_gpu_cannot_hold_are_refused_naming_the_element() {
        let mut net = enzyme();
        let e = GeneralGpu::new(&net, Method::Tau).unwrap_err().to_string();
        assert!(e.contains("method") && e.contains("tau"), "{e}");
        net.laws[2] = Some(Expr::Time);
        let e = GeneralGpu::new(&net, Method::Direct)
            .unwrap_err()
            .to_string();
        assert!(e.contains("time"), "{e}");
        net.laws[2] = None;
        let refused = |event: Event, what: &str| {
            let mut net = net.clone();
            net.events.push(event);
            let e = GeneralGpu::new(&net, Method::Direct)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("<event id=\"reset\">")
                    && e.contains(what)
                    && e.contains("--device cpu"),
                "{e}"
            );
        };
        let mut delayed = reset(Expr::Num(1.0), Target::Species(0));
        delayed.delay = Some(Expr::Num(0.5));
        refused(delayed, "delay");
        refused(reset(Expr::Num(1.0), Target::Value(0)), "\"Km\"");
        let moving = Expr::Apply(Op::Geq, vec![Expr::Time, x(0)]);
        refused(reset(moving, Target::Species(0)), "comparison");
        let mut zero_delay = reset(Expr::Num(1.0), Target::Species(0));
        zero_delay.delay = Some(Expr::Num(0.0));
        net.events.push(zero_delay);
        assert!(GeneralGpu::new(&net, Method::Direct).is_ok());
    }

    /// Time and state triggers, priorities, trigger-time values and non-persistent events all
    /// generate a kernel naga validates, with either method.
    #[test]
    fn events_generate_valid_kernels() {
        let mut net = enzyme();
        let at = |op, c: f64| Expr::Apply(op, vec![Expr::Time, Expr::Num(c)]);
        let mut timed = reset(at(Op::Geq, 2.5), Target::Species(0));
        timed.initial_value = false;
        let mut state = reset(
            Expr::Apply(Op::Gt, vec![x(1), Expr::Num(4.0)]),
            Target::Species(1),
        );
        state.persistent = false;
        state.use_values_from_trigger_time = false;
        state.priority = Some(x(0));
        let both = Expr::Apply(Op::And, vec![at(Op::Gt, 1.0), at(Op::Lt, -1.0)]);
        net.events = vec![timed, state, reset(both, Target::Species(2))];
        for method in [Method::Direct, Method::Odm] {
            let code = GeneralGpu::new(&net, method).unwrap().network_section();
            assert!(
                code.contains("ticks_cmp(tq, vec2<u32>(2u, 2147483648u)) >= 0")
                    && code.contains("traj[th + 4u] = trig;")
                    && code.contains("STREAM_TIE"),
                "{code}"
            );
            let src = crate::shaders::ssa::ensemble_general::SHADER
                .source_generated("network", &code)
                .unwrap();
            petri_engine::shaders::validate_source("generated", &src).unwrap();
        }
    }
}
