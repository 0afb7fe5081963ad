//!include common/step.wgsl
// Benchmark reference: the plain 7-point diffusion update of one field, u' = u + r lap u with
// no-flux walls (8 bytes per cell: read u, write u). The same kernel as
// benches/reference/stencil7.cu, so wgpu and CUDA can be compared on identical work.

override WX: u32 = 64u;
override WY: u32 = 4u;
override WZ: u32 = 1u;

struct Grid {
    nx: u32,
    ny: u32,
    nz: u32,
    r: f32,
}

@group(1) @binding(0) var<uniform> g: Grid;
@group(1) @binding(1) var<storage, read> u_in: array<f32>;
@group(1) @binding(2) var<storage, read_write> u_out: array<f32>;

@compute @workgroup_size(WX, WY, WZ)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    let z = gid.z;
    if x >= g.nx || y >= g.ny || z >= g.nz {
        return;
    }
    let sy = g.nx;
    let sz = g.nx * g.ny;
    let i = x + sy * y + sz * z;
    let c = u_in[i];
    let xm = select(c, u_in[i - 1u], x > 0u);
    let xp = select(c, u_in[i + 1u], x + 1u < g.nx);
    let ym = select(c, u_in[i - sy], y > 0u);
    let yp = select(c, u_in[i + sy], y + 1u < g.ny);
    let zm = select(c, u_in[i - sz], z > 0u);
    let zp = select(c, u_in[i + sz], z + 1u < g.nz);
    u_out[i] = c + g.r * ((xm + xp) + (ym + yp) + (zm + zp) - 6.0 * c);
}
