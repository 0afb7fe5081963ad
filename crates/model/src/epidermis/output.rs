//! Files a biologist opens: the observables of the tissue (cells per layer, divisions, mean gene
//! levels), `cells.csv` (one row per cell per observation), the elements as VTK polydata for
//! ParaView (`elements_NNNNNNN.vtp`) and a PNG side view of the tissue (`tissue_NNNNNNN.png`).
//!
//! A cell is *basal* while it has an adhesive element (it holds on to the basement membrane),
//! *suprabasal* otherwise. Its layer is `1 + floor(z / output.layer_thickness)` of its centre's
//! height z: layer 1 sits on the membrane.

use super::genes::cell_centre;
use super::state::{EpidermisState, Species, ADHESIVE};
use crate::error::Result;
use petri_output::{write_points, Axis, Figure, PointData, PointSet, View};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the outputs need of the config: the periodic box, the layer thickness, the time step
/// and the size of an element in pictures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// Periodic box in x and y.
    pub lx: f32,
    pub ly: f32,
    /// The height of the box the neighbour search bins.
    pub height: f32,
    /// Thickness of a layer of cells (`output.layer_thickness`).
    pub layer_thickness: f32,
    /// Time per step.
    pub dt: f64,
    /// Radius of an element's disc in the pictures, in model units.
    pub element_radius: f32,
}

/// Layers counted on their own; cells higher up count in the last one ("4+").
pub const LAYERS: usize = 4;

/// The observables of one step: a row of observables.csv.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observables {
    pub step: u64,
    pub time: f64,
    pub cells: u32,
    pub elements: u64,
    /// Cells with an adhesive element.
    pub basal_cells: u32,
    pub suprabasal_cells: u32,
    /// Cells whose centre lies in layer 1, 2, 3 and 4 or higher.
    pub cells_per_layer: [u32; LAYERS],
    /// Divisions and elements added by growth since the start.
    pub divisions: u32,
    pub added: u32,
    /// Mean over the cells of Notch, Delta, bound Notch, Ovol1, Ovol2, c-Myc.
    pub mean_genes: [f64; 6],
    /// Height of the highest element.
    pub max_z: f32,
}

/// The gene values in observables.csv and cells.csv, in `Species` order.
const GENES: [(Species, &str); 6] = [
    (Species::Notch, "notch"),
    (Species::Delta, "delta"),
    (Species::Bound, "bound"),
    (Species::Ovol1, "ovol1"),
    (Species::Ovol2, "ovol2"),
    (Species::Myc, "myc"),
];

impl Observables {
    /// The columns of observables.csv.
    pub fn columns() -> Vec<String> {
        let mut c: Vec<String> = ["step", "time", "cells", "elements", "basal", "suprabasal"]
            .map(String::from)
            .to_vec();
        c.extend((1..=LAYERS).map(|l| match l {
            LAYERS => format!("layer_{l}_up"),
            _ => format!("layer_{l}"),
        }));
        c.extend(["divisions", "added_elements"].map(String::from));
        c.extend(GENES.iter().map(|(_, name)| format!("mean_{name}")));
        c.push("max_z".into());
        c
    }

    /// The row of observables.csv, in the order of [`Observables::columns`].
    pub fn row(&self) -> Vec<f64> {
        let mut r = vec![
            self.step as f64,
            self.time,
            self.cells as f64,
            self.elements as f64,
            self.basal_cells as f64,
            self.suprabasal_cells as f64,
        ];
        r.extend(self.cells_per_layer.iter().map(|&n| n as f64));
        r.extend([self.divisions as f64, self.added as f64]);
        r.extend(self.mean_genes);
        r.push(decimal(self.max_z));
        r
    }

    /// The first quantity that is not finite.
    pub fn non_finite(&self) -> Option<&'static str> {
        if let Some(k) = self.mean_genes.iter().position(|g| !g.is_finite()) {
            return Some(
                [
                    "mean notch",
                    "mean delta",
                    "mean bound",
                    "mean ovol1",
                    "mean ovol2",
                    "mean myc",
                ][k],
            );
        }
        (!self.max_z.is_finite()).then_some("max element z")
    }
}

/// One cell at one observation: a row of cells.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct CellRow {
    pub cell: u32,
    pub basal: bool,
    pub layer: u32,
    pub centre: [f32; 3],
    pub elements: u32,
    /// All of the cell's gene-network values, adhesion A included (`Species` order).
    pub genes: [f32; super::state::SPECIES],
}

