// Mass-action kinetics shared by shaders/ssa/ensemble.wgsl and shaders/ssa/leap.wgsl; each is
// mirrored operation for operation on the CPU (crates/model/src/network).

// C(x, nu) for nu = 1 or 2, in f32.
fn binom(x: u32, nu: u32) -> f32 {
    let xf = f32(x);
    if nu == 1u {
        return xf;
    }
    return xf * max(xf - 1.0, 0.0) * 0.5;
}

// g_i of CGP 2006 from the species' highest-order type: 1 (first order), 2 (second order with
// two different species), 3 (second order 2S, needs two of itself).
fn g_factor(kind: u32, x: u32) -> f32 {
    if kind == 1u {
        return 1.0;
    }
    if kind == 3u && x > 1u {
        return 2.0 + 1.0 / (f32(x) - 1.0);
    }
    return 2.0;
}
