//! The GPU's fixed-point time (`shaders/ssa/time.wgsl`) on the CPU: conversions from and to
//! time, and the shader's tick arithmetic, for the launchers and the CPU mirror.

/// Simulated time on the GPU: 64-bit fixed point, 2^32 ticks per time unit
/// (`shaders/ssa/time.wgsl`); times must be below `TIME_LIMIT`.
pub const TICKS_PER_UNIT: f64 = 4_294_967_296.0;
pub const TIME_LIMIT: f64 = 2_147_483_648.0;
/// The saturated "never" time (`TIME_NEVER`).
pub const TICKS_NEVER: u64 = 1 << 63;

/// A time below `TIME_LIMIT` in ticks, rounded to the nearest.
pub fn time_to_ticks(t: f64) -> u64 {
    (t * TICKS_PER_UNIT).round() as u64
}

/// A tick count as a time.
pub fn ticks_to_time(ticks: u64) -> f64 {
    ticks as f64 / TICKS_PER_UNIT
}

/// `ticks_from` of the shader: dt (f32) in ticks, truncated, saturating at `TICKS_NEVER`.
pub fn ticks_from_f32(dt: f32) -> u64 {
    // NaN and infinity saturate too.
    if dt.is_nan() || dt >= 2_147_483_648.0 {
        return TICKS_NEVER;
    }
    let whole = dt.floor();
    ((whole as u64) << 32) | ((dt - whole) * 4_294_967_296.0) as u32 as u64
}

/// `ticks_add` of the shader.
pub fn ticks_add(a: u64, b: u64) -> u64 {
    a.wrapping_add(b).min(TICKS_NEVER)
}