/// An observation: the tissue's observables and the table of its cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    pub observables: Observables,
    pub cells: Vec<CellRow>,
}

/// The columns of cells.csv: the step and time, the cell, whether it is basal (1) or
/// suprabasal (0), its layer, centre and element count, and its gene-network values.
pub fn cell_columns() -> Vec<String> {
    let mut c: Vec<String> = [
        "step", "time", "cell", "basal", "layer", "x", "y", "z", "elements",
    ]
    .map(String::from)
    .to_vec();
    c.extend(GENES.iter().map(|(_, name)| name.to_string()));
    c.push("adhesion".into());
    c
}

impl Observed {
    /// The observation of `s`.
    pub fn of(s: &EpidermisState, g: &Geometry) -> Observed {
        let cells: Vec<CellRow> = (0..s.cells as usize)
            .map(|c| {
                let centre = centre(s, c, g);
                CellRow {
                    cell: c as u32,
                    basal: s.is_basal(c),
                    layer: layer(centre[2], g.layer_thickness),
                    centre,
                    elements: s.counts[c],
                    genes: s.genes[c],
                }
            })
            .collect();
        let basal = cells.iter().filter(|c| c.basal).count() as u32;
        let mut per_layer = [0u32; LAYERS];
        for c in &cells {
            per_layer[(c.layer as usize).clamp(1, LAYERS) - 1] += 1;
        }
        let n = cells.len().max(1) as f64;
        let mean_genes = GENES.map(|(k, _)| {
            cells
                .iter()
                .map(|c| c.genes[k as usize] as f64)
                .sum::<f64>()
                / n
        });
        let max_z = (0..s.cells as usize)
            .flat_map(|c| s.slots(c))
            .map(|slot| s.pos[slot][2])
            .fold(0.0f32, f32::max);
        let observables = Observables {
            step: s.step,
            time: s.step as f64 * g.dt,
            cells: s.cells,
            elements: s.elements(),
            basal_cells: basal,
            suprabasal_cells: s.cells - basal,
            cells_per_layer: per_layer,
            divisions: s.divisions,
            added: s.added,
            mean_genes,
            max_z,
        };
        Observed { observables, cells }
    }

    /// The rows of cells.csv, in the order of [`cell_columns`].
    pub fn cell_rows(&self) -> impl Iterator<Item = Vec<f64>> + '_ {
        let (step, time) = (self.observables.step as f64, self.observables.time);
        self.cells.iter().map(move |c| {
            let mut r = vec![
                step,
                time,
                c.cell as f64,
                c.basal as u8 as f64,
                c.layer as f64,
            ];
            r.extend(c.centre.map(decimal));
            r.push(c.elements as f64);
            r.extend(GENES.iter().map(|(k, _)| decimal(c.genes[*k as usize])));
            r.push(decimal(c.genes[Species::Adhesion as usize]));
            r
        })
    }
}

/// The f64 nearest the shortest decimal of `x`: a CSV shows 0.015, not the 0.014999999664723873
/// of `x as f64`, and the text still reads back to `x` as f32.
fn decimal(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(x as f64)
}

/// The layer of a cell whose centre is at height `z`: 1 on the membrane.
pub fn layer(z: f32, thickness: f32) -> u32 {
    1 + (z.max(0.0) / thickness).floor() as u32
}

/// The centre of cell `c` (the gene network's definition: minimum image across the periodic
/// boundary, so a cell straddling it is centred inside the box).
pub fn centre(s: &EpidermisState, c: usize, g: &Geometry) -> [f32; 3] {
    cell_centre(&s.pos[s.slots(c)], g.lx, g.ly)
}

