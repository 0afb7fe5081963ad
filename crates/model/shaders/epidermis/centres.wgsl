//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include epidermis/gene_common.wgsl
//!include epidermis/centre.wgsl
// Per cell (one thread each, cells 0..counters[CELLS]): its centre and its basement-membrane
// adhesion A = sum of |z| over its adhesive elements, into genes[2c + 1].z. CPU reference:
// genes.rs, update_centres.

override WG: u32 = 64u;

@group(1) @binding(0) var<uniform> u: GeneUniforms;
@group(1) @binding(1) var<storage, read> counters: array<u32>;
@group(1) @binding(2) var<storage, read> pos: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> counts: array<u32>;
@group(1) @binding(4) var<storage, read_write> centres: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read_write> genes: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    if c >= counters[COUNTER_CELLS] {
        return;
    }
    let first = c * MAX_ELEMENTS;
    let n = min(counts[c], MAX_ELEMENTS);
    centres[c] = vec4<f32>(cell_centre(first, n, u.lx, u.ly), 0.0);
    var a = 0.0;
    for (var k = 0u; k < n; k++) {
        let e = pos[first + k];
        if e.w == ADHESIVE {
            a += abs(e.z);
        }
    }
    genes[2u * c + 1u].z = a;
}
