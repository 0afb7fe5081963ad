//!include common/step.wgsl
// Test kernel: next = 0.5 * (current[i-1] + current[i+1]) + step, clamped at the ends; checks
// that ping-pong pairs swap every step and that each step sees its own step number.

override WG: u32 = 64u;

@group(1) @binding(0) var<storage, read> current: array<f32>;
@group(1) @binding(1) var<storage, read_write> next: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&current);
    let i = gid.x;
    if i >= n {
        return;
    }
    let l = current[max(i, 1u) - 1u];
    let r = current[min(i + 1u, n - 1u)];
    next[i] = 0.5 * (l + r) + f32(step_info.step);
}
