//!include common/step.wgsl
//!include common/rng.wgsl
// Test kernel: writes the four Philox (or, with THREEFRY, Threefry) words of (seed, step, index,
// stream 7) for every index, so the CPU twin can be compared bit for bit.

override WG: u32 = 64u;
override THREEFRY: bool = false;

@group(1) @binding(0) var<storage, read_write> words: array<vec4<u32>>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&words) {
        return;
    }
    if THREEFRY {
        words[i] = threefry_u32x4(step_seed(), step_info.step, i, 7u);
    } else {
        words[i] = rng_u32x4(step_seed(), step_info.step, i, 7u);
    }
}

