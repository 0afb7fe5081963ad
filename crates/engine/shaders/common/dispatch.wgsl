// Dispatch sizes computed on the GPU, for passes whose item count a previous pass wrote
// (crates/scheduler/src/dispatch.rs holds the CPU twin of `dispatch_args`).

fn div_ceil_u32(a: u32, b: u32) -> u32 {
    // Not (a + b - 1) / b, which overflows for counts near 2^32.
    return a / b + select(0u, 1u, a % b != 0u);
}

// Workgroup counts covering `count` items at `group_size` items per workgroup: along x until
// `max_groups`, then rows spread over y, then z; each axis clamped to `max_groups`.
fn dispatch_args(count: u32, group_size: u32, max_groups: u32) -> vec3<u32> {
    let size = max(group_size, 1u);
    let cap = max(max_groups, 1u);
    let groups = div_ceil_u32(count, size);
    if groups == 0u {
        return vec3<u32>(0u);
    }
    let x = min(groups, cap);
    let rows = div_ceil_u32(groups, x);
    let y = min(rows, cap);
    let z = min(div_ceil_u32(rows, y), cap);
    return vec3<u32>(x, y, z);
}

// The item index of an invocation of a pass dispatched with `dispatch_args` and a workgroup of
// `group_size` x 1 x 1 (pass `@builtin(num_workgroups)` as `groups`). Past the count in the last
// row: compare with the count. Exact while the dispatch covers fewer than 2^32 items.
fn dispatch_index(gid: vec3<u32>, groups: vec3<u32>, group_size: u32) -> u32 {
    return gid.x + groups.x * group_size * (gid.y + groups.y * gid.z);
}
