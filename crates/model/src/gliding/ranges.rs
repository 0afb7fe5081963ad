//! The ranges the gliding config's values must lie in, shared by the config (params.rs) and
//! the parts that check their own settings (channel, filaments, motors).

use crate::error::{invalid, Result};

/// The allowed periods (grid.lx, grid.ly) and other lengths, viscosities, aspect ratios and
/// rates: wide, and within what the GPU's f32 arithmetic holds with the grid's sizes (1e-300 is
/// 0 in f32, 1e300 infinite).
pub const PERIODS: [f64; 2] = [1e-6, 1e6];
pub const MU: [f64; 2] = [1e-6, 1e6];
pub const EPS: [f64; 2] = [1e-3, 1e3];
pub const RATES: [f64; 2] = [0.0, 1e6];

/// Fails unless `v` is in `[lo, hi]` (NaN is not), naming `field` and saying `what` it is.
pub fn check_range(field: &str, v: f64, [lo, hi]: [f64; 2], what: &str) -> Result<()> {
    if !(lo..=hi).contains(&v) {
        let sci = |x: f64| match x {
            0.0 => "0".to_string(),
            x => format!("{x:e}"),
        };
        return Err(invalid(
            field,
            v,
            format!("{what} in [{}, {}]", sci(lo), sci(hi)),
        ));
    }
    Ok(())
}
