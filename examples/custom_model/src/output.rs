//! The files a run writes of its state, through petri-output's writers: both fields as VTK image
//! data (`.vti`, opens in ParaView), and a picture of v (PNG, viridis from v's smallest value to
//! its largest, y up) that the runtime names and schedules.

use crate::config::GrayScottConfig;
use crate::state::GrayScottState;
use petri_model::error::Result;
use petri_output::{scalar_image, write_image_data};
use std::path::{Path, PathBuf};

/// `fields_STEP.vti` in `dir`.
pub fn fields_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("fields_{step:08}.vti"))
}

/// u and v at the cells' centres, one z layer.
pub fn write_fields(path: &Path, cfg: &GrayScottConfig, state: &GrayScottState) -> Result<()> {
    let h = cfg.h();
    let [nx, ny] = cfg.grid.map(|n| n as usize);
    write_image_data(
        path,
        [nx, ny, 1],
        [h, h, h],
        [0.5 * h, 0.5 * h, 0.0],
        &[("u", &state.u), ("v", &state.v)],
    )?;
    Ok(())
}

/// A picture of v, one pixel per cell.
pub fn write_picture(path: &Path, cfg: &GrayScottConfig, state: &GrayScottState) -> Result<()> {
    let [nx, ny] = cfg.grid.map(|n| n as usize);
    let finite = state.v.iter().copied().filter(|x| x.is_finite());
    let lo = finite.clone().fold(f32::INFINITY, f32::min);
    let hi = finite.fold(f32::NEG_INFINITY, f32::max);
    // A field with no finite value draws grey (NaN) on any range.
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.0, 1.0) };
    scalar_image(&state.v, nx, ny, lo, hi)?.save_png(path)?;
    Ok(())
}
