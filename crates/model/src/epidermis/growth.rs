//! Growth and division (Christley et al. 2010, "Cell Growth and Division"), after the mechanics
//! of every step s with (s + 1) % interval == 0:
//!
//! 1. grow: a cell with fewer than 40 elements adds one PLAIN element at its centre, in slot
//!    `c * 40 + counts[c]`, if its Delta is below `delta_threshold` or it has passed the
//!    restriction point (`restriction_point` elements or more): Notch signalling decides
//!    whether a cell enters its cycle, not whether it completes it;
//! 2. divide: a cell with 40 elements splits 20/20 across the plane through its elements'
//!    median along `division_normal`: elements ranked by their projection on the normal
//!    (minimum-image offsets from the cell's first element; ties by slot), the lower 20 stay in
//!    cell c in rank order, the upper 20 become cell `cells + r` (r: the rank of c among the
//!    dividing cells in id order, an exclusive scan), all PLAIN. Cell c keeps the basement
//!    membrane: a mother with `a` adhesive elements leaves c's lowest `a` ADHESIVE, the rest
//!    PLAIN (keeping the elements' own types would let a flattened basal cell, its plain
//!    elements sunk below its adhesive ones, hand the attachment to nobody). Both daughters
//!    get half of the mother's N, D, B, O1, O2, M. With `spindle`, the axis is drawn per
//!    division instead (`spindle_axis`, uniform over directions) and the half holding more of
//!    the mother's adhesive elements (the lower on a tie) keeps its elements' types, the other
//!    half is all PLAIN. If the new cells would not fit `max_cells`, no cell divides at that
//!    step and the refused divisions are counted (Counter::Overflow);
//! 3. the active-slot list: cell c's slots at `offsets[c]..`, offsets the exclusive scan of
//!    the counts.
//!
//! Every result is a fixed function of the state, so the GPU passes (`growth_gpu`,
//! `shaders/epidermis/{grow,divide,active}.wgsl`) reproduce these CPU functions bitwise.

use super::genes::{cell_centre, check_f32, min_image};
use super::state::{
    EpidermisState, Species, ADHESIVE, DAUGHTER_ELEMENTS, MAX_ELEMENTS, PLAIN, SPECIES,
};
use crate::error::{invalid, Result};
use petri_engine::rng;
use serde::{Deserialize, Serialize};

/// Config section `growth`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GrowthParams {
    /// Steps between growth events (seed: an element every 2000 steps).
    pub interval: u32,
    /// A cell grows while its Delta is below this.
    pub delta_threshold: f64,
    /// Elements from which a cell grows whatever its Delta (it has passed the restriction
    /// point of its cycle); 40 or more: never, Delta alone decides.
    pub restriction_point: u32,
    /// Normal of the division plane (any length but 0): [0, 0, 1] stacks the daughters, the
    /// one attached to the membrane below.
    pub division_normal: [f64; 3],
    /// Draw each division's axis at random (uniform over directions) instead of
    /// `division_normal`; the half with more adhesive elements keeps them, the other is plain.
    pub spindle: bool,
}

impl Default for GrowthParams {
    fn default() -> Self {
        Self {
            interval: 2000,
            // Between the basal state's Delta (< 0.001) or the low side of lateral inhibition
            // (0.03) and its high side (1.6..2) with the default gene parameters.
            delta_threshold: 0.3,
            // A quarter of the 20 elements a cell grows per cycle (the asset's provenance).
            restriction_point: 21,
            division_normal: [0.0, 0.0, 1.0],
            spindle: false,
        }
    }
}

impl GrowthParams {
    pub fn validate(&self) -> Result<()> {
        if self.interval == 0 {
            return Err(invalid("growth.interval", 0, ">= 1 (steps)"));
        }
        check_f32("growth.delta_threshold", self.delta_threshold)?;
        for (k, &v) in self.division_normal.iter().enumerate() {
            check_f32(&format!("growth.division_normal[{k}]"), v)?;
        }
        let n = self.division_normal.map(|v| v as f32);
        if n.iter().all(|&v| v == 0.0) || !n.iter().map(|v| v * v).sum::<f32>().is_finite() {
            return Err(invalid(
                "growth.division_normal",
                format!("{:?}", self.division_normal),
                "a nonzero vector of moderate length",
            ));
        }
        Ok(())
    }

