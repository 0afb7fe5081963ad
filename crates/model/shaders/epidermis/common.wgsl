//!fragment
// Epidermis mechanics: parameters and force law shared by the gather, reorder and force kernels.
// Host side: crates/model/src/epidermis/uniforms.rs (EpiUniforms; crates/model/tests/layouts.rs
// checks the layouts match). CPU twin of the functions: crates/model/src/epidermis/cpu.rs.
// Includers declare `params: EpiParams`.

// Slots per cell (state.rs MAX_ELEMENTS): cell c owns slots c * 40 ..
const MAX_ELEMENTS: u32 = 40u;
const ADHESIVE: f32 = 1.0;
// Index of the element count in `counters` (state.rs Counter::Elements).
const COUNTER_ELEMENTS: u32 = 1u;

// f(r) = a e^(-r inv_xi1) - b e^(-r inv_xi2): the force -V'(r) of a Morse potential.
struct MorseForce {
    a: f32,
    inv_xi1: f32,
    b: f32,
    inv_xi2: f32,
}

struct EpiParams {
    lx: f32,
    ly: f32,
    inv_lx: f32,
    inv_ly: f32,
    dt: f32,
    half_dt: f32,
    inter_range2: f32,  // square of the intercellular cutoff
    max_cells: u32,
    intra: MorseForce,
    inter: MorseForce,
    membrane: MorseForce,
    bins_x: u32,
    bins_y: u32,
    bins_z: u32,
    intra_range2: f32,  // square of the intracellular cutoff
}

fn morse_force(m: MorseForce, r: f32) -> f32 {
    return m.a * exp(-r * m.inv_xi1) - m.b * exp(-r * m.inv_xi2);
}

// Separation with the minimum image in x and y (multiplications by the inverse period, as the
// CPU twin: GPU division need not be correctly rounded).
fn separation(pi: vec3<f32>, pj: vec3<f32>) -> vec3<f32> {
    let d = pi - pj;
    return vec3<f32>(
        d.x - params.lx * floor(d.x * params.inv_lx + 0.5),
        d.y - params.ly * floor(d.y * params.inv_ly + 0.5),
        d.z,
    );
}

// x wrapped into [0, l).
fn wrap_axis(x: f32, l: f32, inv_l: f32) -> f32 {
    var w = x - l * floor(x * inv_l);
    w = select(w, w + l, w < 0.0);
    return select(w, 0.0, w >= l);
}

// p + h f, wrapped in x and y, floored at z = 0; the type (w) kept.
fn advance(p: vec4<f32>, h: f32, f: vec3<f32>) -> vec4<f32> {
    return vec4<f32>(
        wrap_axis(p.x + h * f.x, params.lx, params.inv_lx),
        wrap_axis(p.y + h * f.y, params.ly, params.inv_ly),
        max(p.z + h * f.z, 0.0),
        p.w,
    );
}

// Adds the intracellular pull or push of pj on pi, within range only.
fn add_intra(f: ptr<function, vec3<f32>>, pi: vec3<f32>, pj: vec3<f32>) {
    let d = separation(pi, pj);
    let r2 = dot(d, d);
    if r2 > 0.0 && r2 < params.intra_range2 {
        let r = sqrt(r2);
        *f += (morse_force(params.intra, r) / r) * d;
    }
}

// Adds the intercellular push (core) or pull (adhesion) of pj on pi, within range only.
fn add_inter(f: ptr<function, vec3<f32>>, pi: vec3<f32>, pj: vec3<f32>) {
    let d = separation(pi, pj);
    let r2 = dot(d, d);
    if r2 > 0.0 && r2 < params.inter_range2 {
        let r = sqrt(r2);
        *f += (morse_force(params.inter, r) / r) * d;
    }
}

// The membrane's pull along z on an element at height z >= 0, if it is adhesive.
fn membrane_force(p: vec4<f32>) -> f32 {
    return select(0.0, morse_force(params.membrane, p.z), p.w == ADHESIVE);
}
