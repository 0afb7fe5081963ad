//!include common/dispatch.wgsl
//!include epidermis/common.wgsl
// Mechanics, step 4 of a force evaluation: the force on each active element and the RK2 stage
// update. F_i = intracellular Morse over the other elements of i's cell within its range (by
// slot) + the intercellular Morse over elements of other cells within range + the membrane's pull
// along z on adhesive elements (common.wgsl). `forces` finds the intercellular pairs in the 27
// bins around the element's (one thread per element in bin order: spos, bin_of and offsets come
// from the binning, bin_of[k] the bin of sorted position k); `all_pairs` tries every active
// element (small systems, tests). MODE 0: stage 1, pos_mid = advance(pos, dt/2, F(pos));
// MODE 1: stage 2, pos = advance(pos, dt, F(pos_mid)); MODE 2: pos_mid = (F(pos), 0), for tests.
// Each thread writes only its own slot and reads only the buffer it does not write, and sums in
// a fixed order: results do not depend on the workgroup size.
// CPU twin: crates/model/src/epidermis/cpu.rs (forces, rk2_step).

override WG: u32 = 64u;
override MODE: u32 = 0u;

@group(1) @binding(0) var<uniform> params: EpiParams;
@group(1) @binding(1) var<storage, read> counters: array<u32>;
@group(1) @binding(2) var<storage, read> counts: array<u32>;
@group(1) @binding(3) var<storage, read> active_slots: array<u32>;
@group(1) @binding(4) var<storage, read> spos: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read> bin_of: array<u32>;
@group(1) @binding(6) var<storage, read> offsets: array<u32>;
@group(1) @binding(7) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(8) var<storage, read_write> pos_mid: array<vec4<f32>>;

// The position the forces are evaluated at.
fn source(slot: u32) -> vec3<f32> {
    if MODE == 1u {
        return pos_mid[slot].xyz;
    }
    return pos[slot].xyz;
}

fn intra_force(slot: u32, pi: vec3<f32>) -> vec3<f32> {
    let first = (slot / MAX_ELEMENTS) * MAX_ELEMENTS;
    let end = first + counts[slot / MAX_ELEMENTS];
    var f = vec3<f32>(0.0);
    for (var s = first; s < end; s++) {
        if s != slot {
            add_intra(&f, pi, source(s));
        }
    }
    return f;
}

// Adds the membrane term and writes the stage's result for `slot`.
fn finish(slot: u32, pi: vec3<f32>, force: vec3<f32>) {
    let base = pos[slot];
    var f = force;
    f.z += membrane_force(vec4<f32>(pi, base.w));
    if MODE == 0u {
        pos_mid[slot] = advance(base, params.half_dt, f);
    } else if MODE == 1u {
        pos[slot] = advance(base, params.dt, f);
    } else {
        pos_mid[slot] = vec4<f32>(f, 0.0);
    }
}

// Adds the pushes of the elements of other cells in bins first..end (exclusive) of the grid.
fn add_run(f: ptr<function, vec3<f32>>, pi: vec3<f32>, cell: u32, first: u32, end: u32) {
    let stop = offsets[end];
    for (var m = offsets[first]; m < stop; m++) {
        let q = spos[m];
        if bitcast<u32>(q.w) / MAX_ELEMENTS != cell {
            add_inter(f, pi, q.xyz);
        }
    }
}

@compute @workgroup_size(WG)
fn forces(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = dispatch_index(gid, groups, WG);
    if k >= counters[COUNTER_ELEMENTS] {
        return;
    }
    let me = spos[k];
    let slot = bitcast<u32>(me.w);
    let cell = slot / MAX_ELEMENTS;
    let pi = me.xyz;
    var f = intra_force(slot, pi);
    let b = bin_of[k];
    let nx = i32(params.bins_x);
    let ny = i32(params.bins_y);
    let nz = i32(params.bins_z);
    let bx = i32(b % params.bins_x);
    let by = i32((b / params.bins_x) % params.bins_y);
    let bz = i32(b / (params.bins_x * params.bins_y));
    for (var z = bz - 1; z <= bz + 1; z++) {
        if z < 0 || z >= nz {
            continue;
        }
        for (var dy = -1; dy <= 1; dy++) {
            // bins_x, bins_y >= 3 (validated): the 3 x 3 columns are distinct.
            let y = (by + dy + ny) % ny;
            let row = u32(nx * (y + ny * z));
            // Bins x-1, x, x+1 of a row are contiguous in bin order: one run of sorted
            // positions, or two where the row wraps (same order as the CPU's dx = -1, 0, 1).
            if bx == 0 {
                add_run(&f, pi, cell, row + params.bins_x - 1u, row + params.bins_x);
                add_run(&f, pi, cell, row, row + 2u);
            } else if bx == nx - 1 {
                add_run(&f, pi, cell, row + params.bins_x - 2u, row + params.bins_x);
                add_run(&f, pi, cell, row, row + 1u);
            } else {
                add_run(&f, pi, cell, row + u32(bx) - 1u, row + u32(bx) + 2u);
            }
        }
    }
    finish(slot, pi, f);
}

@compute @workgroup_size(WG)
fn all_pairs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = dispatch_index(gid, groups, WG);
    let n = counters[COUNTER_ELEMENTS];
    if i >= n {
        return;
    }
    let slot = active_slots[i];
    let cell = slot / MAX_ELEMENTS;
    let pi = source(slot);
    var f = intra_force(slot, pi);
    for (var j = 0u; j < n; j++) {
        let other = active_slots[j];
        if other / MAX_ELEMENTS != cell {
            add_inter(&f, pi, source(other));
        }
    }
    finish(slot, pi, f);
}
