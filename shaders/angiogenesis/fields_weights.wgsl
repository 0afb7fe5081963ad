//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// Pass 1 of the field update: at every site, the sum W of the tips' clipped move weights (-1
// where all weights are 0)
// (common.wgsl: coefficients, clip_moves). fields.wgsl divides the neighbours' weights by it, so
// that the density update is the forward equation of the tips' random walk.

override WX: u32 = 64u;
override WY: u32 = 4u;
override WZ: u32 = 1u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> f_in: array<f32>;
@group(1) @binding(2) var<storage, read> c_in: array<f32>;
@group(1) @binding(3) var<storage, read_write> w_out: array<f32>;

@compute @workgroup_size(WX, WY, WZ)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    let z = gid.z;
    if x >= p.nx || y >= p.ny || z >= p.nz {
        return;
    }
    let i = site_index(p, x, y, z);
    let lo = vec3<bool>(x > 0u, y > 0u, z > 0u);
    let hi = vec3<bool>(x + 1u < p.nx, y + 1u < p.ny, z + 1u < p.nz);
    let sy = p.nx;
    let sz = p.nx * p.ny;
    let ixm = select(i, i - 1u, lo.x);
    let ixp = select(i, i + 1u, hi.x);
    let iym = select(i, i - sy, lo.y);
    let iyp = select(i, i + sy, hi.y);
    let izm = select(i, i - sz, lo.z);
    let izp = select(i, i + sz, hi.z);
    let st = Stencil(
        c_in[i], c_in[ixm], c_in[ixp], c_in[iym], c_in[iyp], c_in[izm], c_in[izp],
        f_in[i], f_in[ixm], f_in[ixp], f_in[iym], f_in[iyp], f_in[izm], f_in[izp],
    );
    // W > 0 in exact arithmetic (cpu.rs: weight_sum_is_positive_for_rough_fields says why). As a
    // guard, W <= 0 is stored as -1: the site keeps its density and gives no outflow.
    let w = weight_sum(clip_moves(p, coefficients(p, st), lo, hi));
    w_out[i] = select(w, -1.0, w <= 0.0);
}
