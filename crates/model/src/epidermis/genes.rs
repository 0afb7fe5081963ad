//! The per-cell gene network (Christley et al. 2010, Algorithm 3): Notch N, Delta D, bound
//! Notch B, Ovol1 O1, Ovol2 O2, c-Myc M, driven by the basement-membrane adhesion A and a
//! constant TGF-beta G, coupled to the neighbouring cells through <N>, <D>, <B>.
//!
//! ```text
//! h(x; a, b, c, n) = a + b / (1 + (c x)^n)          (b < 0: activating)
//! dN/dt  = -ka N <D> + kd B - dN N + h(B; bn) h(O2; on)
//! dD/dt  = -ka D <N> + kd <B> - dD D + h(N; nd)
//! dB/dt  =  ka N <D> - kd B - dB B
//! dO2/dt = -dO2 O2 + h(O1; vo) h(G; go)
//! dO1/dt = -dO1 O1 + h(O2; ov) h(A; av)
//! dM/dt  = -dM M + h(O2; om)
//! ```
//!
//! The Notch circuit is lateral inhibition: bound Notch represses Notch production (`bn`,
//! b > 0) and Notch activates Delta (`nd`, b < 0), so a cell that receives its neighbours'
//! Delta loses the Notch that makes its own Delta, and they receive less from it; Ovol2 keeps
//! Notch off in basal cells (`on`). docs/models/epidermis.md says why these signs.
//!
//! Per step: cell centres and A from the element positions (`update_centres`), neighbour sums
//! over the cells whose centres lie within `neighbour_distance` (`neighbour_sums`), then one RK2
//! midpoint step, each stage clamped at 0 (`gene_step`). The neighbour sums are taken once from
//! the state at the step's start and serve both stages, as in the seed.
//!
//! These CPU functions are the reference of the GPU passes (`genes_gpu`,
//! `shaders/epidermis/{centres,genes}.wgsl`) and compute in f32 from the same `GeneUniforms`.

use super::state::{EpidermisState, Species, ADHESIVE, MAX_ELEMENTS, SPECIES};
use crate::error::{invalid, Result};
use serde::{Deserialize, Serialize};

/// The Hill-type regulation `h(x) = a + b / (1 + (c x)^n)`; in JSON `[a, b, c, n]`.
/// `b > 0` represses (h falls from a + b to a), `b < 0` activates (h rises from a + b to a).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "[f64; 4]", into = "[f64; 4]")]
pub struct Hill {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub n: f64,
}

impl From<[f64; 4]> for Hill {
    fn from([a, b, c, n]: [f64; 4]) -> Self {
        Self { a, b, c, n }
    }
}

impl From<Hill> for [f64; 4] {
    fn from(h: Hill) -> Self {
        [h.a, h.b, h.c, h.n]
    }
}

impl Hill {
    const fn new(a: f64, b: f64, c: f64, n: f64) -> Self {
        Self { a, b, c, n }
    }

    fn to_f32(self) -> [f32; 4] {
        [self.a as f32, self.b as f32, self.c as f32, self.n as f32]
    }

    fn validate(&self, field: &str) -> Result<()> {
        let parts = [("a", self.a), ("b", self.b), ("c", self.c), ("n", self.n)];
        for (k, (name, v)) in parts.into_iter().enumerate() {
            let f = format!("{field}[{k}] ({name})");
            check_f32(&f, v)?;
        }
        if self.c < 0.0 {
            return Err(invalid(&format!("{field}[2] (c)"), self.c, "c >= 0"));
        }
        if !(self.n > 0.0 && self.n <= MAX_HILL_N) {
            return Err(invalid(
                &format!("{field}[3] (n)"),
                self.n,
                format!("0 < n <= {MAX_HILL_N}"),
            ));
        }
        // h lies between a + b (x = 0) and a (x large): both ends must be >= 0 so that a
        // production term never turns into a decay.
        if self.a < 0.0 || self.a + self.b < 0.0 {
            return Err(invalid(
                field,
                format!("[{}, {}, {}, {}]", self.a, self.b, self.c, self.n),
                "a >= 0 and a + b >= 0 (h(x) >= 0 for every x >= 0)",
            ));
        }
        Ok(())
    }
}

