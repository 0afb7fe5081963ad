//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include common/rng.wgsl
//!include epidermis/gene_common.wgsl
// Division, after grow.wgsl and the exclusive scan of its flags (ranks, total):
// - `divide` (one thread per cell): a flagged cell c ranks its 40 elements by their projection
//   on an axis (minimum-image offsets from its first element; ties by slot); the lower 20
//   stay in slots 0..19 of c in rank order, the upper 20 go to slots 0..19 of cell
//   cells + ranks[c]. Plane (g.spindle = 0): the axis is g.normal, all the new cell's elements
//   PLAIN, c's lowest a ADHESIVE (a: the mother's adhesive elements), the rest PLAIN. Spindle:
//   the axis drawn per division (spindle_axis), the half holding more adhesive elements (c's
//   on a tie) keeps its types, the other half PLAIN. Both daughters get half of N, D, B, O1,
//   O2, M (c keeps its A until the next centres pass, the new cell has none). Nothing divides
//   when the new cells would not fit max_cells.
// - `commit` (one thread): adds the divisions to Cells and Divisions, or the refused ones to
//   Overflow. A pass of its own because `divide` reads Cells.
// CPU reference: growth.rs (divide).

override WG: u32 = 64u;

@group(1) @binding(0) var<uniform> g: GrowthUniforms;
@group(1) @binding(1) var<storage, read_write> counters: array<u32>;
@group(1) @binding(2) var<storage, read> flags: array<u32>;
@group(1) @binding(3) var<storage, read> ranks: array<u32>;
@group(1) @binding(4) var<storage, read> total: array<u32>;
@group(1) @binding(5) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(6) var<storage, read_write> counts: array<u32>;
@group(1) @binding(7) var<storage, read_write> genes: array<vec4<f32>>;

const SPINDLE_STREAM: u32 = 2u;
const SPINDLE_DRAWS: u32 = 8u;
const SPINDLE_HALF: i32 = 2048;

// The division axis of cell c at this step, uniform over directions: the first of up to
// SPINDLE_DRAWS integer vectors in the cube that lies in its inscribed ball (integers: the CPU
// makes the same choice). CPU reference: growth.rs (spindle_axis).
fn spindle_axis(c: u32) -> vec3<f32> {
    var v = vec3<i32>(0);
    for (var k = 0u; k < SPINDLE_DRAWS; k++) {
        let w = rng_u32x4(g.seed, step_info.step, c, SPINDLE_STREAM + k);
        v = vec3<i32>(vec3<u32>(w.x >> 20u, w.y >> 20u, w.z >> 20u)) - vec3<i32>(SPINDLE_HALF);
        let r2 = v.x * v.x + v.y * v.y + v.z * v.z;
        if r2 > 0 && r2 <= SPINDLE_HALF * SPINDLE_HALF {
            break;
        }
    }
    return vec3<f32>(v);
}

fn fits(cells: u32, dividing: u32) -> bool {
    return dividing <= g.max_cells - min(cells, g.max_cells);
}

@compute @workgroup_size(WG)
fn divide(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    let cells = counters[COUNTER_CELLS];
    if c >= cells || flags[c] == 0u || !fits(cells, total[0]) {
        return;
    }
    let first = c * MAX_ELEMENTS;
    let daughter = (cells + ranks[c]) * MAX_ELEMENTS;
    var e: array<vec4<f32>, 40>;
    var proj: array<f32, 40>;
    var ranks: array<u32, 40>;
    let axis = select(g.normal, spindle_axis(c), g.spindle != 0u);
    let p0 = pos[first];
    var adhesive = 0u;
    for (var k = 0u; k < MAX_ELEMENTS; k++) {
        let p = pos[first + k];
        e[k] = p;
        adhesive += u32(p.w == ADHESIVE);
        let d = vec3<f32>(min_image(p.x - p0.x, g.lx), min_image(p.y - p0.y, g.ly), p.z - p0.z);
        proj[k] = axis.x * d.x + axis.y * d.y + axis.z * d.z;
    }
    var lower = 0u;
    for (var k = 0u; k < MAX_ELEMENTS; k++) {
        var rank = 0u;
        for (var j = 0u; j < MAX_ELEMENTS; j++) {
            if proj[j] < proj[k] || (proj[j] == proj[k] && j < k) {
                rank += 1u;
            }
        }
        ranks[k] = rank;
        lower += u32(e[k].w == ADHESIVE && rank < DAUGHTER_ELEMENTS);
    }
    let keeps_lower = lower >= adhesive - lower;
    for (var k = 0u; k < MAX_ELEMENTS; k++) {
        let rank = ranks[k];
        let in_lower = rank < DAUGHTER_ELEMENTS;
        var kind = PLAIN;
        if g.spindle == 0u {
            kind = select(PLAIN, ADHESIVE, rank < min(adhesive, DAUGHTER_ELEMENTS));
        } else if in_lower == keeps_lower {
            kind = e[k].w;
        }
        if in_lower {
            pos[first + rank] = vec4<f32>(e[k].xyz, kind);
        } else {
            pos[daughter + rank - DAUGHTER_ELEMENTS] = vec4<f32>(e[k].xyz, kind);
        }
    }
    for (var k = DAUGHTER_ELEMENTS; k < MAX_ELEMENTS; k++) {
        pos[first + k] = vec4<f32>(0.0);
    }
    counts[c] = DAUGHTER_ELEMENTS;
    counts[daughter / MAX_ELEMENTS] = DAUGHTER_ELEMENTS;
    let a = genes[2u * c] * 0.5;
    let b = genes[2u * c + 1u];
    let d = daughter / MAX_ELEMENTS;
    genes[2u * d] = a;
    genes[2u * d + 1u] = vec4<f32>(b.x * 0.5, b.y * 0.5, 0.0, 0.0);
    genes[2u * c] = a;
    genes[2u * c + 1u] = vec4<f32>(b.x * 0.5, b.y * 0.5, b.z, 0.0);
}

@compute @workgroup_size(1)
fn commit() {
    let dividing = total[0];
    let cells = counters[COUNTER_CELLS];
    if fits(cells, dividing) {
        counters[COUNTER_CELLS] = cells + dividing;
        counters[COUNTER_DIVISIONS] += dividing;
    } else {
        counters[COUNTER_OVERFLOW] += dividing;
    }
}
