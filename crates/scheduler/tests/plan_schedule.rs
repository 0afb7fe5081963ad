//! GPU tests of the step plan's scheduling: indirect dispatch, every-k passes, loops until a GPU
//! flag and passes that record themselves (lavapipe in CI).

mod test_shaders;

use petri_engine::kernel::{self, Access};
use petri_engine::{buffers, testing::test_context, GpuContext, Profiler};
use petri_scheduler::{
    args_buffer, dispatch_args, Binding, BufferAt, Every, LoopEnd, PassDesc, PassSchedule,
    RecordPass, StepPlan,
};
use std::sync::Arc;

fn read_u32(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<u32> {
    buffers::read_vec(ctx, buffer).unwrap()
}

fn max_groups(ctx: &GpuContext) -> u32 {
    ctx.limits().max_compute_workgroups_per_dimension
}

// ---- indirect dispatch ----

const FILL_LEN: usize = 128;

/// A plan whose step writes this step's count from `table`, then (indirect) turns it into
/// dispatch arguments and fills below it, or (fixed) fills with `fixed` workgroups.
fn fill_plan(ctx: &GpuContext, table: &[u32], wg: u32, fixed: Option<[u32; 3]>) -> StepPlan {
    let mut plan = StepPlan::new(ctx, 1, 8);
    plan.add_buffer("table", buffers::storage_from(ctx, "table", table).unwrap());
    plan.add_buffer("count", buffers::storage_zeroed(ctx, "count", 4).unwrap());
    plan.add_buffer("args", args_buffer(ctx, "args", 1));
    let out_bytes = 4 * FILL_LEN as u64;
    plan.add_buffer(
        "out",
        buffers::storage_zeroed(ctx, "out", out_bytes).unwrap(),
    );
    plan.add_buffer("hits", buffers::storage_zeroed(ctx, "hits", 4).unwrap());
    plan.add_pass(
        ctx,
        PassDesc {
            label: "set count",
            entry: test_shaders::test::set_count::MAIN,
            bindings: vec![Binding::read("table"), Binding::read_write("count")],
            workgroups: [1, 1, 1],
            constants: vec![],
        },
    )
    .unwrap();
    let fill = fill_pass("fill", wg, fixed.unwrap_or([0; 3]));
    match fixed {
        Some(_) => plan.add_pass(ctx, fill).unwrap(),
        None => {
            let (count, args) = (BufferAt::new("count", 0), BufferAt::new("args", 0));
            plan.add_count_to_args(ctx, "count to args", count, args, wg)
                .unwrap();
            let schedule = PassSchedule::default().indirect("args", 0);
            plan.add_pass_with(ctx, fill, schedule).unwrap();
        }
    }
    plan
}

/// The pass of test/indirect_fill.wgsl over buffers count, out and hits.
fn fill_pass(label: &str, wg: u32, workgroups: [u32; 3]) -> PassDesc<'_> {
    PassDesc {
        label,
        entry: test_shaders::test::indirect_fill::MAIN,
        bindings: vec![
            Binding::read("count"),
            Binding::read_write("out"),
            Binding::read_write("hits"),
        ],
        workgroups,
        constants: vec![("WG", wg as f64)],
    }
}

fn fill_cpu(table: &[u32], steps: u32) -> Vec<u32> {
    let mut out = vec![0u32; FILL_LEN];
    for s in 0..steps {
        let count = table[s as usize % table.len()] as usize;
        for v in &mut out[..count.min(FILL_LEN)] {
            *v = *v * 3 + s + 1;
        }
    }
    out
}

#[test]
fn indirect_pass_fills_like_a_fixed_dispatch_with_counts_written_on_the_gpu() {
    let ctx = test_context();
    // Counts 0, 1 and non-multiples of the workgroup size, changing every step; 0 after 100 so
    // that arguments left over from an earlier step would show.
    let table = [100u32, 0, 1, 37, 0, 100];
    let steps = table.len() as u32;
    let cpu = fill_cpu(&table, steps);
    for wg in [64u32, 32] {
        let mut indirect = fill_plan(&ctx, &table, wg, None);
        indirect.run(&ctx, steps as u64);
        let out = read_u32(&ctx, indirect.buffer("out"));
        assert_eq!(out, cpu, "indirect, workgroup {wg}");
        let groups: u32 = table
            .iter()
            .map(|&n| {
                dispatch_args(n, wg, max_groups(&ctx))
                    .iter()
                    .product::<u32>()
            })
            .sum();
        assert_eq!(
            read_u32(&ctx, indirect.buffer("hits"))[0],
            groups,
            "wg {wg}"
        );
        let last = dispatch_args(*table.last().unwrap(), wg, max_groups(&ctx));
        assert_eq!(read_u32(&ctx, indirect.buffer("args")), last.to_vec());

        let mut fixed = fill_plan(&ctx, &table, wg, Some([100u32.div_ceil(wg), 1, 1]));
        fixed.run(&ctx, steps as u64);
        assert_eq!(read_u32(&ctx, fixed.buffer("out")), out, "fixed, wg {wg}");
    }
}

