//!include common/dispatch.wgsl
//!include epidermis/common.wgsl
// Mechanics, step 1 of a force evaluation: the positions of the active elements (`active`, the
// slots of cells 0..cells in id order) gathered into a compact array for the binning, with the
// slot in w (bitcast). STAGE 1 reads `pos` (the step's start), 2 reads `pos_mid`.
// CPU twin: cpu.rs (forces: the active list).

override WG: u32 = 256u;
override STAGE: u32 = 1u;

@group(1) @binding(0) var<uniform> params: EpiParams;
@group(1) @binding(1) var<storage, read> counters: array<u32>;
@group(1) @binding(2) var<storage, read> active_slots: array<u32>;
@group(1) @binding(3) var<storage, read> pos: array<vec4<f32>>;
@group(1) @binding(4) var<storage, read> pos_mid: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read_write> cpos: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = dispatch_index(gid, groups, WG);
    if i >= counters[COUNTER_ELEMENTS] {
        return;
    }
    let slot = active_slots[i];
    var p = pos[slot];
    if STAGE == 2u {
        p = pos_mid[slot];
    }
    cpos[i] = vec4<f32>(p.xyz, bitcast<f32>(slot));
}
