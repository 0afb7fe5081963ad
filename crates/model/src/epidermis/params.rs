//! Epidermis parameters: the JSON config (`assets/epidermis.json`), validation with field-named
//! errors, and the derived quantities the mechanics needs (the intercellular range, the binning
//! grid).

use super::genes::GeneParams;
use super::growth::GrowthParams;
use super::state::MAX_ELEMENTS;
use crate::error::{invalid, Result};
use petri_scheduler::primitives::Grid;
use serde::{Deserialize, Serialize};

/// Most cells a config may ask for: slots (`max_cells * MAX_ELEMENTS`) stay far below 2^31.
pub const MAX_CELLS: u32 = 1 << 24;
/// Bins of the neighbour grid are this much wider than the intercellular range, so that two
/// elements within range never land two bins apart through the f32 rounding of the bin
/// coordinate (its error is a few 1e-7 of the coordinate in bins, far below 1e-3 for grids of
/// up to ~10^3 bins per axis).
pub const BIN_MARGIN: f64 = 1.001;
/// Most bins of the neighbour grid.
pub const MAX_BINS: u64 = 1 << 26;

/// A Morse potential V(r) = u0 e^(-r/xi1) - w0 e^(-r/xi2): repulsion of strength u0 and range
/// xi1, attraction of strength w0 and range xi2.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Morse {
    pub u0: f64,
    pub xi1: f64,
    pub w0: f64,
    pub xi2: f64,
}

impl Morse {
    /// The potential V(r).
    pub fn potential(&self, r: f64) -> f64 {
        self.u0 * (-r / self.xi1).exp() - self.w0 * (-r / self.xi2).exp()
    }

    /// The force magnitude -V'(r) along the pair's separation (positive: repulsive).
    pub fn force(&self, r: f64) -> f64 {
        self.u0 / self.xi1 * (-r / self.xi1).exp() - self.w0 / self.xi2 * (-r / self.xi2).exp()
    }

    /// Where V changes sign (V > 0 below it), or infinity when V > 0 at every r (no
    /// attraction, or an attraction of shorter range than the repulsion). Needs u0 > w0.
    pub fn zero_crossing(&self) -> f64 {
        let k = 1.0 / self.xi1 - 1.0 / self.xi2;
        if self.w0 == 0.0 || k <= 0.0 {
            return f64::INFINITY;
        }
        (self.u0 / self.w0).ln() / k
    }

    fn validate(&self, field: &str) -> Result<()> {
        for (name, v) in [("u0", self.u0), ("w0", self.w0)] {
            if !(v.is_finite() && (0.0..=1e30).contains(&v)) {
                return Err(invalid(
                    &format!("{field}.{name}"),
                    v,
                    "a finite number in [0, 1e30]",
                ));
            }
        }
        for (name, v) in [("xi1", self.xi1), ("xi2", self.xi2)] {
            if !(v.is_finite() && (1e-6..=1e6).contains(&v)) {
                return Err(invalid(
                    &format!("{field}.{name}"),
                    v,
                    "a length in [1e-6, 1e6]",
                ));
            }
        }
        Ok(())
    }
}

/// The intercellular potential, acting within `cutoff`: its repulsive core keeps cells apart,
/// its attractive shell (from the potential's minimum to the cutoff) is their adhesion.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InterMorse {
    pub u0: f64,
    pub xi1: f64,
    pub w0: f64,
    pub xi2: f64,
    pub cutoff: f64,
}

impl InterMorse {
    pub fn morse(&self) -> Morse {
        Morse {
            u0: self.u0,
            xi1: self.xi1,
            w0: self.w0,
            xi2: self.xi2,
        }
    }