#[test]
fn indirect_pass_spreads_over_y_past_the_per_dimension_limit() {
    let ctx = test_context();
    let wg = 4u32;
    let n = wg * max_groups(&ctx).min(1 << 16) + 9;
    let args = dispatch_args(n, wg, max_groups(&ctx));
    let mut plan = StepPlan::new(&ctx, 1, 1);
    plan.add_buffer("count", buffers::storage_from(&ctx, "count", &[n]).unwrap());
    plan.add_buffer("args", args_buffer(&ctx, "args", 2));
    let out = buffers::storage_zeroed(&ctx, "out", 4 * n as u64).unwrap();
    plan.add_buffer("out", out);
    plan.add_buffer("hits", buffers::storage_zeroed(&ctx, "hits", 4).unwrap());
    // The second set of arguments in the buffer, to exercise the offset.
    let at = BufferAt::new("args", 12);
    plan.add_count_to_args(&ctx, "count to args", BufferAt::new("count", 0), at, wg)
        .unwrap();
    let schedule = PassSchedule::default().indirect("args", 12);
    plan.add_pass_with(&ctx, fill_pass("fill", wg, [0; 3]), schedule)
        .unwrap();
    plan.run(&ctx, 1);
    assert_eq!(read_u32(&ctx, plan.buffer("args"))[3..], args);
    assert!(args[1] > 1 || max_groups(&ctx) > 1 << 16, "{args:?}");
    assert_eq!(
        read_u32(&ctx, plan.buffer("hits"))[0],
        args.iter().product()
    );
    let out = read_u32(&ctx, plan.buffer("out"));
    assert!(
        out.iter().all(|&v| v == 1),
        "every item updated exactly once"
    );
}

#[test]
fn gpu_dispatch_args_match_cpu_twin() {
    let ctx = test_context();
    let mut inputs = Vec::new();
    for &count in &[
        0u32,
        1,
        2,
        63,
        64,
        65,
        1000,
        123_457,
        u32::MAX - 1,
        u32::MAX,
    ] {
        for &size in &[1u32, 3, 64, 256] {
            for &max in &[1u32, 2, 5, 7, 65535] {
                inputs.push([count, size, max, 0]);
            }
        }
    }
    let mut plan = StepPlan::new(&ctx, 1, 1);
    plan.add_buffer("in", buffers::storage_from(&ctx, "in", &inputs).unwrap());
    let out_bytes = 16 * inputs.len() as u64;
    plan.add_buffer(
        "out",
        buffers::storage_zeroed(&ctx, "out", out_bytes).unwrap(),
    );
    plan.add_pass(
        &ctx,
        PassDesc {
            label: "dispatch args",
            entry: test_shaders::test::dispatch_args_twin::MAIN,
            bindings: vec![Binding::read("in"), Binding::read_write("out")],
            workgroups: [(inputs.len() as u32).div_ceil(64), 1, 1],
            constants: vec![],
        },
    )
    .unwrap();
    plan.run(&ctx, 1);
    let out = read_u32(&ctx, plan.buffer("out"));
    for (i, [count, size, max, _]) in inputs.iter().copied().enumerate() {
        let cpu = dispatch_args(count, size, max);
        assert_eq!(
            out[4 * i..4 * i + 3],
            cpu,
            "count {count} size {size} max {max}"
        );
    }
}

