//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include gliding/clock_state.wgsl
// The bound motors' passes (crates/model/src/gliding/motors.rs): `evolve`, one workgroup per
// anchor r0 (seed eqs. 4-6 over one outer step in local sub-steps dt*), and `force`, one thread
// per cell (the gather of seed eq. 10). Both run once per chunk of anchors (`chunk`), whose M_b
// and stage are the bound buffers. M_b is (r0, d, theta, s), s innermost. `evolve` updates the
// elements of an anchor with adjacent threads on adjacent s (coalesced), each element from its
// line's neighbours; the coarse integrals go through a workgroup tile of whole lines, each summed
// by one thread in s order, then a pairwise tree over a power of two of line slots whose
// additions do not depend on the thread that does them. The bits therefore do not depend on the
// workgroup size. No atomics. CPU reference: motors_cpu.rs.

override WG: u32 = 64u;

struct MotorParams {
    nx: u32,
    ny: u32,
    ntheta: u32,
    ns: u32,
    lines: u32,
    lines_pow2: u32,
    block: u32,
    anchors: u32,
    n_heads: u32,
    // Word offsets of the tables' sections (the offsets d start at 0).
    mask_at: u32,
    p_at: u32,
    heads_at: u32,
    start_at: u32,
    items_at: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // speed / ds.
    walk: f32,
    k_on: f32,
    k_off: f32,
    // 2 speed/ds + k_off: the sub-step rate without binding.
    rate_base: f32,
    // dx dy dtheta ds and dx dy dtheta speed.
    volume: f32,
    area: f32,
    // F dx dy dtheta ds (seed eq. 10).
    force_scale: f32,
    // Rows of head offsets (equal y) and the word offset of their starts.
    n_rows: u32,
    rows_at: u32,
    _pad3: u32,
    _pad4: u32,
}

// The chunk's anchors first..first + count; `last` on the chunk that ends at the last anchor.
struct MotorChunk {
    first: u32,
    count: u32,
    last: u32,
    _pad: u32,
}

@group(1) @binding(0) var<uniform> u: MotorParams;
// Offsets d (i32 pairs), the mask 1_D (f32 bits), p(theta) (f32 pairs), head offsets (i32
// pairs), their item ranges, the items and the rows' starts (motors.rs, MotorTables).
@group(1) @binding(1) var<storage, read> tables: array<u32>;
// Psi (theta, y, x).
@group(1) @binding(2) var<storage, read> psi: array<f32>;
// M_b of the chunk's anchors.
@group(1) @binding(3) var<storage, read_write> bound: array<f32>;
// The RK2 stage (as `bound`), then per anchor of the chunk 2 lines_pow2 slots of line partials.
@group(1) @binding(4) var<storage, read_write> stage: array<f32>;
// Per anchor: total M, coarse bound, free, walked off since the start.
@group(1) @binding(5) var<storage, read_write> state: array<vec4<f32>>;
@group(1) @binding(6) var<storage, read_write> force_out: array<vec2<f32>>;
// The outer step's dt (clock.dt).
@group(1) @binding(7) var<storage, read> clock: Clock;
@group(1) @binding(8) var<uniform> chunk: MotorChunk;
// Per head offset e and cell x (e-major): the sums the chunks before the last leave (a run
// with M_b in one binding never touches it).
@group(1) @binding(9) var<storage, read_write> force_parts: array<vec2<f32>>;

var<workgroup> reduced: vec2<f32>;
// A tile of whole lines (row stride ns + 1, so that the line sums read distinct banks): the
// element passes write their values here (adjacent threads, adjacent s: coalesced), then one
// thread per line sums its row in s order. The slot after a row's ns values holds that line's
// outflow in stage 2. Motors.rs requires ns + 1 <= TILE.
const TILE: u32 = 2048u;
var<workgroup> tile: array<f32, TILE>;

