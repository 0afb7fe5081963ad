// Counter-based random numbers: Philox4x32-10 and Threefry4x32-20 (Salmon et al., SC'11,
// "Random123"). Threefry needs only adds, rotations and xors; Philox needs 32x32 -> 64-bit
// products, built here from 16-bit halves, so it costs about twice as much (engine/src/rng.rs).
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

fn rotl(x: u32, r: u32) -> u32 {
    return (x << r) | (x >> (32u - r));
}

// Threefry4x32 rounds 2k and 2k + 1: the even round mixes words (0, 1) and (2, 3) with rotations
// a, b, the odd one (0, 3) and (2, 1) with c, d.
fn threefry_two_rounds(v: vec4<u32>, a: u32, b: u32, c: u32, d: u32) -> vec4<u32> {
    var x = v;
    x.x += x.y;
    x.y = rotl(x.y, a) ^ x.x;
    x.z += x.w;
    x.w = rotl(x.w, b) ^ x.z;
    x.x += x.w;
    x.w = rotl(x.w, c) ^ x.x;
    x.z += x.y;
    x.y = rotl(x.y, d) ^ x.z;
    return x;
}

// Rounds 0-3 and 4-7 of the eight-round rotation schedule (Random123's R_32x4).
fn threefry_rounds_a(x: vec4<u32>) -> vec4<u32> {
    return threefry_two_rounds(threefry_two_rounds(x, 10u, 26u, 11u, 21u), 13u, 27u, 23u, 5u);
}

fn threefry_rounds_b(x: vec4<u32>) -> vec4<u32> {
    return threefry_two_rounds(threefry_two_rounds(x, 6u, 20u, 17u, 11u), 25u, 10u, 18u, 20u);
}

fn threefry4x32_20(counter: vec4<u32>, key: vec4<u32>) -> vec4<u32> {
    let k4 = 0x1BD11BDAu ^ key.x ^ key.y ^ key.z ^ key.w;
    // Key injection j after every fourth round adds (ks[j], .., ks[j + 3]) mod 5 and j.
    var x = counter + key;
    x = threefry_rounds_a(x) + vec4<u32>(key.y, key.z, key.w, k4 + 1u);
    x = threefry_rounds_b(x) + vec4<u32>(key.z, key.w, k4, key.x + 2u);
    x = threefry_rounds_a(x) + vec4<u32>(key.w, k4, key.x, key.y + 3u);
    x = threefry_rounds_b(x) + vec4<u32>(k4, key.x, key.y, key.z + 4u);
    x = threefry_rounds_a(x) + vec4<u32>(key.x, key.y, key.z, key.w + 5u);
    return x;
}

// Four independent 32-bit Threefry draws for one (seed, step, index, stream).
fn threefry_u32x4(seed: vec2<u32>, step: u32, index: u32, stream: u32) -> vec4<u32> {
    return threefry4x32_20(vec4<u32>(index, step, stream, 0u), vec4<u32>(seed, 0u, 0u));
}