/// The elements of `s` as points with their cell, element type (1 adhesive, 0 plain), the
/// cell's type (1 basal, 0 suprabasal) and layer, and the cell's gene values.
pub fn write_elements(path: &Path, s: &EpidermisState, g: &Geometry) -> Result<()> {
    let observed = Observed::of(s, g);
    let mut points = Vec::new();
    let (mut cell, mut adhesive, mut basal, mut layer) = (vec![], vec![], vec![], vec![]);
    let mut genes: Vec<Vec<f32>> = vec![Vec::new(); GENES.len()];
    for row in &observed.cells {
        for slot in s.slots(row.cell as usize) {
            let p = s.pos[slot];
            points.push([p[0], p[1], p[2]]);
            cell.push(row.cell);
            adhesive.push((p[3] == ADHESIVE) as u32);
            basal.push(row.basal as u32);
            layer.push(row.layer);
            for (values, (k, _)) in genes.iter_mut().zip(GENES) {
                values.push(row.genes[k as usize]);
            }
        }
    }
    let mut fields = vec![
        ("cell", PointData::U32(&cell)),
        ("adhesive", PointData::U32(&adhesive)),
        ("basal", PointData::U32(&basal)),
        ("layer", PointData::U32(&layer)),
    ];
    for (values, (_, name)) in genes.iter().zip(GENES) {
        fields.push((name, PointData::F32(values)));
    }
    write_points(path, &points, &fields)?;
    Ok(())
}

/// The tallest a side view may be, in widths of the box.
const MAX_ASPECT: f32 = 4.0;
/// Width of the tissue picture in pixels (two views side by side).
const PICTURE_WIDTH: u32 = 1200;
/// Basal cells warm, suprabasal cells cool (ColorBrewer RdBu ends: tell apart in colour
/// blindness too).
pub const BASAL: [u8; 3] = [202, 0, 32];
pub const SUPRABASAL: [u8; 3] = [5, 113, 176];
/// The adhesive elements yellow (Okabe-Ito's yellow: apart from both in colour blindness too).
pub const ADHESIVE_ELEMENTS: [u8; 3] = [240, 228, 66];

/// The unit of length on the pictures' axes: the asset's basal lattice spacing, about one
/// settled cell's diameter (assets/epidermis.json, `initial`).
pub const LENGTH_UNIT: &str = "unit: a basal cell's diameter";

/// The elements of `s` that `keep` accepts, as the pictures colour them: the adhesive elements
/// (which hold basal cells to the membrane), the basal cells' other elements, the suprabasal
/// cells' elements; and how many elements `keep` refused.
fn element_sets(s: &EpidermisState, keep: impl Fn(&[f32; 4]) -> bool) -> ([PointSet; 3], usize) {
    let (mut adhesive, mut basal, mut suprabasal) = (Vec::new(), Vec::new(), Vec::new());
    let (mut basal_cells, mut refused) = (0, 0);
    for c in 0..s.cells as usize {
        let is_basal = s.is_basal(c);
        basal_cells += is_basal as usize;
        for slot in s.slots(c) {
            let p = s.pos[slot];
            if !keep(&p) {
                refused += 1;
                continue;
            }
            let set = match (p[3] == ADHESIVE, is_basal) {
                (true, _) => &mut adhesive,
                (false, true) => &mut basal,
                (false, false) => &mut suprabasal,
            };
            set.push([p[0] as f64, p[1] as f64, p[2] as f64]);
        }
    }
    let sets = [
        PointSet {
            label: format!("adhesive elements ({})", adhesive.len()),
            color: ADHESIVE_ELEMENTS,
            points: adhesive,
        },
        PointSet {
            label: format!("basal cells ({basal_cells})"),
            color: BASAL,
            points: basal,
        },
        PointSet {
            label: format!("suprabasal cells ({})", s.cells as usize - basal_cells),
            color: SUPRABASAL,
            points: suprabasal,
        },
    ];
    (sets, refused)
}

