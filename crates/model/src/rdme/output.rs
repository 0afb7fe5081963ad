//! Files of an RDME run: the observables CSV (counts per site type and species), the kymograph
//! of one species (CSV, and a figure of it as PNG), and VTK image data snapshots of the lattice
//! (ParaView).

use super::analysis::KymographRow;
use super::config::RdmeConfig;
use super::lattice::Lattice;
use super::sim::Observables;
use crate::error::{invalid, ModelError, Result};
use petri_output::{colormap_viridis, Axis, ColorScale, Figure, HeatMap, Panel, TimeSeriesWriter};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The kymograph PNG has at most this many rows; longer runs are subsampled evenly.
pub const KYMOGRAPH_MAX_ROWS: usize = 1000;

/// Column names of observables.csv: step, time_s, "type:species" for every site type and
/// species (config order), overflow_moved.
pub fn observables_columns(cfg: &RdmeConfig) -> Vec<String> {
    let mut cols = vec!["step".to_string(), "time_s".to_string()];
    for t in &cfg.site_types {
        for s in &cfg.species {
            cols.push(format!("{t}:{s}"));
        }
    }
    cols.push("overflow_moved".into());
    cols
}

/// One row of observables.csv, in the order of `observables_columns`.
pub fn observables_row(o: &Observables) -> Vec<f64> {
    let mut row = vec![o.step as f64, o.time_s];
    for counts in &o.by_type {
        // Species id 0 marks an empty slot, not a species.
        row.extend(counts[1..].iter().map(|&c| c as f64));
    }
    row.push(o.overflow_moved as f64);
    row
}

/// The counts of one species along z over time: kymograph.csv (time_s, then one column per
/// z plane, "z0", "z1", ...) written as observations come, and the rows kept for the PNG and
/// the analysis.
pub struct Kymograph {
    pub species: String,
    species_id: usize,
    csv: TimeSeriesWriter,
    pub rows: Vec<KymographRow>,
}

impl Kymograph {
    /// Creates kymograph.csv; with `continue_from` (a resumed run's first step) the rows of an
    /// earlier run in the file before that step are kept, in the file and in `rows` (so the
    /// PNG and the analysis cover the whole run).
    pub fn create(
        path: &Path,
        cfg: &RdmeConfig,
        species: &str,
        continue_from: Option<u64>,
    ) -> Result<Self> {
        let species_id = cfg.species_id("output.kymograph_species", species)? as usize;
        let cols = kymograph_columns(cfg);
        let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
        // The file holds times only: rows half a step or more before the resumed step.
        let keep = continue_from.map(|step| {
            let before_s = (step as f64 - 0.5) * cfg.tau_s;
            move |row: &[f64]| row[0] < before_s
        });
        let (csv, earlier) = match keep {
            Some(keep) => TimeSeriesWriter::create_continued(path, &cols, keep)?,
            None => (TimeSeriesWriter::create(path, &cols)?, Vec::new()),
        };
        let rows = earlier
            .iter()
            .map(|row| (row[0], row[1..].iter().map(|&c| c as u64).collect()))
            .collect();
        Ok(Self {
            species: species.to_string(),
            species_id,
            csv,
            rows,
        })
    }

    pub fn push(&mut self, o: &Observables) -> Result<()> {
        let counts: Vec<u64> = o.by_plane.iter().map(|p| p[self.species_id]).collect();
        let mut row = vec![o.time_s];
        row.extend(counts.iter().map(|&c| c as f64));
        self.csv.write_row(&row)?;
        self.rows.push((o.time_s, counts));
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        Ok(self.csv.flush()?)
    }

    /// Flushes and syncs kymograph.csv (before a checkpoint).
    pub fn sync(&mut self) -> Result<()> {
        Ok(self.csv.sync()?)
    }
}

/// Columns of kymograph.csv: time_s, then one per z plane, "z0", "z1", ...
fn kymograph_columns(cfg: &RdmeConfig) -> Vec<String> {
    let mut cols = vec!["time_s".to_string()];
    cols.extend((0..cfg.lattice.shape[2]).map(|z| format!("z{z}")));
    cols
}

