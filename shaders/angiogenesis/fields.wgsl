//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// The field update: one explicit step of the continuous model (A&C 1998; Darbyshire 2015 eq. 4
// in 3D), in one pass. The move weights are the coefficients of the explicit 7-point scheme
// (common.wgsl: coefficients), clipped at 0, with no moves through the walls (clip_moves); the
// probabilities are the weights over their sum W (weight_sum). The density is updated as the
// forward equation of that random walk, which keeps sum(n) exactly (to rounding) and n >= 0 at
// any gradient, where the seed's gather form blows up next to the tips' sharp f and c trails:
//   n'(i) = n(i) P0(i)/W(i) + sum over neighbours j of n(j) P(j -> i)/W(j).
// f and c: f' = f + k (beta m - gamma m f), c' = c - k eta m c, with m = n, or m = 1 at sites a
// sprout has occupied (the tip cells' feedback; `occupied` holds one bit per site).
// CPU reference: cpu.rs (weight_sums, update_site).
//
// Each site's weights and W are worked out once per step where possible, not once per reader:
// a workgroup is WZ slices of WX x WY columns, and each slice walks ZCHUNK planes up in z. At
// every plane a thread has its own site's weights from the iteration before (it works one plane
// ahead), puts what the site sends to its four neighbours in the plane into workgroup memory,
// and the threads also work out the sites of the ring around the tile (each sends one value in).
// After a barrier each site sums what comes in; what comes from below and above stays in
// registers. Only the ring and one plane above and below each chunk are worked out twice. Every
// value is the same function of the fields wherever it is worked out, so the result does not
// depend on the workgroup size.
// Both loops end: the walk runs to a fixed bound, the ring loop adds the slice's thread count
// (at least 1) toward its bound.
//!bounded-loops

override WX: u32 = 32u;
override WY: u32 = 8u;
override WZ: u32 = 1u;
// Planes each slice walks through: the plane below and above a chunk are worked out twice.
override ZCHUNK: u32 = 16u;
// A slice's tile with a one-site ring, and the four values sent in the plane per site.
override TILE_X: u32 = WX + 2u;
override TILE: u32 = TILE_X * (WY + 2u) * WZ;
override SENT_LEN: u32 = 4u * TILE;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> n_in: array<f32>;
@group(1) @binding(2) var<storage, read> f_in: array<f32>;
@group(1) @binding(3) var<storage, read> c_in: array<f32>;
@group(1) @binding(4) var<storage, read> occupied: array<u32>;
@group(1) @binding(5) var<storage, read_write> n_out: array<f32>;
@group(1) @binding(6) var<storage, read_write> f_out: array<f32>;
@group(1) @binding(7) var<storage, read_write> c_out: array<f32>;

// What each tile site sends to its neighbour on the +x, -x, +y, -y side (block d at d * TILE).
const TO_XP: u32 = 0u;
const TO_XM: u32 = 1u;
const TO_YP: u32 = 2u;
const TO_YM: u32 = 3u;
var<workgroup> sent: array<f32, SENT_LEN>;

// A site's density, fields and move weights; sum is W, or -1 where all weights are 0 (a guard:
// W > 0 in exact arithmetic, cpu.rs weight_sum_is_positive_for_rough_fields). With -1 the site
// keeps its density and sends nothing.
struct Site {
    n: f32,
    f: f32,
    c: f32,
    w: Weights,
    sum: f32,
}

fn site_from(st: Stencil, nb: Neighbours, n: f32) -> Site {
    let w = clip_moves(p, coefficients(p, st), nb.lo, nb.hi);
    let sum = weight_sum(w);
    return Site(n, st.f0, st.c0, w, select(sum, -1.0, sum <= 0.0));
}

// A site of the ring, all from memory.
fn site(x: u32, y: u32, z: u32) -> Site {
    let nb = neighbours(p, x, y, z);
    let st = Stencil(
        c_in[nb.i], c_in[nb.xm], c_in[nb.xp], c_in[nb.ym], c_in[nb.yp], c_in[nb.zm], c_in[nb.zp],
        f_in[nb.i], f_in[nb.xm], f_in[nb.xp], f_in[nb.ym], f_in[nb.yp], f_in[nb.zm], f_in[nb.zp],
    );
    return site_from(st, nb, n_in[nb.i]);
}

// A site of the thread's own column, given c and f at the planes below, at and above it
// (c.x, c.y, c.z; a wall's plane repeated, as `neighbours` does) and n at it.
fn column_site(x: u32, y: u32, z: u32, c: vec3<f32>, f: vec3<f32>, n: f32) -> Site {
    let nb = neighbours(p, x, y, z);
    let st = Stencil(
        c.y, c_in[nb.xm], c_in[nb.xp], c_in[nb.ym], c_in[nb.yp], c.x, c.z,
        f.y, f_in[nb.xm], f_in[nb.xp], f_in[nb.ym], f_in[nb.yp], f.x, f.z,
    );
    return site_from(st, nb, n);
}

// Index of the own column's site at plane z, clamped to the grid.
fn column_index(x: u32, y: u32, z: i32) -> u32 {
    return site_index(p, x, y, u32(clamp(z, 0, i32(p.nz) - 1)));
}

// The density a site sends along the move of weight w.
fn send(s: Site, w: f32) -> f32 {
    return s.n * (w / s.sum);
}

// The weight of the move toward TO_XP, TO_XM, TO_YP or TO_YM.
fn weight_to(w: Weights, to: u32) -> f32 {
    switch to {
        case TO_XP: { return w.wxp; }
        case TO_XM: { return w.wxm; }
        case TO_YP: { return w.wyp; }
        default: { return w.wym; }
    }
}

