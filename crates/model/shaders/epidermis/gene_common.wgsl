// Epidermis gene network and growth: the parameter blocks and helpers shared by centres.wgsl,
// genes.wgsl, grow.wgsl, divide.wgsl and active.wgsl. Host side:
// crates/model/src/epidermis/{genes,growth}.rs (GeneUniforms, GrowthUniforms; layouts checked
// by crates/model/tests/layouts.rs). Cell c owns element slots c * 40 .. c * 40 + counts[c];
// its genes are genes[2c] = (N, D, B, O1), genes[2c + 1] = (O2, M, A, 0).

struct GeneUniforms {
    ka: f32,
    kd: f32,
    tgf_beta: f32,
    dt: f32,
    // Decay rates in the genes layout: (N, D, B, O1), (O2, M, 0, 0).
    decay: array<vec4<f32>, 2>,
    // Hill tuples (a, b, c, n): HILL_BN .. HILL_OM.
    hill: array<vec4<f32>, 8>,
    lx: f32,
    ly: f32,
    neighbour_distance2: f32,
    max_cells: u32,
    // Bins per axis of the centre binning, and the height of one bin.
    bins: vec3<u32>,
    bin_z: f32,
}

struct GrowthUniforms {
    lx: f32,
    ly: f32,
    delta_threshold: f32,
    max_cells: u32,
    normal: vec3<f32>,
    // Elements from which a cell grows whatever its Delta.
    restriction_point: u32,
    // The run's seed (the spindle draws); 1: a spindle drawn per division, 0: normal.
    seed: vec2<u32>,
    spindle: u32,
    _pad: u32,
}

const HILL_BN: u32 = 0u;
const HILL_ON: u32 = 1u;
const HILL_ND: u32 = 2u;
const HILL_VO: u32 = 3u;
const HILL_GO: u32 = 4u;
const HILL_OV: u32 = 5u;
const HILL_AV: u32 = 6u;
const HILL_OM: u32 = 7u;

const MAX_ELEMENTS: u32 = 40u;
const DAUGHTER_ELEMENTS: u32 = 20u;
const ADHESIVE: f32 = 1.0;
const PLAIN: f32 = 0.0;

// Words of the counters buffer (state.rs, Counter).
const COUNTER_CELLS: u32 = 0u;
const COUNTER_ELEMENTS: u32 = 1u;
const COUNTER_DIVISIONS: u32 = 2u;
const COUNTER_ADDED: u32 = 3u;
const COUNTER_OVERFLOW: u32 = 4u;

// d wrapped to the nearest periodic image (for |d| < 3 l / 2).
fn min_image(d: f32, l: f32) -> f32 {
    if d > 0.5 * l {
        return d - l;
    }
    if d < -0.5 * l {
        return d + l;
    }
    return d;
}

// x wrapped into [0, l) (for -l <= x < 2 l).
fn wrap_into(x: f32, l: f32) -> f32 {
    if x < 0.0 {
        return x + l;
    }
    if x >= l {
        return x - l;
    }
    return x;
}
