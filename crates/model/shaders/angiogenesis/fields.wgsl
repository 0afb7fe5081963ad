//!include common/step.wgsl
//!include angiogenesis/common.wgsl
// The field update: one explicit step of the continuous model (A&C 1998; Darbyshire 2015 eq. 4
// in 3D), in one pass. The move weights are the coefficients of the explicit 7-point scheme
// (common.wgsl: coefficients), clipped at 0, with no moves through the walls (clip_moves); the
// probabilities are the weights over their sum W (weight_sum). The density is updated as the
// forward equation of that random walk, which keeps sum(n) exactly (to rounding) and n >= 0 at
// any gradient, where the seed's gather form blows up next to the tips' sharp f and c trails:
//   n'(i) = (n(i)/W(i)) P0(i) + sum over neighbours j of (n(j)/W(j)) P(j -> i).
// f and c: f' = f + k (beta m - gamma m f), c' = c - k eta m c, with m = n, or m = 1 at sites a
// sprout has occupied (the tip cells' feedback; `occupied` holds one bit per site).
// CPU reference: cpu.rs (weight_sums, update_site).
//
// Each site's weights and W are worked out once per step where possible, not once per reader:
// a workgroup is WZ slices of WX x WY threads, one thread per column of sites. The slice's outer
// ring of threads only works out its sites and what they send; the (WX - 2) x (WY - 2) threads
// inside also update theirs. Each slice walks ZCHUNK planes up in z, one plane ahead: at every
// plane a thread works out the site above the one it updates, writes that site's new f and c
// (they need no neighbour) and puts what it sends in the plane into workgroup memory; after a
// barrier each inner thread sums what came in to the site below. What is sent up and down stays
// in registers. Only the ring and the plane below and above each chunk are worked out twice.
// Every value is the same function of the fields wherever it is worked out, so the result does
// not depend on the workgroup size or the chunks.
// The walk runs to a fixed bound.
//!bounded-loops

override WX: u32 = 32u;
override WY: u32 = 8u;
override WZ: u32 = 1u;
// Planes each slice walks through: the plane below and above a chunk are worked out twice.
override ZCHUNK: u32 = 16u;
override TILE: u32 = WX * WY * WZ;
// Four values sent in the plane per thread, in two halves used by alternate planes: a half is
// written again only after the next barrier, which every reader of it has passed.
override SENT_LEN: u32 = 8u * TILE;

@group(1) @binding(0) var<uniform> p: AngioParams;
@group(1) @binding(1) var<storage, read> n_in: array<f32>;
@group(1) @binding(2) var<storage, read> f_in: array<f32>;
@group(1) @binding(3) var<storage, read> c_in: array<f32>;
@group(1) @binding(4) var<storage, read> occupied: array<u32>;
@group(1) @binding(5) var<storage, read_write> n_out: array<f32>;
@group(1) @binding(6) var<storage, read_write> f_out: array<f32>;
@group(1) @binding(7) var<storage, read_write> c_out: array<f32>;

// What each thread's site sends to its neighbour on the +x, -x, +y, -y side (block d at d * TILE
// within a half of `sent`).
const TO_XP: u32 = 0u;
const TO_XM: u32 = 1u;
const TO_YP: u32 = 2u;
const TO_YM: u32 = 3u;
var<workgroup> sent: array<f32, SENT_LEN>;

// The density a site keeps and sends along each move: (n/W) w. Where all weights are 0 (a
// guard: W > 0 in exact arithmetic, cpu.rs weight_sum_is_positive_for_rough_fields) the site
// keeps its density and sends nothing.
struct Sends {
    stay: f32,
    xm: f32,
    xp: f32,
    ym: f32,
    yp: f32,
    zm: f32,
    zp: f32,
}

// The thread's column: the index of its site at plane 0, how far its in-plane neighbours lie
// (0 beyond a wall: the site itself, as `neighbours` does) and which are inside the grid.
struct Column {
    base: u32,
    to_xm: u32,
    to_xp: u32,
    to_ym: u32,
    to_yp: u32,
    lo: vec2<bool>,
    hi: vec2<bool>,
}

fn column_of(x: u32, y: u32) -> Column {
    let lo = vec2<bool>(x > 0u, y > 0u);
    let hi = vec2<bool>(x + 1u < p.nx, y + 1u < p.ny);
    return Column(
        site_index(p, x, y, 0u),
        select(0u, 1u, lo.x), select(0u, 1u, hi.x),
        select(0u, p.nx, lo.y), select(0u, p.nx, hi.y),
        lo, hi,
    );
}

// Index of the column's site at plane z.
fn at_plane(col: Column, z: u32) -> u32 {
    return col.base + z * p.nx * p.ny;
}

// Index of the column's site at plane z, clamped to the grid.
fn at_plane_clamped(col: Column, z: i32) -> u32 {
    return at_plane(col, u32(clamp(z, 0, i32(p.nz) - 1)));
}

