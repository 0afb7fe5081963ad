//! The initial tissue: one layer of cells on a square lattice, each a random ball of elements
//! resting on the basement membrane, its lowest elements adhesive.

use super::genes::adhesion;
use super::params::EpidermisConfig;
use super::state::{Counter, EpidermisState, ADHESIVE, COUNTERS, MAX_ELEMENTS, PLAIN};
use petri_engine::rng;

/// Philox streams of the initial element positions and of the cells' element counts.
const INIT_STREAM: u32 = 0;
const COUNT_STREAM: u32 = 1;

/// The elements initial cell `c` starts with: `elements_per_cell` plus a seeded draw from
/// 0..=`extra_elements`.
pub fn initial_count(cfg: &EpidermisConfig, c: usize) -> u32 {
    let init = &cfg.initial;
    let draw = rng::u32x4(cfg.seed, 0, c as u32, COUNT_STREAM)[0];
    let extra = (draw as u64 * (init.extra_elements as u64 + 1)) >> 32;
    init.elements_per_cell + extra as u32
}

impl EpidermisState {
    /// The state at step 0 of a validated config; the same for the same seed. Cell
    /// `i + cells_x * j` sits at lattice point ((i + 1/2) lx / cells_x, (j + 1/2) ly / cells_y);
    /// it has `elements_per_cell` + k elements, k uniform in 0..=`extra_elements` (the cell's
    /// phase of growth), uniform in a ball of `initial.radius` (times the cube root of the
    /// count over `elements_per_cell`) centred one radius above the floor, in slots ordered by
    /// height, the lowest `adhesive_per_cell` adhesive. Gene values are `genes.initial`, with
    /// the adhesion A of the cell's elements.
    pub fn initial(cfg: &EpidermisConfig) -> Self {
        let init = &cfg.initial;
        let mut s = Self::empty(cfg.capacity.max_cells);
        let cells = (init.cells_x * init.cells_y) as usize;
        let (lx, ly) = (cfg.domain.lx, cfg.domain.ly);
        for c in 0..cells {
            let count = initial_count(cfg, c);
            let r = init.radius * (count as f64 / init.elements_per_cell as f64).cbrt();
            let (i, j) = (c % init.cells_x as usize, c / init.cells_x as usize);
            let centre = [
                (i as f64 + 0.5) * lx / init.cells_x as f64,
                (j as f64 + 0.5) * ly / init.cells_y as f64,
                r,
            ];
            let mut elements: Vec<[f32; 4]> = (0..count as usize)
                .map(|e| {
                    let slot = (c * MAX_ELEMENTS + e) as u32;
                    let u = rng::u32x4(cfg.seed, 0, slot, INIT_STREAM).map(rng::unit);
                    // Uniform in the ball: radius ~ u^(1/3), direction uniform on the sphere.
                    let rho = r * (u[0] as f64).cbrt();
                    let cos_t = 1.0 - 2.0 * u[1] as f64;
                    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
                    let phi = std::f64::consts::TAU * u[2] as f64;
                    let p = [
                        (centre[0] + rho * sin_t * phi.cos()).rem_euclid(lx),
                        (centre[1] + rho * sin_t * phi.sin()).rem_euclid(ly),
                        (centre[2] + rho * cos_t).max(0.0),
                    ];
                    // rem_euclid may round up to the period itself.
                    let wrap = |x: f64, l: f64| match x as f32 {
                        x if x >= l as f32 => 0.0,
                        x => x,
                    };
                    [wrap(p[0], lx), wrap(p[1], ly), p[2] as f32, PLAIN]
                })
                .collect();
            elements.sort_by(|a, b| a[2].total_cmp(&b[2]));
            for (k, e) in elements.iter_mut().enumerate() {
                if k < init.adhesive_per_cell as usize {
                    e[3] = ADHESIVE;
                }
            }
            s.pos[c * MAX_ELEMENTS..c * MAX_ELEMENTS + elements.len()].copy_from_slice(&elements);
            s.counts[c] = count;
            s.genes[c] = cfg.genes.initial_genes(adhesion(&elements));
        }
        s.cells = cells as u32;
        s
    }

    /// The slots in use, cell by cell in id order: the GPU's active-element list.
    pub fn active_slots(&self) -> Vec<u32> {
        (0..self.cells as usize)
            .flat_map(|c| self.slots(c).map(|s| s as u32))
            .collect()
    }

    /// The GPU's `counters` words for this state (Overflow zero).
    pub fn counter_words(&self) -> [u32; COUNTERS] {
        let mut c = [0u32; COUNTERS];
        c[Counter::Cells as usize] = self.cells;
        c[Counter::Elements as usize] = self.elements() as u32;
        c[Counter::Divisions as usize] = self.divisions;
        c[Counter::Added as usize] = self.added;
        c
    }
}
