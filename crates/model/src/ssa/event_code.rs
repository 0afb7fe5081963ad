//! The direct method's event compiled to machine code for one network (Cranelift, at run time),
//! so a loaded network runs like one written into the program: each reaction's changes, its
//! dependents' propensities and the running sums from its first dependent on are straight-line
//! code with the indices and rate constants inlined, reached through one jump table. The code
//! does what `direct::DirectTrajectory`'s table loop does, in the same order and with the same
//! operations, so a trajectory's bits do not depend on which of the two runs it (tested).
//! Where Cranelift has no backend for the processor, or a network is too large to be worth
//! compiling, the table loop runs instead.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use std::collections::{HashMap, HashSet};

/// One reaction's event as the table loop runs it (`direct::DirectTables`, in the sum order).
pub(crate) struct EventSpec {
    /// Per species changed: its count's factor slot, its pair factor's slot and the change.
    pub changes: Vec<(u32, u32, f64)>,
    /// Per dependent reaction (ascending): its place in the sums, its rate constant and its two
    /// factor slots.
    pub dependents: Vec<(u32, f64, [u32; 2])>,
    /// Where the running sums start to change (None: the reaction changes no propensity).
    pub first: Option<u32>,
}

/// The compiled events of one network (fired through `EventCode::entry`).
pub(crate) struct EventCode {
    run: EventFn,
    /// Lengths the code indexes within (`EventEntry::fire` checks them).
    factors: usize,
    reactions: usize,
    /// Owns the code's memory; freed on drop.
    module: Option<JITModule>,
}

/// (fired, factors, propensities, sums, stop) -> the new total propensity, or `LIMIT` with the
/// stopping change's index written to `stop`.
type EventFn = extern "C" fn(u64, *mut f64, *mut f64, *mut f64, *mut u64) -> f64;

/// What the code returns when a change would take a count to the limit (`Fired::Limit`);
/// totals are never negative.
const LIMIT: f64 = -1.0;

/// What firing a reaction did (`EventEntry::fire`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Fired {
    /// The new total propensity (the last running sum).
    Total(f64),
    /// The reaction's change `k` (in its list) would take a count to the limit; the changes
    /// before it are made, it is not.
    Limit(usize),
}

// SAFETY: the module is only touched when the code is dropped (no other reference to the code
// is left then); the code itself is immutable once finalised, and calling it from several
// threads at once is safe because each call works on the slices it is given.
unsafe impl Send for EventCode {}
unsafe impl Sync for EventCode {}

impl std::fmt::Debug for EventCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventCode")
            .field("reactions", &self.reactions)
            .finish()
    }
}

impl Drop for EventCode {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the only pointer into the module's memory is `run`, which dies with self.
            unsafe { module.free_memory() };
        }
    }
}

/// Networks whose events add up to more operations than this (changes, dependents and running
/// sums re-added, over all reactions) run the table loop: the time to compile grows with that
/// count (Vilar's oscillator: a few hundred, milliseconds; 10^5: over half a second), and
/// a run of a network that large spends most of its time re-adding sums either way.
const MAX_COMPILED_OPERATIONS: usize = 20_000;