fn superbee(a: f32, b: f32) -> f32 {
    if a * b <= 0.0 {
        return 0.0;
    }
    let s = max(min(abs(a), 2.0 * abs(b)), min(2.0 * abs(a), abs(b)));
    return select(-s, s, a > 0.0);
}

fn offset_of(o: u32) -> vec2<i32> {
    return vec2<i32>(bitcast<i32>(tables[2u * o]), bitcast<i32>(tables[2u * o + 1u]));
}

// a mod n for a >= -n (offsets span under a period). On non-negative values only: naga's GLSL
// of a signed % on a negative value takes the unsigned remainder of its bits on llvmpipe,
// right only where n is a power of two.
fn wrap(a: i32, n: u32) -> u32 {
    return u32(select(a, a + i32(n), a < 0)) % n;
}

// Psi at filament centre r0 + d (periodic), angle t.
fn psi_at(r0: u32, d: vec2<i32>, t: u32) -> f32 {
    let x = wrap(i32(r0 % u.nx) + d.x, u.nx);
    let y = wrap(i32(r0 / u.nx) + d.y, u.ny);
    return psi[(t * u.ny + y) * u.nx + x];
}

// Psi of line l = (d, theta) at anchor r0.
fn line_psi(r0: u32, l: u32) -> f32 {
    return psi_at(r0, offset_of(l / u.ntheta), l % u.ntheta);
}

fn mask(i: u32) -> f32 {
    return bitcast<f32>(tables[u.mask_at + i]);
}

// Anchor a of the chunk (r0 = chunk.first + a) has M_b at a block and partials after the stage.
fn partial_base(a: u32) -> u32 {
    return chunk.count * u.block + a * 2u * u.lines_pow2;
}

fn put(a: u32, l: u32, v: vec2<f32>) {
    let b = partial_base(a);
    stage[b + l] = v.x;
    stage[b + u.lines_pow2 + l] = v.y;
}

// The sums of both partial columns of the chunk's anchor a, uniform across the workgroup.
fn reduce(a: u32, lid: u32) -> vec2<f32> {
    let b = partial_base(a);
    let p = u.lines_pow2;
    storageBarrier();
    var half = p / 2u;
    loop {
        if half == 0u {
            break;
        }
        for (var j = lid; j < half; j += WG) {
            stage[b + j] += stage[b + half + j];
            stage[b + p + j] += stage[b + p + half + j];
        }
        storageBarrier();
        half /= 2u;
    }
    if lid == 0u {
        reduced = vec2<f32>(stage[b], stage[b + p]);
    }
    return workgroupUniformLoad(&reduced);
}

// The face value above cell k of a line whose cells are v(k - 1), v(k), v(k + 1): the
// Superbee-limited upwind value (speed +1), first order at the plus end.
fn face(prev: f32, y: f32, next: f32, last: bool) -> f32 {
    if last {
        return y;
    }
    return y + 0.5 * superbee(y - prev, next - y);
}

// The walking flux difference f(k) - f(k - 1) at cell k of the line at `at`, from the values
// v(k - 2) .. v(k + 1) (zero before the minus end, no inflow).
fn walk_difference(m2: f32, m1: f32, y: f32, p1: f32, k: u32) -> f32 {
    let last = k + 1u == u.ns;
    let f = face(m1, y, select(p1, y, last), last);
    let back = select(0.0, face(m2, m1, y, false), k > 0u);
    return f - back;
}

// Lines per tile and the tiles of an anchor.
fn tile_lines() -> u32 {
    return TILE / (u.ns + 1u);
}

