//! CPU reference of one step, written to mirror the shaders operation by operation:
//! `tip_move` = tips_move.wgsl, `tip_commit` = tips_scan.wgsl + tips_spawn.wgsl, `weight_sums`
//! then `update_site` = fields.wgsl (the continuous coupling), `discrete_site` =
//! fields_discrete.wgsl (A&C's discrete coupling). The GPU's one field pass works W of each site out in
//! workgroup memory as it goes; the CPU keeps W of every site in an array first, with the same
//! f32 operations.
//! Tests compare the GPU against it; `fields_step_parallel` (rayon) is the multithreaded CPU
//! baseline of the benchmark.

use super::params::{branch_probability, chi};
use super::state::{AngioState, Counter, Segment, Tip, FREE};
use super::uniforms::AngioUniforms;
use super::walk::{stays_before_move, WalkTable};
use petri_engine::rng;
use rayon::prelude::*;

/// Neighbour of site i in direction d (1..6: -x,+x,-y,+y,-z,+z); None outside the grid.
fn neighbour(u: &AngioUniforms, i: u32, d: u32) -> Option<u32> {
    let [x, y, z] = u.coords(i);
    match d {
        1 => (x > 0).then(|| i - 1),
        2 => (x + 1 < u.nx).then(|| i + 1),
        3 => (y > 0).then(|| i - u.nx),
        4 => (y + 1 < u.ny).then(|| i + u.nx),
        5 => (z > 0).then(|| i - u.nx * u.ny),
        6 => (z + 1 < u.nz).then(|| i + u.nx * u.ny),
        _ => Some(i),
    }
}

/// The seven coefficients of the explicit scheme at a site, from the 7-point stencils of c and f
/// (neighbours outside the grid replaced by the site): [P0, -x, +x, -y, +y, -z, +z].
pub fn coefficients(u: &AngioUniforms, c0: f32, f0: f32, cn: [f32; 6], fn_: [f32; 6]) -> [f32; 7] {
    let [cxm, cxp, cym, cyp, czm, czp] = cn;
    let [fxm, fxp, fym, fyp, fzm, fzp] = fn_;
    let (dcx, dcy, dcz) = (cxp - cxm, cyp - cym, czp - czm);
    let (dfx, dfy, dfz) = (fxp - fxm, fyp - fym, fzp - fzm);
    let lapc = (cxp + cxm) + (cyp + cym) + (czp + czm) - 6.0 * c0;
    let lapf = (fxp + fxm) + (fyp + fym) + (fzp + fzm) - 6.0 * f0;
    let ch = chi(u.chi0, u.alpha, c0);
    let r = u.k * u.d * u.inv_h2;
    let a = 0.25 * u.k * u.inv_h2;
    let kh = u.k * u.inv_h2;
    let tx = ch * dcx + u.rho * dfx;
    let ty = ch * dcy + u.rho * dfy;
    let tz = ch * dcz + u.rho * dfz;
    let grad2 = dcx * dcx + dcy * dcy + dcz * dcz;
    let p0 = 1.0 - (2 * u.dims) as f32 * r + a * u.alpha * ch / (1.0 + u.alpha * c0) * grad2
        - kh * (ch * lapc + u.rho * lapf);
    [
        p0,
        r - a * tx,
        r + a * tx,
        r - a * ty,
        r + a * ty,
        r - a * tz,
        r + a * tz,
    ]
}

/// The tips' move weights: coefficients clipped at 0, no moves through the walls (clip_moves).
pub fn clip_moves(q: [f32; 7], inside: [bool; 6]) -> [f32; 7] {
    let mut out = q;
    out[0] = out[0].max(0.0);
    for d in 1..7 {
        out[d] = if inside[d - 1] { out[d].max(0.0) } else { 0.0 };
    }
    out
}

/// Sum of the weights, in the shader's order (weight_sum).
pub fn weight_sum(w: [f32; 7]) -> f32 {
    w[0] + (w[1] + w[2]) + (w[3] + w[4]) + (w[5] + w[6])
}

fn inside(u: &AngioUniforms, i: u32) -> [bool; 6] {
    let [x, y, z] = u.coords(i);
    [
        x > 0,
        x + 1 < u.nx,
        y > 0,
        y + 1 < u.ny,
        z > 0,
        z + 1 < u.nz,
    ]
}

