// Binning of points into a uniform grid for neighbour search. `bin_cells` gives every point its
// cell (per axis floor((p - origin) * inv_cell), wrapped on periodic axes, clamped to the grid
// otherwise; cell = x + dims.x * (y + dims.y * z)) and its own index as the payload; the radix
// sort (scheduler/radix_sort.wgsl) then orders the points by cell, stably. `bin_offsets` turns
// the sorted cells into CSR offsets: offsets[c] = the first sorted position whose cell is >= c,
// for c in 0..=cells, so cell c holds sorted positions offsets[c]..offsets[c+1] (empty cells:
// equal). One thread per cell searches for it, so every entry is written exactly once: no
// clearing, no atomics.
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
    _pad: u32,
}

@group(0) @binding(0) var<uniform> grid: GridCfg;
// [0]: points.
@group(0) @binding(1) var<storage, read> b_lens: array<u32>;
// xyz: position; w unused.
@group(0) @binding(2) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(4) var<storage, read_write> point_index: array<u32>;
@group(0) @binding(5) var<storage, read> sorted_cells: array<u32>;
@group(0) @binding(6) var<storage, read_write> cell_offsets: array<u32>;

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
            cell_of[i] = x + grid.dims.x * (y + grid.dims.y * z);
            point_index[i] = i;
        }
    }
}

// Thread t of the grid of workgroups handles cells t, t + BIN_WG, ... of its block; each cell's
// offset is a binary search of the sorted cells, so the work per cell is log2(points) whatever
// the gaps between occupied cells (a scatter from the sorted points would leave one thread the
// whole empty tail of the grid).
@compute @workgroup_size(256)
fn bin_offsets(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let n = b_lens[0];
    let block = wid.x + groups.x * wid.y;
    for (var k = 0u; k < BIN_ITEMS; k++) {
        let c = block * BIN_BLOCK + k * BIN_WG + lid;
        if c <= grid.cells {
            var lo = 0u;
            var hi = n;
            while lo < hi {
                let mid = lo + (hi - lo) / 2u;
                if sorted_cells[mid] < c {
                    lo = mid + 1u;
                } else {
                    hi = mid;
                }
            }
            cell_offsets[c] = lo;
        }
    }
}