// The row sums of the tile's first n lines (lines first.. of anchor r0), each in s order, times
// Psi dV, as partials (with the outflow slot times Psi dx dy dtheta speed if `outflow`).
fn put_tile_sums(r0: u32, a: u32, lid: u32, first: u32, n: u32, outflow: bool) {
    workgroupBarrier();
    let rs = u.ns + 1u;
    for (var t = lid; t < n; t += WG) {
        var m = 0.0;
        for (var k = 0u; k < u.ns; k++) {
            m += tile[t * rs + k];
        }
        let ps = line_psi(r0, first + t);
        let out = select(0.0, tile[t * rs + u.ns] * (ps * u.area), outflow);
        put(a, first + t, vec2<f32>(m * (ps * u.volume), out));
    }
    workgroupBarrier();
}

fn rescale(a: u32, lid: u32, f: f32) {
    let base = a * u.block;
    for (var e = lid; e < u.lines * u.ns; e += WG) {
        bound[base + e] *= f;
    }
}

// What a tile pass sums per line: the mask (the Psi weight W = sum 1_D Psi dV), M_b (the
// coarse integral), or an RK2 stage's result.
const WEIGHT: u32 = 0u;
const COARSE: u32 = 1u;
const STAGE_ONE: u32 = 2u;
const STAGE_TWO: u32 = 3u;

// M_b, or the RK2 stage where `staged`.
fn source(i: u32, staged: bool) -> f32 {
    if staged {
        return stage[i];
    }
    return bound[i];
}

// Element i of M_b (mask index mi, arc cell k) in a pass of `kind`: the value summed and, for
// stage 2, the outflow h (y + y1) / 2 (used at the plus end). Stage 1: y1 = y + h f(y) into the
// stage. Stage 2: y = (y + y1 + h f(y1)) / 2 into M_b.
fn element(kind: u32, i: u32, mi: u32, k: u32, h: f32, mf: f32) -> vec2<f32> {
    if kind == WEIGHT {
        return vec2<f32>(mask(mi), 0.0);
    }
    if kind == COARSE {
        return vec2<f32>(bound[i], 0.0);
    }
    let second = kind == STAGE_TWO;
    let y = source(i, second);
    let m1 = select(0.0, source(i - min(k, 1u), second), k > 0u);
    let m2 = select(0.0, source(i - min(k, 2u), second), k > 1u);
    let p1 = source(i + select(0u, 1u, k + 1u < u.ns), second);
    let d = walk_difference(m2, m1, y, p1, k);
    let r = mask(mi) * (-d * u.walk - u.k_off * y + u.k_on * mf);
    if second {
        let old = bound[i];
        let y2 = 0.5 * (old + (y + h * r));
        bound[i] = y2;
        return vec2<f32>(y2, 0.5 * h * (old + y));
    }
    let y1 = y + h * r;
    stage[i] = y1;
    return vec2<f32>(y1, 0.0);
}

// A pass of `kind` over the anchor's elements (adjacent threads on adjacent s), a tile of lines
// at a time, then the partials of the lines' sums.
fn tile_pass(r0: u32, a: u32, lid: u32, kind: u32, h: f32, mf: f32) {
    let tl = tile_lines();
    let rs = u.ns + 1u;
    let base = a * u.block;
    for (var first = 0u; first < u.lines; first += tl) {
        let n = min(tl, u.lines - first);
        for (var e = lid; e < n * u.ns; e += WG) {
            let k = e % u.ns;
            let v = element(kind, base + first * u.ns + e, first * u.ns + e, k, h, mf);
            let t = e / u.ns;
            tile[t * rs + k] = v.x;
            if k + 1u == u.ns {
                tile[t * rs + u.ns] = v.y;
            }
        }
        put_tile_sums(r0, a, lid, first, n, kind == STAGE_TWO);
    }
}