impl EventCode {
    /// Compiles the events of a network with `factors` factor slots (`one` the slot holding 1)
    /// and `events.len()` reactions. `limit_bits`: a count at or above these bits (as f64) is
    /// over the limit. None where the processor has no Cranelift backend or the network is past
    /// the bounds.
    pub(crate) fn compile(
        events: &[EventSpec],
        factors: usize,
        one: u32,
        limit_bits: u64,
    ) -> Option<Self> {
        let reactions = events.len();
        let operations: usize = events
            .iter()
            .map(|e| {
                let sums = e.first.map_or(0, |f| reactions - f as usize);
                e.changes.len() + e.dependents.len() + sums
            })
            .sum();
        // Slots are addressed by 32-bit byte offsets from the tables' starts.
        let addressable =
            |slots: usize| slots.checked_mul(8).is_some_and(|b| b <= i32::MAX as usize);
        if reactions == 0
            || operations > MAX_COMPILED_OPERATIONS
            || !addressable(factors)
            || !addressable(reactions)
        {
            return None;
        }
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let mut module = JITModule::new(JITBuilder::with_isa(
            isa,
            cranelift_module::default_libcall_names(),
        ));
        let ptr = module.target_config().pointer_type();
        let mut ctx = module.make_context();
        let sig = &mut ctx.func.signature;
        sig.params.push(AbiParam::new(types::I64));
        for _ in 0..4 {
            sig.params.push(AbiParam::new(ptr));
        }
        sig.returns.push(AbiParam::new(types::F64));
        let id = module
            .declare_function("direct_event", Linkage::Local, &ctx.func.signature)
            .ok()?;
        let mut builder_ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut builder_ctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let (fired, f_ptr, a_ptr, s_ptr, stop_ptr) =
            (params[0], params[1], params[2], params[3], params[4]);
        let mem = MemFlagsData::trusted();
        let plain = MemFlagsData::new();
        let offset = |slot: u32| (8 * slot) as i32;
        let mut switch = Switch::new();
        let blocks: Vec<_> = (0..reactions).map(|_| b.create_block()).collect();
        for (j, &block) in blocks.iter().enumerate() {
            switch.set_entry(j as u128, block);
        }
        // `fire` passes only reactions of the network.
        let otherwise = b.create_block();
        switch.emit(&mut b, fired, otherwise);
        b.switch_to_block(otherwise);
        let nothing = b.ins().f64const(f64::NAN);
        b.ins().return_(&[nothing]);
        // Pair factors C(x, 2) that some propensity reads (the others are not kept up).
        let read: HashSet<u32> = events
            .iter()
            .flat_map(|e| e.dependents.iter().flat_map(|d| d.2))
            .collect();
        for (j, event) in events.iter().enumerate() {
            b.switch_to_block(blocks[j]);
            // The factor slots and propensities this event has written, as values.
            let mut slots: HashMap<u32, Value> = HashMap::new();
            for (k, &(s, pair, d)) in event.changes.iter().enumerate() {
                let x = match slots.get(&s) {
                    Some(&x) => x,
                    None => b.ins().load(types::F64, mem, f_ptr, offset(s)),
                };
                let d = b.ins().f64const(d);
                let x = b.ins().fadd(x, d);
                let bits = b.ins().bitcast(types::I64, plain, x);
                let over =
                    b.ins()
                        .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, bits, limit_bits as i64);
                let stop = b.create_block();
                let go_on = b.create_block();
                b.ins().brif(over, stop, &[], go_on, &[]);
                b.switch_to_block(stop);
                let code = b.ins().iconst(types::I64, k as i64);
                b.ins().store(mem, code, stop_ptr, 0);
                let limit = b.ins().f64const(LIMIT);
                b.ins().return_(&[limit]);
                b.switch_to_block(go_on);
                b.ins().store(mem, x, f_ptr, offset(s));
                slots.insert(s, x);
                if read.contains(&pair) {
                    // C(x, 2) = x max(x - 1, 0) / 2 (`direct::pair_factor`); x is a whole
                    // number >= 0 here, so x - 1 is -1 or a whole number >= +0.
                    let one_f = b.ins().f64const(1.0);
                    let zero_f = b.ins().f64const(0.0);
                    let half = b.ins().f64const(0.5);
                    let below = b.ins().fsub(x, one_f);
                    let positive = b.ins().fcmp(FloatCC::GreaterThan, below, zero_f);
                    let below = b.ins().select(positive, below, zero_f);
                    let pair_value = b.ins().fmul(x, below);
                    let pair_value = b.ins().fmul(pair_value, half);
                    b.ins().store(mem, pair_value, f_ptr, offset(pair));
                    slots.insert(pair, pair_value);
                }
            }
            let mut propensities: HashMap<u32, Value> = HashMap::new();
            for &(reaction, rate, [fa, fb]) in &event.dependents {
                // rate * f[a] * f[b], left to right; a factor from the slot of 1 multiplies by
                // exactly 1 and is left out.
                let mut value = b.ins().f64const(rate);
                for slot in [fa, fb] {
                    if slot == one {
                        continue;
                    }
                    let factor = match slots.get(&slot) {
                        Some(&v) => v,
                        None => b.ins().load(types::F64, mem, f_ptr, offset(slot)),
                    };
                    value = b.ins().fmul(value, factor);
                }
                b.ins().store(mem, value, a_ptr, offset(reaction));
                propensities.insert(reaction, value);
            }
            let total = match event.first {
                Some(start) => {
                    let mut sum = match start {
                        0 => b.ins().f64const(0.0),
                        _ => b.ins().load(types::F64, mem, s_ptr, offset(start - 1)),
                    };
                    for i in start..reactions as u32 {
                        let a = match propensities.get(&i) {
                            Some(&a) => a,
                            None => b.ins().load(types::F64, mem, a_ptr, offset(i)),
                        };
                        sum = b.ins().fadd(sum, a);
                        b.ins().store(mem, sum, s_ptr, offset(i));
                    }
                    sum
                }
                None => b
                    .ins()
                    .load(types::F64, mem, s_ptr, offset(reactions as u32 - 1)),
            };
            b.ins().return_(&[total]);
        }
        b.seal_all_blocks();
        b.finalize();
        module.define_function(id, &mut ctx).ok()?;
        module.clear_context(&mut ctx);
        module.finalize_definitions().ok()?;
        let code = module.get_finalized_function(id);
        // SAFETY: `code` is the finalised function just defined with this signature (an i64 and
        // four pointers in, f64 out) in the platform's default calling convention, which is
        // `extern "C"`'s; it lives as long as `module`, which self owns.
        let run = unsafe { std::mem::transmute::<*const u8, EventFn>(code) };
        Some(Self {
            run,
            factors,
            reactions,
            module: Some(module),
        })
    }

    /// The code's entry and the lengths it indexes within, copied out so that a trajectory's
    /// event loop holds them in registers (and checks the lengths once, not at every event).
    pub(crate) fn entry(&self) -> EventEntry<'_> {
        EventEntry {
            run: self.run,
            factors: self.factors,
            reactions: self.reactions,
            _code: std::marker::PhantomData,
        }
    }
}

