//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// Pass 2 of the field update: one explicit step of the continuous model (A&C 1998; Darbyshire
// 2015 eq. 4 in 3D). The move weights are the coefficients of the explicit 7-point scheme
// (common.wgsl: coefficients), clipped at 0, with no moves through the walls; the probabilities
// are the weights over their sum W (fields_weights.wgsl). The density is updated as the forward
// equation of that random walk, which keeps sum(n) exactly (to rounding) and n >= 0 at any
// gradient, where the seed's gather form blows up next to the tips' sharp f and c trails:
//   n'(i) = n(i) P0(i)/W(i) + sum over neighbours j of n(j) P(j -> i)/W(j).
// With central differences, P(j -> i) = r +- a T(j), T = chi(c) dc + rho df along that axis.
// f and c: f' = f + k (beta m - gamma m f), c' = c - k eta m c, with m = n, or m = 1 at sites a
// sprout has occupied (the tip cells' feedback). CPU reference: cpu.rs (update_site).

override WX: u32 = 64u;
override WY: u32 = 4u;
override WZ: u32 = 1u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> n_in: array<f32>;
@group(1) @binding(2) var<storage, read> f_in: array<f32>;
@group(1) @binding(3) var<storage, read> c_in: array<f32>;
@group(1) @binding(4) var<storage, read> occ: array<u32>;
@group(1) @binding(5) var<storage, read> w_in: array<f32>;
@group(1) @binding(6) var<storage, read_write> n_out: array<f32>;
@group(1) @binding(7) var<storage, read_write> f_out: array<f32>;
@group(1) @binding(8) var<storage, read_write> c_out: array<f32>;

// Weight of the move from neighbour j toward i along one axis. `toward_plus`: i is on j's +side.
// jf: the site beyond j (away from i), clamped to j at the wall. i is always inside the grid.
fn inflow(j: u32, i: u32, jf: u32, toward_plus: bool) -> f32 {
    let cj = c_in[j];
    let dc = select(c_in[jf] - c_in[i], c_in[i] - c_in[jf], toward_plus);
    let df = select(f_in[jf] - f_in[i], f_in[i] - f_in[jf], toward_plus);
    let t = chi(p, cj) * dc + p.rho * df;
    let r = p.k * p.d * p.inv_h2;
    let a = 0.25 * p.k * p.inv_h2;
    let q = select(r - a * t, r + a * t, toward_plus);
    // w_in[j] < 0 marks a site with no possible move: then max(q, 0) is 0 and so is the inflow.
    return n_in[j] * (max(q, 0.0) / w_in[j]);
}

@compute @workgroup_size(WX, WY, WZ)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    let z = gid.z;
    if x >= p.nx || y >= p.ny || z >= p.nz {
        return;
    }
    let nb = neighbours(p, x, y, z);
    let i = nb.i;
    let sy = p.nx;
    let sz = p.nx * p.ny;
    let n0 = n_in[i];
    let c0 = c_in[i];
    let f0 = f_in[i];
    let st = Stencil(
        c0, c_in[nb.xm], c_in[nb.xp], c_in[nb.ym], c_in[nb.yp], c_in[nb.zm], c_in[nb.zp],
        f0, f_in[nb.xm], f_in[nb.xp], f_in[nb.ym], f_in[nb.yp], f_in[nb.zm], f_in[nb.zp],
    );
    let p0 = max(coefficients(p, st).x, 0.0);
    let w0 = w_in[i];
    var n1 = n0 * select(p0 / w0, 1.0, w0 < 0.0);
    // Neighbour on the -x side moves +x into i, and so on; beyond-neighbours clamp at the walls.
    if nb.lo.x {
        n1 = n1 + inflow(nb.xm, i, select(nb.xm, nb.xm - 1u, x > 1u), true);
    }
    if nb.hi.x {
        n1 = n1 + inflow(nb.xp, i, select(nb.xp, nb.xp + 1u, x + 2u < p.nx), false);
    }
    if nb.lo.y {
        n1 = n1 + inflow(nb.ym, i, select(nb.ym, nb.ym - sy, y > 1u), true);
    }
    if nb.hi.y {
        n1 = n1 + inflow(nb.yp, i, select(nb.yp, nb.yp + sy, y + 2u < p.ny), false);
    }
    if nb.lo.z {
        n1 = n1 + inflow(nb.zm, i, select(nb.zm, nb.zm - sz, z > 1u), true);
    }
    if nb.hi.z {
        n1 = n1 + inflow(nb.zp, i, select(nb.zp, nb.zp + sz, z + 2u < p.nz), false);
    }
    let m = select(n0, 1.0, occ[i] != FREE);
    n_out[i] = n1;
    f_out[i] = f0 + p.k * (p.beta * m - p.gamma * m * f0);
    c_out[i] = c0 - p.k * p.eta * m * c0;
}
