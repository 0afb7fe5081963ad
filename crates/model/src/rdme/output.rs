//! Files of an RDME run: the observables CSV (counts per site type and species), the kymograph
//! of one species (CSV and PNG), and VTK image data snapshots of the lattice (ParaView).

use super::analysis::KymographRow;
use super::config::RdmeConfig;
use super::lattice::Lattice;
use super::sim::Observables;
use crate::error::{ModelError, Result};
use petri_output::{colormap_viridis, RgbImage, TimeSeriesWriter};
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

/// The kymograph as a picture: one column per z plane, one row per observation with time
/// going down (at most `KYMOGRAPH_MAX_ROWS`, picked evenly), viridis scaled to the largest value.
/// With `sites_per_plane` a pixel is the count per site of the plane (0 where it has none), as
/// the analysis sees it; otherwise the count.
pub fn kymograph_image(rows: &[KymographRow], sites_per_plane: Option<&[u64]>) -> RgbImage {
    let planes = rows.first().map_or(0, |r| r.1.len());
    let height = rows.len().min(KYMOGRAPH_MAX_ROWS);
    let value = |z: usize, c: u64| match sites_per_plane {
        Some(sites) => match sites.get(z).copied().unwrap_or(0) {
            0 => 0.0,
            n => c as f64 / n as f64,
        },
        None => c as f64,
    };
    let max = rows
        .iter()
        .flat_map(|r| r.1.iter().enumerate().map(|(z, &c)| value(z, c)))
        .fold(0.0, f64::max);
    let max = if max > 0.0 { max } else { 1.0 };
    let mut img = RgbImage::new(planes, height);
    for y in 0..height {
        // Evenly spaced rows, the first and the last included.
        let i = if height > 1 {
            y * (rows.len() - 1) / (height - 1)
        } else {
            0
        };
        for (z, &c) in rows[i].1.iter().enumerate() {
            img.pixels[z + planes * y] = colormap_viridis((value(z, c) / max) as f32);
        }
    }
    img
}

pub fn write_kymograph_png(
    path: &Path,
    rows: &[KymographRow],
    sites_per_plane: Option<&[u64]>,
) -> Result<()> {
    Ok(kymograph_image(rows, sites_per_plane).save_png(path)?)
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

    #[test]
    fn kymograph_rows_are_subsampled_evenly_and_scaled_to_the_max() {
        let rows: Vec<KymographRow> = (0..2500).map(|i| (i as f64, vec![0, i % 7, 6])).collect();
        let img = kymograph_image(&rows, None);
        assert_eq!((img.width, img.height), (3, KYMOGRAPH_MAX_ROWS));
        assert_eq!(img.get(2, 0), Some(colormap_viridis(1.0)));
        assert_eq!(img.get(0, 999), Some(colormap_viridis(0.0)));
        // Last picture row is the last observation: 2499 % 7 = 0.
        assert_eq!(img.get(1, 999), Some(colormap_viridis(0.0)));
        let few = kymograph_image(&rows[..5], None);
        assert_eq!((few.width, few.height), (3, 5));
        assert_eq!(few.get(1, 4), Some(colormap_viridis(4.0 / 6.0)));
        // Per site: plane 2 holds 6 on 12 sites (0.5), plane 1 up to 4 on 2 sites (2.0, the
        // largest), plane 0 has no sites.
        let per_site = kymograph_image(&rows[..5], Some(&[0, 2, 12]));
        assert_eq!(per_site.get(2, 0), Some(colormap_viridis(0.25)));
        assert_eq!(per_site.get(1, 4), Some(colormap_viridis(1.0)));
        assert_eq!(per_site.get(0, 4), Some(colormap_viridis(0.0)));
    }
}
