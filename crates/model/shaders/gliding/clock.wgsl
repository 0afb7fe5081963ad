//!include common/step.wgsl
//!include gliding/clock_state.wgsl
// The outer step's dt (crates/model/src/gliding/clock.rs): one thread, after the velocity pass
// has taken the step's largest Courant rate (coupling.wgsl, an atomic max of f32 bits), sets
// dt_n = min(dt_max, courant / rate) (courant = safety x the AB2 bound), rounded down to whole
// ticks (a power of two, so dt is exact in f32), moves dt_(n-1) and adds dt_n's ticks to the
// time (integers: exact, whatever the compiler reorders), then clears the rate for the next
// step. A non-finite rate, or a dt under the floor, is recorded with its step (the host stops
// the run at the next observation) and dt stays at the floor: never 0 or negative.

struct ClockParams {
    // dt_max and the floor in ticks (max_ticks < 2^24: exact in f32).
    max_ticks: u32,
    min_ticks: u32,
    // The tick, and safety x the AB2 bound in ticks.
    tick: f32,
    courant_ticks: f32,
}

@group(1) @binding(0) var<uniform> u: ClockParams;
// [0]: the step's largest Courant rate (f32 bits; NaN was stored as +inf).
@group(1) @binding(1) var<storage, read_write> stats: array<atomic<u32>>;
@group(1) @binding(2) var<storage, read_write> clock: Clock;

fn fail(code: u32, rate: f32) {
    if clock.failure == 0u {
        clock.failure = code;
        clock.failed_step = step_info.step;
        clock.failed_rate = rate;
    }
}

@compute @workgroup_size(1)
fn advance_clock() {
    let bits = atomicLoad(&stats[0]);
    atomicStore(&stats[0], 0u);
    let rate = bitcast<f32>(bits);
    var ticks = u.max_ticks;
    // +inf, or NaN bits (any exponent of all ones): not a rate.
    if (bits & 0x7f800000u) == 0x7f800000u {
        fail(1u, rate);
        ticks = u.min_ticks;
    } else if rate > 0.0 {
        let want = u.courant_ticks / rate;
        if want < f32(u.max_ticks) {
            ticks = u32(floor(want));
            if ticks < u.min_ticks {
                fail(2u, rate);
                ticks = u.min_ticks;
            }
        }
    }
    clock.dt_prev = clock.dt;
    clock.dt = f32(ticks) * u.tick;
    clock.rate = rate;
    let lo = clock.ticks_lo + ticks;
    clock.ticks_hi += select(0u, 1u, lo < ticks);
    clock.ticks_lo = lo;
}