/// The side views of the tissue at the state's step: x-z and y-z, every element a disc coloured
/// as [`element_sets`] sorts it, the membrane at z = 0 the bottom axis, the z axis up to one
/// layer above the highest element (not the box's height, which the tissue may fill only in
/// part); t and the step in the title.
pub fn tissue_figure(s: &EpidermisState, g: &Geometry) -> Result<Figure> {
    // The views are at most MAX_ASPECT times taller than wide: elements above are left out
    // (and counted in the title), so a tissue gone far up never asks for a huge picture.
    let ceiling = g.height.max(MAX_ASPECT * g.lx.max(g.ly));
    // NaN does not fit either.
    let ([adhesive, basal, suprabasal], above) =
        element_sets(s, |p| p[2] + g.element_radius <= ceiling);
    // Suprabasal cells first, so that the basal layer drawn over them stays visible, and the
    // adhesive elements on the membrane last.
    let sets = [suprabasal, basal, adhesive];
    let highest = sets
        .iter()
        .flat_map(|set| set.points.iter())
        .fold(0f32, |h, p| h.max(p[2] as f32 + g.element_radius));
    // One layer above the highest element shown, two layers at least.
    let top = (highest + g.layer_thickness).max(2.0 * g.layer_thickness) as f64;
    let z = || {
        // Short: the side views are low, and a long label would overrun them.
        (2, Axis::new("z", 0.0, top))
    };
    let across =
        |name: &str, length: f32| Axis::new(format!("{name} ({LENGTH_UNIT})"), 0.0, length as f64);
    let views = [
        View {
            title: "side view x-z (the membrane at z = 0, z in x's unit)".into(),
            across: (0, across("x", g.lx)),
            up: z(),
        },
        View {
            title: "side view y-z (the membrane at z = 0, z in y's unit)".into(),
            across: (1, across("y", g.ly)),
            up: z(),
        },
    ];
    let title = format!(
        "Epidermis   t = {:.3} (step {}, dt = {})   cells: {}, divisions: {}",
        s.step as f64 * g.dt,
        s.step,
        g.dt,
        s.cells,
        s.divisions
    ) + &match above {
        0 => String::new(),
        n => format!("   ({n} elements above z = {ceiling} not shown)"),
    };
    Ok(Figure::point_views(
        title,
        PICTURE_WIDTH,
        &views,
        &sets,
        g.element_radius as f64,
    )?)
}

/// Saves [`tissue_figure`] as PNG at each of `paths`.
pub fn write_picture(paths: &[&Path], s: &EpidermisState, g: &Geometry) -> Result<()> {
    let image = tissue_figure(s, g)?.render()?;
    for path in paths {
        image.save_png(path)?;
    }
    Ok(())
}

/// File name of the elements at `step`.
pub fn elements_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("elements_{step:07}.vtp"))
}

/// Width of the top view in pixels (one square view of the box).
const TOP_WIDTH: u32 = 700;

/// The tissue seen from above (x-y) at the state's step: every element a disc coloured as
/// [`element_sets`] sorts it, drawn from the membrane up (the suprabasal cells over the basal
/// ones, as they lie over them), so the sheet's cover and its gaps show; t and the step in the
/// title.
pub fn top_figure(s: &EpidermisState, g: &Geometry) -> Result<Figure> {
    // Drawn in the order they lie, from the membrane up.
    let (sets, _) = element_sets(s, |p| p.iter().all(|x| x.is_finite()));
    let across =
        |name: &str, length: f32| Axis::new(format!("{name} ({LENGTH_UNIT})"), 0.0, length as f64);
    let view = View {
        title: "top view x-y (from above)".into(),
        across: (0, across("x", g.lx)),
        up: (1, across("y", g.ly)),
    };
    let title = format!(
        "Epidermis   t = {:.3} (step {})   cells: {}",
        s.step as f64 * g.dt,
        s.step,
        s.cells
    );
    Ok(Figure::point_views(
        title,
        TOP_WIDTH,
        &[view],
        &sets,
        g.element_radius as f64,
    )?)
}

/// File name of the top view at `step`.
pub fn top_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("tissue_top_{step:07}.png"))
}

