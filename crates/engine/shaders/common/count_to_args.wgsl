//!include common/dispatch.wgsl
// Scheduler pass (StepPlan::add_count_to_args): turns the item count a previous pass wrote into
// the indirect dispatch arguments of a later pass of GROUP_SIZE items per workgroup.

override GROUP_SIZE: u32 = 64u;
override MAX_GROUPS: u32 = 65535u;
override COUNT_WORD: u32 = 0u;
override ARGS_WORD: u32 = 0u;

@group(1) @binding(0) var<storage, read> counts: array<u32>;
@group(1) @binding(1) var<storage, read_write> args: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let a = dispatch_args(counts[COUNT_WORD], GROUP_SIZE, MAX_GROUPS);
    args[ARGS_WORD] = a.x;
    args[ARGS_WORD + 1u] = a.y;
    args[ARGS_WORD + 2u] = a.z;
}
