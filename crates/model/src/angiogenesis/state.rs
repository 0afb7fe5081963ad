//! The model state on the CPU side: fields, occupancy, tips, vessel segments, counters; and the
//! initial conditions of MODELS.md section 1. The GPU holds the same arrays (sim.rs).

use super::params::{chi, AngioConfig, Coupling, InitialTips, Tumour, FIBRONECTIN_PEAK};
use super::uniforms::AngioUniforms;
use petri_engine::rng;

/// Occupancy value of a site no sprout has visited (FREE in the shaders).
pub const FREE: u32 = u32::MAX;

/// Slots of the GPU counter array (C_* in shaders/angiogenesis/common.wgsl).
#[derive(Clone, Copy, Debug)]
pub enum Counter {
    Tips = 0,
    Segments = 1,
    Anastomoses = 2,
    Branches = 3,
    Reached = 4,
    SegmentOverflow = 5,
    TipOverflow = 6,
    /// Sites a sprout has occupied: the network's length in sites.
    Occupied = 7,
}
pub const COUNTERS: usize = 8;

/// One sprout tip. Slot index = sprout id. `alive` is 0 once it anastomosed or reached the tumour.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Tip {
    pub site: u32,
    pub age: f32,
    pub alive: u32,
    pub parent: u32,
}

/// One tip move: from site, to site, sprout id, step.
pub type Segment = [u32; 4];

#[derive(Clone, Debug, PartialEq)]
pub struct AngioState {
    pub n: Vec<f32>,
    pub f: Vec<f32>,
    pub c: Vec<f32>,
    /// Smallest sprout id that visited each site, FREE if none.
    pub occ: Vec<u32>,
    /// Tip slots in use (counters[Tips] of them).
    pub tips: Vec<Tip>,
    pub segments: Vec<Segment>,
    pub counters: [u32; COUNTERS],
    pub step: u64,
}

impl AngioState {
    /// Fields of the given values everywhere, no tips.
    pub fn uniform(u: &AngioUniforms, n: f32, f: f32, c: f32) -> Self {
        let cells = u.ncells as usize;
        Self {
            n: vec![n; cells],
            f: vec![f; cells],
            c: vec![c; cells],
            occ: vec![FREE; cells],
            tips: Vec::new(),
            segments: Vec::new(),
            counters: [0; COUNTERS],
            step: 0,
        }
    }

    /// Rough fields for tests: c, f / 0.75 and n independent uniform draws in [0, 1) per site
    /// (Philox keyed by `seed`, step 0, site), no tips.
    pub fn rough(u: &AngioUniforms, seed: u64) -> Self {
        let mut s = Self::uniform(u, 0.0, 0.0, 0.0);
        for i in 0..u.ncells {
            let r = rng::u32x4(seed, 0, i, 0);
            let iu = i as usize;
            s.c[iu] = rng::unit(r[0]);
            s.f[iu] = FIBRONECTIN_PEAK as f32 * rng::unit(r[1]);
            s.n[iu] = rng::unit(r[2]);
        }
        s
    }

    /// Adds a live tip at `site` (its own sprout, no parent) and marks the site.
    pub fn add_tip(&mut self, site: u32) {
        let id = self.tips.len() as u32;
        self.tips.push(Tip {
            site,
            age: 0.0,
            alive: 1,
            parent: FREE,
        });
        self.occupy(site, id);
        self.counters[Counter::Tips as usize] = self.tips.len() as u32;
    }

    /// Marks `site` as visited by sprout `id` (the smallest id stays), counting it in
    /// `Occupied` the first time (tips_spawn.wgsl, occupy).
    pub fn occupy(&mut self, site: u32, id: u32) {
        let o = &mut self.occ[site as usize];
        if *o == FREE {
            self.counters[Counter::Occupied as usize] += 1;
        }
        *o = (*o).min(id);
    }

    /// The sites a sprout has occupied.
    pub fn occupied_sites(&self) -> u32 {
        self.occ.iter().filter(|&&o| o != FREE).count() as u32
    }

    pub fn counter(&self, c: Counter) -> u32 {
        self.counters[c as usize]
    }

