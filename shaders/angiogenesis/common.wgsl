// Angiogenesis: parameters and helpers shared by the field and tip kernels.
// Host side: crates/model/src/angiogenesis/uniforms.rs (AngioUniforms) — keep the two in step.

struct AngioParams {
    nx: u32,
    ny: u32,
    nz: u32,
    ncells: u32,
    k: f32,        // time step
    d: f32,        // random motility D
    inv_h2: f32,   // 1 / h^2
    chi0: f32,
    alpha: f32,
    rho: f32,
    beta: f32,
    gamma: f32,
    eta: f32,
    branch_age: f32,
    max_tips: u32,
    max_segments: u32,
    branching: u32,
    anastomosis: u32,
    _pad1: u32,
    _pad2: u32,
}

// Occupancy value of a site no sprout has visited.
const FREE: u32 = 0xFFFFFFFFu;

// Counter slots (crates/model/src/angiogenesis/state.rs, Counter).
const C_TIPS: u32 = 0u;
const C_SEGMENTS: u32 = 1u;
const C_ANASTOMOSES: u32 = 2u;
const C_BRANCHES: u32 = 3u;
const C_REACHED: u32 = 4u;
const C_SEGMENT_OVERFLOW: u32 = 5u;
const C_TIP_OVERFLOW: u32 = 6u;

struct Tip {
    site: u32,
    age: f32,
    alive: u32,
    parent: u32,
}

fn site_index(p: AngioParams, x: u32, y: u32, z: u32) -> u32 {
    return x + p.nx * (y + p.ny * z);
}

fn site_coords(p: AngioParams, i: u32) -> vec3<u32> {
    let x = i % p.nx;
    let yz = i / p.nx;
    return vec3<u32>(x, yz % p.ny, yz / p.ny);
}

fn chi(p: AngioParams, c: f32) -> f32 {
    return p.chi0 / (1.0 + p.alpha * c);
}

// The seven coefficients of the explicit scheme at a site, from the 7-point stencils of c and f
// (cn, fn: values at -x,+x,-y,+y,-z,+z): [P0, -x, +x, -y, +y, -z, +z].
//   P(-axis) = r - a T, P(+axis) = r + a T, T = chi(c) dc + rho df (undivided central differences),
//   P0 = 1 - 6 r + a alpha chi/(1 + alpha c) |dc|^2 - (k/h^2)(chi lap c + rho lap f),
// r = k D / h^2, a = k / (4 h^2). CPU twin: cpu.rs (coefficients).
fn coefficients(p: AngioParams, c0: f32, f0: f32, cn: array<f32, 6>, fn_: array<f32, 6>) -> array<f32, 7> {
    let dcx = cn[1] - cn[0];
    let dcy = cn[3] - cn[2];
    let dcz = cn[5] - cn[4];
    let dfx = fn_[1] - fn_[0];
    let dfy = fn_[3] - fn_[2];
    let dfz = fn_[5] - fn_[4];
    let lapc = (cn[1] + cn[0]) + (cn[3] + cn[2]) + (cn[5] + cn[4]) - 6.0 * c0;
    let lapf = (fn_[1] + fn_[0]) + (fn_[3] + fn_[2]) + (fn_[5] + fn_[4]) - 6.0 * f0;
    let ch = chi(p, c0);
    let r = p.k * p.d * p.inv_h2;
    let a = 0.25 * p.k * p.inv_h2;
    let kh = p.k * p.inv_h2;
    let tx = ch * dcx + p.rho * dfx;
    let ty = ch * dcy + p.rho * dfy;
    let tz = ch * dcz + p.rho * dfz;
    let grad2 = dcx * dcx + dcy * dcy + dcz * dcz;
    let p0 = 1.0 - 6.0 * r + a * p.alpha * ch / (1.0 + p.alpha * c0) * grad2 - kh * (ch * lapc + p.rho * lapf);
    return array<f32, 7>(p0, r - a * tx, r + a * tx, r - a * ty, r + a * ty, r - a * tz, r + a * tz);
}

// The tips' move weights at a site: the coefficients clipped at 0, with moves out of the grid
// set to 0 (no-flux walls). Probabilities are the weights divided by their sum, weight_sum().
fn clip_moves(q: array<f32, 7>, inside: array<bool, 6>) -> array<f32, 7> {
    var out = q;
    out[0] = max(out[0], 0.0);
    for (var d = 1u; d < 7u; d++) {
        out[d] = select(0.0, max(out[d], 0.0), inside[d - 1u]);
    }
    return out;
}

fn weight_sum(w: array<f32, 7>) -> f32 {
    return w[0] + (w[1] + w[2]) + (w[3] + w[4]) + (w[5] + w[6]);
}
