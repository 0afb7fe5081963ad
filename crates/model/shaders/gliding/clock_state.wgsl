// The outer step's clock (crates/model/src/gliding/clock.rs, `Clock`): written once per step by
// clock.wgsl's `advance_clock` (after the velocities, before the filaments and the motors),
// read by the filament and motor passes for the step's dt.
struct Clock {
    // dt_n: the step under way (after `advance_clock`), else the last one.
    dt: f32,
    // dt_(n-1): the step before (0 before the second step).
    dt_prev: f32,
    // The step's largest Courant rate, |Ux|/dx + |Uy|/dy + |Omega|/dtheta.
    rate: f32,
    // 0, or why a step could not be taken (the first such step): 1 a non-finite rate, 2 a dt
    // below the floor. The host stops the run at the next observation.
    failure: u32,
    // The time after the step under way in ticks (a dt is a whole number of them): a 64-bit
    // integer, low and high words, so it sums exactly.
    ticks_lo: u32,
    ticks_hi: u32,
    failed_step: u32,
    failed_rate: f32,
}
