//! Petri file writers: plain, well-known formats that biologists can open directly.
//!
//! * [`vtk`]: 3-D grids (`.vti`, graded `.vtr`), vessel/sprout line networks and point sets (`.vtp`) for
//!   ParaView.
//! * [`csv`]: time series of numbers, one row per step, for spreadsheets and pandas.
//! * [`picture`]: RGB pictures saved as PNG, with the viridis colour map.
//! * [`plot`]: figures a person reads (panels with axes, heat map and colour bar, lines, points,
//!   legend, title), saved as PNG.
//! * [`manifest`]: pretty-printed JSON describing a run.
//! * [`folder`]: what a run may find in its output folder (fresh, overwrite, continue).
//! * [`checkpoint`]: the one checkpoint container of every model (named typed arrays, checksum),
//!   saved through [`atomic`] replacement.
//!
//! Every writer validates its arguments and returns [`OutputError`] instead of panicking.

pub mod atomic;
pub mod checkpoint;
pub mod checksum;
pub mod csv;
pub mod error;
pub mod folder;
pub mod manifest;
pub mod picture;
pub mod plot;
pub mod vtk;

/// Error type shared by all writers.
pub use error::OutputError;

/// Buffered CSV writer with a fixed header.
pub use csv::TimeSeriesWriter;

/// Checkpoint container: write with [`CheckpointWriter`], read with [`CheckpointFile`].
pub use checkpoint::{CheckpointFile, CheckpointWriter};

/// Atomic, durable replacement of a file.
pub use atomic::write_atomically;

/// Output folders of runs.
pub use folder::{
    check_output_folder, listed_outputs, lock_holder, prepare_output_folder, publish_staged,
    staging_folder, FolderLock, FolderUse, CHECKPOINT_FILE, LOCK_FILE, MANIFEST_FILE, STAGING_DIR,
};

/// Pretty-printed JSON file writer.
pub use manifest::write_json_pretty;

/// RGB pictures, colour mapping and PNG output.
pub use picture::{blend, colormap_viridis, scalar_image, RgbImage, NAN_COLOR};

/// Figures with axes, colour bar and legend.
pub use plot::{
    Axis, Band, ColorScale, Figure, HeatMap, Lines, Panel, PlotArea, PointSet, Points, Rendered,
    View,
};

/// VTK XML writers: image data (`.vti`), rectilinear grids (`.vtr`), line segments and points
/// (`.vtp`).
pub use vtk::{write_image_data, write_points, write_polylines, write_rectilinear_grid, PointData};