/// Largest Hill exponent accepted (steeper switches need smaller time steps than the model's).
pub const MAX_HILL_N: f64 = 16.0;

/// One value per integrated species (A is computed, not integrated).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerSpecies {
    pub notch: f64,
    pub delta: f64,
    pub bound: f64,
    pub ovol1: f64,
    pub ovol2: f64,
    pub myc: f64,
}

impl PerSpecies {
    /// Values in `Species` order (N, D, B, O1, O2, M).
    pub fn values(&self) -> [f64; 6] {
        [
            self.notch, self.delta, self.bound, self.ovol1, self.ovol2, self.myc,
        ]
    }

    fn validate(&self, field: &str) -> Result<()> {
        const NAMES: [&str; 6] = ["notch", "delta", "bound", "ovol1", "ovol2", "myc"];
        for (name, v) in NAMES.into_iter().zip(self.values()) {
            let f = format!("{field}.{name}");
            check_f32(&f, v)?;
            if v < 0.0 {
                return Err(invalid(&f, v, ">= 0"));
            }
        }
        Ok(())
    }
}

/// The Hill functions of the network, named by input and target: `bn` is B acting on N's
/// production, `on` O2 on N, `nd` N on D, `vo` O1 on O2, `go` G on O2, `ov` O2 on O1, `av` A on
/// O1, `om` O2 on M.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HillTable {
    pub bn: Hill,
    pub on: Hill,
    pub nd: Hill,
    pub vo: Hill,
    pub go: Hill,
    pub ov: Hill,
    pub av: Hill,
    pub om: Hill,
}

impl HillTable {
    /// In the order of `GeneUniforms::hill` (and `HILL_*` in `gene_common.wgsl`).
    pub fn all(&self) -> [(&'static str, Hill); 8] {
        [
            ("bn", self.bn),
            ("on", self.on),
            ("nd", self.nd),
            ("vo", self.vo),
            ("go", self.go),
            ("ov", self.ov),
            ("av", self.av),
            ("om", self.om),
        ]
    }
}

/// The gene network's parameters (config section `genes`). Time is in the model's time unit
/// (the one `dt` is given in); see `Default` for the values and their reasons.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GeneParams {
    /// Notch-Delta association rate (per unit concentration and time).
    pub ka: f64,
    /// Notch-Delta dissociation rate (per time).
    pub kd: f64,
    /// First-order decay rate of each species (per time).
    pub decay: PerSpecies,
    pub hill: HillTable,
    /// TGF-beta G, constant in space and time (seed: 0.4).
    pub tgf_beta: f64,
    /// Cells whose centres lie within this distance (minimum image) are neighbours.
    pub neighbour_distance: f64,
    /// Gene values of the initial cells.
    pub initial: PerSpecies,
}

impl Default for GeneParams {
    /// Values chosen (the seed's Table 2 is lost) so that, with decay rates of 3 per time unit,
    /// a basal cell (A >= 0.2) sits at O2 = 2.86, O1 = 0, N = 0.04, D < 0.001 (below the growth
    /// threshold 0.3); a cell that loses its adhesive elements (A = 0) switches to O1 = 4,
    /// O2 = 0.17 within about 2 time units, its Notch comes on, and detached neighbours split
    /// by lateral inhibition into high Delta (1.6-2) and low Delta (0.03) within about 6 time
    /// units from a 1% difference. `genes_defaults.json` gives each value's reason.
    fn default() -> Self {
        Self {
            ka: 3.0,
            kd: 0.3,
            decay: PerSpecies {
                notch: 3.0,
                delta: 3.0,
                bound: 3.0,
                ovol1: 3.0,
                ovol2: 3.0,
                myc: 3.0,
            },
            hill: HillTable {
                bn: Hill::new(0.0, 4.0, 4.0, 4.0),
                on: Hill::new(0.0, 2.0, 1.0, 4.0),
                nd: Hill::new(6.0, -6.0, 2.0, 4.0),
                vo: Hill::new(0.0, 12.0, 1.0, 2.0),
                go: Hill::new(0.0, 1.0, 1.0, 1.0),
                ov: Hill::new(0.0, 12.0, 0.5, 2.0),
                av: Hill::new(0.0, 1.0, 10.0, 4.0),
                om: Hill::new(0.0, 3.0, 1.0, 2.0),
            },
            tgf_beta: 0.4,
            neighbour_distance: 1.2,
            initial: PerSpecies {
                notch: 0.039,
                delta: 0.0001,
                bound: 0.0,
                ovol1: 0.0,
                ovol2: 2.86,
                myc: 0.11,
            },
        }
    }
}

