//! What the tests share: a GPU context that fails the test without an adapter (never skips), a
//! small config at Pearson's spacing, scratch folders.
#![allow(dead_code)]

use gray_scott::GrayScottConfig;
use petri_engine::GpuContext;
use std::path::PathBuf;

/// The GPU for a test; panics when there is none (`petri_engine::testing`).
pub fn ctx() -> GpuContext {
    petri_engine::testing::test_context()
}

/// Pearson's parameters and spacing h = 2.5/256 on an n x n grid (a 0.625 x 0.625 domain at
/// n = 64), his 20-cell square in the middle.
pub fn small(n: u32) -> GrayScottConfig {
    GrayScottConfig {
        grid: [n, n],
        length: n as f64 * 2.5 / 256.0,
        square: 20.min(n),
        steps: 200,
        observe_every: 50,
        ..GrayScottConfig::default()
    }
}

/// An empty folder name under the system's temp folder, for this process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gray-scott-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
