//! CPU reference of the mechanics (the GPU tests' reference and the bench's multithreaded CPU
//! baseline): the force on every element, all-pairs or through a uniform grid, and the RK2
//! (midpoint) step with wrapping in x, y and the floor at z = 0; `CpuModel` steps the whole
//! model (genes, mechanics, growth) as the GPU plan does. Computed in f32 from the same
//! uniforms as the shaders (`shaders/epidermis/forces.wgsl`), in the same order: intracellular
//! pairs by slot, intercellular pairs bin by bin, then the membrane. Parallel over elements.

use super::genes::{step_genes, GeneUniforms};
use super::growth::{growth_event, GrowthParams, GrowthUniforms};
use super::params::EpidermisConfig;
use super::state::{EpidermisState, ADHESIVE, MAX_ELEMENTS};
use super::uniforms::EpiUniforms;
use petri_scheduler::primitives::Grid;
use rayon::prelude::*;

/// How the intercellular pairs are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairs {
    /// Every element of every other cell: O(N^2), the baseline for small systems.
    All,
    /// The elements of the 27 grid bins around the element's bin.
    Binned,
}

/// The minimum-image separation along a periodic axis of period `l` (`inv_l` = 1/l).
pub fn min_image(d: f32, l: f32, inv_l: f32) -> f32 {
    d - l * (d * inv_l + 0.5).floor()
}

/// `x` wrapped into [0, l).
pub fn wrap(x: f32, l: f32, inv_l: f32) -> f32 {
    let w = x - l * (x * inv_l).floor();
    let w = if w < 0.0 { w + l } else { w };
    if w >= l {
        0.0
    } else {
        w
    }
}

/// `p_i - p_j` with the minimum image in x and y.
fn separation(u: &EpiUniforms, pi: &[f32; 4], pj: &[f32; 4]) -> [f32; 3] {
    [
        min_image(pi[0] - pj[0], u.lx, u.inv_lx),
        min_image(pi[1] - pj[1], u.ly, u.inv_ly),
        pi[2] - pj[2],
    ]
}

fn add(f: &mut [f32; 3], d: [f32; 3], s: f32) {
    for a in 0..3 {
        f[a] += s * d[a];
    }
}

/// Intracellular force on the element at `slot` (the pairs of its cell within range).
fn intra(u: &EpiUniforms, pos: &[[f32; 4]], counts: &[u32], slot: usize) -> [f32; 3] {
    let cell = slot / MAX_ELEMENTS;
    let first = cell * MAX_ELEMENTS;
    let mut f = [0.0; 3];
    for s in first..first + counts[cell] as usize {
        if s == slot {
            continue;
        }
        let d = separation(u, &pos[slot], &pos[s]);
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if r2 > 0.0 && r2 < u.intra_range2 {
            let r = r2.sqrt();
            add(&mut f, d, u.intra.at(r) / r);
        }
    }
    f
}

/// Adds the intercellular push or pull of `pj` on `pi` when it is within range.
fn inter(u: &EpiUniforms, f: &mut [f32; 3], pi: &[f32; 4], pj: &[f32; 4]) {
    let d = separation(u, pi, pj);
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if r2 > 0.0 && r2 < u.inter_range2 {
        let r = r2.sqrt();
        add(f, d, u.inter.at(r) / r);
    }
}

/// The membrane's pull along z on an adhesive element at height z (>= 0).
fn membrane(u: &EpiUniforms, p: &[f32; 4]) -> f32 {
    if p[3] == ADHESIVE {
        u.membrane.at(p[2])
    } else {
        0.0
    }
}

/// The elements in use, binned: (sorted slots, CSR bin offsets), bins as `Grid::cell_of`
/// gives them (the scheduler's Binning on the GPU), slots in id order within a bin. A counting
/// sort, linear in elements and bins, rather than the scheduler's `cpu_binning` (a comparison
/// sort meant as the GPU primitive's test twin): this is the bench's CPU baseline.
fn bins(grid: &Grid, pos: &[[f32; 4]], active: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let nbins = grid.cells() as usize;
    let bin: Vec<u32> = active
        .par_iter()
        .map(|&s| {
            let p = pos[s as usize];
            grid.cell_of([p[0], p[1], p[2]])
        })
        .collect();
    let mut offsets = vec![0u32; nbins + 1];
    for &b in &bin {
        offsets[b as usize + 1] += 1;
    }
    for b in 0..nbins {
        offsets[b + 1] += offsets[b];
    }
    let mut next = offsets.clone();
    let mut sorted = vec![0u32; active.len()];
    for (k, &b) in bin.iter().enumerate() {
        sorted[next[b as usize] as usize] = active[k];
        next[b as usize] += 1;
    }
    (sorted, offsets)
}