    /// Distance below which two elements of different cells interact: the cutoff.
    pub fn range(&self) -> f64 {
        self.cutoff
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Mechanics {
    /// Between elements of one cell within `intra_cutoff`.
    pub intra: Morse,
    /// Range of the intracellular potential: an element holds only its near neighbours, so a
    /// cell keeps its element density and its volume grows with its element count (absent:
    /// 1e6, every pair).
    #[serde(default = "no_cutoff")]
    pub intra_cutoff: f64,
    /// Between elements of different cells, within the cutoff: repulsion and adhesion.
    pub inter: InterMorse,
    /// Pull of the basement membrane at z = 0 on adhesive elements: -V'(z) along z.
    pub membrane: Morse,
}

fn no_cutoff() -> f64 {
    1e6
}

/// The simulation box: periodic in x (period lx) and y (period ly), floor at z = 0, open top.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BoxSize {
    pub lx: f64,
    pub ly: f64,
    /// Height of the neighbour grid (elements above it share its top layer of bins: still
    /// correct, only slower), and of the pictures.
    pub height: f64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Capacity {
    /// Cells that fit: a division past it stops the run with an error naming this field.
    pub max_cells: u32,
}

/// The initial tissue: one layer of cells on a square lattice over the box.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Initial {
    pub cells_x: u32,
    pub cells_y: u32,
    pub elements_per_cell: u32,
    /// Each cell starts with `elements_per_cell` plus a number of elements drawn uniformly
    /// from 0..=extra_elements (seeded): cells at different phases of their growth cycle, so
    /// they divide at different times (0: all alike).
    #[serde(default)]
    pub extra_elements: u32,
    /// Elements start at uniform random points of a ball around (lattice x, lattice y, its
    /// radius): this radius for `elements_per_cell` elements, scaled by the cube root of the
    /// count for more.
    pub radius: f64,
    /// The lowest this many elements of each cell are adhesive (basement-membrane type).
    pub adhesive_per_cell: u32,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutputParams {
    /// Cell layers for the observables: layer k holds centres with z in [(k-1) t, k t).
    pub layer_thickness: f64,
}

/// The model config, as read from `assets/epidermis.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EpidermisConfig {
    /// Must be "epidermis".
    pub model: String,
    pub seed: u64,
    pub steps: u64,
    /// Time step of the mechanics and the gene network (RK2 midpoint).
    pub dt: f64,
    /// Observables are read back every this many steps.
    pub observe_every: u32,
    /// Element snapshots (.vtp) every this many steps (0: only at the end).
    pub snapshot_every: u64,
    /// Side-view pictures every this many steps (0: none besides the snapshots').
    pub frame_every: u64,
    #[serde(rename = "box")]
    pub domain: BoxSize,
    pub capacity: Capacity,
    pub initial: Initial,
    pub mechanics: Mechanics,
    pub genes: GeneParams,
    pub growth: GrowthParams,
    pub output: OutputParams,
    /// Where each value comes from and why (free text, kept in the run manifest).
    pub provenance: serde_json::Value,
}

impl Default for EpidermisConfig {
    /// The values of `assets/epidermis.json` (whose provenance says why).
    fn default() -> Self {
        Self {
            model: "epidermis".into(),
            seed: 42,
            steps: 130_000,
            dt: 0.005,
            observe_every: 500,
            snapshot_every: 10_000,
            frame_every: 0,
            domain: BoxSize {
                lx: 10.0,
                ly: 10.0,
                height: 8.0,
            },
            capacity: Capacity { max_cells: 1024 },
            initial: Initial {
                cells_x: 10,
                cells_y: 10,
                elements_per_cell: 20,
                extra_elements: 19,
                radius: 0.5,
                adhesive_per_cell: 5,
            },
            mechanics: Mechanics {
                intra: Morse {
                    u0: 0.25,
                    xi1: 0.12,
                    w0: 0.1,
                    xi2: 0.36,
                },
                intra_cutoff: 0.45,
                inter: InterMorse {
                    u0: 0.5,
                    xi1: 0.12,
                    w0: 0.25,
                    xi2: 0.2,
                    cutoff: 0.45,
                },
                membrane: Morse {
                    u0: 0.25,
                    xi1: 0.12,
                    w0: 0.1,
                    xi2: 0.36,
                },
            },
            genes: GeneParams::default(),
            growth: GrowthParams::default(),
            output: OutputParams {
                layer_thickness: 0.7,
            },
            provenance: serde_json::Value::Null,
        }
    }
}

impl EpidermisConfig {
    /// Parses JSON text; unknown keys and wrong types are errors naming the key.
    pub fn from_json(text: &str, path: &str) -> Result<Self> {
        crate::error::parse_config(text, path, Self::validate)
    }