#[test]
fn indirect_pass_refuses_a_buffer_it_cannot_dispatch_from() {
    let ctx = test_context();
    let mut plan = fill_plan(&ctx, &[1], 64, Some([1, 1, 1]));
    let at = |name, offset| PassSchedule::default().indirect(name, offset);
    let every = |k, phase| PassSchedule::default().every(k, phase);
    let cases = [
        ("absent", at("nothing", 0), "nothing"),
        ("no usage", at("out", 0), "INDIRECT"),
        ("odd", at("args", 2), "offset 2"),
        ("past end", at("args", 4), "offset 4"),
        ("k = 0", every(0, 0), "k = 0"),
        ("phase", every(3, 3), "phase = 3"),
    ];
    for (label, schedule, needle) in cases {
        let err = plan
            .add_pass_with(&ctx, fill_pass(label, 64, [0; 3]), schedule)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(label) && err.contains(needle),
            "{label}: {err}"
        );
    }
    let err = plan
        .add_count_to_args(
            &ctx,
            "c",
            BufferAt::new("count", 0),
            BufferAt::new("count", 0),
            64,
        )
        .unwrap_err();
    assert!(err.to_string().contains("share buffer"), "{err}");
}

// ---- every k steps ----

/// Tape passes with their schedules: (id, k, phase).
const TAPE_PASSES: [(u32, u32, u32); 4] = [(1, 1, 0), (2, 3, 1), (3, 4, 0), (4, 2, 1)];

fn tape_plan(ctx: &GpuContext, batch: u32, words: u64) -> StepPlan {
    let mut plan = StepPlan::new(ctx, 1, batch);
    let tape = buffers::storage_zeroed(ctx, "tape", 4 * words).unwrap();
    plan.add_buffer("tape", tape);
    plan
}

fn tape_pass(id: u32) -> PassDesc<'static> {
    PassDesc {
        label: "append",
        entry: test_shaders::test::tape::MAIN,
        bindings: vec![Binding::read_write("tape")],
        workgroups: [1, 1, 1],
        constants: vec![("ID", id as f64)],
    }
}

fn tape(ctx: &GpuContext, plan: &StepPlan) -> Vec<u32> {
    let words = read_u32(ctx, plan.buffer("tape"));
    words[1..1 + words[0] as usize].to_vec()
}

#[test]
fn every_k_passes_run_at_their_steps_whatever_the_batch_length() {
    let ctx = test_context();
    let steps = 17u32;
    let expected: Vec<u32> = (0..steps)
        .flat_map(|s| {
            TAPE_PASSES
                .iter()
                .filter(move |&&(_, k, phase)| s % k == phase)
                .map(move |&(id, _, _)| 8 * s + id)
        })
        .collect();
    for batch in [1u32, 3, 16] {
        for profiled in [false, true] {
            let mut plan = tape_plan(&ctx, batch, 128);
            for (id, k, phase) in TAPE_PASSES {
                let schedule = PassSchedule::default().every(k, phase);
                plan.add_pass_with(&ctx, tape_pass(id), schedule).unwrap();
            }
            let mut profiler = Profiler::new(&ctx, 4 * batch);
            let mut left = steps;
            while left > 0 {
                let n = left.min(batch);
                let p = profiled.then_some(&mut profiler);
                let encoder = plan.encode(&ctx, n, p);
                ctx.queue.submit([encoder.finish()]);
                if profiled {
                    profiler.collect(&ctx).unwrap();
                }
                left -= n;
            }
            assert_eq!(
                tape(&ctx, &plan),
                expected,
                "batch {batch} profiled {profiled}"
            );
        }
    }
}

// ---- passes that share their bindings ----