/// The force on every element in use, indexed by slot (zero at unused slots). `counts` holds the
/// elements of each cell (entries past the cells in use are zero).
pub fn forces(
    u: &EpiUniforms,
    grid: &Grid,
    pos: &[[f32; 4]],
    counts: &[u32],
    pairs: Pairs,
) -> Vec<[f32; 3]> {
    let active: Vec<u32> = (0..counts.len())
        .flat_map(|c| (c * MAX_ELEMENTS..c * MAX_ELEMENTS + counts[c] as usize).map(|s| s as u32))
        .collect();
    let mut out = vec![[0.0f32; 3]; pos.len()];
    let per_element: Vec<[f32; 3]> = match pairs {
        Pairs::All => active
            .par_iter()
            .map(|&s| {
                let s = s as usize;
                let mut f = intra(u, pos, counts, s);
                for &t in &active {
                    if t as usize / MAX_ELEMENTS != s / MAX_ELEMENTS {
                        inter(u, &mut f, &pos[s], &pos[t as usize]);
                    }
                }
                f[2] += membrane(u, &pos[s]);
                f
            })
            .collect(),
        Pairs::Binned => {
            let (sorted, offsets) = bins(grid, pos, &active);
            let [nx, ny, nz] = grid.dims.map(|d| d as i64);
            active
                .par_iter()
                .map(|&s| {
                    let s = s as usize;
                    let p = pos[s];
                    let b = grid.cell_of([p[0], p[1], p[2]]) as i64;
                    let (bx, by, bz) = (b % nx, (b / nx) % ny, b / (nx * ny));
                    let mut f = intra(u, pos, counts, s);
                    for z in bz - 1..=bz + 1 {
                        if z < 0 || z >= nz {
                            continue;
                        }
                        for dy in -1..=1 {
                            let y = (by + dy).rem_euclid(ny);
                            for dx in -1..=1 {
                                let x = (bx + dx).rem_euclid(nx);
                                let nb = (x + nx * (y + ny * z)) as usize;
                                for &t in &sorted[offsets[nb] as usize..offsets[nb + 1] as usize] {
                                    if t as usize / MAX_ELEMENTS != s / MAX_ELEMENTS {
                                        inter(u, &mut f, &p, &pos[t as usize]);
                                    }
                                }
                            }
                        }
                    }
                    f[2] += membrane(u, &p);
                    f
                })
                .collect()
        }
    };
    for (&s, f) in active.iter().zip(per_element) {
        out[s as usize] = f;
    }
    out
}

/// `p + h f`, wrapped into the box in x and y and floored at z = 0; the type is kept.
pub fn advance(u: &EpiUniforms, p: [f32; 4], h: f32, f: [f32; 3]) -> [f32; 4] {
    [
        wrap(p[0] + h * f[0], u.lx, u.inv_lx),
        wrap(p[1] + h * f[1], u.ly, u.inv_ly),
        (p[2] + h * f[2]).max(0.0),
        p[3],
    ]
}

/// One RK2 (midpoint) step of the element positions in place: X_mid = X + dt/2 F(X),
/// X_new = X + dt F(X_mid), each stage wrapped and floored.
pub fn rk2_step(u: &EpiUniforms, grid: &Grid, pos: &mut [[f32; 4]], counts: &[u32], pairs: Pairs) {
    let f0 = forces(u, grid, pos, counts, pairs);
    let mid: Vec<[f32; 4]> = pos
        .par_iter()
        .zip(&f0)
        .map(|(&p, &f)| advance(u, p, u.half_dt, f))
        .collect();
    let f1 = forces(u, grid, &mid, counts, pairs);
    pos.par_iter_mut()
        .zip(&f1)
        .for_each(|(p, &f)| *p = advance(u, *p, u.dt, f));
}

/// The whole model on the CPU, one step at a time in the GPU plan's order: gene network
/// (`genes::step_genes`), mechanics (`rk2_step`, binned), and after the mechanics of every
/// step s with (s + 1) % growth.interval == 0 a growth event (`growth::growth_event`).
pub struct CpuModel {
    pub mechanics: EpiUniforms,
    pub grid: Grid,
    pub genes: GeneUniforms,
    pub growth: GrowthUniforms,
    pub growth_params: GrowthParams,
}

impl CpuModel {
    /// From a validated config.
    pub fn new(cfg: &EpidermisConfig) -> Self {
        let d = &cfg.domain;
        let cap = cfg.capacity.max_cells;
        Self {
            mechanics: EpiUniforms::new(cfg),
            grid: cfg.mechanics_grid(),
            genes: GeneUniforms::new(&cfg.genes, cfg.dt, d.lx, d.ly, d.height, cap),
            growth: GrowthUniforms::new(&cfg.growth, cfg.seed, d.lx, d.ly, cap),
            growth_params: cfg.growth,
        }
    }

    /// Advances `state` one step; returns the divisions refused for capacity at this step
    /// (the GPU's Counter::Overflow; the run stops on a nonzero value).
    pub fn step(&self, state: &mut EpidermisState) -> u32 {
        step_genes(&self.genes, state);
        rk2_step(
            &self.mechanics,
            &self.grid,
            &mut state.pos,
            &state.counts,
            Pairs::Binned,
        );
        let mut overflow = 0;
        if self.growth_params.runs_after(state.step) {
            overflow = growth_event(&self.growth, state).overflow;
        }
        state.step += 1;
        overflow
    }
}
