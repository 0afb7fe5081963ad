//!include common/step.wgsl
// Scheduler passes of a loop that runs until a GPU flag says stop (StepPlan::run_until, see
// crates/scheduler/src/plan/until.rs, whose Rust side reads the first two fields).

struct Guard {
    // 1 once the flag was seen, and the step count at that moment.
    stopped: u32,
    stop_step: u32,
    _pad: vec2<u32>,
    // Three words of dispatch arguments per pass of the step, which the passes are dispatched
    // from: zeros once stopped, so a stopped loop does no work while the batches the host
    // already recorded drain.
    args: array<u32>,
}

// Word of the flag in `source` (guard_step, latch_after_step); for gate, where the pass's own
// arguments start in `source` and its slot in `guard.args`.
override FLAG_WORD: u32 = 0u;
override SOURCE_WORD: u32 = 0u;
override SLOT_WORD: u32 = 0u;

// The flag buffer, or for gate the pass's own argument buffer.
@group(1) @binding(0) var<storage, read> source: array<u32>;
// Every pass's fixed workgroup counts, three words per pass (zeros for indirect passes).
@group(1) @binding(1) var<storage, read> fixed_args: array<u32>;
@group(1) @binding(2) var<storage, read_write> guard: Guard;

fn latch(steps_done: u32) {
    if guard.stopped == 0u && source[FLAG_WORD] != 0u {
        guard.stopped = 1u;
        guard.stop_step = steps_done;
    }
}

// First of every step: latches a flag raised by the steps before, then opens or shuts the
// step's fixed-size passes.
@compute @workgroup_size(1)
fn guard_step() {
    latch(step_info.step);
    let open = guard.stopped == 0u;
    for (var i = 0u; i < arrayLength(&fixed_args); i++) {
        guard.args[i] = select(0u, fixed_args[i], open);
    }
}

// Last of a batch: latches a flag raised by the batch's last step, so the host sees it.
@compute @workgroup_size(1)
fn latch_after_step() {
    latch(step_info.step + 1u);
}

// Before an indirect pass: copies the arguments a previous pass wrote, or zeros once stopped.
@compute @workgroup_size(1)
fn gate() {
    let open = guard.stopped == 0u;
    for (var k = 0u; k < 3u; k++) {
        guard.args[SLOT_WORD + k] = select(0u, source[SOURCE_WORD + k], open);
    }
}
