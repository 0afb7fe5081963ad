//! CPU reference of one RDME step, mirroring `shaders/rdme/{diffuse,react,resolve}.wgsl` on the
//! whole lattice: same random numbers, same arrival order, same f32 arithmetic. The tests
//! compare the GPU lattice with it site by site.

// The comparisons are written as the shaders write them (`!(u < q)`), so both round alike.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::config::{RdmeModel, SiteReaction, SITE_CAPACITY};
use super::lattice::{count, pack, unpack, Lattice};
use petri_engine::rng;

/// Counters the GPU keeps in the overflow header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverflowCounts {
    pub lost: u64,
    pub unresolved: u64,
    pub moved: u64,
}

const STREAM_REACTION: u32 = 12;

/// One overflow entry: (global site, tag) as in `shaders/rdme/common.wgsl`.
type Entry = (u32, u32);

pub struct CpuReference<'a> {
    pub model: &'a RdmeModel,
    pub lattice: Lattice,
    pub step: u64,
    pub counts: OverflowCounts,
}

impl<'a> CpuReference<'a> {
    pub fn new(model: &'a RdmeModel, lattice: Lattice) -> Self {
        Self {
            model,
            lattice,
            step: 0,
            counts: OverflowCounts::default(),
        }
    }

    pub fn run(&mut self, steps: u64) {
        for _ in 0..steps {
            self.step_once();
        }
    }

    pub fn step_once(&mut self) {
        let mut overflow = Vec::new();
        for axis in 0..3 {
            self.lattice = self.sweep(axis, &mut overflow);
        }
        self.react(&mut overflow);
        self.resolve(overflow);
        self.step += 1;
    }

    fn seed(&self) -> u64 {
        self.model.config.seed
    }