// What the column's site at plane z sends, given c and f at the planes below, at and above it
// (c.x, c.y, c.z; a wall's plane repeated, as `neighbours` does) and n at it.
fn column_sends(col: Column, z: u32, c: vec3<f32>, f: vec3<f32>, n: f32) -> Sends {
    let i = at_plane(col, z);
    let xm = i - col.to_xm;
    let xp = i + col.to_xp;
    let ym = i - col.to_ym;
    let yp = i + col.to_yp;
    let st = Stencil(
        c.y, c_in[xm], c_in[xp], c_in[ym], c_in[yp], c.x, c.z,
        f.y, f_in[xm], f_in[xp], f_in[ym], f_in[yp], f.x, f.z,
    );
    let lo = vec3<bool>(col.lo, z > 0u);
    let hi = vec3<bool>(col.hi, z + 1u < p.nz);
    let w = clip_moves(p, coefficients(p, st), lo, hi);
    let total = weight_sum(w);
    let sum = select(total, -1.0, total <= 0.0);
    let share = n / sum;
    return Sends(
        select(share * w.w0, n, sum < 0.0),
        share * w.wxm, share * w.wxp,
        share * w.wym, share * w.wyp,
        share * w.wzm, share * w.wzp,
    );
}

fn is_occupied(i: u32) -> bool {
    return ((occupied[i >> 5u] >> (i & 31u)) & 1u) != 0u;
}

@compute @workgroup_size(WX, WY, WZ)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    // Threads on the slice's outer ring sit one site outside the tiles of WX - 2 x WY - 2 sites;
    // below 0 the coordinates wrap to large values: out of the grid.
    let x = wid.x * (WX - 2u) + lid.x - 1u;
    let y = wid.y * (WY - 2u) + lid.y - 1u;
    let column = x < p.nx && y < p.ny;
    let inner = column && lid.x - 1u < WX - 2u && lid.y - 1u < WY - 2u;
    let z_begin = (wid.z * WZ + lid.z) * ZCHUNK;
    let own = lid.x + WX * (lid.y + WY * lid.z);
    let col = column_of(x, y);

    // At iteration q the thread works out its site at plane z_ahead = z_begin + q - 1 and
    // updates n at plane z_begin + q - 2 (the first two iterations only fill). The column's c
    // and f at z_ahead - 1, z_ahead, z_ahead + 1 stay in registers; what the next iteration
    // needs from memory is loaded one iteration early, so that the wait for it overlaps this
    // iteration's work.
    var ahead: Sends;
    var cur: Sends;
    var from_below = 0.0;
    var from_above = 0.0;
    let zb = i32(z_begin);
    var c_col = vec3<f32>();
    var f_col = vec3<f32>();
    var c_load = 0.0;
    var f_load = 0.0;
    var n_load = 0.0;
    if column {
        c_col = vec3<f32>(0.0, c_in[at_plane_clamped(col, zb - 2)], c_in[at_plane_clamped(col, zb - 1)]);
        f_col = vec3<f32>(0.0, f_in[at_plane_clamped(col, zb - 2)], f_in[at_plane_clamped(col, zb - 1)]);
        c_load = c_in[at_plane_clamped(col, zb)];
        f_load = f_in[at_plane_clamped(col, zb)];
        n_load = n_in[at_plane_clamped(col, zb - 1)];
    }
    for (var q = 0u; q < ZCHUNK + 2u; q++) {
        let z_ahead = z_begin + q - 1u;
        // Shift: the site below sends up; the site worked out ahead becomes the current one.
        from_below = cur.zp;
        cur = ahead;
        if column {
            c_col = vec3<f32>(c_col.yz, c_load);
            f_col = vec3<f32>(f_col.yz, f_load);
            let n_ahead = n_load;
            let za = zb + i32(q) - 1;
            c_load = c_in[at_plane_clamped(col, za + 2)];
            f_load = f_in[at_plane_clamped(col, za + 2)];
            n_load = n_in[at_plane_clamped(col, za + 1)];
            // z_ahead wraps to 0xFFFFFFFF below plane 0: out of the grid too.
            if z_ahead < p.nz {
                ahead = column_sends(col, z_ahead, c_col, f_col, n_ahead);
                from_above = ahead.zm;
                if inner && q >= 1u && q <= ZCHUNK {
                    let i = at_plane(col, z_ahead);
                    let m = select(n_ahead, 1.0, is_occupied(i));
                    f_out[i] = f_col.y + p.k * (p.beta * m - p.gamma * m * f_col.y);
                    c_out[i] = c_col.y - p.k * p.eta * m * c_col.y;
                }
            }
        }
        let z = z_begin + q - 2u;
        let live = q >= 2u && z < p.nz;
        let half = own + (q & 1u) * 4u * TILE;
        if live && column {
            sent[TO_XP * TILE + half] = cur.xp;
            sent[TO_XM * TILE + half] = cur.xm;
            sent[TO_YP * TILE + half] = cur.yp;
            sent[TO_YM * TILE + half] = cur.ym;
        }
        workgroupBarrier();
        if live && inner {
            // In the CPU reference's order: stay, then from -x, +x, -y, +y, -z, +z.
            var n1 = cur.stay;
            if x > 0u {
                n1 = n1 + sent[TO_XP * TILE + half - 1u];
            }
            if x + 1u < p.nx {
                n1 = n1 + sent[TO_XM * TILE + half + 1u];
            }
            if y > 0u {
                n1 = n1 + sent[TO_YP * TILE + half - WX];
            }
            if y + 1u < p.ny {
                n1 = n1 + sent[TO_YM * TILE + half + WX];
            }
            if z > 0u {
                n1 = n1 + from_below;
            }
            if z + 1u < p.nz {
                n1 = n1 + from_above;
            }
            n_out[at_plane(col, z)] = n1;
        }
    }
}
