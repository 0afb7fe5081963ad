//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// The field update of A&C 1998's discrete model (coupling "discrete"): the endothelial cells are
// the sprouts' trails, so the cell density is m = 1 at sites a sprout has occupied and 0
// elsewhere, and f and c change only there:
//   n' = m,  f' = f + k (beta m - gamma m f),  c' = c - k eta m c.
// The same f32 operations as fields.wgsl with m in place of its n (m = 0 leaves f and c as they
// are, bit for bit). No neighbour is read: the n equation enters only through the coefficients of
// the tips' moves (tips_move.wgsl). One thread per site. CPU reference: cpu.rs (discrete_site).

override WX: u32 = 64u;
override WY: u32 = 4u;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> f_in: array<f32>;
@group(1) @binding(2) var<storage, read> c_in: array<f32>;
@group(1) @binding(3) var<storage, read> occupied: array<u32>;
@group(1) @binding(4) var<storage, read_write> n_out: array<f32>;
@group(1) @binding(5) var<storage, read_write> f_out: array<f32>;
@group(1) @binding(6) var<storage, read_write> c_out: array<f32>;

@compute @workgroup_size(WX, WY, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= p.nx || gid.y >= p.ny || gid.z >= p.nz {
        return;
    }
    let i = site_index(p, gid.x, gid.y, gid.z);
    let m = select(0.0, 1.0, ((occupied[i >> 5u] >> (i & 31u)) & 1u) != 0u);
    let f = f_in[i];
    let c = c_in[i];
    n_out[i] = m;
    f_out[i] = f + p.k * (p.beta * m - p.gamma * m * f);
    c_out[i] = c - p.k * p.eta * m * c;
}