    fn sweep(&self, axis: u32, overflow: &mut Vec<Entry>) -> Lattice {
        let lat = &self.lattice;
        let [nx, ny, nz] = lat.shape;
        let (n, stride) = match axis {
            0 => (nx, 1usize),
            1 => (ny, nx as usize),
            _ => (nz, (nx * ny) as usize),
        };
        let mut out = Lattice::empty(lat.shape, lat.types.clone());
        let step = self.step as u32;
        let q = |a: u8, b: u8, s: u8| self.model.hop_q(a as u32, b as u32, s as u32);
        // Per particle: the uniform u of (site, slot).
        let draws = |g: usize| -> Vec<(u8, f32)> {
            let parts = lat.particles(g);
            parts
                .iter()
                .enumerate()
                .map(|(j, &s)| {
                    let r =
                        rng::threefry_u32x4(self.seed(), step, g as u32, 4 * axis + (j / 4) as u32);
                    (s, rng::unit(r[j % 4]))
                })
                .collect()
        };
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let i = lat.index(x, y, z);
                    let c = [x, y, z][axis as usize];
                    let t = lat.types[i];
                    let minus = (c > 0).then(|| lat.types[i - stride]);
                    let plus = (c + 1 < n).then(|| lat.types[i + stride]);
                    let mut arrived: Vec<u8> = Vec::new();
                    if let Some(tm) = minus {
                        for (s, u) in draws(i - stride) {
                            if u < q(tm, t, s) {
                                arrived.push(s);
                            }
                        }
                    }
                    for (s, u) in draws(i) {
                        let qp = plus.map_or(0.0, |tp| q(t, tp, s));
                        let qm = minus.map_or(0.0, |tm| q(t, tm, s));
                        if !(u < qp) && !(u >= 1.0 - qm) {
                            arrived.push(s);
                        }
                    }
                    if let Some(tp) = plus {
                        for (s, u) in draws(i + stride) {
                            if u >= 1.0 - q(tp, t, s) {
                                arrived.push(s);
                            }
                        }
                    }
                    for (k, &s) in arrived.iter().enumerate().skip(SITE_CAPACITY) {
                        overflow.push((i as u32, (axis << 16) | ((k as u32) << 8) | s as u32));
                    }
                    out.set_site(i, pack(&arrived));
                }
            }
        }
        out
    }

    fn react(&mut self, overflow: &mut Vec<Entry>) {
        let step = self.step as u32;
        let reactions = &self.model.reactions;
        for i in 0..self.lattice.sites() {
            let words = self.lattice.site(i);
            let bit = 1u32 << self.lattice.types[i];
            let mut total = 0f32;
            for r in reactions.iter().filter(|r| r.type_mask & bit != 0) {
                total += propensity_tau(words, r);
            }
            if total <= 0.0 {
                continue;
            }
            let u = rng::threefry_u32x4(self.seed(), step, i as u32, STREAM_REACTION);
            if !(rng::unit(u[0]) < fire_probability(total)) {
                continue;
            }
            let target = rng::unit(u[1]) * total;
            let mut chosen = None;
            let mut last = 0;
            let mut sum = 0f32;
            for (k, r) in reactions.iter().enumerate() {
                if r.type_mask & bit != 0 {
                    let a = propensity_tau(words, r);
                    if a > 0.0 {
                        last = k;
                        sum += a;
                        if chosen.is_none() && target < sum {
                            chosen = Some(k);
                        }
                    }
                }
            }
            let r = &reactions[chosen.unwrap_or(last)];
            let mut parts = unpack(words);
            if r.order >= 1 {
                remove_one(&mut parts, r.reactant_a as u8);
            }
            if r.order == 2 {
                remove_one(&mut parts, r.reactant_b as u8);
            }
            for p in 0..4 {
                let sp = ((r.products >> (8 * p)) & 0xFF) as u8;
                if sp == 0 {
                    break;
                }
                if parts.len() >= SITE_CAPACITY {
                    overflow.push((
                        i as u32,
                        (3 << 16) | ((parts.len() as u32) << 8) | sp as u32,
                    ));
                }
                parts.push(sp);
            }
            self.lattice.set_site(i, pack(&parts));
        }
    }

    fn resolve(&mut self, mut entries: Vec<Entry>) {
        // Stable by (site, substep, arrival): the GPU's insertion sort is stable too, and tags
        // of one site never tie.
        entries.sort_by_key(|&(g, tag)| (g, tag & 0xFFFF_FF00));
        let lat = &mut self.lattice;
        let [nx, ny, _] = lat.shape;
        let plane = (nx * ny) as usize;
        for (g, tag) in entries {
            let g = g as usize;
            let species = (tag & 0xFF) as u8;
            let base = g / plane * plane;
            let (x0, y0) = (
                (g % nx as usize) as i64,
                ((g / nx as usize) % ny as usize) as i64,
            );
            let t = lat.types[g];
            let mut best: Option<(i64, usize)> = None;
            for y in 0..ny as i64 {
                for x in 0..nx as i64 {
                    let i = base + (x + nx as i64 * y) as usize;
                    let d2 = (x - x0).pow(2) + (y - y0).pow(2);
                    if lat.types[i] == t
                        && count(lat.site(i)) < SITE_CAPACITY
                        && best.is_none_or(|b| (d2, i) < b)
                    {
                        best = Some((d2, i));
                    }
                }
            }
            match best {
                Some((_, i)) => {
                    lat.push(i, species);
                    self.counts.moved += 1;
                }
                None => self.counts.unresolved += 1,
            }
        }
    }
}

fn count_species(words: [u32; 4], species: u32) -> u32 {
    unpack(words)
        .iter()
        .filter(|&&s| s as u32 == species)
        .count() as u32
}

pub fn propensity_tau(words: [u32; 4], r: &SiteReaction) -> f32 {
    if r.order == 0 {
        return r.c_tau;
    }
    let na = count_species(words, r.reactant_a) as f32;
    if r.order == 1 {
        return r.c_tau * na;
    }
    if r.reactant_a == r.reactant_b {
        return r.c_tau * (na * (na - 1.0) * 0.5);
    }
    r.c_tau * (na * count_species(words, r.reactant_b) as f32)
}

/// 1 - exp(-x), as the shader computes it.
pub fn fire_probability(x: f32) -> f32 {
    if x < 1e-3 {
        return x * (1.0 - x * (0.5 - x * (1.0 / 6.0)));
    }
    1.0 - (-x).exp()
}

fn remove_one(parts: &mut Vec<u8>, species: u8) {
    if let Some(k) = parts.iter().position(|&s| s == species) {
        parts.remove(k);
    }
}