/// Fails unless `v` is finite and fits an f32 (the GPU's type).
pub(crate) fn check_f32(field: &str, v: f64) -> Result<()> {
    if !(v.is_finite() && v.abs() <= f32::MAX as f64) {
        return Err(invalid(field, v, "a finite number within the f32 range"));
    }
    Ok(())
}

impl GeneParams {
    /// Checks every value; errors name the field (`genes.…`), the value and what is allowed.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [("genes.ka", self.ka), ("genes.kd", self.kd)] {
            check_f32(name, v)?;
            if v < 0.0 {
                return Err(invalid(name, v, ">= 0"));
            }
        }
        self.decay.validate("genes.decay")?;
        for (name, h) in self.hill.all() {
            h.validate(&format!("genes.hill.{name}"))?;
        }
        check_f32("genes.tgf_beta", self.tgf_beta)?;
        if self.tgf_beta < 0.0 {
            return Err(invalid("genes.tgf_beta", self.tgf_beta, ">= 0"));
        }
        check_f32("genes.neighbour_distance", self.neighbour_distance)?;
        if self.neighbour_distance <= 0.0 {
            return Err(invalid(
                "genes.neighbour_distance",
                self.neighbour_distance,
                "> 0",
            ));
        }
        self.initial.validate("genes.initial")
    }

    /// The gene values of a new cell with adhesion `a`, in `EpidermisState::genes` order.
    pub fn initial_genes(&self, a: f32) -> [f32; SPECIES] {
        let mut g = [0.0; SPECIES];
        for (k, v) in self.initial.values().into_iter().enumerate() {
            g[k] = v as f32;
        }
        g[Species::Adhesion as usize] = a;
        g
    }
}

/// The centre-binning grid of a periodic box `lx` x `ly` of height `height`: as many bins per
/// axis as fit with a side of at least `distance` (at least one), so that every neighbour of a
/// centre lies in the 3 x 3 x 3 bins around its own.
pub fn centre_grid(lx: f32, ly: f32, height: f32, distance: f32) -> ([u32; 3], [f32; 3]) {
    let bins = |l: f32| {
        let mut n = ((l / distance).floor() as u32).max(1);
        while n > 1 && l / (n as f32) < distance {
            n -= 1;
        }
        n
    };
    let dims = [bins(lx), bins(ly), bins(height.max(distance))];
    let size = [
        lx / dims[0] as f32,
        ly / dims[1] as f32,
        height.max(distance) / dims[2] as f32,
    ];
    (dims, size)
}

/// The gene network's parameters as the shaders see them (`GeneUniforms` in
/// `shaders/epidermis/gene_common.wgsl`; `crates/model/tests/layouts.rs` checks the layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GeneUniforms {
    pub ka: f32,
    pub kd: f32,
    pub tgf_beta: f32,
    pub dt: f32,
    /// Decay rates in the genes buffer's layout: [N, D, B, O1], [O2, M, 0, 0].
    pub decay: [[f32; 4]; 2],
    /// Hill tuples (a, b, c, n) in `HillTable::all` order.
    pub hill: [[f32; 4]; 8],
    /// Periodic box in x and y.
    pub lx: f32,
    pub ly: f32,
    /// neighbour_distance squared.
    pub neighbour_distance2: f32,
    pub max_cells: u32,
    /// Bins per axis of the centre binning (`centre_grid`).
    pub bins: [u32; 3],
    /// Height of one bin of the centre binning.
    pub bin_z: f32,
}

