//!include common/step.wgsl
//!include common/dispatch.wgsl
//!include gliding/clock_state.wgsl
// The bound motors' passes (crates/model/src/gliding/motors.rs): `evolve`, one workgroup per
// anchor r0 (seed eqs. 4-6 over one outer step in local sub-steps dt*), and `force`, one thread
// per cell (the gather of seed eq. 10). Both run once per chunk of anchors (`chunk`), whose M_b
// and stage are the bound buffers. M_b is (r0, d, theta, s), s innermost. Each thread of
// `evolve` owns whole (d, theta) lines (l = local index, + WG, ..), in both RK2 stages, so
// threads only meet in the coarse integrals: per-line sums in s order, then a pairwise tree over
// a power of two of slots whose additions do not depend on the thread that does them. The bits
// therefore do not depend on the workgroup size. No atomics. CPU reference: motors_cpu.rs.

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

var<workgroup> reduced: vec2<f32>;

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

// Partials of the coarse integral of anchor r0's lines of M_b (the chunk's anchor a).
fn coarse_partials(r0: u32, a: u32, lid: u32) {
    for (var l = lid; l < u.lines; l += WG) {
        let at = a * u.block + l * u.ns;
        var m = 0.0;
        for (var k = 0u; k < u.ns; k++) {
            m += bound[at + k];
        }
        put(a, l, vec2<f32>(m * (line_psi(r0, l) * u.volume), 0.0));
    }
}

fn rescale(a: u32, lid: u32, f: f32) {
    for (var l = lid; l < u.lines; l += WG) {
        let at = a * u.block + l * u.ns;
        for (var k = 0u; k < u.ns; k++) {
            bound[at + k] *= f;
        }
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
    for (var l = lid; l < u.lines; l += WG) {
        var m = 0.0;
        for (var k = 0u; k < u.ns; k++) {
            m += mask(l * u.ns + k);
        }
        put(a, l, vec2<f32>(m * (line_psi(r0, l) * u.volume), 0.0));
    }
    let w = reduce(a, lid).x;
    // Capped (motors.rs MAX_SUBSTEPS) so that a huge weight cannot stall the GPU.
    let n = u32(clamp(ceil(clock.dt * (u.rate_base + u.k_on * w)), 1.0, 65536.0));
    let h = clock.dt / f32(n);
    let total = state[r0].x;
    coarse_partials(r0, a, lid);
    var c = reduce(a, lid).x;
    if c > total {
        rescale(a, lid, total / c);
        c = total;
    }
    var walked = 0.0;
    for (var sub = 0u; sub < n; sub++) {
        // Stage 1: y1 = y + h f(y).
        let mf0 = total - c;
        for (var l = lid; l < u.lines; l += WG) {
            let at = a * u.block + l * u.ns;
            let ma = l * u.ns;
            var back = 0.0;
            var prev = 0.0;
            var m = 0.0;
            for (var k = 0u; k < u.ns; k++) {
                let y = bound[at + k];
                let last = k + 1u == u.ns;
                let next = select(bound[at + min(k + 1u, u.ns - 1u)], y, last);
                let f = face(prev, y, next, last);
                let r = mask(ma + k) * (-(f - back) * u.walk - u.k_off * y + u.k_on * mf0);
                let y1 = y + h * r;
                stage[at + k] = y1;
                m += y1;
                back = f;
                prev = y;
            }
            put(a, l, vec2<f32>(m * (line_psi(r0, l) * u.volume), 0.0));
        }
        let mf1 = total - reduce(a, lid).x;
        // Stage 2: y = (y + y1 + h f(y1)) / 2, and what walked off the plus end.
        for (var l = lid; l < u.lines; l += WG) {
            let at = a * u.block + l * u.ns;
            let ma = l * u.ns;
            let ps = line_psi(r0, l);
            let out = 0.5 * h * (bound[at + u.ns - 1u] + stage[at + u.ns - 1u]);
            var back = 0.0;
            var prev = 0.0;
            var m = 0.0;
            for (var k = 0u; k < u.ns; k++) {
                let y = stage[at + k];
                let last = k + 1u == u.ns;
                let next = select(stage[at + min(k + 1u, u.ns - 1u)], y, last);
                let f = face(prev, y, next, last);
                let r = mask(ma + k) * (-(f - back) * u.walk - u.k_off * y + u.k_on * mf1);
                let y2 = 0.5 * (bound[at + k] + (y + h * r));
                bound[at + k] = y2;
                m += y2;
                back = f;
                prev = y;
            }
            put(a, l, vec2<f32>(m * (ps * u.volume), out * (ps * u.area)));
        }
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

fn row_start(g: u32) -> u32 {
    return tables[u.rows_at + g];
}

// Adds the heads on cell x of the chunk's anchors to the sum the chunks before it left in
// force_out (raw), in ascending r0, so the additions and their order do not depend on how the
// anchors are split. Heads are in (y, x) order, so walking them backwards gives ascending
// anchors up to the periodic wrap, which only rotates the rows (and the heads of a row: the
// stencil spans under a period): start each walk at its lowest anchor.
@compute @workgroup_size(WG)
fn force(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let x = dispatch_index(gid, groups, WG);
    if x >= u.anchors {
        return;
    }
    let i = i32(x % u.nx);
    let j = i32(x / u.nx);
    let per_offset = u.ntheta * u.ns;
    let end_anchor = chunk.first + chunk.count;
    var sum = vec2<f32>(0.0);
    if chunk.first != 0u {
        sum = force_out[x];
    }
    var g0 = 0u;
    for (var g = 1u; g < u.n_rows; g++) {
        if head_anchor(i, j, row_start(g)) < head_anchor(i, j, row_start(g0)) {
            g0 = g;
        }
    }
    for (var a = 0u; a < u.n_rows; a++) {
        let g = (g0 + u.n_rows - a) % u.n_rows;
        let row = row_start(g);
        let count = row_start(g + 1u) - row;
        var h0 = 0u;
        for (var h = 1u; h < count; h++) {
            if head_anchor(i, j, row + h) < head_anchor(i, j, row + h0) {
                h0 = h;
            }
        }
        for (var b = 0u; b < count; b++) {
            let e = row + (h0 + count - b) % count;
            let r0 = head_anchor(i, j, e);
            if r0 < chunk.first || r0 >= end_anchor {
                continue;
            }
            let at = (r0 - chunk.first) * u.block;
            let first = tables[u.start_at + e];
            let end = tables[u.start_at + e + 1u];
            for (var q = first; q < end; q++) {
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
        }
    }
    force_out[x] = select(sum, u.force_scale * sum, chunk.last != 0u);
}
