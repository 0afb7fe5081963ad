// The operations of the f32 reductions (common/reduce.wgsl, scheduler/segmented_reduce.wgsl):
// op 0 sum, 1 min, 2 max, with their identities (min: f32::MAX, max: -f32::MAX, as ReduceOp in
// crates/scheduler/src/reduce.rs).

fn reduce_identity(op: u32) -> f32 {
    if op == 1u { return 3.4028235e38; }
    if op == 2u { return -3.4028235e38; }
    return 0.0;
}

fn reduce_combine(op: u32, a: f32, b: f32) -> f32 {
    if op == 1u { return min(a, b); }
    if op == 2u { return max(a, b); }
    return a + b;
}