/// Saves [`top_figure`] as PNG at `path`.
pub fn write_top_picture(path: &Path, s: &EpidermisState, g: &Geometry) -> Result<()> {
    top_figure(s, g)?.render()?.save_png(path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::epidermis::state::{MAX_ELEMENTS, PLAIN};
    use petri_output::RgbImage;

    fn geometry() -> Geometry {
        Geometry {
            lx: 4.0,
            ly: 3.0,
            height: 2.0,
            layer_thickness: 0.5,
            dt: 0.01,
            element_radius: 0.05,
        }
    }

    /// Cell 0: basal, its 20 elements across the periodic x boundary around (0, 1.5, 0.2);
    /// cell 1: suprabasal, 20 elements around (2, 1, 1.1); cell 2: suprabasal, high (z 1.8).
    fn tissue() -> EpidermisState {
        let mut s = EpidermisState::empty(4);
        s.cells = 3;
        s.step = 250;
        s.divisions = 1;
        s.added = 21;
        let centres = [[0.0f32, 1.5, 0.2], [2.0, 1.0, 1.1], [3.0, 2.0, 1.8]];
        for (c, centre) in centres.iter().enumerate() {
            s.counts[c] = 20;
            for k in 0..20 {
                // Symmetric offsets: +-0.1 in x and y, +-0.05 in z.
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                let x = (centre[0] + sign * 0.1).rem_euclid(4.0);
                let y = centre[1] + sign * 0.1;
                let z = centre[2] + sign * 0.05;
                let kind = if c == 0 && k < 4 { ADHESIVE } else { PLAIN };
                s.pos[c * MAX_ELEMENTS + k] = [x, y, z, kind];
            }
            s.genes[c] = [1.0 + c as f32, 2.0, 3.0, 4.0, 5.0, 6.0, 0.7, 0.0];
        }
        s
    }

    #[test]
    fn observables_count_cells_by_type_and_layer() {
        let s = tissue();
        let o = Observed::of(&s, &geometry());
        let ob = &o.observables;
        assert_eq!((ob.cells, ob.elements), (3, 60));
        assert_eq!((ob.basal_cells, ob.suprabasal_cells), (1, 2));
        // Centres at z 0.2, 1.1, 1.8 with layers of 0.5: layers 1, 3, 4.
        assert_eq!(ob.cells_per_layer, [1, 0, 1, 1]);
        assert_eq!((ob.divisions, ob.added), (1, 21));
        assert_eq!(ob.mean_genes, [2.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert!((ob.max_z - 1.85).abs() < 1e-6);
        assert!((ob.time - 2.5).abs() < 1e-12);
        assert_eq!(ob.row().len(), Observables::columns().len());
        assert_eq!(ob.non_finite(), None);
        // The cell across x = 0 is centred at x = 0 (or just under 4), not at 2.
        let c0 = o.cells[0].centre;
        assert!(c0[0].min(4.0 - c0[0]) < 1e-5, "{c0:?}");
        assert!((c0[1] - 1.5).abs() < 1e-6 && (c0[2] - 0.2).abs() < 1e-6);
        let rows: Vec<Vec<f64>> = o.cell_rows().collect();
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| r.len() == cell_columns().len()));
        assert_eq!(&rows[1][..5], &[250.0, 2.5, 1.0, 0.0, 3.0]);
        assert_eq!(rows[0][3], 1.0);
        let mut bad = s.clone();
        bad.genes[1][Species::Ovol2 as usize] = f32::NAN;
        assert_eq!(
            Observed::of(&bad, &geometry()).observables.non_finite(),
            Some("mean ovol2")
        );
    }

    #[test]
    fn layers_start_at_one_on_the_membrane() {
        assert_eq!(layer(0.0, 0.5), 1);
        assert_eq!(layer(0.49, 0.5), 1);
        assert_eq!(layer(0.5, 0.5), 2);
        assert_eq!(layer(-0.1, 0.5), 1);
        assert_eq!(decimal(0.015).to_string(), "0.015");
        for x in [0.1f32, 1e-30, 3.4e38, -2.5, f32::from_bits(1)] {
            assert_eq!(decimal(x).to_string().parse::<f32>().unwrap(), x);
        }
    }

    #[test]
    fn the_elements_file_holds_every_element_with_its_cell() {
        let s = tissue();
        let dir = tempfile_dir();
        let path = elements_file(&dir, s.step);
        assert!(path.ends_with("elements_0000250.vtp"));
        write_elements(&path, &s, &geometry()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(text.contains("NumberOfPoints=\"60\""));
        for name in ["cell", "adhesive", "basal", "layer", "notch", "myc"] {
            assert!(text.contains(&format!("Name=\"{name}\"")), "{name}");
        }
    }

    #[test]
    fn the_side_view_shows_basal_cells_below_suprabasal_ones() {
        let mut s = tissue();
        // The adhesive elements on the membrane, under the cell's others.
        for p in s.pos[..4].iter_mut() {
            p[2] = 0.05;
        }
        let dir = tempfile_dir();
        let path = dir.join("tissue.png");
        write_picture(&[&path], &s, &geometry()).unwrap();
        let img = RgbImage::load_png(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(img.width, PICTURE_WIDTH as usize);
        let body = img.height - 40;
        let rows_of = |c: [u8; 3]| -> Vec<usize> {
            (0..body)
                .flat_map(|y| (0..img.width).map(move |x| (x, y)))
                .filter(|&(x, y)| img.get(x, y) == Some(c))
                .map(|p| p.1)
                .collect()
        };
        let (basal, supra) = (rows_of(BASAL), rows_of(SUPRABASAL));
        let adhesive = rows_of(ADHESIVE_ELEMENTS);
        assert!(!basal.is_empty() && !supra.is_empty() && !adhesive.is_empty());
        // Image rows grow downwards: every basal or adhesive pixel lies below every
        // suprabasal one.
        assert!(basal.iter().min() > supra.iter().max());
        assert!(adhesive.iter().min() > supra.iter().max());
        let mean = |rows: &[usize]| rows.iter().sum::<usize>() as f64 / rows.len() as f64;
        assert!(
            mean(&adhesive) > mean(&basal),
            "the adhesive elements lowest"
        );
        let legend = tissue_figure(&s, &geometry()).unwrap().panels[0]
            .points
            .clone();
        let labels: Vec<&str> = legend.iter().filter_map(|p| p.label.as_deref()).collect();
        assert_eq!(
            labels,
            [
                "suprabasal cells (2)",
                "basal cells (1)",
                "adhesive elements (4)"
            ]
        );
    }

    /// An element gone far up (z = 1e6, as from an initial radius of 1e6) neither makes the
    /// picture huge nor is silently dropped: the view stops at MAX_ASPECT box widths and the
    /// title counts the elements above.
    #[test]
    fn a_tissue_gone_far_up_keeps_a_small_picture() {
        let mut s = tissue();
        s.pos[0][2] = 1e6;
        let g = geometry();
        let f = tissue_figure(&s, &g).unwrap();
        let plain = tissue_figure(&tissue(), &g).unwrap();
        assert!(f.height <= 4 * PICTURE_WIDTH, "{}", f.height);
        assert!(f.height >= plain.height);
        assert!(f.title.contains("(1 elements above z = "), "{}", f.title);
        assert!(!plain.title.contains("above"), "{}", plain.title);
    }

    #[test]
    fn the_top_view_spans_the_box_and_draws_suprabasal_cells_over_basal_ones() {
        let g = geometry();
        let f = top_figure(&tissue(), &g).unwrap();
        assert_eq!(f.panels.len(), 1);
        let panel = &f.panels[0];
        assert_eq!((panel.x.lo, panel.x.hi), (0.0, g.lx as f64));
        assert_eq!((panel.y.lo, panel.y.hi), (0.0, g.ly as f64));
        // Drawn from the membrane up: the adhesive elements, the basal cells' other elements,
        // the suprabasal cells over them.
        let colors: Vec<[u8; 3]> = panel.points.iter().map(|p| p.color).collect();
        assert_eq!(colors, [ADHESIVE_ELEMENTS, BASAL, SUPRABASAL]);
        let s = tissue();
        let sizes: Vec<usize> = panel.points.iter().map(|p| p.points.len()).collect();
        // Cell 0 (basal) has 4 adhesive elements of its 20; cells 1 and 2 are suprabasal.
        assert_eq!(sizes, [4, 16, 40]);
        let dir = tempfile_dir();
        let path = top_file(&dir, s.step);
        write_top_picture(&path, &s, &g).unwrap();
        assert!(path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("tissue_top_"));
        let img = RgbImage::load_png(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(img.width, TOP_WIDTH as usize);
    }

    #[test]
    fn the_side_views_end_one_layer_above_the_tissue_and_name_their_unit() {
        // The highest element is at z 1.85 + 0.05 (cell 2); the box is 8 high.
        let g = Geometry {
            height: 8.0,
            ..geometry()
        };
        let figure = tissue_figure(&tissue(), &g).unwrap();
        for panel in &figure.panels {
            assert!((panel.y.hi - (1.9 + 0.5)).abs() < 1e-6, "{}", panel.y.hi);
            assert!(panel.x.label.ends_with("(unit: a basal cell's diameter)"));
            assert_eq!(panel.y.label, "z");
            assert!(panel.title.contains("the membrane at z = 0"));
        }
        // Axes of equal aspect: the picture is as tall as the tissue, not as the box.
        let mut low = tissue();
        low.cells = 1;
        let short = tissue_figure(&low, &g).unwrap();
        assert!(
            (short.panels[0].y.hi - 1.0).abs() < 1e-6,
            "two layers at least"
        );
        assert!(short.height < figure.height);
    }

    /// A fresh folder under the system's temporary folder.
    fn tempfile_dir() -> PathBuf {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "petri-epi-out-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
