// Binning of points into a uniform grid for neighbour search, by a counting sort. `bin_cells`
// gives every point its cell (per axis floor((p - origin) * inv_cell), wrapped on periodic axes,
// clamped to the grid otherwise; cell = x + dims.x * (y + dims.y * z)) and counts the points of
// each cell, keeping the count it found as the point's place. The scan (scheduler/scan.wgsl)
// turns the counts into CSR offsets: cell c holds sorted positions offsets[c]..offsets[c+1]
// (empty cells: equal). `bin_scatter` lists each cell's points at its offsets, in the order the
// places were taken, which depends on thread timing; `bin_rank` then puts each point at its
// cell's offset plus the number of the cell's points of lower index: the stable order, the same
// whatever the timing, the workgroup size or the device. It also clears the counts for the next
// binning (they start zeroed).
//
// The rank pass reads a point's whole cell, k reads per point: k^2 per cell, cheap for the few
// points per cell of a neighbour grid and still bounded for a crowded one (5,000 points clamped
// into one cell: 25 M reads). A sort of the cell in one thread would be k log k but serial, and
// llvmpipe ends any loop after 65,535 iterations, which such a sort reaches at a few thousand
// points; here a loop is as long as the cell.
// CPU twin: crates/scheduler/src/primitives/binning.rs (cpu_binning).

const BIN_WG: u32 = 256u;
const BIN_ITEMS: u32 = 8u;
const BIN_BLOCK: u32 = 2048u;
// Cell coordinates are clamped to +-2^30 before wrapping, the same on the CPU.
const BIN_COORD_LIMIT: f32 = 1073741824.0;

struct GridCfg {
    origin: vec3<f32>,
    // Bit a set: axis a is periodic.
    periodic: u32,
    inv_cell: vec3<f32>,
    cells: u32,
    dims: vec3<u32>,
    // Points the binning holds at most: where the second half of `scratch` starts.
    capacity: u32,
}

@group(0) @binding(0) var<uniform> grid: GridCfg;
// [0]: points.
@group(0) @binding(1) var<storage, read> b_lens: array<u32>;
// xyz: position; w unused.
@group(0) @binding(2) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> cell_of: array<u32>;
// [i]: point i's place among its cell's points, in the order the counts were taken;
// [capacity + s]: the point at sorted position s in that order.
@group(0) @binding(4) var<storage, read_write> scratch: array<u32>;
// cells + 1 counts, zero between binnings.
@group(0) @binding(5) var<storage, read_write> counts: array<atomic<u32>>;
// cells + 1 offsets, the exclusive scan of the counts.
@group(0) @binding(6) var<storage, read> cell_offsets: array<u32>;
@group(0) @binding(7) var<storage, read_write> sorted_cells: array<u32>;
@group(0) @binding(8) var<storage, read_write> sorted_index: array<u32>;

fn bin_axis(x: f32, a: u32) -> u32 {
    let f = clamp(floor((x - grid.origin[a]) * grid.inv_cell[a]), -BIN_COORD_LIMIT, BIN_COORD_LIMIT);
    let i = i32(f);
    let d = i32(grid.dims[a]);
    if (grid.periodic & (1u << a)) != 0u {
        // Shifted to i >= 0 first: GLSL leaves % of a negative operand undefined (llvmpipe's GL
        // takes it as unsigned), so naga's GL output must never see one.
        let shifted = select(i, i + d * ((d - 1 - i) / d), i < 0);
        return u32(shifted % d);
    }
    return u32(clamp(i, 0, d - 1));
}

@compute @workgroup_size(256)
fn bin_cells(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = b_lens[0];
    for (var k = 0u; k < BIN_ITEMS; k++) {
        let i = wid.x * BIN_BLOCK + k * BIN_WG + lid;
        if i < n {
            let p = positions[i].xyz;
            let x = bin_axis(p.x, 0u);
            let y = bin_axis(p.y, 1u);
            let z = bin_axis(p.z, 2u);
            let c = x + grid.dims.x * (y + grid.dims.y * z);
            cell_of[i] = c;
            scratch[i] = atomicAdd(&counts[c], 1u);
        }
    }
}

@compute @workgroup_size(256)
fn bin_scatter(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = b_lens[0];
    for (var k = 0u; k < BIN_ITEMS; k++) {
        let i = wid.x * BIN_BLOCK + k * BIN_WG + lid;
        if i < n {
            let c = cell_of[i];
            let s = cell_offsets[c] + scratch[i];
            sorted_cells[s] = c;
            scratch[grid.capacity + s] = i;
        }
    }
}

@compute @workgroup_size(256)
fn bin_rank(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = b_lens[0];
    for (var k = 0u; k < BIN_ITEMS; k++) {
        let i = wid.x * BIN_BLOCK + k * BIN_WG + lid;
        if i < n {
            let c = cell_of[i];
            let lo = cell_offsets[c];
            let hi = cell_offsets[c + 1u];
            var below = 0u;
            for (var s = lo; s < hi; s++) {
                below += u32(scratch[grid.capacity + s] < i);
            }
            sorted_index[lo + below] = i;
            atomicStore(&counts[c], 0u);
        }
    }
}