fn stencil(u: &AngioUniforms, v: &[f32], i: u32) -> [f32; 6] {
    let at = |d| v[neighbour(u, i, d).unwrap_or(i) as usize];
    [at(1), at(2), at(3), at(4), at(5), at(6)]
}

/// The clipped weights of site i (fields.wgsl and tips_move.wgsl).
pub fn site_weights(u: &AngioUniforms, i: u32, f: &[f32], c: &[f32]) -> [f32; 7] {
    let iu = i as usize;
    clip_moves(
        coefficients(u, c[iu], f[iu], stencil(u, c, i), stencil(u, f, i)),
        inside(u, i),
    )
}

/// W, the sum of the clipped weights at a site, -1 where all are 0 (fields.wgsl, site).
pub fn weight_sum_or_stuck(w: [f32; 7]) -> f32 {
    let s = weight_sum(w);
    if s <= 0.0 {
        -1.0
    } else {
        s
    }
}

/// W at every site (fields.wgsl works each out once per step in workgroup memory).
pub fn weight_sums(u: &AngioUniforms, f: &[f32], c: &[f32]) -> Vec<f32> {
    (0..u.ncells)
        .map(|i| weight_sum_or_stuck(site_weights(u, i, f, c)))
        .collect()
}

/// What neighbour j sends into i: n(j) over W(j), times its move weight toward i (fields.wgsl,
/// column_sends). The weight here is worked out with the same f32 operations as `clip_moves` of
/// j's coefficients gives it (i is inside the grid), without the rest of j's coefficients.
fn inflow(
    u: &AngioUniforms,
    (n, f, c, w): (&[f32], &[f32], &[f32], &[f32]),
    j: u32,
    i: u32,
    jf: u32,
    toward_plus: bool,
) -> f32 {
    let (j, i, jf) = (j as usize, i as usize, jf as usize);
    let (dc, df) = if toward_plus {
        (c[i] - c[jf], f[i] - f[jf])
    } else {
        (c[jf] - c[i], f[jf] - f[i])
    };
    let t = chi(u.chi0, u.alpha, c[j]) * dc + u.rho * df;
    let r = u.k * u.d * u.inv_h2;
    let a = 0.25 * u.k * u.inv_h2;
    let q = if toward_plus { r + a * t } else { r - a * t };
    (n[j] / w[j]) * q.max(0.0)
}

/// New (n, f, c) at site i, given the weight sums `w` of the current step.
pub fn update_site(
    u: &AngioUniforms,
    i: u32,
    n: &[f32],
    f: &[f32],
    c: &[f32],
    occ: &[u32],
    w: &[f32],
) -> (f32, f32, f32) {
    let iu = i as usize;
    let (n0, f0, c0) = (n[iu], f[iu], c[iu]);
    let p0 = coefficients(u, c0, f0, stencil(u, c, i), stencil(u, f, i))[0].max(0.0);
    let mut n1 = if w[iu] < 0.0 { n0 } else { (n0 / w[iu]) * p0 };
    let [x, y, z] = u.coords(i);
    let (sy, sz) = (u.nx, u.nx * u.ny);
    let fields = (n, f, c, w);
    if x > 0 {
        let j = i - 1;
        n1 += inflow(u, fields, j, i, if x > 1 { j - 1 } else { j }, true);
    }
    if x + 1 < u.nx {
        let j = i + 1;
        n1 += inflow(u, fields, j, i, if x + 2 < u.nx { j + 1 } else { j }, false);
    }
    if y > 0 {
        let j = i - sy;
        n1 += inflow(u, fields, j, i, if y > 1 { j - sy } else { j }, true);
    }
    if y + 1 < u.ny {
        let j = i + sy;
        n1 += inflow(
            u,
            fields,
            j,
            i,
            if y + 2 < u.ny { j + sy } else { j },
            false,
        );
    }
    if z > 0 {
        let j = i - sz;
        n1 += inflow(u, fields, j, i, if z > 1 { j - sz } else { j }, true);
    }
    if z + 1 < u.nz {
        let j = i + sz;
        n1 += inflow(
            u,
            fields,
            j,
            i,
            if z + 2 < u.nz { j + sz } else { j },
            false,
        );
    }
    let m = if occ[iu] != FREE { 1.0 } else { n0 };
    (
        n1,
        f0 + u.k * (u.beta * m - u.gamma * m * f0),
        c0 - u.k * u.eta * m * c0,
    )
}