/// The rows of a finished run's kymograph.csv (written for `cfg`): an error names the file and
/// what is wrong (missing, another lattice's header, a row that is not numbers).
pub fn read_kymograph(path: &Path, cfg: &RdmeConfig) -> Result<Vec<KymographRow>> {
    let bad = |message: String| ModelError::Parse {
        path: path.display().to_string(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let columns = kymograph_columns(cfg);
    let planes = columns.len() - 1;
    let mut lines = text.lines();
    if lines.next() != Some(columns.join(",").as_str()) {
        return Err(bad(format!(
            "the header is not time_s and {planes} planes z0..z{}: written for another lattice?",
            planes - 1
        )));
    }
    lines
        .enumerate()
        .map(|(i, line)| {
            let values: Option<Vec<f64>> = line.split(',').map(|v| v.parse().ok()).collect();
            match values {
                Some(v) if v.len() == columns.len() && v[1..].iter().all(|c| *c >= 0.0) => {
                    Ok((v[0], v[1..].iter().map(|&c| c as u64).collect()))
                }
                _ => Err(bad(format!(
                    "line {}: expected {} numbers (time, then counts)",
                    i + 2,
                    planes + 1
                ))),
            }
        })
        .collect()
}

/// The kymograph figure has at most this many time columns; longer runs show evenly spaced
/// observations.
pub const KYMOGRAPH_MAX_TIMES: usize = 1000;

/// Size of the kymograph figure in pixels.
pub const KYMOGRAPH_SIZE: (u32, u32) = (1000, 520);

/// The kymograph of `cfg`'s kymograph species as a figure: time (s) across and position along
/// the cell's long axis z (µm; plane z spans z λ to (z + 1) λ) up, so a pole-to-pole
/// oscillation reads left to right as a zigzag, as in the literature's kymographs. Column k
/// shows the observation nearest its time, the columns evenly spaced from the first
/// observation to the last (at most [`KYMOGRAPH_MAX_TIMES`]). With `sites_per_plane` the value
/// is the count per site of the plane (of `output.kymograph_site_type`), as the analysis sees
/// it, and planes with no such sites are grey; otherwise the count. The colour bar runs from 0
/// to the largest value; the title names the species and the time span.
pub fn kymograph_figure(
    cfg: &RdmeConfig,
    rows: &[KymographRow],
    sites_per_plane: Option<&[u64]>,
) -> Result<Figure> {
    let species = cfg.output.kymograph_species.as_deref().unwrap_or("?");
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Err(invalid("kymograph rows", 0, "at least one observation"));
    };
    let planes = first.1.len();
    let value = |z: usize, c: u64| match sites_per_plane {
        Some(sites) => match sites.get(z).copied().unwrap_or(0) {
            0 => f32::NAN,
            n => (c as f64 / n as f64) as f32,
        },
        None => c as f32,
    };
    let (t0, t1) = (first.0, last.0);
    let columns = rows.len().min(KYMOGRAPH_MAX_TIMES);
    // A single observation gets a column one step wide.
    let dt = match columns {
        1 => cfg.tau_s,
        n => (t1 - t0) / (n - 1) as f64,
    };
    let mut values = vec![f32::NAN; columns * planes];
    for k in 0..columns {
        let row = &rows[nearest(rows, t0 + k as f64 * dt)].1;
        for (z, &c) in row.iter().enumerate().take(planes) {
            values[k + columns * z] = value(z, c);
        }
    }
    let hi = values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f32::max);
    let hi = if hi > 0.0 { hi as f64 } else { 1.0 };
    let um = cfg.lattice.spacing_m * 1e6;
    let length = planes as f64 * um;
    let (quantity, unit) = match (sites_per_plane, &cfg.output.kymograph_site_type) {
        (Some(_), Some(t)) => (
            format!("{species} per {t} site"),
            format!("{species} / site"),
        ),
        (Some(_), None) => (format!("{species} per site"), format!("{species} / site")),
        (None, _) => (format!("{species} per plane"), format!("{species} count")),
    };
    let (x_lo, x_hi) = if columns == 1 {
        (t0 - 0.5 * dt, t0 + 0.5 * dt)
    } else {
        (t0, t1)
    };
    let mut panel = Panel::new(
        format!("{quantity} along the long axis"),
        Axis::new("time (s)", x_lo, x_hi),
        Axis::new("position along the long axis z (µm)", 0.0, length),
    );
    // Cells centred on the columns' times; the half cells beyond the ends are not drawn.
    panel.heat_map = Some(HeatMap {
        values,
        nx: columns,
        ny: planes,
        x: t0 - 0.5 * dt..t0 + (columns as f64 - 0.5) * dt,
        y: 0.0..length,
    });
    Ok(Figure {
        width: KYMOGRAPH_SIZE.0,
        height: KYMOGRAPH_SIZE.1,
        title: format!(
            "Kymograph of {species}, t = {} to {} s ({} observations)",
            seconds(t0),
            seconds(t1),
            rows.len()
        ),
        panels: vec![panel],
        color_scale: Some(ColorScale {
            label: unit,
            lo: 0.0,
            hi,
            map: colormap_viridis,
        }),
    })
}

