//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// One explicit step of the continuous model (A&C 1998; Darbyshire 2015 eq. 4, in 3D):
//   n' = P0 n + sum over axes of  n(+1) (r - a T) + n(-1) (r + a T),
//   T = chi(c) dc + rho df  (undivided central differences), r = k D / h^2, a = k / (4 h^2),
//   P0 = 1 - 6 r + a alpha chi(c)/(1 + alpha c) |dc|^2 - (k/h^2)(chi(c) lap c + rho lap f),
//   f' = f + k (beta m - gamma m f),  c' = c - k eta m c,
// with m = n, or m = 1 at sites a sprout occupies (the tip cells' feedback on f and c).
// No-flux boundaries: a neighbour outside the grid is replaced by the site itself, which makes
// the diffusive part conserve sum(n) exactly. CPU reference: crates/model/src/angiogenesis/cpu.rs.

override WX: u32 = 64u;
override WY: u32 = 4u;
override WZ: u32 = 1u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> n_in: array<f32>;
@group(1) @binding(2) var<storage, read> f_in: array<f32>;
@group(1) @binding(3) var<storage, read> c_in: array<f32>;
@group(1) @binding(4) var<storage, read> occ: array<u32>;
@group(1) @binding(5) var<storage, read_write> n_out: array<f32>;
@group(1) @binding(6) var<storage, read_write> f_out: array<f32>;
@group(1) @binding(7) var<storage, read_write> c_out: array<f32>;

@compute @workgroup_size(WX, WY, WZ)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    let z = gid.z;
    if x >= p.nx || y >= p.ny || z >= p.nz {
        return;
    }
    let i = site_index(p, x, y, z);
    let sx = 1u;
    let sy = p.nx;
    let sz = p.nx * p.ny;
    // Neighbour indices with no-flux clamping.
    let ixm = select(i - sx, i, x == 0u);
    let ixp = select(i + sx, i, x + 1u == p.nx);
    let iym = select(i - sy, i, y == 0u);
    let iyp = select(i + sy, i, y + 1u == p.ny);
    let izm = select(i - sz, i, z == 0u);
    let izp = select(i + sz, i, z + 1u == p.nz);

    let n0 = n_in[i];
    let c0 = c_in[i];
    let f0 = f_in[i];
    let dcx = c_in[ixp] - c_in[ixm];
    let dcy = c_in[iyp] - c_in[iym];
    let dcz = c_in[izp] - c_in[izm];
    let dfx = f_in[ixp] - f_in[ixm];
    let dfy = f_in[iyp] - f_in[iym];
    let dfz = f_in[izp] - f_in[izm];
    let lapc = (c_in[ixp] + c_in[ixm]) + (c_in[iyp] + c_in[iym]) + (c_in[izp] + c_in[izm]) - 6.0 * c0;
    let lapf = (f_in[ixp] + f_in[ixm]) + (f_in[iyp] + f_in[iym]) + (f_in[izp] + f_in[izm]) - 6.0 * f0;

    let ch = chi(p, c0);
    let r = p.k * p.d * p.inv_h2;
    let a = 0.25 * p.k * p.inv_h2;
    let kh = p.k * p.inv_h2;
    let tx = ch * dcx + p.rho * dfx;
    let ty = ch * dcy + p.rho * dfy;
    let tz = ch * dcz + p.rho * dfz;
    let grad2 = dcx * dcx + dcy * dcy + dcz * dcz;
    let p0 = 1.0 - 6.0 * r + a * p.alpha * ch / (1.0 + p.alpha * c0) * grad2 - kh * (ch * lapc + p.rho * lapf);

    var n1 = p0 * n0;
    n1 = n1 + n_in[ixp] * (r - a * tx) + n_in[ixm] * (r + a * tx);
    n1 = n1 + n_in[iyp] * (r - a * ty) + n_in[iym] * (r + a * ty);
    n1 = n1 + n_in[izp] * (r - a * tz) + n_in[izm] * (r + a * tz);

    let m = select(n0, 1.0, occ[i] != FREE);
    n_out[i] = n1;
    f_out[i] = f0 + p.k * (p.beta * m - p.gamma * m * f0);
    c_out[i] = c0 - p.k * p.eta * m * c0;
}
