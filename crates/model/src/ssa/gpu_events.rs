//! SBML events in the general network's GPU kernel (`gpu_general`): the code that keeps each
//! trajectory's trigger values, finds the next time a time trigger turns true, and executes the
//! events due, as the CPU's direct method does (`ssa::general`).
//!
//! On the GPU an event has no delay (its executions are due when triggered) and assigns species
//! only (model values are constants of the kernel); `check_events` refuses the rest, naming
//! the event. Within those bounds the rules are SBML's as the CPU applies them:
//! - a trigger is evaluated after every change (reaction, event, the start); an event is due when
//!   its trigger turns from false to true (`initialValue` is the value before the start), and a
//!   due execution of a non-persistent event is dropped when its trigger turns false first;
//! - due events run highest priority first, equal priorities in random order (a draw of the
//!   trajectory's own Philox stream `STREAM_TIE`), each followed by the rules and the triggers;
//!   `useValuesFromTriggerTime` takes the assignments' values when triggered;
//! - time enters a trigger only by comparison with a constant (the reader and `check_events`
//!   see to that), compared in the clock's fixed point: the constant's nearest tick. The next
//!   time such a trigger turns true is the constant, or the tick after it (`>`, `<`); when it
//!   comes before the next reaction, the clock moves there, the events run, and the waiting time
//!   is drawn again, from the next draw of the stream.
//!
//! The thread record keeps the trigger values between dispatches (word 4: bit e for event e,
//! bit 31 once the start's events have run).

use super::general::MAX_EXECUTIONS_AT_ONCE;
use super::gpu_expr::{f32_literal, wgsl, Leaves};
use super::gpu_time::{time_to_ticks, TIME_LIMIT};
use crate::error::{invalid, Result};
use crate::reactions::general::{Event, GeneralNetwork, Target};
use crate::reactions::math::{time_compared_with, Expr, Op, State};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Events one kernel holds: a bit each in thread word 4 (bit 31 marks a started thread).
pub const MAX_GPU_EVENTS: usize = 31;

/// Why a trajectory stopped in its events (the high byte of thread word 6; the low bytes hold
/// the event's index).
pub const FAIL_EVENT_COUNT: u32 = 5;
pub const FAIL_EVENT_LOOP: u32 = 6;
pub const FAIL_EVENT_AGAIN: u32 = 7;

/// Refuses the events the GPU kernel cannot run, naming the event and why.
pub fn check_events(net: &GeneralNetwork, values: &[f64]) -> Result<()> {
    let cpu = "; use --device cpu, whose direct method handles every event \
               (docs/models/sbml-subset.md)";
    if net.events.len() > MAX_GPU_EVENTS {
        let allowed = format!("at most {MAX_GPU_EVENTS} events on the GPU{cpu}");
        return Err(invalid("model.events", net.events.len(), allowed));
    }
    for e in &net.events {
        if let Some(d) = &e.delay {
            if !(constant(d, net) && eval_constant(d, values) == 0.0) {
                let allowed = format!(
                    "events without a delay on the GPU (a delayed execution waits in a list \
                     the CPU keeps){cpu}"
                );
                return Err(invalid(&e.origin, "its delay", allowed));
            }
        }
        let value_target = e.assignments.iter().find_map(|a| match a.target {
            Target::Value(v) => Some(v),
            Target::Species(_) => None,
        });
        if let Some(v) = value_target {
            let allowed = format!(
                "event assignments to species on the GPU (model values are constants of its \
                 kernel){cpu}"
            );
            let what = format!("an assignment to \"{}\"", net.values[v].id);
            return Err(invalid(&e.origin, what, allowed));
        }
        let mut compared = Vec::new();
        for expr in expressions(e) {
            time_compared_with(expr, &mut compared);
        }
        if compared.iter().any(|c| !constant(c, net)) {
            let allowed = format!(
                "comparisons of time with constants on the GPU (a value that changes would \
                 move the time the trigger waits for){cpu}"
            );
            return Err(invalid(&e.origin, "a comparison with time", allowed));
        }
    }
    Ok(())
}

/// Every expression of an event.
fn expressions(e: &Event) -> impl Iterator<Item = &Expr> {
    std::iter::once(&e.trigger)
        .chain(&e.priority)
        .chain(e.assignments.iter().map(|a| &a.expr))
}

