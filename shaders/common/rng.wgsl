// Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11, "Random123").
// A draw is a pure function of (seed, step, index, stream): no per-thread state, so results do
// not depend on workgroup size, dispatch order or device count. The CPU twin is
// crates/engine/src/rng.rs and gives the same bits.

const PHILOX_M0: u32 = 0xD2511F53u;
const PHILOX_M1: u32 = 0xCD9E8D57u;
const PHILOX_W0: u32 = 0x9E3779B9u;
const PHILOX_W1: u32 = 0xBB67AE85u;

// Full 32x32 -> 64-bit product as (hi, lo); WGSL has no 64-bit integers.
fn philox_mulhilo(a: u32, b: u32) -> vec2<u32> {
    let a_lo = a & 0xFFFFu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xFFFFu;
    let b_hi = b >> 16u;
    let ll = a_lo * b_lo;
    let hl = a_hi * b_lo;
    let lh = a_lo * b_hi;
    let hh = a_hi * b_hi;
    let cross = (ll >> 16u) + (hl & 0xFFFFu) + lh;
    let hi = hh + (hl >> 16u) + (cross >> 16u);
    return vec2<u32>(hi, a * b);
}

fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = counter;
    var k = key;
    for (var round = 0u; round < 10u; round++) {
        let p0 = philox_mulhilo(PHILOX_M0, c.x);
        let p1 = philox_mulhilo(PHILOX_M1, c.z);
        c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
        k = k + vec2<u32>(PHILOX_W0, PHILOX_W1);
    }
    return c;
}

// Four independent 32-bit draws for one (seed, step, index, stream).
fn rng_u32x4(seed: vec2<u32>, step: u32, index: u32, stream: u32) -> vec4<u32> {
    return philox4x32_10(vec4<u32>(index, step, stream, 0u), seed);
}

// A uniform float in [0, 1) from the top 24 bits (exactly representable in f32).
fn rng_unit(x: u32) -> f32 {
    return f32(x >> 8u) * (1.0 / 16777216.0);
}