fn is_occupied(i: u32) -> bool {
    return ((occupied[i >> 5u] >> (i & 31u)) & 1u) != 0u;
}

// Index in a block of `sent` of the tile site (tx, ty) (ring included: 0..WX+1, 0..WY+1) of
// slice lz.
fn tile_index(tx: u32, ty: u32, lz: u32) -> u32 {
    return tx + TILE_X * (ty + (WY + 2u) * lz);
}

@compute @workgroup_size(WX, WY, WZ)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let x = wid.x * WX + lid.x;
    let y = wid.y * WY + lid.y;
    let column = x < p.nx && y < p.ny;
    let z_begin = (wid.z * WZ + lid.z) * ZCHUNK;
    let own = tile_index(lid.x + 1u, lid.y + 1u, lid.z);
    // The ring: 2 WY sites on the x sides, then 2 WX on the y sides; each sends one value in.
    let ring = 2u * (WX + WY);
    let slice_threads = WX * WY;
    let thread = lid.x + WX * lid.y;

    // The walk runs one plane ahead: at iteration q it works out the own site at plane
    // z_ahead = z_begin + q - 1 and updates plane z_begin + q - 2 (the first two iterations only
    // fill). The own column's c and f at z_ahead - 1, z_ahead, z_ahead + 1 stay in registers;
    // what the next iteration needs from memory is loaded one iteration early, so that the wait
    // for it overlaps this iteration's work.
    var next: Site;
    var cur: Site;
    var from_below = 0.0;
    var from_above = 0.0;
    let zb = i32(z_begin);
    var c_col = vec3<f32>();
    var f_col = vec3<f32>();
    var c_load = 0.0;
    var f_load = 0.0;
    var n_load = 0.0;
    if column {
        c_col = vec3<f32>(0.0, c_in[column_index(x, y, zb - 2)], c_in[column_index(x, y, zb - 1)]);
        f_col = vec3<f32>(0.0, f_in[column_index(x, y, zb - 2)], f_in[column_index(x, y, zb - 1)]);
        c_load = c_in[column_index(x, y, zb)];
        f_load = f_in[column_index(x, y, zb)];
        n_load = n_in[column_index(x, y, zb - 1)];
    }
    for (var q = 0u; q < ZCHUNK + 2u; q++) {
        let z_ahead = z_begin + q - 1u;
        // Shift: the site below sends up; the site worked out ahead becomes the current one.
        from_below = send(cur, cur.w.wzp);
        cur = next;
        if column {
            c_col = vec3<f32>(c_col.yz, c_load);
            f_col = vec3<f32>(f_col.yz, f_load);
            let n_ahead = n_load;
            let za = zb + i32(q) - 1;
            c_load = c_in[column_index(x, y, za + 2)];
            f_load = f_in[column_index(x, y, za + 2)];
            n_load = n_in[column_index(x, y, za + 1)];
            // z_ahead wraps to 0xFFFFFFFF below plane 0: out of the grid too.
            if z_ahead < p.nz {
                next = column_site(x, y, z_ahead, c_col, f_col, n_ahead);
                from_above = send(next, next.w.wzm);
            }
        }
        let z = z_begin + q - 2u;
        let live = q >= 2u && z < p.nz;
        if live && column {
            sent[TO_XP * TILE + own] = send(cur, cur.w.wxp);
            sent[TO_XM * TILE + own] = send(cur, cur.w.wxm);
            sent[TO_YP * TILE + own] = send(cur, cur.w.wyp);
            sent[TO_YM * TILE + own] = send(cur, cur.w.wym);
        }
        for (var r = thread; live && r < ring; r += slice_threads) {
            // Ring site (tx, ty) in tile coordinates and the one value it sends into the tile.
            var tx = 0u;
            var ty = 0u;
            var to = TO_XP;
            if r < WY {
                ty = r + 1u;
            } else if r < 2u * WY {
                tx = WX + 1u;
                ty = r - WY + 1u;
                to = TO_XM;
            } else if r < 2u * WY + WX {
                tx = r - 2u * WY + 1u;
                to = TO_YP;
            } else {
                tx = r - 2u * WY - WX + 1u;
                ty = WY + 1u;
                to = TO_YM;
            }
            // Ring sites beyond the walls wrap to large values: out of the grid.
            let rx = wid.x * WX + tx - 1u;
            let ry = wid.y * WY + ty - 1u;
            if rx < p.nx && ry < p.ny {
                let s = site(rx, ry, z);
                sent[to * TILE + tile_index(tx, ty, lid.z)] = send(s, weight_to(s.w, to));
            }
        }
        workgroupBarrier();
        if live && column {
            let i = site_index(p, x, y, z);
            // In the CPU reference's order: stay, then from -x, +x, -y, +y, -z, +z.
            var n1 = cur.n * select(cur.w.w0 / cur.sum, 1.0, cur.sum < 0.0);
            if x > 0u {
                n1 = n1 + sent[TO_XP * TILE + own - 1u];
            }
            if x + 1u < p.nx {
                n1 = n1 + sent[TO_XM * TILE + own + 1u];
            }
            if y > 0u {
                n1 = n1 + sent[TO_YP * TILE + own - TILE_X];
            }
            if y + 1u < p.ny {
                n1 = n1 + sent[TO_YM * TILE + own + TILE_X];
            }
            if z > 0u {
                n1 = n1 + from_below;
            }
            if z + 1u < p.nz {
                n1 = n1 + from_above;
            }
            let m = select(cur.n, 1.0, is_occupied(i));
            n_out[i] = n1;
            f_out[i] = cur.f + p.k * (p.beta * m - p.gamma * m * cur.f);
            c_out[i] = cur.c - p.k * p.eta * m * cur.c;
        }
        // The next plane overwrites `sent`.
        workgroupBarrier();
    }
}
