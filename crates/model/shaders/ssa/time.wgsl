// Simulated time as a 64-bit fixed-point count of 2^-32 time units, vec2(hi, lo) of u32.
// Integer addition is exact and cannot be reassociated or contracted by a shader compiler:
// an f32 "double-single" (TwoSum) clock was tried first and Mesa's optimiser folded its error
// terms inside long loops, so time drifted by 0.02 after ~1400 events. Resolution 2.3e-10,
// range 2^31 time units (times beyond it saturate to TIME_NEVER). CPU twin:
// crates/model/src/ssa/gpu_time.rs (ticks_from_f32, time_to_ticks).

const TIME_NEVER: vec2<u32> = vec2<u32>(0x80000000u, 0u);

// dt >= 0 (f32) in ticks, truncated; NaN, infinity or >= 2^31 give TIME_NEVER.
fn ticks_from(dt: f32) -> vec2<u32> {
    if !(dt < 2147483648.0) {
        return TIME_NEVER;
    }
    let whole = floor(dt);
    return vec2<u32>(u32(whole), u32((dt - whole) * 4294967296.0));
}

// a + b, saturating at TIME_NEVER.
fn ticks_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.y + b.y;
    let hi = a.x + b.x + select(0u, 1u, lo < a.y);
    if hi >= TIME_NEVER.x {
        return TIME_NEVER;
    }
    return vec2<u32>(hi, lo);
}

fn ticks_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

// b - a in time units as f32, for b >= a.
fn ticks_diff(b: vec2<u32>, a: vec2<u32>) -> f32 {
    let hi = b.x - a.x - select(0u, 1u, b.y < a.y);
    return f32(hi) + f32(b.y - a.y) * (1.0 / 4294967296.0);
}
