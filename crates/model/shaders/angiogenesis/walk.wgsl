//!fragment
//!include common/step.wgsl
//!include common/rng.wgsl
//!include angiogenesis/common.wgsl
// The tips' walk within one step, sampled exactly by uniformization (the reasoning is in
// crates/model/src/angiogenesis/walk.rs): a Poisson(L) number of events, drawn from the
// thresholds in walk_table; at each, the tip moves with probability W / L, W the sum of its
// clipped move weights w_d at its current site, along d with probability w_d / W, else stays.
// The stays before the next move are drawn at once (stays_before_move), so a step costs draws
// per move, not per event. Includers declare p, c_in and f_in (the current c and f) and
// walk_table. Draws: the count from Philox(seed, step, tip, stream 1).x, then the walk's j-th
// uniform from Threefry(seed, step, tip, stream 2 + j/4), component j%4. CPU twin: cpu.rs
// (Walker).

// Neighbour of site i in direction d (1..6: -x,+x,-y,+y,-z,+z), or FREE when outside the grid.
fn neighbour(i: u32, d: u32) -> u32 {
    let q = site_coords(p, i);
    switch d {
        case 1u: { if q.x == 0u { return FREE; } return i - 1u; }
        case 2u: { if q.x + 1u == p.nx { return FREE; } return i + 1u; }
        case 3u: { if q.y == 0u { return FREE; } return i - p.nx; }
        case 4u: { if q.y + 1u == p.ny { return FREE; } return i + p.nx; }
        case 5u: { if q.z == 0u { return FREE; } return i - p.nx * p.ny; }
        case 6u: { if q.z + 1u == p.nz { return FREE; } return i + p.nx * p.ny; }
        default: { return i; }
    }
}

// A tip's walk through one step: where it is, how many events the step has and how many have
// passed, how many uniforms it has drawn (and the current four), and the running sums of its move
// weights there (-x, +x, -y, +y, -z, +z).
struct Walker {
    site: u32,
    events: u32,
    next: u32,
    drawn: u32,
    draws: vec4<u32>,
    a1: f32, a2: f32, a3: f32, a4: f32, a5: f32, a6: f32,
}

// The step's event count for a uniform 32-bit draw (WalkTable::count).
fn walk_count(x: u32) -> u32 {
    var lo = 0u;
    var hi = arrayLength(&walk_table) - 1u;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if x >= walk_table[mid] {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The running sums of the clipped move weights at the walker's site.
fn walker_weights(w: ptr<function, Walker>) {
    let s = (*w).site;
    let q = site_coords(p, s);
    let nb = neighbours(p, q.x, q.y, q.z);
    let st = Stencil(
        c_in[s], c_in[nb.xm], c_in[nb.xp], c_in[nb.ym], c_in[nb.yp], c_in[nb.zm], c_in[nb.zp],
        f_in[s], f_in[nb.xm], f_in[nb.xp], f_in[nb.ym], f_in[nb.yp], f_in[nb.zm], f_in[nb.zp],
    );
    let m = clip_moves(p, coefficients(p, st), nb.lo, nb.hi);
    (*w).a1 = m.wxm;
    (*w).a2 = (*w).a1 + m.wxp;
    (*w).a3 = (*w).a2 + m.wym;
    (*w).a4 = (*w).a3 + m.wyp;
    (*w).a5 = (*w).a4 + m.wzm;
    (*w).a6 = (*w).a5 + m.wzp;
}

// Tip t's walker at `site` at the start of the step; `count_draw` is Philox stream 1's x.
fn walker_start(site: u32, count_draw: u32) -> Walker {
    var w = Walker(site, walk_count(count_draw), 0u, 0u, vec4<u32>(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    walker_weights(&w);
    return w;
}

// The walk's next uniform 32-bit draw.
fn walker_draw(w: ptr<function, Walker>, t: u32) -> u32 {
    let j = (*w).drawn;
    (*w).drawn = j + 1u;
    if j % 4u == 0u {
        (*w).draws = threefry_u32x4(step_seed(), step_info.step, t, 2u + j / 4u);
    }
    return (*w).draws[j % 4u];
}

// The stays before the next move when each event moves with probability e0: the largest m with
// 1 - (1 - e0)^m < u for a uniform u in (0, 1], so P(m >= j) = (1 - e0)^j; at most 2047 (more
// than any step's events). Binary descent over e_i = 1 - (1 - e0)^(2^i), kept as complements so
// a small e0 keeps its digits; multiplications and additions only, so the CPU twin (walk.rs,
// stays_before_move) gets the same m from the same u.
fn stays_before_move(e0: f32, u: f32) -> u32 {
    var e = array<f32, 11>();
    e[0] = e0;
    for (var i = 1u; i < 11u; i++) {
        e[i] = e[i - 1u] * (2.0 - e[i - 1u]);
    }
    var a = 0.0;
    var m = 0u;
    for (var i = 11u; i > 0u; i--) {
        let c = a + e[i - 1u] * (1.0 - a);
        if c < u {
            a = c;
            m += 1u << (i - 1u);
        }
    }
    return m;
}

// Runs tip t's walk to its next move and returns the site moved to, or FREE when the step's
// events are spent. The move goes along the first d whose running sum exceeds x = v W (v a
// uniform in [0, 1 - 2^-24]: x < W, as the product rounds below W).
fn walker_next(w: ptr<function, Walker>, t: u32) -> u32 {
    let left = (*w).events - (*w).next;
    if left == 0u {
        return FREE;
    }
    let total = (*w).a6;
    let u = 1.0 - rng_unit(walker_draw(w, t));
    let stays = stays_before_move(min(total / p.walk_events, 1.0), u);
    if stays >= left {
        (*w).next = (*w).events;
        return FREE;
    }
    (*w).next += stays + 1u;
    let x = rng_unit(walker_draw(w, t)) * total;
    var d = 6u;
    if x < (*w).a1 {
        d = 1u;
    } else if x < (*w).a2 {
        d = 2u;
    } else if x < (*w).a3 {
        d = 3u;
    } else if x < (*w).a4 {
        d = 4u;
    } else if x < (*w).a5 {
        d = 5u;
    }
    (*w).site = neighbour((*w).site, d);
    walker_weights(w);
    return (*w).site;
}