    /// Whether growth runs after the mechanics of step `step` (0-based).
    pub fn runs_after(&self, step: u64) -> bool {
        (step + 1).is_multiple_of(self.interval as u64)
    }
}

/// What growth needs, as the shaders see it (`GrowthUniforms` in
/// `shaders/epidermis/gene_common.wgsl`; `crates/model/tests/layouts.rs` checks the layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GrowthUniforms {
    pub lx: f32,
    pub ly: f32,
    pub delta_threshold: f32,
    pub max_cells: u32,
    pub normal: [f32; 3],
    pub restriction_point: u32,
    /// The run's seed, low and high words (the spindle draws).
    pub seed: [u32; 2],
    /// 1: a spindle drawn per division; 0: `normal`.
    pub spindle: u32,
    pub _pad: u32,
}

impl GrowthUniforms {
    pub fn new(p: &GrowthParams, seed: u64, lx: f64, ly: f64, max_cells: u32) -> Self {
        Self {
            lx: lx as f32,
            ly: ly as f32,
            delta_threshold: p.delta_threshold as f32,
            max_cells,
            normal: p.division_normal.map(|v| v as f32),
            restriction_point: p.restriction_point,
            seed: rng::seed_key(seed),
            spindle: p.spindle as u32,
            _pad: 0,
        }
    }
}

/// What one growth event did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GrowthCounts {
    /// Elements added.
    pub added: u32,
    /// Cells that divided.
    pub divided: u32,
    /// Divisions refused for capacity (then `divided` is 0).
    pub overflow: u32,
}

/// Whether a cell of `n` elements and Delta `delta` grows at a growth event: room for an
/// element, and low Delta or past the restriction point.
pub fn grows(u: &GrowthUniforms, n: u32, delta: f32) -> bool {
    n < MAX_ELEMENTS as u32 && (delta < u.delta_threshold || n >= u.restriction_point)
}

/// Step 1: one PLAIN element at the centre of every cell that `grows`. Returns the number
/// added (also added to `state.added`).
pub fn grow(u: &GrowthUniforms, state: &mut EpidermisState) -> u32 {
    let mut added = 0;
    for c in 0..state.cells as usize {
        let n = state.counts[c] as usize;
        if grows(u, n as u32, state.genes[c][Species::Delta as usize]) {
            let first = c * MAX_ELEMENTS;
            let [x, y, z] = cell_centre(&state.pos[first..first + n], u.lx, u.ly);
            state.pos[first + n] = [x, y, z, PLAIN];
            state.counts[c] += 1;
            added += 1;
        }
    }
    state.added += added;
    added
}

/// The rank of each of a full cell's elements along `normal` (ties by slot): element k goes
/// to rank `ranks[k]`; ranks are a permutation of 0..40.
pub fn division_ranks(
    elements: &[[f32; 4]; MAX_ELEMENTS],
    normal: [f32; 3],
    lx: f32,
    ly: f32,
) -> [usize; MAX_ELEMENTS] {
    let first = elements[0];
    let proj = elements.map(|e| {
        let dx = min_image(e[0] - first[0], lx);
        let dy = min_image(e[1] - first[1], ly);
        let dz = e[2] - first[2];
        normal[0] * dx + normal[1] * dy + normal[2] * dz
    });
    let mut ranks = [0; MAX_ELEMENTS];
    for k in 0..MAX_ELEMENTS {
        ranks[k] = (0..MAX_ELEMENTS)
            .filter(|&j| proj[j] < proj[k] || (proj[j] == proj[k] && j < k))
            .count();
    }
    ranks
}

/// Philox stream of the first spindle draw (streams 0 and 1: the initial state, `init.rs`).
const SPINDLE_STREAM: u32 = 2;
/// Draws of a spindle before the last one is taken as it is (each is rejected with
/// probability 1 - pi / 6).
const SPINDLE_DRAWS: u32 = 8;
/// Half-range of a spindle component: integers in -2048..2048, so the squared length is exact.
const SPINDLE_HALF: i32 = 2048;