/// New (n, f, c) at site i in A&C's discrete model: the cell density is m = 1 at an occupied
/// site, 0 elsewhere, and only there do f and c change (fields_discrete.wgsl); the same f32
/// operations as `update_site` with m for its n.
pub fn discrete_site(
    u: &AngioUniforms,
    i: usize,
    f: &[f32],
    c: &[f32],
    occ: &[u32],
) -> (f32, f32, f32) {
    let m = if occ[i] != FREE { 1.0 } else { 0.0 };
    let (f0, c0) = (f[i], c[i]);
    (
        m,
        f0 + u.k * (u.beta * m - u.gamma * m * f0),
        c0 - u.k * u.eta * m * c0,
    )
}

/// The field update of one step, single-threaded.
pub fn fields_step(u: &AngioUniforms, s: &mut AngioState) {
    let cells = u.ncells as usize;
    if u.discrete != 0 {
        for i in 0..cells {
            (s.n[i], s.f[i], s.c[i]) = discrete_site(u, i, &s.f, &s.c, &s.occ);
        }
        return;
    }
    let w = weight_sums(u, &s.f, &s.c);
    let (mut n1, mut f1, mut c1) = (vec![0.0; cells], vec![0.0; cells], vec![0.0; cells]);
    for i in 0..cells {
        (n1[i], f1[i], c1[i]) = update_site(u, i as u32, &s.n, &s.f, &s.c, &s.occ, &w);
    }
    (s.n, s.f, s.c) = (n1, f1, c1);
}

/// The field update of one step on all CPU cores (z-planes in parallel), into `out`; `w` is
/// scratch space for the weight sums.
pub fn fields_step_parallel(
    u: &AngioUniforms,
    input: (&[f32], &[f32], &[f32], &[u32]),
    w: &mut [f32],
    out: (&mut [f32], &mut [f32], &mut [f32]),
) {
    let plane = (u.nx * u.ny) as usize;
    let (n, f, c, occ) = input;
    if u.discrete != 0 {
        out.0
            .par_iter_mut()
            .zip(out.1.par_iter_mut())
            .zip(out.2.par_iter_mut())
            .enumerate()
            .for_each(|(i, ((pn, pf), pc))| (*pn, *pf, *pc) = discrete_site(u, i, f, c, occ));
        return;
    }
    w.par_chunks_mut(plane).enumerate().for_each(|(z, pw)| {
        for (j, wj) in pw.iter_mut().enumerate() {
            *wj = weight_sum_or_stuck(site_weights(u, (z * plane + j) as u32, f, c));
        }
    });
    let w = &*w;
    out.0
        .par_chunks_mut(plane)
        .zip(out.1.par_chunks_mut(plane))
        .zip(out.2.par_chunks_mut(plane))
        .enumerate()
        .for_each(|(z, ((pn, pf), pc))| {
            for j in 0..plane {
                let i = (z * plane + j) as u32;
                (pn[j], pf[j], pc[j]) = update_site(u, i, n, f, c, occ, w);
            }
        });
}

/// A tip's walk through one step (walk.wgsl, Walker): where it is, the step's event count and
/// the events passed, the uniforms drawn (and the current four), and the running sums of its
/// move weights there (-x, +x, -y, +y, -z, +z).
struct Walker {
    site: u32,
    events: u32,
    next: u32,
    drawn: u32,
    draws: [u32; 4],
    sums: [f32; 6],
}

impl Walker {
    /// Tip t's walker at `site` at the start of the step (walker_start).
    fn start(
        u: &AngioUniforms,
        walk: &WalkTable,
        s: &AngioState,
        site: u32,
        count_draw: u32,
    ) -> Self {
        let mut w = Walker {
            site,
            events: walk.count(count_draw),
            next: 0,
            drawn: 0,
            draws: [0; 4],
            sums: [0.0; 6],
        };
        w.weights(u, s);
        w
    }

