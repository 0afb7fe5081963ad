// One explicit Euler step of Gray-Scott reaction-diffusion (Pearson 1993) on a periodic grid:
// u' = Du lap(u) - u v^2 + F (1 - u), v' = Dv lap(v) + u v^2 - (F + k) v, the 5-point
// Laplacian. One thread per cell; reads the current fields, writes the next (ping-pong).
// src/cpu.rs does the same f32 operations in the same order.

struct Params {
    nx: u32,
    ny: u32,
    du_h2: f32,
    dv_h2: f32,
    feed: f32,
    decay_v: f32,
    dt: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> u_in: array<f32>;
@group(0) @binding(2) var<storage, read> v_in: array<f32>;
@group(0) @binding(3) var<storage, read_write> u_out: array<f32>;
@group(0) @binding(4) var<storage, read_write> v_out: array<f32>;

// Workgroup size, set by the host (gpu.rs, WORKGROUP).
override WX: u32 = 16u;
override WY: u32 = 16u;

// Sum of the four neighbours minus four times the centre, neighbours added in pairs
// ((west + east) + (south + north)).
fn laplacian(w: f32, e: f32, s: f32, n: f32, c: f32) -> f32 {
    return ((w + e) + (s + n)) - 4.0 * c;
}

@compute @workgroup_size(WX, WY, 1)
fn gray_scott_step(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= p.nx || id.y >= p.ny) {
        return;
    }
    let x = id.x;
    let y = id.y;
    // Periodic neighbours, without a modulo of a negative number.
    let xw = select(x - 1u, p.nx - 1u, x == 0u);
    let xe = select(x + 1u, 0u, x + 1u == p.nx);
    let ys = select(y - 1u, p.ny - 1u, y == 0u);
    let yn = select(y + 1u, 0u, y + 1u == p.ny);
    let i = y * p.nx + x;
    let iw = y * p.nx + xw;
    let ie = y * p.nx + xe;
    let is = ys * p.nx + x;
    let in_ = yn * p.nx + x;

    let uc = u_in[i];
    let vc = v_in[i];
    let lap_u = laplacian(u_in[iw], u_in[ie], u_in[is], u_in[in_], uc);
    let lap_v = laplacian(v_in[iw], v_in[ie], v_in[is], v_in[in_], vc);
    let uvv = (uc * vc) * vc;
    let du = (p.du_h2 * lap_u - uvv) + p.feed * (1.0 - uc);
    let dv = (p.dv_h2 * lap_v + uvv) - p.decay_v * vc;
    u_out[i] = uc + p.dt * du;
    v_out[i] = vc + p.dt * dv;
}
