//! The pictures of a run, scheduled by the runtime for every model that draws its state
//! ([`Simulation::picture_name`]): a snapshot is the model's data files and a frame
//! (`NAME_STEP.png`), a frame step a frame alone, and the end the final data files, the last
//! frame (when snapshots or frames were on, so the film ends on the final state) and
//! `NAME.png`.

use super::contract::Simulation;
use crate::error::Result;
use std::path::{Path, PathBuf};

/// The frame of `step`: `NAME_STEP.png`, the step in seven digits at least.
pub fn frame_path(dir: &Path, name: &str, step: u64) -> PathBuf {
    dir.join(format!("{name}_{step:07}.png"))
}

/// The name of a file inside a folder, as the manifest lists it.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A snapshot at the current step: the data files and the frame; returns the file names.
pub fn snapshot<S: Simulation + ?Sized>(sim: &mut S, dir: &Path) -> Result<Vec<String>> {
    let mut files = sim.write_snapshot(dir)?;
    files.extend(frame(sim, dir)?);
    Ok(files)
}

/// The frame of the current step, for a model that draws.
pub fn frame<S: Simulation + ?Sized>(sim: &mut S, dir: &Path) -> Result<Vec<String>> {
    let Some(name) = sim.picture_name() else {
        return Ok(Vec::new());
    };
    let path = frame_path(dir, name, sim.step());
    sim.draw(&[&path])?;
    Ok(vec![file_name(&path)])
}

/// The final state: its data files, the last frame where the run made a film, the picture.
pub fn final_state<S: Simulation + ?Sized>(sim: &mut S, dir: &Path) -> Result<Vec<String>> {
    let mut files = sim.write_final_state(dir)?;
    let Some(name) = sim.picture_name() else {
        return Ok(files);
    };
    let schedule = sim.schedule();
    let picture = dir.join(format!("{name}.png"));
    let mut paths = Vec::new();
    if schedule.snapshot_every > 0 || schedule.frame_every > 0 {
        paths.push(frame_path(dir, name, sim.step()));
    }
    paths.push(picture);
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    sim.draw(&refs)?;
    files.extend(paths.iter().map(|p| file_name(p)));
    Ok(files)
}