    /// The running sums of the clipped move weights at the walker's site (walker_weights).
    fn weights(&mut self, u: &AngioUniforms, s: &AngioState) {
        let m = site_weights(u, self.site, &s.f, &s.c);
        let mut acc = 0.0f32;
        for d in 0..6 {
            acc += m[d + 1];
            self.sums[d] = acc;
        }
        // L bounds the total move weight at any site (AngioConfig::walk_events).
        debug_assert!(
            acc <= u.walk_events * (1.0 + 1e-5),
            "move weights {acc} above L = {} at site {}",
            u.walk_events,
            self.site
        );
    }

    /// The walk's next uniform 32-bit draw (walker_draw).
    fn draw(&mut self, seed: u64, step: u64, t: u32) -> u32 {
        let j = self.drawn;
        self.drawn += 1;
        if j.is_multiple_of(4) {
            self.draws = rng::threefry_u32x4(seed, step as u32, t, 2 + j / 4);
        }
        self.draws[(j % 4) as usize]
    }

    /// Runs tip t's walk to its next move and returns the site moved to, or None when the
    /// step's events are spent (walker_next).
    fn next(&mut self, u: &AngioUniforms, seed: u64, s: &AngioState, t: u32) -> Option<u32> {
        let left = self.events - self.next;
        if left == 0 {
            return None;
        }
        let total = self.sums[5];
        let v = 1.0 - rng::unit(self.draw(seed, s.step, t));
        let stays = stays_before_move((total / u.walk_events).min(1.0), v);
        if stays >= left {
            self.next = self.events;
            return None;
        }
        self.next += stays + 1;
        let x = rng::unit(self.draw(seed, s.step, t)) * total;
        // The first direction whose running sum exceeds x (x < the total: unit() <= 1 - 2^-24,
        // and the product rounds below the total).
        let d = self
            .sums
            .iter()
            .position(|&a| x < a)
            .expect("x below the total");
        self.site =
            neighbour(u, self.site, d as u32 + 1).expect("moves out of the grid have weight 0");
        self.weights(u, s);
        Some(self.site)
    }
}

/// What one tip did in a step: the sites it moved through, in order, and its branch wish.
#[derive(Clone, Debug, Default)]
pub struct TipStep {
    pub path: Vec<u32>,
    pub wish: Option<u32>,
}

/// One tip's walk and branch wish (tips_move.wgsl).
pub fn tip_move(
    u: &AngioUniforms,
    walk: &WalkTable,
    seed: u64,
    s: &mut AngioState,
    t: u32,
) -> TipStep {
    let mut tip = s.tips[t as usize];
    let mut out = TipStep::default();
    if tip.alive == 0 {
        return out;
    }
    let rnd = rng::u32x4(seed, s.step as u32, t, 1);
    let mut w = Walker::start(u, walk, s, tip.site, rnd[0]);
    while let Some(s1) = w.next(u, seed, s, t) {
        out.path.push(s1);
        if u.anastomosis != 0 && meets_other_sprout(u, s, t, tip.parent, s1) {
            tip.alive = 0;
            s.counters[Counter::Anastomoses as usize] += 1;
        }
        let slot = s.counters[Counter::Segments as usize];
        s.counters[Counter::Segments as usize] += 1;
        if slot < u.max_segments {
            s.segments.push([tip.site, s1, t, s.step as u32] as Segment);
        } else {
            s.counters[Counter::SegmentOverflow as usize] += 1;
        }
        if tip.alive != 0 && u.in_tumour(s1) {
            tip.alive = 0;
            s.counters[Counter::Reached as usize] += 1;
        }
        tip.site = s1;
        if tip.alive == 0 {
            break;
        }
    }
    let age_before = tip.age;
    tip.age += u.k;
    if u.branching != 0 && tip.alive != 0 && u.branch_trial(age_before, tip.age) {
        // The tip's trail of this step around its site: occupied, though marked only after it.
        let trail = out
            .path
            .iter()
            .filter(|&&j| s.occ[j as usize] == FREE)
            .fold(0u32, |bits, &j| bits | block_bit(u, tip.site, j));
        if rng::unit(rnd[1]) < branch_probability(s.c[tip.site as usize])
            && dense_enough(u, s, tip.site, trail)
        {
            let free: Vec<u32> = (1..7)
                .filter_map(|d| neighbour(u, tip.site, d))
                .filter(|&j| s.occ[j as usize] == FREE && trail & block_bit(u, tip.site, j) == 0)
                .collect();
            if !free.is_empty() {
                let pick = ((rng::unit(rnd[2]) * free.len() as f32) as usize).min(free.len() - 1);
                out.wish = Some(free[pick]);
            }
        }
    }
    s.tips[t as usize] = tip;
    out
}