/// Passes bind their group once while the next pass binds the same buffers (`Bound` in
/// plan.rs): a pass that binds another buffer in between, and every new step (new step info),
/// must still get its own. Two tapes, passes (id, tape): each tape lists its passes, per step.
#[test]
fn passes_with_the_same_bindings_and_passes_between_them_write_where_they_should() {
    let ctx = test_context();
    let passes = [
        (1, "tape"),
        (2, "other"),
        (3, "tape"),
        (4, "tape"),
        (5, "other"),
    ];
    let steps = 7u32;
    let expected = |name: &str| -> Vec<u32> {
        (0..steps)
            .flat_map(|s| {
                passes
                    .iter()
                    .filter(move |(_, t)| *t == name)
                    .map(move |(id, _)| 8 * s + id)
            })
            .collect()
    };
    for batch in [1u32, 3, 16] {
        for profiled in [false, true] {
            let mut plan = tape_plan(&ctx, batch, 64);
            let other = buffers::storage_zeroed(&ctx, "other", 4 * 64).unwrap();
            plan.add_buffer("other", other);
            for (id, name) in passes {
                let pass = PassDesc {
                    bindings: vec![Binding::read_write(name)],
                    ..tape_pass(id)
                };
                plan.add_pass(&ctx, pass).unwrap();
            }
            let mut profiler = Profiler::new(&ctx, 5 * steps);
            let mut left = steps;
            while left > 0 {
                let n = left.min(batch);
                let encoder = plan.encode(&ctx, n, profiled.then_some(&mut profiler));
                ctx.queue.submit([encoder.finish()]);
                left -= n;
            }
            let other_tape = read_u32(&ctx, plan.buffer("other"));
            let other_tape = other_tape[1..1 + other_tape[0] as usize].to_vec();
            let what = format!("batch {batch} profiled {profiled}");
            assert_eq!(tape(&ctx, &plan), expected("tape"), "{what}");
            assert_eq!(other_tape, expected("other"), "{what}");
        }
    }
}

// ---- passes that record themselves ----

/// A recorder with its own pipeline and bind group, as a GPU primitive has.
struct Append {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
}

impl Append {
    fn new(ctx: &GpuContext, tape: &wgpu::Buffer, id: u32) -> Self {
        let layout = kernel::bind_group_layout(ctx, "recorded", &[Access::ReadWrite]);
        let constants = [("ID", id as f64)];
        let pipeline = kernel::compute_pipeline(
            ctx,
            test_shaders::test::tape_recorded::MAIN,
            &[&layout],
            &constants,
        )
        .unwrap();
        let group = kernel::bind_group(ctx, "recorded", &layout, &[tape]);
        Self { pipeline, group }
    }
}

