//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include epidermis/gene_common.wgsl
// The gene network of every cell (one thread each, cells 0..counters[CELLS]), Christley et
// al. 2010 Algorithm 3 with the neighbour search on binned centres:
// - `neighbours`: sums of N, D, B over the cells whose centres lie within the neighbour
//   distance (minimum image in x, y), found in the 3 x 3 x 3 bins around the cell's own bin
//   (bins are at least that distance wide; an axis of fewer than 3 bins is walked once), and
//   their number;
// - `stage1`: genes_mid = max(genes + dt/2 f(genes), 0);
// - `stage2`: genes = max(genes + dt f(genes_mid), 0);
// both stages with the averages of the step's start, A carried over. CPU reference: genes.rs
// (neighbour_sums, gene_step; the sums come in another order there).

override WG: u32 = 64u;

@group(1) @binding(0) var<uniform> u: GeneUniforms;
@group(1) @binding(1) var<storage, read> counters: array<u32>;
@group(1) @binding(2) var<storage, read> centres: array<vec4<f32>>;
// The centre binning (scheduler Binning): bin of each cell, CSR offsets, cells in bin order.
@group(1) @binding(3) var<storage, read> bin_of: array<u32>;
@group(1) @binding(4) var<storage, read> bin_offsets: array<u32>;
@group(1) @binding(5) var<storage, read> bin_cells: array<u32>;
@group(1) @binding(6) var<storage, read_write> neighbours: array<vec4<f32>>;
@group(1) @binding(7) var<storage, read_write> genes: array<vec4<f32>>;
@group(1) @binding(8) var<storage, read_write> genes_mid: array<vec4<f32>>;

fn hill(x: f32, h: vec4<f32>) -> f32 {
    let cx = h.z * x;
    var p = 0.0;
    if cx > 0.0 {
        p = pow(cx, h.w);
    }
    return h.x + h.y / (1.0 + p);
}

struct Rates {
    a: vec4<f32>, // dN, dD, dB, dO1
    b: vec2<f32>, // dO2, dM
}

// d/dt at y = (N, D, B, O1), z = (O2, M, A, _) with neighbour averages nb = (<N>, <D>, <B>).
fn rates(y: vec4<f32>, z: vec4<f32>, nb: vec3<f32>) -> Rates {
    let n = y.x;
    let d = y.y;
    let b = y.z;
    let o1 = y.w;
    let o2 = z.x;
    let m = z.y;
    let a = z.z;
    let k = u.decay[0];
    let l = u.decay[1];
    var r: Rates;
    r.a.x = -u.ka * n * nb.y + u.kd * b - k.x * n
        + hill(b, u.hill[HILL_BN]) * hill(o2, u.hill[HILL_ON]);
    r.a.y = -u.ka * d * nb.x + u.kd * nb.z - k.y * d + hill(n, u.hill[HILL_ND]);
    r.a.z = u.ka * n * nb.y - u.kd * b - k.z * b;
    r.a.w = -k.w * o1 + hill(o2, u.hill[HILL_OV]) * hill(a, u.hill[HILL_AV]);
    r.b.x = -l.x * o2 + hill(o1, u.hill[HILL_VO]) * hill(u.tgf_beta, u.hill[HILL_GO]);
    r.b.y = -l.y * m + hill(o2, u.hill[HILL_OM]);
    return r;
}

fn averages(s: vec4<f32>) -> vec3<f32> {
    if s.w > 0.0 {
        return vec3<f32>(s.x / s.w, s.y / s.w, s.z / s.w);
    }
    return vec3<f32>(0.0);
}

// The bin coordinate of offset j (0..min(dims, 3)) around b: b - 1 + j wrapped, or j itself
// when the axis has fewer than 3 bins (then every bin is visited once).
fn around(b: u32, j: u32, dims: u32) -> u32 {
    if dims < 3u {
        return j;
    }
    return (b + dims - 1u + j) % dims;
}

@compute @workgroup_size(WG)
fn neighbour_sums(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    if c >= counters[COUNTER_CELLS] {
        return;
    }
    let me = centres[c];
    let dims = u.bins;
    let bin = bin_of[c];
    let bx = bin % dims.x;
    let by = (bin / dims.x) % dims.y;
    let bz = bin / (dims.x * dims.y);
    let z0 = select(0u, bz - 1u, bz > 0u);
    let z1 = min(bz + 1u, dims.z - 1u);
    var s = vec4<f32>(0.0);
    for (var z = z0; z <= z1; z++) {
        for (var jy = 0u; jy < min(dims.y, 3u); jy++) {
            let y = around(by, jy, dims.y);
            for (var jx = 0u; jx < min(dims.x, 3u); jx++) {
                let x = around(bx, jx, dims.x);
                let b = x + dims.x * (y + dims.y * z);
                for (var k = bin_offsets[b]; k < bin_offsets[b + 1u]; k++) {
                    let j = bin_cells[k];
                    if j == c {
                        continue;
                    }
                    let o = centres[j];
                    let dx = min_image(me.x - o.x, u.lx);
                    let dy = min_image(me.y - o.y, u.ly);
                    let dz = me.z - o.z;
                    if dx * dx + dy * dy + dz * dz <= u.neighbour_distance2 {
                        let g = genes[2u * j];
                        s += vec4<f32>(g.x, g.y, g.z, 1.0);
                    }
                }
            }
        }
    }
    neighbours[c] = s;
}

// Cell c's genes after a stage: max(genes[c] + h f(at), 0) with A carried over, as the two
// vec4 of the genes layout.
fn advanced(c: u32, at_y: vec4<f32>, at_z: vec4<f32>, h: f32) -> array<vec4<f32>, 2> {
    let y = genes[2u * c];
    let z = genes[2u * c + 1u];
    let r = rates(at_y, at_z, averages(neighbours[c]));
    return array<vec4<f32>, 2>(
        max(y + h * r.a, vec4<f32>(0.0)),
        vec4<f32>(max(z.xy + h * r.b, vec2<f32>(0.0)), z.z, 0.0),
    );
}

@compute @workgroup_size(WG)
fn stage1(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    if c >= counters[COUNTER_CELLS] {
        return;
    }
    let g = advanced(c, genes[2u * c], genes[2u * c + 1u], 0.5 * u.dt);
    genes_mid[2u * c] = g[0];
    genes_mid[2u * c + 1u] = g[1];
}

@compute @workgroup_size(WG)
fn stage2(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = dispatch_index(gid, groups, WG);
    if c >= counters[COUNTER_CELLS] {
        return;
    }
    let g = advanced(c, genes_mid[2u * c], genes_mid[2u * c + 1u], u.dt);
    genes[2u * c] = g[0];
    genes[2u * c + 1u] = g[1];
}