/// The division axis of cell `c` at step `step`, uniform over directions: the first of up to
/// `SPINDLE_DRAWS` integer vectors in the cube that lies in its inscribed ball (integers, so
/// that the GPU makes the same choice bitwise). Not normalised: only its direction matters.
pub fn spindle_axis(u: &GrowthUniforms, step: u32, c: u32) -> [f32; 3] {
    let seed = u.seed[0] as u64 | (u.seed[1] as u64) << 32;
    let mut v = [0; 3];
    for k in 0..SPINDLE_DRAWS {
        let w = rng::u32x4(seed, step, c, SPINDLE_STREAM + k);
        v = [0, 1, 2].map(|i| (w[i] >> 20) as i32 - SPINDLE_HALF);
        let r2: i32 = v.iter().map(|x| x * x).sum();
        if r2 > 0 && r2 <= SPINDLE_HALF * SPINDLE_HALF {
            break;
        }
    }
    v.map(|x| x as f32)
}

/// Step 2: divides every cell with 40 elements (see the module doc). Returns (divided,
/// refused); `state.cells` and `state.divisions` follow.
pub fn divide(u: &GrowthUniforms, state: &mut EpidermisState) -> (u32, u32) {
    let cells = state.cells as usize;
    let dividing: Vec<usize> = (0..cells)
        .filter(|&c| state.counts[c] as usize == MAX_ELEMENTS)
        .collect();
    let n = dividing.len() as u32;
    if n == 0 {
        return (0, 0);
    }
    if state.cells as u64 + n as u64 > u.max_cells as u64 {
        return (0, n);
    }
    for (r, &c) in dividing.iter().enumerate() {
        let d = cells + r;
        let first = c * MAX_ELEMENTS;
        let elements: [[f32; 4]; MAX_ELEMENTS] =
            state.pos[first..first + MAX_ELEMENTS].try_into().unwrap();
        let axis = if u.spindle != 0 {
            spindle_axis(u, state.step as u32, c as u32)
        } else {
            u.normal
        };
        let ranks = division_ranks(&elements, axis, u.lx, u.ly);
        let types = daughter_types(u, &elements, &ranks);
        for (k, &rank) in ranks.iter().enumerate() {
            let [x, y, z, _] = elements[k];
            let slot = if rank < DAUGHTER_ELEMENTS {
                first + rank
            } else {
                d * MAX_ELEMENTS + rank - DAUGHTER_ELEMENTS
            };
            state.pos[slot] = [x, y, z, types[rank]];
        }
        state.pos[first + DAUGHTER_ELEMENTS..first + MAX_ELEMENTS].fill([0.0; 4]);
        state.counts[c] = DAUGHTER_ELEMENTS as u32;
        state.counts[d] = DAUGHTER_ELEMENTS as u32;
        state.genes[d] = halved(&state.genes[c], 0.0);
        let a = state.genes[c][Species::Adhesion as usize];
        state.genes[c] = halved(&state.genes[c], a);
    }
    state.cells += n;
    state.divisions += n;
    (n, 0)
}

/// The element types of a dividing cell by rank (ranks 0..20: cell c, 20..40: the new cell).
/// Plane: the lower daughter's lowest ranks adhesive, as many as the mother had, the rest
/// plain. Spindle: the half holding more adhesive elements (the lower on a tie) keeps its
/// elements' types, the other half is plain.
fn daughter_types(
    u: &GrowthUniforms,
    elements: &[[f32; 4]; MAX_ELEMENTS],
    ranks: &[usize; MAX_ELEMENTS],
) -> [f32; MAX_ELEMENTS] {
    let mut types = [PLAIN; MAX_ELEMENTS];
    let adhesive = |k: usize| elements[k][3] == ADHESIVE;
    if u.spindle == 0 {
        let a = (0..MAX_ELEMENTS).filter(|&k| adhesive(k)).count();
        types[..a.min(DAUGHTER_ELEMENTS)].fill(ADHESIVE);
        return types;
    }
    let lower = (0..MAX_ELEMENTS)
        .filter(|&k| adhesive(k) && ranks[k] < DAUGHTER_ELEMENTS)
        .count();
    let upper = (0..MAX_ELEMENTS).filter(|&k| adhesive(k)).count() - lower;
    let keeps_lower = lower >= upper;
    for (k, &rank) in ranks.iter().enumerate() {
        if (rank < DAUGHTER_ELEMENTS) == keeps_lower {
            types[rank] = elements[k][3];
        }
    }
    types
}