impl RecordPass for Append {
    fn record_pass(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}

#[test]
fn recorded_pass_runs_in_order_between_plan_passes() {
    let ctx = test_context();
    for profiled in [false, true] {
        let mut plan = tape_plan(&ctx, 4, 64);
        let tape_buffer = plan.buffer("tape").clone();
        plan.add_pass(&ctx, tape_pass(1)).unwrap();
        let shared = Arc::new(Append::new(&ctx, &tape_buffer, 100));
        plan.add_recorded("recorded", shared.clone(), Every::STEP)
            .unwrap();
        plan.add_pass(&ctx, tape_pass(3)).unwrap();
        let odd = Append::new(&ctx, &tape_buffer, 200);
        plan.add_recorded("odd steps", odd, Every { k: 2, phase: 1 })
            .unwrap();
        let mut profiler = Profiler::new(&ctx, 16);
        let encoder = plan.encode(&ctx, 3, profiled.then_some(&mut profiler));
        ctx.queue.submit([encoder.finish()]);
        let expected = [1, 100, 3, 9, 100, 11, 200, 17, 100, 19];
        assert_eq!(tape(&ctx, &plan), expected, "profiled {profiled}");
    }
}

// ---- loops until a GPU flag ----

const TRAJECTORIES: u32 = 100;
/// Words of `Counters` in test/until.wgsl: the flag and two counters.
const FLAG_WORD: u64 = 3;
const ADVANCES: usize = 1;
const EVEN_STEPS: usize = 2;

/// Each trajectory's number of steps: 1..=`longest`, the longest last but one.
fn ends(longest: u32) -> Vec<u32> {
    let mut ends: Vec<u32> = (0..TRAJECTORIES)
        .map(|i| 1 + (i * 7919) % longest)
        .collect();
    ends[TRAJECTORIES as usize - 2] = longest;
    ends
}

/// An ensemble loop: the advance pass is indirect (arguments from the trajectory count), a
/// counter pass runs at even steps, and the check raises the flag once all trajectories are done.
fn ensemble_plan(ctx: &GpuContext, ends: &[u32], batch: u32) -> StepPlan {
    let wg = 32u32;
    let mut plan = StepPlan::new(ctx, 1, batch);
    plan.add_buffer(
        "n",
        buffers::storage_from(ctx, "n", &[TRAJECTORIES]).unwrap(),
    );
    plan.add_buffer("args", args_buffer(ctx, "args", 1));
    plan.add_buffer("ends", buffers::storage_from(ctx, "ends", ends).unwrap());
    let done = buffers::storage_zeroed(ctx, "done", 4 * TRAJECTORIES as u64).unwrap();
    plan.add_buffer("done", done);
    plan.add_buffer(
        "counters",
        buffers::storage_zeroed(ctx, "counters", 16).unwrap(),
    );
    let bindings = vec![
        Binding::read("ends"),
        Binding::read_write("done"),
        Binding::read_write("counters"),
    ];
    let pass = |label, entry| PassDesc {
        label,
        entry,
        bindings: bindings.clone(),
        workgroups: [1, 1, 1],
        constants: vec![("WG", wg as f64)],
    };
    let (n, args) = (BufferAt::new("n", 0), BufferAt::new("args", 0));
    plan.add_count_to_args(ctx, "count to args", n, args, wg)
        .unwrap();
    let indirect = PassSchedule::default().indirect("args", 0);
    plan.add_pass_with(
        ctx,
        pass("advance", test_shaders::test::until::ADVANCE),
        indirect,
    )
    .unwrap();
    let even = PassSchedule::default().every(2, 0);
    plan.add_pass_with(
        ctx,
        pass("even", test_shaders::test::until::COUNT_EVEN_STEP),
        even,
    )
    .unwrap();
    plan.add_pass(ctx, pass("check", test_shaders::test::until::CHECK))
        .unwrap();
    plan
}

fn flag() -> BufferAt {
    BufferAt::new("counters", 4 * FLAG_WORD)
}

#[test]
fn loop_until_flag_stops_at_the_same_step_for_every_batch_length_and_then_idles() {
    let ctx = test_context();
    let longest = 37u32;
    let ends = ends(longest);
    for batch in [1u32, 5, 64] {
        let mut plan = ensemble_plan(&ctx, &ends, batch);
        let end = plan.run_until(&ctx, &flag(), 1000).unwrap();
        let step = longest as u64;
        assert_eq!(end, LoopEnd::Flagged { step }, "batch {batch}");
        assert_eq!(plan.step, step, "batch {batch}");
        assert_eq!(read_u32(&ctx, plan.buffer("done")), ends, "batch {batch}");
        let counters = read_u32(&ctx, plan.buffer("counters"));
        // No pass ran after the stop, though batches past it were recorded.
        assert_eq!(counters[ADVANCES], longest, "batch {batch}");
        assert_eq!(counters[EVEN_STEPS], longest.div_ceil(2), "batch {batch}");
        assert_eq!(counters[FLAG_WORD as usize], 1);

        // The flag still up: a second loop stops before its first step.
        let again = plan.run_until(&ctx, &flag(), 10).unwrap();
        assert_eq!(again, LoopEnd::Flagged { step });
        assert_eq!(read_u32(&ctx, plan.buffer("counters"))[ADVANCES], longest);
    }
}

#[test]
fn loop_until_flag_stops_at_the_bound() {
    let ctx = test_context();
    let longest = 37u32;
    for batch in [1u32, 5, 64] {
        // The flag would rise at step 37: a bound of 20 ends the loop first.
        let mut plan = ensemble_plan(&ctx, &ends(longest), batch);
        assert_eq!(plan.run_until(&ctx, &flag(), 20).unwrap(), LoopEnd::Bound);
        assert_eq!(plan.step, 20);
        assert_eq!(read_u32(&ctx, plan.buffer("counters"))[ADVANCES], 20);
        // Then the loop goes on from there until the flag.
        let end = plan.run_until(&ctx, &flag(), 100).unwrap();
        assert_eq!(end, LoopEnd::Flagged { step: 37 }, "batch {batch}");

        // The flag never rises.
        let mut plan = ensemble_plan(&ctx, &ends(1000), batch);
        assert_eq!(plan.run_until(&ctx, &flag(), 30).unwrap(), LoopEnd::Bound);
        assert_eq!(plan.step, 30);
        let counters = read_u32(&ctx, plan.buffer("counters"));
        assert_eq!((counters[ADVANCES], counters[EVEN_STEPS]), (30, 15));

        // The flag rises in the bound's last step: the flag is reported.
        let mut plan = ensemble_plan(&ctx, &ends(longest), batch);
        let end = plan.run_until(&ctx, &flag(), longest as u64).unwrap();
        assert_eq!(end, LoopEnd::Flagged { step: 37 }, "batch {batch}");
    }
}

/// A host-side cancel ends the loop after the batch it was asked after, with every step of the
/// batches submitted done; the loop then goes on from there to the flag's step.
#[test]
fn loop_until_flag_ends_where_the_host_cancels_and_goes_on_from_there() {
    let ctx = test_context();
    let longest = 37u32;
    for batch in [1u32, 5] {
        let mut plan = ensemble_plan(&ctx, &ends(longest), batch);
        let asked = std::cell::Cell::new(0);
        let cancel = || {
            asked.set(asked.get() + 1);
            asked.get() == 2
        };
        let end = plan.run_until_or(&ctx, &flag(), 1000, &cancel).unwrap();
        assert_eq!(end, None, "batch {batch}");
        let done = 2 * batch;
        assert_eq!(plan.step, done as u64, "batch {batch}");
        assert_eq!(read_u32(&ctx, plan.buffer("counters"))[ADVANCES], done);
        let end = plan.run_until_or(&ctx, &flag(), 1000, &|| false).unwrap();
        assert_eq!(end, Some(LoopEnd::Flagged { step: 37 }), "batch {batch}");
        assert_eq!(read_u32(&ctx, plan.buffer("done")), ends(longest));
        // A cancel in the batch where the flag rises reports the flag.
        let mut plan = ensemble_plan(&ctx, &ends(longest), 64);
        let end = plan.run_until_or(&ctx, &flag(), 1000, &|| true).unwrap();
        assert_eq!(end, Some(LoopEnd::Flagged { step: 37 }));
    }
}

#[test]
fn loop_until_flag_refuses_passes_it_cannot_stop_and_bad_flags() {
    let ctx = test_context();
    let mut plan = ensemble_plan(&ctx, &ends(5), 4);
    let err = plan
        .run_until(&ctx, &BufferAt::new("counters", 16), 10)
        .unwrap_err();
    assert!(err.to_string().contains("offset 16"), "{err}");
    let err = plan
        .run_until(&ctx, &BufferAt::new("flags", 0), 10)
        .unwrap_err();
    assert!(err.to_string().contains("\"flags\""), "{err}");
    let tape = buffers::storage_zeroed(&ctx, "tape", 64).unwrap();
    plan.add_recorded("sort", Append::new(&ctx, &tape, 1), Every::STEP)
        .unwrap();
    let err = plan.run_until(&ctx, &flag(), 10).unwrap_err();
    assert!(err.to_string().contains("pass sort"), "{err}");
}

// ---- passes built from generated code ----

/// A pass of test/generated_term.wgsl with `term(i)` generated as 3 i + 7 adds that at every
/// step (with the step), one with the default section adds 1; bad generated code is refused,
/// naming the section, and so is a section the shader does not have.
#[test]
fn generated_pass_runs_the_code_it_was_given() {
    let ctx = test_context();
    let n = 100usize;
    let plan_with = |generated: Option<(&str, &str)>| {
        let mut plan = StepPlan::new(&ctx, 1, 4);
        let out = buffers::storage_zeroed(&ctx, "out", 4 * n as u64).unwrap();
        plan.add_buffer("out", out);
        let desc = PassDesc {
            label: "term",
            entry: test_shaders::test::generated_term::MAIN,
            bindings: vec![Binding::read_write("out")],
            workgroups: [(n as u32).div_ceil(64), 1, 1],
            constants: vec![],
        };
        match generated {
            None => plan.add_pass(&ctx, desc),
            Some(code) => plan.add_generated_pass(&ctx, desc, code, PassSchedule::default()),
        }
        .map(|()| plan)
    };
    let code = "fn term(i: u32) -> u32 {\n    return 3u * i + 7u;\n}\n";
    for (generated, term) in [
        (None, (|_| 1) as fn(u32) -> u32),
        (Some(("term", code)), |i| 3 * i + 7),
    ] {
        let mut plan = plan_with(generated).unwrap();
        plan.run(&ctx, 3);
        let want: Vec<u32> = (0..n as u32).map(|i| 3 * term(i) + 3).collect();
        assert_eq!(read_u32(&ctx, plan.buffer("out")), want, "{generated:?}");
    }
    let bad = plan_with(Some(("term", "fn term(i: u32) -> u32 { return i + ; }\n")));
    let e = bad.err().unwrap().to_string();
    assert!(e.contains("generated term"), "{e}");
    let missing = plan_with(Some(("terms", code))).err().unwrap().to_string();
    assert!(missing.contains("terms"), "{missing}");
}