impl GeneUniforms {
    /// From validated parameters, the time step and the box (`height`: the binning's z extent).
    pub fn new(p: &GeneParams, dt: f64, lx: f64, ly: f64, height: f64, max_cells: u32) -> Self {
        let d = p.decay.values().map(|v| v as f32);
        let hill = p.hill.all().map(|(_, h)| h.to_f32());
        let distance = p.neighbour_distance as f32;
        let (bins, size) = centre_grid(lx as f32, ly as f32, height as f32, distance);
        Self {
            ka: p.ka as f32,
            kd: p.kd as f32,
            tgf_beta: p.tgf_beta as f32,
            dt: dt as f32,
            decay: [[d[0], d[1], d[2], d[3]], [d[4], d[5], 0.0, 0.0]],
            hill,
            lx: lx as f32,
            ly: ly as f32,
            neighbour_distance2: distance * distance,
            max_cells,
            bins,
            bin_z: size[2],
        }
    }
}

/// Indices into `GeneUniforms::hill`.
const BN: usize = 0;
const ON: usize = 1;
const ND: usize = 2;
const VO: usize = 3;
const GO: usize = 4;
const OV: usize = 5;
const AV: usize = 6;
const OM: usize = 7;

/// `h(x; a, b, c, n)` for x >= 0 ((c x)^n taken as 0 at c x = 0).
pub fn hill(x: f32, h: [f32; 4]) -> f32 {
    let cx = h[2] * x;
    let p = if cx > 0.0 { cx.powf(h[3]) } else { 0.0 };
    h[0] + h[1] / (1.0 + p)
}

/// d/dt of N, D, B, O1, O2, M at gene state `y` (A = y[6]) with neighbour averages
/// `nb` = (<N>, <D>, <B>).
pub fn rates(u: &GeneUniforms, y: &[f32; SPECIES], nb: [f32; 3]) -> [f32; 6] {
    let [n, d, b, o1, o2, m, a, _] = *y;
    let [nn, nd, nbound] = nb;
    let h = &u.hill;
    let [dn, dd, db, do1] = u.decay[0];
    let [do2, dm, _, _] = u.decay[1];
    [
        -u.ka * n * nd + u.kd * b - dn * n + hill(b, h[BN]) * hill(o2, h[ON]),
        -u.ka * d * nn + u.kd * nbound - dd * d + hill(n, h[ND]),
        u.ka * n * nd - u.kd * b - db * b,
        -do1 * o1 + hill(o2, h[OV]) * hill(a, h[AV]),
        -do2 * o2 + hill(o1, h[VO]) * hill(u.tgf_beta, h[GO]),
        -dm * m + hill(o2, h[OM]),
    ]
}

/// `d` wrapped to the nearest periodic image (|d| <= l / 2 for |d| < 3 l / 2).
pub fn min_image(d: f32, l: f32) -> f32 {
    if d > 0.5 * l {
        d - l
    } else if d < -0.5 * l {
        d + l
    } else {
        d
    }
}

/// The centre of a cell's elements: per periodic axis the first element's coordinate plus the
/// mean of the minimum-image offsets from it, wrapped into the box; z the plain mean.
pub fn cell_centre(elements: &[[f32; 4]], lx: f32, ly: f32) -> [f32; 3] {
    let Some(first) = elements.first() else {
        return [0.0; 3];
    };
    let (mut sx, mut sy, mut sz) = (0.0f32, 0.0f32, 0.0f32);
    for e in elements {
        sx += min_image(e[0] - first[0], lx);
        sy += min_image(e[1] - first[1], ly);
        sz += e[2];
    }
    let n = elements.len() as f32;
    let wrap = |x: f32, l: f32| {
        if x < 0.0 {
            x + l
        } else if x >= l {
            x - l
        } else {
            x
        }
    };
    [
        wrap(first[0] + sx / n, lx),
        wrap(first[1] + sy / n, ly),
        sz / n,
    ]
}