    pub fn from_file(path: &std::path::Path) -> Result<Self> {
        crate::error::read_config(path, Self::from_json)
    }

    /// Model time at `step`.
    pub fn time(&self, step: u64) -> f64 {
        step as f64 * self.dt
    }

    /// Cells of the initial layer.
    pub fn initial_cells(&self) -> u64 {
        self.initial.cells_x as u64 * self.initial.cells_y as u64
    }

    /// The uniform grid the mechanics bins elements into: bins at least `BIN_MARGIN` times the
    /// intercellular range wide, a whole number of them per period in x and y (periodic), and
    /// over [0, height] in z (clamped: elements above the top share its layer).
    pub fn mechanics_grid(&self) -> Grid {
        let h = self.mechanics.inter.range() * BIN_MARGIN;
        let d = &self.domain;
        let along = |l: f64| ((l / h).floor().max(1.0)).min(u32::MAX as f64) as u32;
        let [nx, ny, nz] = [
            along(d.lx),
            along(d.ly),
            (d.height / h).ceil().max(1.0) as u32,
        ];
        Grid {
            origin: [0.0; 3],
            cell_size: [
                (d.lx / nx as f64) as f32,
                (d.ly / ny as f64) as f32,
                h as f32,
            ],
            dims: [nx, ny, nz],
            periodic: [true, true, false],
        }
    }

