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