/// Whether tip t (of parent `parent`), entering `site`, meets another sprout's trail there: on
/// the site itself, or with capture on a face neighbour of it (tips_move.wgsl, meets_other_sprout).
fn meets_other_sprout(u: &AngioUniforms, s: &AngioState, t: u32, parent: u32, site: u32) -> bool {
    let last = if u.capture != 0 { 6 } else { 0 };
    (0..=last).any(|d| {
        neighbour(u, site, d).is_some_and(|j| {
            let owner = s.occ[j as usize];
            owner != FREE && !kin(&s.tips, t, parent, owner)
        })
    })
}

/// Whether the sprout `owner` is tip t itself, t's parent, or a child of t: a tip does not
/// anastomose with its own family's trail (tips_move.wgsl, kin).
fn kin(tips: &[Tip], t: u32, parent: u32, owner: u32) -> bool {
    owner == t || owner == parent || tips[owner as usize].parent == t
}

/// Bit of site j in the 3x3x3 block around `centre` ((dx+1) + 3(dy+1) + 9(dz+1)), or 0 outside
/// it (tips_move.wgsl, block_bit).
fn block_bit(u: &AngioUniforms, centre: u32, j: u32) -> u32 {
    let (a, b) = (u.coords(centre), u.coords(j));
    let d = [0, 1, 2].map(|i| b[i] as i64 - a[i] as i64);
    if d.iter().any(|v| v.abs() > 1) {
        return 0;
    }
    1 << ((d[0] + 1) + 3 * (d[1] + 1) + 9 * (d[2] + 1))
}

/// A&C's density condition at a tip's site: c times the occupied sites of the 3x3x3 block
/// around it (3x3 in 2D, inside the grid, the site included), the tip's `trail` of this step
/// (block bits of sites occupancy does not hold yet) among them, exceeds n_b; always true for
/// n_b = 0 (tips_move.wgsl, dense_enough).
fn dense_enough(u: &AngioUniforms, s: &AngioState, site: u32, trail: u32) -> bool {
    if u.branch_density <= 0.0 {
        return true;
    }
    let [x, y, z] = u.coords(site);
    let range = |v: u32, n: u32| v.saturating_sub(1)..=(v + 1).min(n - 1);
    let mut occupied = trail.count_ones();
    for zz in range(z, u.nz) {
        for yy in range(y, u.ny) {
            for xx in range(x, u.nx) {
                occupied += (s.occ[u.index(xx, yy, zz)] != FREE) as u32;
            }
        }
    }
    s.c[site as usize] * occupied as f32 > u.branch_density
}

/// Marks the sites each tip moved through and its site as occupied, and turns wishes into new
/// tips in parent order (tips_scan.wgsl and tips_spawn.wgsl).
pub fn tip_commit(u: &AngioUniforms, s: &mut AngioState, moved: &[TipStep]) {
    let count = s.tips.len();
    for (i, step) in moved.iter().enumerate() {
        let end = s.tips[i].site;
        for &site in step.path.iter().chain([&end]) {
            s.occupy(site, i as u32);
        }
    }
    let mut next_slot = count as u32;
    for (i, step) in moved.iter().enumerate() {
        if let Some(site) = step.wish {
            if next_slot < u.max_tips {
                let age = u.branch_restart(s.tips[i].age);
                s.tips.push(Tip {
                    site,
                    age,
                    alive: 1,
                    parent: i as u32,
                });
                s.tips[i].age = age;
                s.occupy(site, next_slot);
            } else {
                s.counters[Counter::TipOverflow as usize] += 1;
            }
            next_slot += 1;
        }
    }
    let used = next_slot.min(u.max_tips);
    s.counters[Counter::Tips as usize] = used;
    s.counters[Counter::Branches as usize] += used - count as u32;
}

/// One whole step: tips move, tips commit, fields update (the GPU plan's pass order).
pub fn step(
    u: &AngioUniforms,
    walk: &WalkTable,
    seed: u64,
    tips_enabled: bool,
    s: &mut AngioState,
) {
    if tips_enabled {
        tips_step(u, walk, seed, s);
    }
    fields_step(u, s);
    s.step += 1;
}

