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
    let nb = neighbours(p, x, y, z);
    let st = Stencil(
        c_in[nb.i], c_in[nb.xm], c_in[nb.xp], c_in[nb.ym], c_in[nb.yp], c_in[nb.zm], c_in[nb.zp],
        f_in[nb.i], f_in[nb.xm], f_in[nb.xp], f_in[nb.ym], f_in[nb.yp], f_in[nb.zm], f_in[nb.zp],
    );
    // W > 0 in exact arithmetic (cpu.rs: weight_sum_is_positive_for_rough_fields says why). As a
    // guard, W <= 0 is stored as -1: the site keeps its density and gives no outflow.
    let w = weight_sum(clip_moves(p, coefficients(p, st), nb.lo, nb.hi));
    w_out[nb.i] = select(w, -1.0, w <= 0.0);
}