    /// Checks every value against its allowed range.
    pub fn validate(&self) -> Result<()> {
        if self.model != "epidermis" {
            return Err(invalid("model", &self.model, "\"epidermis\""));
        }
        if !(self.dt.is_finite() && self.dt > 0.0 && self.dt <= 1e3) {
            return Err(invalid("dt", self.dt, "a finite number in (0, 1e3]"));
        }
        if self.observe_every == 0 {
            return Err(invalid("observe_every", 0, "an integer >= 1"));
        }
        let length = |field: &str, v: f64| -> Result<()> {
            if !(v.is_finite() && (1e-6..=1e6).contains(&v)) {
                return Err(invalid(field, v, "a length in [1e-6, 1e6]"));
            }
            Ok(())
        };
        length("box.lx", self.domain.lx)?;
        length("box.ly", self.domain.ly)?;
        length("box.height", self.domain.height)?;
        length("initial.radius", self.initial.radius)?;
        length("output.layer_thickness", self.output.layer_thickness)?;
        self.mechanics.intra.validate("mechanics.intra")?;
        length("mechanics.intra_cutoff", self.mechanics.intra_cutoff)?;
        self.mechanics.membrane.validate("mechanics.membrane")?;
        let inter = &self.mechanics.inter;
        inter.morse().validate("mechanics.inter")?;
        length("mechanics.inter.cutoff", inter.cutoff)?;
        if inter.u0 <= inter.w0 {
            return Err(invalid(
                "mechanics.inter.u0",
                inter.u0,
                format!(
                    "a number above mechanics.inter.w0 = {} (cells must repel at contact)",
                    inter.w0
                ),
            ));
        }
        let cap = self.capacity.max_cells;
        if !(1..=MAX_CELLS).contains(&cap) {
            return Err(invalid(
                "capacity.max_cells",
                cap,
                format!("an integer in 1..={MAX_CELLS}"),
            ));
        }
        let init = &self.initial;
        if init.cells_x == 0 || init.cells_y == 0 {
            let (field, v) = match init.cells_x {
                0 => ("initial.cells_x", init.cells_x),
                _ => ("initial.cells_y", init.cells_y),
            };
            return Err(invalid(field, v, "an integer >= 1"));
        }
        if self.initial_cells() > cap as u64 {
            return Err(invalid(
                "capacity.max_cells",
                cap,
                format!(
                    "at least initial.cells_x * initial.cells_y = {}",
                    self.initial_cells()
                ),
            ));
        }
        if !(1..=MAX_ELEMENTS as u32).contains(&init.elements_per_cell) {
            return Err(invalid(
                "initial.elements_per_cell",
                init.elements_per_cell,
                format!("an integer in 1..={MAX_ELEMENTS}"),
            ));
        }
        if init.elements_per_cell as u64 + init.extra_elements as u64 > MAX_ELEMENTS as u64 {
            return Err(invalid(
                "initial.extra_elements",
                init.extra_elements,
                format!(
                    "at most {MAX_ELEMENTS} - initial.elements_per_cell = {}",
                    MAX_ELEMENTS as u32 - init.elements_per_cell
                ),
            ));
        }
        if init.adhesive_per_cell > init.elements_per_cell {
            return Err(invalid(
                "initial.adhesive_per_cell",
                init.adhesive_per_cell,
                format!(
                    "at most initial.elements_per_cell = {}",
                    init.elements_per_cell
                ),
            ));
        }
        self.genes.validate()?;
        self.growth.validate()?;
        let grid = self.mechanics_grid();
        let range = inter.range();
        for (field, l, n) in [
            ("box.lx", self.domain.lx, grid.dims[0]),
            ("box.ly", self.domain.ly, grid.dims[1]),
        ] {
            if n < 3 {
                return Err(invalid(
                    field,
                    l,
                    format!(
                        "at least 3 neighbour bins of {} x the intercellular range {range} \
                         (mechanics.inter.cutoff), i.e. >= {}",
                        BIN_MARGIN,
                        3.0 * range * BIN_MARGIN
                    ),
                ));
            }
        }
        let (centre_bins, _) = super::genes::centre_grid(
            self.domain.lx as f32,
            self.domain.ly as f32,
            self.domain.height as f32,
            self.genes.neighbour_distance as f32,
        );
        let centre_cells: f64 = centre_bins.iter().map(|&n| n as f64).product();
        if centre_cells > MAX_BINS as f64 {
            let volume = self.domain.lx * self.domain.ly * self.domain.height;
            return Err(invalid(
                "genes.neighbour_distance",
                self.genes.neighbour_distance,
                format!(
                    "at least {} (the cells' centres are binned by it: this box needs {} bins \
                     of it, at most {MAX_BINS})",
                    crate::error::bound((volume / MAX_BINS as f64).cbrt() * 1.01, false),
                    crate::error::short(centre_cells)
                ),
            ));
        }
        // In f64: three axes of up to 2^32 bins overflow u64.
        let bins: f64 = grid.dims.iter().map(|&n| n as f64).product();
        if bins > MAX_BINS as f64 {
            return Err(invalid(
                "box",
                format!(
                    "{} x {} x {}",
                    self.domain.lx, self.domain.ly, self.domain.height
                ),
                format!(
                    "at most {MAX_BINS} neighbour bins of the intercellular range {range} \
                     (this box needs {})",
                    crate::error::short(bins)
                ),
            ));
        }
        // The initial balls (the radius grows by the cube root of the count over
        // elements_per_cell) fit in the box: no element starts far above the tissue or wraps
        // onto its own cell.
        let widest = init.radius
            * ((init.elements_per_cell + init.extra_elements) as f64
                / init.elements_per_cell as f64)
                .cbrt();
        let room = self.domain.lx.min(self.domain.ly).min(self.domain.height) / 2.0;
        if widest > room {
            return Err(invalid(
                "initial.radius",
                init.radius,
                format!(
                    "a ball that fits the box: its largest radius ({}) at most half the \
                     smallest of box.lx, box.ly, box.height ({})",
                    crate::error::bound(widest, false),
                    crate::error::bound(room, true)
                ),
            ));
        }
        self.check_stability()?;
        self.check_budget()
    }
}