/// The tips' part of a step: every tip walks, then the step's moves and wishes are committed.
pub fn tips_step(u: &AngioUniforms, walk: &WalkTable, seed: u64, s: &mut AngioState) {
    let moved: Vec<TipStep> = (0..s.tips.len() as u32)
        .map(|t| tip_move(u, walk, seed, s, t))
        .collect();
    tip_commit(u, s, &moved);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::angiogenesis::{
        params::{Capture, Coupling},
        AngioConfig,
    };

    /// W > 0 at every site for any fields: the two moves along an open axis sum to 2r > 0, and at
    /// a corner P0 = 1 - 6r + (alpha term) - (k/h^2) sum T >= 1 + 6r when every open move is
    /// clipped. So the -1 guard for W = 0 never fires; this checks the argument on rough fields,
    /// and that the update keeps sum(n) and n >= 0 there.
    #[test]
    fn weight_sum_is_positive_for_rough_fields() {
        let cfg = AngioConfig {
            grid: [6, 5, 4],
            coupling: Coupling::Continuous,
            ..AngioConfig::default()
        };
        let h = cfg.h();
        let u = AngioUniforms::new(&cfg, 0.9 * h * h / (6.0 * cfg.d));
        let mut s = AngioState::rough(&u, 3);
        let w = weight_sums(&u, &s.f, &s.c);
        assert!(w.iter().all(|&x| x > 0.0), "{w:?}");
        let total: f64 = s.n.iter().map(|&v| v as f64).sum();
        fields_step(&u, &mut s);
        let after: f64 = s.n.iter().map(|&v| v as f64).sum();
        assert!(((after - total) / total).abs() < 1e-6, "{total} -> {after}");
        assert!(s.n.iter().all(|&v| v >= 0.0 && v.is_finite()));
    }

    /// A tip entering a site beside another sprout's trail meets it with `faces`, not with
    /// `site`; a trail of its own family, a diagonal neighbour or a site two away never counts.
    #[test]
    fn capture_reaches_the_face_neighbours_of_the_site_entered() {
        for capture in [Capture::Site, Capture::Faces] {
            let mut cfg = AngioConfig {
                grid: [9, 9, 9],
                ..AngioConfig::default()
            };
            cfg.tips.capture = Some(capture);
            let u = AngioUniforms::new(&cfg, 0.001);
            let mut s = AngioState::uniform(&u, 0.0, 0.0, 0.0);
            for site in [u.index(2, 2, 2), u.index(6, 6, 8), u.index(2, 6, 2)] {
                s.add_tip(site as u32);
            }
            s.tips[2].parent = 0; // tip 2 is tip 0's child
            let at = |x, y, z| u.index(x, y, z) as u32;
            let faces = capture == Capture::Faces;
            // Tip 1 (no kin) beside tip 0's site; on it; diagonal to it; two sites away.
            assert_eq!(meets_other_sprout(&u, &s, 1, FREE, at(3, 2, 2)), faces);
            assert!(meets_other_sprout(&u, &s, 1, FREE, at(2, 2, 2)));
            assert!(!meets_other_sprout(&u, &s, 1, FREE, at(3, 3, 2)));
            assert!(!meets_other_sprout(&u, &s, 1, FREE, at(4, 2, 2)));
            // Tip 2 beside its parent's site, tip 0 beside its child's: family.
            assert!(!meets_other_sprout(&u, &s, 2, 0, at(3, 2, 2)));
            assert!(!meets_other_sprout(&u, &s, 0, FREE, at(2, 5, 2)));
            // On the grid's face (z = 8) the missing neighbour is skipped.
            assert_eq!(meets_other_sprout(&u, &s, 0, FREE, at(7, 6, 8)), faces);
        }
    }

    /// Without `tips.capture` a 2D grid meets on the site and a 3D one on the faces too.
    #[test]
    fn capture_defaults_by_dimension() {
        let mut cfg = AngioConfig::default();
        assert_eq!(cfg.capture(), Capture::Faces);
        cfg.grid = [101, 101, 1];
        assert_eq!(cfg.capture(), Capture::Site);
        cfg.tips.capture = Some(Capture::Faces);
        assert_eq!(cfg.capture(), Capture::Faces);
    }
}
