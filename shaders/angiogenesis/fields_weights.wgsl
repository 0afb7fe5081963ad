//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// Pass 1 of the field update: at every site, the sum W of the tips' clipped move weights
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
    let inside = array<bool, 6>(x > 0u, x + 1u < p.nx, y > 0u, y + 1u < p.ny, z > 0u, z + 1u < p.nz);
    let sy = p.nx;
    let sz = p.nx * p.ny;
    let ixm = select(i, i - 1u, inside[0]);
    let ixp = select(i, i + 1u, inside[1]);
    let iym = select(i, i - sy, inside[2]);
    let iyp = select(i, i + sy, inside[3]);
    let izm = select(i, i - sz, inside[4]);
    let izp = select(i, i + sz, inside[5]);
    let cn = array<f32, 6>(c_in[ixm], c_in[ixp], c_in[iym], c_in[iyp], c_in[izm], c_in[izp]);
    let fn_ = array<f32, 6>(f_in[ixm], f_in[ixp], f_in[iym], f_in[iyp], f_in[izm], f_in[izp]);
    w_out[i] = weight_sum(clip_moves(coefficients(p, c_in[i], f_in[i], cn, fn_), inside));
}