    /// The initial conditions of MODELS.md section 1 on the config's grid; with the discrete
    /// coupling, n is the cells of the initial tips (1 at their sites, 0 elsewhere).
    pub fn initial(cfg: &AngioConfig, u: &AngioUniforms) -> Self {
        let h = cfg.h();
        let [lx, ly, lz] = cfg.lengths();
        let mut s = Self::uniform(u, 0.0, 0.0, 0.0);
        let pi = std::f64::consts::PI;
        let nu = (5f64.sqrt() - 0.1) / (5f64.sqrt() - 1.0);
        for z in 0..u.nz {
            for y in 0..u.ny {
                for x in 0..u.nx {
                    let (px, py, pz) = (x as f64 * h, y as f64 * h, z as f64 * h);
                    let i = u.index(x, y, z);
                    s.c[i] = match cfg.tumour {
                        Tumour::Face => (-(lx - px).powi(2) / 0.45).exp(),
                        Tumour::Sphere => {
                            let r = ((lx - px).powi(2)
                                + (py - ly / 2.0).powi(2)
                                + (pz - lz / 2.0).powi(2))
                            .sqrt();
                            if r <= 0.1 {
                                1.0
                            } else {
                                (((nu - r) / (nu - 0.1)).max(0.0)).powi(2)
                            }
                        }
                    } as f32;
                    s.f[i] = (FIBRONECTIN_PEAK * (-px * px / 0.45).exp()) as f32;
                    // The 2D model has clusters along y only.
                    let across_z = if u.nz == 1 {
                        1.0
                    } else {
                        (3.0 * pi * pz).sin().powi(2)
                    };
                    s.n[i] = ((-px * px / 0.001).exp() * (3.0 * pi * py).sin().powi(2) * across_z)
                        as f32;
                }
            }
        }
        if cfg.tips.enabled {
            for site in initial_tip_sites(cfg, u) {
                s.add_tip(site);
            }
        }
        if cfg.coupling == Coupling::Discrete {
            s.n = s.cell_density();
        }
        s
    }

    /// The cell density of A&C's discrete model: 1 at sites a sprout has occupied, 0 elsewhere
    /// (what the discrete field pass writes into n).
    pub fn cell_density(&self) -> Vec<f32> {
        self.occ
            .iter()
            .map(|&o| if o != FREE { 1.0 } else { 0.0 })
            .collect()
    }

    /// Largest |v|^2 of the taxis velocity v = chi(c) grad c + rho grad f over the grid (central
    /// differences), for the stability bound.
    pub fn max_taxis_speed_sq(&self, cfg: &AngioConfig, u: &AngioUniforms) -> f64 {
        let h = cfg.h();
        let mut best = 0.0f64;
        let at = |v: &Vec<f32>, x: i64, y: i64, z: i64| -> f64 {
            let cl = |a: i64, n: u32| a.clamp(0, n as i64 - 1) as u32;
            v[u.index(cl(x, u.nx), cl(y, u.ny), cl(z, u.nz))] as f64
        };
        for z in 0..u.nz as i64 {
            for y in 0..u.ny as i64 {
                for x in 0..u.nx as i64 {
                    let c0 = at(&self.c, x, y, z);
                    let chi = chi(cfg.chi0, cfg.alpha, c0);
                    let mut v2 = 0.0;
                    for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                        let dc = at(&self.c, x + dx, y + dy, z + dz)
                            - at(&self.c, x - dx, y - dy, z - dz);
                        let df = at(&self.f, x + dx, y + dy, z + dz)
                            - at(&self.f, x - dx, y - dy, z - dz);
                        let v = (chi * dc + cfg.rho * df) / (2.0 * h);
                        v2 += v * v;
                    }
                    best = best.max(v2);
                }
            }
        }
        best
    }
}

/// Sites of the initial tips on the x = 0 face (on the x = 0 edge in 2D: y in {1/6, 1/2, 5/6}).
pub fn initial_tip_sites(cfg: &AngioConfig, u: &AngioUniforms) -> Vec<u32> {
    let h = cfg.h();
    let [_, ly, lz] = cfg.lengths();
    let node = |p: f64, n: u32| ((p / h).round() as u32).min(n - 1);
    match cfg.tips.initial {
        InitialTips::Single => vec![u.index(0, node(ly / 2.0, u.ny), node(lz / 2.0, u.nz)) as u32],
        InitialTips::Clusters => {
            let mut sites = Vec::new();
            let planes: &[f64] = if u.nz == 1 {
                &[0.0]
            } else {
                &[1.0 / 6.0, 0.5, 5.0 / 6.0]
            };
            for &pz in planes {
                for &py in &[1.0 / 6.0, 0.5, 5.0 / 6.0] {
                    if py <= ly && pz <= lz {
                        sites.push(u.index(0, node(py, u.ny), node(pz, u.nz)) as u32);
                    }
                }
            }
            sites.dedup();
            sites
        }
    }
}