/// The entry of a network's compiled events (`EventCode::entry`), valid while the code lives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventEntry<'a> {
    run: EventFn,
    factors: usize,
    reactions: usize,
    _code: std::marker::PhantomData<&'a EventCode>,
}

impl EventEntry<'_> {
    /// Fires reaction `fired` (an index in the sum order) on a trajectory's factor table,
    /// propensities and running sums: makes its changes, recomputes its dependents' propensities
    /// and the running sums from the first of them on.
    ///
    /// # Panics
    /// If `fired` is not a reaction of the network or the slices are shorter than the network's
    /// (a caller's mistake).
    #[inline]
    pub(crate) fn fire(
        self,
        fired: usize,
        factors: &mut [f64],
        propensities: &mut [f64],
        sums: &mut [f64],
    ) -> Fired {
        // The lengths are a loop's invariants, so the compiler checks them before the loop.
        assert!(
            fired < self.reactions
                && factors.len() >= self.factors
                && propensities.len() >= self.reactions
                && sums.len() >= self.reactions
        );
        let mut stop = 0u64;
        // The code reads and writes factor slots below `self.factors`, and propensities and sums
        // below `self.reactions` (the tables it was compiled from), all checked above.
        let total = (self.run)(
            fired as u64,
            factors.as_mut_ptr(),
            propensities.as_mut_ptr(),
            sums.as_mut_ptr(),
            &mut stop,
        );
        if total == LIMIT {
            Fired::Limit(stop as usize)
        } else {
            Fired::Total(total)
        }
    }
}