/// Whether `e` is the same throughout a GPU run: it reads no species, no time and no value a
/// rule sets (the others are constants of the kernel).
fn constant(e: &Expr, net: &GeneralNetwork) -> bool {
    let (mut species, mut values) = (BTreeSet::new(), BTreeSet::new());
    e.reads(&mut species, &mut values);
    let rule_values: BTreeSet<usize> = net.rule_values().collect();
    species.is_empty() && !e.reads_time() && values.is_disjoint(&rule_values)
}

fn eval_constant(e: &Expr, values: &[f64]) -> f64 {
    e.eval(&State {
        counts: &[],
        values,
        time: 0.0,
    })
}

/// A constant time as the kernel's tick literal, `None` where it lies outside the clock's
/// range [0, TIME_LIMIT) or is NaN (the comparison then has the same outcome at every time).
fn tick_literal(c: f64) -> Option<String> {
    (0.0..TIME_LIMIT).contains(&c).then(|| {
        let ticks = time_to_ticks(c);
        format!("vec2<u32>({}u, {}u)", ticks >> 32, ticks as u32)
    })
}

/// The leaves of event expressions: as a law's, with the time `tq` of the clock; a comparison
/// of time with a constant compares ticks.
struct EventNames<'a> {
    names: &'a dyn Leaves,
    values: &'a [f64],
    net: &'a GeneralNetwork,
}

impl Leaves for EventNames<'_> {
    fn species(&self, index: usize) -> String {
        self.names.species(index)
    }
    fn value(&self, i: usize) -> String {
        self.names.value(i)
    }
    fn time(&self) -> String {
        "ticks_f32(tq)".into()
    }
    fn time_comparison(&self, op: Op, args: &[Expr]) -> Option<String> {
        let k = args.iter().position(|a| *a == Expr::Time)?;
        let other = &args[1 - k];
        // `check_events` refuses other comparisons with time.
        if !constant(other, self.net) {
            return None;
        }
        let c = eval_constant(other, self.values);
        let Some(literal) = tick_literal(c) else {
            // Outside the clock (or NaN): the outcome at time 0 is the outcome at every time.
            let at_zero = Expr::Apply(op, args.to_vec()).eval(&State {
                counts: &[],
                values: self.values,
                time: 0.0,
            });
            return Some(f32_literal(at_zero));
        };
        let (left, right) = match k {
            0 => ("tq".to_string(), literal),
            _ => (literal, "tq".to_string()),
        };
        let sym = match op {
            Op::Eq => "==",
            Op::Neq => "!=",
            Op::Gt => ">",
            Op::Lt => "<",
            Op::Geq => ">=",
            _ => "<=",
        };
        Some(format!("m_truth(ticks_cmp({left}, {right}) {sym} 0)"))
    }
}

/// The rules in order, or every propensity, written at an indentation (`gpu_general`).
pub(super) type Writer<'a> = &'a dyn Fn(&mut String, &str);

/// The event code of one network's kernel.
pub(super) struct EventCode<'a> {
    net: &'a GeneralNetwork,
    leaves: EventNames<'a>,
    rules: Writer<'a>,
    propensities: Writer<'a>,
}

impl<'a> EventCode<'a> {
    /// `names`: the leaves of the network's laws; `values`: its constants.
    pub(super) fn new(
        net: &'a GeneralNetwork,
        names: &'a dyn Leaves,
        values: &'a [f64],
        rules: Writer<'a>,
        propensities: Writer<'a>,
    ) -> Self {
        Self {
            net,
            leaves: EventNames { names, values, net },
            rules,
            propensities,
        }
    }

    fn events(&self) -> &[Event] {
        &self.net.events
    }