@compute @workgroup_size(WG)
fn evolve(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let a = wid.x + groups.x * (wid.y + groups.y * wid.z);
    if a >= chunk.count {
        return;
    }
    let r0 = chunk.first + a;
    // Zero padding slots (the tree never writes them: lines > lines_pow2 / 2).
    for (var l = u.lines + lid; l < u.lines_pow2; l += WG) {
        put(a, l, vec2<f32>(0.0));
    }
    // W = sum 1_D Psi dV, then the local sub-step.
    tile_pass(r0, a, lid, WEIGHT, 0.0, 0.0);
    let w = reduce(a, lid).x;
    // Capped (motors.rs MAX_SUBSTEPS) so that a huge weight cannot stall the GPU.
    let n = u32(clamp(ceil(clock.dt * (u.rate_base + u.k_on * w)), 1.0, 65536.0));
    let h = clock.dt / f32(n);
    let total = state[r0].x;
    tile_pass(r0, a, lid, COARSE, 0.0, 0.0);
    var c = reduce(a, lid).x;
    if c > total {
        rescale(a, lid, total / c);
        c = total;
    }
    var walked = 0.0;
    for (var sub = 0u; sub < n; sub++) {
        // M_b as the last stage or a rescaling (under a branch: no barrier there) left it.
        storageBarrier();
        tile_pass(r0, a, lid, STAGE_ONE, h, total - c);
        let mf1 = total - reduce(a, lid).x;
        tile_pass(r0, a, lid, STAGE_TWO, h, mf1);
        let sums = reduce(a, lid);
        walked += sums.y;
        c = sums.x;
        if c > total {
            rescale(a, lid, total / c);
            c = total;
        }
    }
    if lid == 0u {
        let s = state[r0];
        state[r0] = vec4<f32>(total, c, total - c, s.w + walked);
    }
}

// Anchor of head offset e for cell (i, j): r0 = (i, j) - e, periodic.
fn head_anchor(i: i32, j: i32, e: u32) -> u32 {
    let hx = bitcast<i32>(tables[u.heads_at + 2u * e]);
    let hy = bitcast<i32>(tables[u.heads_at + 2u * e + 1u]);
    return wrap(j - hy, u.ny) * u.nx + wrap(i - hx, u.nx);
}

// The sum over head offset e's items (d, theta, s) of p Psi M_b: the heads of anchor r0 that
// land on the cell.
fn head_sum(r0: u32, e: u32) -> vec2<f32> {
    let per_offset = u.ntheta * u.ns;
    let at = (r0 - chunk.first) * u.block;
    var sum = vec2<f32>(0.0);
    for (var q = tables[u.start_at + e]; q < tables[u.start_at + e + 1u]; q++) {
        let item = tables[u.items_at + q];
        let th = (item / u.ns) % u.ntheta;
        let v = bound[at + item] * psi_at(r0, offset_of(item / per_offset), th);
        let p = vec2<f32>(
            bitcast<f32>(tables[u.p_at + 2u * th]),
            bitcast<f32>(tables[u.p_at + 2u * th + 1u]),
        );
        sum.x += p.x * v;
        sum.y += p.y * v;
    }
    return sum;
}

// The force on cell x: the head offsets' sums added in table order e (the same for every cell:
// no divergence within a warp), so the additions and their order do not depend on how the
// anchors are split. A chunk before the last leaves the sums of its anchors' offsets in
// force_parts (e, x); the last chunk adds every offset's sum, its own or the one left there,
// and scales the total.
@compute @workgroup_size(WG)
fn force(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let x = dispatch_index(gid, groups, WG);
    if x >= u.anchors {
        return;
    }
    let i = i32(x % u.nx);
    let j = i32(x / u.nx);
    let end_anchor = chunk.first + chunk.count;
    var total = vec2<f32>(0.0);
    for (var e = 0u; e < u.n_heads; e++) {
        let r0 = head_anchor(i, j, e);
        let mine = r0 >= chunk.first && r0 < end_anchor;
        if chunk.last == 0u {
            if mine {
                force_parts[e * u.anchors + x] = head_sum(r0, e);
            }
        } else if mine {
            total += head_sum(r0, e);
        } else {
            total += force_parts[e * u.anchors + x];
        }
    }
    if chunk.last != 0u {
        force_out[x] = u.force_scale * total;
    }
}
