//!include common/step.wgsl
//!include common/expr.wgsl
// Test kernel for the expression compiler (crates/model/src/ssa/gpu_expr.rs): the test
// generates `eval_all(i)`, which evaluates its expressions at input state i (INPUTS floats
// from `inputs`) and writes them to `out`, and checks them against `Expr::eval`.

@group(1) @binding(0) var<storage, read> inputs: array<f32>;
@group(1) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    eval_all(gid.x);
}

//!generated begin exprs
const INPUTS: u32 = 1u;
const OUTPUTS: u32 = 1u;

fn eval_all(i: u32) {
    if (i + 1u) * OUTPUTS > arrayLength(&out) {
        return;
    }
    let x0 = inputs[i * INPUTS];
    out[i * OUTPUTS] = m_pow(x0, 2.0);
}
//!generated end exprs
