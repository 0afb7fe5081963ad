// Angiogenesis: parameters and helpers shared by the field and tip kernels.
// Host side: crates/model/src/angiogenesis/uniforms.rs (AngioUniforms; crates/model/tests/layouts.rs
// checks the layouts match).

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
    dims: u32,            // 2 for the 2D model (nz = 1), else 3
    branch_density: f32,  // n_b of the density condition (0: off)
    trials_per_age: f32,  // 1/psi (0 when psi = 0: a branching trial every step)
    tumour: u32,          // 0: face at x = Lx; 1: sphere of radius 0.1 at (Lx, Ly/2, Lz/2)
    h: f32,
    walk_events: f32,     // L: mean number of events per tip per step of the tips' walk
    discrete: u32,        // 1: A&C's discrete coupling (fields_discrete.wgsl); 0: continuous n
    capture: u32,         // 1: a tip meets a trail also on the face neighbours of its site
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
const C_OCCUPIED: u32 = 7u;

// Where tip t's start site and number of moves of this step lie in the tip passes' `branch`
// buffer (layout in tips_move.wgsl): after the 2T wishes and ranks, G group totals and G + 1
// offsets and count, T = max_tips, G = T/64 groups.
fn walk_at(p: AngioParams, t: u32) -> u32 {
    return 2u * p.max_tips + 2u * ((p.max_tips + 63u) / 64u) + 1u + 2u * t;
}

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

// A site's index, its six neighbours' indices (the site itself where the neighbour would be
// outside the grid: no-flux) and which neighbours are inside (lo: -axis side, hi: +axis side).
struct Neighbours {
    i: u32, xm: u32, xp: u32, ym: u32, yp: u32, zm: u32, zp: u32,
    lo: vec3<bool>,
    hi: vec3<bool>,
}

fn neighbours(p: AngioParams, x: u32, y: u32, z: u32) -> Neighbours {
    let i = site_index(p, x, y, z);
    let sy = p.nx;
    let sz = p.nx * p.ny;
    let lo = vec3<bool>(x > 0u, y > 0u, z > 0u);
    let hi = vec3<bool>(x + 1u < p.nx, y + 1u < p.ny, z + 1u < p.nz);
    return Neighbours(
        i,
        select(i, i - 1u, lo.x), select(i, i + 1u, hi.x),
        select(i, i - sy, lo.y), select(i, i + sy, hi.y),
        select(i, i - sz, lo.z), select(i, i + sz, hi.z),
        lo, hi,
    );
}

// Whether site i lies in the tumour: the x = Lx face, or the sphere of radius 0.1 centred at
// (Lx, Ly/2, Lz/2). CPU twin: uniforms.rs (in_tumour).
fn in_tumour(p: AngioParams, i: u32) -> bool {
    let q = site_coords(p, i);
    if p.tumour == 0u {
        return q.x + 1u == p.nx;
    }
    let dx = f32(p.nx - 1u - q.x) * p.h;
    let dy = 0.5 * p.h * (f32(2u * q.y) - f32(p.ny - 1u));
    let dz = 0.5 * p.h * (f32(2u * q.z) - f32(p.nz - 1u));
    return dx * dx + dy * dy + dz * dz <= 0.01;
}

fn chi(p: AngioParams, c: f32) -> f32 {
    return p.chi0 / (1.0 + p.alpha * c);
}

// c and f at a site and its six neighbours (-x,+x,-y,+y,-z,+z; a neighbour outside the grid
// is the site itself). Plain fields, not arrays: dynamically indexed local arrays end up in
// slow local memory on some GPUs.
struct Stencil {
    c0: f32, cxm: f32, cxp: f32, cym: f32, cyp: f32, czm: f32, czp: f32,
    f0: f32, fxm: f32, fxp: f32, fym: f32, fyp: f32, fzm: f32, fzp: f32,
}

// The coefficients of the explicit scheme (seed eq. 4 in 3D) at a site:
//   P(-axis) = r - a T, P(+axis) = r + a T, T = chi(c) dc + rho df (undivided central differences),
//   P0 = 1 - 2 d r + a alpha chi/(1 + alpha c) |dc|^2 - (k/h^2)(chi lap c + rho lap f),
// in d = p.dims dimensions (a 2D grid's z differences are 0: its z neighbours are the site),
// r = k D / h^2, a = k / (4 h^2). Returned as (P0, Tx, Ty, Tz). CPU twin: cpu.rs (coefficients).
fn coefficients(p: AngioParams, s: Stencil) -> vec4<f32> {
    let dcx = s.cxp - s.cxm;
    let dcy = s.cyp - s.cym;
    let dcz = s.czp - s.czm;
    let dfx = s.fxp - s.fxm;
    let dfy = s.fyp - s.fym;
    let dfz = s.fzp - s.fzm;
    let lapc = (s.cxp + s.cxm) + (s.cyp + s.cym) + (s.czp + s.czm) - 6.0 * s.c0;
    let lapf = (s.fxp + s.fxm) + (s.fyp + s.fym) + (s.fzp + s.fzm) - 6.0 * s.f0;
    let ch = chi(p, s.c0);
    let r = p.k * p.d * p.inv_h2;
    let a = 0.25 * p.k * p.inv_h2;
    let kh = p.k * p.inv_h2;
    let grad2 = dcx * dcx + dcy * dcy + dcz * dcz;
    let p0 = 1.0 - f32(2u * p.dims) * r + a * p.alpha * ch / (1.0 + p.alpha * s.c0) * grad2 - kh * (ch * lapc + p.rho * lapf);
    return vec4<f32>(p0, ch * dcx + p.rho * dfx, ch * dcy + p.rho * dfy, ch * dcz + p.rho * dfz);
}

// The move weights at a site: coefficients clipped at 0, no moves through the walls (lo/hi:
// whether the -axis/+axis neighbour is inside the grid). Order: stay, -x, +x, -y, +y, -z, +z.
// The density's update takes the weights over their sum (weight_sum) as the probabilities of
// A&C's per-step walk; the tips move at rates w/k (walk.wgsl).
struct Weights {
    w0: f32, wxm: f32, wxp: f32, wym: f32, wyp: f32, wzm: f32, wzp: f32,
}

fn clip_moves(p: AngioParams, q: vec4<f32>, lo: vec3<bool>, hi: vec3<bool>) -> Weights {
    let r = p.k * p.d * p.inv_h2;
    let a = 0.25 * p.k * p.inv_h2;
    return Weights(
        max(q.x, 0.0),
        select(0.0, max(r - a * q.y, 0.0), lo.x),
        select(0.0, max(r + a * q.y, 0.0), hi.x),
        select(0.0, max(r - a * q.z, 0.0), lo.y),
        select(0.0, max(r + a * q.z, 0.0), hi.y),
        select(0.0, max(r - a * q.w, 0.0), lo.z),
        select(0.0, max(r + a * q.w, 0.0), hi.z),
    );
}

fn weight_sum(w: Weights) -> f32 {
    return w.w0 + (w.wxm + w.wxp) + (w.wym + w.wyp) + (w.wzm + w.wzp);
}