/// A daughter's genes: half of each integrated species, adhesion `a` (recomputed from the
/// positions at the next step).
fn halved(g: &[f32; SPECIES], a: f32) -> [f32; SPECIES] {
    let mut out = [0.0; SPECIES];
    for k in 0..Species::Adhesion as usize {
        out[k] = g[k] * 0.5;
    }
    out[Species::Adhesion as usize] = a;
    out
}

/// Steps 1 and 2 of a growth event.
pub fn growth_event(u: &GrowthUniforms, state: &mut EpidermisState) -> GrowthCounts {
    let added = grow(u, state);
    let (divided, overflow) = divide(u, state);
    GrowthCounts {
        added,
        divided,
        overflow,
    }
}

/// Step 3: the slots in use, cell by cell (the GPU's `active` buffer, first `elements`
/// entries).
pub fn active_list(state: &EpidermisState) -> Vec<u32> {
    (0..state.cells as usize)
        .flat_map(|c| state.slots(c).map(|s| s as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        GrowthParams::default().validate().unwrap();
        let err = |change: fn(&mut GrowthParams)| {
            let mut p = GrowthParams::default();
            change(&mut p);
            p.validate().unwrap_err().to_string()
        };
        assert!(err(|p| p.interval = 0).contains("growth.interval = 0"));
        let e = err(|p| p.division_normal = [0.0; 3]);
        assert!(e.contains("growth.division_normal"), "{e}");
        assert!(err(|p| p.delta_threshold = f64::INFINITY).contains("growth.delta_threshold"));
        let unknown = serde_json::from_str::<GrowthParams>(r#"{"intervall": 1}"#).unwrap_err();
        assert!(unknown.to_string().contains("intervall"));
    }

    #[test]
    fn growth_runs_after_the_last_step_of_each_interval() {
        let p = GrowthParams::default();
        assert!(!p.runs_after(0));
        assert!(p.runs_after(1999));
        assert!(!p.runs_after(2000));
        assert!(p.runs_after(3999));
    }

    #[test]
    fn high_delta_cells_grow_only_past_the_restriction_point() {
        let u = GrowthUniforms::new(&GrowthParams::default(), 1, 10.0, 10.0, 8);
        let rp = u.restriction_point;
        let (low, high) = (0.5 * u.delta_threshold, 2.0 * u.delta_threshold);
        assert!(grows(&u, 20, low) && grows(&u, 39, low));
        assert!(!grows(&u, 20, high) && !grows(&u, rp - 1, high));
        assert!(grows(&u, rp, high) && grows(&u, 39, high));
        assert!(!grows(&u, 40, low) && !grows(&u, 40, high));
    }

    #[test]
    fn ties_rank_by_slot() {
        let mut e = [[0.0f32; 4]; MAX_ELEMENTS];
        for (k, x) in e.iter_mut().enumerate() {
            x[2] = (k % 4) as f32;
        }
        let r = division_ranks(&e, [0.0, 0.0, 1.0], 10.0, 10.0);
        // z = 0 at slots 0, 4, 8, ...: ranks 0..10 in slot order.
        assert_eq!(r[0], 0);
        assert_eq!(r[4], 1);
        assert_eq!(r[36], 9);
        assert_eq!(r[1], 10);
        let mut sorted = r;
        sorted.sort();
        assert_eq!(sorted.to_vec(), (0..MAX_ELEMENTS).collect::<Vec<_>>());
    }
}