/// The basement-membrane adhesion A of a cell: the sum of |z| over its adhesive elements.
pub fn adhesion(elements: &[[f32; 4]]) -> f32 {
    elements
        .iter()
        .filter(|e| e[3] == ADHESIVE)
        .fold(0.0, |s, e| s + e[2].abs())
}

/// The centres pass: `centres[c]` (xyz, w = 0) and A into `genes[c]` for the first `cells`
/// cells.
pub fn update_centres(
    u: &GeneUniforms,
    pos: &[[f32; 4]],
    counts: &[u32],
    cells: usize,
    centres: &mut [[f32; 4]],
    genes: &mut [[f32; SPECIES]],
) {
    for c in 0..cells {
        let first = c * MAX_ELEMENTS;
        let elements = &pos[first..first + (counts[c] as usize).min(MAX_ELEMENTS)];
        let [x, y, z] = cell_centre(elements, u.lx, u.ly);
        centres[c] = [x, y, z, 0.0];
        genes[c][Species::Adhesion as usize] = adhesion(elements);
    }
}

/// Whether centres `a` and `b` lie within the neighbour distance (minimum image in x and y).
pub fn are_neighbours(u: &GeneUniforms, a: [f32; 4], b: [f32; 4]) -> bool {
    let dx = min_image(a[0] - b[0], u.lx);
    let dy = min_image(a[1] - b[1], u.ly);
    let dz = a[2] - b[2];
    dx * dx + dy * dy + dz * dz <= u.neighbour_distance2
}

/// Per cell the sums of N, D, B over its neighbours and their number (as f32), all pairs. The
/// GPU finds the same neighbours through the binned centres (sums in another order).
pub fn neighbour_sums(
    u: &GeneUniforms,
    centres: &[[f32; 4]],
    genes: &[[f32; SPECIES]],
    cells: usize,
    out: &mut [[f32; 4]],
) {
    for c in 0..cells {
        let mut s = [0.0f32; 4];
        for j in (0..cells).filter(|&j| j != c) {
            if are_neighbours(u, centres[c], centres[j]) {
                s[0] += genes[j][Species::Notch as usize];
                s[1] += genes[j][Species::Delta as usize];
                s[2] += genes[j][Species::Bound as usize];
                s[3] += 1.0;
            }
        }
        out[c] = s;
    }
}

/// Neighbour averages (<N>, <D>, <B>) from sums; 0 without neighbours.
pub fn averages(sums: [f32; 4]) -> [f32; 3] {
    if sums[3] > 0.0 {
        [sums[0] / sums[3], sums[1] / sums[3], sums[2] / sums[3]]
    } else {
        [0.0; 3]
    }
}

/// One RK2 stage: `base + h * rates(at)`, clamped at 0, A carried over from `base`.
pub fn stage(
    u: &GeneUniforms,
    base: &[f32; SPECIES],
    at: &[f32; SPECIES],
    nb: [f32; 3],
    h: f32,
) -> [f32; SPECIES] {
    let f = rates(u, at, nb);
    let mut out = *base;
    for k in 0..6 {
        out[k] = (base[k] + h * f[k]).max(0.0);
    }
    out[SPECIES - 1] = 0.0;
    out
}

/// One RK2 midpoint step of the first `cells` cells' genes with the neighbour sums of the
/// step's start.
pub fn gene_step(
    u: &GeneUniforms,
    genes: &mut [[f32; SPECIES]],
    neighbours: &[[f32; 4]],
    cells: usize,
) {
    for c in 0..cells {
        let nb = averages(neighbours[c]);
        let y = genes[c];
        let mid = stage(u, &y, &y, nb, 0.5 * u.dt);
        genes[c] = stage(u, &y, &mid, nb, u.dt);
    }
}