/// The index of the row whose time is nearest `t` (rows in time order).
fn nearest(rows: &[KymographRow], t: f64) -> usize {
    let after = rows.partition_point(|r| r.0 < t).min(rows.len() - 1);
    match after {
        0 => 0,
        i if t - rows[i - 1].0 <= rows[i].0 - t => i - 1,
        i => i,
    }
}

/// A time for a title: six significant digits at most, without float noise (0.0003, not
/// 0.00030000000000000003).
fn seconds(t: f64) -> String {
    crate::error::short(format!("{t:.5e}").parse().unwrap_or(t))
}

/// Writes [`kymograph_figure`] as a PNG.
pub fn write_kymograph_png(
    path: &Path,
    cfg: &RdmeConfig,
    rows: &[KymographRow],
    sites_per_plane: Option<&[u64]>,
) -> Result<()> {
    Ok(kymograph_figure(cfg, rows, sites_per_plane)?.save_png(path)?)
}

/// File name of the lattice snapshot at `step`.
pub fn snapshot_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("lattice_{step:09}.vti"))
}

/// Writes the lattice as VTK XML ImageData with one cell per site (extent 0..shape, spacing
/// lambda): a UInt8 cell array of counts per site for each listed species, and `site_type`.
/// petri_output's writer has point data only; sites are voxels, hence cell data here.
pub fn write_snapshot(
    path: &Path,
    cfg: &RdmeConfig,
    lattice: &Lattice,
    species: &[String],
) -> Result<()> {
    let mut arrays: Vec<(String, Vec<u8>)> = Vec::new();
    for name in species {
        let id = cfg.species_id("output.snapshot_species", name)? as u8;
        let counts = (0..lattice.sites())
            .map(|i| lattice.particles(i).iter().filter(|&&s| s == id).count() as u8)
            .collect();
        arrays.push((name.clone(), counts));
    }
    arrays.push(("site_type".into(), lattice.types.clone()));

    let [nx, ny, nz] = lattice.shape;
    let h = cfg.lattice.spacing_m;
    let extent = format!("0 {nx} 0 {ny} 0 {nz}");
    let mut xml = String::from("<?xml version=\"1.0\"?>\n");
    xml.push_str("<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n");
    xml.push_str(&format!(
        "  <ImageData WholeExtent=\"{extent}\" Origin=\"0 0 0\" Spacing=\"{h} {h} {h}\">\n"
    ));
    xml.push_str(&format!("    <Piece Extent=\"{extent}\">\n"));
    xml.push_str("      <PointData>\n      </PointData>\n");
    // The first array (a species if any are listed) is the one ParaView colours by.
    xml.push_str(&format!(
        "      <CellData Scalars=\"{}\">\n",
        escape(&arrays[0].0)
    ));
    let mut offset = 0;
    for (name, values) in &arrays {
        xml.push_str(&format!(
            "        <DataArray type=\"UInt8\" Name=\"{}\" NumberOfComponents=\"1\" format=\"appended\" offset=\"{offset}\"/>\n",
            escape(name)
        ));
        offset += 8 + values.len();
    }
    xml.push_str("      </CellData>\n    </Piece>\n  </ImageData>\n");
    xml.push_str("  <AppendedData encoding=\"raw\">\n   _");

    Ok(petri_output::write_atomically(path, |out| {
        out.write_all(xml.as_bytes())?;
        for (_, values) in &arrays {
            out.write_all(&(values.len() as u64).to_le_bytes())?;
            out.write_all(values)?;
        }
        out.write_all(b"\n  </AppendedData>\n</VTKFile>\n")
    })?)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3-plane lattice of 0.5 µm spacing, kymograph of B (per membrane site when asked).
    fn config() -> RdmeConfig {
        serde_json::from_value(serde_json::json!({
            "model": "rdme",
            "lattice": { "shape": [2, 2, 3], "spacing_m": 5e-7 },
            "tau_s": 0.1, "steps": 10, "seed": 1,
            "site_types": ["cytoplasm", "membrane"],
            "species": ["A", "B"],
            "output": { "kymograph_species": "B", "kymograph_site_type": "membrane" }
        }))
        .unwrap()
    }

    /// The colour the figure shows at time `t`, position `z_um`.
    fn colour_at(drawn: &petri_output::Rendered, t: f64, z_um: f64) -> [u8; 3] {
        let (x, y) = drawn.panels[0].pixel(t, z_um);
        drawn.image.get(x as usize, y as usize).unwrap()
    }

    #[test]
    fn the_kymograph_shows_time_across_and_position_up() {
        // 2500 observations 1 s apart; plane 2 always holds 6, plane 1 counts i % 7, plane 0 none.
        let rows: Vec<KymographRow> = (0..2500).map(|i| (i as f64, vec![0, i % 7, 6])).collect();
        let cfg = config();
        let fig = kymograph_figure(&cfg, &rows, None).unwrap();
        assert_eq!((fig.width, fig.height), KYMOGRAPH_SIZE);
        assert!(
            fig.title.contains("B") && fig.title.contains("t = 0 to 2499 s"),
            "{}",
            fig.title
        );
        let map = fig.panels[0].heat_map.as_ref().unwrap();
        assert_eq!((map.nx, map.ny), (KYMOGRAPH_MAX_TIMES, 3));
        let scale = fig.color_scale.as_ref().unwrap();
        assert_eq!((scale.lo, scale.hi), (0.0, 6.0));
        let (x, y) = (&fig.panels[0].x, &fig.panels[0].y);
        assert_eq!((x.lo, x.hi, y.lo, y.hi), (0.0, 2499.0, 0.0, 1.5));
        assert!(x.label.contains("(s)") && y.label.contains("(µm)"));
        let drawn = fig.render_with_layout().unwrap();
        // Plane 2 (1 to 1.5 µm) is the largest value: the bar's top colour; plane 0 the bottom.
        let bar = drawn.color_bar.as_ref().unwrap();
        let (bx, by) = bar.pixel(0.5, 5.99);
        let top = drawn.image.get(bx as usize, by as usize).unwrap();
        for t in [100.0, 1200.0, 2400.0] {
            let high = colour_at(&drawn, t, 1.25);
            assert_eq!(high, colormap_viridis(1.0));
            assert!(
                high.iter().zip(&top).all(|(a, b)| a.abs_diff(*b) <= 2),
                "{high:?} {top:?}"
            );
            assert_eq!(colour_at(&drawn, t, 0.25), colormap_viridis(0.0));
        }
        // Columns are the nearest observations: column 500 is at 500 x 2499 / 999 = 1250.75 s
        // (observation 1251, 1251 % 7 = 5 in plane 1), the last one the last observation.
        let plane_1 = |k: usize| map.values[k + KYMOGRAPH_MAX_TIMES];
        assert_eq!((plane_1(0), plane_1(500), plane_1(999)), (0.0, 5.0, 0.0));

        // Five observations: one column each, plane 1 at t = 4 holds 4 of 6.
        let few = kymograph_figure(&cfg, &rows[..5], None).unwrap();
        assert_eq!(few.panels[0].heat_map.as_ref().unwrap().nx, 5);
        let drawn = few.render_with_layout().unwrap();
        assert_eq!(colour_at(&drawn, 3.9, 0.75), colormap_viridis(4.0 / 6.0));
        assert_eq!(colour_at(&drawn, 1.0, 0.75), colormap_viridis(1.0 / 6.0));

        // Per site: plane 2 holds 6 on 12 sites (0.5), plane 1 up to 4 on 2 sites (2.0, the
        // largest); plane 0 has no membrane sites and is grey.
        let per_site = kymograph_figure(&cfg, &rows[..5], Some(&[0, 2, 12])).unwrap();
        assert!(per_site.panels[0].title.contains("B per membrane site"));
        assert_eq!(per_site.color_scale.as_ref().unwrap().hi, 2.0);
        let drawn = per_site.render_with_layout().unwrap();
        assert_eq!(colour_at(&drawn, 2.0, 1.25), colormap_viridis(0.25));
        assert_eq!(colour_at(&drawn, 3.9, 0.75), colormap_viridis(1.0));
        assert_eq!(
            colour_at(&drawn, 3.9, 0.25),
            petri_output::picture::NAN_COLOR
        );
        assert!(kymograph_figure(&cfg, &[], None).is_err());
    }

    #[test]
    fn the_nearest_observation_is_picked() {
        let rows: Vec<KymographRow> = [0.0, 1.0, 3.0].iter().map(|&t| (t, vec![])).collect();
        let at: Vec<usize> = [-1.0, 0.4, 0.6, 1.9, 2.1, 9.0]
            .iter()
            .map(|&t| nearest(&rows, t))
            .collect();
        assert_eq!(at, [0, 0, 1, 1, 2, 2]);
        assert_eq!(seconds(3.0000000000000004e-4), "0.0003");
    }
}
