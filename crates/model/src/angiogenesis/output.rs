//! Files a biologist opens: VTK image data of n, f, c (ParaView), the vessel network as VTK
//! polydata, a PNG picture of the vessels over the TAF field, and a CSV of the observables.

use super::params::AngioConfig;
use super::state::{AngioState, FREE};
use super::uniforms::AngioUniforms;
use crate::error::Result;
use petri_output::{blend, colormap_viridis, write_image_data, write_polylines, RgbImage};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// n, f, c and the vessel indicator (1 where a sprout has been) as point data on the grid.
pub fn write_fields(path: &Path, cfg: &AngioConfig, s: &AngioState) -> Result<()> {
    let h = cfg.h();
    let vessel: Vec<f32> = s
        .occ
        .iter()
        .map(|&o| if o == FREE { 0.0 } else { 1.0 })
        .collect();
    write_image_data(
        path,
        cfg.grid.map(|n| n as usize),
        [h; 3],
        [0.0; 3],
        &[("n", &s.n), ("f", &s.f), ("c", &s.c), ("vessel", &vessel)],
    )?;
    Ok(())
}

/// The vessel network: one line per tip move, with the sprout id and step of each.
pub fn write_vessels(path: &Path, cfg: &AngioConfig, s: &AngioState) -> Result<()> {
    let u = AngioUniforms::new(cfg, 0.0);
    let h = cfg.h() as f32;
    let mut index: HashMap<u32, u32> = HashMap::new();
    let mut points = Vec::new();
    let mut point_of = |site: u32| -> u32 {
        *index.entry(site).or_insert_with(|| {
            let [x, y, z] = u.coords(site);
            points.push([x as f32 * h, y as f32 * h, z as f32 * h]);
            points.len() as u32 - 1
        })
    };
    let lines: Vec<[u32; 2]> = s
        .segments
        .iter()
        .map(|g| [point_of(g[0]), point_of(g[1])])
        .collect();
    let sprout: Vec<u32> = s.segments.iter().map(|g| g[2]).collect();
    let step: Vec<u32> = s.segments.iter().map(|g| g[3]).collect();
    write_polylines(
        path,
        &points,
        &lines,
        &[("sprout", &sprout), ("step", &step)],
    )?;
    Ok(())
}

/// Top view (x right, y up): the TAF c averaged over z in viridis, vessels (sites any sprout
/// visited, at any z) in white, whiter where more of the column is vessel, live tips in red. Scaled up so the picture is at least 600 px wide.
pub fn write_picture(path: &Path, cfg: &AngioConfig, s: &AngioState) -> Result<()> {
    let u = AngioUniforms::new(cfg, 0.0);
    let (nx, ny, nz) = (u.nx as usize, u.ny as usize, u.nz as usize);
    let mut mean_c = vec![0f32; nx * ny];
    let mut vessel = vec![0u32; nx * ny];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let i = u.index(x as u32, y as u32, z as u32);
                mean_c[x + nx * y] += s.c[i] / nz as f32;
                vessel[x + nx * y] += (s.occ[i] != FREE) as u32;
            }
        }
    }
    let mut tip_here = vec![false; nx * ny];
    for t in s.tips.iter().filter(|t| t.alive != 0) {
        let [x, y, _] = u.coords(t.site);
        tip_here[x as usize + nx * y as usize] = true;
    }
    let hi = mean_c.iter().cloned().fold(0f32, f32::max).max(1e-30);
    let scale = 600usize.div_ceil(nx).max(1);
    let mut img = RgbImage::new(nx * scale, ny * scale);
    for y in 0..ny {
        for x in 0..nx {
            let j = x + nx * y;
            let mut rgb = colormap_viridis(mean_c[j] / hi);
            if vessel[j] > 0 {
                // More occupied sites in the column: whiter.
                let depth = (vessel[j] as f32 / (0.05 * nz as f32).max(1.0)).min(1.0);
                rgb = blend(rgb, [255, 255, 255], 0.35 + 0.6 * depth);
            }
            if tip_here[j] {
                rgb = [230, 30, 30];
            }
            for py in 0..scale {
                for px in 0..scale {
                    // Row 0 of the picture is the top: y grows upwards.
                    img.set(x * scale + px, (ny - 1 - y) * scale + py, rgb)?;
                }
            }
        }
    }
    img.save_png(path)?;
    Ok(())
}

/// File name of the field snapshot at `step`.
pub fn fields_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("fields_{step:07}.vti"))
}