/// A whole gene step of a state on the CPU (centres and A, neighbour sums, RK2), the order of
/// the GPU passes. Returns the centres (`max_cells` entries, as the GPU's `centres` buffer).
pub fn step_genes(u: &GeneUniforms, state: &mut EpidermisState) -> Vec<[f32; 4]> {
    let cells = state.cells as usize;
    let mut centres = vec![[0.0; 4]; state.max_cells as usize];
    let mut sums = vec![[0.0; 4]; state.max_cells as usize];
    update_centres(
        u,
        &state.pos,
        &state.counts,
        cells,
        &mut centres,
        &mut state.genes,
    );
    neighbour_sums(u, &centres, &state.genes, cells, &mut sums);
    gene_step(u, &mut state.genes, &sums, cells);
    centres
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniforms() -> GeneUniforms {
        GeneUniforms::new(&GeneParams::default(), 0.005, 6.0, 6.0, 6.0, 4)
    }

    #[test]
    fn defaults_are_valid_and_round_trip() {
        let p = GeneParams::default();
        p.validate().unwrap();
        let text = serde_json::to_string(&p).unwrap();
        let back: GeneParams = serde_json::from_str(&text).unwrap();
        assert_eq!(back, p);
        // Missing fields take the defaults.
        let partial: GeneParams = serde_json::from_str(r#"{"tgf_beta": 0.5}"#).unwrap();
        assert_eq!(partial.ka, p.ka);
        assert_eq!(partial.tgf_beta, 0.5);
    }

    #[test]
    fn bad_values_name_field_value_and_range() {
        let err = |change: fn(&mut GeneParams)| {
            let mut p = GeneParams::default();
            change(&mut p);
            p.validate().unwrap_err().to_string()
        };
        let e = err(|p| p.hill.av.n = 0.0);
        assert!(
            e.contains("genes.hill.av[3] (n)") && e.contains("0 < n"),
            "{e}"
        );
        let e = err(|p| p.hill.nd = Hill::new(1.0, -2.0, 1.0, 2.0));
        assert!(
            e.contains("genes.hill.nd") && e.contains("a + b >= 0"),
            "{e}"
        );
        assert!(err(|p| p.decay.myc = -1.0).contains("genes.decay.myc = -1"));
        assert!(err(|p| p.neighbour_distance = 0.0).contains("genes.neighbour_distance = 0"));
        assert!(err(|p| p.ka = f64::NAN).contains("genes.ka"));
        assert!(err(|p| p.initial.ovol2 = 1e300).contains("genes.initial.ovol2"));
        let unknown = serde_json::from_str::<GeneParams>(r#"{"kz": 1}"#).unwrap_err();
        assert!(unknown.to_string().contains("kz"));
    }

    #[test]
    fn hill_ends_and_midpoint() {
        let h = [1.0, 2.0, 0.5, 2.0];
        assert_eq!(hill(0.0, h), 3.0);
        assert_eq!(hill(2.0, h), 2.0);
        assert!((hill(1e6, h) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn centre_grid_bins_are_at_least_the_distance() {
        for (l, d) in [(6.0f32, 1.5f32), (4.4, 1.5), (1.0, 1.5), (10.0, 0.3)] {
            let (dims, size) = centre_grid(l, l, l, d);
            assert!(dims.iter().all(|&n| n >= 1));
            assert!(size.iter().all(|&s| s >= d || dims[0] == 1), "{l} {d}");
        }
    }

    #[test]
    fn centre_is_the_minimum_image_mean() {
        let u = uniforms();
        let e = [[5.9, 1.0, 0.5, 0.0], [0.1, 1.0, 1.5, 0.0]];
        let c = cell_centre(&e, u.lx, u.ly);
        assert!(c[0] < 1e-5 || c[0] > 6.0 - 1e-5, "{c:?}");
        assert_eq!(c[2], 1.0);
        assert_eq!(
            adhesion(&[[0.0, 0.0, 0.25, ADHESIVE], [0.0, 0.0, 1.0, 0.0]]),
            0.25
        );
    }
}