    /// The kernel's locals for events, and the start's events on a thread's first dispatch.
    pub(super) fn write_start(&self, w: &mut String, odm: bool) {
        let initial: u32 = self
            .events()
            .iter()
            .enumerate()
            .map(|(e, ev)| u32::from(ev.initial_value) << e)
            .sum();
        let _ = writeln!(
            w,
            "    var trig = traj[th + 4u];
    var pend = 0u;
    var tq = t;
    var executed = false;"
        );
        for (e, ev) in self.events().iter().enumerate() {
            if ev.use_values_from_trigger_time {
                for k in 0..ev.assignments.len() {
                    let _ = writeln!(w, "    var u{e}_{k} = 0.0;");
                }
            }
        }
        let _ = writeln!(
            w,
            "    if (trig & 0x80000000u) == 0u {{
        // The thread's first dispatch: triggers before the start, then the start's events.
        trig = {:#010x}u;",
            0x8000_0000u32 | initial
        );
        (self.rules)(w, "        ");
        self.write_settle(w, odm, "        ");
        let _ = writeln!(w, "    }}");
    }

    /// The next time a time trigger turns true (`t_ev`); when it comes before the reaction at
    /// `t_next`, the clock moves there, the events run, and the iteration starts again.
    pub(super) fn write_timed(&self, w: &mut String, odm: bool, spill: &str) {
        let _ = writeln!(w, "        var t_ev = TIME_NEVER;");
        for (e, ev) in self.events().iter().enumerate() {
            let mut compared = Vec::new();
            time_compared_with(&ev.trigger, &mut compared);
            let mut ticks: Vec<String> = compared
                .iter()
                .filter_map(|c| tick_literal(eval_constant(c, self.leaves.values)))
                .collect();
            ticks.dedup();
            if ticks.is_empty() {
                continue;
            }
            let trigger = wgsl(&ev.trigger, &self.leaves);
            let _ = writeln!(w, "        if (trig & {}u) == 0u {{", 1u32 << e);
            for c in ticks {
                // At c (>=, ==, <=), or else just after it (>, <).
                let _ = writeln!(
                    w,
                    "            if !ticks_less({c}, t) {{
                tq = {c};
                if ticks_less(t, tq) && {trigger} != 0.0 {{
                    t_ev = ticks_min(t_ev, tq);
                }} else {{
                    tq = ticks_add(tq, vec2<u32>(0u, 1u));
                    if {trigger} != 0.0 {{
                        t_ev = ticks_min(t_ev, tq);
                    }}
                }}
            }}"
                );
            }
            let _ = writeln!(w, "        }}");
        }
        let _ = writeln!(
            w,
            "        if ticks_less(t_ev, TIME_NEVER) && !ticks_less(t_next, t_ev) {{
            if ticks_less(out_time(next_out), t_ev) {{
                {spill}
                next_out = record_until(t_ev, next_out, i, event);
                if next_out >= p.out_stop {{
                    break;
                }}
            }}
            t = t_ev;
            // The reaction's draw is spent: the waiting time is drawn again.
            event++;"
        );
        self.write_settle(w, odm, "            ");
        let _ = writeln!(w, "            continue;\n        }}");
    }

    /// After a reaction: the rules, then the triggers and the events due.
    pub(super) fn write_after_reaction(&self, w: &mut String, odm: bool) {
        (self.rules)(w, "        ");
        self.write_settle(w, odm, "        ");
    }

    /// Evaluates every trigger at `t`: one that turned true makes its event due (taking the
    /// assignments' values if it uses those of the trigger time), one that turned false drops
    /// its due execution unless persistent.
    fn write_triggers(&self, w: &mut String, pad: &str) {
        let _ = writeln!(w, "{pad}tq = t;");
        for (e, ev) in self.events().iter().enumerate() {
            let bit = 1u32 << e;
            let trigger = wgsl(&ev.trigger, &self.leaves);
            let _ = writeln!(
                w,
                "{pad}{{
{pad}    let now = {trigger} != 0.0;
{pad}    let was = (trig & {bit}u) != 0u;
{pad}    if now && !was {{
{pad}        if (pend & {bit}u) != 0u && fail == 0u {{
{pad}            fail = ({FAIL_EVENT_AGAIN}u << 24u) | {e}u;
{pad}        }}
{pad}        pend = pend | {bit}u;"
            );
            if ev.use_values_from_trigger_time {
                for (k, a) in ev.assignments.iter().enumerate() {
                    let _ = writeln!(
                        w,
                        "{pad}        u{e}_{k} = {};",
                        wgsl(&a.expr, &self.leaves)
                    );
                }
            }
            let _ = write!(w, "{pad}    }}");
            if !ev.persistent {
                let _ = write!(
                    w,
                    " else if was && !now {{\n{pad}        pend = pend & ~{bit}u;\n{pad}    }}"
                );
            }
            let _ = writeln!(
                w,
                "\n{pad}    trig = select(trig & ~{bit}u, trig | {bit}u, now);\n{pad}}}"
            );
        }
    }

    /// The triggers, then every event due, highest priority first (ties drawn at random), each
    /// followed by the rules and the triggers. With the optimized direct method the
    /// propensities are worked out again after an execution.
    fn write_settle(&self, w: &mut String, odm: bool, pad: &str) {
        let _ = writeln!(w, "{pad}executed = false;");
        self.write_triggers(w, pad);
        let _ = writeln!(
            w,
            "{pad}for (var rounds = 0u; pend != 0u && fail == 0u; rounds++) {{
{pad}    loop_work++;
{pad}    if rounds >= {MAX_EXECUTIONS_AT_ONCE}u {{
{pad}        fail = ({FAIL_EVENT_LOOP}u << 24u);
{pad}        break;
{pad}    }}
{pad}    var top = -m_inf();
{pad}    var ties = 0u;"
        );
        for (e, ev) in self.events().iter().enumerate() {
            let priority = match &ev.priority {
                Some(p) => wgsl(p, &self.leaves),
                None => "(-m_inf())".into(),
            };
            let _ = writeln!(
                w,
                "{pad}    let pr{e} = {priority};
{pad}    if (pend & {bit}u) != 0u {{
{pad}        if pr{e} > top {{
{pad}            top = pr{e};
{pad}            ties = 1u;
{pad}        }} else if pr{e} == top {{
{pad}            ties++;
{pad}        }}
{pad}    }}",
                bit = 1u32 << e
            );
        }
        let _ = writeln!(
            w,
            "{pad}    if ties == 0u {{
{pad}        // Priorities that compare with nothing (NaN).
{pad}        fail = ({FAIL_EVENT_LOOP}u << 24u);
{pad}        break;
{pad}    }}
{pad}    var pick = 0u;
{pad}    if ties > 1u {{
{pad}        pick = min(u32(rng_unit(draw(i, event, STREAM_TIE + rounds).x) * f32(ties)), ties - 1u);
{pad}    }}
{pad}    var chosen = 0xFFFFFFFFu;"
        );
        for e in 0..self.events().len() {
            let _ = writeln!(
                w,
                "{pad}    if chosen == 0xFFFFFFFFu && (pend & {bit}u) != 0u && pr{e} == top {{
{pad}        if pick == 0u {{
{pad}            chosen = {e}u;
{pad}        }} else {{
{pad}            pick--;
{pad}        }}
{pad}    }}",
                bit = 1u32 << e
            );
        }
        let _ = writeln!(
            w,
            "{pad}    pend = pend & ~(1u << chosen);
{pad}    executed = true;
{pad}    tq = t;
{pad}    switch chosen {{"
        );
        for (e, ev) in self.events().iter().enumerate() {
            let _ = writeln!(w, "{pad}        case {e}u: {{");
            // Every value first, then the assignments, as the CPU does.
            for (k, a) in ev.assignments.iter().enumerate() {
                let value = match ev.use_values_from_trigger_time {
                    true => format!("u{e}_{k}"),
                    false => wgsl(&a.expr, &self.leaves),
                };
                let _ = writeln!(w, "{pad}            let y{k} = {value};");
            }
            for (k, a) in ev.assignments.iter().enumerate() {
                let Target::Species(sp) = a.target else {
                    continue;
                };
                let _ = writeln!(
                    w,
                    "{pad}            if count_whole(y{k}) {{
{pad}                x{sp} = u32(round(y{k}));
{pad}            }} else if fail == 0u {{
{pad}                fail = ({FAIL_EVENT_COUNT}u << 24u) | {e}u;
{pad}                fail_value = y{k};
{pad}            }}"
                );
            }
            let _ = writeln!(w, "{pad}        }}");
        }
        let _ = writeln!(w, "{pad}        default: {{}}\n{pad}    }}");
        (self.rules)(w, &format!("{pad}    "));
        self.write_triggers(w, &format!("{pad}    "));
        let _ = writeln!(w, "{pad}}}");
        if odm {
            let _ = writeln!(w, "{pad}if executed {{");
            (self.propensities)(w, &format!("{pad}    "));
            let _ = writeln!(w, "{pad}}}");
        }
    }
}
